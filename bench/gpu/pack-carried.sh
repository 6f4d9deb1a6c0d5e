#!/usr/bin/env bash
# pack-carried.sh - packs a CUDA build made on this machine for a GPU machine
# that has the NVIDIA driver and the CUDA toolkit but no MPI and no compilers
# (run-on-gpu.sh then runs there with PREBUILT=1, see docs/GPU.md):
#
#   cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DFTI_ENABLE_CUDA=ON -DFTI_ENABLE_HDF5=OFF
#   cmake --build build-gpu -j && bash bench/gpu/pack-carried.sh
#   (copy the repository with .gpucarry/ to the GPU machine, then there:)
#   bash bench/gpu/run-carried.sh
#
# Into .gpucarry/: build.tar.gz (the build folder without objects), lib.tar.gz
# (the shared libraries its programs and MPICH's launcher need, stripped; not
# glibc's, the compiler's or CUDA's, which that machine has), bin/ (MPICH's
# mpiexec.hydra and hydra_pmi_proxy) and root (this checkout's path: the
# build's CTest files name it). Environment: BUILD (default build-gpu),
# BASELINE_BENCH (a bench_gpu of another revision, carried as
# bin/bench_gpu_baseline for an A/B comparison).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${BUILD:-build-gpu}"
C="$ROOT/.gpucarry"
cd "$ROOT"
[ -x "$BUILD/test/gpu/test_gpu_cuda" ] || { echo "pack-carried: no CUDA build in $BUILD"; exit 2; }
rm -rf "$C" && mkdir -p "$C/bin" "$C/lib"
echo "$ROOT" > "$C/root"
tar czf "$C/build.tar.gz" --exclude='*.o' --exclude='*.a' --exclude=testdirs \
  --exclude='CMakeFiles/*.dir' --exclude='*.log' "$BUILD"
hydra="$(readlink -f "$(command -v mpiexec.hydra || command -v mpiexec)")"
"$hydra" --version 2>&1 | grep -q HYDRA || { echo "pack-carried: $hydra is not MPICH's hydra"; exit 2; }
cp -L "$hydra" "$C/bin/mpiexec.hydra"
cp -L "$(dirname "$hydra")/hydra_pmi_proxy" "$C/bin/"
ln -s mpiexec.hydra "$C/bin/mpiexec"
if [ -n "${BASELINE_BENCH:-}" ]; then cp "$BASELINE_BENCH" "$C/bin/bench_gpu_baseline"; fi
find "$BUILD" -type f \( -perm -u+x -o -name '*.so*' \) ! -path '*/CMakeFiles/*' -print0 |
  xargs -0 file | grep ELF | cut -d: -f1 |
  { cat; echo "$C/bin/mpiexec.hydra"; echo "$C/bin/hydra_pmi_proxy"; } |
  while read -r b; do ldd "$b" 2> /dev/null; done | awk '$3 ~ /^\// {print $3}' | sort -u |
  grep -v -E '/(libc|libm|libpthread|libdl|librt|libresolv|ld-linux-x86-64|libgcc_s|libstdc\+\+|libcudart|libcuda)\.so' |
  grep -v "^$ROOT/" | while read -r l; do cp -L "$l" "$C/lib/"; done
strip --strip-unneeded "$C"/lib/*.so* 2> /dev/null || true
(cd "$C" && tar czf lib.tar.gz lib && rm -rf lib)
du -sh "$C"
