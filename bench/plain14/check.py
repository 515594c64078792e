#!/usr/bin/env python3
"""QUARRY=path python3 check.py --set FILE [--set FILE ...] [--out FILE]
Builds the libuv fixture (make_fixture.sh; mirror from $LIBUV_REPO, default /work/.mirror/libuv+libuv/repo)
in a temp dir, asks quarry every question of the set with a clean environment and no model
(`quarry ask QUESTION --repo DIR --format json`), and scores right / wrong / declined.
Adapted from tools/template_check.py (plain14): fixture, NOW, HEAD, error-JSON = declined, more expectation shapes."""
import argparse, collections, datetime, json, os, re, shutil, subprocess, sys, tempfile
HERE = os.path.dirname(os.path.abspath(__file__))
NOW = '2026-06-05T12:00:00Z'  # a Friday, three weeks after the pinned HEAD (2026-05-15T14:39Z committer date)
HEAD = '6179e7af87413396d5853a1c3722c8b5749336c8'

def findings_of(a):
    if isinstance(a, list): return a
    if isinstance(a, dict):
        for k in ('findings', 'rows', 'results', 'commits', 'items'):
            v = a.get(k)
            if isinstance(v, list): return v
        r = a.get('result')
        if isinstance(r, (list, dict)) and r is not a: return findings_of(r)
    return []
def top(a, keys):
    """a value under one of keys at the top level (or in a 'result' map)."""
    for d in (a, a.get('result') if isinstance(a, dict) else None):
        if isinstance(d, dict):
            for k in keys:
                if k in d and d[k] is not None and not isinstance(d[k], (list, dict)): return d[k]
    return None
def num(v):
    if isinstance(v, bool): return None
    if isinstance(v, (int, float)): return v
    if isinstance(v, str) and re.fullmatch(r'\s*\d+\s*', v): return int(v)
    return None
def ident_match(row, ids):
    low = {x.lower() for x in ids}
    if isinstance(row, str): return row.lower() in low or any(re.search(r'<%s>' % re.escape(x), row.lower()) for x in low)
    if not isinstance(row, dict): return False
    for k in ('author', 'name', 'email', 'author_email', 'author_name'):
        v = row.get(k)
        if isinstance(v, str) and v.strip().lower() in low: return True
    return False
def row_hash(r):
    if isinstance(r, str): return r.lower()
    if isinstance(r, dict):
        for k in ('hash', 'short_hash', 'commit', 'sha'):
            if isinstance(r.get(k), str): return r[k].lower()
    return None
def hmatch(h, full): return h is not None and len(h) >= 7 and full.lower().startswith(h)
def row_path(r):
    if isinstance(r, str): return r
    if isinstance(r, dict):
        for k in ('path', 'file', 'dir', 'directory', 'name'):
            if isinstance(r.get(k), str): return r[k]
    return None
def strings(x):
    if isinstance(x, str): yield x
    elif isinstance(x, list):
        for y in x: yield from strings(y)
    elif isinstance(x, dict):
        for y in x.values(): yield from strings(y)

def judge(item, a, e=None):
    if e is None: e = item['expect']
    if 'any_of' in e: return any(judge(item, a, x) for x in e['any_of'])
    F = findings_of(a)
    if 'files' in e:   # number of files one commit changed
        v = num(top(a, ['files']))
        if v is None and len(F) == 1 and isinstance(F[0], dict):
            v = num(F[0].get('files'))
            if v is None and isinstance(F[0].get('paths'), list): v = len(F[0]['paths'])
        if v is None and F and all(isinstance(r, dict) and 'path' in r and 'hash' not in r and 'short_hash' not in r for r in F): v = len(F)
        return v in e['files']
    if 'hashes_ordered' in e:
        got = [row_hash(r) for r in F]
        return any(len(got) >= len(rd) and all(hmatch(got[i], rd[i]) for i in range(len(rd))) for rd in e['hashes_ordered'])
    if 'names_ordered' in e:
        got = [r.get('name') if isinstance(r, dict) else r for r in F]
        exp = e['names_ordered']
        return len(got) >= len(exp) and got[:len(exp)] == exp
    if 'names_set' in e:
        got = {r.get('name') if isinstance(r, dict) else r for r in F}
        return got == set(e['names_set'])
    if 'tag' in e:
        v = top(a, ['tag', 'name'])
        if v is None and F: v = F[0].get('name') if isinstance(F[0], dict) else F[0]
        return v in e['tag']
    if 'dirs_ordered' in e:
        exp = e['dirs_ordered']
        got = [row_path(r) for r in F]
        got = [g.strip().rstrip('/') if isinstance(g, str) else g for g in got]
        if not got:
            p = top(a, ['path', 'dir', 'directory'])
            if isinstance(p, str): got = [p.strip().rstrip('/')]
        return len(got) >= len(exp) and got[:len(exp)] == exp
    if 'dir_fewest' in e:   # the directory with the fewest commits: the unique minimum of a listing, or a single answer
        rows = [(row_path(r).strip().rstrip('/'), num(r.get('commits'))) for r in F if isinstance(r, dict) and isinstance(row_path(r), str)]
        if len(rows) == 1: return rows[0][0] in e['dir_fewest']
        if rows and all(c is not None for _, c in rows):
            lo = min(c for _, c in rows); low = [p for p, c in rows if c == lo]
            return len(low) == 1 and low[0] in e['dir_fewest']
        if not rows:
            p = top(a, ['path', 'dir', 'directory'])
            return isinstance(p, str) and p.strip().rstrip('/') in e['dir_fewest']
        return False
    if 'count' in e:
        lines = item['kind'] == 'lines'
        keys = (['additions', 'lines_added', 'added'] if lines else []) + ['count', 'total', 'value', 'answer', 'n', 'result']
        v = num(top(a, keys))
        if v is None and isinstance(a, (int, float)) and not isinstance(a, bool): v = a
        rowkey = 'additions' if lines else 'commits'
        if v is None and len(F) == 1 and isinstance(F[0], dict) and num(F[0].get(rowkey)) is not None:
            v = num(F[0][rowkey])
        if v is None and not lines and (isinstance(a, list) or (isinstance(a, dict) and 'findings' in a)):
            v = len(F)
        return v in e['count']
    if 'bool' in e:
        v = top(a, ['answer', 'bool', 'boolean', 'yes', 'result', 'exists'])
        if isinstance(v, bool): return v == e['bool']
        if isinstance(v, str) and v.strip().lower() in ('yes', 'no', 'true', 'false'):
            return (v.strip().lower() in ('yes', 'true')) == e['bool']
        c = num(top(a, ['count', 'total']))
        if c is not None: return (c > 0) == e['bool']
        if isinstance(a, dict) and 'findings' in a or isinstance(a, list): return (len(F) > 0) == e['bool']
        s = top(a, ['summary'])
        if isinstance(s, str) and re.match(r'\s*(yes|no)\b', s, re.I): return s.strip().lower().startswith('yes') == e['bool']
        return False
    if 'author' in e:
        people = e['author']; rank = e.get('rank', 1)
        cand = []
        t = top(a, ['author', 'email', 'name'])
        if t is not None: cand.append(t)
        if F: cand.append(F[0])
        if rank >= 2 and len(F) >= rank and all(isinstance(r, dict) and 'commits' in r for r in F): cand = [c for c in cand if c is not F[0]] + [F[rank - 1]]
        if rank == -1 and len(F) >= 2 and all(isinstance(r, dict) and 'commits' in r for r in F): cand.append(F[-1])
        return any(ident_match(c, ids) for c in cand for ids in people)
    if 'authors_ordered' in e:
        exp = e['authors_ordered']
        if len(exp) == 1 and not F:
            t = top(a, ['author', 'email', 'name'])
            return t is not None and ident_match(t, exp[0])
        return len(F) >= len(exp) and all(ident_match(F[i], exp[i]) for i in range(len(exp)))
    if 'authors_set' in e:
        exp = e['authors_set']
        if not F: return False
        return all(any(ident_match(r, ids) for ids in exp) for r in F) and \
               all(any(ident_match(r, ids) for r in F) for ids in exp)
    if 'paths_ordered' in e:
        exp = e['paths_ordered']
        return len(F) >= len(exp) and all(row_path(F[i]) == exp[i] for i in range(len(exp)))
    if 'paths_set' in e:
        got = set()
        src = F if F else ([a] if isinstance(a, dict) else [])
        for r in src:
            if isinstance(r, str): got.add(r)
            elif isinstance(r, dict):
                if isinstance(r.get('path'), str): got.add(r['path'])
                for k in ('paths', 'files'):
                    if isinstance(r.get(k), list):
                        for p in r[k]:
                            q = row_path(p)
                            if q: got.add(q)
        return any(got == set(rd) for rd in e['paths_set'])   # a list of readings, each a list of paths
    if 'dir_top' in e:
        p = row_path(F[0]) if F else top(a, ['path', 'dir', 'directory'])
        if not isinstance(p, str): return False
        p = p.strip().rstrip('/')
        return any(p == d or (d.endswith('/' + p) and '/' not in p) for d in e['dir_top'])
    if 'date' in e:
        v = top(a, ['date', 'last', 'last_modified'])
        if v is None and F and isinstance(F[0], dict): v = F[0].get('date') or F[0].get('last')
        if not isinstance(v, str): return False
        days = {v[:10]}
        try:
            d = datetime.datetime.fromisoformat(v.strip().replace('Z', '+00:00'))
            if d.tzinfo: days.add(d.astimezone(datetime.timezone.utc).strftime('%Y-%m-%d'))
        except ValueError: pass
        return bool(days & set(e['date']))
    if 'hash' in e:
        h = top(a, ['hash', 'short_hash', 'commit'])
        if isinstance(h, str): return any(hmatch(h.lower(), x) for x in e['hash'])
        return bool(F) and any(hmatch(row_hash(F[0]), x) for x in e['hash'])
    if 'hashes_set' in e:
        got = [row_hash(r) for r in F]
        if not got or None in got: return False
        for reading in e['hashes_set']:
            if len(set(got)) == len(reading) and all(any(hmatch(g, x) for x in reading) for g in got) \
               and all(any(hmatch(g, x) for g in got) for x in reading): return True
        return False
    if 'string' in e:
        return any(s.strip() == e['string'] for s in strings(a))
    if 'strings_all' in e:
        got = {s.strip() for s in strings(a)}
        return all(x in got for x in e['strings_all'])
    return False

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out'); ap.add_argument('--set', action='append', required=True)
    o = ap.parse_args()
    q = os.environ.get('QUARRY') or sys.exit('set QUARRY=path/to/quarry')
    q = os.path.abspath(q)
    items = [json.loads(l) for f in o.set for l in open(f) if l.strip()]
    tmp = tempfile.mkdtemp(prefix='quarry-check-')
    fx = os.path.join(tmp, 'libuv')
    subprocess.run([os.path.join(HERE, 'make_fixture.sh'), fx], check=True,
                   env={'PATH': os.environ['PATH'], 'HOME': tmp, 'LIBUV_REPO': os.environ.get('LIBUV_REPO', '/work/.mirror/libuv+libuv/repo')})
    h = subprocess.run(['git', '-C', fx, 'rev-parse', 'HEAD'], capture_output=True, text=True,
                       env={'PATH': os.environ['PATH'], 'HOME': tmp}).stdout.strip()
    if h != HEAD: sys.exit('fixture HEAD %s != %s: the fixture is not the one the set was computed on' % (h, HEAD))
    home = os.path.join(tmp, 'home'); os.makedirs(home)
    env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'), 'HOME': home, 'TZ': 'UTC', 'LANG': 'C.UTF-8',
           'XDG_CONFIG_HOME': os.path.join(home, '.config'), 'XDG_CACHE_HOME': os.path.join(home, '.cache'),
           'XDG_DATA_HOME': os.path.join(home, '.local/share'), 'XDG_STATE_HOME': os.path.join(home, '.local/state'),
           'QUARRY_NOW': NOW}
    by = collections.defaultdict(collections.Counter); rows = []
    for it in items:
        try:
            r = subprocess.run([q, 'ask', it['text'], '--repo', fx, '--format', 'json'], cwd=tmp, env=env,
                               capture_output=True, text=True, timeout=300)
            rc, out, err = r.returncode, r.stdout, r.stderr
        except subprocess.TimeoutExpired:
            rc, out, err = -1, '', 'timeout'
        must = 'decline' in it['expect']
        try: a0 = json.loads(out) if rc == 0 else None
        except ValueError: a0 = None
        if rc == 0 and isinstance(a0, dict) and 'error' in a0 and not findings_of(a0):
            rc = 'error-json'
        if rc != 0:
            verdict = 'right' if must else 'declined'
            note = 'exit %s' % rc
        else:
            try: a = json.loads(out)
            except ValueError: a = None
            if must: verdict, note = 'wrong', 'answered a must-decline item'
            elif a is None: verdict, note = 'wrong', 'unparsable output'
            else:
                ok, note = False, ''
                try: ok = judge(it, a)
                except Exception as ex: note = 'judge error %r' % ex
                verdict = 'right' if ok else 'wrong'
        by[it['kind']][verdict] += 1
        by['TOTAL'][verdict] += 1
        if not must: by['_answerable'][verdict] += 1
        rows.append({'id': it['id'], 'text': it['text'], 'kind': it['kind'], 'verdict': verdict, 'note': note,
                     'rc': rc, 'stdout': out[:4000], 'stderr': err[-1000:], 'expect': it['expect']})
        print('%s %-8s %s' % (it['id'], verdict, it['text']), file=sys.stderr)
    if o.out:
        with open(o.out, 'w') as f:
            for r in rows: f.write(json.dumps(r) + '\n')
    print('%-18s %5s %5s %8s %5s' % ('kind', 'right', 'wrong', 'declined', 'n'))
    for k in sorted(x for x in by if x not in ('TOTAL', '_answerable')) + ['TOTAL']:
        c = by[k]; print('%-18s %5d %5d %8d %5d' % (k, c['right'], c['wrong'], c['declined'], sum(c.values())))
    c = by['_answerable']; n = sum(c.values())
    print('answerable only: right %d of %d (%.1f%%), wrong %d, declined %d' %
          (c['right'], n, 100.0 * c['right'] / max(n, 1), c['wrong'], c['declined']))
    shutil.rmtree(tmp, ignore_errors=True)
if __name__ == '__main__': main()
