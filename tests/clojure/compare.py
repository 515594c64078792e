#!/usr/bin/env python3
"""compare.py: compares what real Clojure and quarry printed for each expression of the
differential test's corpus (run.sh) and reports the agreement rate.

usage: compare.py CORPUS CLOJURE_OUT QUARRY_OUT MIN_PERCENT [--show N]

Both outputs have one line per expression: the printed value, or "ERROR ..." for an
error. Two results agree when both are errors, or when both values read as equal after
these normalisations, each a documented difference (docs/decisions.md, "Differential
test against Clojure"):
  - lists and vectors are the same sequence (quarry's sequence functions return vectors);
  - maps and sets compare without order (quarry prints them in insertion order, Clojure
    in hash order);
  - a character \\c is the one-character string "c" (quarry has no character type);
  - in an expression that divides with `/`, numbers compare by value (quarry's `/`
    returns a double where Clojure returns a ratio or a long);
  - a function prints as #function[name] in quarry and #object[class ...] in Clojure:
    any two printed functions agree.
Exit status 0 when the agreement is at least MIN_PERCENT, 1 otherwise.
"""
import math
import re
import sys


class Tok:
    def __init__(self, s):
        self.s = s
        self.i = 0


CHAR_NAMES = {"newline": "\n", "space": " ", "tab": "\t", "return": "\r", "formfeed": "\f",
              "backspace": "\b"}


def parse(s):
    t = Tok(s)
    v = read(t)
    skip_ws(t)
    if t.i != len(s):
        raise ValueError("trailing text")
    return v


def skip_ws(t):
    while t.i < len(t.s) and (t.s[t.i].isspace() or t.s[t.i] == ","):
        t.i += 1


def read_coll(t, close):
    items = []
    while True:
        skip_ws(t)
        if t.i >= len(t.s):
            raise ValueError("unclosed")
        if t.s[t.i] == close:
            t.i += 1
            return items
        items.append(read(t))


def read_string(t):
    t.i += 1
    out = []
    while True:
        c = t.s[t.i]
        if c == '"':
            t.i += 1
            return "".join(out)
        if c == "\\":
            n = t.s[t.i + 1]
            out.append({"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "b": "\b",
                        "f": "\f"}.get(n, n))
            if n == "u":
                out[-1] = chr(int(t.s[t.i + 2:t.i + 6], 16))
                t.i += 4
            t.i += 2
            continue
        out.append(c)
        t.i += 1


def read(t):
    skip_ws(t)
    s, i = t.s, t.i
    c = s[i]
    if c in "([":
        t.i += 1
        return ("seq", tuple(read_coll(t, ")" if c == "(" else "]")))
    if c == "{":
        t.i += 1
        items = read_coll(t, "}")
        return ("map", frozenset(zip(items[0::2], items[1::2])))
    if s.startswith("#{", i):
        t.i += 2
        return ("set", frozenset(read_coll(t, "}")))
    if c == '"':
        return ("str", read_string(t))
    if s.startswith('#"', i):
        t.i += 1
        return ("regex", read_string(t))
    if s.startswith("##", i):
        m = re.match(r"##(NaN|Inf|-Inf)", s[i:])
        t.i += m.end()
        return ("num", {"NaN": "NaN", "Inf": math.inf, "-Inf": -math.inf}[m.group(1)])
    if c == "\\":
        m = re.match(r"\\(newline|space|tab|return|formfeed|backspace|u[0-9a-fA-F]{4}|.)", s[i:],
                     re.S)
        t.i += m.end()
        name = m.group(1)
        ch = CHAR_NAMES.get(name) or (chr(int(name[1:], 16)) if len(name) == 5 else name)
        return ("str", ch)
    if s.startswith("#object[", i) or s.startswith("#function[", i):  # a function
        depth = 0
        while True:
            ch = s[t.i]
            if ch == '"':
                read_string(t)
                continue
            t.i += 1
            depth += ch == "["
            depth -= ch == "]"
            if ch == "]" and depth == 0:
                return ("fn", None)
    if c == "#":  # #'var and other tagged forms: compared as text
        m = re.match(r"#'?[^\s\[\](){}]*", s[i:])
        t.i += m.end()
        return ("atom", m.group(0))
    m = re.match(r"[^\s,()\[\]{}\"]+", s[i:])
    if not m:
        raise ValueError("bad token at %d" % i)
    t.i += m.end()
    w = m.group(0)
    if re.fullmatch(r"[-+]?\d+N?", w):
        return ("num", int(w.rstrip("N")))
    if re.fullmatch(r"[-+]?\d+/\d+", w):
        a, b = w.split("/")
        return ("ratio", int(a) / int(b))
    if re.fullmatch(r"[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+)M?", w):
        return ("dbl", float(w.rstrip("M")))
    return ("atom", w)


def loose(v):
    """Numbers of any kind become ("n", value): for expressions that divide."""
    k, x = v
    if k in ("num", "dbl", "ratio"):
        return ("n", round(float(x), 9) if isinstance(x, float) or k != "num" else float(x))
    if k == "seq":
        return (k, tuple(loose(i) for i in x))
    if k == "set":
        return (k, frozenset(loose(i) for i in x))
    if k == "map":
        return (k, frozenset((loose(a), loose(b)) for a, b in x))
    return v


def agree(expr, clj, qr):
    if clj.startswith("ERROR") or qr.startswith("ERROR"):
        return clj.startswith("ERROR") and qr.startswith("ERROR")
    if clj == qr:
        return True
    try:
        a, b = parse(clj), parse(qr)
    except (ValueError, IndexError, AttributeError):
        return False
    if "(/ " in expr:
        a, b = loose(a), loose(b)
    return a == b


def main():
    args = sys.argv[1:]
    show = 0
    if "--show" in args:
        k = args.index("--show")
        show = int(args[k + 1])
        del args[k:k + 2]
    corpus, clj_out, qr_out, min_pct = args
    exprs = open(corpus, encoding="utf-8").read().splitlines()
    clj = open(clj_out, encoding="utf-8").read().splitlines()
    qr = open(qr_out, encoding="utf-8").read().splitlines()
    if not (len(exprs) == len(clj) == len(qr)):
        print("outputs do not line up: %d expressions, %d from clojure, %d from quarry"
              % (len(exprs), len(clj), len(qr)))
        return 1
    bad = [(e, c, q) for e, c, q in zip(exprs, clj, qr) if not agree(e, c, q)]
    n = len(exprs)
    pct = 100.0 * (n - len(bad)) / n
    print("agreement with clojure: %d of %d expressions (%.1f%%)" % (n - len(bad), n, pct))
    for e, c, q in bad[:show] if show else bad:
        print("DIFF %s\n  clojure: %s\n  quarry:  %s" % (e, c, q))
    return 0 if pct >= float(min_pct) else 1


if __name__ == "__main__":
    sys.exit(main())
