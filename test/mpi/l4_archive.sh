#!/usr/bin/env bash
# keep_l4_ckpt = 1: every L4 checkpoint is also kept where FTI keeps it,
# <glbl_dir>/<exec_id>/l4_archive/Ckpt<id>-Rank<r>.fti (ckpt_io = 2: the
# shared file, Ckpt<id>-mpiio.fti). Successive L4 checkpoints all stay
# archived, byte for byte what was checkpointed, even after a third one
# reuses the first one's slot, and after FTI_Finalize with keep_last_ckpt = 0
# removed the run's checkpoints.
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
  A=$(echo "$T"/global/*/l4_archive)
  [ -d "$A" ] || fail "io=$io: no l4_archive: $(ls -R "$T"/global)"
  if [ "$io" = 1 ]; then
    for r in 0 1 2 3; do  # uncompressed: the archived file is the rank's local file
      cmp -s "$A/Ckpt21-Rank$r.fti" "$T/saved1/l4-s0-rank$r.fti" || fail "archive 21 of rank $r differs"
      cmp -s "$A/Ckpt22-Rank$r.fti" "$T"/nodes/node$r/*/l4-s1-rank$r.fti || fail "archive 22 of rank $r differs"
    done
    n_per=4
  else
    cmp -s "$A/Ckpt21-mpiio.fti" "$T/saved1/l4-s0-shared.fti" || fail "archive 21 (shared) differs"
    cmp -s "$A/Ckpt22-mpiio.fti" "$T"/global/*/l4-s1-shared.fti || fail "archive 22 (shared) differs"
    n_per=1
  fi
  [ "$(ls "$A" | wc -l)" = $((3 * n_per)) ] || fail "io=$io: archive: $(ls "$A")"
  # The newest checkpoint restores, then finalize removes the run's files, not the archive.
  write_config "$T/c.fti" ckpt_io=$io keep_l4_ckpt=1 keep_last_ckpt=0
  rm -rf "$T"/nodes/*
  run_nodes 4 1 "$P" "$T/c.fti" check 23 | grep -q PASS || fail "io=$io: restore of the newest"
  [ -z "$(ls "$T"/global/*/ | grep -v l4_archive)" ] || fail "io=$io: global files left: $(ls "$T"/global/*/)"
  [ "$(ls "$A" | wc -l)" = $((3 * n_per)) ] || fail "io=$io: archive removed: $(ls "$A")"
  [ "$io" = 1 ] && cmp -s "$A/Ckpt21-Rank2.fti" "$T/saved1/l4-s0-rank2.fti" || [ "$io" = 2 ] ||
    fail "io=$io: archive changed by finalize"
  echo "ok: ckpt_io=$io"
done
pass "l4 archives (keep_l4_ckpt)"
