# Shared by test/tools/*.sh: the MPI test helpers (test/mpi/lib.sh: $T,
# write_config, run_nodes, lose_node, fail, pass) plus fti-ckpt helpers.
source "$FTI_SOURCE_DIR/test/mpi/lib.sh"
CKPT="${FTI_CKPT:-$FTI_BUILD_DIR/tools/fti-ckpt}" # FTI_CKPT: test another build (sanitizers, installed)
P="$PROGS/test_prog_ckpt_prog"
[ -x "$CKPT" ] || fail "fti-ckpt is not built ($CKPT)"
[ -x "$P" ] || fail "ckpt_prog is not built ($P)"
KIB=64 # per-rank size of ckpt_prog's variable 1, small on purpose

# ck CMD CONFIG ARGS...: fti-ckpt seeing every simulated node's storage.
ck() { "$CKPT" "$@" --nodes "$T/nodes"; }

# expect_rc RC CMD...: run CMD (output in $T/out, stderr in $T/err), assert its exit status.
expect_rc() {
  local want="$1" rc=0; shift
  "$@" > "$T/out" 2> "$T/err" || rc=$?
  [ "$rc" -eq "$want" ] || { cat "$T/out" "$T/err"; fail "'$*' exited $rc, expected $want"; }
}

# has REGEX [FILE]: FILE ($T/out by default) has a line matching REGEX.
has() { grep -Eq -- "$1" "${2:-$T/out}" || { cat "${2:-$T/out}"; fail "no line matching '$1'"; }; }

# snapshot: checksums and names of every file in checkpoint storage (to prove
# that fti-ckpt changed nothing).
snapshot() { (cd "$T" && find nodes global meta -type f -print0 | sort -z | xargs -0 -r md5sum); }

# pattern_file SEED RANK VAR NBYTES OUT: ckpt_prog's bytes (its pattern()).
pattern_file() {
  python3 - "$@" <<'PY'
import sys
seed, rank, var, n = (int(a) for a in sys.argv[1:5])
M = (1 << 64) - 1
base = ((seed * 0x9E3779B97F4A7C15) & M) ^ (rank << 40) ^ (var << 56)
out = bytearray(n)
for i in range(n):
    x = base ^ i
    x ^= x >> 29
    x = (x * 0xBF58476D1CE4E5B9) & M
    x ^= x >> 32
    out[i] = x & 0xFF
open(sys.argv[5], "wb").write(out)
PY
}

# npy_check FILE DESCR SHAPE RAW: the .npy header says DESCR and (SHAPE,), its data equals RAW.
npy_check() {
  python3 - "$@" <<'PY' || fail "npy file $1 is not as expected"
import ast, struct, sys
path, descr, shape, raw = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
b = open(path, "rb").read()
assert b[:8] == b"\x93NUMPY\x01\x00", "magic"
hlen = struct.unpack("<H", b[8:10])[0]
assert (10 + hlen) % 64 == 0, "header not 64-aligned"
h = ast.literal_eval(b[10:10 + hlen].decode("latin1"))
assert h == {"descr": descr, "fortran_order": False, "shape": (shape,)}, h
assert b[10 + hlen:] == open(raw, "rb").read(), "data differs"
PY
}

# sum_sizes GLOB...: total size in bytes of the files.
sum_sizes() { stat -c %s "$@" | awk '{s += $1} END {print s}'; }
