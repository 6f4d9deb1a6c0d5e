#!/usr/bin/env bash
# FTI_Status() as FTI 1.6's (it returns the [restart] failure value read at
# FTI_Init): after a run that ended with FTI_Finalize and keep_last_ckpt = 1
# (which writes failure = 2), the next run's FTI_Status() is 0 before
# FTI_Init, 2 after it, and 0 once FTI_Recover restored the checkpoint;
# the restored bytes are the kept checkpoint's.
source "$(dirname "$0")/lib_sem.sh"
PROG="$FTI_BUILD_DIR/test/conformance/conformance_prog_behave_prog"
sem_config "$T/c.fti" keep_last_ckpt=1
run() { timeout 240 "$MPIEXEC" -n "$NP" -bind-to none "$PROG" "$T/c.fti" "$@"; }
expect_exit 0 "$T/w" run write 5
grep -qx "status: before-init 0 after-init 0 after-recover -1" "$T/w" || { cat "$T/w"; fail "first run: FTI_Status"; }
grep -Eq '^[[:space:]]*failure[[:space:]]*=[[:space:]]*2[[:space:]]*$' "$T/c.fti" ||
  { cat "$T/c.fti"; fail "FTI_Finalize with keep_last_ckpt = 1 did not write [restart] failure = 2"; }
expect_exit 0 "$T/r" run check 5
grep -q "^PASS: check (0 bytes wrong)" "$T/r" || { cat "$T/r"; fail "the kept checkpoint was not restored"; }
grep -qx "status: before-init 0 after-init 2 after-recover 0" "$T/r" ||
  { cat "$T/r"; fail "next run: FTI_Status is not FTI's 0 / 2 / 0: $(grep '^status:' "$T/r")"; }
pass "FTI_Status: 2 after FTI_Finalize kept the last checkpoint, as FTI"
