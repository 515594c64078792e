#!/usr/bin/env python3
"""plain17 set builder (machinery only; the item texts live in /root/heldout17/items_src.py because they hold
held-out texts).  python3 build_set.py --src /root/heldout17/items_src.py [--dump FILE]

Builds a fresh Janet fixture (make_fixture.sh), a line-preserving "normalised" copy of its C files in which every
JANET_CORE_FN(NAME, "usage", "doc") { ... } is rewritten as the function the macro expands to
(Janet NAME(int32_t argc, Janet *argv) { ... }), runs Universal Ctags and cscope over that copy, and computes
every expected answer from their output and from grep.  Nothing is typed by hand: each item carries `how` (the
commands) and `expect` (accepted readings, any_of).  Then splits each part by a seeded draw stratified by kind:
DEV -> /work/plain17/dev/, HELD-OUT -> /root/heldout17/.
"""
import collections, json, os, random, re, shutil, subprocess, sys, tempfile, importlib.util

HERE = os.path.dirname(os.path.abspath(__file__))
PIN = "284990a04303a40e6ce42cf33e049d23873b5535"
SEED = 1717
DEV_DIR = os.path.join(HERE, "dev")
HELD_DIR = "/root/heldout17"
CTAGS = ["ctags", "--output-format=json", "--fields=+neSZzp", "--fields-C=+{properties}{macrodef}",
         "--kinds-C=+px", "--languages=C", "--langmap=C:.c.h", "-f", "-"]
CSCOPE_NOTE = "cscope 15.9 -b -c -q -k (uncompressed: the compressed database gave truncated -2 answers) over the normalised copy, queried with -d -L -2/-3"

args = sys.argv[1:]
src = args[args.index("--src") + 1] if "--src" in args else os.path.join(HELD_DIR, "items_src.py")
dump = args[args.index("--dump") + 1] if "--dump" in args else None
spec = importlib.util.spec_from_file_location("items_src", src)
S = importlib.util.module_from_spec(spec); spec.loader.exec_module(S)

WORK = tempfile.mkdtemp(prefix="b17-")
FX = os.path.join(WORK, "fx")
NORM = os.path.join(WORK, "norm")
subprocess.run([os.path.join(HERE, "make_fixture.sh"), FX], check=True)
assert subprocess.run(["git", "-C", FX, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip() == PIN

def sh(argv, cwd=None, env=None):
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)

ALL = sorted(sh(["git", "ls-files", "*.c", "*.h"], cwd=FX).stdout.split())
SRC = [f for f in ALL if f.startswith("src/")]
SCOPES = {"src": set(SRC), "all": set(ALL)}

# ---------------------------------------------------------------- normalised copy
CORE_FN = re.compile(r"^JANET_CORE_FN\(\s*(\w+)\s*,", re.M)

def close_paren(text, i):
    """index of the ')' closing the '(' at text[i], skipping string and char literals"""
    depth, j, n = 0, i, len(text)
    while j < n:
        c = text[j]
        if c in "\"'":
            q = c; j += 1
            while j < n and text[j] != q:
                j += 2 if text[j] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0: return j
        j += 1
    raise ValueError("unbalanced")

def normalise(text):
    out, pos, count = [], 0, 0
    for m in CORE_FN.finditer(text):
        if m.start() < pos: continue
        end = close_paren(text, m.start() + len("JANET_CORE_FN"))
        span = text[m.start():end + 1]
        out.append(text[pos:m.start()])
        out.append("Janet %s(int32_t argc, Janet *argv)" % m.group(1) + "\n" * span.count("\n"))
        pos = end + 1; count += 1
    out.append(text[pos:])
    return "".join(out), count

NORMALISED = 0
for f in ALL:
    os.makedirs(os.path.dirname(os.path.join(NORM, f)), exist_ok=True)
    t = open(os.path.join(FX, f), encoding="utf-8", errors="surrogateescape").read()
    nt, c = normalise(t)
    NORMALISED += c
    assert nt.count("\n") == t.count("\n")
    open(os.path.join(NORM, f), "w", encoding="utf-8", errors="surrogateescape").write(nt)
LINES = {f: open(os.path.join(NORM, f), encoding="utf-8", errors="surrogateescape").read().split("\n") for f in ALL}

# ---------------------------------------------------------------- ctags
TAGS = [json.loads(l) for l in sh(CTAGS + ALL, cwd=NORM).stdout.splitlines() if l.startswith("{")]
RAW_TAGS = [json.loads(l) for l in sh(CTAGS + ALL, cwd=FX).stdout.splitlines() if l.startswith("{")]
def tags(kind=None, name=None, path=None, T=None):
    return [t for t in (T or TAGS) if (kind is None or t["kind"] == kind or (isinstance(kind, (list, tuple, set)) and t["kind"] in kind))
            and (name is None or t["name"] == name) and (path is None or t["path"] == path)]
FUNCS = collections.defaultdict(list)
for t in tags("function"): FUNCS[t["name"]].append(t)
MACROS = {t["name"] for t in tags("macro")}

# ---------------------------------------------------------------- cscope (private TMPDIR, retried)
open(os.path.join(WORK, "files"), "w").write("\n".join(ALL) + "\n")
CSDB = os.path.join(WORK, "cscope.out")
CSENV = dict(os.environ, TMPDIR=os.path.join(WORK, "cstmp")); os.makedirs(CSENV["TMPDIR"], exist_ok=True)
for _ in range(5):
    if sh(["cscope", "-b", "-c", "-q", "-k", "-i", os.path.join(WORK, "files"), "-f", CSDB], cwd=NORM, env=CSENV).returncode == 0: break
else: sys.exit("cscope build failed")
_cs = {}
def cs(q, sym):
    key = (q, sym)
    if key not in _cs:
        for _ in range(5):
            r = sh(["cscope", "-d", "-f", CSDB, "-L", "-%d" % q, sym], cwd=NORM, env=CSENV)
            if r.returncode == 0: break
        else: sys.exit("cscope query failed: %s %s" % (q, sym))
        rows = []
        for l in r.stdout.splitlines():
            p = l.split(" ", 3)
            if len(p) >= 3: rows.append((p[0], p[1], int(p[2]), p[3] if len(p) > 3 else ""))
        _cs[key] = rows
    return _cs[key]

def is_proto_line(f, line, sym):
    return any(t["path"] == f and t["line"] == line and t["name"] == sym and t["kind"] == "prototype" for t in TAGS)

def call_sites(sym, scope):
    """cscope -3 call sites of sym: (file, enclosing function, line), outside #define bodies, prototypes, globals"""
    out = []
    for f, fn, ln, txt in cs(3, sym):
        if f not in SCOPES[scope]: continue
        if fn == "<global>" or txt.lstrip().startswith("#") or fn in MACROS and fn not in FUNCS: continue
        if fn in FUNCS and not any(f == p and s <= ln <= e for p, s, e in body_range(fn)): continue
        if is_proto_line(f, ln, sym): continue
        out.append((f, fn, ln))
    return out

def macro_callers(sym, scope, seen=None):
    """macros whose #define body calls sym (recursively), from cscope -3 lines that are #define bodies"""
    seen = seen if seen is not None else set()
    for f, fn, ln, txt in cs(3, sym):
        if f in SCOPES[scope] and txt.lstrip().startswith("#") and fn in MACROS and fn not in seen:
            seen.add(fn); macro_callers(fn, scope, seen)
    return seen

def callers_set(sym, scope, through_macros=False, in_file=None):
    names = {fn for f, fn, ln in call_sites(sym, scope) if in_file is None or f == in_file}
    if through_macros:
        for m in macro_callers(sym, scope):
            names |= {fn for f, fn, ln in call_sites(m, scope) if in_file is None or f == in_file}
    return names

def caller_readings(sym, in_file=None):
    rs = []
    for scope in ("src", "all"):
        for tm in (False, True):
            rs.append(sorted(callers_set(sym, scope, tm, in_file)))
    return uniq(rs)

def uniq(rs, keep_empty=False):
    out = []
    for r in rs:
        if (r or keep_empty) and r not in out: out.append(r)
    return out

def body_range(sym):
    return [(t["path"], t["line"], t.get("end", t["line"])) for t in FUNCS.get(sym, [])]

def callees_raw(sym):
    """cscope -2 rows, kept only inside a ctags body of sym (guards against cscope running past a function's end)"""
    rng = body_range(sym)
    return [(f, c, ln) for f, c, ln, txt in cs(2, sym) if not rng or any(f == p and s <= ln <= e for p, s, e in rng)]

def macro_expand_funcs(name, seen):
    """functions called through a macro body, macro bodies expanded recursively"""
    out = set()
    for f, c, ln, txt in cs(2, name):
        if c in seen: continue
        seen.add(c)
        if c in MACROS and c not in FUNCS: out |= macro_expand_funcs(c, seen)
        else: out.add(c)
    return out

def callee_readings(sym):
    names = {c for f, c, ln in callees_raw(sym)}
    repo = {c for c in names if c in FUNCS}
    nonmacro = {c for c in names if c not in MACROS or c in FUNCS}
    exp = set(repo)
    for m in names:
        if m in MACROS and m not in FUNCS: exp |= macro_expand_funcs(m, {m})
    exp_repo = {c for c in exp if c in FUNCS}
    exp_nonmacro = {c for c in exp if c not in MACROS or c in FUNCS} | (nonmacro)
    return uniq([sorted(repo), sorted(nonmacro), sorted(names), sorted(exp_repo), sorted(exp_nonmacro)])

# ---------------------------------------------------------------- includes
INC = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
def includes_of(f):
    out = []
    for l in LINES[f]:
        m = INC.match(l)
        if m: out.append((m.group(1) == "<", m.group(2)))
    return out

def resolve(f, name):
    cands = [os.path.normpath(os.path.join(os.path.dirname(f), name))] + \
            [os.path.normpath(os.path.join(d, name)) for d in ("src/include", "src/core", "src/conf")]
    for c in cands:
        if c in LINES: return c
    b = [g for g in ALL if os.path.basename(g) == os.path.basename(name)]
    return b[0] if len(b) == 1 else None

def direct_includers(h, scope):
    return {f for f in SCOPES[scope] if any(not sysinc and resolve(f, n) == h for sysinc, n in includes_of(f))}

def trans_includers(h, scope):
    seen, todo = set(), [h]
    while todo:
        x = todo.pop()
        for f in direct_includers(x, scope):
            if f not in seen:
                seen.add(f)
                if f.endswith(".h"): todo.append(f)
    return seen

def project_deps(f, transitive=True, angle=False):
    """quoted includes resolved to repository files, followed; angle=True also <h> that resolve to one (<janet.h>)"""
    seen, todo = [], [f]
    while todo:
        x = todo.pop(0)
        for sysinc, n in includes_of(x):
            if sysinc and not angle: continue
            r = resolve(x, n)
            if r and r not in seen and r != f:
                seen.append(r)
                if transitive: todo.append(r)
    return seen

# ---------------------------------------------------------------- definitions / files
def is_static(t):
    return "static" in (t.get("properties") or "")

def file_funcs(f, vis=None, raw=False):
    T = tags("function", path=f, T=RAW_TAGS if raw else None)
    if vis == "static": T = [t for t in T if is_static(t)]
    if vis == "public": T = [t for t in T if not is_static(t)]
    return sorted({t["name"] for t in T})

def strip_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)

def dead_statics(f):
    stat = file_funcs(f, "static")
    a = sorted(n for n in stat if not any(ff == f for ff, fn, ln in call_sites(n, "all")))
    text = strip_comments("\n".join(LINES[f]))
    b = []
    for n in stat:
        defs = {t["line"] for t in tags(["function", "prototype"], name=n, path=f)}
        uses = [i + 1 for i, l in enumerate(text.split("\n")) if re.search(r"\b%s\b" % re.escape(n), l) and i + 1 not in defs]
        if not uses: b.append(n)
    return a, sorted(b)

def recursive(f):
    fns = file_funcs(f)
    graph = {}
    for n in fns:
        rng = [(p, s, e) for p, s, e in body_range(n) if p == f]
        graph[n] = {c for ff, c, ln in callees_raw(n) if ff == f and c in fns and any(s <= ln <= e for p, s, e in rng)}
    selfrec = sorted(n for n in fns if n in graph[n])
    # on a cycle within the file: n reaches itself
    def reach(n):
        seen, todo = set(), list(graph[n])
        while todo:
            x = todo.pop()
            if x not in seen: seen.add(x); todo += list(graph.get(x, ()))
        return seen
    cyc = sorted(n for n in fns if n in reach(n))
    return selfrec, cyc

# ---------------------------------------------------------------- expectations
def expect_code(sp):
    op = sp["op"]
    if op == "decline": return "decline", "must decline (%s)" % sp["why"]
    s = sp.get("sym")
    if op == "callers":
        rs = caller_readings(s, sp.get("in"))
        return {"type": "names", "any_of": rs}, ("cscope -L -3 %s over the normalised copy; enclosing functions of call "
            "sites outside #define bodies and prototypes; scopes src/ and all files; with and without callers through "
            "macros whose body calls it%s" % (s, "; only call sites in %s" % sp["in"] if sp.get("in") else ""))
    if op == "callees":
        return {"type": "names", "any_of": callee_readings(s)}, ("cscope -L -2 %s: repo functions ;; non-macro names "
            "(libc too) ;; every name ;; functions through expanded macro bodies ;; that + libc" % s)
    if op == "count_callers":
        rs = [len(r) for r in caller_readings(s)]
        if sp.get("sites"):
            for scope in ("src", "all"): rs.append(len(call_sites(s, scope)))
        return {"type": "count", "any_of": sorted(set(rs))}, "number of distinct callers (cscope -3 %s, readings as callers)%s" % (
            s, " ;; number of call sites" if sp.get("sites") else "")
    if op == "count_file_functions":
        f = sp["file"]
        return {"type": "count", "any_of": sorted({len(file_funcs(f)), len(file_funcs(f, raw=True))})}, (
            "ctags functions in %s, normalised (JANET_CORE_FN expanded) ;; raw ctags (macro-defined ones unseen)" % f)
    if op == "def":
        locs = sorted({"%s:%d" % (t["path"], t["line"]) for t in TAGS if t["name"] == s and t["kind"] in sp["kinds"]})
        return {"type": "locations", "any_of": locs}, "ctags tags named %s of kind %s" % (s, "/".join(sp["kinds"]))
    if op == "includers":
        h = sp["hdr"]; rs = []
        for scope in ("src", "all"):
            d, t = direct_includers(h, scope), trans_includers(h, scope)
            rs += [sorted(d), sorted(x for x in d if x.endswith(".c")), sorted(t), sorted(x for x in t if x.endswith(".c"))]
        return {"type": "files", "any_of": uniq(rs)}, ("grep '#include' (quoted, resolved to %s): direct .c+.h ;; .c only ;; "
            "transitive ;; transitive .c only; scopes src/ and all files" % h)
    if op == "includes":
        f = sp["file"]; inc = includes_of(f)
        return {"type": "headers", "any_of": uniq([sorted({os.path.basename(n) for si, n in inc}),
                                                  sorted({os.path.basename(n) for si, n in inc if not si})])}, (
            "grep '#include' %s: every header ;; quoted only (basenames)" % f)
    if op == "depends":
        f = sp["file"]
        direct_all = sorted({os.path.basename(n) for si, n in includes_of(f)})
        tp = project_deps(f)
        tp_b = sorted({os.path.basename(x) for x in tp})
        with_sys = sorted(set(tp_b) | {os.path.basename(n) for x in [f] + tp for si, n in includes_of(x) if si})
        ta_b = sorted({os.path.basename(x) for x in project_deps(f, angle=True)})
        return {"type": "headers", "any_of": uniq([tp_b, ta_b, with_sys, direct_all])}, (
            "grep '#include' %s followed through project headers: transitive quoted ;; transitive with <janet.h>-style "
            "headers found in the repository ;; + system headers ;; direct only" % f)
    if op == "file_functions":
        f, v = sp["file"], sp.get("vis")
        return {"type": "names", "any_of": uniq([file_funcs(f, v), file_funcs(f, v, raw=True)])}, (
            "ctags functions%s in %s (properties static), normalised ;; raw ctags" % (" (%s)" % v if v else "", f))
    if op == "file_defines":
        f = sp["file"]
        fn = file_funcs(f)
        var = sorted({t["name"] for t in tags("variable", path=f)})
        mac = sorted({t["name"] for t in tags("macro", path=f)})
        typ = sorted({t["name"] for t in tags(["struct", "typedef", "enum", "union"], path=f) if not t["name"].startswith("__anon")})
        rs = [fn, file_funcs(f, raw=True), sorted(set(fn) | set(var)), sorted(set(fn) | set(var) | set(mac)),
              sorted(set(fn) | set(var) | set(mac) | set(typ)), sorted(set(fn) | set(mac))]
        return {"type": "names", "any_of": uniq(rs)}, ("ctags over %s: functions ;; raw functions ;; + file-level variables ;; "
            "+ macros ;; + types ;; functions + macros" % f)
    if op == "dead_statics":
        a, b = dead_statics(sp["file"])
        return {"type": "names", "any_of": uniq([a, b], keep_empty=True)}, ("static functions of %s with no cscope -3 call "
            "site in the file ;; whose name appears nowhere else in the comment-stripped file (empty reading kept)" % sp["file"])
    if op == "recursive":
        a, b = recursive(sp["file"])
        return {"type": "names", "any_of": uniq([a, b], keep_empty=True)}, ("cscope -2 per function of %s: calls itself ;; "
            "on a call cycle within the file" % sp["file"])
    if op == "callers2":
        rs = []
        for scope in ("src", "all"):
            for tm in (False, True):
                l1 = callers_set(s, scope, tm)
                l2 = set().union(*[callers_set(x, scope, tm) for x in l1]) if l1 else set()
                rs += [sorted(l1 | l2), sorted(l2)]
        return {"type": "names", "any_of": uniq(rs)}, "cscope -3 twice from %s: levels 1+2 ;; level 2 only; scopes/macro readings as callers" % s
    if op == "callees2":
        rs = []
        for i in range(5):  # same reading at both levels
            l1 = set(callee_readings(s)[min(i, len(callee_readings(s)) - 1)])
            l2 = set()
            for x in l1:
                if x in FUNCS:
                    r = callee_readings(x); l2 |= set(r[min(i, len(r) - 1)]) if r else set()
            rs += [sorted(l1 | l2), sorted(l2)]
        return {"type": "names", "any_of": uniq(rs)}, "cscope -2 twice from %s (same callee reading at both levels): levels 1+2 ;; level 2 only" % s
    if op == "macros_in":
        f = sp["file"]; ms = [t for t in tags("macro", path=f)]
        allm = sorted({t["name"] for t in ms})
        guard = {t["name"] for t in ms if re.search(r"_H(_DEFINED)?$", t["name"], re.I) and not (t.get("macrodef") or "").strip()}
        return {"type": "names", "any_of": uniq([allm, sorted(set(allm) - guard)])}, "ctags macros in %s: with ;; without the include guard" % f
    if op == "members":
        T = [t for t in TAGS if t["kind"] == "member" and t.get("scope") == s and t.get("scopeKind") in ("struct", None)]
        return {"type": "names", "any_of": [sorted({t["name"] for t in T})]}, "ctags members whose scope is struct %s" % s
    if op == "struct_with_field":
        T = [t for t in TAGS if t["kind"] == "member" and t["name"] == sp["field"]]
        st = sorted({t["scope"] for t in T})
        tds = sorted({t2["name"] for t2 in tags("typedef") for x in st if (t2.get("typeref") or "") == "struct:" + x})
        return {"type": "names", "any_of": uniq([st, tds, sorted(set(st) | set(tds))])}, (
            "ctags members named %s: their struct ;; its typedef ;; both" % sp["field"])
    if op == "structs_in":
        f = sp["file"]
        st = sorted({t["name"] for t in tags("struct", path=f) if not t["name"].startswith("__anon")})
        un = sorted({t["name"] for t in tags("union", path=f) if not t["name"].startswith("__anon")})
        tdstruct = sorted({t["name"] for t in tags("typedef", path=f) if (t.get("typeref") or "").startswith("struct:")})
        return {"type": "names", "any_of": uniq([st, sorted(set(st) | set(un)), sorted(set(st) | set(tdstruct)),
                                                 sorted(set(st) | set(un) | set(tdstruct))])}, (
            "ctags structs in %s (named) ;; + unions ;; + typedef names of structs ;; all" % f)
    if op == "typedefs_in":
        f = sp["file"]
        return {"type": "names", "any_of": [sorted({t["name"] for t in tags("typedef", path=f)})]}, "ctags typedefs in %s" % f
    if op == "largest":
        rs = []
        for scope in ("src", "all"):
            L = sorted(((t.get("end", t["line"]) - t["line"] + 1, t["name"]) for t in tags("function") if t["path"] in SCOPES[scope]),
                       key=lambda x: (-x[0], x[1]))
            n = sp["n"]
            if len(L) > n and L[n - 1][0] == L[n][0]: continue  # tie at the cut: reading dropped
            rs.append([x[1] for x in L[:n]])
        return {"type": "names_ordered", "any_of": uniq(rs)}, "ctags end - line + 1 over functions (normalised), src/ ;; all files; top %d" % sp["n"]
    if op == "most_included":
        rs = []
        for scope in ("src", "all"):
            for conly in (False, True):
                for withsys in (False, True):
                    c = collections.Counter()
                    for f in SCOPES[scope]:
                        if conly and not f.endswith(".c"): continue
                        for h in {os.path.basename(n) for si, n in includes_of(f) if withsys or not si}: c[h] += 1
                    L = sorted(c.items(), key=lambda x: (-x[1], x[0]))
                    n = sp["n"]
                    if len(L) > n and L[n - 1][1] == L[n][1]: continue
                    rs.append([x[0] for x in L[:n]])
        return {"type": "headers_ordered", "any_of": uniq(rs)}, ("count includer files per header basename: quoted ;; "
            "with <system>; .c+.h ;; .c only; src/ ;; all files (a reading with a tie at the cut is dropped)")
    raise ValueError(op)

# ---------------------------------------------------------------- dwim target checks
def check_target(t):
    m = re.match(r"^(.+):(\d+)-(\d+)$", t)
    if m:
        f, a, b = m.group(1), int(m.group(2)), int(m.group(3))
        return f in LINES and 1 <= a <= b <= len(LINES[f]), "wc -l %s >= %d" % (f, b)
    if t in LINES or t in ALL: return True, "git ls-files %s" % t
    if any(x.startswith(t.rstrip("/") + "/") for x in sh(["git", "ls-files"], cwd=FX).stdout.split()): return True, "git ls-files %s/" % t
    if " " in t:  # a question: its identifiers must exist
        ids = re.findall(r"\b\w*_\w*\b", t)
        return all(sh(["git", "grep", "-qw", i], cwd=FX).returncode == 0 for i in ids), "git grep -w " + " ".join(ids)
    if any(x["name"] == t for x in TAGS): return True, "ctags %s" % t
    return sh(["git", "grep", "-q", "-F", t], cwd=FX).returncode == 0, "git grep -F %s" % t

# ---------------------------------------------------------------- items
code, dwim = [], []
for i, (kind, text, sp) in enumerate(S.CODE, 1):
    exp, how = expect_code(sp)
    if exp != "decline":
        assert exp["any_of"], (text, "no reading")
    code.append(dict(id="c%02d" % i, part="code", kind=kind, text=text, expect=exp, how=how, spec=sp))
for i, (kind, text, verbs, targets, note) in enumerate(S.DWIM, 1):
    it = dict(id="d%03d" % i, part="dwim", kind=kind, text=text)
    if kind == "unrelated":
        it["expect"] = {"verb": None, "max_confidence": 0.6}; it["how"] = "names no verb: top confidence must stay below 0.6"
    else:
        it["expect"] = {"verb": verbs}
        hows = ["verbs from dwim_help.txt / tools.txt"]
        if targets:
            for t in targets:
                ok, h = check_target(t)
                assert ok, (text, t, h)
                hows.append(h)
            it["expect"]["target"] = targets
        it["how"] = "; ".join(hows)
    if note: it["note"] = note
    dwim.append(it)

def split(items):
    rnd = random.Random(SEED)
    dev, held, flip = [], [], 0
    for kind in sorted({x["kind"] for x in items}):
        group = [x for x in items if x["kind"] == kind]
        rnd.shuffle(group)
        h = len(group) // 2
        if len(group) % 2: h += flip; flip ^= 1
        dev += group[:h]; held += group[h:]
    key = lambda x: x["id"]
    return sorted(dev, key=key), sorted(held, key=key)

os.makedirs(DEV_DIR, exist_ok=True); os.makedirs(HELD_DIR, exist_ok=True)
for name, items in (("code", code), ("dwim", dwim)):
    dev, held = split(items)
    for d, fn, xs in ((DEV_DIR, "%s_dev.jsonl" % name, dev), (HELD_DIR, "%s_heldout.jsonl" % name, held)):
        with open(os.path.join(d, fn), "w") as f:
            for x in xs: f.write(json.dumps(x, sort_keys=True, ensure_ascii=False) + "\n")
    print(name, "dev", dict(collections.Counter(x["kind"] for x in dev)), "held", dict(collections.Counter(x["kind"] for x in held)))
print("files: %d C/H (%d under src/), JANET_CORE_FN rewritten: %d, ctags tags: %d" % (len(ALL), len(SRC), NORMALISED, len(TAGS)))
if dump:
    with open(dump, "w") as f:
        for x in code + dwim: f.write(json.dumps(x, ensure_ascii=False) + "\n")
shutil.rmtree(WORK)
