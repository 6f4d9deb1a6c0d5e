#!/usr/bin/env bash
# 100,000 four-byte variables per rank: FTI_Protect is not quadratic (each
# way, checkpoint and restart, far under the 5 s allowed here for a slow
# machine; about 60 s before the registry had an index), the checkpoint file
# packs them (8 bytes of data each, beside the table's 96-byte entry: about
# 10 MB; 400 MiB when each took a 4 KiB slot), and the restart restores
# every value.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_many_prog"
N=${MANY_VARS_N:-100000}  # smaller by hand, to time the old code
write_config "$T/c.fti" keep_last_ckpt=1 verbosity=3

secs() { sed -n 's/^protect: [0-9]* variables in \([0-9.]*\) s$/\1/p' "$T/out"; }
quick() { python3 -c "import sys; sys.exit(0 if 0 <= float(sys.argv[1]) < 5 else 1)" "$(secs)"; }

run_nodes 4 1 "$P" "$T/c.fti" write 7 $N > "$T/out" 2>&1 || { cat "$T/out"; fail "checkpoint"; }
echo "write: $(grep '^protect:' "$T/out")"
quick || { cat "$T/out"; fail "protecting $N variables took $(secs) s"; }
f="$(echo "$T"/nodes/node0/*/l1-s0-rank0.fti)"
size=$(stat -c %s "$f")
echo "checkpoint file of rank 0: $size bytes"
[ "$size" -le $((4096 + N * (96 + 8) + 8)) ] || fail "checkpoint file of $N ints is $size bytes"

run_nodes 4 1 "$P" "$T/c.fti" check 7 $N > "$T/out" 2>&1 || { cat "$T/out"; fail "restart"; }
echo "check: $(grep '^protect:' "$T/out")"
grep -q "PASS: restored bytes identical" "$T/out" || { cat "$T/out"; fail "values not restored"; }
quick || { cat "$T/out"; fail "protecting $N variables on restart took $(secs) s"; }
pass "many small variables"
