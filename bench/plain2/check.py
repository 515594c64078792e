#!/usr/bin/env python3
"""Score quarry's deterministic readers against the kvlite sets (adapted from tools/old_check.py).
usage: QUARRY=path check.py [--split dev|heldout|all] [--sets router,dwim,code] [--out FILE]
Builds the fixture in a mktemp dir, runs quarry with no model configured (clean env: HOME and XDG dirs
temporary, QUARRY_NOW pinned, TZ=UTC, no QUARRY_* settings), scores strictly.
Outcomes: right / wrong / declined (+ 'error' detail for rc 1 or crashes, counted as declined)."""
import json, os, re, subprocess, sys, tempfile, collections
HERE = os.path.dirname(os.path.abspath(__file__))
Q = os.environ.get("QUARRY") or os.path.join(HERE, "tools", "quarry")
NOW_EPOCH = 1795106700  # 2026-11-19T16:45:00Z, Thursday
args = sys.argv[1:]
split = args[args.index("--split") + 1] if "--split" in args else "dev"
assert split in ("dev", "heldout", "all")
held = split == "heldout"
sets = (args[args.index("--sets") + 1] if "--sets" in args else "router,dwim,code").split(",")
outfile = args[args.index("--out") + 1] if "--out" in args else os.path.join(HERE, "results_%s.jsonl" % split)
FX = tempfile.mkdtemp(prefix="qchk-")
FAKEHOME = tempfile.mkdtemp(prefix="qhome-")
subprocess.run([os.path.join(HERE, "make_fixture.sh"), FX, str(NOW_EPOCH)], check=True)
ENV = {k: v for k, v in os.environ.items() if not k.startswith(("QUARRY", "XDG_", "GIT_"))}
ENV.pop("QUARRY", None)
ENV.update(QUARRY_NOW="2026-11-19T16:45:00Z", TZ="UTC", LC_ALL="C", HOME=FAKEHOME, XDG_CONFIG_HOME=os.path.join(FAKEHOME, ".config"),
           XDG_DATA_HOME=os.path.join(FAKEHOME, ".local/share"), XDG_CACHE_HOME=os.path.join(FAKEHOME, ".cache"),
           XDG_STATE_HOME=os.path.join(FAKEHOME, ".local/state"), QUARRY_MEMORY=os.path.join(FAKEHOME, "mem.db"),
           GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")

def run(argv, timeout=60):
    try:
        r = subprocess.run(argv, cwd=FX, env=ENV, capture_output=True, text=True, timeout=timeout)
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return -999, "", "TIMEOUT"

def git(cmd):
    return subprocess.run(["bash", "-c", cmd], cwd=FX, env=ENV, capture_output=True, text=True).stdout
NAME2EMAIL = {}
for l in git("git log --use-mailmap --format='%aN|%aE' | sort -u").splitlines():
    n, e = l.split("|"); NAME2EMAIL[n.lower()] = e

def load(name):
    if split == "all": fn = os.path.join(HERE, "%s.jsonl" % name)
    else: fn = os.path.join(HERE, split, "%s_%s.jsonl" % (name, split))
    return [json.loads(l) for l in open(fn)]

def walk(o):
    if isinstance(o, dict):
        yield o
        for v in o.values(): yield from walk(v)
    elif isinstance(o, list):
        for v in o: yield from walk(v)

def alternatives(exp):
    return exp["any_of"] if "any_of" in exp else [exp["value"]]

# ------------------------------------------------------------------ router
def row_email(row):
    if "email" in row and row["email"]: return row["email"].lower()
    if "author" in row and row["author"]: return NAME2EMAIL.get(str(row["author"]).lower(), str(row["author"]).lower())
    return None

def score_router(item, rc, out, err):
    exp = item["expect"]
    declined = rc == 2
    if rc not in (0, 2): return ("declined", "error rc=%s %s" % (rc, err.strip()[:200]))
    if exp == "decline":
        return ("right", "declined") if declined else ("wrong", "answered a question that needs judgment: " + out[:200])
    alts = alternatives(exp)
    if declined:
        return ("right", "declined (acceptable here)") if "decline" in alts else ("declined", err.strip()[:160])
    try: res = json.loads(out)
    except Exception: return ("wrong", "unparseable output: " + out[:200])
    typ = exp["type"]
    findings = res.get("findings") if isinstance(res, dict) else None
    summary = str(res.get("summary", "")) if isinstance(res, dict) else ""
    rows = findings if isinstance(findings, list) else []
    got = None
    def ok(a):
        if a == "decline": return False
        if typ == "hashes":
            hs = set()
            for r in rows:
                h = r.get("short_hash") or r.get("hash")
                if h: hs.add(str(h)[:7])
            nonlocal_got[0] = sorted(hs)
            if not a: return not rows and res.get("count", 0) in (0, None)
            if "count" in res and not rows: nonlocal_got[0] = "count=%s" % res["count"]; return False
            return hs == set(x[:7] for x in a)
        if typ == "count":
            c = res.get("count")
            nonlocal_got[0] = "count=%s rows=%d summary=%r" % (c, len(rows), summary[:80])
            if isinstance(c, (int, float)) and not isinstance(c, bool): return int(c) == a
            return re.search(r"(?<![\d.])%d(?![\d.])" % a, summary) is not None and not rows
        if typ == "email":
            acc = a if isinstance(a, list) else [a]
            e = row_email(rows[0]) if rows else None
            nonlocal_got[0] = "first row %s; summary %r" % (e, summary[:100])
            if e is not None: return e in acc
            return any(x in summary.lower() or next((n for n, m in NAME2EMAIL.items() if m == x), "@@") in summary.lower() for x in acc)
        if typ == "ranking":
            got = [row_email(r) for r in rows]; nonlocal_got[0] = got
            if len(got) != len(a) or set(got) != set(a): return False
            cnt = {row_email(r): r.get("commits") for r in rows}
            return all(g == w or (cnt.get(g) is not None and cnt.get(g) == cnt.get(w)) for g, w in zip(got, a))
        if typ == "emails":
            got = sorted(set(row_email(r) for r in rows)); nonlocal_got[0] = got
            return got == sorted(a)
        if typ in ("files", "paths"):
            ps = []
            for d in walk(rows):
                if "path" in d and isinstance(d["path"], str): ps.append(d["path"])
            nonlocal_got[0] = ps
            if typ == "files": return sorted(set(ps)) == sorted(a)
            if len(ps) != len(a) or set(ps) != set(a): return False
            cnt = {r.get("path"): r.get("commits") for r in rows}
            return all(g == w or (cnt.get(g) is not None and cnt.get(g) == cnt.get(w)) for g, w in zip(ps, a))
        if typ == "string":
            first = rows[0] if rows else {}
            vals = [str(v).rstrip("/") for v in first.values()] if isinstance(first, dict) else []
            nonlocal_got[0] = "first row %s; summary %r" % (json.dumps(first)[:120], summary[:80])
            acc = a if isinstance(a, list) else [a]
            if item["kind"] == "weekday": return any(v[:3].lower() == x[:3].lower() for v in vals for x in acc) or (not rows and any(x.lower() in summary.lower() for x in acc))
            return any(x in vals for x in acc) or (not rows and any(x in summary for x in acc))
        if typ == "date":
            first = rows[0] if rows else {}
            nonlocal_got[0] = "first row %s; summary %r" % (json.dumps(first)[:120], summary[:80])
            return any(str(v).startswith(a) for v in (first.values() if isinstance(first, dict) else [])) or (not rows and a in summary)
        if typ == "yesno":
            b = [v for k, v in res.items() if isinstance(v, bool)]
            nonlocal_got[0] = "bools %s count %s rows %d summary %r" % (b, res.get("count"), len(rows), summary[:80])
            if b: return b[0] == (a == "yes")
            if summary.lower().startswith(("yes", "no")): return summary.lower().startswith(a)
            if "count" in res: return (res["count"] > 0) == (a == "yes")
            if findings is not None: return (len(rows) > 0) == (a == "yes")
            return False
        return False
    nonlocal_got = [None]
    for a in alts:
        if ok(a): return ("right", "")
    return ("wrong", "got %s" % json.dumps(nonlocal_got[0])[:300])

# ------------------------------------------------------------------ dwim
def dwim_state(text, parsed):
    """parse gives verb+confidence; whether it would run is read from `quarry dwim LINE`'s
    reject/suggest message, only for read-only verbs; else from the threshold seen on those."""
    return None

READONLY = {"skeleton", "read", "grep", "callers", "callees", "references", "definition", "deps", "expand",
            "get_commits", "get_author_stats", "get_file_stats", "get_file_history", "get_diff_stats",
            "query_codebase", "search_codebase", "sparql_query", "memory_query", "memory_get"}
def norm_target(t):
    return None if t is None else str(t).strip().strip("'\"").rstrip("/") or None

def score_dwim(item, parsed, tier):
    exp = item["expect"]
    verb = parsed.get("verb"); tool = parsed.get("tool")
    actual = tool if verb == "tool" else verb
    if exp == "none":
        if verb == "none" or tier in ("reject", "suggest"): return ("right", "%s %s %.2f" % (tier, actual, parsed.get("confidence", 0)))
        return ("wrong", "would run %s %s (conf %.2f)" % (actual, parsed.get("target"), parsed.get("confidence", 0)))
    if verb == "none" or tier in ("reject", "suggest"):
        return ("declined", "%s: %s %s %.2f" % (tier, actual, parsed.get("target"), parsed.get("confidence", 0)))
    detail = "got %s target=%r params=%s conf=%.2f" % (actual, parsed.get("target"), json.dumps(parsed.get("params")), parsed.get("confidence", 0))
    if actual not in exp["verb"] and tool not in exp["verb"]: return ("wrong", detail)
    params = parsed.get("params") or {}
    if "target" in exp:
        t = norm_target(parsed.get("target"))
        cands = {t} | {norm_target(x) for x in parsed.get("targets") or []} | {norm_target(v) for v in params.values() if isinstance(v, str)}
        acc = exp["target"] if isinstance(exp["target"], list) else [exp["target"]]
        if not any(norm_target(x) in cands for x in acc): return ("wrong", detail)
    for k, v in (exp.get("params") or {}).items():
        pv = params.get(k)
        if k == "path" and pv is None: pv = next((x for x in (parsed.get("targets") or [])[1:]), None)
        if str(pv).strip("'\"/") != str(v).strip("/"): return ("wrong", detail + " (param %s)" % k)
    return ("right", "")

# ------------------------------------------------------------------ code
def score_code(item, rc, out, err):
    exp = item["expect"]
    if rc not in (0,):
        if exp["type"] == "did_you_mean" and re.search(r"(?<![\w])%s(?![\w])" % re.escape(exp["value"]), out + err): return ("right", "error with suggestion")
        return ("declined", "rc=%s %s" % (rc, err.strip()[:200]))
    try: res = json.loads(out)
    except Exception: return ("wrong", "unparseable: " + out[:200])
    rows = res.get("rows", []); vars_ = res.get("vars", [])
    typ = exp["type"]; how = res.get("how")
    tag = "[%s] " % how
    if typ == "did_you_mean":
        s = json.dumps(res)
        if re.search(r"(?<![\w])%s(?![\w])" % re.escape(exp["value"]), s): return ("right", tag + "mentions " + exp["value"])
        return ("wrong", tag + "no suggestion; rows=%d %s" % (len(rows), s[:200]))
    def col_values(pred):
        vals = []
        for r in rows:
            for k in vars_:
                v = r.get(k)
                if v is not None and pred(k, v): vals.append(v); break
        return vals
    for a in alternatives(exp):
        if typ == "names":
            got = sorted(set(str(v).split("#")[-1] for v in col_values(lambda k, v: isinstance(v, str) and "/" not in v and not v[0].isupper() or k in ("name", "caller", "callee", "function", "fn", "func"))))
            if typ == "names" and item["kind"] in ("list",) and item["text"].startswith(("structs", "macros")):
                got = sorted(set(str(v) for r in rows for k, v in r.items() if k in ("name", "struct", "macro", "s", "m") or (isinstance(v, str) and re.fullmatch(r"[A-Za-z_]\w*", v) and k not in ("kind",))))
            if got == sorted(a): return ("right", tag)
        elif typ == "files":
            got = sorted(set(v for r in rows for v in r.values() if isinstance(v, str) and re.search(r"\.[ch]$", v)))
            if got == sorted(a): return ("right", tag)
        elif typ == "headers":
            got = sorted(set(os.path.basename(v) for r in rows for v in r.values() if isinstance(v, str) and re.search(r"\.h$", v)))
            if got == sorted(os.path.basename(x) for x in a): return ("right", tag)
        elif typ == "includes":
            subj = re.findall(r"[\w./-]+\.[ch]\b", item["text"])
            got = sorted(set(os.path.basename(v) for r in rows for v in r.values() if isinstance(v, str) and re.search(r"\.[ch]$", v) and v not in subj))
            if got == sorted(os.path.basename(x) for x in a): return ("right", tag)
        elif typ == "locations":
            got = sorted(set("%s:%s" % (r.get("file"), r.get("line")) for r in rows if str(r.get("kind", "")).lower() not in ("declaration", "prototype")))
            if got == sorted(a): return ("right", tag)
        elif typ == "count":
            nums = [v for r in rows for v in r.values() if isinstance(v, int)]
            got = nums
            if len(rows) == 1 and nums and nums[0] == a: return ("right", tag)
    return ("wrong", tag + "got rows=%s" % json.dumps(rows)[:300])

# ------------------------------------------------------------------ main
results = []
summary = collections.OrderedDict()
def tally(setname, kind, outcome):
    for key in ((setname, "ALL"), (setname, kind)):
        summary.setdefault(key, collections.Counter())[outcome] += 1

if "router" in sets:
    for it in load("router"):
        rc, out, err = run([Q, "ask", it["text"], "--format", "json"])
        oc, detail = score_router(it, rc, out, err)
        tally("router", it["kind"], oc)
        results.append({"set": "router", "id": it["id"], "kind": it["kind"], "text": it["text"], "outcome": oc, "detail": detail, "rc": rc})
if "dwim" in sets:
    items = load("dwim"); parsed_all = []
    for it in items:
        rc, out, err = run([Q, "dwim", "parse", it["text"], "--format", "json"])
        try: p = json.loads(out)
        except Exception: p = {"verb": "none", "confidence": 0.0, "_err": err.strip()[:200], "_rc": rc}
        tier = None
        act = p.get("tool") if p.get("verb") == "tool" else p.get("verb")
        if p.get("verb") != "none" and act in READONLY:
            rc2, out2, err2 = run([Q, "dwim", it["text"]])
            m = re.search(r"dwim: (reject|suggest) \(", err2)
            tier = m.group(1) if m else "run"
        parsed_all.append((it, p, tier))
    runs = [p.get("confidence", 0) for it, p, t in parsed_all if t == "run"]
    sugg = [p.get("confidence", 0) for it, p, t in parsed_all if t == "suggest"]
    thr = min(runs) if runs else 0.7
    print("dwim: lowest confidence that ran %.2f; highest that only suggested %s" % (thr, max(sugg) if sugg else None))
    for it, p, tier in parsed_all:
        if tier is None:
            tier = "reject" if p.get("verb") == "none" else ("run" if p.get("confidence", 0) >= thr else "suggest")
        oc, detail = score_dwim(it, p, tier)
        tally("dwim", it["kind"], oc)
        results.append({"set": "dwim", "id": it["id"], "kind": it["kind"], "text": it["text"], "outcome": oc, "detail": detail, "tier": tier})
if "code" in sets:
    rc, out, err = run([Q, "code", "index"])
    for it in load("code"):
        rc, out, err = run([Q, "tool", "search_codebase", "--question", it["text"], "--format", "json"])
        oc, detail = score_code(it, rc, out, err)
        tally("code", it["kind"], oc)
        results.append({"set": "code", "id": it["id"], "kind": it["kind"], "text": it["text"], "outcome": oc, "detail": detail, "rc": rc})

with open(outfile, "w") as f:
    for r in results: f.write(json.dumps(r) + "\n")
print("%-8s %-22s %5s %5s %8s" % ("set", "kind", "right", "wrong", "declined"))
for (s, k), c in summary.items():
    print("%-8s %-22s %5d %5d %8d" % (s, k, c["right"], c["wrong"], c["declined"]))
subprocess.run(["rm", "-rf", FX, FAKEHOME])
