#!/usr/bin/env bash
# API misuse: each wrong call returns FTI_NSCS with a message naming what is
# wrong; the checkpoint taken among them restores. Checkpoint directories are
# 0700 and files 0600.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_misuse_prog"
write_config "$T/c.fti" keep_last_ckpt=1
run_nodes 4 1 "$P" "$T/c.fti" misuse > "$T/out" 2>&1 || { cat "$T/out"; fail "misuse run"; }
grep -q WRONG "$T/out" && { grep WRONG "$T/out"; fail "a misuse was not rejected"; }
for msg in "FTI_Protect called before a successful FTI_Init" "called again without FTI_Finalize" \
    "variable 0: pointer is NULL but count is 5" "variable 1: count -1 is negative" \
    "variable 1: unknown type id 999" "variable 2 is already protected with type 'int'" \
    "level 0 is not one of 1, 2, 3, 4" "level 9 is not one of" "there is no checkpoint to recover" \
    "FTI_RecoverVar: variable 77 is not protected" "FTI_Finalize called after FTI_Finalize" \
    "FTI_Protect called after FTI_Finalize" "variable 2: 33 dimensions (0-32 allowed)" \
    "variable 2: -1 dimensions (0-32 allowed)"; do
  grep -qF "$msg" "$T/out" || { cat "$T/out"; fail "no clear message: $msg"; }
done
run_nodes 4 1 "$P" "$T/c.fti" check > "$T/out2" 2>&1 || { cat "$T/out2"; fail "restore after misuse"; }

# Private permissions: no group/other access anywhere under our directories.
bad=$( { find "$T/nodes" -mindepth 2; find "$T/global" "$T/meta" -mindepth 1; } | xargs -r stat -c "%a %n" | awk '$1 % 100 != 0 {print $2}' | head -5)
[ -z "$bad" ] || { ls -la $bad; fail "group/other permissions on: $bad"; }
[ -n "$(find "$T/nodes" -name 'l1-s*-rank0.fti')" ] || fail "no checkpoint file found to check"
pass "api misuse and permissions"
