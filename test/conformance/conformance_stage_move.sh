#!/usr/bin/env bash
# FTI_SendFile moves, as FTI 1.6's (without heads it copies, syncs, then
# removes the local file): once the request succeeded the source is gone
# and the destination holds every byte; a request that fails (the remote
# directory does not exist) keeps the source whole.
source "$(dirname "$0")/lib_sem.sh"
PROG="$FTI_BUILD_DIR/test/conformance/conformance_prog_behave_prog"
mkdir -p "$T/work/staged"
sem_config "$T/c.fti" enable_staging=1
(cd "$T/work" && expect_exit 0 "$T/out" timeout 240 "$MPIEXEC" -n "$NP" -bind-to none "$PROG" "$T/c.fti" stage 11)
grep -q "^PASS: stage (0 bytes wrong)" "$T/out" || { cat "$T/out"; fail "stage: a rank's check failed"; }
[ "$(find "$LOCAL_DIR" -name 'moved-*.bin' | wc -l)" = 0 ] || fail "a moved file stayed in the stage directory"
[ "$(find "$LOCAL_DIR" -name 'kept-*.bin' | wc -l)" = 4 ] || fail "a file whose move failed was removed"
[ "$(find "$T/work/staged" -name 'moved-*.bin' | wc -l)" = 4 ] || fail "not 4 files at the destination"
pass "FTI_SendFile moves: source removed once the copy is safe, kept when it failed"
