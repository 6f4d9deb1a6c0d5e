#!/usr/bin/env bash
# K-means with the assignment step on the FPGA (examples/fpga/kmeans.c) and a
# host-side FTI_Checkpoint every 3 iterations (centroids, errors, iteration,
# and the labels on the device, protected at an offset of the kernel's work
# buffer). Killed after the checkpoint of iteration 6, or after the last one
# (then the labels in the result come only from the restored device buffer),
# the run restarts there and ends bit-identical to a run without failures.
source "$(dirname "$0")/lib_fpga.sh"
K="$EX/fpga_kmeans"
ARGS=(--points 1500 --dims 3 --clusters 4 --iters 12 --ckpt-every 3)
write_config "$T/c.fti" keep_last_ckpt=0

run_app "$T/ref.log" "$K" "$T/c.fti" "${ARGS[@]}" --out "$T/ref" || fail "reference run"
crash_and_restart mid "$T/ref" "$K" "$T/c.fti" "${ARGS[@]}" --crash-task 6 --crash-at 0
crash_and_restart last "$T/ref" "$K" "$T/c.fti" "${ARGS[@]}" --crash-task 12 --crash-at 0
pass "fpga kmeans"
