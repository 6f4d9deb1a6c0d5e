#!/usr/bin/env bash
# fti-ckpt --json: list, verify, show and stats each print one JSON document
# that parses, with the schema's keys and the same facts as the tables
# (docs/USER_GUIDE.md, "fti-ckpt --json"); verify tells a local file an L4
# checkpoint removed by design (l4_local_copy = 0: "removed", no problem)
# from a missing one; the tool's own messages name the tool, not a rank.
source "$(dirname "$0")/common.bash"
M="$T/metrics.jsonl"

# jq_py FILE EXPR: evaluates the Python expression EXPR on the parsed
# document d of FILE (a parse error fails the test); prints the result.
jq_py() {
  python3 - "$1" "$2" <<'PY' || fail "$1 is not one JSON document (or '$2' failed)"
import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2], {"d": d}))
PY
}
# want FILE EXPR VALUE: EXPR evaluates to VALUE.
want() { local got; got=$(jq_py "$1" "$2"); [ "$got" = "$3" ] || { cat "$1"; fail "$2 is '$got', expected '$3'"; }; }

write_config "$T/c.fti" keep_last_ckpt=1 metrics_file="$M"
run_nodes 4 1 "$P" "$T/c.fti" write 7 1 $KIB 2>/dev/null || fail "L1 checkpoint"
run_nodes 4 1 "$P" "$T/c.fti" write 8 2 $KIB 2>/dev/null || fail "L2 checkpoint"
run_nodes 4 1 "$P" "$T/c.fti" write 9 3 $KIB 2>/dev/null || fail "L3 checkpoint"

# -- list ----------------------------------------------------------------------
expect_rc 0 ck list "$T/c.fti" --json
cp "$T/out" "$T/list.json"
want "$T/list.json" 'd["schema"]' "fti-ckpt/list/1"
want "$T/list.json" 'len(d["checkpoints"])' 3
want "$T/list.json" '[(c["seq"], c["id"], c["level"], c["ranks"], c["variables"]) for c in d["checkpoints"]]' \
  "[(3, 9, 3, 4, 5), (2, 8, 2, 4, 5), (1, 7, 1, 4, 5)]"
bytes=$(sum_sizes "$T"/nodes/node*/*/l2-s0-rank*.fti)
want "$T/list.json" '[c["bytes"] for c in d["checkpoints"] if c["id"] == 8][0]' "$bytes"
[ "$(wc -l < "$T/list.json")" -eq 1 ] || fail "list --json: more than one line"

# -- verify: recoverable; then rank 2 of the L2 checkpoint gone entirely --------
expect_rc 0 ck verify "$T/c.fti" --json
cp "$T/out" "$T/verify.json"
want "$T/verify.json" 'd["schema"]' "fti-ckpt/verify/1"
want "$T/verify.json" '(d["job"]["verdict"], d["job"]["restores"]["id"])' "('recoverable', 9)"
want "$T/verify.json" '[c["verdict"] for c in d["checkpoints"]]' "['recoverable', 'recoverable', 'recoverable']"
want "$T/verify.json" '[len(c["l3_groups"]) for c in d["checkpoints"] if c["level"] == 3]' "[1]"
want "$T/verify.json" 'sorted({r["own"] for c in d["checkpoints"] for r in c["ranks_detail"]})' "['ok']"
rm -f "$T"/nodes/node2/*/l2-s0-rank2.fti "$T"/nodes/node3/*/l2-s0-partner-rank2.fti
expect_rc 1 ck verify "$T/c.fti" --json --id 8 # not recoverable: exit 1, as the text
cp "$T/out" "$T/v8.json"
want "$T/v8.json" '[(r["own"], r["extra_kind"], r["extra"], r["recoverable"]) for r in d["checkpoints"][0]["ranks_detail"] if r["rank"] == 2][0]' \
  "('missing', 'partner', 'missing', False)"
want "$T/v8.json" 'd["checkpoints"][0]["verdict"]' "not recoverable"
want "$T/v8.json" 'd["job"]["verdict"]' "not recoverable"
want "$T/v8.json" 'len([p for r in d["checkpoints"][0]["ranks_detail"] for p in r["problems"]]) >= 2' True
expect_rc 1 ck verify "$T/c.fti" --id 8 # the same verdict as text, same exit status

# -- show --------------------------------------------------------------------------
expect_rc 0 ck show "$T/c.fti" --id 9 --rank 1 --json
cp "$T/out" "$T/show.json"
want "$T/show.json" '(d["schema"], d["rank"], d["level"], len(d["variables"]), d["bad_variables"])' \
  "('fti-ckpt/show/1', 1, 3, 5, 0)"
want "$T/show.json" '[(v["id"], v["type"], v["elem_size"], v["count"], v["data_ok"]) for v in d["variables"]][0]' \
  "(0, 'int', 4, 1, True)"

# -- stats -----------------------------------------------------------------------------
expect_rc 0 "$CKPT" stats "$M" --json
cp "$T/out" "$T/stats.json"
want "$T/stats.json" '(d["schema"], d["malformed"])' "('fti-ckpt/stats/1', 0)"
want "$T/stats.json" 'sorted((e["event"], e["level"], e["count"]) for e in d["events"] if e["event"] == "checkpoint")' \
  "[('checkpoint', 1, 1), ('checkpoint', 2, 1), ('checkpoint', 3, 1)]"

# -- an L4 checkpoint without its local files: by design, or lost ------------------------
rm -rf "$T"/nodes/* "$T"/global/* "$T"/meta/*
write_config "$T/l4.fti" keep_last_ckpt=1 l4_local_copy=0
run_nodes 4 1 "$P" "$T/l4.fti" write 40 4 $KIB 2>/dev/null || fail "L4 checkpoint"
[ -z "$(ls "$T"/nodes/node*/*/l4-* 2>/dev/null)" ] || fail "l4_local_copy = 0 kept local L4 files"
expect_rc 0 ck verify "$T/l4.fti"
for r in 0 1 2 3; do has "^ +$r +$r  removed +ok +yes \(L4 global copy\)$"; done
grep -q "problems:" "$T/out" && { cat "$T/out"; fail "verify lists files removed by design as problems"; }
expect_rc 0 ck verify "$T/l4.fti" --json
cp "$T/out" "$T/v4.json"
want "$T/v4.json" '[(r["own"], r["extra"], r["problems"]) for r in d["checkpoints"][0]["ranks_detail"]]' \
  "[('removed', 'ok', []), ('removed', 'ok', []), ('removed', 'ok', []), ('removed', 'ok', [])]"
# the same files gone where the config keeps them (l4_local_copy = 1): missing, and said so
sed -i 's/^l4_local_copy *= *0/l4_local_copy = 1/' "$T/l4.fti"
expect_rc 0 ck verify "$T/l4.fti"
has "^ +1 +1  missing +ok +yes \(L4 global copy\)$"
has "problems:"

# -- usage: --json where it means nothing; the tool's messages name the tool ------------
expect_rc 2 "$CKPT" names - --json
has "fti-ckpt names: --json is for list, verify, show and stats" "$T/err"
printf '[basic]\nckpt_dir = %s\nglbl_dir = %s\nmeta_dir = %s\nno_such_key = 1\n' "$T/nodes" "$T/global" "$T/meta" > "$T/odd.fti"
"$CKPT" list "$T/odd.fti" > "$T/out" 2> "$T/err" || true
grep -q "FTI r-1" "$T/err" && { cat "$T/err"; fail "a tool message names rank -1"; }
grep -q "^fti-ckpt: " "$T/err" || { cat "$T/err"; fail "the tool's messages do not name it"; }
pass "fti-ckpt --json"
