#!/usr/bin/env bash
# The feature labels of test/labels.cmake (label structure): every feature
# label lists at least one test, and every test whose script (or fault
# scenario line) turns a feature on carries that feature's label, so
# `ctest -L mpiio` finds all the MPI-IO tests. A test that sets ckpt_io = 2
# (head = 1, staging, FTI_WATCHDOG_S, or is named *config*) without the
# label fails here, naming the test and the label to add in test/labels.cmake.
# Only ctest's own listing is read: nothing runs.
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -n "${FTI_BUILD_DIR:-}" ] && [ -n "${FTI_SOURCE_DIR:-}" ] || fail "FTI_BUILD_DIR and FTI_SOURCE_DIR unset"
J="${FTI_TEST_DIR:-/tmp/fti-labels}"
mkdir -p "$J"
(cd "$FTI_BUILD_DIR" && ctest --show-only=json-v1) > "$J/tests.json" || fail "ctest --show-only=json-v1"
python3 - "$J/tests.json" "$(realpath "$0")" <<'PY'
import json, os, re, sys

tests = json.load(open(sys.argv[1]))["tests"]
myself = sys.argv[2]  # this script names every rule's words: not a test of them

# What turns each feature on, as a test's script or scenario line says it.
# mpiio: ckpt_io = 2 written out, or a loop "for io in ... 2" feeding ckpt_io=$io.
def mpiio(text):
    return (re.search(r"ckpt_io *= *2\b", text) is not None or
            (re.search(r"ckpt_io *= *\$\{?io\b", text) is not None and
             re.search(r"for io in [^;\n]*\b2\b", text) is not None))

RULES = {
    "mpiio": mpiio,
    "heads": lambda text: re.search(r"\bhead *= *1\b", text) is not None,
    "staging": lambda text: re.search(r"enable_staging *= *1\b|staging_mib *= *[1-9]|FTI_SendFile",
                                      text) is not None,
    "watchdog": lambda text: "FTI_WATCHDOG_S" in text,
}

def labels(t):
    for p in t.get("properties", []):
        if p["name"] == "LABELS":
            return set(p["value"])
    return set()

def evidence(t):
    """The text that configures test t: its script, or for a fault-matrix
    test (run_matrix.sh APP SCENARIO) the scenario's line of APP.scn."""
    cmd = t.get("command") or []
    if len(cmd) >= 2 and os.path.basename(cmd[0]) == "bash":
        script = cmd[1]
        if os.path.realpath(script) == myself:
            return ""
        if os.path.basename(script) == "run_matrix.sh" and len(cmd) >= 4:
            scn = os.path.join(os.path.dirname(script), cmd[2] + ".scn")
            for line in open(scn):
                if re.match(r"\s*%s\s" % re.escape(cmd[3]), line):
                    return line
            sys.exit("FAIL: %s: scenario %s not in %s" % (t["name"], cmd[3], scn))
        return open(script).read()
    return ""  # a program: its config is in C (unit tests are not labelled here)

problems = []
count = {f: 0 for f in list(RULES) + ["config"]}
for t in tests:
    have, text = labels(t), evidence(t)
    for feature in count:
        if feature in have:
            count[feature] += 1
    for feature, on in RULES.items():
        if on(text) and feature not in have:
            problems.append("%s turns on %s but lacks the label: add it to FTI_LABEL_%s"
                            % (t["name"], feature, feature))
    if re.search(r"(^|_)config(_|$)", t["name"]) and "config" not in have:
        problems.append("%s is a config test but lacks the label: add it to FTI_LABEL_config"
                        % t["name"])
for feature, n in count.items():
    if n == 0:
        problems.append("label %s lists no test" % feature)
for p in problems:
    print("FAIL:", p)
print("tests per feature label:", ", ".join("%s %d" % kv for kv in sorted(count.items())))
sys.exit(1 if problems else 0)
PY
