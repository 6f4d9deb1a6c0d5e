#!/usr/bin/env bash
# Runs the fault matrix through tools/fti-fault: every scenario line of
# test/fault/<app>.scn against examples/<app>.
#
#   run_matrix.sh                      every scenario of every .scn file
#   run_matrix.sh APP [SCENARIO]       one file, or one scenario of it (ctest
#                                      runs each scenario as fault_<app>_<scenario>)
#
# Nodes are simulated by the library (local_test = 1): no privilege needed.
# FTI_NODE_MODE=namespaces uses tools/fti-node-exec instead (skipped, exit 77,
# without root and mount namespaces).
set -euo pipefail
: "${FTI_BUILD_DIR:?run through ctest}" "${FTI_SOURCE_DIR:?run through ctest}"
T="${FTI_TEST_DIR:-/tmp/fti-fault-matrix}"
HERE="$FTI_SOURCE_DIR/test/fault"

# run_app APP [SCENARIO]: fti-fault over APP's scenarios (all, or the one named).
run_app() {
  local app="$1" only="${2:+^$2\$}" cmd know
  # know: what fti-fault checks the scenario lines against (the iterations,
  # the levels the application checkpoints itself, its crash message).
  case "$app" in
    heatdis) cmd=("$FTI_BUILD_DIR/examples/heatdis" --config {config} --output {output}
                  --iters 60 --rows 32 --cols 512)
             know=(--iters 60 --crash-marker 'heatdis: rank {rank}: injected crash \(SIGKILL\) at iteration {iter}') ;;
    particles) cmd=("$FTI_BUILD_DIR/examples/particles" --config {config} --output {output}
                    --count 3000 --steps 60 --every 10 --level 2)
               know=(--iters 60 --app-levels 2 --crash-marker 'EXIT CODE: 9|exited on\s+signal 9') ;;
    *) echo "run_matrix.sh: no application for $HERE/$app.scn (add it here)" >&2; return 2 ;;
  esac
  python3 "$FTI_SOURCE_DIR/tools/fti-fault" \
    --config "$HERE/$app.fti" --workdir "$T/$app" --seed 7 "${know[@]}" \
    --node-mode "${FTI_NODE_MODE:-folders}" \
    --crash-args "--crash-at {iter} --crash-rank {rank}" \
    --scenarios "$HERE/$app.scn" ${only:+--only "$only"} -- "${cmd[@]}"
}

rm -rf "$T"
if [ $# -gt 0 ]; then
  run_app "$@"
  exit $?
fi
status=0
for scn in "$HERE"/*.scn; do
  run_app "$(basename "$scn" .scn)" || status=1
done
exit $status
