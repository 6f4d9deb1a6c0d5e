#!/usr/bin/env bash
# The API reference (issue 32): every FTI_* function that include/fti.h and
# include/fti_device.h declare, and every fti_k_* one of the header-only
# include/fti_kernel.h, has a man page, section 3, once installed
# (`cmake --install` into a scratch prefix, then `man -w 3 NAME` through
# MANPATH), and the page renders with NAME, SYNOPSIS, DESCRIPTION and
# RETURN VALUE. The list of functions is read from the headers here, not
# from the generator, so a function added without a /** block fails.
# docs/API_REFERENCE.md must be what tools/gen-apiref makes of the headers
# now. Skipped (77) only when neither man nor groff can render a page.
set -u -o pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -n "${FTI_BUILD_DIR:-}" ] && [ -n "${FTI_SOURCE_DIR:-}" ] || fail "FTI_BUILD_DIR and FTI_SOURCE_DIR unset"
S="$FTI_SOURCE_DIR"
J="${FTI_TEST_DIR:-/tmp/fti-apiref}"
rm -rf "$J" && mkdir -p "$J"
GEN="$S/tools/gen-apiref"
export LC_ALL=C MANWIDTH=200 # ASCII; whitespace squeezed in render()

# 1. The reference page is not stale.
python3 "$GEN" --markdown - > "$J/API_REFERENCE.md" || fail "gen-apiref --markdown"
diff -u "$S/docs/API_REFERENCE.md" "$J/API_REFERENCE.md" > "$J/stale.diff" ||
  fail "docs/API_REFERENCE.md is stale: run tools/gen-apiref --markdown docs/API_REFERENCE.md" \
       "($(grep -c '^[-+][^-+]' "$J/stale.diff") lines differ, $J/stale.diff)"

# 2. The generator's own check refuses an undocumented function, naming it.
sed 's/^#ifdef __cplusplus$/FTI_API int FTI_Undocumented(int x);\n&/' "$S/include/fti.h" > "$J/fti.h"
grep -q '^FTI_API int FTI_Undocumented' "$J/fti.h" || fail "could not add a function to a copy of fti.h"
if python3 "$GEN" --check "$J/fti.h" 2> "$J/check.err"; then
  fail "gen-apiref --check accepted a function without a /** block"
fi
grep -q 'FTI_Undocumented has no /\*\* block' "$J/check.err" ||
  fail "gen-apiref --check did not name FTI_Undocumented: $(cat "$J/check.err")"

# 3. Install, then look every function up as a user would.
P="$J/prefix"
cmake --install "$FTI_BUILD_DIR" --prefix "$P" > "$J/install.log" 2>&1 ||
  fail "cmake --install failed: $(tail -5 "$J/install.log")"
M="$P/share/man"
[ -f "$M/man3/FTI_Protect.3" ] || fail "no $M/man3/FTI_Protect.3 after cmake --install"

# FTI_APIREF_RENDERER=groff tries the fallback where man is installed too.
R="${FTI_APIREF_RENDERER:-man}"
command -v "$R" > /dev/null || R=groff
if [ "$R" = man ]; then
  render() { MANPATH="$M" man -P cat 3 "$1" 2> "$J/render.err" | tr -s ' '; }
elif command -v groff > /dev/null; then
  render() { (cd "$M" && groff -man -Tutf8 -P-cbou "man3/$1.3") 2> "$J/render.err" | tr -s ' '; }
else
  echo "skip: neither man nor groff is installed"; exit 77
fi

functions() { # FTI_API lines that declare a function (not the externs)
  sed -n '/^FTI_API extern/d; s/^FTI_API [^(]*[ *]\(FTI_[A-Za-z0-9_]*\)(.*/\1/p' "$@" | sort -u
}
F=$(functions "$S/include/fti.h")
[ "$(echo "$F" | wc -l)" -ge 30 ] || fail "read only $(echo "$F" | wc -l) functions from fti.h"
F="$F $(functions "$S/include/fti_device.h")"
F="$F $(sed -n 's/^static inline [^(]*[ *]\(fti_k_[a-z0-9_]*[a-z0-9]\)(.*/\1/p' "$S/include/fti_kernel.h")"
n=0
for f in $F; do
  if [ "$R" = man ]; then
    where=$(MANPATH="$M" man -w 3 "$f" 2>&1) || fail "man -w 3 $f: $where"
    [ "$where" = "$M/man3/$f.3" ] || fail "man -w 3 $f found $where, not the installed page"
  fi
  page=$(render "$f") || fail "rendering $f: $(cat "$J/render.err")"
  for section in NAME SYNOPSIS DESCRIPTION "RETURN VALUE" NOTES; do
    grep -q "^$section\$" <<< "$page" || fail "the page of $f has no $section section"
  done
  grep -q "^ *$f - " <<< "$page" || fail "the NAME of $f's page is not '$f - summary'"
  grep -q "[ *]$f(" <<< "$page" || fail "the SYNOPSIS of $f's page does not declare $f"
  grep -q "Scope: \(local\|collective\)" <<< "$page" || fail "$f's page does not say collective or local"
  n=$((n + 1))
done

# 4. Specifics of some pages (phrases matched on the page as one line), and
# the header pages behind the constants.
flat() { render "$1" | tr '\n' ' ' | tr -s ' '; }
page=$(flat FTI_Protect)
grep -qF 'int FTI_Protect(int id, void *ptr, int64_t count, fti_id_t tid);' <<< "$page" ||
  fail "FTI_Protect's SYNOPSIS is not its declaration"
grep -qF 'FTI 1.6: took an int32_t count' <<< "$page" || fail "FTI_Protect's page lacks its FTI 1.6 note"
page=$(flat FTI_Recover)
grep -qF 'Scope: collective on the first recovery call of a restart, local after.' <<< "$page" ||
  fail "FTI_Recover's page does not say when it is collective"
page=$(flat FTI_NREC)
grep -q 'NAME fti - ' <<< "$page" || fail "man 3 FTI_NREC does not open fti(3)"
grep -q 'FTI_NREC: a restart found no checkpoint' <<< "$page" || fail "fti(3) does not describe FTI_NREC"
for hp in fti fti_compat fti_device fti_kernel; do
  page=$(render "$hp")
  grep -q "^FUNCTIONS\$\|^TYPES AND CONSTANTS\$" <<< "$page" || fail "the page $hp(3) lists nothing"
done
echo "ok: $n functions, each with an installed man page; docs/API_REFERENCE.md is current"
