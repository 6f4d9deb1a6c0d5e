#!/usr/bin/env bash
# A CUDA-enabled install serves consumers that have no CUDA toolkit: libfti
# loads the CUDA runtime at run time, so its CMake package must not look for
# the toolkit. The C-only consumer project of test/conformance/consumer is
# configured with the toolkit hidden (no nvcc on PATH, CUDAToolkit_ROOT
# pointing nowhere, find_package(CUDAToolkit) disabled), linking the shared
# and the static library; each builds, checkpoints on 4 ranks and restores
# every byte.
set -euo pipefail
: "${FTI_BUILD_DIR:?run through ctest}" "${FTI_SOURCE_DIR:?run through ctest}"
T="${FTI_TEST_DIR:-/tmp/fti-nocuda-$$}"
MPIEXEC="${MPIEXEC:-mpiexec}"
PROJECT="$FTI_SOURCE_DIR/test/conformance/consumer/project"
rm -rf "$T" && mkdir -p "$T"
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$FTI_BUILD_DIR" --prefix "$T/prefix" > "$T/install.log" || fail "cmake --install"
pkg=$(dirname "$(find "$T/prefix" -path '*/cmake/FTI/FTIConfig.cmake' | head -1)")
# Code, not comments, must not ask for the toolkit or its targets.
if grep -n -v '^ *#' "$pkg"/*.cmake | grep -E 'CUDAToolkit|CUDA::'; then
  fail "the installed CMake package needs the CUDA toolkit ($pkg)"
fi

# The toolkit hidden: PATH without any folder holding nvcc, no CUDA variables.
hidden_path=""
IFS=: read -ra dirs <<< "$PATH"
for d in "${dirs[@]}"; do
  [ -x "$d/nvcc" ] || hidden_path="${hidden_path:+$hidden_path:}$d"
done
command -v cmake > /dev/null || fail "no cmake"
hide=(env -u CUDA_PATH -u CUDA_HOME -u CUDAToolkit_ROOT -u CUDACXX PATH="$hidden_path")
"${hide[@]}" bash -c 'command -v nvcc' > /dev/null && fail "nvcc still on the hidden PATH"

cat > "$T/app.fti" <<CFG
[basic]
head = 0
node_size = 4
ckpt_dir = $T/local
glbl_dir = $T/global
meta_dir = $T/meta
ckpt_l1 = 0
ckpt_l2 = 0
ckpt_l3 = 0
ckpt_l4 = 0
keep_last_ckpt = 1
group_size = 1
verbosity = 2
CFG

for target in fti.shared FTI::fti_static; do
  b="$T/build-${target//:/_}"
  "${hide[@]}" cmake -S "$PROJECT" -B "$b" -DCMAKE_PREFIX_PATH="$T/prefix" \
    -DFTI_CONSUMER_TARGET="$target" -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON \
    -DCUDAToolkit_ROOT="$T/no-cuda-here" > "$b.configure.log" 2>&1 ||
    { cat "$b.configure.log"; fail "consumer of $target does not configure without the CUDA toolkit"; }
  "${hide[@]}" cmake --build "$b" > "$b.build.log" 2>&1 ||
    { cat "$b.build.log"; fail "consumer of $target does not build without the CUDA toolkit"; }
  rm -rf "$T/local" "$T/global" "$T/meta"
  "${hide[@]}" "$MPIEXEC" -n 4 -bind-to none "$b/consumer" "$T/app.fti" write > "$b.write.out" 2>&1 ||
    { cat "$b.write.out"; fail "consumer of $target: checkpoint run"; }
  grep -q "write: PASS" "$b.write.out" || { cat "$b.write.out"; fail "consumer of $target: checkpoint"; }
  "${hide[@]}" "$MPIEXEC" -n 4 -bind-to none "$b/consumer" "$T/app.fti" check > "$b.check.out" 2>&1 ||
    { cat "$b.check.out"; fail "consumer of $target: restart run"; }
  grep -q "check: PASS (0 bad bytes)" "$b.check.out" || { cat "$b.check.out"; fail "consumer of $target: restart"; }
  echo "ok: $target: configured, built and restarted without the CUDA toolkit"
done
echo "PASS: a C-only consumer of the CUDA-enabled install needs no CUDA toolkit"
