#!/usr/bin/env python3
"""QUARRY=path python3 check.py --set FILE [--out FILE]
plain16: builds the ag fixture (make_fixture.sh; mirror from $AG_REPO, default
/work/.mirror/ggreer+the_silver_searcher/repo) in a temp dir, checks its HEAD, runs `quarry index --repo DIR` once,
then asks quarry every question of the set in a clean environment (`quarry ask QUESTION --repo DIR --format json`,
no model configured) and scores right / wrong / declined per kind, in total, and answerable-only.
Adapted from tools/template_check.py: fixture, NOW, HEAD, index step, ranks of any order, names_set, emails_set."""
import argparse, collections, json, os, re, shutil, subprocess, sys, tempfile
HERE = os.path.dirname(os.path.abspath(__file__))
NOW = '2021-01-15T12:00:00Z'  # a Friday, 30 days after the last commit (2020-12-17T01:09Z)
HEAD = 'a61f1780b64266587e7bc30f0f5f71c6cca97c0f'

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
        ranked = len(F) >= 2 and all(isinstance(r, dict) and 'commits' in r for r in F)
        if rank == 1:
            if t is not None: cand.append(t)
            if F: cand.append(F[0])
        elif ranked and (rank == -1 or len(F) >= rank):
            cand.append(F[-1] if rank == -1 else F[rank - 1])  # a ranking: only the row at that rank counts
        else:
            if t is not None: cand.append(t)
            if len(F) == 1: cand.append(F[0])                  # a single answer row
        return any(ident_match(c, ids) for c in cand for ids in people)
    if 'authors_ordered' in e:
        exp = e['authors_ordered']
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
        return got == set(e['paths_set'])
    if 'dir_top' in e:
        p = row_path(F[0]) if F else top(a, ['path', 'dir', 'directory'])
        if not isinstance(p, str): return False
        p = p.strip().rstrip('/')
        return any(p == d or (d.endswith('/' + p) and '/' not in p) for d in e['dir_top'])
    if 'date' in e:
        v = top(a, ['date', 'last', 'last_modified'])
        if v is None and F and isinstance(F[0], dict): v = F[0].get('date') or F[0].get('last')
        return isinstance(v, str) and v.startswith(e['date'])
    if 'hash' in e:
        h = top(a, ['hash', 'short_hash', 'commit'])
        if isinstance(h, str): return hmatch(h.lower(), e['hash'])
        return bool(F) and hmatch(row_hash(F[0]), e['hash'])
    if 'hashes_set' in e:
        got = [row_hash(r) for r in F]
        if not got or None in got: return False
        for reading in e['hashes_set']:
            if len(set(got)) == len(reading) and all(any(hmatch(g, x) for x in reading) for g in got) \
               and all(any(hmatch(g, x) for g in got) for x in reading): return True
        return False
    if 'names_set' in e:
        got = set()
        for r in F:
            if isinstance(r, str): got.add(r.strip())
            elif isinstance(r, dict):
                for k in ('name', 'tag'):
                    if isinstance(r.get(k), str): got.add(r[k].strip()); break
        return got == set(e['names_set'])
    if 'emails_set' in e:
        got = set()
        for r in F:
            if isinstance(r, str) and '@' in r: got.add(r.strip().lower())
            elif isinstance(r, dict) and isinstance(r.get('email'), str): got.add(r['email'].strip().lower())
        if not got:
            v = top(a, ['email'])
            if isinstance(v, str): got.add(v.strip().lower())
        return got == set(x.lower() for x in e['emails_set'])
    if 'tag_first' in e:
        v = top(a, ['name', 'tag', 'answer', 'result'])
        if v is None and F:
            v = F[0] if isinstance(F[0], str) else (F[0].get('name') or F[0].get('tag')) if isinstance(F[0], dict) else None
        return isinstance(v, str) and v.strip() == e['tag_first']
    if 'string' in e:
        return any(s.strip() == e['string'] for s in strings(a))
    if 'strings_all' in e:
        got = {s.strip() for s in strings(a)}
        return all(x in got for x in e['strings_all'])
    return False

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out'); ap.add_argument('--set', required=True)
    o = ap.parse_args()
    q = os.environ.get('QUARRY') or sys.exit('set QUARRY=path/to/quarry')
    q = os.path.abspath(q)
    items = [json.loads(l) for l in open(o.set) if l.strip()]
    tmp = tempfile.mkdtemp(prefix='quarry-check-')
    fx = os.path.join(tmp, 'ag')
    subprocess.run([os.path.join(HERE, 'make_fixture.sh'), fx], check=True,
                   env={'PATH': os.environ['PATH'], 'HOME': tmp,
                        'AG_REPO': os.environ.get('AG_REPO', '/work/.mirror/ggreer+the_silver_searcher/repo')})
    h = subprocess.run(['git', '-C', fx, 'rev-parse', 'HEAD'], capture_output=True, text=True,
                       env={'PATH': os.environ['PATH'], 'HOME': tmp}).stdout.strip()
    if h != HEAD: sys.exit('fixture HEAD %s != %s: the fixture is not the one the set was computed on' % (h, HEAD))
    home = os.path.join(tmp, 'home'); os.makedirs(home)
    env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'), 'HOME': home, 'TZ': 'UTC', 'LANG': 'C.UTF-8',
           'XDG_CONFIG_HOME': os.path.join(home, '.config'), 'XDG_CACHE_HOME': os.path.join(home, '.cache'),
           'XDG_DATA_HOME': os.path.join(home, '.local/share'), 'XDG_STATE_HOME': os.path.join(home, '.local/state'),
           'QUARRY_NOW': NOW}
    r = subprocess.run([q, 'index', '--repo', fx], cwd=tmp, env=env, capture_output=True, text=True)
    print('index: rc %d %s' % (r.returncode, (r.stdout + r.stderr).strip()[-300:]), file=sys.stderr)
    by = collections.defaultdict(collections.Counter); rows = []
    for it in items:
        try:
            r = subprocess.run([q, 'ask', it['text'], '--repo', fx, '--format', 'json'], cwd=tmp, env=env,
                               capture_output=True, text=True, timeout=300)
            rc, out, err = r.returncode, r.stdout, r.stderr
        except subprocess.TimeoutExpired:
            rc, out, err = -1, '', 'timeout'
        must = 'decline' in it['expect']
        if rc != 0:
            verdict = 'right' if must else 'declined'
            note = 'exit %d' % rc
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
