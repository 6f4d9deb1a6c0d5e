#!/usr/bin/env bash
# fti-fault fails what it did not test (issue 26): each line below once
# passed without its fault happening. Lines it cannot carry out are rejected
# before anything runs (no reference run, exit status 2, the reason named);
# a fault that did not happen, or a "recovery" that restored nothing, fails
# the scenario with the reason in its result line.
set -euo pipefail
: "${FTI_BUILD_DIR:?run through ctest}" "${FTI_SOURCE_DIR:?run through ctest}"
T="${FTI_TEST_DIR:-/tmp/fti-harness-rejects-$$}"
rm -rf "$T" && mkdir -p "$T"
fail() { echo "FAIL: $*" >&2; exit 1; }

# fault LINE [fti-fault options]: fti-fault over heatdis (60 iterations,
# --iters 60 tells fti-fault so) with one scenario line; output in $T/out,
# exit status in $RC.
fault() {
  local line="$1"; shift
  rm -rf "$T/w"
  set +e
  python3 "$FTI_SOURCE_DIR/tools/fti-fault" --np 4 --node-size 1 \
    --config "$FTI_SOURCE_DIR/test/fault/heatdis.fti" --workdir "$T/w" --seed 7 \
    --crash-args "--crash-at {iter} --crash-rank {rank}" "$@" --scenario "$line" -- \
    "$FTI_BUILD_DIR/examples/heatdis" --config {config} --output {output} \
    --iters 60 --rows 32 --cols 512 > "$T/out" 2>&1
  RC=$?
  set -e
}

# rejected LINE MESSAGE [options]: refused up front, nothing run.
rejected() {
  local line="$1" msg="$2"; shift 2
  fault "$line" --iters 60 "$@"
  [ "$RC" = 2 ] || { cat "$T/out"; fail "not rejected (exit $RC): $line"; }
  grep -qF -- "$msg" "$T/out" || { cat "$T/out"; fail "rejected without saying '$msg': $line"; }
  [ ! -e "$T/w/reference" ] || fail "ran the reference before rejecting: $line"
  echo "rejected as expected: $line"
}

# not_tested LINE MESSAGE [options]: ran, and failed for the reason given.
not_tested() {
  local line="$1" msg="$2"; shift 2
  fault "$line" "$@"
  [ "$RC" = 1 ] || { cat "$T/out"; fail "did not fail (exit $RC): $line"; }
  grep -qF -- "$msg" "$T/out" || { cat "$T/out"; fail "failed without saying '$msg': $line"; }
  grep -q "^0 passed, 1 failed" "$T/out" || { cat "$T/out"; fail "not counted as failed: $line"; }
  grep -q "recovered, identical" "$T/out" && { cat "$T/out"; fail "printed 'recovered, identical': $line"; }
  echo "failed as expected: $line"
}

# --- up front -----------------------------------------------------------------
rejected "late-crash set ckpt_l1_iter=10; crash rank=2 iter=75 => identical" \
  "crash iter=75: the application's last iteration is 59"
rejected "no-rank set ckpt_l1_iter=10; crash rank=7 iter=35 => identical" \
  "crash rank=7: there is no rank 7 (4 ranks)"
rejected "no-rank-kill set ckpt_l1_iter=10; kill rank=4 after=1 => identical" \
  "kill rank=4: there is no rank 4 (4 ranks)"
rejected "typo set ckpt_l1_itr=10; crash rank=2 iter=35 => identical" \
  "set ckpt_l1_itr: the library has no key [basic] ckpt_l1_itr"
rejected "typo-section set ckpt_l1_iter=10 restart.exec_ix=a; crash rank=2 iter=35 => identical" \
  "set restart.exec_ix: the library has no key [restart] exec_ix"
rejected "no-level crash rank=2 iter=35 => identical" \
  "no checkpoint level is scheduled"
rejected "no-node set ckpt_l2_iter=10; crash rank=1 iter=35; lose node=4 => identical" \
  "lose node=4: there is no node 4 (4 nodes)"
rejected "no-node-damage set ckpt_l2_iter=10; crash rank=1 iter=35; damage corrupt what=l1 node=9 => identical" \
  "damage node=9: there is no node 9 (4 nodes)"
rejected "at-17 set ckpt_l1_iter=10; fault crash:after_commit:1@17 => identical" \
  "fault crash:after_commit:1@17: there is no rank 17 (4 ranks)"
rejected "no-l3 set ckpt_l1_iter=10; fault crash:l3_encode:2@1 => identical" \
  "fault crash:l3_encode:2@1: no L3 checkpoint is scheduled"
rejected "no-l4 set ckpt_l2_iter=10; fault flip:l4_flush:2@1; crash rank=0 iter=45 => identical" \
  "fault flip:l4_flush:2@1: no L4 checkpoint is scheduled"
# Online recovery's phases and expectation need online_recovery = 1, and
# spares are no application rank a crash can name.
rejected "no-online set ckpt_l1_iter=10; fault delay:rejoin:1@2; kill rank=2 after=delay => online" \
  "fault delay:rejoin:1@2: no repair without online recovery (online_recovery = 1)"
rejected "no-online-expect set ckpt_l1_iter=10; kill rank=2 after=1 => online" \
  "=> online needs set online_recovery=1 spare_ranks=N"
rejected "spare-crash set ckpt_l1_iter=10 online_recovery=1 spare_ranks=1; crash rank=3 iter=35 => online" \
  "crash rank=3: there is no rank 3 (3 ranks)"
rejected "bad-key set ckpt_l1_iter=10; crash rank=2 itr=35 => identical" \
  "crash: unknown key 'itr'"
rejected "bad-kill set ckpt_l1_iter=10; kill rank=1 aftr=1 => identical" \
  "kill: unknown key 'aftr'"
# A misspelt phase would name a point that never fires: refused by name,
# with the phases the library has.
rejected "typo-phase set ckpt_l1_iter=10; fault crash:befor_commit@1 => identical" \
  "fault crash:befor_commit@1: unknown phase 'befor_commit' (phases: after_local_write, l2_send, l3_encode, l4_flush, dcp_layer, h5_write, before_commit, after_commit, recovery, staged, repair, rejoin)"
rejected "late-kill-iter set ckpt_l1_iter=10; crash rank=1 iter=60 => identical" \
  "crash iter=60: the application's last iteration is 59"

# --- at run time --------------------------------------------------------------
# Without --iters the late crash is not known up front: the run exits 0.
not_tested "late-crash set ckpt_l1_iter=10; crash rank=2 iter=75 => identical" \
  "NOT TESTED: crash rank=2 iter=75 did not happen"
# A kill whose time comes after the program finished is no kill.
not_tested "late-kill set ckpt_l1_iter=10; kill rank=1 after=120 => identical" \
  "NOT TESTED: kill rank=1 after=120.0 s: the run had finished"
not_tested "late-killall set ckpt_l1_iter=10; killall after=120 => identical" \
  "NOT TESTED: killall after=120.0 s: the run had finished"
# A crash before the first checkpoint: the second run is a fresh start.
not_tested "fresh set ckpt_l1_iter=10; crash rank=2 iter=5 => identical" \
  "NO RESTORE: the restart restored no checkpoint"
# Node 1 holds nothing yet when it is "lost" (a crash before any checkpoint).
not_tested "empty-node set ckpt_l2_iter=10; crash rank=1 iter=3; lose node=1 => identical" \
  "NOT TESTED: lose node=1: its folder held no file"

# write:1:ENOSPC now fails the first checkpoint write, not the lock file in
# FTI_Init: the scenario passes, the log shows the injection at a checkpoint
# file and the restore of a later checkpoint.
fault "write-enospc set ckpt_l1_iter=10; fault write:1:ENOSPC; crash rank=2 iter=35 => identical" --iters 60
[ "$RC" = 0 ] || { cat "$T/out"; fail "write:1:ENOSPC scenario failed"; }
grep -Eq "^write-enospc +identical +recovered, identical +L1 #[0-9]+ " "$T/out" \
  || { cat "$T/out"; fail "write:1:ENOSPC: no L1 restore shown"; }
grep -q "fault injection: write #1 fails" "$T/w/write-enospc/run0.log" || fail "no injection logged"
grep -q "l1-s[01]-rank[0-3].fti.*No space left on device" "$T/w/write-enospc/run0.log" \
  || { cat "$T/w/write-enospc/run0.log"; fail "write:1:ENOSPC did not fail a checkpoint file"; }
echo "PASS: every false pass of issue 26 is rejected or failed"
