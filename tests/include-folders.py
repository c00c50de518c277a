#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""include-folders.py - the source folders, their sizes and the includes
between them.

Every source folder is on the include path (Makefile), so a quoted
'#include "x.h"' names x.h by its file name alone: a header's folder is
where that name lives (header names are unique in the tree).  An edge
A -> B is a file in folder A including a header of folder B.  A loop is a
set of folders each reaching the others (a strongly connected component);
each one is printed with the file-level includes that make it.

    python3 tests/include-folders.py [--edges] [--check]

prints each folder's file count and lines, then the loops; --edges also
prints every edge between folders; --check exits 1 when there is a loop.
"""
import collections
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The folders whose sources go into vmtax and the agent (Makefile).
ROOTS = ("lib", "host", "vocab", "reports", "guest-image", "orchestrator")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources():
    out = subprocess.check_output(["git", "ls-files", "--"] + list(ROOTS),
                                  cwd=TOP, text=True)
    return [f for f in out.split() if f.endswith((".c", ".h"))]


def sccs(nodes, graph):
    """Tarjan's strongly connected components, iteratively."""
    index, low, stack, on, out = {}, {}, [], set(), []
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
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
                out.append(sorted(comp))
    return out


def main(argv):
    files = sources()
    folder = {f: os.path.dirname(f) for f in files}
    header = {}
    for f in files:
        if f.endswith(".h"):
            header.setdefault(os.path.basename(f), folder[f])
    size = collections.Counter()
    lines = collections.Counter()
    edges = collections.defaultdict(list)
    for f in files:
        with open(os.path.join(TOP, f), encoding="utf-8") as fh:
            text = fh.read()
        size[folder[f]] += 1
        lines[folder[f]] += text.count("\n")
        for inc in INCLUDE.findall(text):
            to = header.get(os.path.basename(inc))
            if to and to != folder[f]:
                edges[(folder[f], to)].append(
                    "%s -> %s" % (os.path.basename(f), inc))
    print("%-28s %5s %7s" % ("folder", "files", "lines"))
    for d in sorted(size):
        print("%-28s %5d %7d" % (d, size[d], lines[d]))
    graph = collections.defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    if "--edges" in argv:
        print("\nincludes between folders:")
        for (a, b), why in sorted(edges.items()):
            print("  %s -> %s (%d): %s" % (a, b, len(why), ", ".join(why)))
    loops = [c for c in sccs(size.keys(), graph) if len(c) > 1]
    print("\nloops between folders: %d" % len(loops))
    for c in loops:
        print("  loop: %s" % " ".join(c))
        for (a, b), why in sorted(edges.items()):
            if a in c and b in c:
                print("    %s -> %s: %s" % (a, b, ", ".join(why)))
    return 1 if loops and "--check" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
