#!/usr/bin/env bash
# [advanced] l4_files_per_dir = 2 on 8 ranks: the L4 fan-out. Ranks 0-1 keep
# their global files in the job's folder (the flat layout of a job no bigger
# than the key), ranks 2-7 in l4-ranks2-3/, l4-ranks4-5/, l4-ranks6-7/, two
# files per folder and checkpoint, the keep_l4_ckpt archive alike. With every
# node's local storage lost the restart restores every byte from them (the
# global file written from the local one, and written directly), fti-ckpt
# verify and show find them, FTI_Finalize's cleanup removes them and the
# folders, and ckpt_io = 2 keeps its one shared file. With heads (head = 1,
# 4 nodes of a head and a rank) the heads write the ranks' files there too,
# fti-ckpt import places FTI 1.6's checkpoint (4 ranks) by the same rule,
# and so do HDF5 checkpoints (ckpt_io = 5, in builds with HDF5) and dCP
# layers (enable_dcp = 1).
source "$FTI_SOURCE_DIR/test/tools/common.bash"
N=8

# tree_is IO: the global folder holds exactly the files and folders of one
# checkpoint of slot 0 under the fan-out.
tree_is() {
  local g; g=$(echo "$T"/global/*)
  local want="l4-s0-rank0.fti l4-s0-rank1.fti"
  for a in 2 4 6; do
    want="$want l4-ranks$a-$((a + 1))/l4-s0-rank$a.fti l4-ranks$a-$((a + 1))/l4-s0-rank$((a + 1)).fti"
  done
  for a in 0 2 4 6; do
    local d="l4_archive"; [ $a = 0 ] || d="l4_archive/l4-ranks$a-$((a + 1))"
    want="$want $d/Ckpt61-Rank$a.fti $d/Ckpt61-Rank$((a + 1)).fti"
  done
  local got; got=$(cd "$g" && find . -type f ! -name lock | sed 's|^\./||' | sort | tr '\n' ' ')
  want=$(echo $want | tr ' ' '\n' | sort | tr '\n' ' ')
  [ "$got" = "$want" ] || fail "$1: global tree is not the fan-out: got '$got', want '$want'"
}

for copy in 1 0; do
  what="l4_local_copy=$copy"
  rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
  write_config "$T/c.fti" group_size=4 keep_l4_ckpt=1 l4_local_copy=$copy advanced.l4_files_per_dir=2
  run_nodes $N 1 "$P" "$T/c.fti" write 61 4 $KIB > "$T/out" 2>&1 || { cat "$T/out"; fail "$what: L4 checkpoint"; }
  tree_is "$what"
  cmp -s "$T"/global/*/l4-ranks4-5/l4-s0-rank5.fti "$T"/global/*/l4_archive/l4-ranks4-5/Ckpt61-Rank5.fti ||
    fail "$what: archive of rank 5 differs from its global file"

  rm -rf "$T"/nodes/*  # every node's local storage lost
  expect_rc 0 ck verify "$T/c.fti"
  own=missing; [ "$copy" = 1 ] || own=removed # l4_local_copy = 0 removes them by design
  for r in $(seq 0 $((N - 1))); do has "^ +$r +$r  $own +ok +yes \(L4 global copy\)$"; done
  expect_rc 0 ck show "$T/c.fti" --rank 7
  has "l4-ranks6-7/l4-s0-rank7.fti"
  run_nodes $N 1 "$P" "$T/c.fti" check 61 $KIB > "$T/out" 2>&1 || { cat "$T/out"; fail "$what: restart"; }
  [ "$(grep -c PASS "$T/out")" -ge 1 ] || { cat "$T/out"; fail "$what: restored bytes"; }

  # a second checkpoint (slot 1), then finalize with keep_last_ckpt = 0:
  # the run's files and the fan-out's folders go, the archive stays.
  write_config "$T/c.fti" group_size=4 keep_l4_ckpt=1 l4_local_copy=$copy keep_last_ckpt=0 \
    advanced.l4_files_per_dir=2
  run_nodes $N 1 "$P" "$T/c.fti" write 62 4 $KIB > "$T/out" 2>&1 || { cat "$T/out"; fail "$what: 2nd checkpoint"; }
  g=$(echo "$T"/global/*)
  [ "$(ls "$g" | grep -v '^l4_archive$' | tr '\n' ' ')" = "" ] ||
    fail "$what: cleanup left $(cd "$g" && find . | tr '\n' ' ')"
  [ "$(find "$g/l4_archive" -name 'Ckpt6[12]-Rank*.fti' | wc -l)" = $((2 * N)) ] ||
    fail "$what: archive: $(cd "$g" && find l4_archive | tr '\n' ' ')"
  echo "ok: $what"
done

# fti-ckpt names reads a fan-out folder's name with the library's parser.
echo l4-ranks2-3 | "$CKPT" names - > "$T/out"
has "^fanout 4 - 2 - l4-ranks2-3$"

# ckpt_io = 2: one shared file, no fan-out folder.
rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
write_config "$T/c.fti" group_size=4 ckpt_io=2 advanced.l4_files_per_dir=2
run_nodes $N 1 "$P" "$T/c.fti" write 63 4 $KIB > "$T/out" 2>&1 || { cat "$T/out"; fail "mpiio: L4 checkpoint"; }
[ -z "$(find "$T"/global/*/ -mindepth 1 -type d)" ] || fail "mpiio: folders made: $(find "$T"/global)"
rm -rf "$T"/nodes/*
run_nodes $N 1 "$P" "$T/c.fti" check 63 $KIB | grep -q PASS || fail "mpiio: restart"
# head = 1: the heads post the L4 copies into the same folders.
rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
write_config "$T/c.fti" head=1 node_size=2 group_size=4 inline_l4=0 advanced.l4_files_per_dir=2
"$MPIEXEC" -n 8 -bind-to none "$P" "$T/c.fti" write 64 4 $KIB > "$T/out" 2>&1 ||
  { cat "$T/out"; fail "heads: L4 checkpoint"; }
got=$(cd "$T"/global/* && find . -name 'l4-s0-rank*.fti' | sort | tr '\n' ' ')
[ "$got" = "./l4-ranks2-3/l4-s0-rank2.fti ./l4-ranks2-3/l4-s0-rank3.fti ./l4-s0-rank0.fti ./l4-s0-rank1.fti " ] ||
  fail "heads: global files '$got'"
rm -rf "$T"/nodes/*
"$MPIEXEC" -n 8 -bind-to none "$P" "$T/c.fti" check 64 $KIB | grep -q PASS || fail "heads: restart"
# fti-ckpt import: FTI 1.6's L4 files of 4 ranks land in the fan-out, and
# read16 restores them (test/fti16).
READ="$FTI_BUILD_DIR/test/fti16/fti16_read16" D="$T/import"
[ -x "$READ" ] || fail "fti16_read16 is not built"
mkdir -p "$D" && cp -a "$FTI_SOURCE_DIR/test/fti16/data/l4posix" "$D/fti16"
printf '[basic]\nhead = 0\nnode_size = 2\nckpt_dir = %s/local\nglbl_dir = %s/global\nmeta_dir = %s/meta\nckpt_io = 1\nkeep_last_ckpt = 1\n[restart]\nexec_id = imp\n[advanced]\nlocal_test = 1\nl4_files_per_dir = 2\n' \
  "$D" "$D" "$D" > "$D/config.fti"
expect_rc 0 "$CKPT" import "$D/config.fti" --from "$D/fti16/config.fti"
got=$(cd "$D/global/imp" && find . -type f ! -name lock | sort | tr '\n' ' ')
[ "$got" = "./l4-ranks2-3/l4-s0-rank2.fti ./l4-ranks2-3/l4-s0-rank3.fti ./l4-s0-rank0.fti ./l4-s0-rank1.fti " ] ||
  fail "import: global files '$got'"
timeout 240 "$MPIEXEC" -n 4 -bind-to none "$READ" "$D/config.fti" > "$T/out" 2>&1 || { cat "$T/out"; fail "import: restart"; }
[ "$(grep -c '^read16: rank [0-3]: all 1049 bytes right$' "$T/out")" -eq 4 ] || { cat "$T/out"; fail "import: restored bytes"; }
# ckpt_io = 5: the ranks' HDF5 files fan out alike (builds without HDF5 refuse the config).
rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
write_config "$T/c.fti" group_size=4 ckpt_io=5 advanced.l4_files_per_dir=2
if run_nodes $N 1 "$P" "$T/c.fti" write 65 4 $KIB > "$T/out" 2>&1; then
  got=$(cd "$T"/global/* && find . -name '*.h5' | sort | tr '\n' ' ')
  want="./l4-ranks2-3/l4-s0-rank2.h5 ./l4-ranks2-3/l4-s0-rank3.h5 ./l4-ranks4-5/l4-s0-rank4.h5"
  want="$want ./l4-ranks4-5/l4-s0-rank5.h5 ./l4-ranks6-7/l4-s0-rank6.h5 ./l4-ranks6-7/l4-s0-rank7.h5"
  [ "$got" = "$want ./l4-s0-rank0.h5 ./l4-s0-rank1.h5 " ] || fail "hdf5: global files '$got'"
  rm -rf "$T"/nodes/*
  run_nodes $N 1 "$P" "$T/c.fti" check 65 $KIB | grep -q PASS || fail "hdf5: restart"
  echo "ok: ckpt_io=5"
else
  grep -q "ckpt_io = 5 (HDF5) is not supported by this build" "$T/out" || { cat "$T/out"; fail "hdf5: L4 checkpoint"; }
fi
# dCP (enable_dcp = 1, level 8): every rank's layers lie beside its other L4
# files (ranks 0-1 in the job's folder, 2-7 in their fan-out folders); with
# the local storage lost a restart assembles step 3 from them and builds the
# next layer on them, fti-ckpt verify reads them, and FTI_Finalize's cleanup
# removes them with the folders.
DP="$PROGS/test_prog_dirty_prog"
rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
dcp_config() {
  write_config "$T/c.fti" node_size=4 group_size=1 enable_dcp=1 dcp_mode=1 dcp_block_size=4096 \
    dcp_stack_size=10 keep_last_ckpt=$1 verbosity=1 advanced.dcp_dirty_tracking=1 \
    advanced.l4_files_per_dir=2
}
dcp_config 1
"$MPIEXEC" -n $N -bind-to none "$DP" "$T/c.fti" 1 3 > "$T/out" 2>&1 || { cat "$T/out"; fail "dcp: steps 1-3"; }
g=$(echo "$T"/global/*)
misplaced=$(cd "$g" && find . -name 'l4-dcp-rank*' | awk '{
  r = $0; sub(/.*l4-dcp-rank/, "", r); sub(/-.*/, "", r); a = r - r % 2
  want = r < 2 ? "./l4-dcp-rank" r "-" : "./l4-ranks" a "-" (a + 1) "/l4-dcp-rank" r "-"
  if (index($0, want) != 1) print }')
[ -z "$misplaced" ] || fail "dcp: layers outside their rank's folder: $misplaced"
[ "$(cd "$g" && find . -name 'l4-dcp-rank*' | wc -l)" = $((3 * N)) ] ||
  fail "dcp: expected 3 layers per rank: $(cd "$g" && find . -name 'l4-dcp-*' | tr '\n' ' ')"
rm -rf "$T"/nodes/*
expect_rc 0 ck verify "$T/c.fti"
for r in $(seq 0 $((N - 1))); do has "^ +$r +$((r / 4)) +missing +ok +yes \(L4 global copy\)$"; done
"$MPIEXEC" -n $N -bind-to none "$DP" "$T/c.fti" 4 4 > "$T/out" 2>&1 || { cat "$T/out"; fail "dcp: restart, step 4"; }
grep -q "RESTORED step=3" "$T/out" || { cat "$T/out"; fail "dcp: restore of step 3 from the fan-out"; }
grep -q "^\[FTI r7\] debug: dCP layer #[0-9]*: .*(depth 3, " "$T/out" ||
  { cat "$T/out"; fail "dcp: rank 7's layer 4 did not build on the chain in its folder"; }
dcp_config 0
"$MPIEXEC" -n $N -bind-to none "$DP" "$T/c.fti" 5 5 > "$T/out" 2>&1 || { cat "$T/out"; fail "dcp: step 5"; }
grep -q "RESTORED step=4" "$T/out" || { cat "$T/out"; fail "dcp: restore of step 4"; }
[ -z "$(cd "$g" && find . -mindepth 1 ! -name lock)" ] || [ ! -d "$g" ] ||
  fail "dcp: cleanup left $(cd "$g" && find . -mindepth 1 | tr '\n' ' ')"
echo "ok: dcp"
pass "L4 fan-out (l4_files_per_dir)"
