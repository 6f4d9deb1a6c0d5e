#!/usr/bin/env bash
# A CPU-only program linked against a CUDA-enabled libfti maps no CUDA
# library: with the default device_backends = auto, the CUDA backend looks
# only for a runtime or driver the process has already loaded, so after a
# 4-rank checkpoint and a restart (bytes asserted by the program) no rank's
# /proc/self/maps holds libcudart or libcuda. Where the toolkit's runtime is
# loadable, device_backends = cuda must load it: the same check then sees it
# (the check can fail).
source "$FTI_SOURCE_DIR/test/mpi/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
unset FTI_CUDA_RUNTIME
export CKPT_PROG_MAPS=1

# cuda_maps OUT: the "rank R maps CUDA:" lines the program printed.
cuda_maps() { grep "^rank [0-9]* maps CUDA:" "$1" || true; }

write_config "$T/c.fti"
# The baseline: with FTI_CUDA_RUNTIME=none libfti loads no runtime at all, so
# a CUDA library mapped then was loaded by the MPI stack or one of its plugins
# (a CUDA-aware MPI, hwloc's or UCX's CUDA plugins): whether libfti maps one
# cannot be told apart there, and the test is skipped, naming the loader.
FTI_CUDA_RUNTIME=none LD_DEBUG=files run_nodes 4 1 "$P" "$T/c.fti" write 10 1 > "$T/base.out" 2> "$T/base.err" || {
  cat "$T/base.out" "$T/base.err" | grep -v "^ *[0-9]*:" | tail; fail "CPU-only checkpoint (baseline)"; }
if [ -n "$(cuda_maps "$T/base.out")" ]; then
  cuda_maps "$T/base.out" | head -2
  grep -E "file=libcuda(rt)?\.so.*(needed|loaded) by" "$T/base.err" | sed 's/^ *[0-9]*: *//' | sort -u | head -4
  echo "SKIP: a CUDA library is mapped with libfti's runtime loading off (FTI_CUDA_RUNTIME=none): the MPI stack loads it (above)"
  exit 77
fi
rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
run_nodes 4 1 "$P" "$T/c.fti" write 11 1 > "$T/write.out" 2>&1 || {
  cat "$T/write.out"; fail "CPU-only checkpoint"; }
maps=$(cuda_maps "$T/write.out")
[ -z "$maps" ] || { echo "$maps" | head -4; fail "a CPU-only program mapped CUDA after FTI_Checkpoint"; }
run_nodes 4 1 "$P" "$T/c.fti" check 11 > "$T/check.out" 2>&1 || {
  cat "$T/check.out"; fail "CPU-only restart"; }
grep -q "PASS: restored bytes identical" "$T/check.out" || { cat "$T/check.out"; fail "restart did not restore the bytes"; }
maps=$(cuda_maps "$T/check.out")
[ -z "$maps" ] || { echo "$maps" | head -4; fail "a CPU-only program mapped CUDA after a restart"; }
echo "ok: device_backends = auto: no rank maps libcudart or libcuda after a checkpoint and a restart"

# The control: asked for explicitly, the runtime is loaded (when it can be).
if ldconfig -p 2> /dev/null | grep -q 'libcudart\.so' || [ -n "${LD_LIBRARY_PATH:-}" ]; then
  write_config "$T/cuda.fti" device_backends=cuda
  run_nodes 4 1 "$P" "$T/cuda.fti" write 12 1 > "$T/cuda.out" 2>&1 || {
    cat "$T/cuda.out"; fail "CPU checkpoint with device_backends = cuda"; }
  if ldconfig -p 2> /dev/null | grep -q 'libcudart\.so'; then
    ranks=$(cuda_maps "$T/cuda.out" | grep libcudart | awk '{print $2}' | sort -u | wc -l)
    [ "$ranks" -eq 4 ] || {
      cat "$T/cuda.out"; fail "device_backends = cuda did not load the CUDA runtime in every rank"; }
    echo "ok: device_backends = cuda: every rank maps libcudart (the check sees it)"
  fi
fi
pass "a CPU-only program loads nothing of CUDA"
