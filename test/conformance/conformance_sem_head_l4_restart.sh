#!/usr/bin/env bash
# The local copy FTI's heads keep of an L4 checkpoint they flushed (head = 1,
# inline_l4 = 0, no l4_local_copy key) does not serve a restart: FTI's
# recovery reads an L4 checkpoint from the global file system only, and its
# cornerCases suite (ckpt_consistency, H1I0, level 4) expects the restart to
# fail once the global files are gone. The restart fails with a message
# naming the unused copy, leaves that copy in place, and succeeds again once
# the global files are back. l4_local_copy = 1 given: the copy serves.
source "$(dirname "$0")/lib_sem.sh"
heads_config() { # FILE key=value...: 2 nodes of one head and one application rank
  sem_config "$1" head=1 node_size=2 group_size=2 inline_l4=0 "${@:2}"
  sed -i '/^l4_local_copy[[:space:]]*=/d' "$1"
}

fresh
heads_config "$T/c.fti"
expect_pass report "$T/w" sem "$T/c.fti" report 40 2 4
[ "$(local_files 'l4-*rank*.fti')" -eq 2 ] || { find "$LOCAL_DIR"; fail "no local L4 copies kept by the heads"; }
[ "$(global_files 'l4-*rank*.fti')" -eq 2 ] || { find "$T/global"; fail "no global L4 files"; }
mkdir -p "$T/saved"
gdir=$(dirname "$(find "$T/global" -type f -name 'l4-*rank*.fti' | head -1)")
find "$T/global" -type f -name 'l4-*rank*.fti' -exec mv {} "$T/saved/" \;
expect_exit 20 "$T/r1" sem "$T/c.fti" check 40
grep -q "needs its global files: the local copy .* is not used for a restart" "$T/r1" ||
  { cat "$T/r1"; fail "the failed restart does not say why the local copy was not used"; }
[ "$(local_files 'l4-*rank*.fti')" -eq 2 ] || { find "$LOCAL_DIR"; fail "the failed restart removed the local copies"; }
mv "$T"/saved/* "$gdir/"
expect_pass check "$T/r2" sem "$T/c.fti" check 40

fresh
heads_config "$T/c1.fti"
sed -i 's/^\[basic\]$/[basic]\nl4_local_copy = 1/' "$T/c1.fti"
expect_pass report "$T/w1" sem "$T/c1.fti" report 50 2 4
find "$T/global" -type f -name 'l4-*rank*.fti' -delete
expect_pass check "$T/r3" sem "$T/c1.fti" check 50
pass "an L4 checkpoint flushed by heads restarts from its global files only, as FTI; l4_local_copy = 1 from the local copy"
