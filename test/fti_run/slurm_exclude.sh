#!/usr/bin/env bash
# Under Slurm with --exclude-failed-nodes: after run 1 dies, the node that
# fails the probe (node2 here) is excluded from the next srun. srun and
# scontrol are stand-ins on PATH: the job step runs the app under mpiexec.
source "$(dirname "$0")/lib.sh"
reference
heatdis_config "$T/job.fti" "$T/job"
mkdir -p "$T/bin"
cat > "$T/bin/scontrol" <<'SH'
#!/usr/bin/env bash
[ "$1 $2" = "show hostnames" ] && echo "node1 node2 node3" && exit 0
exit 1
SH
cat > "$T/bin/srun" <<SH
#!/usr/bin/env bash
# The probe: srun -N1 -n1 -w NODE true (node2 does not answer).
if [ "\$1" = "-N1" ]; then [ "\$4" != node2 ]; exit; fi
echo "srun \$*" >> "$T/srun.log"
while [ \$# -gt 0 ]; do    # srun's own options: -N/-n take a value
  case "\$1" in -N|-n) shift 2 ;; -*) shift ;; *) break ;; esac
done
exec "$MPIEXEC" -n 4 -bind-to none "\$@"
SH
chmod +x "$T/bin/scontrol" "$T/bin/srun"
export PATH="$T/bin:$PATH" SLURM_JOB_NODELIST="node[1-3]"
export ATTEMPT1_ARGS="--crash-at 35 --crash-rank 2"
set +e
python3 "$FTI_RUN" --backoff 0.2 --exclude-failed-nodes --status-dir "$T/status" --summary "$T/summary.json" -- \
  srun -N 2 bash "$APP" --mib 1 --iters $ITERS --config "$T/job.fti" --output "$T/out.txt" \
  > "$T/fti-run.out" 2> "$T/fti-run.err"
RC=$?
set -e
grep "^fti-run" "$T/fti-run.err" || true
[ "$RC" -eq 0 ] || fail "fti-run exit status $RC"
cmp "$T/ref.txt" "$T/out.txt" || fail "final digest differs from the fault-free run"
[ "$(sed -n 1p "$T/srun.log" | grep -c -- --exclude)" = 0 ] || fail "run 1 excluded a node"
sed -n 2p "$T/srun.log" | grep -q -- "^srun --exclude=node2 -N 2 bash" || fail "run 2: $(sed -n 2p "$T/srun.log")"
[ "$(summary_field 's["excluded_nodes"]')" = "['node2']" ] || fail "summary: $(cat "$T/summary.json")"
pass "Slurm: failed node excluded from the relaunch"
