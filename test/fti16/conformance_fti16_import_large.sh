#!/usr/bin/env bash
# fti-ckpt import streams an FTI 1.6 rank in bounded chunks: a job whose
# rank 0 holds 48 MiB (two variables, sizes not multiples of the chunk) and
# rank 1 a few bytes is imported, every byte of every variable comes back
# from the imported checkpoint (fti-ckpt extract, compared with cmp), and
# the import's peak memory (max RSS, /usr/bin/time -v) stays within 16 MiB
# of fti-ckpt's own (it held the whole rank, twice read, before). A byte
# flipped in the middle of rank 0 (past the first chunks) is refused by
# FTI's md5, naming the file, and nothing is written. The job is made here
# in FTI 1.6's layout (data files and sector0-group0.fti, md5 by md5sum).
source "$FTI_SOURCE_DIR/test/mpi/lib.sh"
CKPT="$FTI_BUILD_DIR/tools/fti-ckpt"
[ -x "$CKPT" ] || fail "fti-ckpt is not built"
rm -rf "$T" && mkdir -p "$T"
F="$T/fti16" EX=big1
mkdir -p "$F/global/$EX/l4" "$F/meta/$EX/l4" "$T/data"
cat > "$F/config.fti" <<EOC
[basic]
head = 0
node_size = 2
ckpt_dir = ./local
glbl_dir = ./global
meta_dir = ./meta
ckpt_io = 1
[restart]
exec_id = $EX
EOC

# Rank r's variables: id 1, FTI_CHAR (type 0), $2 bytes; id 2, FTI_DBLE
# (type 9), $3 bytes; its file is their bytes one after the other.
rank_data() {
  head -c "$2" /dev/urandom > "$T/data/r$1-v1"
  head -c "$3" /dev/urandom > "$T/data/r$1-v2"
  cat "$T/data/r$1-v1" "$T/data/r$1-v2" > "$F/global/$EX/l4/Ckpt7-Rank$1.fti"
}
meta_section() {
  local size=$(($2 + $3))
  cat <<EOM
[$1]
ckpt_file_name = Ckpt7-Rank$1.fti
ckpt_file_size = $size
ckpt_checksum = $(md5sum < "$F/global/$EX/l4/Ckpt7-Rank$1.fti" | cut -d' ' -f1)
var0_id = 1
var0_typeid = 0
var0_typesize = 1
var0_size = $2
var0_pos = 0
var1_id = 2
var1_typeid = 9
var1_typesize = 8
var1_size = $3
var1_pos = $2
EOM
}
V1=$((32 * 1024 * 1024 + 13)) V2=$((8 * 2 * 1024 * 1024 + 8 * 7))
rank_data 0 $V1 $V2
rank_data 1 5 16
{ printf '[ckpt_info]\nckpt_type = full\nckpt_id = 7\n'; meta_section 0 $V1 $V2; meta_section 1 5 16; } \
  > "$F/meta/$EX/l4/sector0-group0.fti"

# ours DIR: a config of ours (2 ranks on one simulated node).
ours() {
  mkdir -p "$1"
  printf '[basic]\nhead = 0\nnode_size = 2\nckpt_dir = %s/local\nglbl_dir = %s/global\nmeta_dir = %s/meta\nckpt_io = 1\n[restart]\nexec_id = big-ours\n[advanced]\nlocal_test = 1\n' \
    "$1" "$1" "$1" > "$1/config.fti"
}

# max_rss_kib LOG: the "Maximum resident set size" /usr/bin/time -v wrote.
max_rss_kib() { sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$1"; }
TIMEV=""
[ -x /usr/bin/time ] && /usr/bin/time -v true 2> /dev/null && TIMEV="/usr/bin/time -v -o"

ours "$T/ours"
if [ -n "$TIMEV" ]; then
  $TIMEV "$T/base.time" "$CKPT" --version > /dev/null
  $TIMEV "$T/import.time" "$CKPT" import "$T/ours/config.fti" --from "$F/config.fti" > "$T/import.log" 2>&1 ||
    { cat "$T/import.log"; fail "fti-ckpt import failed"; }
else
  "$CKPT" import "$T/ours/config.fti" --from "$F/config.fti" > "$T/import.log" 2>&1 ||
    { cat "$T/import.log"; fail "fti-ckpt import failed"; }
fi
grep -q "^imported FTI 1.6 checkpoint 7 (level 4, one file per rank, 2 ranks)" "$T/import.log" ||
  { cat "$T/import.log"; fail "the import did not report FTI's checkpoint 7"; }

# Every byte of every variable, as the restart would read it (verified).
for r in 0 1; do
  for v in 1 2; do
    "$CKPT" extract "$T/ours/config.fti" --rank $r --var $v -o "$T/out-r$r-v$v" > "$T/extract.log" 2>&1 ||
      { cat "$T/extract.log"; fail "rank $r variable $v: fti-ckpt extract failed"; }
    cmp "$T/data/r$r-v$v" "$T/out-r$r-v$v" || fail "rank $r variable $v: imported bytes differ"
  done
done

if [ -n "$TIMEV" ]; then
  base=$(max_rss_kib "$T/base.time") got=$(max_rss_kib "$T/import.time")
  echo "max RSS: fti-ckpt --version $base KiB, import of a 48 MiB rank $got KiB"
  [ $((got - base)) -lt $((16 * 1024)) ] ||
    fail "the import of a 48 MiB rank took $((got - base)) KiB beyond fti-ckpt's own $base KiB (bound 16 MiB)"
else
  echo "SKIP part: /usr/bin/time -v is not available; memory not measured"
fi

# A flipped byte past the first chunks: refused by FTI's md5, nothing written.
printf '\x5a' | dd of="$F/global/$EX/l4/Ckpt7-Rank0.fti" bs=1 seek=$((40 * 1024 * 1024 + 3)) conv=notrunc 2> /dev/null
ours "$T/flip"
rc=0
"$CKPT" import "$T/flip/config.fti" --from "$F/config.fti" > "$T/flip.log" 2>&1 || rc=$?
[ $rc -eq 1 ] && grep -q "FTI 1.6 file .*/l4/Ckpt7-Rank0.fti: md5 [0-9a-f]*, FTI's metadata .*sector0-group0.fti records" "$T/flip.log" ||
  { cat "$T/flip.log"; fail "a flipped byte was not refused (exit $rc) naming the file and its md5"; }
[ "$(find "$T/flip" -mindepth 1)" = "$T/flip/config.fti" ] ||
  { find "$T/flip"; fail "a refused import wrote files or folders"; }
pass "a 48 MiB FTI 1.6 rank imports in bounded memory with every byte right; a flipped byte is refused"
