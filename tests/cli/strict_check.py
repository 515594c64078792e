# strict_check.py STRICT.json PLAIN.json: checks `quarry tools --format openai-strict`
# against OpenAI's strict-mode rules for function calling, and against the plain openai
# export of the same tools: every object schema has additionalProperties false and lists
# every property as required; no default and no keyword strict mode does not take;
# "strict": true; a parameter optional in the plain export is nullable (null in its type,
# and in its enum when it has one), a required one is not, except that when a parameter
# taking any JSON object is left out, one optional parameter of that tool may become
# required (its alternative, such as run_query's text for its query); every plain
# parameter is there unless it takes any JSON object. Prints one line per problem and
# exits 1 when any.
import json, sys

UNSUPPORTED = {"default", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
               "multipleOf", "minLength", "maxLength", "pattern", "format", "minItems",
               "maxItems", "uniqueItems", "patternProperties", "minProperties",
               "maxProperties", "unevaluatedProperties", "propertyNames"}
TYPES = {"string", "number", "integer", "boolean", "object", "array", "null"}
problems = []

def types(s):
    t = s.get("type")
    return set(t) if isinstance(t, list) else {t}

def check(schema, where):
    for k in schema:
        if k in UNSUPPORTED:
            problems.append(f"{where}: keyword '{k}' is not allowed in strict mode")
    if not types(schema) <= TYPES:
        problems.append(f"{where}: bad type {schema.get('type')!r}")
    if "object" in types(schema):
        props = schema.get("properties")
        if not isinstance(props, dict):
            problems.append(f"{where}: an object without properties")
            return
        if schema.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties is not false")
        if sorted(schema.get("required", [])) != sorted(props):
            problems.append(f"{where}: required {schema.get('required')} is not every property {list(props)}")
        for name, p in props.items():
            check(p, f"{where}.{name}")
    if "array" in types(schema) and isinstance(schema.get("items"), dict):
        check(schema["items"], f"{where}[]")
    if "enum" in schema and ("null" in types(schema)) != (None in schema["enum"]):
        problems.append(f"{where}: enum and type disagree about null")

strict = json.load(open(sys.argv[1]))
plain = {t["function"]["name"]: t["function"] for t in json.load(open(sys.argv[2]))}
for t in strict:
    fn = t["function"]
    name = fn["name"]
    if t.get("type") != "function" or fn.get("strict") is not True:
        problems.append(f"{name}: not a strict function")
    check(fn["parameters"], name)
    pp = plain[name]["parameters"]
    required = set(pp.get("required", []))
    dropped = any("object" in types(p) and "properties" not in p for p in pp["properties"].values())
    promoted = 0
    for pname, p in pp["properties"].items():
        free = "object" in types(p) and "properties" not in p
        sp = fn["parameters"]["properties"].get(pname)
        if sp is None:
            if not free:
                problems.append(f"{name}.{pname}: left out of the strict export")
            continue
        if free:
            problems.append(f"{name}.{pname}: takes any object, cannot be strict")
        nullable = "null" in types(sp)
        if dropped and not nullable and pname not in required and promoted == 0:
            promoted += 1  # the alternative of the parameter left out
            continue
        if nullable == (pname in required):
            problems.append(f"{name}.{pname}: nullable is {nullable}, required in the plain export is {pname in required}")
if len(strict) != len(plain):
    problems.append(f"{len(strict)} strict tools against {len(plain)} plain ones")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
