#!/usr/bin/env bash
# A checkpoint file changed after FTI_Init verified it and before FTI_Recover
# reads it: FTI_Recover hashes the bytes as it restores them, so the rank
# whose file changed refuses the restore (naming the file and variable)
# instead of handing the application bytes that do not match their checksum;
# the other ranks restore theirs. Run on the test's disk, then, where
# /dev/shm is a writable tmpfs, there too: in memory FTI_Init keeps the
# mapping it verified through and FTI_Recover copies from it, so the
# unchanged ranks' bytes come from that mapping and the changed file must
# still be refused.
source "$(dirname "$0")/rerun.sh"
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"

write_config "$T/c.fti"
run_nodes 4 1 "$P" "$T/c.fti" write 5 1 > "$T/out" 2>&1 || { cat "$T/out"; fail "checkpoint"; }
victim="$(echo "$T"/nodes/node2/*/l1-s0-rank2.fti)"
[ -f "$victim" ] || fail "no L1 file of rank 2: $(ls "$T"/nodes/node2/*/)"
tampered_restore_refused "$P" "$T/c.fti" 5 2 "$victim"
pass "a file changed between FTI_Init and FTI_Recover is refused on restore"
