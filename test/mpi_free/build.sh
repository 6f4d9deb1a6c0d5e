#!/usr/bin/env bash
# build.sh: the MPI-free half where there is no MPI. Configures the sources
# with FTI_MPI_FREE_ONLY=ON in a scratch folder, with find_package(MPI)
# disabled and a PATH without MPI's programs (mpicc, mpiexec...), builds
# fti_format, its unit tests and fti-ckpt, and runs that build's tests
# (the unit tests and its mpi_free_needed, which there reads ldd's whole
# closure of fti-ckpt too).
set -u
T="${FTI_TEST_DIR:?run through ctest}"
rm -rf "$T" && mkdir -p "$T/bin"
fail() { echo "FAIL: $*"; exit 1; }

# PATH without MPI's programs: a folder that holds one is replaced by
# $T/bin, links to its other programs (the first of each name); the other
# folders stay (FindCUDAToolkit finds the toolkit from nvcc's own folder).
mpi_prog() { case "$(basename "$1")" in mpi* | ompi* | orte* | hydra* | *mpicc*) return 0 ;; esac; return 1; }
IFS=: read -ra dirs <<< "$PATH"
path=""
for d in "${dirs[@]}"; do
  has_mpi=0
  for f in "$d"/*; do mpi_prog "$f" && [ -x "$f" ] && has_mpi=1 && break; done
  if [ "$has_mpi" = 0 ]; then
    path="$path:$d"
    continue
  fi
  for f in "$d"/*; do
    b=$(basename "$f")
    mpi_prog "$f" || { [ -x "$f" ] && [ ! -d "$f" ] && [ ! -e "$T/bin/$b" ] && ln -s "$f" "$T/bin/$b"; }
  done
  [[ ":$path:" == *":$T/bin:"* ]] || path="$path:$T/bin"
done
export PATH="${path#:}"
! command -v mpicc > /dev/null || fail "mpicc still on PATH: $(command -v mpicc)"
! command -v mpiexec > /dev/null || fail "mpiexec still on PATH: $(command -v mpiexec)"
unset FTI_MPICC MPIEXEC FTI_REAL_MPIEXEC

"${CMAKE_COMMAND:?}" -S "${FTI_SOURCE_DIR:?}" -B "$T/build" -DCMAKE_C_COMPILER="${FTI_CC:?}" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFTI_MPI_FREE_ONLY=ON -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON \
  -DFTI_ENABLE_FORTRAN=OFF > "$T/configure.log" 2>&1 || { cat "$T/configure.log"; fail "configure"; }
grep -q "MPI: not looked for (FTI_MPI_FREE_ONLY=ON)" "$T/configure.log" \
  || { cat "$T/configure.log"; fail "the summary does not say MPI was not looked for"; }
! grep -Eq '^MPI_C_(COMPILER|LIB_NAMES|HEADER_DIR)' "$T/build/CMakeCache.txt" \
  || fail "MPI in the cache: $(grep -E '^MPI_C_' "$T/build/CMakeCache.txt" | head -3)"
echo "ok: configured without MPI"

nice -n 19 "$CMAKE_COMMAND" --build "$T/build" -j2 > "$T/build.log" 2>&1 \
  || { tail -40 "$T/build.log"; fail "build"; }
[ -x "$T/build/tools/fti-ckpt" ] || fail "no fti-ckpt built"
[ ! -e "$T/build/libfti.so" ] || fail "libfti.so was built (it needs MPI)"
"$T/build/tools/fti-ckpt" --version | grep -q "^fti-ckpt (libfti) [0-9]" || fail "fti-ckpt --version"
echo "ok: built fti_format, its unit tests and fti-ckpt"

cd "$T/build" && "${CTEST_COMMAND:?}" -j2 --timeout 300 > "$T/ctest.log" 2>&1
rc=$?
cat "$T/ctest.log"
[ "$rc" -eq 0 ] || fail "tests of the MPI-free build"
# The unit tests of base/ and format/ at least (test_ini, test_meta, ...),
# where CMocka drives them; else mpi_free_needed alone.
ran=$(sed -n 's/.*tests passed, 0 tests failed out of \([0-9]*\)/\1/p' "$T/ctest.log")
want=1
[ "${FTI_CMOCKA:-}" = 1 ] && want=10
[ "${ran:-0}" -ge "$want" ] || fail "only ${ran:-0} tests ran, expected at least $want"
grep -q "mpi_free_needed .*Passed" "$T/ctest.log" || fail "mpi_free_needed did not run"
echo "PASS: MPI-free build, $ran tests passed without MPI"
