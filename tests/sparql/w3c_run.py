#!/usr/bin/env python3
"""w3c_run.py: runs the W3C SPARQL 1.1 test suite through `quarry sparql`.

The manifests (Turtle) are read by quarry itself: each manifest is loaded with --data and
queried for its tests. Evaluation tests load their data (qt:data, qt:graphData), run the
query with --format json and compare with the expected .srx/.srj/.tsv/.csv results as bags
(in order where the query has ORDER BY and the expected format keeps it), numbers by value,
blank nodes by a consistent one-to-one mapping. Syntax tests check that a query parses (a
refusal counts as parsed) or fails with a syntax error; update and CONSTRUCT/DESCRIBE tests
check the refusal message.

usage: w3c_run.py QUARRY SUITE_DIR [--floor-eval P] [--floor-syntax P] [--floor-refused P]
       [--verbose] [--only GROUP]
Prints the pass rate per group and in total; exits 1 when a rate is below its floor, 77
when SUITE_DIR is absent.
"""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

MF = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#"
SKIP_DIRS = {"entailment", "protocol", "http-rdf-update", "graph-store-protocol",
             "service-description", "service"}
NUMERIC = {"http://www.w3.org/2001/XMLSchema#" + t for t in (
    "integer", "decimal", "float", "double", "int", "long", "short", "byte",
    "nonNegativeInteger", "positiveInteger", "negativeInteger", "nonPositiveInteger",
    "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte")}
XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"

MANIFEST_QUERY = """
PREFIX mf: <http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#>
PREFIX qt: <http://www.w3.org/2001/sw/DataAccess/tests/test-query#>
PREFIX ut: <http://www.w3.org/2009/sparql/tests/test-update#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
SELECT ?test ?type ?name ?action ?query ?data ?gdata ?req ?result WHERE {
  ?m mf:entries/rdf:rest*/rdf:first ?test .
  ?test rdf:type ?type .
  OPTIONAL { ?test mf:name ?name }
  OPTIONAL { ?test mf:action ?action
    OPTIONAL { ?action qt:query ?query }
    OPTIONAL { ?action qt:data ?data }
    OPTIONAL { ?action qt:graphData ?gdata }
    OPTIONAL { ?action ut:request ?req } }
  OPTIONAL { ?test mf:result ?result }
}"""


RDF = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}"
XMLNS = "{http://www.w3.org/XML/1998/namespace}"


def rdfxml_to_nt(path, out_path):
    """Converts the simple RDF/XML of a few test data files to N-Triples (quarry reads
    N-Triples and Turtle only; the conversion is the runner's, not the engine's)."""
    from urllib.parse import urljoin
    import pathlib
    base = pathlib.Path(os.path.realpath(path)).as_uri()
    root = ET.parse(path).getroot()
    base = root.get(XMLNS + "base", base)
    lines = []
    count = [0]

    def iri(el_tag):
        return el_tag[1:].replace("}", "")

    def esc(v):
        return v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")

    def node(el):
        if el.get(RDF + "about") is not None:
            subj = "<%s>" % urljoin(base, el.get(RDF + "about"))
        elif el.get(RDF + "nodeID") is not None:
            subj = "_:" + el.get(RDF + "nodeID")
        else:
            count[0] += 1
            subj = "_:x%d" % count[0]
        if el.tag != RDF + "Description":
            lines.append("%s <%s#type> <%s> ." % (subj, RDF[1:-1], iri(el.tag)))
        for k, v in el.attrib.items():
            if not k.startswith(RDF) and not k.startswith(XMLNS):
                lines.append('%s <%s> "%s" .' % (subj, iri(k), esc(v)))
        for prop in el:
            pred = "<%s>" % iri(prop.tag)
            if prop.get(RDF + "resource") is not None:
                obj = "<%s>" % urljoin(base, prop.get(RDF + "resource"))
            elif prop.get(RDF + "nodeID") is not None:
                obj = "_:" + prop.get(RDF + "nodeID")
            elif len(prop):
                obj = node(prop[0])
            else:
                obj = '"%s"' % esc(prop.text or "")
                if prop.get(RDF + "datatype"):
                    obj += "^^<%s>" % prop.get(RDF + "datatype")
                elif prop.get(XMLNS + "lang"):
                    obj += "@" + prop.get(XMLNS + "lang")
            lines.append("%s %s %s ." % (subj, pred, obj))
        return subj

    for el in root:
        node(el)
    with open(out_path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def data_file(u, tmp):
    """The path to load for data IRI u (RDF/XML converted to N-Triples)."""
    path = uri_path(u)
    if path.endswith(".rdf"):
        out = os.path.join(tmp, "conv%d.nt" % abs(hash(path)))
        rdfxml_to_nt(path, out)
        return out
    return path


def uri_path(u):
    if u and u.startswith("file://"):
        from urllib.parse import unquote
        return unquote(u[7:])
    return u


def run(quarry, args, stdin=None):
    p = subprocess.run([quarry, "sparql"] + args, input=stdin, capture_output=True,
                       timeout=60)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def read_tests(quarry, manifest):
    rc, out, err = run(quarry, ["--data", manifest, "--format", "json", MANIFEST_QUERY])
    if rc != 0:
        raise RuntimeError("cannot read manifest %s: %s" % (manifest, err.strip()))
    tests = {}
    order = []
    for b in json.loads(out)["results"]["bindings"]:
        t = b["test"]["value"]
        if t not in tests:
            tests[t] = {"types": set(), "data": set(), "gdata": set()}
            order.append(t)
        d = tests[t]
        d["types"].add(b["type"]["value"].split("#")[-1])
        for k in ("name", "action", "query", "req", "result"):
            if k in b:
                d[k] = b[k]["value"]
        if "data" in b:
            d["data"].add(b["data"]["value"])
        if "gdata" in b:
            d["gdata"].add(b["gdata"]["value"])
    return [(t, tests[t]) for t in order]


# ---- terms and result sets ----
def norm_term(kind, value, dt=None, lang=None):
    if kind == "literal":
        if lang:
            return ("literal", value, None, lang.lower())
        if dt == XSD_STRING:
            dt = None
        if dt in NUMERIC:
            try:
                return ("number", float(value), None, None)
            except ValueError:
                pass
        if dt == "http://www.w3.org/2001/XMLSchema#boolean":
            return ("literal", {"1": "true", "0": "false"}.get(value, value), dt, None)
        return ("literal", value, dt, None)
    if kind == "bnode":
        return ("bnode", value, None, None)
    return ("uri", value, None, None)


def parse_srj(text):
    j = json.loads(text)
    if "boolean" in j:
        return {"boolean": j["boolean"]}
    rows = []
    for b in j["results"]["bindings"]:
        row = {}
        for v, t in b.items():
            kind = "literal" if t["type"] == "typed-literal" else t["type"]
            row[v] = norm_term(kind, t["value"], t.get("datatype"), t.get("xml:lang"))
        rows.append(row)
    return {"vars": j["head"].get("vars", []), "rows": rows}


def parse_srx(text):
    ns = "{http://www.w3.org/2005/sparql-results#}"
    root = ET.fromstring(text)
    b = root.find(ns + "boolean")
    if b is not None:
        return {"boolean": b.text.strip() == "true"}
    vars_ = [v.get("name") for v in root.iter(ns + "variable")]
    rows = []
    for res in root.iter(ns + "result"):
        row = {}
        for bd in res.findall(ns + "binding"):
            el = list(bd)[0]
            tag = el.tag.replace(ns, "")
            val = el.text or ""
            if tag == "literal":
                row[bd.get("name")] = norm_term(
                    "literal", val, el.get("datatype"),
                    el.get("{http://www.w3.org/XML/1998/namespace}lang"))
            else:
                row[bd.get("name")] = norm_term(tag, val)
        rows.append(row)
    return {"vars": vars_, "rows": rows}


def parse_tsv_term(s):
    if s == "":
        return None
    if s.startswith("<") and s.endswith(">"):
        return norm_term("uri", s[1:-1])
    if s.startswith("_:"):
        return norm_term("bnode", s[2:])
    if s.startswith('"'):
        end = s.rfind('"')
        lex = s[1:end].replace('\\"', '"').replace("\\n", "\n").replace("\\t", "\t").replace(
            "\\\\", "\\")
        rest = s[end + 1:]
        if rest.startswith("@"):
            return norm_term("literal", lex, None, rest[1:])
        if rest.startswith("^^<"):
            return norm_term("literal", lex, rest[3:-1])
        return norm_term("literal", lex)
    if s in ("true", "false"):
        return norm_term("literal", s, "http://www.w3.org/2001/XMLSchema#boolean")
    try:
        float(s)
        return ("number", float(s), None, None)
    except ValueError:
        return norm_term("literal", s)


def parse_tsv(text):
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    vars_ = [v.lstrip("?") for v in lines[0].split("\t")] if lines else []
    rows = []
    for ln in lines[1:]:
        cells = ln.split("\t")
        row = {}
        for v, c in zip(vars_, cells):
            t = parse_tsv_term(c)
            if t is not None:
                row[v] = t
        rows.append(row)
    return {"vars": vars_, "rows": rows}


RS_QUERY = """
PREFIX rs: <http://www.w3.org/2001/sw/DataAccess/tests/result-set#>
SELECT ?r ?bool ?rv ?sol ?var ?val WHERE { ?r a rs:ResultSet .
  OPTIONAL { ?r rs:boolean ?bool }
  OPTIONAL { ?r rs:resultVariable ?rv }
  OPTIONAL { ?r rs:solution ?sol . ?sol rs:binding ?b . ?b rs:variable ?var ; rs:value ?val } }"""


def parse_rs_turtle(quarry, path):
    """An expected result set written in RDF (the result-set vocabulary), read by quarry."""
    rc, out, err = run(quarry, ["--data", path, "--format", "json", RS_QUERY])
    if rc:
        raise RuntimeError(err)
    b = json.loads(out)["results"]["bindings"]
    for x in b:
        if "bool" in x:
            return {"boolean": x["bool"]["value"] == "true"}
    sols = {}
    vars_ = set()
    for x in b:
        if "rv" in x:
            vars_.add(x["rv"]["value"])
        if "sol" in x:
            row = sols.setdefault(x["sol"]["value"], {})
            t = x["val"]
            row[x["var"]["value"]] = norm_term("literal" if t["type"] == "typed-literal" else t["type"],
                                               t["value"], t.get("datatype"), t.get("xml:lang"))
    return {"vars": sorted(vars_), "rows": list(sols.values())}


def query_form(text):
    import re
    t = re.sub(r"#[^\n]*", " ", text)
    t = re.sub(r"(?is)\b(PREFIX\s+[^:\s]*:\s*<[^>]*>|BASE\s*<[^>]*>)", " ", t)
    m = re.search(r"[A-Za-z]+", t)
    return m.group(0).upper() if m else ""


def csv_as_rows(text):
    r = csv_rows(text)
    if not r:
        return [], []
    head = r[0]
    rows = []
    for line in r[1:]:
        row = {}
        for v, c in zip(head, line):
            if c == "":
                continue
            row[v] = ("bnode", c[2:], None, None) if c.startswith("_:") else ("literal", c, None, None)
        rows.append(row)
    return head, rows


def csv_rows(text):
    import csv
    import io
    r = list(csv.reader(io.StringIO(text)))
    return r


def term_csv(t):
    if t[0] == "bnode":
        return "_:" + t[1]
    if t[0] == "number":
        return t[1]
    return t[1]


def match_rows(exp, got, ordered):
    if len(exp) != len(got):
        return False
    has_bnode = any(t[0] == "bnode" for r in exp + got for t in r.values())
    if not has_bnode:
        key = lambda r: sorted((k, repr(v)) for k, v in r.items())
        if ordered:
            return all(key(a) == key(b) for a, b in zip(exp, got)) or \
                sorted(map(key, exp)) == sorted(map(key, got)) and ties_ok(exp, got)
        return sorted(map(key, exp)) == sorted(map(key, got))
    # backtracking with a one-to-one blank node mapping
    used = [False] * len(got)

    def row_ok(a, b, m, rm):
        if set(a) != set(b):
            return None
        m2, rm2 = dict(m), dict(rm)
        for k, ta in a.items():
            tb = b[k]
            if ta[0] == "bnode" and tb[0] == "bnode":
                if m2.get(ta[1], tb[1]) != tb[1] or rm2.get(tb[1], ta[1]) != ta[1]:
                    return None
                m2[ta[1]] = tb[1]
                rm2[tb[1]] = ta[1]
            elif ta != tb:
                return None
        return m2, rm2

    steps = [0]

    def go(i, m, rm):
        steps[0] += 1
        if steps[0] > 200000:
            return False
        if i == len(exp):
            return True
        for j in range(len(got)):
            if used[j] or (ordered and j != i):
                continue
            r = row_ok(exp[i], got[j], m, rm)
            if r is None:
                continue
            used[j] = True
            if go(i + 1, r[0], r[1]):
                return True
            used[j] = False
        return False

    return go(0, {}, {})


def ties_ok(exp, got):
    # the expected order may differ only among rows we cannot tell apart by the sort keys;
    # without the keys, accept a bag match only
    return False


class Stats:
    def __init__(self):
        self.groups = {}

    def add(self, group, cat, ok, name, why, verbose):
        g = self.groups.setdefault(group, {})
        c = g.setdefault(cat, [0, 0])
        c[1] += 1
        if ok:
            c[0] += 1
        elif verbose:
            print("  FAIL %s [%s] %s: %s" % (group, cat, name, why))


def find_suite(given):
    """The suite where it was not given: $QUARRY_W3C_TESTS, else shared/w3c-rdf-tests beside
    any folder above this checkout (a clone in a deeper folder than the project's own)."""
    env = os.environ.get("QUARRY_W3C_TESTS")
    if env:
        return env
    d = os.path.dirname(os.path.abspath(__file__))
    while True:
        cand = os.path.join(d, "shared", "w3c-rdf-tests", "sparql", "sparql11")
        if os.path.isdir(cand):
            return cand
        up = os.path.dirname(d)
        if up == d:
            return given
        d = up


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__)
        return 2
    quarry, suite = args[0], args[1]
    floors = {"eval": 0.0, "syntax": 0.0, "refused": 0.0}
    verbose = False
    only = None
    i = 2
    while i < len(args):
        if args[i].startswith("--floor-"):
            floors[args[i][8:]] = float(args[i + 1])
            i += 2
        elif args[i] == "--verbose":
            verbose = True
            i += 1
        elif args[i] == "--only":
            only = args[i + 1]
            i += 2
        else:
            print("unknown argument " + args[i])
            return 2
    if not os.path.isdir(suite):
        suite = find_suite(suite)
    if not os.path.isdir(suite):
        print("skipped: the W3C suite is not at " + suite + " (nor in $QUARRY_W3C_TESTS, nor in"
              " a shared/w3c-rdf-tests/sparql/sparql11 beside a folder above this checkout)")
        return 77
    stats = Stats()
    tmp = tempfile.mkdtemp()
    empty = os.path.join(tmp, "empty.ttl")
    open(empty, "w").close()
    for group in sorted(os.listdir(suite)):
        man = os.path.join(suite, group, "manifest.ttl")
        if group in SKIP_DIRS or not os.path.isfile(man) or (only and group != only):
            continue
        for test, d in read_tests(quarry, man):
            types = d["types"]
            name = d.get("name", test)
            qfile = uri_path(d.get("query") or d.get("req") or d.get("action"))
            if types & {"PositiveSyntaxTest11", "NegativeSyntaxTest11",
                        "PositiveUpdateSyntaxTest11", "NegativeUpdateSyntaxTest11"}:
                rc, out, err = run(quarry, ["--data", empty, "--query", qfile])
                syn = "syntax error" in err
                if types & {"PositiveSyntaxTest11"}:
                    stats.add(group, "syntax", not syn and rc in (0, 2), name, err.strip(), verbose)
                elif types & {"PositiveUpdateSyntaxTest11"}:
                    stats.add(group, "refused", "read-only:" in err and "is an update" in err,
                              name, err.strip(), verbose)
                    stats.add(group, "syntax", not syn, name, err.strip(), verbose)
                else:
                    stats.add(group, "syntax", syn, name, "parsed: " + err.strip(), verbose)
                continue
            if "UpdateEvaluationTest" in types:
                rc, out, err = run(quarry, ["--data", empty, "--query", qfile])
                stats.add(group, "refused", rc == 2 and "read-only:" in err, name, err.strip(),
                          verbose)
                continue
            if not types & {"QueryEvaluationTest", "CSVResultFormatTest"}:
                continue
            qtext = open(qfile, encoding="utf-8", errors="replace").read()
            cmd = ["--query", qfile, "--format", "json", "--timeout-ms", "20000"]
            for f in sorted(d["data"]):
                cmd += ["--data", data_file(f, tmp)]
            for g in sorted(d["gdata"]):
                cmd += ["--graph", g + "=" + data_file(g, tmp)]
            if not d["data"] and not d["gdata"]:
                cmd += ["--data", empty]
            rc, out, err = run(quarry, cmd)
            res = d.get("result", "")
            upper = " ".join(qtext.upper().split())
            form = query_form(qtext)
            if form in ("CONSTRUCT", "DESCRIBE"):
                word = form
                stats.add(group, "refused", rc == 2 and (word + " is not supported") in err,
                          name, err.strip(), verbose)
                continue
            if rc != 0:
                stats.add(group, "eval", False, name, "exit %d: %s" % (rc, err.strip()), verbose)
                continue
            got = parse_srj(out)
            rpath = uri_path(res)
            try:
                text = open(rpath, encoding="utf-8").read()
            except OSError:
                stats.add(group, "eval", False, name, "no expected result " + rpath, verbose)
                continue
            ordered = "ORDER BY" in upper
            if rpath.endswith(".srj"):
                exp = parse_srj(text)
            elif rpath.endswith(".srx"):
                exp = parse_srx(text)
            elif rpath.endswith(".tsv"):
                exp = parse_tsv(text)
            elif rpath.endswith(".ttl"):
                exp = parse_rs_turtle(quarry, rpath)
            elif rpath.endswith(".csv"):
                head, rows = csv_as_rows(text)
                rc2, out2, err2 = run(quarry, cmd[:3] + ["csv"] + cmd[4:])
                mhead, mine = csv_as_rows(out2)
                ok = head == mhead and match_rows(rows, mine, False)
                stats.add(group, "eval", ok, name, "csv differs", verbose)
                continue
            else:
                stats.add(group, "eval", False, name, "unknown result format " + rpath, verbose)
                continue
            if "boolean" in exp:
                ok = got.get("boolean") == exp["boolean"]
            else:
                ok = "rows" in got and match_rows(exp["rows"], got["rows"], ordered)
            why = ""
            if not ok:
                why = "expected %s\n      got %s" % (json.dumps(exp, default=str)[:600],
                                                    json.dumps(got, default=str)[:600])
            stats.add(group, "eval", ok, name, why, verbose)
    totals = {}
    for group in sorted(stats.groups):
        parts = []
        for cat in ("eval", "syntax", "refused"):
            if cat in stats.groups[group]:
                p, n = stats.groups[group][cat]
                parts.append("%s %d/%d" % (cat, p, n))
                t = totals.setdefault(cat, [0, 0])
                t[0] += p
                t[1] += n
        print("%-20s %s" % (group, ", ".join(parts)))
    fails = 0
    for cat in ("eval", "syntax", "refused"):
        if cat not in totals:
            continue
        p, n = totals[cat]
        rate = 100.0 * p / n if n else 100.0
        below = rate + 1e-9 < floors[cat]
        print("total %-8s %d/%d = %.1f%% (floor %.1f%%)%s" % (cat, p, n, rate, floors[cat],
                                                              "  BELOW FLOOR" if below else ""))
        if below:
            fails += 1
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
