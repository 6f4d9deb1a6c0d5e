#!/usr/bin/env python3
"""Checks packaging/spack/packages/libfti/package.py without Spack: it parses,
declares the variants cuda, fortran, hdf5, xrt, depends on what the build
needs, and maps each variant onto a CMake option the project defines."""
import ast
import os
import re
import sys

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
    print("PASS: package.py parses; variants %s; %d dependencies; options %s"
          % (sorted(variants), len(deps), sorted(options)))


if __name__ == "__main__":
    main()
