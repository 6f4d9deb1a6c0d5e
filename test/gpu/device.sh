# device.sh - sourced by the gpu scripts after test/mpi/lib.sh: which device
# program they drive. FTI_TEST_DEVICE=cuda: the program on cudaMalloc memory
# of a real GPU through libfti's CUDA backend (skipped, 77, where no CUDA
# device is usable); otherwise the emulated device.
if [ "${FTI_TEST_DEVICE:-emu}" = cuda ]; then
  P="$FTI_BUILD_DIR/test/gpu/test_prog_cuda_prog"
  [ -x "$P" ] || { echo "SKIP: $P not built (no CUDA toolkit)"; exit 77; }
else
  P="$FTI_BUILD_DIR/test/gpu/test_prog_emu_prog"
fi
"$P" --probe || exit $? # names the device, or says why it is skipped (77)

# emulated: true on the emulated device, whose copies can be made to fail and
# whose pinned buffers can be counted; the parts that need that run only there.
emulated() { [ "${FTI_TEST_DEVICE:-emu}" != cuda ]; }
