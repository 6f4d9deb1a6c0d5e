#!/usr/bin/env bash
# L4 post-processed off the application's path: by the head ranks (head=1,
# node_size=2: 4 nodes of 1 head + 1 application rank) and by the helper
# thread (MPI_THREAD_MULTIPLE), then every node's local storage lost:
# restored bytes identical. With ckpt_io = 2 and heads, the shared file is
# written inline by the application ranks (heads cannot join their collective).
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"

write_config "$T/h.fti" head=1 node_size=2 inline_l4=0 l4_compression=$(zstd_or_zlib 1)
run_nodes 8 2 "$P" "$T/h.fti" write 61 4 > "$T/out" 2>&1 || { cat "$T/out"; fail "L4 through heads"; }
for r in 0 1 2 3; do
  [ "$(head -c 6 "$T"/global/*/l4-s0-rank$r.fti)" = FTIL4Z ] || fail "head did not store rank $r's compressed copy"
done
rm -rf "$T"/nodes/*
run_nodes 8 2 "$P" "$T/h.fti" check 61 | grep -q PASS || fail "L4 via heads: all nodes lost"

write_config "$T/h.fti" head=1 node_size=2 inline_l4=0 ckpt_io=2
run_nodes 8 2 "$P" "$T/h.fti" write 62 4 > "$T/out" 2>&1 || { cat "$T/out"; fail "L4 MPI-IO with heads"; }
rm -rf "$T"/nodes/*
run_nodes 8 2 "$P" "$T/h.fti" check 62 | grep -q PASS || fail "L4 MPI-IO with heads: all nodes lost"

rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
export FTI_TEST_THREAD_MULTIPLE=1
write_config "$T/t.fti" inline_l4=0 l4_compression=zlib:1 advanced.log_style=libfti # our line says "asynchronous"
run_nodes 4 1 "$P" "$T/t.fti" write 63 4 2> "$T/err" || { cat "$T/err"; fail "L4 in the helper thread"; }
grep -q "asynchronous post-processing" "$T/err" || { cat "$T/err"; fail "post-processing was not asynchronous"; }
rm -rf "$T"/nodes/*
run_nodes 4 1 "$P" "$T/t.fti" check 63 | grep -q PASS || fail "L4 via thread: all nodes lost"
# No local copy kept, uncompressed: the thread removes the local file once
# the global copy is complete (not the next FTI_Checkpoint's commit); three
# checkpoints, FTI_Recover in the same run restores the committed one (65)
# from the global copy, none of the local L4 files stays, and the one
# committed at FTI_Finalize (66) is restored with all nodes lost.
rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
write_config "$T/u.fti" inline_l4=0 l4_local_copy=0 keep_all_levels=0
run_nodes 4 1 "$P" "$T/u.fti" staged 64 4 256 3 2> "$T/err" || { cat "$T/err"; fail "L4 in the thread, no local copy"; }
[ -z "$(find "$T/nodes" -name 'l4-*')" ] || { find "$T/nodes"; fail "a local L4 file stayed with l4_local_copy = 0"; }
rm -rf "$T"/nodes/*
run_nodes 4 1 "$P" "$T/u.fti" check 66 | grep -q PASS || fail "L4 via thread, no local copy: all nodes lost"
pass "l4 through heads and the helper thread"
