#!/usr/bin/env bash
# A zstd-compressed L4 checkpoint, written by a build WITH zstd, meets a build
# WITHOUT zstd (issue 27): the latter refuses it by name (the file, "this
# build has no zstd") in FTI_Init's restart and in `fti-ckpt verify`, returns
# an error code (no crash, no MPI_Abort), and leaves every checkpoint file as
# it was: the zstd build restores the same checkpoint afterwards.
#
#   scripts/minimal-zstd-refusal.sh WITH_BUILD WITHOUT_BUILD DIR [PHASE]
#
# WITH_BUILD has libzstd (its test_prog_ckpt_prog is enough), WITHOUT_BUILD
# has none (its test_prog_ckpt_prog and fti-ckpt). DIR is the scratch folder;
# the config's path is part of the job's identity (exec_id), so DIR must have
# the same absolute path wherever the phases run. PHASE: all (default), or
# write, refuse, restore one at a time (scripts/test-minimal.sh --fresh-root
# writes and restores on the host, refuses inside the Debian root).
# --help prints the comment above (how to call it) and exits.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 WITH_BUILD WITHOUT_BUILD DIR [all|write|refuse|restore]" >&2; exit 2; }
WITH="$1" WITHOUT="$2" T="$3" PHASE="${4:-all}"
MPIEXEC="${MPIEXEC:-mpiexec}"
NP=4 SEED=7
fail() { echo "minimal-zstd-refusal: FAIL: $*" >&2; exit 1; }
say() { echo "minimal-zstd-refusal: $*"; }

# config FILE CODEC: an L4 job over $T, four simulated nodes, files kept.
config() {
  cat > "$1" <<EOF
[basic]
head = 0
node_size = 1
ckpt_dir = $T/nodes
glbl_dir = $T/global
meta_dir = $T/meta
ckpt_l1 = 0
ckpt_l2 = 0
ckpt_l3 = 0
ckpt_l4 = 0
inline_l4 = 1
keep_last_ckpt = 1
keep_all_levels = 1
l4_local_copy = 1
group_size = 4
verbosity = 2
l4_compression = $2
[advanced]
local_test = 1
EOF
}

# Every file of the checkpoint set with its checksum, for "left as it was";
# not the job's lock files (docs/FORMAT.md), which any run takes.
inventory() { (cd "$T" && find global meta -type f ! -name lock -print0 | sort -z | xargs -0 cksum); }

# run OUT CMD...: CMD's output in $T/OUT, its exit status echoed.
run() {
  local out="$T/$1"; shift
  set +e; timeout 120 "$@" > "$out" 2>&1; local rc=$?; set -e
  echo "$rc"
}

# A refusal: non-zero, not a timeout or a signal, no MPI_Abort, the file and
# the reason named.
refused() {
  local what="$1" out="$T/$2" rc="$3" file="$4"
  [ "$rc" -ne 0 ] || { cat "$out"; fail "$what: accepted the zstd checkpoint (exit 0)"; }
  [ "$rc" -lt 124 ] || { cat "$out"; fail "$what: exit $rc (timeout or signal), not an error code"; }
  ! grep -Eq "MPI_Abort|MPI_ABORT|signal [0-9]|Segmentation|core dumped" "$out" ||
    { cat "$out"; fail "$what: crashed or aborted"; }
  grep -q "$file is compressed with zstd and this build has no zstd" "$out" ||
    { cat "$out"; fail "$what: does not name $file and the missing zstd"; }
  say "ok: $what refused it (exit $rc): $(grep -o "[^ ]*$(basename "$file") is compressed with zstd[^:]*" "$out" | head -1)"
}

write() {
  rm -rf "$T" && mkdir -p "$T/nodes" "$T/global" "$T/meta"
  config "$T/c.fti" zstd:1
  local rc
  rc=$(run write.out "$MPIEXEC" -n $NP -bind-to none "$WITH/test/mpi/test_prog_ckpt_prog" "$T/c.fti" write $SEED 4)
  [ "$rc" -eq 0 ] || { cat "$T/write.out"; fail "the zstd build's L4 checkpoint (exit $rc)"; }
  local g="$(echo "$T"/global/*/l4-s0-rank0.fti)"
  [ -f "$g" ] || { ls -R "$T/global"; fail "no global copy of rank 0"; }
  # Header (docs/L4.md): magic FTIL4Z\0\0, version u32, codec u32 (2 = zstd).
  [ "$(head -c 6 "$g")" = FTIL4Z ] || fail "$g is not a compressed L4 copy"
  [ "$(od -An -tu4 -j12 -N4 "$g" | tr -d ' ')" = 2 ] || fail "$g is not zstd-compressed (codec field)"
  inventory > "$T/inventory.before"
  say "ok: the zstd build wrote $(wc -l < "$T/inventory.before") files, $g zstd-compressed"
}

refuse() {
  [ -f "$T/inventory.before" ] || fail "no checkpoint written (phase write first)"
  local g="$(echo "$T"/global/*/l4-s0-rank0.fti)" rc p="$WITHOUT/test/mpi/test_prog_ckpt_prog"
  rm -rf "$T"/nodes/* # every node's local storage lost: only the L4 copies remain

  # The config as written (zstd:1): refused at FTI_Init, naming the key.
  rc=$(run init.out "$MPIEXEC" -n $NP -bind-to none "$p" "$T/c.fti" check $SEED)
  [ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] || { cat "$T/init.out"; fail "l4_compression = zstd:1 accepted (exit $rc)"; }
  grep -qF "config $T/c.fti: [basic] l4_compression = 'zstd:1': this build has no zstd" "$T/init.out" ||
    { cat "$T/init.out"; fail "the zstd config's refusal does not name the file, the key and the missing zstd"; }
  say "ok: l4_compression = zstd:1 refused at FTI_Init (exit $rc)"

  # The user drops compression to restart: the zstd copies are refused by name.
  config "$T/c.fti" none
  rc=$(run restart.out "$MPIEXEC" -n $NP -bind-to none "$p" "$T/c.fti" check $SEED)
  refused "restart (FTI_Init)" restart.out "$rc" "$g"
  # As FTI's: FTI_NREC (-2), the run may start fresh, nothing deleted.
  grep -q "^FTI_Init returned -2" "$T/restart.out" && grep -q "nothing was deleted" "$T/restart.out" ||
    { cat "$T/restart.out"; fail "restart: not FTI_NREC with 'nothing was deleted'"; }
  ! grep -q "PASS" "$T/restart.out" || { cat "$T/restart.out"; fail "restart reported restored bytes"; }

  rc=$(run verify.out "$WITHOUT/tools/fti-ckpt" verify "$T/c.fti")
  refused "fti-ckpt verify" verify.out "$rc" "$g"
  # Its table says the copy needs a codec this build lacks, not that it is
  # damaged: a user must not delete it as BAD.
  [ "$rc" -eq 1 ] && grep -Eq "^ +0 +0 +missing +NO-CODEC +NO$" "$T/verify.out" ||
    { cat "$T/verify.out"; fail "fti-ckpt verify: exit $rc, rank 0's global copy not shown as NO-CODEC"; }

  inventory > "$T/inventory.after"
  diff "$T/inventory.before" "$T/inventory.after" > /dev/null ||
    fail "checkpoint files changed by the refusals: $(diff "$T/inventory.before" "$T/inventory.after")"
  say "ok: all $(wc -l < "$T/inventory.after") checkpoint files unchanged"
}

restore() {
  config "$T/c.fti" zstd:1
  local rc
  rc=$(run restore.out "$MPIEXEC" -n $NP -bind-to none "$WITH/test/mpi/test_prog_ckpt_prog" "$T/c.fti" check $SEED)
  [ "$rc" -eq 0 ] && [ "$(grep -c "PASS: restored bytes identical" "$T/restore.out")" -ge 1 ] ||
    { cat "$T/restore.out"; fail "the zstd build cannot restore the checkpoint afterwards (exit $rc)"; }
  say "ok: the zstd build still restores it (bytes identical)"
}

case "$PHASE" in
  all) write; refuse; restore ;;
  write | refuse | restore) "$PHASE" ;;
  *) echo "unknown phase '$PHASE'" >&2; exit 2 ;;
esac
