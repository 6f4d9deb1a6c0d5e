# Shared helpers for the MPI integration tests (sourced by test/mpi/*.sh).
# Each test gets a scratch dir $T with: nodes/ (node K's local storage is
# nodes/node<K>), global/, meta/. Two ways to simulate nodes on one machine:
#   FTI_NODE_MODE=folders (default): the library's own, [advanced] local_test = 1
#     with ckpt_dir = $T/nodes; no privilege needed.
#   FTI_NODE_MODE=namespaces: stricter, each rank in a mount namespace sees only
#     its node's folder, bound at $T/local (tools/fti-node-exec; root and
#     unshare -m); the test is skipped (exit 77) where that is not possible.
set -euo pipefail

: "${FTI_BUILD_DIR:?run through ctest}"
: "${FTI_SOURCE_DIR:?run through ctest}"
MPIEXEC="${MPIEXEC:-mpiexec}"
T="${FTI_TEST_DIR:-/tmp/fti-test-$$}"
NODE_EXEC="$FTI_SOURCE_DIR/tools/fti-node-exec"
PROGS="$FTI_BUILD_DIR/test/mpi"

NODE_MODE="${FTI_NODE_MODE:-folders}"

# Namespaces, when asked for, must work before anything runs: skip, never fail.
if [ "$NODE_MODE" = namespaces ]; then
  if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
    echo "SKIP: FTI_NODE_MODE=namespaces needs root and mount namespaces (unshare -m)"; exit 77
  fi
  LOCAL_DIR="$T/local" LOCAL_TEST=0
elif [ "$NODE_MODE" = folders ]; then
  LOCAL_DIR="$T/nodes" LOCAL_TEST=1
else
  echo "FTI_NODE_MODE must be folders or namespaces, not '$NODE_MODE'" >&2; exit 2
fi

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
  declare -A basic=( [head]=0 [node_size]=1 [ckpt_dir]="$LOCAL_DIR" [glbl_dir]="$T/global"
    [meta_dir]="$T/meta" [ckpt_l1]=0 [ckpt_l2]=0 [ckpt_l3]=0 [ckpt_l4]=0 [inline_l2]=1
    [inline_l3]=1 [inline_l4]=1 [keep_last_ckpt]=1 [keep_all_levels]=1 [l4_local_copy]=1 [group_size]=4 [verbosity]=2 )
  declare -A restart=( ) advanced=( [local_test]=$LOCAL_TEST )
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

# run_nodes NP NODE_SIZE prog args...: run under mpiexec, each rank on its "node"
# (NODE_SIZE must match the config's node_size).
run_nodes() {
  local np="$1" ns="$2"; shift 2
  if [ "$NODE_MODE" = namespaces ]; then
    "$MPIEXEC" -n "$np" -bind-to none "$NODE_EXEC" --root "$T/nodes" --local "$T/local" \
      --node-size "$ns" -- "$@"
  else
    "$MPIEXEC" -n "$np" -bind-to none "$@"
  fi
}

# use_node_mode CONFIG: points a config from elsewhere (a template) at this
# mode's node-local storage: ckpt_dir and [advanced] local_test.
use_node_mode() {
  sed -i -e "s|^\([[:space:]]*ckpt_dir[[:space:]]*=\).*|\1 $LOCAL_DIR|" \
         -e "/^[[:space:]]*local_test[[:space:]]*=/d" "$1"
  if grep -qi "^[[:space:]]*\[advanced\]" "$1"; then
    sed -i -e "s|^[[:space:]]*\[[Aa]dvanced\].*|&\nlocal_test = $LOCAL_TEST|" "$1"
  else
    printf "[advanced]\nlocal_test = %s\n" "$LOCAL_TEST" >> "$1"
  fi
}

# lose_node K: the node's local storage is gone.
lose_node() { rm -rf "$T/nodes/node$1"; }

# expect_refused WHAT REGEX CMD...: CMD fails within 60 s (a FIFO where a
# file belongs must not block it) and its output matches REGEX.
expect_refused() {
  local what="$1" re="$2"; shift 2
  set +e; timeout 60 "$@" > "$T/out" 2>&1; local rc=$?; set -e
  [ "$rc" -ne 124 ] || { cat "$T/out"; fail "$what: blocked (killed after 60 s)"; }
  [ "$rc" -ne 0 ] || { cat "$T/out"; fail "$what: the job succeeded"; }
  grep -Eq -- "$re" "$T/out" || { cat "$T/out"; fail "$what: no error matching '$re'"; }
}

# flip_middle FILE: one byte in the middle of FILE changed (its header intact).
flip_middle() { python3 -c "import os,sys; p=sys.argv[1]; n=os.path.getsize(p)//2; f=open(p,'r+b'); f.seek(n); b=f.read(1); f.seek(n); f.write(bytes([b[0]^0x5a]))" "$1"; }

# tampered_restore_refused PROG CONFIG SEED RANK FILE: ckpt_prog's restart with
# FILE (rank RANK's) changed between FTI_Init and FTI_Recover: RANK refuses the
# restore naming the file and variable 1; every other rank restores.
tampered_restore_refused() {
  local rank="$4" victim="$5"
  CKPT_PROG_TAMPER="$victim" run_nodes 4 1 "$1" "$2" check "$3" > "$T/out" 2>&1 &&
    { cat "$T/out"; fail "a file changed after FTI_Init was restored"; }
  grep -q "rank $rank: FTI_Recover -1" "$T/out" || { cat "$T/out"; fail "rank $rank did not refuse the restore"; }
  grep -q "$(basename "$victim"): variable 1: data checksum mismatch on restore" "$T/out" ||
    { cat "$T/out"; fail "the refusal does not name the file and the variable"; }
  if grep -v "rank $rank:" "$T/out" | grep -q "rank [0-9]*: FTI_Recover"; then
    cat "$T/out"; fail "an unchanged rank failed"
  fi
}

# l1_newest_damaged PROG CONFIG: L1 checkpoints of seeds 5 and 6 on 4 nodes,
# then the data of rank 2's newest file damaged (seed 5 stays restorable).
l1_newest_damaged() {
  run_nodes 4 1 "$1" "$2" write 5 1 > "$T/out" 2>&1 || { cat "$T/out"; fail "first checkpoint"; }
  run_nodes 4 1 "$1" "$2" write 6 1 > "$T/out" 2>&1 || { cat "$T/out"; fail "second checkpoint"; }
  local newest; newest="$(echo "$T"/nodes/node2/*/l1-s1-rank2.fti)"
  [ -f "$newest" ] || fail "no newest L1 file of rank 2: $(ls "$T"/nodes/node2/*/)"
  flip_middle "$newest"
}

# zstd:N where the build has libzstd, else zlib:N (1-9): tests that only need
# some compression run in both builds (a zstd config is refused without
# libzstd, test_config checks that message). FTI_HAVE_ZSTD comes from ctest.
zstd_or_zlib() {
  if [ "${FTI_HAVE_ZSTD:-ON}" = ON ]; then echo "zstd:$1"; else echo "zlib:$1"; fi
}

# start_lock_holder OUT CONFIG: lock_prog holds CONFIG's checkpoint set in the
# background (2 ranks, output to OUT) until $T/stop exists; sets HOLDER_PID
# (mpiexec's) and HOLDER_RANK0 (the pid of its rank 0, the lock holder).
start_lock_holder() {
  rm -f "$T/ready" "$T/stop"
  "$MPIEXEC" -n 2 -bind-to none "$PROGS/test_prog_lock_prog" "$2" hold "$T/ready" "$T/stop" > "$1" 2>&1 &
  HOLDER_PID=$!
  for _ in $(seq 1200); do
    [ -s "$T/ready" ] && break
    kill -0 "$HOLDER_PID" 2> /dev/null || break
    sleep 0.1
  done
  [ -s "$T/ready" ] || { cat "$1"; fail "the lock-holding job did not start"; }
  HOLDER_RANK0=$(cat "$T/ready")
}
