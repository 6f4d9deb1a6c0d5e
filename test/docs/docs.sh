#!/usr/bin/env bash
# Docs that stay true (label docs): installs this build into a scratch
# prefix, then checks every command, script, flag, path and config key that
# README.md and docs/*.md name (check_docs.py says how; allow.txt holds the
# deliberate exceptions, each with its reason).
set -euo pipefail
: "${FTI_BUILD_DIR:?run through ctest}" "${FTI_SOURCE_DIR:?run through ctest}"
T="${FTI_TEST_DIR:-/tmp/fti-docs-$$}"
rm -rf "$T" && mkdir -p "$T"
cmake --install "$FTI_BUILD_DIR" --prefix "$T/prefix" > "$T/install.log" 2>&1 ||
  { cat "$T/install.log"; echo "FAIL: cmake --install $FTI_BUILD_DIR"; exit 1; }
cd "$T"  # the scripts' --help runs here, never in the source tree
exec python3 "$FTI_SOURCE_DIR/test/docs/check_docs.py" --src "$FTI_SOURCE_DIR" \
  --build "$FTI_BUILD_DIR" --prefix "$T/prefix" "$@"
