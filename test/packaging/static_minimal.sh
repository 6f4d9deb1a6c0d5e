#!/usr/bin/env bash
# The static archive links the way FTI's users link FTI's: a build with only
# the required dependencies (ISA-L, zstd, HDF5, CUDA, XRT, Fortran off) is
# installed, and the consumer application links with
#   $FTI_MPICC app.c <prefix>/lib/libfti.a -lz -lm
# and nothing else: libfti.a carries xxHash. pkg-config --static names no
# library beyond that line. Then a checkpoint on 4 ranks and a restart that
# restores every byte. The minimal build is kept in
# $FTI_BUILD_DIR/packaging-minimal, so a second run only rebuilds changes.
set -euo pipefail
: "${FTI_BUILD_DIR:?run through ctest}" "${FTI_SOURCE_DIR:?run through ctest}"
T="${FTI_TEST_DIR:-/tmp/fti-static-$$}"
B="$FTI_BUILD_DIR/packaging-minimal"
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$FTI_SOURCE_DIR/test/conformance/consumer/lib.sh"
rm -rf "$T" && mkdir -p "$T"

cmake -S "$FTI_SOURCE_DIR" -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMPI_C_COMPILER="$FTI_MPICC" -DFTI_ENABLE_ISAL=OFF -DFTI_ENABLE_ZSTD=OFF \
  -DFTI_ENABLE_HDF5=OFF -DFTI_ENABLE_CUDA=OFF -DFTI_ENABLE_XRT=OFF -DFTI_ENABLE_FORTRAN=OFF \
  -DFTI_BUILD_TESTS=OFF -DFTI_BUILD_EXAMPLES=OFF > "$T/configure.log" 2>&1 ||
  { tail -30 "$T/configure.log"; fail "configure of the minimal build ($B)"; }
cmake --build "$B" -j2 > "$T/build.log" 2>&1 || { tail -30 "$T/build.log"; fail "minimal build"; }
cmake --install "$B" --prefix "$T/prefix" > "$T/install.log" 2>&1 || fail "cmake --install"
lib=$(ls "$T"/prefix/lib*/libfti.a) || fail "no libfti.a installed"

# The line FTI's users write, with the MPI the library was built with.
"$FTI_MPICC" -I"$T/prefix/include" -o "$T/app" "$CONSUMER_PROJECT/consumer.c" "$lib" -lz -lm \
  > "$T/link.log" 2>&1 || { head -30 "$T/link.log"; fail "'mpicc app.c libfti.a -lz -lm' does not link"; }
if ldd "$T/app" | grep -E 'libfti|xxhash'; then fail "the static application loads libfti or libxxhash"; fi

# pkg-config --static lists what the archive needs from outside: no xxHash.
flags=$(PKG_CONFIG_PATH="${lib%/libfti.a}/pkgconfig" pkg-config --static --libs fti) ||
  fail "pkg-config --static --libs fti"
echo "pkg-config --static --libs fti: $flags"
grep -qw -- -lxxhash <<< "$flags" && fail "pkg-config --static still asks for -lxxhash"
[ -z "$(PKG_CONFIG_PATH="${lib%/libfti.a}/pkgconfig" pkg-config --print-requires-private fti)" ] ||
  fail "pkg-config fti requires private packages in a build without optional parts"

consumer_config "$T/app.fti" "$T"
consumer_roundtrip "$T/app" "$T/app.fti" "$T/run"
cat "$T/run.write" "$T/run.check"
echo "PASS: mpicc app.c libfti.a -lz -lm links and restores every byte"
