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
