#!/usr/bin/env bash
# Online recovery (issue 33), examples/heatdis on 4 application ranks and
# spares, each case in one mpiexec --with-ft ulfm: a rank killed at a random
# iteration (and, from L2 on, its node's storage lost with it: the folder is
# renamed away at the kill) is replaced by a spare, every rank rolls back
# and the final digest is bit-identical to a fault-free run's. Cases: L1,
# L2, L3, L4 (TRIALS random kills each: the first argument, default 2),
# a kill during an L2 checkpoint (SIGKILL while FTI_FAULT's delay holds the
# rank in its L2 send), two kills in a row with two spares, and more
# failures than spares (the job ends with the usual error, MPI_Abort). The fault-free run with a
# spare checks that spares never run the program and end at FTI_Finalize.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ulfmlib.sh"
TRIALS="${1:-2}"

# -- fault-free, one spare: the reference; the spare runs nothing of heatdis
run ref 1 "$(cfg_for 1 1)" || { cat "$T/ref.log"; fail "fault-free run failed"; }
[ "$(grep -c "^heatdis: 4 ranks" "$T/ref.log")" = 1 ] && [ "$(grep -c "^heatdis-stats" "$T/ref.log")" = 1 ] ||
  { cat "$T/ref.log"; fail "the spare ran the program, or rank 0 did not finish"; }
echo "ok: fault-free with a spare (released at FTI_Finalize)"

# -- a rank killed at a random iteration, per level -------------------------
for level in 1 2 3 4; do
  for t in $(seq 1 "$TRIALS"); do
    rank=$((RANDOM % 4)) iter=$((11 + RANDOM % (ITERS - 15)))
    lose=(); [ "$level" = 1 ] || lose=(--crash-lose "$T/nodes/node$rank")
    name="l$level-t$t"
    run "$name" 1 "$(cfg_for "$level" 1)" --crash-at "$iter" --crash-rank "$rank" "${lose[@]}" ||
      { cat "$T/$name.log"; fail "$name: rank $rank killed at iteration $iter: the job failed"; }
    grep -q "rank $rank: injected crash" "$T/$name.log" || fail "$name: no crash happened"
    recovered "$name" "$level"
    echo "ok: L$level, rank $rank killed at iteration $iter${lose[*]:+, its node storage lost}"
  done
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
