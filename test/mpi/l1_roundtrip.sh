#!/usr/bin/env bash
# L1: checkpoint on 4 ranks, restart, every protected byte restored; the newest
# of two checkpoints wins; keep_last_ckpt = 0 removes everything at finalize.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
write_config "$T/c.fti" keep_last_ckpt=1

run_nodes 4 1 "$P" "$T/c.fti" write 7 1 || fail "first checkpoint"
run_nodes 4 1 "$P" "$T/c.fti" write 8 1 || fail "second checkpoint"
run_nodes 4 1 "$P" "$T/c.fti" check 8 | tee "$T/out"
grep -q "PASS" "$T/out" || fail "restore of the newest checkpoint"

# A third run restarts again from the same committed checkpoint.
run_nodes 4 1 "$P" "$T/c.fti" check 8 | grep -q PASS || fail "second restart"

# keep_last_ckpt = 0: finalize removes the run's checkpoints; next launch is fresh.
write_config "$T/c.fti" keep_last_ckpt=0
run_nodes 4 1 "$P" "$T/c.fti" check 8 | grep -q PASS || fail "restore before removal"
[ -z "$(ls "$T"/nodes/node*/*/ 2>/dev/null)" ] || fail "local files left: $(ls "$T"/nodes/node*/*/)"
[ ! -e "$T"/meta/*/commit ] || fail "commit record left"
run_nodes 4 1 "$P" "$T/c.fti" write 9 1 | grep -q "note: a checkpoint exists" && fail "not a fresh start"
pass "l1 roundtrip"
