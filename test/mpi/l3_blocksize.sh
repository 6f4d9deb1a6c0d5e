#!/usr/bin/env bash
# L3 with FTI's block_size = 1024 KiB and files of about 3 MiB that are no
# multiple of it and differ between ranks: the files span several L3
# messages, the last one ragged. One lost node is rebuilt (bytes identical)
# by a restart configured with another block_size (the parity does not
# depend on it), its parity is re-created with it, and that parity then
# protects: two other nodes lost next, which needs it, are rebuilt too.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
KIB=2900
export CKPT_PROG_RANK_KIB=300 # ranks' files: 2.8 to 3.7 MiB
write_config "$T/c.fti" keep_last_ckpt=1 advanced.block_size=1024

run_nodes 4 1 "$P" "$T/c.fti" write 41 3 $KIB || fail "L3 checkpoint at block_size 1024"
sizes=$(stat -c %s "$T"/nodes/node*/*/l3-s0-rank*.fti | sort -u | wc -l)
[ "$sizes" -eq 4 ] || fail "the ranks' files should all differ in size"
for n in 0 1 2 3; do
  ls "$T"/nodes/node$n/*/l3-s0-parity-rank$n.fti >/dev/null || fail "no parity file on node $n"
done
sum_before=$(cat "$T"/nodes/node*/*/l3-s0-rank*.fti | md5sum)
parity1=$(md5sum < "$(ls "$T"/nodes/node1/*/l3-s0-parity-rank1.fti)")

write_config "$T/c.fti" keep_last_ckpt=1 advanced.block_size=8192
lose_node 1
run_nodes 4 1 "$P" "$T/c.fti" check 41 $KIB > "$T/out" 2>&1 || { cat "$T/out"; fail "restart"; }
grep -q PASS "$T/out" || { cat "$T/out"; fail "1 lost node at block_size 1024"; }
# the parity came from the rebuild's single pass, not from a second encode
! grep -q "encoding it again" "$T/out" || fail "re-created parity was not adopted"
[ "$(cat "$T"/nodes/node*/*/l3-s0-rank*.fti | md5sum)" = "$sum_before" ] || fail "rebuilt file differs"
[ "$(md5sum < "$(ls "$T"/nodes/node1/*/l3-s0-parity-rank1.fti)")" = "$parity1" ] ||
  fail "re-created parity of node 1 differs from the parity written at checkpoint"
! ls "$T"/nodes/node*/*/*.rebuilt.fti 2>/dev/null || fail "rebuilt temporaries left behind"

# Survivors now: data and parity of nodes 1 (re-created) and 3.
lose_node 0; lose_node 2
run_nodes 4 1 "$P" "$T/c.fti" check 41 $KIB | grep -q PASS || fail "2 lost nodes after the rebuild"
[ "$(cat "$T"/nodes/node*/*/l3-s0-rank*.fti | md5sum)" = "$sum_before" ] || fail "second rebuild differs"
pass "l3 with block_size 1024, odd sizes, re-created parity protects"
