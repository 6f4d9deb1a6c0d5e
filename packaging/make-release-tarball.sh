#!/usr/bin/env bash
# make-release-tarball.sh: the release tarball of a git tag, byte for byte
# the same on every run and every machine with the same git and gzip, so the
# sha256 in packaging/spack/packages/libfti/package.py can be checked by
# anyone who has the tag.
#
#   packaging/make-release-tarball.sh [TAG] [OUTDIR]
#
# TAG (empty or absent) defaults to v<version of include/fti.h>; OUTDIR to the current folder.
# Writes OUTDIR/libfti-<version>.tar.gz (top folder libfti-<version>/) and
# prints "sha256  path". With --mirror, OUTDIR is laid out as a Spack
# mirror (OUTDIR/libfti/libfti-<version>.tar.gz), as packaging/spack/verify.sh
# uses it.
#
# Why it is reproducible: git archive of a commit stamps every file with the
# commit's time and the tar header with the commit id (never the clock), and
# gzip -n leaves out the name and time gzip would otherwise record.
set -euo pipefail

mirror=0
if [ "${1:-}" = "--mirror" ]; then
  mirror=1
  shift
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fail() { echo "make-release-tarball: $*" >&2; exit 1; }

if [ -n "${1:-}" ]; then
  tag=$1
else
  v=$(sed -n 's/^#define FTI_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' "$here/include/fti.h" | paste -sd.)
  tag="v$v"
fi
outdir=${2:-.}

git -C "$here" rev-parse -q --verify "refs/tags/$tag" > /dev/null ||
  fail "no tag '$tag' in $here (git fetch --tags, or name an existing tag)"
commit=$(git -C "$here" rev-parse "$tag^{commit}")
# The version is the tagged tree's, not the work tree's: a tag v1.6.1 whose
# fti.h says another version is a mistake worth stopping at.
version=$(git -C "$here" show "$commit:include/fti.h" |
  sed -n 's/^#define FTI_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' | paste -sd.)
[ "$tag" = "v$version" ] || fail "tag '$tag' points at $commit, whose include/fti.h says version $version"

name="libfti-$version"
if [ "$mirror" = 1 ]; then
  outdir="$outdir/libfti"
fi
mkdir -p "$outdir"
out="$outdir/$name.tar.gz"
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
git -C "$here" archive --format=tar --prefix="$name/" "$commit" | gzip -n -9 > "$tmp"
mv "$tmp" "$out"
trap - EXIT
sha256sum "$out"
