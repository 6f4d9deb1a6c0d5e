#!/usr/bin/env bash
# restart = never: a launch that dies before its first commit leaves the
# newest committed checkpoint of the earlier job restorable, byte for byte
# (it writes only into slots the existing commit record does not name as a
# level's newest). At L1, L2 and L4, with the crash after the local write and
# before the commit (partner copy and global copy written). Job A commits
# three checkpoints, so its newest sits in slot 0, the slot a fresh run starts
# with. A `never` run that finishes without a commit removes nothing. Then a
# `never` run that commits: its record replaces A's.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
write_config "$T/a.fti" keep_last_ckpt=1 restart.exec_id=shared
write_config "$T/b.fti" keep_last_ckpt=1 restart.exec_id=shared restart=never

for level in 1 2 4; do
  for fault in crash:after_local_write crash:before_commit; do
    rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
    for seed in 11 12 13; do
      run_nodes 4 1 "$P" "$T/a.fti" write $seed $level 64 > "$T/out" 2>&1 ||
        { cat "$T/out"; fail "L$level: job A checkpoint $seed"; }
    done
    grep -q "^cur level=$level seq=3 id=13 slot=0 " "$T"/meta/shared/commit ||
      { cat "$T"/meta/shared/commit; fail "L$level: A's newest is not #3 in slot 0"; }
    FTI_FAULT="$fault" run_nodes 4 1 "$P" "$T/b.fti" write 21 $level 64 > "$T/out" 2>&1 &&
      { cat "$T/out"; fail "L$level $fault: job B did not crash"; }
    grep -q "fault injection: crash at phase" "$T/out" || { cat "$T/out"; fail "L$level $fault: no crash"; }
    run_nodes 4 1 "$P" "$T/a.fti" check 13 64 > "$T/out" 2>&1 ||
      { cat "$T/out"; fail "L$level $fault: restart after B's crash"; }
    grep -q "PASS: restored bytes identical" "$T/out" ||
      { cat "$T/out"; fail "L$level $fault: A's newest checkpoint (13) not restored"; }
    # B wrote its own file, in the slot A's newest does not use.
    ls "$T"/nodes/node0/shared/l$level-s1-rank0.fti > /dev/null ||
      fail "L$level $fault: job B wrote no file in slot 1"
  done
done

# A `never` run that ends without a commit (keep_last_ckpt = 0, which removes
# a run's own checkpoints at FTI_Finalize) leaves the ones it found.
write_config "$T/b0.fti" keep_last_ckpt=0 restart.exec_id=shared restart=never
run_nodes 4 1 "$P" "$T/b0.fti" write 22 0 64 > "$T/out" 2>&1 || { cat "$T/out"; fail "B without a commit"; }
run_nodes 4 1 "$P" "$T/a.fti" check 13 64 > "$T/out" 2>&1 || { cat "$T/out"; fail "restart after B's finalize"; }
grep -q "PASS: restored bytes identical" "$T/out" || { cat "$T/out"; fail "A's checkpoint gone after B's finalize"; }

# A `never` run that commits: the record names only its checkpoint, which
# the next restart restores; a later crash before its second commit keeps it.
run_nodes 4 1 "$P" "$T/b.fti" write 31 1 64 > "$T/out" 2>&1 || { cat "$T/out"; fail "B's commit"; }
grep -c "^\(cur\|prev\) " "$T"/meta/shared/commit | grep -qx 1 ||
  { cat "$T"/meta/shared/commit; fail "B's record still names A's checkpoints"; }
grep -q "^cur level=1 .* id=31 " "$T"/meta/shared/commit ||
  { cat "$T"/meta/shared/commit; fail "B's checkpoint is not the record's"; }
run_nodes 4 1 "$P" "$T/a.fti" check 31 64 > "$T/out" 2>&1 || { cat "$T/out"; fail "restart of B's checkpoint"; }
grep -q "PASS: restored bytes identical" "$T/out" || { cat "$T/out"; fail "B's checkpoint (31) not restored"; }
pass "restart = never keeps the newest committed checkpoint until its own commit"
