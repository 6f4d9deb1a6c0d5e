#!/usr/bin/env bash
# staging_mib (see async_staging.sh): a crash while the background write
# runs leaves the previous checkpoint the one restored; head ranks flush
# what the helper thread wrote; without MPI_THREAD_MULTIPLE, a warning and
# synchronous checkpoints.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
export FTI_TEST_THREAD_MULTIPLE=1
KIB=512

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
grep -q "staging_mib = 4 needs MPI initialised with MPI_Init_thread(MPI_THREAD_MULTIPLE) on every rank" "$T/errn" || { cat "$T/errn"; fail "no warning"; }
run_nodes 4 1 "$P" "$T/n.fti" check 80 $KIB | grep -q PASS || fail "synchronous fallback: restore"
pass "staging_mib: crashes, heads, no thread support"
