#!/usr/bin/env bash
# Hostile folders, as one user (no privilege): a symbolic link planted where
# the job writes (an L1 slot file, the lock file, the commit record's
# temporary file, an L4 temporary file) or as the exec_id folder itself is
# never followed: the job refuses with an error naming the path, or (the
# commit temporary, whose name cannot be guessed) never meets it; the link's
# target is unchanged and nothing outside the job's folders is written. A
# FIFO where the commit record or a checkpoint file belongs is refused at
# once, naming it ("not a regular file"), by FTI_Init and by fti-ckpt
# verify, instead of blocking forever. Planted files and folders of another
# user: l1_hostile_root.sh.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
CKPT="$FTI_BUILD_DIR/tools/fti-ckpt"
E=hostile
MPI4=("$MPIEXEC" -n 4 -bind-to none) # timeout runs commands, not functions
write_config "$T/c.fti" restart.exec_id=$E
mkdir -p "$T/outside"
VICTIM="$T/outside/victim"
echo "the victim's own bytes" > "$VICTIM"

# outside_sum: checksums and names of everything outside the job's folders.
outside_sum() { (cd "$T/outside" && find . -print0 | sort -z | xargs -0 -r md5sum 2> /dev/null; find . | sort); }
BEFORE=$(outside_sum)
outside_unchanged() { [ "$(outside_sum)" = "$BEFORE" ] || { ls -la "$T/outside"; fail "$1: something outside the job's folders changed"; }; }
fresh() { rm -rf "$T/nodes" "$T/global" "$T/meta"; mkdir -p "$T/nodes" "$T/global" "$T/meta"; }
job_dirs() {
  local k; for k in 0 1 2 3; do mkdir -p -m 0700 "$T/nodes/node$k/$E"; done
  mkdir -p -m 0700 "$T/global/$E" "$T/meta/$E"
}
# An L1 slot file: a fresh job writes slot 0 of each rank.
fresh; job_dirs
for r in 0 1 2 3; do ln -s "$VICTIM" "$T/nodes/node$r/$E/l1-s0-rank$r.fti"; done
expect_refused "L1 slot link" "$T/nodes/node[0-3]/$E/l1-s0-rank[0-3].fti.*symbolic link" \
  "${MPI4[@]}" "$P" "$T/c.fti" write 5 1
outside_unchanged "L1 slot link"
pass "a link at an L1 slot file is refused, naming it; its target is unchanged"

# The lock file (wherever the library keeps it: the meta or the global folder).
fresh; job_dirs
ln -s "$VICTIM" "$T/meta/$E/lock"; ln -s "$VICTIM" "$T/global/$E/lock"
expect_refused "lock link" "$T/(meta|global)/$E/lock.*symbolic link" \
  "${MPI4[@]}" "$P" "$T/c.fti" write 5 1
outside_unchanged "lock link"
pass "a link at the lock file is refused, naming it; its target is unchanged"

# The commit record's temporary file: links for the next 1500 process ids (pids
# are handed out in order here; before the fix one of them was the commit's).
fresh; job_dirs
python3 - "$VICTIM" "$T/meta/$E" $$ <<'PY'
import os, sys
victim, folder, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
pid_max = int(open("/proc/sys/kernel/pid_max").read())
for p in range(pid, pid + 1500):
    os.symlink(victim, "%s/commit.tmp.%d" % (folder, p % pid_max))
PY
run_nodes 4 1 "$P" "$T/c.fti" write 5 1 > "$T/out" 2>&1 || { cat "$T/out"; fail "commit with links planted"; }
outside_unchanged "commit temporary links"
[ -f "$T/meta/$E/commit" ] && [ ! -L "$T/meta/$E/commit" ] || fail "the commit record is not a regular file"
run_nodes 4 1 "$P" "$T/c.fti" check 5 > "$T/out" 2>&1 || { cat "$T/out"; fail "restart after the planted links"; }
grep -q "PASS" "$T/out" || { cat "$T/out"; fail "restore after the planted links"; }
pass "links at commit.tmp.<pid> are never followed (the temporary name is not guessable)"

# An L4 temporary file (a fresh job: no old global file is renamed over it).
fresh; job_dirs
for r in 0 1 2 3; do ln -s "$VICTIM" "$T/global/$E/l4-s0-rank$r.tmp.fti"; done
expect_refused "L4 temporary link" "$T/global/$E/l4-s0-rank[0-3].tmp.fti.*symbolic link" \
  "${MPI4[@]}" "$P" "$T/c.fti" write 5 4
outside_unchanged "L4 temporary link"
pass "a link at an L4 temporary file is refused, naming it; its target is unchanged"

# The exec_id folder itself, a link to a folder elsewhere.
for d in "nodes/node0" global meta; do
  fresh; mkdir -p "$T/$d"
  ln -s "$T/outside" "$T/$d/$E"
  BEFORE=$(outside_sum)
  expect_refused "exec_id folder link ($d)" "folder $T/$d/$E is a symbolic link" \
    "${MPI4[@]}" "$P" "$T/c.fti" write 5 4
  outside_unchanged "exec_id folder link ($d)"
done
pass "an exec_id folder that is a link is refused, naming it; nothing is written through it"

# A FIFO where the commit record belongs: FTI_Init refuses it at once.
fresh; job_dirs
mkfifo "$T/meta/$E/commit"
expect_refused "commit FIFO" "$T/meta/$E/commit.*not a regular file" \
  "${MPI4[@]}" "$P" "$T/c.fti" write 5 1
expect_refused "commit FIFO (fti-ckpt)" "$T/meta/$E/commit.*not a regular file" \
  "$CKPT" verify "$T/c.fti" --nodes "$T/nodes"
pass "a FIFO at the commit record is refused at once by FTI_Init and fti-ckpt verify"

# A FIFO where a checkpoint file belongs: the restart does not block, and
# names the file; fti-ckpt verify names it too.
fresh
run_nodes 4 1 "$P" "$T/c.fti" write 5 1 > "$T/out" 2>&1 || { cat "$T/out"; fail "checkpoint"; }
F="$T/nodes/node2/$E/l1-s0-rank2.fti"
[ -f "$F" ] || fail "no file $F to replace: $(ls "$T/nodes/node2/$E")"
rm "$F"; mkfifo "$F"
set +e; timeout 60 "$MPIEXEC" -n 4 -bind-to none "$P" "$T/c.fti" check 5 > "$T/out" 2>&1; rc=$?; set -e
[ "$rc" -ne 124 ] || { cat "$T/out"; fail "checkpoint FIFO: FTI_Init blocked (killed after 60 s)"; }
grep -q "$F.*not a regular file" "$T/out" || { cat "$T/out"; fail "checkpoint FIFO: FTI_Init does not name $F"; }
expect_refused "checkpoint FIFO (fti-ckpt)" "$F.*not a regular file" \
  "$CKPT" verify "$T/c.fti" --nodes "$T/nodes"
pass "a FIFO at a checkpoint file is refused at once by FTI_Init and fti-ckpt verify"
