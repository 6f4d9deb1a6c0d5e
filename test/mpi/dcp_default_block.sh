#!/usr/bin/env bash
# enable_dcp = 1 with dcp_block_size at its documented default 0 (and with
# the key absent): accepted, the layers use 64 KiB blocks (the layer header's
# block_size), and the next run restores every byte from them.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_dcp_prog"
run() { "$MPIEXEC" -n 4 -bind-to none "$P" "$T/c.fti" "$@"; }
block_size() {
  python3 - "$1" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read(128)
assert b[:8] == b'FTIDCP\0\0'
print(struct.unpack_from('<Q', b, 40)[0])
PY
}

for given in "dcp_block_size=0" ""; do
  rm -rf "$T"/global/* "$T"/meta/* "$T"/nodes/*
  write_config "$T/c.fti" node_size=4 group_size=1 enable_dcp=1 dcp_mode=1 $given keep_last_ckpt=1
  run 1 > "$T/out" 2>&1 || { cat "$T/out"; fail "${given:-no key}: dCP base refused"; }
  grep -q "CKPT step=1" "$T/out" || { cat "$T/out"; fail "${given:-no key}: no checkpoint"; }
  f=$(ls "$T"/global/*/l4-dcp-rank0-1.fti) || fail "${given:-no key}: no layer: $(ls -R "$T"/global)"
  [ "$(block_size "$f")" = 65536 ] || fail "${given:-no key}: block size $(block_size "$f"), expected 65536"
  run 2 > "$T/out" 2>&1 || { cat "$T/out"; fail "${given:-no key}: restart"; }
  grep -q "RESTORED step=1" "$T/out" || { cat "$T/out"; fail "${given:-no key}: step 1 not restored"; }
done
pass "dcp_block_size 0 is the 64 KiB default"
