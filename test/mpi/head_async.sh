#!/usr/bin/env bash
# Asynchronous post-processing: on head ranks (head=1, node_size=2) and in a
# helper thread (head=0, MPI_THREAD_MULTIPLE). Restored bytes are asserted
# after node losses; a crash during asynchronous post-processing leaves the
# previous checkpoint recoverable.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"

# -- heads: 8 ranks = 4 nodes of (1 head + 1 application rank) ----------------
write_config "$T/h.fti" head=1 node_size=2 group_size=4 inline_l2=0 inline_l3=0 keep_last_ckpt=1
run_nodes 8 2 "$P" "$T/h.fti" write 41 2 || fail "L2 checkpoint through heads"
ls "$T"/nodes/node1/*/l2-s0-partner-rank0.fti >/dev/null || fail "head did not store the partner copy"
lose_node 2
run_nodes 8 2 "$P" "$T/h.fti" check 41 | grep -q PASS || fail "L2 via heads: lost node"
run_nodes 8 2 "$P" "$T/h.fti" write 42 3 || fail "L3 checkpoint through heads"
lose_node 0; lose_node 3
run_nodes 8 2 "$P" "$T/h.fti" check 42 | grep -q PASS || fail "L3 via heads: 2 lost nodes"

# A head dies while encoding checkpoint 43: checkpoint 42 stays the one restored.
FTI_FAULT="crash:l3_encode@2" run_nodes 8 2 "$P" "$T/h.fti" write 43 3 >/dev/null 2>&1 && fail "crash did not happen"
run_nodes 8 2 "$P" "$T/h.fti" check 42 | grep -q PASS || fail "previous checkpoint after a head crash"

# -- helper thread: 4 ranks, one per node ----------------------------------------
rm -rf "$T/nodes" "$T/meta"; mkdir -p "$T/nodes" "$T/meta"
export FTI_TEST_THREAD_MULTIPLE=1
write_config "$T/t.fti" inline_l2=0 keep_last_ckpt=1 advanced.log_style=libfti # our line says "asynchronous"
run_nodes 4 1 "$P" "$T/t.fti" write 51 2 2>"$T/err" || { cat "$T/err"; fail "L2 in the helper thread"; }
grep -q "asynchronous post-processing" "$T/err" || { cat "$T/err"; fail "post-processing was not asynchronous"; }
lose_node 1
run_nodes 4 1 "$P" "$T/t.fti" check 51 | grep -q PASS || fail "L2 via thread: lost node"
FTI_FAULT="crash:l2_send@3" run_nodes 4 1 "$P" "$T/t.fti" write 52 2 >/dev/null 2>&1 && fail "crash did not happen"
run_nodes 4 1 "$P" "$T/t.fti" check 51 | grep -q PASS || fail "previous checkpoint after a crash in the thread"
pass "head and helper-thread post-processing"
