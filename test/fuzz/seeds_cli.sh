#!/usr/bin/env bash
# fuzz_seeds as docs/FUZZING.md runs it (`./fuzz_seeds corpus` in a fresh
# folder): it creates the folder, writes one seed per target, and on a
# mistake prints one line naming it (no silent exit 1).
set -uo pipefail
: "${FTI_BUILD_DIR:?run through ctest}"
S="$FTI_BUILD_DIR/test/fuzz/fuzz_seeds"
T="${FTI_TEST_DIR:-/tmp/fti-seeds-cli}"
rm -rf "$T"; mkdir -p "$T"; cd "$T" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

# The documented call, in a folder where corpus/ does not exist yet.
"$S" corpus > out 2> err || fail "fuzz_seeds corpus exits $?: $(cat err)"
for f in config/seed.fti ckpt/seed.fti meta/commit fti16/sector0-group0.fti; do
  [ -s "corpus/$f" ] || fail "corpus/$f not written"
done
grep -q '^\[basic\]' corpus/config/seed.fti || fail "config seed has no [basic] section"
# Again into the same folder: the seeds are rewritten, not refused.
"$S" corpus 2> err || fail "fuzz_seeds corpus (existing) exits $?: $(cat err)"

# --help: usage on stdout, exit 0.
"$S" --help > out 2> err || fail "--help exits $?"
grep -q 'usage: fuzz_seeds DIR' out || fail "--help prints no usage: $(cat out err)"

# No argument: usage on stderr, exit 2.
"$S" > out 2> err; rc=$?
[ $rc -eq 2 ] || fail "no argument: exit $rc, expected 2"
grep -q 'usage: fuzz_seeds DIR' err || fail "no argument: no usage line: $(cat err)"

# A folder that cannot be made: one line naming it and why, exit 1.
touch plain
"$S" plain/corpus > out 2> err; rc=$?
[ $rc -eq 1 ] || fail "plain/corpus: exit $rc, expected 1"
grep -q 'fuzz_seeds: plain/corpus.*Not a directory' err || fail "plain/corpus: message '$(cat err)'"
echo "fuzz_seeds: documented call, --help and errors as expected"
