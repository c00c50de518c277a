#!/usr/bin/env python3
"""Rebuild the fixture trees from a kvm-lab-fixtures.sh console log.

    tests/tools/kvm-lab-unpack.py LOG OUTDIR

Each "@@ CASE/ABS/PATH<TAB>LINE" line appends LINE to OUTDIR/CASE/ABS/PATH;
"@@0 CASE/PATH" makes an empty file; "@@! CASE/PATH<TAB>unreadable" lines
are listed, not written.
"""
import os
import sys


def main():
    log, out = sys.argv[1], sys.argv[2]
    files = {}
    for raw in open(log, encoding="utf-8", errors="replace"):
        raw = raw.rstrip("\n")
        if raw.startswith("@@! "):
            print("unreadable:", raw[4:].split("\t")[0])
            continue
        if raw.startswith("@@0 ") and "\t" in raw:
            path = raw[4:].split("\t", 1)[0]
            if ".." in path.split("/"):
                sys.exit("bad path " + path)
            files.setdefault(path, [])
            continue
        if not raw.startswith("@@ ") or "\t" not in raw:
            continue
        path, line = raw[3:].split("\t", 1)
        if ".." in path.split("/"):
            sys.exit("bad path " + path)
        files.setdefault(path, []).append(line)
    for path, lines in sorted(files.items()):
        dest = os.path.join(out, path)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "w") as f:
            f.write("".join(line + "\n" for line in lines))
    print(len(files), "files")


main()
