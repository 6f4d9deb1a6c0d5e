#!/usr/bin/env bash
# One message for all ranks (issue 32): the library's lines on stdout and
# stderr ("[FTI r<rank>] ..." and FTI's "[ FTI  Information ] ...") do not grow
# with the number of ranks. The same program runs at 4 and at 32 ranks (one
# rank per simulated node, tiny data): a config that FTI_Init rejects on every
# rank, a first checkpoint whose write fails on every rank (FTI_FAULT), on
# rank 1 only and on three ranks (0, 2 and the last), and a run with two checkpoints and a restart at the default
# verbosity and at verbosity = 1 (debug). Each case must print as many library
# lines at 32 ranks as at 4; the errors are said once, with their ranks.
# FTI's own debug lines ("[FTI Debug - <rank>] : Has nodeFlag ...", one per
# node at verbosity 1) are FTI 1.6's per-rank output, kept for its scripts,
# and not counted.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"

# lines NP CASE VERBOSITY: runs CASE at NP ranks in a fresh scratch tree;
# prints the number of library lines; the output stays in $T/out.NP.CASE.V.
lines() {
  local np="$1" case="$2" v="$3" out="$T/out.$1.$2.$3"
  rm -rf "$T/nodes" "$T/global" "$T/meta"; mkdir -p "$T/nodes" "$T/global" "$T/meta"
  case "$case" in
    badconfig)
      write_config "$T/c.fti" verbosity="$v" group_size=0
      run_nodes "$np" 1 "$P" "$T/c.fti" expect-fail > "$out" 2>&1 || fail "$np ranks: expect-fail" ;;
    ckptfail) # the first checkpoint's first write fails with ENOSPC on every rank
      write_config "$T/c.fti" verbosity="$v"
      FTI_FAULT=write:1:ENOSPC run_nodes "$np" 1 "$P" "$T/c.fti" write 7 1 4 > "$out" 2>&1 || true
      grep -q 'No space left on device' "$out" || fail "$np ranks: no ENOSPC error: $(tail -3 "$out")" ;;
    rank1fail) # the same on rank 1 only: its own failure, named as rank 1's
      write_config "$T/c.fti" verbosity="$v"
      FTI_FAULT=write:1:ENOSPC@1 run_nodes "$np" 1 "$P" "$T/c.fti" write 7 1 4 > "$out" 2>&1 || true ;;
    subsetfail) # on ranks 0, 2 and the last: "3 ranks: 0, 2, 31"
      write_config "$T/c.fti" verbosity="$v"
      FTI_FAULT=write:1:ENOSPC@0+2+$((np - 1)) run_nodes "$np" 1 "$P" "$T/c.fti" write 7 1 4 > "$out" 2>&1 || true ;;
    run)
      write_config "$T/c.fti" verbosity="$v"
      { run_nodes "$np" 1 "$P" "$T/c.fti" write 7 1 4 &&
        run_nodes "$np" 1 "$P" "$T/c.fti" write 8 2 4 &&
        run_nodes "$np" 1 "$P" "$T/c.fti" check 8 4; } > "$out" 2>&1 || fail "$np ranks: run $(tail -5 "$out")"
      grep -q PASS "$out" || fail "$np ranks: restart did not restore" ;;
  esac
  library_lines "$out" | wc -l
}

# The library's lines of a run's output. "fault injection: ..." warnings are
# left out: the test's own faults (FTI_FAULT), each announced by the rank it hits.
library_lines() {
  grep -E '^\[FTI r-?[0-9]+\]|^\[ FTI ' "$1" | grep -v '\] warning: fault injection: ' || true
}

for c in badconfig:2 ckptfail:2 rank1fail:2 subsetfail:2 run:2 run:1; do
  case="${c%%:*}" v="${c#*:}"
  n4=$(lines 4 "$case" "$v")
  n32=$(lines 32 "$case" "$v")
  echo "$case verbosity $v: $n4 library lines at 4 ranks, $n32 at 32"
  if [ "$n4" != "$n32" ]; then
    diff <(library_lines "$T/out.4.$case.$v") <(library_lines "$T/out.32.$case.$v") | head -20 >&2 || true
    fail "$case at verbosity $v: $n4 lines at 4 ranks, $n32 at 32"
  fi
done

# The config error is said once, naming the key and every rank it concerns.
grep -E '^\[FTI r0\] error: .*group_size = 0 is out of range.* \(on ranks 0-31\)$' "$T/out.32.badconfig.2" > /dev/null ||
  fail "the config error once on ranks 0-31: $(grep -E '^\[FTI r' "$T/out.32.badconfig.2" | head -3)"
# A write that fails on every rank: once, with the ranks; on rank 1 only: rank 1's.
grep -E '^\[FTI r0\] error: .*rank0\.fti.*No space left on device \(on ranks 0-31, each with its own numbers\)$' "$T/out.32.ckptfail.2" > /dev/null ||
  fail "the write error once on ranks 0-31: $(grep -E '^\[FTI r' "$T/out.32.ckptfail.2" | head -3)"
grep -E '^\[FTI r0\] error: .*rank1\.fti.*No space left on device \(on rank 1\)$' "$T/out.32.rank1fail.2" > /dev/null ||
  fail "rank 1's write error naming rank 1: $(grep -E '^\[FTI r' "$T/out.32.rank1fail.2" | head -3)"
grep -E '^\[FTI r0\] error: .*rank0\.fti.*No space left on device \(on 3 ranks: 0, 2, 31, each with its own numbers\)$' "$T/out.32.subsetfail.2" > /dev/null ||
  fail "the write error of ranks 0, 2, 31 once: $(grep -E '^\[FTI r' "$T/out.32.subsetfail.2" | head -3)"
pass "logs once: the same line count at 4 and 32 ranks"
