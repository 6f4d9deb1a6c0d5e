#!/usr/bin/env bash
# Jacobi on the FPGA (examples/fpga/jacobi.c), 4 ranks, 6 blocks per sweep:
#  - host-based, blocking and non-blocking runs give the bytes of a run
#    without checkpoints;
#  - killed while the kernel is at block k (blocking: k = 0 and a middle
#    block; non-blocking: a middle block with a kernel slower than the
#    checkpoints, and the last block) or between tasks (host-based), the run
#    restarts at the checkpointed block and ends bit-identical;
#  - with a host much slower than the kernel (every device copy 2 ms, a
#    block 0.3 ms, 24 blocks per sweep), non-blocking copies are torn,
#    discarded, and the result is still identical.
source "$(dirname "$0")/lib_fpga.sh"
J="$EX/fpga_jacobi"
ARGS=(--rows 12 --cols 32 --block-rows 2 --sweeps 3 --pace-us 300)
write_config "$T/c.fti" keep_last_ckpt=0 ckpt_l1_iter=1

run_app "$T/ref.log" "$J" "$T/c.fti" "${ARGS[@]}" --mode off --out "$T/ref" || fail "reference run"
for mode in host blocking nonblocking; do
  run_app "$T/$mode.log" "$J" "$T/c.fti" "${ARGS[@]}" --mode "$mode" --out "$T/$mode" ||
    fail "$mode run (see $T/$mode.log)"
  same_results "$T/$mode" "$T/ref"
  echo "ok: $mode run identical to the run without checkpoints"
done

crash_and_restart blocking_mid "$T/ref" "$J" "$T/c.fti" "${ARGS[@]}" --mode blocking \
  --crash-task 1 --crash-at 3
[ "$CKPT_BLOCKS" = 4 ] || fail "blocking: the checkpoint before the crash holds $CKPT_BLOCKS blocks, not 4"
crash_and_restart blocking_first "$T/ref" "$J" "$T/c.fti" "${ARGS[@]}" --mode blocking \
  --crash-task 0 --crash-at 0
[ "$CKPT_BLOCKS" = 1 ] || fail "blocking: the first checkpoint holds $CKPT_BLOCKS blocks, not 1"
# A kernel slower than a checkpoint (50 ms per block): the crash comes
# while the kernel is still inside the sweep.
crash_and_restart nonblocking_mid "$T/ref" "$J" "$T/c.fti" "${ARGS[@]}" --mode nonblocking \
  --pace-us 50000 --crash-task 1 --crash-at 2
[ "$CKPT_BLOCKS" -lt 6 ] || echo "note: the host caught up only at the end of the sweep (loaded machine)"
crash_and_restart nonblocking_last "$T/ref" "$J" "$T/c.fti" "${ARGS[@]}" --mode nonblocking \
  --crash-task 2 --crash-at 5
[ "$CKPT_BLOCKS" = 6 ] || fail "non-blocking: the last checkpoint holds $CKPT_BLOCKS blocks, not 6"
crash_and_restart host "$T/ref" "$J" "$T/c.fti" "${ARGS[@]}" --mode host --crash-task 2 --crash-at 0

# The slow host: 24 blocks of 0.3 ms per sweep against 2 ms per device copy.
SLOW=(--rows 48 --cols 32 --block-rows 2 --sweeps 2 --pace-us 300)
run_app "$T/slowref.log" "$J" "$T/c.fti" "${SLOW[@]}" --mode off --out "$T/slowref" ||
  fail "reference run of the slow-host case"
run_app "$T/slow.log" "$J" "$T/c.fti" "${SLOW[@]}" --mode nonblocking --copy-latency-us 2000 \
  --out "$T/slow" || fail "slow-host run (see $T/slow.log)"
same_results "$T/slow" "$T/slowref"
torn=$(sed -n 's/.*DONE .* torn \([0-9]*\) .*/\1/p' "$T/slow.log" | awk '{s += $1} END {print s + 0}')
[ "$torn" -gt 0 ] || fail "slow host: no torn slot copy was detected (see $T/slow.log)"
echo "ok: slow host: $torn torn slot copies discarded, result identical"
pass "fpga jacobi"
