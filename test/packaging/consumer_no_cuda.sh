#!/usr/bin/env bash
# A CUDA-enabled install serves consumers that have no CUDA toolkit: libfti
# loads the CUDA runtime at run time, so its CMake package must not look for
# the toolkit. The C-only consumer project of test/conformance/consumer
# (its lib.sh: config, build with the library's MPI, round trip) is
# configured with the toolkit hidden (no nvcc on PATH, CUDAToolkit_ROOT
# pointing nowhere, find_package(CUDAToolkit) disabled), linking the shared
# and the static library; each builds, checkpoints on 4 ranks and restores
# every byte.
set -euo pipefail
: "${FTI_BUILD_DIR:?run through ctest}" "${FTI_SOURCE_DIR:?run through ctest}"
T="${FTI_TEST_DIR:-/tmp/fti-nocuda-$$}"
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$FTI_SOURCE_DIR/test/conformance/consumer/lib.sh"
rm -rf "$T" && mkdir -p "$T"

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
CONSUMER_RUN=(env -u CUDA_PATH -u CUDA_HOME -u CUDAToolkit_ROOT -u CUDACXX PATH="$hidden_path")
"${CONSUMER_RUN[@]}" bash -c 'command -v nvcc' > /dev/null && fail "nvcc still on the hidden PATH"

consumer_config "$T/app.fti" "$T"
for target in fti.shared FTI::fti_static; do
  b="$T/build-${target//:/_}"
  consumer_cmake "$b" "$T/prefix" "$target" -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON \
    -DCUDAToolkit_ROOT="$T/no-cuda-here"
  rm -rf "$T/local" "$T/global" "$T/meta"
  consumer_roundtrip "$b/consumer" "$T/app.fti" "$b"
  echo "ok: $target: configured, built and restarted without the CUDA toolkit"
done
echo "PASS: a C-only consumer of the CUDA-enabled install needs no CUDA toolkit"
