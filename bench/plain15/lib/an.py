"""Analysis helpers for build_set.py: ctags, cscope, grep over the htop fixture (machinery only, no items)."""
import collections, os, re, subprocess

class Fixture:
    def __init__(self, fx, work):
        self.fx, self.work = fx, work
        os.makedirs(work, exist_ok=True)
        self.files = subprocess.run(["git", "-C", fx, "ls-files", "*.c", "*.h"], capture_output=True, text=True,
                                    check=True).stdout.split()
        with open(os.path.join(work, "files"), "w") as f: f.write("\n".join(self.files) + "\n")
        subprocess.run(["ctags", "--fields=+neKSZ", "--kinds-C=+p", "-f", os.path.join(work, "tags"), "-L",
                        os.path.join(work, "files")], cwd=fx, check=True)
        self.tags = []
        for l in open(os.path.join(work, "tags"), encoding="utf-8", errors="replace"):
            if l.startswith("!"): continue
            p = l.rstrip("\n").split("\t")
            d = dict(name=p[0], file=p[1], kind=p[3])
            for x in p[4:]:
                if ":" in x:
                    k, v = x.split(":", 1)
                    if k == "file": d["filescope"] = True
                    elif k not in d: d[k] = v
            d["line"] = int(d.get("line", 0)); d["end"] = int(d["end"]) if "end" in d else None
            self.tags.append(d)
        self.cs_tmp = os.path.join(work, "cstmp"); os.makedirs(self.cs_tmp, exist_ok=True)
        self.cs_db = os.path.join(work, "cscope.out")
        self._cscope(["-b", "-q", "-k", "-i", os.path.join(work, "files"), "-f", self.cs_db])
        self.src = {f: open(os.path.join(fx, f), encoding="utf-8", errors="replace").read().split("\n") for f in self.files}
        self.macros = {t["name"] for t in self.tags if t["kind"] == "macro"}
        self.funcs = {t["name"] for t in self.tags if t["kind"] == "function"}
        self._inactive = {}

    def _cscope(self, args):
        env = dict(os.environ, TMPDIR=self.cs_tmp)
        for _ in range(5):
            r = subprocess.run(["cscope"] + args, cwd=self.fx, env=env, capture_output=True, text=True)
            if r.returncode == 0: return r.stdout
        raise RuntimeError("cscope failed: %s %s" % (args, r.stderr))

    def cs(self, num, name):
        out = self._cscope(["-d", "-f", self.cs_db, "-L", "-%d" % num, name])
        rows = []
        for l in out.splitlines():
            p = l.split(" ", 3)
            if len(p) >= 3: rows.append(dict(file=p[0], func=p[1], line=int(p[2]), text=p[3] if len(p) > 3 else ""))
        return rows

    def in_define(self, f, line):
        """is line (1-based) inside a #define body (continued lines)?"""
        L = self.src[f]; i = line - 1
        while i >= 0:
            s = L[i]
            if re.match(r"\s*#\s*define\b", s): return True
            if i < line - 1 and not L[i].rstrip().endswith("\\"): return False
            if i == line - 1 and i > 0 and not L[i - 1].rstrip().endswith("\\"):
                return bool(re.match(r"\s*#\s*define\b", s))
            i -= 1
        return False

    def inactive_lines(self, f):
        """lines under #ifdef M / #if defined(M) / #if M where no repo file #defines M (an approximation of
        'a macro nothing defines'); #else of such a branch is active."""
        if f in self._inactive: return self._inactive[f]
        res, stack = set(), []
        for i, s in enumerate(self.src[f], 1):
            m = re.match(r"\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)", s)
            if m:
                d, cond = m.group(1), m.group(2)
                if d in ("if", "ifdef", "ifndef"):
                    stack.append(self._dead(d, cond))
                elif d == "elif" and stack:
                    stack[-1] = self._dead("if", cond)
                elif d == "else" and stack:
                    stack[-1] = False   # the other side of a dead branch is live; of a live one, taken as live
                elif d == "endif" and stack:
                    stack.pop()
                continue
            if any(stack): res.add(i)
        self._inactive[f] = res
        return res

    def _dead(self, d, cond):
        cond = re.sub(r"/\*.*?\*/|//.*", "", cond).strip()
        if d == "ifdef": m = re.fullmatch(r"(\w+)", cond)
        elif d == "ifndef": return False
        else: m = re.fullmatch(r"(?:defined\s*\(?\s*(\w+)\s*\)?|(\w+))", cond)
        if cond == "0": return True
        if not m: return False
        name = [g for g in m.groups() if g][0]
        if name.isdigit(): return name == "0"
        return name not in self.macros

    def enclosing_function(self, f, line):
        best = None
        for t in self.tags:
            if t["file"] == f and t["kind"] == "function" and t["line"] <= line and (t["end"] or t["line"]) >= line:
                if best is None or t["line"] > best["line"]: best = t
        return best["name"] if best else None


# ---------------------------------------------------------------- more helpers
INC = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')

def strip_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)

class More:
    def __init__(self, F):
        self.F = F
        self.fileset = set(F.files)

    def includes(self, f):
        """[(raw name, quoted?, line, resolved path or None)]"""
        out = []
        for i, s in enumerate(self.F.src[f], 1):
            m = INC.match(s)
            if not m: continue
            q, name = m.group(1) == '"', m.group(2)
            res = None
            if q:
                cand = os.path.normpath(os.path.join(os.path.dirname(f), name))
                if cand in self.fileset: res = cand
                elif name in self.fileset: res = name
            out.append((name, q, i, res))
        return out

    def includers(self, header, active_only=False):
        out = set()
        for f in self.F.files:
            for name, q, ln, res in self.includes(f):
                if active_only and ln in self.F.inactive_lines(f): continue
                if res == header: out.add(f)
        return out

    def transitive_includers(self, header):
        seen, todo = set(), [header]
        while todo:
            h = todo.pop()
            for f in self.includers(h):
                if f not in seen:
                    seen.add(f)
                    if f.endswith(".h"): todo.append(f)
        return seen

    def transitive_includes(self, f, system=False):
        seen, names, todo = set(), set(), [f]
        while todo:
            g = todo.pop()
            for name, q, ln, res in self.includes(g):
                if res and res not in seen:
                    seen.add(res); names.add(os.path.basename(res)); todo.append(res)
                elif system and not res:
                    names.add(os.path.basename(name))
        return names

    def func_tags(self, name=None, file=None):
        return [t for t in self.F.tags if t["kind"] == "function" and (name is None or t["name"] == name)
                and (file is None or t["file"] == file)]

    def is_static(self, t):
        L = self.F.src[t["file"]]
        s = L[t["line"] - 1].lstrip()
        prev = L[t["line"] - 2].strip() if t["line"] >= 2 else ""
        return s.startswith("static") or (prev.startswith("static") and not prev.endswith(";"))

    def is_inline(self, t):
        L = self.F.src[t["file"]]
        return "inline" in L[t["line"] - 1] or (t["line"] >= 2 and "inline" in L[t["line"] - 2])

    def call_sites(self, name):
        """cscope -3 sites of name( outside #define bodies, with the ctags enclosing function (None dropped)"""
        out = []
        for r in self.F.cs(3, name):
            if self.F.in_define(r["file"], r["line"]): continue
            enc = self.F.enclosing_function(r["file"], r["line"])
            if enc is None: continue
            out.append(dict(file=r["file"], line=r["line"], caller=enc,
                            inactive=r["line"] in self.F.inactive_lines(r["file"])))
        return out

    def grep_sites(self, name):
        """text reading: lines with NAME( in comment-stripped code, outside #define bodies, in a function, not its def"""
        out, pat = [], re.compile(r"(?<![\w.>])" + re.escape(name) + r"\s*\(")
        defs = {(t["file"], t["line"]) for t in self.F.tags if t["name"] == name and t["kind"] in ("function", "prototype")}
        for f in self.F.files:
            lines = strip_comments("\n".join(self.F.src[f])).split("\n")
            lines = [re.sub(r'"(?:[^"\\]|\\.)*"', '""', s) for s in lines]   # string literals blanked
            for i, s in enumerate(lines, 1):
                if pat.search(s) and (f, i) not in defs and not self.F.in_define(f, i):
                    enc = self.F.enclosing_function(f, i)
                    if enc: out.append(dict(file=f, line=i, caller=enc))
        return out

    def define_name(self, f, line):
        L = self.F.src[f]; i = line - 1
        while i >= 0:
            m = re.match(r"\s*#\s*define\s+(\w+)", L[i])
            if m: return m.group(1)
            i -= 1
            if i >= 0 and not L[i].rstrip().endswith("\\"): return None
        return None

    def macro_wrappers(self, name):
        """macros whose #define body calls name( (cscope -3 sites inside #define bodies)"""
        out = set()
        for r in self.F.cs(3, name):
            if self.F.in_define(r["file"], r["line"]):
                m = self.define_name(r["file"], r["line"])
                if m and m != name: out.add(m)
        return out

    def macro_body_calls(self, macro):
        out = set()
        for t in self.F.tags:
            if t["kind"] == "macro" and t["name"] == macro:
                L = self.F.src[t["file"]]; i = t["line"] - 1; body = L[i]
                while L[i].rstrip().endswith("\\") and i + 1 < len(L):
                    i += 1; body += "\n" + L[i]
                body = re.sub(r"^\s*#\s*define\s+\w+", "", body)
                out |= set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", body))
        out.discard(macro)
        return out

    def raw_callees(self, name, file=None):
        """cscope -2 (callee, line, file) within the ctags ranges of name's definitions"""
        defs = self.func_tags(name, file)
        out = []
        for r in self.F.cs(2, name):
            for t in defs:
                if r["file"] == t["file"] and t["line"] <= r["line"] <= (t["end"] or t["line"]):
                    out.append(dict(callee=r["func"], line=r["line"], file=r["file"],
                                    inactive=r["line"] in self.F.inactive_lines(r["file"])))
        return out
