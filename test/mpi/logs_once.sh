#!/usr/bin/env bash
# One message for all ranks (issue 32): the library's lines on stdout and
# stderr ("[FTI r<rank>] ..." and FTI's "[ FTI  Information ] ...") do not grow
# with the number of ranks. The same program runs at 4 and at 32 ranks (one
# rank per simulated node, tiny data): a config that FTI_Init rejects on every
# rank, a first checkpoint whose write fails on every rank (FTI_FAULT), on
# rank 1 only and on three ranks (0, 2 and the last), and a run with two checkpoints and a restart at the default
# verbosity and at verbosity = 1 (debug), 3 (warnings) too, and a run of
# heatdis (FTI_Snapshot: FTI's "Current iter" debug lines) at verbosity 1.
# Each case must print as many library lines at 32 ranks as at 4, FTI's debug
# lines counted; the errors are said once, with their ranks. One kind of
# line is left out of the count: FTI's "[FTI Debug - <rank>] : Has nodeFlag
# = 1 and nodeID = K ..." at verbosity 1, one per node and checkpoint, by
# FTI's design (FTI's nodeFlag check reads one per node from every rank's
# output); it is counted apart, exactly one per node and checkpoint, and
# with log_style = libfti (no FTI line) nothing is left out of the count.
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
    run|runlibfti) # runlibfti: log_style = libfti, ours only
      local style=(); [ "$case" = run ] || style=(advanced.log_style=libfti)
      write_config "$T/c.fti" verbosity="$v" "${style[@]}"
      { run_nodes "$np" 1 "$P" "$T/c.fti" write 7 1 4 &&
        run_nodes "$np" 1 "$P" "$T/c.fti" write 8 2 4 &&
        run_nodes "$np" 1 "$P" "$T/c.fti" check 8 4; } > "$out" 2>&1 || fail "$np ranks: run $(tail -5 "$out")"
      grep -q PASS "$out" || fail "$np ranks: restart did not restore" ;;
    snapshot) # heatdis: an L1 checkpoint every 10 iterations; an L4 one each hour, never
      # due, makes FTI_Snapshot sync (at iterations 1, 2, 4, 8, ...: a sync step of 4 at most)
      write_config "$T/c.fti" verbosity="$v" ckpt_l1_iter=10 ckpt_l4_sec=3600 max_sync_intv=4
      run_nodes "$np" 1 "$FTI_BUILD_DIR/examples/heatdis" --rows 8 --cols 64 --iters 30 \
        --config "$T/c.fti" > "$out" 2>&1 || fail "$np ranks: heatdis $(tail -5 "$out")"
      grep -q "Current iter" "$out" || [ "$v" != 1 ] || fail "$np ranks: no FTI_Snapshot debug line" ;;
  esac
  library_lines "$out" | wc -l
}

# The library's lines of a run's output. "fault injection: ..." warnings are
# left out: the test's own faults (FTI_FAULT), each announced by the rank it hits.
# FTI's nodeFlag lines are counted apart (nodeflag_lines).
library_lines() {
  grep -E '^\[FTI r-?[0-9]+\]|^\[ FTI |^\[FTI Debug - ' "$1" |
    grep -v -e '\] warning: fault injection: ' -e '^\[FTI Debug - [0-9]*\] : Has nodeFlag = 1 ' || true
}
nodeflag_lines() { grep -c '^\[FTI Debug - [0-9]*\] : Has nodeFlag = 1 ' "$1" || true; }

for c in badconfig:1 badconfig:2 badconfig:3 ckptfail:1 ckptfail:2 ckptfail:3 rank1fail:2 \
    subsetfail:1 subsetfail:2 run:1 run:2 run:3 runlibfti:1 snapshot:1; do
  case="${c%%:*}" v="${c#*:}"
  n4=$(lines 4 "$case" "$v")
  n32=$(lines 32 "$case" "$v")
  echo "$case verbosity $v: $n4 library lines at 4 ranks, $n32 at 32"
  if [ "$n4" != "$n32" ]; then
    diff <(library_lines "$T/out.4.$case.$v") <(library_lines "$T/out.32.$case.$v") | head -20 >&2 || true
    fail "$case at verbosity $v: $n4 lines at 4 ranks, $n32 at 32"
  fi
done

# FTI's nodeFlag lines: one per node (here one rank each) and checkpoint, as FTI's.
for np in 4 32; do
  n=$(nodeflag_lines "$T/out.$np.run.1")
  [ "$n" = $((2 * np)) ] || fail "run at verbosity 1, $np ranks: $n nodeFlag lines, expected $((2 * np))"
  [ "$(nodeflag_lines "$T/out.$np.runlibfti.1")" = 0 ] || fail "log_style = libfti printed nodeFlag lines"
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
