#!/usr/bin/env bash
# YUV filter on the FPGA (examples/fpga/yuv.c): three partial checkpoints per
# task (one per stage), 6 tasks, 4 ranks. Every mode gives the bytes of a run
# without checkpoints; killed after a stage's checkpoint (a middle stage in
# blocking mode, the last stage in non-blocking mode) or between tasks
# (host-based), the run resumes there and ends bit-identical.
source "$(dirname "$0")/lib_fpga.sh"
Y="$EX/fpga_yuv"
ARGS=(--width 48 --height 32 --tasks 6 --pace-us 200)
write_config "$T/c.fti" keep_last_ckpt=0 ckpt_l1_iter=1

run_app "$T/ref.log" "$Y" "$T/c.fti" "${ARGS[@]}" --mode off --out "$T/ref" || fail "reference run"
for mode in host blocking nonblocking; do
  run_app "$T/$mode.log" "$Y" "$T/c.fti" "${ARGS[@]}" --mode "$mode" --out "$T/$mode" ||
    fail "$mode run (see $T/$mode.log)"
  same_results "$T/$mode" "$T/ref"
  echo "ok: $mode run identical to the run without checkpoints"
done
crash_and_restart blocking_stage1 "$T/ref" "$Y" "$T/c.fti" "${ARGS[@]}" --mode blocking \
  --crash-task 2 --crash-at 1
crash_and_restart nonblocking_stage2 "$T/ref" "$Y" "$T/c.fti" "${ARGS[@]}" --mode nonblocking \
  --crash-task 4 --crash-at 2
crash_and_restart host "$T/ref" "$Y" "$T/c.fti" "${ARGS[@]}" --mode host --crash-task 3 --crash-at 0
pass "fpga yuv"
