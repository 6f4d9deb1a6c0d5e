#!/usr/bin/env python3
"""Checks packaging/spack/packages/libfti/package.py without Spack: it parses,
declares the variants cuda, fortran, hdf5, xrt, depends on what the build
needs, and maps each variant onto a CMake option the project defines; the
repository has a repo.yaml with a namespace (`spack repo add` needs it); the
version of include/fti.h is a release with a sha256, and when the git tag
v<version> is at hand, packaging/make-release-tarball.sh makes a tarball of
exactly that checksum. packaging/spack/verify.sh checks it all with Spack."""
import ast
import os
import re
import subprocess
import sys
import tempfile

SRC = os.environ.get("FTI_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), "..", "..")
PKG = os.path.join(SRC, "packaging", "spack", "packages", "libfti", "package.py")


def calls(tree, name):
    """The string arguments of every call to `name` (first positional first)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == name:
            out.append([a.value for a in node.args if isinstance(a, ast.Constant)] +
                       [k.value.value for k in node.keywords if isinstance(k.value, ast.Constant)])
    return out


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    with open(PKG) as f:
        text = f.read()
    tree = ast.parse(text, PKG)  # raises SyntaxError: the test fails
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    if len(classes) != 1 or classes[0].name != "Libfti" or \
            [b.id for b in classes[0].bases] != ["CMakePackage"]:
        fail("expected one class Libfti(CMakePackage)")
    variants = {c[0] for c in calls(tree, "variant")}
    for v in ("cuda", "fortran", "hdf5", "xrt"):
        if v not in variants:
            fail("variant %s missing (has %s)" % (v, sorted(variants)))
    deps = {re.split(r"[@+~ ]", c[0])[0] for c in calls(tree, "depends_on")}
    for d in ("mpi", "cmake", "zstd", "xxhash", "cuda", "hdf5"):
        if d not in deps:
            fail("no depends_on(%r)" % d)
    for d in ("jerasure", "gf-complete", "iniparser"):  # replaced by our own code (issue 27)
        if d in deps:
            fail("depends_on(%r): the library no longer uses it" % d)
    with open(os.path.join(SRC, "CMakeLists.txt")) as f:
        cmake = f.read()
    options = set(re.findall(r'"(FTI_[A-Z0-9_]+)"', text))
    for v in variants:
        if not any(v.upper() in o for o in options):
            fail("variant %s reaches no FTI_* CMake option" % v)
    for o in sorted(options):
        if o in cmake:
            continue
        if o == "FTI_ENABLE_HDF5":  # the HDF5 backend's option, added with that backend
            print("note: %s is not defined by CMakeLists.txt yet" % o)
            continue
        fail("package.py passes %s, which CMakeLists.txt does not define" % o)
    check_repo_and_release(tree)
    print("PASS: package.py parses; variants %s; %d dependencies; options %s"
          % (sorted(variants), len(deps), sorted(options)))


def check_repo_and_release(tree):
    repo_yaml = os.path.join(SRC, "packaging", "spack", "repo.yaml")
    if not os.path.isfile(repo_yaml):
        fail("no %s: `spack repo add packaging/spack` fails with 'No repo.yaml found'" % repo_yaml)
    with open(repo_yaml) as f:
        if not re.search(r"^repo:\s*\n\s+namespace:\s*[A-Za-z_][A-Za-z0-9_]*\s*$", f.read(), re.M):
            fail("%s declares no repo: namespace:" % repo_yaml)
    with open(os.path.join(SRC, "include", "fti.h")) as f:
        parts = dict(re.findall(r"^#define FTI_VERSION_(MAJOR|MINOR|PATCH) ([0-9]+)$", f.read(), re.M))
    version = "%s.%s.%s" % (parts["MAJOR"], parts["MINOR"], parts["PATCH"])
    sums = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "version" and node.args:
            for k in node.keywords:
                if k.arg == "sha256" and isinstance(k.value, ast.Constant):
                    sums[node.args[0].value] = k.value.value
    if version not in sums:
        fail("package.py has no version(%r, sha256=...): fti.h's version is no release of it "
             "(has %s)" % (version, sorted(sums)))
    if not re.fullmatch(r"[0-9a-f]{64}", sums[version]):
        fail("version %s: sha256 %r is not 64 hex digits" % (version, sums[version]))
    tag = "v" + version
    try:
        subprocess.run(["git", "-C", SRC, "rev-parse", "-q", "--verify", "refs/tags/" + tag],
                       check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        print("note: no git tag %s here (a clone without tags): its tarball's checksum not compared"
              % tag)
        return
    with tempfile.TemporaryDirectory() as out:
        script = os.path.join(SRC, "packaging", "make-release-tarball.sh")
        res = subprocess.run([script, tag, out], capture_output=True, text=True)
        if res.returncode != 0:
            fail("%s %s: %s" % (script, tag, res.stderr.strip()))
        made = res.stdout.split()[0]
    if made != sums[version]:
        fail("the tarball of tag %s has sha256 %s, package.py says %s" % (tag, made, sums[version]))
    print("ok: repo.yaml has a namespace; %s's sha256 %s is the tarball of tag %s"
          % (version, made, tag))


if __name__ == "__main__":
    main()
