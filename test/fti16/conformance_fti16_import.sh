#!/usr/bin/env bash
# A campaign that ran with FTI 1.6 continues with us: each checkpoint FTI
# 1.6 wrote (data/: L4 one file per rank, L4 MPI-IO shared file, L1, L2
# and L3 (their own files), L4 of a job with heads) is
# imported by `fti-ckpt import` into a config of ours and read16 restarts
# from it on 4 ranks (2 for the job that ran with heads) with every byte of its 5 variables right. An FTI file
# with one byte flipped (md5), cut short (size), or an MPI-IO file cut short
# is refused naming the file, and nothing is written; an import into a job
# that already has checkpoints is refused and changes nothing. After the
# restart the campaign goes on: a new checkpoint, and the next run restores it.
source "$FTI_SOURCE_DIR/test/mpi/lib.sh"
CKPT="$FTI_BUILD_DIR/tools/fti-ckpt"
READ="$FTI_BUILD_DIR/test/fti16/fti16_read16"
DATA="$FTI_SOURCE_DIR/test/fti16/data"
[ -x "$CKPT" ] && [ -x "$READ" ] || fail "fti-ckpt or fti16_read16 is not built"
rm -rf "$T" && mkdir -p "$T"

# ours CASE: a config of ours for CASE's job (2 ranks per simulated node, no heads).
ours() {
  local d="$T/$1/ours"
  mkdir -p "$d"
  cat > "$d/config.fti" <<EOC
[basic]
head = 0
node_size = 2
ckpt_dir = $d/local
glbl_dir = $d/global
meta_dir = $d/meta
ckpt_l1 = 0
ckpt_l4 = 0
ckpt_io = 1
keep_last_ckpt = 1
verbosity = 2
[restart]
exec_id = fti16-$1
[advanced]
local_test = 1
EOC
}

# copy NAME [CASE]: a copy (the test may damage it) of FTI 1.6's files of
# CASE (default NAME) in $T/NAME/fti16, and our config in $T/NAME/ours.
copy() { rm -rf "$T/$1"; mkdir -p "$T/$1"; cp -a "$DATA/${2:-$1}" "$T/$1/fti16"; ours "$1"; }

# imported CASE LEVEL HOW [NP]: CASE imports, and NP (4) ranks restore it.
imported() {
  local c="$1" np="${4:-4}"
  copy "$c"
  "$CKPT" import "$T/$c/ours/config.fti" --from "$T/$c/fti16/config.fti" > "$T/$c/import.log" 2>&1 ||
    { cat "$T/$c/import.log"; fail "$c: fti-ckpt import failed"; }
  grep -q "^imported FTI 1.6 checkpoint 3 (level $2, $3, $np ranks)" "$T/$c/import.log" ||
    { cat "$T/$c/import.log"; fail "$c: import did not report FTI's checkpoint 3 at level $2 ($3, $np ranks)"; }
  "$CKPT" verify "$T/$c/ours/config.fti" > "$T/$c/verify.log" 2>&1 &&
    grep -q "^job: recoverable: a restart restores checkpoint #1 (id 3, level 4)" "$T/$c/verify.log" ||
    { cat "$T/$c/verify.log"; fail "$c: fti-ckpt verify does not find the import recoverable"; }
  timeout 240 "$MPIEXEC" -n "$np" -bind-to none "$READ" "$T/$c/ours/config.fti" > "$T/$c/read.log" 2>&1 ||
    { cat "$T/$c/read.log"; fail "$c: the restart from the import failed"; }
  [ "$(grep -c '^read16: rank [0-3]: all 1049 bytes right$' "$T/$c/read.log")" -eq "$np" ] ||
    { cat "$T/$c/read.log"; fail "$c: not every rank restored all 1049 bytes"; }
}

# refused CASE FILE-PATTERN WHAT: import fails (exit 1) naming the file and
# WHAT, and the config of ours has no file afterwards.
refused() {
  local c="$1" rc=0
  "$CKPT" import "$T/$c/ours/config.fti" --from "$T/$c/fti16/config.fti" > "$T/$c/import.log" 2>&1 || rc=$?
  [ "$rc" -eq 1 ] || { cat "$T/$c/import.log"; fail "$c: import of a damaged file exited $rc, expected 1"; }
  grep -Eq "FTI 1.6 file [^ ]*$2: $3" "$T/$c/import.log" ||
    { cat "$T/$c/import.log"; fail "$c: the refusal does not name $2 and '$3'"; }
  [ "$(find "$T/$c/ours" -mindepth 1)" = "$T/$c/ours/config.fti" ] ||
    { find "$T/$c/ours"; fail "$c: a refused import wrote files or folders"; }
}

# Usage: --from is required, and nothing else is taken.
ours usage
rc=0; "$CKPT" import "$T/usage/ours/config.fti" > "$T/usage.log" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "import needs --from FTI16_CONFIG" "$T/usage.log" ||
  { cat "$T/usage.log"; fail "import without --from exited $rc"; }
rc=0; "$CKPT" import "$T/usage/ours/config.fti" --from "$DATA/l4posix/config.fti" --exec-id x > "$T/usage.log" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "import takes only --from" "$T/usage.log" ||
  { cat "$T/usage.log"; fail "import with --exec-id exited $rc"; }

imported l4posix 4 "one file per rank"
imported l4mpiio 4 "MPI-IO shared file"
imported l1posix 1 "one file per rank"
imported l2posix 2 "one file per rank"
imported l3posix 3 "one file per rank"
# FTI 1.6 with head = 1 (4 ranks, node_size 2): world ranks 1 and 3 wrote
# Ckpt3-Rank1/3.fti, application ranks 0 and 1 restart here without heads.
imported l4heads 4 "one file per rank" 2

# A second import into the same job (its commit record exists) changes nothing.
again="$T/l4posix/ours/config.fti"
sums="$(cd "$T/l4posix/ours" && find global meta -type f | sort | xargs md5sum)"
rc=0; "$CKPT" import "$again" --from "$T/l4posix/fti16/config.fti" > "$T/again.log" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "fti16-l4posix already has a commit record (.*/meta/fti16-l4posix/commit)" "$T/again.log" ||
  { cat "$T/again.log"; fail "a second import exited $rc, not refused (2) naming the commit record"; }
[ "$sums" = "$(cd "$T/l4posix/ours" && find global meta -type f | sort | xargs md5sum)" ] ||
  fail "a refused second import changed the job's files"

# The campaign goes on under our library: checkpoint 4 after the restart,
# kept at FTI_Finalize (keep_last_ckpt = 1), restored by the next run.
run_read() { timeout 240 "$MPIEXEC" -n 4 -bind-to none "$READ" "$@"; }
run_read "$again" 4 > "$T/next.log" 2>&1 || { cat "$T/next.log"; fail "checkpoint 4 after the import's restart"; }
[ "$(grep -c '^read16: rank [0-3]: checkpoint 4: taken$' "$T/next.log")" -eq 4 ] || { cat "$T/next.log"; fail "checkpoint 4 not taken"; }
run_read "$again" > "$T/next2.log" 2>&1 || { cat "$T/next2.log"; fail "restart from checkpoint 4"; }
grep -q "restart: Recovering successfully from level [1-4]: checkpoint #[0-9]* (id 4)" "$T/next2.log" &&
  [ "$(grep -c '^read16: rank [0-3]: all 1049 bytes right$' "$T/next2.log")" -eq 4 ] ||
  { cat "$T/next2.log"; fail "the next run did not restore checkpoint 4's bytes"; }

copy flip l4posix
flip_middle "$(ls "$T"/flip/fti16/global/*/l4/Ckpt3-Rank2.fti)"
refused flip "/l4/Ckpt3-Rank2.fti" "md5 [0-9a-f]{32}, FTI's metadata .*sector[0-9]-group[0-9].fti records"

copy flipl1 l1posix
flip_middle "$(ls "$T"/flipl1/fti16/local/node1/*/l1/Ckpt3-Rank3.fti)"
refused flipl1 "/l1/Ckpt3-Rank3.fti" "md5 [0-9a-f]{32}, FTI's metadata .*/l1/sector[0-9]-group[0-9].fti records"

copy cut l4posix
truncate -s 1000 "$(ls "$T"/cut/fti16/global/*/l4/Ckpt3-Rank1.fti)"
refused cut "/l4/Ckpt3-Rank1.fti" "1000 bytes, FTI's metadata .* records 1049"

copy cutmpi l4mpiio
truncate -s 4000 "$(ls "$T"/cutmpi/fti16/global/*/l4/Ckpt3-mpiio.fti)"
refused cutmpi "/l4/Ckpt3-mpiio.fti" "4000 bytes, FTI's metadata .* records 4196"

pass "FTI 1.6's L4 POSIX, L4 MPI-IO, L1, L2, L3 and L4 with heads imported, every rank restored all 1049 bytes each; a flipped byte (md5, L4 and L1), a short file and a short MPI-IO file refused by name, nothing written"
