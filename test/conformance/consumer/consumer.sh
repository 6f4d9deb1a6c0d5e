#!/usr/bin/env bash
# Out-of-tree consumer: install FTI into a temporary prefix, build an FTI
# application against it the way a user would, run a checkpoint on 4 ranks,
# then a restart that asserts every restored byte.
#   consumer.sh shared     C-only CMake project, find_package(FTI 1.6), fti.shared
#   consumer.sh static     the same, linking FTI::fti_static
#   consumer.sh pkgconfig  mpicc $(pkg-config --static --cflags --libs fti)
set -euo pipefail
: "${FTI_BUILD_DIR:?run through ctest}" "${FTI_SOURCE_DIR:?run through ctest}"
mode="$1"
T="${FTI_TEST_DIR:-/tmp/fti-consumer-$$}"
MPIEXEC="${MPIEXEC:-mpiexec}"
HERE="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$T" && mkdir -p "$T"
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$FTI_BUILD_DIR" --prefix "$T/prefix" > "$T/install.log" || fail "cmake --install"
libdir=$(ls -d "$T"/prefix/lib*/pkgconfig | head -1); libdir="${libdir%/pkgconfig}"

case "$mode" in
  shared|static)
    target=fti.shared; [ "$mode" = static ] && target=FTI::fti_static
    cmake -S "$HERE/project" -B "$T/build" -DCMAKE_PREFIX_PATH="$T/prefix" \
      -DFTI_CONSUMER_TARGET="$target" > "$T/configure.log" 2>&1 ||
      { cat "$T/configure.log"; fail "consumer configure ($target)"; }
    cmake --build "$T/build" > "$T/build.log" 2>&1 || { cat "$T/build.log"; fail "consumer build ($target)"; }
    app="$T/build/consumer" ;;
  pkgconfig)
    export PKG_CONFIG_PATH="$libdir/pkgconfig"
    flags=$(pkg-config --static --cflags --libs fti) || fail "pkg-config --static fti"
    echo "pkg-config --static: $flags"
    # Only the static archive is offered, so every private dependency must be listed.
    mkdir -p "$T/static"
    ln -s "$libdir/libfti.a" "$T/static/libfti.a"
    flags="-L$T/static $flags"   # searched first: ld finds libfti.a there
    mpicc -o "$T/consumer" "$HERE/project/consumer.c" $flags || fail "link with pkg-config --static flags"
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

cat > "$T/app.fti" <<CFG
[basic]
head = 0
node_size = 4
ckpt_dir = $T/local
glbl_dir = $T/global
meta_dir = $T/meta
ckpt_l1 = 0
ckpt_l2 = 0
ckpt_l3 = 0
ckpt_l4 = 0
keep_last_ckpt = 1
group_size = 1
verbosity = 2
CFG
"$MPIEXEC" -n 4 -bind-to none "$app" "$T/app.fti" write | tee "$T/write.out"
grep -q "write: PASS" "$T/write.out" || fail "checkpoint run"
"$MPIEXEC" -n 4 -bind-to none "$app" "$T/app.fti" check | tee "$T/check.out"
grep -q "check: PASS (0 bad bytes)" "$T/check.out" || fail "restart did not restore every byte"
echo "PASS: consumer $mode"
