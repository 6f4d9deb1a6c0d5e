#!/usr/bin/env bash
# fti-intern.h is installed beside fti.h and gives code written against FTI
# 1.6's internal header what it uses (types, constants, DBG_MSG, the C
# headers it brings): intern_use.c, which includes only <fti-intern.h>, is
# built against the install with -Wall -Wextra -Werror, checkpoints and
# restores an array of FTIT_double on 4 ranks; intern_cxx.cpp compiles and
# runs as C++ (skipped without an MPI C++ wrapper).
set -euo pipefail
: "${FTI_BUILD_DIR:?run through ctest}" "${FTI_SOURCE_DIR:?run through ctest}"
: "${FTI_MPICC:?run through ctest}" "${MPIEXEC:?run through ctest}"
T="${FTI_TEST_DIR:-/tmp/fti-intern-$$}"
SRC="$FTI_SOURCE_DIR/test/conformance/intern"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$T" && mkdir -p "$T"
cmake --install "$FTI_BUILD_DIR" --prefix "$T/prefix" > "$T/install.log" || fail "cmake --install"
[ -f "$T/prefix/include/fti-intern.h" ] || fail "fti-intern.h is not installed in $T/prefix/include"
libdir=$(dirname "$(ls "$T"/prefix/lib*/libfti.so | head -1)")
"$FTI_MPICC" -std=c11 -Wall -Wextra -Werror -I"$T/prefix/include" \
  -o "$T/intern_use" "$SRC/intern_use.c" -L"$libdir" -Wl,-rpath,"$libdir" -lfti 2> "$T/cc.log" ||
  { cat "$T/cc.log"; fail "intern_use.c does not build against the installed fti-intern.h"; }
mkdir -p "$T/local" "$T/global" "$T/meta"
cat > "$T/c.fti" <<CFG
[basic]
head = 0
node_size = 1
ckpt_dir = $T/local
glbl_dir = $T/global
meta_dir = $T/meta
group_size = 4
keep_last_ckpt = 0
verbosity = 2
[advanced]
local_test = 1
CFG
"$MPIEXEC" -n 4 -bind-to none "$T/intern_use" "$T/c.fti" > "$T/out" 2>&1 || { cat "$T/out"; fail "intern_use run"; }
grep -qE '^intern_use\.c:[0-9]+\[DEBUG-0\] intern: PASS 0 L1-L4 pid-ok 1$' "$T/out" ||
  { cat "$T/out"; fail "no 'intern: PASS' from DBG_MSG on rank 0"; }
[ "$(grep -c 'DEBUG-' "$T/out")" = 1 ] || { cat "$T/out"; fail "DBG_MSG printed on a rank other than 0"; }
CXX_WRAP="$(dirname "$FTI_MPICC")/mpicxx"
if [ -x "$CXX_WRAP" ]; then
  "$CXX_WRAP" -Wall -Werror -I"$T/prefix/include" -o "$T/intern_cxx" "$SRC/intern_cxx.cpp" \
    -L"$libdir" -Wl,-rpath,"$libdir" -lfti 2> "$T/cxx.log" || { cat "$T/cxx.log"; fail "fti-intern.h as C++"; }
  "$T/intern_cxx" || fail "intern_cxx"
else
  echo "note: no $CXX_WRAP; the C++ check is not run"
fi
echo "PASS: fti-intern.h installed and usable from C (and C++)"
