#!/usr/bin/env bash
# A checkpoint whose variable table does not match what the application
# protects (FTI_Init chose it before FTI_Protect ran) is passed over by
# FTI_Recover like any other unrestorable checkpoint: all ranks fall back
# together to the newest committed checkpoint that matches on every rank,
# with a message naming the file and the variable. When none matches, the
# first choice stays, every rank whose table differs fails its FTI_Recover
# naming the variable, and nothing is deleted.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
write_config "$T/c.fti" keep_last_ckpt=1

run_nodes 4 1 "$P" "$T/c.fti" write 11 1 64 > "$T/out" 2>&1 || { cat "$T/out"; fail "checkpoint #1"; }
# #2: rank r protected 64 + r KiB of doubles: only rank 0's table matches 64 KiB.
CKPT_PROG_RANK_KIB=1 run_nodes 4 1 "$P" "$T/c.fti" write 12 1 64 > "$T/out" 2>&1 ||
  { cat "$T/out"; fail "checkpoint #2"; }
cp "$T"/meta/*/commit "$T/commit.before"

run_nodes 4 1 "$P" "$T/c.fti" check 11 64 > "$T/out" 2>&1 || { cat "$T/out"; fail "restart"; }
grep -q "PASS: restored bytes identical" "$T/out" || { cat "$T/out"; fail "#1 not restored after #2 did not match"; }
grep -q "rank 1: variable 1: checkpoint holds 66568 bytes, the protected buffer has 65544 (checkpoint #2, .*l1-s1-rank1.fti)" "$T/out" ||
  { cat "$T/out"; fail "the fall-back does not name rank 1's file and variable 1"; }
grep -q "FTI_Recover: restoring checkpoint #1 (level 1, id 11) instead" "$T/out" ||
  { cat "$T/out"; fail "no word of the checkpoint restored instead"; }

# Nothing matches 32 KiB: #2 stays chosen, every rank's FTI_Recover fails
# naming the variable (FTI_Realloc could still make it fit), nothing is removed.
run_nodes 4 1 "$P" "$T/c.fti" check 11 32 > "$T/out" 2>&1 && { cat "$T/out"; fail "restored a table that does not match"; }
[ "$(grep -c "rank [0-3]: FTI_Recover -1" "$T/out")" = 4 ] || { cat "$T/out"; fail "not every rank refused"; }
grep -q "no older committed checkpoint matches the protected variables on every rank; checkpoint #2 stays chosen" "$T/out" ||
  { cat "$T/out"; fail "the refusal does not say why"; }
grep -q "\[FTI r3\] error: recover: variable 1: checkpoint holds 68632 bytes, the protected buffer has 32792" "$T/out" ||
  { cat "$T/out"; fail "rank 3's refusal does not name variable 1"; }
cmp -s "$T"/meta/*/commit "$T/commit.before" || fail "the commit record changed"
for r in 0 1 2 3; do
  ls "$T"/nodes/node$r/*/l1-s0-rank$r.fti "$T"/nodes/node$r/*/l1-s1-rank$r.fti > /dev/null || fail "rank $r's files removed"
done

# The checkpoints are still there: the matching table restores #2's bytes.
CKPT_PROG_RANK_KIB=1 run_nodes 4 1 "$P" "$T/c.fti" check 12 64 > "$T/out" 2>&1 || { cat "$T/out"; fail "restart of #2"; }
grep -q "PASS: restored bytes identical" "$T/out" || { cat "$T/out"; fail "#2 not restored"; }
# #1 lost on rank 2: nothing older to fall back to, #2 stays chosen whole
# (its table still names each size where it differs).
rm "$T"/nodes/node2/*/l1-s0-rank2.fti
run_nodes 4 1 "$P" "$T/c.fti" check 11 64 > "$T/out" 2>&1 && { cat "$T/out"; fail "restored with #1 lost"; }
grep -q "checkpoint #2 stays chosen" "$T/out" || { cat "$T/out"; fail "#1 lost: no word of #2 staying"; }
grep -q "\[FTI r3\] error: recover: variable 1: checkpoint holds 68632 bytes, the protected buffer has 65560" "$T/out" ||
  { cat "$T/out"; fail "#1 lost: rank 3's refusal does not name #2's variable 1"; }
pass "a checkpoint whose table does not match falls back"
