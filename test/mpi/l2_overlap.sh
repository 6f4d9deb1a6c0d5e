#!/usr/bin/env bash
# L2 and L3 with their job thread (base/job_thread.c): the received
# messages of an L2 transfer are written, and L3's parity encoded and
# written, on a helper thread while the next message travels. The thread
# runs where the host's ranks have two CPUs each; here every rank is told
# it is alone on its host (the launcher's local-rank count unset, node_size
# 1), so it runs wherever this process may use two CPUs, and the debug log
# must say so. Several messages and a short last one: the partner copies
# are their senders' files byte for byte, and a lost node comes back from
# L2 and from L3. Skipped with fewer than two CPUs.
source "$(dirname "$0")/lib.sh"
[ "$(nproc)" -ge 2 ] || { echo "SKIP: one CPU: the job thread never runs"; exit 77; }
P="$PROGS/test_prog_ckpt_prog"
# each rank alone on its host: MPICH's and Open MPI's local-rank counts unset
ALONE=(env -u MPI_LOCALNRANKS -u OMPI_COMM_WORLD_LOCAL_SIZE)
for ts in 65536 10001; do
  rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
  write_config "$T/c.fti" keep_last_ckpt=1 transfer_size=$ts verbosity=1
  run_nodes 4 1 "${ALONE[@]}" "$P" "$T/c.fti" write 41 2 1000 > "$T/log2" 2>&1 ||
    { cat "$T/log2"; fail "transfer_size=$ts: L2 checkpoint"; }
  n=$(grep -c "ring transfer: .*l2-s0-partner-rank[0-3].fti is written by a job thread" "$T/log2" || true)
  [ "$n" -eq 4 ] || { cat "$T/log2"; fail "transfer_size=$ts: $n of 4 ranks wrote the partner copy on a job thread"; }
  for r in 0 1 2 3; do
    p=$(( (r + 1) % 4 ))
    cmp -s "$T"/nodes/node$r/*/l2-s0-rank$r.fti "$T"/nodes/node$p/*/l2-s0-partner-rank$r.fti ||
      fail "transfer_size=$ts: partner copy of rank $r on node $p differs from its file"
  done
  lose_node 1
  run_nodes 4 1 "${ALONE[@]}" "$P" "$T/c.fti" check 41 1000 | grep -q PASS ||
    fail "transfer_size=$ts: recovery of node 1 from its partner"
done
rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
write_config "$T/c.fti" keep_last_ckpt=1 verbosity=1
run_nodes 4 1 "${ALONE[@]}" "$P" "$T/c.fti" write 42 3 3000 > "$T/log3" 2>&1 ||
  { cat "$T/log3"; fail "L3 checkpoint"; }
n=$(grep -c "L3: .*l3-s0-parity-rank[0-3].fti is encoded by a job thread" "$T/log3" || true)
[ "$n" -eq 4 ] || { cat "$T/log3"; fail "$n of 4 ranks encoded L3 parity on a job thread"; }
lose_node 2
run_nodes 4 1 "${ALONE[@]}" "$P" "$T/c.fti" check 42 3000 | grep -q PASS ||
  fail "recovery of node 2 from L3 parity encoded on job threads"
pass "l2/l3 with the job thread"
