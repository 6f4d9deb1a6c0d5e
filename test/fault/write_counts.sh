#!/usr/bin/env bash
# FTI_FAULT=write:N counts checkpoint data writes only (docs/FAULTS.md): the
# job's own records (lock file, commit record) are not counted. write:1 on
# every rank must therefore fail each rank's first checkpoint file, not the
# lock file written in FTI_Init (which killed the job before any checkpoint).
source "$FTI_SOURCE_DIR/test/mpi/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
write_config "$T/c.fti" keep_last_ckpt=1
commit_seq() { sed -n 's/^cur level=1 seq=\([0-9]*\) .*/\1/p' "$T"/meta/*/commit 2>/dev/null; }

# Checkpoint A, fault-free.
run_nodes 4 1 "$P" "$T/c.fti" write 1 1 64 > /dev/null 2>&1 || fail "checkpoint A"
[ "$(commit_seq)" = 1 ] || fail "checkpoint A not committed as #1"

# write:1:ENOSPC on every rank: FTI_Init (lock file) passes, the first data
# write of every rank fails, FTI_Checkpoint returns FTI_NSCS everywhere.
FTI_FAULT="write:1:ENOSPC" run_nodes 4 1 "$P" "$T/c.fti" write 2 1 64 > "$T/out" 2> "$T/err" \
  && { cat "$T/err"; fail "write:1:ENOSPC: the run succeeded"; }
grep -q "FTI_Init returned" "$T/err" \
  && { cat "$T/err"; fail "write:1:ENOSPC failed FTI_Init (the lock file was counted)"; }
[ "$(grep -c "fault injection: write #1 fails with No space left on device" "$T/err")" = 4 ] \
  || { cat "$T/err"; fail "write #1 did not fail on each of the 4 ranks"; }
[ "$(grep -c "rank [0-3]: FTI_Checkpoint returned -1" "$T/err")" = 4 ] \
  || { cat "$T/err"; fail "write:1:ENOSPC: not every rank got FTI_NSCS from FTI_Checkpoint"; }
grep -q "l1-s1-rank[0-3].fti.*No space left on device" "$T/err" \
  || { cat "$T/err"; fail "write:1:ENOSPC: the error does not name a checkpoint file"; }
[ "$(commit_seq)" = 1 ] || fail "write:1:ENOSPC: a failed checkpoint was committed"

# Rank 0 also writes the lock file and the commit record: every write:K@0
# that fires must fail a checkpoint file, up to the first K that no longer
# fires (one past rank 0's data writes of a checkpoint); none the records.
k=1
while :; do
  FTI_FAULT="write:$k:ENOSPC@0" run_nodes 4 1 "$P" "$T/c.fti" write 3 1 64 > "$T/out" 2> "$T/err" || true
  grep -q "fault injection: write #$k fails" "$T/err" || break
  grep "No space left on device" "$T/err" | grep -v "fault injection" | grep -qv "l1-s[01]-rank0.fti" \
    && { cat "$T/err"; fail "write:$k@0 failed a write that is not checkpoint data"; }
  grep -q "l1-s[01]-rank0.fti.*No space left on device" "$T/err" \
    || { cat "$T/err"; fail "write:$k@0: the error does not name rank 0's checkpoint file"; }
  k=$((k + 1))
  [ $k -le 64 ] || fail "write:K@0 still fires at K = 64"
done
[ $k -gt 1 ] || fail "write:1@0 did not fire at a checkpoint write"
# The last run (write:$k@0, never fired) committed checkpoint C, #2 (a failed
# checkpoint takes no sequence number).
[ "$(commit_seq)" = 2 ] || { cat "$T/err"; fail "checkpoint C (#2) not committed"; }
run_nodes 4 1 "$P" "$T/c.fti" check 3 64 > "$T/out" 2>&1 || { cat "$T/out"; fail "C not restored"; }
grep -q "PASS: restored bytes identical" "$T/out" || { cat "$T/out"; fail "C not restored identical"; }
pass "write:N counts checkpoint data writes ($((k - 1)) on rank 0), not the lock file or the commit record"
