#!/usr/bin/env python3
"""trace_check.py SCHEMA FILE...: checks every line of quarry traces (docs/trace.md)
against the JSON Schema in SCHEMA (docs/trace.schema.json).

Only the standard library: the validator below implements the part of JSON Schema
(2020-12) the trace schema uses: type, required, properties, items, minItems, enum, const,
pattern, minimum, allOf, if/then and local $ref. A keyword it does not know is an error,
so the schema cannot silently grow past what is checked.

Prints "valid" and exits 0 when every line of every file is one JSON object that the
schema accepts (and no file is empty); else prints FILE:LINE: PATH: MESSAGE for each
problem on stderr and exits 1. Exit 2 for bad usage.
"""
import json
import re
import sys

KNOWN = {"$schema", "$id", "title", "description", "$defs", "type", "required",
         "properties", "items", "minItems", "enum", "const", "pattern", "minimum",
         "allOf", "if", "then", "$ref"}

TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def resolve(root, ref):
    if not ref.startswith("#/"):
        raise ValueError("only local $ref is supported: %s" % ref)
    node = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def check(root, schema, v, path, errs):
    unknown = set(schema) - KNOWN
    if unknown:
        raise ValueError("schema keyword(s) not supported: %s" % ", ".join(sorted(unknown)))
    if "$ref" in schema:
        check(root, resolve(root, schema["$ref"]), v, path, errs)
    if "type" in schema:
        ts = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[t](v) for t in ts):
            errs.append("%s: expected %s, got %s" % (path, " or ".join(ts), json.dumps(v)[:80]))
            return
    if "const" in schema and v != schema["const"]:
        errs.append("%s: expected %s" % (path, json.dumps(schema["const"])))
    if "enum" in schema and v not in schema["enum"]:
        errs.append("%s: expected one of %s, got %s" % (path, schema["enum"], json.dumps(v)[:80]))
    if "pattern" in schema and isinstance(v, str) and not re.search(schema["pattern"], v):
        errs.append("%s: %s does not match %s" % (path, json.dumps(v)[:80], schema["pattern"]))
    if "minimum" in schema and TYPES["number"](v) and v < schema["minimum"]:
        errs.append("%s: %s is below %s" % (path, v, schema["minimum"]))
    if isinstance(v, dict):
        for k in schema.get("required", []):
            if k not in v:
                errs.append("%s: missing %s" % (path, k))
        for k, sub in schema.get("properties", {}).items():
            if k in v:
                check(root, sub, v[k], "%s.%s" % (path, k), errs)
    if isinstance(v, list):
        if len(v) < schema.get("minItems", 0):
            errs.append("%s: fewer than %d items" % (path, schema["minItems"]))
        if "items" in schema:
            for i, x in enumerate(v):
                check(root, schema["items"], x, "%s[%d]" % (path, i), errs)
    for sub in schema.get("allOf", []):
        check(root, sub, v, path, errs)
    if "if" in schema:
        probe = []
        check(root, schema["if"], v, path, probe)
        if not probe and "then" in schema:
            check(root, schema["then"], v, path, errs)


def main(argv):
    if len(argv) < 3:
        print("usage: trace_check.py SCHEMA FILE...", file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        schema = json.load(f)
    bad = 0
    for name in argv[2:]:
        with open(name) as f:
            lines = f.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if not lines:
            print("%s: empty trace" % name, file=sys.stderr)
            bad += 1
        for n, line in enumerate(lines, 1):
            try:
                v = json.loads(line)
            except ValueError as e:
                print("%s:%d: not one JSON value: %s" % (name, n, e), file=sys.stderr)
                bad += 1
                continue
            errs = []
            check(schema, schema, v, "$", errs)
            for e in errs:
                print("%s:%d: %s" % (name, n, e), file=sys.stderr)
            bad += len(errs)
    if bad:
        return 1
    print("valid")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
