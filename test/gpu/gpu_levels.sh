#!/usr/bin/env bash
# Device variables (emulated device, or a real GPU with FTI_TEST_DEVICE=cuda:
# see device.sh; plain FTI_Protect) at every level, each
# restored byte-exact through the capture pipeline after the loss it must
# survive: L2 with a lost node (partner copy), L3 with one and then two lost
# nodes (Reed-Solomon), L4 with every node's local storage lost (global
# copy). Then a device variable of several MiB through 64 KiB pinned buffers
# at L1; pinned buffers kept from one checkpoint (or recovery) to the next
# and freed at FTI_Finalize; and [basic] device_backends = off: device
# memory that the host can read is written directly, with no device copy
# (these two on the emulated device only: it counts its pinned buffers and
# can fail every copy).
source "$FTI_SOURCE_DIR/test/mpi/lib.sh"
source "$FTI_SOURCE_DIR/test/gpu/device.sh"

fresh() { rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*; }

# run WHAT ARGS...: emu_prog on 4 nodes; its output kept in $T/out.
run() {
  local what="$1"; shift
  run_nodes 4 1 "$P" "$T/c.fti" "$@" > "$T/out" 2>&1 || { cat "$T/out"; fail "$what"; }
}

# restored WHAT SEED [LEVEL KIB]: a restart restores every device byte.
restored() {
  local what="$1"; shift
  run "$what: restart" check "$@"
  grep -q "PASS: restored device bytes identical" "$T/out" || { cat "$T/out"; fail "$what: bytes"; }
  echo "ok: $what"
}

fresh
write_config "$T/c.fti" keep_last_ckpt=1 gpu_host_bufsize=65536
run "L2 checkpoint" write 21 2
lose_node 1
restored "L2, node 1 lost" 21
ls "$T"/nodes/node1/*/ | grep -q "l2-s0-rank1.fti" || fail "L2: rank 1's file not rebuilt"

fresh
# A small block size makes every file span several encoding chunks.
write_config "$T/c.fti" keep_last_ckpt=1 gpu_host_bufsize=65536 advanced.block_size=64
run "L3 checkpoint" write 31 3
sum_before=$(cat "$T"/nodes/node*/*/l3-s0-rank*.fti | md5sum)
lose_node 2
restored "L3, node 2 lost" 31
lose_node 0; lose_node 3
restored "L3, nodes 0 and 3 lost" 31
[ "$(cat "$T"/nodes/node*/*/l3-s0-rank*.fti | md5sum)" = "$sum_before" ] ||
  fail "L3: rebuilt files differ from the originals"

fresh
write_config "$T/c.fti" keep_last_ckpt=1 gpu_host_bufsize=65536 transfer_size=65536
run "L4 checkpoint" write 41 4
rm -rf "$T"/nodes/*
restored "L4, all local storage lost" 41

# 6 MiB (+ a tail) through two 64 KiB pinned buffers: about 100 chunks.
fresh
write_config "$T/c.fti" keep_last_ckpt=1 gpu_host_bufsize=65536
run "L1 checkpoint of a 6 MiB device variable" write 51 1 6144
size=$(stat -c %s "$T"/nodes/node0/*/l1-s0-rank0.fti)
[ "$size" -gt $((6 << 20)) ] || fail "L1 file of rank 0 has $size bytes, expected over 6 MiB"
restored "L1, 6 MiB device variable, 64 KiB buffers" 51 1 6144

emulated || { pass "gpu levels (CUDA device)"; exit 0; }

# Buffers pinned once: three checkpoints, then a recovery and a checkpoint,
# each through two pinned buffers kept in the context, freed by FTI_Finalize.
fresh
write_config "$T/c.fti" keep_last_ckpt=1 gpu_host_bufsize=65536
run "three checkpoints through kept buffers" reuse 71
run "recovery and a checkpoint through kept buffers" reuse 71
grep -q "PASS: restored device bytes identical" "$T/out" || { cat "$T/out"; fail "reuse: bytes"; }
[ "$(grep -c "2 pinned buffers made, 2 alive before FTI_Finalize, 0 after" "$T/out")" = 4 ] ||
  { cat "$T/out"; fail "reuse: pinned buffer counts"; }
echo "ok: pinned buffers kept across checkpoints and recovery, freed at FTI_Finalize"

# device_backends = off: every device copy is set to fail, yet checkpoint and
# recovery succeed, so FTI_Protect did not hand the memory to a backend.
fresh
write_config "$T/c.fti" keep_last_ckpt=1 device_backends=off
run "device_backends = off: checkpoint without device copies" write-nodev 61 1
run "device_backends = off: restart" check-nodev 61
grep -q "PASS: restored device bytes identical" "$T/out" ||
  { cat "$T/out"; fail "device_backends = off: bytes"; }
echo "ok: device_backends = off"
pass "gpu levels (emulated device)"
