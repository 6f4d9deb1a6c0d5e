#!/usr/bin/env bash
# Run 1 is killed after committing checkpoints; before run 2 every local
# checkpoint file is gone, so the library refuses the restart: fti-run stops
# after run 2 (a third run would fail alike) and the commit record is kept.
source "$(dirname "$0")/lib.sh"
heatdis_config "$T/job.fti" "$T/job"
export ATTEMPT1_ARGS="--crash-at 35 --crash-rank 1" ATTEMPT2_WIPE="$T/job/local"
fti_run --max-restarts 3
[ "$RC" -ne 0 ] || fail "fti-run exit status 0 after a refused restart"
[ "$(summary_field 's["runs"], s["outcome"]')" = "2 restart_refused" ] || fail "summary: $(cat "$T/summary.json")"
grep -q "restart_refused: " "$T/fti-run.err" || fail "the reason is not printed"
ls "$T"/job/meta/*/commit* > /dev/null 2>&1 || fail "the commit record was removed"
pass "refused restart stops"
