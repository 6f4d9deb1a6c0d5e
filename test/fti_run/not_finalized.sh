#!/usr/bin/env bash
# A run that exits 0 without reaching FTI_Finalize (the job status file has
# "ready" and "committed" but no "finalized") did not finish: fti-run reports
# it as failed, exit status 1, not "finished".
source "$(dirname "$0")/lib.sh"
heatdis_config "$T/job.fti" "$T/job"
INIT_PROG="$FTI_BUILD_DIR/test/mpi/test_prog_init_prog"
set +e
INIT_PROG_NO_FINALIZE=1 python3 "$FTI_RUN" --backoff 0.2 --config "$T/job.fti" \
  --summary "$T/summary.json" -- "$MPIEXEC" -n 4 -bind-to none "$INIT_PROG" "$T/job.fti" 1 \
  > "$T/fti-run.out" 2> "$T/fti-run.err"
RC=$?
set -e
cat "$T/fti-run.err"
grep -q "rank 0: FTI_Checkpoint(1, 1) returned 1" "$T/fti-run.out" || fail "the job did not checkpoint"
[ "$RC" = 1 ] || fail "fti-run exit status $RC for a run that did not finalize"
[ "$(summary_field 's["runs"], s["outcome"], s["per_run"][0]["exit"]')" = "1 not_finalized 0" ] ||
  fail "summary: $(cat "$T/summary.json")"
grep -q "exited 0 without reaching FTI_Finalize" "$T/fti-run.err" || fail "the reason is not printed"
pass "a run that exits 0 without FTI_Finalize is a failure"
