#!/usr/bin/env bash
# FTI's programs rely on every rank passing the same id to FTI_Checkpoint.
# When one rank passes another id, the checkpoint fails on every rank
# (FTI_NSCS, -1) with one message naming the ranks and ids, nothing is
# committed, and the last good checkpoint stays: the restart restores it.
# 4 ranks; checkpoint 5 on all, then ranks 0, 1, 3 pass 6 and rank 2 passes 7.
source "$(dirname "$0")/lib_sem.sh"
PROG="$FTI_BUILD_DIR/test/conformance/conformance_prog_behave_prog"
run() { timeout 240 "$MPIEXEC" -n "$NP" -bind-to none "$PROG" "$T/c.fti" "$@"; }
sem_config "$T/c.fti"
expect_exit 0 "$T/w" run idmix 5 2
for r in 0 1 2 3; do
  grep -qx "idmix: rank $r rc -1" "$T/w" || { cat "$T/w"; fail "rank $r: FTI_Checkpoint did not return FTI_NSCS"; }
done
msg="FTI_Checkpoint: ranks disagree on the checkpoint id: rank 0 id 6, rank 2 id 7"
[ "$(grep -cF "$msg" "$T/w")" = 4 ] || { cat "$T/w"; fail "not every rank printed '$msg'"; }
expect_exit 0 "$T/r" run check 5
grep -q "^PASS: check (0 bytes wrong)" "$T/r" || { cat "$T/r"; fail "the restart did not restore checkpoint 5"; }
pass "ids that differ between ranks fail FTI_Checkpoint everywhere; the last good checkpoint stays"
