#!/usr/bin/env python3
"""compdb.py: a project's compile_commands.json, rebased onto the tree exactness.py measures.

    python3 bench/code/compdb.py BUILD_DIR SUBDIR TREE

BUILD_DIR is a full checkout of the project built under Debian's `bear` (`bear -- make`
after its configure step), which left BUILD_DIR/compile_commands.json; SUBDIR is the part of
it the measured tree holds ("." for all of it, "src" for redis and jq); TREE is the git
repository exactness.py and quarry read. Writes TREE/compile_commands.json: one entry per
file of TREE the build compiles (the first, where a build compiles a file twice, as zlib's
static and shared objects), every path absolute, the ones inside BUILD_DIR/SUBDIR moved to
TREE when TREE has them, the others (a dependency's headers, what the build generated)
left in BUILD_DIR (and a directory moved to TREE is searched in BUILD_DIR too, after
TREE, for what the build generated there). Both quarry (its -D options)
and exactness.py (each file's -D, -U, -I, -include and -std for clang) read that file.
"""
import json
import os
import sys

PATH_OPTS = ("-I", "-isystem", "-iquote", "-include", "-idirafter")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    build, sub, tree = (os.path.abspath(a) for a in (sys.argv[1], sys.argv[1] + "/" + sys.argv[2],
                                                    sys.argv[3]))
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = json.load(f)

    def move(p, cwd):
        p = os.path.normpath(os.path.join(cwd, p))
        if p == sub or p.startswith(sub + "/"):
            moved = tree + p[len(sub):]
            # what the build made (libevent's bld/include/event2/event-config.h) stays
            # where the build made it
            if os.path.exists(moved):
                return moved
        return p

    def also(opt, p, cwd):
        # a directory moved to TREE is searched in BUILD_DIR too, after it: what the build
        # generated there (curl's lib/curl_config.h) is not in TREE, and without it clang
        # stopped at the first #include of every file
        if opt in ("-I", "-iquote", "-idirafter"):
            orig = os.path.normpath(os.path.join(cwd, p))
            if move(p, cwd) != orig:
                return ["-idirafter", orig]
        return []

    out, seen = [], set()
    for e in entries:
        cwd = e["directory"]
        args = e.get("arguments") or e["command"].split()
        f = move(e["file"], cwd)
        if not f.startswith(tree + "/") or f in seen or not os.path.exists(f):
            continue
        seen.add(f)
        new, i = [args[0]], 1
        while i < len(args):
            a = args[i]
            if a in ("-o", "-MF", "-MT", "-MQ"):
                i += 2
                continue
            if a in PATH_OPTS and i + 1 < len(args):
                new += [a, move(args[i + 1], cwd)]
                new += also(a, args[i + 1], cwd)
                i += 2
                continue
            opt = next((o for o in PATH_OPTS if a.startswith(o) and len(a) > len(o)), None)
            if opt:
                new.append(opt + move(a[len(opt):], cwd))
                new += also(opt, a[len(opt):], cwd)
            elif a in ("-c", "-MD", "-MMD", "-MP") or os.path.normpath(os.path.join(cwd, a)) == \
                    os.path.normpath(e["file"] if os.path.isabs(e["file"]) else os.path.join(cwd, e["file"])):
                pass
            else:
                new.append(a)
            i += 1
        new += ["-c", f]
        out.append({"directory": os.path.dirname(f), "arguments": new, "file": f})
    with open(os.path.join(tree, "compile_commands.json"), "w") as fh:
        json.dump(out, fh, indent=1)
    print("compdb: %d files of %s" % (len(out), tree))


if __name__ == "__main__":
    main()
