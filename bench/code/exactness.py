#!/usr/bin/env python3
"""exactness.py: how exact quarry's code graph is, against Debian's own tools on one C tree.

    python3 bench/code/exactness.py QUARRY REPO [-I DIR ...] [--json] [--floors FILE]
                                    [--diff FIGURE] [--diffs FILE]

REPO is a git repository of C sources (quarry indexes its working tree). When REPO (or
REPO/build) holds a compile_commands.json (compdb.py makes one from a project's own build),
clang indexes each file with that file's -D, -U, -I, -include and -std options, and quarry
reads its -D options; files the build does not compile get -std=c11
-D_POSIX_C_SOURCE=200809L and the build's include directories (without a compile_commands.json,
the first two alone). A .c file clang cannot compile (an error: a header not found, a type
its configuration leaves out) is left out of the figures against clang, and named. Compares:
  definitions  quarry's nodes with universal-ctags' tags (function, struct, union, enum,
               typedef, macro, enumerator, member, variable), by (file, kind, name), and
               functions by (file, name, line) apart;
  calls        quarry's lexical view (calls written in the source: direct calls, and a call
               through a project macro as a call of the macro, including inactive code)
               with cscope (-L -2), with cflow (posix tree), and with what both agree on
               (against cflow and the two, without the calls through a struct member,
               `c->cmd->proc(c)`, which cflow never lists), and, as a diagnostic, with
               what both agree on from the functions whose definition cflow read;
               quarry's semantic view (calls the compiled code makes: through macros to
               what they call, without disabled branches) with clang's index
               (c-index-test -index-file), by (file, caller, callee), on callees the
               repository declares or defines (clang's index leaves out references to
               what system headers declare);
  includes     quarry's include edges with clang's (#include lines of each .c file and
               the repository file they reach, or the header as written).
Prints precision, recall and F1 of each; --diff FIGURE (say "calls vs clang") also prints
that figure's disagreements, "+ " what only quarry has and "- " what only the reference
has, to find what to fix; --diffs FILE writes every figure's disagreements to FILE, each
under a "## FIGURE" line (one run instead of one per figure); with --floors FILE (lines `NAME MIN_F1`) exits
1 when a figure is below its floor. The -I directories are passed to clang (relative to
REPO). Facts only: nothing here is copied from the tools it runs.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def run(cmd, cwd, check=True, env=None):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, errors="replace", env=env)
    if check and p.returncode != 0:
        sys.exit("exactness: %s failed (%d): %s" % (cmd[0], p.returncode, p.stderr.strip()[:300]))
    return p.stdout


def prf(got, want):
    tp = len(got & want)
    p = tp / len(got) if got else 1.0
    r = tp / len(want) if want else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f, len(got), len(want)


def c_files(repo):
    out = run(["git", "ls-files", "*.c", "*.h"], repo)
    return sorted(f for f in out.splitlines() if f and not os.path.islink(os.path.join(repo, f)))


def quarry_graph(quarry, repo):
    nodes, edges = [], []
    for line in run([quarry, "code", "dump", "--repo", repo], repo).splitlines():
        d = json.loads(line)
        (nodes if "node" in d else edges).append(d)
    return nodes, edges


def split_key(k):
    if ":" in k and not k.startswith("<"):
        f, n = k.rsplit(":", 1)
        return f, n
    return None, k


def quarry_calls(edges, lexical, members=None):
    """(file, caller, callee) of quarry's lexical or semantic calls; with lexical, those
    made only through a struct member are also added to the set members, when given."""
    named = set()
    out = set()
    for e in edges:
        callee = split_key(e["to"])[1]
        if lexical:
            if e["edge"] == "expands" or (e["edge"] == "calls" and "via" not in e):
                # a call through a struct member (to "server.h:redisCommand.proc") is a
                # call of the member's name, as cscope lists it
                f, caller = split_key(e["from"])
                c = (f, caller, callee.rsplit(".", 1)[-1])
                out.add(c)
                if "." in callee and e["edge"] == "calls":
                    if members is not None:
                        members.add(c)
                else:
                    named.add(c)
        else:
            # clang's index has no calls of struct members (kind: field, not function)
            if e["edge"] == "calls" and not e.get("inactive") and "." not in callee:
                f, caller = split_key(e["from"])
                out.add((f, caller, callee))
    if members is not None:
        members -= named
    return out


CTAGS_KINDS = {"function", "struct", "union", "enum", "typedef", "macro", "enumerator",
               "member", "variable"}


def ctags_defs(repo, files):
    out = set()
    txt = run(["ctags", "--languages=C", "--language-force=C", "--output-format=json",
               "--fields=+nK", "-f", "-"] + files, repo)
    for line in txt.splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if d.get("_type") != "tag" or d.get("kind") not in CTAGS_KINDS:
            continue
        if d["name"].startswith("__anon"):
            continue
        if d["kind"] == "variable" and paren_prototype(repo, d["path"], d.get("line"), d["name"]):
            continue
        out.add((d["path"], d["kind"], d["name"], d.get("line")))
    return out


_lines = {}


def paren_prototype(repo, path, line, name):
    """Whether ctags' "variable" at path:line is a prototype with its name in parentheses,
    `LUALIB_API void (luaL_addgsub) (luaL_Buffer *b, ...);`, which ctags reads as a
    variable: a declaration, not a definition, on either side."""
    if path not in _lines:
        try:
            with open(os.path.join(repo, path), errors="replace") as fh:
                _lines[path] = fh.read().split("\n")
        except OSError:
            _lines[path] = []
    text = " ".join(_lines[path][(line or 1) - 1:(line or 1) + 1])
    return re.search(r"\(\s*%s\s*\)\s*\(" % re.escape(name), text) is not None


def quarry_defs(nodes, files):
    out = set()
    files = set(files)
    for n in nodes:
        if n.get("file") not in files:  # a C++ source (.cpp): ctags reads .c and .h here
            continue
        k = n["node"]
        if k in CTAGS_KINDS and not n.get("lexical"):
            # a function a macro defines where it is invoked (f_acos from LIBM_DD(acos)) is
            # not written in the source, which is what ctags lists
            if n.get("expanded_from"):
                continue
            if (k == "variable" and n.get("extern")) or n.get("anonymous") or \
                    n["name"] == "(anonymous)":
                continue
            out.add((n["file"], k, n["name"], n["line"]))
    return out


def cscope_calls(repo, files, functions):
    with open(os.path.join(repo, "cscope.files"), "w") as f:
        f.write("\n".join(files) + "\n")
    # cscope makes /tmp/cscope.PID for each run and gives up ("Could not create private
    # temp dir", exit 1, no output) when one of that name is left from a killed run: each
    # query failed so counted as a function that calls nothing, and the reference moved
    # between runs by a few thousandths. Its own TMPDIR, and a failed query is an error.
    tmp = tempfile.mkdtemp(prefix="exactness-cscope.")
    env = dict(os.environ, TMPDIR=tmp)
    run(["cscope", "-b", "-k", "-i", "cscope.files", "-f", "cscope.out"], repo, env=env)
    out = set()
    for name in sorted(functions):
        p = subprocess.run(["cscope", "-d", "-f", "cscope.out", "-L", "-2", name], cwd=repo,
                           capture_output=True, text=True, errors="replace", env=env)
        if p.returncode != 0 and p.stderr.strip():
            sys.exit("exactness: cscope -L -2 %s failed: %s" % (name, p.stderr.strip()[:300]))
        for line in p.stdout.splitlines():
            parts = line.split(" ", 3)
            if len(parts) >= 3:
                out.add((parts[0], name, parts[1]))
    for f in ("cscope.files", "cscope.out"):
        try:
            os.remove(os.path.join(repo, f))
        except OSError:
            pass
    shutil.rmtree(tmp, ignore_errors=True)
    return out


CFLOW_LINE = re.compile(r"^\s*(\d+) (\s*)(\S+): (.*)$")


def cflow_calls(repo, files, defined=None):
    # one run per .c file: run on all at once, cflow makes one function of every name (the
    # fifteen `main`s of zlib's examples and contrib, the same-named static helpers written
    # `local`), and lists a function's calls once, under whichever file came first
    out = set()
    for f in files:
        if f.endswith(".c"):
            cflow_file(repo, f, out, defined)
    return out


def cflow_file(repo, cfile, out, defined=None):
    """Adds cflow's calls in cfile to out, and to defined, when given, the (file, function)
    cflow read the definition of (listed with its file and line). cflow prints trees from
    the functions nothing calls; functions in a cycle no such root reaches (a static f that
    calls g that refers back to f) are printed by no run with -A alone, so a second run
    starts a tree at each function ctags finds in the file and the first run left out."""
    base = ["cflow", "--format=posix", "--omit-arguments", "-A", "-i", "_"]
    txt = run(base + [cfile], repo, check=False)
    listed = set(m.group(3) for m in map(CFLOW_LINE.match, txt.splitlines())
                 if m and re.search(r"<\S+ \d+>", m.group(4)))
    tags = run(["ctags", "-x", "--c-kinds=f", "--language-force=C", cfile], repo, check=False)
    missing = sorted(set(l.split()[0] for l in tags.splitlines() if l.split()) - listed)
    if missing:
        more = run(base + [a for name in missing for a in ("-m", name)] + [cfile], repo,
                   check=False)
        txt = txt + "\n" + more
    return cflow_parse(txt, out, defined)


def cflow_parse(txt, out, defined=None):
    """The calls of cflow's posix output txt, added to out (see cflow_file)."""
    by_no = {}
    stack = []  # (depth, name, file)
    for line in txt.splitlines():
        m = CFLOW_LINE.match(line)
        if not m:
            continue
        no, indent, name, rest = int(m.group(1)), m.group(2), m.group(3), m.group(4)
        depth = len(indent) // 4
        fm = re.search(r"<(\S+) (\d+)>", rest)
        if fm:
            fil = fm.group(1)
            if defined is not None:
                defined.add((fil, name))
        elif re.match(r"^\d+$", rest.strip()):
            fil = by_no.get(int(rest.strip()), (None, None))[1]
        else:
            fil = None
        by_no[no] = (name, fil)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if stack:
            _, pname, pfile = stack[-1]
            if pfile:
                out.add((pfile, pname, name))
        stack.append((depth, name, fil))
    return out


IDX_CALL = re.compile(r"^\[indexEntityReference\]: kind: function \| name: ([^ |]+) .*\| loc: "
                      r"(?:(.+):)?(\d+):\d+ \| <parent>:: kind: function \| name: ([^ |]+) .*"
                      r"role: ref call")
IDX_INCL = re.compile(r"^\[ppIncludedFile\]: (.*?) \| name: \"(.*?)\" \| hash loc: (\d+):\d+ \| "
                      r"isImport: \d \| isAngled: (\d)")


KEEP_OPTS = ("-D", "-U", "-I", "-isystem", "-iquote", "-include", "-idirafter", "-std=")


def compile_flags(repo):
    """Each file's preprocessor and language options from the tree's own build, as
    {path relative to repo: [options]}: the compile_commands.json in repo or repo/build
    (see compdb.py), -D, -U, -I (made absolute), -isystem, -iquote, -include, -idirafter
    and -std. Empty when there is none."""
    for where in ("compile_commands.json", "build/compile_commands.json"):
        path = os.path.join(repo, where)
        if os.path.exists(path):
            break
    else:
        return {}
    with open(path) as fh:
        entries = json.load(fh)
    out = {}
    for e in entries:
        cwd = e.get("directory", repo)
        args = e.get("arguments") or e["command"].split()
        f = os.path.relpath(os.path.normpath(os.path.join(cwd, e["file"])), repo)
        if f in out:
            continue
        opts, i = [], 1
        while i < len(args):
            a = args[i]
            o = next((k for k in KEEP_OPTS if a.startswith(k)), None)
            if o:
                val = a[len(o):]
                if not val and o != "-std=" and i + 1 < len(args):
                    i += 1
                    val = args[i]
                if o in ("-I", "-isystem", "-iquote", "-include", "-idirafter"):
                    val = os.path.normpath(os.path.join(cwd, val))
                opts.append(o + val if o in ("-D", "-U", "-I", "-std=") else o)
                if o not in ("-D", "-U", "-I", "-std="):
                    opts.append(val)
            i += 1
        out[f] = opts
    return out


def build_includes(flags):
    """The include directories of the build (every -I, -iquote, -idirafter and -isystem of
    compile_flags' files, each once, in the order first met)."""
    out, seen = [], set()
    for opts in flags.values():
        i = 0
        while i < len(opts):
            o = opts[i]
            if o.startswith("-I") and o not in seen:
                seen.add(o)
                out.append(o)
            elif o in ("-iquote", "-idirafter", "-isystem") and i + 1 < len(opts):
                if (o, opts[i + 1]) not in seen:
                    seen.add((o, opts[i + 1]))
                    out += [o, opts[i + 1]]
                i += 1
            i += 1
    return out


def clang_index(repo, files, incdirs, unread=None):
    """clang's calls and includes in repo's .c files (and the headers they read), and the
    files it read. A file whose run stopped at a fatal error (a header not found) is not
    read: its calls are unknown, so neither side's are compared there; its path goes to
    unread when given."""
    calls, incls = set(), set()
    default = ["-D_POSIX_C_SOURCE=200809L", "-std=c11"]
    extra = ["-I" + d for d in incdirs]
    flags = compile_flags(repo)
    # a file the build does not compile (nginx's modules left out by its configure step:
    # 143 of its 266 .c files) is given the build's include directories: with the defaults
    # alone each stopped at `#include <ngx_config.h>`, clang listed nothing, and every call
    # quarry found there counted against it (nginx's .569)
    default = default + build_includes(flags)
    tracked = set(files)
    seen = set()  # the files clang read: each .c file, and the repository headers they reach
    for f in files:
        if not f.endswith(".c"):
            continue
        args = flags.get(f, default) + extra
        txt = run(["c-index-test", "-index-file", f] + args, repo, check=False)
        if re.search(r"^\[diagnostic\]: .*: (fatal )?error: ", txt, re.M):
            if unread is not None:
                unread.add(f)
            continue
        for line in txt.splitlines():
            m = IDX_CALL.match(line)
            if m:
                # a call in a header the file includes is the header's (file "./x.h" or
                # "dir/x.h"); one outside the repository (a system header's inline
                # function) is left out, as quarry does not see it either
                at = f
                if m.group(2):
                    at = os.path.relpath(os.path.normpath(os.path.join(repo, m.group(2))), repo)
                if at in tracked:
                    calls.add((at, m.group(4), m.group(1)))
                    seen.add(at)
                continue
            m = IDX_INCL.match(line)
            if m:
                path, name, hline, angled = m.group(1), m.group(2), int(m.group(3)), m.group(4)
                rel = os.path.relpath(os.path.normpath(os.path.join(repo, path)), repo) \
                    if not os.path.isabs(path) else os.path.relpath(path, repo)
                to = rel if rel in tracked else ("<%s>" % name if angled == "1" else '"%s"' % name)
                incls.add((f, hline, to))
                if rel in tracked:
                    seen.add(rel)
                continue
            if line.startswith("[ppIncludedFile]: "):  # a header a header includes
                path = line[18:].split(" | ", 1)[0]
                rel = os.path.relpath(os.path.normpath(os.path.join(repo, path)), repo)
                if rel in tracked:
                    seen.add(rel)
        seen.add(f)
    return calls, incls, seen


def quarry_includes(edges):
    out = set()
    for e in edges:
        if e["edge"] == "includes" and e["from"].endswith(".c"):
            to = e["to"]
            out.add((e["from"], e["line"], to))
    return out


def main():
    args = sys.argv[1:]
    as_json = "--json" in args
    floors = None
    diff = None
    diffs = None
    incdirs = []
    rest = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--json":
            pass
        elif a == "--floors":
            i += 1
            floors = args[i]
        elif a == "--diff":
            i += 1
            diff = args[i]
        elif a == "--diffs":
            i += 1
            diffs = args[i]
        elif a == "-I":
            i += 1
            incdirs.append(args[i])
        elif a.startswith("-I"):
            incdirs.append(a[2:])
        else:
            rest.append(a)
        i += 1
    if len(rest) != 2:
        sys.exit(__doc__)
    quarry, repo = os.path.abspath(rest[0]), os.path.abspath(rest[1])
    files = c_files(repo)
    nodes, edges = quarry_graph(quarry, repo)

    fig = {}
    sets = {}
    defs_q, defs_t = quarry_defs(nodes, files), ctags_defs(repo, files)
    # identity by (file, kind, name); the line is checked apart, since the tools differ on
    # which line a multi-line definition is at (its first, or its name's)
    fig["definitions vs ctags"] = prf({d[:3] for d in defs_q}, {d[:3] for d in defs_t})
    sets["definitions vs ctags"] = ({d[:3] for d in defs_q}, {d[:3] for d in defs_t})
    fig["function lines vs ctags"] = prf({d for d in defs_q if d[1] == "function"},
                                         {d for d in defs_t if d[1] == "function"})
    functions = {n["name"] for n in nodes if n["node"] == "function"}
    members = set()
    lex = quarry_calls(edges, True, members)
    sem = quarry_calls(edges, False)
    cs = cscope_calls(repo, files, functions)
    cf_read = set()
    cf = cflow_calls(repo, files, cf_read)
    both = cs & cf
    # each tool read only some files: cscope the .c and .h files, cflow the .c files (a
    # C++ source, or a header's inline function, is nothing either can disagree with)
    tracked = set(files)
    # calls from a function no one wrote (a macro's expansion, f_acos from LIBM_DD(acos);
    # decDoubleAdd, decBasic.c's decFloatAdd as decDouble.c renames it) are not in the
    # source text cscope and cflow read
    written = {(n["file"], n["name"]) for n in nodes if n["node"] == "function" and
               not n.get("expanded_from")}
    expanded = {(n["file"], n["name"]) for n in nodes if n["node"] == "function" and
                n.get("expanded_from")} - written
    lex = {c for c in lex if (c[0], c[1]) not in expanded}
    lex_ch = {c for c in lex if c[0] in tracked}
    # (and cflow lists calls from functions, not from a #define's body)
    fn_keys = {(n["file"], n["name"]) for n in nodes if n["node"] == "function"}
    # and cflow lists no call through a struct member (`c->cmd->proc(c)`: cscope lists
    # `proc`, cflow nothing; none is in cscope+cflow): against cflow, quarry's are left out
    # (unless the function also calls a function of that name)
    lex_c = {c for c in lex_ch if c[0].endswith(".c") and (c[0], c[1]) in fn_keys and
             c not in members}
    fig["calls vs cscope"] = prf(lex_ch, cs)
    fig["calls vs cflow"] = prf(lex_c, cf)
    fig["calls vs cscope+cflow"] = prf(lex_c, both)
    # the same on the functions cflow read: where cflow gives up on a file (curl's
    # vtls/openssl.c, nginx's ngx_event_openssl.c: a dozen lines for 200 functions) it
    # lists nothing for the functions after, and every call quarry finds there counts
    # against it; a diagnostic beside the figure above, which stays the target
    lex_cr = {c for c in lex_c if (c[0], c[1]) in cf_read}
    fig["calls vs cscope+cflow, cflow-read"] = prf(lex_cr, both)
    cl_unread = set()
    cl_calls, cl_incls, cl_seen = clang_index(repo, files, incdirs, cl_unread)
    # clang reads .c files and the headers they include, not C++ sources or headers no .c
    # file includes: quarry's calls there have nothing to be compared with
    # file, and clang's callers are functions: a macro's own calls (jv.h JV_ARRAY_1 ->
    # jv_array) are counted where the macro is used, not where it is defined
    fns = {(n["file"], n["name"]) for n in nodes if n["node"] == "function"}
    sem = {c for c in sem if c[0] in cl_seen and (c[0], c[1]) in fns}
    # clang's index leaves out references to what system headers declare (strlen, free):
    # both sides are compared on callees the repository declares or defines (a prototype
    # compiled out, zlib's `extern voidp malloc OF((uInt size));` under #ifndef STDC, does
    # not make malloc the repository's)
    own = {n["name"] for n in nodes if n["node"] == "function" or
           (n["node"] == "declaration" and not n.get("inactive"))}
    mine = lambda s: {c for c in s if c[2] in own}
    fig["calls vs clang"] = prf(mine(sem), mine(cl_calls))
    sets["calls vs clang"] = (mine(sem), mine(cl_calls))
    sets["calls vs cscope+cflow"] = (lex_c, both)
    sets["calls vs cscope+cflow, cflow-read"] = (lex_cr, both)
    sets["calls vs cscope"] = (lex_ch, cs)
    fig["cscope+cflow vs clang"] = prf(mine(both), mine(cl_calls))
    fig["includes vs clang"] = prf({i for i in quarry_includes(edges) if i[0] not in cl_unread},
                                   cl_incls)

    if as_json:
        print(json.dumps({k: {"precision": round(v[0], 4), "recall": round(v[1], 4),
                              "f1": round(v[2], 4), "quarry": v[3], "reference": v[4]}
                          for k, v in fig.items()}, indent=1))
    else:
        print("%-34s %9s %7s %7s %8s %10s" % ("", "precision", "recall", "F1", "quarry",
                                              "reference"))
        for k, (p, r, f, ng, nw) in fig.items():
            print("%-34s %9.3f %7.3f %7.3f %8d %10d" % (k, p, r, f, ng, nw))
        if cl_unread:
            print("clang could not compile %d .c files, left out of the figures "
                  "against it: %s" % (len(cl_unread), " ".join(sorted(cl_unread)[:8]) +
                                      (" ..." if len(cl_unread) > 8 else "")))
    if diff:
        if diff not in sets:
            sys.exit("exactness: --diff takes one of: %s" % ", ".join(sets))
        got, want = sets[diff]
        for c in sorted(got - want):
            print("+ " + " ".join(map(str, c)))
        for c in sorted(want - got):
            print("- " + " ".join(map(str, c)))
    if diffs:
        with open(diffs, "w") as fh:
            for name, (got, want) in sets.items():
                fh.write("## %s\n" % name)
                for c in sorted(got - want):
                    fh.write("+ " + " ".join(map(str, c)) + "\n")
                for c in sorted(want - got):
                    fh.write("- " + " ".join(map(str, c)) + "\n")
    status = 0
    if floors:
        with open(floors) as fh:
            for line in fh:
                line = line.split("#", 1)[0].strip()
                if not line:
                    continue
                name, floor = line.rsplit(" ", 1)
                if name not in fig:
                    print("exactness: unknown figure '%s' in %s" % (name, floors))
                    status = 1
                elif fig[name][2] < float(floor):
                    print("exactness: %s F1 %.3f is below its floor %s" % (name, fig[name][2], floor))
                    status = 1
    sys.exit(status)


if __name__ == "__main__":
    main()
