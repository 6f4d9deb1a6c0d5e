# Shared helpers for the MPI integration tests (sourced by test/mpi/*.sh).
# Each test gets a scratch dir $T with: nodes/ (per-node local storage, bound
# at $T/local inside each rank), global/, meta/.
set -euo pipefail

: "${FTI_BUILD_DIR:?run through ctest}"
: "${FTI_SOURCE_DIR:?run through ctest}"
MPIEXEC="${MPIEXEC:-mpiexec}"
T="${FTI_TEST_DIR:-/tmp/fti-test-$$}"
NODE_EXEC="$FTI_SOURCE_DIR/tools/fti-node-exec"
PROGS="$FTI_BUILD_DIR/test/mpi"

rm -rf "$T"
mkdir -p "$T/nodes" "$T/local" "$T/global" "$T/meta"

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "PASS: $*"; }

# write_config FILE [key=value ...]: a [basic] config over $T; later keys win.
# A key given as section.key goes into that section ([restart], [advanced]).
# keep_all_levels = 1 and l4_local_copy = 1 (ours): checkpoints stay as written
# (no FTI-style removal of lower levels or of L4's local copy, no flush at
# FTI_Finalize), so tests can damage any file; test/conformance checks FTI's rules.
write_config() {
  local file="$1"; shift
  declare -A basic=( [head]=0 [node_size]=1 [ckpt_dir]="$T/local" [glbl_dir]="$T/global"
    [meta_dir]="$T/meta" [ckpt_l1]=0 [ckpt_l2]=0 [ckpt_l3]=0 [ckpt_l4]=0 [inline_l2]=1
    [inline_l3]=1 [inline_l4]=1 [keep_last_ckpt]=1 [keep_all_levels]=1 [l4_local_copy]=1 [group_size]=4 [verbosity]=2 )
  declare -A restart=( ) advanced=( [local_test]=1 )
  local kv k v
  for kv in "$@"; do
    k="${kv%%=*}"; v="${kv#*=}"
    case "$k" in
      restart.*) restart[${k#restart.}]="$v" ;;
      advanced.*) advanced[${k#advanced.}]="$v" ;;
      *) basic[$k]="$v" ;;
    esac
  done
  { echo "[basic]"; for k in "${!basic[@]}"; do echo "$k = ${basic[$k]}"; done
    echo "[restart]"; for k in "${!restart[@]}"; do echo "$k = ${restart[$k]}"; done
    echo "[advanced]"; for k in "${!advanced[@]}"; do echo "$k = ${advanced[$k]}"; done
  } > "$file"
}

# run_nodes NP NODE_SIZE prog args...: run under mpiexec, each rank on its "node".
run_nodes() {
  local np="$1" ns="$2"; shift 2
  "$MPIEXEC" -n "$np" -bind-to none "$NODE_EXEC" --root "$T/nodes" --local "$T/local" \
    --node-size "$ns" -- "$@"
}

# lose_node K: the node's local storage is gone.
lose_node() { rm -rf "$T/nodes/node$1"; }
