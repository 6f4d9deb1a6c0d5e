#!/usr/bin/env bash
# FTI_Init twice in one job, as FTI's cornerCases suite runs it
# (double_fti_init): case 4, FTI_Init again on a live library, returns
# FTI_SCES and changes nothing (variables stay protected: the next
# checkpoint holds them); case 3, two segments each with its own
# Init..Finalize and config. A restart then recovers what each checkpoint
# holds, byte by byte. No error is printed.
source "$(dirname "$0")/lib_config.sh"
P="$CPROGS/conformance_prog_conf_double_init"

# ok4 WHAT: every rank reported 0 failures and nothing was printed as an error.
ok4() {
  [ "$(count_in "$T/out" ": 0 failures\$")" = 4 ] || { show; fail "$1: a rank failed"; }
  if grep -q "error" "$T/err"; then show; fail "$1: an error was printed"; fi
}

write_config "$T/a.fti" keep_last_ckpt=1
run4 "$P" live "$T/a.fti" || { show; fail "live re-init: the job failed"; }
ok4 "live re-init"
[ "$(count_in "$T/err" "called again without FTI_Finalize")" = 1 ] \
  || { show; fail "live re-init: not one note (rank 0) about the second FTI_Init"; }
run4 "$P" check "$T/a.fti" 3 || { show; fail "restart after live re-init failed"; }
ok4 "restart after live re-init"

mkdir -p "$T/b/global" "$T/b/meta"
write_config "$T/s1.fti" keep_last_ckpt=1 glbl_dir="$T/s1g" meta_dir="$T/s1m"
write_config "$T/s2.fti" keep_last_ckpt=1 glbl_dir="$T/b/global" meta_dir="$T/b/meta"
run4 "$P" segments "$T/s1.fti" "$T/s2.fti" || { show; fail "segments: the job failed"; }
ok4 "segments"
run4 "$P" check "$T/s1.fti" 5 || { show; fail "restart of segment 1 failed"; }
ok4 "restart of segment 1"
run4 "$P" check "$T/s2.fti" 6 || { show; fail "restart of segment 2 failed"; }
ok4 "restart of segment 2"
pass "a second FTI_Init behaves as FTI's cornerCases expect"
