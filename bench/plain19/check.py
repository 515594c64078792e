#!/usr/bin/env python3
"""plain19 scorer (adapted from tools/template_check.py, DWIM part only):
QUARRY=path python3 check.py --set FILE [--set FILE2] [--out FILE]
Each item is a DWIM line: quarry dwim parse LINE --repo DIR --format json.
Builds the Redis fixture (make_fixture.sh) in a temp dir, checks HEAD, runs `quarry code index --repo DIR` once
before the items, in a clean environment (temporary HOME/XDG, TZ=UTC, QUARRY_NOW pinned, no other QUARRY_*/GIT_*
variables, no model). Prints per-kind right / wrong / declined, the alias >= 0.85 figure, and targets."""
import collections, json, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
Q = os.environ.get("QUARRY") or os.path.join(HERE, "tools", "quarry")
NOW = "2026-09-01T12:00:00Z"
PIN = "4f8cdc2a1ea53e42955af758aabffee67cb455dd"
RUN_AT = 0.85                          # a dwim line runs when confidence >= 0.85
UNRELATED_BELOW = 0.6
DWIM_KINDS = ("exact", "alias", "misspelt", "natural", "unrelated")
args = sys.argv[1:]
sets = [args[i + 1] for i, a in enumerate(args) if a == "--set"]
if not sets: sys.exit("usage: QUARRY=path check.py --set FILE [--set FILE] [--out FILE]")
outfile = args[args.index("--out") + 1] if "--out" in args else None
Q = os.path.abspath(Q)

FX = os.path.join(tempfile.mkdtemp(prefix="qchk19-"), "redis")
HOME = tempfile.mkdtemp(prefix="qhome19-")
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
rc, out, err = run([Q, "code", "index", "--repo", FX], timeout=1800)
print("code index rc=%s %s" % (rc, (out or err).strip()[:160]))

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

def score_target(it, p):
    exp = it["expect"].get("target")
    if not exp: return None, ""
    got = targets_of(p)
    if not got: return "declined", "no target"
    return ("right" if any(norm(x) in got for x in exp) else "wrong"), "targets %s" % sorted(got)

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
    if k in ("alias", "misspelt"):
        return ("right" if top in acc else "wrong"), d
    three = [top] + [actual(a.get("verb"), a.get("tool")) for a in (p.get("alternatives") or [])][:2]
    return ("right" if any(v in acc for v in three) else "wrong"), d + " top3=%s" % three

summary = collections.OrderedDict(); results = []
alias_all = collections.Counter(); fam = collections.defaultdict(collections.Counter)
def tally(kind, oc):
    for key in (kind, "TOTAL"):
        summary.setdefault(key, collections.Counter())[oc] += 1

for it in items:
    rc, out, err = run([Q, "dwim", "parse", it["text"], "--repo", FX, "--format", "json"])
    try: p = json.loads(out)
    except Exception: p = {"verb": "none", "confidence": 0.0}
    oc, d = score_dwim(it, p)
    tally(it["kind"], oc)
    toc, td = score_target(it, p)
    if toc: summary.setdefault("target*", collections.Counter())[toc] += 1
    hi = float(p.get("confidence") or 0) >= RUN_AT
    if it["kind"] == "alias":
        alias_all["lines"] += 1
        alias_all["right"] += oc == "right"
        alias_all["right_hi"] += oc == "right" and hi
        fam[it.get("family", "?")]["n"] += 1; fam[it.get("family", "?")]["hi"] += oc == "right" and hi
        if oc == "right":
            summary.setdefault("alias>=0.85*", collections.Counter())["right" if hi else "wrong"] += 1
    results.append(dict(id=it["id"], kind=it["kind"], family=it.get("family"), text=it["text"], outcome=oc, detail=d,
                        target=toc, target_detail=td, rc=rc, parsed=p))

if outfile:
    with open(outfile, "w") as f:
        for r in results: f.write(json.dumps(r) + "\n")
print("%-16s %5s %5s %8s" % ("kind", "right", "wrong", "declined"))
order = [k for k in DWIM_KINDS if k in summary] + ["TOTAL"] + [k for k in ("target*", "alias>=0.85*") if k in summary]
for k in order:
    c = summary[k]; print("%-16s %5d %5d %8d" % (k, c["right"], c["wrong"], c["declined"]))
rs = [r for r in results if r["kind"] != "unrelated"]
if rs: print("answerable-only: %d / %d right" % (sum(r["outcome"] == "right" for r in rs), len(rs)))
if alias_all["lines"]:
    print("=" * 60)
    print("ALIAS LINES RIGHT AT CONFIDENCE >= 0.85: %d / %d (%.1f%%)   [team target: 100%%]" % (
        alias_all["right_hi"], alias_all["lines"], 100.0 * alias_all["right_hi"] / alias_all["lines"]))
    print("alias lines right at any confidence:    %d / %d" % (alias_all["right"], alias_all["lines"]))
    print("per family (right at >= 0.85 / lines): " + ", ".join("%s %d/%d" % (f, c["hi"], c["n"]) for f, c in sorted(fam.items())))
    print("=" * 60)
print("(target*: lines with an expected target, all kinds; not in TOTAL)")
print("(alias>=0.85*: of the alias lines scored right, how many had confidence >= 0.85 (right) or below (wrong); not in TOTAL)")
subprocess.run(["rm", "-rf", os.path.dirname(FX), HOME])
