#!/usr/bin/env bash
# staging_mib with device variables (emulated device, or a real GPU with
# FTI_TEST_DEVICE=cuda: see device.sh): FTI_Checkpoint copies
# device memory through the capture pipeline into the staging copy and
# returns; the program overwrites device and host variables at once (the
# thread held back 1 s); the restore must give the bytes of the call.
source "$FTI_SOURCE_DIR/test/mpi/lib.sh"
source "$FTI_SOURCE_DIR/test/gpu/device.sh"
export FTI_TEST_THREAD_MULTIPLE=1
write_config "$T/c.fti" staging_mib=8 gpu_host_bufsize=65536 verbosity=1
FTI_FAULT="delay:staged" run_nodes 4 1 "$P" "$T/c.fti" staged 5 4 > "$T/out" 2>&1 \
  || { cat "$T/out"; fail "staged checkpoint of device variables"; }
grep -q "staged (" "$T/out" || { cat "$T/out"; fail "device variables were not staged"; }
rm -rf "$T"/nodes/*
run_nodes 4 1 "$P" "$T/c.fti" check 5 > "$T/chk" 2>&1
grep -q PASS "$T/chk" || { cat "$T/chk"; fail "staged device variables not restored"; }
pass "gpu emu staging"
