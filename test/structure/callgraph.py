#!/usr/bin/env python3
"""No module calls back into its caller (issue 28).

Builds the module-level call graph of the library from its object files:
A -> B when A's object file references a symbol B's object file defines
(nm). A cycle (a strongly connected component of more than one module)
fails the check, printed with the edges inside it and the symbols that
make each edge.

Usage: callgraph.py [--nm NM] [--allow 'MOD MOD ...: why'] OBJ... | OBJDIR

Modules are named by their source path below the object folder
("src/core/checkpoint" for .../fti_objs.dir/src/core/checkpoint.c.o). An
--allow names a known cycle by its exact set of modules and why it is
still there; it is reported, not failed. A cycle that differs from every
allowed set, even one that grew from an allowed one, fails. An --allow
that matches no cycle fails too: the entry is stale and must go.
--self-test compiles two modules that call each other and checks the
check sees their cycle (needs --cc).
"""
import argparse
import collections
import glob
import os
import subprocess
import sys
import tempfile

DEFINED = set('TDBRCVW')  # text, data, bss, read-only, common, weak


def module_name(obj):
    """The object's source path without .c.o, below the object folder."""
    marker = '.dir/'
    i = obj.rfind(marker)
    rel = obj[i + len(marker):] if i >= 0 else os.path.basename(obj)
    for ext in ('.c.o', '.o'):
        if rel.endswith(ext):
            return rel[:-len(ext)]
    return rel


def read_symbols(nm, objs):
    """(where each symbol is defined, the symbols each module uses)."""
    defs, uses = {}, collections.defaultdict(set)
    for o in objs:
        out = subprocess.run([nm, o], capture_output=True, text=True, check=True).stdout
        m = module_name(o)
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in DEFINED:
                defs[p[2]] = m
            elif len(p) == 2 and p[0] == 'U':
                uses[m].add(p[1])
    return defs, uses


def call_graph(defs, uses):
    graph, why = collections.defaultdict(set), collections.defaultdict(set)
    for m, syms in uses.items():
        for s in syms:
            d = defs.get(s)
            if d is not None and d != m:
                graph[m].add(d)
                why[(m, d)].add(s)
    return graph, why


def cycles(graph):
    """Strongly connected components of more than one module (Tarjan,
    iterative: the graph may be deep)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = n
        n += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n
                    n += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def parse_allow(entries):
    allowed = {}
    for a in entries:
        mods, _, reason = a.partition(':')
        allowed[frozenset(mods.split())] = reason.strip() or '(no reason given)'
    return allowed


def report(objs, nm, allow):
    defs, uses = read_symbols(nm, objs)
    graph, why = call_graph(defs, uses)
    found = cycles(graph)
    allowed = parse_allow(allow)
    nmods = len(set(defs.values()) | set(uses))
    print(f"{nmods} modules, {sum(len(v) for v in graph.values())} edges, {len(found)} cycle(s)")
    failures = 0
    for comp in found:
        reason = allowed.pop(frozenset(comp), None)
        if reason is None:
            failures += 1
            print("CYCLE:", " ".join(comp))
        else:
            print(f"allowed cycle ({reason}):", " ".join(comp))
        for a in comp:
            for b in sorted(graph[a] & set(comp)):
                print(f"   {a} -> {b}: {', '.join(sorted(why[(a, b)]))}")
    for mods, reason in allowed.items():
        failures += 1
        print(f"STALE ALLOW ({reason}): no cycle is exactly", " ".join(sorted(mods)))
    if failures:
        print(f"FAIL: {failures} cycle(s) or stale allow entries: a module calls back into "
              "its caller; move the misplaced functions below both")
    return 1 if failures else 0


def self_test(cc, nm):
    """Two modules calling each other must be seen as one cycle, a third
    one calling them only must stay out of it; the allow list passes that
    exact cycle only."""
    sources = {'up': 'int down(int);\nint up(int x) { return x ? down(x - 1) : 0; }\n',
               'down': 'int up(int);\nint down(int x) { return x ? up(x - 1) : 1; }\n',
               'top': 'int up(int);\nint top(void) { return up(3); }\n'}
    with tempfile.TemporaryDirectory() as tmp:
        objs = []
        for name, text in sources.items():
            src = os.path.join(tmp, name + '.c')
            with open(src, 'w') as f:
                f.write(text)
            obj = os.path.join(tmp, 'x.dir', name + '.c.o')
            os.makedirs(os.path.dirname(obj), exist_ok=True)
            subprocess.run([cc, '-c', src, '-o', obj], check=True)
            objs.append(obj)
        graph, why = call_graph(*read_symbols(nm, objs))
        found = cycles(graph)
        ok = found == [['down', 'up']] and why[('up', 'down')] == {'down'}
        # an allow entry passes its exact cycle only; a stale one fails
        ok = ok and report(objs, nm, []) == 1 and report(objs, nm, ['up down: known']) == 0
        ok = ok and report(objs, nm, ['up down top: grew']) == 1
        print("self-test:", "cycle down <-> up found, top outside it" if ok else f"wrong: {found}")
        return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--nm', default='nm')
    ap.add_argument('--cc')
    ap.add_argument('--allow', action='append', default=[])
    ap.add_argument('--self-test', action='store_true')
    ap.add_argument('objects', nargs='*')
    args = ap.parse_args()
    if args.self_test:
        return self_test(args.cc or 'cc', args.nm)
    objs = []
    for o in args.objects:
        objs += glob.glob(o + '/**/*.o', recursive=True) if os.path.isdir(o) else [o]
    if not objs:
        print("no object files given")
        return 2
    return report(objs, args.nm, args.allow)


if __name__ == '__main__':
    sys.exit(main())
