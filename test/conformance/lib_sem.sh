# Shared by test/conformance/conformance_sem_*.sh: FTI's suite behaviours run
# with FTI's defaults (no keep_all_levels), without root: every rank is its
# own "node" (node_size = 1), simulated with local_test = 1 (node K's files in
# $LOCAL_DIR/node<K>/); losing all nodes is emptying $LOCAL_DIR.
source "$FTI_SOURCE_DIR/test/mpi/lib.sh"
SEM="$FTI_BUILD_DIR/test/conformance/conformance_prog_sem_prog"
[ -x "$SEM" ] || fail "sem_prog is not built ($SEM)"
NP=4

# sem_config FILE [key=value...]: lib.sh's config with FTI's retention rules.
sem_config() { write_config "$1" keep_all_levels=0 l4_local_copy=0 keep_last_ckpt=0 "${@:2}"; }

# sem CONFIG MODE ARGS...: sem_prog on NP ranks; a hang becomes a failure.
sem() { timeout 240 "$MPIEXEC" -n "$NP" -bind-to none "$SEM" "$@"; }

# fresh: no checkpoint of an earlier case is left.
fresh() { rm -rf "$LOCAL_DIR" "$T/global" "$T/meta"; mkdir -p "$LOCAL_DIR" "$T/global" "$T/meta"; }

# expect_exit RC LOG CMD...: CMD exits with RC (its output in LOG).
expect_exit() {
  local want="$1" log="$2" rc=0; shift 2
  "$@" > "$log" 2>&1 || rc=$?
  [ "$rc" -eq "$want" ] || { cat "$log"; fail "'${*:2}' exited $rc, expected $want"; }
}

# expect_pass MODE LOG CMD...: CMD exits 0 and rank 0 printed "PASS: MODE".
expect_pass() {
  local mode="$1" log="$2"; shift 2
  expect_exit 0 "$log" "$@"
  grep -q "^PASS: $mode" "$log" || { cat "$log"; fail "no 'PASS: $mode'"; }
}

# local_files GLOB: how many local checkpoint files match (all ranks).
local_files() { find "$LOCAL_DIR" -type f -name "$1" | wc -l; }
global_files() { find "$T/global" -type f -name "$1" | wc -l; }

# sem_out OUT CONFIG MODE ARGS...: sem with stdout in OUT (stderr stays).
sem_out() { local out="$1"; shift; sem "$@" > "$out"; }
