#!/usr/bin/env bash
# FTI's heads kept alive (keep_heads_alive = 1) get FTI_HEAD from FTI_Init
# with FTI_COMM_WORLD = the communicator of all the head ranks (FTI 1.6
# builds it in FTI_CreateComms), which programs use right after
# (MPI_Comm_rank). 4 ranks, node_size 2: heads are global 0 and 2, ranks 0
# and 1 of a communicator of 2. The application ranks' checkpoint and
# restart still restore their bytes.
source "$(dirname "$0")/lib_sem.sh"
PROG="$FTI_BUILD_DIR/test/conformance/conformance_prog_heads_prog"
sem_config "$T/c.fti" head=1 node_size=2 group_size=2 keep_heads_alive=1 keep_last_ckpt=1
for mode in write check; do
  expect_exit 0 "$T/$mode" timeout 240 "$MPIEXEC" -n 4 -bind-to none "$PROG" "$T/c.fti" $mode 7
  grep -q "^PASS: $mode (0 bytes wrong)" "$T/$mode" || { cat "$T/$mode"; fail "$mode: application ranks"; }
  heads=$(grep '^head: ' "$T/$mode" | sort)
  want=$'head: global 0 rank 0 of 2 sum 2\nhead: global 2 rank 1 of 2 sum 2'
  [ "$heads" = "$want" ] || { cat "$T/$mode"; fail "$mode: heads' FTI_COMM_WORLD: got '$heads'"; }
done
pass "heads kept alive get the heads' communicator as FTI_COMM_WORLD; restart restores the bytes"
