#!/usr/bin/env bash
# Out-of-tree consumer: install FTI into a temporary prefix, build an FTI
# application against it the way a user would, with the MPI the library was
# built with (FTI_MPICC; never PATH's mpicc), run a checkpoint on 4 ranks,
# then a restart that asserts every restored byte.
#   consumer.sh shared     C-only CMake project, find_package(FTI 1.6), fti.shared
#   consumer.sh static     the same, linking FTI::fti_static
#   consumer.sh pkgconfig  $FTI_MPICC $(pkg-config --static --cflags --libs fti)
set -euo pipefail
: "${FTI_BUILD_DIR:?run through ctest}" "${FTI_SOURCE_DIR:?run through ctest}"
mode="$1"
T="${FTI_TEST_DIR:-/tmp/fti-consumer-$$}"
HERE="$(cd "$(dirname "$0")" && pwd)"
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$HERE/lib.sh"
rm -rf "$T" && mkdir -p "$T"

cmake --install "$FTI_BUILD_DIR" --prefix "$T/prefix" > "$T/install.log" || fail "cmake --install"
libdir=$(ls -d "$T"/prefix/lib*/pkgconfig | head -1); libdir="${libdir%/pkgconfig}"

case "$mode" in
  shared|static)
    target=fti.shared; [ "$mode" = static ] && target=FTI::fti_static
    consumer_cmake "$T/build" "$T/prefix" "$target"
    app="$T/build/consumer" ;;
  pkgconfig)
    export PKG_CONFIG_PATH="$libdir/pkgconfig"
    flags=$(pkg-config --static --cflags --libs fti) || fail "pkg-config --static fti"
    echo "pkg-config --static: $flags"
    # Only the static archive is offered, so every private dependency must be listed.
    mkdir -p "$T/static"
    ln -s "$libdir/libfti.a" "$T/static/libfti.a"
    flags="-L$T/static $flags"   # searched first: ld finds libfti.a there
    # shellcheck disable=SC2086
    "$FTI_MPICC" -o "$T/consumer" "$CONSUMER_PROJECT/consumer.c" $flags ||
      fail "link with pkg-config --static flags ($FTI_MPICC)"
    app="$T/consumer" ;;
  *) fail "unknown mode $mode" ;;
esac

# shared: the binary must use the installed libfti, not the build tree's.
# ldd's output is captured first: under pipefail, grep -q closing the pipe
# early would fail the pipeline through ldd's SIGPIPE.
linked=$(ldd "$app")
if [ "$mode" = shared ]; then
  grep -q "$libdir/libfti.so" <<< "$linked" || { echo "$linked"; fail "libfti not resolved from the install prefix"; }
fi
if [ "$mode" != shared ] && grep -q 'libfti\.so' <<< "$linked"; then fail "static link pulled libfti.so"; fi
consumer_same_mpi "$app" "$libdir/libfti.so"

consumer_config "$T/app.fti" "$T"
consumer_roundtrip "$app" "$T/app.fti" "$T/run"
cat "$T/run.write" "$T/run.check"
echo "PASS: consumer $mode"
