#!/usr/bin/env bash
# FTI's heads keep the local file of an L4 checkpoint they flushed, in FTI's
# L1 directory (FTI's cornerCases subsequent_checkpoints, H1I0): with
# head = 1, inline_l4 = 0 and no l4_local_copy key, the local copy stays
# while the job runs, until a checkpoint of levels 1-3 replaces it; with
# keep_last_ckpt = 1, FTI_Finalize still empties local storage and the next
# job restores from the global copy.
source "$(dirname "$0")/lib_sem.sh"
NP=4
heads_config() { # FILE key=value...: 2 nodes of one head and one application rank
  sem_config "$1" head=1 node_size=2 group_size=2 inline_l4=0 "${@:2}"
  sed -i '/^l4_local_copy[[:space:]]*=/d' "$1"
}

fresh
heads_config "$T/c.fti" keep_last_ckpt=1
expect_exit 0 "$T/w" sem "$T/c.fti" finish 30 1 4 1   # the 2nd L1 waits for the L4's commit
[ "$(local_files '*.fti')" -eq 0 ] || { find "$LOCAL_DIR"; fail "local files left after FTI_Finalize"; }
rm -rf "$LOCAL_DIR"; mkdir -p "$LOCAL_DIR"
expect_pass check "$T/r" sem "$T/c.fti" check 32

# While the job runs (the program lists the local files before
# FTI_Finalize, LIST_LOCAL; the later checkpoint waits for the L4's commit):
# with POSIX I/O an L2 or L3 after the L4 replaces its local copy (FTI keeps
# it in its L1 directory, which those levels clear), with MPI-IO it stays
# (FTI keeps it apart, until the next L4). The L1 before the L4 goes.
for later in 2 3; do
  fresh
  heads_config "$T/c2.fti"
  LIST_LOCAL="$LOCAL_DIR" expect_exit 0 "$T/w2" sem "$T/c2.fti" finish 40 1 4 $later
  n=$(grep -c "^local: .*l4-s[01]-rank[0-9]*\.fti$" "$T/w2" || true)
  [ "$n" -eq 0 ] || { cat "$T/w2"; fail "$n local L4 copies after an L$later checkpoint, expected 0"; }
  grep -q "^local: .*l1-s[01]-rank" "$T/w2" && { cat "$T/w2"; fail "the L1 checkpoint outlived the L4 one"; }
done
fresh
heads_config "$T/c6.fti" ckpt_io=2
LIST_LOCAL="$LOCAL_DIR" expect_exit 0 "$T/w6" sem "$T/c6.fti" finish 40 1 4 2
n=$(grep -c "^local: .*l4-s[01]-rank[0-9]*\.fti$" "$T/w6" || true)
[ "$n" -eq 2 ] || { cat "$T/w6"; fail "MPI-IO: $n local L4 copies after an L2 checkpoint, expected 2 (one per application rank)"; }
grep -q "^local: .*l1-s[01]-rank" "$T/w6" && { cat "$T/w6"; fail "MPI-IO: the L1 checkpoint outlived the L4 one"; }
fresh
heads_config "$T/c4.fti"
LIST_LOCAL="$LOCAL_DIR" expect_exit 0 "$T/w4" sem "$T/c4.fti" finish 40 4 1
n=$(grep -c "^local: .*l4-s[01]-rank[0-9]*\.fti$" "$T/w4" || true)
[ "$n" -eq 0 ] || { cat "$T/w4"; fail "$n local L4 copies after an L1 checkpoint, expected 0"; }
fresh
heads_config "$T/c3.fti" l4_local_copy=0
sed -i 's/^\[basic\]$/[basic]\nl4_local_copy = 0/' "$T/c3.fti"
LIST_LOCAL="$LOCAL_DIR" expect_exit 0 "$T/w3" sem "$T/c3.fti" finish 40 4 1
n=$(grep -c "^local: .*l4-s[01]-rank[0-9]*\.fti$" "$T/w3" || true)
[ "$n" -eq 0 ] || { cat "$T/w3"; fail "l4_local_copy = 0 given, but $n local L4 copies"; }
# FTI's crash simulation right after an L4 that followed L1-L3 (FTI's
# cornerCases subsequent_checkpoints, local-first): the heads removed the
# older levels' files before reporting the L4; its local copy stays.
fresh
heads_config "$T/c5.fti" inline_l2=0 inline_l3=0
expect_pass report "$T/w5" sem "$T/c5.fti" report 60 2 1 2 3 4
n=$(find "$LOCAL_DIR" -type f -name 'l[123]-*.fti' | wc -l)
[ "$n" -eq 0 ] || { find "$LOCAL_DIR"; fail "$n local L1-L3 files left after the heads reported the L4"; }
[ "$(local_files 'l4-s*-rank*.fti')" -eq 2 ] || { find "$LOCAL_DIR"; fail "the heads' local L4 copies are missing"; }
pass "heads flushing L4 keep its local copy until FTI_Finalize, as FTI"
