#!/usr/bin/env python3
"""Write router.jsonl, dwim.jsonl, code.jsonl and the dev/heldout split.
Every expect is the output of the item's "how" (bash, run in a freshly built fixture, TZ=UTC).
how output: one value per line; alternatives (any_of) are separated by a line '---';
a line '@decline' as an alternative means declining is also right.
usage: gen_sets.py   (builds the fixture itself in a temp dir)"""
import json, os, subprocess, sys, tempfile, re
HERE = os.path.dirname(os.path.abspath(__file__))
NOW_EPOCH = 1795106700  # 2026-11-19T16:45:00Z, a Thursday
FX = tempfile.mkdtemp(prefix="kvfx-")
subprocess.run([os.path.join(HERE, "make_fixture.sh"), FX, str(NOW_EPOCH)], check=True)
ENV = dict(os.environ, TZ="UTC", LC_ALL="C", GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")

def sh(cmd):
    r = subprocess.run(["bash", "-c", cmd], cwd=FX, env=ENV, capture_output=True, text=True)
    if r.returncode not in (0, 1):
        sys.exit("how failed: %s\n%s" % (cmd, r.stderr))
    return r.stdout

def parse(typ, text):
    lines = [l.strip() for l in text.strip().splitlines() if l.strip()]
    if typ == "count": return int(lines[0]) if lines else 0
    if typ in ("yesno", "date"): return lines[0]
    if typ == "hashes": return sorted(l[:7] for l in lines)
    if typ == "did_you_mean": return lines[0]
    if typ in ("names", "files", "headers", "includes", "locations", "emails"): return sorted(lines)
    return lines

def topn_alts(out):
    import itertools
    lines = out.strip().splitlines()
    n = int(lines[0].split()[1]); rows = [(int(l.split()[0]), l.split()[1]) for l in lines[1:]]
    if len(rows) <= n: return [[r[1] for r in rows]]
    cut = rows[n - 1][0]
    above = [r[1] for r in rows if r[0] > cut]
    tied = [r[1] for r in rows if r[0] == cut]
    return [above + list(c) for c in itertools.combinations(tied, n - len(above))]

def expect_of(typ, how):
    if how == "DECLINE": return "decline"
    out = sh(how)
    if out.startswith("TOP "):
        alts = topn_alts(out)
        return {"type": typ, "value": alts[0]} if len(alts) == 1 else {"type": typ, "any_of": alts}
    alts = [a for a in re.split(r"^---$", out, flags=re.M)]
    vals = []
    for a in alts:
        if a.strip() == "@decline": vals.append("decline")
        else:
            v = parse(typ, a)
            if v not in vals: vals.append(v)
    if len(vals) == 1: return {"type": typ, "value": vals[0]}
    return {"type": typ, "any_of": vals}

# ------------------------------------------------------------------ shell building blocks
LOG = "git log --use-mailmap"
def H(args): return "%s --format=%%H %s | cut -c1-7" % (LOG, args)
def C(args): return "git rev-list --count HEAD %s" % args
def Y(y): return "--since='%d-01-01 00:00:00' --until='%d-12-31 23:59:59'" % (y, y)
def W(a, b): return "--since='%s' --until='%s'" % (a, b)
def AE(email, args=""): return "%s --format=%%aE %s | grep -cx '%s'" % (LOG, args, email)
def ALT(*cmds): return "; echo ---; ".join("{ %s; }" % c for c in cmds)
def DECL(cmd): return "{ %s; }; echo ---; echo @decline" % cmd
TOP = lambda args, n=1: "%s --format=%%aE %s | sort | uniq -c | sort -k1,1nr -k2 | awk -v n=%d 'NR==1{m=$1} {c[NR]=$1; e[NR]=$2} END{for(i=1;i<=NR;i++) if (c[i]>=c[n]) print e[i]}' " % (LOG, args, n)
def TOPN(args, n):
    # prints "TOP n" then every "count name"; expect_of takes the top n and, when the n-th place is tied,
    # one alternative per way of filling it (orderings among equal counts are left to the scorer's tie rule)
    return "echo TOP %d; %s --format=%%aE %s | sort | uniq -c | sort -k1,1nr -k2" % (n, LOG, args)
def RANKN(args, n):
    return "%s --format=%%aE %s | sort | uniq -c | sort -k1,1nr -k2 | awk 'NR==%d{print $2}'" % (LOG, args, n)
def TIE_AT(args, n):
    return "%s --format=%%aE %s | sort | uniq -c | sort -k1,1nr -k2 | awk -v n=%d '{c[NR]=$1; e[NR]=$2} END{for(i=1;i<=NR;i++) if (c[i]==c[n]) print e[i]}'" % (LOG, args, n)
def BOTTOM(args):
    return "%s --format=%%aE %s | sort | uniq -c | sort -k1,1n | awk 'NR==1{m=$1} $1==m{print $2}'" % (LOG, args)
def EMAILS(args): return "%s --format=%%aE %s | sort -u" % (LOG, args)
def FILETOP(args, n):
    return "echo TOP %d; git log --no-renames --format= --name-only %s | grep -v '^$' | sort | uniq -c | sort -k1,1nr -k2" % (n, args)
def FILETIE(args):
    return "git log --no-renames --format= --name-only %s | grep -v '^$' | sort | uniq -c | sort -k1,1nr | awk 'NR==1{m=$1} $1==m{print $2}'" % args
def LASTDATE(args): return "%s -1 --format=%%ad --date=short %s" % (LOG, args)

THISWEEK = W("2026-11-16 00:00:00", "2026-11-19 16:45:00")
LAST7 = W("2026-11-12 16:45:00", "2026-11-19 16:45:00")
LASTWEEK_CAL = W("2026-11-09 00:00:00", "2026-11-15 23:59:59")
OCT = W("2026-10-01 00:00:00", "2026-10-31 23:59:59")
MONTHBACK = W("2026-10-19 16:45:00", "2026-11-19 16:45:00")
D30 = W("2026-10-20 16:45:00", "2026-11-19 16:45:00")
THISMONTH = W("2026-11-01 00:00:00", "2026-11-19 16:45:00")
THISYEAR = W("2026-01-01 00:00:00", "2026-11-19 16:45:00")
YESTERDAY = W("2026-11-18 00:00:00", "2026-11-18 23:59:59")
TODAY = W("2026-11-19 00:00:00", "2026-11-19 16:45:00")
D90 = W("2026-08-21 16:45:00", "2026-11-19 16:45:00")
D14 = W("2026-11-05 16:45:00", "2026-11-19 16:45:00")
V20DATE = "--since='2025-08-12 14:00:00'"
REV214 = "git log --format=%H --grep='follow-up for #214' | cut -c1-7"

def hash_of(grep):
    return sh("git log --format=%%H --fixed-strings --grep=%s | head -1 | cut -c1-7" % json.dumps(grep)).strip()

R214 = hash_of("follow-up for #214")
RLEG = hash_of("remove legacy_db backend")
RVHEAD = sh("git log --format=%H --grep='^Revert' | tail -1 | cut -c1-7").strip()

# (text, kind, type, how)
ROUTER = [
 ("how many commits are on main?", "count", "count", "git rev-list --count main"),
 ("total number of commits in this repo", "count", "count", ALT("git rev-list --count HEAD", "git rev-list --count --all")),
 ("How many commits did we make in 2024?", "count", "count", C(Y(2024))),
 ("commits in march 2025?", "window", "hashes", H(W("2025-03-01 00:00:00", "2025-03-31 23:59:59"))),
 ("how many commits did tomasz land in 2025", "author_count", "count", AE("tomasz.nowak@kvlite.dev", Y(2025))),
 ("number of commits by Nowak", "author_count", "count", DECL("%s --format=%%aN | grep -c 'Nowak$'" % LOG)),
 ("how many commits has markus.fischer@kvlite.dev authored", "author_count", "count", ALT(AE("markus.fischer@kvlite.dev"), "git log --format=%ae | grep -cx markus.fischer@kvlite.dev")),
 ("how many commits are from mfischer?", "author_count", "count", ALT(AE("markus.fischer@kvlite.dev"), "git log --format=%an | grep -cx mfischer")),
 ("how many merge commits were there in 2025", "merges", "count", "git rev-list --count --merges HEAD " + Y(2025)),
 ("how many reverts have there been", "reverts", "count", "git log --format=%s | grep -c '^Revert'"),
 ("how many people have committed this year so far?", "distinct", "count", EMAILS(THISYEAR) + " | wc -l"),
 ("how many different authors has the project had", "distinct", "count", EMAILS("") + " | wc -l"),
 ("how many commits were made on weekends?", "weekday", "count", "git log --format=%ad --date=format:%a | grep -cE 'Sat|Sun'"),
 ("how many commits touched vendor/", "path_count", "count", C("-- vendor")),
 ("number of commits that changed src/wal.c", "path_count", "count", C("-- src/wal.c")),
 ("how many times has src/store.c been modified?", "path_count", "count", ALT("git log --follow --format=%h -- src/store.c | wc -l", C("-- src/store.c"))),
 ("how many commits since the 2.0 release", "release", "count", ALT("git rev-list --count v2.0.0..HEAD", C(V20DATE))),
 ("commits between v1.0.0 and v1.1.0, how many?", "release", "count", "git rev-list --count v1.0.0..v1.1.0"),
 ("how many commits in Q3 2024", "window", "count", C(W("2024-07-01 00:00:00", "2024-09-30 23:59:59"))),
 ("how many commits last month", "window", "count", ALT(C(OCT), C(MONTHBACK), C(D30))),
 ("commits this week", "window", "hashes", ALT(H(THISWEEK), H(LAST7))),
 ("what was committed on tuesday?", "weekday", "hashes", H(W("2026-11-17 00:00:00", "2026-11-17 23:59:59"))),
 ("was anything committed today?", "yesno", "yesno", "[ $(git rev-list --count HEAD %s) -gt 0 ] && echo yes || echo no" % TODAY),
 ("did anyone push commits yesterday", "yesno", "yesno", "[ $(git rev-list --count HEAD %s) -gt 0 ] && echo yes || echo no" % YESTERDAY),
 ("show me last thursday's commits", "weekday", "hashes", H(W("2026-11-12 00:00:00", "2026-11-12 23:59:59"))),
 ("commits on 2025-06-17", "window", "hashes", H(W("2025-06-17 00:00:00", "2025-06-17 23:59:59"))),
 ("list the commits from new year's day 2025", "window", "hashes", H(W("2025-01-01 00:00:00", "2025-01-01 23:59:59"))),
 ("what did Kenji do last week", "author_window", "hashes", ALT(H("--author=Kenji " + LASTWEEK_CAL), H("--author=Kenji " + LAST7))),
 ("show Priya's commits from this month", "author_window", "hashes", H("--author=Priya " + THISMONTH)),
 ("commits by Alex", "ambiguous", "hashes", "DECLINE"),
 ("commits by Alex Kim in 2026", "author_window", "hashes", H("--author='Alex Kim' " + Y(2026))),
 ("what has alexkim@protonmail.com committed since september?", "author_window", "hashes", H("--author=alexkim@protonmail.com --since='2026-09-01 00:00:00'")),
 ("who committed the most in 2025", "top", "email", TOP(Y(2025))),
 ("top 3 contributors this year", "ranking", "ranking", TOPN(THISYEAR, 3)),
 ("top five authors of all time", "ranking", "ranking", TOPN("", 5)),
 ("least active contributor in 2024", "bottom", "email", BOTTOM(Y(2024))),
 ("who's the second most prolific committer?", "ordinal", "email", TIE_AT("", 2)),
 ("top 3 contributors to lib/", "ranking", "ranking", TOPN("-- lib", 3)),
 ("who touched src/wal.c the most", "top", "email", TOP("-- src/wal.c")),
 ("who created src/store.c", "creator", "email", ALT("%s --follow --format=%%aE -- src/store.c | tail -1" % LOG, "%s --diff-filter=A --format=%%aE -- src/store.c | tail -1" % LOG, "%s --format=%%aE -- src/store.c | tail -1" % LOG)),
 ("who added tools/kvbench.c?", "creator", "email", "%s --diff-filter=A --format=%%aE -- tools/kvbench.c" % LOG),
 ("who last changed src/compact.c", "last_changer", "email", "%s -1 --format=%%aE -- src/compact.c" % LOG),
 ("when was src/cli.c last modified", "last_date", "date", LASTDATE("-- src/cli.c")),
 ("history of lib/crc32.c", "file_history", "hashes", H("--follow -- lib/crc32.c")),
 ("show the history of docs/format.md", "file_history", "hashes", ALT(H("--follow -- docs/format.md"), H("-- docs/format.md"))),
 ("files changed in commit %s" % R214, "commit_files", "files", "git show --format= --name-only %s" % R214),
 ("which files did the 'wal: follow-up for #214' commit touch?", "commit_files", "files", "git show --format= --name-only %s" % R214),
 ("what files changed in the latest commit", "commit_files", "files", "git show --format= --name-only HEAD"),
 ("top 5 most changed files in 2025", "file_ranking", "paths", FILETOP(Y(2025), 5)),
 ("which file changes the most?", "file_ranking", "string", FILETIE("")),
 ("who contributes most to tests/", "top", "email", TOP("-- tests")),
 ("how many commits mention #214", "grep", "count", "git log --format=%H --grep='#214\\b' -P | wc -l"),
 ("commits referencing issue 305", "grep", "hashes", H("-P --grep='#305\\b'")),
 ("show commits that fix #168", "grep", "hashes", H("-P --grep='#168\\b'")),
 ("list all reverts", "reverts", "hashes", H("--grep='^Revert'")),
 ("list merge commits from 2026", "merges", "hashes", H("--merges " + Y(2026))),
 ("were there any commits on 2025-12-25?", "yesno", "yesno", "[ $(git rev-list --count HEAD --since='2025-12-25 00:00:00' --until='2025-12-25 23:59:59') -gt 0 ] && echo yes || echo no"),
 ("did Lena commit anything in 2025?", "yesno", "yesno", "[ $(%s) -gt 0 ] && echo yes || echo no" % AE("lena.brandt@kvlite.dev", Y(2025))),
 ("has Olu ever touched src/store.c?", "yesno", "yesno", "[ $(%s) -gt 0 ] && echo yes || echo no" % AE("olu@adeyemi.ng", "--follow -- src/store.c")),
 ("when did Kenji last touch src/wal.c", "last_date", "date", LASTDATE("--author=Kenji -- src/wal.c")),
 ("when did Grace last commit?", "last_date", "date", LASTDATE("--author=Grace")),
 ("when was the first commit made", "first", "date", "git log --reverse --format=%ad --date=short | head -1"),
 ("what was Daniel Okafor's first commit", "first", "hashes", "%s --reverse --author='Daniel Okafor' --format=%%H | head -1 | cut -c1-7" % LOG),
 ("which day of the week has the most commits", "weekday", "string", "git log --format=%ad --date=format:%A | sort | uniq -c | sort -k1,1nr | awk 'NR==1{m=$1} $1==m{print $2}'"),
 ("how many commits were made between midnight and 5am?", "hours", "count", "git log --format=%ad --date=format:%H | awk '$1<5' | wc -l"),
 ("commits by priya or kenji in october 2026", "either_or", "hashes", H("--author=Priya --author=Kenji " + OCT)),
 ("how many commits this year excluding Priya's", "exclusion", "count", "%s --format=%%aE %s | grep -vcx priya@kvlite.dev" % (LOG, THISYEAR)),
 ("commits to src/ not by tomasz in Q1 2026 - how many", "exclusion", "count", "%s --format=%%aE %s -- src | grep -vcx tomasz.nowak@kvlite.dev" % (LOG, W("2026-01-01 00:00:00", "2026-03-31 23:59:59"))),
 ("top 3 files changed by Markus", "file_ranking", "paths", FILETOP("--author=Markus --author=mfischer", 3)),
 ("which files has Anna Nowak changed?", "author_files", "files", "git log --no-renames --author='Anna Nowak' --format= --name-only | grep -v '^$' | sort -u"),
 ("who changed the Makefile most recently", "last_changer", "email", "%s -1 --format=%%aE -- Makefile" % LOG),
 ("commits between v2.1.0 and v2.2.0 by Tomasz", "release", "hashes", H("--author=Tomasz v2.1.0..v2.2.0")),
 ("how many commits went into v1.0.0", "release", "count", "git rev-list --count v1.0.0"),
 ("who contributed to the 2.1 release", "release", "emails", EMAILS("v2.0.0..v2.1.0")),
 ("authors in the last 30 days", "distinct", "emails", EMAILS(D30)),
 ("who has committed in the past 2 weeks?", "distinct", "emails", EMAILS(D14)),
 ("who hasn't committed anything since 2025?", "distinct", "emails", ALT("comm -23 <(%s) <(%s)" % (EMAILS(""), EMAILS("--since='2026-01-01 00:00:00'")), "comm -23 <(%s) <(%s)" % (EMAILS(""), EMAILS("--since='2025-01-01 00:00:00'")))),
 ("commits on feature/mmap that aren't in main", "branch", "hashes", H("main..feature/mmap")),
 ("how many commits has the release/1.2 branch got that v1.2.0 doesn't", "branch", "count", "git rev-list --count v1.2.0..release/1.2"),
 ("how many commits did Priya make on weekends", "weekday", "count", "%s --author=Priya --format=%%ad --date=format:%%a | grep -cE 'Sat|Sun'" % LOG),
 ("how many commits were made on saturdays in 2025", "weekday", "count", "git log --format=%%ad --date=format:%%a %s | grep -cx Sat" % Y(2025)),
 ("count of commits touching header files in 2026", "path_count", "count", C(Y(2026) + " -- '*.h'")),
 ("how many files were changed in %s" % RLEG, "commit_files", "count", "git show --format= --name-only %s | grep -c ." % RLEG),
 ("who deleted src/legacy_db.c", "creator", "email", "%s --diff-filter=D --format=%%aE -- src/legacy_db.c" % LOG),
 ("when was tools/migrate.py removed?", "last_date", "date", "git log --diff-filter=D --format=%ad --date=short -- tools/migrate.py"),
 ("which commit removed legacy_db.c", "grep", "hashes", H("--diff-filter=D -- src/legacy_db.c")),
 ("the 10 most recent commits", "recent", "hashes", H("-10")),
 ("last 3 commits to lib/hash.c", "file_history", "hashes", H("-3 -- lib/hash.c")),
 ("commits mentioning compaction", "grep", "hashes", H("-i --grep=compaction")),
 ("commits with 'typo' in the message", "grep", "hashes", H("-i --grep=typo")),
 ("hey, could you tell me who has been the most active committer over the last 90 days?", "top", "email", TOP(D90)),
 ("how many commmits did sofia do in 2025", "misspelt", "count", AE("sofia@lindqvist.se", Y(2025))),
 ("whos made the most changes to the Makefile", "misspelt", "email", TOP("-- Makefile")),
 ("files tomasz touched last month", "author_files", "files", ALT(*["git log --no-renames --author=Tomasz --format= --name-only %s | grep -v '^$' | sort -u" % w for w in (OCT, MONTHBACK, D30)])),
 ("show me kenji's commits on src/wal.c in 2026", "author_path", "hashes", H("--author=Kenji %s -- src/wal.c" % Y(2026))),
 ("how many commits in the first half of 2025", "window", "count", C(W("2025-01-01 00:00:00", "2025-06-30 23:59:59"))),
 ("count commits jan 2026", "window", "count", C(W("2026-01-01 00:00:00", "2026-01-31 23:59:59"))),
 ("how many commits has rmenon made", "author_count", "count", ALT(AE("rahul.menon@kvlite.dev"), "git log --format=%an | grep -cx rmenon")),
 ("kenji@watanabe.jp commits in 2024 - count", "author_count", "count", ALT(AE("kenji.w@kvlite.dev", Y(2024)), "git log --format=%%ae %s | grep -cx kenji@watanabe.jp" % Y(2024))),
 ("who made the very first commit?", "first", "email", "%s --reverse --format=%%aE | head -1" % LOG),
 ("who made the latest commit", "last_changer", "email", "%s -1 --format=%%aE" % LOG),
 ("commit counts per author for 2023", "ranking", "ranking", TOPN(Y(2023), 20)),
 ("which authors touched lib/crc32.c", "distinct", "emails", EMAILS("-- lib/crc32.c")),
 ("how many commits did Priya make in Q2 2024?", "author_count", "count", AE("priya@kvlite.dev", W("2024-04-01 00:00:00", "2024-06-30 23:59:59"))),
 ("what was Priya's third commit", "ordinal", "hashes", ALT("%s --reverse --author=Priya --format=%%H | sed -n 3p | cut -c1-7" % LOG, "%s --author=Priya --format=%%H | sed -n 3p | cut -c1-7" % LOG)),
 ("show the fifth commit in the repository", "ordinal", "hashes", "git log --reverse --format=%H | sed -n 5p | cut -c1-7"),
 ("how many commits changed markdown files this year", "path_count", "count", C(THISYEAR + " -- '*.md'")),
 ("how many commits has Anna Nowak made since v2.0.0?", "release", "count", ALT(AE("anna.nowak@gmail.com", "v2.0.0..HEAD"), AE("anna.nowak@gmail.com", V20DATE))),
 ("who committed to src/cli.c between v2.1.0 and v2.2.0", "release", "emails", EMAILS("v2.1.0..v2.2.0 -- src/cli.c")),
 ("did anyone commit on 2026-11-14?", "yesno", "yesno", "[ $(git rev-list --count HEAD --since='2026-11-14 00:00:00' --until='2026-11-14 23:59:59') -gt 0 ] && echo yes || echo no"),
 ("is there any commit mentioning #399?", "yesno", "yesno", "[ $(git log --format=%h -P --grep='#399\\b' | wc -l) -gt 0 ] && echo yes || echo no"),
 ("Rahul's commits in the last 90 days", "author_window", "hashes", H("--author=rahul.menon " + D90)),
 ("how many commits did the Watanabe guy make in 2026", "author_count", "count", AE("kenji.w@kvlite.dev", Y(2026))),
 ("who wrote the most commits touching docs/ in 2024", "top", "email", TOP(Y(2024) + " -- docs")),
 ("number of commits to the tests directory last year", "path_count", "count", C(Y(2025) + " -- tests")),
 ("what did sofia commit in october 2025?", "author_window", "hashes", H("--author=Sofia " + W("2025-10-01 00:00:00", "2025-10-31 23:59:59"))),
 ("who reverted the most commits", "reverts", "email", TOP("--grep='^Revert'")),
 ("who merged the most pull requests", "merges", "email", TOP("--merges")),
 ("how many commits did Daniel make late at night (after 10pm)?", "hours", "count", ALT("%s --author=Daniel --format=%%ad --date=format:%%H | awk '$1>=22' | wc -l" % LOG, "%s --author=Daniel --format=%%ad --date=format:%%H | awk '$1>=22 || $1<5' | wc -l" % LOG)),
 ("commits between 2025-05-01 and 2025-05-15 on lib/", "path_window", "hashes", H(W("2025-05-01 00:00:00", "2025-05-15 23:59:59") + " -- lib")),
 ("how many comits in december 2024", "misspelt", "count", C(W("2024-12-01 00:00:00", "2024-12-31 23:59:59"))),
 ("which contributors touched both src/wal.c and src/compact.c?", "distinct", "emails", "comm -12 <(%s) <(%s)" % (EMAILS("-- src/wal.c"), EMAILS("-- src/compact.c"))),
 ("lines added by Sofia in 2025", "lines", "count", "git log --no-renames --no-merges --author=Sofia --numstat --format= %s | awk '{a+=$1} END{print a+0}'" % Y(2025)),
 ("how many commits did the lz4 update take (v2.0.0 to v2.1.0, vendor only)", "release", "count", "git rev-list --count v2.0.0..v2.1.0 -- vendor"),
 # ---- should be declined: judgment or facts the history does not hold
 ("is Kenji a good engineer?", "decline", None, "DECLINE"),
 ("why was kvstore.c renamed to store.c", "decline", None, "DECLINE"),
 ("who reviewed the 2.0 release?", "decline", None, "DECLINE"),
 ("was the wal-v2 rewrite worth it", "decline", None, "DECLINE"),
 ("which commit introduced the compaction bug", "decline", None, "DECLINE"),
 ("how many commits did Alex make last year", "ambiguous", None, "DECLINE"),
 ("what's our test coverage", "decline", None, "DECLINE"),
 ("who approved PR #262", "decline", None, "DECLINE"),
 ("summarize the architecture of the store", "decline", None, "DECLINE"),
 ("should we cut 2.3 this week?", "decline", None, "DECLINE"),
 ("which contributor is most likely to leave the project", "decline", None, "DECLINE"),
 ("what bugs are still open", "decline", None, "DECLINE"),
 ("is the write-ahead log thread-safe", "decline", None, "DECLINE"),
 ("what was discussed in issue #214", "decline", None, "DECLINE"),
 ("rate the quality of our commit messages", "decline", None, "DECLINE"),
 ("when will v3 ship?", "decline", None, "DECLINE"),
 ("who is on call this week", "decline", None, "DECLINE"),
 ("how many hours did Priya work last month", "decline", None, "DECLINE"),
 ("what did I do yesterday", "decline", None, "DECLINE"),
 ("why do people commit so much on tuesdays", "decline", None, "DECLINE"),
]

def dump(name, items):
    with open(os.path.join(HERE, name + ".jsonl"), "w") as f:
        for it in items: f.write(json.dumps(it) + "\n")
    dev = [it for it in items if int(it["id"].split("-")[1]) % 3 != 0]
    held = [it for it in items if int(it["id"].split("-")[1]) % 3 == 0]
    for d, sub, lst in (("dev", "dev", dev), ("heldout", "heldout", held)):
        os.makedirs(os.path.join(HERE, d), exist_ok=True)
        with open(os.path.join(HERE, d, "%s_%s.jsonl" % (name, sub)), "w") as f:
            for it in lst: f.write(json.dumps(it) + "\n")
    print(name, len(items), "dev", len(dev), "heldout", len(held))

router = []
for i, (text, kind, typ, how) in enumerate(ROUTER, 1):
    router.append({"id": "r-%03d" % i, "text": text, "kind": kind, "expect": expect_of(typ, how), "how": how})

# ------------------------------------------------------------------ dwim
exec(open(os.path.join(HERE, "dwim_items.py")).read())
# ------------------------------------------------------------------ code
exec(open(os.path.join(HERE, "code_items.py")).read())

if __name__ == "__main__":
    dump("router", router)
    dump("dwim", dwim)
    dump("code", code)
    subprocess.run(["rm", "-rf", FX])
