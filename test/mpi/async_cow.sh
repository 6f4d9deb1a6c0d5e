#!/usr/bin/env bash
# cow_checkpoint: FTI_Checkpoint write-protects the protected data and
# returns; the helper thread writes the checkpoint straight from it, while a
# page the program writes first is copied into the pool. The program
# overwrites all (then 10% of) its data as soon as FTI_Checkpoint returns;
# the second checkpoint's writer is held back 1 s (delay:staged:2), so every
# overwritten page is written before the writer reads it. A restart must
# restore the bytes of the moment of FTI_Checkpoint. Also: a pool of 1 MiB for
# 4 MiB overwritten (the program's writes wait for the writer), and the
# fallback to the staging copy, with its line, where pages cannot be protected,
# and to a synchronous write for dCP. With heads, the head flushes L4.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
export FTI_TEST_THREAD_MULTIPLE=1
KIB=4096

# cow_run NAME CONFIG SEED LEVEL: two checkpoints, then a restart checks SEED+1
cow_run() {
  local name="$1" cfg="$2" seed="$3" level="$4"
  rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
  FTI_FAULT="delay:staged:2" run_nodes 4 1 "$P" "$cfg" staged "$seed" "$level" $KIB 2 \
    > "$T/out_$name" 2>&1 || { cat "$T/out_$name"; fail "$name: copy-on-write checkpoints"; }
  grep -q "1 s delay at phase 'staged'" "$T/out_$name" || { cat "$T/out_$name"; fail "$name: no delay"; }
  run_nodes 4 1 "$P" "$cfg" check $((seed + 1)) $KIB > "$T/chk_$name" 2>&1
  grep -q PASS "$T/chk_$name" || { cat "$T/chk_$name"; fail "$name: checkpoint-time bytes not restored"; }
}

# pages_copied NAME: the pages rank 0 copied in its last drain (log_staged's line)
pages_copied() {
  sed -n 's/.*written copy-on-write in the background (rank 0: \([0-9]*\) pages copied.*/\1/p' \
    "$T/out_$1" | tail -1
}

# -- all data overwritten during the drain, levels 1 and 2 -------------------------
write_config "$T/c.fti" advanced.cow_checkpoint=1 verbosity=1
cow_run all1 "$T/c.fti" 10 1
n=$(pages_copied all1)
[ -n "$n" ] && [ "$n" -ge 1000 ] || { cat "$T/out_all1"; fail "all overwritten: $n pages copied, expected >= 1000 of 1024"; }
cow_run all2 "$T/c.fti" 20 2
grep -q "written copy-on-write" "$T/out_all2" || { cat "$T/out_all2"; fail "level 2 was not copy-on-write"; }

# -- heads: the thread writes from the snapshot, the head flushes L4 ----------------
rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
write_config "$T/h.fti" head=1 node_size=2 inline_l4=0 advanced.cow_checkpoint=1 verbosity=1
FTI_FAULT="delay:staged:2" run_nodes 8 2 "$P" "$T/h.fti" staged 25 4 $KIB 2 > "$T/out_head" 2>&1 \
  || { cat "$T/out_head"; fail "copy-on-write with heads"; }
grep -q "written copy-on-write" "$T/out_head" || { cat "$T/out_head"; fail "not copy-on-write with heads"; }
rm -rf "$T"/nodes/*
run_nodes 8 2 "$P" "$T/h.fti" check 26 $KIB | grep -q PASS || fail "copy-on-write with heads: restore from L4"

# -- 10% overwritten: about a tenth of the pages copied ------------------------------
CKPT_PROG_SCRIBBLE_PCT=10 cow_run ten "$T/c.fti" 30 1
n=$(pages_copied ten)
[ -n "$n" ] && [ "$n" -ge 100 ] && [ "$n" -le 110 ] || { cat "$T/out_ten"; fail "10% overwritten: $n pages copied, expected 100-110"; }

# -- a pool of 1 MiB: the program's writes wait for the writer, no failure -----------
write_config "$T/p.fti" advanced.cow_checkpoint=1 advanced.cow_max_mib=1 verbosity=1
cow_run pool "$T/p.fti" 40 1
grep -Eq "at most 256 at once, [1-9][0-9]* writes waited" "$T/out_pool" \
  || { cat "$T/out_pool"; fail "pool of 1 MiB: no write waited for the writer"; }

# -- the write fails mid-drain on rank 1 while its program waits on a full pool:
#    nothing hangs, the pages are given back, the next checkpoint is restored --------
rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
set +e
FTI_FAULT="write:3:ENOSPC@1" timeout 120 "$MPIEXEC" -n 4 -bind-to none "$P" "$T/p.fti" staged 45 1 $KIB 2 -1 \
  > "$T/out_enospc" 2>&1
rc=$?
set -e
[ $rc -ne 124 ] || { cat "$T/out_enospc"; fail "failed drain: the job hung"; }
grep -q "l1-s0-rank1.fti.*No space left on device" "$T/out_enospc" || { cat "$T/out_enospc"; fail "failed drain: no message naming the file"; }
grep -q "previous asynchronous checkpoint was not committed" "$T/out_enospc" || { cat "$T/out_enospc"; fail "failed drain: committed"; }
run_nodes 4 1 "$P" "$T/p.fti" check 46 $KIB | grep -q PASS || fail "failed drain: the next checkpoint not restored"

# -- pages two variables share cannot be protected twice: the staging copy, one line --
write_config "$T/f.fti" advanced.cow_checkpoint=1 staging_mib=64 verbosity=2
CKPT_PROG_ALIAS=1 cow_run alias "$T/f.fti" 50 1
grep -q "not copy-on-write (cow_checkpoint = 1): variable 5 (.*) cannot be write-protected: its pages overlap another tracked variable's; the staging copy is used (staging_mib)" "$T/out_alias" \
  || { cat "$T/out_alias"; fail "no fallback line"; }
[ "$(grep -c "not copy-on-write" "$T/out_alias")" = 4 ] || { cat "$T/out_alias"; fail "not one line per rank at INFO"; }
CKPT_PROG_ALIAS=1 run_nodes 4 1 "$P" "$T/f.fti" check 51 $KIB | grep -q PASS || fail "fallback: restore"

# -- dCP (level 8) writes straight to the global file system: synchronous, one line --
rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
write_config "$T/d.fti" advanced.cow_checkpoint=1 enable_dcp=1 dcp_mode=1 verbosity=2
run_nodes 4 1 "$P" "$T/d.fti" staged 60 8 $KIB 2 -1 > "$T/out_dcp" 2>&1 || { cat "$T/out_dcp"; fail "dCP with cow_checkpoint"; }
grep -q "checkpoint #1: not copy-on-write (cow_checkpoint = 1): the dCP store writes straight to the global file system; written synchronously" "$T/out_dcp" \
  || { cat "$T/out_dcp"; fail "dCP: no line saying it is not copy-on-write"; }
run_nodes 4 1 "$P" "$T/d.fti" check 61 $KIB | grep -q PASS || fail "dCP: restore"

pass "copy-on-write checkpoints"
