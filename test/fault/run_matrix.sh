#!/usr/bin/env bash
# Runs the heatdis fault matrix through tools/fti-fault (needs root for the
# per-node mount namespaces of tools/fti-node-exec).
set -euo pipefail
: "${FTI_BUILD_DIR:?run through ctest}" "${FTI_SOURCE_DIR:?run through ctest}"
[ "$(id -u)" -eq 0 ] || { echo "skipped: needs root (mount namespaces)"; exit 77; }
T="${FTI_TEST_DIR:-/tmp/fti-fault-matrix}"
rm -rf "$T"
status=0
python3 "$FTI_SOURCE_DIR/tools/fti-fault" \
  --config "$FTI_SOURCE_DIR/test/fault/heatdis.fti" --workdir "$T" --seed 7 \
  --crash-args "--crash-at {iter} --crash-rank {rank}" \
  --scenarios "$FTI_SOURCE_DIR/test/fault/heatdis.scn" ${FTI_FAULT_ONLY:+--only "$FTI_FAULT_ONLY"} \
  -- "$FTI_BUILD_DIR/examples/heatdis" --config {config} --output {output} \
     --iters 60 --rows 32 --cols 512 || status=1

python3 "$FTI_SOURCE_DIR/tools/fti-fault" \
  --config "$FTI_SOURCE_DIR/test/fault/particles.fti" --workdir "$T/particles" --seed 7 \
  --crash-args "--crash-at {iter} --crash-rank {rank}" \
  --scenarios "$FTI_SOURCE_DIR/test/fault/particles.scn" ${FTI_FAULT_ONLY:+--only "$FTI_FAULT_ONLY"} \
  -- "$FTI_BUILD_DIR/examples/particles" --config {config} --output {output} \
     --count 3000 --steps 60 --every 10 --level 2 || status=1
exit $status
