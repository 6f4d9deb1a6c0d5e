#!/usr/bin/env bash
# dCP with dirty page tracking ([advanced] dcp_dirty_tracking = 1): 4 ranks,
# 4 KiB blocks, several checkpoints in one run (dirty_prog). Between two
# layers 1% of var 1's 8 MiB is written (by the rank, by another thread and
# by MPI_Sendrecv); the library's own line for each layer must say that
# exactly the written pages were hashed (plus the two untracked small
# variables) and only the changed bytes written. A restart restores every
# byte, tracking starts again after it, and a third run restores that. Then
# the fallbacks: a variable with no whole page (logged, hashed every time)
# and tracking off (the default: every byte hashed, logged once).
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_dirty_prog"
run() { "$MPIEXEC" -n 4 -bind-to none "$P" "$T/c.fti" "$@"; }
BIG=$((8 * 1024 * 1024)) SMALL=3000 STEPVAR=4
# rank 0's layer line of step $2 in $1: "WRITTEN HASHED MODE"
layer_line() {
  sed -n 's/^\[FTI r0\] debug: dCP layer #[0-9]*: \([0-9]*\) of [0-9]* bytes written, \([0-9]*\) hashed (depth [0-9]*, dirty tracking \([a-z]*\))$/\1 \2 \3/p' "$1" |
    sed -n "${2}p"
}
pages() { sed -n "s/^CKPT step=$2 pages=\([0-9]*\)$/\1/p" "$1"; }
# check_used OUT NTH STEP: layer NTH of OUT (step STEP) hashed only its dirty pages
check_used() {
  local l n; l=$(layer_line "$1" "$2"); n=$(pages "$1" "$3")
  [ -n "$l" ] && [ -n "$n" ] || { cat "$1"; fail "step $3: no layer line or page count"; }
  set -- $l "$3" "$n"
  echo "step $4: $5 pages written, layer wrote $1 bytes, hashed $2 ($3)"
  [ "$3" = used ] || fail "step $4: dirty tracking $3, expected used"
  [ "$2" = $(($5 * 4096 + SMALL + STEPVAR)) ] || fail "step $4: hashed $2 bytes, expected $(($5 * 4096 + SMALL + STEPVAR))"
  [ "$1" = $(($5 * 4096 + STEPVAR)) ] || fail "step $4: wrote $1 bytes, expected $(($5 * 4096 + STEPVAR))"
}

write_config "$T/c.fti" node_size=4 group_size=1 enable_dcp=1 dcp_mode=1 dcp_block_size=4096 \
  dcp_stack_size=10 keep_last_ckpt=1 verbosity=1 advanced.dcp_dirty_tracking=1
run 1 4 > "$T/out1" 2>&1 || { cat "$T/out1"; fail "run 1 (steps 1-4)"; }
set -- $(layer_line "$T/out1" 1)
[ "$3" = starting ] && [ "$2" = $((BIG + SMALL + STEPVAR)) ] || { cat "$T/out1"; fail "base: '$*'"; }
# var 0 (an int) and var 2: no whole page. The first is logged at info level, once per rank.
grep -q "^\[FTI r0\] [a-z]*: dCP: variable 2: its pages are not tracked (it holds no whole page" "$T/out1" ||
  { cat "$T/out1"; fail "no fallback line for variable 2 (no whole page)"; }
[ "$(grep -c "^\[FTI r0\] info: dCP: variable [02]: its pages are not tracked" "$T/out1")" = 1 ] ||
  { cat "$T/out1"; fail "expected one info line of rank 0 for the untracked variables"; }
for s in 2 3 4; do check_used "$T/out1" "$s" "$s"; done

run 5 6 > "$T/out2" 2>&1 || { cat "$T/out2"; fail "run 2 (restart, steps 5-6)"; }
grep -q "RESTORED step=4" "$T/out2" || { cat "$T/out2"; fail "restore of step 4"; }
set -- $(layer_line "$T/out2" 1)
[ "$3" = starting ] && [ "$2" = $((BIG + SMALL + STEPVAR)) ] ||
  { cat "$T/out2"; fail "first layer after a restart must hash everything: '$*'"; }
check_used "$T/out2" 2 6
run 7 6 > "$T/out3" 2>&1 || { cat "$T/out3"; fail "run 3 (restart)"; }
grep -q "RESTORED step=6" "$T/out3" || { cat "$T/out3"; fail "restore of step 6"; }

# Tracking off (the default): everything hashed, one line says why.
rm -rf "$T"/global/* "$T"/meta/* "$T"/nodes/*
write_config "$T/c.fti" node_size=4 group_size=1 enable_dcp=1 dcp_mode=1 dcp_block_size=4096 \
  dcp_stack_size=10 keep_last_ckpt=1 verbosity=1
run 1 3 > "$T/out4" 2>&1 || { cat "$T/out4"; fail "run with tracking off"; }
[ "$(grep -c 'dCP: dirty tracking off (\[advanced\] dcp_dirty_tracking = 0)' "$T/out4")" = 1 ] ||
  { cat "$T/out4"; fail "tracking off: expected one line saying so"; }
for n in 2 3; do
  set -- $(layer_line "$T/out4" "$n")
  [ "$3" = off ] && [ "$2" = $((BIG + SMALL + STEPVAR)) ] || fail "tracking off, layer $n: '$*'"
done
run 4 3 > "$T/out5" 2>&1 || { cat "$T/out5"; fail "restart with tracking off"; }
grep -q "RESTORED step=3" "$T/out5" || { cat "$T/out5"; fail "restore of step 3 (tracking off)"; }
pass "dcp dirty tracking: only dirty pages hashed, restarts restore every byte, fallbacks logged"
