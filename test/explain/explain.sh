#!/usr/bin/env bash
# The library explains itself, on 4 ranks of one node (no root needed):
#  - one "job summary" line per job at FTI_Finalize, from rank 0: checkpoints
#    per level, bytes, time in checkpoint calls, overhead; on a restarted
#    run the checkpoint it restarted from and the restart's time;
#  - checkpoint lines in readable units (never "0.00 GB/s");
#  - head = 1: the ready line says the application must use FTI_COMM_WORLD;
#  - a collective that waits far longer than usual: one watchdog warning that
#    names the cause, and the checkpoint still commits.
set -euo pipefail
: "${FTI_BUILD_DIR:?run through ctest}"
MPIEXEC="${MPIEXEC:-mpiexec}"
T="${FTI_TEST_DIR:-/tmp/fti-explain-$$}"
rm -rf "$T" && mkdir -p "$T"
fail() { echo "FAIL: $*" >&2; exit 1; }
config() {  # config FILE HEAD NODE_SIZE
  printf '[basic]\nhead = %s\nnode_size = %s\ngroup_size = 1\nverbosity = 2\n' "$2" "$3" > "$1"
  printf 'ckpt_dir = %s/l\nglbl_dir = %s/g\nmeta_dir = %s/m\n' "$T" "$T" "$T" >> "$1"
  printf 'ckpt_l1 = 0\nckpt_l2 = 0\nckpt_l3 = 0\nckpt_l4 = 0\nckpt_l1_iter = 10\nkeep_last_ckpt = 0\n' >> "$1"
  printf '[advanced]\nlog_style = libfti\n' >> "$1" # our lines: sizes and rates
}
HEATDIS="$FTI_BUILD_DIR/examples/heatdis"

# 1. heatdis: 6 L1 checkpoints, killed after the 3rd; the restart run takes 3 more.
config "$T/h.fti" 0 4
set +e
"$MPIEXEC" -n 4 -bind-to none "$HEATDIS" --mib 1 --iters 60 --config "$T/h.fti" --crash-at 35 \
  --crash-rank 1 > /dev/null 2> "$T/run1.err"
set -e
"$MPIEXEC" -n 4 -bind-to none "$HEATDIS" --mib 1 --iters 60 --config "$T/h.fti" \
  > /dev/null 2> "$T/run2.err" || { cat "$T/run2.err"; fail "restart run"; }
grep -q "job summary" "$T/run1.err" && fail "a killed run printed a job summary"
[ "$(grep -c 'job summary' "$T/run2.err")" = 1 ] || { cat "$T/run2.err"; fail "not one job summary line"; }
line=$(grep 'job summary' "$T/run2.err")
echo "$line"
echo "$line" | grep -Eq '^\[FTI r0\] info: job summary: 3 checkpoints \(L1 3\), [0-9.]+ MiB, [0-9.]+ s in checkpoint calls of [0-9.]+ s since FTI_Init: [0-9.]+% overhead; restart from checkpoint #3 \(id [0-9]+, L1\) took [0-9.]+ s$' ||
  fail "job summary line: $line"
grep -E 'checkpoint #[0-9]+ \(id [0-9]+\) level' "$T/run2.err" | head -2
grep -E 'checkpoint #[0-9]+ \(id [0-9]+\) level' "$T/run2.err" | grep -Eqv 'committed: [0-9.]+ (B|KiB|MiB|GiB) in [0-9.]+ s \([0-9.]+ (B|kB|MB|GB|TB)/s\)$' &&
  fail "a checkpoint line without readable units"
grep -E 'checkpoint #|job summary' "$T/run2.err" | grep -Eq ' 0\.00 [kMGT]?B' && fail "a '0.00' size or rate"

# 2. head = 1 (2 nodes of 2: one head, one application rank each); application
#    rank 1 arrives 3 s late at the checkpoint, the watchdog threshold is 1 s.
config "$T/head.fti" 1 2
FTI_WATCHDOG_S=1 "$MPIEXEC" -n 4 -bind-to none "$FTI_BUILD_DIR/test/explain/test_explain_slow_rank" \
  "$T/head.fti" 3 > "$T/slow.out" 2> "$T/slow.err" || { cat "$T/slow.err"; fail "slow_rank run"; }
grep -q "slow_rank: PASS" "$T/slow.out" || fail "checkpoint with a late rank"
grep -q "ready: .*head = 1: .*must communicate on FTI_COMM_WORLD" "$T/slow.err" || { cat "$T/slow.err"; fail "no FTI_COMM_WORLD hint in the ready line"; }
[ "$(grep -c 'watchdog: ' "$T/slow.err")" = 1 ] || { cat "$T/slow.err"; fail "expected one watchdog warning (rank 0 waits)"; }
grep -q "watchdog: .*has waited [0-9]* s.*Likely cause.*FTI_COMM_WORLD" "$T/slow.err" || fail "the warning does not name the cause"
# Without the late rank, no warning.
FTI_WATCHDOG_S=1 "$MPIEXEC" -n 4 -bind-to none "$FTI_BUILD_DIR/test/explain/test_explain_slow_rank" \
  "$T/head.fti" 0 > /dev/null 2> "$T/fast.err" || fail "slow_rank without delay"
grep -q "watchdog" "$T/fast.err" && { cat "$T/fast.err"; fail "a watchdog warning with no late rank"; }
echo "PASS: job summary, units, head hint, watchdog"
