#!/usr/bin/env bash
# L1: a crash or a failed write while checkpoint B is being taken leaves the
# committed checkpoint A recoverable, byte for byte:
#  - FTI_FAULT=crash:after_local_write@2  rank 2 dies after writing B's file
#  - FTI_FAULT=crash:before_commit@0      rank 0 dies before writing the record
#  - FTI_FAULT=crash:before_commit        every rank dies before the commit
#  - FTI_FAULT=write:1:ENOSPC@1           rank 1's first write fails: every rank
#                                         gets FTI_NSCS from FTI_Checkpoint
# After all that, a new checkpoint C is taken and restored normally.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
write_config "$T/c.fti" keep_last_ckpt=1

commit_seq() { sed -n 's/^cur level=1 seq=\([0-9]*\) .*/\1/p' "$T"/meta/*/commit; }

run_nodes 4 1 "$P" "$T/c.fti" write 1 1 64 > /dev/null || fail "checkpoint A"
[ "$(commit_seq)" = 1 ] || fail "checkpoint A not committed as #1"

for fault in crash:after_local_write@2 crash:before_commit@0 crash:before_commit; do
  FTI_FAULT="$fault" run_nodes 4 1 "$P" "$T/c.fti" write 2 1 64 > "$T/out" 2> "$T/err" \
    && { cat "$T/err"; fail "$fault: the run did not crash"; }
  grep -q "fault injection: crash at phase" "$T/err" || { cat "$T/err"; fail "$fault: no crash"; }
  [ "$(commit_seq)" = 1 ] || fail "$fault: checkpoint B was committed"
  if [ "$fault" = crash:after_local_write@2 ]; then
    # Rank 2 wrote all of B (seq 2) in the other slot: complete, but not committed.
    b=$(ls "$T"/nodes/node2/*/l1-s1-rank2.fti) || fail "rank 2 did not write B before crashing"
    [ "$(od -An -tu8 -j16 -N8 "$b" | tr -d ' ')" = 2 ] || fail "rank 2's file in slot 1 is not B"
  fi
  run_nodes 4 1 "$P" "$T/c.fti" check 1 64 > "$T/out" 2> "$T/err" || { cat "$T/out" "$T/err"; fail "$fault: restart"; }
  grep -q "PASS: restored bytes identical" "$T/out" || { cat "$T/out" "$T/err"; fail "$fault: A not restored"; }
done

# A failed write on rank 1: FTI_Checkpoint returns FTI_NSCS (-1) on every rank.
FTI_FAULT="write:1:ENOSPC@1" run_nodes 4 1 "$P" "$T/c.fti" write 2 1 64 > "$T/out" 2> "$T/err" \
  && { cat "$T/err"; fail "ENOSPC: the run succeeded"; }
[ "$(grep -c "rank [0-3]: FTI_Checkpoint returned -1" "$T/err")" = 4 ] \
  || { cat "$T/err"; fail "ENOSPC: not every rank got FTI_NSCS"; }
grep -q "l1-s1-rank1.fti.*No space left on device" "$T/err" || { cat "$T/err"; fail "ENOSPC: message"; }
[ "$(commit_seq)" = 1 ] || fail "ENOSPC: a failed checkpoint was committed"
run_nodes 4 1 "$P" "$T/c.fti" check 1 64 > "$T/out" || fail "ENOSPC: restart"
grep -q "PASS" "$T/out" || fail "ENOSPC: A not restored"

# The library carries on: checkpoint C overwrites B's slot and is restored.
run_nodes 4 1 "$P" "$T/c.fti" write 3 1 64 > /dev/null || fail "checkpoint C"
run_nodes 4 1 "$P" "$T/c.fti" check 3 64 | grep -q PASS || fail "C not restored"
pass "l1 crash and failed write keep the previous checkpoint"
