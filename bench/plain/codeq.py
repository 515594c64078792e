#!/usr/bin/env python3
"""Independent code facts for the fixture, from universal-ctags and grep only.
usage: codeq.py REPO callers NAME | callees NAME [all] | includers HEADER | includes FILE
       | defn NAME | unused [DIR] | funcs FILE | static | structs FILE | macros FILE | tcallers NAME"""
import sys, subprocess, re, json, os
repo, cmd, args = sys.argv[1], sys.argv[2], sys.argv[3:]
os.chdir(repo)
tags = subprocess.run(["ctags", "-R", "--fields=+neKS", "--c-kinds=+p-v", "-o", "-", "src", "lib", "tests"],
                      capture_output=True, text=True).stdout
T = []
for l in tags.splitlines():
    p = l.split("\t"); f = {"name": p[0]}
    for x in p[3:]:
        if ":" in x: k, v = x.split(":", 1); f[k] = v
        else: f["kind"] = x
    f["filescope"] = "file" in f; f["file"] = p[1]
    T.append(f)
funcs = [t for t in T if t.get("kind") == "function"]
src = {}
def lines(f):
    if f not in src: src[f] = open(f).read().split("\n")
    return src[f]
def body_calls(fn, only_defined):
    ls = lines(fn["file"])[int(fn["line"]) - 1:int(fn["end"])]
    text = "\n".join(ls); text = text.split("{", 1)[1] if "{" in text else ""
    names = set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", text)) - {"if", "while", "for", "switch", "return", "sizeof"}
    defined = {f["name"] for f in funcs}
    return sorted(n for n in names if (n in defined or not only_defined))
def callers(name):
    return sorted({f["name"] + ("@" + f["file"] if f["name"] == "main" else "") for f in funcs if name in body_calls(f, True) and f["name"] != name or (f["name"] == name and False)})
if cmd == "callers": out = callers(args[0])
elif cmd == "tcallers":
    seen, todo = set(), [args[0]]
    while todo:
        n = todo.pop()
        for c in callers(n.split("@")[0]):
            if c not in seen: seen.add(c); todo.append(c)
    out = sorted(seen)
elif cmd == "callees":
    out = sorted({c for f in funcs if f["name"] == args[0] for c in body_calls(f, len(args) < 2)})
elif cmd == "includers":
    h = re.escape(args[0])
    r = subprocess.run("grep -rlE '^#include [<\"]([^\">]*/)?%s[\">]' src lib tests" % h, shell=True, capture_output=True, text=True)
    out = sorted(r.stdout.split())
elif cmd == "includes":
    out = sorted(re.findall(r'^#include [<"]([^">]+)[">]', open(args[0]).read(), re.M))
elif cmd == "defn":
    out = sorted("%s:%s" % (t["file"], t["line"]) for t in T if t["name"] == args[0] and t.get("kind") not in ("prototype", "member", "externvar"))
elif cmd == "unused":
    called = {c for f in funcs for c in body_calls(f, True)}
    d = args[0] if args else ""
    out = sorted(f["name"] for f in funcs if f["name"] not in called and f["name"] != "main" and f["file"].startswith(d))
elif cmd == "funcs": out = sorted(f["name"] for f in funcs if f["file"] == args[0])
elif cmd == "static": out = sorted(f["name"] for f in funcs if f["filescope"])
elif cmd == "structs": out = sorted(t["name"] for t in T if t.get("kind") == "struct" and t["file"] == args[0])
elif cmd == "macros": out = sorted(t["name"] for t in T if t.get("kind") == "macro" and t["file"] == args[0])
elif cmd == "nfuncs": out = len([f for f in funcs if f["file"].startswith(args[0])])
print(json.dumps(out))
