#!/usr/bin/env python3
# check.py QUARRY SET.tsv [--repo DIR] [--floor PCT] [-v]: asks tier 1 (`quarry ask`
# with no model) every question of a phrasing set on the fixture repository
# (fixture.py builds it, in a temporary directory unless --repo names one that exists)
# and checks each answer against git. Prints, for answerable questions, how many were
# answered right, answered wrong and declined, and for judgement questions how many were
# declined and answered. Exits 1 on any wrong answer, any judgement question answered,
# or a right rate under --floor (percent of the answerable questions).
#
# EXPECTED kinds (git arguments after the kind; @macros below expand to git arguments):
#   commits ARGS         the answer's rows are exactly `git log ARGS` (short hashes)
#   commits/count untouched=PATH ARGS: less the commits `git log ARGS -- PATH` lists
#                        ("commits not touching tests/" drops a commit that touches it)
#   count ARGS           the answer's :count is the number of commits `git log ARGS` lists
#   nauthors ARGS        the answer's :count is the number of distinct author emails
#   authors [top=N] [by=additions|deletions|lines] [asc] ARGS
#                        a ranking of `git log ARGS`'s authors: every row's figure is
#                        git's, rows are in order, and they are the top N (all without
#                        top=; top=1 accepts a longer list whose first row is a top one)
#   owner / fowner       authors top=1;  fauthors PATH: authors -- PATH
#   files [top=N] ARGS   files ranked by the commits of `git log --name-only ARGS`
#   largest [top=N] ARGS commits ranked by lines added + deleted
#   last PATH            the first row is `git log -1 -- PATH`
#   topcommits ARGS      the commits in ARGS of (one of) the window's most active authors
#   decline              needs judgement: tier 1 must not answer
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from datetime import datetime, timedelta, timezone

NOW = datetime(2026, 11, 24, 12, 0, 0, tzinfo=timezone.utc)
# The bot rule (docs/decisions.md, "Bots"): a name or email with "[bot]", "dependabot",
# "renovate" or "github-actions", or an email whose local part is "noreply"/"no-reply".
BOT_RE = r"\[bot\]|dependabot|renovate|github-actions|<no-?reply@"
PEOPLE = {"bob": "bob@example.org", "ines": "ines@example.org", "zoe": "zoe@example.com",
          "jose": "jose@example.es", "carol": "carol@users.noreply.github.com",
          "alice": "alice@example.com", "dependabot": "dependabot", "renovate": "renovate"}


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S")


def day(s):
    return datetime.strptime(s, "%Y-%m-%d")


def span(a, b):
    return ["--since=%sT00:00:00" % a.strftime("%Y-%m-%d"),
            "--until=%sT23:59:59" % b.strftime("%Y-%m-%d")]


def month_end(y, m):
    return (datetime(y + (m == 12), m % 12 + 1, 1) - timedelta(days=1))


def macro(m):
    name, _, arg = m[1:].partition(":")
    if name == "lastweek":
        return ["--since=" + iso(NOW - timedelta(days=7))]
    if name == "thisweek":
        return ["--since=2026-11-23T00:00:00"]
    if name == "thismonth":
        return ["--since=2026-11-01T00:00:00"]
    if name == "lastmonth":  # the calendar month before this one (docs/decisions.md, issue 27)
        return span(day("2026-10-01"), day("2026-10-31"))
    if name == "today":
        return ["--since=2026-11-24T00:00:00"]
    if name == "yesterday":
        return span(day("2026-11-23"), day("2026-11-23"))
    if name == "weekend":
        return span(day("2026-11-21"), day("2026-11-22"))
    if name == "ago":
        n, unit = int(arg[:-1]), arg[-1]
        d = timedelta(days=n) if unit == "d" else timedelta(hours=n)
        return ["--since=" + iso(NOW - d)]
    if name == "since":
        return ["--since=%sT00:00:00" % arg]
    if name == "before":
        return ["--until=" + iso(day(arg) - timedelta(seconds=1))]
    if name == "range":
        a, b = arg.split(":")
        return span(day(a), day(b))
    if name == "month":
        y, mo = map(int, arg.split("-"))
        return span(datetime(y, mo, 1), month_end(y, mo))
    if name == "year":
        return span(datetime(int(arg), 1, 1), datetime(int(arg), 12, 31))
    if name == "q":
        y, q = map(int, arg.split(":"))
        return span(datetime(y, 3 * q - 2, 1), month_end(y, 3 * q))
    if name == "nobots":
        return ["--perl-regexp", "--author=(?i)^(?!.*(?:%s))" % BOT_RE]
    if name == "bots":
        return ["--perl-regexp", "--author=(?i)(?:%s)" % BOT_RE]
    if name in PEOPLE:
        return ["--author=" + PEOPLE[name]]
    raise SystemExit("unknown macro " + m)


def git_args(words):
    out, path = [], []
    seen_dd = False
    for w in words:
        if w == "--":
            seen_dd = True
        elif seen_dd:
            path.append(w)
        elif w.startswith("@"):
            out += macro(w)
        else:
            out.append(w)
    return out, path


class Git:
    def __init__(self, repo):
        self.repo = repo

    def log(self, args, path, fmt):
        cmd = ["git", "-C", self.repo, "log", "--format=" + fmt] + args + ["HEAD", "--"] + path
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout

    def hashes(self, args, path):
        return self.log(args, path, "%h").split()

    def authors(self, args, path, by):
        """name -> figure (commits, additions, deletions or lines)"""
        fig = Counter()
        emails = {}
        if by == "commits":
            for line in self.log(args, path, "%an\t%ae").splitlines():
                name, email = line.split("\t")
                fig[name] += 1
                emails[name] = email
            return fig, emails
        cur = None
        for line in self.log(args + ["--numstat", "--no-renames"], path,
                             "\x01%an\t%ae").splitlines():
            if line.startswith("\x01"):
                cur, email = line[1:].split("\t")
                emails[cur] = email
                fig[cur] += 0
            elif line.strip():
                a, d, _ = line.split("\t", 2)
                a = int(a) if a != "-" else 0
                d = int(d) if d != "-" else 0
                fig[cur] += {"additions": a, "deletions": d, "lines": a + d}[by]
        return fig, emails

    def files(self, args, path):
        c = Counter()
        for line in self.log(args + ["--name-only", "--no-renames"], path, "").splitlines():
            if line.strip():
                c[line] += 1
        return c

    def sizes(self, args, path):
        c = Counter()
        cur = None
        for line in self.log(args + ["--numstat", "--no-renames"], path, "\x01%h").splitlines():
            if line.startswith("\x01"):
                cur = line[1:]
                c[cur] += 0
            elif line.strip():
                a, d, _ = line.split("\t", 2)
                c[cur] += (int(a) if a != "-" else 0) + (int(d) if d != "-" else 0)
        return c


def ranked_ok(rows, expected, key, figure, top, asc):
    """rows: the answer's; expected: key -> figure. Checks figures, order and cut."""
    if not rows:
        return False, "no rows"
    got = []
    for r in rows:
        k = r.get(key)
        if k not in expected:
            return False, "%r is not in git's answer" % k
        f = figure(r)
        if f != expected[k]:
            return False, "%r: %r, git says %r" % (k, f, expected[k])
        got.append(f)
    if len(set(r.get(key) for r in rows)) != len(rows):
        return False, "a row twice"
    if got != sorted(got, reverse=not asc):
        return False, "rows out of order"
    want = len(expected) if top is None else min(top, len(expected))
    if top == 1 and len(rows) >= 1:
        pass  # "who has the most": a full ranking whose first row is a top one is right
    elif len(rows) != want:
        return False, "%d rows, want %d" % (len(rows), want)
    rest = [v for k, v in expected.items() if k not in {r.get(key) for r in rows}]
    if rest:
        edge = got[-1]
        if (not asc and max(rest) > edge) or (asc and min(rest) < edge):
            return False, "a row that ranks higher was left out"
    return True, ""


def check(g, spec, out):
    words = shlex.split(spec)
    kind, words = words[0], words[1:]
    opts = {}
    while words and ("=" in words[0] and not words[0].startswith("-") or words[0] == "asc"):
        k, _, v = words.pop(0).partition("=")
        opts[k] = v or True
    if kind == "owner":
        kind, opts["top"] = "authors", "1"
    if kind in ("fowner", "fauthors"):
        if kind == "fowner":
            opts["top"] = "1"
        kind, words = "authors", ["--"] + words
    args, path = git_args(words)
    rows = out.get("findings") or []
    drop = set(g.hashes(args, [opts["untouched"]])) if "untouched" in opts else set()
    if kind == "commits":
        want = [h for h in g.hashes(args, path) if h not in drop]
        got = [r.get("short_hash") for r in rows]
        return (got == want, "got %d commits, git %d" % (len(got), len(want)))
    if kind in ("count", "nauthors"):
        if kind == "count":
            want = len([h for h in g.hashes(args, path) if h not in drop])
        else:
            want = len(set(g.log(args, path, "%ae").split()))
        got = out.get("count")
        try:
            got = int(got)
        except (TypeError, ValueError):
            return False, "no :count (%r)" % got
        return got == want, "count %d, git %d" % (got, want)
    top = int(opts["top"]) if "top" in opts else None
    if kind == "authors":
        by = opts.get("by", "commits")
        fig, _ = g.authors(args, path, by)

        def figure(r):
            if by == "lines":
                return r.get("lines", (r.get("additions") or 0) + (r.get("deletions") or 0))
            return r.get(by)
        return ranked_ok(rows, fig, "author", figure, top, "asc" in opts)
    if kind == "files":
        return ranked_ok(rows, g.files(args, path), "path", lambda r: r.get("commits"), top,
                         False)
    if kind == "largest":
        return ranked_ok(rows, g.sizes(args, path), "short_hash",
                         lambda r: r.get("lines", (r.get("additions") or 0) +
                                         (r.get("deletions") or 0)), top, False)
    if kind == "last":
        want = g.hashes(["-n1"], words)
        return bool(rows) and rows[0].get("short_hash") == want[0], "last %s" % want[0]
    if kind == "topcommits":
        fig, emails = g.authors(args, path, "commits")
        if not fig:
            return rows == [], "empty window"
        best = max(fig.values())
        got = [r.get("short_hash") for r in rows]
        for name, v in fig.items():
            if v == best and got == g.hashes(args + ["--author=" + emails[name]], path):
                return True, ""
        return False, "not the commits of a top author"
    raise SystemExit("unknown kind " + kind)


def ask(quarry, repo, q, env):
    p = subprocess.run([quarry, "ask", q, "--format", "json", "--explain"], cwd=repo,
                       capture_output=True, text=True, env=env)
    rule = None
    for line in p.stderr.splitlines():
        try:
            ex = json.loads(line).get("explain", {})
        except (ValueError, AttributeError):
            continue
        if ex.get("tier") == 1:
            rule = ex.get("rule")
    if p.returncode != 0 or rule is None:
        return None, None
    try:
        return rule, json.loads(p.stdout)
    except ValueError:
        return rule, {}


def main():
    argv = sys.argv[1:]
    verbose = "-v" in argv
    argv = [a for a in argv if a != "-v"]
    floor, repo = None, None
    if "--floor" in argv:
        i = argv.index("--floor")
        floor = float(argv[i + 1])
        del argv[i:i + 2]
    if "--repo" in argv:
        i = argv.index("--repo")
        repo = argv[i + 1]
        del argv[i:i + 2]
    quarry, setfile = os.path.abspath(argv[0]), argv[1]
    os.environ["TZ"] = "UTC"  # git reads the ISO dates of the expectations in UTC
    tmp = tempfile.mkdtemp(prefix="router-bench-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUARRY_LLM")}
    env.update(QUARRY_NOW="2026-11-24T12:00:00Z", TZ="UTC", LC_ALL="C.UTF-8",
               HOME=os.path.join(tmp, "home"), GIT_CONFIG_NOSYSTEM="1")
    os.makedirs(env["HOME"], exist_ok=True)
    if not repo:  # a fixture of this run only (removed with tmp)
        repo = os.path.join(tmp, "repo")
    if not os.path.isdir(os.path.join(repo, ".git")):
        here = os.path.dirname(os.path.abspath(__file__))
        subprocess.run([sys.executable, os.path.join(here, "fixture.py"), repo], check=True,
                       env=env)
    g = Git(repo)
    tally = Counter()
    lines = []
    for raw in open(setfile, encoding="utf-8"):
        raw = raw.rstrip("\n")
        if not raw.strip() or raw.startswith("#"):
            continue
        q, spec = raw.split("\t")
        rule, out = ask(quarry, repo, q, env)
        if spec == "decline":
            res = "declined" if rule is None else "ANSWERED"
            tally["judgement " + res] += 1
        elif rule is None:
            res = "declined"
            tally["declined"] += 1
        else:
            ok, why = check(g, spec, out)
            res = "right" if ok else "WRONG (%s)" % why
            tally["right" if ok else "wrong"] += 1
        if verbose or res not in ("right", "declined") or (verbose and res == "declined"):
            lines.append("%-9s %-22s %s" % (res.split(" ")[0], rule or "-", q) +
                         ("" if res in ("right", "declined", "ANSWERED") else "  " + res))
        elif res == "declined" and spec != "decline":
            lines.append("%-9s %-22s %s" % ("declined", "-", q))
    for line in lines:
        if verbose or not line.startswith("declined"):
            print(line)
    n = tally["right"] + tally["wrong"] + tally["declined"]
    j = tally["judgement declined"] + tally["judgement ANSWERED"]
    rate = 100.0 * tally["right"] / n if n else 0.0
    print("answerable %d: right %d (%.1f%%), wrong %d, declined %d" %
          (n, tally["right"], rate, tally["wrong"], tally["declined"]))
    print("judgement %d: declined %d, answered %d" %
          (j, tally["judgement declined"], tally["judgement ANSWERED"]))
    shutil.rmtree(tmp, ignore_errors=True)
    bad = tally["wrong"] or tally["judgement ANSWERED"] or (floor is not None and rate < floor)
    if floor is not None and rate < floor:
        print("FAIL: right rate %.1f%% under the floor %.1f%%" % (rate, floor))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
