#!/usr/bin/env bash
# verify.sh: checks packaging/spack with Spack itself, offline: the repo is
# added, the host's compilers, MPI, tools and libraries become externals,
# `spack spec` concretizes the package and its variants, `spack install`
# builds the release tarball from a local mirror (made here from the git tag
# by packaging/make-release-tarball.sh, so the sha256 in package.py is
# checked), and `spack test run` runs the package's smoke test.
#
#   SPACK_ROOT=/path/to/spack packaging/spack/verify.sh [WORKDIR]
#
# SPACK_ROOT: a Spack checkout whose builtin packages are in-tree (tested
# with the releases/v0.23 branch). SPACK_PYTHON: a python3 that can import
# clingo (`pip install clingo` into a venv); default: python3. WORKDIR
# (default ${TMPDIR:-/tmp}/libfti-spack-verify) is emptied and holds
# everything Spack writes: its configuration (SPACK_USER_CONFIG_PATH, an
# empty SPACK_SYSTEM_CONFIG_PATH), caches, stages, mirror and install tree.
# Nothing is written to ~/.spack or to $SPACK_ROOT. Nothing is downloaded:
# the only mirror is the local one, bootstrapping is off, and every package
# but libfti is an external that may not be built.
# Extra specs to install besides the default: LIBFTI_SPACK_INSTALL="+hdf5~fortran".
# --help prints the comment above (how to call it) and exits.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
: "${SPACK_ROOT:?set SPACK_ROOT to a Spack checkout (git clone of spack, releases/v0.23)}"
export SPACK_PYTHON=${SPACK_PYTHON:-python3}
W=${1:-${TMPDIR:-/tmp}/libfti-spack-verify}
fail() { echo "verify.sh: FAIL: $*" >&2; exit 1; }
step() { echo; echo "==> $*"; }

"$SPACK_PYTHON" -c 'import clingo' 2> /dev/null ||
  fail "$SPACK_PYTHON cannot import clingo (python3 -m venv V && V/bin/pip install clingo; SPACK_PYTHON=V/bin/python)"
[ -x "$SPACK_ROOT/bin/spack" ] || fail "no $SPACK_ROOT/bin/spack"

# Emptied only when it is this script's (marker) or already empty.
if [ -d "$W" ] && [ ! -e "$W/.libfti-spack-verify" ] && [ -n "$(ls -A "$W")" ]; then
  fail "$W is not empty and not a verify.sh work folder: not emptied; name another WORKDIR"
fi
rm -rf "$W"
mkdir -p "$W/user" "$W/system" "$W/cache" "$W/mirror"
touch "$W/.libfti-spack-verify"
export SPACK_USER_CONFIG_PATH="$W/user" SPACK_SYSTEM_CONFIG_PATH="$W/system" SPACK_USER_CACHE_PATH="$W/cache"
unset SPACK_DISABLE_LOCAL_CONFIG
spack() { "$SPACK_ROOT/bin/spack" "$@"; }

# ---- configuration: private paths, no network -----------------------------
cat > "$W/user/config.yaml" << EOF
config:
  install_tree:
    root: $W/opt
  build_stage: [$W/stage]
  test_stage: $W/test-stage
  source_cache: $W/cache/source
  misc_cache: $W/cache/misc
  connect_timeout: 2
  build_jobs: ${LIBFTI_SPACK_JOBS:-2}
EOF
cat > "$W/user/bootstrap.yaml" << EOF
bootstrap:
  enable: false
EOF
# '::' replaces Spack's default mirrors: only the local one is asked.
cat > "$W/user/mirrors.yaml" << EOF
mirrors::
  libfti-local: file://$W/mirror
EOF

step "release tarball into the local mirror"
version=$(sed -n 's/^#define FTI_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' "$here/include/fti.h" | paste -sd.)
"$here/packaging/make-release-tarball.sh" --mirror "v$version" "$W/mirror"
sum=$(sha256sum "$W/mirror/libfti/libfti-$version.tar.gz" | cut -d' ' -f1)
grep -q "version(\"$version\", sha256=\"$sum\")" "$here/packaging/spack/packages/libfti/package.py" ||
  fail "package.py has no version(\"$version\", sha256=\"$sum\") (the tarball of tag v$version)"

step "spack repo add packaging/spack"
spack --version
spack repo add --scope user "$here/packaging/spack"
spack repo list

step "externals: compilers, build tools, MPI (spack compiler find, spack external find)"
spack compiler find --scope user
# python from /usr/bin: a python3 under a version manager's shims is no prefix.
spack external find --scope user --not-buildable cmake gmake pkgconf mpich
spack external find --scope user --not-buildable --path /usr/bin python

# The libraries: spack external find does not detect them (they have no
# executable), so each is written from its pkg-config version and prefix.
ext_lib() { # spack-name pkg-config-name [spec suffix]
  local v p
  v=$(pkg-config --modversion "$2" 2> /dev/null) || return 1
  p=$(pkg-config --variable=prefix "$2")
  if [ -z "$p" ]; then # no prefix variable (Debian's hdf5-mpich.pc): above lib/
    p=$(pkg-config --variable=pcfiledir "$2")
    p=${p%%/lib*}
  fi
  printf '  %s:\n    buildable: false\n    externals:\n    - spec: %s@%s%s\n      prefix: %s\n' \
    "$1" "$1" "$v" "${3:-}" "$p" >> "$W/user/packages.yaml"
  echo "external $1@$v${3:-} prefix $p (pkg-config $2)"
}
ext_lib zlib zlib || fail "no zlib (pkg-config zlib)"
ext_lib xxhash libxxhash || fail "no xxHash (pkg-config libxxhash)"
have_zstd=1 have_isal=1 have_hdf5=1
ext_lib zstd libzstd || have_zstd=0
ext_lib isa-l libisal || have_isal=0
ext_lib cmocka cmocka || true
# Parallel HDF5 of this MPI (Debian: hdf5-mpich.pc).
ext_lib hdf5 hdf5-mpich "+mpi" || have_hdf5=0
# zlib-api from the external zlib, never a zlib-ng built from the network.
printf '  zlib-ng:\n    buildable: false\n' >> "$W/user/packages.yaml"
spack config get packages | sed 's/^/    /'

# Each spec concretized on its own (`spack spec A B` would concretize them
# together, as one environment), in one Spack process: each process loads
# the repositories again. The output is `spack spec -I`'s, one per spec.
specs=(libfti "libfti~isal~zstd~fortran")
[ $have_hdf5 = 1 ] && specs+=("libfti~fortran+hdf5")
cat > "$W/spec.py" << 'EOF'
import sys
import spack.spec

for text in sys.argv[1:]:
    spec = spack.spec.Spec(text)
    print("Input spec\n--------------------------------")
    print(spec.tree(color=False, format=spack.spec.DISPLAY_FORMAT))
    print("Concretized\n--------------------------------")
    concrete = spec.concretized()
    print(concrete.tree(color=False, format=spack.spec.DISPLAY_FORMAT, status_fn=spack.spec.Spec.install_status))
EOF
step "spack spec -I, each of: ${specs[*]}"
spack python "$W/spec.py" "${specs[@]}" | tee "$W/spec.txt"
# $W/spec-<k>.txt: the concretized tree of the k-th spec.
awk -v d="$W" '/^Input spec/ { cur = 0; next } /^Concretized/ { cur = ++n; next }
  /^-+$/ || /^ *$/ || /^==>/ { next } cur { print > (d "/spec-" cur ".txt") }' "$W/spec.txt"
for k in "${!specs[@]}"; do
  tree="$W/spec-$((k + 1)).txt"
  grep -q "^ - *libfti@$version" "$tree" 2> /dev/null || fail "${specs[$k]} did not concretize to libfti@$version"
  # Offline: every node is an external ([e]) but libfti and gcc-runtime
  # (Spack makes it by copying the compiler's runtime libraries).
  built=$(grep -E '^ - ' "$tree" | grep -vE '^ - +\^?(libfti|gcc-runtime)@' || true)
  [ -z "$built" ] || fail "${specs[$k]}: these would be built from sources that are not here: $built"
done
grep -q '\^isa-l@' "$W/spec-1.txt" && grep -q '\^zstd@' "$W/spec-1.txt" ||
  fail "libfti (+isal+zstd by default) does not depend on isa-l and zstd"
! grep -q '\^isa-l@\|\^zstd@' "$W/spec-2.txt" || fail "libfti~isal~zstd still depends on isa-l or zstd"
if [ $have_hdf5 = 1 ]; then
  grep -q '\^hdf5@.*+mpi' "$W/spec-3.txt" || fail "libfti+hdf5 did not concretize with hdf5+mpi"
fi

step "spack install libfti (source from the local mirror, no network)"
spack install --no-cache --fail-fast libfti 2>&1 | tee "$W/install.txt"
grep -q "Fetching file://$W/mirror/" "$W/install.txt" || fail "the source did not come from the local mirror"
grep -q "Successfully installed libfti" "$W/install.txt" || fail "spack install libfti"
spack find -lv libfti
for spec in ${LIBFTI_SPACK_INSTALL:-}; do
  step "spack install libfti$spec"
  spack install --no-cache --fail-fast "libfti$spec"
done

step "spack test run libfti"
spack test run --alias libfti-smoke libfti | tee "$W/test.txt"
spack test results -l libfti-smoke | tee "$W/test-results.txt"
grep -q "restored 64 of 64 values" "$W/test-results.txt" ||
  fail "the smoke test did not report a full restore"
grep -q "FAILED" "$W/test.txt" "$W/test-results.txt" && fail "a stand-alone test failed"

echo
echo "PASS: spack repo add, spack spec (default and variants), offline spack install of libfti@$version from the local mirror, spack test run"
