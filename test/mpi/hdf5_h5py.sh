#!/usr/bin/env bash
# HDF5 checkpoints (ckpt_io = 5) read with h5py as a user would: one dataset
# per protected variable under its group path, numpy dtypes that match the C
# types (a nested composite type as a nested compound dtype with its field
# names, arrays as subarray fields, an opaque type as raw bytes), the
# dataset shapes of FTI_DefineDataset, and rank 2's values as written.
# Skipped (77) without HDF5 in the build or without h5py (Debian: python3-h5py).
source "$(dirname "$0")/lib.sh"
PY=""
for p in python3 /usr/bin/python3; do
  command -v "$p" > /dev/null && "$p" -c "import h5py, numpy" 2> /dev/null && { PY="$p"; break; }
done
[ -n "$PY" ] || { echo "skipped: no python3 with h5py (Debian: python3-h5py)"; exit 77; }

write_config "$T/c.fti" node_size=4 group_size=1 ckpt_io=5 keep_last_ckpt=1
if ! "$MPIEXEC" -n 4 -bind-to none "$PROGS/test_prog_h5_prog" "$T/c.fti" write > "$T/out" 2>&1; then
  grep -q "ckpt_io = 5 (HDF5) is not supported by this build" "$T/out" &&
    { echo "skipped: built without HDF5"; exit 77; }
  cat "$T/out"; fail "HDF5 checkpoint"
fi
F=$(ls "$T"/global/*/l4-s0-rank2.h5) || fail "no HDF5 file of rank 2: $(ls -R "$T/global")"

"$PY" - "$F" <<'EOF' || fail "h5py view of $F"
import sys
import h5py
import numpy as np

r = 2  # the values test/mpi/progs/h5_prog.c writes on rank r
k = np.arange(6)
want = {  # dataset path: (dtype, shape, values)
    "Dataset_0": (np.int8, (6,), np.array([ord("a") + i + r for i in k], np.int8)),
    "ints/deep/shorts": (np.int16, (6,), -100 * k - r),
    "ints/counts": (np.int32, (2, 3), (1000 * r + k).reshape(2, 3)),
    "Dataset_3": (np.int64, (6,), -r * 1000000000 - k),
    "Dataset_4": (np.uint8, (6,), 200 + k + r),
    "Dataset_5": (np.uint16, (6,), 60000 + k + r),
    "Dataset_6": (np.uint32, (6,), 4000000000 + k + r),
    "Dataset_7": (np.uint64, (6,), np.uint64(18000000000000000000) + (k + r).astype(np.uint64)),
    "Dataset_8": (np.float32, (6,), (0.5 * k + r).astype(np.float32)),
    "Dataset_9": (np.float64, (6,), 1.0 / (k + 1) + r),
    "Dataset_10": (np.longdouble, (6,), np.array([np.longdouble(i) / 3 + r for i in k])),
}
errors = []
with h5py.File(sys.argv[1], "r") as f:
    found = []
    f.visititems(lambda name, o: found.append(name) if isinstance(o, h5py.Dataset) else None)
    expected = sorted(list(want) + ["particles", "opaque"])
    if sorted(found) != expected:
        errors.append("datasets %s, expected %s" % (sorted(found), expected))
    for name, (dt, shape, values) in want.items():
        d = f[name]
        if d.dtype != np.dtype(dt) or d.shape != shape:
            errors.append("%s: %s %s, expected %s %s" % (name, d.dtype, d.shape, np.dtype(dt), shape))
        elif not np.array_equal(d[()], np.asarray(values, dtype=dt)):
            errors.append("%s: values %s, expected %s" % (name, d[()], values))
    p = f["particles"]
    t = p.dtype
    if p.shape != (4,) or t.names != ("tag", "in", "f") or t["in"].names != ("a", "b"):
        errors.append("particles: %s %s" % (t, p.shape))
    elif t["tag"] != np.int8 or t["in"]["a"] != np.int32 or t["in"]["b"].shape != (3,) or \
            t["in"]["b"].base != np.float64 or t["f"].shape != (2, 2) or t["f"].base != np.float32:
        errors.append("particles: field dtypes %s" % t)
    else:
        for i in range(4):
            e = p[i]
            if e["tag"] != ord("A") + i or e["in"]["a"] != 10 * r + i or \
                    list(e["in"]["b"]) != [r + i + 0.25 * j for j in range(3)] or \
                    e["f"].tolist() != [[r * 100 + i * 10 + j for j in (0, 1)],
                                        [r * 100 + i * 10 + j for j in (2, 3)]]:
                errors.append("particles[%d] = %s" % (i, e))
    o = f["opaque"]
    raw = bytes(np.asarray(o[()]).tobytes())
    if o.shape != (4,) or o.dtype.itemsize != 12 or \
            raw != bytes((r * 16 + i * 3 + j) & 0xFF for i in range(4) for j in range(12)):
        errors.append("opaque: %s %s %r" % (o.dtype, o.shape, raw))
for e in errors:
    print("h5py:", e)
sys.exit(1 if errors else 0)
EOF
pass "h5py reads the HDF5 checkpoint: names, dtypes (compound, opaque), shapes, values"
