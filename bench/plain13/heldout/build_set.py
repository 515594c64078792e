#!/usr/bin/env python3
"""plain13 set builder. Builds a fresh nginx fixture (make_fixture.sh), computes every expected answer with ctags
(Universal Ctags 5.9.0, JSON, --fields=+nekSZ --kinds-C=+p), cscope 15.9 (-b -q -k; -L -2/-3), grep/regex over
git ls-files '*.c' '*.h', and writes the items and their seeded, kind-stratified DEV / HELD-OUT split.
Usage: python3 build_set.py [--dev DIR] [--held DIR]   (contains held-out texts: lives only in /root/heldout13)"""
import json, os, random, re, subprocess, sys, tempfile, collections
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lib13 as L

PLAIN = "/work/plain13"
DEV = sys.argv[sys.argv.index("--dev") + 1] if "--dev" in sys.argv else PLAIN + "/dev"
HELD = sys.argv[sys.argv.index("--held") + 1] if "--held" in sys.argv else "/root/heldout13"
FX = tempfile.mkdtemp(prefix="b13fx-")
subprocess.run([PLAIN + "/make_fixture.sh", FX + "/r"], check=True)
FX = FX + "/r"
L.setup(FX)
WIN = ("src/os/win32/", "src/event/modules/ngx_iocp", "src/event/modules/ngx_win32", "src/event/ngx_event_acceptex",
       "src/event/ngx_event_connectex")

def src(path): return open(os.path.join(FX, path), errors="replace").read().split("\n")

def is_static(t):
    ls = src(t["path"]); i = t["line"] - 1
    return any(re.match(r"\s*static\b", ls[j]) for j in (i, i - 1) if j >= 0)

def uniq(readings):
    out = []
    for r in readings:
        if r not in out: out.append(r)
    return out

def nonempty(readings):
    r = [x for x in readings if x]
    return uniq(r)

def srt(s): return sorted(set(s))

# ---------------------------------------------------------------- code item builders
def callers_item(name, infile=None):
    rs, how = [], []
    for via in (False, True):
        for excl in ((), WIN):
            rs.append(srt(L.callers(name, via_macros=via, exclude=excl, infile=infile)))
    how = "cscope -L -3 %s; enclosing ctags function of each site%s; readings: direct ;; without win32 files ;; + callers of macros whose body calls it (recursively) ;; that without win32" % (name, " in " + infile if infile else "")
    return dict(type="names", any_of=nonempty(rs)), how

def callees_item(name):
    names, rf, mac, nonmac = L.callees(name)
    F = L.funcs()
    pure = set(n for n in rf if n not in mac)
    exp = L.expand_macro_calls(names)
    libc = set(n for n in nonmac if n not in F)
    rs = [srt(rf), srt(pure), srt(names), srt(nonmac), srt(exp), srt(exp | libc), srt(rf | libc)]
    return dict(type="names", any_of=nonempty(rs)), \
        "cscope -L -2 %s; readings: repo functions (ctags) ;; those not also macros ;; every name ;; names not macros ;; functions reached through macro bodies ;; that + non-repo names ;; repo functions + non-repo names" % name

def def_item(name, kinds):
    ts = [t for t in L.TAGS if t["name"] == name and t["kind"] in kinds]
    # a struct and its typedef are both accepted
    extra = []
    if "struct" in kinds or "typedef" in kinds:
        for t in L.TAGS:
            if t["kind"] == "typedef" and t.get("typeref", "").endswith(":" + name): extra.append(t)
            if t["kind"] in ("struct", "typedef") and name.endswith("_t") and t["name"] == name[:-2] + "_s": extra.append(t)
    locs = srt("%s:%d" % (t["path"], t["line"]) for t in ts + extra)
    assert locs, name
    return dict(type="locations", any_of=locs), "ctags tags named %s of kind %s (+ matching struct/typedef)" % (name, "/".join(kinds))

def includers_item(h):
    d = L.includers(h)
    dc = [f for f in d if f.endswith(".c")]
    # transitive through project headers
    seen, todo = set(d), [f for f in d if f.endswith(".h")]
    while todo:
        x = todo.pop()
        for f in L.includers(os.path.basename(x)):
            if f not in seen: seen.add(f); todo.append(f) if f.endswith(".h") else None
    d_noself = [f for f in d if os.path.basename(f) != h]
    rs = [srt(d), srt(d_noself), srt(dc), srt(seen), srt(f for f in seen if f.endswith(".c"))]
    return dict(type="files", any_of=nonempty(rs)), "regex #include [<\"]...%s[>\"] over git ls-files *.c *.h (basename match); readings: direct ;; direct without the header itself ;; .c only ;; transitive through project headers ;; its .c" % h

def includes_item(path):
    inc = L.includes_of(path)
    allh = srt(os.path.basename(h) for q, h in inc)
    quoted = srt(os.path.basename(h) for q, h in inc if q == '"')
    proj = srt(os.path.basename(h) for q, h in inc if any(os.path.basename(f) == os.path.basename(h) for f in L.FILES))
    return dict(type="headers", any_of=nonempty([allh, proj, quoted])), "regex #include lines of %s; readings: every header ;; project headers ;; quoted only" % path

def file_funcs_item(path, static=None):
    ts = L.tags("function", path=path)
    if static: ts = [t for t in ts if is_static(t)]
    return dict(type="names", any_of=[srt(t["name"] for t in ts)]), "ctags kind function in %s%s" % (path, "; static = 'static' on the name line or the line before" if static else "")

def file_structs_item(path):
    st = [t for t in L.tags(("struct",), path=path)]
    named = srt(t["name"] for t in st if not t["name"].startswith("__anon"))
    tdefs = srt(t["name"] for t in L.tags("typedef", path=path) if t.get("typeref", "").startswith("struct:"))
    un = srt(t["name"] for t in L.tags(("struct", "union"), path=path) if not t["name"].startswith("__anon"))
    return dict(type="names", any_of=nonempty([named, srt(set(named) | set(tdefs)), tdefs, un])), \
        "ctags struct tags in %s; readings: named structs ;; + typedef names of structs ;; typedef names only ;; structs+unions" % path

def file_macros_item(path):
    ms = [t["name"] for t in L.tags("macro", path=path)]
    guard = [m for m in ms if m.endswith("_INCLUDED_")]
    return dict(type="names", any_of=nonempty([srt(ms), srt(set(ms) - set(guard))])), "ctags macro tags in %s; with ;; without include guard" % path

def pattern_item(rx, desc):
    ns = srt(t["name"] for t in L.tags("function") if re.search(rx, t["name"]))
    nw = srt(t["name"] for t in L.tags("function") if re.search(rx, t["name"]) and not t["path"].startswith(WIN))
    return dict(type="names", any_of=nonempty([ns, nw])), "ctags function names matching /%s/ (%s); readings: all ;; without win32 files" % (rx, desc)

def dead_statics_item(path):
    text = L.strip_comments(open(os.path.join(FX, path), errors="replace").read())
    st = [t for t in L.tags("function", path=path) if is_static(t)]
    r1, r2 = [], []
    for t in st:
        n = t["name"]
        sites = [s for s in L.cscope(3, n) if s[0] == path and L.func_at(path, s[2])]
        if not sites: r1.append(n)
        occ = len(re.findall(r"\b%s\b" % re.escape(n), text))
        protos = len([p for p in L.tags("prototype", path=path) if p["name"] == n])
        defs = len([p for p in st if p["name"] == n])
        if occ - protos - defs <= 0: r2.append(n)
    return dict(type="names", any_of=uniq([srt(r1), srt(r2)])), \
        "static functions of %s (ctags); readings: no cscope -3 call site inside a function of the file ;; name appears nowhere else in the comment-stripped file (tables count as uses; may be empty)" % path

def count_item(path, kind="function"):
    ts = [t for t in L.tags(kind) if t["path"] == path or t["path"].startswith(path.rstrip("/") + "/")]
    n_all = len(ts); n_names = len(set((t["path"], t["name"]) for t in ts))
    return dict(type="count", any_of=uniq([n_all, n_names])), "ctags %s tags under %s: every definition ;; distinct (file,name) (#if variants once)" % (kind, path)

def yesno_item(callee, scope_file=None, caller=None):
    sites = L.cscope(3, callee)
    if scope_file: hits = [s for s in sites if s[0] == scope_file and L.func_at(s[0], s[2])]
    else: hits = [s for s in sites if L.func_at(s[0], s[2]) == caller]
    return dict(type="yesno", answer=bool(hits), scope=scope_file or caller, callee=callee), \
        "cscope -L -3 %s restricted to %s: %d sites" % (callee, scope_file or caller, len(hits))

def deep_callers_item(name):
    a = L.callers(name); b = set(a)
    for x in a: b |= L.callers(x)
    lvl2 = set()
    for x in a: lvl2 |= L.callers(x)
    return dict(type="names", any_of=nonempty([srt(b), srt(lvl2)])), \
        "cscope -L -3 %s, then -L -3 of each caller (2 levels); readings: both levels ;; the second level only" % name

def most_included_item(n):
    c_all, c_c = collections.Counter(), collections.Counter()
    for f in L.FILES:
        for q, h in sorted(set(L.includes_of(f))):
            c_all[os.path.basename(h)] += 1
            if f.endswith(".c"): c_c[os.path.basename(h)] += 1
    rs = []
    for c in (c_all, c_c):
        top = sorted(c.items(), key=lambda x: (-x[1], x[0]))
        assert top[n - 1][1] != top[n][1], "tie at cut"
        groups = [h for h, k in top[:n]]
        rs.append(groups)
        # ties inside the top n: every order of tied names accepted
        import itertools
        for perm in itertools.permutations(groups):
            if [c[h] for h in perm] == [c[h] for h in groups]: rs.append(list(perm))
    return dict(type="headers_ordered", any_of=uniq(rs)), \
        "regex #include lines over all files, includers counted per file: all files ;; .c only; tied names in any order: %s / %s" % (sorted(c_all.items(), key=lambda x: (-x[1], x[0]))[:n + 1], sorted(c_c.items(), key=lambda x: (-x[1], x[0]))[:n + 1])

def recursive_item(prefix):
    r1, r2 = set(), set()
    fns = [t for t in L.tags("function") if t["path"].startswith(prefix)]
    calls = collections.defaultdict(set)
    for t in fns:
        for f, enc, ln, txt in L.cscope(3, t["name"]):
            if f.startswith(prefix):
                c = L.func_at(f, ln)
                if c: calls[c].add(t["name"])
    for t in fns:
        if t["name"] in calls[t["name"]]: r1.add(t["name"])
        seen, todo = set(), list(calls[t["name"]])
        while todo:
            x = todo.pop()
            if x in seen: continue
            seen.add(x); todo += list(calls[x])
        if t["name"] in seen: r2.add(t["name"])
    return dict(type="names", any_of=nonempty([srt(r1), srt(r2)])), \
        "cscope -L -3 of every ctags function under %s; readings: calls itself ;; on a call cycle under %s" % (prefix, prefix)

def largest_item(n):
    fs = sorted(((t.get("end", t["line"]) - t["line"] + 1, t["name"]) for t in L.tags("function")), reverse=True)
    top = [x[1] for x in fs[:n]]
    assert fs[n - 1][0] != fs[n][0], "tie at cut"
    return dict(type="names_ordered", any_of=[top]), "ctags end-line - line + 1, top %d: %s" % (n, [x[0] for x in fs[:n]])

def decline_item(): return "decline", "must decline"

def misspelt_item(right, inner):
    e, how = inner
    return dict(type="misspelt", right=right, inner=e), "misspelt/wrong-cased; right name %s; accepted: decline, a did-you-mean naming it, or the answer: %s" % (right, how)

def exists_check(name):
    assert not any(t["name"] == name for t in L.TAGS), name
    assert subprocess.run(["git", "-C", FX, "grep", "-q", "-w", name], capture_output=True).returncode == 1, name

from items13 import CODE, DWIM
code = []
for i, (kind, text, builder, *bargs) in enumerate(CODE):
    if builder == "misspelt_item":
        exp, how = misspelt_item(bargs[0], globals()[bargs[1]](*bargs[2:]))
    elif builder == "decline_item":
        for n in bargs: exists_check(n)
        exp, how = decline_item()
        if bargs: how += "; names that exist nowhere (ctags, git grep -w): %s" % ", ".join(bargs)
    else:
        exp, how = globals()[builder](*bargs)
    code.append(dict(id="c%02d" % (i + 1), kind=kind, text=text, expect=exp, how=how))

# ---------------------------------------------------------------- dwim
def check_target(t):
    if re.match(r".+:\d+-\d+$", t):
        p, rng = t.rsplit(":", 1); a, b = map(int, rng.split("-"))
        n = len(src(p)); assert os.path.exists(os.path.join(FX, p)) and b <= n, t; return "file %s has %d lines" % (p, n)
    if os.path.exists(os.path.join(FX, t)): return "path exists (ls-files)"
    if any(x["name"] == t for x in L.TAGS): return "ctags tag"
    if subprocess.run(["git", "-C", FX, "grep", "-q", "-F", t], capture_output=True).returncode == 0: return "git grep -F finds it"
    if any(f.endswith("/" + t) for f in L.FILES): return "basename of a tracked file"
    raise AssertionError("target not found: " + t)

dwim = []
for i, d in enumerate(DWIM):
    kind, text, verbs = d[:3]
    target = d[3] if len(d) > 3 else None
    exp = dict(verb=verbs)
    how = "literal"
    if target:
        exp["target"] = target if isinstance(target, list) else [target]
        how = "; ".join("%s: %s" % (t, check_target(t)) for t in exp["target"])
    it = dict(id="d%03d" % (i + 1), kind=kind, text=text, expect=exp, how=how)
    if len(verbs) == 1 and kind == "exact" and not target and verbs[0] not in ("done", "validate", "get_tags"):
        it["note"] = "bare verb: the parse should list the target as missing"
    dwim.append(it)

# ---------------------------------------------------------------- split
def split(items, seed):
    rnd = random.Random(seed)
    by = collections.OrderedDict()
    for it in items: by.setdefault(it["kind"], []).append(it)
    dev, held, flip = [], [], 0
    for k, its in by.items():
        its = its[:]; rnd.shuffle(its)
        h = len(its) // 2 + (len(its) % 2) * flip
        flip ^= len(its) % 2
        held += its[:h]; dev += its[h:]
    key = lambda it: it["id"]
    return sorted(dev, key=key), sorted(held, key=key)

os.makedirs(DEV, exist_ok=True); os.makedirs(HELD, exist_ok=True)
for name, items, seed in (("code", code, 1313), ("dwim", dwim, 1314)):
    dv, hd = split(items, seed)
    with open(os.path.join(DEV, name + ".jsonl"), "w") as f:
        for it in dv: f.write(json.dumps(it, sort_keys=True) + "\n")
    with open(os.path.join(HELD, name + ".jsonl"), "w") as f:
        for it in hd: f.write(json.dumps(it, sort_keys=True) + "\n")
    print(name, "dev", collections.Counter(i["kind"] for i in dv), "held", collections.Counter(i["kind"] for i in hd))
subprocess.run(["rm", "-rf", os.path.dirname(FX)])
