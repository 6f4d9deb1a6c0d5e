# Helpers of the FPGA example tests (sourced by test/fpga/fpga_*.sh): the
# MPI helpers of test/mpi/lib.sh, plus running an example, comparing its
# per-rank results, and checking a crash and the restart that follows.
source "$FTI_SOURCE_DIR/test/mpi/lib.sh"
EX="$FTI_BUILD_DIR/examples/fpga"
NP=4
# The emulated platform configures its xclbin; with XRT, build the kernels
# into this file first (examples/fpga/README.md).
[ -f "$EX/fpga_kernels.xclbin" ] || {
  echo "skip: no $EX/fpga_kernels.xclbin (XRT build without the kernels' xclbin)"; exit 77; }

# run_app LOG prog args...: 4 ranks, one node each; output in LOG.
run_app() {
  local log="$1"; shift
  run_nodes "$NP" 1 "$@" > "$log" 2>&1
}

# same_results A B: every rank's result file A.<r> equals B.<r>, byte for byte.
same_results() {
  local r
  for r in $(seq 0 $((NP - 1))); do
    cmp -s "$1.$r" "$2.$r" || fail "result of rank $r differs: $1.$r vs $2.$r"
  done
}

# last_ckpt LOG RANK: "<task word> <n> blocks <m>" of the rank's last CKPT line.
last_ckpt() { grep "^rank $2: CKPT " "$1" | tail -n 1 | sed "s/^rank $2: CKPT //"; }
resumed() { grep "^rank $2: RESUME " "$1" | tail -n 1 | sed "s/^rank $2: RESUME //"; }

# crash_and_restart NAME REF prog args...: the run with args (which carry
# --crash-task/--crash-at) must crash; the restart must resume exactly where
# the crashed rank's last checkpoint was, and end with REF's results. Sets
# CKPT_BLOCKS to the blocks of that checkpoint.
crash_and_restart() {
  local name="$1" ref="$2"; shift 2
  if run_app "$T/$name.crash.log" "$@" --out "$T/$name"; then
    fail "$name: the run was expected to crash"
  fi
  grep -q "^rank 0: CRASH" "$T/$name.crash.log" || fail "$name: no crash (see $T/$name.crash.log)"
  run_app "$T/$name.restart.log" "$@" --crash-at -1 --out "$T/$name" ||
    fail "$name: restart failed (see $T/$name.restart.log)"
  local want got
  want="$(last_ckpt "$T/$name.crash.log" 0)"
  got="$(resumed "$T/$name.restart.log" 0)"
  [ -n "$want" ] && [ "$want" = "$got" ] || fail "$name: checkpointed '$want' but resumed at '$got'"
  CKPT_BLOCKS="${want##* blocks }" # for callers that check where the kernel was
  same_results "$T/$name" "$ref"
  echo "ok: $name crashed after '$want', resumed there, results identical"
}
