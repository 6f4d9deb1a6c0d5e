#!/usr/bin/env bash
# One job per checkpoint set. While job A runs, job B with the same config
# (same exec_id and directories) gets FTI_NSCS from FTI_Init, with an error
# naming A's host and pid, and writes nothing. A's normal end removes the
# lock. A job killed while holding the lock leaves the lock file behind; the
# next job (a restart) takes it over and recovers. Plain mpiexec: no node
# simulation needed (level 1, all ranks on one host).
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_lock_prog"
write_config "$T/c.fti" node_size=2 group_size=1 keep_last_ckpt=1 restart.exec_id=locked
LOCK="$T/meta/locked/lock"
run() { "$MPIEXEC" -n 2 -bind-to none "$P" "$T/c.fti" "$@"; }

# start_holder: job A in the background, until $T/stop exists; sets A_PID
# (mpiexec's) and A_RANK0 (the pid of its rank 0, the lock holder).
start_holder() {
  start_lock_holder "$T/a.out" "$T/c.fti"
  A_PID=$HOLDER_PID A_RANK0=$HOLDER_RANK0
}

snapshot() { (cd "$T" && find local global meta -type f ! -name lock -exec sha1sum {} + | sort); }

start_holder
before=$(snapshot)
set +e; run init > "$T/b.out" 2> "$T/b.err"; rc=$?; set -e
[ "$rc" = 3 ] || { cat "$T/b.out" "$T/b.err"; fail "job B: exit $rc, expected FTI_Init to return FTI_NSCS (3)"; }
[ "$(grep -c "FTI_Init returned -1" "$T/b.out")" = 2 ] || { cat "$T/b.out"; fail "job B: not every rank got FTI_NSCS"; }
grep -q "in use by another job (host $(hostname), pid $A_RANK0; lock file $LOCK)" "$T/b.err" \
  || { cat "$T/b.err"; fail "job B: the error does not name job A (host $(hostname), pid $A_RANK0)"; }
[ "$(snapshot)" = "$before" ] || fail "job B changed checkpoint files"
grep -q "pid=$A_RANK0" "$LOCK" || fail "job B changed the lock file"
pass "a second job on the same checkpoint set is refused, naming the first"

touch "$T/stop"
wait "$A_PID" || { cat "$T/a.out"; fail "job A failed"; }
[ ! -e "$LOCK" ] || fail "job A's end left the lock file"
run init > "$T/c.out" 2> "$T/c.err" || { cat "$T/c.out" "$T/c.err"; fail "job after A"; }
pass "the lock is gone with the job"

start_holder
kill -9 "$A_RANK0"
set +e; wait "$A_PID"; set -e
grep -q "pid=$A_RANK0" "$LOCK" || fail "the killed job's lock file is not there to test"
# What jobs killed while writing the commit record leave: its temporary files.
M="$T/meta/locked"
echo partial > "$M/commit.tmp.$A_RANK0"; echo partial > "$M/commit.tmp.1"
echo keep > "$M/commit.tmpx"; echo keep > "$T/outside"; ln -s "$T/outside" "$M/commit.tmp.2"
run init > "$T/d.out" 2> "$T/d.err" || { cat "$T/d.out" "$T/d.err"; fail "restart after a killed job was blocked"; }
grep -q "restart" "$T/d.err" || { cat "$T/d.err"; fail "the job after the killed one did not restart"; }
pass "a stale lock of a dead job does not block the restart"
[ ! -e "$M/commit.tmp.$A_RANK0" ] && [ ! -e "$M/commit.tmp.1" ] ||
  { ls -la "$M"; fail "stale temporary files of the commit record stay"; }
grep -q "removed 2 temporary files of the commit record $M/commit left by a job that was killed" "$T/d.err" ||
  { cat "$T/d.err"; fail "the removal of stale commit temporaries is not reported"; }
[ "$(cat "$M/commit.tmpx")" = keep ] && [ "$(cat "$T/outside")" = keep ] && [ -L "$M/commit.tmp.2" ] ||
  { ls -la "$M"; fail "a file that is no commit temporary was touched"; }
rm "$M/commit.tmpx" "$M/commit.tmp.2"
pass "temporary files of the commit record left by killed jobs are removed"

# An I/O error on the lock file (a folder in its place: EISDIR, as ENOSPC
# would be) is reported as that error on every rank, naming the file;
# no rank calls it "in use by another job".
touch "$T/stop"
rm -f "$LOCK"; mkdir "$LOCK"
set +e; run init > "$T/e.out" 2> "$T/e.err"; rc=$?; set -e
rmdir "$LOCK"
[ "$rc" = 3 ] || { cat "$T/e.out" "$T/e.err"; fail "a lock file that cannot be opened: exit $rc, expected FTI_NSCS (3)"; }
[ "$(grep -c "lock file $LOCK.*Is a directory" "$T/e.err")" = 2 ] ||
  { cat "$T/e.err"; fail "not every rank names the lock file and its error"; }
grep -q "in use by another job" "$T/e.err" && { cat "$T/e.err"; fail "an I/O error reported as another job"; }
pass "an I/O error on the lock file is named on every rank"
