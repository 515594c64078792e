"""Fact extraction over the nginx fixture (ctags JSON, cscope, grep). Imported by build_set.py."""
import json, os, re, subprocess, collections, tempfile
FX = None
def setup(fx):
    global FX, FILES, TAGS, CS, CSTMP
    FX = fx
    FILES = subprocess.run(["git", "-C", fx, "ls-files", "*.c", "*.h"], capture_output=True, text=True, check=True).stdout.split()
    lst = os.path.join(tempfile.mkdtemp(prefix="b13-"), "files"); open(lst, "w").write("\n".join(FILES) + "\n")
    out = subprocess.run(["ctags", "--output-format=json", "--fields=+nekSZ", "--kinds-C=+p", "-L", lst, "-f", "-"],
                         cwd=fx, capture_output=True, text=True, check=True).stdout
    TAGS = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    CSTMP = tempfile.mkdtemp(prefix="cst-"); CS = os.path.join(CSTMP, "cscope.out")
    for _ in range(5):
        r = subprocess.run(["cscope", "-b", "-q", "-k", "-i", lst, "-f", CS], cwd=fx, env=dict(os.environ, TMPDIR=CSTMP))
        if r.returncode == 0: break
    return FILES

def cscope(mode, name):
    for _ in range(5):
        r = subprocess.run(["cscope", "-d", "-f", CS, "-L", "-%d" % mode, name], cwd=FX, capture_output=True, text=True,
                           env=dict(os.environ, TMPDIR=CSTMP))
        if r.returncode == 0: break
    rows = []
    for l in r.stdout.splitlines():
        p = l.split(" ", 3)
        if len(p) == 4: rows.append((p[0], p[1], int(p[2]), p[3]))
    return rows

def tags(kind=None, name=None, path=None):
    return [t for t in TAGS if (kind is None or t["kind"] in ((kind,) if isinstance(kind, str) else kind))
            and (name is None or t["name"] == name) and (path is None or t["path"] == path)]

FUNCS = None
def funcs():
    global FUNCS
    if FUNCS is None:
        FUNCS = collections.defaultdict(list)
        for t in tags("function"): FUNCS[t["name"]].append(t)
    return FUNCS
def macros():
    m = collections.defaultdict(list)
    for t in tags("macro"): m[t["name"]].append(t)
    return m

def func_at(path, line):
    """enclosing ctags function of path:line, or None"""
    for t in tags("function", path=path):
        if t["line"] <= line <= t.get("end", t["line"]): return t["name"]
    return None

def macro_at(path, line):
    for t in tags("macro", path=path):
        if t["line"] <= line <= t.get("end", t["line"]): return t["name"]
    return None

def callers(name, via_macros=False, exclude=(), infile=None, _seen=None):
    """functions whose body calls `name` (cscope -3 sites inside a ctags function span); with via_macros also the
    callers of each macro whose body calls name, recursively."""
    _seen = _seen or set()
    out = set()
    for f, enc, ln, txt in cscope(3, name):
        if any(f.startswith(e) for e in exclude): continue
        if infile and f != infile: continue
        fn = func_at(f, ln)
        if fn: out.add(fn)
        elif via_macros:
            m = macro_at(f, ln)
            if m and m not in _seen:
                _seen.add(m); out |= callers(m, True, exclude, infile, _seen)
    return out

def callees(name, path=None):
    """cscope -2 names; split into repo functions, macros, others (libc)"""
    rows = cscope(2, name)
    if path: rows = [r for r in rows if r[0] == path]
    names = set(r[1] for r in rows)
    F, M = funcs(), macros()
    return names, set(n for n in names if n in F), set(n for n in names if n in M), set(n for n in names if n not in M)

def expand_macro_calls(names, depth=0):
    """functions reached through called macros: names in macro bodies (cscope -2 on the macro)."""
    F, M = funcs(), macros()
    out = set()
    for n in names:
        if n in F: out.add(n)
        if n in M and depth < 6:
            sub = set(r[1] for r in cscope(2, n))
            out |= expand_macro_calls(sub - {n}, depth + 1)
    return out

INC = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
def includes_of(path):
    txt = open(os.path.join(FX, path), errors="replace").read()
    return [(q, h) for q, h in INC.findall(txt)]

def includers(header):
    base = os.path.basename(header)
    out = []
    for f in FILES:
        if any(os.path.basename(h) == base for q, h in includes_of(f)): out.append(f)
    return out

def strip_comments(s):
    return re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), s, flags=re.S)
