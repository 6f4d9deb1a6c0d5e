#!/usr/bin/env bash
# FTI's cornerCases suite (subsequent_checkpoints, subsequent_ckpts_restart):
# a committed checkpoint removes the older checkpoints of lower levels and,
# at L4, the local copy, also one restored at restart (l4_local_copy = 1
# keeps it); a lower level never
# removes a higher one, so after L4, L3, L2, L1 all four stay and a restart
# with the newer ones erased uses the newest that is left. keep_all_levels = 1
# (ours) keeps every level.
source "$(dirname "$0")/lib_sem.sh"
counts() { echo "$(local_files 'l1-*') $(local_files 'l2-*') $(local_files 'l3-*') $(local_files 'l4-*') $(global_files 'l4-*')"; }
want_counts() { [ "$(counts)" = "$1" ] || { find "$LOCAL_DIR" "$T/global" -type f; fail "$2: files (l1 l2 l3 l4-local l4-global) $(counts), expected $1"; }; }

# local first: every level removes the ones below; L4 leaves nothing local
fresh; sem_config "$T/c.fti"
expect_exit 0 "$T/o" sem "$T/c.fti" crash 10 1 2; want_counts "0 8 0 0 0" "L1 then L2"
expect_exit 0 "$T/o" sem "$T/c.fti" crash 20 1 2 3; want_counts "0 0 8 0 0" "L1, L2, L3"
expect_exit 0 "$T/o" sem "$T/c.fti" crash 30 1 2 3 4; want_counts "0 0 0 0 4" "L1, L2, L3, L4"
expect_pass check "$T/r" sem "$T/c.fti" check 33 crash
# the L4 file restored from the global copy is not kept either (cornerCases
# ckpt_consistency): without the global copy, the next restart must fail
want_counts "0 0 0 0 4" "after a restart from L4"
rm -rf "$T/global"; mkdir -p "$T/global"
expect_exit 20 "$T/r" sem "$T/c.fti" check 33

# secure first: all stay; with the newest erased a restart uses the next
secure_first() { fresh; sem_config "$T/c.fti"; expect_exit 0 "$T/o" sem "$T/c.fti" crash 50 4 3 2 1; }
secure_first; want_counts "4 8 8 0 4" "L4, L3, L2, L1"
expect_pass check "$T/r" sem "$T/c.fti" check 53
erased=""
for lv in 1 2 3; do
  secure_first
  erased="$erased $lv"
  for e in $erased; do rm -f "$LOCAL_DIR"/*/*/l$e-*; done
  expect_pass check "$T/r" sem "$T/c.fti" check $((53 - lv))
done

# the same level twice: the previous one stays as a fallback (ours), the lower go
fresh; sem_config "$T/c.fti"
expect_exit 0 "$T/o" sem "$T/c.fti" crash 60 1 3 3; want_counts "0 0 16 0 0" "L1, L3, L3"

# l4_local_copy = 1: the local copy stays and serves a restart without the global one
fresh; sem_config "$T/c.fti" l4_local_copy=1
expect_exit 0 "$T/o" sem "$T/c.fti" crash 70 1 4; want_counts "0 0 0 4 4" "l4_local_copy"
rm -rf "$T/global"; mkdir -p "$T/global"
expect_pass check "$T/r" sem "$T/c.fti" check 71

# keep_all_levels = 1: nothing removed
fresh; sem_config "$T/c.fti" keep_all_levels=1
expect_exit 0 "$T/o" sem "$T/c.fti" crash 80 1 2 4; want_counts "4 8 0 0 4" "keep_all_levels"
pass "retention: lower levels and L4 local copies removed as FTI does"
