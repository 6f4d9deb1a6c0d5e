#!/usr/bin/env bash
# dCP with dirty page tracking when a variable is written whole: its tracking
# pauses (stores/dcp.c, more than half of its pages written since the last
# layer) and the next layer hashes it whole, then tracks it again. 4 ranks,
# 4 KiB blocks, dirty_prog steps 100-103 in one run: 100 is the base, 101
# writes every page of var 1 (8 MiB; tracking used, the pause is logged),
# 102 writes 1% (the paused var 1 is hashed whole, only the changed blocks
# written), 103 writes 1% (tracked again: only the written pages hashed).
# A restart restores step 103, whose chain holds the paused layer.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_dirty_prog"
run() { "$MPIEXEC" -n 4 -bind-to none "$P" "$T/c.fti" "$@"; }
BIG=$((8 * 1024 * 1024)) SMALL=3000 STEPVAR=4
# rank 0's layer line of the NTH layer in $1: "WRITTEN HASHED MODE"
layer_line() {
  sed -n 's/^\[FTI r0\] debug: dCP layer #[0-9]*: \([0-9]*\) of [0-9]* bytes written, \([0-9]*\) hashed (depth [0-9]*, dirty tracking \([a-z]*\))$/\1 \2 \3/p' "$1" |
    sed -n "${2}p"
}
pages() { sed -n "s/^CKPT step=$2 pages=\([0-9]*\)$/\1/p" "$1"; }
# expect OUT NTH STEP HASHED WRITTEN MODE
expect() {
  set -- "$1" "$2" "$3" "$4" "$5" "$6" $(layer_line "$1" "$2")
  echo "step $3: wrote ${7-}, hashed ${8-} (${9-})"
  [ "${7-} ${8-} ${9-}" = "$5 $4 $6" ] || { cat "$1"; fail "step $3: layer line '${7-} ${8-} ${9-}', expected wrote $5, hashed $4 ($6)"; }
}

write_config "$T/c.fti" node_size=4 group_size=1 enable_dcp=1 dcp_mode=1 dcp_block_size=4096 \
  dcp_stack_size=10 keep_last_ckpt=1 verbosity=1 advanced.dcp_dirty_tracking=1
run 100 103 > "$T/out1" 2>&1 || { cat "$T/out1"; fail "run 1 (steps 100-103)"; }
ALL=$((BIG + SMALL + STEPVAR))
expect "$T/out1" 1 100 "$ALL" "$ALL" starting
expect "$T/out1" 2 101 "$ALL" "$((BIG + STEPVAR))" used
grep -q "^\[FTI r0\] debug: dCP: variable 1: 2048 of its 2048 pages written in 1 runs since the last layer (more than half): not tracked for the next 1 layer(s), each hashes it whole$" "$T/out1" ||
  { cat "$T/out1"; fail "no line saying that variable 1's tracking pauses"; }
n=$(pages "$T/out1" 102)
expect "$T/out1" 3 102 "$ALL" "$((n * 4096 + STEPVAR))" used
n=$(pages "$T/out1" 103)
expect "$T/out1" 4 103 "$((n * 4096 + SMALL + STEPVAR))" "$((n * 4096 + STEPVAR))" used
[ "$(grep -c "^\[FTI r0\] debug: dCP: variable 1: .* not tracked for the next" "$T/out1")" = 1 ] ||
  { cat "$T/out1"; fail "the pause was logged more than once"; }

run 104 103 > "$T/out2" 2>&1 || { cat "$T/out2"; fail "run 2 (restart)"; }
grep -q "RESTORED step=103" "$T/out2" || { cat "$T/out2"; fail "restore of step 103"; }
pass "dcp dirty tracking: a variable written whole is hashed whole at the next layer, tracked again after it, restored"
