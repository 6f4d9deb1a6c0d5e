#!/usr/bin/env bash
# FTI's cornerCases suite (initReInit, reInit): FTI_Recover right after
# FTI_Checkpoint, in the same run, rolls the protected data back to that
# checkpoint; after a second checkpoint, FTI_RecoverVar rolls back to the
# second one. L4 keeps no local copy by default, so its rollback reads the
# global copy (one file per rank, and the MPI-IO shared file).
source "$(dirname "$0")/lib_sem.sh"
for cfg in "1" "2" "3" "4" "4 ckpt_io=2" "4 l4_local_copy=1"; do
  set -- $cfg
  level=$1; shift
  fresh
  sem_config "$T/c.fti" "$@"
  expect_pass inplace "$T/out" sem "$T/c.fti" inplace $level
  [ "$(local_files '*.fti') $(global_files '*.fti')" = "0 0" ] \
    || { find "$LOCAL_DIR" "$T/global"; fail "level $cfg: keep_last_ckpt = 0 left checkpoint files"; }
done
pass "cornerCases: in-place rollback on every level"
