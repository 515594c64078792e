#!/usr/bin/env python3
"""Independent code facts for the kvlite fixture (run in the fixture's work tree).
universal-ctags gives definitions (name, kind, file, line, end, scope); a comment/string-stripped
body scan gives calls (an identifier followed by '('). Output: one value per line.
usage: codeq.py callers NAME [direct|macro]     functions whose body calls NAME (macro: also through a macro that calls NAME)
       codeq.py callees NAME [direct|macro|withmacros|all|expanded] [FILE]
       codeq.py defs NAME [KIND]                 file:line of definitions (functions, structs, macros, enums)
       codeq.py includes FILE [nosys]            what FILE #includes (as written)
       codeq.py includers BASENAME              files that #include it
       codeq.py funcs FILE [static]              functions defined in FILE
       codeq.py structs [FILE]                   struct names
       codeq.py macros FILE [noguard]            macros defined in FILE
       codeq.py unused [withmain|withptr|withboth]  functions nothing calls or refers to"""
import json, os, re, subprocess, sys

def ctags():
    files = subprocess.run(["git", "ls-files", "*.c", "*.h"], capture_output=True, text=True).stdout.split()
    out = subprocess.run(["ctags", "--output-format=json", "--fields=+neKzS", "--kinds-c=+p", "--languages=C",
                          "--langmap=C:.c.h", "-o", "-"] + files, capture_output=True, text=True).stdout
    return [json.loads(l) for l in out.splitlines() if l.startswith("{")], files

TAGS, FILES = ctags()
SRC = {f: open(f).read() for f in FILES}

def strip(s):
    s = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), s, flags=re.S)
    s = re.sub(r"//[^\n]*", "", s)
    s = re.sub(r'"(\\.|[^"\\])*"', '""', s)
    s = re.sub(r"'(\\.|[^'\\])*'", "''", s)
    return s

FUNCS = [t for t in TAGS if t.get("kind") == "function"]
MACROS = [t for t in TAGS if t.get("kind") == "macro"]
FUNC_NAMES = {t["name"] for t in FUNCS}
KEYWORDS = {"if", "while", "for", "switch", "return", "sizeof", "do", "else"}

def body(t):
    lines = strip(SRC[t["path"]]).split("\n")
    text = "\n".join(lines[t["line"] - 1: t["end"]])
    i = text.find("{")
    return text[i:] if i >= 0 else ""

def called(text):
    return {m.group(1) for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", text)} - KEYWORDS

def macro_calls():
    res = {}
    for m in MACROS:
        line = strip(SRC[m["path"]]).split("\n")[m["line"] - 1]
        dm = re.match(r"\s*#\s*define\s+(\w+)(\([^)]*\))?(.*)", line)
        if dm and dm.group(2): res[m["name"]] = called(dm.group(3))
    return res
MCALLS = macro_calls()

def callees(t, mode):
    c = called(body(t))
    direct = c & FUNC_NAMES
    macros = c & set(MCALLS)
    viamac = set().union(*[MCALLS[m] for m in macros]) & FUNC_NAMES if macros else set()
    if mode == "direct": return direct
    if mode == "macro": return direct | viamac
    if mode == "withmacros": return direct | macros
    if mode == "expanded":  # every call, libc included, with macros replaced by the calls they expand to
        return (c - macros) | set().union(*[MCALLS[m] for m in macros]) if macros else c
    return c

def is_static(t):
    return re.search(r"\bstatic\b", SRC[t["path"]].split("\n")[t["line"] - 1]) is not None

def main(a):
    cmd = a[0]
    if cmd == "callers":
        name, mode = a[1], (a[2] if len(a) > 2 else "direct")
        out = {t["name"] for t in FUNCS if name in callees(t, mode)}
    elif cmd == "callees":
        name, mode = a[1], (a[2] if len(a) > 2 else "direct")
        ts = [t for t in FUNCS if t["name"] == name and (len(a) < 4 or t["path"] == a[3])]
        out = set().union(*[callees(t, mode) for t in ts])
    elif cmd == "defs":
        kinds = [a[2]] if len(a) > 2 else ["function", "struct", "macro", "enum", "typedef", "union"]
        out = {"%s:%d" % (t["path"], t["line"]) for t in TAGS if t["name"] == a[1] and t["kind"] in kinds}
    elif cmd == "includes":
        out = [m.group(2) for m in re.finditer(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', SRC[a[1]], re.M)
               if not (len(a) > 2 and m.group(1) == "<")]
    elif cmd == "includers":
        out = {f for f, s in SRC.items() if re.search(r'^\s*#\s*include\s*[<"]([^>"]*/)?%s[>"]' % re.escape(a[1]), s, re.M)}
    elif cmd == "funcs":
        out = {t["name"] for t in FUNCS if t["path"] == a[1] and (len(a) < 3 or is_static(t))}
    elif cmd == "structs":
        out = {t["name"] for t in TAGS if t["kind"] == "struct" and (len(a) < 2 or t["path"] == a[1]) and not t["name"].startswith("__anon")}
    elif cmd == "macros":
        out = {t["name"] for t in MACROS if t["path"] == a[1]}
        if len(a) > 2: out = {m for m in out if not m.endswith("_H") and not re.match(r"LZ4_H_\d+", m)}
    elif cmd == "unused":
        mode = a[1] if len(a) > 1 else ""
        allcode = "\n".join(strip(s) for s in SRC.values())
        out = set()
        for t in FUNCS:
            n = t["name"]
            if n == "main" and "withmain" not in mode and "withboth" not in mode: continue
            called_somewhere = any(n in callees(u, "macro") for u in FUNCS)
            refs = len(re.findall(r"\b%s\b" % re.escape(n), allcode))
            decls = len([x for x in TAGS if x["name"] == n and x["kind"] in ("prototype", "function")])
            if called_somewhere: continue
            if refs > decls and not ("withptr" in mode or "withboth" in mode): continue
            out.add(n)
    else:
        sys.exit("unknown " + cmd)
    for x in (sorted(out) if isinstance(out, set) else out): print(x)

main(sys.argv[1:])
