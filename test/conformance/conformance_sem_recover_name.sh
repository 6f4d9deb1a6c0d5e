#!/usr/bin/env bash
# FTI's recoverName suite: names given with FTI_setIDFromString are found by
# FTI_getIDFromString on restart, before any FTI_setIDFromString, whatever the
# order; each name keeps its id in the new run (sem_prog names-check asserts
# the ids, every restored byte, and -1 for an unknown name). Every level.
source "$(dirname "$0")/lib_sem.sh"
for level in 1 2 3 4; do
  fresh
  sem_config "$T/c.fti"
  expect_exit 0 "$T/w$level" sem "$T/c.fti" names-write $level
  expect_pass names-check "$T/r$level" sem "$T/c.fti" names-check
done
pass "recoverName: ids from the checkpoint on every level"
