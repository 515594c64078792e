# api_limits.py FORMAT FILE: checks one tool export (`quarry tools --format FORMAT`) against
# the limits the receiving API documents. Written from the APIs' documentation, not from
# quarry's exporter; each rule cites where it comes from. Prints one line per problem and
# exits 1 when there is any.
#
# OpenAI, Chat Completions `tools[]` ({"type": "function", "function": {...}}):
#   - function.name: "Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a
#     maximum length of 64" (API reference, FunctionObject.name): ^[a-zA-Z0-9_-]{1,64}$.
#   - function.description: the API refuses more than 1,024 characters: "Invalid
#     'tools[N].function.description': string too long. Expected a string with maximum
#     length 1024" (error code string_above_max_length, as reported in e.g.
#     getsentry/sentry-mcp#106 and OpenHands#4838).
#   - function.parameters: "described as a JSON Schema object"; Structured Outputs:
#     "the root level object of a schema must be an object, and not use anyOf".
#   - strict: true (Structured Outputs guide, "Supported schemas"): "all fields or function
#     parameters must be specified as required"; "additionalProperties: false must always
#     be set in objects"; an optional field is emulated "using a union type with null";
#     types string, number, boolean, integer, object, array (plus enum, anyOf, $ref/$defs);
#     not supported: allOf, not, dependentRequired, dependentSchemas, if, then, else; for
#     fine-tuned models also not: minLength, maxLength, pattern, format, minimum, maximum,
#     multipleOf, patternProperties, unevaluatedProperties, propertyNames, minProperties,
#     maxProperties, unevaluatedItems, contains, minContains, maxContains, minItems,
#     maxItems, uniqueItems (we hold every export to that stricter list, so it works with
#     any model; `default` is no keyword of the subset either); at most 5,000 object
#     properties and 10 levels of nesting; at most 1,000 enum values; property names,
#     enum and const values together at most 120,000 characters.
# Anthropic, Messages API `tools[]` ({"name", "description", "input_schema"}):
#   - name: "Must match the regex ^[a-zA-Z0-9_-]{1,64}$" (tool definition reference; newer
#     references allow 128, 64 is what every revision accepts).
#   - input_schema: "JSON schema for this tool's input"; its "type" must be "object"
#     (the request is refused otherwise), and the model reads `description` to choose.
# MCP 2025-11-25, tools/list (server/tools, "Tool names" and the Tool schema):
#   - name SHOULD be 1 to 128 characters of A-Z a-z 0-9 _ - . (SEP-986);
#   - inputSchema MUST be a JSON Schema object (not null) whose "type" is "object";
#   - outputSchema, when given, a JSON Schema whose root "type" is "object";
#   - annotations: readOnlyHint, destructiveHint, idempotentHint, openWorldHint booleans.
#   MCP sets no length for descriptions, but clients pass them on to the model APIs above,
#   so the MCP export is held to OpenAI's 1,024 too.
# Every format: a description is whole: it does not end inside a word (a cut long
# description ends at a sentence), and every schema is a valid JSON Schema (its `required`
# names its properties, an enum's values have the declared type, a default fits).
import json, re, sys

OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ANTHROPIC_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MCP_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
DESCRIPTION_MAX = 1024
TYPES = {"string", "number", "integer", "boolean", "object", "array", "null"}
STRICT_UNSUPPORTED = {
    "allOf", "not", "dependentRequired", "dependentSchemas", "if", "then", "else",
    "minLength", "maxLength", "pattern", "format", "minimum", "maximum", "multipleOf",
    "exclusiveMinimum", "exclusiveMaximum", "patternProperties", "unevaluatedProperties",
    "propertyNames", "minProperties", "maxProperties", "unevaluatedItems", "contains",
    "minContains", "maxContains", "minItems", "maxItems", "uniqueItems", "default"}
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")

problems = []


def bad(where, what):
    problems.append(f"{where}: {what}")


def types_of(s):
    t = s.get("type")
    if t is None:
        return set()
    return set(t) if isinstance(t, list) else {t}


def fits(v, ts):
    """whether value v has one of the JSON Schema types ts"""
    if not ts:
        return True
    checks = {"string": lambda x: isinstance(x, str),
              "integer": lambda x: isinstance(x, int) and not isinstance(x, bool),
              "number": lambda x: isinstance(x, (int, float)) and not isinstance(x, bool),
              "boolean": lambda x: isinstance(x, bool),
              "object": lambda x: isinstance(x, dict),
              "array": lambda x: isinstance(x, list),
              "null": lambda x: x is None}
    return any(checks[t](v) for t in ts if t in checks)


def description_whole(where, d):
    if not isinstance(d, str) or not d.strip():
        bad(where, "no description")
        return
    if len(d) > DESCRIPTION_MAX:
        bad(where, f"description of {len(d)} characters, over {DESCRIPTION_MAX}")
    # a sentence's end (or a closing bracket or quote after one): a description cut to fit
    # must be cut there, never inside a word or a sentence
    if not re.search(r"[.!?][)}\]\"'`]*$", d.rstrip()) and not re.search(r"[)}\]]$", d.rstrip()):
        bad(where, f"description does not end a sentence: ...{d[-40:]!r}")


def schema(where, s, strict, depth, counts):
    if not isinstance(s, dict):
        bad(where, f"a schema must be an object, got {s!r}")
        return
    ts = types_of(s)
    if not ts <= TYPES:
        bad(where, f"unknown type {s.get('type')!r}")
    if depth > 10:
        bad(where, "more than 10 levels of nesting")
    if strict:
        for k in s:
            if k in STRICT_UNSUPPORTED:
                bad(where, f"keyword '{k}' is not in strict mode's subset")
        if not ts and "anyOf" not in s and "$ref" not in s:
            bad(where, "strict mode needs a type")
    if "enum" in s:
        e = s["enum"]
        if not isinstance(e, list) or not e:
            bad(where, "enum must be a non-empty array")
        else:
            counts["enum"] += len(e)
            counts["chars"] += sum(len(x) for x in e if isinstance(x, str))
            for x in e:
                if not fits(x, ts):
                    bad(where, f"enum value {x!r} is not of type {sorted(ts)}")
    if "default" in s and not fits(s["default"], ts):
        bad(where, f"default {s['default']!r} is not of type {sorted(ts)}")
    for k in ("minimum", "maximum"):
        if k in s and not fits(s[k], {"number"}):
            bad(where, f"{k} must be a number")
    if "description" in s and not isinstance(s["description"], str):
        bad(where, "description must be a string")
    if "object" in ts:
        props = s.get("properties", {})
        if not isinstance(props, dict):
            bad(where, "properties must be an object")
            props = {}
        req = s.get("required", [])
        if not isinstance(req, list) or any(r not in props for r in req):
            bad(where, f"required {req!r} names what is not a property")
        if strict:
            if "properties" not in s:
                bad(where, "strict mode needs the properties of every object")
            if s.get("additionalProperties") is not False:
                bad(where, "strict mode needs additionalProperties false")
            if sorted(req) != sorted(props):
                bad(where, f"strict mode needs every property required: {sorted(props)}, "
                           f"required {sorted(req)}")
        counts["props"] += len(props)
        for name, p in props.items():
            counts["chars"] += len(name)
            schema(f"{where}.{name}", p, strict, depth + 1, counts)
    if "array" in ts and "items" in s:
        schema(f"{where}[]", s["items"], strict, depth + 1, counts)
    for k in ("anyOf",):
        for i, sub in enumerate(s.get(k, [])):
            schema(f"{where}.{k}[{i}]", sub, strict, depth + 1, counts)


def root_schema(where, s, strict):
    if not isinstance(s, dict):
        bad(where, "no schema object")
        return
    if s.get("type") != "object":
        bad(where, f"the root's type must be \"object\", got {s.get('type')!r}")
    for k in ("anyOf", "oneOf", "allOf"):
        if k in s:
            bad(where, f"the root must not use {k}")
    counts = {"props": 0, "enum": 0, "chars": 0}
    schema(where, s, strict, 1, counts)
    if strict:
        if counts["props"] > 5000:
            bad(where, f"{counts['props']} object properties, over 5,000")
        if counts["enum"] > 1000:
            bad(where, f"{counts['enum']} enum values, over 1,000")
        if counts["chars"] > 120000:
            bad(where, f"{counts['chars']} characters of names and enum values, over 120,000")


def check(fmt, tools):
    if not isinstance(tools, list) or not tools:
        bad(fmt, "the export must be a non-empty JSON array")
        return
    names = set()
    for i, t in enumerate(tools):
        if fmt in ("openai", "openai-strict"):
            strict = fmt == "openai-strict"
            if t.get("type") != "function" or not isinstance(t.get("function"), dict):
                bad(f"tools[{i}]", "not {\"type\": \"function\", \"function\": {...}}")
                continue
            f = t["function"]
            name = f.get("name", "")
            where = f"tools[{i}] {name}"
            if not OPENAI_NAME.match(str(name)):
                bad(where, "name does not match ^[a-zA-Z0-9_-]{1,64}$")
            description_whole(where, f.get("description"))
            root_schema(f"{where}.parameters", f.get("parameters"), strict)
            if strict and f.get("strict") is not True:
                bad(where, "strict is not true")
            extra = set(f) - {"name", "description", "parameters", "strict"}
        elif fmt == "anthropic":
            name = t.get("name", "")
            where = f"tools[{i}] {name}"
            if not ANTHROPIC_NAME.match(str(name)):
                bad(where, "name does not match ^[a-zA-Z0-9_-]{1,64}$")
            description_whole(where, t.get("description"))
            root_schema(f"{where}.input_schema", t.get("input_schema"), False)
            extra = set(t) - {"name", "description", "input_schema", "cache_control", "type"}
        elif fmt == "mcp":
            name = t.get("name", "")
            where = f"tools[{i}] {name}"
            if not MCP_NAME.match(str(name)):
                bad(where, "name is not 1-128 of A-Z a-z 0-9 _ - .")
            description_whole(where, t.get("description"))
            root_schema(f"{where}.inputSchema", t.get("inputSchema"), False)
            if "outputSchema" in t:
                root_schema(f"{where}.outputSchema", t["outputSchema"], False)
            ann = t.get("annotations", {})
            for h in HINTS:
                if h in ann and not isinstance(ann[h], bool):
                    bad(where, f"annotations.{h} must be a boolean")
            extra = set(t) - {"name", "title", "description", "inputSchema", "outputSchema",
                              "annotations", "icons", "_meta", "execution"}
        else:
            bad(fmt, "unknown format")
            return
        if extra:
            bad(where, f"fields the API does not define: {sorted(extra)}")
        if name in names:
            bad(where, "the name is given twice")
        names.add(name)


if __name__ == "__main__":
    fmt, path = sys.argv[1], sys.argv[2]
    with open(path) as f:
        check(fmt, json.load(f))
    for p in problems:
        print(f"{fmt}: {p}")
    sys.exit(1 if problems else 0)
