#!/usr/bin/env bash
# L2 restarts that must not restore, or must not write. Plain mpiexec, nodes
# simulated with local_test = 1 and node_size = 1: node K keeps its files in
# its own folder (rank K's own files and the partner copies of rank K-1), and
# losing node K is deleting that folder. No privileges needed.
#  - nodes 1 and 2 lost: rank 2 could be rebuilt from its copy, rank 1 not;
#    the refused restart leaves every file as it was (no rebuilt file stays).
#  - node 1 lost and the partner copy of rank 1 replaced by rank 2's (a valid
#    file of the same checkpoint): refused by name; the restart falls back to
#    the older checkpoint, whose bytes are asserted; with both checkpoints
#    replaced, it refuses, and fti-ckpt verify names the same file.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
write_config "$T/c.fti" node_size=1 group_size=4 keep_last_ckpt=1 restart.exec_id=l2r
D() { echo "$LOCAL_DIR/node$1/l2r"; } # node K's local folder
run() { "$MPIEXEC" -n 4 -bind-to none "$P" "$T/c.fti" "$@"; }
lose() { rm -rf "$LOCAL_DIR/node$1"; }
snapshot() { (cd "$T" && find "$(basename "$LOCAL_DIR")" global meta -type f ! -name lock -exec sha1sum {} + | sort); }
checkpoints() {
  rm -rf "$LOCAL_DIR" "$T/global" "$T/meta"
  run write 1 2 64 > /dev/null 2> "$T/err" || { cat "$T/err"; fail "checkpoint 1"; }
  run write 2 2 64 > /dev/null 2> "$T/err" || { cat "$T/err"; fail "checkpoint 2"; }
}
expect_refused() {
  local before; before=$(snapshot)
  run expect-fail > "$T/out" 2> "$T/err" || { cat "$T/out" "$T/err"; fail "$1: the restart was not refused"; }
  [ "$(snapshot)" = "$before" ] || { diff <(echo "$before") <(snapshot); fail "$1: the refused restart changed files"; }
  ! ls "$LOCAL_DIR"/node*/l2r/*.rebuilt.fti 2> /dev/null || fail "$1: rebuilt files left behind"
}

checkpoints
lose 1; lose 2
expect_refused "nodes 1 and 2 lost"
grep -q "rank 1: L2: local file .*l2-s1-rank1.fti lost, and its partner copy on node 2 is lost too" "$T/err" \
  || { cat "$T/err"; fail "the refusal does not say what was lost"; }
pass "refused L2 restart writes nothing"

checkpoints
lose 1
cp "$(D 3)/l2-s1-partner-rank2.fti" "$(D 2)/l2-s1-partner-rank1.fti"
run check 1 64 > "$T/out" 2> "$T/err" || { cat "$T/out" "$T/err"; fail "fallback restart"; }
grep -q "refused: L2 partner copy $(D 2)/l2-s1-partner-rank1.fti: holds the data of rank 2, expected rank 1's" "$T/err" \
  || { cat "$T/err"; fail "the wrong-rank partner copy is not named"; }
grep -q "PASS: restored bytes identical" "$T/out" || { cat "$T/out"; fail "checkpoint 1 not restored"; }
pass "another rank's partner copy is refused; the older checkpoint is restored"

checkpoints
lose 1
cp "$(D 3)/l2-s0-partner-rank2.fti" "$(D 2)/l2-s0-partner-rank1.fti"
cp "$(D 3)/l2-s1-partner-rank2.fti" "$(D 2)/l2-s1-partner-rank1.fti"
expect_refused "both partner copies replaced"
# fti-ckpt applies the same rules (src/format/ckpt_expect.c) and names the same file.
set +e; "$FTI_BUILD_DIR/tools/fti-ckpt" verify "$T/c.fti" > "$T/verify" 2>&1; rc=$?; set -e
[ "$rc" = 1 ] || { cat "$T/verify"; fail "fti-ckpt verify: exit $rc, expected 1 (not recoverable)"; }
grep -q "L2 partner copy $(D 2)/l2-s1-partner-rank1.fti: holds the data of rank 2, expected rank 1's" "$T/verify" \
  || { cat "$T/verify"; fail "fti-ckpt verify does not name the wrong-rank copy"; }
grep -q "job: NOT recoverable" "$T/verify" || { cat "$T/verify"; fail "fti-ckpt verify: verdict"; }
pass "with every copy of rank 1 replaced by rank 2's, the restart is refused"
