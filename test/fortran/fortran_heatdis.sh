#!/usr/bin/env bash
# examples/heatdis.f90: fault-free runs, then runs whose application rank 1
# stops at an iteration between checkpoints (no FTI_Finalize) and are
# relaunched; each relaunch must resume from a checkpoint and end with a
# result file identical, byte for byte, to the fault-free one.
#   1. L1 checkpoints, crash, restart.
#   2. L2 checkpoints, crash, node 1's local storage lost, restart.
#   3. head=1 (4 ranks, 2 per node: 2 heads, 2 application ranks): the
#      application works on the communicator FTI_Init handed back.
source "$(dirname "$0")/lib_fortran.sh"

ARGS=(--cols 200 --iters 300)

# heatdis NP NODE_SIZE ROWS args...
heatdis() {
  local np="$1" ns="$2" rows="$3"; shift 3
  run_nodes "$np" "$ns" "$F_HEATDIS" "${ARGS[@]}" --rows "$rows" "$@"
}

# reference NAME NP ROWS: the fault-free result of NP application ranks.
reference() {
  write_config "$T/$1.fti" restart.exec_id="$1" keep_last_ckpt=0 group_size="$2"
  run_logged "$T/$1.log" heatdis "$2" 1 "$3" --config "$T/$1.fti" --output "$T/$1.txt" ||
    fail "the fault-free run $1 failed"
  grep -q '^digest ' "$T/$1.txt" || fail "no digest in $T/$1.txt"
}

# crash_restart NAME REF NP NODE_SIZE ROWS LOSE_NODE config keys...
crash_restart() {
  local name="$1" ref="$2" np="$3" ns="$4" rows="$5" lose="$6" at=170; shift 6
  write_config "$T/$name.fti" restart.exec_id="$name" keep_last_ckpt=0 "$@"
  if heatdis "$np" "$ns" "$rows" --config "$T/$name.fti" --output "$T/$name.txt" \
      --crash-at "$at" --crash-rank 1 > "$T/$name-crash.log" 2>&1; then
    fail "$name: the run with an injected crash exited 0"
  fi
  grep -q "injected crash of rank 1 at iteration $at" "$T/$name-crash.log" ||
    { tail -n 40 "$T/$name-crash.log" >&2; fail "$name: rank 1 did not crash at $at"; }
  [ ! -e "$T/$name.txt" ] || fail "$name: the crashed run wrote a result"
  [ -z "$lose" ] || lose_node "$lose"
  run_logged "$T/$name-restart.log" heatdis "$np" "$ns" "$rows" --config "$T/$name.fti" \
    --output "$T/$name.txt" || fail "$name: the restarted run failed"
  grep -q "heatdis_f90: restarted at iteration" "$T/$name-restart.log" ||
    fail "$name: the relaunch did not restart from a checkpoint"
  cmp "$T/$ref.txt" "$T/$name.txt" ||
    fail "$name: result differs from $ref ($(diff "$T/$ref.txt" "$T/$name.txt" | tr '\n' ' '))"
  pass "$name: $(grep 'restarted at' "$T/$name-restart.log"), result identical"
}

reference ref4 4 48
crash_restart l1 ref4 4 1 48 "" ckpt_l1_iter=60
crash_restart l2_lost_node ref4 4 1 48 1 ckpt_l2_iter=60
reference ref2 2 96
crash_restart head ref2 4 2 96 "" head=1 node_size=2 group_size=2 ckpt_l1_iter=60
