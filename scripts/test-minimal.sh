#!/usr/bin/env bash
# The minimal-dependency build: only what README calls required (a C11
# compiler, CMake, MPI, zlib, xxHash) is there for CMake to find.
# Configures, checks that the configure summary names each absent optional
# part, builds, checks that libfti links none of the optional libraries, runs
# the l1..l4 labels, then checks that a zstd-compressed checkpoint written by
# a build with zstd is refused by name, never lost (minimal-zstd-refusal.sh).
#
#   scripts/test-minimal.sh [BUILD_DIR]   on this machine (default build-minimal):
#       ISA-L, zstd, HDF5, CMocka, CUDA, XRT, Fortran and clang are hidden
#       even where installed: pkg-config sees only zlib's and xxHash's .pc
#       files (a private PKG_CONFIG_LIBDIR), FindHDF5 and FindCUDAToolkit
#       are disabled.
#   scripts/test-minimal.sh --fresh-root  in a fresh Debian 12 root (debootstrap
#       --variant=minbase) holding only the packages of ROOT_PACKAGES below:
#       nothing to hide. Needs root (debootstrap, chroot, a mount namespace);
#       exits 77 (skipped) with the reason where it cannot run. The root is
#       kept (FTI_MINIMAL_ROOT, default /var/tmp/fti-minimal-bookworm) and so
#       is its build folder, so a second run only rebuilds what changed.
#
# Environment: FTI_MINIMAL_LABELS (ctest labels, default l1|l2|l3|l4),
# FTI_JOBS (build and ctest jobs, default 2), FTI_MINIMAL_MIRROR (the Debian
# mirror for debootstrap; default: the one this machine's apt uses),
# FTI_MINIMAL_ROOT, FTI_MINIMAL_ZSTD=0 (skip the zstd refusal check).
set -euo pipefail
SRC="$(cd "$(dirname "$0")/.." && pwd)"
LABELS="${FTI_MINIMAL_LABELS:-l1|l2|l3|l4}"
JOBS="${FTI_JOBS:-2}"
START=$(date +%s)
export FTI_JOBS="$JOBS" FTI_MINIMAL_LABELS="$LABELS" # passed into the root
fail() { echo "test-minimal: FAIL: $*" >&2; exit 1; }
skip() { echo "test-minimal: SKIP: $*"; exit 77; }
say() { echo "== test-minimal ($(( $(date +%s) - START )) s): $*"; }

# The fresh root's packages: the five required ones (a compiler, CMake, MPICH,
# zlib, xxHash; no pkg-config: CMake then finds xxHash by its header and
# library) and python3, which the l1..l4 test scripts compute expected bytes
# and damage files with. Debian's libmpich-dev pulls in g++ and gfortran by
# itself (Fortran is configured off here).
ROOT_PACKAGES=(gcc make libc6-dev cmake mpich libmpich-dev zlib1g-dev libxxhash-dev python3)

# ---- steps shared by both modes ------------------------------------------------

# configure B CMAKE_ARGS...: configure into B, the output in B/configure.log.
configure() {
  local b="$1"; shift
  mkdir -p "$b"
  cmake -S "$SRC" -B "$b" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFTI_ENABLE_FORTRAN=OFF "$@" \
    > "$b/configure.log" 2>&1 || { tail -30 "$b/configure.log" >&2; fail "configure (log: $b/configure.log)"; }
  sed -n '/FTI configure summary/,/Sanitizers/p' "$b/configure.log"
}

# check_summary LOG LINE...: each optional part asked for (ON/AUTO) but not
# found says so on its summary line; those looked for through pkg-config say
# so where there is no pkg-config.
check_summary() {
  local log="$1" want absent="not found"; shift
  command -v pkg-config > /dev/null || absent="not looked for: no pkg-config"
  for want in "Reed-Solomon (L3) kernel: our own: ISA-L (libisal) $absent" \
              "zstd L4 compression: OFF: libzstd $absent" \
              "HDF5 checkpoints (ckpt_io = 5): OFF: parallel HDF5 not found" \
              "CUDA backend: OFF: CUDA toolkit not found" \
              "Tests: ON, but not the unit, gpu and fpga labels: CMocka $absent" "$@"; do
    grep -qF -- "$want" "$log" || fail "configure summary lacks '$want'"
  done
}

# build_and_test B: build, libfti's dependencies, the labels.
build_and_test() {
  local b="$1" lib
  say "build ($b)"
  cmake --build "$b" -j"$JOBS" > "$b/build.log" 2>&1 || { tail -40 "$b/build.log"; fail "build"; }
  lib="$(ls "$b"/libfti.so.*.*.* | head -1)"
  if ldd "$lib" | grep -Ei 'isal|zstd|hdf5|cmocka|jerasure|gf_complete|iniparser|cuda'; then
    fail "$lib links an optional library"
  fi
  say "$lib needs: $(ldd "$lib" | awk '{print $1}' | tr '\n' ' ')"
  say "ctest -L '$LABELS'"
  (cd "$b" && ctest -L "$LABELS" -j"$JOBS" --output-on-failure) || fail "ctest -L '$LABELS'"
}

# with_zstd_build B: a build that has zstd, of the one program the refusal
# check writes its checkpoint with; prints B, or nothing where this machine
# has no libzstd.
with_zstd_build() {
  local b="$1"
  [ "${FTI_MINIMAL_ZSTD:-1}" != 0 ] || return 0
  pkg-config --exists libzstd 2>/dev/null || { say "no libzstd here: zstd refusal check skipped" >&2; return 0; }
  configure "$b" -DFTI_ENABLE_ZSTD=ON -DFTI_ENABLE_HDF5=OFF -DFTI_ENABLE_CUDA=OFF -DFTI_ENABLE_XRT=OFF > /dev/null
  grep -qF "zstd L4 compression: ON" "$b/configure.log" || fail "$b: libzstd not used"
  cmake --build "$b" -j"$JOBS" --target test_prog_ckpt_prog > "$b/build.log" 2>&1 ||
    { tail -40 "$b/build.log"; fail "build of $b"; }
  echo "$b"
}

# ---- on this machine, the optional libraries hidden ---------------------------------

host_mode() {
  local b="${1:-$SRC/build-minimal}"
  local zb zdir="$b/zstd-refusal"
  # The zstd build first, while pkg-config still sees everything.
  say "build with zstd ($b-zstd, one program)"
  zb="$(with_zstd_build "$b-zstd")"

  mkdir -p "$b"
  local pc="$b/pkgconfig-required" m f
  rm -rf "$pc" && mkdir -p "$pc"
  for m in zlib libxxhash; do
    f="$(pkg-config --variable=pcfiledir "$m" 2>/dev/null)/$m.pc" || true
    [ -f "$f" ] || fail "required $m not found by pkg-config"
    ln -sf "$f" "$pc/$m.pc"
  done
  export PKG_CONFIG_LIBDIR="$pc" PKG_CONFIG_PATH=""
  say "configure ($b), optional libraries hidden"
  configure "$b" -DFTI_ENABLE_ISAL=ON -DFTI_ENABLE_ZSTD=ON -DFTI_ENABLE_HDF5=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_HDF5=ON -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON \
    -DFTI_ENABLE_CUDA=AUTO -DFTI_ENABLE_XRT=OFF -DFTI_CLANG=FTI_CLANG-NOTFOUND
  check_summary "$b/configure.log" "XRT backend: OFF (FTI_ENABLE_XRT=OFF)" \
    "Fortran module: OFF (FTI_ENABLE_FORTRAN=OFF)"
  build_and_test "$b"
  if [ -n "$zb" ]; then
    say "zstd refusal ($zb writes, $b refuses)"
    "$SRC/scripts/minimal-zstd-refusal.sh" "$zb" "$b" "$zdir" all
  fi
  say "passed"
}

# ---- in a fresh Debian 12 root ---------------------------------------------------

# The Debian mirror this machine's apt uses (deb822 .sources or sources.list).
apt_mirror() {
  local u
  u="$(grep -hs -A3 '^URIs:' /etc/apt/sources.list.d/*.sources | awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}')"
  [ -n "$u" ] || u="$(awk '$1 == "deb" && $3 ~ /^bookworm$/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)"
  echo "${u:-http://deb.debian.org/debian}"
}

# in_root ROOT CMD...: CMD chrooted in ROOT, with /proc, /dev and /sys, and the
# zstd scratch folder at its own path, in a private mount namespace: every
# mount ends with the command, whatever happens.
in_root() {
  local root="$1"; shift
  unshare -m --propagation private /bin/sh -c '
    r="$1" z="$2"; shift 2
    # The root bound onto itself: "/" in the chroot is then a mount point,
    # which unshare -m there needs (the *_ns tests; else "cannot change root
    # filesystem propagation").
    mount --bind "$r" "$r" && mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" &&
      mount --rbind /sys "$r/sys" || exit 1
    if [ -n "$z" ]; then mkdir -p "$r$z" && mount --bind "$z" "$r$z" || exit 1; fi
    exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
      DEBIAN_FRONTEND=noninteractive FTI_JOBS="$FTI_JOBS" FTI_MINIMAL_LABELS="$FTI_MINIMAL_LABELS" "$@"
  ' sh "$root" "${ZSTD_DIR:-}" "$@"
}

# make_root ROOT: debootstrap and the packages, once; the stamp names them.
make_root() {
  local root="$1" mirror stamp="$1/.fti-minimal-root"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${ROOT_PACKAGES[*]}" ]; then
    say "Debian root $root kept from an earlier run"
    return
  fi
  mirror="${FTI_MINIMAL_MIRROR:-$(apt_mirror)}"
  say "debootstrap --variant=minbase bookworm $root $mirror"
  # Removed only when empty or a Debian root (an earlier, perhaps unfinished
  # run): a mistyped FTI_MINIMAL_ROOT is never emptied.
  if [ -d "$root" ] && [ -n "$(ls -A "$root")" ] && [ ! -d "$root/debootstrap" ] &&
     [ ! -f "$root/etc/debian_version" ]; then
    fail "$root is neither empty nor a Debian root: not removed (set FTI_MINIMAL_ROOT)"
  fi
  rm -rf "$root"
  debootstrap --variant=minbase bookworm "$root" "$mirror" > "$root.debootstrap.log" 2>&1 ||
    { tail -20 "$root.debootstrap.log"; fail "debootstrap (log: $root.debootstrap.log)"; }
  say "apt-get install ${ROOT_PACKAGES[*]}"
  ZSTD_DIR="" in_root "$root" sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@" && apt-get clean' \
    sh "${ROOT_PACKAGES[@]}" > "$root.apt.log" 2>&1 || { tail -20 "$root.apt.log"; fail "apt-get in the root"; }
  echo "${ROOT_PACKAGES[*]}" > "$stamp"
}

fresh_root_mode() {
  [ "$(id -u)" -eq 0 ] || skip "--fresh-root needs root (debootstrap, chroot, mount namespaces); run it as root"
  command -v debootstrap > /dev/null || skip "--fresh-root needs debootstrap (apt-get install debootstrap)"
  unshare -m --propagation private true 2> /dev/null || skip "--fresh-root: no mount namespace here (unshare -m failed)"
  local root="${FTI_MINIMAL_ROOT:-/var/tmp/fti-minimal-bookworm}"
  mkdir -p "$(dirname "$root")"
  make_root "$root"
  in_root "$root" true || skip "--fresh-root: cannot chroot into $root with /proc, /dev and /sys mounted"
  local extra
  extra="$(in_root "$root" dpkg-query -W -f='${db:Status-Abbrev} ${binary:Package}\n' 'libzstd-dev' 'libisal*' \
    'libhdf5*' 'libcmocka*' 'nvidia-cuda*' 'pkgconf' 'pkg-config' 2> /dev/null | awk '/^ii/ {print $2}' | tr '\n' ' ')" || true
  say "root holds $(in_root "$root" dpkg-query -W -f='${db:Status-Abbrev}\n' | grep -c '^ii') packages;" \
      "optional ones and pkg-config among them: ${extra:-none}"

  # The source as git sees it (tracked and untracked, not ignored: no build
  # folders), timestamps kept so the kept build folder rebuilds only changes.
  say "copy the source to $root/src/fti"
  rm -rf "$root/src/fti" && mkdir -p "$root/src/fti"
  (cd "$SRC" && git ls-files -z -co --exclude-standard |
     tar -c --null -T - --ignore-failed-read -f - 2> /dev/null) | tar -x -C "$root/src/fti"

  # The zstd checkpoint is written on this machine, refused in the root,
  # restored here again: the scratch folder has the same path on both sides.
  local zb="" zdir="/var/tmp/fti-minimal-zstd-refusal"
  say "build with zstd here ($SRC/build-minimal-zstd, one program)"
  zb="$(with_zstd_build "$SRC/build-minimal-zstd")"
  ZSTD_DIR=""
  if [ -n "$zb" ]; then
    "$SRC/scripts/minimal-zstd-refusal.sh" "$zb" "" "$zdir" write
    ZSTD_DIR="$zdir"
  fi
  say "in the root: configure, build, ctest"
  in_root "$root" /src/fti/scripts/test-minimal.sh --in-root /var/tmp/fti-build "$ZSTD_DIR" ||
    fail "in the Debian root (exit $?)"
  if [ -n "$zb" ]; then
    "$SRC/scripts/minimal-zstd-refusal.sh" "$zb" "" "$zdir" restore
  fi
  say "passed (fresh Debian 12 root $root)"
}

# Inside the root (called by fresh_root_mode): nothing to hide.
in_root_mode() {
  local b="$1" zdir="${2:-}"
  say "configure ($b) in $(. /etc/os-release && echo "$PRETTY_NAME")"
  configure "$b"
  check_summary "$b/configure.log" "XRT backend: OFF: XRT not found" \
    "Fortran module: OFF (FTI_ENABLE_FORTRAN=OFF)"
  build_and_test "$b"
  if [ -n "$zdir" ]; then
    say "zstd refusal (this build refuses what the zstd build wrote)"
    "$SRC/scripts/minimal-zstd-refusal.sh" "" "$b" "$zdir" refuse
  fi
}

case "${1:-}" in
  --fresh-root) shift; fresh_root_mode "$@" ;;
  --in-root) shift; in_root_mode "$@" ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  -*) echo "usage: $0 [BUILD_DIR] | --fresh-root" >&2; exit 2 ;;
  *) host_mode "$@" ;;
esac
