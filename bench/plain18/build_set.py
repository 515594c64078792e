#!/usr/bin/env python3
"""plain18 set builder (machinery only; no item text here).
python3 build_set.py --src /root/heldout18/items_src.py
Builds a fresh tmux fixture (make_fixture.sh) in a temp dir, checks every expected target of every item against
the tree (git ls-files for files/dirs, wc -l for line ranges, ctags tags for symbols/macros/structs, git grep -F
for grep patterns), then splits the items with a seeded draw stratified by kind: dev half -> dev/dwim_dev.jsonl,
held-out half -> /root/heldout18/dwim_heldout.jsonl (never under /work/plain18), both -> /root/heldout18/all_items.jsonl."""
import importlib.util, json, os, random, subprocess, sys, tempfile, shutil

HERE = os.path.dirname(os.path.abspath(__file__))
HELD = "/root/heldout18"
SEED = 1818
args = sys.argv[1:]
src = args[args.index("--src") + 1] if "--src" in args else os.path.join(HELD, "items_src.py")
if os.path.realpath(src).startswith(os.path.realpath(HERE)): sys.exit("item source must not live under /work/plain18")
spec = importlib.util.spec_from_file_location("items_src", src)
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
ITEMS = mod.ITEMS

FX = tempfile.mkdtemp(prefix="qbuild18-")
shutil.rmtree(FX)
subprocess.run([os.path.join(HERE, "make_fixture.sh"), FX], check=True)
files = subprocess.run(["git", "-C", FX, "ls-files"], capture_output=True, text=True, check=True).stdout.split("\n")
files = [f for f in files if f]
fileset = set(files)
dirs = set()
for f in files:
    parts = f.split("/")
    for i in range(1, len(parts)): dirs.add("/".join(parts[:i]))
csrc = [f for f in files if f.endswith((".c", ".h", ".y"))]
tags = subprocess.run(["ctags", "--language-force=C", "--c-kinds=+px", "-f", "-"] + csrc, cwd=FX,
                      capture_output=True, text=True).stdout
kinds = {}
for l in tags.split("\n"):
    if not l or l.startswith("!"): continue
    name = l.split("\t", 1)[0]
    k = l.rsplit(';"', 1)[-1].split("\t")
    kinds.setdefault(name, set()).add(k[1] if len(k) > 1 else "?")
if not kinds: sys.exit("ctags gave no tags")

def nlines(f):
    with open(os.path.join(FX, f), "rb") as fh: return fh.read().count(b"\n")

def check(t, verbs):
    if ":" in t and "-" in t.rsplit(":", 1)[1]:
        f, r = t.rsplit(":", 1); a, b = map(int, r.split("-"))
        if f in fileset and 1 <= a <= b <= nlines(f): return "range(%s has %d lines)" % (f, nlines(f))
        return None
    if t in fileset: return "file"
    if t in dirs: return "dir"
    name = t[len("struct "):] if t.startswith("struct ") else t
    if name in kinds:
        if t.startswith("struct ") and "s" not in kinds[name]: return None
        return "ctags:" + ",".join(sorted(kinds[name]))
    if "grep" in verbs:
        r = subprocess.run(["git", "-C", FX, "grep", "-qF", t], capture_output=True)
        if r.returncode == 0: return "git grep"
    return None

KINDS = ("exact", "alias", "misspelt", "natural", "unrelated")
out, bad = [], 0
for n, (kind, text, verbs, targets, note) in enumerate(ITEMS):
    assert kind in KINDS, kind
    assert kind == "unrelated" or verbs, text
    how = []
    for t in targets or []:
        h = check(t, verbs)
        if not h: print("TARGET NOT IN TREE: %r in item %d" % (t, n)); bad += 1
        how.append("%s=%s" % (t, h))
    # the target must appear in the line (as written, or as the file of a range / the name after 'struct')
    for t in targets or []:
        base = t.rsplit(":", 1)[0] if ":" in t and "-" in t.rsplit(":", 1)[1] else t
        base = base[len("struct "):] if base.startswith("struct ") else base
        if base not in text: print("TARGET NOT IN LINE: %r item %d" % (t, n)); bad += 1
    exp = {"verb": list(verbs)}
    if targets: exp["target"] = list(targets)
    out.append(dict(id="p18-%03d" % n, kind=kind, text=text, expect=exp, family=note, how="; ".join(how)))
texts = [o["text"] for o in out]
assert len(set(texts)) == len(texts), "duplicate lines"
shutil.rmtree(FX)
if bad: sys.exit("%d target problems" % bad)

rng = random.Random(SEED)
dev, held = [], []
extra_to_dev = True
for kind in sorted(KINDS):
    grp = [o for o in out if o["kind"] == kind]
    rng.shuffle(grp)
    h = len(grp) // 2
    if len(grp) % 2:
        h += 1 if extra_to_dev else 0
        extra_to_dev = not extra_to_dev
    dev += grp[:h]; held += grp[h:]
dev.sort(key=lambda o: o["id"]); held.sort(key=lambda o: o["id"])
os.makedirs(os.path.join(HERE, "dev"), exist_ok=True); os.makedirs(HELD, exist_ok=True)
def dump(fn, rows):
    with open(fn, "w") as f:
        for r in rows: f.write(json.dumps(r, sort_keys=True) + "\n")
dump(os.path.join(HERE, "dev", "dwim_dev.jsonl"), dev)
dump(os.path.join(HELD, "dwim_heldout.jsonl"), held)
dump(os.path.join(HELD, "all_items.jsonl"), out)
import collections
for name, rows in (("dev", dev), ("held-out", held)):
    c = collections.Counter(r["kind"] for r in rows)
    print(name, len(rows), {k: c[k] for k in KINDS}, "with target:", sum("target" in r["expect"] for r in rows))
