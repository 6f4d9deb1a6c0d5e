#!/usr/bin/env bash
# No committed checkpoint can be restored on every rank (a node's L1 files
# lost): as FTI, FTI_Init returns FTI_NREC and the library runs on as a fresh
# start, so a program that goes on is protected from its next checkpoint.
# The checkpoints it could not restore stay byte for byte until it commits
# one of its own (FTI_Finalize with nothing committed leaves them); with
# [restart] restart = required, FTI_Init fails instead and touches nothing.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
snapshot() { (cd "$T" && find nodes meta -type f ! -name lock -print0 | sort -z | xargs -0 sha256sum); }

# keep_last_ckpt = 0: an FTI_Finalize that is let remove checkpoints does so.
write_config "$T/c.fti" keep_last_ckpt=0 keep_all_levels=0
CKPT_PROG_SKIP_FINALIZE=1 run_nodes 4 1 "$P" "$T/c.fti" write 3 1 > "$T/out" 2>&1 ||
  { cat "$T/out"; fail "L1 checkpoint"; }
lose_node 1
snapshot > "$T/before"

# FTI_NREC, nothing committed: the old files and the commit record stay.
run_nodes 4 1 "$P" "$T/c.fti" fresh 9 0 > "$T/out" 2>&1 || { cat "$T/out"; fail "FTI_NREC and a fresh start"; }
grep -q "FTI_Init returns FTI_NREC and the run starts fresh" "$T/out" || { cat "$T/out"; fail "no warning"; }
snapshot | diff "$T/before" - || fail "a run that committed nothing changed the checkpoints it could not restore"

# restart = required: FTI_Init fails, files untouched.
write_config "$T/req.fti" restart=required restart.exec_id="$(basename "$(echo "$T"/meta/*)")"
run_nodes 4 1 "$P" "$T/req.fti" expect-fail > "$T/out" 2>&1 || { cat "$T/out"; fail "restart = required"; }
grep -q "FTI_Init returned -2" "$T/out" || { cat "$T/out"; fail "restart = required: expected FTI_NREC"; }
grep -q "starts fresh" "$T/out" && { cat "$T/out"; fail "restart = required started fresh"; }
snapshot | diff "$T/before" - || fail "restart = required changed the checkpoint files"

# FTI_NREC, then the fresh run's own checkpoint: the next start restores it.
CKPT_PROG_SKIP_FINALIZE=1 run_nodes 4 1 "$P" "$T/c.fti" fresh 9 1 > "$T/out" 2>&1 ||
  { cat "$T/out"; fail "checkpoint after FTI_NREC"; }
run_nodes 4 1 "$P" "$T/c.fti" check 9 > "$T/out" 2>&1 || { cat "$T/out"; fail "restart from the fresh run's checkpoint"; }
grep -q "PASS: restored bytes identical" "$T/out" || { cat "$T/out"; fail "fresh run's checkpoint not restored"; }
pass "no restorable checkpoint: FTI_NREC and a fresh start, old files kept until the first commit"
