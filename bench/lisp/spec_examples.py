#!/usr/bin/env python3
"""spec_examples.py: how many of the PTC-Lisp specification's examples quarry agrees with.

usage: spec_examples.py SPEC.md [--quarry PATH] [--show] [--min PERCENT] [--part all|dev|held]

SPEC.md is andreasronge/ptc_runner's docs/ptc-lisp-specification.md, read from the path
given: it is not in this repository (docs/decisions.md, "Agreement with the
specification's examples", says why). Every one-line example with a stated result is
taken, in three forms:
  - a line of a code block:          (first [1 2])      ; => 1
  - a table row whose first two cells are code:  | `(first [1 2])` | `1` | ...
  - prose:                           `(str 42)` → `"42"`
A result is the first value that reads after `=>` (the rest of the line is a comment:
`nil (out of bounds)` is nil); a result naming an error (TYPE ERROR, ARITHMETIC ERROR,
an error, throws) expects an error, of any kind. Examples whose result is prose ("result
of log call"), and those that need a tool, the context's data, the clock, randomness or
state from an earlier line (tool/, data/, *1, (now), rand, a name defined by another
line) are counted apart, as not runnable here. Each runnable example runs as
`quarry lisp -e EXPR`, and its printed value is compared with the stated result by the
rules of tests/clojure/compare.py (lists and vectors alike, maps and sets unordered, a
character is its one-letter string, numbers by value where the expression divides).

--part held keeps every third runnable example (the 3rd, 6th ...) and --part dev the
others: the work on issue 25 looked only at the dev part's differences, and the held part
measures what that work did on examples nobody fixed for.

Prints the agreement, then (with --show) each example that differs. Exit 0, or 1 when
--min is given and the agreement is below it.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "clojure"))
import compare  # noqa: E402  (the differential test's reader and rules)

ERROR_WORDS = re.compile(r"^(\w+ )?(ERROR|error|Error|throws|exception)\b")
NOT_RUNNABLE = re.compile(r"tool/|data/|\*[123]\b|\(now\b|rand|\(println|\(def |\(defn |"
                          r"\(defonce |\(doc |\(source |\(dir\b|\(apropos |\(export-meta |"
                          r"budget/|\(pcalls|\(return |\(fail |json/|\(sleep|ctx/|memory/")


def balanced(s):
    """True when s is one or more complete forms (brackets balanced outside strings)."""
    depth, i, n = 0, 0, len(s)
    while i < n:
        c = s[i]
        if c == '"':
            i += 1
            while i < n and s[i] != '"':
                i += 2 if s[i] == "\\" else 1
            if i >= n:
                return False
        elif c == "\\" and i + 1 < n:
            i += 1
        elif c == ";":
            break
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return False
        i += 1
    return depth == 0


def first_value(text):
    """The first value that reads in text, printed back as text; None when none reads."""
    text = text.strip()
    if not text:
        return None
    t = compare.Tok(text)
    try:
        compare.read(t)
    except (ValueError, IndexError, AttributeError, KeyError):
        return None
    v = text[:t.i].strip()
    # a form is a desugaring ("(if cond else then)"), "3.333..." an approximation
    if re.match(r"\(\s*[A-Za-z]", v) or v.endswith("...") or text[t.i:].startswith("..."):
        return None
    # a bare word that is no EDN value is prose ("filtered vector", "result of log")
    if re.fullmatch(r"[A-Za-z][\w-]*", v) and v not in ("nil", "true", "false"):
        return None
    return v


def examples(md):
    out = []  # (line number, expression, stated result text)
    fence = False
    result_cell = 1  # the table cell holding the result: the last one when the header
    #                  names an input column (| Operation | Empty Input | Result |)
    for no, line in enumerate(md.splitlines(), 1):
        if line.startswith("|") and "`" not in line and not set(line) <= set("|-: "):
            cells = [c.strip().lower() for c in line.strip("|").split("|")]
            result_cell = 2 if len(cells) > 2 and "input" in cells[1] else 1
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if fence:
            m = re.match(r"^\s*(\(.*?|[^\s;].*?)\s*;+\s*=>\s*(.+)$", line)
            if m and balanced(m.group(1)):
                out.append((no, m.group(1).strip(), m.group(2).strip()))
            continue
        m = re.match(r"^\|\s*`([^`]+)`\s*\|", line)
        if m and m.group(1).startswith("(") and balanced(m.group(1)):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) > result_cell:
                r = re.fullmatch(r"`([^`]+)`", cells[result_cell])
                if r:
                    out.append((no, m.group(1).strip(), r.group(1).strip()))
            continue
        for m in re.finditer(r"`(\([^`]+)`\s*(?:→|->|=>)\s*`([^`]+)`", line):
            if balanced(m.group(1)):
                out.append((no, m.group(1).strip(), m.group(2).strip()))
    return out


def run(quarry, expr):
    try:
        p = subprocess.run([quarry, "lisp", "--timeout-ms", "5000", "-e", expr],
                           capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "ERROR timeout"
    if p.returncode != 0:
        return "ERROR " + p.stderr.strip().splitlines()[0] if p.stderr.strip() else "ERROR"
    lines = p.stdout.rstrip("\n").splitlines()
    return lines[-1] if lines else ""


def main():
    args = sys.argv[1:]
    quarry = os.path.join(HERE, "..", "..", "build", "quarry")
    show, minimum = False, None
    if "--quarry" in args:
        k = args.index("--quarry")
        quarry = args[k + 1]
        del args[k:k + 2]
    if "--min" in args:
        k = args.index("--min")
        minimum = float(args[k + 1])
        del args[k:k + 2]
    part = "all"
    if "--part" in args:
        k = args.index("--part")
        part = args[k + 1]
        del args[k:k + 2]
    if "--show" in args:
        show = True
        args.remove("--show")
    if len(args) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    md = open(args[0], encoding="utf-8").read()
    found = examples(md)
    runnable, prose, needs = [], 0, 0
    for no, expr, result in found:
        if NOT_RUNNABLE.search(expr):
            needs += 1
            continue
        if ERROR_WORDS.match(result):
            runnable.append((no, expr, "ERROR", result))
            continue
        v = first_value(result)
        if v is None:
            prose += 1
            continue
        runnable.append((no, expr, v, result))
    if part != "all":
        runnable = [r for i, r in enumerate(runnable) if (i % 3 == 2) == (part == "held")]
    bad = []
    for no, expr, want, stated in runnable:
        got = run(quarry, expr)
        if not compare.agree(expr, want, got):
            bad.append((no, expr, stated, got))
    n = len(runnable)
    ok = n - len(bad)
    pct = 100.0 * ok / n if n else 0.0
    print("examples: %d one-line examples; %d need a tool, data, the clock or state; %d state "
          "their result in prose" % (len(found), needs, prose))
    print("agreement with the specification%s: %d of %d (%.1f%%)"
          % ("" if part == "all" else " (%s part)" % part, ok, n, pct))
    if show:
        for no, expr, stated, got in bad:
            print("DIFF line %d: %s\n  spec:   %s\n  quarry: %s" % (no, expr, stated, got))
    return 1 if minimum is not None and pct < minimum else 0


if __name__ == "__main__":
    sys.exit(main())
