#!/usr/bin/env bash
# libfti, libfti_f and fti-ckpt load and work without the CUDA runtime: none
# of them lists libcudart in its NEEDED entries, and a 4-rank CPU checkpoint
# round trip (bytes asserted by the program) plus fti-ckpt verify run with
# the runtime made unloadable (FTI_CUDA_RUNTIME=none: the toolkit's runtime
# is in the loader cache here, so a search path cannot hide it), while the
# loader's trace shows no libcudart opened.
source "$FTI_SOURCE_DIR/test/mpi/lib.sh"
P="$FTI_BUILD_DIR/test/mpi/test_prog_ckpt_prog"
CKPT="$FTI_BUILD_DIR/tools/fti-ckpt"

for f in "$FTI_BUILD_DIR/libfti.so" "$FTI_BUILD_DIR/fortran/libfti_f.so" "$CKPT"; do
  [ -e "$f" ] || continue
  needed=$(readelf -d "$f" | awk '/NEEDED/ {print $5}')
  echo "$(basename "$f"): $needed" | tr '\n' ' '; echo
  case "$needed" in *cudart*|*libcuda.*) fail "$f needs the CUDA runtime: $needed" ;; esac
done
needed=$(readelf -d "$CKPT" | awk '/NEEDED/ {print $5}')
# (libhdf5_mpich, when built with HDF5, is used: fti-ckpt reads HDF5 checkpoints)
case "$needed" in *libmpi*|*xrt*) fail "fti-ckpt needs a library it does not use: $needed" ;; esac

export FTI_CUDA_RUNTIME=none
write_config "$T/c.fti" keep_last_ckpt=1
LD_DEBUG=files run_nodes 4 1 "$P" "$T/c.fti" write 7 1 2>"$T/write.err" || {
  grep -v "^ *[0-9]*:" "$T/write.err"; fail "CPU checkpoint without the CUDA runtime"; }
LD_DEBUG=files run_nodes 4 1 "$P" "$T/c.fti" check 7 >"$T/out" 2>"$T/check.err"
grep -q "PASS" "$T/out" || { cat "$T/out"; fail "CPU restore without the CUDA runtime"; }
# Probes for an already loaded runtime (RTLD_NOLOAD) are traced too: what
# must not appear is a runtime being mapped and initialised.
if grep -q "calling init:.*libcudart" "$T/write.err" "$T/check.err"; then
  grep "calling init:.*libcudart" "$T/write.err" | head -3
  fail "libcudart was opened although FTI_CUDA_RUNTIME=none"
fi
LD_DEBUG=files "$CKPT" verify "$T/c.fti" --nodes "$T/nodes" >"$T/verify.out" 2>"$T/verify.err" || {
  cat "$T/verify.out"; fail "fti-ckpt verify without the CUDA runtime"; }
grep -q "calling init:.*libcudart" "$T/verify.err" && fail "fti-ckpt opened libcudart"
pass "no CUDA runtime needed"
