#!/usr/bin/env bash
# run-carried.sh - on the GPU machine, from the repository copy holding
# .gpucarry/ (made by pack-carried.sh): unpacks the build and the libraries,
# makes the build's paths valid, runs run-on-gpu.sh on it (PREBUILT=1) and,
# when a baseline bench_gpu was carried, an A/B of the two (AB=0: not).
# Runs as root on a machine given back afterwards: it repoints
# /usr/bin/mpiexec (the path the build's tests run) at the carried MPICH.
set -uo pipefail
R="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
C="$R/.gpucarry"
OUTDIR="${OUT:-$R/gpu-results}"; mkdir -p "$OUTDIR"
ROOT="$(cat "$C/root")"
echo "repository at $R (built at $ROOT); $(nproc) cores; kernel $(uname -r)"
if [ "$R" != "$ROOT" ]; then mkdir -p "$(dirname "$ROOT")" && ln -sfn "$R" "$ROOT"; fi
tar xzf "$C/build.tar.gz" -C "$R" && tar xzf "$C/lib.tar.gz" -C "$C" || exit 2
export PATH="$C/bin:$PATH" LD_LIBRARY_PATH="$C/lib:${CUDA_HOME:-/usr/local/cuda}/lib64"
if ! /usr/bin/mpiexec --version 2>&1 | grep -q HYDRA; then # absent, or another MPI's
  [ -e /usr/bin/mpiexec ] && mv /usr/bin/mpiexec /usr/bin/mpiexec.image
  ln -s "$C/bin/mpiexec.hydra" /usr/bin/mpiexec
  [ -e /usr/bin/hydra_pmi_proxy ] || ln -s "$C/bin/hydra_pmi_proxy" /usr/bin/hydra_pmi_proxy
fi
BUILD="$ROOT/build-gpu"
PREBUILT=1 BUILD="$BUILD" GPU_BENCH_DIR="$BUILD/bench" bash "$R/bench/gpu/run-on-gpu.sh"
rc=$?
cp "$BUILD"/ctest-gpu.log "$BUILD"/bench_gpu.*.json "$OUTDIR/" 2> /dev/null
if [ -x "$C/bin/bench_gpu_baseline" ] && [ "${AB:-1}" = 1 ]; then
  for round in 1 2; do
    for v in baseline this; do
      b="$BUILD/bench/gpu/bench_gpu"; [ "$v" = baseline ] && b="$C/bin/bench_gpu_baseline"
      for dir in /dev/shm "$BUILD/bench"; do
        "$b" --backend cuda --size 1024 --chunk 32 --dir "$dir" --reps 5 | grep '^{' | sed "s/^/AB $v $round /"
      done
    done
  done | tee "$OUTDIR/ab.log"
fi
uptime
exit "$rc"
