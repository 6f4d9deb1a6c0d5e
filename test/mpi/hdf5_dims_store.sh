#!/usr/bin/env bash
# FTI_RecoverDatasetDimension reads the dimensions of a global dataset from
# the shared HDF5 file of level 9 (FTI_L4_H5_SINGLE) only: a restart from a
# checkpoint of another store is refused naming the dataset, the checkpoint
# and the store it is in (level 1 here; the per-rank HDF5 files of level 4),
# and nothing is restored. Skipped (77) without HDF5.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_vpr_prog"
run() { local n="$1"; shift; "$MPIEXEC" -n "$n" -bind-to none "$P" "$T/c.fti" "$@"; }

# expect_dims_refused LEVEL REGEX: a checkpoint of LEVEL, then a restart
# whose FTI_RecoverDatasetDimension fails saying REGEX.
expect_dims_refused() {
  rm -rf "$T/global" "$T/meta" "$LOCAL_DIR"
  write_config "$T/c.fti" node_size=1 group_size=1 ckpt_io=5 h5_single_file_enable=1 keep_last_ckpt=1
  if ! run 4 write "$1" > "$T/out" 2>&1; then
    grep -q "not supported by this build" "$T/out" && { echo "skipped: built without HDF5"; exit 77; }
    cat "$T/out"; fail "level $1 checkpoint on 4 ranks"
  fi
  run 4 check > "$T/out" 2>&1 && { cat "$T/out"; fail "level $1: dataset dimensions recovered"; }
  grep -Eq -- "$2" "$T/out" || { cat "$T/out"; fail "level $1: no error matching '$2'"; }
  grep -q "PASS" "$T/out" && { cat "$T/out"; fail "level $1: restored all the same"; }
  echo "ok: level $1 refused by name"
}
expect_dims_refused 1 "FTI_RecoverDatasetDimension\(0\): checkpoint #1 is of level 1 \(local files\), not in the shared HDF5 file of level 9"
expect_dims_refused 4 "FTI_RecoverDatasetDimension\(0\): checkpoint #1 is of level 4 \(HDF5, \[basic\] ckpt_io = 5\), not in the shared HDF5 file of level 9"
pass "FTI_RecoverDatasetDimension names the store of the checkpoint it would read"
