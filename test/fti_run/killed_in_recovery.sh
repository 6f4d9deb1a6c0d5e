#!/usr/bin/env bash
# Run 1 is killed at iteration 35; run 2 dies inside FTI_Init while it
# decides the restart (fault point "recovery"); run 3 restarts from the same
# checkpoint and finishes with the fault-free digest.
source "$(dirname "$0")/lib.sh"
reference
heatdis_config "$T/job.fti" "$T/job"
export ATTEMPT1_ARGS="--crash-at 35 --crash-rank 0" ATTEMPT2_FAULT="crash:recovery@3"
fti_run --max-restarts 2
[ "$RC" -eq 0 ] || fail "fti-run exit status $RC"
cmp "$T/ref.txt" "$T/out.txt" || fail "final digest differs from the fault-free run"
[ "$(summary_field 's["runs"], s["outcome"]')" = "3 finished" ] || fail "summary: $(cat "$T/summary.json")"
[ "$(summary_field 's["per_run"][1]["exit"] != 0 and s["per_run"][1]["resumed_from"] is None')" = True ] ||
  fail "run 2 was expected to die before it was ready"
[ "$(summary_field 's["per_run"][2]["resumed_from"]["seq"]')" = 3 ] || fail "run 3 resumed from the wrong checkpoint"
pass "killed during recovery, finished in one fti-run call"
