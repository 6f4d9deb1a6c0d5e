#!/usr/bin/env bash
# FTI writes the job's state back into the user's config file (rank 0,
# [restart] failure and exec_id): failure = 0 after FTI_Init of a fresh job,
# 1 once a checkpoint is committed or after FTI_Init of a restart, 0 after
# FTI_Finalize, 2 after FTI_Finalize with keep_last_ckpt = 1 (FTI's
# multiLevelCkpt suite reads it). The rest of the file stays as written
# (comments, order, spacing); a read-only file gets one warning and the job
# runs; [restart] update_config = 0 (ours) leaves the file alone.
source "$(dirname "$0")/lib_sem.sh"

# key FILE NAME: the value of NAME (first match, comments stripped)
key() { sed -n "s/^[[:space:]]*$2[[:space:]]*=[[:space:]]*\([^;#[:space:]]*\).*/\1/Ip" "$1" | head -1; }
expect_key() { [ "$(key "$1" "$2")" = "$3" ] || { cat "$1"; fail "$4: $2 = '$(key "$1" "$2")', expected '$3'"; }; }
# without FILE: every line but [restart]'s two keys, for "the rest is unchanged"
rest() { grep -Eiv '^[[:space:]]*(failure|exec_id)[[:space:]]*=' "$1"; }

# A user's file: comments, a [restart] section with an inline comment, a
# section after it.
user_config() {
  sem_config "$1" "$@"
  sed -i -e '1i # my job, checkpointed every hour' \
         -e 's/^\[restart\]$/[Restart]\n; written by FTI\nfailure   = 0   ; FTI: 0 = fresh\nExec_ID = NULL/' "$1"
  cp "$1" "$1.orig"
}

fresh
user_config "$T/c.fti"
expect_exit 0 "$T/init" sem "$T/c.fti" crash 40       # no checkpoint: FTI_Init's value only
expect_key "$T/c.fti" failure 0 "fresh job, after FTI_Init"
id=$(key "$T/c.fti" exec_id)
[ -n "$id" ] && [ "$id" != NULL ] || { cat "$T/c.fti"; fail "no exec_id written"; }
[ -d "$T/meta/$id" ] || fail "exec_id '$id' is not the job's id (no $T/meta/$id)"
diff <(rest "$T/c.fti.orig") <(rest "$T/c.fti") || fail "lines other than failure/exec_id changed"
grep -q "^failure   = 0   ; FTI: 0 = fresh$" "$T/c.fti" || { cat "$T/c.fti"; fail "spacing or comment of the failure line lost"; }

fresh
cp "$T/c.fti.orig" "$T/c.fti"
expect_exit 0 "$T/w" sem "$T/c.fti" crash 40 1 2
expect_key "$T/c.fti" failure 1 "crash after checkpoints"
id=$(key "$T/c.fti" exec_id)
expect_pass check "$T/r1" sem "$T/c.fti" check 41 crash   # restart, crash again
expect_key "$T/c.fti" failure 1 "restart, after FTI_Init"
expect_key "$T/c.fti" exec_id "$id" "restart"
expect_pass check "$T/r2" sem "$T/c.fti" check 41
expect_key "$T/c.fti" failure 0 "after FTI_Finalize"
diff <(rest "$T/c.fti.orig") <(rest "$T/c.fti") || fail "lines other than failure/exec_id changed"
[ "$(grep -ci '^[[:space:]]*failure' "$T/c.fti")" -eq 1 ] || fail "failure written twice"

# keep_last_ckpt = 1: 2 after FTI_Finalize, and the next job (other nodes) restarts
fresh
sem_config "$T/k.fti" keep_last_ckpt=1
sed -i '/^\[restart\]$/d' "$T/k.fti"                        # no [restart] section at all
expect_exit 0 "$T/kw" sem "$T/k.fti" finish 40 1
expect_key "$T/k.fti" failure 2 "keep_last_ckpt, after FTI_Finalize"
[ "$(grep -ci '^\[restart\]' "$T/k.fti")" -eq 1 ] || { cat "$T/k.fti"; fail "[restart] not added once"; }
rm -rf "$LOCAL_DIR"; mkdir -p "$LOCAL_DIR"
expect_pass check "$T/kr" sem "$T/k.fti" check 40
expect_key "$T/k.fti" failure 2 "keep_last_ckpt restart, after FTI_Finalize"

# A link to the config: the target is updated, the link stays
fresh
sem_config "$T/target.fti"
ln -sf "$T/target.fti" "$T/link.fti"
expect_exit 0 "$T/lw" sem "$T/link.fti" crash 40 1
[ -L "$T/link.fti" ] || fail "the config's symbolic link was replaced"
expect_key "$T/target.fti" failure 1 "through a link"

# A read-only config: one warning, the job works, the file is unchanged
fresh
sem_config "$T/ro.fti"
cp "$T/ro.fti" "$T/ro.orig"
chmod 444 "$T/ro.fti"
if [ -w "$T/ro.fti" ]; then
  echo "read-only case skipped: files stay writable for this user (root?)"
else
  expect_exit 0 "$T/ro1" sem "$T/ro.fti" crash 40 1
  expect_pass check "$T/ro2" sem "$T/ro.fti" check 40
  cmp -s "$T/ro.fti" "$T/ro.orig" || fail "read-only config changed"
  n=$(grep -c "are not updated as FTI does" "$T/ro1")
  [ "$n" -eq 1 ] || { cat "$T/ro1"; fail "$n warnings for the read-only config, expected 1"; }
  grep -q "ro.fti" "$T/ro1" || fail "the warning does not name the file"
fi

# [restart] update_config = 0: the file is never written
fresh
sem_config "$T/off.fti" restart.update_config=0
cp "$T/off.fti" "$T/off.orig"
expect_exit 0 "$T/ow" sem "$T/off.fti" crash 40 1
expect_pass check "$T/or" sem "$T/off.fti" check 40
cmp -s "$T/off.fti" "$T/off.orig" || fail "update_config = 0 but the config changed"
pass "[restart] failure and exec_id written back as FTI does, the rest of the file kept"
