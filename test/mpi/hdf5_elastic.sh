#!/usr/bin/env bash
# Restart on a different number of ranks (FTI's variateProcessorRestart):
# 4 ranks write two global datasets (int and composite, grown once with
# FTI_UpdateGlobalDataset / FTI_UpdateSubset) into one shared HDF5 file with
# FTI_L4_H5_SINGLE; 2 ranks (FTI_Recover), 8 ranks (FTI_RecoverVar) and 4
# ranks restore their own rows, every value exact. h5dump reads the shared
# file; a damaged value is refused. Skipped (77) without HDF5 or h5dump.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_vpr_prog"
run() { local n="$1"; shift; "$MPIEXEC" -n "$n" -bind-to none "$P" "$T/c.fti" "$@"; }
command -v h5dump > /dev/null || { echo "skipped: no h5dump (Debian: hdf5-tools)"; exit 77; }

write_config "$T/c.fti" node_size=1 group_size=1 ckpt_io=5 h5_single_file_enable=1 keep_last_ckpt=1
if ! run 4 write > "$T/out" 2>&1; then
  grep -q "not supported by this build" "$T/out" && { echo "skipped: built without HDF5"; exit 77; }
  cat "$T/out"; fail "FTI_L4_H5_SINGLE checkpoint on 4 ranks"
fi
F=$(ls "$T"/global/*/l4-s0-single.h5) || fail "no shared file: $(ls -R "$T/global")"
[ "$(stat -c %a "$F")" = 600 ] || fail "shared file is not private (0600)"
h5dump -H "$F" > "$T/h" || fail "h5dump cannot read $F"
grep -q 'DATASET "grid"' "$T/h" && grep -q 'GROUP "pairs"' "$T/h" || { cat "$T/h"; fail "datasets"; }
grep -q 'DATASPACE  SIMPLE { ( 16, 1000 ) / ( 16, 1000 ) }' "$T/h" || { cat "$T/h"; fail "grown shape"; }
h5dump -d /grid -s "5,0" -c "1,3" "$F" | grep -q '(5,0): 5001, 5002, 5003' || fail "h5dump values of /grid"
h5dump -d /pairs/pair -s "15,999" -c "1,1" "$F" | tr -d ' \n' | grep -q '{16000,32000}' ||
  fail "h5dump values of /pairs/pair"

"$FTI_BUILD_DIR/tools/fti-ckpt" list "$T/c.fti" | grep -Eq "^ +1 +1 +9 " || fail "fti-ckpt list: level 9"
for np in 2 8 4; do
  mode=""; [ "$np" = 8 ] && mode=var
  run "$np" check $mode > "$T/out" 2>&1 || { cat "$T/out"; fail "restart on $np ranks"; }
  grep -q "PASS $np ranks" "$T/out" || { cat "$T/out"; fail "restored values on $np ranks"; }
  echo "ok: restart on $np ranks ${mode:+(FTI_RecoverVar)}"
done
pass "elastic restart 4 -> 2, 8, 4 ranks"

# One value of the grid damaged (row 9, col 10 = 9011 as int32): refused.
python3 - "$F" <<'EOF' || fail "pattern not found"
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
i = b.find(struct.pack('<3i', 9010, 9011, 9012))
assert i >= 0
b[i + 4] ^= 0x01
open(sys.argv[1], 'wb').write(b)
EOF
write_config "$T/c.fti" node_size=1 group_size=1 ckpt_io=5 h5_single_file_enable=1 keep_last_ckpt=1 \
  restart=required
run 2 check > "$T/out" 2>&1 && { cat "$T/out"; fail "a damaged shared file was restored"; }
grep -q "does not match its checksum" "$T/out" || { cat "$T/out"; fail "damage not named"; }
pass "damaged shared file refused"
