#!/usr/bin/env bash
# keep_last_ckpt = 1 with HDF5 checkpoints (ckpt_io = 5): FTI_Finalize turns
# the last L1 checkpoint into an L4 one from its local files, which the HDF5
# store cannot take (it writes from the variables only): the flushed copy is
# a POSIX one, recorded as such (io=1), and a restart with every node lost
# restores every byte from it. Skipped (77) when the build has no HDF5.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
write_config "$T/c.fti" node_size=1 group_size=4 ckpt_io=5 keep_last_ckpt=1 keep_all_levels=0 \
  l4_local_copy=0
if ! run_nodes 4 1 "$P" "$T/c.fti" write 3 1 > "$T/out" 2>&1; then
  grep -q "ckpt_io = 5 (HDF5) is not supported by this build" "$T/out" &&
    { echo "skipped: built without HDF5"; exit 77; }
  cat "$T/out"; fail "L1 checkpoint and keep_last_ckpt flush"
fi
grep -q "keep_last_ckpt: checkpoint #1 (id 3) is now in" "$T/out" || { cat "$T/out"; fail "no flush"; }
grep -Eq "^cur level=4 .* io=1( |$)" "$T"/meta/*/commit* ||
  { cat "$T"/meta/*/commit*; fail "the flushed L4 checkpoint is not recorded as POSIX (io=1)"; }
rm -rf "$T"/nodes/*
run_nodes 4 1 "$P" "$T/c.fti" check 3 > "$T/out" 2>&1 || { cat "$T/out"; fail "restart from the flushed copy"; }
grep -q "Recovering successfully from level 4" "$T/out" || { cat "$T/out"; fail "not restored from level 4"; }
grep -q PASS "$T/out" || { cat "$T/out"; fail "restored bytes"; }
echo "PASS: keep_last_ckpt with ckpt_io = 5 restores from its POSIX copy"
