#!/usr/bin/env bash
# keep_l4_ckpt = 1: every L4 checkpoint is also kept under
# <glbl_dir>/<exec_id>/archive/ckpt-<seq>/. Two successive L4 checkpoints
# both stay archived, byte for byte what was checkpointed, even after a third
# one reuses the first one's slot, and after FTI_Finalize with
# keep_last_ckpt = 0 removed the run's checkpoints.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"

for io in 1 2; do
  rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
  write_config "$T/c.fti" ckpt_io=$io keep_l4_ckpt=1
  run_nodes 4 1 "$P" "$T/c.fti" write 21 4 || fail "io=$io: first L4 checkpoint"
  rm -rf "$T/saved1" && mkdir -p "$T/saved1"  # the local files of checkpoint 1; IO 2: its shared file
  if [ "$io" = 1 ]; then cp "$T"/nodes/node*/*/l4-s0-rank*.fti "$T/saved1/"; else cp "$T"/global/*/l4-s0-shared.fti "$T/saved1/"; fi
  run_nodes 4 1 "$P" "$T/c.fti" write 22 4 || fail "io=$io: second L4 checkpoint"
  run_nodes 4 1 "$P" "$T/c.fti" write 23 4 || fail "io=$io: third L4 checkpoint (reuses slot 0)"
  A=$(echo "$T"/global/*/archive)
  [ -d "$A/ckpt-1" ] && [ -d "$A/ckpt-2" ] && [ -d "$A/ckpt-3" ] || fail "io=$io: archives: $(ls "$A")"
  if [ "$io" = 1 ]; then
    for r in 0 1 2 3; do  # uncompressed: the archived file is the rank's local file
      cmp -s "$A/ckpt-1/l4-s0-rank$r.fti" "$T/saved1/l4-s0-rank$r.fti" || fail "archive 1 of rank $r differs"
      cmp -s "$A/ckpt-2/l4-s1-rank$r.fti" "$T"/nodes/node$r/*/l4-s1-rank$r.fti || fail "archive 2 of rank $r differs"
    done
  else
    cmp -s "$A/ckpt-1/l4-s0-shared.fti" "$T/saved1/l4-s0-shared.fti" || fail "archive 1 (shared) differs"
    cmp -s "$A/ckpt-2/l4-s1-shared.fti" "$T"/global/*/l4-s1-shared.fti || fail "archive 2 (shared) differs"
  fi
  # The newest checkpoint restores, then finalize removes the run's files, not the archive.
  write_config "$T/c.fti" ckpt_io=$io keep_l4_ckpt=1 keep_last_ckpt=0
  rm -rf "$T"/nodes/*
  run_nodes 4 1 "$P" "$T/c.fti" check 23 | grep -q PASS || fail "io=$io: restore of the newest"
  [ -z "$(ls "$T"/global/*/ | grep -v archive)" ] || fail "io=$io: global files left: $(ls "$T"/global/*/)"
  [ "$(ls "$A" | wc -l)" = 3 ] && [ "$(ls "$A"/ckpt-1 | wc -l)" = "$([ "$io" = 1 ] && echo 4 || echo 1)" ] ||
    fail "io=$io: archive removed: $(ls -R "$A")"
  [ "$io" = 1 ] && cmp -s "$A/ckpt-1/l4-s0-rank2.fti" "$T/saved1/l4-s0-rank2.fti" || [ "$io" = 2 ] ||
    fail "io=$io: archive changed by finalize"
  echo "ok: ckpt_io=$io"
done
pass "l4 archives (keep_l4_ckpt)"
