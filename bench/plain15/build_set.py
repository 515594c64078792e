#!/usr/bin/env python3
"""plain15 set builder (machinery only; item texts live in the item source, /root/heldout15/items_src.py).
python3 build_set.py [--src /root/heldout15/items_src.py] [--dev /work/plain15/dev] [--held /root/heldout15]
Builds a fresh htop fixture (make_fixture.sh), runs Universal Ctags (--fields=+neKSZ --kinds-C=+p), cscope 15.9
(-b -q -k; -L -2 / -L -3) and grep over `git ls-files '*.c' '*.h'`, computes every expected answer, and writes the
split: random.Random(SEED), stratified by part and kind."""
import importlib.util, json, os, random, re, shutil, subprocess, sys, tempfile
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))
import an

SEED = 151515
args = sys.argv[1:]
def opt(k, d): return args[args.index(k) + 1] if k in args else d
SRC = opt("--src", "/root/heldout15/items_src.py")
DEV = opt("--dev", os.path.join(HERE, "dev"))
HELD = opt("--held", "/root/heldout15")
spec = importlib.util.spec_from_file_location("items_src", SRC); S = importlib.util.module_from_spec(spec)
spec.loader.exec_module(S)

TMP = tempfile.mkdtemp(prefix="p15build-")
FX = os.path.join(TMP, "fx")
subprocess.run([os.path.join(HERE, "make_fixture.sh"), FX], check=True)
F = an.Fixture(FX, os.path.join(TMP, "work"))
M = an.More(F)
CS = "cscope -d -L -%d NAME (db: cscope -b -q -k over git ls-files '*.c' '*.h')"
CT = "ctags --fields=+neKSZ --kinds-C=+p"

def uniq(readings):
    """[(label, value)] -> (any_of values deduplicated, labels)"""
    vals, labels = [], []
    for lab, v in readings:
        key = json.dumps(v, sort_keys=True)
        if key in [json.dumps(x, sort_keys=True) for x in vals]:
            labels[[json.dumps(x, sort_keys=True) for x in vals].index(key)] += " = " + lab
            continue
        vals.append(v); labels.append(lab)
    return vals, labels

def nonempty(readings, allow_empty=False):
    return [(l, v) for l, v in readings if allow_empty or v]

# ---------------------------------------------------------------- operations
def callers(sp):
    name, inf = sp["name"], sp.get("in_file")
    sites = M.call_sites(name)
    gs = M.grep_sites(name)
    if inf:
        sites = [s for s in sites if s["file"] == inf]; gs = [s for s in gs if s["file"] == inf]
    r_all = sorted({s["caller"] for s in sites})
    r_act = sorted({s["caller"] for s in sites if not s["inactive"]})
    r_grep = sorted({s["caller"] for s in gs})
    wr, seen, todo = set(), set(), [name]
    while todo:
        n = todo.pop()
        for m in M.macro_wrappers(n):
            if m not in seen: seen.add(m); todo.append(m)
    via = set(r_all)
    for m in seen:
        via |= {s["caller"] for s in M.call_sites(m) if not inf or s["file"] == inf}
    rd = [("cscope -3 call sites outside #define bodies and prototypes, ctags enclosing function", r_all),
          ("same without sites under #if/#ifdef of a macro no repo file defines", r_act),
          ("grep NAME( in comment-stripped code inside functions", r_grep),
          ("plus callers of the macros whose body calls it (%s)" % ",".join(sorted(seen)), sorted(via))]
    vals, labs = uniq(nonempty(rd))
    how = CS % 3 + "; " + " ;; ".join(labs) + ("; only sites in %s" % inf if inf else "")
    return dict(type="names", any_of=vals), how

def callees_readings(name):
    raw = M.raw_callees(name)
    allnames = {r["callee"] for r in raw}
    act = {r["callee"] for r in raw if not r["inactive"]}
    c1 = sorted(n for n in allnames if n in F.funcs)
    c1a = sorted(n for n in act if n in F.funcs)
    c2 = sorted(n for n in allnames if n not in F.macros)
    c3 = sorted(allnames)
    exp, todo, seen = set(c1), [n for n in allnames if n in F.macros], set()
    while todo:
        m = todo.pop()
        if m in seen: continue
        seen.add(m)
        for n in M.macro_body_calls(m):
            if n in F.funcs: exp.add(n)
            elif n in F.macros: todo.append(n)
    c4 = sorted(exp)
    c5 = sorted(exp | set(c2))
    return [("repo functions called (cscope -2, within the ctags range of the definition)", c1),
            ("same, without calls under #if of an undefined macro", c1a),
            ("every called name that is not a repo macro (libc included)", c2),
            ("every called name, macros included", c3),
            ("repo functions, also reached through called macros (bodies expanded)", c4),
            ("that plus libc/non-macro names", c5)]

def callees(sp):
    vals, labs = uniq(nonempty(callees_readings(sp["name"])))
    return dict(type="names", any_of=vals), CS % 2 + "; " + " ;; ".join(labs)

def definition(sp):
    names = {sp["name"]} | ({sp["also"]} if sp.get("also") else set())
    locs = sorted({"%s:%d" % (t["file"], t["line"]) for t in F.tags if t["name"] in names and t["kind"] in sp["kinds"]})
    assert locs, sp
    return dict(type="locations", any_of=locs), "%s tags named %s of kind %s (every one accepted; rows must all be among them)" % (
        CT, "/".join(sorted(names)), "/".join(sp["kinds"]))

def includers(sp):
    h = sp["header"]
    assert h in F.files, h
    d = M.includers(h); t = M.transitive_includers(h); a = M.includers(h, active_only=True)
    rd = [("direct includers .c and .h", sorted(d)), ("direct .c only", sorted(x for x in d if x.endswith(".c"))),
          ("direct, #include under undefined-macro #if left out", sorted(a)),
          ("transitive through project headers", sorted(t)), ("transitive .c only", sorted(x for x in t if x.endswith(".c")))]
    return rd

def includers_item(sp):
    vals, labs = uniq(nonempty(includers(sp)))
    return dict(type="files", any_of=vals), "grep '#include' lines resolved (same dir, then root); " + " ;; ".join(labs)

def includes(sp):
    f = sp["file"]; inc = M.includes(f); ina = F.inactive_lines(f)
    b = lambda xs: sorted({os.path.basename(x) for x in xs})
    rd = [("every #include", b(n for n, q, l, r in inc)), ("quoted only", b(n for n, q, l, r in inc if q)),
          ("every #include not under an undefined-macro #if", b(n for n, q, l, r in inc if l not in ina)),
          ("quoted, active", b(n for n, q, l, r in inc if q and l not in ina)),
          ("headers that exist in the repository", b(r for n, q, l, r in inc if r)),
          ("every #include but config.h (generated, not in the repo)", b(n for n, q, l, r in inc if n != "config.h"))]
    if sp.get("transitive"):
        rd += [("transitive project headers", sorted(M.transitive_includes(f))),
               ("transitive with system headers", sorted(M.transitive_includes(f, system=True)))]
    vals, labs = uniq(nonempty(rd))
    return dict(type="headers", any_of=vals), "grep '#include' in %s (basenames); " % f + " ;; ".join(labs)

def file_functions(sp):
    ts = M.func_tags(file=sp["file"]); assert ts, sp
    ina = F.inactive_lines(sp["file"])
    if sp.get("static"):
        rd = [("static functions (incl. static inline)", sorted({t["name"] for t in ts if M.is_static(t)})),
              ("static, not inline", sorted({t["name"] for t in ts if M.is_static(t) and not M.is_inline(t)}))]
    else:
        rd = [("every ctags function", sorted({t["name"] for t in ts})),
              ("not under an undefined-macro #if", sorted({t["name"] for t in ts if t["line"] not in ina}))]
    vals, labs = uniq(nonempty(rd))
    return dict(type="names", any_of=vals), "%s kind function in %s; " % (CT, sp["file"]) + " ;; ".join(labs)

def file_macros(sp):
    f = sp["file"]; ts = [t for t in F.tags if t["file"] == f and t["kind"] == "macro"]
    ina = F.inactive_lines(f)
    guard = None
    for s in F.src[f]:
        m = re.match(r"\s*#\s*ifndef\s+(\w+)", s)
        if m: guard = m.group(1); break
    names = sorted({t["name"] for t in ts})
    rd = [("every #define", names), ("without the include guard %s" % guard, [n for n in names if n != guard]),
          ("not under an undefined-macro #if", sorted({t["name"] for t in ts if t["line"] not in ina})),
          ("active and no guard", sorted({t["name"] for t in ts if t["line"] not in ina and t["name"] != guard}))]
    vals, labs = uniq(nonempty(rd))
    return dict(type="names", any_of=vals), "%s kind macro in %s; " % (CT, f) + " ;; ".join(labs)

def file_structs(sp):
    f = sp["file"]
    tagsn = sorted({t["name"] for t in F.tags if t["file"] == f and t["kind"] == "struct" and not t["name"].startswith("__anon")})
    tds = sorted({t["name"] for t in F.tags if t["file"] == f and t["kind"] == "typedef" and t.get("typeref", "").startswith("struct:")})
    anon = sorted(set(tagsn) | {t["name"] for t in F.tags if t["file"] == f and t["kind"] == "typedef"
                                and t.get("typeref", "").startswith("struct:__anon")})
    rd = [("struct tags", tagsn), ("typedef names of structs", tds), ("both", sorted(set(tagsn) | set(tds))),
          ("struct tags, an anonymous struct named by its typedef", anon)]
    vals, labs = uniq(nonempty(rd))
    return dict(type="names", any_of=vals), "%s kinds struct/typedef(typeref struct:) in %s; " % (CT, f) + " ;; ".join(labs)

def unused(sp):
    f, static = sp["file"], sp.get("static", True)
    ts = [t for t in M.func_tags(file=f) if (M.is_static(t) if static else True) and t["name"] != "main"]
    scope = [f] if static else F.files
    texts = {g: an.strip_comments("\n".join(F.src[g])).split("\n") for g in scope}
    u1, u2 = [], []
    for t in sorted(ts, key=lambda t: t["name"]):
        n = t["name"]
        sites = [s for s in M.call_sites(n) if s["file"] in scope and s["caller"] != n]
        if not sites: u1.append(n)
        defl = {(x["file"], x["line"]) for x in F.tags if x["name"] == n and x["kind"] in ("function", "prototype")}
        pat = re.compile(r"\b%s\b" % re.escape(n))
        used = any(pat.search(s) and (g, i) not in defl for g in scope for i, s in enumerate(texts[g], 1))
        if not used: u2.append(n)
    rd = [("no cscope call site %s (self-calls ignored)" % ("in the file" if static else "anywhere"), sorted(set(u1))),
          ("name appears nowhere %s outside its definition/prototype lines (comment-stripped; pointers and tables count as uses)" % (
              "else in the file" if static else "in any .c/.h"), sorted(set(u2)))]
    if sp.get("reading") == "mention": rd = rd[1:]   # "never used": a table entry or a pointer is a use
    vals, labs = uniq(rd)
    return dict(type="names", any_of=vals), "%s %s functions of %s; " % (CT, "static" if static else "all", f) + " ;; ".join(labs)

def count_functions(sp):
    p = sp["path"]
    ts = [t for t in F.tags if t["kind"] == "function" and (t["file"] == p or (p.endswith("/") and t["file"].startswith(p)))]
    rd = [("every ctags function tag", len(ts)), (".c files only", len([t for t in ts if t["file"].endswith(".c")])),
          ("not under an undefined-macro #if", len([t for t in ts if t["line"] not in F.inactive_lines(t["file"])])),
          ("distinct names", len({t["name"] for t in ts}))]
    vals, labs = uniq(rd)
    return dict(type="count", any_of=vals), "%s kind function under %s; " % (CT, p) + " ;; ".join(labs)

def count_includers(sp):
    rd = [(l, len(v)) for l, v in includers(sp)]
    vals, labs = uniq(rd)
    return dict(type="count", any_of=vals), "count of the includer readings of %s: " % sp["header"] + " ;; ".join(labs)

def yesno(sp):
    rd = callees_readings(sp["caller"])
    ans = sorted({("yes" if sp["callee"] in v else "no") for l, v in rd})
    labs = ["%s: %s" % (l, "yes" if sp["callee"] in v else "no") for l, v in rd]
    return dict(type="yesno", callee=sp["callee"], any_of=ans), CS % 2 + " on %s; " % sp["caller"] + " ;; ".join(labs)

def field(sp):
    ms = [t for t in F.tags if t["kind"] == "member" and t["name"] == sp["member"]]
    tagsn = sorted({t["scope"].split(":", 1)[1] for t in ms if t.get("scope", "").startswith("struct:")})
    tds = sorted({t["name"] for t in F.tags if t["kind"] == "typedef" and t.get("typeref", "") in {"struct:" + x for x in tagsn}})
    rd = [("struct tags", tagsn), ("their typedef names", tds), ("both", sorted(set(tagsn) | set(tds)))]
    vals, labs = uniq(nonempty(rd))
    return dict(type="names", any_of=vals), "%s kind member named %s, scope struct:; " % (CT, sp["member"]) + " ;; ".join(labs)

def largest(sp):
    n = sp["n"]
    rd = []
    for lab, flt in (("every function", lambda t: True), (".c files only", lambda t: t["file"].endswith(".c"))):
        ts = sorted([t for t in F.tags if t["kind"] == "function" and t["end"] and flt(t)],
                    key=lambda t: (-(t["end"] - t["line"] + 1), t["name"]))
        sizes = [t["end"] - t["line"] + 1 for t in ts]
        if sizes[n - 1] == sizes[n]: continue   # tie at the cut: reading dropped
        rd.append((lab + " (sizes %s)" % sizes[:n + 1], [t["name"] for t in ts[:n]]))
    vals, labs = uniq(rd); assert vals
    return dict(type="names_ordered", any_of=vals), "%s end - line + 1, largest first; " % CT + " ;; ".join(labs)

def most_included(sp):
    n = sp["n"]
    rd = []
    for lab, keep, conly in (("quoted includes (config.h counts), includers .c+.h", lambda q, r: q, False),
                             ("quoted includes, .c includers", lambda q, r: q, True),
                             ("repo headers only, .c+.h", lambda q, r: bool(r), False),
                             ("repo headers only, .c", lambda q, r: bool(r), True),
                             ("system headers too, .c+.h", lambda q, r: True, False)):
        cnt = {}
        for f in F.files:
            if conly and not f.endswith(".c"): continue
            for h in {(r or nm) for nm, q, l, r in M.includes(f) if keep(q, r)}:
                cnt[os.path.basename(h)] = cnt.get(os.path.basename(h), 0) + 1
        top = sorted(cnt.items(), key=lambda x: (-x[1], x[0]))
        if top[n - 1][1] == top[n][1]: continue
        rd.append((lab + " (%s)" % top[:n + 1], [h for h, c in top[:n]]))
    vals, labs = uniq(rd); assert vals
    return dict(type="headers_ordered", any_of=vals), "grep '#include', files per header; " + " ;; ".join(labs)

def recursive(sp):
    out = set()
    for t in F.tags:
        if t["kind"] != "function": continue
    names = sorted({t["name"] for t in F.tags if t["kind"] == "function"})
    for nm in names:
        for r in F.cs(3, nm):
            enc = F.enclosing_function(r["file"], r["line"])
            if enc == nm and not F.in_define(r["file"], r["line"]): out.add(nm)
    return dict(type="names", any_of=[sorted(out)]), CS % 3 + " for every function: a site inside its own ctags range (direct self-calls; mutual recursion not counted)"

OPS = dict(callers=callers, callees=callees, definition=definition, includers=includers_item, includes=includes,
           file_functions=file_functions, file_macros=file_macros, file_structs=file_structs, unused=unused,
           count_functions=count_functions, count_includers=count_includers, yesno=yesno, field=field,
           largest=largest, most_included=most_included, recursive=recursive)

def code_item(kind, text, sp):
    if sp["op"] == "decline":
        return dict(kind=kind, text=text, expect="decline", how="must decline: " + sp["why"])
    if sp["op"] == "misspelt":
        ok = sp["name"] in F.funcs or sp["name"] in F.files
        assert ok, sp
        exp, how = OPS[sp["intended"]["op"]](sp["intended"])
        wrong_name = [w for w in re.findall(r"[\w./]+", text) if w.lower() == sp["name"].lower() or w not in ("who", "calls")]
        return dict(kind=kind, text=text, expect=dict(type="misspelt", intended=sp["name"], correct=exp),
                    how="right: a decline (non-zero exit or no rows; 'did you mean %s' noted) or the correct answer for %s: %s" % (
                        sp["name"], sp["name"], how))
    exp, how = OPS[sp["op"]](sp)
    return dict(kind=kind, text=text, expect=exp, how=how)

# ---------------------------------------------------------------- dwim targets
def check_target(t):
    m = re.fullmatch(r"(.+):(\d+)-(\d+)", t)
    if m:
        f, a, b = m.group(1), int(m.group(2)), int(m.group(3))
        n = len(open(os.path.join(FX, f)).read().split("\n"))
        assert f in F.files and 1 <= a <= b <= n, t
        return "git ls-files %s; wc -l (%d lines)" % (f, n)
    if t in subprocess.run(["git", "-C", FX, "ls-files"], capture_output=True, text=True).stdout.split():
        return "git ls-files %s" % t
    if os.path.isdir(os.path.join(FX, t)):
        return "directory %s in the fixture" % t
    if any(x["name"] == t for x in F.tags):
        return "ctags tag %s (%s)" % (t, ",".join(sorted({x["kind"] for x in F.tags if x["name"] == t})))
    r = subprocess.run(["git", "-C", FX, "grep", "-q", "-F", t], capture_output=True)
    assert r.returncode == 0, t
    return "git grep -F %s finds it" % t

def dwim_item(kind, line, verbs, targets, note):
    it = dict(kind=kind, text=line, expect=dict(verb=verbs))
    hows = ["intent (my judgment): verb %s" % "|".join(verbs) if verbs else "unrelated: confidence < 0.6 or verb none"]
    if targets:
        it["expect"]["target"] = targets
        hows += ["target %s: %s" % (t, check_target(t)) for t in targets if not re.fullmatch(r".+:\d+-\d+", t) or True]
    if note: it["note"] = note
    it["how"] = "; ".join(hows)
    return it

# ---------------------------------------------------------------- build and split
items = []
for i, (k, t, sp) in enumerate(S.CODE):
    it = code_item(k, t, sp); it["id"] = "c%02d" % i; it["part"] = "code"; items.append(it)
for i, (k, t, v, tg, note) in enumerate(S.DWIM):
    it = dwim_item(k, t, v, tg, note); it["id"] = "d%03d" % i; it["part"] = "dwim"; items.append(it)

rng = random.Random(SEED)
dev, held, flip = [], [], 0
for key in sorted({(x["part"], x["kind"]) for x in items}):
    grp = [x for x in items if (x["part"], x["kind"]) == key]
    rng.shuffle(grp)
    h = len(grp) // 2 + (len(grp) % 2 and flip)
    if len(grp) % 2: flip ^= 1
    dev += grp[h:]; held += grp[:h]

os.makedirs(DEV, exist_ok=True); os.makedirs(HELD, exist_ok=True)
def dump(fn, xs):
    with open(fn, "w") as f:
        for x in sorted(xs, key=lambda x: x["id"]): f.write(json.dumps(x, sort_keys=True) + "\n")
for part in ("code", "dwim"):
    dump(os.path.join(DEV, "%s_dev.jsonl" % part), [x for x in dev if x["part"] == part])
    dump(os.path.join(HELD, "%s_heldout.jsonl" % part), [x for x in held if x["part"] == part])
print("dev %d, held-out %d" % (len(dev), len(held)))
shutil.rmtree(TMP)
