#!/usr/bin/env bash
# compare-fti.sh - the same driver (bench/compare_driver.c, FTI API only)
# built against FTI 1.6 and against this library, run on the same cases,
# interleaved (ours, FTI, ours, FTI, ...), and a table of median times and
# ratios ours/FTI (below 1: we are faster).
#
#   bench/compare-fti.sh [FTI_PREFIX] [-d DIR] [-s MIB] [-r REPS] [-n NP] [-b BUILD]
#
#   FTI_PREFIX  an FTI installation (include/fti.h, lib/libfti.so); also taken
#               from the environment variable FTI_PREFIX. Without one the
#               comparison is skipped (exit 0, with a message).
#   -d DIR      where checkpoints go (default /dev/shm)   -s MIB per rank (default 64)
#   -r REPS     repetitions per case (default 3)         -n NP ranks (default 4)
#   -b BUILD    this library's build tree (default: build/ beside bench/)
#
# Cases: checkpoint at L1..L4 (inline, POSIX, block_size 1024 KiB as FTI's
# default); restart with nothing lost (after L1), with one node lost after
# L2 and after L3 (node 1's local folder deleted: both libraries put node K's
# files under ckpt_dir/node<K>/<exec id>/ with local_test = 1, one rank per
# node here), and with every node's local storage lost after L4. A
# checkpoint run ends without FTI_Finalize (a crash), so its files stay; the
# restart run times FTI_Init + FTI_Protect + FTI_Recover and checks every
# byte, and the peak RSS of the largest rank beside FTI's (median of the
# reps). FTI rewrites its config at FTI_Init ([restart] failure = 1 and its
# exec id), so every run of a case starts from a fresh config.
# --help prints the comment above (how to call it) and exits.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
prefix="${FTI_PREFIX:-}"
dir=/dev/shm mib=64 reps=3 np=4 build="$here/../build"
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then prefix="$1"; shift; fi
while getopts "d:s:r:n:b:" o; do
  case "$o" in
    d) dir="$OPTARG" ;; s) mib="$OPTARG" ;; r) reps="$OPTARG" ;; n) np="$OPTARG" ;; b) build="$OPTARG" ;;
    *) sed -n '2,16p' "$0"; exit 2 ;;
  esac
done
if [ -z "$prefix" ]; then
  echo "compare-fti: skipped: no FTI installation given (pass its prefix or set FTI_PREFIX)"
  exit 0
fi

die() { echo "compare-fti: $*" >&2; exit 1; }
fti_lib="$(find "$prefix" -maxdepth 2 -name 'libfti.so' | head -n 1)"
[ -f "$prefix/include/fti.h" ] && [ -n "$fti_lib" ] || die "$prefix: no include/fti.h and lib*/libfti.so"
# the build's own library, not another build inside it (build/packaging-minimal/
# holds an older, minimal one that find may list first)
our_lib="$build/libfti.so"
[ -e "$our_lib" ] || our_lib="$(find "$build" -maxdepth 2 -name 'libfti.so' | head -n 1)"
[ -n "$our_lib" ] || die "$build: no libfti.so (build this library first, or pass -b BUILD)"
MPICC="${MPICC:-mpicc}" MPIEXEC="${MPIEXEC:-mpiexec}"

work="$(mktemp -d "$dir/compare-fti.XXXXXX")"
trap 'rm -rf "$work"' EXIT
build_driver() { # NAME INCLUDE_DIR LIB
  "$MPICC" -O2 -o "$work/driver-$1" "$here/compare_driver.c" -I"$2" -L"$(dirname "$3")" -lfti \
    -Wl,-rpath,"$(dirname "$3")" || die "cannot build the driver against $3"
}
build_driver ours "$here/../include" "$our_lib"
build_driver fti "$prefix/include" "$fti_lib"

config() { # FILE BASE
  cat > "$1" <<CFG
[basic]
head = 0
node_size = 1
ckpt_dir = $2/local
glbl_dir = $2/global
meta_dir = $2/meta
ckpt_l1 = 0
ckpt_l2 = 0
ckpt_l3 = 0
ckpt_l4 = 0
inline_l2 = 1
inline_l3 = 1
inline_l4 = 1
keep_last_ckpt = 0
group_size = $(( np < 4 ? np : 4 ))
ckpt_io = 1
verbosity = 3
[restart]
failure = 0
exec_id = XXXX-XX-XX_XX-XX-XX
[advanced]
block_size = 1024
transfer_size = 16
local_test = 1
CFG
}

run() { # LIB LOG ARGS...: rank 0's TIME, or fail with the log; its RSS_MIB goes to $work/rss-LIB
  local lib="$1" log="$2"; shift 2
  "$MPIEXEC" -n "$np" -bind-to none "$work/driver-$lib" "$@" > "$log" 2>&1 ||
    { tail -n 20 "$log" >&2; die "$lib: driver $* failed (log above)"; }
  awk '/^RSS_MIB /{print $2}' "$log" > "$work/rss-$lib"
  awk '/^TIME /{print $2}' "$log"
}

# one LIB CASE: the time of one run of CASE (ckptL | restart-none | restart-l2-node |
# restart-l3-node | restart-l4-all) with LIB, from fresh directories.
one() {
  local lib="$1" case="$2" base="$work/$1"
  rm -rf "$base"; mkdir -p "$base/local" "$base/global" "$base/meta"
  config "$base/c.fti" "$base"
  case "$case" in
    ckpt*) run "$lib" "$base/log" "$base/c.fti" ckpt "${case#ckpt}" "$mib"; return ;;
    restart-none) run "$lib" "$base/log0" "$base/c.fti" ckpt 1 "$mib" > /dev/null ;;
    restart-l2-node) run "$lib" "$base/log0" "$base/c.fti" ckpt 2 "$mib" > /dev/null; rm -rf "$base/local/node1" ;;
    restart-l3-node) run "$lib" "$base/log0" "$base/c.fti" ckpt 3 "$mib" > /dev/null; rm -rf "$base/local/node1" ;;
    restart-l4-all) run "$lib" "$base/log0" "$base/c.fti" ckpt 4 "$mib" > /dev/null; rm -rf "$base/local"/* ;;
  esac
  run "$lib" "$base/log" "$base/c.fti" restart 0 "$mib"
}

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

echo "compare-fti: $np ranks x $mib MiB in $dir, $reps reps, interleaved; load: $(cat /proc/loadavg)"
echo "peak RSS: the largest rank's, MiB, the driver's two buffers of $mib MiB included; +: ours minus FTI's"
printf "%-18s %10s %10s %12s %10s %10s %8s\n" case "ours (s)" "FTI (s)" "ours/FTI" "ours RSS" "FTI RSS" "+MiB"
for case in ckpt1 ckpt2 ckpt3 ckpt4 restart-none restart-l2-node restart-l3-node restart-l4-all; do
  : > "$work/t-ours"; : > "$work/t-fti"; : > "$work/m-ours"; : > "$work/m-fti"
  for ((i = 0; i < reps; i++)); do
    one ours "$case" >> "$work/t-ours"; cat "$work/rss-ours" >> "$work/m-ours"
    one fti "$case" >> "$work/t-fti"; cat "$work/rss-fti" >> "$work/m-fti"
  done
  a="$(median < "$work/t-ours")" b="$(median < "$work/t-fti")"
  ra="$(median < "$work/m-ours")" rb="$(median < "$work/m-fti")"
  printf "%-18s %10.3f %10.3f %12.2f %10.1f %10.1f %8.1f\n" "$case" "$a" "$b" \
    "$(awk -v a="$a" -v b="$b" 'BEGIN {print (b > 0 ? a / b : 0)}')" "$ra" "$rb" \
    "$(awk -v a="$ra" -v b="$rb" 'BEGIN {print a - b}')"
done
echo "load at the end: $(cat /proc/loadavg)"
