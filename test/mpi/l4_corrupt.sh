#!/usr/bin/env bash
# L4 with every node's local storage lost and the global copy damaged (a
# byte flipped in the middle of a rank's data, or the file cut in half):
# FTI_Init fails with FTI_NREC, the message names the global file, and the
# damaged file is left as it was. With the intact copy put back, the same
# checkpoint restores every byte (nothing else was deleted either).
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"

# flip_byte FILE OFFSET: inverts one bit of the byte at OFFSET.
flip_byte() {
  local b
  b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  printf "$(printf '\\%03o' $((b ^ 0x20)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# u64_at FILE OFFSET: a little-endian 64-bit field.
u64_at() { od -An -tu8 -j "$2" -N8 "$1" | tr -d ' '; }

# middle_of_rank1 IO FILE: an offset inside rank 1's bytes.
middle_of_rank1() {
  if [ "$1" = 1 ]; then echo $(( $(stat -c %s "$2") / 2 ))
  else echo $(( $(u64_at "$2" 96) + $(u64_at "$2" 104) / 2 )); fi  # index entry of rank 1
}

for io in 1 2; do
  for codec in none $(zstd_or_zlib 1); do
    for damage in flip truncate; do
      what="ckpt_io=$io l4_compression=$codec $damage"
      rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
      write_config "$T/c.fti" ckpt_io=$io l4_compression=$codec
      run_nodes 4 1 "$P" "$T/c.fti" write 11 4 > "$T/out" 2>&1 || { cat "$T/out"; fail "$what: checkpoint"; }
      if [ "$io" = 1 ]; then g=$(ls "$T"/global/*/l4-s0-rank1.fti); else g=$(ls "$T"/global/*/l4-s0-shared.fti); fi
      cp "$g" "$T/pristine"
      case $damage in
        flip) flip_byte "$g" "$(middle_of_rank1 "$io" "$g")" ;;
        truncate) truncate -s $(( $(stat -c %s "$g") / 2 )) "$g" ;;
      esac
      sum=$(md5sum < "$g")
      rm -rf "$T"/nodes/*

      run_nodes 4 1 "$P" "$T/c.fti" expect-fail > "$T/out" 2>&1 || { cat "$T/out"; fail "$what: FTI_Init should fail"; }
      grep -q "FTI_Init returned -2" "$T/out" || { cat "$T/out"; fail "$what: expected FTI_NREC"; }
      grep -qF "$g" "$T/out" || { cat "$T/out"; fail "$what: the message does not name $g"; }
      [ -f "$g" ] && [ "$(md5sum < "$g")" = "$sum" ] || fail "$what: the damaged global file was changed or deleted"

      cp "$T/pristine" "$g"
      run_nodes 4 1 "$P" "$T/c.fti" check 11 | grep -q PASS || fail "$what: intact copy put back"
      echo "ok: $what"
    done
  done
done

# The global copy missing altogether.
rm -f "$g"; rm -rf "$T"/nodes/*
run_nodes 4 1 "$P" "$T/c.fti" expect-fail > "$T/out" 2>&1 || { cat "$T/out"; fail "missing: FTI_Init should fail"; }
grep -q "FTI_Init returned -2" "$T/out" || fail "missing: expected FTI_NREC"
grep -qF "$g" "$T/out" || { cat "$T/out"; fail "missing: the message does not name $g"; }
pass "l4 damaged global copies rejected"
