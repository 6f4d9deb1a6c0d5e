#!/usr/bin/env bash
# L2 on 4 nodes (group_size 4): a lost node comes back from its partner, and
# its partner copy is re-sent; a node and its partner lost together cannot be
# recovered at L2: clear error, nothing deleted.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
write_config "$T/c.fti" keep_last_ckpt=1

run_nodes 4 1 "$P" "$T/c.fti" write 21 2 || fail "L2 checkpoint"
ls "$T"/nodes/node2/*/ | grep -q "l2-s0-partner-rank1.fti" || fail "no partner copy of rank 1 on node 2"

lose_node 1
run_nodes 4 1 "$P" "$T/c.fti" check 21 | grep -q PASS || fail "recovery of node 1 from its partner"
ls "$T"/nodes/node1/*/ | grep -q "l2-s0-rank1.fti" || fail "rank 1's file not rebuilt"
ls "$T"/nodes/node1/*/ | grep -q "l2-s0-partner-rank0.fti" || fail "partner copy of rank 0 not restored on node 1"

# A second failure of another node after the rebuild is survived too.
lose_node 2
run_nodes 4 1 "$P" "$T/c.fti" check 21 | grep -q PASS || fail "recovery of node 2 after node 1 was rebuilt"

# Node 3 and its partner (node 0, next in the ring) lost: L2 cannot help.
lose_node 3
lose_node 0
run_nodes 4 1 "$P" "$T/c.fti" expect-fail > "$T/out" 2>&1 || { cat "$T/out"; fail "FTI_Init should fail"; }
grep -q "FTI_Init returned -2" "$T/out" || fail "expected FTI_NREC"
grep -q "rank 3: L2: local file .* lost, and its partner copy on node 0 is lost too" "$T/out" || { cat "$T/out"; fail "error does not name rank 3 and node 0"; }
ls "$T"/nodes/node1/*/l2-s0-rank1.fti >/dev/null || fail "a surviving file was deleted"
[ -s "$T"/meta/*/commit ] || fail "commit record deleted"
pass "l2 partner"
