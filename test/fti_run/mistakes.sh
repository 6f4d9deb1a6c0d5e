#!/usr/bin/env bash
# Simple mistakes get one line naming them and a non-zero exit, never a
# Python traceback: fti-run with a command that does not exist or an option
# it does not know, fti-fault with a config file that does not exist.
source "$(dirname "$0")/lib.sh"
FTI_FAULT="$FTI_SOURCE_DIR/tools/fti-fault"

# one_line_error RC_WANT MESSAGE_REGEX CMD...: exit RC_WANT, stderr one
# line of the tool (after fti-run's own "run 1" progress line) matching the
# message, no traceback.
one_line_error() {
  local want="$1" re="$2" rc=0; shift 2
  "$@" > "$T/out" 2> "$T/err" || rc=$?
  [ "$rc" -eq "$want" ] || { cat "$T/out" "$T/err"; fail "'$*' exited $rc, expected $want"; }
  grep -q "Traceback" "$T/err" && { cat "$T/err"; fail "'$*' printed a traceback"; }
  grep -Eq -- "$re" "$T/err" || { cat "$T/err"; fail "'$*': no line matching '$re'"; }
  [ "$(grep -cv "^fti-run: run [0-9]*: " "$T/err")" -le 2 ] || { cat "$T/err"; fail "'$*': more than a usage and an error line"; }
}

one_line_error 2 "^fti-run: $T/no/such/app: No such file or directory$" \
  "$FTI_RUN" --summary "$T/s.json" -- "$T/no/such/app"
one_line_error 2 "^fti-run: error: unrecognized arguments: --no-such-option" \
  "$FTI_RUN" --no-such-option -- /bin/true
one_line_error 2 "^fti-fault: $T/missing.fti: No such file or directory$" \
  "$FTI_FAULT" --config "$T/missing.fti" --workdir "$T/w" -- /bin/true
[ ! -e "$T/w" ] || ls -R "$T/w" | head
pass "fti-run and fti-fault answer simple mistakes with one line"
