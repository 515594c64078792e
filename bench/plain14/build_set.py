#!/usr/bin/env python3
"""build_set.py --src ITEMS_SRC.py [--fixture DIR]
Machinery only: builds the libuv fixture (make_fixture.sh), computes every expected answer with git, and writes
the DEV half to /work/plain14/dev/router_dev.jsonl and the HELD-OUT half to /root/heldout14/router_heldout.jsonl.
The item texts and their specs (both halves) live in /root/heldout14/items_src.py (it holds held-out texts).
Every expectation is computed here by git; `how` records the command(s). NOW is the clock check.py pins."""
import argparse, collections, datetime as dt, json, os, random, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PIN = '6179e7af87413396d5853a1c3722c8b5749336c8'
NOW = dt.datetime(2026, 6, 5, 12, 0, 0, tzinfo=dt.timezone.utc)   # QUARRY_NOW=2026-06-05T12:00:00Z (a Friday)
SEED = 14014
FX = None

def git(*args, how=None):
    r = subprocess.run(['git', '-C', FX] + list(args), capture_output=True, text=True,
                       env={'PATH': os.environ['PATH'], 'HOME': '/nonexistent', 'TZ': 'UTC', 'LC_ALL': 'C'})
    if r.returncode: raise RuntimeError('git %s: %s' % (' '.join(args), r.stderr))
    if how is not None: how.append('git ' + ' '.join(a if ' ' not in a and '|' not in a else "'%s'" % a for a in args))
    return r.stdout

def ts(s):
    """'2026-03-01' or ISO -> epoch (UTC)."""
    if len(s) == 10: s += 'T00:00:00'
    d = dt.datetime.fromisoformat(s.replace('Z', ''))
    return int(d.replace(tzinfo=dt.timezone.utc).timestamp())

# ---------------------------------------------------------------- history, loaded once
LOG = []; BYH = {}
def load():
    out = git('log', '--format=%H%x1f%P%x1f%aN%x1f%aE%x1f%at%x1f%ct%x1f%s%x1e', 'HEAD')
    for rec in out.split('\x1e'):
        rec = rec.strip('\n')
        if not rec: continue
        h, p, n, e, at, ct, s = rec.split('\x1f')
        c = dict(h=h, parents=p.split(), name=n, email=e.lower(), at=int(at), ct=int(ct), subj=s)
        c['merge'] = len(c['parents']) > 1
        LOG.append(c); BYH[h] = c
PATHCACHE = {}
def touching(spec, follow=False):
    key = (tuple(spec) if isinstance(spec, list) else spec, follow)
    if key not in PATHCACHE:
        args = ['log', '--format=%H'] + (['--follow'] if follow else []) + ['HEAD', '--'] + (spec if isinstance(spec, list) else [spec])
        PATHCACHE[key] = set(git(*args).split())
    return PATHCACHE[key]

def ident(name_or_email):
    """identity list of a mapped author: mapped name + every mapped email used with that name (and vice versa)."""
    k = name_or_email.lower()
    names = {c['name'] for c in LOG if c['name'].lower() == k or c['email'] == k}
    emails = {c['email'] for c in LOG if c['name'] in names}
    assert names, name_or_email
    return sorted(names) + sorted(emails)

def sel(since=None, until=None, date='ct', merges=True, author=None, path=None, notpath=None, notpath_mode=None,
        grep=None, follow=False, rng=None):
    """commits of HEAD (newest first, git log order) filtered. author: a set of mapped emails or a callable."""
    cs = LOG
    if rng is not None: cs = rng
    out = []
    for c in cs:
        t = c[date]
        if since is not None and t < since: continue
        if until is not None and t >= until: continue
        if not merges and c['merge']: continue
        if author is not None:
            if callable(author):
                if not author(c): continue
            elif c['email'] not in author: continue
        if path is not None and c['h'] not in touching(path, follow): continue
        if notpath is not None:
            if notpath_mode == 'touches-outside':
                if c['h'] not in touching(['.', ':(exclude)' + notpath]): continue
            else:  # touches nothing under notpath
                if c['h'] in touching(notpath): continue
        if grep is not None and grep(c) is False: continue
        out.append(c)
    return out

def emails_of(who):
    return set(e for e in ident(who) if '@' in e)

def rank(cs, by='email', key=None):
    cnt = collections.Counter((key or (lambda c: c[by]))(c) for c in cs)
    return cnt.most_common()

def no_tie(r, n):
    return len(r) <= n or r[n - 1][1] != r[n][1]

def tie_orders(rk, n, cap=24):
    """every order of the top n keys of a ranking that keeps the counts non-increasing (ties in any order)."""
    import itertools
    groups = []
    for k, v in rk[:n]:
        if groups and groups[-1][0] == v: groups[-1][1].append(k)
        else: groups.append((v, [k]))
    orders = [[]]
    for _, ks in groups:
        orders = [o + list(p) for o in orders for p in itertools.permutations(ks)][:cap]
    return orders

def dedup(xs):
    out = []
    for x in xs:
        if x not in out: out.append(x)
    return out

# window readings: committer/author date x merges in/out; 'since' may be a list of alternative starts
def readings(since=None, until=None, mopts=(True, False), **kw):
    sinces = since if isinstance(since, list) else [since]
    untils = until if isinstance(until, list) else [until]
    res = []
    for date in ('ct', 'at'):
        for merges in mopts:
            for s in sinces:
                for u in untils:
                    res.append(sel(since=s, until=u, date=date, merges=merges, **kw))
    return res

def win_how(since, until, **kw):
    f = lambda v: [dt.datetime.fromtimestamp(x, dt.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ') if x is not None else None for x in (v if isinstance(v, list) else [v])] if v is not None else None
    extra = ' '.join('%s=%s' % (k, v if not isinstance(v, set) else sorted(v)) for k, v in kw.items() if v is not None and not callable(v))
    return ("git log --format='%%H %%P %%aN %%aE %%at %%ct' HEAD (mailmap) filtered in python: committer date (%%ct) or author date (%%at) "
            "in [since, until) with since in %s, until in %s; merges included or excluded; %s" % (f(since), f(until), extra))

# ---------------------------------------------------------------- expectation makers: each returns (expect, how)
def E_count(since=None, until=None, **kw):
    vals = dedup([len(r) for r in readings(since, until, **kw)])
    return {'count': vals}, [win_how(since, until, **kw) + '; count']

def E_hashes(since=None, until=None, **kw):
    rs = dedup([sorted(c['h'] for c in r) for r in readings(since, until, **kw)])
    if all(len(r) == 0 for r in rs): return {'count': [0]}, [win_how(since, until, **kw) + '; empty']
    return {'hashes_set': rs}, [win_how(since, until, **kw) + '; set of hashes']

def E_last_n(n, **kw):
    rs = dedup([[c['h'] for c in sorted(r, key=lambda c: -c['ct'])[:n]] for r in readings(None, None, **kw)] +
               [[c['h'] for c in r[:n]] for r in readings(None, None, **kw)])
    return {'hashes_ordered': rs}, [win_how(None, None, **kw) + '; first %d in git log order (or by committer date)' % n]

def E_top_authors(n, since=None, until=None, exclude=(), rank_pos=None, **kw):
    """authors_ordered (n) or one author at rank_pos; readings: by mapped email or by mapped name, merges in/out, ct/at."""
    alts = []
    for r in readings(since, until, **kw):
        r = [c for c in r if c['email'] not in exclude]
        for by in ('email', 'name'):
            rk = rank(r, by)
            if len(rk) < (rank_pos or n): continue
            if rank_pos:
                if len(rk) < rank_pos: continue
                if not (no_tie(rk, rank_pos) and (rank_pos == 1 or rk[rank_pos - 2][1] != rk[rank_pos - 1][1])):
                    print('TIE at rank', rank_pos, rk[:rank_pos + 1], file=sys.stderr); continue
                alts.append([ident(rk[rank_pos - 1][0])])
            else:
                if not no_tie(rk, n): print('TIE at cut', n, rk[:n + 1], file=sys.stderr); continue
                alts += [[ident(k) for k in o] for o in tie_orders(rk, n)]
    alts = dedup(alts)
    assert alts, 'no untied reading'
    h = win_how(since, until, **kw) + '; excluded %s; git shortlog -sne equivalent, ranked by mapped email or by mapped name' % (sorted(exclude),)
    if rank_pos: return {'any_of': [{'author': a, 'rank': rank_pos} for a in alts]}, [h]
    return {'any_of': [{'authors_ordered': a} for a in alts]}, [h]

def E_authors_set(since=None, until=None, **kw):
    alts = dedup([sorted({c['name'] for c in r}) for r in readings(since, until, **kw)])
    return {'any_of': [{'authors_set': [ident(n) for n in a]} for a in alts]}, [win_how(since, until, **kw) + '; distinct mapped authors']

def E_distinct_authors(since=None, until=None, **kw):
    vals = []
    for r in readings(since, until, **kw):
        vals += [len({c['email'] for c in r}), len({c['name'] for c in r})]
    return {'count': dedup(vals)}, [win_how(since, until, **kw) + '; distinct mapped emails or names']

def numstat_files(spec_since=None, spec_until=None, path=None, merges=True, date='ct', excl_files=(), by='file', under=None, n=5):
    """file (or directory) ranking by number of commits touching it (git log --name-only --no-renames)."""
    args = ['log', '--format=@%H %at %ct', '--name-only', '--no-renames', 'HEAD']
    if path: args += ['--', path]
    out = git(*args)
    cnt = collections.Counter(); cur = None; ok = False; seen = set()
    for line in out.splitlines():
        if line.startswith('@'):
            h, at, ct = line[1:].split(); t = int(at if date == 'at' else ct)
            ok = (spec_since is None or t >= spec_since) and (spec_until is None or t < spec_until) and (merges or not BYH[h]['merge'])
            seen = set(); continue
        if not line or not ok: continue
        if path and not (line == path or line.startswith(path.rstrip('/') + '/')): continue
        if line in excl_files: continue
        if by == 'dir':
            base = (under.rstrip('/') + '/') if under else ''
            if not line.startswith(base): continue
            rest = line[len(base):]
            if '/' not in rest: continue
            k = base + rest.split('/')[0]
        else:
            k = line
        if k in seen: continue
        seen.add(k); cnt[k] += 1
    return cnt.most_common()

def E_top_files(n, since=None, until=None, path=None, excl_files=(), by='file', under=None, ordered=True):
    alts = []
    for date in ('ct', 'at'):
        for merges in (True, False):
            rk = numstat_files(since, until, path, merges, date, excl_files, by, under)
            if not no_tie(rk, n): print('TIE files', n, rk[:n + 1], file=sys.stderr); continue
            alts += tie_orders(rk, n)
    alts = dedup(alts); assert alts
    h = ["git log --format='@%H %at %ct' --name-only --no-renames HEAD" + (' -- ' + path if path else '') +
         '; commits per %s, window %s..%s (ct or at), merges in/out, excluded %s, top %d' % (by, since, until, list(excl_files), n)]
    key = 'dirs_ordered' if by == 'dir' else 'paths_ordered'
    return {'any_of': [{key: a} for a in alts]}, h

def file_log(path, follow, merges=True):
    how = []
    out = git('log', '--format=%H', *(['--follow'] if follow else []), *([] if merges else ['--no-merges']), 'HEAD', '--', path, how=how)
    return [BYH[h] for h in out.split()], how

def E_file_creator(path, what='author'):
    alts, how = [], []
    for follow in (False, True):
        hs, h1 = file_log(path, follow); how += h1
        alts.append(hs[-1])
        out = git('log', '--diff-filter=A', '--format=%H', *(['--follow'] if follow else []), 'HEAD', '--', path, how=how).split()
        if out: alts.append(BYH[out[-1]])
    alts = dedup(alts)
    how.append('earliest commit of each listing (and of --diff-filter=A)')
    if what == 'author': return {'any_of': [{'author': [ident(c['email'])]} for c in alts]}, how
    if what == 'hash': return {'hash': dedup([c['h'] for c in alts])}, how
    if what == 'date':
        return {'date': dedup([dt.datetime.fromtimestamp(c[k], dt.timezone.utc).strftime('%Y-%m-%d') for c in alts for k in ('at', 'ct')])}, how

def E_file_last(path, what='author'):
    alts, how = [], []
    for merges in (True, False):
        hs, h1 = file_log(path, True, merges); how += h1; alts.append(hs[0])
    alts = dedup(alts)
    if what == 'author': return {'any_of': [{'author': [ident(c['email'])]} for c in alts]}, how
    if what == 'hash': return {'hash': dedup([c['h'] for c in alts])}, how
    return {'date': dedup([dt.datetime.fromtimestamp(c[k], dt.timezone.utc).strftime('%Y-%m-%d') for c in alts for k in ('at', 'ct')])}, how

def E_file_count(path, since=None, until=None, author=None):
    vals, how = [], []
    for follow in (False, True):
        for merges in (True, False):
            hs, h1 = file_log(path, follow, merges); how += h1
            for date in ('ct', 'at'):
                vals.append(len([c for c in hs if (since is None or c[date] >= since) and (until is None or c[date] < until)
                                 and (author is None or c['email'] in author)]))
    how.append('count within the window %s..%s, author %s (ct or at)' % (since, until, sorted(author) if author else None))
    return {'count': dedup(vals)}, dedup(how)

def E_file_hashes(path, since=None, until=None, author=None, last=None):
    alts, how = [], []
    for follow in (False, True):
        for merges in (True, False):
            hs, h1 = file_log(path, follow, merges); how += h1
            for date in ('ct', 'at'):
                r = [c['h'] for c in hs if (since is None or c[date] >= since) and (until is None or c[date] < until)
                     and (author is None or c['email'] in author)]
                alts.append(r[:last] if last else sorted(r))
    how.append('window %s..%s author %s%s' % (since, until, sorted(author) if author else None, ', first %d' % last if last else ''))
    alts = dedup(alts)
    if last: return {'hashes_ordered': alts}, dedup(how)
    if all(not a for a in alts): return {'count': [0]}, dedup(how)
    return {'hashes_set': alts}, dedup(how)

def E_file_authors(path, since=None, until=None, top=None):
    alts, how = [], []
    for follow in (False, True):
        for merges in (True, False):
            hs, h1 = file_log(path, follow, merges); how += h1
            for date in ('ct', 'at'):
                r = [c for c in hs if (since is None or c[date] >= since) and (until is None or c[date] < until)]
                if top:
                    for by in ('email', 'name'):
                        rk = rank(r, by)
                        if no_tie(rk, top): alts += [{'authors_ordered': [ident(k) for k in o]} for o in tie_orders(rk, top)]
                        else: print('TIE file authors', path, rk[:top + 1], file=sys.stderr)
                else:
                    alts.append({'authors_set': [ident(n) for n in sorted({c['name'] for c in r})]})
    return {'any_of': dedup(alts)}, dedup(how)

def E_commit_files(rev, count=False, status=None):
    how = []
    h = git('rev-parse', rev, how=how).strip()
    alts = []
    for renames in (['--no-renames'], ['-M']):
        out = git('show', '--format=', '--name-status', *renames, h, how=how)
        paths = []
        for line in out.splitlines():
            parts = line.split('\t')
            if status and not parts[0].startswith(status): continue
            paths.append(parts[-1])
        alts.append(sorted(paths))
    alts = dedup(alts)
    if count: return {'files': dedup([len(a) for a in alts])}, how
    return {'paths_set': alts}, how

def E_bool(value, how):
    return {'bool': value}, how

def tags(pattern=None, releases_only=False):
    how = []
    out = git('for-each-ref', '--sort=-creatordate', '--format=%(refname:short)|%(creatordate:unix)|%(*objectname)|%(objectname)|%(objecttype)', 'refs/tags', how=how)
    rows = []
    for line in out.splitlines():
        n, d, peeled, obj, typ = line.split('|')
        if releases_only and not n.startswith('v'): continue
        rows.append(dict(name=n, ts=int(d), hash=peeled or obj, type=typ))
    return rows, how

# ---------------------------------------------------------------- judges used by check.py are there; here: build
def build(src):
    ns = dict(globals(), __name__='items_src')
    exec(open(src).read(), ns)
    items = ns['make_items']()   # list of dicts {kind, text, expect, how}
    ids = collections.Counter()
    for it in items:
        ids[it['kind']] += 1
        it['id'] = '%s-%02d' % (it['kind'], ids[it['kind']])
    return items

def split(items):
    rnd = random.Random(SEED)
    dev, held = [], []
    bykind = collections.defaultdict(list)
    for it in items: bykind[it['kind']].append(it)
    flip = 0
    for k in sorted(bykind):
        xs = bykind[k][:]; rnd.shuffle(xs)
        h = len(xs) // 2 + (len(xs) % 2) * flip
        if len(xs) % 2: flip ^= 1
        dev += xs[h:]; held += xs[:h]
    return dev, held

def main():
    global FX
    ap = argparse.ArgumentParser(); ap.add_argument('--src', default='/root/heldout14/items_src.py'); ap.add_argument('--fixture')
    o = ap.parse_args()
    if o.fixture: FX = o.fixture
    else:
        FX = os.path.join(tempfile.mkdtemp(prefix='uv14-'), 'libuv')
        subprocess.run([os.path.join(HERE, 'make_fixture.sh'), FX], check=True)
    assert git('rev-parse', 'HEAD').strip() == PIN
    load()
    items = build(o.src)
    dev, held = split(items)
    os.makedirs(os.path.join(HERE, 'dev'), exist_ok=True)
    with open(os.path.join(HERE, 'dev', 'router_dev.jsonl'), 'w') as f:
        for it in dev: f.write(json.dumps(it, ensure_ascii=False, sort_keys=True) + '\n')
    os.makedirs('/root/heldout14', exist_ok=True)
    with open('/root/heldout14/router_heldout.jsonl', 'w') as f:
        for it in held: f.write(json.dumps(it, ensure_ascii=False, sort_keys=True) + '\n')
    c = collections.Counter((it['kind'], 'dev') for it in dev) + collections.Counter((it['kind'], 'held') for it in held)
    for k in sorted({k for k, _ in c}): print('%-14s dev %3d held %3d' % (k, c[(k, 'dev')], c[(k, 'held')]))
    print('total dev %d held %d' % (len(dev), len(held)))
    if not o.fixture: shutil.rmtree(os.path.dirname(FX), ignore_errors=True)

if __name__ == '__main__': main()
