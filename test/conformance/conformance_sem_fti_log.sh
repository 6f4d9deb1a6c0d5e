#!/usr/bin/env bash
# FTI's own log lines, which FTI's suites and job scripts grep (ckptDiffSizes,
# useCases nodeflag, cornerCases): on stdout, FTI's prefixes, at FTI's
# verbosity: info lines ("Variable ID n to protect.", "Ckpt. ID n (Ln)",
# "The execution ID is" / "This is a restart.") once, by application rank 0,
# at verbosity <= 2; debug lines ("Has nodeFlag = 1 and nodeID = K.
# CkptLvel = L.", one rank per node and level) with the rank, at verbosity 1
# (the default log_style = fti; log_style = libfti prints none of them).
source "$(dirname "$0")/lib_sem.sh"
INFO='^\[ FTI  Information \] : '

count() { grep -c -- "$1" "$2" || true; }
expect_count() { # N PATTERN FILE WHAT
  local n; n=$(count "$2" "$3")
  [ "$n" -eq "$1" ] || { cat "$3"; fail "$4: $n lines '$2' in $3, expected $1"; }
}

# Verbosity 1: info and debug lines. 4 ranks, one per node.
fresh
sem_config "$T/c.fti" verbosity=1
expect_exit 0 "$T/w.err" sem_out "$T/w.out" "$T/c.fti" mixed-write 2
for v in 1 2; do # a new variable: info; protected again (id 2): debug, every rank
  expect_count 1 "${INFO}Variable ID $v to protect (Stored in CPU)\. Current ckpt\. size per rank is [0-9.]*MB\.  *\$" \
    "$T/w.out" "protect"
done
# FTI 1.6 says a protected-again variable with its own words ("reseted",
# "Stored In", two spaces) on every rank; every rank would say it alike, so
# application rank 0 says it for all (issue 32): twice, not 8 times.
expect_count 2 "^\[FTI Debug - 000000\] : Variable ID 2 reseted\. (Stored In CPU)\.  Current ckpt\. size per rank is [0-9.]*MB\.  *\$" \
  "$T/w.out" "protect again"
expect_count 0 "^\[FTI Debug - 00000[1-3]\] : Variable ID 2 " "$T/w.out" "protect again, other ranks"
for id in 1 2 3; do
  expect_count 1 "${INFO}Ckpt\. ID $id (L2) ([0-9.]* MB/proc) taken in [0-9.]* sec\." "$T/w.out" "checkpoint $id"
done
for node in 0 1 2 3; do
  expect_count 3 "^\[FTI Debug - 00000$node\] : Has nodeFlag = 1 and nodeID = $node\. CkptLvel = 2\. *\$" \
    "$T/w.out" "nodeFlag of node $node"
done
id=$(sed -n "s/${INFO}The execution ID is: \([^ ]*\) *\$/\1/p" "$T/w.out")
[ -n "$id" ] && [ -d "$T/meta/$id" ] || { cat "$T/w.out"; fail "no 'The execution ID is' line naming the job's id"; }
grep -q "FTI Debug\|FTI  Information" "$T/w.err" && fail "FTI's lines went to stderr"
grep -q "Error" "$T/w.out" "$T/w.err" && fail "'Error' in a clean run's output (FTI's suites grep it)"

expect_exit 0 "$T/r.err" sem_out "$T/r.out" "$T/c.fti" mixed-check
grep -q "^PASS: mixed-check" "$T/r.out" || { cat "$T/r.out" "$T/r.err"; fail "restart failed"; }
expect_count 1 "${INFO}This is a restart\. The execution ID is: $id *\$" "$T/r.out" "restart"

# Verbosity 2 (FTI's default): info lines only; 3: none of them.
fresh
sem_config "$T/c2.fti" verbosity=2
expect_exit 0 "$T/v2.err" sem_out "$T/v2.out" "$T/c2.fti" mixed-write 1
expect_count 3 "${INFO}Ckpt\. ID [1-3] (L1)" "$T/v2.out" "verbosity 2"
expect_count 0 "FTI Debug" "$T/v2.out" "verbosity 2"
fresh
sem_config "$T/c3.fti" verbosity=3
expect_exit 0 "$T/v3.err" sem_out "$T/v3.out" "$T/c3.fti" mixed-write 1
expect_count 0 "FTI  Information\|FTI Debug" "$T/v3.out" "verbosity 3"
# log_style = libfti: none of FTI's lines, at any verbosity.
fresh
sem_config "$T/c4.fti" verbosity=1 advanced.log_style=libfti
expect_exit 0 "$T/v4.err" sem_out "$T/v4.out" "$T/c4.fti" mixed-write 1
expect_count 0 "FTI  Information\|FTI Debug" "$T/v4.out" "log_style = libfti"
pass "FTI's log lines on stdout at FTI's verbosity"
