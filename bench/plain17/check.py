#!/usr/bin/env python3
"""plain17 scorer (adapted from tools/template_check.py): QUARRY=path python3 check.py --set FILE [--set FILE2] [--out FILE]
Items whose kind is exact/alias/misspelt/natural/unrelated are DWIM lines (quarry dwim parse LINE --repo DIR --format json);
the others are code questions (quarry tool search_codebase --question TEXT --repo DIR --format json, pages followed).
Builds the Janet fixture (make_fixture.sh) in a temp dir, runs `quarry code index --repo DIR` once before anything else,
in a clean environment (temporary HOME/XDG, TZ=UTC, QUARRY_NOW pinned, no other QUARRY_*/GIT_* variables, no model).
Prints per-kind and total right / wrong / declined, and right / answerable."""
import collections, json, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
Q = os.environ.get("QUARRY") or os.path.join(HERE, "tools", "quarry")
NOW = "2026-09-01T12:00:00Z"          # after the fixture's last commit (2026-08-22); answers do not depend on it, pinned for reproducibility
PIN = "284990a04303a40e6ce42cf33e049d23873b5535"
RUN_AT = 0.85                          # a dwim line runs when confidence >= 0.85
UNRELATED_BELOW = 0.6
DWIM_KINDS = ("exact", "alias", "misspelt", "natural", "unrelated")
args = sys.argv[1:]
sets = [args[i + 1] for i, a in enumerate(args) if a == "--set"]
if not sets: sys.exit("usage: QUARRY=path check.py --set FILE [--set FILE] [--out FILE]")
outfile = args[args.index("--out") + 1] if "--out" in args else None

FX = tempfile.mkdtemp(prefix="qchk17-")
HOME = tempfile.mkdtemp(prefix="qhome17-")
subprocess.run([os.path.join(HERE, "make_fixture.sh"), FX], check=True)
head = subprocess.run(["git", "-C", FX, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
if head != PIN: sys.exit("fixture HEAD %s != %s" % (head, PIN))
ENV = {k: v for k, v in os.environ.items() if not k.startswith(("QUARRY", "XDG_", "GIT_"))}
ENV.update(QUARRY_NOW=NOW, TZ="UTC", LC_ALL="C", HOME=HOME, XDG_CONFIG_HOME=os.path.join(HOME, ".config"),
           XDG_DATA_HOME=os.path.join(HOME, ".local/share"), XDG_CACHE_HOME=os.path.join(HOME, ".cache"),
           XDG_STATE_HOME=os.path.join(HOME, ".local/state"), QUARRY_MEMORY=os.path.join(HOME, "mem.db"),
           GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")

def run(argv, timeout=120):
    try:
        r = subprocess.run(argv, cwd=FX, env=ENV, capture_output=True, text=True, timeout=timeout)
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return -999, "", "TIMEOUT"

items = [json.loads(l) for fn in sets for l in open(fn) if l.strip()]
rc, out, err = run([Q, "code", "index", "--repo", FX], timeout=600)
print("code index rc=%s %s" % (rc, (out or err).strip()[:160]))

# ------------------------------------------------------------------ dwim
def actual(verb, tool):
    return tool if verb == "tool" else verb

def norm(t):
    if t is None: return None
    t = str(t).strip().strip("'\"").strip()
    if t.startswith("./"): t = t[2:]
    return t.rstrip("/") or ("." if t else None)

def targets_of(p):
    c = {norm(p.get("target"))} | {norm(x) for x in (p.get("targets") or [])}
    prm = p.get("params") or {}
    c |= {norm(v) for v in prm.values() if isinstance(v, str)}
    path = prm.get("path") or prm.get("file")
    if path and prm.get("start") is not None and prm.get("end") is not None:
        c.add("%s:%s-%s" % (norm(path), prm["start"], prm["end"]))
    c.discard(None)
    return c

def score_dwim(it, p):
    conf = float(p.get("confidence") or 0)
    top = actual(p.get("verb"), p.get("tool"))
    d = "got %s target=%r conf=%.2f" % (top, p.get("target"), conf)
    k = it["kind"]
    if k == "unrelated":
        return ("right" if conf < UNRELATED_BELOW or top in (None, "none") else "wrong"), d
    acc = it["expect"]["verb"]
    if top in (None, "none"):
        return "declined", d
    if k == "exact":
        if top in acc and conf >= RUN_AT:
            toc, td = score_target(it, p)
            if toc in (None, "right"): return "right", d
            return "wrong", d + " target " + toc + " " + td
        if top in acc: return "declined", d
        return ("wrong" if conf >= RUN_AT else "declined"), d
    if k == "alias":
        return ("right" if top in acc else "wrong"), d
    if k == "misspelt":
        return ("right" if top in acc else "wrong"), d
    # natural: an acceptable verb among the top three
    three = [top] + [actual(a.get("verb"), a.get("tool")) for a in (p.get("alternatives") or [])][:2]
    return ("right" if any(v in acc for v in three) else "wrong"), d + " top3=%s" % three

def score_target(it, p):
    exp = it["expect"].get("target") if isinstance(it["expect"], dict) else None
    if not exp: return None, ""
    got = targets_of(p)
    if not got: return "declined", "no target"
    return ("right" if any(norm(x) in got for x in exp) else "wrong"), "targets %s" % sorted(got)

# ------------------------------------------------------------------ code
IDENT = re.compile(r"[A-Za-z_]\w*$")
NAME_VARS = ("caller", "callee", "name", "function", "func", "fn", "struct", "macro", "symbol", "type")

def main_col(vars_, rows):
    for v in NAME_VARS:
        if v in vars_: return v
    for v in vars_:
        if v in ("kind", "file", "path", "via", "header"): continue
        vals = [r.get(v) for r in rows if r.get(v) is not None]
        if vals and all(isinstance(x, str) and IDENT.match(x) for x in vals): return v
    return None

def paths_in(rows):
    return [v for r in rows for v in r.values() if isinstance(v, str) and re.search(r"\.[ch]>?$", v)]

def base(h):
    return os.path.basename(h.strip("<>\""))

def ask_code(text):
    rows, res, off = [], None, 0
    for _ in range(40):
        argv = [Q, "tool", "search_codebase", "--question", text, "--repo", FX, "--format", "json"]
        if off: argv += ["--offset", str(off)]
        rc, out, err = run(argv)
        if rc != 0: return rc, None, rows, err
        try: page = json.loads(out)
        except Exception: return rc, None, rows, "unparseable: " + out[:200]
        res = res or page
        rows += page.get("rows") or []
        off = page.get("next_offset")
        if not off: break
    return 0, res, rows, ""

def score_code(it, rc, res, rows, err):
    exp = it["expect"]
    if exp == "decline":
        if rc != 0: return "right", "rc=%s %s" % (rc, err.strip()[:120])
        return ("right" if not rows else "wrong"), "[%s] rows=%s" % (res.get("how"), json.dumps(rows)[:200])
    if rc != 0: return "declined", "rc=%s %s" % (rc, err.strip()[:160])
    tag = "[%s] " % res.get("how")
    typ, alts = exp["type"], exp["any_of"]
    vars_ = res.get("vars") or (list(rows[0].keys()) if rows else [])
    if not rows:
        if typ != "locations" and [] in alts: return "right", tag + "empty"
        if res.get("note") or res.get("message") or res.get("error"): return "declined", tag + str(res.get("note") or res.get("message"))[:160]
        return "wrong", tag + "no rows"
    got = None
    if typ in ("names", "names_ordered"):
        # the main column first, then any other column of identifiers (e.g. a member list under a struct column)
        col = main_col(vars_, rows)
        cols = [col] if col else []
        cols += [v for v in vars_ if v not in cols and v not in ("kind", "file", "path", "via", "header") and
                 any(r.get(v) is not None for r in rows) and
                 all(isinstance(r.get(v), str) and IDENT.match(str(r.get(v)).split("#")[-1]) for r in rows if r.get(v) is not None)]
        got = None
        for c in cols:
            seq = [str(r.get(c)).split("#")[-1] for r in rows if r.get(c) is not None]
            got = got if got is not None else seq
            for a in alts:
                if typ == "names" and sorted(set(seq)) == sorted(a): return "right", tag + ("" if c == col else "col=%s" % c)
                if typ == "names_ordered":
                    dedup = list(dict.fromkeys(seq))
                    if dedup[:len(a)] == a: return "right", tag + ("" if c == col else "col=%s" % c)
    elif typ == "files":
        got = sorted(set(p for p in paths_in(rows) if not p.startswith("<")))
        for a in alts:
            if got == sorted(a): return "right", tag
    elif typ in ("headers", "headers_ordered"):
        subj = set(re.findall(r"[\w.-]+\.[ch]\b", it["text"]))
        if "header" in vars_: hs = [base(str(r["header"])) for r in rows if r.get("header")]
        else: hs = [base(p) for p in paths_in(rows) if p.endswith(".h") or p.endswith(".h>")]
        hs = [h for h in hs if h not in subj]
        got = hs
        for a in alts:
            if typ == "headers" and sorted(set(hs)) == sorted(a): return "right", tag
            if typ == "headers_ordered" and list(dict.fromkeys(hs))[:len(a)] == a: return "right", tag
    elif typ == "locations":
        defs = [r for r in rows if not re.search(r"declar|prototype", str(r.get("kind", "")), re.I)]
        acc = [(x.rsplit(":", 1)[0], int(x.rsplit(":", 1)[1])) for x in alts]
        def ok(r):
            f, ln = r.get("file") or r.get("path"), r.get("line")
            return any(f == af and isinstance(ln, int) and abs(ln - al) <= 1 for af, al in acc)
        got = [(r.get("file"), r.get("line"), r.get("kind")) for r in rows]
        if defs and all(ok(r) for r in defs): return "right", tag
    elif typ == "count":
        nums = [v for r in rows for v in r.values() if isinstance(v, int) and not isinstance(v, bool)]
        got = {"rows": len(rows), "total": res.get("total"), "ints": nums[:5]}
        for a in alts:
            if len(rows) == 1 and a in nums: return "right", tag
            if len(rows) > 1 and (res.get("total") == a or len(rows) == a) and main_col(vars_, rows): return "right", tag + "listed"
    return "wrong", tag + "got %s" % json.dumps(got)[:300]

# ------------------------------------------------------------------ main
summary = collections.OrderedDict()
results = []
def tally(part, kind, oc):
    for key in ((part, kind), (part, "TOTAL")):
        summary.setdefault(key, collections.Counter())[oc] += 1

for it in items:
    if it["kind"] in DWIM_KINDS:
        rc, out, err = run([Q, "dwim", "parse", it["text"], "--repo", FX, "--format", "json"])
        try: p = json.loads(out)
        except Exception: p = {"verb": "none", "confidence": 0.0}
        oc, d = score_dwim(it, p)
        tally("dwim", it["kind"], oc)
        toc, td = score_target(it, p)
        if toc:
            summary.setdefault(("dwim", "target*"), collections.Counter())[toc] += 1
        if it["kind"] == "alias" and oc == "right":
            summary.setdefault(("dwim", "alias>=0.85*"), collections.Counter())["right" if float(p.get("confidence") or 0) >= RUN_AT else "wrong"] += 1
        results.append(dict(id=it["id"], part="dwim", kind=it["kind"], text=it["text"], outcome=oc, detail=d,
                            target=toc, target_detail=td, rc=rc, parsed=p))
    else:
        rc, res, rows, err = ask_code(it["text"])
        oc, d = score_code(it, rc, res, rows, err)
        tally("code", it["kind"], oc)
        results.append(dict(id=it["id"], part="code", kind=it["kind"], text=it["text"], outcome=oc, detail=d, rc=rc,
                            stderr=err.strip()[:300], how=(res or {}).get("how")))

if outfile:
    with open(outfile, "w") as f:
        for r in results: f.write(json.dumps(r) + "\n")
print("%-5s %-16s %5s %5s %8s" % ("part", "kind", "right", "wrong", "declined"))
for (part, kind), c in sorted(summary.items(), key=lambda x: (x[0][0], x[0][1] == "TOTAL", x[0][1])):
    print("%-5s %-16s %5d %5d %8d" % (part, kind, c["right"], c["wrong"], c["declined"]))
for part, must in (("dwim", "unrelated"), ("code", "decline")):
    rs = [r for r in results if r["part"] == part and r["kind"] != must]
    if rs: print("%s answerable-only: %d / %d right" % (part, sum(r["outcome"] == "right" for r in rs), len(rs)))
print("(target* counts lines with an expected target, over all dwim kinds; not in TOTAL)")
print("(alias>=0.85*: of the alias lines scored right, how many had confidence >= 0.85 (right) or below (wrong); not in TOTAL)")
subprocess.run(["rm", "-rf", FX, HOME])
