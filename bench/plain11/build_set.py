#!/usr/bin/env python3
"""plain11 builder: python3 build_set.py --src /root/heldout11/items_src.py
Builds a fresh libevent fixture (make_fixture.sh), computes every expected answer with ctags / cscope / grep,
and writes the DEV half to dev/ and the HELD-OUT half to /root/heldout11/. No answer is typed by hand."""
import collections, importlib.util, json, os, random, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 1111
src = sys.argv[sys.argv.index("--src") + 1]
spec = importlib.util.spec_from_file_location("items_src", src); S = importlib.util.module_from_spec(spec); spec.loader.exec_module(S)
FX = tempfile.mkdtemp(prefix="fx11-"); FX = os.path.join(FX, "libevent")
subprocess.run([os.path.join(HERE, "make_fixture.sh"), FX], check=True)
sh = lambda cmd: subprocess.run(cmd, cwd=FX, shell=True, capture_output=True, text=True).stdout
FILES = sh("git ls-files '*.c' '*.h'").split()
open(os.path.join(FX, ".csfiles"), "w").write("\n".join(FILES) + "\n")
CTAGS = "ctags --excmd=number --fields=+nKS --kinds-C=+p -f - -L .csfiles"
TAGS = []   # (name, file, line, kind)
for l in sh(CTAGS).splitlines():
    p = l.split("\t")
    if len(p) < 4: continue
    TAGS.append((p[0], p[1], int(p[2].rstrip(';"')), p[3]))
FUNCS = {t[0] for t in TAGS if t[3] == "function"}
MACROS = {t[0] for t in TAGS if t[3] == "macro"}
CSTMP = tempfile.mkdtemp(prefix="cstmp11-")
CSENV = dict(os.environ, TMPDIR=CSTMP)
def cscope(args):
    for _ in range(5):
        r = subprocess.run("cscope " + args, cwd=FX, shell=True, capture_output=True, text=True, env=CSENV)
        if r.returncode == 0: return r.stdout
    raise SystemExit("cscope failed: " + args)
cscope("-b -q -k -i .csfiles -f .cs.out")
CS_BUILD = "cscope -b -q -k -i <git ls-files '*.c' '*.h'> -f .cs.out"
def cs(q, name):  # rows: file, func, line, text
    out = []
    for l in cscope("-d -f .cs.out -L -%d %s" % (q, name)).splitlines():
        p = l.split(" ", 3)
        if len(p) == 4: out.append((p[0], p[1], int(p[2]), p[3]))
    return out
TESTISH = ("test/", "sample/", "test-export/")
WINISH = ("WIN32-Code/",)
def uniq(xs): return sorted(set(xs))
def dedup(alts):
    o = []
    for a in alts:
        if a not in o: o.append(a)
    return o
PROTO_RE = re.compile(r"^\s*(extern\s+)?[\w\s\*]+\b%s\s*\([^)]*\)?\s*;\s*$")

def callers(f, infile=None):
    rows = [r for r in cs(3, f) if r[1] not in ("<global>",) and not re.match(r"\s*#\s*define", r[3])]
    rows = [r for r in rows if not re.search(r"^\s*[\w\s\*]*\b%s\s*\([^;]*\)\s*;\s*$" % re.escape(f), r[3]) or r[1] != f]
    if infile: rows = [r for r in rows if r[0] == infile or r[0].endswith("/" + infile)]
    # call sites inside a macro body (cscope names the macro as the enclosing function): dropped, or replaced by the
    # macro's own callers ("through macros" reading)
    mrows = [r for r in rows if r[1] in MACROS and r[1] not in FUNCS]
    rows = [r for r in rows if not (r[1] in MACROS and r[1] not in FUNCS)]
    via = set()
    for m in {r[1] for r in mrows}:
        via |= {r[1] for r in cs(3, m) if r[1] not in ("<global>",) and r[1] not in MACROS and (not infile or r[0] == infile)}
    a = uniq(r[1] for r in rows)
    b = uniq(r[1] for r in rows if not r[0].startswith(TESTISH))
    c = uniq(r[1] for r in rows if not r[0].startswith(TESTISH + WINISH))
    d = [x for x in a if x != f]  # without self-recursion
    e = uniq(set(a) | via)
    alts = dedup([x for x in (a, b, c, d, e) if x])
    return (alts or [[]]), "cscope -d -L -3 %s (enclosing function of each call site; #define lines and call sites inside macro bodies dropped)%s ;; same without test/ sample/ test-export/ ;; also without WIN32-Code/ ;; without %s itself ;; plus the callers of each macro whose body calls it (through macros); [] when nothing calls it directly" % (f, " in %s" % infile if infile else "", f)

def callees(f):
    names = [r[1] for r in cs(2, f)]
    a = uniq(n for n in names if n in FUNCS)
    b = uniq(n for n in names if n not in MACROS)
    c = uniq(names)
    # expand macros one level: callees of the macro bodies that are repo functions
    exp = set(a)
    for m in [n for n in names if n in MACROS]:
        exp |= {r[1] for r in cs(2, m) if r[1] in FUNCS}
    d = sorted(exp)
    return dedup([x for x in (a, b, c, d) if x]), "cscope -d -L -2 %s: names that are ctags functions ;; names not ctags macros (libc kept) ;; every name ;; repo functions reached through called macros (one level)" % f

def definition(name):
    locs = ["%s:%d" % (t[1], t[2]) for t in TAGS if t[0] == name and t[3] in ("function", "struct", "union", "typedef", "macro", "enum")]
    return locs, "ctags --excmd=number: every function/struct/union/typedef/macro/enum tag named %s (prototypes excluded); any row at one of them, ±1 line" % name

INC_RE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')
def includes_of(path):
    out = []
    for l in open(os.path.join(FX, path), errors="replace"):
        m = INC_RE.match(l)
        if m: out.append((m.group(1), m.group(2)))
    return out
BYBASE = collections.defaultdict(list)
for f in FILES: BYBASE[os.path.basename(f)].append(f)
def includers(h):
    a = uniq(f for f in FILES if any(os.path.basename(x) == h for _, x in includes_of(f)))
    b = [f for f in a if f.endswith(".c")]
    c = [f for f in a if not f.startswith(TESTISH)]
    return dedup([x for x in (a, b, c) if x]), "grep '^\\s*#\\s*include' over git ls-files '*.c' '*.h', basename == %s ;; .c only ;; without test/ sample/" % h

def includes(path):
    inc = includes_of(path)
    a = uniq(os.path.basename(x) for _, x in inc)
    b = uniq(os.path.basename(x) for q, x in inc if q == '"')
    c = uniq(x for _, x in inc)
    d = [x for x in a if x.endswith(".h")]
    return dedup([x for x in (a, b, c, d) if x]), "grep '#include' %s: every header (basename) ;; quoted only ;; as written ;; .h only (an included .c left out)" % path

def depends(path):
    base, how = includes(path)
    seen, todo, sysh = set(), [path], set()
    while todo:
        f = todo.pop()
        for q, x in includes_of(f):
            cands = [c for c in FILES if c == x or c.endswith("/" + x)] or BYBASE.get(os.path.basename(x), [])
            if cands:
                for c in cands[:1]:
                    if c not in seen: seen.add(c); todo.append(c)
            else: sysh.add(os.path.basename(x))
    t = uniq(os.path.basename(x) for x in seen)
    return dedup(base + [t, uniq(t + list(sysh))]), how + " ;; transitive project headers (resolved by path, else basename) ;; that + system headers"

def file_tags(path, kind): return [t for t in TAGS if t[1] == path and t[3] == kind]
def file_functions(path):
    fs = file_tags(path, "function")
    return [uniq(t[0] for t in fs)], "ctags kind function in %s" % path

LINES = {}
def lines(path):
    if path not in LINES: LINES[path] = open(os.path.join(FX, path), errors="replace").read().split("\n")
    return LINES[path]
def is_static(t):
    L = lines(t[1]); i = t[2] - 1
    return L[i].lstrip().startswith("static") or (i > 0 and L[i - 1].lstrip().startswith("static"))
def static_functions(path):
    fs = [t for t in file_tags(path, "function") if is_static(t)]
    return [uniq(t[0] for t in fs)], "ctags kind function in %s whose definition line or the line before starts with 'static'" % path

def strip_comments(s): return re.sub(r"/\*.*?\*/|//[^\n]*", " ", s, flags=re.S)
def dead_statics(path):
    fs = uniq(t[0] for t in file_tags(path, "function") if is_static(t))
    a = [f for f in fs if not any(r[0] == path for r in cs(3, f) if r[1] != "<global>" and not re.match(r"\s*#\s*define", r[3]))]
    a2 = [f for f in fs if not any(r[0] == path and r[1] != f for r in cs(3, f) if r[1] != "<global>" and not re.match(r"\s*#\s*define", r[3]))]
    txt = strip_comments("\n".join(lines(path)))
    b = [f for f in fs if len(re.findall(r"\b%s\b" % re.escape(f), txt)) <= 1 + sum(1 for t in TAGS if t[1] == path and t[0] == f and t[3] == "prototype")]
    return dedup([a, a2, b]), "static functions of %s (ctags + 'static' line) with no cscope -3 call site in the file ;; none but self-calls ;; name appears nowhere else in the comment-stripped file (prototypes allowed; pointers/tables count as uses; may be empty)" % path

def macros(path):
    ms = file_tags(path, "macro")
    a = uniq(t[0] for t in ms)
    guard = None
    for l in lines(path):
        m = re.match(r"\s*#\s*ifndef\s+(\w+)", l)
        if m: guard = m.group(1); break
        if l.strip() and not l.strip().startswith(("/*", "*", "//")): break
    b = [x for x in a if x != guard]
    return dedup([a, b]), "ctags kind macro in %s ;; without the include guard (%s)" % (path, guard)

def macros_glob(g):
    rx = re.compile("^" + re.escape(g).replace(r"\*", ".*").replace(r"\?", ".") + "$")
    a = uniq(t[0] for t in TAGS if t[3] == "macro" and rx.match(t[0]))
    b = uniq(t[0] for t in TAGS if t[3] == "macro" and rx.match(t[0]) and not t[1].startswith(TESTISH))
    return dedup([a, b]), "ctags kind macro, name glob %s, whole tree ;; without test/ sample/" % g

def structs(path):
    a = uniq(t[0] for t in file_tags(path, "struct") if not t[0].startswith("__anon"))
    b = uniq(t[0] for t in TAGS if t[1] == path and t[3] in ("struct", "union") and not t[0].startswith("__anon"))
    return dedup([x for x in (a, b) if x]), "ctags kind struct in %s (anonymous dropped) ;; structs and unions" % path

def recursive(path):
    fs = uniq(t[0] for t in file_tags(path, "function"))
    a = [f for f in fs if any(r[1] == f and r[0] == path for r in cs(2, f))]
    # call cycles inside the file (functions of the file only)
    g = {f: {r[1] for r in cs(2, f) if r[0] == path and r[1] in fs} for f in fs}
    def reach(s):
        seen, todo = set(), list(g[s])
        while todo:
            x = todo.pop()
            if x in seen: continue
            seen.add(x); todo += list(g.get(x, ()))
        return seen
    b = [f for f in fs if f in reach(f)]
    return dedup([a, b]), "functions of %s (ctags) whose cscope -2 callees include themselves ;; on a call cycle within the file" % path

def count(path):
    fs = file_tags(path, "function")
    return dedup([len(fs), len({t[0] for t in fs})]), "ctags kind function in %s: tags ;; distinct names" % path

def misspelt(want):
    assert want in FUNCS, want
    return want, "ctags: %s is a function; the asked name is not (case-sensitive)" % want

code_items = []
for i, (kind, text, sp) in enumerate(S.CODE):
    it = {"id": "c%02d" % i, "kind": kind, "text": text}
    if kind == "decline": it["expect"] = "decline"; it["how"] = "judgment or a fact not in the code: must be declined"
    elif kind == "callers": alts, how = callers(sp["f"], sp.get("in")); it["expect"] = {"type": "names", "any_of": alts}; it["how"] = how
    elif kind == "callees": alts, how = callees(sp["f"]); it["expect"] = {"type": "names", "any_of": alts}; it["how"] = how
    elif kind == "definition": alts, how = definition(sp["name"]); it["expect"] = {"type": "locations", "any_of": alts}; it["how"] = how
    elif kind == "includers": alts, how = includers(sp["h"]); it["expect"] = {"type": "files", "any_of": alts}; it["how"] = how
    elif kind == "includes": alts, how = includes(sp["file"]); it["expect"] = {"type": "headers", "any_of": alts}; it["how"] = how
    elif kind == "depends": alts, how = depends(sp["file"]); it["expect"] = {"type": "headers", "any_of": alts}; it["how"] = how
    elif kind in ("file_functions", "static_functions", "dead_statics", "macros", "macros_glob", "structs", "recursive"):
        arg = sp.get("file") or sp.get("glob")
        alts, how = globals()[kind](arg); it["expect"] = {"type": "names", "any_of": alts}; it["how"] = how
    elif kind == "count": alts, how = count(sp["file"]); it["expect"] = {"type": "count", "any_of": alts}; it["how"] = how
    elif kind == "misspelt_name": w, how = misspelt(sp["want"]); it["expect"] = {"type": "suggest", "want": w}; it["how"] = how
    if isinstance(it["expect"], dict) and it["expect"].get("any_of") == []:
        raise SystemExit("empty expectation: %s" % text)
    code_items.append(it)

GREP_OK = lambda p: bool(sh("git grep -l -F -e %s -- . | head -1" % json.dumps(p)).strip())
def target_ok(t):
    m = re.match(r"(.+):(\d+)-(\d+)$", t)
    if m:
        n = len(lines(m.group(1))); return int(m.group(3)) <= n
    if t in FILES or any(f.startswith(t.rstrip("/") + "/") for f in FILES) or sh("git ls-files -- %s" % json.dumps(t)).strip(): return True
    if any(x[0] == t for x in TAGS): return True
    return GREP_OK(t)
dwim_items = []
for i, (kind, text, verbs, tgt) in enumerate(S.DWIM):
    it = {"id": "d%03d" % i, "kind": kind, "text": text}
    exp = {}
    if verbs: exp["verb"] = verbs
    if tgt:
        tl = tgt if isinstance(tgt, list) else [tgt]
        for t in tl:
            if not target_ok(t): raise SystemExit("target not in fixture: %s" % t)
        exp["target"] = tl
    it["expect"] = exp
    it["how"] = "target checked with git ls-files / ctags / git grep -F / wc -l" if tgt else "verb by the help text's verb list"
    if kind == "exact" and verbs[0] in ("skeleton", "callers") and text.strip() == verbs[0]:
        it["note"] = "bare verb that needs a target: right on the verb alone; the parse should list the target as missing"
    dwim_items.append(it)

def split(items, seed):
    rng = random.Random(seed); dev, held = [], []
    bykind = collections.OrderedDict()
    for it in items: bykind.setdefault(it["kind"], []).append(it)
    flip = 0
    for k, xs in bykind.items():
        xs = xs[:]; rng.shuffle(xs); n = len(xs) // 2
        if len(xs) % 2: n += flip; flip ^= 1
        dev += xs[:n]; held += xs[n:]
    key = lambda x: x["id"]
    return sorted(dev, key=key), sorted(held, key=key)
os.makedirs(os.path.join(HERE, "dev"), exist_ok=True); os.makedirs("/root/heldout11", exist_ok=True)
for name, items in (("code", code_items), ("dwim", dwim_items)):
    dev, held = split(items, SEED + (0 if name == "code" else 1))
    for path, xs in ((os.path.join(HERE, "dev", "%s_dev.jsonl" % name), dev), ("/root/heldout11/%s_heldout.jsonl" % name, held)):
        with open(path, "w") as f:
            for x in xs: f.write(json.dumps(x, sort_keys=True) + "\n")
    print(name, "dev", collections.Counter(x["kind"] for x in dev), "held", collections.Counter(x["kind"] for x in held))
subprocess.run(["rm", "-rf", os.path.dirname(FX), CSTMP])
