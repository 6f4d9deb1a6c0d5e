#!/usr/bin/env bash
# Checkpoint files without their commit record: the restart starts fresh (the
# record is the only truth about what was committed) but warns, naming the
# files. Plain mpiexec, one simulated node: no privileges needed.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
write_config "$T/c.fti" node_size=4 group_size=1 keep_last_ckpt=1 restart.exec_id=orphans
run() { "$MPIEXEC" -n 4 -bind-to none "$P" "$T/c.fti" "$@"; }

run write 1 1 16 > "$T/out" 2> "$T/err" || { cat "$T/err"; fail "checkpoint"; }
rm "$T/meta/orphans/commit"
NODE0_DIR="$LOCAL_DIR/node0" # local_test = 1: node 0's folder (rank 0 names the files)
run write 2 1 16 > "$T/out" 2> "$T/err" || { cat "$T/err"; fail "run without the record"; }
grep -q "warning: no commit record $T/meta/orphans/commit, but 4 checkpoint files of exec id orphans exist ($NODE0_DIR/orphans/l1-s0-rank0.fti): without the record none of them can be restored; starting fresh" "$T/err" \
  || { cat "$T/err"; fail "no warning naming the files"; }
[ "$(grep -c "no commit record" "$T/err")" = 1 ] || { cat "$T/err"; fail "the warning should appear once"; }
grep -q "info: job summary: .*; fresh start$" "$T/err" || { cat "$T/err"; fail "not a fresh start"; }
pass "files without a commit record: fresh start with a warning naming them"

rm -rf "$NODE0_DIR/orphans" "$T/meta/orphans" "$T/global/orphans"
run write 3 1 16 > "$T/out" 2> "$T/err" || { cat "$T/err"; fail "clean run"; }
! grep -q "no commit record" "$T/err" || { cat "$T/err"; fail "warning without any file"; }
pass "no warning on a truly fresh start"
