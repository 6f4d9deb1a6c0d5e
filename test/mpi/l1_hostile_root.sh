#!/usr/bin/env bash
# Hostile folders with a second user (needs root: the files and folders are
# planted as user nobody, the job runs as root; skipped otherwise). A
# regular file of another user, mode 0666, where the job writes (an L1 slot
# file, the lock file) is refused naming it, and keeps its bytes, owner and
# mode; an exec_id folder that another user made first is refused naming it
# and its owner; [advanced] group_shared_dirs = 1 accepts one of the user's
# groups' folders, but never one that every user can write.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to plant files as another user"; exit 77; }
command -v setpriv > /dev/null || { echo "SKIP: needs setpriv"; exit 77; }
id nobody > /dev/null 2>&1 || { echo "SKIP: no user nobody"; exit 77; }
P="$PROGS/test_prog_ckpt_prog"
E=hostile
MPI4=("$MPIEXEC" -n 4 -bind-to none) # timeout runs commands, not functions
write_config "$T/c.fti" restart.exec_id=$E
chmod 0755 "$T"
# as_nobody [GROUP] CMD...: CMD as user nobody (group nogroup, or GROUP).
as_nobody() { setpriv --reuid=nobody --regid="${GROUP:-$(id -g nobody)}" --clear-groups -- "$@"; }
fresh() {
  rm -rf "$T/nodes" "$T/global" "$T/meta"; mkdir -p -m 0755 "$T/nodes" "$T/global" "$T/meta"
  local k; for k in 0 1 2 3; do mkdir -p -m 0755 "$T/nodes/node$k"; done
}
job_dirs() {
  local k; for k in 0 1 2 3; do mkdir -p -m 0700 "$T/nodes/node$k/$E"; done
  mkdir -p -m 0700 "$T/global/$E" "$T/meta/$E"
}
# plant FILE: a regular file of nobody, mode 0666, in the job's (root's) folder.
plant() {
  local d; d="$(dirname "$1")"
  chmod 0777 "$d"; as_nobody sh -c "umask 0; echo planted > '$1'"; chmod 0700 "$d"
  [ "$(stat -c '%U %a' "$1")" = "nobody 666" ] || fail "could not plant $1 as nobody"
}
planted_intact() {
  [ "$(stat -c '%U %a' "$1")" = "nobody 666" ] || fail "$1 is now $(stat -c '%U %a' "$1")"
  [ "$(cat "$1")" = planted ] || fail "$1 was written"
}
fresh; job_dirs
for r in 0 1 2 3; do plant "$T/nodes/node$r/$E/l1-s0-rank$r.fti"; done
expect_refused "planted L1 slot" "$T/nodes/node[0-3]/$E/l1-s0-rank[0-3].fti.*owned by another user" \
  "${MPI4[@]}" "$P" "$T/c.fti" write 5 1
for r in 0 1 2 3; do planted_intact "$T/nodes/node$r/$E/l1-s0-rank$r.fti"; done
pass "another user's file at an L1 slot is refused, naming it, and keeps its bytes, owner and mode"

fresh; job_dirs
plant "$T/meta/$E/lock"; plant "$T/global/$E/lock"
expect_refused "planted lock" "$T/(meta|global)/$E/lock.*owned by another user" \
  "${MPI4[@]}" "$P" "$T/c.fti" write 5 1
planted_intact "$T/meta/$E/lock"; planted_intact "$T/global/$E/lock"
pass "another user's file at the lock file is refused, naming it"

# The exec_id folder made first by another user, mode 0777: refused naming
# its owner; with group_shared_dirs = 1, refused as writable by every user.
for want in "0:is owned by nobody \(uid [0-9]+\).*mode 0777\), not by this user" \
            "1:\(owner nobody \(uid [0-9]+\).*mode 0777\) can be written by every user"; do
  key="${want%%:*}"
  fresh; chmod 0777 "$T/global"
  as_nobody mkdir -m 0777 "$T/global/$E"
  write_config "$T/c.fti" restart.exec_id=$E advanced.group_shared_dirs=$key
  expect_refused "nobody's folder (group_shared_dirs = $key)" "folder $T/global/$E ${want#*:}" \
    "${MPI4[@]}" "$P" "$T/c.fti" write 5 4
  [ -z "$(ls -A "$T/global/$E")" ] || fail "files written into nobody's folder: $(ls "$T/global/$E")"
done
pass "an exec_id folder another user made (0777) is refused naming its owner, also with group_shared_dirs = 1"

# Made by nobody in group root, mode 0770: refused by default, shared with the key.
fresh; chmod 0777 "$T/global"
GROUP=0 as_nobody mkdir -m 0770 "$T/global/$E"
write_config "$T/c.fti" restart.exec_id=$E
expect_refused "nobody's group folder" "folder $T/global/$E is owned by nobody.*group_shared_dirs" \
  "${MPI4[@]}" "$P" "$T/c.fti" write 5 4
write_config "$T/c.fti" restart.exec_id=$E advanced.group_shared_dirs=1
run_nodes 4 1 "$P" "$T/c.fti" write 5 4 > "$T/out" 2>&1 || { cat "$T/out"; fail "the group's folder with group_shared_dirs = 1"; }
run_nodes 4 1 "$P" "$T/c.fti" check 5 > "$T/out" 2>&1 || { cat "$T/out"; fail "restart from the group's folder"; }
grep -q PASS "$T/out" || { cat "$T/out"; fail "restore from the group's folder"; }
pass "group_shared_dirs = 1 accepts a folder of one of the user's groups"
