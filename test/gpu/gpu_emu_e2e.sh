#!/usr/bin/env bash
# End-to-end on the emulated device (or a real GPU: FTI_TEST_DEVICE=cuda,
# see device.sh): variables in device memory, protected with plain
# FTI_Protect, checkpointed at L1 through the capture pipeline (64 KiB pinned
# chunks), recovered byte-exact after a restart. On the emulated device only:
# a device copy failing mid-checkpoint must fail FTI_Checkpoint on every
# rank, name the backend, and leave the previous checkpoint recoverable.
source "$FTI_SOURCE_DIR/test/mpi/lib.sh"
source "$FTI_SOURCE_DIR/test/gpu/device.sh"
write_config "$T/c.fti" keep_last_ckpt=1 gpu_host_bufsize=65536

run_nodes 4 1 "$P" "$T/c.fti" write 7 1 || fail "L1 checkpoint of device variables"
run_nodes 4 1 "$P" "$T/c.fti" check 7 | tee "$T/out"
grep -q "PASS" "$T/out" || fail "restore of device variables"

emulated || { pass "gpu e2e (CUDA device)"; exit 0; }
run_nodes 4 1 "$P" "$T/c.fti" fail 8 1 >"$T/fail.out" 2>"$T/fail.err" || {
  cat "$T/fail.out" "$T/fail.err"; fail "a device copy failure was reported as success"; }
grep -q "injected device failure" "$T/fail.err" || { cat "$T/fail.err"; fail "the device error was not reported"; }
grep -q "emu" "$T/fail.err" || { cat "$T/fail.err"; fail "the error does not name the backend"; }
run_nodes 4 1 "$P" "$T/c.fti" check 7 | grep -q PASS || fail "previous checkpoint after a failed one"
pass "gpu emu e2e"
