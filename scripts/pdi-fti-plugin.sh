#!/usr/bin/env bash
# pdi-fti-plugin.sh: build PDI's FTI plugin, unchanged, against our installed
# libfti and run the plugin's own tests (ctest, at their own rank counts).
#
# PDI (github pdidev/pdi) removed its FTI plugin in 2024; 1.7.1 (tag 1.7.1-gh)
# is its last release with plugins/fti. This script:
#   1. takes PDI's sources at REF from a git directory (bare mirror or clone),
#      or uses an existing source tree as is;
#   2. installs our build (cmake --install) into WORK/fti;
#   3. builds PDI's core and its MPI plugin (the tests load it) with PDI's
#      vendored yaml, paraconf and spdlog, into WORK/pdi (skipped when done);
#   4. configures plugins/fti as its own project (find_package(FTI 1.6) finds
#      our package through FTI_DIR), Debug so the tests' assert()s are live,
#      builds it with its tests, checks that it links our libfti.so;
#   5. runs ctest there and prints "passed N of M"; exits non-zero unless all
#      pass. Not part of our ctest suite: PDI is fetched, not vendored.
#
#   scripts/pdi-fti-plugin.sh --pdi PDI_GIT_DIR_OR_SOURCE [--ref REF]
#                             [--build-dir FTI_BUILD] [--work DIR] [--jobs N]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${FTI_BUILD_DIR:-$ROOT/build}"
PDI="" REF="1.7.1-gh" WORK="${TMPDIR:-/tmp}/pdi-fti-plugin" JOBS=2

usage() { sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --pdi) PDI="$(realpath -m "$2")"; shift 2 ;;
    --ref) REF="$2"; shift 2 ;;
    --build-dir) BUILD="$(realpath -m "$2")"; shift 2 ;;
    --work) WORK="$(realpath -m "$2")"; shift 2 ;;
    --jobs) JOBS="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "pdi-fti-plugin.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
[ -n "$PDI" ] || { echo "pdi-fti-plugin.sh: --pdi is required" >&2; usage >&2; exit 2; }
[ -f "$BUILD/CMakeCache.txt" ] || { echo "pdi-fti-plugin.sh: no libfti build in $BUILD (CMakeCache.txt missing)" >&2; exit 2; }

SRC="$WORK/src" FTI_PREFIX="$WORK/fti" PDI_PREFIX="$WORK/pdi"
mkdir -p "$WORK"
step() { echo "== $*"; }

# PDI's sources at REF. The vendored trees of other plugins' dependencies hold
# large test files a mirror may lack (and the plugin does not need them): only
# the vendored libraries the core uses are taken.
get_sources() {
  if [ -f "$PDI/plugins/fti/CMakeLists.txt" ]; then SRC="$PDI"; return; fi
  if [ -d "$PDI/.git" ]; then PDI="$PDI/.git"; fi # a clone: its git directory
  git --git-dir="$PDI" rev-parse --verify -q "$REF^{commit}" >/dev/null ||
    { echo "pdi-fti-plugin.sh: $PDI has no commit '$REF'" >&2; exit 2; }
  local commit; commit="$(git --git-dir="$PDI" rev-parse "$REF^{commit}")"
  if [ "$(cat "$SRC/.pdi-commit" 2>/dev/null)" = "$commit" ]; then return; fi
  rm -rf "$SRC"; mkdir -p "$SRC"
  local paths
  paths="$(git --git-dir="$PDI" ls-tree --name-only "$commit" | grep -vx vendor)
$(git --git-dir="$PDI" ls-tree --name-only "$commit:vendor" |
    grep -E '^(libyaml|paraconf|spdlog)-' | sed 's|^|vendor/|')"
  # git archive names objects a partial mirror lacks even outside the paths
  # taken (and exits 0): its messages go to a log, not the terminal.
  # shellcheck disable=SC2086
  git --git-dir="$PDI" archive "$commit" $paths 2> "$WORK/archive.log" | tar -x -C "$SRC"
  echo "$commit" > "$SRC/.pdi-commit"
}

# The plugin's files as the commit has them: every blob hash matches.
check_unchanged() {
  [ -f "$SRC/.pdi-commit" ] || { echo "plugin sources: a source tree, not checked against a commit"; return; }
  local commit n=0 type hash path
  commit="$(cat "$SRC/.pdi-commit")"
  while read -r _ type hash path; do
    [ "$type" = blob ] || continue
    [ "$(git hash-object "$SRC/$path")" = "$hash" ] ||
      { echo "pdi-fti-plugin.sh: $path differs from $commit" >&2; exit 1; }
    n=$((n + 1))
  done < <(git --git-dir="$PDI" ls-tree -r "$commit" plugins/fti)
  echo "plugin sources: $n files of plugins/fti, each as in $commit"
}

install_fti() {
  rm -rf "$FTI_PREFIX"
  cmake --install "$BUILD" --prefix "$FTI_PREFIX" > "$WORK/fti-install.log"
}

# PDI's superbuild with everything off but the core and the MPI plugin.
build_pdi() {
  if [ -f "$WORK/pdi.done" ] && [ "$(cat "$WORK/pdi.done")" = "$(cat "$SRC/.pdi-commit" 2>/dev/null || echo tree)" ]; then
    return
  fi
  local off=""
  for p in DECL_HDF5 DECL_NETCDF DECL_SION FLOWVR FTI PYCALL SET_VALUE SERIALIZE TEST TRACE USER_CODE; do
    off="$off -DBUILD_${p}_PLUGIN=OFF"
  done
  # shellcheck disable=SC2086
  cmake -S "$SRC" -B "$WORK/pdi-build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$PDI_PREFIX" -DUSE_DEFAULT=EMBEDDED \
    -DBUILD_TESTING=OFF -DBUILD_BENCHMARKING=OFF -DBUILD_DOCUMENTATION=OFF \
    -DBUILD_INDENT=OFF -DBUILD_FORTRAN=OFF -DBUILD_PYTHON=OFF \
    -DBUILD_CFG_VALIDATOR=OFF -DBUILD_MPI_PLUGIN=ON $off > "$WORK/pdi-configure.log"
  nice -n 19 cmake --build "$WORK/pdi-build" -j"$JOBS" > "$WORK/pdi-build.log" 2>&1 ||
    { tail -30 "$WORK/pdi-build.log" >&2; echo "pdi-fti-plugin.sh: PDI's core failed to build (log: $WORK/pdi-build.log)" >&2; exit 1; }
  # The superbuild stages its parts in the build tree; install copies them out.
  cmake --install "$WORK/pdi-build" > "$WORK/pdi-install.log"
  cat "$SRC/.pdi-commit" 2>/dev/null > "$WORK/pdi.done" || echo tree > "$WORK/pdi.done"
}

# The plugin as its own project: its CMakeLists.txt and tests/, unchanged.
build_plugin() {
  rm -rf "$WORK/plugin"
  cmake -S "$SRC/plugins/fti" -B "$WORK/plugin" -DCMAKE_BUILD_TYPE=Debug \
    -DBUILD_TESTING=ON -DFTI_DIR="$FTI_PREFIX/lib/cmake/FTI" \
    -DCMAKE_PREFIX_PATH="$PDI_PREFIX" -DMPIEXEC_PREFLAGS="-bind-to;none" \
    > "$WORK/plugin-configure.log" 2>&1 ||
    { tail -30 "$WORK/plugin-configure.log" >&2; echo "pdi-fti-plugin.sh: the plugin failed to configure" >&2; exit 1; }
  nice -n 19 cmake --build "$WORK/plugin" -j"$JOBS" > "$WORK/plugin-build.log" 2>&1 ||
    { grep -E 'error|Error' "$WORK/plugin-build.log" | head -30 >&2; echo "pdi-fti-plugin.sh: the plugin failed to build (log: $WORK/plugin-build.log)" >&2; exit 1; }
  local so; so="$(find "$WORK/plugin" -name 'libpdi_fti_plugin.so' | head -1)"
  local linked; linked="$(ldd "$so" | awk '/libfti\.so/ {print $3}')"
  case "$(realpath "$linked")" in
    "$(realpath "$FTI_PREFIX")"/*) echo "plugin links $linked" ;;
    *) echo "pdi-fti-plugin.sh: the plugin links '$linked', not our $FTI_PREFIX" >&2; exit 1 ;;
  esac
}

run_tests() {
  local log="$WORK/ctest.log" rc=0
  (cd "$WORK/plugin" && ctest --output-on-failure) > "$log" 2>&1 || rc=$?
  grep -E '^ *[0-9]+/[0-9]+ Test' "$log" || true
  local summary; summary="$(grep -E 'tests passed, [0-9]+ tests failed out of' "$log" || true)"
  echo "$summary"
  [ -n "$summary" ] || { tail -30 "$log" >&2; echo "pdi-fti-plugin.sh: ctest gave no summary (log: $log)" >&2; exit 1; }
  local failed total
  failed="$(sed -E 's/.* ([0-9]+) tests failed.*/\1/' <<< "$summary")"
  total="$(sed -E 's/.*out of ([0-9]+).*/\1/' <<< "$summary")"
  echo "PDI FTI plugin ($REF): passed $((total - failed)) of $total (log: $log)"
  [ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
}

step "PDI sources ($REF)"; get_sources; echo "in $SRC"; check_unchanged
step "libfti from $BUILD into $FTI_PREFIX"; install_fti
step "PDI core and MPI plugin into $PDI_PREFIX"; build_pdi
step "FTI plugin in $WORK/plugin"; build_plugin
step "the plugin's tests"; run_tests
