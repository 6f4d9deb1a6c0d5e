#!/usr/bin/env bash
# dCP (level 8, enable_dcp = 1): 4 ranks, 4 KiB blocks. Each step restarts
# from the previous one, checks every restored byte, and writes the next
# layer: 100% (base), 0%, 1%, 10%, 100% of the blocks changed, a variable
# that grows and shrinks. The layer sizes show that only changed blocks are
# written; dcp_stack_size = 5 (layers per chain, base included) forces a new base; obsolete layers go. Then a
# crash in the middle of a layer, a damaged newest layer (falls back to the
# previous checkpoint) and a damaged base (refused, not restored silently).
# No node simulation: every rank runs in one process tree on this machine.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_dcp_prog"
run() { "$MPIEXEC" -n 4 -bind-to none "$P" "$T/c.fti" "$@"; }
layer() { ls "$T"/global/*/l4-dcp-rank"$1"-"$2".fti 2>/dev/null; }
# data bytes of rank R's layer S: the file size minus its header region
data_bytes() {
  local f; f=$(layer "$1" "$2") || fail "no layer $2 of rank $1: $(ls "$T"/global/*/)"
  python3 - "$f" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read(128)
assert b[:8] == b'FTIDCP\0\0'
print(struct.unpack_from('<Q', b, 64)[0])
EOF
}

write_config "$T/c.fti" node_size=4 group_size=1 enable_dcp=1 dcp_mode=1 dcp_block_size=4096 dcp_stack_size=5 \
  keep_last_ckpt=1
# step: changed share of var 1's 512 blocks; expected data bytes of rank 0
#   1: base (all)  2: 0%  3: 1%  4: 10%  5: 100%  6: 0% but a new base (5 layers)
run 1 > "$T/out" 2>&1 || { cat "$T/out"; fail "step 1"; }
[ "$(data_bytes 0 1)" -ge $((2 * 1024 * 1024)) ] || fail "base layer holds less than var 1"
# FTI's statistics line (stdout, rank 0): the share of the data the layers stored
share() { sed -n 's/^\[ FTI  dCP Message \] : Total CP data: .* dCP share: \([0-9.]*\)%$/\1/p' "$T/out"; }
[ "$(share)" = 100.00 ] || { cat "$T/out"; fail "base: dCP share line '$(share)', expected 100.00"; }
for s in 2 3 4 5 6; do
  run "$s" > "$T/out" 2>&1 || { cat "$T/out"; fail "step $s"; }
  grep -q "RESTORED step=$((s - 1))" "$T/out" || { cat "$T/out"; fail "restore of step $((s - 1))"; }
  grep -q "CKPT step=$s" "$T/out" || { cat "$T/out"; fail "checkpoint of step $s"; }
  d=$(data_bytes 0 "$s")
  echo "step $s: rank 0 layer holds $d data bytes, dCP share $(share)%"
  case $s in
    2) awk -v x="$(share)" 'BEGIN { exit !(x != "" && x < 5) }' || fail "0% changed: share $(share)" ;;
    5) awk -v x="$(share)" 'BEGIN { exit !(x != "" && x > 99) }' || fail "100% changed: share $(share)" ;;
    6) [ "$(share)" = 100.00 ] || fail "new base: share $(share)" ;;
  esac
  case $s in
    2) [ "$d" -le 65536 ] || fail "0% changed wrote $d bytes" ;;      # var 0, var 2 only
    3) [ "$d" -le $((20 * 4096 + 65536)) ] || fail "1% changed wrote $d bytes" ;;
    4) [ "$d" -le $((80 * 4096 + 65536)) ] && [ "$d" -ge $((20 * 4096)) ] || fail "10% changed wrote $d bytes" ;;
    5) [ "$d" -ge $((2 * 1024 * 1024)) ] || fail "100% changed wrote $d bytes" ;;
    6) [ "$d" -ge $((2 * 1024 * 1024)) ] || fail "new base after 5 layers wrote only $d bytes" ;;
  esac
done
# Step 6 is a new base; step 5 (previous commit) still needs layers 1-5.
# Step 7 commits on base 6: layers 1-5 are no longer needed.
run 7 > "$T/out" 2>&1 || { cat "$T/out"; fail "step 7"; }
grep -q "RESTORED step=6" "$T/out" || { cat "$T/out"; fail "restore of step 6 (a new base)"; }
[ -z "$(layer 0 1)$(layer 0 5)" ] || fail "obsolete layers kept: $(ls "$T"/global/*/)"
[ -n "$(layer 0 6)" ] || fail "base 6 removed"
pass "dcp layers 0/1/10/100%, grow/shrink, compaction"

# fti-ckpt lists the dCP checkpoints as level 8 and extracts a variable from
# the chain, bytes as the program wrote them (rank 2, var 1, step 7).
CK="$FTI_BUILD_DIR/tools/fti-ckpt"
"$CK" list "$T/c.fti" > "$T/list" || { cat "$T/list"; fail "fti-ckpt list"; }
grep -Eq "^ +7 +7 +8 " "$T/list" || { cat "$T/list"; fail "list: step 7 not shown as level 8"; }
"$CK" verify "$T/c.fti" > "$T/verify" 2>&1 || { cat "$T/verify"; fail "fti-ckpt verify"; }
"$CK" extract "$T/c.fti" --rank 2 --var 1 -o "$T/var1" || fail "fti-ckpt extract"
python3 - "$T/var1" <<'EOF' || fail "extracted bytes differ"
import struct, sys
pct = lambda s: 100 if s <= 1 else [0, 1, 10, 100][(s - 2) % 4]
a = [2 * 1e6 + i for i in range(256 * 1024)]
for t in range(1, 8):
    for b in range(512):
        if (b * 7919 + t * 104729) % 100 < pct(t):
            a[b * 512] += t
sys.exit(open(sys.argv[1], 'rb').read() != struct.pack('<%dd' % len(a), *a))
EOF
pass "fti-ckpt list, verify and extract of dCP checkpoints"

# A crash in the middle of a layer (blocks written, map not): the previous
# checkpoint is restored.
FTI_FAULT=crash:dcp_layer run 8 > "$T/out" 2>&1 && fail "the crash did not happen"
run 9 > "$T/out" 2>&1 || { cat "$T/out"; fail "restart after a crash in a layer"; }
grep -q "RESTORED step=7" "$T/out" || { cat "$T/out"; fail "restore after a crash in a layer"; }
[ -z "$(ls "$T"/global/*/ | grep tmp)" ] || fail "temporary layer left: $(ls "$T"/global/*/)"
pass "dcp crash in a layer"

# The newest layer of rank 2 damaged (a byte of its data): step 9 must not
# be restored; the previous commit (step 7) does not need that layer. Layers
# are named by the library's sequence number (the crash used one up).
cur_seq() { sed -n 's/^cur level=4 seq=\([0-9]*\).*/\1/p' "$T"/meta/*/commit; }
f=$(layer 2 "$(cur_seq)")
off=$(( $(stat -c %s "$f") - 100 ))
printf '\xff' | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
run 10 > "$T/out" 2>&1 || { cat "$T/out"; fail "restart with a damaged newest layer"; }
grep -q "RESTORED step=7" "$T/out" || { cat "$T/out"; fail "fallback to step 7"; }
grep -q "does not match its hash\|checksum" "$T/out" || { cat "$T/out"; fail "damage not reported"; }
[ "$(data_bytes 0 "$(cur_seq)")" -ge $((2 * 1024 * 1024)) ] ||
  fail "the layer after the fallback builds on the damaged one"
pass "dcp damaged newest layer: previous checkpoint restored"

# The fallback wrote a new base; damaged too (rank 1), with the previous
# commit's layer already damaged, nothing is restorable.
f=$(layer 1 "$(cur_seq)")
printf '\xff' | dd of="$f" bs=1 seek=$(( $(stat -c %s "$f") - 5000 )) conv=notrunc status=none
write_config "$T/c.fti" node_size=4 group_size=1 enable_dcp=1 dcp_mode=1 dcp_block_size=4096 dcp_stack_size=5 \
  keep_last_ckpt=1 restart=required
run 11 > "$T/out" 2>&1 && { cat "$T/out"; fail "a damaged base was restored"; }
grep -q "RESTORED" "$T/out" && fail "restored from a damaged chain"
grep -q "no committed checkpoint" "$T/out" || { cat "$T/out"; fail "refusal not explained"; }
pass "dcp damaged base refused"
