#!/usr/bin/env bash
# fti-ckpt verify on damaged checkpoint sets, checked against the library's
# own restart: a lost L1 file with its partner copy present is recoverable
# through L2 (exit 0); two adjacent nodes lost under L2 only are not (exit 1);
# L3 rebuilds 2 lost nodes of 4, not 3; a corrupt file is named; a newer
# broken checkpoint falls back to an older good one. extract reads the
# partner copy when the own file is gone, and refuses corrupt data.
source "$(dirname "$0")/common.bash"
flip_byte() { # FILE OFFSET: invert one byte in place (test damage)
  python3 -c "import sys; f=open(sys.argv[1],'r+b'); f.seek(int(sys.argv[2])); b=f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([b[0]^0xff]))" "$1" "$2"
}
fresh() { rm -rf "$T/nodes" "$T/meta" "$T/global"; mkdir -p "$T/nodes" "$T/meta" "$T/global"; }
n1=$(( (KIB * 128 + 1) * 8 ))

# -- L2: rank 1's own file lost, its partner copy (node 2) present ---------------
write_config "$T/a.fti" keep_last_ckpt=1
run_nodes 4 1 "$P" "$T/a.fti" write 21 2 $KIB 2>/dev/null || fail "L2 checkpoint"
expect_rc 0 ck extract "$T/a.fti" --rank 1 --var 1 -o "$T/ref1.raw"
rm "$T"/nodes/node1/*/l2-s0-rank1.fti
before=$(snapshot)
expect_rc 0 ck verify "$T/a.fti"
has "^ +1 +1  missing +ok +yes \(L2 partner copy\)$"
has "rank 1, own file: checkpoint file .*/node1/.*/l2-s0-rank1.fti: No such file or directory"
has "job: recoverable: a restart restores checkpoint #1 \(id 21, level 2\)"
expect_rc 0 ck show "$T/a.fti" --rank 1
has "rank 1: .*/nodes/node2/.*/l2-s0-partner-rank1.fti"
expect_rc 0 ck extract "$T/a.fti" --rank 1 --var 1 -o "$T/v1.raw"
cmp "$T/v1.raw" "$T/ref1.raw" || fail "extract from the partner copy differs"
pattern_file 21 1 1 $n1 "$T/want1"
cmp "$T/v1.raw" "$T/want1" || fail "extracted bytes differ from ckpt_prog's pattern"
[ "$(snapshot)" = "$before" ] || fail "fti-ckpt changed checkpoint storage"
run_nodes 4 1 "$P" "$T/a.fti" check 21 $KIB 2>/dev/null | grep -q PASS || fail "library disagrees: L2 restore failed"

# -- corrupt data: named by verify; show marks the variable; extract refuses --------
off=$(( 4096 + 4096 + 100 ))  # inside variable 1 (header 4 KiB, variable 0 packed there, 1 at the next page)
flip_byte "$(echo "$T"/nodes/node2/*/l2-s0-rank2.fti)" $off
expect_rc 0 ck verify "$T/a.fti"
has "^ +2 +2  BAD +ok +yes \(L2 partner copy\)$"
has "rank 2, own file: checkpoint file .*/l2-s0-rank2.fti: variable 1: data checksum mismatch"
flip_byte "$(echo "$T"/nodes/node3/*/l2-s0-partner-rank2.fti)" $off
expect_rc 1 ck verify "$T/a.fti"
has "^ +2 +2  BAD +BAD +NO$"
has "job: NOT recoverable"
expect_rc 1 ck show "$T/a.fti" --rank 2
has "^ +1 +[^ ]+ +double .* BAD \(checksum mismatch\)$"
has "^ +2 +[^ ]+ +char .* ok$"
expect_rc 1 ck extract "$T/a.fti" --rank 2 --var 1 -o "$T/bad.raw"
has "variable 1 in .*: data checksum mismatch \(corrupt data\); nothing extracted" "$T/err"
[ ! -e "$T/bad.raw" ] || fail "extract left corrupt output behind"
expect_rc 0 ck extract "$T/a.fti" --rank 2 --var 2 -o "$T/v2.raw"  # intact variable of a damaged file
pattern_file 21 2 2 4123 "$T/want2"
cmp "$T/v2.raw" "$T/want2" || fail "intact variable of a damaged file"

# -- L2: two adjacent nodes lost (node 3 and its partner node 0) -----------------------
fresh
write_config "$T/b.fti" keep_last_ckpt=1
run_nodes 4 1 "$P" "$T/b.fti" write 22 2 $KIB 2>/dev/null || fail "L2 checkpoint"
lose_node 3; lose_node 0
expect_rc 1 ck verify "$T/b.fti"
has "^ +3 +3  missing +missing +NO$"
has "^ +0 +0  missing +ok +yes \(L2 partner copy\)$"
has "=> NOT recoverable: 1 of 4 ranks cannot be restored"
has "job: NOT recoverable: no committed checkpoint can be restored on every rank"
run_nodes 4 1 "$P" "$T/b.fti" expect-fail > "$T/lib" 2>&1 || fail "library disagrees: L2 with adjacent nodes lost"
has "FTI_Init returned -2" "$T/lib"

# -- a newer L2 checkpoint broken, an older L1 one good: fallback --------------------
fresh
write_config "$T/c.fti" keep_last_ckpt=1
run_nodes 4 1 "$P" "$T/c.fti" write 31 1 $KIB 2>/dev/null || fail "L1 checkpoint"
run_nodes 4 1 "$P" "$T/c.fti" write 32 2 $KIB 2>/dev/null || fail "L2 checkpoint"
rm "$T"/nodes/node3/*/l2-s0-rank3.fti "$T"/nodes/node0/*/l2-s0-partner-rank3.fti
expect_rc 1 ck verify "$T/c.fti" --id 32
expect_rc 2 ck verify "$T/c.fti" --id 99
has "no committed checkpoint with id 99" "$T/err"
expect_rc 0 ck verify "$T/c.fti"
has "job: recoverable: a restart restores checkpoint #1 \(id 31, level 1\) \(the newer ones"
run_nodes 4 1 "$P" "$T/c.fti" check 31 $KIB 2>/dev/null | grep -q PASS || fail "library disagrees: fallback to L1"

# -- L3 (group of 4, tolerates 2 lost nodes) -----------------------------------------
fresh
write_config "$T/d.fti" keep_last_ckpt=1
run_nodes 4 1 "$P" "$T/d.fti" write 41 3 $KIB 2>/dev/null || fail "L3 checkpoint"
lose_node 0; lose_node 2
expect_rc 0 ck verify "$T/d.fti"
has "lost 2 data and 2 parity files on 2 nodes; 4 of 8 chunks left, 4 needed \(tolerates 2 lost nodes\): decodable"
has "^ +2 +2  missing +missing +yes \(L3 decoding\)$"
expect_rc 1 ck extract "$T/d.fti" --rank 2 --var 1 -o "$T/x"
has "rebuilt from its group's parity when the application restarts" "$T/err"
run_nodes 4 1 "$P" "$T/d.fti" check 41 $KIB 2>/dev/null | grep -q PASS || fail "library disagrees: L3 with 2 lost nodes"
lose_node 0; lose_node 1; lose_node 3
expect_rc 1 ck verify "$T/d.fti"
has "lost 3 data and 3 parity files on 3 nodes; 2 of 8 chunks left, 4 needed \(tolerates 2 lost nodes\): NOT decodable"
run_nodes 4 1 "$P" "$T/d.fti" expect-fail > "$T/lib" 2>&1 || fail "library disagrees: L3 with 3 lost nodes"
has "FTI_Init returned -2" "$T/lib"
# -- no group_size key: the default (4) shrinks to fit 2 nodes, as in the library ----------
fresh
write_config "$T/e.fti" keep_last_ckpt=1
sed -i '/^group_size = /d' "$T/e.fti"
run_nodes 2 1 "$P" "$T/e.fti" write 51 2 $KIB 2>/dev/null || fail "L2 checkpoint on 2 nodes"
lose_node 1
expect_rc 0 ck verify "$T/e.fti"
has "^ +1 +1  missing +ok +yes \(L2 partner copy\)$"
has "rank 1, own file: .*/node1/"
expect_rc 0 ck show "$T/e.fti" --rank 1
has "rank 1: .*/nodes/node0/.*/l2-s0-partner-rank1.fti"
pass "fti-ckpt verify on damaged checkpoints"
