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
if [ "${FTI_HAVE_ULFM:-OFF}" != ON ]; then
  echo "SKIP: this build's MPI has no ULFM (configure summary: 'Online recovery (ULFM)');" \
    "the ulfm label runs in scripts/test.sh's Open MPI 5 stage"
  exit 77
fi
TRIALS="${1:-2}"
[ "$(id -u)" -ne 0 ] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
H="$FTI_BUILD_DIR/examples/heatdis"
ITERS=80
ARGS=(--rows 64 --cols 64 --iters "$ITERS")

# The kills below come from outside, SIGKILL as a lost node gives: a
# process that exits (FTI_FAULT's crash, _exit) is not a failure to Open MPI.
# rank_pid R: the process of MPI_COMM_WORLD rank R of the running heatdis.
rank_pid() {
  local p
  for p in $(pgrep -f "$H"); do
    tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" && echo "$p"
  done
}
# kill_at LOG REGEX RANK...: in the background, once LOG matches REGEX, SIGKILL those ranks.
kill_at() {
  local log="$1" re="$2" r; shift 2
  for _ in $(seq 1 1200); do grep -Eq "$re" "$log" 2>/dev/null && break; sleep 0.1; done
  for r in "$@"; do kill -9 $(rank_pid "$r") 2>/dev/null || true; done
}
delayed() { echo "r$1\] warning: fault injection: 1 s delay"; }

# run NAME SPARES CONFIG [heatdis options...]: one job of 4 + SPARES ranks;
# its log in $T/NAME.log, its digest in $T/NAME.out; returns mpiexec's
# status (124 after 120 s). Open MPI 5 sometimes hangs in MPI_Finalize after
# a process failed (PMIx's fence waits for the dead process: open-mpi/ompi
# issues 9434, 11404): when rank 0 has written its digest and its stats line
# and mpiexec is still there 15 s later, the job is stopped, said so and
# counted as ended (status 0); the results are checked as usual.
# stop_job PID: ends mpiexec PID and its processes. Open MPI's mpiexec
# waiting on a dead process ("Abort is in progress") ignores one SIGTERM:
# after 5 s its children and itself get SIGKILL (by their process ids).
stop_job() {
  local pid="$1" c
  kill "$pid" 2>/dev/null || return 0
  for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  if kill -0 "$pid" 2>/dev/null; then
    for c in $(pgrep -P "$pid"); do kill -9 "$c" 2>/dev/null || true; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

run_once() {
  local name="$1" spares="$2" cfg="$3" pid waited=0 done_at=-1 abort_at=-1; shift 3
  rm -rf "$T/nodes" "$T/global" "$T/meta"; mkdir -p "$T/nodes" "$T/global" "$T/meta"
  "$MPIEXEC" --with-ft=ulfm -n $((4 + spares)) -bind-to none \
    "$H" "${ARGS[@]}" --config "$cfg" --output "$T/$name.out" "$@" > "$T/$name.log" 2>&1 &
  pid=$!
  [ -z "${KILL_AT:-}" ] || kill_at "$T/$name.log" "${KILL_AT%%|*}" ${KILL_AT#*|} &
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1; waited=$((waited + 1))
    if [ "$done_at" -lt 0 ] && [ -s "$T/$name.out" ] && grep -q "^heatdis-stats" "$T/$name.log"; then
      done_at=$waited
    fi
    if [ "$done_at" -ge 0 ] && [ $((waited - done_at)) -ge 15 ]; then
      echo "note: $name: mpiexec still running 15 s after the results (Open MPI's MPI_Finalize" \
        "after a failure: open-mpi/ompi#11404); stopped"
      stop_job "$pid"; return 0
    fi
    # an aborted job (ours or Open MPI's) whose mpiexec waits on the dead
    # process: stopped 10 s after the abort, it failed
    if [ "$abort_at" -lt 0 ] && grep -Eaq "MPI_ABORT was invoked|MPI_ERRORS_ARE_FATAL" "$T/$name.log"; then
      abort_at=$waited
    fi
    if [ "$abort_at" -ge 0 ] && [ $((waited - abort_at)) -ge 10 ]; then
      stop_job "$pid"; return 1
    fi
    [ "$waited" -lt 120 ] || { stop_job "$pid"; return 124; }
  done
  wait "$pid"
}

# Open MPI 5.0.11 itself sometimes aborts a job that a failure hit while a
# send to the dead process was in flight ("Send error after request freed",
# raised on no communicator, so no handler sees it), while its MPI_Sendrecv
# or a nonblocking collective met the revoked communicator, or inside
# MPIX_Comm_shrink when two ranks died at once (ompi_comm_revoke_local).
# Such a job is run again, said so, at most twice; any other end counts.
OMPI_ABORTS="Send error after request freed|Error in NBC_Start_round|PMPI_Sendrecv|ompi_comm_revoke_local"
run() {
  local attempt rc=0
  for attempt in 1 2 3; do
    rc=0; run_once "$@" || rc=$?
    wait # the background killer of KILL_AT
    grep -Eaq "$OMPI_ABORTS" "$T/$1.log" || return "$rc"
    echo "note: $1: Open MPI aborted the job ($(grep -Eao "$OMPI_ABORTS" "$T/$1.log" | head -1)); run again"
  done
  return "$rc"
}

# recovered NAME LEVEL: the job ended well, one repair is logged, the
# restart came from LEVEL and the digest is the fault-free one.
recovered() {
  local name="$1" level="$2"
  grep -q "online recovery: [0-9] ranks\? replaced by spares" "$T/$name.log" ||
    { cat "$T/$name.log"; fail "$name: no online recovery logged"; }
  grep -q "Recovering successfully from level $level" "$T/$name.log" ||
    { cat "$T/$name.log"; fail "$name: not restored from level $level"; }
  cmp -s "$T/ref.out" "$T/$name.out" ||
    { diff "$T/ref.out" "$T/$name.out" | head; fail "$name: digest differs from the fault-free run"; }
}

cfg_for() { # cfg_for LEVEL SPARES
  write_config "$T/l$1-s$2.fti" "ckpt_l$1_iter=10" online_recovery=1 "spare_ranks=$2" keep_all_levels=0
  echo "$T/l$1-s$2.fti"
}

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
