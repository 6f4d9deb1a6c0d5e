#!/usr/bin/env bash
# FTI's ckptDiffSizes suite: ranks with different, growing sizes restart;
# even ranks call FTI_Recover, odd ranks FTI_RecoverVarInit/Var/Finalize, and
# a rank whose buffer is too small retries after FTI_Realloc. Nobody may
# wait for another in a recovery call (a hang is killed and fails the test);
# every byte, the stored sizes, and a checkpoint taken afterwards are checked.
source "$(dirname "$0")/lib_sem.sh"
for level in 1 2 3 4; do
  fresh
  sem_config "$T/c.fti"
  expect_exit 0 "$T/w$level" sem "$T/c.fti" mixed-write $level
  expect_pass mixed-check "$T/r$level" sem "$T/c.fti" mixed-check
done
pass "diffSizes: mixed recovery calls with FTI_Realloc, every level"
