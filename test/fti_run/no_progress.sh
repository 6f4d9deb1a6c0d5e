#!/usr/bin/env bash
# Run 1 is killed at iteration 35; every later run resumes from checkpoint #3
# and dies before committing the next one (fault point before_commit on rank
# 0, which writes the commit record). Two runs in a row die after resuming
# from the same checkpoint without a new commit: fti-run stops after run 3
# with "no progress" instead of relaunching until --max-restarts (6 runs).
source "$(dirname "$0")/lib.sh"
heatdis_config "$T/job.fti" "$T/job"
export ATTEMPT1_ARGS="--crash-at 35 --crash-rank 2"
for k in 2 3 4 5 6; do export ATTEMPT${k}_FAULT="crash:before_commit@0"; done
fti_run --max-restarts 5
[ "$RC" -ne 0 ] || fail "fti-run exit status 0 for a job that never finished"
[ "$(summary_field 's["runs"], s["outcome"]')" = "3 no_progress" ] || fail "summary: $(cat "$T/summary.json")"
[ "$(summary_field '[r["resumed_from"]["seq"] for r in s["per_run"][1:]]')" = "[3, 3]" ] ||
  fail "runs 2 and 3 did not both resume from checkpoint #3: $(cat "$T/summary.json")"
grep -q "no progress: runs 2 and 3 both resumed from checkpoint #3" "$T/fti-run.err" ||
  { cat "$T/fti-run.err"; fail "the reason is not printed"; }
pass "a job that dies at the same point after each restart stops with no progress"
