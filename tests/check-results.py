#!/usr/bin/env python3
"""Validate a results.json against docs/results.schema.json; exit 1 if bad."""
import json
import sys

import jsonschema

top = __file__.rsplit("/tests/", 1)[0]
schema = json.load(open(top + "/docs/results.schema.json"))
doc = json.load(open(sys.argv[1]))
try:
    jsonschema.validate(doc, schema)
except jsonschema.ValidationError as e:
    print(f"{sys.argv[1]}: {e.message} at {list(e.absolute_path)}", file=sys.stderr)
    sys.exit(1)
print(f"{sys.argv[1]}: valid vmtax-results/1")
