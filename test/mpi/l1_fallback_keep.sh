#!/usr/bin/env bash
# keep_last_ckpt = 1 after a restart that fell back: the newest L1
# checkpoint has a damaged file on one rank, so the restart restores the one
# before; FTI_Finalize must then leave that restored checkpoint on the global
# file system (not the newest, which no restart can use), and the next job,
# with every node's local storage gone, restores its every byte.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"

write_config "$T/c.fti"
l1_newest_damaged "$P" "$T/c.fti"

write_config "$T/c.fti" keep_all_levels=0 l4_local_copy=0   # same file: same exec id
run_nodes 4 1 "$P" "$T/c.fti" check 5 > "$T/out" 2>&1 || { cat "$T/out"; fail "restart after the corruption"; }
grep -q PASS "$T/out" || { cat "$T/out"; fail "not restored from the previous checkpoint"; }
grep -q "keep_last_ckpt: cannot" "$T/out" && { cat "$T/out"; fail "FTI_Finalize tried to keep the damaged checkpoint"; }

rm -rf "$T/nodes"
run_nodes 4 1 "$P" "$T/c.fti" check 5 > "$T/out" 2>&1 || { cat "$T/out"; fail "restart on new nodes"; }
grep -q PASS "$T/out" || { cat "$T/out"; fail "the kept checkpoint is not the one restored"; }
pass "keep_last_ckpt keeps the checkpoint a fallback restart restored"
