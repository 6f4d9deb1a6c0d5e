#!/usr/bin/env bash
# Launcher shim for the test scripts under Open MPI (cmake/FTITesting.cmake puts
# it in MPIEXEC only when MPIEXEC_EXECUTABLE --version says Open MPI; under
# MPICH the scripts call mpiexec directly). The scripts are written for MPICH's
# Hydra: "-bind-to none" with one dash, and any number of ranks on any number of
# cores. Open MPI 5 (PRRTE) reads "-bind-to" as other options and takes "none"
# for the program, and refuses more ranks than cores. So: "-bind-to" becomes
# "--bind-to" among the launcher's options (up to the program), and
# oversubscription is allowed unless the caller chose a mapping policy.
# Running as root still needs OMPI_ALLOW_RUN_AS_ROOT=1 and
# OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 in the caller's environment (not set here).
#
# Open MPI 5 keeps its session in $TMPDIR/ompi.<mpiexec's pid>, and a killed
# mpiexec (SIGKILL: a test's stop, fti-fault's, a time limit) leaves it there;
# a later mpiexec of the same process id then fails at once ("The PMIx
# server's listener thread failed to start"). So each launch gets TMPDIR of
# its own, named by its process id (exec keeps the id), in the test's folder:
# a folder of that name is a dead process's, removed first
# (test/mpi/l1_launch_stale.sh).
real="${FTI_REAL_MPIEXEC:?FTI_REAL_MPIEXEC: the Open MPI mpiexec to run}"
export PRTE_MCA_rmaps_default_mapping_policy="${PRTE_MCA_rmaps_default_mapping_policy:-:OVERSUBSCRIBE}"
export OMPI_MCA_rmaps_base_oversubscribe="${OMPI_MCA_rmaps_base_oversubscribe:-1}" # Open MPI 4
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -bind-to|--bind-to) args+=(--bind-to "$2"); shift 2 ;;
    -n|-np|--n|--np) args+=("$1" "$2"); shift 2 ;;
    -*) args+=("$1"); shift ;;
    *) break ;;   # the program: its arguments pass as they are
  esac
done
session="${FTI_TEST_DIR:-${TMPDIR:-/tmp}}/.mpiexec.$$"
rm -rf "$session" && mkdir -p "$session" && export TMPDIR="$session"
exec "$real" "${args[@]}" "$@"
