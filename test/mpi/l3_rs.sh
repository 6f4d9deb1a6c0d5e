#!/usr/bin/env bash
# L3 on a group of 4 nodes (m = 2): 1 and then 2 lost nodes are rebuilt from
# Reed-Solomon parity, bytes identical; 3 lost nodes (m+1): clear error and
# nothing deleted. Parity lost alone is re-created. First, files of 2 MiB,
# whose pieces inside one variable are sent and encoded straight from the
# application's buffers (file_image.h): two lost nodes come back from that
# parity byte for byte.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
write_config "$T/c.fti" keep_last_ckpt=1 verbosity=1
run_nodes 4 1 "$P" "$T/c.fti" write 37 3 2048 >"$T/w.out" 2>&1 || { cat "$T/w.out"; fail "L3 checkpoint, 2 MiB"; }
grep -Eq "L3: [1-9][0-9]* of [0-9]+ pieces of .* taken from the application's buffers" "$T/w.out" ||
  { cat "$T/w.out"; fail "no L3 piece was taken from the application's buffers"; }
sum_before=$(cat "$T"/nodes/node*/*/l3-s0-rank*.fti | md5sum)
lose_node 1; lose_node 2
run_nodes 4 1 "$P" "$T/c.fti" check 37 2048 | grep -q PASS || fail "2 lost nodes, parity from the buffers"
[ "$(cat "$T"/nodes/node*/*/l3-s0-rank*.fti | md5sum)" = "$sum_before" ] ||
  fail "files rebuilt from parity encoded from the buffers differ from the originals"
rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*

# A small block size makes every file span several encoding chunks.
write_config "$T/c.fti" keep_last_ckpt=1 advanced.block_size=64

run_nodes 4 1 "$P" "$T/c.fti" write 31 3 || fail "L3 checkpoint"
for n in 0 1 2 3; do
  ls "$T"/nodes/node$n/*/l3-s0-parity-rank$n.fti >/dev/null || fail "no parity file on node $n"
done
sum_before=$(cat "$T"/nodes/node*/*/l3-s0-rank*.fti | md5sum)

lose_node 2
run_nodes 4 1 "$P" "$T/c.fti" check 31 | grep -q PASS || fail "1 lost node"
lose_node 0; lose_node 3
run_nodes 4 1 "$P" "$T/c.fti" check 31 | grep -q PASS || fail "2 lost nodes"
[ "$(cat "$T"/nodes/node*/*/l3-s0-rank*.fti | md5sum)" = "$sum_before" ] || fail "rebuilt files differ from the originals"
for n in 0 2 3; do
  ls "$T"/nodes/node$n/*/l3-s0-parity-rank$n.fti >/dev/null || fail "parity of node $n not re-created"
done

# Only parity lost: data intact, parity re-encoded.
rm -f "$T"/nodes/node1/*/l3-s0-parity-rank1.fti
run_nodes 4 1 "$P" "$T/c.fti" check 31 | grep -q PASS || fail "parity-only loss"
ls "$T"/nodes/node1/*/l3-s0-parity-rank1.fti >/dev/null || fail "parity of node 1 not re-created"

lose_node 0; lose_node 1; lose_node 2
run_nodes 4 1 "$P" "$T/c.fti" expect-fail > "$T/out" 2>&1 || { cat "$T/out"; fail "FTI_Init should fail"; }
grep -q "FTI_Init returned -2" "$T/out" || fail "expected FTI_NREC"
grep -q "L3: group 0 lost data or parity on 3 nodes (0, 1, 2); a group of 4 nodes can rebuild at most 2" "$T/out" || { cat "$T/out"; fail "error does not list the lost nodes"; }
ls "$T"/nodes/node3/*/l3-s0-rank3.fti "$T"/nodes/node3/*/l3-s0-parity-rank3.fti >/dev/null || fail "surviving files deleted"
pass "l3 reed-solomon"
