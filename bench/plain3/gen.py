#!/usr/bin/env python3
"""Generate the jq router question set. Every expectation is computed by git in the pinned clone.
usage: gen.py REPO_DIR"""
import json, os, subprocess, sys, collections
R = sys.argv[1]
os.environ["TZ"] = "UTC"
for k in list(os.environ):
    if k.startswith("GIT_"): del os.environ[k]

def git(cmd):
    return subprocess.run("git " + cmd, shell=True, cwd=R, capture_output=True, text=True, check=True).stdout

def uniq(xs):
    out = []
    for x in xs:
        if x not in out: out.append(x)
    return out

def cnt(args):
    h = f"git rev-list --count HEAD {args}" if ".." not in args.split()[0] else f"git rev-list --count {args}"
    return int(git(h[4:]).strip()), h

def acount(since, until, extra=""):
    """author-date window count (alternative reading); since/until ISO UTC"""
    cmd = f"log --format=%aI {extra}"
    import datetime as D
    s = D.datetime.fromisoformat(since.replace("Z", "+00:00")); u = D.datetime.fromisoformat(until.replace("Z", "+00:00"))
    n = 0
    for line in git(cmd).split():
        t = D.datetime.fromisoformat(line)
        if s <= t < u: n += 1
    return n, f"git log --format=%aI {extra} | (author date in [{since},{until}))"

def log(args, fmt="%H"):
    return [l for l in git(f"log --format={fmt} {args}").splitlines() if l]

def shortlog(args, key="email"):
    c = collections.Counter()
    for l in log(args, "%an%x09%ae"):
        n, e = l.split("\t"); c[e if key == "email" else n] += 1
    return c

items = []
def add(text, kind, expect, how):
    items.append({"text": text, "kind": kind, "expect": expect, "how": how})

W = lambda s, u: f"--since={s} --until={u}"
def win(text, kind, s, u, extra=""):
    n, h = cnt(f"{W(s,u)} {extra}")
    a, h2 = acount(s, u, extra)
    add(text, kind, {"type": "count", "count_of": "commits", "any_of": uniq([n, a])}, h + " ; alt: " + h2)

# persons: alias lists (name or email); a row matches when its author or email equals one alias
P = {}
def person(name, email):
    P.setdefault(name, set()).update([name, email])
for l in log("", "%an%x09%ae"):
    n, e = l.split("\t"); person(n, e)
def aliases(*names):
    s = set()
    for n in names: s |= P[n]
    return sorted(s)
# same human, two names
NICO = aliases("Nicolas Williams", "Nico Williams")

def top_people(args, k, key="email"):
    c = shortlog(args, key)
    r = c.most_common()
    return r

def top_author_item(text, kind, args, rank=1, merge_same=True):
    # rank by email and by name; accept each reading's person at that rank
    acc = set(); how = f"git shortlog -sne HEAD {args} (and -sn by name)"
    for key in ("email", "name"):
        r = top_people(args, rank, key)
        v = r[rank-1][1]
        tied = [p for p, c in r if c == v]
        assert len(tied) == 1 or rank == 0, (text, tied)
        acc.add(r[rank-1][0])
    names = set()
    for a in acc:
        for n, al in P.items():
            if a in al: names.add(n)
    al = aliases(*names)
    if any(a in NICO for a in al): al = sorted(set(al) | set(NICO))
    add(text, kind, {"type": "author", "rank": rank, "any_of": al}, how)

# ---------------- counts over windows ----------------
NOW = "2026-07-06T12:00:00Z"
# last month: calendar June 2026 or rolling 30/31 days
n1, h1 = cnt(W("2026-06-01T00:00:00Z", "2026-07-01T00:00:00Z"))
n2, h2 = cnt("--since=2026-06-06T12:00:00Z"); n3, h3 = cnt("--since=2026-06-05T12:00:00Z")
add("how many commits in the last month?", "count-window", {"type": "count", "count_of": "commits", "any_of": uniq([n1, n2, n3])}, f"{h1} ; {h2} ; {h3}")
win("How many commits were made in 2023?", "count-window", "2023-01-01T00:00:00Z", "2024-01-01T00:00:00Z")
n, h = cnt("jq-1.7..HEAD")
add("number of commits since jq 1.7", "count-tag", {"type": "count", "count_of": "commits", "any_of": [n]}, h)
n, h = cnt("jq-1.7.1..jq-1.8.0")
add("how many commits between jq-1.7.1 and jq-1.8.0?", "count-tag", {"type": "count", "count_of": "commits", "any_of": [n]}, h)
win("commits in Q2 2024", "count-window", "2024-04-01T00:00:00Z", "2024-07-01T00:00:00Z")
win("Hey, quick one: could you tell me how many commits landed in March 2025? Thanks!", "chatty", "2025-03-01T00:00:00Z", "2025-04-01T00:00:00Z")
n, h = cnt("--since=2026-01-01T00:00:00Z")
add("count commits this year", "count-window", {"type": "count", "count_of": "commits", "any_of": [n]}, h)

# ---------------- people ----------------
def by(text, kind, pat, extra="", alts=()):
    n, h = cnt(f"--author='{pat}' -i {extra}")
    vals = [n]; hows = [h]
    for p in alts:
        m, hh = cnt(f"--author='{p}' -i {extra}"); vals.append(m); hows.append(hh)
    add(text, kind, {"type": "count", "count_of": "commits", "any_of": uniq(vals)}, " ; ".join(hows))
by("How many commits did Emanuele Torre make?", "person-fullname", "Emanuele Torre")
by("how many commits has nico@cryptonector.com authored", "person-email", "nico@cryptonector.com")
by("how many commits by Nicolas Williams?", "person-fullname", "Nicolas Williams", alts=["nico@cryptonector.com"])
by("how many commits did itchyny make in 2025", "person-handle", "itchyny", W("2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z"))
by("how many commits by dependabot?", "person-bot", "dependabot")
by("commits by Owen Ou", "person-fullname", "^Owen Ou", alts=["Owen Ou"])
by("how many commits by 169064+owenthereal@users.noreply.github.com", "person-noreply", "169064+owenthereal@users.noreply.github.com")
by("number of commits by owenthereal", "person-handle", "owenthereal", alts=["^Owen Ou", "Owen Ou"])
by("how many commits has Tolnay made?", "person-surname", "Tolnay")
by("how many commits did Emanuele make", "person-firstname", "Emanuele")
by("Lee Thompson commit count", "person-fullname", "Lee Thompson")
by("how many commits has Stephen Dolan made?", "person-fullname", "Stephen Dolan")
by("commits by wlangfor@gmail.com since 2017", "person-email", "wlangfor@gmail.com", "--since=2017-01-01T00:00:00Z")
by("how many commits did pkoppstein make since jq 1.7?", "person-handle", "pkoppstein", "jq-1.7..HEAD")
# ambiguous first name: decline, or the combined substring count
m, h = cnt("--author=Mattias -i")
add("how many commits did Mattias make?", "ambiguous-person", {"type": "count", "count_of": "commits", "any_of": [m], "or_decline": True},
    h + "  # Mattias Wadman + Mattias Hansson (+Matti Astrand via email 'mattiastr'): ambiguous; decline or combined count")

# ---------------- merges / reverts ----------------
n, h = cnt("--merges")
add("how many merge commits are there?", "merges", {"type": "count", "count_of": "commits", "any_of": [n]}, h)
win("merges in 2023", "merges", "2023-01-01T00:00:00Z", "2024-01-01T00:00:00Z", "--merges")
hs = log("--merges -1")
add("what was the last merge commit?", "merges", {"type": "commit", "rank": 1, "any_of": hs}, "git log --merges -1 --format=%H")
hs = log(f"-i --grep=^revert {W('2025-01-01T00:00:00Z','2026-01-01T00:00:00Z')}")
hs2 = log(f"-i --grep=revert {W('2025-01-01T00:00:00Z','2026-01-01T00:00:00Z')}")
add("list the reverts in 2025", "reverts", {"type": "commits", "any_of": uniq([sorted(hs), sorted(hs2)])},
    "git log -i --grep=^revert --since=2025-01-01 --until=2026-01-01 ; alt: --grep=revert")
a, h = cnt("-i --grep=^revert jq-1.7..HEAD"); b, h2 = cnt("-i --grep=revert jq-1.7..HEAD")
add("how many reverts since jq 1.7?", "reverts", {"type": "count", "count_of": "commits", "any_of": uniq([a, b])}, h + " ; " + h2)

# ---------------- messages ----------------
hs = log("-i --grep=CVE")
add("which commits mention CVE?", "message", {"type": "commits", "any_of": [sorted(hs)]}, "git log -i --grep=CVE --format=%H")
hs = log("--grep='#2031'")
add("commits referencing #2031", "message", {"type": "commits", "any_of": [sorted(hs)]}, "git log --grep='#2031' --format=%H")
win("how many commits mentioning segfault in 2023?", "message", "2023-01-01T00:00:00Z", "2024-01-01T00:00:00Z", "-i --grep=segfault")
a, h = cnt("-i --grep=windows jq-1.7..HEAD")
add("how many commits mention windows since jq 1.7", "message", {"type": "count", "count_of": "commits", "any_of": [a]}, h)

# ---------------- yes/no ----------------
def yn(text, kind, args, how_note=""):
    n, h = cnt(args)
    add(text, kind, {"type": "yesno", "value": n > 0}, h + how_note)
yn("did anyone commit on 2024-12-25?", "yesno", W("2024-12-25T00:00:00Z", "2024-12-26T00:00:00Z"))
yn("has David Tolnay committed since 2020?", "yesno", "--author='David Tolnay' --since=2020-01-01T00:00:00Z")
yn("did itchyny commit in June 2026?", "yesno", "--author=itchyny " + W("2026-06-01T00:00:00Z", "2026-07-01T00:00:00Z"))
yn("Were there any merge commits in 2025?", "yesno", "--merges " + W("2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z"))

# ---------------- rankings ----------------
top_author_item("who contributed most in 2023?", "top-author", W("2023-01-01T00:00:00Z", "2024-01-01T00:00:00Z"))
top_author_item("who is the second most active committer of all time?", "nth-author", "", rank=2)
top_author_item("who made the most commits to src/ in 2024", "top-author-dir", W("2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z") + " -- src/")
top_author_item("who changed tests/ the most since jq 1.7?", "top-author-dir", "jq-1.7..HEAD -- tests/")
top_author_item("who is the 4th biggest contributor in 2023?", "nth-author", W("2023-01-01T00:00:00Z", "2024-01-01T00:00:00Z"), rank=4)
top_author_item("who contributed most to docs/ in 2025?", "top-author-dir", W("2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z") + " -- docs/")
top_author_item("top contributor last year", "top-author", W("2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z"))

def topk(text, kind, args, k):
    acc = []
    for key in ("email", "name"):
        r = top_people(args, k, key)
        assert r[k-1][1] != r[k][1], (text, r[:k+1])
        ppl = []
        for p, c in r[:k]:
            ns = [n for n, al in P.items() if p in al]
            al = aliases(*ns)
            if any(a in NICO for a in al): al = sorted(set(al) | set(NICO))
            ppl.append(al)
        acc.append(ppl)
    add(text, kind, {"type": "authors", "k": k, "any_of": acc}, f"git shortlog -sne HEAD {args} | head -{k} (and by name)")
topk("top 3 contributors since jq 1.7", "top-n-authors", "jq-1.7..HEAD", 3)
topk("I'm writing release notes: who were the top 3 contributors between jq-1.8.0 and jq-1.8.1?", "chatty", "jq-1.8.0..jq-1.8.1", 3)

# fewest: ties -> any of the tied
r = shortlog(W("2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z"), "name").most_common()
low = min(c for _, c in r); tied = [p for p, c in r if c == low]
add("who committed the fewest times in 2025?", "fewest", {"type": "author", "rank": -1, "any_of": aliases(*tied), "or_decline": True},
    f"git shortlog -sn --since=2025-01-01 --until=2026-01-01 HEAD | tail  # {len(tied)} people tie at {low}: any of them, or decline")

# distinct authors
def distinct(text, kind, args):
    e = len(shortlog(args, "email")); n = len(shortlog(args, "name"))
    add(text, kind, {"type": "count", "count_of": "authors", "any_of": uniq([e, n])}, f"git shortlog -sne HEAD {args} | wc -l (by email {e}; by name {n})")
distinct("how many different people have committed since jq 1.7?", "distinct-authors", "jq-1.7..HEAD")
distinct("how many distinct authors in 2024", "distinct-authors", W("2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z"))

# ---------------- files ----------------
def fstats(args):
    c = collections.Counter()
    out = git(f"log --format=%x01 --name-only --no-renames {args}")
    for l in out.splitlines():
        if l and l != "\x01": c[l] += 1
    return c.most_common()
def topfile(text, kind, args, rank=1, prefix=""):
    r = [x for x in fstats(args) if x[0].startswith(prefix)]
    v = r[rank-1][1]; tied = [p for p, c in r if c == v]
    add(text, kind, {"type": "file", "rank": rank, "any_of": tied}, f"git log --name-only --no-renames HEAD {args} | count paths{(' under '+prefix) if prefix else ''}  # rank {rank}, ties accepted")
topfile("most frequently changed file in 2025", "top-file", W("2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z"))
topfile("which file in src/ changed the most since 1.8.0?", "top-file-dir", "jq-1.8.0..HEAD -- src/", prefix="src/")
topfile("3rd most changed file since jq 1.7", "nth-file", "jq-1.7..HEAD", rank=3)
r = fstats(W("2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z"))
assert r[3][1] != r[4][1]
add("top 4 files by number of commits in 2025", "top-n-files", {"type": "files", "ordered_k": 4, "any_of": [sorted(p for p, _ in r[:4])]}, "git log --name-only --no-renames --since=2025-01-01 --until=2026-01-01 | top 4 paths")

def fhist(path, args=""):
    f = log(f"--follow {args} -- {path}"); nf = log(f"{args} -- {path}")
    return f, nf
f, nf = fhist("src/jv.c")
add("how many commits touched src/jv.c?", "file-count", {"type": "count", "count_of": "commits", "any_of": uniq([len(f), len(nf)])}, "git log --follow --format=%H -- src/jv.c | wc -l ; without --follow")
f, nf = fhist("src/builtin.c", "jq-1.7..HEAD")
add("how many times has src/builtin.c been changed since jq 1.7?", "file-count", {"type": "count", "count_of": "commits", "any_of": uniq([len(f), len(nf)])}, "git log --follow jq-1.7..HEAD -- src/builtin.c | count")
win("how many commits changed docs/ in 2025", "count-dir", "2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "-- docs/")
f, _ = fhist("src/jv.c")
first = git(f"log -1 --format=%an {f[-1]}").strip()
add("who created src/jv.c?", "file-creator", {"type": "author", "rank": -1, "any_of": aliases(first)}, "git log --follow --format=%an -- src/jv.c | tail -1")
f, _ = fhist("src/parser.y")
first = git(f"log -1 --format=%an {f[-1]}").strip()
add("who first added src/parser.y", "file-creator", {"type": "author", "rank": -1, "any_of": aliases(first)}, "git log --follow --format=%an -- src/parser.y | tail -1")
last = log("-1 -- src/builtin.c", "%an")[0]
add("who last changed src/builtin.c?", "file-last", {"type": "author", "rank": 1, "any_of": aliases(last)}, "git log -1 --format=%an -- src/builtin.c")
d = log("-1 -- src/main.c", "%as%x09%cs%x09%aI")[0].split("\t")
import datetime as D
du = D.datetime.fromisoformat(d[2]).astimezone(D.timezone.utc).strftime("%Y-%m-%d")
add("when was src/main.c last modified?", "file-last", {"type": "date", "any_of": uniq([d[0], d[1], du])}, "git log -1 --format='%as %cs' -- src/main.c (UTC and committer-local)")
hs = log(f"--follow --since=2025-01-01T00:00:00Z -- src/jv_print.c"); hs2 = log("--since=2025-01-01T00:00:00Z -- src/jv_print.c")
add("history of src/jv_print.c since 2025", "file-history", {"type": "commits", "any_of": uniq([sorted(hs), sorted(hs2)])}, "git log --follow --since=2025-01-01 -- src/jv_print.c")
c = collections.Counter(log("--follow -- src/parser.y", "%an"))
r = c.most_common(); assert r[0][1] != r[1][1]
al = aliases(r[0][0]); al = sorted(set(al) | set(NICO)) if any(a in NICO for a in al) else al
add("who has touched src/parser.y the most?", "file-top-author", {"type": "author", "rank": 1, "any_of": al}, "git log --follow --format=%an -- src/parser.y | sort | uniq -c | sort -rn | head -1")
hs = log("-3 -- docs/content/manual/manual.yml")
add("last 3 commits to docs/content/manual/manual.yml", "file-history", {"type": "commits", "any_of": [sorted(hs)]}, "git log -3 --format=%H -- docs/content/manual/manual.yml")
hs = log("-5 -- src/jv.c")
add("git log -5 src/jv.c", "terse", {"type": "commits", "any_of": [sorted(hs)]}, "git log -5 --format=%H -- src/jv.c")

# ---------------- commit contents ----------------
def files_of(rev):
    return sorted(l for l in git(f"show --format= --name-only --no-renames {rev}").splitlines() if l)
add("what files did commit 46d1da30 change?", "commit-files", {"type": "files", "any_of": [files_of("46d1da30")]}, "git show --name-only --format= 46d1da30")
t1 = files_of("jq-1.8.1"); t2 = sorted(l for l in git("diff --name-only jq-1.8.0 jq-1.8.1").splitlines() if l)
add("which files changed in jq-1.8.1?", "commit-files", {"type": "files", "any_of": uniq([t1, t2])}, "git show --name-only jq-1.8.1 (the tagged commit) ; alt: git diff --name-only jq-1.8.0 jq-1.8.1")
a = log("-1 e987df0d", "%an")[0]
add("who wrote commit e987df0d?", "commit-author", {"type": "author", "rank": 1, "any_of": aliases(a)}, "git log -1 --format=%an e987df0d")

# ---------------- exclusions ----------------
a, h = cnt(f"{W('2025-01-01T00:00:00Z','2026-01-01T00:00:00Z')} --perl-regexp --author='^(?!dependabot)'")
b, _ = acount("2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "--perl-regexp --author='^(?!dependabot)'")
add("how many commits in 2025, not counting dependabot?", "exclusion", {"type": "count", "count_of": "commits", "any_of": uniq([a, b])}, h)
rr = shortlog(W("2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z"), "email").most_common()
rr = [x for x in rr if "itchyny" not in x[0]]; assert rr[0][1] != rr[1][1]
add("who contributed most in 2025 excluding itchyny?", "exclusion", {"type": "author", "rank": 1, "any_of": aliases(*[n for n, al in P.items() if rr[0][0] in al])},
    "git shortlog -sne --since=2025-01-01 --until=2026-01-01 HEAD | grep -v itchyny | head -1")
n, h = cnt("--no-merges jq-1.8.0..HEAD")
add("commits since jq-1.8.0 excluding merges: how many?", "exclusion", {"type": "count", "count_of": "commits", "any_of": [n]}, h)

# ---------------- lists in windows ----------------
hs = log(W("2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"), "%an")
import datetime as D
add("who committed in February 2026?", "window-authors", {"type": "author_set", "any_of": [sorted(set(hs))]}, "git log --since=2026-02-01 --until=2026-03-01 --format=%an | sort -u (UTC committer date)")
hs = log("--since=2026-06-29T12:00:00Z"); hs2 = log(W("2026-06-29T00:00:00Z", "2026-07-06T00:00:00Z"))
add("commits last week", "window-list", {"type": "commits", "any_of": uniq([sorted(hs), sorted(hs2)])}, "git log --since=2026-06-29T12:00Z (rolling 7 days) ; calendar week Mon 06-29..Sun 07-05")
hs = log("--author=itchyny --since=2026-06-15T00:00:00Z")
add("itchyny's commits since 2026-06-15", "window-list", {"type": "commits", "any_of": [sorted(hs)]}, "git log --author=itchyny --since=2026-06-15")
hs = log("--since=2026-06-26T12:00:00Z")
add("what changed in the last 10 days?", "window-list", {"type": "commits", "any_of": [sorted(hs)]}, "git log --since=2026-06-26T12:00Z")
topk("top authors 2024", "terse", W("2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z"), 3) if False else None
top_author_item("shortlog 2024 top", "terse", W("2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z"))
n, h = cnt("jq-1.8.1..jq-1.8.2")
add("jq-1.8.1..jq-1.8.2 count", "terse", {"type": "count", "count_of": "commits", "any_of": [n]}, h)
n, h = cnt("--author=dependabot --since=2026-01-01T00:00:00Z")
add("dependabot commits 2026?", "terse", {"type": "count", "count_of": "commits", "any_of": [n]}, h)

# ---------------- declines ----------------
for t, why in [
    ("who is the best maintainer of jq?", "judgment"),
    ("why was the parser rewritten?", "motive not in history"),
    ("who reviewed PR 2000?", "reviews are not in git"),
    ("which commit introduced the most bugs?", "judgment / not in history"),
    ("is jq's code quality getting better over time?", "judgment"),
    ("what will be in jq 1.9?", "future"),
    ("how many GitHub stars does jq have?", "not in git"),
    ("who approved the jq 1.8.2 release?", "approvals are not in git"),
    ("which open issues should I work on first?", "not in git / judgment"),
    ("how long did CI take on the last commit?", "not in git"),
    ("what did Stephen do?", "ambiguous person (Stephen Dolan, Stephen Roantree, Stephen Shaw, 'Stephen') and vague"),
]:
    add(t, "decline", {"type": "decline"}, "none: " + why)

for i, it in enumerate(items, 1):
    it["id"] = f"j-{i:03d}"
    items[i-1] = {"id": it["id"], "text": it["text"], "kind": it["kind"], "expect": it["expect"], "how": it["how"]}
base = os.path.dirname(os.path.abspath(__file__))
with open(f"{base}/dev/router_dev.jsonl", "w") as d, open(f"{base}/heldout/router_heldout.jsonl", "w") as h:
    for it in items:
        (h if int(it["id"][2:]) % 3 == 0 else d).write(json.dumps(it) + "\n")
print(len(items), collections.Counter(it["kind"] for it in items))
