#!/usr/bin/env bash
# fti-ckpt report: a real 4-rank run (L1, L2, L3, L4 checkpoints and a
# restart) writes a metrics file; its report is loaded from a file in
# headless Chromium, and the rendered DOM must hold what the file says (one
# checkpoint mark per checkpoint line, at its level; the restore and what it
# resumed from; the overhead share and the L4 bytes computed from the file),
# and the screenshot must show the four level colours. A file that is empty
# or has a malformed line is named (with the line), exits 2 and leaves no
# page; a link at -o is refused. Skipped (77) without chromium.
CHROMIUM="${FTI_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}"
if [ -z "$CHROMIUM" ]; then
  echo "SKIP: headless Chromium is not installed (apt-get install chromium, or set FTI_CHROMIUM)"
  exit 77
fi
source "$(dirname "$0")/common.bash"
M="$T/metrics.jsonl"
write_config "$T/c.fti" keep_last_ckpt=1 metrics_file="$M"
for lv in 1 2 3 4; do
  run_nodes 4 1 "$P" "$T/c.fti" write $((10 + lv)) $lv $KIB 2> "$T/log$lv" || fail "level $lv checkpoint"
done
run_nodes 4 1 "$P" "$T/c.fti" check 14 $KIB 2> "$T/log5" | grep -q PASS || fail "restart"

expect_rc 0 "$CKPT" report "$M" -o "$T/report.html"
[ ! -s "$T/out" ] || { cat "$T/out"; fail "report printed to stdout with -o FILE"; }
grep -Eq '(src|href)=|<script|@import|url\(' "$T/report.html" && fail "the page refers to something outside itself"

# -- the page in a browser, from a file ---------------------------------------------------
browse() {
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --user-data-dir="$T/chromium" \
    --window-size=1200,1600 "$@" "file://$T/report.html" 2> "$T/chromium.err"
}
browse --dump-dom > "$T/dom.html" || { cat "$T/chromium.err"; fail "chromium --dump-dom"; }
rm -f "$T/shot.png"
browse --screenshot="$T/shot.png" > /dev/null || { cat "$T/chromium.err"; fail "chromium --screenshot"; }
python3 - "$M" "$T/dom.html" <<'PY' || fail "the rendered page does not match the metrics file"
import json, re, sys
from html.parser import HTMLParser
recs = [json.loads(l) for l in open(sys.argv[1]).read().splitlines()]
ck = [r for r in recs if r["event"] == "checkpoint"]
rs = [r for r in recs if r["event"] == "restore"]
assert [r["level"] for r in ck] == [1, 2, 3, 4] and len(rs) == 1, (ck, rs)

class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.stack, self.rows, self.text, self.in_tr = [], [], [], {}, False
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        self.stack.append(a.get("id") or a.get("class") or "")
        if tag == "tr":
            self.rows.append([a.get("class", ""), ""])
            self.in_tr = True
    def handle_endtag(self, tag):
        self.in_tr = self.in_tr and tag != "tr"
        if self.stack:
            self.stack.pop()
    def handle_data(self, d):
        if self.in_tr:
            self.rows[-1][1] += d + "|"
        for k in self.stack:
            if k:
                self.text[k] = self.text.get(k, "") + d
dom = Dom()
dom.feed(open(sys.argv[2]).read())
svgs = [a for t, a in dom.tags if t == "svg"]
assert len(svgs) == 5, "charts: %d, expected 5" % len(svgs)
assert {a["class"] for a in svgs} == {"chart overhead", "chart timeline", "chart time",
                                      "chart bandwidth", "chart storage"}, svgs
marks = [a for t, a in dom.tags if t == "circle" and "ckpt-mark" in a.get("class", "")]
assert len(marks) == len(ck), "checkpoint marks: %d, metrics lines: %d" % (len(marks), len(ck))
assert [int(a["data-level"]) for a in marks] == [r["level"] for r in ck], marks
bars = [a for t, a in dom.tags if t == "rect" and a.get("class") == "bar"]
assert len(bars) == 2 * len(ck) + 4 + 1, "bars: %d" % len(bars)   # time, bandwidth, storage, overhead
assert sum(1 for t, a in dom.tags if t == "line" and a.get("class") == "restart-mark") == 1
rows = [(c, txt) for c, txt in dom.rows if "restart-row restore" in c]
want = "checkpoint #%d, id %d, L%d" % (rs[0]["seq"], rs[0]["id"], rs[0]["level"])
assert len(rows) == 1 and "|ok|" in rows[0][1] and want in rows[0][1], (rows, want)
assert len([c for c, _ in dom.rows if c == "ckpt-row"]) == len(ck)
# the overhead share and the L4 bytes, computed from the file
t0 = min(r["time"] - r["total_s"] for r in recs)
t1 = max(r["time"] for r in recs)
share = 100 * sum(r["app_wait_s"] for r in recs) / (t1 - t0)
assert "%.2f %% of the run" % share in dom.text["overhead"], (share, dom.text["overhead"])
l4 = [txt for c, txt in dom.rows if c == "storage-row" and txt.startswith("L4|")]
assert l4 == ["L4|1|%d|%d|" % (ck[3]["bytes"], ck[3]["bytes"])], l4
PY
python3 - "$T/shot.png" <<'PY' || fail "the screenshot is blank or lacks the level colours"
import struct, sys, zlib
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(b):
    n, kind = struct.unpack(">I4s", b[pos:pos + 8])
    data = b[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", data[:10])
        assert depth == 8 and ctype in (2, 6), (depth, ctype)
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += data
    pos += 12 + n
raw, stride = zlib.decompress(idat), w * bpp
prev, colours, at = bytearray(stride), set(), 0
for y in range(h):
    f, row = raw[at], bytearray(raw[at + 1:at + 1 + stride])
    at += 1 + stride
    if f == 2:
        row = bytearray((x + p) & 255 for x, p in zip(row, prev))
    elif f:
        for i in range(stride):
            a = row[i - bpp] if i >= bpp else 0
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1: row[i] = (row[i] + a) & 255
            elif f == 3: row[i] = (row[i] + (a + prev[i]) // 2) & 255
            else:
                p = a + prev[i] - c
                pa, pb, pc = abs(p - a), abs(p - prev[i]), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else prev[i] if pb <= pc else c)) & 255
    if y % 2 == 0:
        colours.update(bytes(row[i:i + 3]) for i in range(0, stride, bpp * 2))
    prev = row
levels = {"L1": "1f77b4", "L2": "ff7f0e", "L3": "2ca02c", "L4": "d62728"}
missing = [l for l, c in levels.items() if bytes.fromhex(c) not in colours]
assert not missing, "level colours not in the screenshot: %s" % missing
assert len(colours) > 16, "only %d colours" % len(colours)
print("screenshot %dx%d, %d colours" % (w, h, len(colours)))
PY

# -- bad input: named, exit 2, no page ----------------------------------------------------
: > "$T/empty.jsonl"
expect_rc 2 "$CKPT" report "$T/empty.jsonl" -o "$T/empty.html"
has "metrics file $T/empty.jsonl: no event line in its 0 lines; no report written" "$T/err"
[ ! -e "$T/empty.html" ] || fail "an empty metrics file left a page"
{ head -n 3 "$M"; echo '{"event":"checkpoint","level":1,'; tail -n +4 "$M"; } > "$T/bad.jsonl"
expect_rc 2 "$CKPT" report "$T/bad.jsonl" -o "$T/bad.html"
has "$T/bad.jsonl:4: malformed metrics line" "$T/err"
has "metrics file $T/bad.jsonl: 1 malformed line \(above\); no report written" "$T/err"
[ ! -e "$T/bad.html" ] || fail "a malformed metrics file left a page"
expect_rc 2 "$CKPT" report "$T/none.jsonl" -o "$T/none.html"
has "metrics file $T/none.jsonl: No such file or directory" "$T/err"
expect_rc 2 "$CKPT" report "$M"
has "report needs -o FILE" "$T/err"
# -o: a link is refused and its target untouched; the metrics file itself is refused
echo keep > "$T/target"
ln -s "$T/target" "$T/link.html"
expect_rc 2 "$CKPT" report "$M" -o "$T/link.html"
has "-o $T/link.html: .*link" "$T/err"
[ "$(cat "$T/target")" = keep ] || fail "the report wrote through a link"
cp "$M" "$T/m2.jsonl"
expect_rc 2 "$CKPT" report "$T/m2.jsonl" -o "$T/m2.jsonl"
has "is the metrics file itself" "$T/err"
cmp -s "$M" "$T/m2.jsonl" || fail "the metrics file was overwritten"
pass "fti-ckpt report: $(grep -c '"event":"checkpoint"' "$M") checkpoints rendered in headless Chromium"
