#!/usr/bin/env bash
# One rank of heatdis as fti-run launches it; what attempt k does comes from
# the environment (passed through mpiexec):
#   ATTEMPT<k>_ARGS   extra heatdis arguments (e.g. --crash-at 35 --crash-rank 2)
#   ATTEMPT<k>_FAULT  FTI_FAULT for this attempt (e.g. crash:recovery@1)
#   ATTEMPT<k>_WIPE   a directory emptied before the rank starts (lost checkpoint files)
set -euo pipefail
k="${FTI_RUN_ATTEMPT:?launched without fti-run}"
eval "extra=\${ATTEMPT${k}_ARGS:-}; fault=\${ATTEMPT${k}_FAULT:-}; wipe=\${ATTEMPT${k}_WIPE:-}"
if [ -n "$wipe" ]; then rm -rf "${wipe:?}"/*; fi
if [ -n "$fault" ]; then export FTI_FAULT="$fault"; fi
# shellcheck disable=SC2086
exec "${HEATDIS:?}" "$@" $extra
