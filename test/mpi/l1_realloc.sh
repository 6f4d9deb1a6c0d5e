#!/usr/bin/env bash
# L1: a protected array changes size between runs. Run 1 checkpoints
# N+rank doubles; run 2 protects one double, FTI_Recover refuses it,
# FTI_GetStoredSize reports the stored bytes, FTI_Realloc grows the buffer
# and FTI_Recover then restores every value (asserted in realloc_prog).
# FTI_Realloc of a stack buffer or static data returns NULL with a message
# (realloc(3) of them aborted the job).
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_realloc_prog"
N=5000
write_config "$T/c.fti" keep_last_ckpt=1

run_nodes 4 1 "$P" "$T/c.fti" write 3 $N > "$T/out" || { cat "$T/out"; fail "checkpoint"; }
run_nodes 4 1 "$P" "$T/c.fti" check 3 $N > "$T/out" 2> "$T/err" \
  || { cat "$T/out" "$T/err"; fail "recovery into a reallocated buffer"; }
grep -q "PASS: realloc check" "$T/out" || { cat "$T/out" "$T/err"; fail "no PASS"; }
# The refused FTI_Recover said why, naming the variable and both sizes.
grep -q "variable 0: checkpoint holds $((N * 8)) bytes, the protected buffer has 8" "$T/err" \
  || { cat "$T/err"; fail "size-mismatch message"; }
# FTI_Realloc of memory that is not malloc's: refused by name, no abort.
grep -q "\[FTI r0\] error: FTI_Realloc: variable 0: .* is on this thread's stack, not memory from malloc" "$T/err" \
  || { cat "$T/err"; fail "stack buffer: message"; }
grep -q "\[FTI r0\] error: FTI_Realloc: variable 0: .* is in the static data of .*test_prog_realloc_prog, not memory from malloc" "$T/err" \
  || { cat "$T/err"; fail "static data: message"; }
pass "l1 realloc"
