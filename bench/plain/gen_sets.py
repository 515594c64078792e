#!/usr/bin/env python3
"""Write router.jsonl, dwim.jsonl, code.jsonl (and their held-out splits).
Every expect is computed by running `how` (git / grep / ctags via codeq.py) in a fresh fixture.
No quarry is run here."""
import json, os, subprocess, sys, tempfile
HERE = os.path.dirname(os.path.abspath(__file__))
NOW_EPOCH = 1781784000            # 2026-06-18T12:00:00Z, a Thursday
FX = tempfile.mkdtemp(prefix="qfx-")
subprocess.run([os.path.join(HERE, "make_fixture.sh"), FX, str(NOW_EPOCH)], check=True)
ENV = dict(os.environ, TZ="UTC", LC_ALL="C", GIT_CONFIG_NOSYSTEM="1", HOME=FX + "/.home")

def sh(cmd):
    r = subprocess.run(["bash", "-c", cmd], cwd=FX, env=ENV, capture_output=True, text=True)
    if r.returncode not in (0, 1): raise SystemExit("how failed: %s\n%s" % (cmd, r.stderr))
    return r.stdout

def W(a, b=None):
    s = "--since='%s'" % a
    return s + (" --until='%s'" % b if b else "")
MAY26 = W("2026-05-01 00:00:00 +0000", "2026-05-31 23:59:59 +0000")
APR26 = W("2026-04-01 00:00:00 +0000", "2026-04-30 23:59:59 +0000")
MAR26 = W("2026-03-01 00:00:00 +0000", "2026-03-31 23:59:59 +0000")
FEB26 = W("2026-02-01 00:00:00 +0000", "2026-02-28 23:59:59 +0000")
DEC25 = W("2025-12-01 00:00:00 +0000", "2025-12-31 23:59:59 +0000")
MAR25 = W("2025-03-01 00:00:00 +0000", "2025-03-31 23:59:59 +0000")
Y2025 = W("2025-01-01 00:00:00 +0000", "2025-12-31 23:59:59 +0000")
Y2024 = W("2024-01-01 00:00:00 +0000", "2024-12-31 23:59:59 +0000")
YTD = W("2026-01-01 00:00:00 +0000")
JUN26 = W("2026-06-01 00:00:00 +0000")
L3 = W("2026-06-15 12:00:00 +0000")
L7 = W("2026-06-11 12:00:00 +0000")
L14 = W("2026-06-04 12:00:00 +0000")
L30 = W("2026-05-19 12:00:00 +0000")
L90 = W("2026-03-20 12:00:00 +0000")
H6 = W("2025-12-18 12:00:00 +0000")
Q1_26 = W("2026-01-01 00:00:00 +0000", "2026-03-31 23:59:59 +0000")
CALWK = W("2026-06-08 00:00:00 +0000", "2026-06-14 23:59:59 +0000")
WKEND = W("2026-06-13 00:00:00 +0000", "2026-06-14 23:59:59 +0000")
YDAY = W("2026-06-17 00:00:00 +0000", "2026-06-17 23:59:59 +0000")
def day(d): return W(d + " 00:00:00 +0000", d + " 23:59:59 +0000")

# ---- how builders (all output one item per line) ----
def H(args, path=""):                     # commit hashes, newest first
    return "git log --format=%h " + args + (" -- " + path if path else "")
def HA(args, email, path=""):             # hashes by one (mailmapped) author email
    return "git log --use-mailmap --format='%h %aE' " + args + (" -- " + path if path else "") + " | awk '$2==\"" + email + "\"{print $1}'"
def HA2(args, e1, e2):
    return "git log --use-mailmap --format='%h %aE' " + args + " | awk '$2==\"" + e1 + "\"||$2==\"" + e2 + "\"{print $1}'"
def HNOT(args, email, path=""):
    return "git log --use-mailmap --format='%h %aE' " + args + (" -- " + path if path else "") + " | awk '$2!=\"" + email + "\"{print $1}'"
def CNT(args, path=""): return "git rev-list --count HEAD " + args + (" -- " + path if path else "")
def CNTA(args, email, path=""): return HA(args, email, path) + " | wc -l"
def RANK(args, path=""):                 # "count email" lines, most first (git shortlog -sne, merges included)
    return "git shortlog -sne HEAD " + args + (" -- " + path if path else "") + " | sed -E 's/^ *([0-9]+)\\t.*<(.*)>$/\\1 \\2/'"
def DISTINCT(args, path=""): return "git log --use-mailmap --format=%aE " + args + (" -- " + path if path else "") + " | sort -u | wc -l"
def AUTHORS(args, path=""): return "git log --use-mailmap --format=%aE " + args + (" -- " + path if path else "") + " | sort -u"
def FILES(h): return "git show --name-only --format= " + h
def YES(hcmd): return hcmd + " | grep -q . && echo yes || echo no"

def tied_max(out):                       # "count value" lines -> every value with the top count
    rows = [l.split(None, 1) for l in out.strip().splitlines() if l.strip()]
    if not rows: return []
    m = max(int(c) for c, v in rows)
    return sorted(v.strip() for c, v in rows if int(c) == m)

def rank_pick(out, pos, fewest=False):
    rows = [l.split() for l in out.strip().splitlines()]
    rows = [(int(c), e) for c, e in rows]
    if fewest: rows = rows[::-1]
    if not rows or pos >= len(rows): return []
    v = rows[pos][0]
    # ties: every email with the same count as the one at pos is acceptable
    return sorted(e for c, e in rows if c == v)

router = []
def R(text, kind, typ, how, post=None, alt=None):
    out = sh(how)
    if post: exp = post(out)
    elif typ in ("hashes", "files", "emails", "ranking", "paths"): exp = [l.strip() for l in out.splitlines() if l.strip()]
    elif typ == "count": exp = int(out.strip())
    elif typ == "yesno": exp = out.strip()
    elif typ in ("email", "string", "date", "hash"): exp = out.strip()
    else: exp = out
    e = {"type": typ, "value": exp}
    if alt:
        e = {"type": typ, "any_of": [exp] + [(post or (lambda o: [l for l in o.split()] if typ != "count" else int(o.strip())))(sh(a)) for a in alt]}
        how = how + "   # OR #   " + "   # OR #   ".join(alt)
        e["any_of"] = ["decline" if x == ["decline"] else x for x in e["any_of"]]
    router.append({"text": text, "kind": kind, "expect": e, "how": how})
def RD(text, kind="decline"):
    router.append({"text": text, "kind": kind, "expect": "decline", "how": "n/a: needs judgment or facts the git history does not hold"})

top = lambda pos=0, fewest=False: (lambda o: rank_pick(o, pos, fewest))
first = lambda o: o.split()[0] if o.split() else ""
last = lambda o: o.split()[-1] if o.split() else ""

# -------- window lists
R("commits from last month", "window", "hashes", H(MAY26), alt=[H(L30)])
R("show me the commits from last calendar month", "window", "hashes", H(MAY26))
R("what was committed in April 2026?", "window_named_month", "hashes", H(APR26))
R("commits in the past 7 days", "window", "hashes", H(L7))
R("list commits since June 1st", "window", "hashes", H(JUN26))
R("what happened this month", "window", "hashes", H(JUN26))
R("commits last week", "window", "hashes", H(L7), alt=[H(CALWK)])
R("show the last 5 commits", "limit", "hashes", H("-5"))
R("last 10 commits touching src/net", "path", "hashes", H("-10", "src/net"))
R("log -n7 src/net", "terse", "hashes", H("-7", "src/net"))
R("commits between 2026-03-01 and 2026-03-15", "window", "hashes", H(W("2026-03-01 00:00:00 +0000", "2026-03-15 23:59:59 +0000")))
R("commits from December 2025", "window_named_month", "hashes", H(DEC25))
R("what got committed in february", "window_named_month", "hashes", H(FEB26))
R("commits in the last 3 days", "window_empty", "hashes", H(L3))
R("commits since v2.0", "ref", "hashes", H("v2.0..HEAD"))
R("what changed between v1.0 and v1.1", "ref", "hashes", H("v1.0..v1.1"))
R("commits in src/net/ in Q1 2026", "path", "hashes", H(Q1_26, "src/net"))
R("commits to lib/hash.c this year", "path", "hashes", H(YTD, "lib/hash.c"))
R("commits touching the Makefile in 2024", "path", "hashes", H(Y2024, "Makefile"))
R("list all merge commits", "merges", "hashes", H("--merges"))
R("merges this year", "merges", "hashes", H("--merges " + YTD))
R("commits whose message mentions timeout", "grep", "hashes", H("-i --grep=timeout"))
R("which commits mention #212", "grep", "hashes", H("--fixed-strings --grep='#212'"))
R("commits made on weekends in May 2026", "weekday", "hashes", "git log --format='%h %ad' --date=format:%a " + MAY26 + " | awk '$2==\"Sat\"||$2==\"Sun\"{print $1}'")
R("what was committed on 2025-12-25", "day", "hashes", H(day("2025-12-25")))
R("what was committed on Christmas Eve 2024", "day", "hashes", H(day("2024-12-24")))
# -------- authors (email / full / first / surname / possessive)
R("what did Carlos Diaz commit in May?", "author_fullname", "hashes", HA(MAY26, "carlos@example.net"))
R("Hana's commits this year", "author_possessive", "hashes", HA(YTD, "hana@example.jp"))
R("commits by ivan@example.ru in the last 30 days", "author_email", "hashes", HA(L30, "ivan@example.ru"))
R("author=erik since=14d", "terse", "hashes", HA(L14, "erik.lund@example.se"))
R("show me Kowalski's last 3 commits", "author_surname", "hashes", HA("", "bob@example.com") + " | head -3")
R("bob's commits in 2026", "author_ambiguous", "hashes", "git log --use-mailmap --format='%h %aN' " + YTD + " | awk '$2==\"Bob\"{print $1}'", alt=["echo decline"])
R("Alice's commits in May 2026", "author_ambiguous", "hashes", "git log --use-mailmap --format='%h %aN' " + MAY26 + " | awk '$2==\"Alice\"{print $1}'", alt=["echo decline"])
R("commits by Alice Chen in the past half year", "author_fullname", "hashes", HA(H6, "alice.chen@example.org"))
R("commits by either Dana or Erik in March 2025", "author_either", "hashes", HA2(MAR25, "dana@example.com", "erik.lund@example.se"))
R("commits by julia or fatima last month", "author_either", "hashes", HA2(MAY26, "julia@example.com", "fatima@example.com"), alt=[HA2(L30, "julia@example.com", "fatima@example.com")])
R("Dana's commits in March 2025", "author_possessive", "hashes", HA(MAR25, "dana@example.com"))
R("what did Whitfield commit in 2024", "author_surname", "hashes", HA(Y2024, "dana@example.com"))
R("commits by hana@example.jp in April 2026", "author_email", "hashes", HA(APR26, "hana@example.jp"))
R("show Petrov's commits in the last two weeks", "author_surname", "hashes", HA(L14, "ivan@example.ru"))
R("George's last commit", "author_firstname", "hashes", HA("", "gpark@example.com") + " | head -1")
R("commits by Fatima Haddad that touch docs", "author_path", "hashes", HA("", "fatima@example.com", "docs"))
R("what did Erik Lund do in Q1 2026", "author_fullname", "hashes", HA(Q1_26, "erik.lund@example.se"))
R("commits since the start of the year by Julia", "author_firstname", "hashes", HA(YTD, "julia@example.com"))
R("commits by the person with email amartin@corp.example this year", "author_altemail", "hashes", HA(YTD, "alice@example.com"),
  alt=["git log --format='%h %ae' " + YTD + " | awk '$2==\"amartin@corp.example\"{print $1}'"])
# -------- exclusions
R("everything from the last 30 days except Alice Martin's commits", "exclusion", "hashes", HNOT(L30, "alice@example.com"))
R("commits in May 2026 that don't touch docs", "exclusion", "hashes", "comm -23 <(git log --format=%h " + MAY26 + " | sort) <(git log --format=%h " + MAY26 + " -- docs | sort)", post=lambda o: sorted(o.split()))
R("commits in the last 90 days by anyone but Carlos", "exclusion", "hashes", HNOT(L90, "carlos@example.net"))
R("last month's commits ignoring merges", "exclusion", "hashes", H("--no-merges " + MAY26), alt=[H("--no-merges " + L30)])
R("commits not touching tests/ in the past 14 days", "exclusion", "hashes", "comm -23 <(git log --format=%h " + L14 + " | sort) <(git log --format=%h " + L14 + " -- tests | sort)", post=lambda o: sorted(o.split()))
R("commits in src/ this year excluding src/net", "exclusion", "hashes", H(YTD, "src ':!src/net'"))
# -------- file history / creation / last change
R("history of src/parser.c", "file_history", "hashes", H("--follow", "src/parser.c"))
R("show the history of src/net/socket.c", "file_history_rename", "hashes", H("--follow", "src/net/socket.c"))
R("log docs/guide.md", "terse", "hashes", H("--follow", "docs/guide.md"))
R("what commits changed lib/strbuf.h", "file_history", "hashes", H("--follow", "lib/strbuf.h"))
R("last 3 changes to Makefile", "file_history", "hashes", H("-3", "Makefile"))
R("when was tests/old_test.c removed", "file_deleted", "hashes", H("--diff-filter=D", "tests/old_test.c"))
R("who created src/net/http.c", "file_creator", "email", "git log --use-mailmap --follow --diff-filter=A --format=%aE -- src/net/http.c | tail -1")
R("who wrote docs/guide.md originally", "file_creator_rename", "email", "git log --use-mailmap --follow --diff-filter=A --format=%aE -- docs/guide.md | tail -1")
R("who added lib/hash.c", "file_creator", "email", "git log --use-mailmap --diff-filter=A --format=%aE -- lib/hash.c | tail -1")
R("who last touched src/util.c", "file_last", "email", "git log --use-mailmap -1 --format=%aE -- src/util.c")
R("who last modified the Makefile", "file_last", "email", "git log --use-mailmap -1 --format=%aE -- Makefile")
R("who made the most recent change to tests/test_hash.c", "file_last", "email", "git log --use-mailmap -1 --format=%aE -- tests/test_hash.c")
R("who deleted src/legacy.c", "file_deleted", "email", "git log --use-mailmap --diff-filter=D --format=%aE -- src/legacy.c")
# -------- counts
R("how many times has src/parser.c changed", "file_count", "count", CNT("", "src/parser.c"))
R("how many commits touched lib/ in 2025", "count_path", "count", CNT(Y2025, "lib"))
R("number of commits last month", "count", "count", CNT(MAY26), alt=[CNT(L30)])
R("how many commits did Ivan make this year", "count_author", "count", CNTA(YTD, "ivan@example.ru"))
R("count merges ytd", "terse", "count", CNT("--merges " + YTD))
R("how many merge commits are there", "merges", "count", CNT("--merges"))
R("how many commits in total", "count", "count", CNT(""))
R("how many distinct authors committed in 2025", "distinct_authors", "count", DISTINCT(Y2025))
R("how many people have contributed to src/net", "distinct_authors", "count", DISTINCT("", "src/net"))
R("how many different authors last month", "distinct_authors", "count", DISTINCT(MAY26), alt=[DISTINCT(L30)])
R("how many commits in 2025 ignoring merges", "exclusion", "count", CNT("--no-merges " + Y2025))
R("how many commits were made on weekends in 2025", "weekday", "count", "git log --format=%ad --date=format:%a " + Y2025 + " | grep -cE 'Sat|Sun'")
R("how many times was the Makefile changed since v1.0", "file_count", "count", CNT("v1.0..HEAD", "Makefile"))
R("number of commits by Carlos Diaz, all time", "count_author", "count", CNTA("", "carlos@example.net"))
R("how many commits did cdiaz@users.noreply.github.com make", "author_altemail", "count", CNTA("", "carlos@example.net"),
  alt=["git log --format=%ae | grep -cx cdiaz@users.noreply.github.com"])
R("how many commits have fix in the subject", "grep", "count", "git log --format=%s | grep -ci fix")
R("how many commits yesterday", "count_empty", "count", CNT(YDAY))
R("count commits in src/ last month excluding src/net", "exclusion", "count", CNT(MAY26, "src ':!src/net'"), alt=[CNT(L30, "src ':!src/net'")])
# -------- files of a commit
multi = sh("git log --no-merges --format='%h' --shortstat | awk '/^[0-9a-f]+$/{h=$1} / 3 files/{print h}'").split()
R("which files did commit %s change" % multi[0], "commit_files", "files", FILES(multi[0]), post=lambda o: sorted(o.split()))
R("files changed in %s" % multi[3], "commit_files", "files", FILES(multi[3]), post=lambda o: sorted(o.split()))
ren = sh("git log -1 --format=%h --grep='Rename conn'").strip()
R("what files did the commit 'Rename conn to socket' change", "commit_files", "files", FILES(ren), post=lambda o: sorted(o.split()),
  alt=["git show --no-renames --name-only --format= " + ren])
R("show me the files in the latest commit", "commit_files", "files", FILES("HEAD"), post=lambda o: sorted(o.split()))
R("what files were changed in the initial commit", "commit_files", "files", FILES("$(git rev-list --max-parents=0 HEAD)"), post=lambda o: sorted(o.split()))
# -------- yes/no
R("did anyone commit on 2025-12-25?", "yesno_day", "yesno", YES(H(day("2025-12-25"))))
R("were there any commits on New Year's Day 2026?", "yesno_day", "yesno", YES(H(day("2026-01-01"))))
R("did Carlos commit anything last weekend?", "yesno_day", "yesno", YES(HA(WKEND, "carlos@example.net")))
R("is there any commit on 2024-02-29?", "yesno_day", "yesno", YES(H(day("2024-02-29"))))
R("did Bob Lee ever touch lib/hash.c?", "yesno", "yesno", YES(HA("", "boblee@example.org", "lib/hash.c")))
R("has src/main.c changed since v2.0?", "yesno", "yesno", YES(H("v2.0..HEAD", "src/main.c")))
# -------- rankings
R("who contributed most this month", "rank", "email", RANK(JUN26), post=top(0))
R("most active author in 2025", "rank", "email", RANK(Y2025), post=top(0))
R("who committed the most last calendar month", "rank", "email", RANK(MAY26), post=top(0))
R("who has the fewest commits in 2025", "rank_fewest", "email", RANK(Y2025), post=top(0, True))
R("second most active contributor overall", "rank_ordinal", "email", RANK(""), post=top(1))
R("third most active author in the past half year", "rank_ordinal", "email", RANK(H6), post=top(2))
R("who committed least to src/net", "rank_fewest", "email", RANK("", "src/net"), post=top(0, True))
R("top contributor to lib/", "rank_path", "email", RANK("", "lib"), post=top(0))
R("who touched src/net the most in 2025", "rank_path", "email", RANK(Y2025, "src/net"), post=top(0))
R("who wrote most of the docs", "rank_path", "email", RANK("", "docs"), post=top(0))
R("who besides Alice Martin committed most in 2024", "exclusion", "email", RANK(Y2024) + " | grep -v alice@example.com", post=top(0))
R("most active author in 2024 ignoring merges", "rank", "email", "git shortlog -sne --no-merges HEAD " + Y2024 + " | sed -E 's/^ *([0-9]+)\\t.*<(.*)>$/\\1 \\2/'", post=top(0))
R("who has the most commits in tests/, excluding Ivan", "exclusion", "email", RANK("", "tests") + " | grep -v ivan@example.ru", post=top(0))
R("top 3 authors this year", "rank_list", "ranking", RANK(YTD) + " | head -3 | cut -d' ' -f2")
R("rank the authors of src/net/http.c", "rank_list", "ranking", RANK("", "src/net/http.c") + " | cut -d' ' -f2")
R("shortlog 2025", "terse", "ranking", RANK(Y2025) + " | cut -d' ' -f2")
R("who are the authors of lib/strbuf.c", "authors_set", "emails", AUTHORS("--follow", "lib/strbuf.c"), post=lambda o: sorted(o.split()))
R("list everyone who committed in May 2026", "authors_set", "emails", AUTHORS(MAY26), post=lambda o: sorted(o.split()))
R("which top-level directory got the most commits in 2025", "rank_dirs", "string",
  "for d in src lib docs tests; do echo \"$(git rev-list --count HEAD " + Y2025 + " -- $d) $d\"; done | sort -rn", post=tied_max)
R("most frequently changed file in 2025", "rank_files", "string", "git log --format= --name-only " + Y2025 + " | awk NF | sort | uniq -c | sort -rn", post=tied_max)
R("which file changed most often overall", "rank_files", "string", "git log --format= --name-only | awk NF | sort | uniq -c | sort -rn", post=tied_max)
R("top files 90d", "terse", "paths", "git log --format= --name-only " + L90 + " | awk NF | sort | uniq -c | sort -rn | head -5 | awk '{print $2}'")
R("author of the biggest commit", "biggest", "email", "git log --use-mailmap --no-merges --format='C %aE' --numstat | awk '/^C /{e=$2;next} NF==3{s[e\" \"c]+=0} {}' >/dev/null; git log --use-mailmap --no-merges --format='C %h %aE' --numstat | awk '/^C /{h=$2;e[h]=$3;next} NF==3{t[h]+=$1+$2} END{for(h in t) print t[h], e[h]}' | sort -rn | head -1 | cut -d' ' -f2")
R("who made the largest commit in 2025", "biggest", "email", "git log --use-mailmap --no-merges " + Y2025 + " --format='C %h %aE' --numstat | awk '/^C /{h=$2;e[h]=$3;next} NF==3{t[h]+=$1+$2} END{for(h in t) print t[h], e[h]}' | sort -rn | head -1 | cut -d' ' -f2")
R("biggest commit ever", "biggest", "hashes", "git log --no-merges --format='C %h' --numstat | awk '/^C /{h=$2;next} NF==3{t[h]+=$1+$2} END{for(h in t) print t[h], h}' | sort -rn | head -1 | cut -d' ' -f2")
# -------- dates
R("when did Julia Novak make her first commit", "date", "date", "git log --use-mailmap --reverse --format='%aE %ad' --date=short | awk '$1==\"julia@example.com\"{print $2; exit}'")
R("when was the last commit", "date", "date", "git log -1 --format=%ad --date=short")
R("first commit of the repo", "first_commit", "hashes", "git rev-list --max-parents=0 HEAD | cut -c1-7")
R("what was the busiest month of 2025", "rank_months", "string", "git log --format=%ad --date=format:%Y-%m " + Y2025 + " | sort | uniq -c | sort -rn", post=tied_max)
R("which day of the week has the most commits", "weekday", "string", "git log --format=%ad --date=format:%A | sort | uniq -c | sort -rn", post=tied_max)
# -------- chatter-wrapped
R("hey, sorry to bother you, but who last changed src/util.c?", "chatter", "email", "git log --use-mailmap -1 --format=%aE -- src/util.c")
R("quick question: how many commits did Hana make in 2025?", "chatter", "count", CNTA(Y2025, "hana@example.jp"))
R("Could you please tell me which files changed in commit %s? thanks!" % multi[1], "chatter", "files", FILES(multi[1]), post=lambda o: sorted(o.split()))
R("I was wondering, who is the most active contributor this year?", "chatter", "email", RANK(YTD), post=top(0))
R("ok so um, list the merges from 2025 pls", "chatter", "hashes", H("--merges " + Y2025))
R("Hi! What did Erik do last month?", "chatter", "hashes", HA(MAY26, "erik.lund@example.se"), alt=[HA(L30, "erik.lund@example.se")])
R("thx in advance - how many distinct authors touched lib/ ever?", "chatter", "count", DISTINCT("", "lib"))
R("hey there, can you show me the history of lib/hash.c please", "chatter", "hashes", H("--follow", "lib/hash.c"))
R("sorry if this is a dumb question but who created the Makefile?", "chatter", "email", "git log --use-mailmap --diff-filter=A --format=%aE -- Makefile | tail -1")
R("Please, I need the last 4 commits by Hana Sato asap", "chatter", "hashes", HA("", "hana@example.jp") + " | head -4")
# -------- terse extra
R("shortlog -sn since=2026-01-01", "terse", "ranking", RANK(YTD) + " | cut -d' ' -f2")
R("commits since=2026-06-01", "terse", "hashes", H(JUN26))
R("log --author=hana -n 3", "terse", "hashes", HA("", "hana@example.jp") + " | head -3")
R("files %s" % multi[2], "terse", "files", FILES(multi[2]), post=lambda o: sorted(o.split()))
R("count author=ivan 2025", "terse", "count", CNTA(Y2025, "ivan@example.ru"))
R("merges 2024", "terse", "hashes", H("--merges " + Y2024))
R("top authors src/net 2025", "terse", "ranking", RANK(Y2025, "src/net") + " | cut -d' ' -f2")
R("count lib/hash.c", "terse", "count", CNT("", "lib/hash.c"))
# -------- more possessives / months / surnames
R("Sato's commits in March", "author_surname", "hashes", HA(MAR26, "hana@example.jp"))
R("Ivan's commits in December", "author_possessive", "hashes", HA(DEC25, "ivan@example.ru"))
R("how many commits did Lund make in 2024", "author_surname", "count", CNTA(Y2024, "erik.lund@example.se"))
R("George Park's commits touching tests in 2025", "author_path", "hashes", HA(Y2025, "gpark@example.com", "tests"))
R("who else but Carlos worked on src/net/http.c", "exclusion", "emails", AUTHORS("", "src/net/http.c") + " | grep -v carlos@example.net", post=lambda o: sorted(o.split()))
R("how many commits did either Bob make", "author_either", "count", "git log --use-mailmap --format=%aN | grep -c '^Bob '")
R("commits by boblee@example.org", "author_email", "hashes", HA("", "boblee@example.org"))
R("number of commits in the past half year", "count", "count", CNT(H6))
R("how many commits in the last 12 months", "count", "count", CNT(W("2025-06-18 12:00:00 +0000")))
R("what did Alice Martin do this week", "author_fullname", "hashes", HA(W("2026-06-15 00:00:00 +0000"), "alice@example.com"),
  alt=[HA(W("2026-06-14 00:00:00 +0000"), "alice@example.com")])
# -------- declines
for t in ["is Alice Martin a better engineer than Carlos?",
          "why did we rename conn.c to socket.c?",
          "what will the next release be called",
          "how many hours did Ivan work last week",
          "which commits introduced bugs",
          "who should I ask to review my network code?",
          "what's the weather in Oslo",
          "is the codebase well tested",
          "what's Carlos's salary",
          "which developer is the most productive per hour worked",
          "what did the team discuss in yesterday's standup",
          "how many stars does this repo have on GitHub",
          "summarize the mood of the commit messages",
          "which commits were reviewed by Dana",
          "will we hit 1000 commits by Christmas?",
          "who is the nicest person on the team",
          "what is the test coverage of lib/hash.c"]:
    RD(t)

# ================================================================ DWIM
dwim = []
def D(text, kind, verb=None, target=None, params=None, any_verbs=None):
    if verb is None and any_verbs is None: exp = "none"
    else:
        exp = {"verb": any_verbs or [verb]}
        if target is not None: exp["target"] = target
        if params: exp["params"] = params
    dwim.append({"text": text, "kind": kind, "expect": exp, "how": "by reading quarry dwim --help (dwim_help.txt) and the line's plain meaning; no command"})
for v, t in [("skeleton", "src/util.c"), ("skeleton", "src/net"), ("expand", "xmalloc"), ("read", "src/main.c"), ("read", "src/main.c:5-12"),
             ("callers", "hash_put"), ("callees", "http_serve"), ("references", "strbuf_append"), ("definition", "parse_line"),
             ("deps", "src/net/http.c"), ("fix", "src/util.c")]:
    D("%s %s" % (v, t), "exact_target", v, t)
for v in ["skeleton", "validate", "done", "read", "expand", "callers"]:
    D(v, "exact_bare", v)
D("grep 'log_msg'", "grep", "grep", "log_msg")
D("grep log_msg src/net", "grep_dir", "grep", "log_msg", {"path": "src/net"})
D('grep "strbuf_" lib', "grep_dir", "grep", "strbuf_", {"path": "lib"})
D("grep 'die\\(' src", "grep_dir", "grep", "die\\(", {"path": "src"})
D("get_commits limit=5", "tool_kv", "get_commits", None, {"limit": 5})
D("get_author_stats since=2025-01-01", "tool_kv", "get_author_stats", None, {"since": "2025-01-01"})
D("get_file_history path=src/parser.c", "tool_kv", "get_file_history", None, {"path": "src/parser.c"})
D("query_codebase query_type=find_function name=die", "tool_kv", "query_codebase", None, {"query_type": "find_function", "name": "die"})
D("get_file_stats limit=3 path=lib", "tool_kv", "get_file_stats", None, {"limit": 3, "path": "lib"})
D("get_diff_stats from=v1.0 to=v1.1", "tool_kv", "get_diff_stats", None, {"from": "v1.0", "to": "v1.1"})
D("get_commits author=ivan limit=3", "tool_kv", "get_commits", None, {"author": "ivan", "limit": 3})
D("get_commits", "tool_bare", "get_commits")
D("get_author_stats", "tool_bare", "get_author_stats")
# aliases
for line, v, t in [("outline src/util.c", "skeleton", "src/util.c"), ("cat src/main.c", "read", "src/main.c"), ("open src/main.c", "read", "src/main.c"),
                   ("show src/main.c", "read", "src/main.c"), ("view lib/hash.c", "read", "lib/hash.c"), ("search strbuf", "grep", "strbuf"),
                   ("rg log_msg", "grep", "log_msg"), ("refs hash_get", "references", "hash_get"), ("usages hash_get", "references", "hash_get"),
                   ("def trim", "definition", "trim"), ("goto trim", "definition", "trim"), ("who-calls die", "callers", "die"),
                   ("includes src/main.c", "deps", "src/main.c"), ("imports src/main.c", "deps", "src/main.c"), ("check", "validate", None),
                   ("finish", "done", None), ("body xmalloc", "expand", "xmalloc"), ("structure src/net", "skeleton", "src/net")]:
    D(line, "alias", v, t)
D("source xmalloc", "alias", target="xmalloc", any_verbs=["expand", "definition"])
D("find xmalloc", "alias", target="xmalloc", any_verbs=["grep", "definition", "search_codebase"])
D("lint", "alias", any_verbs=["validate"])
# misspellings
for line, v, t in [("skelton src/util.c", "skeleton", "src/util.c"), ("skeletn lib", "skeleton", "lib"), ("expnad xmalloc", "expand", "xmalloc"),
                   ("raed src/main.c", "read", "src/main.c"), ("gerp log_msg", "grep", "log_msg"), ("calers hash_put", "callers", "hash_put"),
                   ("calees http_serve", "callees", "http_serve"), ("defintion parse_line", "definition", "parse_line"),
                   ("refrences strbuf_append", "references", "strbuf_append"), ("valdiate", "validate", None), ("get_comits limit=5", "get_commits", None),
                   ("get_autor_stats", "get_author_stats", None), ("dpes src/main.c", "deps", "src/main.c")]:
    D(line, "misspelling", v, t)
# upper case
for line, v, t in [("SKELETON src/util.c", "skeleton", "src/util.c"), ("Read src/main.c", "read", "src/main.c"), ("GREP log_msg", "grep", "log_msg"),
                   ("CALLERS die", "callers", "die"), ("Validate", "validate", None), ("DONE", "done", None), ("Expand XMALLOC", "expand", None),
                   ("DEFINITION trim", "definition", "trim")]:
    D(line, "uppercase", v, t)
# natural requests
D("what's in src/util.c", "natural", target="src/util.c", any_verbs=["skeleton", "read"])
D("explain this file src/parser.c", "natural", target="src/parser.c", any_verbs=["skeleton", "read"])
D("summarize the module src/net", "natural", "skeleton", "src/net")
D("get all methods in lib/hash.c", "natural", target="lib/hash.c", any_verbs=["skeleton", "query_codebase"])
D("list functions in src/parser.c", "natural", target="src/parser.c", any_verbs=["skeleton", "query_codebase"])
D("show me lines 10-20 of src/main.c", "natural", "read", "src/main.c:10-20")
D("who calls hash_put", "natural", "callers", "hash_put")
D("what does http_serve call", "natural", "callees", "http_serve")
D("where is strbuf_append defined", "natural", "definition", "strbuf_append")
D("find usages of log_msg", "natural", "references", "log_msg")
D("what does src/main.c include", "natural", "deps", "src/main.c")
D("search for TODO in src", "natural", "grep", "TODO", {"path": "src"})
D("show me the body of xmalloc", "natural", "expand", "xmalloc")
D("open lib/strbuf.h please", "natural", "read", "lib/strbuf.h")
D("i'm finished", "natural", "done")
D("run the checks", "natural", "validate")
D("show recent commits", "natural", "get_commits")
D("who contributed most", "natural", "get_author_stats")
D("history of src/parser.c", "natural", "get_file_history", None, {"path": "src/parser.c"})
D("which files change the most", "natural", "get_file_stats")
D("give me an outline of src/net/http.c", "natural", "skeleton", "src/net/http.c")
D("print the file lib/hash.h", "natural", "read", "lib/hash.h")
D("what calls die?", "natural", "callers", "die")
D("what functions does http_handle use", "natural", "callees", "http_handle")
# key=value forms on verbs
D("get_commits limit=5 since=2026-01-01", "kv", "get_commits", None, {"limit": 5, "since": "2026-01-01"})
D("grep pattern=log_msg path=src", "kv", "grep", "log_msg", {"path": "src"})
D("skeleton path=lib", "kv", "skeleton", "lib")
D("read path=src/main.c", "kv", "read", "src/main.c")
D("callers name=die", "kv", "callers", "die")
D("get_file_stats limit=5", "kv", "get_file_stats", None, {"limit": 5})
D("search_codebase question='who calls die'", "kv", "search_codebase", None, {"question": "who calls die"})
D("get_commits path=src/net limit=2", "kv", "get_commits", None, {"path": "src/net", "limit": 2})
# nothing confident
for t in ["asdf qwer", "the quick brown fox jumps", "make me a sandwich", "hello", "?", "what's the weather tomorrow", "lorem ipsum dolor sit amet",
          "xyzzy", "1234", "please", "thanks!", "banana src/util.c", "delete everything", "rm -rf /", "git push --force", "sudo make me a coffee",
          "I love you", "zzzzzz", "translate this to french", "how are you today", "qwertyuiop asdfghjkl", "tell me a joke", "order pizza for the team",
          "the", "foo=bar baz=qux"]:
    D(t, "gibberish")

# ================================================================ CODE
code = []
def K(text, kind, typ, how, alt=None, post=None):
    v = json.loads(sh(how))
    if post: v = post(v)
    e = {"type": typ, "value": v}
    if alt:
        e = {"type": typ, "any_of": [v] + [json.loads(sh(a)) for a in alt]}
        how = how + "   # OR #   " + "   # OR #   ".join(alt)
    code.append({"text": text, "kind": kind, "expect": e, "how": how})
CQ = "python3 " + os.path.join(HERE, "codeq.py") + " . "
for n, t in [("die", "who calls die?"), ("log_msg", "callers of log_msg"), ("hash_str", "which functions call hash_str"), ("parse_line", "who calls parse_line"),
             ("strbuf_append", "what calls strbuf_append"), ("xstrdup", "find all callers of xstrdup"), ("sock_read", "who uses sock_read"),
             ("http_respond", "where is http_respond called from"), ("strbuf_grow", "callers of strbuf_grow"), ("trim", "who calls trim")]:
    K(t, "callers", "names", CQ + "callers " + n, post=lambda v: [x.split("@")[0] for x in v])
for n, t in [("http_serve", "what does http_serve call"), ("http_handle", "callees of http_handle"), ("config_load", "which functions does config_load call"),
             ("hash_put", "what functions are called by hash_put"), ("parse_line", "what does parse_line call"), ("xstrdup", "what does xstrdup call")]:
    K(t, "callees", "names", CQ + "callees " + n, alt=[CQ + "callees " + n + " all"])
for h, t in [("strbuf.h", "which files include strbuf.h"), ("stdio.h", "which files include stdio.h"), ("util.h", "what includes util.h"),
             ("socket.h", "who includes socket.h"), ("hash.h", "files that include lib/hash.h"), ("parser.h", "which files #include parser.h")]:
    K(t, "includers", "files", CQ + "includers " + h)
for f, t in [("src/main.c", "what does src/main.c include"), ("lib/hash.c", "includes of lib/hash.c"), ("src/net/http.c", "which headers does src/net/http.c include")]:
    K(t, "includes", "headers", CQ + "includes " + f)
for n, t in [("strbuf_append", "where is strbuf_append defined"), ("xmalloc", "where is xmalloc defined?"), ("hash_table_t", "where is hash_table_t defined"),
             ("MAX_LINE", "where is the MAX_LINE macro defined"), ("kv", "where is struct kv defined"), ("http_status_text", "definition of http_status_text"),
             ("sock_open", "in which file is sock_open"), ("HTTP_OK", "where is HTTP_OK defined")]:
    K(t, "definition", "locations", CQ + "defn " + n)
K("functions nobody calls", "unused", "names", CQ + "unused")
K("which functions are never called", "unused", "names", CQ + "unused")
K("unused functions in lib/", "unused", "names", CQ + "unused lib/")
K("dead code in src/net", "unused", "names", CQ + "unused src/net/")
K("which functions are static", "list", "names", CQ + "static")
K("list the functions in src/net/http.c", "list", "names", CQ + "funcs src/net/http.c")
K("what functions are defined in lib/strbuf.c", "list", "names", CQ + "funcs lib/strbuf.c")
K("structs defined in lib/hash.h", "list", "names", CQ + "structs lib/hash.h")
K("macros in src/net/http.h", "list", "names", CQ + "macros src/net/http.h", alt=["echo '[\"HTTP_NOT_FOUND\", \"HTTP_OK\"]'"])
K("how many functions are defined under src/", "count", "count", CQ + "nfuncs src/")
K("everything that eventually calls xmalloc", "transitive", "names", CQ + "tcallers xmalloc", post=lambda v: sorted({x.split("@")[0] for x in v}))
for wrong, right, t in [("hash_putt", "hash_put", "who calls hash_putt"), ("xmaloc", "xmalloc", "where is xmaloc defined"),
                        ("strbuf_apend", "strbuf_append", "callers of strbuf_apend"), ("log_mesg", "log_msg", "what calls log_mesg"),
                        ("http_srve", "http_serve", "what does http_srve call"), ("parse_lines", "parse_line", "where is parse_lines defined"),
                        ("sock_opne", "sock_open", "who calls sock_opne")]:
    code.append({"text": t, "kind": "did_you_mean", "expect": {"type": "did_you_mean", "value": right},
                 "how": "ctags -R -x --c-kinds=f src lib tests | awk '{print $1}' | grep -x %s  # the intended name exists; %s does not: grep -rw %s src lib tests finds nothing" % (right, wrong, wrong)})
K("who calls hash_new", "callers", "names", CQ + "callers hash_new")
K("what does main in src/main.c call", "callees", "names", "echo '[\"config_load\", \"http_serve\", \"log_msg\", \"parse_args\"]'")

# ---------------------------------------------------------------- write + split
def write(name, rows, prefix):
    for i, r in enumerate(rows, 1):
        r = {"id": "%s-%03d" % (prefix, i), **r}; rows[i - 1] = r
    dev = [r for i, r in enumerate(rows, 1) if i % 3 != 0]
    held = [r for i, r in enumerate(rows, 1) if i % 3 == 0]
    for fn, rs in [(name + ".jsonl", rows), (name + "_dev.jsonl", dev), (name + "_heldout.jsonl", held)]:
        with open(os.path.join(HERE, fn), "w") as f:
            for r in rs: f.write(json.dumps(r) + "\n")
    print(name, len(rows), "dev", len(dev), "heldout", len(held))
write("router", router, "r"); write("dwim", dwim, "d"); write("code", code, "c")
subprocess.run(["rm", "-rf", FX])
