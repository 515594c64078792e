#!/usr/bin/env python3
"""search_codebase on redis: plain-words questions whose answers come from cscope, ctags and
grep (never from quarry), written before the code they measure was changed.
usage: redis_code.py [--aside] [--tree DIR] [--verbose]
The tree defaults to /tmp/trees/redis (Redis 7.2.4's src/ as a git repository); the script
exits 0 with a note when it is absent. It is not part of make test. Questions marked
"aside" were kept apart until the end (--aside scores them; default: the others).
Written by the same hand as the code it measures: report it as such.
Outcomes: right / wrong / declined (exit 2 with a reason). A wrong answer is worse than a
decline."""
import json, os, re, subprocess, sys, tempfile, collections

args = sys.argv[1:]
ASIDE = "--aside" in args
VERBOSE = "--verbose" in args
TREE = args[args.index("--tree") + 1] if "--tree" in args else "/tmp/trees/redis"
HERE = os.path.dirname(os.path.abspath(__file__))
Q = os.path.abspath(os.environ.get("QUARRY") or os.path.join(HERE, "..", "..", "build", "quarry"))
if not os.path.isdir(os.path.join(TREE, ".git")):
    print("redis_code: no redis tree at %s (skipped)" % TREE)
    sys.exit(0)

# a copy, so that the index is ours and the tree untouched
WORK = tempfile.mkdtemp(prefix="qredis-")
subprocess.run(["cp", "-r", TREE, os.path.join(WORK, "r")], check=True)
R = os.path.join(WORK, "r")
ENV = {k: v for k, v in os.environ.items() if not k.startswith("QUARRY_")}
ENV.update(HOME=WORK, XDG_CONFIG_HOME=WORK, LC_ALL="C", TZ="UTC")
FILES = sorted(f for f in subprocess.run(["git", "ls-files", "*.c", "*.h"], cwd=R,
                                         capture_output=True, text=True).stdout.split()
               if os.path.isfile(os.path.join(R, f)))

# ---- facts from ctags, cscope and grep ----
tags = subprocess.run(["ctags", "--if0=yes", "--fields=+neKSZ", "--c-kinds=+p", "-o", "-"] + FILES, cwd=R,
                      capture_output=True, text=True).stdout
TAGS = []
for l in tags.splitlines():
    p = l.split("\t")
    f = {"name": p[0], "static": False}
    for x in p[3:]:
        if ":" in x:
            k, v = x.split(":", 1); f[k] = v
        else:
            f["kind"] = x
    # ctags's "file:" field (file scope; ctags leaves it off statics in headers)
    f["static"] = "file" in f or bool(re.match(r"/\^\s*static\b", p[2]))
    f["file"] = p[1]
    TAGS.append(f)
FUNCS = [t for t in TAGS if t.get("kind") == "function"]
open(os.path.join(WORK, "cs.files"), "w").write("\n".join(FILES) + "\n")
subprocess.run(["cscope", "-b", "-q", "-k", "-i", os.path.join(WORK, "cs.files"), "-f",
                os.path.join(WORK, "cs.out")], cwd=R, check=True)

def cscope(n, name):
    out = subprocess.run(["cscope", "-d", "-f", os.path.join(WORK, "cs.out"), "-L%d" % n, name],
                         cwd=R, capture_output=True, text=True).stdout
    return [l.split(" ", 3) for l in out.splitlines() if l.strip()]

SRC = {}
def text(f):
    if f not in SRC:
        SRC[f] = open(os.path.join(R, f), errors="replace").read()
    return SRC[f]

def code_only(s):
    """the text with comments and string/char literals blanked (lines kept)"""
    return re.sub(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                  lambda m: re.sub(r"[^\n]", " ", m.group(0)), s, flags=re.S)

def includers(h):
    rx = re.compile(r'^\s*#\s*include\s*"([^"]*)"', re.M)
    return sorted(f for f in FILES if any(os.path.basename(x) == h for x in rx.findall(text(f))))

def includes(f):
    """(every header f includes, those outside any #if): either is a right answer"""
    every, plain, depth = set(), set(), 0
    for l in text(f).split("\n"):
        m = re.match(r'\s*#\s*(\w+)\s*[<"]?([^>"]*)', l)
        if not m:
            continue
        if m.group(1) in ("if", "ifdef", "ifndef"):
            depth += 1
        elif m.group(1) == "endif":
            depth -= 1
        elif m.group(1) == "include":
            every.add(os.path.basename(m.group(2)))
            if depth == 0 or (depth == 1 and f.endswith(".h")):
                plain.add(os.path.basename(m.group(2)))
    return sorted(every), sorted(plain)

DEFINED = None
DEAD = {}
def dead_lines(f):
    """lines of f under #if 0 or #ifdef / #if defined(X) of a macro no file #defines: code
    the build leaves out as the tree stands"""
    global DEFINED
    if DEFINED is None:
        DEFINED = set()
        for g in FILES:
            DEFINED |= set(re.findall(r"^\s*#\s*define\s+(\w+)", text(g), re.M))
    if f in DEAD:
        return DEAD[f]
    dead, stack = set(), []  # stack of (this branch dead, decided by us)
    for i, l in enumerate(text(f).split("\n"), 1):
        m = re.match(r"\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)", l)
        if m:
            d, rest = m.group(1), m.group(2).strip()
            if d in ("if", "ifdef", "ifndef"):
                off = None
                if d == "ifdef" and rest.split() and rest.split()[0] not in DEFINED:
                    off = True
                elif d == "if" and re.fullmatch(r"0", rest.split("/")[0].strip()):
                    off = True
                elif d == "if" and re.fullmatch(r"defined\s*\(?\s*(\w+)\s*\)?", rest.split("/")[0].strip()):
                    off = re.fullmatch(r"defined\s*\(?\s*(\w+)\s*\)?", rest.split("/")[0].strip()).group(1) not in DEFINED or None
                stack.append([bool(off), off is not None])
            elif d == "else" and stack:
                if stack[-1][1]:
                    stack[-1][0] = not stack[-1][0]
            elif d == "elif" and stack:
                stack[-1] = [False, False]
            elif d == "endif" and stack:
                stack.pop()
            continue
        if any(x[0] for x in stack):
            dead.add(i)
    DEAD[f] = dead
    return dead

def callers(name):
    """the functions cscope says call name (a function or a macro), outside disabled code"""
    return sorted({r[1] for r in cscope(3, name) if r[1] not in ("<global>", "defined")
                   and int(r[2]) not in dead_lines(r[0])})

MEMBERS = {t["name"] for t in TAGS if t.get("kind") == "member"}
KNOWN = {t["name"] for t in TAGS if t.get("kind") in ("function", "prototype", "macro")}
def callees(name):
    """file -> what cscope says the definition there calls (less calls through struct
    members), for each definition ctags sees outside a disabled test block"""
    defs = {t["file"] for t in FUNCS if t["name"] == name}
    return {f: sorted({r[1] for r in cscope(2, name) if r[0] == f
                       and not (r[1] in MEMBERS and r[1] not in KNOWN)}) for f in defs}

def functions(file):
    return sorted({t["name"] for t in FUNCS if t["file"] == file})

def structs(file):
    return sorted({t["name"] for t in TAGS if t["file"] == file and t.get("kind") == "struct"
                   and not t["name"].startswith("__anon")})

def defn(name):
    return sorted("%s:%s" % (t["file"], t["line"]) for t in TAGS
                  if t["name"] == name and t.get("kind") not in ("prototype", "member", "local"))

CODE = {}
def idents(f):
    """identifier -> [offsets] of the file's code (comments and strings left out, but a
    string that is one identifier, as dlsym looks a name up, counted)"""
    if f not in CODE:
        d = collections.defaultdict(list)
        for m in re.finditer(r"\b[A-Za-z_]\w*\b", code_only(text(f))):
            d[m.group(0)].append(m.start())
        for m in re.finditer(r'"([A-Za-z_]\w*)"', text(f)):
            d[m.group(1)].append(m.start(1))
        CODE[f] = d
    return CODE[f]

NL = {}
def line_of(f, off):
    if f not in NL:
        NL[f] = [m.start() for m in re.finditer("\n", text(f))]
    import bisect
    return bisect.bisect_left(NL[f], off) + 1

EXTRA = collections.defaultdict(list)
def unused(static_only, file=None):
    """functions whose name appears in no code outside their own definitions and
    prototypes: in their file and the files that #include it (a static), or anywhere"""
    inc = collections.defaultdict(set)
    rx = re.compile(r'^\s*#\s*include\s*"([^"]*)"', re.M)
    alltext = list(FILES)
    for f in FILES:
        for x in rx.findall(text(f)):
            inc[os.path.basename(x)].add(f)
            # a table or .c it includes that ctags and git ls-files '*.[ch]' do not list
            for cand in (os.path.join(os.path.dirname(f), x), x):
                if cand not in FILES and cand not in alltext and not x.endswith(".h") and \
                        os.path.isfile(os.path.join(R, cand)):
                    alltext.append(cand)
                    inc[os.path.basename(cand)]  # nothing includes it by another name
                    EXTRA[f].append(cand)
    pastes = set()
    for f in alltext:
        c = code_only(text(f))
        pastes |= {("pre", m) for m in re.findall(r"(\w+)\s*##", c)}
        pastes |= {("suf", m) for m in re.findall(r"##\s*(\w+)", c)}
    out = set()
    OWN = collections.defaultdict(list)
    for u in TAGS:
        if u.get("kind") in ("function", "prototype"):
            OWN[u["name"]].append((u["file"], int(u["line"]), int(u.get("end", u["line"]))))
    for t in FUNCS:
        if static_only and not t["static"]:
            continue
        if file and t["file"] != file:
            continue
        if t["static"]:  # its file and every file that includes it, transitively
            scope, todo = {t["file"]}, [t["file"]]
            while todo:
                for g in inc.get(os.path.basename(todo.pop()), set()):
                    if g not in scope:
                        scope.add(g); todo.append(g)
        else:
            scope = set(FILES)
        scope = set(scope) | {x for f in scope for x in EXTRA.get(f, [])}
        names = [t["name"]] + [t["name"][len(p):] for k, p in pastes
                               if k == "pre" and t["name"].startswith(p) and len(p) < len(t["name"])] \
                            + [t["name"][:-len(p)] for k, p in pastes
                               if k == "suf" and t["name"].endswith(p) and len(p) < len(t["name"])]
        if any(n in idents(f) for f in scope for n in names[1:]):
            continue  # made by pasting ("RM_ ## name") where the rest is written
        used = False
        for f in scope:
            for off in idents(f).get(t["name"], []):
                ln = line_of(f, off)
                if any(uf == f and a <= ln <= b for uf, a, b in OWN.get(t["name"], [])):
                    continue
                used = True
                break
            if used:
                break
        if not used:
            out.add("%s@%s" % (t["name"], t["file"]))
    return sorted(out)

# ---- the questions (written before the change; "aside" ones kept apart) ----
A = True
QS = [
    # includers
    ("what files include server.h", "files", lambda: includers("server.h")),
    ("which files include ae.h", "files", lambda: includers("ae.h")),
    ("who includes anet.h", "files", lambda: includers("anet.h")),
    ("files that #include sds.h", "files", lambda: includers("sds.h"), A),
    ("what includes ae_epoll.c", "files", lambda: includers("ae_epoll.c")),
    # a file's dependencies
    ("what does ae.c include", "headers", lambda: includes("ae.c")),
    ("dependencies of anet.c", "headers", lambda: includes("anet.c")),
    ("what are the dependencies of adlist.c", "headers", lambda: includes("adlist.c"), A),
    ("which headers does zmalloc.c pull in", "headers", lambda: includes("zmalloc.c")),
    ("what does intset.c depend on", "headers", lambda: includes("intset.c"), A),
    # callers, through macros too
    ("what calls serverLog", "names~", lambda: callers("serverLog")),
    ("who calls zmalloc", "names~", lambda: callers("zmalloc")),
    ("where is createClient called", "names", lambda: callers("createClient")),
    ("callers of aeCreateEventLoop", "names", lambda: callers("aeCreateEventLoop")),
    ("who calls serverPanic", "names~", lambda: callers("serverPanic"), A),
    ("which functions call listCreate", "names~", lambda: callers("listCreate"), A),
    ("who uses anetTcpServer", "names", lambda: callers("anetTcpServer")),
    # callees, per definition
    ("what does createClient call", "callees", lambda: callees("createClient")),
    ("what does aeProcessEvents call", "callees", lambda: callees("aeProcessEvents")),
    ("what functions does sdsnewlen call", "callees", lambda: callees("_sdsnewlen"), A),
    ("what does main call", "per_def", lambda: ["redis-benchmark.c", "redis-cli.c", "server.c"]),
    ("what does aeApiPoll call", "per_def", lambda: ["ae_epoll.c"], A),
    # names that are not there
    ("who calls zmallocc", "dym", lambda: "zmalloc"),
    ("what does sdsNewLen call", "dym", lambda: "sdsnewlen"),
    ("where is listcreate defined", "dym", lambda: "listCreate", A),
    ("who calls aeCreateEventloop", "dym", lambda: "aeCreateEventLoop"),
    # definitions
    ("where is aeCreateEventLoop defined", "location", lambda: defn("aeCreateEventLoop")),
    ("where is serverLog defined", "location", lambda: defn("serverLog")),
    ("definition of anetTcpServer", "location", lambda: defn("anetTcpServer"), A),
    # never called
    ("static functions nobody calls", "unused", lambda: unused(True)),
    ("which functions in ae.c are never called", "unused", lambda: unused(False, "ae.c")),
    ("unused functions in adlist.c", "unused", lambda: unused(False, "adlist.c")),
    ("which static functions in t_string.c are never called", "unused",
     lambda: unused(True, "t_string.c"), A),
    ("dead code in anet.c", "unused", lambda: unused(False, "anet.c"), A),
    # (added after the change: every function, where .def tables and ## pastes matter)
    ("functions nobody calls", "unused", lambda: unused(False)),
    # lists and counts
    ("functions in adlist.c", "names", lambda: functions("adlist.c")),
    ("what functions are defined in ae_epoll.c", "names", lambda: functions("ae_epoll.c")),
    ("how many functions are in ae.c", "count", lambda: len(functions("ae.c"))),
    ("structs defined in ae.h", "names", lambda: structs("ae.h"), A),
]

subprocess.run([Q, "code", "index"], cwd=R, env=ENV, capture_output=True)

def ask(q):
    r = subprocess.run([Q, "tool", "search_codebase", "--question", q, "--format", "json",
                        "--limit", "10000"], cwd=R, env=ENV, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr

def near(got, exp, tol):
    g, e = set(got), set(exp)
    return len(g ^ e) <= tol * max(len(e), 1)

def score(kind, exp, rc, out, err):
    if kind == "dym":
        if rc != 0 and re.search(r"did you mean[^\n]*\b%s\b" % re.escape(exp), out + err):
            return "right", ""
        return ("wrong" if rc == 0 else "declined"), (out + err)[:200]
    if rc == 2 or (rc != 0 and not out.strip().startswith("{\"how")):
        if kind == "per_def" and re.search(r"\b(%s)\b" % "|".join(map(re.escape, exp)), out + err):
            return "right", "declined naming the candidates"
        return "declined", (out + err).strip()[:200]
    try:
        d = json.loads(out)
    except Exception:
        return "wrong", "unparseable " + out[:100]
    rows = d.get("rows", [])
    if kind == "files":
        got = sorted({r.get("file") for r in rows})
        return ("right" if got == exp else "wrong"), "got %d want %d: %s" % (
            len(got), len(exp), sorted(set(got) ^ set(exp))[:8])
    if kind == "headers":
        got = sorted({os.path.basename(str(r.get("header"))) for r in rows})
        ok = set(exp[1]) <= set(got) <= set(exp[0])
        return ("right" if ok else "wrong"), "extra %s missing %s" % (
            sorted(set(got) - set(exp[0])), sorted(set(exp[1]) - set(got)))
    if kind in ("names", "names~"):
        names = sorted({r.get("caller") or r.get("name") for r in rows})
        ok = names == exp if kind == "names" else near(names, exp, 0.05)
        return ("right" if ok else "wrong"), "got %d want %d: +%s -%s" % (
            len(names), len(exp), sorted(set(names) - set(exp))[:6], sorted(set(exp) - set(names))[:6])
    if kind == "callees":
        by = collections.defaultdict(set)
        for r in rows:
            by[r.get("file")] |= {r.get("callee")} | ({r["via"]} if r.get("via") else set())
        ok = set(by) == set(exp) and all(len(by[f] ^ set(exp[f])) <= 0.2 * len(exp[f]) for f in exp)
        return ("right" if ok else "wrong"), "; ".join("%s +%s -%s" % (f, sorted(by[f] - set(exp.get(f, [])))[:6], sorted(set(exp.get(f, [])) - by[f])[:6]) for f in sorted(set(by) | set(exp), key=str))
    if kind == "per_def":
        files = {r.get("file") for r in rows}
        ok = rows and None not in files and files == set(exp)
        return ("right" if ok else "wrong"), "files %s" % sorted(map(str, files))
    if kind == "location":
        got = sorted("%s:%s" % (r.get("file"), r.get("line")) for r in rows
                     if str(r.get("kind")).lower() not in ("declaration",))
        return ("right" if got == exp else "wrong"), "got %s want %s" % (got, exp)
    if kind == "unused":
        got = sorted({"%s@%s" % (r.get("name"), r.get("file")) for r in rows})
        return ("right" if got == exp else "wrong"), "got %d want %d: +%s -%s" % (
            len(got), len(exp), sorted(set(got) - set(exp))[:6], sorted(set(exp) - set(got))[:6])
    if kind == "count":
        nums = [v for r in rows for v in r.values() if isinstance(v, int)]
        return ("right" if len(rows) == 1 and nums == [exp] else "wrong"), "got %s want %s" % (nums, exp)
    return "wrong", "unknown kind"

tally = collections.Counter()
for item in QS:
    q, kind, truth = item[0], item[1], item[2]
    aside = len(item) > 3 and item[3]
    if aside != ASIDE:
        continue
    exp = truth()
    rc, out, err = ask(q)
    oc, detail = score(kind, exp, rc, out, err)
    tally[oc] += 1
    if VERBOSE or oc != "right":
        print("%-8s %-55s %s" % (oc, q, detail))
n = sum(tally.values())
print("redis_code %s: %d right, %d wrong, %d declined of %d (written by the same hand)" % (
    "aside" if ASIDE else "dev", tally["right"], tally["wrong"], tally["declined"], n))
subprocess.run(["rm", "-rf", WORK])
