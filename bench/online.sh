#!/usr/bin/env bash
# Online recovery against a relaunch (issue 33): how long from a rank's death
# until the application computes again. bench/online.sh [NP...] (default 4 16)
# with BUILD (default build-openmpi: a build against Open MPI 5, which has
# ULFM) and FTI_OMPI_MPIEXEC (default Open MPI's from scripts/openmpi.sh 5).
# For each NP, heatdis (ITERS iterations, L2 every 10, rank 1 killed at
# iteration KILL_AT) runs three times on the same problem, each in a fresh
# folder under DIR (default /dev/shm/fti-bench-online):
#   clean     fault-free, NP ranks and one spare: the reference wall time
#   online    online_recovery = 1, spare_ranks = 1: one mpiexec --with-ft ulfm
#   relaunch  online_recovery = 0: fti-run --backoff 0 relaunches after the
#             kill, the second run restarts from the same checkpoint
# Each time runs from the launch to the moment rank 0 wrote the final digest
# (its file's mtime; MPI_Finalize is left out: Open MPI 5 sometimes hangs
# there after a failure, and such a job is stopped 10 s after its digest).
# Both faulty runs recompute the same iterations (from the checkpoint of
# iteration 39 to the kill), so each one's time minus the clean one's is
# its time from death to running again plus that same recompute. One JSON
# line per NP: the median of REPS rounds (default 5; each round runs the
# three, one after the other) of the three wall times, of online_s and
# relaunch_s (each faulty run minus its round's clean run) with their
# ranges, the ratio of those medians, and the library's own repair and
# choice times.
# Open MPI 5.0.11 sometimes aborts or hangs in a job that lost a rank: an
# online try without its digest is said with Open MPI's error and run again
# (TRIES, default 3); any job is stopped after LIMIT_S (default 300) seconds.
# --help prints the comment above (how to call it) and exits.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${BUILD:-$ROOT/build-openmpi}"
DIR="${DIR:-/dev/shm/fti-bench-online}"
LIMIT_S="${LIMIT_S:-300}" TRIES="${TRIES:-3}" REPS="${REPS:-5}"
ITERS="${ITERS:-200}" KILL_AT="${KILL_AT:-45}" ROWS="${ROWS:-512}" COLS="${COLS:-1024}"
if [ -z "${FTI_OMPI_MPIEXEC:-}" ]; then eval "$("$ROOT/scripts/openmpi.sh" 5)"; fi
[ "$(id -u)" -ne 0 ] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
H="$BUILD/examples/heatdis"
[ -x "$H" ] || { echo "online.sh: no $H (build heatdis against Open MPI 5 in BUILD)" >&2; exit 2; }
MPIEXEC=("$FTI_OMPI_MPIEXEC" --oversubscribe --bind-to none)

# config FILE ONLINE: L2 every 10 iterations, one folder per simulated node.
config() {
  printf '[basic]\nhead = 0\nnode_size = 1\nckpt_dir = %s/nodes\nglbl_dir = %s/global\n' "$DIR" "$DIR"
  printf 'meta_dir = %s/meta\nckpt_l2_iter = 10\ngroup_size = 4\nverbosity = 2\n' "$DIR"
  printf 'online_recovery = %s\nspare_ranks = %s\n[advanced]\nlocal_test = 1\n' "$2" "$2"
} 
fresh() { rm -rf "$DIR"; mkdir -p "$DIR/nodes" "$DIR/global" "$DIR/meta"; }
now() { date +%s.%N; }
# timed OUT LOG CMD...: runs CMD (output in LOG); prints the seconds from its start to OUT's mtime
# (CMD stopped when it is still running 10 s after OUT appeared).
timed() {
  local out="$1" log="$2" pid waited=0 seen=-1 t0; shift 2
  t0=$(now); "$@" > "$log" 2>&1 & pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 0.5; waited=$((waited + 1))
    [ "$seen" -ge 0 ] || [ ! -s "$out" ] || seen=$waited
    if [ "$seen" -ge 0 ] && [ $((waited - seen)) -ge 20 ]; then kill "$pid"; fi
    # a job that hangs without its digest (Open MPI 5.0's own hangs after a failure)
    if [ "$waited" -eq $((2 * LIMIT_S)) ]; then echo "online.sh: $log: stopped after ${LIMIT_S} s" >&2; kill "$pid"; fi
    if [ "$waited" -ge $((2 * LIMIT_S + 20)) ]; then kill -9 "$pid"; pkill -9 -f "$DIR/c.fti" || true; fi
  done
  wait "$pid" || true
  [ -s "$out" ] || return 1
  python3 -c 'import os,sys; print(os.path.getmtime(sys.argv[1]) - float(sys.argv[2]))' "$out" "$t0"
}
args() { echo --rows "$ROWS" --cols "$COLS" --iters "$ITERS" --config "$DIR/c.fti" --output "$DIR/$1.out"; }

for np in "${@:-4 16}"; do
  for n in $np; do
    cleans=() onlines=() relaunches=() repairs=()
    for round in $(seq "$REPS"); do
      fresh; config "$DIR/c.fti" 1 > "$DIR/c.fti"
      clean=$(timed "$DIR/clean.out" "$DIR/clean.log" "${MPIEXEC[@]}" --with-ft ulfm -n $((n + 1)) "$H" $(args clean))
      cp "$DIR/clean.out" "$DIR.ref"
      # Open MPI 5.0.11 sometimes aborts or hangs in a job that lost a rank:
      # such a try is said and run again, up to TRIES times
      online=
      for try in $(seq "$TRIES"); do
        fresh; config "$DIR/c.fti" 1 > "$DIR/c.fti"
        if online=$(timed "$DIR/online.out" "$DIR/online.log" "${MPIEXEC[@]}" --with-ft ulfm -n $((n + 1)) "$H" \
          $(args online) --crash-at "$KILL_AT" --crash-rank 1); then break; fi
        echo "online.sh: $n ranks: online try $try ended without its digest:" \
          "$(grep -a -m1 -o 'An error occurred in .*\|Error in NBC[^(]*\|MPIX_Comm_shrink.*' "$DIR/online.log" || echo 'see online.log')" >&2
        online=
      done
      [ -n "$online" ] || { echo "online.sh: $n ranks: no online run finished in $TRIES tries" >&2; continue; }
      cmp -s "$DIR.ref" "$DIR/online.out" || echo "online.sh: $n ranks: online digest differs" >&2
      repairs+=("$(sed -n 's/.*replaced by spares in \([0-9.]*\) s, restart from checkpoint [0-9]* chosen in \([0-9.]*\) s.*/\1,\2/p' "$DIR/online.log" | head -1)")
      fresh; config "$DIR/c.fti" 0 > "$DIR/c.fti"
      relaunch=$(timed "$DIR/relaunch.out" "$DIR/relaunch.log" "$ROOT/tools/fti-run" --quiet --backoff 0 --status-dir "$DIR/st" \
        -- "${MPIEXEC[@]}" -n "$n" "$H" $(args relaunch) --crash-at "$KILL_AT" --crash-rank 1)
      cmp -s "$DIR.ref" "$DIR/relaunch.out" || echo "online.sh: $n ranks: relaunch digest differs" >&2
      cleans+=("$clean") onlines+=("$online") relaunches+=("$relaunch")
    done
    [ "${#onlines[@]}" -gt 0 ] || continue
    python3 - "$n" "${cleans[*]}" "${onlines[*]}" "${relaunches[*]}" "${repairs[*]}" <<'PY'
import json, statistics, sys
n = int(sys.argv[1])
clean, online, relaunch = ([float(x) for x in a.split()] for a in sys.argv[2:5])
reps = [tuple(float(y) for y in x.split(",")) for x in sys.argv[5].split() if x]
med = lambda v: round(statistics.median(v), 3)
# each round's faulty runs minus that round's clean run: drift between rounds cancels
o = [a - c for a, c in zip(online, clean)]
r = [a - c for a, c in zip(relaunch, clean)]
print(json.dumps({"bench": "online", "ranks": n, "spares": 1, "rounds": len(o),
                  "clean_s": med(clean), "online_run_s": med(online), "relaunch_run_s": med(relaunch),
                  "online_s": med(o), "online_s_range": [round(min(o), 3), round(max(o), 3)],
                  "relaunch_s": med(r), "relaunch_s_range": [round(min(r), 3), round(max(r), 3)],
                  "relaunch_over_online": round(med(r) / med(o), 2) if med(o) > 0 else None,
                  "repair_s": med([x[0] for x in reps]) if reps else None,
                  "choose_s": med([x[1] for x in reps]) if reps else None}))
PY
  done
done
