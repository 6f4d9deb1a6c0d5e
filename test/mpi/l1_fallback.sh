#!/usr/bin/env bash
# Restart with the newest L1 file of one rank corrupted in its data (its
# header intact): the restart reads and hashes the file, finds the damage,
# and falls back to the previous checkpoint, every byte of it; with the
# previous one corrupted too, the restart is refused and nothing is deleted.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"

write_config "$T/c.fti"
l1_newest_damaged "$P" "$T/c.fti"
run_nodes 4 1 "$P" "$T/c.fti" check 5 > "$T/out" 2>&1 || { cat "$T/out"; fail "restart after the corruption"; }
grep -q PASS "$T/out" || { cat "$T/out"; fail "not restored from the previous checkpoint"; }
grep -q "checksum mismatch" "$T/out" || { cat "$T/out"; fail "the corruption was not reported"; }

flip_middle "$(echo "$T"/nodes/node2/*/l1-s0-rank2.fti)"
ckpt_files() { find "$T/nodes" "$T/meta" -type f \( -name '*.fti' -o -name commit \) | sort | xargs md5sum; }
before="$(ckpt_files)"
run_nodes 4 1 "$P" "$T/c.fti" check 5 > "$T/out" 2>&1 && { cat "$T/out"; fail "restart from corrupted files succeeded"; }
[ "$(ckpt_files)" = "$before" ] || fail "a refused restart changed the checkpoint files"
pass "a corrupted L1 file makes the restart fall back to the previous checkpoint"
