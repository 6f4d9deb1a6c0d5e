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
# source mirror, as `spack mirror create` does and packaging/spack/verify.sh
# uses it: OUTDIR/_source-cache/archive/<sha256[:2]>/<sha256>.tar.gz, where
# Spack looks, and the link OUTDIR/libfti/libfti-<version>.tar.gz to it.
#
# Why it is reproducible: git archive of a commit stamps every file with the
# commit's time and the tar header with the commit id (never the clock), and
# gzip -n leaves out the name and time gzip would otherwise record.
# --help prints the comment above (how to call it) and exits.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
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
mkdir -p "$outdir"
tmp="$outdir/.$name.tar.gz.tmp.$$"
trap 'rm -f "$tmp"' EXIT
git -C "$here" archive --format=tar --prefix="$name/" "$commit" | gzip -n -9 > "$tmp"
sum=$(sha256sum "$tmp" | cut -d' ' -f1)
if [ "$mirror" = 1 ]; then
  cas="_source-cache/archive/${sum:0:2}/$sum.tar.gz"
  mkdir -p "$outdir/${cas%/*}" "$outdir/libfti"
  mv "$tmp" "$outdir/$cas"
  ln -sfn "../$cas" "$outdir/libfti/$name.tar.gz"
  out="$outdir/libfti/$name.tar.gz"
else
  out="$outdir/$name.tar.gz"
  mv "$tmp" "$out"
fi
trap - EXIT
echo "$sum  $out"
