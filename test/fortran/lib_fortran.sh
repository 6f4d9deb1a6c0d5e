# Shared by test/fortran/fortran_*.sh: the MPI test helpers (test/mpi/lib.sh:
# $T, write_config, run_nodes, lose_node, fail, pass) plus the Fortran paths,
# which CMake passes as arguments:
#   $1 libfti's dir  $2 libfti_f's dir  $3 the module dir  $4 heatdis_f90
#   $5 the test programs' dir
source "$FTI_SOURCE_DIR/test/mpi/lib.sh"
[ $# -ge 5 ] || fail "run through ctest (needs the build paths as arguments)"
F_LIBDIR="$1"
F_FLIBDIR="$2"
F_MODDIR="$3"
F_HEATDIS="$4"
FPROGS="$5"
F_SRC="$FTI_SOURCE_DIR/test/fortran"

# run_logged LOG cmd...: runs cmd with its output in LOG; shows LOG on failure.
run_logged() {
  local log="$1"; shift
  if "$@" > "$log" 2>&1; then return 0; fi
  echo "--- $log" >&2; tail -n 40 "$log" >&2
  return 1
}

# expect_pass LOG NAME: the program said PASS (rank 0 prints it) in LOG.
expect_pass() {
  grep -q "^PASS: $2\$" "$1" || { tail -n 40 "$1" >&2; fail "$2: no PASS line in $1"; }
}

# write_then_read PROG NAME CONFIG [WRITE_ARGS...]: PROG write CONFIG
# WRITE_ARGS, then PROG read CONFIG, on 4 nodes; both runs must pass. The
# command in $BETWEEN (if set, e.g. "lose_node 2") runs between the two.
write_then_read() {
  local prog="$1" name="$2" config="$3"; shift 3
  run_logged "$T/$name-write.log" run_nodes 4 1 "$FPROGS/$prog" write "$config" "$@" ||
    fail "$name: the writing run failed"
  expect_pass "$T/$name-write.log" "fortran $name write"
  ${BETWEEN:-true}
  run_logged "$T/$name-read.log" run_nodes 4 1 "$FPROGS/$prog" read "$config" ||
    fail "$name: the restarted run failed"
  expect_pass "$T/$name-read.log" "fortran $name read"
}
