#!/usr/bin/env bash
# L2 with local storage on a memory file system: there the sender maps each
# message's window of its file and sends from its pages (ring.c), and a
# synchronous post sends the messages that lie inside one variable straight
# from the application's buffers (file_image.h). Several chunks and a short
# last one (transfer_size 64 KiB, and 10001 bytes: windows that start inside
# a page; files of about 1 MiB with a header, packed small variables and
# padding): the partner copy is the sender's file byte for byte, some
# messages came from the buffers, and a lost node comes back from the copy.
# With dcp_dirty_tracking = 1 none may come from the buffers (read-only pages).
# Skipped where /dev/shm is not a writable tmpfs.
shm=/dev/shm
if [ "$(stat -f -c %T "$shm" 2>/dev/null)" != tmpfs ] || [ ! -w "$shm" ]; then
  echo "SKIP: no writable tmpfs at $shm"; exit 77
fi
export FTI_TEST_DIR="$shm/fti-test-l2-tmpfs-$$"
trap 'rm -rf "$FTI_TEST_DIR"' EXIT
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
for ts in 65536 10001; do
  rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
  write_config "$T/c.fti" keep_last_ckpt=1 transfer_size=$ts verbosity=1
  run_nodes 4 1 "$P" "$T/c.fti" write 31 2 1000 >"$T/w.out" 2>&1 ||
    { cat "$T/w.out"; fail "transfer_size=$ts: L2 checkpoint on tmpfs"; }
  grep -Eq "ring transfer: [1-9][0-9]* of [0-9]+ messages of .* sent from the application's buffers" "$T/w.out" ||
    { cat "$T/w.out"; fail "transfer_size=$ts: no message was sent from the application's buffers"; }
  for r in 0 1 2 3; do
    p=$(( (r + 1) % 4 ))
    cmp -s "$T"/nodes/node$r/*/l2-s0-rank$r.fti "$T"/nodes/node$p/*/l2-s0-partner-rank$r.fti ||
      fail "transfer_size=$ts: partner copy of rank $r on node $p differs from its file"
  done
  lose_node 1
  run_nodes 4 1 "$P" "$T/c.fti" check 31 1000 | grep -q PASS ||
    fail "transfer_size=$ts: recovery of node 1 from its partner on tmpfs"
done
# With dCP's dirty tracking the buffers may be write-protected: the post
# reads the file (no message from the buffers), and the copy is still exact.
rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
write_config "$T/c.fti" keep_last_ckpt=1 transfer_size=65536 verbosity=1 enable_dcp=1 \
  advanced.dcp_dirty_tracking=1
run_nodes 4 1 "$P" "$T/c.fti" write 31 2 1000 >"$T/w.out" 2>&1 ||
  { cat "$T/w.out"; fail "dirty tracking: L2 checkpoint on tmpfs"; }
grep -q "ring transfer: 0 of\|sent from the application's buffers" "$T/w.out" &&
  { cat "$T/w.out"; fail "dirty tracking: messages were sent from the (write-protected) buffers"; }
grep -q "Ckpt. ID 31 (L2)" "$T/w.out" || { cat "$T/w.out"; fail "dirty tracking: no L2 checkpoint line"; }
for r in 0 1 2 3; do
  p=$(( (r + 1) % 4 ))
  cmp -s "$T"/nodes/node$r/*/l2-s0-rank$r.fti "$T"/nodes/node$p/*/l2-s0-partner-rank$r.fti ||
    fail "dirty tracking: partner copy of rank $r on node $p differs from its file"
done
pass "l2 on tmpfs"
