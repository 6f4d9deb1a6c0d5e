#!/usr/bin/env bash
# fti-ckpt on L4 global copies, in each layout the library writes: one file
# per rank (ckpt_io 1) or one shared file (ckpt_io 2), plain or compressed.
# With every node's local storage lost, verify says each rank comes back from
# its global copy (and the library's restart agrees), show and extract read
# the copy; a corrupted copy is named and the job is not recoverable.
source "$(dirname "$0")/common.bash"
n1=$(( (KIB * 128 + 1) * 8 ))
# flip_in_copy IO RANK: invert one byte in the middle of RANK's stored bytes.
flip_in_copy() {
  python3 - "$1" "$2" "$T"/global/*/ <<'PY'
import glob, struct, sys
io, rank, d = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
if io == 1:
    path = glob.glob(d + "l4-s0-rank%d.fti" % rank)[0]
    import os
    at = os.path.getsize(path) // 2
else:
    path = glob.glob(d + "l4-s0-shared.fti")[0]
    e = open(path, "rb").read()[64 + 32 * rank: 64 + 32 * rank + 16]
    off, length = struct.unpack("<QQ", e)
    at = off + length // 2
with open(path, "r+b") as f:
    f.seek(at); b = f.read(1); f.seek(at); f.write(bytes([b[0] ^ 0xFF]))
PY
}

for case in 1:none 1:$(zstd_or_zlib 1) 2:none 2:zlib:1; do
  io=${case%%:*} codec=${case#*:}
  what="ckpt_io=$io l4_compression=$codec"
  rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
  write_config "$T/c.fti" keep_last_ckpt=1 ckpt_io=$io l4_compression=$codec
  run_nodes 4 1 "$P" "$T/c.fti" write 40 4 $KIB 2>/dev/null || fail "$what: L4 checkpoint"
  expect_rc 0 ck verify "$T/c.fti"
  has "^ +1 +1  ok +ok +yes \(own file\)$"

  rm -rf "$T"/nodes/*
  before=$(snapshot)
  expect_rc 0 ck verify "$T/c.fti"
  for r in 0 1 2 3; do has "^ +$r +$r  missing +ok +yes \(L4 global copy\)$"; done
  expect_rc 0 ck list "$T/c.fti"
  has "^ +1 +40 +4 +0  cur .* +5$"
  expect_rc 0 ck show "$T/c.fti" --rank 2
  has "rank 2: .*/global/.*\(L4 global copy\)"
  [ "$(grep -c ' ok$' "$T/out")" -eq 5 ] || { cat "$T/out"; fail "$what: show"; }
  expect_rc 0 ck extract "$T/c.fti" --rank 1 --var 1 -o "$T/v1.raw"
  pattern_file 40 1 1 $n1 "$T/want1"
  cmp "$T/v1.raw" "$T/want1" || fail "$what: extract from the global copy"
  [ "$(snapshot)" = "$before" ] || fail "$what: fti-ckpt changed checkpoint storage"
  run_nodes 4 1 "$P" "$T/c.fti" check 40 $KIB 2>/dev/null | grep -q PASS || fail "$what: library restore"

  rm -rf "$T"/nodes/*
  flip_in_copy $io 1
  expect_rc 1 ck verify "$T/c.fti"
  has "^ +1 +1  missing +BAD +NO$"
  has "rank 1, global: .*(checksum mismatch|corrupt|does not decompress)"
  has "^ +2 +2  missing +ok +yes \(L4 global copy\)$"
  expect_rc 1 ck extract "$T/c.fti" --rank 1 --var 1 -o "$T/bad.raw"
  [ ! -e "$T/bad.raw" ] || fail "$what: extract left corrupt output"
  run_nodes 4 1 "$P" "$T/c.fti" expect-fail > "$T/lib" 2>&1 || fail "$what: library restored a corrupt copy"
  has "FTI_Init returned -2" "$T/lib"
done
pass "fti-ckpt on L4 global copies"
