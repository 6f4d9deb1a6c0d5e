#!/usr/bin/env bash
# FTI_Init failure never aborts: for every early error (config file missing,
# a directory, not INI, empty name, bad value, out of range, key given twice,
# unsupported ckpt_io, group_size or node_size not fitting the job, ckpt_dir
# not creatable, a restart required with nothing to restart from, with and
# without heads) every rank
# gets the code, FTI_COMM_WORLD is still the communicator given and works
# (an MPI_Allreduce over it), MPI_Finalize is clean and the job exits 0 with
# no abort in its output. The message names the file and the key.
source "$(dirname "$0")/lib_config.sh"
P="$CPROGS/conformance_prog_conf_init_rc"

# crash_output FILE...: what MPICH and the C library print when a process
# calls MPI_Abort, hits an MPI fatal error or dies of a signal. Not the word
# "abort" alone: hwloc prints "aborting linux discovery" where /sys is absent.
crash_output() {
  grep -qE "MPI_Abort|MPI_ABORT was invoked|Fatal error in|MPI_Comm_free|BAD TERMINATION|KILLED BY SIGNAL|[Ss]egmentation fault|Aborted( \(core dumped\))?$" "$@"
}

# The check catches a real MPI_Abort (many_prog aborts when FTI_Init fails)
# and lets hwloc's message pass. The control runs as a singleton, without
# the launcher: a launcher that kills the job drops output not yet forwarded,
# MPI's own "MPI_Abort" line included.
"$PROGS/test_prog_many_prog" "$T/nope.fti" write 1 1 > "$T/out" 2> "$T/err" \
  && { show; fail "control: many_prog did not abort"; }
crash_output "$T/out" "$T/err" || { show; fail "control: a real MPI_Abort is not recognised"; }
printf 'hwloc/linux: failed to find sysfs cpu topology directory, aborting linux discovery.\n' > "$T/hwloc"
crash_output "$T/hwloc" && fail "control: hwloc's 'aborting linux discovery' taken for a crash"

# expect_clean_fail NAME CODE CONFIG PATTERN
expect_clean_fail() {
  local name="$1" code="$2" cfg="$3" pattern="$4"
  run4 "$P" "$cfg" || { show; fail "$name: the job exited non-zero"; }
  [ "$(count_in "$T/out" ": FTI_Init returned $code, comm given 1, sum 4\$")" = 4 ] \
    || { show; fail "$name: not every rank got $code with the given, working communicator"; }
  if crash_output "$T/out" "$T/err"; then
    show; fail "$name: abort or crash output"
  fi
  grep -q -- "$pattern" "$T/err" || { show; fail "$name: stderr does not say '$pattern'"; }
  echo "ok: $name"
}

expect_clean_fail "missing file" -1 "$T/nope.fti" "config $T/nope.fti: cannot read: No such file"
mkdir -p "$T/adir"
expect_clean_fail "a directory" -1 "$T/adir" "config $T/adir"
printf '[basic\nckpt_dir = x\nthis is no ini\n' > "$T/notini.fti"
expect_clean_fail "not INI" -1 "$T/notini.fti" "config $T/notini.fti: not a valid INI file: line 1, section header '\[basic': the section header has no ']'"
expect_clean_fail "empty name" -1 "" "config file name is empty"

write_config "$T/v.fti" ckpt_l1=abc
expect_clean_fail "not a number" -1 "$T/v.fti" "\[basic\] ckpt_l1 = 'abc' is not an integer"
write_config "$T/r.fti" verbosity=9
expect_clean_fail "out of range" -1 "$T/r.fti" "\[basic\] verbosity = 9 is out of range \[1, 4\]"
write_config "$T/io.fti" ckpt_io=4
expect_clean_fail "unsupported ckpt_io" -1 "$T/io.fti" "\[basic\] ckpt_io = 4 (SIONlib)"
write_config "$T/dup.fti"
printf '[Basic]\nCkpt_L1 = 3\n' >> "$T/dup.fti"
expect_clean_fail "key given twice" -1 "$T/dup.fti" "\[basic\] ckpt_l1 is given twice (lines [0-9]* and [0-9]*)"

write_config "$T/g.fti" group_size=3
expect_clean_fail "group_size" -1 "$T/g.fti" "\[basic\] group_size = 3 does not divide the 4 nodes"
write_config "$T/n.fti" node_size=3
expect_clean_fail "node_size" -1 "$T/n.fti" "\[basic\] node_size = 3 does not divide the 4 ranks"
touch "$T/afile"
write_config "$T/d.fti" ckpt_dir="$T/afile/sub"
expect_clean_fail "ckpt_dir" -1 "$T/d.fti" "\[basic\] ckpt_dir: cannot create directory $T/afile/sub"
write_config "$T/q.fti" restart=required
expect_clean_fail "restart required, none there" -2 "$T/q.fti" "restart"

# With heads: a config error is seen by every rank before any head serves
# (all four get the code and the given communicator); a failed restart comes
# after the heads started serving: they are released and end, and the two
# application ranks get FTI_NREC with FTI_COMM_WORLD their own communicator.
write_config "$T/h1.fti" head=1 node_size=2 group_size=1 verbosity=9
expect_clean_fail "heads, config error" -1 "$T/h1.fti" "\[basic\] verbosity = 9"
write_config "$T/h2.fti" head=1 node_size=2 group_size=1 restart=required
run4 "$P" "$T/h2.fti" || { show; fail "heads, failed restart: the job exited non-zero"; }
[ "$(count_in "$T/out" ": FTI_Init returned -2, comm given 0, sum 2\$")" = 2 ] \
  || { show; fail "heads, failed restart: the application ranks did not get -2 and their communicator"; }
[ "$(count_in "$T/out" "FTI_Init returned")" = 2 ] || { show; fail "heads, failed restart: a head returned"; }
echo "ok: heads, failed restart"

# The same program succeeds on a good config (the checks above can tell).
write_config "$T/ok.fti"
run4 "$P" "$T/ok.fti" || { show; fail "good config: job failed"; }
[ "$(count_in "$T/out" ": FTI_Init returned 0, ")" = 4 ] || { show; fail "good config: FTI_Init failed"; }
pass "every early FTI_Init error returns on every rank and exits cleanly"
