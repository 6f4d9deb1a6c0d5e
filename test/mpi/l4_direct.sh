#!/usr/bin/env bash
# L4 with no local copy (l4_local_copy = 0, inline): each rank's checkpoint
# goes straight from its variables to the global directory, written once.
# No local L4 file (nor compressed temporary) is left; the bytes come back
# on a restart with every node intact or lost, and from FTI_Recover in the
# same run. A write failure or a crash in the L4 write leaves the previous
# checkpoint restorable. POSIX and MPI-IO, plain and compressed.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"

local_l4() { find "$T/nodes" -name 'l4-*' 2>/dev/null; }
magic() { # the first 6 bytes of the global copy of rank 1 (IO 1) or of the shared file
  if [ "$1" = 1 ]; then head -c 6 "$T"/global/*/l4-s0-rank1.fti
  else head -c 6 "$T"/global/*/l4-s0-shared.fti; fi
}

for io in 1 2; do
  for codec in none zlib:1 $(zstd_or_zlib 1); do
    what="ckpt_io=$io l4_compression=$codec"
    rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
    write_config "$T/c.fti" ckpt_io=$io l4_compression=$codec l4_local_copy=0 transfer_size=65536
    run_nodes 4 1 "$P" "$T/c.fti" write 7 4 > "$T/out" 2>&1 || { cat "$T/out"; fail "$what: L4 checkpoint"; }
    [ -z "$(local_l4)" ] || fail "$what: a local L4 file was written: $(local_l4)"
    case "$io/$codec" in
      1/none) [ "$(magic 1)" = FTICKP ] || fail "$what: global copy is not a checkpoint file" ;;
      1/*) [ "$(magic 1)" = FTIL4Z ] || fail "$what: global copy not compressed" ;;
      2/*) [ "$(magic 2)" = FTIL4S ] || fail "$what: no shared file" ;;
    esac
    [ -z "$(ls "$T"/global/*/ | grep tmp)" ] || fail "$what: temporary files left: $(ls "$T"/global/*/)"
    run_nodes 4 1 "$P" "$T/c.fti" check 7 > "$T/out" 2>&1 || { cat "$T/out"; fail "$what: restart"; }
    grep -q PASS "$T/out" || { cat "$T/out"; fail "$what: restored bytes"; }
    rm -rf "$T"/nodes/*
    run_nodes 4 1 "$P" "$T/c.fti" check 7 > "$T/out" 2>&1 || { cat "$T/out"; fail "$what: restart, nodes lost"; }
    grep -q PASS "$T/out" || { cat "$T/out"; fail "$what: restored bytes, nodes lost"; }
    rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
    run_nodes 4 1 "$P" "$T/c.fti" roundtrip 8 4 > "$T/out" 2>&1 || { cat "$T/out"; fail "$what: same-run recover"; }
    grep -q PASS "$T/out" || { cat "$T/out"; fail "$what: same-run restored bytes"; }
    echo "ok: $what"
  done
done

# Failures in the single write: the previous checkpoint stays restorable.
for io in 1 2; do
  rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
  write_config "$T/c.fti" ckpt_io=$io l4_local_copy=0 transfer_size=1048576
  run_nodes 4 1 "$P" "$T/c.fti" write 5 4 > /dev/null 2>&1 || fail "io=$io: first checkpoint"
  # FTI_Init restores the local file from the global copy (one 1 MiB write):
  # the second write call of rank 1 falls in the L4 write itself.
  FTI_FAULT="write:2:ENOSPC@1" run_nodes 4 1 "$P" "$T/c.fti" write 6 4 > "$T/out" 2>&1 &&
    { cat "$T/out"; fail "io=$io: checkpoint should fail"; }
  [ "$(grep -c "FTI_Checkpoint returned -1" "$T/out")" = 4 ] || { cat "$T/out"; fail "io=$io: not every rank failed"; }
  grep -q "tmp.fti.*No space left on device" "$T/out" || { cat "$T/out"; fail "io=$io: error does not say what failed"; }
  ls "$T"/global/*/ | grep -q tmp && fail "io=$io: temporary file left: $(ls "$T"/global/*/)"
  rm -rf "$T"/nodes/*
  run_nodes 4 1 "$P" "$T/c.fti" check 5 | grep -q PASS || fail "io=$io: previous checkpoint not restored after a write error"
  # A crash of rank 1 in the L4 write of the next checkpoint.
  FTI_FAULT="crash:l4_flush@1" run_nodes 4 1 "$P" "$T/c.fti" write 6 4 > "$T/out" 2>&1 &&
    { cat "$T/out"; fail "io=$io: the crashed checkpoint succeeded"; }
  rm -rf "$T"/nodes/*
  run_nodes 4 1 "$P" "$T/c.fti" check 5 > "$T/out" 2>&1 || { cat "$T/out"; fail "io=$io: restart after the crash"; }
  grep -q PASS "$T/out" || { cat "$T/out"; fail "io=$io: previous checkpoint not restored after a crash"; }
  echo "ok: failures, ckpt_io=$io"
done
pass "l4 written once, straight to the global directory"
