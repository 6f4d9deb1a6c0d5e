#!/usr/bin/env bash
# L1: FTI_RecoverVarInit / FTI_RecoverVar / FTI_RecoverVarFinalize restore
# exactly the named variables; the others keep the values the application
# gave them (a sentinel), byte for byte (asserted in recovervar_prog).
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_recovervar_prog"
write_config "$T/c.fti" keep_last_ckpt=1

run_nodes 4 1 "$P" "$T/c.fti" write 21 > "$T/out" || { cat "$T/out"; fail "checkpoint"; }
for ids in "11" "10 12" "12" "10 11 12"; do
  # shellcheck disable=SC2086
  run_nodes 4 1 "$P" "$T/c.fti" check 21 $ids > "$T/out" 2> "$T/err" \
    || { cat "$T/out" "$T/err"; fail "recover only variables $ids"; }
  grep -q "PASS: recovervar check" "$T/out" || { cat "$T/out" "$T/err"; fail "variables $ids"; }
done
pass "l1 recovervar"
