#!/usr/bin/env bash
# staging_mib: FTI_Checkpoint copies the protected data and returns; the
# helper thread writes the checkpoint from the copy. The program overwrites
# its buffers as soon as FTI_Checkpoint returns (the thread is held back by
# a 1 s delay fault first), so a restore equal to the checkpointed values
# proves the copy, not the live buffer, was written. Also: FTI_Recover in the
# same run sees the last committed checkpoint, the fallback when the data
# exceeds staging_mib, no thread support, head ranks, and crashes while the
# background write runs (the previous checkpoint stays the one restored).
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
export FTI_TEST_THREAD_MULTIPLE=1
KIB=512

# -- every level: staged, buffers overwritten at once, restored after losses ------
write_config "$T/s.fti" staging_mib=4 verbosity=1
for L in 1 2 3 4; do
  seed=$((10 * L))
  FTI_FAULT="delay:staged" run_nodes 4 1 "$P" "$T/s.fti" staged $seed $L $KIB 2 > "$T/out$L" 2>&1 \
    || { cat "$T/out$L"; fail "staged checkpoints at level $L"; }
  grep -q "staged (.* MiB copied" "$T/out$L" || { cat "$T/out$L"; fail "level $L was not staged"; }
  grep -q "1 s delay at phase 'staged'" "$T/out$L" || { cat "$T/out$L"; fail "delay did not happen"; }
  case $L in 2) lose_node 1 ;; 3) lose_node 2 ;; 4) rm -rf "$T"/nodes/* ;; esac
  run_nodes 4 1 "$P" "$T/s.fti" check $((seed + 1)) $KIB > "$T/chk$L" 2>&1
  grep -q PASS "$T/chk$L" || { cat "$T/chk$L"; fail "level $L: staged checkpoint not restored"; }
done

# -- over staging_mib: written from the live buffers before FTI_Checkpoint returns,
#    post-processed in the background, one line per checkpoint, restored ----------
write_config "$T/f.fti" staging_mib=1
run_nodes 4 1 "$P" "$T/f.fti" staged 50 4 2048 2 > "$T/outf" 2>&1 || { cat "$T/outf"; fail "fallback"; }
[ "$(grep -c "4 rank(s) had more than staging_mib = 1 MiB to copy (largest 2.0 MiB) and wrote synchronously" "$T/outf")" = 2 ] \
  || { cat "$T/outf"; fail "no fallback line per checkpoint"; }
rm -rf "$T"/nodes/*
run_nodes 4 1 "$P" "$T/f.fti" check 51 2048 | grep -q PASS || fail "fallback checkpoint not restored"

# -- crash while the background write runs: the previous checkpoint is restored -----
write_config "$T/c.fti" staging_mib=4 inline_l4=0
run_nodes 4 1 "$P" "$T/c.fti" write 60 4 $KIB || fail "staged checkpoint 60"
for point in "crash:staged@2" "crash:after_local_write@1" "crash:l4_flush@3"; do
  FTI_FAULT="$point" run_nodes 4 1 "$P" "$T/c.fti" write 61 4 $KIB > "$T/crash" 2>&1 \
    && { cat "$T/crash"; fail "$point did not crash"; }
  grep -q "fault injection: crash" "$T/crash" || { cat "$T/crash"; fail "$point: no crash"; }
  run_nodes 4 1 "$P" "$T/c.fti" check 60 $KIB > "$T/chk" 2>&1
  grep -q PASS "$T/chk" || { cat "$T/chk"; fail "after $point: checkpoint 60 not restored"; }
done

# -- heads: the thread writes the local file, the head flushes it ---------------------
rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
write_config "$T/h.fti" head=1 node_size=2 inline_l4=0 staging_mib=4 verbosity=1
FTI_FAULT="delay:staged" run_nodes 8 2 "$P" "$T/h.fti" staged 70 4 $KIB 2 > "$T/outh" 2>&1 \
  || { cat "$T/outh"; fail "staged with heads"; }
grep -q "staged (" "$T/outh" || { cat "$T/outh"; fail "not staged with heads"; }
rm -rf "$T"/nodes/*
run_nodes 8 2 "$P" "$T/h.fti" check 71 $KIB | grep -q PASS || fail "staged with heads: restore"

# -- no MPI_THREAD_MULTIPLE: a warning, synchronous checkpoints ----------------------
rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
write_config "$T/n.fti" staging_mib=4
FTI_TEST_THREAD_MULTIPLE=0 run_nodes 4 1 "$P" "$T/n.fti" write 80 1 $KIB 2> "$T/errn" || { cat "$T/errn"; fail "no thread"; }
grep -q "staging_mib = 4 needs MPI initialised with MPI_Init_thread" "$T/errn" || { cat "$T/errn"; fail "no warning"; }
run_nodes 4 1 "$P" "$T/n.fti" check 80 $KIB | grep -q PASS || fail "synchronous fallback: restore"
pass "asynchronous checkpoints through staging_mib"
