#!/usr/bin/env bash
# L3 restart after a lost node gives the application its bytes first: the
# lost node's parity is re-created later (next checkpoint or FTI_Finalize),
# and only while the group can still lose a node. Until then the set must
# survive one more lost node; a group of 2 cannot wait.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
parity() { echo "$T"/nodes/node$1/*/l3-s$2-parity-rank$1.fti; }

write_config "$T/c.fti" keep_last_ckpt=1 advanced.block_size=64
run_nodes 4 1 "$P" "$T/c.fti" write 31 3 > "$T/out" 2>&1 || { cat "$T/out"; fail "L3 checkpoint"; }
sum_before=$(cat "$T"/nodes/node*/*/l3-s0-rank*.fti | md5sum)

# Restart with node 2 lost, ending without FTI_Finalize: node 2's data is
# back and verified, its parity not yet.
lose_node 2
CKPT_PROG_SKIP_FINALIZE=1 run_nodes 4 1 "$P" "$T/c.fti" check 31 > "$T/out" 2>&1 || { cat "$T/out"; fail "restart, 1 lost node"; }
grep -q PASS "$T/out" || { cat "$T/out"; fail "restart, 1 lost node: bytes"; }
grep -q "group 0 lost the parity of 1 node(s); it is re-created at the next checkpoint" "$T/out" || { cat "$T/out"; fail "no note of the parity left for later"; }
ls "$T"/nodes/node2/*/l3-s0-rank2.fti >/dev/null || fail "node 2's data not rebuilt"
[ ! -e "$(parity 2 0)" ] || fail "node 2's parity re-created before the application went on"

# The set, one parity short, still survives another lost node.
lose_node 0
run_nodes 4 1 "$P" "$T/c.fti" check 31 > "$T/out" 2>&1 || { cat "$T/out"; fail "restart, 1 more lost node"; }
grep -q PASS "$T/out" || { cat "$T/out"; fail "restart, 1 more lost node: bytes"; }
[ "$(cat "$T"/nodes/node*/*/l3-s0-rank*.fti | md5sum)" = "$sum_before" ] || fail "rebuilt files differ from the originals"
# That run ended with FTI_Finalize (keep_last_ckpt = 1): full protection again.
for n in 0 1 2 3; do
  [ -f "$(parity $n 0)" ] || fail "parity of node $n not re-created at FTI_Finalize"
done
lose_node 1; lose_node 3
run_nodes 4 1 "$P" "$T/c.fti" check 31 > "$T/out" 2>&1 || { cat "$T/out"; fail "2 lost nodes after full re-protection"; }
grep -q PASS "$T/out" || { cat "$T/out"; fail "2 lost nodes after full re-protection: bytes"; }

# The next checkpoint re-creates the parity before it is taken (an L1
# checkpoint, then no FTI_Finalize: only the checkpoint did it).
lose_node 3
CKPT_PROG_SKIP_FINALIZE=1 run_nodes 4 1 "$P" "$T/c.fti" write 32 1 > "$T/out" 2>&1 || { cat "$T/out"; fail "L1 checkpoint after a restart"; }
[ -f "$(parity 3 0)" ] || fail "node 3's parity not re-created at the next checkpoint"
rm -rf "$T/nodes" "$T/global" "$T/meta"; mkdir -p "$T/nodes" "$T/global" "$T/meta"

# A group of 2 cannot lose a node with a parity missing: re-created at once.
write_config "$T/g2.fti" keep_last_ckpt=1 group_size=2 advanced.block_size=64
run_nodes 2 1 "$P" "$T/g2.fti" write 41 3 > "$T/out" 2>&1 || { cat "$T/out"; fail "L3 checkpoint, group of 2"; }
lose_node 1
CKPT_PROG_SKIP_FINALIZE=1 run_nodes 2 1 "$P" "$T/g2.fti" check 41 > "$T/out" 2>&1 || { cat "$T/out"; fail "restart, group of 2"; }
grep -q PASS "$T/out" || { cat "$T/out"; fail "restart, group of 2: bytes"; }
[ -f "$(parity 1 0)" ] || fail "group of 2: parity of node 1 not re-created during the restart"
pass "l3 parity re-created after the application's restart"
