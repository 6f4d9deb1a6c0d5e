#!/usr/bin/env bash
# A file that a restart rebuilt (L2: the partner copy sent back; L3: decoded
# from the group) was checked byte by byte as it was written, so FTI_Recover
# copies it without hashing it again: only while nobody changed it since.
# Rank 1's node is lost and rebuilt; once the restart restores every byte,
# once the rebuilt file changes between FTI_Init and FTI_Recover and rank 1
# must refuse the restore, naming the file and variable, while the others
# restore theirs.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"

for level in 2 3; do
  rm -rf "$T/nodes" "$T/global" "$T/meta"
  write_config "$T/c.fti" keep_last_ckpt=1
  run_nodes 4 1 "$P" "$T/c.fti" write 7 "$level" > "$T/out" 2>&1 || { cat "$T/out"; fail "L$level checkpoint"; }
  exec_id="$(basename "$(echo "$T"/nodes/node2/*)")"

  lose_node 1
  run_nodes 4 1 "$P" "$T/c.fti" check 7 > "$T/out" 2>&1 || { cat "$T/out"; fail "L$level rebuild of node 1"; }
  grep -q "PASS: restored bytes identical" "$T/out" || { cat "$T/out"; fail "L$level: rebuilt bytes differ"; }

  lose_node 1
  tampered_restore_refused "$P" "$T/c.fti" 7 1 "$T/nodes/node1/$exec_id/l$level-s0-rank1.fti"
done
pass "rebuilt files are restored without a second hash, and refused when changed after FTI_Init"
