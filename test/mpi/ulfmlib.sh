# Helpers of the online-recovery tests (ulfm_*.sh; sourced after lib.sh, not
# a test itself: no '_' in its name). examples/heatdis on 4 application
# ranks and spares, each job in one mpiexec --with-ft ulfm.
if [ "${FTI_HAVE_ULFM:-OFF}" != ON ]; then
  echo "SKIP: this build's MPI has no ULFM (configure summary: 'Online recovery (ULFM)');" \
    "the ulfm label runs in scripts/test.sh's Open MPI 5 stage"
  exit 77
fi
[ "$(id -u)" -ne 0 ] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
H="$FTI_BUILD_DIR/examples/heatdis"
ITERS=80
ARGS=(--rows 64 --cols 64 --iters "$ITERS")

# The kills below come from outside, SIGKILL as a lost node gives: a
# process that exits (FTI_FAULT's crash, _exit) is not a failure to Open MPI.
# rank_pid R: the process of MPI_COMM_WORLD rank R of this test's running
# heatdis. ctest runs tests side by side: another test's job has a rank R
# too, so the process must also carry this test's FTI_TEST_DIR (the ranks
# inherit mpiexec's environment).
export FTI_TEST_DIR="$T"
rank_pid() {
  local p env
  for p in $(pgrep -f "$H"); do
    env="$(tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null)" || continue
    grep -qx "OMPI_COMM_WORLD_RANK=$1" <<< "$env" && grep -qxF "FTI_TEST_DIR=$T" <<< "$env" &&
      echo "$p"
  done
  return 0
}
# kill_at LOG REGEX RANK...: in the background, once LOG matches REGEX, SIGKILL those ranks.
kill_at() {
  local log="$1" re="$2" r; shift 2
  for _ in $(seq 1 1200); do grep -Eq "$re" "$log" 2>/dev/null && break; sleep 0.1; done
  for r in "$@"; do kill -9 $(rank_pid "$r") 2>/dev/null || true; done
}
delayed() { echo "r$1\] warning: fault injection: 1 s delay"; }

# run NAME SPARES CONFIG [heatdis options...]: one job of RANKS (default 4)
# + SPARES ranks; its log in $T/NAME.log, its digest in $T/NAME.out; returns
# mpiexec's status (124 after 120 s). Open MPI 5 sometimes hangs in
# MPI_Finalize after a process failed (PMIx's fence waits for the dead
# process: open-mpi/ompi issues 9434, 11404): when rank 0 has written its
# digest and its stats line and mpiexec is still there FINALIZE_WAIT (5) s
# later, the job is stopped, said so and counted as ended (status 0); the
# results are checked as usual.
# stop_job PID: ends mpiexec PID and its processes. Open MPI's mpiexec
# waiting on a dead process ("Abort is in progress") ignores one SIGTERM:
# after 5 s its children and itself get SIGKILL (by their process ids).
stop_job() {
  local pid="$1" c
  kill "$pid" 2>/dev/null || return 0
  for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  if kill -0 "$pid" 2>/dev/null; then
    for c in $(pgrep -P "$pid"); do kill -9 "$c" 2>/dev/null || true; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

run_once() {
  local name="$1" spares="$2" cfg="$3" pid now done_at="" abort_at="" t0="$EPOCHREALTIME"; shift 3
  rm -rf "$T/nodes" "$T/global" "$T/meta" "$T/$name.out"; mkdir -p "$T/nodes" "$T/global" "$T/meta"
  "$MPIEXEC" --with-ft=ulfm -n $((${RANKS:-4} + spares)) -bind-to none \
    "$H" "${ARGS[@]}" --config "$cfg" --output "$T/$name.out" "$@" > "$T/$name.log" 2>&1 &
  pid=$!
  [ -z "${KILL_AT:-}" ] || kill_at "$T/$name.log" "${KILL_AT%%|*}" ${KILL_AT#*|} &
  # polled every 0.1 s (most jobs take well under a second)
  while kill -0 "$pid" 2>/dev/null; do
    sleep 0.1; now="$EPOCHREALTIME"
    if [ -z "$done_at" ] && [ -s "$T/$name.out" ] && grep -q "^heatdis-stats" "$T/$name.log"; then
      done_at=$now
    fi
    if [ -n "$done_at" ] && after "$done_at" "$now" "$FINALIZE_WAIT"; then
      echo "note: $name: mpiexec still running $FINALIZE_WAIT s after the results (Open MPI's" \
        "MPI_Finalize after a failure: open-mpi/ompi#11404); stopped"
      stop_job "$pid"; return 0
    fi
    # an aborted job (ours or Open MPI's) whose mpiexec waits on the dead
    # process: stopped 10 s after the abort, it failed
    if [ -z "$abort_at" ] && grep -Eaq "MPI_ABORT was invoked|MPI_ERRORS_ARE_FATAL" "$T/$name.log"; then
      abort_at=$now
    fi
    if [ -n "$abort_at" ] && after "$abort_at" "$now" 10; then
      stop_job "$pid"; return 1
    fi
    ! after "$t0" "$now" 120 || { stop_job "$pid"; return 124; }
  done
  wait "$pid"
}
# after FROM NOW S: NOW is S seconds or more after FROM (EPOCHREALTIME values).
after() { awk -v a="$1" -v b="$2" -v s="$3" 'BEGIN { exit !(b - a >= s) }'; }
FINALIZE_WAIT=5

# Open MPI 5.0.11 itself sometimes aborts a job that a failure hit while its
# MPI_Sendrecv or a nonblocking collective met the revoked communicator, or
# inside MPIX_Comm_shrink when two ranks died at once (ompi_comm_revoke_local).
# Such a job (it failed or left no digest) is run again, said so, at most
# twice; any other end counts. Not "Send error after request freed": that
# one came from heatdis's MPI_Waitall (now one MPI_Wait per request,
# docs/USER_GUIDE.md) and would again, were a wait of the library's or of
# heatdis's to free requests in flight: it fails the test.
OMPI_ABORTS="Error in NBC_Start_round|PMPI_Sendrecv|ompi_comm_revoke_local"
run() {
  local attempt rc=0
  for attempt in 1 2 3; do
    rc=0; T0="$EPOCHREALTIME"; run_once "$@" || rc=$?
    wait # the background killer of KILL_AT
    if ! { [ "$rc" -ne 0 ] || [ ! -s "$T/$1.out" ]; } || ! grep -Eaq "$OMPI_ABORTS" "$T/$1.log"; then
      [ "$rc" = 0 ] || echo "note: $1: status $rc after $(awk -v a="$T0" -v b="$EPOCHREALTIME" \
        'BEGIN { printf "%.1f", b - a }') s, log of $(wc -c < "$T/$1.log") bytes"
      return "$rc"
    fi
    echo "note: $1: Open MPI aborted the job ($(grep -Eao "$OMPI_ABORTS" "$T/$1.log" | head -1)); run again"
  done
  return "$rc"
}

# recovered NAME LEVEL: the job ended well, one repair is logged, the
# restart came from LEVEL (a digit, or a bracket expression: [12]) and the
# digest is the fault-free one.
recovered() {
  local name="$1" level="$2"
  grep -q "online recovery: [0-9] ranks\? replaced by spares" "$T/$name.log" ||
    { cat "$T/$name.log"; fail "$name: no online recovery logged"; }
  grep -q "Recovering successfully from level $level" "$T/$name.log" ||
    { cat "$T/$name.log"; fail "$name: not restored from level $level"; }
  cmp -s "$T/ref.out" "$T/$name.out" ||
    { diff "$T/ref.out" "$T/$name.out" | head; fail "$name: digest differs from the fault-free run"; }
}

cfg_for() { # cfg_for LEVEL SPARES; LEVEL 12: L1 every 5 iterations and L2 every 10
  local every=("ckpt_l$1_iter=10")
  [ "$1" != 12 ] || every=(ckpt_l1_iter=5 ckpt_l2_iter=10)
  write_config "$T/l$1-s$2.fti" "${every[@]}" online_recovery=1 "spare_ranks=$2" keep_all_levels=0
  echo "$T/l$1-s$2.fti"
}

