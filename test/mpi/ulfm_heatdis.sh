#!/usr/bin/env bash
# Online recovery (issue 33), examples/heatdis on 4 application ranks and
# spares, each case in one mpiexec --with-ft ulfm: a rank killed at a random
# iteration (its node's storage lost with it, the folder renamed away at
# the kill, except in every other L1+L2 trial) is replaced by a spare,
# every rank rolls back and the final digest is bit-identical to a
# fault-free run's. Cases: L1+L2 (L1 every 5 iterations, L2 every 10), L3,
# L4 (TRIALS random kills each: the first argument, default 20), 16 ranks
# and a spare, a kill during an L2 checkpoint (SIGKILL while FTI_FAULT's delay holds the
# rank in its L2 send), two kills in a row with two spares, and more
# failures than spares (the job ends with the usual error, MPI_Abort). The fault-free run with a
# spare checks that spares never run the program and end at FTI_Finalize.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ulfmlib.sh"
TRIALS="${1:-20}"

# -- fault-free, one spare: the reference; the spare runs nothing of heatdis
run ref 1 "$(cfg_for 1 1)" || { cat "$T/ref.log"; fail "fault-free run failed"; }
[ "$(grep -c "^heatdis: 4 ranks" "$T/ref.log")" = 1 ] && [ "$(grep -c "^heatdis-stats" "$T/ref.log")" = 1 ] ||
  { cat "$T/ref.log"; fail "the spare ran the program, or rank 0 did not finish"; }
echo "ok: fault-free with a spare (released at FTI_Finalize)"

# -- a rank killed at a random iteration, per level -------------------------
# L1+L2: with its node's storage the rank restores from the newest
# checkpoint (L1 or L2); without, from the newest L2 (L1 has no copy)
for level in 12 3 4; do
  for t in $(seq 1 "$TRIALS"); do
    rank=$((RANDOM % 4)) iter=$((11 + RANDOM % (ITERS - 15))) from=$level
    lose=(--crash-lose "$T/nodes/node$rank")
    if [ "$level" = 12 ]; then
      from=2; [ $((t % 2)) = 0 ] || { lose=(); from="[12]"; }
    fi
    name="l$level-t$t"
    run "$name" 1 "$(cfg_for "$level" 1)" --crash-at "$iter" --crash-rank "$rank" "${lose[@]}" ||
      { cat "$T/$name.log"; fail "$name: rank $rank killed at iteration $iter: the job failed"; }
    grep -q "rank $rank: injected crash" "$T/$name.log" || fail "$name: no crash happened"
    recovered "$name" "$from"
    echo "ok: L${level/12/1+L2} trial $t, rank $rank killed at iteration $iter${lose[*]:+, its node storage lost}"
  done
done

# -- 16 ranks and a spare: Open MPI 5.0 aborted such jobs ("Send error after
# request freed") while heatdis waited with MPI_Waitall (docs/USER_GUIDE.md)
RANKS=16 run ref16 1 "$(cfg_for 2 1)" || { cat "$T/ref16.log"; fail "16 ranks: fault-free run failed"; }
for t in 1 2; do
  rank=$((1 + RANDOM % 14)) iter=$((21 + RANDOM % (ITERS - 25)))
  RANKS=16 run "r16-t$t" 1 "$(cfg_for 2 1)" --crash-at "$iter" --crash-rank "$rank" \
    --crash-lose "$T/nodes/node$rank" ||
    { cat "$T/r16-t$t.log"; fail "16 ranks: rank $rank killed at iteration $iter: the job failed"; }
  grep -q "rank $rank: injected crash" "$T/r16-t$t.log" || fail "r16-t$t: no crash happened"
  grep -q "Recovering successfully from level 2" "$T/r16-t$t.log" &&
    grep -q "online recovery: 1 rank replaced by spares" "$T/r16-t$t.log" ||
    { cat "$T/r16-t$t.log"; fail "r16-t$t: no online recovery from L2"; }
  cmp -s "$T/ref16.out" "$T/r16-t$t.out" || fail "r16-t$t: digest differs from the fault-free run"
  echo "ok: 16 ranks, rank $rank killed at iteration $iter, its node storage lost"
done

# -- killed during a checkpoint: rank 1 in its second L2 send ----------------
KILL_AT="$(delayed 1)|1" FTI_FAULT="delay:l2_send:2@1" run during-ckpt 1 "$(cfg_for 2 1)" ||
  { cat "$T/during-ckpt.log"; fail "kill during an L2 checkpoint: the job failed"; }
recovered during-ckpt 2
echo "ok: rank 1 killed during an L2 checkpoint"

# -- two failures in a row, two spares: rank 0 at iteration 30, then rank 2
# during the local write of the checkpoint after the repair (its fifth) -----
rm -f "$T/two.status"
FTI_STATUS_FILE="$T/two.status" KILL_AT="$(delayed 2)|2" FTI_FAULT="delay:after_local_write:5@2" run two 2 "$(cfg_for 1 2)" --crash-at 30 --crash-rank 0 ||
  { cat "$T/two.log"; fail "two failures, two spares: the job failed"; }
[ "$(grep -c "online recovery: 1 rank replaced" "$T/two.log")" = 2 ] ||
  { cat "$T/two.log"; fail "two failures, two spares: not two repairs"; }
recovered two 1
# the status file fti-run reads: one online_recovery event per repair (a
# rerun of the job appends to it: the last run's two)
[ "$(grep -c '"event":"online_recovery","replaced":1,"repair_s":' "$T/two.status")" -ge 2 ] ||
  { cat "$T/two.status"; fail "two failures: not two online_recovery events in the status file"; }
echo "ok: two failures in a row, two spares"

# -- more failures than spares: ranks 1 and 3 at once, one spare -------------
set +e
KILL_AT="$(delayed 3)|1 3" FTI_FAULT="delay:after_local_write:2@1+3" run too-many 1 "$(cfg_for 1 1)"; rc=$?
set -e
# (mpiexec --with-ft may exit 0 when ranks died: the log and the missing
# digest say how the job ended)
[ "$rc" -ne 124 ] || { cat "$T/too-many.log"; fail "two failures, one spare: the job hung"; }
[ ! -e "$T/too-many.out" ] || { cat "$T/too-many.log"; fail "two failures, one spare: the job finished"; }
grep -q "more ranks failed than spares are left (spare_ranks); the job ends" "$T/too-many.log" ||
  { cat "$T/too-many.log"; fail "two failures, one spare: no message naming spare_ranks"; }
echo "ok: more failures than spares end the job"
pass "online recovery: heatdis bit-identical after kills at L1-L4, during a checkpoint, twice in a row"
