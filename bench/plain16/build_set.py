#!/usr/bin/env python3
"""python3 build_set.py --src /root/heldout16/items_src.py
Machinery only: builds a fresh fixture (make_fixture.sh), computes every expected answer with git, and writes
the seeded, kind-stratified split: dev half to /work/plain16/dev/ask_dev.jsonl, held-out half ONLY to
/root/heldout16/ask_heldout.jsonl. The item texts and their how-specs (both halves) are in the --src file, kept
under /root/heldout16 because it holds held-out texts. No expected answer is typed by hand: each item names a
helper below and its arguments, and the helper runs git and returns the expectation plus the exact commands."""
import argparse, collections, datetime as dt, json, os, random, subprocess, sys, tempfile, shutil
HERE = os.path.dirname(os.path.abspath(__file__))
NOW = '2021-01-15T12:00:00Z'
HEAD = 'a61f1780b64266587e7bc30f0f5f71c6cca97c0f'
SEED = 1616
ENV = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'), 'TZ': 'UTC', 'LC_ALL': 'C', 'HOME': '/nonexistent',
       'GIT_CONFIG_NOSYSTEM': '1'}
FX = None

def git(*args):
    r = subprocess.run(['git', '-C', FX] + list(args), capture_output=True, text=True, env=ENV)
    if r.returncode != 0: raise RuntimeError('git %s: %s' % (' '.join(args), r.stderr))
    return r.stdout
def cmd(*args): return 'TZ=UTC git ' + ' '.join(("'%s'" % a if (' ' in a or '*' in a or '|' in a) else a) for a in args)
def uniq(xs):
    out = []
    for x in xs:
        if x not in out: out.append(x)
    return out

# ---------- the whole history, loaded once ----------
C = []          # commits newest first: dict(h, parents, an, ae, at, ct, files)
def load():
    out = git('log', '--no-renames', '--format=%x01%H|%P|%aN|%aE|%at|%ct', '--name-only', 'HEAD')
    for blk in out.split('\x01')[1:]:
        lines = blk.strip('\n').split('\n')
        h, p, an, ae, at, ct = lines[0].split('|')
        C.append(dict(h=h, parents=p.split(), an=an, ae=ae, at=int(at), ct=int(ct),
                      files=[l for l in lines[1:] if l.strip()]))
LOADCMD = cmd('log', '--no-renames', '--format=%H|%P|%aN|%aE|%at|%ct', '--name-only', 'HEAD')
def ts(s):
    return int(dt.datetime.fromisoformat(s.replace('Z', '+00:00')).timestamp())
def ident_groups(commits, by):
    """by='email': group by lower-cased email (as get_author_stats); by='name': by author name."""
    g = collections.OrderedDict()
    for c in commits:
        k = c['ae'].lower() if by == 'email' else c['an']
        g.setdefault(k, []).append(c)
    return g
def ids_of(cs):
    return uniq([c['an'] for c in cs] + [c['ae'] for c in cs])
def person_ids(name):
    """every name and email the person used: all commits whose author name is `name`, closed over shared emails."""
    names, mails = {name}, set()
    changed = True
    while changed:
        changed = False
        for c in C:
            if c['an'] in names or c['ae'].lower() in mails:
                if c['an'] not in names: names.add(c['an']); changed = True
                if c['ae'].lower() not in mails: mails.add(c['ae'].lower()); changed = True
    return sorted(names) + sorted({c['ae'] for c in C if c['ae'].lower() in mails})

def win(commits, since=None, until=None, date='ct'):
    s = ts(since) if since else None; u = ts(until) if until else None
    return [c for c in commits if (s is None or c[date] >= s) and (u is None or c[date] < u)]
def nomerge(cs): return [c for c in cs if len(c['parents']) < 2]

# ---------- helpers: each returns (expect, how) ----------
def count_window(since=None, until=None, merges='both', author=None, path=None):
    """commits in [since, until): committer date and author date readings; with and without merges
    (merges='both'), or only merges ('only'), or only non-merges ('exclude')."""
    base = C
    if author: base = [c for c in base if any(a.lower() in (c['an'] + ' ' + c['ae']).lower() for a in author)]
    if path: base = [c for c in base if any(f == path or f.startswith(path.rstrip('/') + '/') for f in c['files'])]
    vals = []
    for d in ('ct', 'at'):
        w = win(base, since, until, d)
        if merges in ('both', 'include'): vals.append(len(w))
        if merges in ('both', 'exclude'): vals.append(len(nomerge(w)))
        if merges == 'only': vals.append(len(w) - len(nomerge(w)))
    how = '%s ; commits with %s<=date<%s (UTC) by committer date (%%ct) or author date (%%at)%s%s%s' % (
        LOADCMD, since or '-inf', until or '+inf', {'both': '; with or without merges', 'only': '; merges only (>1 parent)',
        'exclude': '; merges excluded', 'include': '; merges included'}[merges],
        '; author name/email contains %s' % ' or '.join(author) if author else '', '; touching %s' % path if path else '')
    return {'count': sorted(set(vals))}, how

def count_git(*readings):
    """count = number of lines of `git log --format=%H ARGS` for each reading (a list of args)."""
    vals, hows = [], []
    for args in readings:
        n = len([l for l in git('log', '--format=%H', *args).splitlines() if l.strip()])
        vals.append(n); hows.append(cmd('log', '--format=%H', *args) + ' | wc -l  -> %d' % n)
    return {'count': sorted(set(vals))}, ' ;; '.join(hows)

def distinct_authors(since=None, until=None, path=None):
    vals = []; hows = []
    for d in ('ct', 'at'):
        w = win(C, since, until, d)
        if path: w = [c for c in w if any(f == path or f.startswith(path.rstrip('/') + '/') for f in c['files'])]
        for by in ('email', 'name'):
            vals.append(len(ident_groups(w, by)))
    return {'count': sorted(set(vals))}, '%s ; distinct author emails (lower-cased) or names among commits %s<=%%ct|%%at<%s%s' % (
        LOADCMD, since or '-inf', until or '+inf', ' touching ' + path if path else '')

def tie_orders(items, n):
    """items sorted (key, count) desc; every order of the first n that differs only within groups of equal counts."""
    import itertools
    groups = []
    for k, v in items[:n]:
        if groups and groups[-1][0] == v: groups[-1][1].append(k)
        else: groups.append((v, [k]))
    outs = [[]]
    for _, ks in groups:
        perms = list(itertools.permutations(ks)) if len(ks) <= 4 else [tuple(ks)]
        outs = [o + list(p) for o in outs for p in perms]
    return outs[:48]

def top_authors(n=1, since=None, until=None, path=None, exclude=None, rank=None, fewest=False, merges='both'):
    """ranking of authors by commits; readings: grouped by email or by name; committer or author date;
    with and without merges. n=1 -> {'author': ...}; rank=k -> the k-th; else authors_ordered of n."""
    readings = []; notes = []
    for d in ('ct', 'at'):
        w = win(C, since, until, d)
        if path: w = [c for c in w if any(f == path or f.startswith(path.rstrip('/') + '/') for f in c['files'])]
        for mm in ((True, False) if merges == 'both' else (merges == 'include',)):
            ww = w if mm else nomerge(w)
            for by in ('email', 'name'):
                g = ident_groups(ww, by)
                if exclude:
                    g = collections.OrderedDict((k, v) for k, v in g.items()
                                                if not any(x.lower() in ' '.join(ids_of(v)).lower() for x in exclude))
                # order: commits desc, ties by most recent commit first (quarry's tie rule unknown: tie at cut drops reading)
                items = sorted(g.items(), key=lambda kv: (-len(kv[1]), kv[0]))
                if fewest: items = sorted(g.items(), key=lambda kv: (len(kv[1]), kv[0]))
                k = rank or n
                if len(items) < k: continue
                cut = len(items[k - 1][1])
                if len(items) > k and len(items[k][1]) == cut: notes.append('tie at the cut (%s, %d) dropped' % (by, cut)); continue
                if rank and rank > 1 and len(items[rank - 2][1]) == cut: continue
                if fewest: continue_ok = True
                if n > 1 and not rank:
                    cnts = [(key, len(v)) for key, v in items]
                    for order in tie_orders(cnts, n): readings.append([ids_of(g[key]) for key in order])
                else:
                    readings.append([ids_of(v) for _, v in items[:k]])
    # dedupe
    out = []
    for r in readings:
        if r not in out: out.append(r)
    how = '%s ; authors by commits%s%s%s, grouped by email or by name, %%ct or %%at, merges %s%s' % (
        LOADCMD, ' since %s' % since if since else '', ' until %s' % until if until else '',
        ' touching %s' % path if path else '', merges, '; excluding ' + ','.join(exclude) if exclude else '')
    if notes: how += ' [' + '; '.join(uniq(notes)) + ']'
    if not out: raise RuntimeError('no reading without a tie: ' + how)
    if rank: exp = {'any_of': [{'author': [r[-1]], 'rank': rank} for r in out]}
    elif n == 1: exp = {'any_of': [{'author': [r[0]], **({'rank': -1} if fewest else {})} for r in out]}
    else: exp = {'any_of': [{'authors_ordered': r} for r in out]}
    if len(exp['any_of']) == 1: exp = exp['any_of'][0]
    return exp, how

def top_files(n=1, since=None, until=None, path=None, author=None, by='file', date='ct'):
    """files (or directories) ranked by the non-merge commits that changed them (--no-renames)."""
    readings = []
    for d in ('ct', 'at'):
        w = nomerge(win(C, since, until, d))
        if author: w = [c for c in w if any(a.lower() in (c['an'] + ' ' + c['ae']).lower() for a in author)]
        cnt = collections.Counter()
        for c in w:
            fs = [f for f in c['files'] if not path or f.startswith(path.rstrip('/') + '/') or f == path]
            if by == 'dir':
                ks = set()
                for f in fs:
                    rel = f[len(path.rstrip('/')) + 1:] if path else f
                    if '/' in rel: ks.add((path.rstrip('/') + '/' if path else '') + rel.split('/')[0])
                for k in ks: cnt[k] += 1
            else:
                for f in set(fs): cnt[f] += 1
        items = sorted(cnt.items(), key=lambda kv: (-kv[1], kv[0]))
        if len(items) > n and items[n][1] == items[n - 1][1]: continue
        for order in tie_orders(items, n): readings.append(order)
    out = []
    for r in readings:
        if r not in out: out.append(r)
    how = '%s ; non-merge commits per %s%s%s%s, %%ct or %%at; no tie at the cut' % (
        LOADCMD, 'top-level directory' if by == 'dir' and not path else by, ' under %s' % path if path else '',
        ' since %s' % since if since else '', ' by %s' % ','.join(author) if author else '')
    if not out: raise RuntimeError('tie: ' + how)
    if by == 'dir' and n == 1: exp = {'any_of': [{'dir_top': r} for r in out]}
    else: exp = {'any_of': [{'paths_ordered': r} for r in out]}
    if len(exp['any_of']) == 1: exp = exp['any_of'][0]
    return exp, how

def file_creator(path):
    a = git('log', '--follow', '--diff-filter=A', '--format=%H|%aN|%aE', '--', path).splitlines()
    b = git('log', '--no-renames', '--diff-filter=A', '--format=%H|%aN|%aE', '--', path).splitlines()
    rs = []
    for lst in (a, b):
        if lst:
            h, an, ae = lst[-1].split('|'); rs.append([an, ae])
    exp = {'any_of': [{'author': [r]} for r in uniq(rs)]}
    if len(exp['any_of']) == 1: exp = exp['any_of'][0]
    return exp, cmd('log', '--follow', '--diff-filter=A', '--format=%H|%aN|%aE', '--', path) + ' | tail -1 ;; same with --no-renames instead of --follow'

def file_created_date(path):
    a = git('log', '--follow', '--diff-filter=A', '--format=%as|%ad', '--date=format:%Y-%m-%d', '--', path).split()
    b = git('log', '--follow', '--diff-filter=A', '--format=%as', '--date=format-local:%Y-%m-%d', '--', path).split()
    c = git('log', '--follow', '--diff-filter=A', '--format=%ad', '--date=format-local:%Y-%m-%d', '--', path).split()
    vals = uniq([a[-1].split('|')[0], c[-1]])
    exp = {'any_of': [{'date': v} for v in vals]} if len(vals) > 1 else {'date': vals[0]}
    return exp, cmd('log', '--follow', '--diff-filter=A', '--format=%as', '--', path) + ' | tail -1 (author-local day) ;; the same day in UTC (--date=format-local:%Y-%m-%d, TZ=UTC)'

def file_last(path, what='author'):
    rs = []
    for args in (['-1', '--format=%H|%aN|%aE', '--', path], ['-1', '--no-merges', '--format=%H|%aN|%aE', '--', path]):
        h, an, ae = git('log', *args).strip().split('|'); rs.append((h, an, ae))
    if what == 'author':
        exp = {'any_of': [{'author': [[an, ae]]} for _, an, ae in uniq(rs)]}
    elif what == 'hash':
        exp = {'any_of': [{'hash': h} for h, _, _ in uniq(rs)]}
    elif what == 'date':
        ds = []
        for h, _, _ in uniq(rs):
            ds.append(git('show', '-s', '--format=%as', h).strip())
            ds.append(git('show', '-s', '--format=%ad', '--date=format-local:%Y-%m-%d', h).strip())
        exp = {'any_of': [{'date': d} for d in uniq(ds)]}
    if len(exp['any_of']) == 1: exp = exp['any_of'][0]
    return exp, cmd('log', '-1', '--format=%H|%aN|%aE', '--', path) + ' ;; with --no-merges'

def file_count(path, since=None, until=None, author=None):
    extra = []
    if since: extra.append('--since=' + since)
    if until: extra.append('--until=' + until)
    if author: extra.append('--author=' + author)
    return count_git(extra + ['--', path], ['--follow'] + extra + ['--', path], ['--no-merges'] + extra + ['--', path],
                     ['--no-merges', '--follow'] + extra + ['--', path])

def commit_paths(rev):
    """files a commit changed: --no-renames (a rename = old and new path) ;; with rename detection (new path only)."""
    h = git('rev-parse', rev + '^{commit}').strip()
    rs = []
    for flag in ('--no-renames', '--find-renames'):
        ps = [l for l in git('show', flag, '--format=', '--name-only', h).splitlines() if l.strip()]
        if not ps:  # a merge: its change against the first parent
            ps = [l for l in git('diff', flag, '--name-only', h + '^1', h).splitlines() if l.strip()]
        if sorted(ps) not in rs: rs.append(sorted(ps))
    exp = {'any_of': [{'paths_set': r} for r in rs]} if len(rs) > 1 else {'paths_set': rs[0]}
    return exp, cmd('show', '--no-renames', '--format=', '--name-only', h) + ' ;; the same with --find-renames'

def commit_author(rev):
    h, an, ae = git('show', '-s', '--format=%H|%aN|%aE', rev + '^{commit}').strip().split('|')
    return {'author': [[an, ae]]}, cmd('show', '-s', '--format=%H|%aN|%aE', rev)

def grep_hash(pattern, first=False):
    """the commit whose subject/message matches (must be unique; first=True: the oldest)."""
    hs = git('log', '-i', '-E', '--grep=' + pattern, '--format=%H').split()
    if not first and len(hs) != 1: raise RuntimeError('grep %s: %d commits' % (pattern, len(hs)))
    return hs[-1]

def tag_bool(name):
    ok = subprocess.run(['git', '-C', FX, 'rev-parse', '-q', '--verify', 'refs/tags/' + name], capture_output=True, env=ENV).returncode == 0
    return {'bool': ok}, cmd('rev-parse', '-q', '--verify', 'refs/tags/' + name) + ' (exit 0 = yes)'

def tag_latest(k=1):
    names = git('tag', '--sort=-creatordate', '--format=%(refname:short)').split()
    return {'tag_first': names[k - 1] if k > 0 else names[-1]}, cmd('tag', '--sort=-creatordate') + ' | sed -n %dp (lightweight tags: commit date)' % k

def tag_count(pattern=None):
    names = git('tag', '-l', *( [pattern] if pattern else [])).split()
    return {'count': [len(names)]}, cmd('tag', '-l', *([pattern] if pattern else [])) + ' | wc -l'

def tag_date(name):
    d1 = git('log', '-1', '--format=%as', name).strip()
    d2 = git('log', '-1', '--format=%ad', '--date=format-local:%Y-%m-%d', name).strip()
    d3 = git('log', '-1', '--format=%cd', '--date=format-local:%Y-%m-%d', name).strip()
    ds = uniq([d1, d2, d3])
    exp = {'any_of': [{'date': d} for d in ds]} if len(ds) > 1 else {'date': ds[0]}
    return exp, cmd('log', '-1', '--format=%as', name) + ' ;; UTC day of %ad and %cd'

def tags_all():
    names = git('tag', '-l').split()
    return {'names_set': names}, cmd('tag', '-l')

def tags_glob(pattern):
    names = git('tag', '-l', pattern).split()
    return {'names_set': names}, cmd('tag', '-l', pattern)

def tags_in(since, until):
    out = git('tag', '--sort=creatordate', '--format=%(refname:short)|%(creatordate:unix)').split()
    s, u = ts(since), ts(until)
    names = [l.split('|')[0] for l in out if s <= int(l.split('|')[1]) < u]
    return {'names_set': names}, cmd('tag', '--format=%(refname:short) %(creatordate:unix)') + ' ; %s<=date<%s' % (since, until)

def person_first_last(name, which='first'):
    ids = person_ids(name)
    cs = [c for c in C if c['an'] in ids or c['ae'] in ids]
    c = cs[-1] if which == 'first' else cs[0]
    d1 = dt.datetime.utcfromtimestamp(c['at']).strftime('%Y-%m-%d')
    d2 = git('show', '-s', '--format=%as', c['h']).strip()
    ds = uniq([d2, d1])
    exp = {'any_of': [{'date': d} for d in ds] + [{'hash': c['h']}]}
    return exp, '%s ; the %s commit of %s (names/emails %s): %s' % (LOADCMD, which, name, ids, c['h'][:10])

def emails_of(name):
    """readings: every email of the person (closure over shared names/emails); the emails used under exactly
    that name; under a name containing it. Exact sets (compared case-insensitively)."""
    ids = person_ids(name)
    rs = [[x for x in ids if '@' in x],
          sorted({c['ae'] for c in C if c['an'] == name}),
          sorted({c['ae'] for c in C if name.lower() in c['an'].lower()})]
    out = []
    for r in rs:
        r = sorted({x.lower() for x in r})
        if r and r not in out: out.append(r)
    exp = {'any_of': [{'emails_set': r} for r in out]}
    if len(out) == 1: exp = exp['any_of'][0]
    return exp, "TZ=UTC git log --format='%%aN|%%aE' | sort -u: emails of %s closed over shared names/emails ;; emails with author name exactly %r ;; name containing it" % (name, name)

def person_count(name, since=None, until=None, merges='both', path=None, word=None):
    """commits of one person: every name/email they used (closure over shared emails), or their most used
    email alone, or author name/email containing the word asked (only when that word catches nobody else);
    %ct or %at windows; with/without merges (merges='only': merges alone)."""
    word = word or name
    ids = person_ids(name); lids = {x.lower() for x in ids}
    full = [c for c in C if c['an'].lower() in lids or c['ae'].lower() in lids]
    top = collections.Counter(c['ae'].lower() for c in full).most_common(1)[0][0]
    sets = [full, [c for c in C if c['ae'].lower() == top]]
    exact = [c for c in C if c['an'].lower() == word.lower() or c['ae'].lower() == word.lower()]
    if exact: sets.append(exact)
    cont = [c for c in C if word.lower() in (c['an'] + ' ' + c['ae']).lower()]
    if cont and all(c['an'].lower() in lids or c['ae'].lower() in lids for c in cont): sets.append(cont)
    vals = []
    for base in sets:
        if path: base = [c for c in base if any(f == path or f.startswith(path.rstrip('/') + '/') for f in c['files'])]
        for d in ('ct', 'at'):
            w = win(base, since, until, d)
            if merges in ('both', 'include'): vals.append(len(w))
            if merges in ('both', 'exclude'): vals.append(len(nomerge(w)))
            if merges == 'only': vals.append(len(w) - len(nomerge(w)))
    if not since and not until and any(v > 0 for v in vals): vals = [v for v in vals if v > 0]
    return {'count': sorted(set(vals))}, '%s ; commits of %s (all of %s; or only %s; or author name/email equal to the word; or name/email containing %r when that catches no one else)%s%s%s, %%ct or %%at, merges %s' % (
        LOADCMD, name, ids, top, word, ' since ' + since if since else '', ' until ' + until if until else '', ' touching ' + path if path else '', merges)

def person_bool(name, since=None, until=None):
    e, how = person_count(name, since, until)
    bs = sorted({v > 0 for v in e['count']})
    if len(bs) != 1: raise RuntimeError('readings disagree: ' + how)
    return {'bool': bs[0]}, how + ' ; yes when > 0'

def either(*specs):
    """several honest readings of one question, each a helper call; counts merged, others as any_of."""
    exps, hows = [], []
    for sp in specs:
        fn, args = sp[0], sp[1:]
        kw = args[-1] if args and isinstance(args[-1], dict) else {}
        pos = args[:-1] if kw else args
        e, h = HELPERS[fn](*pos, **kw); exps.append(e); hows.append(h)
    if all(set(e) == {'count'} for e in exps):
        return {'count': sorted({v for e in exps for v in e['count']})}, ' || '.join(hows)
    flat = []
    for e in exps: flat += e['any_of'] if 'any_of' in e else [e]
    return {'any_of': flat}, ' || '.join(hows)

def file_hashes(path):
    rs = []
    for args in (['--follow', '--', path], ['--', path], ['--no-merges', '--follow', '--', path]):
        rs.append(git('log', '--format=%H', *args).split())
    out = []
    for r in rs:
        if r not in out: out.append(r)
    return {'hashes_set': out}, cmd('log', '--format=%H', '--follow', '--', path) + ' ;; without --follow ;; --no-merges --follow'

def file_authors(path):
    rs = []
    for args in (['--follow', '--', path], ['--', path]):
        out = git('log', '--format=%aN|%aE', *args).split('\n')
        g = collections.OrderedDict()
        for l in out:
            if not l.strip(): continue
            an, ae = l.split('|'); g.setdefault(ae.lower(), set()).update([an, ae])
        rs.append([sorted(v) for v in g.values()])
    out = []
    for r in rs:
        if r not in out: out.append(r)
    exp = {'any_of': [{'authors_set': r} for r in out]}
    if len(out) == 1: exp = exp['any_of'][0]
    return exp, cmd('log', '--format=%aN|%aE', '--follow', '--', path) + ' | sort -u, grouped by email ;; without --follow'

def decline(why):
    return {'decline': True}, 'must decline: ' + why

HELPERS = {k: v for k, v in globals().items() if callable(v) and not k.startswith('_')}

def main():
    global FX
    ap = argparse.ArgumentParser(); ap.add_argument('--src', default='/root/heldout16/items_src.py')
    ap.add_argument('--dry', action='store_true')
    o = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix='plain16-build-')
    FX = os.path.join(tmp, 'ag')
    subprocess.run([os.path.join(HERE, 'make_fixture.sh'), FX], check=True, env=dict(ENV, HOME=tmp))
    assert git('rev-parse', 'HEAD').strip() == HEAD
    load()
    ns = dict(HELPERS); exec(open(o.src).read(), ns)
    items = []
    for i, it in enumerate(ns['ITEMS']):
        fn, args = it['how'][0], it['how'][1:]
        kw = args[-1] if args and isinstance(args[-1], dict) else {}
        pos = args[:-1] if kw else args
        exp, how = HELPERS[fn](*pos, **kw)
        if 'count_hint' in exp: exp.pop('count_hint')
        items.append({'text': it['text'], 'kind': it['kind'], 'style': it.get('style', ''), 'expect': exp, 'how': how,
                      **({'note': it['note']} if it.get('note') else {})})
    texts = [x['text'].lower() for x in items]
    dup = [t for t, n in collections.Counter(texts).items() if n > 1]
    if dup: sys.exit('duplicate texts: %r' % dup)
    # split: seeded, stratified by kind; odd kinds alternate which half gets the extra item
    rng = random.Random(SEED); bykind = collections.OrderedDict()
    for x in items: bykind.setdefault(x['kind'], []).append(x)
    dev, held = [], []; extra_dev = True
    for k in sorted(bykind):
        xs = bykind[k][:]; rng.shuffle(xs); h = len(xs) // 2
        if len(xs) % 2: nd = h + 1 if extra_dev else h; extra_dev = not extra_dev
        else: nd = h
        dev += xs[:nd]; held += xs[nd:]
    for n, x in enumerate(dev): x['id'] = 'd%03d' % (n + 1)
    for n, x in enumerate(held): x['id'] = 'h%03d' % (n + 1)
    cnt = collections.Counter(x['kind'] for x in items)
    print('items %d; by kind %s' % (len(items), dict(sorted(cnt.items()))))
    print('dev %s' % dict(sorted(collections.Counter(x['kind'] for x in dev).items())))
    print('held %s' % dict(sorted(collections.Counter(x['kind'] for x in held).items())))
    if not o.dry:
        os.makedirs(os.path.join(HERE, 'dev'), exist_ok=True); os.makedirs('/root/heldout16', exist_ok=True)
        key = lambda x: x['id']
        with open(os.path.join(HERE, 'dev', 'ask_dev.jsonl'), 'w') as f:
            for x in sorted(dev, key=key): f.write(json.dumps({'id': x['id'], **{k: v for k, v in x.items() if k != 'id'}}, ensure_ascii=False) + '\n')
        with open('/root/heldout16/ask_heldout.jsonl', 'w') as f:
            for x in sorted(held, key=key): f.write(json.dumps({'id': x['id'], **{k: v for k, v in x.items() if k != 'id'}}, ensure_ascii=False) + '\n')
    else:
        for x in items: print(json.dumps({'text': x['text'], 'kind': x['kind'], 'expect': x['expect']}, ensure_ascii=False)[:300])
    shutil.rmtree(tmp, ignore_errors=True)
if __name__ == '__main__': main()
