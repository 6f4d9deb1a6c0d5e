#!/usr/bin/env bash
# An L4 checkpoint with no local copy (l4_local_copy = 0) is restored from the
# global file where it lies: FTI_Init verifies it there, and FTI_Recover
# copies it (from the mapping FTI_Init verified through, in memory) without
# hashing it again, only while it is still the version FTI_Init verified.
# Every byte restores; a byte changed in rank 1's global file between
# FTI_Init and FTI_Recover makes rank 1 refuse, naming file and variable,
# while the others restore theirs. The same for a local file restored from
# the global copy (l4_local_copy = 1, POSIX and MPI-IO), checked as FTI_Init
# wrote it. Run on the test's disk, then, where
# /dev/shm is a writable tmpfs, there too (the mapped path).
source "$(dirname "$0")/rerun.sh"
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"

# In place: the global files as they are (l4_local_copy = 0).
write_config "$T/c.fti" keep_last_ckpt=1 l4_local_copy=0
run_nodes 4 1 "$P" "$T/c.fti" write 9 4 > "$T/out" 2>&1 || { cat "$T/out"; fail "L4 checkpoint"; }
victim="$(echo "$T"/global/*/l4-s0-rank1.fti)"
[ -f "$victim" ] || fail "no global L4 file of rank 1: $(ls -R "$T/global")"
[ -z "$(find "$T/nodes" -name 'l4-s*-rank*.fti' 2>/dev/null)" ] || fail "an L4 file was kept locally"

run_nodes 4 1 "$P" "$T/c.fti" check 9 > "$T/out" 2>&1 || { cat "$T/out"; fail "restore from the global files"; }
grep -q "PASS: restored bytes identical" "$T/out" || { cat "$T/out"; fail "restored bytes differ"; }
[ -z "$(find "$T/nodes" -name 'l4-s*-rank*.fti' 2>/dev/null)" ] || fail "the restore copied an L4 file locally"
tampered_restore_refused "$P" "$T/c.fti" 9 1 "$victim"

# Copied back: the global file (POSIX, then MPI-IO's shared file) restored
# into a local file that was checked when written; the local file changes.
for io in 1 2; do
  rm -rf "$T/nodes" "$T/global" "$T/meta"
  write_config "$T/c.fti" keep_last_ckpt=1 l4_local_copy=1 ckpt_io=$io
  run_nodes 4 1 "$P" "$T/c.fti" write 11 4 > "$T/out" 2>&1 || { cat "$T/out"; fail "L4 checkpoint, ckpt_io $io"; }
  exec_id="$(basename "$(echo "$T"/global/*)")"
  rm -rf "$T/nodes"
  run_nodes 4 1 "$P" "$T/c.fti" check 11 > "$T/out" 2>&1 || { cat "$T/out"; fail "restore, ckpt_io $io"; }
  grep -q "PASS: restored bytes identical" "$T/out" || { cat "$T/out"; fail "restored bytes differ, ckpt_io $io"; }
  rm -rf "$T/nodes"
  tampered_restore_refused "$P" "$T/c.fti" 11 1 "$T/nodes/node1/$exec_id/l4-s0-rank1.fti"
done
pass "L4 restored in place or copied back, refused when the file changed after FTI_Init"
