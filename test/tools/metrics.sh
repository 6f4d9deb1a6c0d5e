#!/usr/bin/env bash
# metrics_file: one well-formed JSON line per checkpoint (inline and
# asynchronous), per restart decision and per restore, with plausible
# numbers that agree with the commit record; one summary log line per
# checkpoint from rank 0 (log_style = libfti: ours); fti-ckpt stats summarises the file and names a
# malformed line.
source "$(dirname "$0")/common.bash"
M="$T/metrics.jsonl"
write_config "$T/c.fti" keep_last_ckpt=1 metrics_file="$M" advanced.log_style=libfti # our lines: sizes, rates
for lv in 1 2 3; do
  run_nodes 4 1 "$P" "$T/c.fti" write $((10 + lv)) $lv $KIB 2> "$T/log$lv" || fail "level $lv checkpoint"
done
run_nodes 4 1 "$P" "$T/c.fti" write 14 2 $KIB 2> "$T/log4" || fail "second L2 checkpoint"
# inline_l2 = 0 (same config file, so same exec_id): post-processing in the helper thread
sed -i 's/^inline_l2 = 1$/inline_l2 = 0/' "$T/c.fti"
FTI_TEST_THREAD_MULTIPLE=1 run_nodes 4 1 "$P" "$T/c.fti" write 15 2 $KIB 2> "$T/log5" || fail "async L2"
run_nodes 4 1 "$P" "$T/c.fti" check 15 $KIB 2> "$T/log6" | grep -q PASS || fail "restart"

# -- the log: exactly one summary line per checkpoint, from rank 0 ---------------------
for i in 1 2 3 4 5; do
  n=$(grep -c "checkpoint #$i (id [0-9]*) level [0-9] committed.*: [0-9.]* [KMG]*i*B in [0-9.]* s ([0-9.]* [kMGT]*B/s)" "$T/log$i" || true)
  [ "$n" -eq 1 ] || { cat "$T/log$i"; fail "checkpoint $i: $n summary lines, expected 1"; }
  grep "checkpoint #$i " "$T/log$i" | grep -qv "^\[FTI r0\]" && fail "checkpoint $i: a summary line not from rank 0"
done
grep -q "committed after asynchronous post-processing" "$T/log5" || { cat "$T/log5"; fail "checkpoint 5 was not asynchronous"; }

# -- the metrics lines ------------------------------------------------------------------
"$CKPT" list "$T/c.fti" --nodes "$T/nodes" > "$T/list" || fail "fti-ckpt list"
python3 - "$M" "$T/list" <<'PY' || fail "metrics file"
import json, re, sys
lines = open(sys.argv[1]).read().splitlines()
recs = [json.loads(l) for l in lines]            # every line is one JSON object
committed = {}  # seq -> (id, level, bytes) from fti-ckpt list
for m in re.finditer(r"^ +(\d+) +(-?\d+) +(\d) +\d +(cur|prev) +\S+ \S+ +(\d+) +(\d+)", open(sys.argv[2]).read(), re.M):
    committed[int(m.group(1))] = (int(m.group(2)), int(m.group(3)), int(m.group(6)))
ck = [r for r in recs if r["event"] == "checkpoint"]
rc = [r for r in recs if r["event"] == "recovery"]
rs = [r for r in recs if r["event"] == "restore"]
assert len(ck) == 5, "checkpoint lines: %d" % len(ck)
assert len(rc) == 5, "recovery lines (every launch after the first): %d" % len(rc)
assert len(rs) == 1, "restore lines: %d" % len(rs)
assert len({r["exec_id"] for r in recs}) == 1
for i, r in enumerate(ck, 1):
    assert r["status"] == "committed" and r["seq"] == i and r["id"] == 10 + i, r
    assert r["level"] == [1, 2, 3, 2, 2][i - 1] and r["ranks"] == 4, r
    # levels 1 and 3 keep their current checkpoint in the record; L2's cur/prev are #4/#5
    if i in committed:
        assert (r["id"], r["level"], r["bytes"]) == committed[i], (r, committed[i])
    assert r["bytes"] > 4 * 64 * 1024 and r["bytes_rank_max"] * 4 >= r["bytes"], r
    for p in ("wait_prev", "write", "post", "commit", "total", "app_wait"):
        assert 0 <= r[p + "_s"] < 120 and r[p + "_s"] <= r[p + "_s_sum"] + 1e-6, (p, r)
    assert r["total_s"] >= r["write_s"] > 0 and r["bandwidth_gbs"] > 0 and r["write_gbs"] > 0, r
    assert abs(r["bandwidth_gbs"] - r["bytes"] / r["total_s"] / 1e9) < 1e-3 * max(1, r["bandwidth_gbs"]), r
    assert r["post_s"] > 0 if r["level"] > 1 else r["post_s"] < 0.01, r
    assert r["async"] == (i == 5), r
    # the post's phases (slowest rank): L2 waits for messages and writes the copy, L3 gathers
    # and encodes; each within its post; none for L1 or a background post
    phases = ("read", "send", "recv", "write", "sync", "verify", "gather", "encode", "agree")
    assert all(0 <= r["post_%s_s" % p] <= r["post_s"] + 1e-3 for p in phases), r
    moved = {2: ("recv", "write"), 3: ("gather", "encode", "write")}.get(r["level"], ())
    if not r["async"]:
        assert all(r["post_%s_s" % p] > 0 for p in moved), ("phases", r)
    if r["level"] == 1 or r["async"]:
        assert all(r["post_%s_s" % p] == 0 for p in phases), ("phases", r)
assert [r["seq"] for r in rc] == [1, 2, 3, 4, 5] and all(r["status"] == "ready" for r in rc), rc
assert all(r["candidates"] >= 1 and r["total_s"] >= r["verify_s"] >= 0 for r in rc), rc
assert rs[0]["status"] == "ok" and rs[0]["seq"] == 5 and rs[0]["level"] == 2 and rs[0]["restore_s"] > 0, rs
PY

# -- a launch that cannot restore anything: one "failed" recovery line -------------------
rm -rf "$T"/nodes/*
run_nodes 4 1 "$P" "$T/c.fti" expect-fail > "$T/lib" 2>&1 || fail "restart without local storage should fail"
python3 - "$M" <<'PY' || fail "failed recovery line"
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert r["event"] == "recovery" and r["status"] == "failed", r
assert r["id"] is None and r["seq"] is None and r["level"] is None and r["candidates"] == 4, r
PY

# -- stats -----------------------------------------------------------------------------
expect_rc 0 "$CKPT" stats "$M"
has "^metrics .*: 12 lines, 0 malformed"
has "^checkpoint +1 +1 +0 "
has "^checkpoint +2 +3 +0 "
has "^checkpoint +3 +1 +0 "
has "^recovery +1 +1 +0 "
has "^restore +2 +1 +0 "
has "^recovery +0 +1 +1 "
echo '{"event":"checkpoint","level":1,' >> "$M"
expect_rc 1 "$CKPT" stats "$M"
has "$M:13: malformed metrics line" "$T/err"
has "^checkpoint +1 +1 +0 "
expect_rc 2 "$CKPT" stats "$T/none.jsonl"
has "metrics file $T/none.jsonl: No such file or directory" "$T/err"
pass "metrics file, log summary and fti-ckpt stats"
