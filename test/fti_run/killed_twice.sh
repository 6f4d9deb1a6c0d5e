#!/usr/bin/env bash
# One fti-run call: rank 2 killed at iteration 35 of run 1, rank 1 killed
# after its second commit of run 2; run 3 finishes with the fault-free digest.
source "$(dirname "$0")/lib.sh"
reference
heatdis_config "$T/job.fti" "$T/job"
export ATTEMPT1_ARGS="--crash-at 35 --crash-rank 2" ATTEMPT2_FAULT="crash:after_commit:2@1"
fti_run --max-restarts 3
[ "$RC" -eq 0 ] || fail "fti-run exit status $RC"
cmp "$T/ref.txt" "$T/out.txt" || fail "final digest differs from the fault-free run"
[ "$(summary_field 's["runs"], s["restarts"], s["outcome"]')" = "3 2 finished" ] ||
  fail "summary: $(cat "$T/summary.json")"
# Run 2 resumed from the checkpoint of iteration 30 (the 3rd), run 3 from a later one.
[ "$(summary_field 's["per_run"][1]["resumed_from"]["seq"]')" = 3 ] || fail "run 2 resumed from the wrong checkpoint"
[ "$(summary_field 's["per_run"][2]["resumed_from"]["seq"] > 3')" = True ] || fail "run 3 did not resume from run 2's checkpoints"
[ "$(summary_field 's["per_run"][0]["resumed_from"]')" = None ] || fail "run 1 was not a fresh start"
pass "killed twice, finished in one fti-run call"
