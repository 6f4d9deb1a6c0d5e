#!/usr/bin/env bash
# fti-ckpt extract writes only its -o file: a symbolic link, a FIFO or a
# folder at that name is refused at once with an error naming it, and the
# link's target is unchanged; a file of the user's own there is replaced by
# a new one (mode 0600), not written through its other hard links. Nothing
# else is created (variable names never form a path).
source "$(dirname "$0")/common.bash"
write_config "$T/c.fti" keep_last_ckpt=1
run_nodes 4 1 "$P" "$T/c.fti" write 7 1 $KIB 2> /dev/null || fail "L1 checkpoint"
mkdir -p "$T/outside" "$T/x"
echo "the victim's own bytes" > "$T/outside/victim"
outside() { (cd "$T" && find outside x -print0 | sort -z | xargs -0 -r md5sum 2> /dev/null; find outside x | sort); }
timeout 60 "$CKPT" extract "$T/c.fti" --rank 1 --var 2 -o "$T/ok.raw" --nodes "$T/nodes" ||
  fail "extract to a plain name"
want_size=$(stat -c %s "$T/ok.raw")

ln -s "$T/outside/victim" "$T/x/v.raw"
before=$(outside)
expect_rc 2 timeout 60 "$CKPT" extract "$T/c.fti" --rank 1 --var 2 -o "$T/x/v.raw" --nodes "$T/nodes"
has "-o $T/x/v.raw: a symbolic link" "$T/err"
[ "$(outside)" = "$before" ] || fail "extract wrote through the link"
pass "extract refuses a link at its output, naming it; the target is unchanged"

rm "$T/x/v.raw"; mkfifo "$T/x/v.raw"
expect_rc 2 timeout 60 "$CKPT" extract "$T/c.fti" --rank 1 --var 2 -o "$T/x/v.raw" --nodes "$T/nodes"
has "-o $T/x/v.raw: not a regular file" "$T/err"
pass "extract refuses a FIFO at its output at once"

rm "$T/x/v.raw"; echo old > "$T/outside/mine"; ln "$T/outside/mine" "$T/x/v.raw"
expect_rc 0 timeout 60 "$CKPT" extract "$T/c.fti" --rank 1 --var 2 -o "$T/x/v.raw" --nodes "$T/nodes"
[ "$(cat "$T/outside/mine")" = old ] || fail "extract wrote through a hard link of its output"
cmp -s "$T/x/v.raw" "$T/ok.raw" || fail "the replaced output differs"
[ "$(stat -c '%a %s' "$T/x/v.raw")" = "600 $want_size" ] || fail "output is $(stat -c '%a %s' "$T/x/v.raw")"
[ "$(ls -A "$T/x")" = v.raw ] || fail "extract created more than its output: $(ls -A "$T/x")"
pass "an existing output of the user's is replaced, its other names untouched"
