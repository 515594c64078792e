#!/usr/bin/env python3
"""plain19 set builder (machinery only; no item text here).
python3 build_set.py --src /root/heldout19/items_src.py [--dump FILE]
Builds a fresh fixture (make_fixture.sh) in a temp dir, checks every target spec of every item against the tree
(f: git ls-files; d: a tracked directory; s: a Universal Ctags tag name (function, prototype, macro, struct, typedef,
union, enum, member excluded) over tracked .c/.h files; p: git grep -F finds it; r:FILE:A-B: FILE tracked, 1<=A<=B<=lines),
aborts on any miss, then splits stratified by kind with random.Random(1919): kinds sorted, each kind's items shuffled,
half to DEV; odd-sized kinds alternate which half gets the extra item. Writes
/work/plain19/dev/dwim_dev.jsonl and /root/heldout19/dwim_heldout.jsonl."""
import importlib.util, json, os, random, subprocess, sys, tempfile, collections, shutil

HERE = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]
src = args[args.index("--src") + 1]
dump = args[args.index("--dump") + 1] if "--dump" in args else None
spec = importlib.util.spec_from_file_location("items_src", src); M = importlib.util.module_from_spec(spec); spec.loader.exec_module(M)

FX = tempfile.mkdtemp(prefix="b19-"); os.rmdir(FX)
subprocess.run([os.path.join(HERE, "make_fixture.sh"), FX], check=True)
git = lambda *a: subprocess.run(["git", "-C", FX] + list(a), capture_output=True, text=True)
files = set(git("ls-files").stdout.split("\n")) - {""}
dirs = {os.path.dirname(f) for f in files}
dirs = {"/".join(d.split("/")[:i + 1]) for d in dirs if d for i in range(len(d.split("/")))}
cfiles = sorted(f for f in files if f.endswith((".c", ".h")))
tags = set()
r = subprocess.run(["ctags", "--output-format=json", "--fields=+nK", "--kinds-C=+p", "--languages=C", "--langmap=C:+.h",
                    "-f", "-", "-L", "-"], cwd=FX, input="\n".join(cfiles), capture_output=True, text=True)
for line in r.stdout.splitlines():
    try: t = json.loads(line)
    except Exception: continue
    if t.get("_type") == "tag" and t.get("kind") in ("function", "prototype", "macro", "struct", "typedef", "union", "enum"):
        tags.add(t["name"])
print("fixture files %d, C files %d, tag names %d" % (len(files), len(cfiles), len(tags)))

def lines_of(f):
    with open(os.path.join(FX, f), "rb") as fh: return fh.read().count(b"\n")

def check(sp):
    k, v = sp.split(":", 1)
    if k == "f": ok = v in files; acc = [v]
    elif k == "d": ok = v in dirs; acc = [v]
    elif k == "s": ok = v in tags; acc = [v]
    elif k == "p": ok = git("grep", "-q", "-F", v).returncode == 0; acc = [v]
    elif k == "r":
        f, rng = v.rsplit(":", 1); a, b = map(int, rng.split("-"))
        ok = f in files and 1 <= a <= b <= lines_of(f); acc = [v]
    else: raise SystemExit("bad spec " + sp)
    if not ok: raise SystemExit("target not in tree: " + sp)
    return acc

items = []
for n, (kind, fam, text, verbs, specs) in enumerate(M.ITEMS):
    tgt = [a for sp in specs for a in check(sp)]
    it = {"id": "p19-%03d" % (n + 1), "kind": kind, "family": fam, "text": text,
          "expect": {"verb": list(verbs)} if kind != "unrelated" else {"verb": []}}
    if tgt: it["expect"]["target"] = tgt
    if kind == "exact" and verbs[0] in ("callers", "callees", "references", "definition", "expand", "skeleton", "read", "deps", "fix") and not tgt:
        it["note"] = "bare verb that takes a target: right on the verb alone"
    items.append(it)
assert len({i["text"] for i in items}) == len(items), "duplicate lines"

rng = random.Random(1919); dev, held = [], []; extra_to_dev = True
bykind = collections.defaultdict(list)
for it in items: bykind[it["kind"]].append(it)
for k in sorted(bykind):
    xs = bykind[k][:]; rng.shuffle(xs); h = len(xs) // 2
    if len(xs) % 2:
        nd = h + 1 if extra_to_dev else h; extra_to_dev = not extra_to_dev
    else: nd = h
    dev += xs[:nd]; held += xs[nd:]
dev.sort(key=lambda i: i["id"]); held.sort(key=lambda i: i["id"])
os.makedirs(os.path.join(HERE, "dev"), exist_ok=True); os.makedirs("/root/heldout19", exist_ok=True)
def write(fn, xs):
    with open(fn, "w") as f:
        for it in xs: f.write(json.dumps(it, sort_keys=True) + "\n")
write(os.path.join(HERE, "dev", "dwim_dev.jsonl"), dev)
write("/root/heldout19/dwim_heldout.jsonl", held)
if dump: write(dump, items)
for name, xs in (("dev", dev), ("held-out", held)):
    c = collections.Counter(i["kind"] for i in xs)
    print(name, dict(sorted(c.items())), len(xs), "with target:", sum("target" in i["expect"] for i in xs))
shutil.rmtree(FX)
