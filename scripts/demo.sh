#!/usr/bin/env bash
# demo.sh: what libfti is for, in one minute.
#
# Builds the project, then runs the heat-distribution example (examples/heatdis)
# on 4 MPI ranks, each rank a "node" with its own local checkpoint storage:
#   1. a fault-free reference run;
#   2. the same run with rank 2 killed (SIGKILL) mid-run, as if its node died;
#   3. the same command again: it restarts from the last L1 checkpoint.
# Then it compares the restarted run's final grid with the reference, bit for
# bit, and prints what the crash cost. Exits non-zero unless they are identical.
# --lose-node also deletes the dead node's local storage after the crash, and
# checkpoints at L1 every 25 and L2 (partner copy) every 50 iterations: the
# restart must rebuild the lost files from the partner node.
#
#   scripts/demo.sh [--no-build] [--quick] [--lose-node] [--build-dir DIR]
#                   [--ranks N] [--iters N] [--mib M] [--crash-at I] [--crash-rank R]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${FTI_BUILD_DIR:-$ROOT/build}"
BUILD_IT=1 RANKS=4 ITERS=400 MIB=4 CRASH_AT=290 CRASH_RANK=2 LOSE_NODE=0

usage() { sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) BUILD_IT=0; shift ;;
    --quick) ITERS=120 MIB=1 CRASH_AT=80; shift ;;
    --lose-node) LOSE_NODE=1; shift ;;
    --build-dir) BUILD="$(realpath -m "$2")"; shift 2 ;;
    --ranks) RANKS="$2"; shift 2 ;;
    --iters) ITERS="$2"; shift 2 ;;
    --mib) MIB="$2"; shift 2 ;;
    --crash-at) CRASH_AT="$2"; shift 2 ;;
    --crash-rank) CRASH_RANK="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "demo: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
# Scratch space on local disk (not /dev/shm): a checkpoint here costs what it
# would on a node's SSD. Under ctest, the test's private dir.
WORK="${FTI_TEST_DIR:-$BUILD/demo}"
MPIEXEC="${MPIEXEC:-mpiexec}"
HEATDIS="$BUILD/examples/heatdis"

say() { printf '\n== %s\n' "$*"; }
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }

build() {
  say "dependencies and build ($BUILD)"
  "$ROOT/scripts/deps.sh"
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$BUILD" -j2 --target heatdis
}

# Node simulation: the library's own ([advanced] local_test = 1 in
# examples/heatdis.fti): node K's local storage is nodes/node<K>/ under the
# run's directory, and no rank touches another node's folder. No privilege needed.

# setup_run NAME: fresh directories and a config for one scenario.
setup_run() {
  local d="$WORK/$1"
  rm -rf "$d"
  mkdir -p "$d/nodes" "$d/global" "$d/meta"
  sed -e "s|^ckpt_dir .*|ckpt_dir        = $d/nodes|" \
      -e "s|^local_test .*|local_test      = 1|" \
      -e "s|^glbl_dir .*|glbl_dir        = $d/global|" \
      -e "s|^meta_dir .*|meta_dir        = $d/meta|" \
      -e "s|^verbosity .*|verbosity       = 3|" \
      "$ROOT/examples/heatdis.fti" > "$d/heatdis.fti"
  if [ "$LOSE_NODE" -eq 1 ]; then
    sed -i -e "s|^ckpt_l1_iter .*|ckpt_l1_iter    = 25|" \
           -e "s|^ckpt_l2_iter .*|ckpt_l2_iter    = 50|" "$d/heatdis.fti"
  fi
}

# run_heatdis NAME [heatdis args...]: runs one launch; its stdout and stderr go
# to NAME.log, its exit status to $RUN_RC and its duration to $RUN_S.
run_heatdis() {
  local name="$1" d="$WORK/${1%%-*}"; shift
  local t0 t1
  t0=$(date +%s.%N)
  set +e
  (cd "$d" && "$MPIEXEC" -n "$RANKS" -bind-to none "$HEATDIS" \
      --mib "$MIB" --iters "$ITERS" --config "$d/heatdis.fti" --output "$d/result.txt" "$@") \
      > "$WORK/$name.log" 2>&1
  RUN_RC=$?
  set -e
  t1=$(date +%s.%N)
  RUN_S=$(calc "$t1 - $t0")
}

# stat_of LOG KEY: the value of KEY in the heatdis-stats line of LOG.
stat_of() {
  grep -o "heatdis-stats .*" "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n1
}

ckpts_in() { grep -c '^heatdis-ckpt ' "$1" || true; }

fail() {
  echo "demo: FAILED: $*" >&2
  exit 1
}

show_log() { echo "---- $1"; sed 's/^/  /' "$1" | tail -n 25; }

scenarios() {
  local crash=(--crash-at "$CRASH_AT" --crash-rank "$CRASH_RANK")
  say "1/3 fault-free reference run"
  setup_run ref
  run_heatdis ref
  REF_RC=$RUN_RC REF_S=$RUN_S
  [ "$REF_RC" -eq 0 ] || { show_log "$WORK/ref.log"; fail "reference run exited $REF_RC"; }
  grep '^heatdis' "$WORK/ref.log" || true

  say "2/3 run with rank $CRASH_RANK killed at iteration $CRASH_AT"
  setup_run fault
  run_heatdis fault-crash "${crash[@]}"
  CRASH_RC=$RUN_RC CRASH_S=$RUN_S
  grep -E '^heatdis|injected crash|KILLED|BAD TERMINATION' "$WORK/fault-crash.log" || true
  [ "$CRASH_RC" -ne 0 ] || fail "the crash run exited 0: no crash was injected"
  [ ! -e "$WORK/fault/result.txt" ] || fail "the crash run wrote a result"
  node_files fault
  if [ "$LOSE_NODE" -eq 1 ]; then
    rm -rf "$WORK/fault/nodes/node$CRASH_RANK"
    echo "node $CRASH_RANK lost: its local storage ($WORK/fault/nodes/node$CRASH_RANK) deleted"
  fi

  say "3/3 same command again: restart"
  run_heatdis fault-restart "${crash[@]}"
  RESTART_RC=$RUN_RC RESTART_S=$RUN_S
  grep -E '^heatdis|^\[FTI' "$WORK/fault-restart.log" || true
  [ "$RESTART_RC" -eq 0 ] || { show_log "$WORK/fault-restart.log"; fail "restart exited $RESTART_RC"; }
}

# node_files NAME: what each node's local storage holds now, one line.
NODE_FILES=""
node_files() {
  local n line=""
  for n in "$WORK/$1"/nodes/node*; do
    line+="$(basename "$n") $(du -sh "$n" | cut -f1) in $(find "$n" -type f | wc -l) file(s)  "
  done
  NODE_FILES="$line"
}

report() {
  local ref="$WORK/ref.log" rst="$WORK/fault-restart.log"
  local restarted resumed iter_s recomputed lost_iter_s lost_s identical=no
  restarted=$(stat_of "$rst" restarted)
  resumed=$(stat_of "$rst" resumed_from)
  iter_s=$(stat_of "$rst" iter_s)
  recomputed=$((CRASH_AT - resumed))
  lost_iter_s=$(calc "$recomputed * $iter_s")
  lost_s=$(calc "$CRASH_S + $RESTART_S - $REF_S")
  cmp -s "$WORK/ref/result.txt" "$WORK/fault/result.txt" && identical=yes

  say "summary: heatdis, $RANKS ranks x $MIB MiB per grid, $ITERS iterations"
  printf '%-34s %6s %9s %12s %13s\n' run exit wall_s checkpoints resumed_from
  printf '%-34s %6s %9.2f %12s %13s\n' "fault-free reference" "$REF_RC" "$REF_S" \
    "$(ckpts_in "$ref")" "$(stat_of "$ref" resumed_from)"
  printf '%-34s %6s %9.2f %12s %13s\n' "rank $CRASH_RANK killed at iteration $CRASH_AT" \
    "$CRASH_RC" "$CRASH_S" "$(ckpts_in "$WORK/fault-crash.log")" "-"
  printf '%-34s %6s %9.2f %12s %13s\n' "restart (same command)" "$RESTART_RC" "$RESTART_S" \
    "$(ckpts_in "$rst")" "$resumed"
  echo
  printf 'restart resumed from iteration      %s\n' "$resumed"
  printf 'recomputed iterations               %d (%s..%s), %.3f s of compute\n' \
    "$recomputed" "$resumed" "$((CRASH_AT - 1))" "$lost_iter_s"
  printf 'time lost to the crash              %.2f s (crash run + restart - reference)\n' "$lost_s"
  printf 'final checksum, reference           %s\n' "$(sed -n 's/^checksum //p' "$WORK/ref/result.txt")"
  printf 'final checksum, after restart       %s\n' "$(sed -n 's/^checksum //p' "$WORK/fault/result.txt")"
  printf 'result identical to fault-free run: %s\n' "$identical"
  [ -z "$NODE_FILES" ] || printf 'node-local storage at the crash      %s\n' "$NODE_FILES"
  [ "$restarted" = 1 ] || fail "the relaunch did not restart from a checkpoint (restarted=$restarted)"
  [ "$resumed" -gt 0 ] || fail "the restart resumed from iteration $resumed"
  [ "$identical" = yes ] || { diff "$WORK/ref/result.txt" "$WORK/fault/result.txt" || true;
                              fail "the recovered result differs from the reference"; }
}

main() {
  cd "$ROOT"
  [ "$BUILD_IT" -eq 0 ] || build
  [ -x "$HEATDIS" ] || fail "$HEATDIS not built (run without --no-build)"
  mkdir -p "$WORK"
  scenarios
  report
}

main
