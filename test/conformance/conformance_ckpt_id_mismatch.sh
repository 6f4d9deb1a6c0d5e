#!/usr/bin/env bash
# FTI's programs rely on every rank passing the same id to FTI_Checkpoint.
# When one rank passes another id, the checkpoint fails on every rank
# (FTI_NSCS, -1) with one message naming the ranks and ids (printed once,
# by rank 0, "on ranks 0-3"), nothing is
# committed, and the last good checkpoint stays: the restart restores it.
# 4 application ranks; checkpoint 5 on all, then ranks 0, 1, 3 pass 6 and
# rank 2 passes 7. At level 1; at level 4 written straight to the MPI-IO
# shared file; at level 2 with heads that post-process it (inline_l2 = 0);
# at levels 1 and 2 staged (staging_mib: the helper thread writes a copy of
# the data after FTI_Checkpoint returned), where checkpoint 5 must have
# been staged.
source "$(dirname "$0")/lib_sem.sh"
PROG="$FTI_BUILD_DIR/test/conformance/conformance_prog_behave_prog"
# The cases come on fd 3: mpiexec reads stdin, and took the rest of a
# heredoc on it (only the first case ran).
while read -r level np keys <&3; do
  fresh
  # shellcheck disable=SC2086
  sem_config "$T/c.fti" $keys
  run() { timeout 240 "$MPIEXEC" -n "$np" -bind-to none "$PROG" "$T/c.fti" "$@"; }
  case "$keys" in *staging_mib*) export FTI_TEST_THREAD_MULTIPLE=1 ;; *) unset FTI_TEST_THREAD_MULTIPLE ;; esac
  expect_exit 0 "$T/w" run idmix 5 2 "$level"
  for r in 0 1 2 3; do
    grep -qx "idmix: rank $r rc -1" "$T/w" ||
      { cat "$T/w"; fail "level $level: rank $r: FTI_Checkpoint did not return FTI_NSCS"; }
  done
  msg="FTI_Checkpoint: ranks disagree on the checkpoint id: rank 0 id 6, rank 2 id 7"
  # Every rank fails with it; rank 0 prints it once, for all (issue 32).
  [ "$(grep -cF "$msg" "$T/w")" = 1 ] && grep -qE "^\[FTI r0\] error: $msg.* \(on ranks 0-3\)$" "$T/w" ||
    { cat "$T/w"; fail "level $level: '$msg' not printed once, by rank 0, on ranks 0-3"; }
  case "$keys" in *staging_mib*)
    grep -q "checkpoint #1 level $level staged" "$T/w" ||
      { cat "$T/w"; fail "level $level: checkpoint 5 was not staged"; } ;;
  esac
  expect_exit 0 "$T/r" run check 5
  grep -q "^PASS: check (0 bytes wrong)" "$T/r" ||
    { cat "$T/r"; fail "level $level: the restart did not restore checkpoint 5"; }
done 3<<'CASES'
1 4
4 4 ckpt_io=2
2 8 head=1 node_size=2 group_size=4 inline_l2=0
1 4 staging_mib=4 verbosity=1
2 4 staging_mib=4 verbosity=1 group_size=4
CASES
pass "ids that differ between ranks fail FTI_Checkpoint everywhere; the last good checkpoint stays"
