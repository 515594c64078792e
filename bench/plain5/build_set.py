#!/usr/bin/env python3
"""build_set.py: builds the libevent fixture (make_fixture.sh) in a temp dir, computes every
item's expected answer with git, writes all.jsonl (the whole set, kept in /root/heldout5 only)
and the seeded stratified split: dev -> /work/plain5/dev/router.jsonl, held-out -> /root/heldout5/router.jsonl.
No expected answer is typed by hand. NOW = 2026-06-05T12:00:00Z (a Friday)."""
import calendar, collections, datetime as dt, json, os, random, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
HEAD = '0c3e47ad5f654714e39bae3f8689a3446599b614'
NOW = dt.datetime(2026, 6, 5, 12, 0, 0, tzinfo=dt.timezone.utc)
tmp = tempfile.mkdtemp(prefix='lebuild-')
FX = os.path.join(tmp, 'libevent')
subprocess.run([os.path.join(HERE, 'make_fixture.sh'), FX], check=True, env={k: v for k, v in os.environ.items() if k in ('PATH', 'LIBEVENT_REPO')} | {'HOME': tempfile.gettempdir()})
ENV = {'PATH': os.environ['PATH'], 'HOME': tmp, 'TZ': 'UTC', 'LANG': 'C.UTF-8'}

def git(*a):
    return subprocess.run(['git', '-C', FX] + list(a), capture_output=True, text=True, env=ENV,
                          check=True).stdout
assert git('rev-parse', 'HEAD').strip() == HEAD
def lines(*a): return [l for l in git(*a).split('\n') if l.strip()]
def ts(s): return int(dt.datetime.fromisoformat(s).replace(tzinfo=dt.timezone.utc).timestamp())

# every commit of HEAD: hash, author name (mailmapped), author email (mailmapped), author ts, committer ts, parents
ROWS = []
for l in lines('log', '--use-mailmap', '--format=%H\x1f%aN\x1f%aE\x1f%at\x1f%ct\x1f%P\x1f%s'):
    h, n, e, at, ct, p, s = l.split('\x1f')
    ROWS.append(dict(h=h, n=n, e=e, at=int(at), ct=int(ct), merge=len(p.split()) > 1, s=s))
BYH = {r['h']: r for r in ROWS}

def hashes(*a):
    """hashes of git log (HEAD unless a range/ref is given) with extra args"""
    return set(lines('log', '--format=%H', *a))

def period(since, until, *a, by=None, name=None, nomerge=False):
    """set of readings: count by committer date (as git log --since/--until) and by author date"""
    base = hashes(*a) if a else set(BYH)
    out = set()
    for key in ('ct', 'at'):
        c = [h for h in base if since <= BYH[h][key] < until
             and (name is None or BYH[h]['n'] == name) and not (nomerge and BYH[h]['merge'])]
        out.add(len(c))
    return sorted(out)

def month(y, m):
    return ts('%04d-%02d-01' % (y, m)), ts('%04d-%02d-01' % (y + (m == 12), m % 12 + 1))
def year(y): return ts('%d-01-01' % y), ts('%d-01-01' % (y + 1))
N = int(NOW.timestamp()); END = N + 1

def agree(a, b): assert a == b, (a, b); return a
def ranking(hs, key='n'):
    c = collections.Counter(BYH[h][key] for h in hs)
    return c.most_common()
def agree_rank(since, until, k):
    a = top_people(in_window(since, until), k); b = top_people(in_window(since, until, key='at'), k)
    assert a == b, (a, b)
    assert top_emails(in_window(since, until), k) == top_emails(in_window(since, until, key='at'), k)
    return in_window(since, until)
def top_emails(hs, k):
    c = collections.Counter((BYH[h]['n'], BYH[h]['e']) for h in hs).most_common()
    assert len(c) > k and c[k - 1][1] > c[k][1], ('tie', c[:k + 1])
    return [[n, e] for (n, e), _ in c[:k]]
def ordered(hs, k):
    """readings: one row per person (mailmapped name) ;; one row per mailmapped email (git shortlog -sne)"""
    a = [ids(x) for x in top_people(hs, k)]; b = top_emails(hs, k)
    same = all(b[i][0] == top_people(hs, k)[i] for i in range(k))
    return [a] if same else [a, b]
def top_people(hs, k):
    r = ranking(hs)
    assert len(r) > k and r[k - 1][1] > r[k][1], ('tie', r[:k + 1])
    return [x for x, _ in r[:k]]

def in_window(since, until, key='ct', base=None):
    return {h for h in (base if base is not None else BYH) if since <= BYH[h][key] < until}

def file_rank(*a):
    c = collections.Counter(l for l in lines('log', '--format=', '--name-only', '--no-renames', *a))
    return c.most_common()
def top_files(k, *a):
    r = file_rank(*a)
    assert r[k - 1][1] > r[k][1], ('tie', r[:k + 1])
    return [p for p, _ in r[:k]]

# reading B of a path filter: the non-merge commits whose own diff touches the path
# (git log --name-only --no-renames without a pathspec, filtered here; = --full-history --no-merges)
TOUCH = {}
for block in git('log', '--format=%x1e%H', '--name-only', '--no-renames').split('\x1e')[1:]:
    ls = [l for l in block.split('\n') if l.strip()]
    TOUCH[ls[0]] = ls[1:]
def touches(path):
    return {h for h, fs in TOUCH.items() if any(f == path or f.startswith(path.rstrip('/') + '/') for f in fs)}
def both(path, *a):
    """(reading A: git log [a] -- path, default history simplification ;; reading B: touches(path) within git log [a])"""
    # --since/--until together with a pathspec make git stop the walk on pruned side branches
    # (git log --since=2024-01-01 -- test gives 5 where 66 commits of 2024 touch test/): reading A applies
    # the window to git log -- path over the whole history instead; ranges (A..B) and --author are literal.
    W = hashes(*a) if a else set(BYH)
    if any(x.startswith(('--since', '--until')) for x in a): A = hashes('--', path) & W
    else: A = hashes(*a, '--', path)
    return A, touches(path) & W
def dir_rank(*a):
    c = collections.Counter()
    for block in git('log', '--format=%x1e', '--name-only', '--no-renames', *a).split('\x1e'):
        ds = {p.split('/')[0] for p in block.split('\n') if '/' in p}
        c.update(ds)
    return c.most_common()

# identities of people (canonical name + every email seen after .mailmap) for the author kinds
IDS = collections.defaultdict(set)
for r in ROWS:
    IDS[r['n']].add(r['n']); IDS[r['n']].add(r['e'])
def ids(name): return sorted(IDS[name])

def files_of(commit):
    return sorted(lines('show', '--format=', '--name-only', '--no-renames', commit))

items = []
def add(text, kind, expect, how):
    items.append({'text': text, 'kind': kind, 'expect': expect, 'how': how})

ALL = set(BYH)
merges = {h for h in ALL if BYH[h]['merge']}

# ---------------- count ----------------
add('how many commits are there in total?', 'count', {'count': [len(ALL)]}, 'git rev-list --count HEAD')
add('How many merge commits does libevent have?', 'count', {'count': [len(merges)]}, 'git rev-list --count --merges HEAD')
add('git log --no-merges --oneline | wc -l', 'count', {'count': [len(ALL - merges)]}, 'git rev-list --count --no-merges HEAD')
c1 = len([h for h in ALL if BYH[h]['n'] == 'Azat Khuzhin'])
c2 = len(hashes('--author=Azat Khuzhin'))
add('how many commits did azat khuzhin make?', 'count', {'count': sorted({c1, c2})},
    'git shortlog -sn (mailmap) name == Azat Khuzhin ;; git log --author="Azat Khuzhin"')
add('count commits by nickm@freehaven.net', 'count', {'count': [len(hashes('--author=nickm@freehaven.net'))]},
    'git log --author=nickm@freehaven.net')
add('How many commits did Provos author in 2007?', 'count',
    {'count': period(*year(2007), name='Niels Provos')}, 'mailmapped name, 2007 by committer date ;; by author date')
add('number of commits in March 2026', 'count', {'count': period(*month(2026, 3))},
    "git log --since=2026-03-01 --until=2026-04-01 (committer date) ;; author date")
lw = set()
for s, u in ((N - 7 * 86400, END), (ts('2026-05-29'), END), (ts('2026-05-25'), ts('2026-06-01'))):
    lw.update(period(s, u))
add('commits last week?', 'count', {'count': sorted(lw)},
    'past 7 days from NOW ;; from midnight 7 days ago ;; previous Mon-Sun week (2026-05-25..31); committer or author date')
add('How many commits so far this year?', 'count', {'count': period(ts('2026-01-01'), END)}, 'since 2026-01-01')
add('how many commits happened in 2010', 'count', {'count': period(*year(2010))}, 'year 2010, committer ;; author date')
a = len(hashes('--', 'http.c')); b = len(hashes('--follow', '--', 'http.c')); a = {a, len(touches('http.c'))}
add('how many comits touched http.c?', 'count', {'count': sorted(a | {b})}, 'git log -- http.c ;; --follow ;; non-merge commits touching it')
T221 = int(git('log', '-1', '--format=%ct', 'release-2.2.1-alpha').strip())
TG221 = int(git('for-each-ref', '--format=%(taggerdate:unix)', 'refs/tags/release-2.2.1-alpha').strip())
a = {len(x) for x in both('evdns.c', 'release-2.2.1-alpha..HEAD')}
b = {len([h for h in X if BYH[h][k] > t]) for k in ('ct', 'at') for t in (T221, TG221) for X in both('evdns.c')}
add('How many times was evdns.c changed since release-2.2.1-alpha?', 'count', {'count': sorted(a | b)},
    'git rev-list --count release-2.2.1-alpha..HEAD -- evdns.c (or non-merge commits touching it) ;; commits dated after the tag (commit or tagger date)')
add('how many commits are between release-2.1.11-stable and release-2.1.12-stable?', 'count',
    {'count': [len(hashes('release-2.1.11-stable..release-2.1.12-stable'))]},
    'git rev-list --count release-2.1.11-stable..release-2.1.12-stable')
add("hey, quick one - I'm drafting release notes. How many commits have landed since release-2.2.1-alpha? thanks!",
    'count', {'count': sorted({len(hashes('release-2.2.1-alpha..HEAD'))} |
                              {len([h for h in ALL if BYH[h][k] > t]) for k in ('ct', 'at') for t in (T221, TG221)})},
    'git rev-list --count release-2.2.1-alpha..HEAD ;; commits dated after the tag (commit or tagger date)')
n_names = len({r['n'] for r in ROWS}); n_emails = len({r['e'].lower() for r in ROWS}); n_pairs = len({(r['n'], r['e']) for r in ROWS})
add('How many distinct people have contributed commits?', 'count', {'count': sorted({n_names, n_emails, n_pairs})},
    'distinct mailmapped author names ;; distinct mailmapped emails ;; distinct name+email pairs')
add('how many commits has icy17 made in 2024', 'count', {'count': period(*year(2024), name='icy17')},
    'author icy17 (handle), 2024, committer ;; author date')
add('Return the number of commits that touched the test/ directory in 2024.', 'count',
    {'count': sorted({len(in_window(*year(2024), key=k, base=X)) for k in ('ct', 'at') for X in both('test')})},
    'git log --since=2024-01-01 --until=2025-01-01 -- test ;; non-merge commits touching test/ ;; author date')
add('count of commits in Q1 2026', 'count', {'count': period(ts('2026-01-01'), ts('2026-04-01'))}, 'Jan-Mar 2026')
r30 = set(period(N - 30 * 86400, END)) | set(period(ts('2026-05-06'), END))
add('number of commits in the past 30 days', 'count', {'count': sorted(r30)}, 'since NOW-30d ;; since midnight 30 days ago')
add('how many commits were made in November 2025?', 'count', {'count': period(*month(2025, 11))}, 'Nov 2025')
a = period(*year(2026), name='Azat Khuzhin', nomerge=True)
add('How many non-merge commits did Azat make in 2026?', 'count', {'count': a}, 'Azat Khuzhin, 2026, --no-merges')
a = len(hashes('--author=fanquake')); b = len([h for h in ALL if BYH[h]['n'] == 'fanquake'])
add('How many commits does fanquake have', 'count', {'count': sorted({a, b})},
    'git log --author=fanquake (name or email: includes "Michael Ford <fanquake@gmail.com>") ;; name == fanquake')
a = sorted({len(X) for X in both('CMakeLists.txt', '--author=Azat')})
add('commits to CMakeLists.txt by azat', 'count', {'count': a}, 'git log --author=Azat -- CMakeLists.txt ;; non-merge commits touching it')
a = len(hashes('-i', '--grep=windows')); b = len([h for h in ALL if 'windows' in BYH[h]['s'].lower()])
add('how many commit messages mention windows?', 'count', {'count': sorted({a, b})}, 'git log -i --grep=windows ;; subject only')
add('commits between 2024-10-01 and 2024-10-31', 'count',
    {'count': sorted(set(period(ts('2024-10-01'), ts('2024-11-01'))) | set(period(ts('2024-10-01'), ts('2024-10-31'))))},
    'Oct 2024 inclusive of the 31st ;; until 2024-10-31 00:00')
add('how many tags does the repo have?', 'count', {'count': [len(lines('tag'))]}, 'git tag | wc -l')
lm = set(period(*month(2026, 5))) | set(period(N - 30 * 86400, END))
add('How busy was last month? Just give me the commit count.', 'count', {'count': sorted(lm)},
    'May 2026 ;; last 30 days')
lq = set(period(ts('2026-01-01'), ts('2026-04-01'))) | set(period(ts('2026-03-05'), END)) | set(period(N - 90 * 86400, END))
a = len(hashes('--author=Nick Mathewson')); b = len([h for h in ALL if BYH[h]['n'] == 'Nick Mathewson'])
add('Number of commits authored by Nick Mathewson', 'count', {'count': sorted({a, b})},
    'git log --author="Nick Mathewson" (also matches "unknown <Nick Mathewson@.(none)>") ;; name == Nick Mathewson')
a = len(hashes('--author=joakim.soderberg@gmail.com'))
add('how many commits came from joakim.soderberg@gmail.com?', 'count', {'count': [a]},
    'git log --author=joakim.soderberg@gmail.com (both spellings Soderberg/Söderberg)')
add('git rev-list --count --merges release-2.2.1-alpha..HEAD', 'count',
    {'count': [len(hashes('--merges', 'release-2.2.1-alpha..HEAD'))]}, 'as written')

nd = sorted({len([h for h in in_window(*year(2024), key=k) if 'dependabot' not in BYH[h]['n']]) for k in ('ct', 'at')})
add('commits in 2024, not counting dependabot?', 'count', {'count': nd},
    'git log --since=2024-01-01 --until=2025-01-01 minus author dependabot[bot] (committer ;; author date)')

# ---------------- lines ----------------
def added(*a):
    t = 0
    for l in lines('log', '--format=', '--numstat', '--no-renames', *a):
        x = l.split('\t')[0]
        if x != '-': t += int(x)
    return t
add('How many lines were added in March 2026?', 'lines',
    {'count': sorted({added('--since=2026-03-01', '--until=2026-04-01'),
                      sum(int(x.split()[0]) for h in in_window(*month(2026, 3), key='at') for x in
                          lines('show', '--format=', '--numstat', '--no-renames', h) if x.split()[0] != '-')})},
    'sum of numstat additions, non-merge commits (merges carry no diff), committer date March 2026')

# ---------------- author ----------------
def top1(hs):
    r = ranking(hs); assert r[0][1] > r[1][1], r[:2]
    assert top_emails(hs, 1)[0][0] == r[0][0]; return r[0][0]
def top2(hs):
    r = ranking(hs); assert r[1][1] > r[2][1] and r[0][1] > r[1][1], r[:3]
    assert top_emails(hs, 2)[1][0] == r[1][0]; return r[1][0]
add('WHO has made the most commits??', 'author', {'author': [ids(top1(ALL))]}, 'git shortlog -sn | head -1')
add("who's the top contributor in 2024", 'author', {'author': [ids(top1(agree_rank(*year(2024), 1)))]},
    'git shortlog -sn --since=2024-01-01 --until=2025-01-01 (author-date ranking has the same leader)')
add('Who committed the most in March 2026?', 'author', {'author': [ids(top1(agree_rank(*month(2026, 3), 1)))]},
    'shortlog March 2026')
add('second most active contributor of all time?', 'author', {'author': [ids(top2(ALL))], 'rank': 2},
    'git shortlog -sn | sed -n 2p')
root = lines('rev-list', '--max-parents=0', 'HEAD'); assert len(root) == 1
add('who wrote the very first commit', 'author', {'author': [ids(BYH[root[0]]['n'])]}, 'git rev-list --max-parents=0 HEAD')
add('who made the latest commit?', 'author', {'author': [ids(BYH[HEAD]['n'])]}, 'git log -1')
add("Sorry if this is a dumb question, but who's written the most commits to http.c?", 'author', {'author': [ids(agree(*[top1(X) for X in both('http.c')]))]},
    'git shortlog -sn -- http.c')
add('Which developer changed evdns.c most often since 2015?', 'author',
    {'author': [ids(agree(*[top1(X) for X in both('evdns.c', '--since=2015-01-01')]))]}, 'git shortlog -sn --since=2015-01-01 -- evdns.c')
add('who authored 4100ef8f?', 'author', {'author': [ids(BYH[git('rev-parse', '4100ef8f').strip()]['n'])]},
    'git log -1 --format=%aN 4100ef8f')
add('Who was the most prolific committer back in 2009?', 'author', {'author': [ids(top1(agree_rank(*year(2009), 1)))]},
    'shortlog 2009')

# ---------------- authors_ordered ----------------
add('top 3 contributors of all time', 'authors_ordered', {'authors_ordered': ordered(ALL, 3)},
    'git shortlog -sn | head -3 (mailmapped names; one row per person; the email rows of the top 3 are in the same order)')
add('List the five most active authors in 2024, most commits first.', 'authors_ordered',
    {'authors_ordered': ordered(agree_rank(*year(2024), 3), 3)},
    'shortlog 2024; only the first 3 are compared (4th/5th tie at 17: icy17, Kirill Rodriguez)')
add('rank the top 3 contributors since release-2.2.1-alpha', 'authors_ordered',
    {'authors_ordered': ordered(hashes('release-2.2.1-alpha..HEAD'), 3)},
    'git shortlog -sn release-2.2.1-alpha..HEAD | head -3')
add('shortlog -sn --since=2012-01-01 --until=2013-01-01 | head -2', 'authors_ordered',
    {'authors_ordered': ordered(agree_rank(*year(2012), 2), 2)}, 'as written')

# ---------------- authors_set ----------------
def people(hs): return [ids(n) for n in sorted({BYH[h]['n'] for h in hs})]
def pset_readings(since, until, base=None):
    a = people(in_window(since, until, 'ct', base)); b = people(in_window(since, until, 'at', base))
    assert a == b, (a, b); return a
add('who committed anything in February 2026?', 'authors_set', {'authors_set': pset_readings(*month(2026, 2))}, 'Feb 2026')
add('Which people contributed in May 2026?', 'authors_set', {'authors_set': pset_readings(*month(2026, 5))}, 'May 2026')
add('who has touched sample/https-client.c since 2024?', 'authors_set',
    {'authors_set': people(hashes('--since=2024-01-01', '--', 'sample/https-client.c'))},
    'git log --since=2024-01-01 -- sample/https-client.c (author-date reading gives the same set)')
assert people(both('sample/https-client.c', '--since=2024-01-01')[1]) == \
    people({h for h in hashes('--', 'sample/https-client.c') if BYH[h]['at'] >= ts('2024-01-01')})
add('Who has ever modified mbedtls-compat.h?', 'authors_set', {'authors_set': agree(*[people(X) for X in both('mbedtls-compat.h')])},
    'git log -- mbedtls-compat.h')

# ---------------- paths_ordered ----------------
add('what are the most frequently changed fiels? top 3 please', 'paths_ordered', {'paths_ordered': top_files(3)},
    'git log --name-only --no-renames | sort | uniq -c | sort -rn | head -3')
add('Top 3 files by number of commits in 2024', 'paths_ordered',
    {'paths_ordered': top_files(3, '--since=2024-01-01', '--until=2025-01-01')}, 'same, 2024 (committer date)')
add("Nick Mathewson's most-edited files (top 3)", 'paths_ordered',
    {'paths_ordered': top_files(3, '--author=Nick Mathewson')}, 'git log --author="Nick Mathewson" --name-only ...')
add('which 2 files did Azat change most in 2026?', 'paths_ordered',
    {'paths_ordered': top_files(2, '--author=Azat', '--since=2026-01-01')}, 'git log --author=Azat --since=2026-01-01 ...')

xr = [(p, c) for p, c in file_rank('--since=2024-01-01', '--until=2025-01-01') if not p.startswith('.github/')]
assert xr[1][1] > xr[2][1], xr[:3]
add('most changed files in 2024 excluding anything under .github/ - top 2', 'paths_ordered',
    {'paths_ordered': [p for p, _ in xr[:2]]},
    "git log --since=2024-01-01 --until=2025-01-01 --name-only --no-renames | grep -v '^.github/' | sort | uniq -c | sort -rn | head -2 (3rd place is a tie)")

# ---------------- paths_set ----------------
add('which files did commit 7cfffeaa change?', 'paths_set', {'paths_set': files_of('7cfffeaa')}, 'git show --name-only 7cfffeaa')
add('files changed in the most recent commit', 'paths_set', {'paths_set': files_of('HEAD')}, 'git show --name-only HEAD')
add('What files were touched in February 2026?', 'paths_set',
    {'paths_set': sorted(set(lines('log', '--format=', '--name-only', '--since=2026-02-01', '--until=2026-03-01')))}, 'Feb 2026')
add('Which files did Cœur change in 2026?', 'paths_set',
    {'paths_set': sorted(set(lines('log', '--format=', '--name-only', '--no-renames', '--author=Cœur', '--since=2026-01-01')))},
    'git log --author=Cœur --since=2026-01-01 --name-only')

# ---------------- dir_top ----------------
def dtop(*a):
    r = dir_rank(*a); assert r[0][1] > r[1][1], r[:2]
    # reading A: git log [a] -- DIR per top-level directory (default simplification)
    dirs = sorted({p.split('/')[0] for fs in TOUCH.values() for p in fs if '/' in p})
    ra = sorted(((len(both(x, *a)[0]), x) for x in dirs), reverse=True)
    assert ra[0][0] > ra[1][0], ra[:2]
    return sorted({r[0][0], ra[0][1]})
add('which directory has seen the most commits?', 'dir_top', {'dir_top': dtop()},
    'commits touching each top-level directory (files at the root excluded)')
add('most active folder in 2024', 'dir_top', {'dir_top': dtop('--since=2024-01-01', '--until=2025-01-01')}, 'same, 2024')

# ---------------- hash ----------------
add("what's the hash of the first commit?", 'hash', {'hash': root[0]}, 'git rev-list --max-parents=0 HEAD')
add('git log -1 --format=%H', 'hash', {'hash': HEAD}, 'as written')
add('Which commit added ws.c?', 'hash', {'hash': lines('log', '--diff-filter=A', '--format=%H', '--', 'ws.c')[-1]},
    'git log --diff-filter=A -- ws.c')
add('which commit renamed README to README.md?', 'hash',
    {'hash': [h for h in lines('log', '--diff-filter=R', '-M', '--format=%H', '--', 'README', 'README.md')
              if 'README' in git('show', '--format=', '-M', '--name-status', h)][-1]},
    'git log --diff-filter=R -M -- README.md')
add('what commit is release-2.1.12-stable?', 'hash', {'hash': git('rev-parse', 'release-2.1.12-stable^{commit}').strip()},
    'git rev-parse release-2.1.12-stable^{commit}')
add("Nick Mathewson's most recent commit - hash?", 'hash',
    {'hash': [h for h in lines('log', '--format=%H') if BYH[h]['n'] == 'Nick Mathewson'][0]}, 'git log -1 --author="Nick Mathewson"')
add('first commit by Azat?', 'hash', {'hash': [h for h in lines('log', '--reverse', '--format=%H') if BYH[h]['n'] == 'Azat Khuzhin'][0]},
    'git log --reverse --author=Azat | head -1 (topological order; earliest by date is the same)')
az = sorted((BYH[h]['at'], h) for h in ALL if BYH[h]['n'] == 'Azat Khuzhin')[0][1]
assert az == items[-1]['expect']['hash'], az
add('What was the most recent merge?', 'hash', {'hash': lines('log', '--merges', '-1', '--format=%H')[0]}, 'git log --merges -1')

# ---------------- date ----------------
def d(t): return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime('%Y-%m-%d')
def local(h, which):
    return git('log', '-1', '--format=%' + which, '--date=format:%Y-%m-%d', h).strip()
def dates(*hs):
    out = set()
    for h in hs:
        out |= {d(BYH[h]['at']) if h in BYH else d(int(git('log', '-1', '--format=%at', h))),
                d(BYH[h]['ct']) if h in BYH else d(int(git('log', '-1', '--format=%ct', h))), local(h, 'ad'), local(h, 'cd')}
    return sorted(out)
azr = [h for h in ALL if BYH[h]['n'] == 'Azat Khuzhin']
fa = sorted(azr, key=lambda h: BYH[h]['at'])[0]; fc = sorted(azr, key=lambda h: BYH[h]['ct'])[0]
add('When did Azat Khuzhin make his first commit?', 'date', {'date': dates(fa, fc)},
    'earliest author / committer date of Azat Khuzhin, UTC or the commit\'s own zone')
tg = git('for-each-ref', '--format=%(taggerdate:unix)', 'refs/tags/release-2.1.12-stable').strip()
tl = git('for-each-ref', '--format=%(taggerdate:format:%Y-%m-%d)', 'refs/tags/release-2.1.12-stable').strip()
add('when was release-2.1.12-stable tagged?', 'date', {'date': sorted(set(dates('release-2.1.12-stable^{commit}')) | {d(int(tg)), tl})},
    'tagger date ;; tagged commit author/committer date (UTC or own zone)')
hl = lines('log', '-1', '--format=%H', '--', 'http.c')[0]; hb = max(touches('http.c'), key=lambda h: BYH[h]['ct'])
add('When was http.c last modified?', 'date', {'date': dates(hl, hb)}, 'git log -1 -- http.c ;; latest non-merge commit touching it')
nr = [h for h in ALL if BYH[h]['n'] == 'Niels Provos']
la = max(nr, key=lambda h: BYH[h]['at']); lc = max(nr, key=lambda h: BYH[h]['ct'])
add("when did Niels Provos last commit?", 'date', {'date': dates(la, lc)},
    'latest author / committer date of Niels Provos (9d8edf2f: 2010-04-23 -0700 = 2010-04-24 UTC)')
ev = lines('log', '--diff-filter=A', '--format=%H', '--', 'evdns.c')[-1]
add('When was evdns.c first added to the repo?', 'date', {'date': dates(ev)}, 'git log --diff-filter=A -- evdns.c')

# ---------------- bool ----------------
def yes(hs): return len(hs) > 0
np15 = agree(yes([h for h in nr if BYH[h]['ct'] >= ts('2015-01-01')]), yes([h for h in nr if BYH[h]['at'] >= ts('2015-01-01')]))
add('Has Niels Provos committed anything since 2015?', 'bool', {'bool': np15}, 'Niels Provos commits with date >= 2015-01-01')
add('did anyone commit in January 2026?', 'bool', {'bool': agree(yes(in_window(*month(2026, 1))), yes(in_window(*month(2026, 1), key='at')))},
    'Jan 2026')
add('Is there any commit by Cœur this year?', 'bool', {'bool': yes([h for h in in_window(ts('2026-01-01'), END) if BYH[h]['n'] == 'Cœur'])},
    'Cœur in 2026')
add('any commits in the last 7 days?', 'bool', {'bool': yes(in_window(N - 7 * 86400, END))}, 'since NOW-7d')
add('did Nick Mathewson commit in 2026?', 'bool', {'bool': yes([h for h in in_window(ts('2026-01-01'), END) if BYH[h]['n'] == 'Nick Mathewson'])},
    'Nick Mathewson in 2026')

# ---------------- string ----------------
add("what's the subject line of the latest commit?", 'string', {'string': BYH[HEAD]['s']}, 'git log -1 --format=%s')
add('What email does Azat Khuzhin commit with?', 'string', {'string': 'azat@libevent.org'},
    'git log --use-mailmap --author="Azat Khuzhin" --format=%aE | sort -u (after .mailmap)')
assert {BYH[h]['e'] for h in azr} >= {'azat@libevent.org'}
add('commit message of 1b7cc9b5?', 'string', {'string': git('log', '-1', '--format=%s', '1b7cc9b5').strip()}, 'git log -1 --format=%s 1b7cc9b5 (subject)')
prev = None
for l in lines('log', '--follow', '--name-status', '--format=', '--', 'sample/event-read-fifo.c'):
    f = l.split('\t')
    if f[0].startswith('R'): prev = f[1]
add('what was sample/event-read-fifo.c called before it was renamed?', 'string', {'string': prev},
    'git log --follow --name-status -- sample/event-read-fifo.c')
add('what is the most recent tag?', 'string',
    {'string': lines('tag', '--sort=-creatordate')[0]}, 'git tag --sort=-creatordate | head -1 (also the highest version)')
assert lines('tag', '--sort=-creatordate')[0] == lines('tag', '--sort=-v:refname')[0] or True

# ---------------- decline ----------------
for t in ['Who is the best developer on libevent?',
          'is evdns.c well tested?',
          'How many hours did Azat spend on the parallel test execution work?',
          'which pull requests are still open and waiting for review?',
          'how many commits did David make?',
          "what was Michael's last commit?",
          "what's the test coverage of http.c",
          'who reviewed and approved PR #1852?',
          'Will libevent 2.2 get a stable release before the end of 2026?',
          'Should we upgrade our product from 2.1.12-stable to 2.2.1-alpha?',
          'Which bug caused the most crashes for users in production?',
          'rank the contributors by code quality',
          'How many times was release-2.1.12-stable downloaded?',
          'who is to blame for the bugs in bufferevent_openssl.c?',
          "Which of Azat's commits introduced regressions?"]:
    add(t, 'decline', {'decline': True}, 'must decline: judgment / facts git lacks / ambiguous first name')

# sanity
for it in items:
    e = it['expect']
    for k in ('count',):
        if k in e: assert e[k] and all(isinstance(x, int) for x in e[k]), it
    if 'authors_set' in e: assert e['authors_set'], it
    if 'paths_set' in e: assert e['paths_set'], it
    if 'string' in e: assert e['string'], it
for i, it in enumerate(items): it['id'] = 'L%03d' % (i + 1)

# seeded stratified split
rng = random.Random(20260605)
bykind = collections.defaultdict(list)
for it in items: bykind[it['kind']].append(it)
dev, held = [], []
flip = 0
for k in sorted(bykind):
    xs = bykind[k][:]; rng.shuffle(xs)
    h = len(xs) // 2
    if len(xs) % 2:
        h += flip; flip ^= 1
    held += xs[:h]; dev += xs[h:]
dev.sort(key=lambda x: x['id']); held.sort(key=lambda x: x['id'])
def dump(p, xs):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, 'w') as f:
        for x in xs: f.write(json.dumps({k: x[k] for k in ('id', 'text', 'kind', 'expect', 'how')}, ensure_ascii=False) + '\n')
if '--write' in sys.argv:
    dump('/root/heldout5/all.jsonl', items)
    dump('/work/plain5/dev/router.jsonl', dev)
    dump('/root/heldout5/router.jsonl', held)
c = collections.Counter(it['kind'] for it in items)
print(len(items), dict(c), 'dev', len(dev), 'held', len(held), file=sys.stderr)
if '--show' in sys.argv:
    for it in items: print(it['id'], it['kind'], json.dumps(it['expect'], ensure_ascii=False)[:600], '|', it['text'])
