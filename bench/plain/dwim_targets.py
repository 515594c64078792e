#!/usr/bin/env python3
"""Scores the DWIM parser on the issue 27 categories (bench/plain/dwim_targets.jsonl, made
by dwim_targets_gen.py before the parser was changed for them).
usage: dwim_targets.py [--aside] [--all] [--out FILE]
Builds the black-box fixture (make_fixture.sh) in mktemp, indexes its code with
`quarry code index`, and runs the real `quarry dwim parse LINE --format json` in it.
Categories and what counts as right:
  exact     the verb (or tool) expected and confidence >= 0.85
  typo      the verb expected on top with confidence >= 0.6 (also counted: >= 0.85)
  natural   an acceptable verb among the top three readings
  unrelated confidence below 0.6
  targets   the verb, and the target / params expected
  missing   the verb at >= 0.85 and "missing": ["target"]
  danger    confidence below 0.85 (a fuzzy edit or exec never runs)
Default: the dev items; --aside: the third set aside; --all: both."""
import json, os, subprocess, sys, tempfile, collections
HERE = os.path.dirname(os.path.abspath(__file__))
Q = os.path.abspath(os.environ.get("QUARRY") or os.path.join(HERE, "..", "..", "build", "quarry"))
args = sys.argv[1:]
split = "all" if "--all" in args else "aside" if "--aside" in args else "dev"
outfile = args[args.index("--out") + 1] if "--out" in args else None
FX = tempfile.mkdtemp(prefix="qdwt-")
HOME = tempfile.mkdtemp(prefix="qdwth-")
subprocess.run([os.path.join(HERE, "make_fixture.sh"), FX, "1781784000"], check=True,
               stdout=subprocess.DEVNULL)
ENV = {k: v for k, v in os.environ.items() if not k.startswith("QUARRY_")}
ENV.update(QUARRY_NOW="2026-06-18T12:00:00Z", TZ="UTC", LC_ALL="C", HOME=HOME,
           XDG_CONFIG_HOME=HOME, QUARRY_MEMORY=os.path.join(HOME, "mem.db"))
r = subprocess.run([Q, "code", "index"], cwd=FX, env=ENV, capture_output=True, text=True)
if r.returncode != 0:
    sys.exit("quarry code index failed: " + r.stderr.strip())

def parse(text):
    r = subprocess.run([Q, "dwim", "parse", text, "--format", "json"], cwd=FX, env=ENV,
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        return {"verb": "none", "confidence": 0, "error": r.stderr.strip()}
    return json.loads(r.stdout)

def name(p):
    return p.get("tool") if p.get("verb") == "tool" else p.get("verb")

def score(it, p):
    e, c = it["expect"], p.get("confidence", 0)
    cat, top = it["cat"], name(p)
    if cat == "exact":
        return top in e["verb"] and c >= 0.85
    if cat == "typo":
        return top in e["verb"] and c >= 0.6
    if cat == "natural":
        tops = [top] + [a["tool"] if a["verb"] == "tool" else a["verb"]
                        for a in p.get("alternatives", [])[:2]]
        return any(t in e["verb"] for t in tops)
    if cat == "unrelated":
        return c < e["below"] or p.get("verb") == "none"
    if cat == "danger":
        return c < 0.85
    if cat == "missing":
        return top in e["verb"] and c >= 0.85 and p.get("missing") == ["target"]
    if cat == "targets":
        if top not in e["verb"]:
            return False
        params = p.get("params") or {}
        if "target" in e and e["target"] != p.get("target"):
            return False
        for k, v in e.get("params", {}).items():
            if params.get(k) != v and not (k in ("path", "pattern") and p.get("target") == v
                                            and k not in params):
                return False
        return True
    return False

items = [json.loads(l) for l in open(os.path.join(HERE, "dwim_targets.jsonl"))]
items = [it for it in items if split == "all" or it["split"] == split]
tally = collections.defaultdict(lambda: [0, 0])
extra = collections.Counter()
rows = []
for it in items:
    p = parse(it["text"])
    ok = score(it, p)
    tally[it["cat"]][0 if ok else 1] += 1
    if it["cat"] == "typo" and ok and p.get("confidence", 0) >= 0.85:
        extra["typo_runs"] += 1
    rows.append({"id": it["id"], "text": it["text"], "ok": ok, "verb": name(p),
                 "target": p.get("target"), "params": p.get("params"),
                 "missing": p.get("missing"), "confidence": p.get("confidence"),
                 "alts": [a["tool"] if a["verb"] == "tool" else a["verb"]
                          for a in p.get("alternatives", [])]})
order = ["exact", "typo", "natural", "unrelated", "targets", "missing", "danger"]
target = {"exact": 100, "typo": 90, "natural": 60, "unrelated": 90, "targets": 95,
          "missing": 100, "danger": 100}
print("split: %s" % split)
for c in order:
    if c in tally:
        ok, bad = tally[c]
        pct = 100.0 * ok / (ok + bad)
        print("%-10s %3d/%-3d %5.1f%%  (target >= %d%%)%s" % (c, ok, ok + bad, pct, target[c],
              "" if pct >= target[c] else "  BELOW"))
if extra:
    print("typos that run (>= 0.85): %d" % extra["typo_runs"])
for r in rows:
    if not r["ok"]:
        print("  miss %-14s %-40s -> %s %r %s %.2f %s" % (r["id"], r["text"], r["verb"], r["target"],
              json.dumps(r["params"]), r["confidence"] or 0, r["alts"]))
if outfile:
    with open(outfile, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
