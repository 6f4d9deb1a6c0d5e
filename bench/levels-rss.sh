#!/usr/bin/env bash
# Peak RSS per rank at each level (bench_levels DIR MIB rss:L, one process
# per level since ru_maxrss only grows): bench/levels-rss.sh [DIR] [MIB] [NP]
# with BUILD (default build) the build folder. One JSON line per level.
set -euo pipefail
BUILD="${BUILD:-build}"
DIR="${1:-/dev/shm}" MIB="${2:-256}" NP="${3:-4}"
for level in 1 2 3 4; do
  mpiexec -n "$NP" -bind-to none "$BUILD/bench/bench_levels" "$DIR" "$MIB" "rss:$level" |
    grep '"levels_rss"'
done
