#!/usr/bin/env bash
# A config the library rejects: fti-run stops after the first run, says why,
# and exits non-zero (no relaunch: it cannot help).
source "$(dirname "$0")/lib.sh"
heatdis_config "$T/job.fti" "$T/job" "ckpt_l1_iter = -5"
fti_run --max-restarts 3
[ "$RC" -ne 0 ] || fail "fti-run exit status 0 on a config error"
[ "$(summary_field 's["runs"], s["outcome"]')" = "1 config_error" ] || fail "summary: $(cat "$T/summary.json")"
grep -q "init_error: config .*job.fti.*ckpt_l1_iter" "$T/fti-run.err" || fail "the reason does not name the key"
pass "config error stops after the first run"
