#!/usr/bin/env python3
"""Docs that stay true (label docs): every command, script, flag, path and
config key that README.md and docs/*.md name must exist.

What is read: inline code spans (`...`) and code blocks (``` fences, and
blocks indented by four spaces after a blank line). Prose is not read: a
name only counts when the docs set it as code.

How a token is judged:
  command  the first word of a code-block line or of a span (after a `$ `
           prompt, VAR=value assignments, `cd DIR &&`, `mpiexec -n N ...`
           and `fti-run ... --`), when it is one of our programs: a tool
           (tools/fti-*), a script of scripts/, tools/, packaging/, bench/,
           or a program this build makes (bench_*, fuzz_*, fpga_*, ...).
           The program must exist and answer --help (exit 0, no Python
           traceback); every --flag on its line must appear in that help.
           fti-ckpt's subcommand (second word) must appear in its help.
           A shaped name (fti-*, bench_*, fpga_*, ...) with arguments that
           no program has fails; one word alone is judged only when such a
           program exists (it may be a test, function or user name).
  cd       `cd /absolute/folder` in a code block names one machine's
           folder: it fails.
  option   `-DFTI_...=` must be an option of CMakeLists.txt, and every
           option of CMakeLists.txt must be named in the docs.
  flag     a span that is a lone --flag: it must appear in the --help of
           one of our programs.
  path     a span or a command-line word shaped like a path (a '/', no
           spaces or <placeholders>) whose first part is a top-level entry
           of the repository (src/, docs/, test/, ...) or a layer of src/
           (base/, format/, ...): it must exist in the tree (a '*' is a
           glob that must match). One starting share/, lib/ or bin/ is an
           installed path: it must exist after `cmake --install` of this
           build into a scratch prefix. One starting build/ must exist in
           this build tree. Absolute paths and others are not judged.
  file     a span that is a bare file name of ours (.c .h .sh .fti .f90
           .py .cmake .md): a file of that name must exist in the tree.
  key      `[section] key ...`, `key = value` with a lower-case key, and
           `key = value` lines of code blocks under a `[section]` line:
           the key must be in src/format/config.c's table (known_keys[]),
           in that section when one is named.
  template every key of that table must appear in
           config-templates/all-levels.fti, which documents every key.
  contract a doc sentence "`FTI_X` is local" (or "is collective") must not
           contradict fti.h's comment of FTI_X, when that comment says
           only the other of the two words.
  install  the installed examples' CMakeLists.txt names installed files
           (<prefix>/..., README beside it) that exist; the installed
           tools' --help and man pages name docs by absolute paths that
           exist in the install.

Deliberate exceptions are in allow.txt beside this script, one per line:
`KIND TOKEN  # reason`; an entry that no longer matches anything fails too,
so the list cannot rot. `~KIND TOKEN  # reason` is an exception for builds
without an optional part (CUDA, XRT, clang), never reported as unused. Exit 0 when all is true, 1 with one line per
problem (file:line, kind, token, why) otherwise.
"""
import argparse
import glob
import os
import re
import shlex
import subprocess
import sys

LAYERS = {"base", "data", "format", "runtime", "core", "levels", "stores",
          "device"}
INSTALLED = {"share", "lib", "lib64", "bin"}
OUR_EXT = (".c", ".h", ".sh", ".fti", ".f90", ".py", ".cmake", ".md")
# Names of the programs this build makes; a command word shaped so that is
# not built fails. The libFuzzer targets take libFuzzer's -help=1 (and run
# on any other argument): they are named, never run.
OUR_PROGRAM = r"^(fti-[a-z-]+|bench_\w+|fuzz_\w+|fpga_\w+|heatdis\w*|particles)$"
LIBFUZZER = {"fuzz_config", "fuzz_ckpt_header", "fuzz_meta", "fuzz_fti16"}
PATH_RE = re.compile(r"^(\./)?[A-Za-z0-9_.+*-]+(/[A-Za-z0-9_.+*-]*)+$")
FLAG_RE = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
KEY_RE = re.compile(r"^([a-z][a-z0-9_]*)\s+=(\s|$)")
SECTION_KEY_RE = re.compile(r"^\[([A-Za-z]+)\]\s+([a-z][a-z0-9_]*)")


class Doc:
    """One token found in a doc: where, what kind of snippet, the text."""

    def __init__(self, where, text, block, section=None):
        self.where, self.text, self.block, self.section = where, text, block, section


def extract(path, rel):
    """Inline spans and code-block lines of one markdown file."""
    out = []
    lines = open(path, encoding="utf-8").read().split("\n")
    fence, indented, prev_blank, section = False, False, True, None
    for n, line in enumerate(lines, 1):
        where = "%s:%d" % (rel, n)
        if line.lstrip().startswith("```"):
            fence, section = not fence, None
            continue
        if fence:
            section = code_line(out, where, line.strip(), section)
            continue
        if indented and (line.startswith("    ") or not line.strip()):
            section = code_line(out, where, line.strip(), section)
            continue
        indented = prev_blank and line.startswith("    ") and line.strip() != ""
        if indented:
            section = code_line(out, where, line.strip(), None)
            prev_blank = False
            continue
        prev_blank = not line.strip()
        for m in re.finditer(r"(`+)(.+?)\1", line):
            out.append(Doc(where, m.group(2).strip(), False))
    return out


def code_line(out, where, text, section):
    """A code-block line; returns the INI section it leaves open."""
    if not text:
        return section
    m = re.match(r"^\[([A-Za-z]+)\]\s*$", text)
    if m:
        return m.group(1).lower()
    out.append(Doc(where, text, True, section))
    return section


class Checker:
    def __init__(self, args):
        self.src, self.build, self.prefix = args.src, args.build, args.prefix
        self.problems, self.allow, self.used = [], {}, set()
        self.helps = {}
        self.load_allow(args.allow)
        self.keys = self.load_keys()
        self.programs = self.find_programs()
        self.options = self.load_options()
        self.spans = set()

    # ---- inputs ------------------------------------------------------------
    def load_allow(self, path):
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            m = re.match(r"^(~?)(\w+)\s+(.+?)\s+#\s*(\S.*)$", line)
            if not m:
                sys.exit("%s:%d: expected '[~]KIND TOKEN  # reason'" % (path, n))
            self.allow[(m.group(2), m.group(3))] = "%s:%d" % (path, n)
            if m.group(1):  # ~: only for builds without an optional part
                self.used.add((m.group(2), m.group(3)))

    def load_keys(self):
        """(section, key) pairs of known_keys[] in src/format/config.c."""
        text = open(os.path.join(self.src, "src/format/config.c")).read()
        m = re.search(r"known_keys\[\]\s*=\s*\{(.*?)\n\};", text, re.S)
        if not m:
            sys.exit("src/format/config.c: known_keys[] not found")
        body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
        keys = set(re.findall(r'"([a-z]+)"\s*,\s*"([a-z0-9_]+)"', body))
        if len(keys) < 20:
            sys.exit("src/format/config.c: only %d keys read" % len(keys))
        return keys

    def load_options(self):
        """The build options of CMakeLists.txt: option(FTI_...) and the
        FTI_* cache strings (FTI_ENABLE_CUDA AUTO|ON|OFF), with FTI 1.6's
        aliases (fti_v16_alias(ENABLE_TESTS ...))."""
        text = open(os.path.join(self.src, "CMakeLists.txt")).read()
        opts = set(re.findall(r"^\s*option\((FTI_[A-Z0-9_]+)", text, re.M))
        opts |= set(re.findall(r"^\s*set\((FTI_[A-Z0-9_]+) \S+ CACHE STRING", text, re.M))
        self.own_options = set(opts)
        opts |= set(re.findall(r"fti_v16_alias\(([A-Z0-9_]+)", text))
        return opts

    def check_options_documented(self):
        doc = Doc("CMakeLists.txt", "", False)
        for opt in sorted(self.own_options):
            if not any(re.search(r"(?:^|[^\w]|-D)%s(?![\w])" % opt, sp) for sp in self.spans):
                self.fail(doc, "option", opt, "a build option that README.md and docs/*.md never name")

    def check_installed_refs(self):
        """The installed examples' CMakeLists and the installed tools' --help
        and man pages name docs by paths that exist in the install."""
        ex = os.path.join(self.prefix, "share/fti/examples")
        path = os.path.join(ex, "CMakeLists.txt")
        if not os.path.isfile(path):
            self.problems.append("%s: not installed" % path)
            return
        doc = Doc("examples/CMakeLists.installed.txt", "", False)
        text = open(path).read()
        for ref in re.findall(r"<prefix>/(\S+?)[,.;)]?(?:\s|$)", text):
            if not os.path.exists(os.path.join(self.prefix, ref)):
                self.fail(doc, "installed", "<prefix>/" + ref, "not in the install")
        for ref in re.findall(r"(?<![\w/<>-])([\w-]+(?:/[\w.-]+)*\.md)", text):
            if not os.path.exists(os.path.join(ex, ref)):
                self.fail(doc, "installed", ref, "not beside the installed examples")
        for ref in re.findall(r"[\w/<>.-]*README[\w.]*", text):
            ref = ref.rstrip(".")
            if "/" not in ref:
                self.fail(doc, "installed", ref, "a README named without its path")
        configured = self.cache_value("CMAKE_INSTALL_PREFIX")
        for tool in sorted(glob.glob(os.path.join(self.prefix, "bin", "fti-*"))):
            r = subprocess.run([tool, "--help"], capture_output=True, text=True, timeout=30)
            self.check_doc_refs(Doc("%s --help" % os.path.basename(tool), "", False),
                                r.stdout + r.stderr, configured, self.prefix)
        for page in sorted(glob.glob(os.path.join(self.prefix, "share/man/man1/*.1"))):
            self.check_doc_refs(Doc(os.path.relpath(page, self.prefix), "", False),
                                open(page).read().replace("\\-", "-"), configured, self.prefix)

    def check_doc_refs(self, doc, text, configured, prefix):
        """Every *.md a tool's text names is an absolute path that exists
        (one under the configured prefix, compiled into a program or a man
        page, is checked in the scratch install)."""
        for ref in re.findall(r"[\w/.+-]*\.md\b", text):
            path = ref
            if configured and prefix and ref.startswith(configured.rstrip("/") + "/"):
                path = os.path.join(prefix, ref[len(configured.rstrip("/")) + 1:])
            if not os.path.isabs(ref) or not os.path.isfile(path):
                self.fail(doc, "doc-ref", ref, "not an absolute path to an installed doc")

    def header_contracts(self):
        """FTI_X -> the words 'collective' / 'local' its comment in fti.h
        uses (a comment serves the declarations that follow it)."""
        out, comment = {}, ""
        text = open(os.path.join(self.src, "include/fti.h")).read()
        for m in re.finditer(r"/\*(.*?)\*/|FTI_API[^;(]*?\b(FTI_\w+)\s*\(", text, re.S):
            if m.group(1) is not None:
                comment = m.group(1).lower()
            else:
                out[m.group(2)] = {w for w in ("collective", "local")
                                   if re.search(r"\b%s\b" % w, comment)}
        return out

    def check_contracts(self, rel, text):
        words = self.contracts
        prose = re.sub(r"\s+", " ", text)
        for m in re.finditer(r"`(FTI_\w+)`,? is (local|collective)\b", prose):
            fn, said = m.group(1), m.group(2)
            header = words.get(fn, set())
            if header and said not in header:
                doc = Doc(rel, "", False)
                self.fail(doc, "contract", "%s is %s" % (fn, said),
                          "fti.h's comment of %s says %s" % (fn, " and ".join(sorted(header))))

    def cache_value(self, name):
        with open(os.path.join(self.build, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith(name + ":"):
                    return line.split("=", 1)[1].strip()
        return ""

    def find_programs(self):
        """Our program names -> the command that runs each."""
        progs = {}
        for d in ("scripts", "tools", "packaging", "bench", "bench/gpu", "bench/fpga"):
            for f in glob.glob(os.path.join(self.src, d, "*")):
                if os.path.isfile(f) and os.access(f, os.X_OK):
                    progs.setdefault(os.path.basename(f), f)
        for root, dirs, files in os.walk(self.build):
            dirs[:] = [d for d in dirs if d not in ("CMakeFiles", "testdirs")]
            for f in files:
                p = os.path.join(root, f)
                if (re.match(OUR_PROGRAM, f) and f not in LIBFUZZER
                        and "." not in f and os.access(p, os.X_OK)):
                    progs[f] = p
        return progs

    # ---- verdicts ----------------------------------------------------------
    def fail(self, doc, kind, token, why):
        if (kind, token) in self.allow:
            self.used.add((kind, token))
            return
        line = "%s: %s '%s': %s" % (doc.where, kind, token, why)
        if line not in self.problems:
            self.problems.append(line)

    def help_of(self, prog):
        """(ok, text) of `prog --help`, run once."""
        if prog not in self.helps:
            path = self.programs[prog]
            head = open(path, "rb").read()
            # A script that does not handle --help would run for real (a
            # test suite, an install): judge it by its text instead.
            if head[:2] == b"#!" and b"--help" not in head and b"argparse" not in head:
                self.helps[prog] = (False, "", "does not handle --help (not run)")
                return self.helps[prog]
            try:
                r = subprocess.run([path, "--help"], stdin=subprocess.DEVNULL,
                                   capture_output=True, timeout=30, text=True,
                                   errors="replace")
                text = r.stdout + r.stderr
                ok = r.returncode == 0 and "Traceback" not in text
                why = "" if ok else "--help exits %d%s: %s" % (
                    r.returncode, ", with a traceback" if "Traceback" in text else "",
                    (text.strip().splitlines() or ["(no output)"])[-1][:120])
            except subprocess.TimeoutExpired:
                text, ok, why = "", False, "--help did not return in 30 s"
            self.helps[prog] = (ok, text, why)
        return self.helps[prog]

    def command_words(self, text):
        """The words of a command line from our program on, or None."""
        text = re.sub(r"^\$\s+", "", text)
        try:
            words = shlex.split(text, comments=True)
        except ValueError:
            words = text.split()
        segments, cur = [], []
        for w in words:
            if w in ("&&", "||", ";", "|", "(", ")"):
                segments.append(cur)
                cur = []
            else:
                cur.append(w.strip("();"))
        segments.append(cur)
        found = []
        for seg in segments:
            seg = self.skip_launcher(seg)
            # an absolute path is some machine's file, not a program of ours
            name = os.path.basename(seg[0]) if seg and not seg[0].startswith("/") else ""
            if name in self.programs:
                found.append(seg)
            elif re.match(OUR_PROGRAM, name) and name not in LIBFUZZER and len(words) > 1:
                # one word alone may be a test, function or user name
                self.missing.append(name)
        return found

    def skip_launcher(self, seg):
        while seg and re.match(r"^[A-Z_][A-Z0-9_]*=", seg[0]):
            seg = seg[1:]
        for launcher in ("mpiexec", "mpirun", "srun", "nice", "timeout", "fti-run"):
            if seg and os.path.basename(seg[0]) == launcher and "--" in seg:
                return self.skip_launcher(seg[seg.index("--") + 1:])
            if seg and seg[0] == launcher and launcher != "fti-run":
                i = 1
                while i < len(seg) and (seg[i].startswith("-") or seg[i].isdigit()
                                        or seg[i] in ("none",)):
                    i += 1
                return self.skip_launcher(seg[i:])
        return seg

    def check_command(self, doc, seg):
        prog = os.path.basename(seg[0])
        ok, text, why = self.help_of(prog)
        if not ok:
            self.fail(doc, "command", prog, why)
            return
        for w in seg[1:]:
            for flag in FLAG_RE.findall(w.split("=")[0]):
                if flag == "--help":
                    continue
                if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(flag), text):
                    self.fail(doc, "flag", "%s %s" % (prog, flag),
                              "not in `%s --help`" % prog)
        if prog == "fti-ckpt" and len(seg) > 1 and re.match(r"^[a-z]+$", seg[1]):
            if not re.search(r"\b%s\b" % seg[1], text):
                self.fail(doc, "command", "fti-ckpt " + seg[1],
                          "subcommand not in `fti-ckpt --help`")

    def check_path(self, doc, token):
        tok = token[2:] if token.startswith("./") else token
        first = tok.split("/")[0]
        if first in INSTALLED:
            base, where = self.prefix, "the install (cmake --install)"
        elif first == "build":
            base, tok, where = self.build, tok[len("build/"):], "this build tree"
        elif os.path.exists(os.path.join(self.src, first)) and first not in ("build",):
            base, where = self.src, "the repository"
        elif first in LAYERS:
            base, where = os.path.join(self.src, "src"), "src/"
        else:
            return
        pattern = os.path.join(base, tok.rstrip("/"))
        hits = glob.glob(pattern) if "*" in tok else (
            [pattern] if os.path.exists(pattern) else [])
        if tok.endswith("/"):
            hits = [h for h in hits if os.path.isdir(h)]
        if not hits and base == self.src and os.path.exists(os.path.join(self.build, tok)):
            return  # a program this build makes at that path (examples/heatdis)
        if not hits:
            self.fail(doc, "path", token, "not in %s" % where)
        elif first in ("scripts", "tools", "packaging") and not tok.endswith("/"):
            name = os.path.basename(tok)
            if name in self.programs and self.programs[name] == hits[0]:
                ok, _, why = self.help_of(name)
                if not ok:
                    self.fail(doc, "command", name, why)

    def check_file(self, doc, token):
        if not hasattr(self, "_names"):
            self._names = set()
            for root, dirs, files in os.walk(self.src):
                # Not build trees (any name: build-asan, build-openmpi...): files that
                # tests left there would pass a name no checkout has.
                dirs[:] = [d for d in dirs if not d.startswith(".") and
                           not os.path.exists(os.path.join(root, d, "CMakeCache.txt"))]
                self._names.update(files)
        if token not in self._names:
            self.fail(doc, "file", token, "no file of that name in the repository")

    def check_key(self, doc, section, key):
        names = {k for _, k in self.keys}
        if section is None:
            if key not in names:
                self.fail(doc, "key", key, "not in src/format/config.c's key table")
        elif (section, key) not in self.keys:
            self.fail(doc, "key", "[%s] %s" % (section, key),
                      "not in src/format/config.c's key table")

    def check(self, doc):
        t = doc.text
        self.missing = []
        m = re.match(r"^(?:\$\s+)?cd\s+(/\S*)", t)
        if m:
            self.fail(doc, "path", m.group(1),
                      "cd into an absolute folder of one machine; name a folder of the repository")
        m = re.search(r"(?<![\w-])-D((?:FTI_|ENABLE_)[A-Z0-9_]*)=", t)
        if m and m.group(1) not in self.options:
            self.fail(doc, "option", m.group(1), "not an option of CMakeLists.txt")
        segs = self.command_words(t)
        for name in self.missing:
            self.fail(doc, "command", name, "no such program in this build or the repository")
        for seg in segs:
            self.check_command(doc, seg)
        m = SECTION_KEY_RE.match(t)
        if m:
            self.check_key(doc, m.group(1).lower(), m.group(2))
        m = KEY_RE.match(t)
        if m and (not doc.block or doc.section):
            self.check_key(doc, doc.section, m.group(1))
        if not doc.block and re.match(r"^--[a-z][a-z0-9-]*$", t.split()[0]) and not segs:
            flag = t.split()[0]
            if not any(re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(flag), h[1])
                       for h in self.all_helps()):
                self.fail(doc, "flag", flag, "in no `--help` of our programs")
        words = t.split() if (doc.block or segs) else [t]
        for w in words:
            w = w.strip("'\"(),;")
            if PATH_RE.match(w) and "//" not in w and not w.startswith("/"):
                self.check_path(doc, w)
        if not doc.block and re.match(r"^[A-Za-z0-9_][A-Za-z0-9_.+-]*$", t) and t.endswith(OUR_EXT):
            self.check_file(doc, t)

    def all_helps(self):
        """The --help of every program of ours (each run once)."""
        for prog in sorted(self.programs):
            yield self.help_of(prog)

    def check_template(self):
        path = os.path.join(self.src, "config-templates/all-levels.fti")
        text = open(path).read()
        doc = Doc("config-templates/all-levels.fti", "", False)
        for section, key in sorted(self.keys):
            if not re.search(r"(?<![\w])%s(?![\w])" % re.escape(key), text):
                self.fail(doc, "template", "[%s] %s" % (section, key),
                          "a key of src/format/config.c not documented in all-levels.fti")

    def run(self, files):
        self.contracts = self.header_contracts()
        for f in files:
            rel = os.path.relpath(f, self.src)
            self.check_contracts(rel, open(f, encoding="utf-8").read())
            for doc in extract(f, rel):
                self.spans.add(doc.text)
                self.check(doc)
        self.check_template()
        self.check_options_documented()
        self.check_installed_refs()
        for entry, where in sorted(self.allow.items(), key=lambda kv: kv[1]):
            if entry not in self.used:
                self.problems.append("%s: allow-list entry '%s %s' matches nothing: remove it"
                                     % (where, entry[0], entry[1]))
        return self.problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", required=True, help="the repository")
    ap.add_argument("--build", required=True, help="a build tree of it")
    ap.add_argument("--prefix", required=True,
                    help="where this build was installed (cmake --install)")
    ap.add_argument("--allow", default=os.path.join(os.path.dirname(__file__), "allow.txt"))
    ap.add_argument("files", nargs="*", help="markdown files (default README.md docs/*.md)")
    args = ap.parse_args()
    files = args.files or ([os.path.join(args.src, "README.md")]
                           + sorted(glob.glob(os.path.join(args.src, "docs", "*.md"))))
    problems = Checker(args).run(files)
    for p in problems:
        print(p)
    print("docs check: %d file(s), %d problem(s)" % (len(files), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
