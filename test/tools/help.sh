#!/usr/bin/env bash
# Every program we ship or build for users answers --help: exit 0, a usage
# line on stdout, nothing else run (no MPI job, no benchmark figures, no
# traceback). The tools, the examples and the benchmarks that this build
# made (those of optional parts are checked where they are built).
set -uo pipefail
: "${FTI_BUILD_DIR:?run through ctest}" "${FTI_SOURCE_DIR:?run through ctest}"
B="$FTI_BUILD_DIR" S="$FTI_SOURCE_DIR"
T="${FTI_TEST_DIR:-/tmp/fti-help-$$}"; mkdir -p "$T"
progs=("$B/tools/fti-ckpt" "$S/tools/fti-run" "$S/tools/fti-fault")
for p in "$B"/examples/heatdis "$B"/examples/particles "$B"/examples/heatdis_f90 \
         "$B"/examples/fpga/fpga_* "$B"/examples/gpu/heatdis_gpu "$B"/bench/bench_* \
         "$B"/bench/gpu/bench_gpu "$B"/bench/fpga/*; do
  [ -x "$p" ] && [ -f "$p" ] && progs+=("$p")
done
bad=0
for p in "${progs[@]}"; do
  rc=0
  (cd "$T" && timeout 60 "$p" --help > "$T/out" 2> "$T/err") || rc=$?
  why=""
  [ "$rc" -eq 0 ] || why="exit status $rc"
  grep -qi "usage" "$T/out" || why="${why:+$why; }no usage on stdout"
  grep -q "Traceback" "$T/err" && why="${why:+$why; }a traceback"
  grep -Eqw "nan|-nan" "$T/out" && why="${why:+$why; }ran (figures on stdout)"
  if [ -n "$why" ]; then
    echo "FAIL: $p --help: $why"; head -3 "$T/out" "$T/err"; bad=$((bad + 1))
  else
    echo "ok: $(basename "$p") --help"
  fi
done
[ "$bad" -eq 0 ] || { echo "FAIL: $bad of ${#progs[@]} programs do not answer --help"; exit 1; }
echo "PASS: ${#progs[@]} programs answer --help"
