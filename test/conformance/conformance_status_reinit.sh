#!/usr/bin/env bash
# FTI_Status() after FTI_Finalize and FTI_Init again in the same process (PDI's
# FTI plugin does it on PDI_finalize / PDI_init): FTI_Finalize with
# keep_last_ckpt = 1 returns on no rank before [restart] failure = 2 is in the
# config, so the next FTI_Init reads 2 on EVERY rank (FTI 1.6's FTI_Finalize
# ends in a barrier; the race showed as FTI_Status() 1 on ranks 1..N-1 and 2
# on rank 0). FTI_RecoverVarFinalize leaves FTI_Status() as it was (FTI 1.6
# resets it in FTI_Recover only; PDI's recover_var test expects 2 after it),
# FTI_Recover then makes it 0; both restore every byte.
source "$(dirname "$0")/lib_sem.sh"
PROG="$FTI_BUILD_DIR/test/conformance/conformance_prog_reinit_prog"
[ -x "$PROG" ] || fail "reinit_prog is not built ($PROG)"
for round in 1 2 3; do
  fresh
  sem_config "$T/c.fti" keep_last_ckpt=1
  expect_exit 0 "$T/out$round" timeout 240 "$MPIEXEC" -n "$NP" -bind-to none "$PROG" "$T/c.fti" 7
  for r in $(seq 0 $((NP - 1))); do
    line="$(grep "^reinit: rank $r " "$T/out$round" || true)"
    [ "$line" = "reinit: rank $r after-init 2 after-recovervar 2 after-recover 0 wrong 0" ] || {
      cat "$T/out$round"
      fail "round $round, rank $r: expected 'after-init 2 after-recovervar 2 after-recover 0 wrong 0', got '${line:-nothing}'"
    }
  done
done
pass "FTI_Status: 2 on every rank after FTI_Finalize and FTI_Init in one process, still 2 after FTI_RecoverVarFinalize, 0 after FTI_Recover"
