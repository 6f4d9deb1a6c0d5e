#!/usr/bin/env bash
# fti-run reports a run's online recoveries (online_recovery = 1: a spare
# replaced a failed rank, no relaunch) from the status file's
# online_recovery events: a progress line per recovery naming the ranks
# replaced, the repair time and the checkpoint rolled back to; the run's
# summary line counts them; the JSON summary lists them. The job is a stand-in
# that writes the events the library writes (runtime/jobstatus.c), so the
# test needs no ULFM MPI (mpi_ulfm_heatdis checks the library's lines).
source "$(dirname "$0")/lib.sh"
cat > "$T/job.sh" <<'JOB'
#!/usr/bin/env bash
t=$(date +%s)
{ echo "{\"time\":$t.0,\"rank\":0,\"event\":\"ready\",\"exec_id\":\"x\",\"restart\":false}"
  echo "{\"time\":$t.1,\"rank\":0,\"event\":\"committed\",\"seq\":4,\"id\":4,\"level\":2,\"bytes\":1024}"
  echo "{\"time\":$t.2,\"rank\":0,\"event\":\"online_recovery\",\"replaced\":1,\"repair_s\":0.012,\"choose_s\":0.031,\"seq\":4,\"id\":4,\"level\":2}"
  echo "{\"time\":$t.3,\"rank\":0,\"event\":\"online_recovery\",\"replaced\":2,\"repair_s\":0.020,\"choose_s\":0.040,\"seq\":4,\"id\":4,\"level\":2}"
  echo "{\"time\":$t.4,\"rank\":0,\"event\":\"finalized\",\"error\":\"FTI_E_OK\"}"
} >> "$FTI_STATUS_FILE"
JOB
chmod +x "$T/job.sh"
"$FTI_RUN" --status-dir "$T/st" --summary "$T/s.json" -- "$T/job.sh" > "$T/out" 2> "$T/err" ||
  { cat "$T/out" "$T/err"; fail "fti-run failed on a job that finished"; }
grep -q "^fti-run: run 1 recovered online: 1 rank(s) replaced by spares in 0.012 s, rolled back to checkpoint #4 (id 4, level 2)$" "$T/err" ||
  { cat "$T/err"; fail "no line for the first online recovery"; }
grep -q "^fti-run: run 1 recovered online: 2 rank(s) replaced by spares in 0.020 s" "$T/err" ||
  { cat "$T/err"; fail "no line for the second online recovery"; }
grep -q "^  run 1: exit 0 after .*, started fresh, 1 checkpoint(s), 2 online recoveries$" "$T/err" ||
  { cat "$T/err"; fail "the summary does not count 2 online recoveries"; }
python3 -c "
import json, sys
s = json.loads(open(sys.argv[1]).read().splitlines()[-1])
o = s['per_run'][0]['online_recoveries']
assert [r['replaced'] for r in o] == [1, 2] and o[0]['repair_s'] == 0.012 and o[0]['id'] == 4, o
" "$T/s.json" || fail "the JSON summary does not list the online recoveries"
pass "fti-run reports online recoveries"
