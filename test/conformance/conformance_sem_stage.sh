#!/usr/bin/env bash
# FTI's staging suite: FTI_SendFile opens the remote path as given, so a
# relative one is relative to the working directory (massive.c stages to
# ./rdir), not to glbl_dir; a remote directory that does not exist fails the
# request (FTI does not create it).
source "$(dirname "$0")/lib_sem.sh"
mkdir -p "$T/work"
sem_config "$T/c.fti" enable_staging=1
(cd "$T/work" && expect_pass stage "$T/out" sem "$T/c.fti" stage)
for r in 0 1 2 3; do
  [ -s "$T/work/staged/out-$r.bin" ] || fail "rank $r: staged file not under the working directory"
done
[ -z "$(find "$T/global" -name 'out-*')" ] || fail "a staged file went under glbl_dir"
[ ! -e "$T/work/no-such-dir" ] || fail "the missing remote directory was created"
pass "staging: relative remote paths as FTI"
