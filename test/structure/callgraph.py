#!/usr/bin/env python3
"""No module calls back into its caller (issue 28).

Builds the module-level call graph of the library from its object files:
A -> B when A's object file references a symbol B's object file defines
(nm). A cycle (a strongly connected component of more than one module)
fails the check, printed with the edges inside it and the symbols that
make each edge.

Usage: callgraph.py [--nm NM] [--allow 'MOD MOD ...: why']
                    [--layers 'DIR[,DIR] DIR[,DIR] ...'] OBJ... | OBJDIR

Modules are named by their source path below the object folder
("src/core/checkpoint" for .../fti_objs.dir/src/core/checkpoint.c.o). An
--allow names a known cycle by its exact set of modules and why it is
still there; it is reported, not failed. A cycle that differs from every
allowed set, even one that grew from an allowed one, fails. An --allow
that matches no cycle fails too: the entry is stale and must go.
--layers lists the folders bottom to top (folders of one layer joined by
commas); a module belongs to the longest listed folder its path starts
with. A module may call its own folder and the layers below it only: a
call up, or sideways into another folder of its layer, fails with the
symbols. A module in no listed folder fails too (a new folder must be
placed).
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


def layer_of(module, layers):
    """(layer index, folder) of the longest listed folder module is in."""
    best = None
    for i, folders in enumerate(layers):
        for d in folders:
            if module.startswith(d + '/') and (best is None or len(d) > len(best[1])):
                best = (i, d)
    return best


def check_layers(graph, why, layers):
    """The calls that go up or sideways between folders; modules unplaced."""
    bad = []
    for a in sorted(graph):
        la = layer_of(a, layers)
        if la is None:
            bad.append(f"UNPLACED: {a} is in no folder of --layers")
            continue
        for b in sorted(graph[a]):
            lb = layer_of(b, layers)
            if lb is None or lb[1] == la[1] or lb[0] < la[0]:
                continue
            how = 'up' if lb[0] > la[0] else 'sideways'
            bad.append(f"LAYER: {a} -> {b} ({how}: {la[1]} -> {lb[1]}): "
                       f"{', '.join(sorted(why[(a, b)]))}")
    return bad


def parse_allow(entries):
    allowed = {}
    for a in entries:
        mods, _, reason = a.partition(':')
        allowed[frozenset(mods.split())] = reason.strip() or '(no reason given)'
    return allowed


def report(objs, nm, allow, layers=None):
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
    if layers:
        bad = check_layers(graph, why, layers)
        print(f"layers, bottom to top: {' | '.join(','.join(l) for l in layers)}: "
              f"{len(bad)} call(s) up or sideways")
        for line in bad:
            print("  ", line)
        failures += len(bad)
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
        # layers: top above up and down passes with the cycle allowed;
        # top below them is a call up; a module in no folder is unplaced
        ok = ok and check_layers({'a/top': {'b/up'}}, {('a/top', 'b/up'): {'up'}},
                                 [['b'], ['a']]) == []
        ok = ok and len(check_layers({'a/top': {'b/up'}}, {('a/top', 'b/up'): {'up'}},
                                     [['a'], ['b']])) == 1
        ok = ok and len(check_layers({'a/top': {'c/up'}}, {('a/top', 'c/up'): {'up'}},
                                     [['b'], ['a', 'c']])) == 1
        ok = ok and len(check_layers({'d/top': {'b/up'}}, {('d/top', 'b/up'): {'up'}},
                                     [['b'], ['a']])) == 1
        print("self-test:", "cycle down <-> up found, top outside it" if ok else f"wrong: {found}")
        return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--nm', default='nm')
    ap.add_argument('--cc')
    ap.add_argument('--allow', action='append', default=[])
    ap.add_argument('--layers', help="folders bottom to top, a layer's folders joined by commas")
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
    layers = [l.split(',') for l in args.layers.split()] if args.layers else None
    return report(objs, args.nm, args.allow, layers)


if __name__ == '__main__':
    sys.exit(main())
