#!/usr/bin/env bash
# FTI_Snapshot as FTI's syncIntv suite reads it from the debug lines
# "Current iter : I ckpt intv. : N . Next ckpt. at iter. X . Sync. intv. : S"
# (verbosity = 1): every sync point I is a multiple of the step S shown,
# S <= max_sync_intv (here 6, not a power of two), and each checkpoint runs
# at an iteration a line announced (program's i + 1 = X). fast_forward = 2
# halves the intervals, as in FTI.
source "$(dirname "$0")/lib_sem.sh"
PROG="$FTI_BUILD_DIR/test/conformance/conformance_prog_snapshot_prog"
fresh
sem_config "$T/c.fti" verbosity=1 max_sync_intv=6 ckpt_l1_sec=1 ckpt_l2_sec=2 advanced.fast_forward=2
timeout 240 "$MPIEXEC" -n "$NP" -bind-to none "$PROG" "$T/c.fti" 4 > "$T/out" 2> "$T/err" ||
  { cat "$T/out" "$T/err"; fail "snapshot_prog failed"; }
lines=$(grep -c "Current iter : .* Next ckpt. at iter. .* Sync. intv. : " "$T/out" || true)
[ "$lines" -gt 0 ] || { cat "$T/out"; fail "no 'Next ckpt. at iter.' debug line"; }
bad=$(grep "Current iter" "$T/out" | awk 'NF == 24 && ($9 % $NF != 0 || $NF > 6) {print}' | head -3)
[ -z "$bad" ] || fail "sync points off the step or above max_sync_intv: $bad"
next=" $(grep "Next ckpt. at iter." "$T/out" | awk '{print $(NF-5)}' | sort -nu | tr '\n' ' ')"
made=$(grep "^Checkpoint made i = " "$T/out" | awk '{print $NF}')
n=0
for i in $made; do
  n=$((n + 1))
  case "$next" in *" $((i + 1)) "*) ;; *) fail "checkpoint at i = $i: iteration $((i + 1)) was never announced";; esac
done
# 4 s with L1 every 0.5 s (1 s halved): about 7 checkpoints; without fast_forward about 3
[ "$n" -ge 6 ] || { cat "$T/out"; fail "$n checkpoints in 4 s: fast_forward = 2 not applied?"; }
pass "FTI_Snapshot: $n checkpoints, each at an announced iteration; $lines sync lines on multiples of the step"
