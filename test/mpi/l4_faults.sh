#!/usr/bin/env bash
# A write failing (ENOSPC, injected) on one rank while L4 writes the global
# copy: every rank's FTI_Checkpoint fails, no file is left under a temporary
# or half-written real name, and the previous L4 checkpoint still restores
# with every node's local storage lost. POSIX and MPI-IO.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"

for io in 1 2; do
  rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
  # 4 KiB transfers: the 30th write of rank 1 falls in the L4 copy, not in L1.
  write_config "$T/c.fti" ckpt_io=$io transfer_size=4096
  run_nodes 4 1 "$P" "$T/c.fti" write 5 4 > /dev/null 2>&1 || fail "io=$io: first checkpoint"
  FTI_FAULT="write:30:ENOSPC@1" run_nodes 4 1 "$P" "$T/c.fti" write 6 4 > "$T/out" 2>&1 &&
    { cat "$T/out"; fail "io=$io: checkpoint should fail"; }
  [ "$(grep -c "FTI_Checkpoint returned -1" "$T/out")" = 4 ] || { cat "$T/out"; fail "io=$io: not every rank failed"; }
  grep -q "L4 rank 1: cannot write 4096 bytes of .*tmp.fti at offset .*: No space left on device" "$T/out" ||
    { cat "$T/out"; fail "io=$io: error does not say what failed"; }
  ls "$T"/global/*/ | grep -q tmp && fail "io=$io: temporary file left: $(ls "$T"/global/*/)"
  [ "$io" = 2 ] && [ -e "$(echo "$T"/global/*)/l4-s1-shared.fti" ] && fail "io=$io: a failed shared file was published"
  [ "$io" = 1 ] && [ -e "$(echo "$T"/global/*)/l4-s1-rank1.fti" ] && fail "io=$io: rank 1's failed copy was published"
  rm -rf "$T"/nodes/*
  run_nodes 4 1 "$P" "$T/c.fti" check 5 | grep -q PASS || fail "io=$io: previous checkpoint not restored"
  echo "ok: ckpt_io=$io"
done
pass "l4 write failures"
