#!/usr/bin/env bash
# dCP with dirty page tracking when a variable's written pages are scattered
# (stores/dcp.c: their runs would cost more than hashing the clean rest):
# its tracking pauses for 4 layers at once, not 1, since each resumption
# pays again the kernel's merge of the mappings that the scattered faults
# split. 4 ranks, 4 KiB blocks, dirty_prog steps 110-116 in one run: 110 is
# the base, 111 writes every 8th page of var 1 (256 runs in 2048 pages; the
# pause is logged), 112-115 (1%) hash var 1 whole, 116 hashes only its
# written pages again. A restart restores step 116.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_dirty_prog"
run() { "$MPIEXEC" -n 4 -bind-to none "$P" "$T/c.fti" "$@"; }
BIG=$((8 * 1024 * 1024)) SMALL=3000 STEPVAR=4
ALL=$((BIG + SMALL + STEPVAR))
# rank 0's bytes hashed by the NTH layer in $1
hashed() {
  sed -n 's/^\[FTI r0\] debug: dCP layer #[0-9]*: [0-9]* of [0-9]* bytes written, \([0-9]*\) hashed (depth [0-9]*, dirty tracking [a-z]*)$/\1/p' "$1" |
    sed -n "${2}p"
}
write_config "$T/c.fti" node_size=4 group_size=1 enable_dcp=1 dcp_mode=1 dcp_block_size=4096 \
  dcp_stack_size=10 keep_last_ckpt=1 verbosity=1 advanced.dcp_dirty_tracking=1
run 110 116 > "$T/out1" 2>&1 || { cat "$T/out1"; fail "run 1 (steps 110-116)"; }
grep -q "^\[FTI r0\] debug: dCP: variable 1: [0-9]* of its 2048 pages written in [0-9]* runs since the last layer (too scattered to track for less): not tracked for the next 4 layer(s), each hashes it whole$" "$T/out1" ||
  { grep "not tracked for the next" "$T/out1"; fail "no line saying that variable 1's tracking pauses for 4 layers"; }
for n in 3 4 5 6; do
  h=$(hashed "$T/out1" $n)
  echo "layer $n (step $((109 + n))): hashed $h"
  [ "$h" = "$ALL" ] || fail "layer $n (step $((109 + n))) hashed $h bytes, expected all $ALL (paused)"
done
h=$(hashed "$T/out1" 7)
echo "layer 7 (step 116): hashed $h"
[ -n "$h" ] && [ "$h" -lt $((BIG / 2)) ] || fail "step 116 hashed $h bytes: tracking did not resume"
run 117 116 > "$T/out2" 2>&1 || { cat "$T/out2"; fail "run 2 (restart)"; }
grep -q "RESTORED step=116" "$T/out2" || { cat "$T/out2"; fail "restore of step 116"; }
pass "dcp dirty tracking: scattered writes pause a variable's tracking for 4 layers, then it is tracked again, restored"
