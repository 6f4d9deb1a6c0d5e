#!/usr/bin/env bash
# FTI 1.6's CMake option names act as ours, its unsupported ones are named
# in a warning, and a project that adds us with add_subdirectory builds no
# tests by default (so it needs no CMocka). Configure only, no build.
set -u
T="${FTI_TEST_DIR:?}"
rm -rf "$T" && mkdir -p "$T"
fail() { echo "FAIL: $*"; exit 1; }
cache() { sed -n "s/^$2:[A-Z]*=//p" "$1/CMakeCache.txt"; }

# The build's MPI wrapper (FTI_MPICC), not PATH's mpicc, in both configures.
mpi=(-DMPI_C_COMPILER="${FTI_MPICC:?run through ctest}")
cmake -S "$FTI_SOURCE_DIR" -B "$T/a" "${mpi[@]}" -DENABLE_HDF5=OFF -DENABLE_TESTS=OFF -DENABLE_FORTRAN=OFF \
  -DENABLE_GPU=OFF -DENABLE_EXAMPLES=OFF -DENABLE_SIONLIB=ON > "$T/a.log" 2>&1 \
  || { cat "$T/a.log"; fail "configure with FTI 1.6 options"; }
for kv in FTI_ENABLE_HDF5=OFF FTI_BUILD_TESTS=OFF FTI_ENABLE_FORTRAN=OFF FTI_ENABLE_CUDA=OFF \
          FTI_BUILD_EXAMPLES=OFF; do
  [ "$(cache "$T/a" "${kv%=*}")" = "${kv#*=}" ] || fail "${kv%=*} is '$(cache "$T/a" "${kv%=*}")', want ${kv#*=}"
done
grep -q "HDF5 checkpoints (ckpt_io = 5): OFF (FTI_ENABLE_HDF5=OFF)" "$T/a.log" || fail "summary: HDF5 not OFF"
tr -s ' \n' ' ' < "$T/a.log" | grep -q "FTI 1.6 option ENABLE_SIONLIB=ON is ignored: SIONlib" \
  || fail "no warning naming ENABLE_SIONLIB"
[ -z "$(cache "$T/a" ENABLE_HDF5)" ] || fail "the alias ENABLE_HDF5 stayed in the cache"
echo "ok: FTI 1.6 options"

mkdir -p "$T/top"
cat > "$T/top/CMakeLists.txt" <<EOC
cmake_minimum_required(VERSION 3.18)
project(consumer C)
add_subdirectory("$FTI_SOURCE_DIR" fti)
EOC
cmake -S "$T/top" -B "$T/b" "${mpi[@]}" -DFTI_ENABLE_FORTRAN=OFF -DFTI_ENABLE_HDF5=OFF > "$T/b.log" 2>&1 \
  || { cat "$T/b.log"; fail "configure as a sub-project"; }
[ "$(cache "$T/b" FTI_BUILD_TESTS)" = OFF ] || fail "sub-project: FTI_BUILD_TESTS is '$(cache "$T/b" FTI_BUILD_TESTS)'"
grep -q "cmocka" "$T/b/CMakeCache.txt" && fail "sub-project looked for CMocka"
[ "$(cache "$FTI_BUILD_DIR" FTI_BUILD_TESTS)" = ON ] || fail "top level: tests not on by default"
echo "ok: tests only at the top level"
