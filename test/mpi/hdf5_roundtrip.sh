#!/usr/bin/env bash
# HDF5 checkpoints (ckpt_io = 5): 4 ranks write every predefined type, an
# opaque type and a nested composite type, placed with FTI's group API;
# h5dump reads the file back with the expected names, groups, types, shapes
# and values; a restart restores every byte; a damaged dataset is refused,
# not restored. Skipped (77) when the build has no HDF5 or h5dump is absent.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_h5_prog"
run() { "$MPIEXEC" -n 4 -bind-to none "$P" "$T/c.fti" "$@"; }
command -v h5dump > /dev/null || { echo "skipped: no h5dump (Debian: hdf5-tools)"; exit 77; }

write_config "$T/c.fti" node_size=4 group_size=1 ckpt_io=5 keep_last_ckpt=1
if ! run write > "$T/out" 2>&1; then
  grep -q "ckpt_io = 5 (HDF5) is not supported by this build" "$T/out" &&
    { echo "skipped: built without HDF5"; exit 77; }
  cat "$T/out"; fail "HDF5 checkpoint"
fi
F=$(ls "$T"/global/*/l4-s0-rank1.h5) || fail "no HDF5 file: $(ls -R "$T/global")"
[ "$(stat -c %a "$F")" = 600 ] || fail "HDF5 file is not private (0600)"

# Structure: groups, names, types, shapes.
h5dump -H "$F" > "$T/h" || fail "h5dump cannot read $F"
expect() { grep -Eq "$1" "$T/h" || { cat "$T/h"; fail "h5dump -H: no match for '$1'"; }; }
expect 'GROUP "ints"'
expect 'GROUP "deep"'
expect 'DATASET "counts"'
expect 'DATASPACE  SIMPLE \{ \( 2, 3 \) / \( 2, 3 \) \}'
expect 'DATASET "shorts"'
expect 'DATASET "particles"'
expect 'DATASET "opaque"'
expect 'H5T_OPAQUE'
expect 'DATASET "Dataset_9"'
expect 'H5T_COMPOUND'
expect 'H5T_ARRAY \{ \[3\] H5T_IEEE_F64LE \}'
expect 'H5T_ARRAY \{ \[2\]\[2\] H5T_IEEE_F32LE \}'
expect '"tag"'
for t in H5T_STD_I8LE H5T_STD_I16LE H5T_STD_I32LE H5T_STD_I64LE H5T_STD_U8LE H5T_STD_U16LE \
         H5T_STD_U32LE H5T_STD_U64LE H5T_IEEE_F32LE H5T_IEEE_F64LE; do
  expect "DATATYPE  $t"
done
# Values as a user reads them: rank 1's ints are 1000..1005 in a 2x3 array,
# its doubles 1/(k+1) + 1, the nested field in.b of particles[2].
h5dump -d /ints/counts "$F" | grep -q '(0,0): 1000, 1001, 1002,' || fail "h5dump values of /ints/counts"
h5dump -d /Dataset_9 "$F" | grep -q '(0): 2, 1.5, 1.33333' || fail "h5dump values of /Dataset_9"
h5dump -d /ints/deep/shorts "$F" | grep -q '(0): -1, -101, -201' || fail "h5dump values of /ints/deep/shorts"
h5dump -d /particles "$F" | tr -d ' \n' | grep -q '{12,\[3,3.25,3.5\]}' || fail "h5dump nested compound values"
pass "h5dump reads the HDF5 checkpoint"

rm -rf "$LOCAL_DIR"/*
run check > "$T/out" 2>&1 || { cat "$T/out"; fail "restart from the HDF5 checkpoint"; }
grep -q PASS "$T/out" || { cat "$T/out"; fail "restored bytes"; }
pass "HDF5 round trip of every type"

# fti-ckpt reads the HDF5 checkpoint through the library's conversion.
rm -rf "$LOCAL_DIR"/*
CK="$FTI_BUILD_DIR/tools/fti-ckpt"
"$CK" verify "$T/c.fti" > "$T/v" 2>&1 || { cat "$T/v"; fail "fti-ckpt verify"; }
"$CK" extract "$T/c.fti" --rank 1 --var 2 -o "$T/var2" || fail "fti-ckpt extract"
python3 -c "import struct,sys; sys.exit(open('$T/var2','rb').read() != struct.pack('<6i', *range(1000, 1006)))" ||
  fail "fti-ckpt extract: wrong bytes"
pass "fti-ckpt verify and extract of an HDF5 checkpoint"

# Damage rank 2's /ints/counts (2000..2005 as int32): refused, never restored.
rm -rf "$LOCAL_DIR"/*
python3 - "$T"/global/*/l4-s0-rank2.h5 <<'EOF' || fail "pattern not found"
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
i = b.find(struct.pack('<6i', *range(2000, 2006)))
assert i >= 0
b[i + 9] ^= 0x40
open(sys.argv[1], 'wb').write(b)
EOF
write_config "$T/c.fti" node_size=4 group_size=1 ckpt_io=5 keep_last_ckpt=1 restart=required
run check > "$T/out" 2>&1 && { cat "$T/out"; fail "a damaged HDF5 checkpoint was restored"; }
grep -q "does not match its checksum" "$T/out" || { cat "$T/out"; fail "damage not named"; }
pass "damaged HDF5 dataset refused"
