#!/usr/bin/env bash
# A slot of level 4 holds the files of one checkpoint: when a checkpoint of
# another store (the shared HDF5 file of level 9, the per-rank HDF5 files of
# ckpt_io = 5) is committed into a slot, the files the slot's previous
# checkpoint left there (no commit names it any more) are removed. Runs of
# vpr_prog at levels 9 9 4 4 9 9: after each, the global folder holds the
# files of the record's two checkpoints and nothing else, and the last one
# restores. Skipped (77) without HDF5.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_vpr_prog"
write_config "$T/c.fti" node_size=1 group_size=1 ckpt_io=5 h5_single_file_enable=1 keep_last_ckpt=1

# files SLOT LEVEL: the names checkpoint files of LEVEL (4 or 9) in SLOT have.
files() { if [ "$2" = 9 ]; then echo "l4-s$1-single.h5"; else echo l4-s"$1"-rank{0,1,2,3}.h5; fi; }
prev="" n=0
for lv in 9 9 4 4 9 9; do
  if ! "$MPIEXEC" -n 4 -bind-to none "$P" "$T/c.fti" write "$lv" > "$T/out" 2>&1; then
    grep -q "not supported by this build" "$T/out" && { echo "skipped: built without HDF5"; exit 77; }
    cat "$T/out"; fail "checkpoint #$((n + 1)) at level $lv"
  fi
  slot=$((n % 2)) n=$((n + 1))
  want=$( { files "$slot" "$lv"; if [ -n "$prev" ]; then files $prev; fi; } | tr ' ' '\n' | sort | tr '\n' ' ')
  have=$(cd "$T"/global/*/ && ls | sort | tr '\n' ' ')
  [ "$have" = "$want" ] || fail "after checkpoint #$n (level $lv, slot $slot): global holds '$have', the record's checkpoints '$want'"
  echo "ok: #$n level $lv: $have"
  prev="$slot $lv"
done
write_config "$T/c.fti" node_size=1 group_size=1 ckpt_io=5 h5_single_file_enable=1 keep_last_ckpt=1 restart=required
"$MPIEXEC" -n 4 -bind-to none "$P" "$T/c.fti" check > "$T/out" 2>&1 || { cat "$T/out"; fail "restart from #$n"; }
grep -q "PASS 4 ranks" "$T/out" || { cat "$T/out"; fail "restored values"; }
pass "each slot keeps only its own checkpoint's files; #$n restores"
