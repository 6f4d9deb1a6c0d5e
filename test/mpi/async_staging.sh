#!/usr/bin/env bash
# staging_mib: FTI_Checkpoint copies the protected data and returns; the
# helper thread writes the checkpoint from the copy. The program overwrites
# its buffers as soon as FTI_Checkpoint returns (the thread is held back by
# a 1 s delay fault first), so a restore equal to the checkpointed values
# proves the copy, not the live buffer, was written. Also: FTI_Recover in the
# same run sees the last committed checkpoint, L4 through MPI-IO, and the
# fallback when the data exceeds staging_mib. async_crash.sh: crashes, heads.
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

# -- L4 through MPI-IO (ckpt_io = 2): the thread writes, then joins the shared file --
rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
write_config "$T/m.fti" staging_mib=4 ckpt_io=2 verbosity=1
FTI_FAULT="delay:staged" run_nodes 4 1 "$P" "$T/m.fti" staged 45 4 $KIB 2 > "$T/outm" 2>&1 \
  || { cat "$T/outm"; fail "staged MPI-IO checkpoints"; }
grep -q "staged (" "$T/outm" || { cat "$T/outm"; fail "MPI-IO checkpoint was not staged"; }
rm -rf "$T"/nodes/*
run_nodes 4 1 "$P" "$T/m.fti" check 46 $KIB | grep -q PASS || fail "staged MPI-IO: restore"

# -- over staging_mib: written from the live buffers before FTI_Checkpoint returns,
#    post-processed in the background, one line per checkpoint, restored ----------
write_config "$T/f.fti" staging_mib=1
run_nodes 4 1 "$P" "$T/f.fti" staged 50 4 2048 2 > "$T/outf" 2>&1 || { cat "$T/outf"; fail "fallback"; }
[ "$(grep -c "4 rank(s) had more than staging_mib = 1 MiB to copy (largest 2.0 MiB) and wrote synchronously" "$T/outf")" = 2 ] \
  || { cat "$T/outf"; fail "no fallback line per checkpoint"; }
rm -rf "$T"/nodes/*
run_nodes 4 1 "$P" "$T/f.fti" check 51 2048 | grep -q PASS || fail "fallback checkpoint not restored"

pass "asynchronous checkpoints through staging_mib"
