#!/usr/bin/env python3
"""Validate a results.json against docs/results.schema.json; exit 1 if bad.

When the file has "axes" (docs/axes.md), also check what a schema cannot:
every cell's axes name axes of the run and take their values, the where
axis agrees with env.where, an axis that applies to the cell is there, and
the cell id is the where word and then /NAME=VALUE for each of the cell's
axes in the order of "axes" (kernel and initrd as base names, '/' as '_').
"""
import json
import os
import sys

import jsonschema


def id_value(name, value):
    if name in ("kernel", "initrd"):
        return os.path.basename(value)
    return value.replace("/", "_")


def check_axes(doc):
    axes = doc.get("axes")
    if axes is None:
        return []
    errors = []
    names = [a["name"] for a in axes]
    if len(set(names)) != len(names):
        errors.append(f"an axis appears twice in {names}")
    if "where" not in names or names[0] != "where":
        errors.append("the where axis is not first")
    for a in axes:
        if a["numeric"] and len(a.get("numbers", [])) != len(a["values"]):
            errors.append(f"axis {a['name']}: not one number per value")
    by_name = {a["name"]: a for a in axes}
    for c in doc["cells"]:
        cid, ax = c["id"], c.get("axes")
        if ax is None:
            errors.append(f"cell {cid}: no axes")
            continue
        guest = c["env"]["where"] == "guest"
        for name, value in ax.items():
            if name not in by_name:
                errors.append(f"cell {cid}: unknown axis {name}")
            elif value not in by_name[name]["values"]:
                errors.append(f"cell {cid}: {name}={value} not among {by_name[name]['values']}")
        for a in axes:
            applies = a["applies"] == "all" or guest
            if applies and a["name"] not in ax:
                errors.append(f"cell {cid}: no value for axis {a['name']}")
            if not applies and a["name"] in ax:
                errors.append(f"cell {cid}: axis {a['name']} applies to guests only")
        if ax.get("where") != c["env"]["where"]:
            errors.append(f"cell {cid}: axes.where is not env.where")
        want = c["env"]["where"] + "".join(
            f"/{a['name']}={id_value(a['name'], ax[a['name']])}"
            for a in axes[1:] if a["name"] in ax)
        if cid != want:
            errors.append(f"cell {cid}: the axes make the id {want}")
    return errors


top = __file__.rsplit("/tests/", 1)[0]
schema = json.load(open(top + "/docs/results.schema.json"))
doc = json.load(open(sys.argv[1]))
try:
    jsonschema.validate(doc, schema)
except jsonschema.ValidationError as e:
    print(f"{sys.argv[1]}: {e.message} at {list(e.absolute_path)}", file=sys.stderr)
    sys.exit(1)
errors = check_axes(doc)
for e in errors:
    print(f"{sys.argv[1]}: {e}", file=sys.stderr)
if errors:
    sys.exit(1)
print(f"{sys.argv[1]}: valid vmtax-results/1")
