# Shared by the conformance_config_* tests: test/mpi/lib.sh (scratch dir $T,
# write_config, fail, pass) plus where this folder's programs are and a plain
# 4-rank launch (one host, node_size = 1: no node simulation needed).
source "$FTI_SOURCE_DIR/test/mpi/lib.sh"
CPROGS="$FTI_BUILD_DIR/test/conformance"

# run4 prog args...: 4 ranks; stdout to $T/out, stderr to $T/err; returns the
# launcher's status.
run4() {
  "$MPIEXEC" -n 4 -bind-to none "$@" > "$T/out" 2> "$T/err"
}

# show: the last run's output, for a failure message.
show() { cat "$T/out" "$T/err" >&2; }

# count_in FILE PATTERN: lines matching (0 when none).
count_in() { grep -c -- "$2" "$1" || true; }
