#!/usr/bin/env bash
# L4 with more than 2 GiB per rank (64-bit sizes and offsets, MPI counts
# kept below 2^31 by chunked writes): 2 ranks x 2.1 GiB, MPI-IO uncompressed
# and POSIX with zstd, local storage lost, every byte restored. Needs about
# 15 GB of disk and minutes: skipped unless FTI_TEST_BIG=1.
source "$(dirname "$0")/lib.sh"
[ "${FTI_TEST_BIG:-0}" = 1 ] || { echo "skipped: set FTI_TEST_BIG=1"; exit 77; }
P="$PROGS/test_prog_ckpt_prog"
KIB=$((2100 * 1024))

for cfg in "ckpt_io=2 l4_compression=none" "ckpt_io=1 l4_compression=$(zstd_or_zlib 1)"; do
  rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
  # shellcheck disable=SC2086
  write_config "$T/c.fti" $cfg transfer_size=1073741824 group_size=2
  run_nodes 2 1 "$P" "$T/c.fti" write 3 4 $KIB > "$T/out" 2>&1 || { cat "$T/out"; fail "$cfg: checkpoint"; }
  rm -rf "$T"/nodes/*
  run_nodes 2 1 "$P" "$T/c.fti" check 3 $KIB | grep -q PASS || fail "$cfg: restore"
  echo "ok: $cfg"
done
rm -rf "$T"
pass "l4 over 2 GiB per rank"
