# Shared by the fti-run tests (sourced): scratch dir $T, a heatdis config for
# 4 ranks on one node (no fti-node-exec, no root), a fault-free reference
# digest, and a per-attempt wrapper app (app.sh) that fti-run launches.
set -euo pipefail
: "${FTI_BUILD_DIR:?run through ctest}" "${FTI_SOURCE_DIR:?run through ctest}"
MPIEXEC="${MPIEXEC:-mpiexec}"
T="${FTI_TEST_DIR:-/tmp/fti-run-test-$$}"
FTI_RUN="$FTI_SOURCE_DIR/tools/fti-run"
HEATDIS="$FTI_BUILD_DIR/examples/heatdis"
APP="$FTI_SOURCE_DIR/test/fti_run/app.sh"
ITERS=60
rm -rf "$T" && mkdir -p "$T"
export HEATDIS

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "PASS: $*"; }

# heatdis_config FILE DIR [extra lines...]: L1 every 10 iterations under DIR.
heatdis_config() {
  local file="$1" dir="$2"; shift 2
  { printf '[basic]\nhead = 0\nnode_size = 4\ngroup_size = 1\nverbosity = 2\n'
    printf 'ckpt_dir = %s/local\nglbl_dir = %s/global\nmeta_dir = %s/meta\n' "$dir" "$dir" "$dir"
    printf 'ckpt_l1 = 0\nckpt_l2 = 0\nckpt_l3 = 0\nckpt_l4 = 0\nckpt_l1_iter = 10\n'
    printf 'keep_last_ckpt = 0\n'
    for line in "$@"; do printf '%s\n' "$line"; done
  } > "$file"
}

# reference: the fault-free digest of the same problem, in $T/ref.txt.
reference() {
  heatdis_config "$T/ref.fti" "$T/ref"
  "$MPIEXEC" -n 4 -bind-to none "$HEATDIS" --mib 1 --iters $ITERS --config "$T/ref.fti" \
    --output "$T/ref.txt" > "$T/ref.log" 2>&1 || { cat "$T/ref.log"; fail "reference run"; }
}

# fti_run ARGS...: fti-run over app.sh with the job config $T/job.fti; the
# JSON summary line lands in $T/summary.json, fti-run's status in $RC.
fti_run() {
  set +e
  python3 "$FTI_RUN" --backoff 0.2 --config "$T/job.fti" --summary "$T/summary.json" "$@" -- \
    "$MPIEXEC" -n 4 -bind-to none bash "$APP" --mib 1 --iters $ITERS --config "$T/job.fti" \
    --output "$T/out.txt" > "$T/fti-run.out" 2> "$T/fti-run.err"
  RC=$?
  set -e
  cat "$T/fti-run.err" | grep -E "^fti-run|^  run|FTI r0\] (error|warning)" || true
}

# summary_field EXPR: a Python expression over the summary dict s.
summary_field() {
  python3 -c "import json,sys; s=json.loads(open(sys.argv[1]).read().splitlines()[-1]); print($1)" \
    "$T/summary.json"
}
