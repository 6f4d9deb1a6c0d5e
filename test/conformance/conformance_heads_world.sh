#!/usr/bin/env bash
# FTI's heads kept alive (keep_heads_alive = 1) get FTI_HEAD from FTI_Init
# with FTI_COMM_WORLD = the communicator of all the head ranks (FTI 1.6
# builds it in FTI_CreateComms), which programs use right after
# (MPI_Comm_rank). 4 ranks, node_size 2: heads are global 0 and 2, ranks 0
# and 1 of a communicator of 2. The application ranks' checkpoint and
# restart still restore their bytes.
# After FTI_Finalize, the application ranks' FTI_COMM_WORLD is still their
# communicator, as FTI 1.6 leaves it (never freed): a copy the program kept
# during the run is the same communicator, a collective on it works, and
# the program may free it. With heads kept alive or not, and without heads
# (every rank an application rank).
source "$(dirname "$0")/lib_sem.sh"
PROG="$FTI_BUILD_DIR/test/conformance/conformance_prog_heads_prog"
run() { timeout 240 "$MPIEXEC" -n 4 -bind-to none "$PROG" "$T/c.fti" "$@" < /dev/null; }
# after_finalize LOG WANT: the application ranks' lines after FTI_Finalize.
after_finalize() {
  local got; got=$(grep '^app: ' "$1" | sort)
  [ "$got" = "$2" ] || { cat "$1"; fail "FTI_COMM_WORLD after FTI_Finalize: got '$got'"; }
}
apps=$'app: global 1 rank 0 of 2 sum 4 after FTI_Finalize\napp: global 3 rank 1 of 2 sum 4 after FTI_Finalize'
sem_config "$T/c.fti" head=1 node_size=2 group_size=2 keep_heads_alive=1 keep_last_ckpt=1
for mode in write check; do
  expect_exit 0 "$T/$mode" run $mode 7
  grep -q "^PASS: $mode (0 bytes wrong)" "$T/$mode" || { cat "$T/$mode"; fail "$mode: application ranks"; }
  heads=$(grep '^head: ' "$T/$mode" | sort)
  want=$'head: global 0 rank 0 of 2 sum 2\nhead: global 2 rank 1 of 2 sum 2'
  [ "$heads" = "$want" ] || { cat "$T/$mode"; fail "$mode: heads' FTI_COMM_WORLD: got '$heads'"; }
  after_finalize "$T/$mode" "$apps"
done
fresh
sem_config "$T/c.fti" head=1 node_size=2 group_size=2 keep_heads_alive=0
expect_exit 0 "$T/gone" run write 8
grep -q "^PASS: write (0 bytes wrong)" "$T/gone" || { cat "$T/gone"; fail "heads not kept: application ranks"; }
after_finalize "$T/gone" "$apps"
fresh
sem_config "$T/c.fti" head=0 node_size=1 group_size=4
expect_exit 0 "$T/none" run write 9
after_finalize "$T/none" "$(for g in 0 1 2 3; do echo "app: global $g rank $g of 4 sum 6 after FTI_Finalize"; done)"
pass "heads kept alive get the heads' communicator as FTI_COMM_WORLD; the application ranks keep theirs after FTI_Finalize; restart restores the bytes"
