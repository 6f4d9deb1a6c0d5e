#!/usr/bin/env bash
# test.sh: installs dependencies, builds everything in build/ and runs the whole
# test suite with ctest. Exits non-zero when the build or any test fails.
#
#   scripts/test.sh [--no-root] [extra ctest arguments, e.g. -L l1 or -R heatdis]
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
# FTI_TEST_UNPRIVILEGED=0) runs everything as the current user.
#
# Environment: FTI_BUILD_DIR (default build/), FTI_TEST_JOBS (ctest -j, default
# 2: two 4-rank MPI tests share the 2 cores; the libraries' waits block rather
# than spin, and every test's time limit allows a 4x slower machine), FTI_TEST_TIMEOUT (seconds
# for the whole ctest run, default 3600), FTI_TEST_SANITIZE (default 1: a second
# build with AddressSanitizer + UndefinedBehaviorSanitizer runs the functional
# labels again; 0 skips it).
#
# Label "timing" (speed comparisons) is left out: speed is measured in bench/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${FTI_BUILD_DIR:-$ROOT/build}"
JOBS="${FTI_TEST_JOBS:-2}"
TOTAL_TIMEOUT="${FTI_TEST_TIMEOUT:-3600}"

NO_ROOT=0
if [ "${1:-}" = --no-root ]; then NO_ROOT=1; shift; fi
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

cd "$ROOT"
echo "== dependencies"
./scripts/deps.sh
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

exit "$rc"
