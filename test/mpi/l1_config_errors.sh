#!/usr/bin/env bash
# FTI_Init fails cleanly, on every rank, with a message naming the key, for
# configurations that only FTI_Init can judge (they depend on the launch):
# group_size not dividing the nodes, a ckpt_dir that cannot be created,
# node_size not dividing the ranks. And a corrupt L1 file of one rank with
# only L1 available: FTI_Init returns FTI_NREC (-2), the message lists rank 1
# and its file, and nothing is deleted; the same for files whose header
# cannot even be read (truncated below the fixed header, bad magic).
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"

# expect_init_fail NAME CODE NODE_SIZE CONFIG PATTERN: all 4 ranks print
# "FTI_Init returned CODE" and stderr matches PATTERN.
expect_init_fail() {
  local name="$1" code="$2" ns="$3" cfg="$4" pattern="$5"
  run_nodes 4 "$ns" "$P" "$cfg" expect-fail > "$T/out" 2> "$T/err" \
    || { cat "$T/out" "$T/err"; fail "$name: FTI_Init did not fail"; }
  [ "$(grep -c "^FTI_Init returned $code\$" "$T/out")" = 4 ] \
    || { cat "$T/out" "$T/err"; fail "$name: not every rank returned $code"; }
  grep -q -- "$pattern" "$T/err" || { cat "$T/err"; fail "$name: stderr does not say '$pattern'"; }
}

# flip_byte FILE OFFSET: xor the byte at OFFSET with 1.
flip_byte() {
  local b
  b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  printf '%b' "\\0$(printf '%03o' $((b ^ 1)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

write_config "$T/g.fti" group_size=3
expect_init_fail "group_size" -1 1 "$T/g.fti" "\[basic\] group_size = 3 does not divide the 4 nodes"

touch "$T/afile"
write_config "$T/d.fti" ckpt_dir="$T/afile/sub"
expect_init_fail "ckpt_dir" -1 1 "$T/d.fti" "\[basic\] ckpt_dir: cannot create directory $T/afile/sub/.*Not a directory"

write_config "$T/n.fti" node_size=3
expect_init_fail "node_size" -1 3 "$T/n.fti" "\[basic\] node_size = 3 does not divide the 4 ranks"

# -- a corrupt L1 file, only L1 configured: FTI_NREC, nothing deleted ------------
write_config "$T/c.fti" keep_last_ckpt=1
run_nodes 4 1 "$P" "$T/c.fti" write 5 1 64 > /dev/null || fail "checkpoint"
f=$(ls "$T"/nodes/node1/*/l1-s*-rank1.fti)
flip_byte "$f" 4097   # inside variable 0
cp "$f" "$T/corrupt-copy"
expect_init_fail "corrupt L1 file" -2 1 "$T/c.fti" "rank 1: checkpoint file .*/l1-s0-rank1.fti: variable 0: data checksum mismatch"
grep -q "nothing was deleted" "$T/err" || { cat "$T/err"; fail "message does not say nothing was deleted"; }
[ "$(grep -c "  rank [0-9]*:" "$T/err")" = 1 ] || { cat "$T/err"; fail "ranks other than 1 listed"; }
cmp -s "$f" "$T/corrupt-copy" || fail "the corrupt file was deleted or changed"
for r in 0 1 2 3; do
  [ -e "$(ls "$T"/nodes/node$r/*/l1-s0-rank$r.fti)" ] || fail "rank $r's file is gone"
done
[ -e "$(ls "$T"/meta/*/commit)" ] || fail "the commit record is gone"

# Damage that stops the header from being read at all: rank 1's file cut to
# 64 bytes, rank 2's magic overwritten. Still FTI_NREC, both listed, no crash.
truncate -s 64 "$f"
f2=$(ls "$T"/nodes/node2/*/l1-s0-rank2.fti)
printf 'XXXX' | dd of="$f2" bs=1 seek=0 conv=notrunc status=none
expect_init_fail "unreadable headers" -2 1 "$T/c.fti" "rank 1: checkpoint file .*/l1-s0-rank1.fti: truncated (64 bytes)"
grep -q "rank 2: checkpoint file .*/l1-s0-rank2.fti: bad magic" "$T/err" || { cat "$T/err"; fail "rank 2 not listed"; }
[ "$(stat -c %s "$f")" = 64 ] || fail "rank 1's damaged file was deleted or changed"
[ "$(head -c 4 "$f2")" = XXXX ] || fail "rank 2's damaged file was deleted or changed"
pass "l1 config errors and an unrecoverable L1 file"
