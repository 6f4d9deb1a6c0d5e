# Sourced (before lib.sh) by a test that runs twice: on the test's disk,
# and, where /dev/shm is a writable tmpfs, there too, where checkpoint files
# in memory take the library's mapped paths. Runs that second pass first,
# as its own process with FTI_TEST_DIR in /dev/shm, and exits with its
# status when it fails; then the sourcing script goes on with the disk pass.
if [ -z "${FTI_IN_MEMORY:-}" ] && [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] &&
   [ -w /dev/shm ]; then
  fti_shm_dir="/dev/shm/fti-test-$(basename "$0" .sh)-$$"
  FTI_IN_MEMORY=1 FTI_TEST_DIR="$fti_shm_dir" "$0"; fti_rc=$?
  rm -rf "$fti_shm_dir"
  [ "$fti_rc" -eq 0 ] || exit "$fti_rc"
fi
