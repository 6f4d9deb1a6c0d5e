#!/usr/bin/env bash
# One rule for checkpoint file names (issue 28): layout.c builds them and
# reads them back (fti_name_parse); fti-ckpt names prints what it reads,
# and tools/fti-fault picks the files it damages through it. Checked here:
# fti-ckpt names on every form of name (kind level slot rank tag), names
# not ours refused; on a real run's files (L1-L3, L4 POSIX and MPI-IO),
# every file is one of ours, and fti-fault's selection of each damage class
# is exactly the files of that kind, never a decoy (l7-..., a .tmp file).
source "$(dirname "$0")/common.bash"

# -- the names, one of each form -------------------------------------------------
cat > "$T/want" <<'NAMES'
rank 1 0 3 - l1-s0-rank3.fti
rank 4 1 12 - l4-s1-rank12.fti
rank 2 1 5 rebuilt l2-s1-rank5.rebuilt.fti
rank 3 1 12 rebuilt.tmp l3-s1-rank12.rebuilt.tmp.fti
partner 2 0 7 - l2-s0-partner-rank7.fti
parity 3 1 4 - l3-s1-parity-rank4.fti
parity 3 0 4 rebuilt l3-s0-parity-rank4.rebuilt.fti
shared 4 0 - - l4-s0-shared.fti
shared 4 1 - tmp l4-s1-shared.tmp.fti
rank 4 0 2 z l4-s0-rank2.z.fti
h5 4 1 9 - l4-s1-rank9.h5
h5 4 0 9 tmp l4-s0-rank9.tmp.h5
h5single 4 0 - - l4-s0-single.h5
dcp 4 - 6 - l4-dcp-rank6-12345678901.fti
dcp 4 - 6 tmp l4-dcp-rank6-99.tmp.fti
commit - - - - commit
none - - - - l5-s0-rank1.fti
none - - - - l0-s0-rank1.fti
none - - - - lx-s0-rank1.fti
none - - - - l1-s0-rank1.txt
none - - - - l1-s0-rank1.fti.bak
none - - - - l1-s0-rank.fti
none - - - - l1-s0-rank1x.fti
none - - - - l3-s0-partner-rank1.fti
none - - - - l2-s0-parity-rank1.fti
none - - - - l1-s0-shared.fti
none - - - - l4-s0-shared.h5
none - - - - l4-s0-single.fti
none - - - - l1-s0-rank1.h5
none - - - - l4-dcp-rank3-.fti
none - - - - l4-dcp-rank3-5.h5
none - - - - l1-s0-rank1..fti
none - - - - l1-s0-rank1.Tmp.fti
none - - - - l1-s0-rank99999999999.fti
none - - - - l4_archive
none - - - - Ckpt3-Rank1.fti
none - - - - commit.tmp.1.abc
NAMES
awk '{print $6}' "$T/want" | "$CKPT" names - > "$T/got" 2> "$T/err" || { cat "$T/err"; fail "fti-ckpt names"; }
diff "$T/want" "$T/got" || fail "fti-ckpt names: not what layout.c builds (want <, got >)"
expect_rc 2 "$CKPT" names "$T/no-such-list"
echo "l1/s0" | "$CKPT" names - > /dev/null 2> "$T/err" && fail "fti-ckpt names took a path"
grep -q "'l1/s0' is not a file name" "$T/err" || { cat "$T/err"; fail "no error naming the path"; }

# -- a real run's files, and fti-fault's damage classes -------------------------
write_config "$T/c.fti" keep_last_ckpt=1 keep_all_levels=1 l4_local_copy=1
for lv in 1 2 3 4; do
  run_nodes 4 1 "$P" "$T/c.fti" write $((10 + lv)) $lv $KIB 2>/dev/null || fail "level $lv checkpoint"
done
write_config "$T/c.fti" keep_last_ckpt=1 keep_all_levels=1 l4_local_copy=1 ckpt_io=2 # same file: same job
run_nodes 4 1 "$P" "$T/c.fti" write 15 4 $KIB 2>/dev/null || fail "MPI-IO L4 checkpoint"
[ -n "$(find "$T/global" -name 'l4-s*-shared.fti')" ] || fail "no MPI-IO shared file"
# decoys beside the real files: names fti-fault must not take
node1=$(dirname "$(find "$T/nodes/node1" -name 'l1-s*-rank1.fti' | head -1)")
touch "$node1/l7-s0-rank1.fti" "$node1/l1-s0-rank1.tmp.fti" "$node1/l2-s0-partner-rank1.fti.old"
python3 - "$FTI_SOURCE_DIR/tools/fti-fault" "$T" <<'PY' || fail "fti-fault's damage classes"
import importlib.machinery, importlib.util, os, sys
loader = importlib.machinery.SourceFileLoader("fti_fault", sys.argv[1])
ff = importlib.util.module_from_spec(importlib.util.spec_from_loader("fti_fault", loader))
loader.exec_module(ff)
w = sys.argv[2]
decoys = {"l7-s0-rank1.fti", "l1-s0-rank1.tmp.fti", "l2-s0-partner-rank1.fti.old"}
files = [os.path.join(d, f) for top in ("nodes", "global", "meta")
         for d, _, fs in os.walk(os.path.join(w, top)) for f in fs]
names = ff.classify(os.path.basename(p) for p in files)
ours = {p for p in files if names[os.path.basename(p)].kind != "none"}
strays = sorted(os.path.relpath(p, w) for p in set(files) - ours
                if os.path.basename(p) not in decoys and not p.endswith(".lock"))
bad = ["a file of the run not read as ours: %s" % s for s in strays]
# what each class must pick: (root, kinds) by the names' own reading
want = {"l1": ("nodes", {"rank"}), "partner": ("nodes", {"partner"}), "parity": ("nodes", {"parity"}),
        "global": ("global", {"rank", "shared", "h5"}), "meta": ("meta", {"commit"})}
for what, (root, kinds) in want.items():
    for rank in (None, 1):
        opts = {} if rank is None else {"rank": str(rank)}
        got = set(ff.select_files(w, what, opts))
        exp = {p for p in ours if p.startswith(os.path.join(w, root) + "/")
               and names[os.path.basename(p)].kind in kinds and not names[os.path.basename(p)].tag
               and (rank is None or names[os.path.basename(p)].rank in (None, rank))}
        if not exp and what != "meta" and rank is None:
            bad.append("the run made no %s file" % what)
        if got != exp:
            bad.append("damage what=%s rank=%s: picked %s, the names say %s" % (
                what, rank, sorted(os.path.relpath(p, w) for p in got),
                sorted(os.path.relpath(p, w) for p in exp)))
        picked_decoys = {os.path.basename(p) for p in got} & decoys
        if picked_decoys:
            bad.append("damage what=%s took a decoy: %s" % (what, sorted(picked_decoys)))
for b in bad:
    print("FAIL:", b)
print("files of the run:", len(ours), "(", ", ".join(sorted({names[os.path.basename(p)].kind for p in ours})), ")")
sys.exit(1 if bad else 0)
PY
pass "fti-ckpt names reads every form of name; fti-fault's damage classes are the names' kinds"
