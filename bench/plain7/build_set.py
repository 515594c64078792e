#!/usr/bin/env python3
"""build_set.py --src ITEMS.py: compute every expected answer with ctags / cscope / grep / git on a
fresh fixture (make_fixture.sh), split dev / held-out (seeded, stratified by kind) and write
  /work/plain7/dev/dwim_dev.jsonl, /work/plain7/dev/code_dev.jsonl
  /root/heldout7/dwim_heldout.jsonl, /root/heldout7/code_heldout.jsonl
The item source (texts + how-specs of BOTH halves) lives in /root/heldout7/items_src.py because it
contains held-out texts; this script holds only the machinery. No expected value is typed by hand:
dwim verbs are the intent of the line by construction, its target is the literal in the line and is
checked to exist in the fixture; code answers come from the tool calls recorded in each item's `how`."""
import fnmatch, json, os, random, re, subprocess, sys, tempfile, collections

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 7707
args = sys.argv[1:]
SRC = args[args.index("--src") + 1] if "--src" in args else "/root/heldout7/items_src.py"
DEVDIR = os.path.join(HERE, "dev")
HELDDIR = "/root/heldout7"

FX = tempfile.mkdtemp(prefix="lua7-")
subprocess.run([os.path.join(HERE, "make_fixture.sh"), FX], check=True)

def sh(cmd):
    return subprocess.run(["bash", "-c", cmd], cwd=FX, capture_output=True, text=True).stdout

SRCFILES = sh("git ls-files '*.c' '*.h'").split()
subprocess.run(["cscope", "-b", "-q", "-k"] + SRCFILES, cwd=FX, check=True)
CTAGS_CMD = "ctags --output-format=json --fields=+nekSZ --kinds-C=+p -o - " + " ".join(SRCFILES)
TAGS = [t for t in (json.loads(l) for l in sh(CTAGS_CMD).splitlines() if l.startswith("{")) if t.get("_type") == "tag"]
FUNCS = {t["name"] for t in TAGS if t["kind"] == "function"}
MACROS = {t["name"] for t in TAGS if t["kind"] == "macro"}
LINES = {f: open(os.path.join(FX, f), encoding="latin-1").read().split("\n") for f in SRCFILES}
TESTFILES = lambda f: f == "ltests.c" or f.startswith("testes/")

CSTMP = tempfile.mkdtemp(prefix="cstmp-")
_CS = {}
def cscope(n, sym):
    """cscope -d -L -N SYM; cscope fails now and then (rc 1: 'Could not create private temp dir /tmp/cscope.PID'),
    so it runs with a private TMPDIR, is retried on a non-zero exit and must succeed."""
    if (n, sym) in _CS: return _CS[(n, sym)]
    for attempt in range(10):
        r = subprocess.run(["cscope", "-d", "-L", "-%d" % n, sym], cwd=FX, capture_output=True, text=True,
                           env=dict(os.environ, TMPDIR=CSTMP))
        if r.returncode == 0: break
    else:
        raise SystemExit("cscope failed: %s %s" % (sym, r.stderr))
    rows = []
    for l in r.stdout.splitlines():
        p = l.split(" ", 3)
        if len(p) == 4: rows.append((p[0], p[1], int(p[2]), p[3]))
    _CS[(n, sym)] = rows
    return rows

def in_define(f, n):
    L = LINES[f]; i = n - 1
    while i > 0 and L[i - 1].rstrip().endswith("\\"): i -= 1
    return re.match(r"\s*#\s*define\b", L[i]) is not None

PROTO = re.compile(r"^\s*(static\s+|LUAI_FUNC\s+|LUA_API\s+|LUALIB_API\s+|LUAMOD_API\s+|extern\s+)[^=]*\)\s*;\s*(/\*.*)?$")

def call_sites(sym):
    """cscope -3: (plain function callers, macro names whose body calls sym)."""
    direct, via = set(), set()
    for f, fn, n, text in cscope(3, sym):
        if in_define(f, n):
            m = re.match(r"\s*#\s*define\s+(\w+)", LINES[f][n - 1]) or None
            # the macro containing the line: cscope names it in the function field
            via.add(fn)
        elif PROTO.match(text) or fn == "<global>":
            continue
        else:
            direct.add((fn, f))
    return direct, via

def callers_readings(sym, file_filter=None):
    direct, via = call_sites(sym)
    through = set(direct); seen = set(); todo = list(via)
    while todo:
        m = todo.pop()
        if m in seen: continue
        seen.add(m)
        d2, v2 = call_sites(m)
        through |= d2; todo += list(v2)
    def names(s, notests):
        return sorted({fn for fn, f in s if (not notests or not TESTFILES(f)) and (file_filter is None or f == file_filter)})
    reads = []
    for r in (names(direct, False), names(direct, True), names(through, False), names(through, True)):
        if r not in reads: reads.append(r)
    how = "cscope -d -L -3 %s (sites outside #define bodies and prototypes; enclosing function)" % sym
    how += " ;; through macros: + callers (cscope -3) of the macros whose body calls it (%s), recursively" % ",".join(sorted(via))
    how += " ;; each with and without ltests.c/testes/"
    if file_filter: how += " ;; only call sites in %s" % file_filter
    return reads, how

def macro_body_funcs(m, depth=0, seen=None):
    seen = seen if seen is not None else set()
    out = set()
    if m in seen or depth > 6: return out
    seen.add(m)
    for t in TAGS:
        if t["kind"] == "macro" and t["name"] == m:
            body = "\n".join(LINES[t["path"]][t["line"] - 1:t.get("end", t["line"])])
            body = re.sub(r"^\s*#\s*define\s+\w+(\([^)]*\))?", "", body)
            for idn in set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", body)):
                if idn in FUNCS: out.add(idn)
                elif idn in MACROS: out |= macro_body_funcs(idn, depth + 1, seen)
    return out

def callees_readings(sym):
    names = sorted({c for f, c, n, t in cscope(2, sym)})
    funcs = sorted(n for n in names if n in FUNCS)
    ext = sorted(n for n in names if n not in MACROS)
    thr = set(funcs)
    for n in names:
        if n in MACROS and n not in FUNCS: thr |= macro_body_funcs(n)
    thr_ext = sorted(thr | set(ext))
    reads = []
    for r in (funcs, ext, names, sorted(thr), thr_ext):
        if r not in reads: reads.append(r)
    how = ("cscope -d -L -2 %s: names defined as functions (ctags) ;; + names not defined as macros (libc etc.) ;; "
           "every name cscope lists (macros too) ;; functions reached through the macros called (macro bodies, recursively, ctags/grep) ;; that + libc") % sym
    return reads, how

def definition(sym, kinds):
    locs = sorted({"%s:%d" % (t["path"], t["line"]) for t in TAGS if t["name"] == sym and t["kind"] in kinds})
    return locs, "ctags --fields=+nekSZ: %s of kind %s (any of these locations; a function's line may be off by one for a split signature)" % (sym, "/".join(kinds))

INC = {}
for f in SRCFILES:
    INC[f] = []
    for l in LINES[f]:
        m = re.match(r'\s*#\s*include\s*([<"])([^">]+)[">]', l)
        if m: INC[f].append((m.group(1), m.group(2)))

def includers(h):
    direct = sorted(f for f in SRCFILES if any(q == '"' and x == h for q, x in INC[f]))
    closure = set(direct); changed = True
    while changed:
        changed = False
        for f in SRCFILES:
            if f not in closure and any(q == '"' and (x in closure) for q, x in INC[f]):
                closure.add(f); changed = True
    reads = []
    for r in (direct, [x for x in direct if x.endswith(".c")], sorted(closure), sorted(x for x in closure if x.endswith(".c"))):
        if r not in reads: reads.append(r)
    return reads, "grep -l '#include \"%s\"' over git ls-files '*.c' '*.h' ;; only the .c files ;; transitive closure through project headers ;; its .c files" % h

def includes(f):
    allh = sorted({x for q, x in INC[f]})
    proj = sorted({x for q, x in INC[f] if q == '"'})
    reads = [allh] + ([proj] if proj != allh else [])
    return reads, "grep '#include' %s: every header (quoted and <system>) ;; quoted project headers only" % f

def depends(f):
    direct_all = sorted({x for q, x in INC[f]})
    direct_proj = sorted({x for q, x in INC[f] if q == '"'})
    seen, todo, sysh = set(), [x for q, x in INC[f] if q == '"'], {x for q, x in INC[f] if q == "<"}
    while todo:
        h = todo.pop()
        if h in seen or h not in INC: continue
        seen.add(h)
        for q, x in INC[h]:
            if q == '"': todo.append(x)
            else: sysh.add(x)
    reads = []
    for r in (direct_all, direct_proj, sorted(seen), sorted(seen | sysh)):
        if r not in reads: reads.append(r)
    return reads, ("grep '#include' %s: every header ;; quoted project headers ;; project headers reached transitively (grep per header) ;; "
                   "transitive + system headers" % f)

def is_static(t):
    return t["pattern"].startswith("/^static")
def is_sinline(t):
    return t["pattern"].startswith("/^l_sinline")

def file_funcs(f, static=None):
    fs = [t for t in TAGS if t["kind"] == "function" and t["path"] == f]
    if static is None:
        return [sorted({t["name"] for t in fs})], "ctags kind function in %s" % f
    a = sorted({t["name"] for t in fs if is_static(t)})
    b = sorted({t["name"] for t in fs if is_static(t) or is_sinline(t)})
    return ([a, b] if a != b else [a]), "ctags functions in %s whose definition starts 'static' ;; or 'static' / 'l_sinline' (= static inline)" % f

def strip_comments(s):
    return re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: "\n" * m.group(0).count("\n"), s, flags=re.S)

def dead_statics(f=None):
    files = [f] if f else [x for x in SRCFILES if x.endswith(".c")]
    reads = {}
    for mode in ("static", "static+sinline"):
        for rule in ("calls", "refs"):
            out = []
            for x in files:
                code = strip_comments("\n".join(LINES[x]))
                for t in TAGS:
                    if t["kind"] != "function" or t["path"] != x or t["name"] == "main": continue
                    if not (is_static(t) or (mode != "static" and is_sinline(t))): continue
                    nm = t["name"]
                    if rule == "calls":
                        used = any(cf == x for cf, fn, n, tx in cscope(3, nm) if not PROTO.match(tx))
                    else:
                        occ = len(re.findall(r"\b%s\b" % re.escape(nm), code))
                        decl = sum(1 for u in TAGS if u["name"] == nm and u["path"] == x and u["kind"] in ("function", "prototype"))
                        used = occ > decl
                    if not used: out.append(nm)
            reads[(mode, rule)] = sorted(set(out))
    uniq = []
    for r in reads.values():
        if r not in uniq: uniq.append(r)
    return uniq, ("static functions (ctags; 'static' ;; also 'l_sinline') in %s with no call site in their file (cscope -3) ;; "
                  "or whose name appears nowhere else in the comment-stripped file (grep -w; tables and function pointers count)" % (f or "every .c file"))

def struct_field(fld):
    s = sorted({t["scope"] for t in TAGS if t["kind"] == "member" and t["name"] == fld and not t.get("scope", "").startswith("__anon")})
    return [s], "ctags kind member named %s: its struct/union scope" % fld

def macros_in(f):
    ms = [t for t in TAGS if t["kind"] == "macro" and t["path"] == f]
    a = sorted({t["name"] for t in ms})
    guard = {t["name"] for t in ms if re.fullmatch(r"\w+_h", t["name"])}
    b = sorted(set(a) - guard)
    return ([a, b] if a != b else [a]), "ctags kind macro in %s ;; without the include guard" % f

def macros_glob(pat):
    return [sorted({t["name"] for t in TAGS if t["kind"] == "macro" and fnmatch.fnmatchcase(t["name"], pat)})], "ctags kind macro, names matching glob %s (every file)" % pat

def structs_in(f):
    s = sorted({t["name"] for t in TAGS if t["kind"] == "struct" and t["path"] == f and not t["name"].startswith("__anon")})
    su = sorted({t["name"] for t in TAGS if t["kind"] in ("struct", "union") and t["path"] == f and not t["name"].startswith("__anon")})
    return ([s, su] if s != su else [s]), "ctags kind struct in %s (named) ;; structs and unions" % f

def count_funcs(f):
    return [len({t["name"] for t in TAGS if t["kind"] == "function" and t["path"] == f})], "ctags kind function in %s | count" % f

def recursive(f):
    fs = sorted({t["name"] for t in TAGS if t["kind"] == "function" and t["path"] == f})
    g = {x: {c for cf, c, n, tx in cscope(2, x) if c in fs} for x in fs}
    direct = sorted(x for x in fs if x in g[x])
    # functions on a cycle (mutual recursion), within the file
    def reach(a):
        seen, st = set(), list(g[a])
        while st:
            y = st.pop()
            if y in seen: continue
            seen.add(y); st += list(g[y])
        return seen
    cyc = sorted(x for x in fs if x in reach(x))
    return ([direct, cyc] if direct != cyc else [direct]), "cscope -2 per function of %s: calls itself directly ;; lies on a call cycle inside the file" % f

def largest(f, n):
    fs = sorted(((t["end"] - t["line"] + 1, t["name"]) for t in TAGS if t["kind"] == "function" and (f is None or t["path"] == f) and "end" in t), reverse=True)
    assert len(fs) > n and fs[n - 1][0] != fs[n][0], "tie at the cut"
    return [[x[1] for x in fs[:n]]], "ctags end - line + 1 for the functions of %s, top %d in order (%s)" % (f or "every file", n, fs[:n + 1])

def most_included(n):
    reads, notes = [], []
    for sysh in (False, True):
        for only_c in (False, True):
            cnt = collections.Counter()
            for f in SRCFILES:
                if only_c and not f.endswith(".c"): continue
                for q, x in sorted(set(INC[f])):
                    if q == '"' or sysh: cnt[x] += 1
            top = sorted(cnt.items(), key=lambda kv: (-kv[1], kv[0]))   # deterministic order among equal counts
            if top[n - 1][1] == top[n][1]:
                notes.append("tie at the cut, reading dropped"); continue
            r = [x for x, c in top[:n]]
            notes.append(str(top[:n + 1]))
            if r not in reads: reads.append(r)
    assert reads
    return reads, ("grep '#include' per file, count including files per header, top %d in order: quoted headers, includers .c and .h ;; "
                   "includers .c only ;; <system> headers too ;; both (%s)" % (n, " | ".join(notes)))

CALC = dict(callers=lambda s: callers_readings(s["sym"], s.get("file")), callees=lambda s: callees_readings(s["sym"]),
            definition=lambda s: definition(s["sym"], s["kinds"]), includers=lambda s: includers(s["hdr"]),
            includes=lambda s: includes(s["file"]), depends=lambda s: depends(s["file"]), file_functions=lambda s: file_funcs(s["file"], s.get("static")),
            dead_statics=lambda s: dead_statics(s.get("file")), struct_field=lambda s: struct_field(s["field"]),
            macros=lambda s: macros_in(s["file"]), macros_glob=lambda s: macros_glob(s["pattern"]),
            structs=lambda s: structs_in(s["file"]), count=lambda s: count_funcs(s["file"]),
            recursive=lambda s: recursive(s["file"]), largest=lambda s: largest(s.get("file"), s["n"]),
            most_included=lambda s: most_included(s["n"]))
TYPE = dict(callers="names", callees="names", definition="locations", includers="files", includes="headers", depends="headers",
            file_functions="names", dead_statics="names", struct_field="names", macros="names", macros_glob="names",
            structs="names", count="count", recursive="names", largest="names_ordered", most_included="headers_ordered")

def check_target(t):
    """the target is the literal of the line; check it names something in the fixture."""
    if re.fullmatch(r"[\w./-]+:\d+-\d+", t):
        f, r = t.rsplit(":", 1); a, b = map(int, r.split("-"))
        assert f in LINES and b <= len(LINES[f]), t
        return "git ls-files %s; wc -l >= %d" % (f, b)
    if t == "." or os.path.isdir(os.path.join(FX, t)): return "test -d %s" % t
    if os.path.isfile(os.path.join(FX, t)): return "git ls-files %s" % t
    if any(x["name"] == t for x in TAGS): return "ctags: %s is defined" % t
    assert sh("git grep -c -e '%s' | head -1" % t.replace("'", "")).strip(), "target not found: " + t
    return "git grep -e '%s' matches" % t

exec(open(SRC).read())   # defines DWIM (list of dicts) and CODE (list of dicts)

dwim = []
for i, it in enumerate(DWIM):
    d = {"id": "d%03d" % (i + 1), "text": it["text"], "kind": it["kind"]}
    if it["kind"] == "unrelated":
        d["expect"] = "none"; d["how"] = "not an intent: confidence must stay below 0.6"
    else:
        d["expect"] = {"verb": it["verb"]}
        hows = ["verb: intent of the line (%s)" % it["kind"]]
        if it.get("target"):
            tg = it["target"] if isinstance(it["target"], list) else [it["target"]]
            d["expect"]["target"] = tg
            hows.append("target " + " | ".join(check_target(x) for x in tg))
        if it.get("missing"): d["note"] = "bare verb: the target is missing (parse should say so)"
        d["how"] = " ;; ".join(hows)
    dwim.append(d)

code = []
for i, it in enumerate(CODE):
    d = {"id": "c%03d" % (i + 1), "text": it["text"], "kind": it["calc"]}
    if it["calc"] == "decline":
        d["expect"] = "decline"; d["how"] = "must decline: " + it["why"]
    else:
        reads, how = CALC[it["calc"]](it)
        if not it.get("empty_ok"):
            reads = [r for r in reads if r not in ([], [[]])]   # the question presumes an answer: an empty reading is not kept
            assert reads, (it["text"], "no non-empty reading")
        d["expect"] = {"type": TYPE[it["calc"]], "any_of": reads}
        d["how"] = how
    code.append(d)

def split(items):
    rnd = random.Random(SEED)
    by = collections.defaultdict(list)
    for it in items: by[it["kind"]].append(it)
    dev, held = [], []
    flip = 0
    for k in sorted(by):
        xs = by[k][:]; rnd.shuffle(xs)
        h = len(xs) // 2 + (len(xs) % 2) * flip
        if len(xs) % 2: flip ^= 1
        held += xs[:h]; dev += xs[h:]
    key = lambda x: x["id"]
    return sorted(dev, key=key), sorted(held, key=key)

for name, items in (("dwim", dwim), ("code", code)):
    dev, held = split(items)
    with open(os.path.join(DEVDIR, "%s_dev.jsonl" % name), "w") as f:
        for x in dev: f.write(json.dumps(x) + "\n")
    with open(os.path.join(HELDDIR, "%s_heldout.jsonl" % name), "w") as f:
        for x in held: f.write(json.dumps(x) + "\n")
    print(name, "total", len(items), "dev", collections.Counter(x["kind"] for x in dev), "held", collections.Counter(x["kind"] for x in held))
subprocess.run(["rm", "-rf", FX, CSTMP])
