#!/usr/bin/env bash
# cmake --install into a temporary prefix: man pages, examples, config
# templates, docs, licence and changelog land under share/; every installed
# tool answers --version with the version of the installed fti.h; the
# installed examples build against the installed package.
set -euo pipefail
: "${FTI_BUILD_DIR:?run through ctest}" "${FTI_SOURCE_DIR:?run through ctest}"
T="${FTI_TEST_DIR:-/tmp/fti-install-$$}"
P="$T/prefix"
rm -rf "$T" && mkdir -p "$T"
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$FTI_BUILD_DIR" --prefix "$P" > "$T/install.log" || fail "cmake --install"
version=$(sed -n 's/^#define FTI_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' "$P/include/fti.h" | paste -sd.)
[ -n "$version" ] || fail "no version in the installed fti.h"

for tool in fti-ckpt fti-run fti-fault fti-node-exec; do
  [ -x "$P/bin/$tool" ] || fail "$tool not installed in bin/"
  out=$("$P/bin/$tool" --version) || fail "$tool --version exited non-zero"
  [ "$out" = "$tool (libfti) $version" ] || fail "$tool --version printed '$out'"
  "$P/bin/$tool" --help > "$T/$tool.help" || fail "$tool --help exited non-zero"
  page="$P/share/man/man1/$tool.1"
  [ -s "$page" ] || fail "no man page $page"
  grep -q '^\.SH NAME' "$page" && grep -q "^$tool \\\\- " "$page" || fail "$page has no NAME section"
  grep -q "$version" "$page" || fail "$page does not carry version $version"
  # The page is the tool's --help: every option of the help is in it.
  for opt in $(grep -o -- '--[a-z][a-z-]*' "$T/$tool.help" | sort -u); do
    grep -qF -- "$opt" "$page" || fail "$page lacks $opt"
  done
  echo "ok: $tool --version = $out; man page $page"
done
if command -v man > /dev/null; then
  grep -q "max-restarts" <<< "$(MANPATH="$P/share/man" man -P cat fti-run 2> /dev/null)" || fail "man fti-run does not render"
fi

for f in share/fti/config-templates/all-levels.fti share/fti/config-templates/l1-only.fti \
         share/fti/examples/heatdis.c share/fti/examples/particles.c share/fti/examples/heatdis.fti \
         share/fti/examples/CMakeLists.txt share/doc/fti/USER_GUIDE.md share/doc/fti/TROUBLESHOOTING.md \
         share/doc/fti/LICENSE share/doc/fti/CHANGELOG.md share/FTI/cmake/FTIConfig.cmake; do
  [ -s "$P/$f" ] || fail "$f not installed"
done
grep -q "^## $version" "$P/share/doc/fti/CHANGELOG.md" || fail "CHANGELOG has no entry for $version"

# With the build's MPI wrapper: FindMPI alone takes PATH's mpicc, maybe another MPI.
cmake -S "$P/share/fti/examples" -B "$T/examples" -DCMAKE_PREFIX_PATH="$P" \
  -DMPI_C_COMPILER="${FTI_MPICC:?run through ctest}" > "$T/examples.log" 2>&1 &&
  cmake --build "$T/examples" --target heatdis >> "$T/examples.log" 2>&1 ||
  { cat "$T/examples.log"; fail "the installed examples do not build against the installed package"; }
[ -x "$T/examples/heatdis" ] && [ -f "$T/examples/heatdis.fti" ] || fail "installed heatdis example not built"
# With the Fortran module installed, the Fortran example is built too
# (examples/CMakeLists.installed.txt); without it, the configure says so.
if [ -n "$(find "$P" -name FTIFortranTargets.cmake)" ]; then
  cmake --build "$T/examples" --target heatdis_f90 >> "$T/examples.log" 2>&1 ||
    { cat "$T/examples.log"; fail "the installed Fortran example does not build"; }
  [ -x "$T/examples/heatdis_f90" ] && [ -f "$T/examples/heatdis_f90.fti" ] ||
    fail "installed heatdis_f90 example not built"
  echo "ok: installed examples: heatdis and heatdis_f90"
else
  grep -q "heatdis_f90: not built" "$T/examples.log" ||
    fail "the installed examples' configure does not say why heatdis_f90 is not built"
  echo "ok: installed examples: heatdis (FTI installed without Fortran)"
fi
echo "PASS: install layout, man pages, --version of every tool"
