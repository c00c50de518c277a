#!/usr/bin/env python3
"""Validate vmtax report/compare JSON documents against their schemas.

    check-report.py FILE...

Each FILE's "schema" picks docs/report.schema.json (vmtax-report/1) or
docs/compare.schema.json (vmtax-compare/1); compare refers to report's
definitions by its $id (urn:vmtax:report:1).  Prints one line per file, the first error with its
path for a bad one; exits 1 when any is bad, 2 when one cannot be read.
"""
import json
import sys

import jsonschema

top = __file__.rsplit("/tests/", 1)[0]
# The document's "schema" -> its schema; each is also known by its $id.
schemas = {f"vmtax-{name}/1": json.load(open(f"{top}/docs/{name}.schema.json"))
           for name in ("report", "compare")}
Validator = jsonschema.Draft202012Validator
for s in schemas.values():
    Validator.check_schema(s)


def validator(schema):
    try:  # jsonschema >= 4.18
        import referencing
        reg = referencing.Registry().with_resources(
            (s["$id"], referencing.Resource.from_contents(s))
            for s in schemas.values())
        return Validator(schema, registry=reg)
    except ImportError:  # Debian 12's 4.10
        res = jsonschema.RefResolver.from_schema(schema, store={s["$id"]: s for s in schemas.values()})
        return Validator(schema, resolver=res)


bad = 0
for path in sys.argv[1:]:
    try:
        doc = json.load(open(path))
    except (OSError, ValueError) as e:
        print(f"{path}: cannot read: {e}", file=sys.stderr)
        sys.exit(2)
    sid = doc.get("schema") if isinstance(doc, dict) else None
    if sid not in schemas:
        print(f"{path}: unknown schema {sid!r}", file=sys.stderr)
        bad = 1
        continue
    err = jsonschema.exceptions.best_match(validator(schemas[sid]).iter_errors(doc))
    if err is not None:
        where = "/" + "/".join(str(p) for p in err.absolute_path)
        print(f"{path}: {where}: {err.message}", file=sys.stderr)
        bad = 1
    else:
        print(f"{path}: valid {sid}")
sys.exit(bad)
