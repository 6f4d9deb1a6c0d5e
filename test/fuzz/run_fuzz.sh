#!/usr/bin/env bash
# Short CI run of every fuzz target (label "fuzz"): seeds first, then each
# target for FTI_FUZZ_SECONDS (default 25) with AddressSanitizer and
# UndefinedBehaviorSanitizer. Longer manual runs: docs/FUZZING.md.
set -euo pipefail
: "${FTI_BUILD_DIR:?run through ctest}"
B="$FTI_BUILD_DIR/test/fuzz"
T="${FTI_TEST_DIR:-/tmp/fti-fuzz}"
SECS="${FTI_FUZZ_SECONDS:-25}"
[ -x "$B/fuzz_config" ] || { echo "skipped: no clang/libFuzzer at configure time"; exit 77; }
rm -rf "$T"; mkdir -p "$T/corpus"
"$B/fuzz_seeds" "$T/corpus"
for target in config ckpt meta fti16; do
  bin="$B/fuzz_${target/ckpt/ckpt_header}"
  mkdir -p "$T/found-$target"
  echo "== fuzz_$target for ${SECS}s"
  (cd "$T/found-$target" && "$bin" -max_total_time="$SECS" -max_len=16384 -print_final_stats=1 \
      "$T/corpus/$target" 2>&1 | grep -E "stat::number_of_executed_runs|^#[0-9]+ +DONE" || true)
  # libFuzzer writes crash-*/leak-*/timeout-* files for any failure.
  if grep -qE '^(crash|leak|timeout|oom)-' <<< "$(ls "$T/found-$target")"; then
    echo "FAIL: fuzz_$target found an input that breaks the parser: $T/found-$target"; exit 1
  fi
done
echo "fuzzing: no crash, leak or timeout"
