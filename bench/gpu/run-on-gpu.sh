#!/usr/bin/env bash
# run-on-gpu.sh - the hardware proof of libfti's CUDA path, in one command,
# on a machine with an NVIDIA GPU, its driver and the CUDA toolkit:
#
#   cd /repo && bash bench/gpu/run-on-gpu.sh
#
#  1. installs the build dependencies when missing (scripts/deps.sh, Debian
#     or Ubuntu), builds with CUDA (FTI_ENABLE_CUDA=ON) in build-gpu/; with
#     PREBUILT=1 it uses the build found in $BUILD as it is (a machine with
#     no MPI or compilers: build elsewhere, carry the build, MPICH's mpiexec
#     and the libraries, see docs/GPU.md);
#  2. runs test_gpu_cuda, which must PASS (a skip is a failure here), then
#     the whole `gpu` ctest label, whose gpu_cuda_* MPI tests must pass too;
#  3. runs examples/gpu heatdis_gpu on 4 ranks to the end (reference), then
#     again, killed (SIGKILL) after its first committed checkpoint, and
#     relaunched: every rank's final grid must be bit-identical;
#  4. runs bench_gpu --backend cuda with 1 GiB of device memory, twice:
#     with the file in /dev/shm and on $GPU_BENCH_DIR (default
#     build-gpu/bench, i.e. the disk); capture against min(device->host
#     copy, write + fsync), restore against min(read, host->device copy),
#     all measured in the same run; target >= 0.9 of the ceiling;
#  5. prints the device, driver and runtime versions and the numbers, and
#     exits non-zero when any step failed.
#
# Environment: BUILD (build dir, default build-gpu), GPU_BENCH_DIR, NP (ranks,
# default 4), JOBS (parallel build jobs), CUDA_HOME (toolkit, default
# /usr/local/cuda).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${BUILD:-$ROOT/build-gpu}"
BENCH_DIR="${GPU_BENCH_DIR:-$BUILD/bench}"
NP="${NP:-4}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 4)}"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
SUMMARY=()
FAILED=0

say() { printf '\n=== %s\n' "$*"; }
record() { SUMMARY+=("$*"); echo "$*"; }
fail_step() { record "FAIL: $*"; FAILED=1; }

# ---- 1. environment and build -----------------------------------------------

check_gpu() {
  command -v nvidia-smi >/dev/null || { echo "run-on-gpu: nvidia-smi not found: no NVIDIA driver"; exit 2; }
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader ||
    { echo "run-on-gpu: nvidia-smi cannot talk to the driver"; exit 2; }
  [ -x "$CUDA_HOME/bin/nvcc" ] || command -v nvcc >/dev/null ||
    { echo "run-on-gpu: no CUDA toolkit (nvcc) at $CUDA_HOME; set CUDA_HOME"; exit 2; }
  export PATH="$CUDA_HOME/bin:$PATH"
}

install_deps() {
  local missing=0
  for tool in cmake mpicc pkg-config; do command -v "$tool" >/dev/null || missing=1; done
  pkg-config --exists libzstd libxxhash cmocka 2>/dev/null || missing=1
  if [ "$missing" = 1 ]; then
    say "installing build dependencies (scripts/deps.sh)"
    bash "$ROOT/scripts/deps.sh" || { echo "run-on-gpu: scripts/deps.sh failed"; exit 2; }
  fi
}

build() {
  say "building with CUDA in $BUILD"
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DFTI_ENABLE_CUDA=ON \
    -DCUDAToolkit_ROOT="$CUDA_HOME" >"$BUILD.configure.log" 2>&1 ||
    { tail -30 "$BUILD.configure.log"; echo "run-on-gpu: configure failed"; exit 2; }
  grep "CUDA backend" "$BUILD.configure.log"
  cmake --build "$BUILD" -j "$JOBS" >"$BUILD.build.log" 2>&1 ||
    { tail -40 "$BUILD.build.log"; echo "run-on-gpu: build failed"; exit 2; }
}

# ---- 2. tests ------------------------------------------------------------------

run_tests() {
  say "test_gpu_cuda (must pass, not skip)"
  mkdir -p "$BUILD/testdirs/test_gpu_cuda"
  FTI_TEST_DIR="$BUILD/testdirs/test_gpu_cuda" "$BUILD/test/gpu/test_gpu_cuda"
  local rc=$?
  case $rc in
    0) record "test_gpu_cuda: PASS" ;;
    77) fail_step "test_gpu_cuda skipped: no usable CUDA device seen by the runtime" ;;
    *) fail_step "test_gpu_cuda failed (exit $rc)" ;;
  esac
  say "ctest -L gpu (the whole gpu label)"
  local log="$BUILD/ctest-gpu.log"
  if (cd "$BUILD" && ctest -L gpu -j4 --output-on-failure) 2>&1 | tee "$log"; then
    record "ctest -L gpu: $(grep "tests passed" "$log")"
  else
    fail_step "ctest -L gpu: failures (above)"
  fi
  # On a GPU the CUDA tests must run, not skip.
  if grep -E "(test_gpu_cuda|gpu_cuda_[a-z]+) +\(Skipped\)|gpu_cuda_[a-z]+ .*\*\*\*Skipped" "$log"; then
    fail_step "ctest -L gpu: a CUDA test was skipped on a GPU machine"
  fi
}

# ---- 3. heatdis killed and restarted -------------------------------------------

HEAT_ARGS=(--rows 1024 --cols 4096 --iters 4000)

heat_run() { # DIR [extra args]: one launch of heatdis_gpu in DIR
  local dir="$1"; shift
  (cd "$dir" && exec mpiexec -n "$NP" -bind-to none "$BUILD/examples/gpu/heatdis_gpu" \
    --config heatdis_gpu.fti "${HEAT_ARGS[@]}" --out grid "$@")
}

heat_dir() { # NAME: a fresh directory with the example's config, its 4 ranks
  # as 4 simulated nodes of one machine (node_size 1, local_test 1): with the
  # example's node_size = 0 one machine is one node, and its group of 4 nodes
  # cannot be formed (FTI_Init refuses the config)
  local dir="$BUILD/heatdis-$1"
  rm -rf "$dir" && mkdir -p "$dir" &&
    sed -e 's/^node_size *= *0/node_size        = 1/' -e 's/^local_test *= *0/local_test       = 1/' \
      "$BUILD/examples/gpu/heatdis_gpu.fti" > "$dir/heatdis_gpu.fti"
  echo "$dir"
}

run_heatdis() {
  say "heatdis_gpu: reference, then killed after a checkpoint and restarted"
  local ref kill
  ref="$(heat_dir ref)"
  kill="$(heat_dir killed)"
  heat_run "$ref" >"$ref/run.log" 2>&1 || { tail "$ref/run.log"; fail_step "heatdis reference run"; return; }
  set -m # job control: the background run gets a process group of its own
  heat_run "$kill" >"$kill/first.log" 2>&1 &
  local pid=$! waited=0
  set +m
  until compgen -G "$kill/heatdis-gpu-ckpt/meta/*/commit" >/dev/null; do
    sleep 0.2; waited=$((waited + 1))
    if ! kill -0 "$pid" 2>/dev/null || [ "$waited" -gt 1500 ]; then
      tail "$kill/first.log"; fail_step "heatdis: no checkpoint was committed before the run ended"
      return
    fi
  done
  sleep 0.5
  kill -KILL -- "-$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  grep -q "total heat" "$kill/first.log" && echo "note: the run finished before the kill"
  heat_run "$kill" >"$kill/restart.log" 2>&1 || { tail "$kill/restart.log"; fail_step "heatdis restart"; return; }
  local r same=1
  for r in $(seq 0 $((NP - 1))); do
    cmp -s "$ref/grid.$r" "$kill/grid.$r" || { same=0; echo "rank $r: grids differ"; }
  done
  if [ "$same" = 1 ]; then
    record "heatdis_gpu: killed after a checkpoint, restarted, $NP grids bit-identical to the reference ($(grep "total heat" "$ref/run.log"))"
  else
    fail_step "heatdis_gpu: the restarted run's grids differ from the reference"
  fi
}

# ---- 4. bandwidth --------------------------------------------------------------

bench_line() { # JSON-FILE DIRECTION: "library X GB/s vs copy Y GB/s ..." from bench_gpu's JSON
  python3 - "$1" "$2" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    if line.startswith("{") and json.loads(line)["bench"] == "gpu_" + sys.argv[2]:
        j = json.loads(line)
        io = j.get("write_fsync_GBps", j.get("read_GBps"))
        print("%s of %d MiB: library %.2f GB/s, copy %.2f GB/s, file I/O %.2f GB/s, "
              "ceiling %.2f GB/s: library/copy %.2f, library/ceiling %.2f (first call %.2f GB/s)"
              % (sys.argv[2], j["size_bytes"] >> 20, j["library_GBps"], j["copy_GBps"], io,
                 j["ceiling_GBps"], j["library_GBps"] / j["copy_GBps"], j["ratio"],
                 j["first_call_GBps"]))
EOF
}

run_bench() {
  local out="$BUILD/bench_gpu"
  mkdir -p "$BENCH_DIR"
  local where dir
  for where in shm disk; do
    dir=/dev/shm; [ "$where" = disk ] && dir="$BENCH_DIR"
    say "bench_gpu --backend cuda: 1 GiB, file in $dir"
    if "$BUILD/bench/gpu/bench_gpu" --backend cuda --size 1024 --chunk 32 --dir "$dir" --reps 5 \
        | tee "$out.$where.json"; then
      record "bench (1 GiB, $dir): $(bench_line "$out.$where.json" capture)"
      record "bench (1 GiB, $dir): $(bench_line "$out.$where.json" restore)"
    else
      fail_step "bench_gpu --backend cuda (1 GiB, $dir)"
    fi
  done
}

# ---- main ----------------------------------------------------------------------

check_gpu
if [ "${PREBUILT:-0}" = 1 ]; then
  [ -x "$BUILD/test/gpu/test_gpu_cuda" ] || { echo "run-on-gpu: PREBUILT=1 but no CUDA build in $BUILD"; exit 2; }
  say "using the build in $BUILD as it is (PREBUILT=1)"
else
  install_deps
  build
fi
run_tests
run_heatdis
run_bench

say "summary"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/device: /'
"$CUDA_HOME/bin/nvcc" --version | tail -1 | sed 's/^/toolkit: /'
printf '%s\n' "${SUMMARY[@]}"
echo "targets (issue 30): capture and restore of 1 GiB >= 0.9 x min(copy engine, file I/O)"
exit "$FAILED"
