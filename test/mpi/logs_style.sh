#!/usr/bin/env bash
# One log style (issue 32): [advanced] log_style chooses whose lines say the
# start and each checkpoint: FTI's on stdout ("[ FTI  Information ] : Ckpt.
# ID 7 (L1) ..."), ours on stderr ("[FTI r0] info: checkpoint #1 (id 7) ..."),
# or both. The default is fti: one line per checkpoint, FTI's, never two.
# With both, the two lines carry the same id, level and time. A bad value
# is named with the file and the key. The job summary says how the run
# began: a fresh start (also one that FTI_Init refused to restart), or the
# checkpoint it restarted from.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
# FTI 1.6's line, to its end (api.c, FTI_Checkpoint): the time and its parts.
FTI_CKPT='^\[ FTI  Information \] : Ckpt\. ID 7 \(L1\) \([0-9.]+ MB/proc\) taken in [0-9.]+ sec\. \(Wt:[0-9.]+s, Wr:[0-9.]+s, Ps:[0-9.]+s\) $'
OUR_CKPT='^\[FTI r0\] info: checkpoint #1 \(id 7\) level 1 committed: '
FTI_START='^\[ FTI  Information \] : (This is a restart\. )?The execution ID is: '
OUR_START='^\[FTI r0\] info: FTI [^ ]+ ready: '

count() { grep -Ec -- "$1" "$2" || true; }
expect() { # N PATTERN FILE WHAT
  local n; n=$(count "$2" "$3")
  [ "$n" = "$1" ] || { cat "$3"; fail "$4: $n lines matching '$2' in $(basename "$3"), expected $1"; }
}

# run STYLE: a fresh tree, one L1 checkpoint (id 7), then a restart, with
# log_style = STYLE ("default": no key); outputs in $T/STYLE.{w,r}.{out,err}.
run() {
  local s="$1" key=()
  rm -rf "$T/nodes" "$T/global" "$T/meta"; mkdir -p "$T/nodes" "$T/global" "$T/meta"
  [ "$s" = default ] || key=(advanced.log_style="$s")
  write_config "$T/$s.fti" "${key[@]}"
  run_nodes 4 1 "$P" "$T/$s.fti" write 7 1 4 > "$T/$s.w.out" 2> "$T/$s.w.err" ||
    { cat "$T/$s.w.err"; fail "$s: write"; }
  run_nodes 4 1 "$P" "$T/$s.fti" check 7 4 > "$T/$s.r.out" 2> "$T/$s.r.err" ||
    { cat "$T/$s.r.err"; fail "$s: restart"; }
  grep -q PASS "$T/$s.r.out" || fail "$s: restart did not restore"
}

# The default: FTI's lines only.
run default
expect 1 "$FTI_CKPT" "$T/default.w.out" "default style, FTI's checkpoint line"
expect 0 "$OUR_CKPT" "$T/default.w.err" "default style, our checkpoint line"
expect 1 "$FTI_START" "$T/default.w.out" "default style, FTI's start line"
expect 0 "$OUR_START" "$T/default.w.err" "default style, our start line"
expect 1 "^\[ FTI  Information \] : This is a restart\. The execution ID is: " "$T/default.r.out" \
  "default style, FTI's restart line"
expect 0 "$OUR_START" "$T/default.r.err" "default style, our start line on restart"

# libfti: ours only, nothing of FTI's on stdout.
run libfti
expect 0 '^\[ ?FTI ' "$T/libfti.w.out" "libfti style, FTI's lines"
expect 1 "$OUR_CKPT" "$T/libfti.w.err" "libfti style, our checkpoint line"
expect 1 "${OUR_START}.*fresh start" "$T/libfti.w.err" "libfti style, our start line"
expect 1 "${OUR_START}.*restart" "$T/libfti.r.err" "libfti style, our restart line"

# both: two lines per checkpoint, the same id, level and time.
run both
expect 1 "$FTI_CKPT" "$T/both.w.out" "both, FTI's checkpoint line"
expect 1 "$OUR_CKPT" "$T/both.w.err" "both, our checkpoint line"
expect 1 "$FTI_START" "$T/both.w.out" "both, FTI's start line"
expect 1 "$OUR_START" "$T/both.w.err" "both, our start line"
fti_s=$(sed -nE 's/.* taken in ([0-9.]+) sec\..*/\1/p' "$T/both.w.out")
our_s=$(sed -nE 's/.* committed: .* in ([0-9.]+) s \(.*/\1/p' "$T/both.w.err")
# FTI prints 2 decimals, we print 3: the same measure rounds alike.
awk -v a="$fti_s" -v b="$our_s" 'BEGIN { d = a - b; exit !(d <= 0.0051 && d >= -0.0051) }' ||
  fail "both: FTI's line says $fti_s s, ours $our_s s: not one measure"
echo "both: FTI's line $fti_s s, ours $our_s s"

# A bad value: FTI_Init fails; the error names the file, the key and the value, once.
write_config "$T/bad.fti" advanced.log_style=loud
run_nodes 4 1 "$P" "$T/bad.fti" expect-fail > "$T/bad.out" 2>&1 || { cat "$T/bad.out"; fail "bad log_style accepted"; }
expect 1 "^\[FTI r0\] error: config $T/bad\.fti: \[advanced\] log_style = 'loud' is not one of fti, libfti, both \(on ranks 0-3\)$" \
  "$T/bad.out" "bad log_style"

# Job summaries say how the run began.
SUMMARY='^\[FTI r0\] info: job summary: .*'
expect 1 "${SUMMARY}; fresh start$" "$T/default.w.err" "fresh start's summary"
expect 0 "restart" "$T/default.w.err" "fresh start's summary"
expect 1 "${SUMMARY}; restart from checkpoint #1 \(id 7, L1\) took [0-9.]+ s$" "$T/default.r.err" \
  "restart's summary"
# A restart FTI_Init refuses (a node's files lost): FTI_NREC, a fresh start.
rm -rf "$T/nodes" "$T/global" "$T/meta"; mkdir -p "$T/nodes" "$T/global" "$T/meta"
write_config "$T/nrec.fti" keep_last_ckpt=0 keep_all_levels=0
CKPT_PROG_SKIP_FINALIZE=1 run_nodes 4 1 "$P" "$T/nrec.fti" write 3 1 > "$T/nrec.w" 2>&1 ||
  { cat "$T/nrec.w"; fail "checkpoint before the lost node"; }
lose_node 1
run_nodes 4 1 "$P" "$T/nrec.fti" fresh 9 1 > "$T/nrec.out" 2> "$T/nrec.err" || { cat "$T/nrec.err"; fail "FTI_NREC run"; }
expect 1 "${SUMMARY}; fresh start$" "$T/nrec.err" "refused restart's summary"
pass "log_style: one line per checkpoint by default, the same numbers with both; summaries say fresh start or restart"
