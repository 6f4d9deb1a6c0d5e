#!/usr/bin/env bash
# A refused L3 restart writes nothing: two groups of 2 nodes; group 0 loses
# one node (its data and parity are re-created, beside the real files),
# group 1 loses both. The restart is refused, and neither the rebuilt data
# nor the re-created parity of group 0 is left behind; survivors stay.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
write_config "$T/c.fti" group_size=2 advanced.block_size=1024

run_nodes 4 1 "$P" "$T/c.fti" write 9 3 700 || fail "L3 checkpoint"
lose_node 0; lose_node 2; lose_node 3
run_nodes 4 1 "$P" "$T/c.fti" expect-fail > "$T/out" 2>&1 || { cat "$T/out"; fail "FTI_Init should fail"; }
grep -q "FTI_Init returned -2" "$T/out" || { cat "$T/out"; fail "expected FTI_NREC"; }
grep -q "L3: group 1 lost data or parity on 2 nodes (2, 3)" "$T/out" || { cat "$T/out"; fail "group 1 not named"; }
left=$(find "$T/nodes" -name '*.rebuilt.fti')
[ -z "$left" ] || fail "a refused restart left $left"
ls "$T"/nodes/node1/*/l3-s0-rank1.fti "$T"/nodes/node1/*/l3-s0-parity-rank1.fti >/dev/null ||
  fail "surviving files deleted"
pass "refused l3 restart leaves nothing"
