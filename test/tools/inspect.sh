#!/usr/bin/env bash
# fti-ckpt on healthy checkpoints: list names every committed checkpoint with
# its numbers, verify passes, show gives the variable table, extract returns
# ckpt_prog's exact bytes (raw and .npy); nothing in storage changes; wrong
# paths and a damaged commit record give clear errors.
source "$(dirname "$0")/common.bash"
write_config "$T/c.fti" keep_last_ckpt=1
run_nodes 4 1 "$P" "$T/c.fti" write 7 1 $KIB 2>/dev/null || fail "L1 checkpoint"
run_nodes 4 1 "$P" "$T/c.fti" write 8 2 $KIB 2>/dev/null || fail "L2 checkpoint"
run_nodes 4 1 "$P" "$T/c.fti" write 9 3 $KIB 2>/dev/null || fail "L3 checkpoint"
before=$(snapshot)

# -- list: seq, id, level, ranks, bytes (= the ranks' files), variables --------
expect_rc 0 ck list "$T/c.fti"
[ "$(grep -cE '^ +[0-9]+ ' "$T/out")" -eq 3 ] || { cat "$T/out"; fail "list: expected 3 checkpoints"; }
for lv in 1 2 3; do
  bytes=$(sum_sizes "$T"/nodes/node*/*/l$lv-s0-rank*.fti)
  has "^ +$lv +$((lv + 6)) +$lv +0  cur +[-0-9: ]+ +4 +$bytes +[0-9.]+ [KM]iB +5$"
done
[ "$(grep -m1 -E '^ +[0-9]+ ' "$T/out" | awk '{print $1}')" = 3 ] || fail "list: newest checkpoint not first"

# -- verify: all good -------------------------------------------------------------
expect_rc 0 ck verify "$T/c.fti"
has "job: recoverable: a restart restores checkpoint #3 \(id 9, level 3\)"
[ "$(grep -c '=> recoverable: every rank can be restored' "$T/out")" -eq 3 ] || fail "verify: 3 good checkpoints"
has "nothing to decode"
if [ "$NODE_MODE" = folders ]; then # local_test = 1: every node's folder is seen without --nodes
  expect_rc 0 "$CKPT" verify "$T/c.fti"
  has "^node-local storage: $T/nodes/node<K>/[^ ]+ \(local_test = 1\)$"
  has "job: recoverable: a restart restores checkpoint #3 \(id 9, level 3\)"
fi
expect_rc 0 ck verify "$T/c.fti" --id 8
has "^checkpoint #2 \(id 8, level 2"
grep -q "^checkpoint #3" "$T/out" && fail "verify --id 8 looked at another checkpoint"
has "job: recoverable: a restart restores checkpoint #2"

# -- show: rank 1 of checkpoint id 8 (ckpt_prog's 5 variables) --------------------
expect_rc 0 ck show "$T/c.fti" --id 8 --rank 1
has "rank 1: .*/nodes/node1/.*/l2-s0-rank1.fti"
has "^ +0 +[^ ]+ +int +4 +1 +4 [0-9a-f]{16} ok$"
has "^ +1 +[^ ]+ +double +8 +$((KIB * 128 + 1)) +$(( (KIB * 128 + 1) * 8 )) [0-9a-f]{16} ok$"
has "^ +2 +[^ ]+ +char +1 +4110 +4110 [0-9a-f]{16} ok$"
has "^ +3 +[^ ]+ +derived#[0-9]+ +[0-9]+ +7 +[0-9]+ [0-9a-f]{16} ok$"
has "^ +4 +[^ ]+ +double +8 +0 +0 [0-9a-f]{16} ok$"

# -- extract: bytes equal ckpt_prog's pattern ------------------------------------
pattern_file 8 1 2 4110 "$T/want2"
expect_rc 0 ck extract "$T/c.fti" --id 8 --rank 1 --var 2 -o "$T/v2.raw"
cmp "$T/v2.raw" "$T/want2" || fail "extract raw: bytes differ from ckpt_prog's pattern"
n1=$(( (KIB * 128 + 3) * 8 ))
pattern_file 9 3 1 $n1 "$T/want1"
expect_rc 0 ck extract "$T/c.fti" --rank 3 --var 1 -o "$T/v1.npy"   # newest: id 9
npy_check "$T/v1.npy" "<f8" $((KIB * 128 + 3)) "$T/want1"
pattern_file 7 0 0 4 "$T/want0"
ck extract "$T/c.fti" --id 7 --rank 0 --var 0 --format npy -o - > "$T/v0.npy" || fail "extract to stdout"
npy_check "$T/v0.npy" "<i4" 1 "$T/want0"
pattern_file 7 2 3 224 "$T/want3"
expect_rc 0 ck extract "$T/c.fti" --id 7 --rank 2 --var 3 -o "$T/v3.npy"
npy_check "$T/v3.npy" "|V32" 7 "$T/want3"

# -- errors: clear messages, exit 2 -------------------------------------------------
expect_rc 2 "$CKPT" list "$T/missing.fti"
has "fti-ckpt: config $T/missing.fti: cannot read: No such file or directory" "$T/err"
expect_rc 2 ck show "$T/c.fti" --rank 4
has "give --rank R with R in 0..3" "$T/err"
expect_rc 2 ck show "$T/c.fti" --id 77 --rank 0
has "no committed checkpoint with id 77" "$T/err"
expect_rc 2 ck extract "$T/c.fti" --rank 0 --var 42 -o "$T/x"
has "variable 42 is not in .*\(its variables: 0, 1, 2, 3, 4\)" "$T/err"
[ ! -e "$T/x" ] || fail "extract of a missing variable left an output file"
expect_rc 2 ck extract "$T/c.fti" --rank 0 --var 1 -o "$T/x" --format hdf5
has "--format hdf5: expected raw or npy" "$T/err"
expect_rc 2 "$CKPT" verify "$T/c.fti" --nodes "$T/nowhere"
has "--nodes $T/nowhere: No such file or directory" "$T/err"
expect_rc 2 "$CKPT" frobnicate "$T/c.fti"
has "unknown command 'frobnicate'" "$T/err"

[ "$(snapshot)" = "$before" ] || fail "fti-ckpt changed checkpoint storage"

# A damaged commit record: every command says so, and nothing else.
sed -i 's/level=2/level=3/' "$T"/meta/*/commit
expect_rc 2 ck list "$T/c.fti"
has "commit record .*/commit: damaged \(bad magic or checksum\)" "$T/err"
expect_rc 2 ck verify "$T/c.fti"
has "commit record .*/commit: damaged" "$T/err"
pass "fti-ckpt list/verify/show/extract"
