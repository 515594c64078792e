#!/usr/bin/env python3
"""Builds the quarry-ask history phrasing set on tmux (fixture: /work/plain12/make_fixture.sh).
Every expected answer is computed here with git.  python3 build_set.py [--fx DIR]
Writes /work/plain12/dev/router.jsonl (DEV half) and /root/heldout12/router.jsonl (HELD-OUT half)."""
import collections, datetime as dt, json, os, random, subprocess, sys
FX = sys.argv[sys.argv.index('--fx') + 1] if '--fx' in sys.argv else '/root/heldout12/fx'
HEAD = 'c1f947a3c5bc72a40c32dead736f84c4628791ec'
NOW = dt.datetime(2026, 8, 25, 12, 0, 0, tzinfo=dt.timezone.utc)   # QUARRY_NOW, a Tuesday
UTC = dt.timezone.utc

def git(*a):
    return subprocess.run(['git', '-C', FX] + list(a), capture_output=True, text=True, check=True,
                          env={'PATH': os.environ['PATH'], 'HOME': '/nonexistent', 'TZ': 'UTC', 'LC_ALL': 'C'}).stdout
assert git('rev-parse', 'HEAD').strip() == HEAD

# ---------- all commits reachable from HEAD
C = []
for l in git('log', HEAD, '--format=%H%x00%P%x00%an%x00%ae%x00%aN%x00%aE%x00%at%x00%ct%x00%aI%x00%cI').splitlines():
    h, p, an, ae, aN, aE, at, ct, aI, cI = l.split('\0')
    C.append(dict(h=h, p=p.split(), an=an, ae=ae, aN=aN, aE=aE.lower(), at=int(at), ct=int(ct), aI=aI, cI=cI))
BYH = {c['h']: c for c in C}
# files and lines of each non-merge commit (git log --numstat --no-renames; merges carry none)
cur = None
for l in git('log', HEAD, '--no-merges', '--numstat', '--no-renames', '--format=@%H').splitlines():
    if l.startswith('@'): cur = BYH[l[1:]]; cur['files'] = []; cur['add'] = 0; cur['del'] = 0; continue
    if not l.strip(): continue
    a, d, path = l.split('\t', 2)
    cur['files'].append(path)
    cur['add'] += int(a) if a != '-' else 0; cur['del'] += int(d) if d != '-' else 0
for c in C: c.setdefault('files', []); c.setdefault('add', 0); c.setdefault('del', 0)

def T(s):  # 'YYYY-MM-DD' or with time -> aware UTC datetime
    d = dt.datetime.fromisoformat(s)
    return d if d.tzinfo else d.replace(tzinfo=UTC)
def ts(s): return int(T(s).timestamp())
def merge(c): return len(c['p']) > 1

def sel(since=None, until=None, date='c', merges=True, pred=None, commits=None):
    """commits with date in [since, until) (UTC); date 'c' committer / 'a' author."""
    out = []
    for c in (commits if commits is not None else C):
        t = c['ct'] if date == 'c' else c['at']
        if since and t < ts(since): continue
        if until and t >= ts(until): continue
        if not merges and merge(c): continue
        if pred and not pred(c): continue
        out.append(c)
    return out
def win_readings(since, until, pred=None, merges_opts=(True, False), commits=None):
    """list of commit lists: committer/author date x with/without merges."""
    r = []
    for d in 'ca':
        for m in merges_opts: r.append(sel(since, until, d, m, pred, commits))
    return r
def counts(readings):
    v = {len(x) for x in readings}
    if len(v) > 1: v.discard(0)   # an empty reading is degenerate when another reading is not (e.g. merges excluded for a merge-only author)
    return sorted(v)
def hashes(readings):
    r = []
    for x in readings:
        s = sorted({c['h'] for c in x})
        if s not in r: r.append(s)
    if any(r): r = [s for s in r if s]
    return r
def rev(rng, *extra): return [BYH[h] for h in git('rev-list', rng, *extra).split() if h in BYH]

# ---------- people (mailmap applied: %aN/%aE); 'nicm <nicm@openbsd.org>' is not mapped by tmux's .mailmap
def person(name): return lambda c: c['aN'] == name
NICK = 'Nicholas Marriott'
def is_nick_any(c): return c['aN'] == NICK or c['aE'] in ('nicm@openbsd.org', 'nicm')
IDS = {}
for c in C:
    IDS.setdefault(c['aN'], set()).update({c['aN'], c['aE'], c['an'], c['ae']})
def ids(name):
    s = set(IDS[name])
    return sorted(s)
def ranking(commits, key='aN'):
    cnt = collections.Counter(c[key] for c in commits)
    return cnt.most_common()
def rank_people(commits, rank):
    """names at the given rank (1-based; -1 least) with ties, by mailmap name and by raw email."""
    res = []
    for key in ('aN', 'ae'):
        r = ranking(commits, key)
        if rank == -1: v = r[-1][1]; names = [k for k, n in r if n == v]
        else:
            vals = sorted({n for _, n in r}, reverse=True)
            # rank N in a list with ties: the person at position N-1
            v = r[rank - 1][1]; names = [k for k, n in r if n == v]
        for k in names:
            if key == 'aN': res.append(ids(k))
            else:
                res.append(sorted({k} | {c['an'] for c in commits if c['ae'] == k} | {c['aN'] for c in commits if c['ae'] == k}))
    return res

# ---------- files
def file_log(path, *extra, follow=False):
    a = ['log', HEAD, '--format=%H'] + list(extra) + (['--follow'] if follow else []) + ['--', path]
    return [BYH[h] for h in git(*a).split() if h in BYH]
def file_readings(path, follow_opts=(False, True), *extra):
    return [file_log(path, *extra, follow=f) for f in follow_opts]
def file_rank(commits, n, pred=lambda p: True):
    """every top-n order (files tied on commits may come in any order); none if a tie straddles the cut."""
    import itertools
    cnt = collections.Counter(p for c in commits for p in set(c['files']) if pred(p))
    r = sorted(cnt.items(), key=lambda x: (-x[1], x[0]))
    if len(r) > n and r[n - 1][1] == r[n][1]: raise SystemExit('tie at the cut')
    groups = [[p for p, _ in g] for _, g in itertools.groupby(r[:n], key=lambda x: x[1])]
    return [sum(combo, []) for combo in itertools.product(*[list(map(list, itertools.permutations(g))) for g in groups])]
def day(c, which):  # YYYY-MM-DD readings of a commit date: UTC and its own offset
    if which == 'a': return {dt.datetime.fromtimestamp(c['at'], UTC).date().isoformat(), c['aI'][:10]}
    return {dt.datetime.fromtimestamp(c['ct'], UTC).date().isoformat(), c['cI'][:10]}
def dates_any(cs):
    s = set()
    for c in cs:
        s |= day(c, 'a') | day(c, 'c')
    return {'any_of': [{'date': d} for d in sorted(s)]}

# ---------- tags
TAGS = {}
for l in git('for-each-ref', 'refs/tags', '--format=%(refname:short)%00%(objecttype)%00%(taggerdate:iso-strict)%00%(*objectname)%00%(objectname)').splitlines():
    n, ty, td, tgt, obj = l.split('\0')
    TAGS[n] = dict(name=n, annotated=ty == 'tag', tdate=td, commit=tgt or obj)
def tag_dates(n):
    t = TAGS[n]; s = set()
    if t['tdate']: s |= {t['tdate'][:10], dt.datetime.fromisoformat(t['tdate']).astimezone(UTC).date().isoformat()}
    cm = git('log', '-1', '--format=%aI%x00%cI', t['commit']).strip().split('\0')
    for x in cm: s |= {x[:10], dt.datetime.fromisoformat(x).astimezone(UTC).date().isoformat()}
    return {'any_of': [{'date': d} for d in sorted(s)]}

ITEMS = []
def add(kind, text, expect, how):
    ITEMS.append(dict(kind=kind, text=text, expect=expect, how=how))
def E_count(readings): return {'count': counts(readings)}
def E_hashes(readings): return {'hashes_set': hashes(readings)}
WIN_HOW = 'commits reachable from HEAD with committer date (git log --since/--until) or author date in [%s, %s) UTC, with and without merges'
def win(kind, text, since, until, pred=None, extra='', listing=False, merges_opts=(True, False)):
    r = win_readings(since, until, pred, merges_opts)
    add(kind, text, E_hashes(r) if listing else E_count(r), (WIN_HOW % (since, until)) + extra)

exec(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'items_src.py')).read())

# ---------- split: seeded, stratified by kind
rnd = random.Random(1212)
bykind = collections.defaultdict(list)
for i, it in enumerate(ITEMS): it['id'] = 'q%03d' % (i + 1); bykind[it['kind']].append(it)
dev, held = [], []
flip = 0
for k in sorted(bykind):
    xs = bykind[k][:]; rnd.shuffle(xs)
    n = len(xs) // 2 + (len(xs) % 2 and flip); flip ^= len(xs) % 2
    dev += xs[:n]; held += xs[n:]
def write(path, xs):
    with open(path, 'w') as f:
        for it in sorted(xs, key=lambda x: x['id']): f.write(json.dumps(it, sort_keys=True) + '\n')
write('/work/plain12/dev/router.jsonl', dev)
write('/root/heldout12/router.jsonl', held)
for k in sorted(bykind):
    print('%-10s dev %2d held %2d' % (k, sum(1 for x in dev if x['kind'] == k), sum(1 for x in held if x['kind'] == k)))
print('total', len(dev), len(held))
