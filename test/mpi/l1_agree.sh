#!/usr/bin/env bash
# The one "agree or fail" helper (collective.h, fti_agree) on 4 ranks: the
# failing rank keeps its own error, every other rank fails naming "another
# rank" (test/mpi/agree/test_agree.c).
source "$(dirname "$0")/lib.sh"
"$MPIEXEC" -n 4 -bind-to none "$PROGS/test_agree" > "$T/out" 2>&1 || { cat "$T/out"; fail "test_agree"; }
cat "$T/out"
grep -q "^PASS: fti_agree on 4 ranks" "$T/out" || fail "no PASS line"
