#!/usr/bin/env bash
# online_recovery = 1 where it cannot work: FTI_Init returns FTI_NSCS (-1) on
# every rank, with one message naming the config file and the key. Built
# without ULFM (MPICH): "online_recovery: not available with this MPI
# (<its name>)". Built with ULFM: spare_ranks taking every rank is refused,
# and a job launched without Open MPI's fault tolerance gets a warning.
source "$(dirname "$0")/lib.sh"
P="$PROGS/test_prog_ckpt_prog"
[ "$(id -u)" -ne 0 ] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

expect_init_fail() {
  local name="$1" cfg="$2" pattern="$3"
  run_nodes 4 1 "$P" "$cfg" expect-fail > "$T/out" 2> "$T/err" \
    || { cat "$T/out" "$T/err"; fail "$name: FTI_Init did not fail"; }
  [ "$(grep -c "^FTI_Init returned -1\$" "$T/out")" = 4 ] \
    || { cat "$T/out" "$T/err"; fail "$name: not every rank returned -1"; }
  grep -q -- "$pattern" "$T/err" || { cat "$T/err"; fail "$name: stderr does not say '$pattern'"; }
}

if [ "${FTI_HAVE_ULFM:-OFF}" != ON ]; then
  write_config "$T/o.fti" online_recovery=1
  expect_init_fail "no ULFM" "$T/o.fti" \
    "config $T/o.fti: \[basic\] online_recovery: not available with this MPI (MPICH Version: [0-9]"
  [ "$(grep -c "not available with this MPI" "$T/err")" = 1 ] \
    || { cat "$T/err"; fail "the refusal is not printed once"; }
  # Spares without online recovery: the key that is missing is named.
  write_config "$T/s.fti" spare_ranks=1
  expect_init_fail "spares alone" "$T/s.fti" "\[basic\] spare_ranks = 1 needs online_recovery = 1"
  pass "online_recovery refused without ULFM, naming the file, the key and the MPI"
else
  write_config "$T/all.fti" online_recovery=1 spare_ranks=4
  expect_init_fail "all spares" "$T/all.fti" \
    "config $T/all.fti: \[basic\] spare_ranks = 4 leaves no rank for the application: the job has 4 ranks"
  # launched without --with-ft ulfm (Open MPI's fault tolerance off): said
  # once; with it, not said
  warn="online_recovery = 1 but this job runs without MPI's fault tolerance (Open MPI: mpiexec --with-ft ulfm)"
  [ "$(grep -c "$warn" "$T/err")" = 1 ] || { cat "$T/err"; fail "no warning once that fault tolerance is off"; }
  "$MPIEXEC" --with-ft=ulfm -n 4 -bind-to none "$P" "$T/all.fti" expect-fail > "$T/out" 2> "$T/err" || true
  grep -q "leaves no rank for the application" "$T/err" || { cat "$T/err"; fail "with --with-ft: not refused"; }
  if grep -q "$warn" "$T/err"; then cat "$T/err"; fail "with --with-ft ulfm: warned that fault tolerance is off"; fi
  pass "spare_ranks taking every rank refused, naming the file and the key; fault tolerance off is said"
fi
