#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""include-folders.py - the source folders, their layers, the includes
between them, and the axis names spelled outside the vocabulary.

Every source folder is on the include path (Makefile), so a quoted
'#include "x.h"' names x.h by its file name alone: a header's folder is
where that name lives (header names are unique in the tree).  An edge
A -> B is a file in folder A including a header of folder B.

LAYERS below is the order, lowest first (docs/development.md "Layers"): a
folder may include its own headers and those of folders in lower layers,
never a header of its own layer's other folders or of a higher one.  A
loop is a set of folders each reaching the others (a strongly connected
component): against the order too, and printed with the includes that
make it.

The axis-name literals: a quoted axis name of the vocabulary (the
AXIS_NAME_* and AXIS_ENV_* strings of vocab/vocab.h) in a .c file outside
vocab/ (comments left out); the vocabulary is where they are spelled.

    python3 tests/include-folders.py [--edges] [--check] [--root DIR]

prints each folder's layer, file count and lines, the include edges by
layer (--edges: with the includes that make each), every include against
the order as FILE:LINE: ..., the loops, and the literal count; --check
exits 1 when an include is against the order, a folder has no layer,
there is a loop, or the literal count is not 0.  --root: the tree to read
(default: this one; a copy need not be a git checkout).
"""
import collections
import os
import re
import subprocess
import sys

# The order, lowest first; the folders of one layer are independent of
# each other.
LAYERS = (
    ("lib",),
    ("host", "guest-image/agent"),
    ("guest-image/build",),
    ("vocab",),
    ("reports",),
    ("orchestrator/guest",),
    ("orchestrator/config", "orchestrator/fleet"),
    ("orchestrator/engine",),
    ("orchestrator/lab",),
    ("orchestrator/exec",),
    ("orchestrator/cli",),
)
# The folders whose sources go into vmtax and the agent (Makefile).
ROOTS = ("lib", "host", "vocab", "reports", "guest-image", "orchestrator")
VOCAB = "vocab/vocab.h"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
NAME_DEF = re.compile(r'^#define AXIS_(?:NAME|ENV)_\w+\s+"([^"]+)"', re.M)
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)


def sources(top):
    if os.path.exists(os.path.join(top, ".git")):
        out = subprocess.check_output(["git", "ls-files", "--"] + list(ROOTS),
                                      cwd=top, text=True)
        files = out.split()
    else:
        files = []
        for root in ROOTS:
            for d, _, names in os.walk(os.path.join(top, root)):
                files += [os.path.relpath(os.path.join(d, n), top)
                          for n in names]
    return sorted(f for f in files if f.endswith((".c", ".h")))


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


def axis_literals(top, files):
    """(names, [FILE:LINE: "name"]) of the vocabulary's axis names spelled
    in .c files outside it."""
    try:
        with open(os.path.join(top, VOCAB), encoding="utf-8") as fh:
            names = sorted(set(NAME_DEF.findall(fh.read())))
    except OSError:
        return [], ["%s: missing: no vocabulary to count against" % VOCAB]
    quoted = re.compile('"(%s)"' % "|".join(re.escape(n) for n in names))
    hits = []
    for f in files:
        if not f.endswith(".c") or f.startswith("vocab/"):
            continue
        with open(os.path.join(top, f), encoding="utf-8") as fh:
            text = fh.read()
        # comments blanked, newlines kept: line numbers stay right
        text = COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
        for no, line in enumerate(text.split("\n"), 1):
            for m in quoted.finditer(line):
                hits.append('%s:%d: "%s"' % (f, no, m.group(1)))
    return names, hits


def main(argv):
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if "--root" in argv:
        top = os.path.abspath(argv[argv.index("--root") + 1])
    rank = {d: i for i, layer in enumerate(LAYERS) for d in layer}
    files = sources(top)
    folder = {f: os.path.dirname(f) for f in files}
    header = {}
    for f in files:
        if f.endswith(".h"):
            header.setdefault(os.path.basename(f), folder[f])
    size = collections.Counter()
    lines = collections.Counter()
    edges = collections.defaultdict(list)
    against = []
    for f in files:
        with open(os.path.join(top, f), encoding="utf-8") as fh:
            text = fh.read()
        size[folder[f]] += 1
        lines[folder[f]] += text.count("\n")
        for no, line in enumerate(text.split("\n"), 1):
            m = INCLUDE.match(line)
            to = header.get(os.path.basename(m.group(1))) if m else None
            if not to or to == folder[f]:
                continue
            edges[(folder[f], to)].append(
                "%s -> %s" % (os.path.basename(f), m.group(1)))
            a, b = rank.get(folder[f]), rank.get(to)
            if a is not None and b is not None and b >= a:
                against.append(
                    "%s:%d: includes %s of layer %s (%s) from layer %s "
                    "(%s): against the order" %
                    (f, no, m.group(1), b, to, a, folder[f]))
    unplaced = sorted(d for d in size if d not in rank)

    print("%-5s %-22s %5s %7s" % ("layer", "folder", "files", "lines"))
    for d in sorted(size, key=lambda d: (rank.get(d, 99), d)):
        print("%-5s %-22s %5d %7d" %
              (rank.get(d, "?"), d, size[d], lines[d]))

    print("\ninclude edges by layer (from -> to, includes):")
    by_layer = collections.Counter()
    for (a, b), why in edges.items():
        ra, rb = rank.get(a, 99), rank.get(b, 99)
        by_layer[(ra, rb, rb >= ra)] += len(why)
    def name(r):
        return "+".join(LAYERS[r]) if r < len(LAYERS) else "(none)"
    for (ra, rb, bad), n in sorted(by_layer.items()):
        print("  %2s %-40s -> %2s %-40s %4d%s" %
              (ra, name(ra), rb, name(rb), n,
               "  AGAINST THE ORDER" if bad else ""))
    if "--edges" in argv:
        print("\nincludes between folders:")
        for (a, b), why in sorted(edges.items()):
            print("  %s -> %s (%d): %s" % (a, b, len(why), ", ".join(why)))

    print("\nincludes against the order: %d" % len(against))
    for a in against:
        print("  " + a)
    for d in unplaced:
        print("  %s: a folder of no layer (LAYERS in %s)" %
              (d, os.path.relpath(__file__, top)
               if os.path.abspath(__file__).startswith(top) else __file__))

    graph = collections.defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    loops = [c for c in sccs(size.keys(), graph) if len(c) > 1]
    print("\nloops between folders: %d" % len(loops))
    for c in loops:
        print("  loop: %s" % " ".join(c))
        for (a, b), why in sorted(edges.items()):
            if a in c and b in c:
                print("    %s -> %s: %s" % (a, b, ", ".join(why)))

    names, hits = axis_literals(top, files)
    print("\naxis-name literals outside %s (%s): %d" %
          (VOCAB, ", ".join(names), len(hits)))
    for h in hits:
        print("  " + h)

    bad = against or unplaced or loops or hits
    return 1 if bad and "--check" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
