#!/usr/bin/env bash
# test.sh: installs dependencies, builds everything in build/ and runs the whole
# test suite with ctest. Exits non-zero when the build or any test fails.
#
#   scripts/test.sh [extra ctest arguments, e.g. -L l1 or -R heatdis]
#
# Environment: FTI_BUILD_DIR (default build/), FTI_TEST_JOBS (ctest -j, default
# 1: the MPI tests run 4 ranks on a 2-core machine), FTI_TEST_TIMEOUT (seconds
# for the whole ctest run, default 3600), FTI_TEST_SANITIZE (default 1: a second
# build with AddressSanitizer + UndefinedBehaviorSanitizer runs the functional
# labels again; 0 skips it).
#
# Label "timing" (speed comparisons) is left out: speed is measured in bench/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${FTI_BUILD_DIR:-$ROOT/build}"
JOBS="${FTI_TEST_JOBS:-1}"
TOTAL_TIMEOUT="${FTI_TEST_TIMEOUT:-3600}"

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
timeout --kill-after=30 "$TOTAL_TIMEOUT" \
  ctest --output-on-failure --no-tests=error -j"$JOBS" --timeout 600 -LE timing "$@" || rc=$?
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
    timeout --kill-after=30 "$TOTAL_TIMEOUT" \
    ctest --output-on-failure --no-tests=error -j"$JOBS" --timeout 600 \
      -L 'unit|l1|l2|l3|l4|head|gpu|tools|fpga' -LE 'timing|example' || srv=$?
  [ "$srv" -eq 0 ] || rc=$srv
fi
exit "$rc"
