#!/usr/bin/env bash
# What the Fortran layer refuses (before init, non-contiguous, size not a
# multiple of the type, after finalize) and the ids and communicator it sets.
# The refusals must also explain themselves on stderr.
source "$(dirname "$0")/lib_fortran.sh"

write_config "$T/errors.fti" restart.exec_id=errors keep_last_ckpt=0
log="$T/errors.log"
run_logged "$log" run_nodes 4 1 "$FPROGS/test_f_errors" run "$T/errors.fti" ||
  fail "errors: the run failed"
expect_pass "$log" "fortran errors"
for msg in "called before FTI_Init" "is not contiguous" "not a whole number of type" \
    "assumed-size array"; do
  grep -q "ERROR: FTI_Protect (Fortran) id [0-9]*: .*$msg" "$log" ||
    fail "errors: no message '$msg' in $log"
done
pass "Fortran refusals and ids"
