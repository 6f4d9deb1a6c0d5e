#!/usr/bin/env bash
# Every L4 store through its ops table (stores/l4_store.h) on 2 ranks:
# written, verified, restored byte for byte and removed; a store this build
# lacks fails naming the config key or the file (test/mpi/store/test_l4_store.c).
source "$(dirname "$0")/lib.sh"
write_config "$T/c.fti" ckpt_io=1 node_size=1 group_size=2
run_nodes 2 1 "$PROGS/test_l4_store" "$T/c.fti" > "$T/out" 2>&1 || { cat "$T/out"; fail "test_l4_store"; }
cat "$T/out"
grep -q "^PASS: every L4 store through its ops table" "$T/out" || fail "no PASS line"
