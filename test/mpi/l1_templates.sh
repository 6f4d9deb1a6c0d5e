#!/usr/bin/env bash
# Every config template in config-templates/ is accepted: with its three
# directories rewritten into the test dir (sed), FTI_Init succeeds on every
# application rank of a 4-rank launch, without an "unknown key" warning,
# and a checkpoint works at L1 and at every level the template schedules.
# Templates must define all three directories.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_init_prog"
templates=("$FTI_SOURCE_DIR"/config-templates/*.fti)
[ -e "${templates[0]}" ] || fail "no templates in $FTI_SOURCE_DIR/config-templates"

# The value of key $2 in template $1 (first match, spaces trimmed).
key_of() { sed -n "s/^[[:space:]]*$2[[:space:]]*=[[:space:]]*\([^[:space:]]*\).*/\1/p" "$1" | head -1; }

# 1, and every level with a non-zero interval (minutes, seconds or iterations).
levels_of() {
  local l k v out=1
  for l in 2 3 4; do
    for k in ckpt_l$l ckpt_l${l}_sec ckpt_l${l}_iter; do
      v=$(key_of "$1" "$k")
      if [ "${v:-0}" != 0 ]; then out="$out $l"; break; fi
    done
  done
  echo "$out"
}

for tpl in "${templates[@]}"; do
  name=$(basename "$tpl")
  rm -rf "$T/nodes" "$T/global" "$T/meta"; mkdir -p "$T/nodes" "$T/global" "$T/meta"
  cfg="$T/$name"
  sed -e "s|^\([[:space:]]*ckpt_dir[[:space:]]*=\).*|\1 $LOCAL_DIR|" \
      -e "s|^\([[:space:]]*glbl_dir[[:space:]]*=\).*|\1 $T/global|" \
      -e "s|^\([[:space:]]*meta_dir[[:space:]]*=\).*|\1 $T/meta|" "$tpl" > "$cfg"
  [ "$(grep -c "^[[:space:]]*\(ckpt\|glbl\|meta\)_dir[[:space:]]*= $T/" "$cfg")" = 3 ] \
    || fail "$name: does not set ckpt_dir, glbl_dir and meta_dir"
  # a build without libzstd refuses zstd (as the template's comment says):
  # the template's other settings are still tested there, with zlib
  [ "${FTI_HAVE_ZSTD:-ON}" = ON ] || sed -i "s/^\([[:space:]]*l4_compression[[:space:]]*=[[:space:]]*\)zstd/\1zlib/" "$cfg"
  use_node_mode "$cfg"
  ns=$(key_of "$cfg" node_size); head=$(key_of "$cfg" head)
  [ "${ns:-0}" = 0 ] && ns=4   # detected: all 4 ranks share this machine
  apps=$(( head == 1 ? 4 - 4 / ns : 4 ))
  levels=$(levels_of "$cfg")
  # shellcheck disable=SC2086
  run_nodes 4 "$ns" "$P" "$cfg" $levels > "$T/out" 2> "$T/err" \
    || { cat "$T/out" "$T/err"; fail "$name: run failed"; }
  [ "$(grep -c ": FTI_Init returned 0$" "$T/out")" = "$apps" ] || { cat "$T/out" "$T/err"; fail "$name: FTI_Init"; }
  i=0
  for level in $levels; do
    i=$((i + 1))
    [ "$(grep -c ": FTI_Checkpoint($i, $level) returned 1$" "$T/out")" = "$apps" ] \
      || { cat "$T/out" "$T/err"; fail "$name: L$level checkpoint"; }
  done
  if grep -q "unknown key" "$T/err"; then cat "$T/err"; fail "$name: has a key the library does not know"; fi
  echo "ok: $name, levels $levels ($apps application ranks, node_size $ns)"
done
pass "config templates"
