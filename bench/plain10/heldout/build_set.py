#!/usr/bin/env python3
"""build_set.py OUTDIR: builds the plain10 fixture (make_fixture.sh) in a temp dir and computes every expected
answer with git (git log/rev-list/show/for-each-ref + Python filters over `git log` output).
Writes OUTDIR/all.jsonl (the whole set, before the split) and OUTDIR/build_notes.txt. No expected value typed by hand."""
import collections, datetime as dt, json, os, subprocess, sys, tempfile
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1]
HERE = os.environ.get("PLAIN10_DIR", "/work/plain10")  # make_fixture.sh lives there
NOW = dt.datetime(2026, 11, 18, 12, 0, tzinfo=dt.timezone.utc)   # QUARRY_NOW, a Wednesday
tmp = tempfile.mkdtemp(prefix='p10build-'); FX = os.path.join(tmp, 'shopwave')
subprocess.run([os.path.join(HERE, 'make_fixture.sh'), FX], check=True)
ENV = {'PATH': os.environ['PATH'], 'HOME': tmp, 'TZ': 'UTC', 'GIT_CONFIG_NOSYSTEM': '1'}
def git(*a):
    return subprocess.run(['git', '-C', FX] + list(a), capture_output=True, text=True, check=True, env=ENV).stdout
HEAD = git('rev-parse', 'HEAD').strip()
notes = ['fixture HEAD ' + HEAD]
# ---- commit records
C = []
raw = git('log', '--numstat', '--no-renames', '--format=@@%H|%P|%aN|%aE|%an|%ae|%aI|%cI|%cN|%s', 'HEAD')
cur = None
for line in raw.split('\n'):
    if line.startswith('@@'):
        h, p, aN, aE, an, ae, aI, cI, cN, s = line[2:].split('|', 9)
        cur = dict(hash=h, parents=p.split(), aN=aN, aE=aE.lower(), an=an, ae=ae.lower(), aI=aI, cI=cI, cN=cN, subj=s, files={})
        C.append(cur)
    elif line.strip() and cur is not None:
        a, d, f = line.split('\t')
        cur['files'][f] = (int(a) if a != '-' else 0, int(d) if d != '-' else 0)
for c in C:
    c['merge'] = len(c['parents']) > 1
    c['a_utc'] = dt.datetime.fromisoformat(c['aI']).astimezone(dt.timezone.utc)
    c['a_loc'] = dt.datetime.fromisoformat(c['aI'])
    c['c_utc'] = dt.datetime.fromisoformat(c['cI']).astimezone(dt.timezone.utc)
# renames-mode additions (default rename detection)
radd = {}
cur = None
for line in git('log', '--numstat', '-M', '--format=@@%H', 'HEAD').split('\n'):
    if line.startswith('@@'): cur = line[2:]; radd[cur] = 0
    elif line.strip():
        a = line.split('\t')[0]; radd[cur] += int(a) if a != '-' else 0
# people (grouping = .mailmap, the repo's own)
PEOPLE = collections.defaultdict(set)
for c in C:
    PEOPLE[c['aN']].update({c['aN'], c['an'], c['ae'], c['aE']})
def ids(name): return sorted(PEOPLE[name])
READ = {'author UTC': lambda c: c['a_utc'], 'author local': lambda c: c['a_loc'], 'committer UTC': lambda c: c['c_utc']}
def in_period(c, key, prefix):  # prefix 'YYYY', 'YYYY-MM', 'YYYY-MM-DD'
    return READ[key](c).strftime('%Y-%m-%d').startswith(prefix)
def variants(pred_by_key, base=None):
    """count readings: per date reading key, commits of base (default all) matching."""
    base = base if base is not None else C
    return sorted({sum(1 for c in base if pred_by_key(c, k)) for k in READ})
def since_variants(starts, base=None):
    base = base if base is not None else C
    out = set()
    for s in starts:
        for k in ('author UTC', 'committer UTC'):
            out.add(sum(1 for c in base if READ[k](c) >= s))
    return sorted(out)
def person_f(name): return lambda c: c['aN'] == name
def path_f(p): return lambda c: any(f == p or f.startswith(p.rstrip('/') + '/') for f in c['files'])
def rl_count(*a): return int(git('rev-list', '--count', *a).strip())
midnight = NOW.replace(hour=0, minute=0)
items = []
def add(kind, text, expect, how):
    items.append({'kind': kind, 'text': text, 'expect': expect, 'how': how})
def cnt(vals): return {'count': sorted(set(vals))}
# ================= count =================
add('count', 'how many commits are there in total?', cnt([rl_count('HEAD')]), 'git rev-list --count HEAD')
add('count', 'How many commits did Kenji make?', cnt([sum(1 for c in C if c['aN'] == 'Kenji Tanaka')]),
    'git log --use-mailmap --format=%aN HEAD | grep -c "^Kenji Tanaka$"')
pri = [c for c in C if c['aN'] == 'Priya Raman']
add('count', 'number of commits by priya in 2025', cnt(variants(lambda c, k: in_period(c, k, '2025'), pri)),
    'Priya Raman commits with 2025 dates (author UTC / author local / committer UTC)')
lw = [NOW - dt.timedelta(days=7), midnight - dt.timedelta(days=7)]
lw_cal = [c for c in C if dt.datetime(2026, 11, 9, tzinfo=dt.timezone.utc) <= c['a_utc'] < dt.datetime(2026, 11, 16, tzinfo=dt.timezone.utc)]
add('count', 'commits last week?', cnt(since_variants(lw) + [len(lw_cal)]),
    'git rev-list --count --since="7 days ago" HEAD (NOW or midnight), or calendar week Mon 2026-11-09..Sun 11-15')
add('count', 'How many commits happened in the past 90 days', cnt(since_variants([NOW - dt.timedelta(days=90), midnight - dt.timedelta(days=90)])),
    'git rev-list --count --since="90 days ago" HEAD (from NOW or midnight)')
q4 = dt.datetime(2026, 10, 1, tzinfo=dt.timezone.utc)
add('count', 'how many commits this quarter', cnt(variants(lambda c, k: READ[k](c).strftime('%Y-%m') >= '2026-10')),
    'commits dated 2026-10-01 .. NOW (Q4 2026), git rev-list --count --since=2026-10-01 HEAD')
add('count', 'how many merges are there', cnt([rl_count('--merges', 'HEAD')]), 'git rev-list --count --merges HEAD')
add('count', 'count non-merge commits since v2.0.0', cnt([rl_count('--no-merges', 'v2.0.0..HEAD')]), 'git rev-list --count --no-merges v2.0.0..HEAD')
add('count', 'How many commits between v1.2.0 and v1.3.0?', cnt([rl_count('v1.2.0..v1.3.0')]), 'git rev-list --count v1.2.0..v1.3.0')
add('count', 'how many commits touched shop/payments/ in 2026', cnt(
    variants(lambda c, k: in_period(c, k, '2026'), [c for c in C if path_f('shop/payments')(c)]) +
    [rl_count('--since=2026-01-01', '--until=2026-12-31T23:59:59', 'HEAD', '--', 'shop/payments')]),
    'git rev-list --count --since=2026-01-01 HEAD -- shop/payments (and author-date readings)')
fol = len(git('log', '--follow', '--format=%H', '--', 'docs/installation.md').split())
add('count', 'how many times has docs/installation.md been changed?', cnt([rl_count('HEAD', '--', 'docs/installation.md'), fol]),
    'git rev-list --count HEAD -- docs/installation.md ; or git log --follow (renamed from docs/setup.md)')
em = [c for c in C if c['aN'] == 'Emma Lindqvist']
add('count', 'how many commits did Emma Lindqvist land in march 2026?', cnt(variants(lambda c, k: in_period(c, k, '2026-03'), em)),
    'Emma Lindqvist commits dated 2026-03 (3 readings)')
# busiest day
days = collections.Counter(c['a_utc'].strftime('%Y-%m-%d') for c in C)
bday = sorted(days.items(), key=lambda x: (-x[1], x[0]))[0][0]
add('count', 'commits on %s?' % bday, cnt(variants(lambda c, k: in_period(c, k, bday))), 'commits dated %s (3 readings)' % bday)
add('count', 'hw many commits did lucas do', cnt([sum(1 for c in C if c['aN'] == 'Lucas Silva')]), 'git shortlog -sn --use-mailmap HEAD | grep "Lucas Silva"')
add('count', 'How many commits has Okafor made since v2.1.0?', cnt([int(git('rev-list', '--count', '--author=Okafor', 'v2.1.0..HEAD').strip())]),
    'git rev-list --count --author=Okafor v2.1.0..HEAD')
add('count', 'number of commits from tnguyen@shopwave.io', cnt([sum(1 for c in C if c['ae'] == 'tnguyen@shopwave.io')]), 'git log --author=tnguyen@shopwave.io | count')
add('count', 'how many commits did dancohen push?', cnt([sum(1 for c in C if 'dancohen' in c['ae']), sum(1 for c in C if c['aN'] == 'Daniel Cohen')]),
    'handle dancohen: commits with the noreply address, or all of Daniel Cohen (mailmap)')
web30 = [c for c in C if path_f('web')(c)]
add('count', 'count commits in the web/ directory over the last 30 days', cnt(since_variants([NOW - dt.timedelta(days=30), midnight - dt.timedelta(days=30)], web30)),
    'git rev-list --count --since="30 days ago" HEAD -- web')
add('count', 'how many commits this month so far?', cnt(variants(lambda c, k: in_period(c, k, '2026-11'))), 'commits dated 2026-11 (NOW is 2026-11-18)')
add('count', 'How many commits were made in October 2026?', cnt(variants(lambda c, k: in_period(c, k, '2026-10'))), 'commits dated 2026-10 (3 readings)')
add('count', 'git rev-list --count v2.2.0..HEAD', cnt([rl_count('v2.2.0..HEAD')]), 'git rev-list --count v2.2.0..HEAD')
add('count', 'commits since prod-freeze', cnt([rl_count('prod-freeze..HEAD')]), 'git rev-list --count prod-freeze..HEAD')
add('count', 'how many commits were made on weekends?', cnt(sorted({sum(1 for c in C if READ[k](c).weekday() >= 5) for k in ('author UTC', 'author local')})),
    'commits whose author date (UTC or local) is a Saturday or Sunday')
add('count', 'How many commits did everyone except Kenji make in 2026?', cnt(variants(lambda c, k: in_period(c, k, '2026') and c['aN'] != 'Kenji Tanaka')),
    '2026 commits not by Kenji Tanaka')
mp = [c for c in C if c['aN'] == 'Maria Petrova']
add('count', 'how many commits did Maria Petrova make in the last 6 months', cnt(since_variants([NOW - dt.timedelta(days=182), NOW - dt.timedelta(days=183), NOW - dt.timedelta(days=181), dt.datetime(2026, 5, 18, tzinfo=dt.timezone.utc)], mp)),
    'Maria Petrova commits since 2026-05-18 (6 months / 181-183 days)')
add('count', 'please tell me how many commits touched infra/ since the start of the year, thanks!',
    cnt(variants(lambda c, k: in_period(c, k, '2026'), [c for c in C if path_f('infra')(c)]) + [rl_count('--since=2026-01-01', 'HEAD', '--', 'infra')]),
    'git rev-list --count --since=2026-01-01 HEAD -- infra')
add('count', 'number of merge commits in 2025', cnt(variants(lambda c, k: in_period(c, k, '2025') and c['merge'])), 'git rev-list --count --merges --since=2025-01-01 --until=2025-12-31 HEAD')
add('count', 'how many different people committed in 2025?', cnt(sorted({len({c[key] for c in C if in_period(c, k, '2025')}) for k in READ for key in ('aN', 'aE')})),
    'distinct authors (mailmap) with 2025 commits')
add('count', 'how many commits came from tbecker@old-agency.de', cnt([sum(1 for c in C if c['ae'] == 'tbecker@old-agency.de'), sum(1 for c in C if c['aN'] == 'Tom Becker')]),
    'raw email tbecker@old-agency.de (or all of Tom Becker via .mailmap)')
sg = len(git('log', '--follow', '--format=%H', '--', 'shop/payments/stripe_gateway.py').split())
add('count', 'number of changes to shop/payments/stripe_gateway.py', cnt([rl_count('HEAD', '--', 'shop/payments/stripe_gateway.py'), sg]),
    'git rev-list --count HEAD -- shop/payments/stripe_gateway.py ; or --follow')
# ================= author =================
def rank(base, key='aN', metric=lambda c: 1):
    ctr = collections.Counter()
    for c in base: ctr[c[key]] += metric(c)
    return ctr.most_common()
def top_people(base, pos=0, metric=lambda c: 1, low=False):
    """people at rank pos (0 = most; low: fewest), ties included."""
    r = rank(base, 'aN', metric)
    if low: r = sorted(r, key=lambda x: x[1])
    v = r[pos][1]; who = [n for n, x in r if x == v]
    if len(who) > 1: notes.append('TIE at %d: %s' % (pos, who))
    if pos and r[pos - 1][1] == v: notes.append('TIE with previous rank: %s' % who)
    return who
def auth(who, r=1): return {'author': [ids(w) for w in who], **({'rank': r} if r != 1 else {})}
add('author', 'who committed most?', auth(top_people(C)), 'git shortlog -sn --use-mailmap HEAD | head -1')
add('author', "who's the top contributor to web/ ?", auth(top_people([c for c in C if path_f('web')(c)])), 'git shortlog -sn HEAD -- web | head -1')
add('author', 'who made the second most commits', auth(top_people(C, 1), 2), 'git shortlog -sn --use-mailmap HEAD | sed -n 2p')
add('author', 'who has the fewest commits', auth(top_people(C, 0, low=True), -1), 'git shortlog -sn --use-mailmap HEAD | tail -1')
octc = lambda k: [c for c in C if in_period(c, k, '2026-10')]
w = set();
for k in READ: w.update(top_people(octc(k)))
w2 = set(top_people([c for c in C if c['a_utc'] >= NOW - dt.timedelta(days=30)]))
add('author', 'who was most active last month', auth(sorted(w | w2)), 'top author of 2026-10 (or of the past 30 days)')
fo = git('log', '--follow', '--diff-filter=A', '--format=%aN', '--', 'shop/payments/stripe_gateway.py').split('\n')
fo = [x for x in fo if x]
nf = git('log', '--diff-filter=A', '--format=%aN', 'HEAD', '--', 'shop/payments/stripe_gateway.py').split('\n')
add('author', 'who created shop/payments/stripe_gateway.py?', auth(sorted({fo[-1], [x for x in nf if x][-1]})),
    'git log --follow --diff-filter=A (creator of stripe.py) or without --follow (the renamer)')
add('author', 'who last touched docs/installation.md', auth([git('log', '-1', '--format=%aN', 'HEAD', '--', 'docs/installation.md').strip()]), 'git log -1 --format=%aN -- docs/installation.md')
y25 = [c for c in C if c['a_utc'].year == 2025 and not c['merge']]
wl = set(top_people(y25, metric=lambda c: sum(a + d for a, d in c['files'].values()))) | set(top_people(y25, metric=lambda c: sum(a for a, d in c['files'].values())))
add('author', 'who changed the most lines in 2025', auth(sorted(wl)), 'numstat over 2025 non-merge commits: additions+deletions or additions')
add('author', 'who authored the very first commit?', auth([git('log', '--reverse', '--format=%aN', 'HEAD').split('\n')[0]]), 'git log --reverse --format=%aN | head -1')
add('author', 'Who made the most recent commit', auth([git('log', '-1', '--format=%aN', 'HEAD').strip()]), 'git log -1 --format=%aN')
w = set()
for k in READ: w.update(top_people([c for c in C if in_period(c, k, '2026') and path_f('infra')(c)]))
add('author', 'top committer in infra/ this year', auth(sorted(w)), 'git shortlog -sn --since=2026-01-01 HEAD -- infra | head -1')
add('author', 'who wrote most of the commits in shop/search', auth(top_people([c for c in C if path_f('shop/search')(c)])), 'git shortlog -sn HEAD -- shop/search | head -1')
add('author', 'who merged the most branches?', auth(top_people([c for c in C if c['merge']])), 'git shortlog -sn --merges HEAD | head -1')
w = set()
for k in READ: w.update(top_people([c for c in C if READ[k](c).strftime('%Y-%m') in ('2026-07', '2026-08', '2026-09')]))
add('author', 'WHO COMMITTED MOST IN Q3 2026', auth(sorted(w)), 'top author of 2026-07..09')
wc = [c for c in C if path_f('web/src/components')(c) and not c['merge']]
add('author', 'who added the most lines in web/src/components?', auth(top_people(wc, metric=lambda c: sum(a for f, (a, d) in c['files'].items() if f.startswith('web/src/components/')))),
    'numstat additions under web/src/components per author')
# ================= authors_ordered / set =================
def ordered(base, n):
    r = rank(base)
    for i in range(n + 1):
        if i < len(r) - 1 and r[i][1] == r[i + 1][1] and i < n: notes.append('TIE in ordered list at %d' % i)
    return [ids(x[0]) for x in r[:n]]
add('authors_ordered', 'top 3 contributors by commits', {'authors_ordered': ordered(C, 3)}, 'git shortlog -sn --use-mailmap HEAD | head -3')
add('authors_ordered', 'rank the authors of shop/orders by number of commits, top 2', {'authors_ordered': ordered([c for c in C if path_f('shop/orders')(c)], 2)},
    'git shortlog -sn HEAD -- shop/orders | head -2')
def pset(base): return [ids(n) for n in sorted({c['aN'] for c in base})]
r2w = [set(c['aN'] for c in C if READ[k](c) >= s) for k in ('author UTC', 'committer UTC') for s in (NOW - dt.timedelta(days=14), midnight - dt.timedelta(days=14))]
add('authors_set', 'who committed in the past 2 weeks?', {'any_of': [{'authors_set': [ids(n) for n in sorted(s)]} for s in {frozenset(x) for x in r2w}]},
    'git shortlog -sn --since="2 weeks ago" HEAD')
add('authors_set', 'which people have touched infra/k8s?', {'authors_set': pset([c for c in C if path_f('infra/k8s')(c)])}, 'git shortlog -sn HEAD -- infra/k8s')
# a day with 3+ distinct authors
d3 = sorted(d for d in days if len({c['aN'] for c in C if c['a_utc'].strftime('%Y-%m-%d') == d}) >= 3)[-1]
add('authors_set', 'list everyone who committed on %s' % d3, {'any_of': [{'authors_set': pset([c for c in C if in_period(c, k, d3)])} for k in READ]},
    'authors of commits dated %s (3 readings)' % d3)
# ================= paths =================
def names(h): return sorted(x for x in git('show', '--format=', '--name-only', '--no-renames', h).split('\n') if x)
assert not C[0]['merge']
add('paths', 'what files did the last commit change', {'paths_set': names('HEAD')}, 'git show --name-only --format= HEAD')
mid = [c for c in C if not c['merge'] and len(c['files']) >= 2][len(C) // 3]
add('paths', 'which files did commit %s touch?' % mid['hash'][:8], {'paths_set': names(mid['hash'])}, 'git show --name-only --format= ' + mid['hash'][:8])
fr = collections.Counter(f for c in C for f in c['files'])
top3 = fr.most_common(4)
assert top3[0][1] > top3[1][1]
add('paths', "what's the most frequently changed file?", {'paths_ordered': [top3[0][0]]}, 'git log --format= --name-only --no-renames | sort | uniq -c | sort -rn | head -1')
for dcand in ('web/', 'shop/', 'docs/', 'tests/', 'infra/'):
    fs = collections.Counter(f for c in C for f in c['files'] if f.startswith(dcand)).most_common(3)
    if fs[0][1] > fs[1][1] > fs[2][1]: break
else: sys.exit('no untied directory ranking')
add('paths', 'top 2 most changed files in %s' % dcand, {'paths_ordered': [x[0] for x in fs[:2]]}, 'git log --format= --name-only --no-renames HEAD -- %s | sort | uniq -c | sort -rn | head -2 (3rd strictly lower)' % dcand)
dele = sorted(x for x in git('log', '--diff-filter=D', '--no-renames', '--name-only', '--format=', 'HEAD').split('\n') if x)
dele_r = sorted(x for x in git('log', '--diff-filter=D', '--name-only', '--format=', 'HEAD').split('\n') if x)
add('paths', 'which files have been deleted?', {'any_of': [{'paths_set': dele_r}, {'paths_set': dele}]}, 'git log --diff-filter=D --name-only (with or without rename detection)')
dirs = collections.Counter()
for c in C:
    for d in {f.split('/')[0] for f in c['files'] if '/' in f}: dirs[d] += 1
dt_ = dirs.most_common(2); assert dt_[0][1] > dt_[1][1]
add('paths', 'which directory has the most commits?', {'dir_top': [dt_[0][0]]}, 'top-level dir counted once per commit')
# ================= date =================
def dates(h_fmt_args):
    out = git('log', '-1', '--format=%aI|%cI', *h_fmt_args).strip().split('|')
    s = set()
    for x in out:
        d = dt.datetime.fromisoformat(x); s.add(d.strftime('%Y-%m-%d')); s.add(d.astimezone(dt.timezone.utc).strftime('%Y-%m-%d'))
    return {'any_of': [{'date': x} for x in sorted(s)]}
add('date', 'when was docs/installation.md last changed', dates(['HEAD', '--', 'docs/installation.md']), 'git log -1 --format=%aI -- docs/installation.md (UTC or local day)')
gh = git('log', '--reverse', '--author=Grace Kim', '--format=%H', 'HEAD').split()[0]
add('date', 'When did Grace Kim make her first commit?', dates([gh]), 'git log --reverse --author="Grace Kim" | first, date')
add('date', "when was Sven's last commit?", dates(['--author=Sven', 'HEAD']), 'git log -1 --author=Sven --format=%aI')
tg = git('for-each-ref', '--format=%(taggerdate:iso-strict)|%(*objectname)', 'refs/tags/v2.0.0').strip().split('|')
ds = set(); td = dt.datetime.fromisoformat(tg[0]); ds |= {td.strftime('%Y-%m-%d'), td.astimezone(dt.timezone.utc).strftime('%Y-%m-%d')}
for x in git('log', '-1', '--format=%aI|%cI', tg[1]).strip().split('|'):
    d = dt.datetime.fromisoformat(x); ds |= {d.strftime('%Y-%m-%d'), d.astimezone(dt.timezone.utc).strftime('%Y-%m-%d')}
add('date', 'when was v2.0.0 released?', {'any_of': [{'date': x} for x in sorted(ds)]}, 'tagger date of v2.0.0 or its commit date (UTC or local)')
fh = git('rev-list', '--max-parents=0', 'HEAD').split()[0]
add('date', 'date of the first commit', dates([fh]), 'git log --reverse -1 date')
dh = git('log', '--diff-filter=D', '--format=%H', 'HEAD', '--', 'shop/api/serializers.py').split()[0]
add('date', 'what day did shop/api/serializers.py get deleted?', dates([dh]), 'git log --diff-filter=D -- shop/api/serializers.py')
# ================= hash =================
add('hash', 'what is the latest commit', {'hash': HEAD}, 'git rev-parse HEAD')
rh = git('log', '--diff-filter=R', '-M', '--format=%H', 'HEAD', '--', 'docs/setup.md', 'docs/installation.md').split()[0]
add('hash', 'which commit renamed docs/setup.md?', {'hash': rh}, 'git log --diff-filter=R -- docs/setup.md docs/installation.md')
lh = git('log', '--reverse', '--author=Lucas Silva', '--format=%H', 'HEAD').split()[0]
add('hash', 'first commit by Lucas Silva', {'hash': lh}, 'git log --reverse --author="Lucas Silva" --format=%H | head -1')
add('hash', 'what commit does v1.0.0 point to?', {'hash': git('rev-parse', 'v1.0.0^{commit}').strip()}, 'git rev-parse v1.0.0^{commit}')
add('hash', 'last merge commit?', {'hash': git('log', '-1', '--merges', '--format=%H', 'HEAD').strip()}, 'git log -1 --merges --format=%H')
# ================= hashes =================
dd = sorted(d for d, n in days.items() if n == 3)[len([1 for d, n in days.items() if n == 3]) // 2]
rd = []
for k in READ:
    s = frozenset(c['hash'] for c in C if in_period(c, k, dd))
    if s not in rd: rd.append(s)
add('hashes', 'list the commits from %s' % dd, {'hashes_set': [sorted(x) for x in rd]}, 'commits dated %s (3 readings)' % dd)
add('hashes', 'show merges since v2.2.0', {'hashes_set': [git('rev-list', '--merges', 'v2.2.0..HEAD').split()]}, 'git rev-list --merges v2.2.0..HEAD')
add('hashes', 'commits by Sven Olsen', {'hashes_set': [git('rev-list', '--author=Sven Olsen', 'HEAD').split()]}, 'git rev-list --author="Sven Olsen" HEAD')
# ================= tags =================
tags = git('tag', '-l').split()
add('tags', 'what tags are there?', {'strings_all': tags}, 'git tag -l')
newest = git('for-each-ref', '--sort=-creatordate', '--format=%(refname:short)', 'refs/tags').split()[0]
add('tags', "what's the latest tag", {'any_of': [{'string': newest}, {'string': 'v2.2.0'}, {'string': 'v2.3.0-rc1'}]}, 'newest by creatordate, or highest version (v2.3.0-rc1 / stable v2.2.0)')
t25 = [l.split('|')[0] for l in git('for-each-ref', '--format=%(refname:short)|%(creatordate:iso-strict)', 'refs/tags').split('\n') if '|2025-' in l]
add('tags', 'which tags were created in 2025?', {'strings_all': t25}, 'git for-each-ref refs/tags creatordate in 2025')
# ================= lines =================
def adds(base, pathp=None):
    a = sum(sum(x for f, (x, y) in c['files'].items() if pathp is None or f.startswith(pathp)) for c in base if not c['merge'])
    return a
y26 = lambda k: [c for c in C if in_period(c, k, '2026')]
vals = {adds(y26(k)) for k in READ} | {sum(radd[c['hash']] for c in y26('author UTC') if not c['merge'])}
add('lines', 'how many lines were added in 2026', cnt(vals), 'numstat additions of 2026 non-merge commits (--no-renames or -M)')
add('lines', 'lines added by Priya in web/', cnt([adds(pri, 'web/')]), 'git log --author=Priya --numstat -- web | sum additions')
ai = set(git('rev-list', 'v2.0.0..HEAD').split())
ab = [c for c in C if c['hash'] in ai and c['aN'] == 'Aisha Okafor']
add('lines', 'how many lines has Aisha added since v2.0.0?', cnt([adds(ab), sum(radd[c['hash']] for c in ab if not c['merge'])]), 'git log --author=Aisha --numstat v2.0.0..HEAD | sum additions')
# ================= bool =================
add('bool', 'did Sven Olsen ever commit to docs/?', {'bool': any(path_f('docs')(c) for c in C if c['aN'] == 'Sven Olsen')}, 'git log --author="Sven Olsen" -- docs')
add('bool', 'has anyone committed since v2.3.0-rc1?', {'bool': rl_count('v2.3.0-rc1..HEAD') > 0}, 'git rev-list --count v2.3.0-rc1..HEAD > 0')
add('bool', 'did Grace Kim commit anything in 2024?', {'bool': any(c['aN'] == 'Grace Kim' and c['a_utc'].year == 2024 for c in C)}, 'git log --author="Grace Kim" --until=2024-12-31')
add('bool', 'was requirements.txt ever deleted?', {'bool': bool(git('log', '--diff-filter=D', '--format=%H', 'HEAD', '--', 'requirements.txt').strip())}, 'git log --diff-filter=D -- requirements.txt')
bv = {any(c['aN'] == 'Maria Gonzalez' and path_f('shop/payments')(c) and in_period(c, k, '2026-10') for c in C) for k in READ}
assert len(bv) == 1
add('bool', 'Did Maria Gonzalez touch shop/payments last month?', {'bool': bv.pop()}, 'git log --author="Maria Gonzalez" --since=2026-10-01 --until=2026-10-31 -- shop/payments')
add('bool', 'is there a tag called v3.0.0?', {'bool': 'v3.0.0' in tags}, 'git tag -l v3.0.0')
# ================= string =================
add('string', 'what was the subject of the last commit?', {'string': git('log', '-1', '--format=%s').strip()}, 'git log -1 --format=%s')
add('string', 'which email address does Tom Nguyen commit with?', {'string': 'tnguyen@shopwave.io'}, 'git log --author="Tom Nguyen" --format=%ae | sort -u')
add('string', "what's the message of the first merge?", {'string': git('log', '--merges', '--reverse', '--format=%s').split('\n')[0]}, 'git log --merges --reverse --format=%s | head -1')
# ================= decline =================
DEC = ['who is the best developer on the team?', 'How many commits did Maria make last month?',
       'how many hours did Kenji spend on the checkout work?', 'who reviewed the last merge?',
       'which open issues are blocking v2.3.0?', 'should we ship v2.3.0 now or wait?',
       "is Priya's code quality better than Lucas's?", "what's the test coverage of shop/payments?",
       'how many commits will we have by next June?', 'which customer reported the refund bug?',
       'what did Maria work on in 2025?', "was Daniel Cohen's last deploy to production successful?",
       'how many commits did Tom push in October 2026?', "rate each author's productivity out of 10", 'whos the laziest person here']
why = ['judgment', 'ambiguous first name Maria (Gonzalez, Petrova)', 'git lacks time spent', 'git lacks reviewers', 'git lacks issues',
       'judgment', 'judgment', 'git lacks coverage', 'forecast', 'git lacks customers', 'ambiguous Maria', 'git lacks deploys',
       'ambiguous first name Tom (Becker, Nguyen)', 'judgment', 'judgment']
for t, y in zip(DEC, why): add('decline', t, {'decline': True}, y)
# ---- register variation: a few rewrites into other registers (typos, case, agent style, politeness)
REWRITE = {'how many merges are there': 'merges count pls',
           'who made the second most commits': 'Who is #2 by commit count?',
           'commits by Sven Olsen': 'Agent task: list all commits authored by Sven Olsen. Return hashes.',
           'what tags are there?': 'git tag -l',
           'which people have touched infra/k8s?': 'hey, could you tell me which people have ever touched infra/k8s? thanks a lot',
           'how many lines were added in 2026': 'total lines added in 2026 (insertions)',
           'who has the fewest commits': 'least active contributor by commits?',
           'date of the first commit': 'When was the repo started? (date of first commit)',
           'how many commits are there in total?': 'total commit count?',
           'How many commits happened in the past 90 days': 'Could you count the commits from the past 90 days for me?',
           'count non-merge commits since v2.0.0': 'git log --oneline --no-merges v2.0.0..HEAD | wc -l',
           'how many commits touched shop/payments/ in 2026': 'commits to shop/payments this year',
           'how many commits were made on weekends?': 'how many comits were made on weekends??',
           'who committed most?': 'whos committed the most',
           'who last touched docs/installation.md': 'Who was the last person to modify docs/installation.md?',
           'Who made the most recent commit': 'who made the latest commit',
           'who wrote most of the commits in shop/search': "I'm an agent triaging a search bug. Who is the main committer in shop/search?",
           'top 3 contributors by commits': 'Top 3 contributors by number of commits, please.',
           'what files did the last commit change': 'files changed in HEAD',
           'what is the latest commit': 'git log -1',
           'first commit by Lucas Silva': "what was lucas silva's first commit?",
           'did Grace Kim commit anything in 2024?': 'did grace kim commit anything in 2024'}
for it in items:
    if it['text'] in REWRITE: it['text'] = REWRITE[it['text']]
for i, it in enumerate(items): it['id'] = 'p10-%03d' % (i + 1)
os.makedirs(OUT, exist_ok=True)
with open(os.path.join(OUT, 'all.jsonl'), 'w') as f:
    for it in items: f.write(json.dumps(it) + '\n')
notes.append('items %d, declines %d' % (len(items), sum(1 for x in items if x['kind'] == 'decline')))
notes.append('kinds %s' % dict(collections.Counter(x['kind'] for x in items)))
notes.append('ranking overall %s' % rank(C)[:4])
open(os.path.join(OUT, 'build_notes.txt'), 'w').write('\n'.join(notes) + '\n')
print('\n'.join(notes))
