#!/usr/bin/env bash
# Online recovery (issue 33): a second rank dies while the survivors repair
# after a first failure. examples/heatdis on 4 application ranks, rank 0
# crashes at iteration 30; rank 2 is held by FTI_FAULT's 1 s delay in the
# repair and killed there from outside (SIGKILL):
#   - after MPIX_Comm_shrink, before the new communicators are split
#     (phase 'repair'): the repair starts again from what survived;
#   - while the library rebuilds its communicators and state over the
#     repaired one (phase 'rejoin'): every rank, spares included, agrees
#     that a process failed meanwhile and the repair starts again.
# With two spares each job finishes in its one mpiexec, bit-identical to a
# fault-free run, with one repair of 2 ranks in the log and the status
# file; with one spare the job ends with the usual error (MPI_Abort).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ulfmlib.sh"

run ref 1 "$(cfg_for 1 1)" || { cat "$T/ref.log"; fail "fault-free run failed"; }

for phase in repair rejoin; do
  name="kill-in-$phase"
  rm -f "$T/$name.status"
  FTI_STATUS_FILE="$T/$name.status" KILL_AT="$(delayed 2)|2" FTI_FAULT="delay:$phase:1@2" \
    run "$name" 2 "$(cfg_for 1 2)" --crash-at 30 --crash-rank 0 ||
    { cat "$T/$name.log"; fail "$name: rank 2 killed in the repair ($phase): the job failed"; }
  grep -q "r2\] warning: fault injection: 1 s delay at phase '$phase'" "$T/$name.log" ||
    { cat "$T/$name.log"; fail "$name: rank 2 was not held in phase '$phase'"; }
  grep -q "online recovery: 2 ranks replaced by spares" "$T/$name.log" ||
    { cat "$T/$name.log"; fail "$name: not one repair replacing 2 ranks"; }
  recovered "$name" 1
  grep -q '"event":"online_recovery","replaced":2,' "$T/$name.status" ||
    { cat "$T/$name.status"; fail "$name: no online_recovery event with replaced 2 in the status file"; }
  echo "ok: rank 2 killed during the repair (phase $phase), two spares: bit-identical"
done
grep -q "a rank failed while the library rebuilt its communicators; the repair starts again" \
  "$T/kill-in-rejoin.log" || { cat "$T/kill-in-rejoin.log"; fail "kill-in-rejoin: no second repair said"; }

# -- the replacement takes the dead rank's node-folder lock, as a relaunch
# would: rank 2 (the first and only rank of node 2) crashes at iteration 30
# after 3 checkpoints; its replacement (global rank 4) reads FTI_FAULT as
# rank 2, and while it is held in its 4th checkpoint (the delay never fires
# on the first rank 2), node 2's lock file names the replacement's process
watch_lock() {
  for _ in $(seq 1 1200); do
    grep -aq "r2\] warning: fault injection: 1 s delay" "$T/lock.log" 2>/dev/null && break; sleep 0.05
  done
  find "$T/nodes/node2" -name lock -exec cat {} \; > "$T/lock.seen" 2>/dev/null || true
  rank_pid 4 > "$T/lock.spare"
}
rm -f "$T/lock.seen" "$T/lock.spare"
watch_lock &
write_config "$T/lock.fti" ckpt_l1_iter=10 online_recovery=1 spare_ranks=1 keep_all_levels=0 \
  "metrics_file=$T/lock.metrics"
rm -f "$T/lock.metrics"
FTI_FAULT="delay:after_local_write:4@2" run lock 1 "$T/lock.fti" --crash-at 30 --crash-rank 2 ||
  { cat "$T/lock.log"; fail "lock: the job failed"; }
wait
recovered lock 1
# the metrics say how long the repair took, and the restore after it
grep -q '"event":"online_recovery","status":"ok",.*"replaced":1,.*"repair_s":[0-9.]*,.*"choose_s":' \
  "$T/lock.metrics" || { cat "$T/lock.metrics"; fail "lock: no online_recovery line in the metrics file"; }
grep -q '"event":"restore","status":"ok"' "$T/lock.metrics" ||
  { cat "$T/lock.metrics"; fail "lock: no restore line in the metrics file"; }
"$FTI_BUILD_DIR/tools/fti-ckpt" stats "$T/lock.metrics" > "$T/lock.stats"
grep -Eq "^online_recovery +1 +1 +0 " "$T/lock.stats" ||
  { cat "$T/lock.stats"; fail "lock: fti-ckpt stats shows no online_recovery row"; }
# lock.spare may list more than one process of the spare's rank (seen: two pids in one run)
held=0
for p in $(cat "$T/lock.spare" 2>/dev/null); do
  grep -qx "host=$(hostname) pid=$p" "$T/lock.seen" && held=1
done
[ "$held" = 1 ] ||
  { cat "$T/lock.log"; fail "lock: node 2's lock file names '$(cat "$T/lock.seen")', not the" \
    "replacement (pid $(cat "$T/lock.spare"))"; }
echo "ok: the replacement holds the dead rank's node-folder lock"

# -- the same with one spare: too few, the job ends with the usual error ----
set +e
KILL_AT="$(delayed 2)|2" FTI_FAULT="delay:rejoin:1@2" \
  run rejoin-one-spare 1 "$(cfg_for 1 1)" --crash-at 30 --crash-rank 0; rc=$?
set -e
[ "$rc" -ne 124 ] || { cat "$T/rejoin-one-spare.log"; fail "rejoin-one-spare: the job hung"; }
[ ! -e "$T/rejoin-one-spare.out" ] || { cat "$T/rejoin-one-spare.log"; fail "rejoin-one-spare: the job finished"; }
grep -q "more ranks failed than spares are left (spare_ranks); the job ends" "$T/rejoin-one-spare.log" ||
  { cat "$T/rejoin-one-spare.log"; fail "rejoin-one-spare: no message naming spare_ranks"; }
grep -q "MPI_Abort" "$T/rejoin-one-spare.log" ||
  { cat "$T/rejoin-one-spare.log"; fail "rejoin-one-spare: not ended by MPI_Abort"; }
echo "ok: a kill during the repair with no spare left ends the job (MPI_Abort)"
pass "online recovery: a rank killed during the repair (shrink, rebuild) is recovered too"
