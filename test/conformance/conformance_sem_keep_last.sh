#!/usr/bin/env bash
# FTI's keepL4Ckpt and multiLevelCkpt (keep = 1) suites: with
# keep_last_ckpt = 1, FTI_Finalize leaves the last checkpoint on the global
# file system, whatever its level, and empties local storage, so the next job
# can start on other nodes: with every node's local storage gone it restores
# every byte; with the global directory gone too it cannot (FTI_Init fails).
source "$(dirname "$0")/lib_sem.sh"
for cfg in "1" "2" "3" "4" "1 ckpt_io=2" "3 head=0 inline_l3=1 group_size=2"; do
  set -- $cfg
  level=$1; shift
  fresh
  sem_config "$T/c.fti" keep_last_ckpt=1 "$@"
  expect_exit 0 "$T/w" sem "$T/c.fti" finish 40 1 $level
  [ "$(local_files '*.fti')" -eq 0 ] || { find "$LOCAL_DIR"; fail "level $cfg: local files left"; }
  [ "$(global_files '*.fti')" -ge 1 ] || fail "level $cfg: nothing in the global directory"
  rm -rf "$LOCAL_DIR"; mkdir -p "$LOCAL_DIR"   # the next job runs on other nodes
  expect_pass check "$T/r" sem "$T/c.fti" check 41
  # keep_last_ckpt = 1 again: the restored checkpoint stays for a third job
  rm -rf "$LOCAL_DIR"; mkdir -p "$LOCAL_DIR"
  expect_pass check "$T/r2" sem "$T/c.fti" check 41
  rm -rf "$T/global"; mkdir -p "$T/global"
  expect_exit 20 "$T/f" sem "$T/c.fti" check 41
done
pass "keep_last_ckpt: the last checkpoint is on the global file system at FTI_Finalize"
