# shellcheck shell=bash
# The out-of-tree consumer application (project/), shared by consumer.sh and
# test/packaging/consumer_no_cuda.sh (sourced): its config, its build against
# an installed FTI with the MPI the library was built with, and its
# checkpoint/restart round trip on 4 ranks.
: "${FTI_SOURCE_DIR:?run through ctest}"
: "${FTI_MPICC:?run through ctest (the MPI compiler wrapper the build was configured with)}"
: "${MPIEXEC:?run through ctest (the MPI launcher the build was configured with)}"
CONSUMER_PROJECT="$FTI_SOURCE_DIR/test/conformance/consumer/project"
# A command prefix for every consumer step (consumer_no_cuda.sh hides the
# CUDA toolkit with it); empty by default.
CONSUMER_RUN=()

# consumer_config FILE DIR: the application's FTI config, its folders in DIR.
consumer_config() {
  cat > "$1" <<CFG
[basic]
head = 0
node_size = 4
ckpt_dir = $2/local
glbl_dir = $2/global
meta_dir = $2/meta
ckpt_l1 = 0
ckpt_l2 = 0
ckpt_l3 = 0
ckpt_l4 = 0
keep_last_ckpt = 1
group_size = 1
verbosity = 2
CFG
}

# consumer_cmake BUILD PREFIX TARGET [cmake args...]: configures and builds the
# consumer project against the install in PREFIX, linking TARGET. FindMPI is
# given the build's wrapper: left to itself it takes PATH's mpicc, which may
# be another MPI than libfti's. Prints the logs and fails when a step fails.
consumer_cmake() {
  local b="$1" prefix="$2" target="$3"; shift 3
  "${CONSUMER_RUN[@]}" cmake -S "$CONSUMER_PROJECT" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" \
    -DFTI_CONSUMER_TARGET="$target" -DMPI_C_COMPILER="$FTI_MPICC" "$@" > "$b.configure.log" 2>&1 ||
    { cat "$b.configure.log"; fail "consumer of $target: configure"; }
  "${CONSUMER_RUN[@]}" cmake --build "$b" > "$b.build.log" 2>&1 ||
    { cat "$b.build.log"; fail "consumer of $target: build"; }
}

# consumer_same_mpi APP LIBFTI: APP loads the same MPI library as LIBFTI (the
# installed libfti.so) and only that one; two MPIs in one process is a
# consumer built with another MPI's wrapper.
consumer_same_mpi() {
  local app lib
  app=$(ldd "$1" | grep -o 'libmpi[^ ]* => [^ ]*' | sort)
  lib=$(ldd "$2" | grep -o 'libmpi[^ ]* => [^ ]*' | sort)
  [ -n "$lib" ] || fail "ldd $2 names no libmpi"
  [ "$app" = "$lib" ] ||
    fail "$1 loads MPI library '${app//$'\n'/, }' but libfti loads '$lib': built with another MPI"
}

# consumer_roundtrip APP CONFIG OUT: a checkpoint on 4 ranks, then a restart
# that must restore every byte; OUT.write and OUT.check keep the output.
consumer_roundtrip() {
  local app="$1" cfg="$2" out="$3"
  "${CONSUMER_RUN[@]}" "$MPIEXEC" -n 4 -bind-to none "$app" "$cfg" write > "$out.write" 2>&1 ||
    { cat "$out.write"; fail "$app: checkpoint run"; }
  grep -q "write: PASS" "$out.write" || { cat "$out.write"; fail "$app: checkpoint"; }
  "${CONSUMER_RUN[@]}" "$MPIEXEC" -n 4 -bind-to none "$app" "$cfg" check > "$out.check" 2>&1 ||
    { cat "$out.check"; fail "$app: restart run"; }
  grep -q "check: PASS (0 bad bytes)" "$out.check" ||
    { cat "$out.check"; fail "$app: the restart did not restore every byte"; }
}
