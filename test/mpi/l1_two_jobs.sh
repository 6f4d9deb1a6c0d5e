#!/usr/bin/env bash
# A checkpoint belongs to one job. Jobs A and B share exec_id, ckpt_dir and
# glbl_dir but not meta_dir (each has its own commit record); B's data
# differs (CKPT_PROG_SALT) under the same seeds and checkpoint ids, so its
# files carry the names, sequence numbers, levels, ids and sizes of A's.
# Sequential: B checkpoints after A, over A's files; A's restart must never
# restore B's bytes: it refuses each of B's files, naming it as another
# job's checkpoint, and falls back to a checkpoint of its own or is refused.
# Concurrent: while A runs, B is refused by the lock in the data folders.
# Four simulated nodes (local_test = 1), no privileges needed.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
write_config "$T/a.fti" meta_dir="$T/meta-a" restart.exec_id=shared
write_config "$T/b.fti" meta_dir="$T/meta-b" restart.exec_id=shared
A() { run_nodes 4 1 "$P" "$T/a.fti" "$@"; }
B() { CKPT_PROG_SALT=77 run_nodes 4 1 "$P" "$T/b.fti" "$@"; }
NONCE="nonce [0-9a-f]\{16\}, expected [0-9a-f]\{16\}"

reset() { rm -rf "$T/nodes" "$T/global" "$T/meta-a" "$T/meta-b"; mkdir -p "$T/nodes" "$T/global"; }
step() { local who="$1"; shift; "$who" "$@" > "$T/out" 2>&1 || { cat "$T/out"; fail "job $who: $*"; }; }

# restart_refused CASE PATTERN: A's restart restores nothing (ckpt_prog's
# "fresh": FTI_Init returns FTI_NREC and the run starts fresh; no rank aborts
# before rank 0 listed every rank's reason) and names a file matching PATTERN
# as another job's checkpoint.
restart_refused() {
  A fresh 5 0 > "$T/out" 2>&1 || { cat "$T/out"; fail "$1: job A's restart was not refused (FTI_NREC)"; }
  grep -q "$2: holds another job's checkpoint ($NONCE)" "$T/out" ||
    { cat "$T/out"; fail "$1: the refusal does not name job B's file $2"; }
}

reset
step A write 5 1
step B write 5 1
restart_refused L1 "refused: own file .*/l1-s0-rank[0-3].fti"
pass "L1: job A refuses job B's files written over its own, naming them"
"$FTI_BUILD_DIR/tools/fti-ckpt" verify "$T/a.fti" > "$T/verify" 2>&1 &&
  { cat "$T/verify"; fail "fti-ckpt verify accepted job B's files for job A's checkpoint"; }
grep -q "l1-s0-rank0.fti: holds another job's checkpoint ($NONCE)" "$T/verify" ||
  { cat "$T/verify"; fail "fti-ckpt verify does not name job B's file"; }
"$FTI_BUILD_DIR/tools/fti-ckpt" verify "$T/b.fti" > "$T/verify" 2>&1 ||
  { cat "$T/verify"; fail "fti-ckpt verify refused job B's own checkpoint"; }
pass "fti-ckpt verify: job A's record refuses job B's files, naming them; job B's accepts them"

reset
step A write 5 4
step B write 5 4
restart_refused L4 "refused: own file .*/l4-s0-rank[0-3].fti"
pass "L4: job A refuses job B's files written over its own, naming them"

# The other files of a checkpoint carry the nonce too: L3 data and parity,
# an HDF5 file per rank, a dCP layer. configs EXTRA...: both jobs' configs.
configs() {
  write_config "$T/a.fti" meta_dir="$T/meta-a" restart.exec_id=shared "$@"
  write_config "$T/b.fti" meta_dir="$T/meta-b" restart.exec_id=shared "$@"
}
reset
step A write 5 3
step B write 5 3
restart_refused L3 "refused: own file .*/l3-s0-rank[0-3].fti"
pass "L3: job A refuses job B's files written over its own, naming them"

# L4 through MPI-IO, compressed, with no local copy: only the shared file's
# pieces (each rank's data file, its header inside) are there to restore from.
reset
configs ckpt_io=2 l4_compression=$(zstd_or_zlib 1) l4_local_copy=0
step A write 5 4
step B write 5 4
restart_refused "L4 MPI-IO" "/l4-s0-rank[0-3].rebuilt.fti"
pass "L4 MPI-IO, compressed: job A refuses job B's shared file"

reset
configs enable_dcp=1 dcp_mode=1 dcp_block_size=4096
step A write 5 8
step B write 5 8
restart_refused dCP "dCP layer .*/l4-dcp-rank[0-3]-1.fti"
pass "dCP: job A refuses job B's layers written over its own, naming them"

reset
configs ckpt_io=5
if A write 5 4 > "$T/out" 2>&1; then
  step B write 5 4
  restart_refused HDF5 "HDF5 checkpoint .*/l4-s0-rank[0-3].h5"
  pass "HDF5: job A refuses job B's files written over its own, naming them"
else
  grep -q "ckpt_io = 5 (HDF5) is not supported by this build" "$T/out" || { cat "$T/out"; fail "HDF5: job A"; }
  echo "HDF5 not built: that case is not run"
fi
configs

# Mix: A commits L1 #1 (id 5) then L4 #2 (id 6); B commits L2 #1 (other
# files) then L4 #2 (id 6) over A's L4 files. A must refuse #2 and fall back
# to its own L1 #1, every byte of it.
reset
step A write 5 1
step A write 6 4
step B write 9 2
step B write 6 4
A check 5 > "$T/out" 2>&1 || { cat "$T/out"; fail "mix: job A's restart from its own L1 checkpoint"; }
grep -q "PASS: restored bytes identical" "$T/out" || { cat "$T/out"; fail "mix: job A's bytes not restored"; }
grep -q "refused: .*/l4-s0-rank[0-3].fti: holds another job's checkpoint ($NONCE)" "$T/out" ||
  { cat "$T/out"; fail "mix: job B's L4 files were not refused by name"; }
pass "L1+L4: job A refuses job B's L4 files and falls back to its own L1 checkpoint"

# Concurrent: A holds its lock (lock_prog); B, with another meta_dir, must be
# refused by the lock in the data folders, naming A and the lock file.
reset
L="$PROGS/test_prog_lock_prog"
write_config "$T/la.fti" node_size=2 group_size=1 meta_dir="$T/meta-a" restart.exec_id=shared
write_config "$T/lb.fti" node_size=2 group_size=1 meta_dir="$T/meta-b" restart.exec_id=shared
start_lock_holder "$T/a.out" "$T/la.fti"
A_PID=$HOLDER_PID A_RANK0=$HOLDER_RANK0
set +e; "$MPIEXEC" -n 2 -bind-to none "$L" "$T/lb.fti" init > "$T/b.out" 2>&1; rc=$?; set -e
# C shares only ckpt_dir with A: the node folder's lock refuses it.
write_config "$T/lc.fti" node_size=2 group_size=1 meta_dir="$T/meta-c" glbl_dir="$T/global-c" \
  restart.exec_id=shared
set +e; "$MPIEXEC" -n 2 -bind-to none "$L" "$T/lc.fti" init > "$T/c.out" 2>&1; rc_c=$?; set -e
touch "$T/stop"
wait "$A_PID" || { cat "$T/a.out"; fail "job A failed"; }
[ "$rc" = 3 ] || { cat "$T/b.out"; fail "job B: exit $rc, expected FTI_Init to return FTI_NSCS (3)"; }
grep -q "in use by another job (host $(hostname), pid $A_RANK0; lock file $T/global/shared/lock)" "$T/b.out" ||
  { cat "$T/b.out"; fail "job B: the error does not name job A and the lock in glbl_dir"; }
[ ! -e "$T/global/shared/lock" ] || fail "job A's end left its lock in glbl_dir"
[ ! -e "$T/nodes/node0/shared/lock" ] || fail "job A's end left its lock in the node folder"
[ "$rc_c" = 3 ] || { cat "$T/c.out"; fail "job C: exit $rc_c, expected FTI_Init to return FTI_NSCS (3)"; }
grep -q "in use by another job (host $(hostname), pid $A_RANK0; lock file $T/nodes/node0/shared/lock)" "$T/c.out" ||
  { cat "$T/c.out"; fail "job C: the error does not name job A and the lock in the node folder"; }
grep -q "in use by another job (lock file $T/nodes/node0/shared/lock, ckpt_dir; see the message of application rank 0)" "$T/c.out" ||
  { cat "$T/c.out"; fail "job C: rank 1 does not name the lock file and rank 0"; }
pass "a job with another meta_dir is refused by the lock where the data lives"
