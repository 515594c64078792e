#!/usr/bin/env python3
"""build_set.py: builds the plain9 curl phrasing set. Every expect is computed here with git on a fresh fixture
(make_fixture.sh). Writes all.jsonl (full set, kept in /root/heldout9 only), dev -> /work/plain9/dev/router.jsonl,
held-out -> /root/heldout9/router.jsonl, build_notes.txt. NOW = 2026-08-25T12:00:00Z (Tuesday)."""
import functools, collections, datetime as D, json, os, random, subprocess, sys, tempfile
FX = tempfile.mkdtemp(prefix='p9build-') + '/curl'
subprocess.run(['/work/plain9/make_fixture.sh', FX], check=True)
NOTES = []
def git(*a): return subprocess.run(['git', '-C', FX] + list(a), capture_output=True, text=True, check=True).stdout
def ts(s): return int(D.datetime.fromisoformat(s.replace('Z', '+00:00')).timestamp())
NOW = ts('2026-08-25T12:00:00Z')
L = []
for ln in git('log', 'HEAD', '--format=%H%x00%at%x00%ct%x00%aI%x00%aN%x00%aE%x00%an%x00%ae%x00%P').splitlines():
    h, at, ct, aI, aN, aE, an, ae, P = ln.split('\0')
    L.append(dict(h=h, at=int(at), ct=int(ct), aday=aI[:10], aN=aN, aE=aE.lower(), an=an, ae=ae.lower(), merge=len(P.split()) > 1))
BYH = {c['h']: c for c in L}
def uday(t): return D.datetime.fromtimestamp(t, D.timezone.utc).strftime('%Y-%m-%d')
def in_win(c, lo, hi):
    """readings: author UTC ts, committer UTC ts, author-local calendar day; lo/hi are 'YYYY-MM-DD' (hi exclusive) or ints."""
    r = []
    for k in ('at', 'ct'):
        a = ts(lo + 'T00:00:00Z') if isinstance(lo, str) else lo
        b = ts(hi + 'T00:00:00Z') if isinstance(hi, str) else hi
        r.append(a <= c[k] < b)
    r.append((lo <= c['aday'] if isinstance(lo, str) else lo <= c['at']) and (c['aday'] < hi if isinstance(hi, str) else c['at'] < hi))
    return r
def wins(lo, hi, pred=lambda c: True, commits=None):
    """per reading, the list of commits"""
    cs = commits if commits is not None else L
    out = [[], [], []]
    for c in cs:
        if not pred(c): continue
        for i, ok in enumerate(in_win(c, lo, hi)):
            if ok: out[i].append(c)
    return out
def who(names=(), emails=()):
    N = {x.lower() for x in names}; E = {x.lower() for x in emails}
    preds = []
    if N: preds += [lambda c: c['aN'].lower() in N, lambda c: c['an'].lower() in N]
    if E: preds += [lambda c: c['aE'] in E, lambda c: c['ae'] in E]
    return preds
@functools.lru_cache(None)
def pathlog(path, follow=False):
    a = ['log', 'HEAD', '--format=%H'] + (['--follow'] if follow else []) + ['--', path]
    return [BYH[h] for h in git(*a).split()]
def pathreadings(path):
    return [pathlog(path), pathlog(path, True)] if '.' in path.split('/')[-1] else [pathlog(path)]
def rng(a, b): return [BYH[h] for h in git('rev-list', '%s..%s' % (a, b)).split()]
def tagts(t): return int(git('log', '-1', '--format=%ct', t).strip()), int(git('log', '-1', '--format=%at', t).strip())
P = {
 'daniel': dict(names=['Daniel Stenberg'], emails=['daniel@haxx.se']),
 'viktor': dict(names=['Viktor Szakats', 'Viktor Szakáts'], emails=['commit@vsz.me', 'commit@vszakats.net', 'vszakats@users.noreply.github.com']),
 'stefan': dict(names=['Stefan Eissing'], emails=['stefan@eissing.org', 'sei@tux.icing.local']),
 'dan': dict(names=['Dan Fandrich'], emails=['dan@coneharvesters.com']),
 'jay': dict(names=['Jay Satiro'], emails=['raysatiro@yahoo.com']),
 'steve': dict(names=['Steve Holme'], emails=['steve_holme@hotmail.com']),
 'renovate': dict(names=['renovate[bot]'], emails=[]),
 'philip': dict(names=['Philip Heiduck', 'Philip H'], emails=['47042125+pheiduck@users.noreply.github.com']),
}
def ids(key):
    """all identities (names, emails) of a person for matching an author answer"""
    p = P.get(key)
    if p: s = set(p['names']) | set(p['emails'])
    else: s = {key}
    for c in L:
        if c['aN'] in s or c['an'] in s or c['aE'] in s or c['ae'] in s: s |= {c['aN'], c['an'], c['aE'], c['ae']}
    return sorted(s)
def person_of(name_or_email):
    for k, p in P.items():
        if name_or_email in p['names'] or name_or_email.lower() in [e.lower() for e in p['emails']]: return k
    return name_or_email
def pc(key, commits):
    """count readings for person key in commits"""
    return sorted({sum(1 for c in commits if f(c)) for f in who(**P[key])})
def rank(commits, n=1, weight=None, exclude=None):
    """top-n under keys aN, an, aE; returns list of readings, each a list of identities (as person keys / names); checks ties"""
    res = []
    for k in ('aN', 'an', 'aE'):
        cnt = collections.Counter()
        for c in commits:
            if exclude and exclude(c): continue
            cnt[c[k]] += weight(c) if weight else 1
        top = cnt.most_common(n + 1)
        NOTES.append('rank key=%s top=%s' % (k, top))
        for i in range(min(n, len(top) - 1)):
            if top[i][1] == top[i + 1][1]: NOTES.append('TIE at %d: %s' % (i, top[:n + 1])); raise SystemExit('tie ' + str(top))
        res.append([t[0] for t in top[:n]])
    return res
def A(reading_lists, rank_i=0):
    """author expect: any identity of any reading's person at rank_i"""
    people = []
    for r in reading_lists:
        ii = ids(person_of(r[rank_i]))
        if ii not in people: people.append(ii)
    return people
def numstat_adds(commits, renames=True):
    """sum of additions per commit (non-merge), binary skipped"""
    hs = [c['h'] for c in commits if not c['merge']]
    out = {}
    for i in range(0, len(hs), 400):
        txt = git('show', '--numstat', '--format=@%H', *(['-M'] if renames else ['--no-renames']), *hs[i:i + 400])
        cur = None
        for ln in txt.splitlines():
            if ln.startswith('@'): cur = ln[1:]; out[cur] = 0
            elif ln.strip() and cur:
                a = ln.split('\t')[0]
                if a.isdigit(): out[cur] += int(a)
    return out
items = []
def add(kind, text, expect, how):
    items.append(dict(id='p9-%03d' % (len(items) + 1), kind=kind, text=text, expect=expect, how=how))
def cnt(vals):
    v = sorted(set(vals))
    if len(v) > 1 and 0 in v: v.remove(0)  # a reading that matched no identity (e.g. an unused raw email) is not a reading
    return {'count': v}
def lens(ws): return [len(w) for w in ws]
nomerge = lambda c: not c['merge']
M30 = NOW - 30 * 86400
# -------------------------------------------------------------- counts
add('count', "how many commits in the last 30 days?", cnt(lens(wins(M30, NOW + 1)) + lens(wins('2026-07-26', '2026-08-26'))),
    'commits with author/committer date in [NOW-30d, NOW] or from midnight 2026-07-26; python over git log HEAD')
add('count', "Total number of commits in this repo?", cnt([len(L), int(git('rev-list', '--count', '--all'))]),
    'git rev-list --count HEAD (alt: --all)')
add('count', "how many merge commits are there", cnt([sum(c['merge'] for c in L)]), 'git rev-list --merges --count HEAD')
add('count', "How many commits did Daniel Stenberg make in 2025?", cnt([len([c for c in w if f(c)]) for w in wins('2025-01-01', '2026-01-01') for f in who(**P['daniel'])]),
    'person(Daniel Stenberg, mailmap/raw name/email) x year 2025 (author UTC, committer UTC, author local)')
add('count', "hw many commits did stefan eissing do this year", cnt([len([c for c in w if f(c)]) for w in wins('2026-01-01', NOW + 1) for f in who(**P['stefan'])]),
    'Stefan Eissing, 2026-01-01..NOW')
add('count', "number of commits by dan fandrich", cnt(pc('dan', L)), 'Dan Fandrich all time, git log --author')
add('count', "how many times has lib/url.c been modified?", cnt(lens(pathreadings('lib/url.c'))), 'git rev-list --count HEAD -- lib/url.c (alt --follow)')
add('count', "How many commits touched src/tool_main.c ?", cnt(lens(pathreadings('src/tool_main.c'))), 'git rev-list --count HEAD -- src/tool_main.c (alt --follow)')
add('count', "commits between curl-8_20_0 and curl-8_21_0, how many", cnt([len(rng('curl-8_20_0', 'curl-8_21_0'))]), 'git rev-list --count curl-8_20_0..curl-8_21_0')
t21c, t21a = tagts('curl-8_21_0')
add('count', "how many commits since curl-8_21_0", cnt([len(rng('curl-8_21_0', 'HEAD')), sum(c['ct'] > t21c for c in L), sum(c['at'] > t21a for c in L)]),
    'git rev-list --count curl-8_21_0..HEAD (alt: commits dated after the tag commit, committer/author)')
add('count', "git rev-list --count curl-8_19_0..curl-8_20_0", cnt([len(rng('curl-8_19_0', 'curl-8_20_0'))]), 'literally that command')
add('count', "number of commits made on 2026-08-20", cnt(lens(wins('2026-08-20', '2026-08-21'))), 'day 2026-08-20, author UTC/committer UTC/author local')
add('count', "how many commits were there in February 2026?", cnt(lens(wins('2026-02-01', '2026-03-01'))), 'Feb 2026')
add('count', "commits in Q2 2026?", cnt(lens(wins('2026-04-01', '2026-07-01'))), 'Apr-Jun 2026')
add('count', "count commits by daniel@haxx.se in the last 90 days", cnt([len([c for c in w if f(c)]) for lo in (NOW - 90 * 86400, '2026-05-27') for w in wins(lo, NOW + 1) for f in who(**P['daniel'])]),
    'email daniel@haxx.se, [NOW-90d, NOW] or from midnight')
add('count', "non-merge commits in 2025 - how many?", cnt(lens(wins('2025-01-01', '2026-01-01', nomerge))), 'git rev-list --no-merges, 2025')
add('count', "How many commits did renovate[bot] make this year", cnt([len([c for c in w if f(c)]) for w in wins('2026-01-01', NOW + 1) for f in who(**P['renovate'])]), 'renovate[bot], 2026')
add('count', "jay satiro commit count 2024", cnt([len([c for c in w if f(c)]) for w in wins('2024-01-01', '2025-01-01') for f in who(**P['jay'])]), 'Jay Satiro 2024')
def distinct(ws): return [len({c[k] for c in w}) for w in ws for k in ('aN', 'an', 'aE')]
add('count', "How many different people committed in July 2026?", cnt(distinct(wins('2026-07-01', '2026-08-01'))), 'distinct authors July 2026 by mailmap name/raw name/email')
add('count', "how many commits to docs/ in july 2026", cnt([len(w) for pl in pathreadings('docs') for w in wins('2026-07-01', '2026-08-01', commits=pl)]), 'git log HEAD -- docs, July 2026')
add('count', "in 2025 how many commits changed CMakeLists.txt", cnt([len(w) for pl in pathreadings('CMakeLists.txt') for w in wins('2025-01-01', '2026-01-01', commits=pl)]), 'git log -- CMakeLists.txt, 2025 (root file)')
add('count', "How many commits did everyone except Daniel Stenberg make in 2026?",
    cnt([len([c for c in w if not f(c)]) for w in wins('2026-01-01', NOW + 1) for f in who(**P['daniel'])]), '2026 commits minus Daniel Stenberg identities')
add('count', "how many commits did Eissing make under lib/vquic in 2025?",
    cnt([len([c for c in w if f(c)]) for pl in pathreadings('lib/vquic') for w in wins('2025-01-01', '2026-01-01', commits=pl) for f in who(**P['stefan'])]), 'surname -> Stefan Eissing; path lib/vquic; 2025')
add('count', "number of commits since 2026-08-01 that touched lib/vtls/openssl.c",
    cnt([len(w) for pl in pathreadings('lib/vtls/openssl.c') for w in wins('2026-08-01', NOW + 1, commits=pl)]), 'path window')
add('count', "how many commits has vszakats made since the start of 2026?",
    cnt([len([c for c in w if f(c)]) for w in wins('2026-01-01', NOW + 1) for f in who(**P['viktor'])]), 'GitHub handle vszakats -> Viktor Szakats (noreply email)')
add('count', "How many commits came in on saturdays in 2026?", cnt([sum(1 for c in L if uday(c['at'])[:4] == '2026' and D.datetime.fromtimestamp(c['at'], D.timezone.utc).weekday() == 5),
    sum(1 for c in L if c['aday'][:4] == '2026' and D.date.fromisoformat(c['aday']).weekday() == 5),
    sum(1 for c in L if uday(c['ct'])[:4] == '2026' and D.datetime.fromtimestamp(c['ct'], D.timezone.utc).weekday() == 5)]), 'weekday Saturday in 2026, UTC author/local author/committer')
add('count', "commits last week", cnt(lens(wins(NOW - 7 * 86400, NOW + 1)) + lens(wins('2026-08-18', '2026-08-26')) + lens(wins('2026-08-17', '2026-08-24'))),
    'past 7 days from NOW or from midnight, or Mon-Sun Aug 17-23; count of listed commits')
add('count', "how many commits did Philip Heiduck (pheiduck) author?", cnt(pc('philip', L)), 'mailmap Philip Heiduck; raw Philip H; noreply email')
add('count', "pls tell me how many commits touched the tests/ directory this month", cnt([len(w) for pl in pathreadings('tests') for w in wins('2026-08-01', NOW + 1, commits=pl)]), 'tests/ Aug 2026 to NOW')
hx = [c for c in L if not c['merge'] and c['aday'] == '2026-08-19'][0]['h']
nf = len([l for l in git('show', '--format=', '--name-only', hx).splitlines() if l.strip()])
add('filecount', "how many files did commit %s change?" % hx[:10], {'count': [nf]}, 'git show --name-only %s | wc -l' % hx)
# -------------------------------------------------------------- authors
add('author', "who made the most commits in 2026?", {'author': A(sum([rank(w) for w in wins('2026-01-01', NOW + 1)], []))}, 'rank by aN/an/aE, 2026, 3 date readings')
add('author', "top committer last month", {'author': A(sum([rank(w) for w in wins('2026-07-01', '2026-08-01') + wins(M30, NOW + 1)], []))}, 'July 2026 or last 30 days')
add('author', "Who has contributed the most to lib/vquic?", {'author': A(sum([rank(pl) for pl in pathreadings('lib/vquic')], []))}, 'git shortlog -sn HEAD -- lib/vquic')
add('author', "who changed lib/http2.c most often", {'author': A(sum([rank(pl) for pl in pathreadings('lib/http2.c')], []))}, 'shortlog -- lib/http2.c (alt --follow)')
add('author', "most active author in docs/ during 2025", {'author': A(sum([rank(w) for pl in pathreadings('docs') for w in wins('2025-01-01', '2026-01-01', commits=pl)], []))}, 'docs 2025')
adds26 = numstat_adds([c for w in wins('2026-01-01', NOW + 1) for c in w])
add('author', "who wrote the most lines of code in 2026?", {'author': A(sum([rank(w, weight=lambda c: adds26.get(c['h'], 0)) for w in wins('2026-01-01', NOW + 1, nomerge)], []))},
    'sum numstat additions per author, non-merge, 2026')
def creator(path):
    r = []
    for fl in ([], ['--follow']):
        hs = git('log', 'HEAD', '--diff-filter=A', '--format=%H', *fl, '--', path).split()
        r.append(BYH[hs[-1]])
    return r
cr = creator('lib/cf-socket.c')
add('author', "Who created lib/cf-socket.c?", {'author': [ids(person_of(c['aN'])) for c in cr]}, 'git log --diff-filter=A --format=%aN -- lib/cf-socket.c (alt --follow), oldest add')
last_urlapi = pathlog('lib/urlapi.c')
add('author', "who last touched lib/urlapi.c", {'author': [ids(person_of(last_urlapi[0]['aN'])), ids(person_of(max(last_urlapi, key=lambda c: c['at'])['aN']))]}, 'git log -1 -- lib/urlapi.c (alt latest author date)')
add('author', "second most prolific contributor of all time?", {'author': A(rank(L, 2), 1), 'rank': 2}, 'rank 2 by aN/an/aE all history')
add('author', "who committed most since curl-8_20_0", {'author': A(rank(rng('curl-8_20_0', 'HEAD')))}, 'shortlog curl-8_20_0..HEAD')
add('author', "Excluding Daniel Stenberg, who made the most commits in 2025?", {'author': A(sum([rank(w, exclude=lambda c: c['aN'] == 'Daniel Stenberg') for w in wins('2025-01-01', '2026-01-01')], []))}, '2025 ranking without Daniel Stenberg')
add('author', "who authored the latest commit", {'author': [ids(person_of(L[0]['aN'])), ids(person_of(max(L, key=lambda c: c['at'])['aN']))]}, 'git log -1 --format=%aN (alt latest author date)')
first = [L[-1], min(L, key=lambda c: c['at'])]
add('author', "who made the very first commit in curl's history?", {'author': [ids(person_of(c['aN'])) for c in first]}, 'git log --reverse | head -1 (root / earliest author date)')
add('author', "top contributor to src/ between curl-8_19_0 and curl-8_21_0", {'author': A(rank([c for SRC in [{x['h'] for x in pathlog('src')}] for c in rng('curl-8_19_0', 'curl-8_21_0') if c['h'] in SRC]))}, 'shortlog curl-8_19_0..curl-8_21_0 -- src')
add('author', "Who's committed the most to tests/ this year?", {'author': A(sum([rank(w) for pl in pathreadings('tests') for w in wins('2026-01-01', NOW + 1, commits=pl)], []))}, 'tests 2026')
# -------------------------------------------------------------- authors_ordered / sets
def ordered(rs):
    out = []
    for r in rs:
        e = [ids(person_of(x)) for x in r]
        if e not in out: out.append(e)
    return out
add('authors_ordered', "top 3 authors in 2026", {'any_of': [{'authors_ordered': x} for x in ordered(sum([rank(w, 3) for w in wins('2026-01-01', NOW + 1)], []))]}, 'top 3 2026')
add('authors_ordered', "list the 5 most active contributors of all time", {'any_of': [{'authors_ordered': x} for x in ordered(rank(L, 5))]}, 'git shortlog -sn HEAD | head -5')
add('authors_ordered', "Top 3 contributors in lib/vtls since 2025-01-01, in order please", {'any_of': [{'authors_ordered': x} for x in ordered(sum([rank(w, 3) for w in wins('2025-01-01', NOW + 1, commits=pathlog('lib/vtls'))], []))]}, 'lib/vtls since 2025')
def aset(ws):
    out = []
    for w in ws:
        for k in ('aN',):
            s = sorted({c[k] for c in w}); e = [ids(person_of(x)) for x in s]
            if e not in out: out.append(e)
    return {'any_of': [{'authors_set': x} for x in out]}
add('authors_set', "who committed on 2026-08-21?", aset(wins('2026-08-21', '2026-08-22')), 'distinct authors that day, 3 date readings')
add('authors_set', "which people worked on lib/vquic/curl_ngtcp2.c in 2026?", aset(wins('2026-01-01', NOW + 1, commits=pathlog('lib/vquic/curl_ngtcp2.c'))), 'distinct authors of the file in 2026')
# -------------------------------------------------------------- dates
def dates(cs): return {'any_of': [{'date': d} for d in sorted({x for c in cs for x in (uday(c['at']), c['aday'], uday(c['ct']))})]}
add('date', "When was lib/url.c last modified?", dates([pathlog('lib/url.c')[0], max(pathlog('lib/url.c'), key=lambda c: c['at'])]), 'git log -1 --format=%ad -- lib/url.c')
def pfirst(key): return sorted([c for c in L if any(f(c) for f in who(**P[key]))], key=lambda c: c['at'])
add('date', "when did Stefan Eissing make his first commit?", dates([pfirst('stefan')[0], [c for c in L if any(f(c) for f in who(**P['stefan']))][-1]]), 'earliest commit of Stefan Eissing')
T21 = BYH[git('rev-list', '-n1', 'curl-8_21_0').strip()]
add('date', "when was curl-8_21_0 released", {'any_of': dates([T21])['any_of'] + [{'date': git('for-each-ref', '--format=%(creatordate:short)', 'refs/tags/curl-8_21_0').strip()}]}, 'tag commit date (3 readings) or tagger date')
add('date', "date of jay satiro's most recent commit", dates([pfirst('jay')[-1], [c for c in L if any(f(c) for f in who(**P['jay']))][0]]), 'latest commit of Jay Satiro')
add('date', "When did Steve Holme last commit?", dates([pfirst('steve')[-1], [c for c in L if any(f(c) for f in who(**P['steve']))][0]]), 'latest commit of Steve Holme')
add('date', "first commit date of the repository?", dates(first), 'git log --reverse --format=%ad | head -1')
add('date', "when was docs/THANKS created", dates(creator('docs/THANKS')), 'git log --diff-filter=A -- docs/THANKS (alt --follow)')
# -------------------------------------------------------------- hashes
add('hash', "what's the most recent commit?", {'any_of': [{'hash': L[0]['h']}, {'hash': max(L, key=lambda c: c['at'])['h']}]}, 'git rev-parse HEAD (alt newest author date)')
add('hash', "first commit by Viktor Szakats", {'any_of': [{'hash': pfirst('viktor')[0]['h']}, {'hash': [c for c in L if any(f(c) for f in who(**P['viktor']))][-1]['h']}]}, 'earliest commit of Viktor (author date / topo)')
add('hash', "which commit added lib/cf-socket.c", {'any_of': [{'hash': c['h']} for c in cr]}, 'git log --diff-filter=A -- lib/cf-socket.c')
add('hash', "latest commit touching src/tool_getparam.c?", {'any_of': [{'hash': pathlog('src/tool_getparam.c')[0]['h']}, {'hash': max(pathlog('src/tool_getparam.c'), key=lambda c: c['at'])['h']}]}, 'git log -1 -- src/tool_getparam.c')
add('hash', "git log -1 curl-8_0_0", {'hash': git('rev-list', '-n1', 'curl-8_0_0').strip()}, 'commit of tag curl-8_0_0')
def hset(ws):
    out = []
    for w in ws:
        s = sorted(c['h'] for c in w)
        if s not in out: out.append(s)
    return {'hashes_set': out}
add('hashes', "show me the commits from 2026-08-20", hset(wins('2026-08-20', '2026-08-21')), 'commits that day, 3 readings')
add('hashes', "Dan Fandrich's commits from last week?", hset([[c for c in w if f(c)] for w in wins(NOW - 7 * 86400, NOW + 1) + wins('2026-08-18', '2026-08-26') + wins('2026-08-17', '2026-08-24') for f in who(**P['dan'])]), 'Dan Fandrich, last-week readings')
add('hashes', "list merge commits made in 2021", hset(wins('2021-01-01', '2022-01-01', lambda c: c['merge'])), 'git log --merges, 2021')
add('hashes', "log curl-8_14_0..curl-8_14_1", hset([rng('curl-8_14_0', 'curl-8_14_1')]), 'git rev-list curl-8_14_0..curl-8_14_1')
# -------------------------------------------------------------- paths
def files(h): return sorted(l for l in git('show', '--format=', '--name-only', '-m', '--first-parent', h).splitlines() if l.strip())
add('paths', "what files did 5c61e16 change", {'paths_set': files('5c61e16')}, 'git show --name-only 5c61e16')
h2 = [c for c in L if not c['merge'] and c['aday'] == '2026-08-21' and 2 <= len(files(c['h'])) <= 8][0]['h']
add('paths', "Files changed in %s?" % h2[:9], {'paths_set': files(h2)}, 'git show --name-only %s' % h2)
add('paths', "which files were touched by the last commit", {'paths_set': files(L[0]['h'])}, 'git show --name-only HEAD')
# -------------------------------------------------------------- tags
tags = [l.split() for l in git('for-each-ref', '--format=%(refname:short) %(creatordate:unix) %(*objectname)%(objectname)', 'refs/tags').splitlines()]
def tagdate(t): return int(git('log', '-1', '--format=%ct', t).strip())
t26 = sorted(t for t, *_ in tags if tagdate(t) >= ts('2026-01-01T00:00:00Z'))
add('tags', "which releases came out in 2026?", {'any_of': [{'names_set': t26}, {'names_set': [t for t in t26 if t.startswith('curl-')]}]}, 'tags whose commit is dated 2026 (alt: only curl-* release tags)')
newest = sorted(tags, key=lambda x: int(x[1]))[-1][0]
add('tags', "what's the latest tag?", {'any_of': [{'string': newest}, {'string': 'curl-8_21_0'}]}, 'newest tag by date (%s) or highest release tag curl-8_21_0' % newest)
vs = sorted([t for t, *_ in tags if t.startswith('curl-') and all(p.isdigit() for p in t[5:].split('_'))], key=lambda t: [int(p) for p in t[5:].split('_')])
add('tags', "what tag came right before curl-8_20_0?", {'string': vs[vs.index('curl-8_20_0') - 1]}, 'version order of curl-* tags')
# -------------------------------------------------------------- bool
def yn(b): return {'bool': b}
add('bool', "has Daniel Stenberg committed since curl-8_21_0?", yn(any(any(f(c) for f in who(**P['daniel'])) for c in rng('curl-8_21_0', 'HEAD'))), 'git log curl-8_21_0..HEAD --author')
b = {bool(w) for w in wins('2026-08-23', '2026-08-24')}
assert len(b) == 1
add('bool', "did anyone commit on 2026-08-23?", yn(b.pop()), 'commits that day')
b = {bool(w) for pl in pathreadings('lib/ftp.c') for w in wins('2026-08-01', '2026-09-01', commits=pl)}; assert len(b) == 1
add('bool', "was lib/ftp.c changed in august 2026", yn(b.pop()), 'git log -- lib/ftp.c Aug 2026')
b = {bool([c for c in w if f(c)]) for w in wins('2025-01-01', '2026-01-01') for f in who(**P['steve'])}; assert len(b) == 1
add('bool', "Did steve holme commit anything in 2025?", yn(b.pop()), 'Steve Holme 2025')
# -------------------------------------------------------------- lines
jul = [c for w in wins('2026-07-01', '2026-08-01', nomerge) for c in w]
addsJ = numstat_adds(jul); addsJn = numstat_adds(jul, False)
add('lines', "how many lines were added in July 2026?", cnt([sum(m.get(c['h'], 0) for c in w) for m in (addsJ, addsJn) for w in wins('2026-07-01', '2026-08-01', nomerge)]), 'sum numstat additions, non-merge, July 2026')
add('lines', "lines added by Viktor Szakats in 2026", cnt([sum(adds26.get(c['h'], 0) for c in w if f(c)) for w in wins('2026-01-01', NOW + 1, nomerge) for f in who(**P['viktor'])]), 'numstat additions Viktor 2026')
# -------------------------------------------------------------- more answerable, varied register
add('authors_ordered', "Could you please tell me who the top 5 authors were between curl-8_18_0 and curl-8_21_0? thanks!", {'any_of': [{'authors_ordered': x} for x in ordered(rank(rng('curl-8_18_0', 'curl-8_21_0'), 5))]}, 'shortlog -sn curl-8_18_0..curl-8_21_0 | head -5')
add('count', "COMMITS BY STEFAN EISSING IN JUNE 2026", cnt([len([c for c in w if f(c)]) for w in wins('2026-06-01', '2026-07-01') for f in who(**P['stefan'])]), 'Stefan Eissing June 2026')
add('author', "whos commited most to lib/ since jan", {'author': A(sum([rank(w) for w in wins('2026-01-01', NOW + 1, commits=pathlog('lib'))], []))}, '"since jan" = since 2026-01-01; lib/')
t10c, t10a = tagts('curl-8_10_0')
add('count', "Return the number of commits authored by Jay Satiro since curl-8_10_0.", cnt([sum(1 for c in cs if f(c)) for cs in (rng('curl-8_10_0', 'HEAD'), [c for c in L if c['ct'] > t10c], [c for c in L if c['at'] > t10a]) for f in who(**P['jay'])]),
    'git rev-list --count --author curl-8_10_0..HEAD (alt: dated after the tag commit)')
add('count', "how many non-merge commits did Daniel Stenberg make in lib/ in 2026", cnt([len([c for c in w if f(c)]) for w in wins('2026-01-01', NOW + 1, nomerge, commits=pathlog('lib')) for f in who(**P['daniel'])]), 'lib/, 2026, no merges, Daniel')
ck = pathreadings('lib/cookie.c')
add('hashes', "history of lib/cookie.c since 2026-01-01", hset([w for pl in ck for w in wins('2026-01-01', NOW + 1, commits=pl)]), 'git log --since 2026-01-01 -- lib/cookie.c (alt --follow, date readings)')
add('date', "When was lib/cookie.c changed for the first time?", dates([pl[-1] for pl in ck] + [min(pl, key=lambda c: c['at']) for pl in ck]), 'oldest commit of git log [--follow] -- lib/cookie.c')
add('authors_set', "who touched lib/cookie.c in 2025", aset([w for pl in ck for w in wins('2025-01-01', '2026-01-01', commits=pl)]), 'distinct authors lib/cookie.c 2025')
add('count', "how many commits on 2026-02-04", cnt(lens(wins('2026-02-04', '2026-02-05'))), 'day count')
add('hash', "give me Viktor Szakats's latest commit", {'any_of': [{'hash': [c for c in L if any(f(c) for f in who(**P['viktor']))][0]['h']}, {'hash': pfirst('viktor')[-1]['h']}]}, 'git log -1 --author=Viktor')
b = {any(any(f(c) for f in who(**P['steve'])) for c in cs) for cs in (rng('curl-8_0_0', 'HEAD'), [c for c in L if c['ct'] > tagts('curl-8_0_0')[0]])}; assert len(b) == 1
add('bool', "was there any commit by Steve Holme after curl-8_0_0?", yn(b.pop()), 'git log curl-8_0_0..HEAD --author="Steve Holme"')
t25 = [t for t, *_ in tags if ts('2025-01-01T00:00:00Z') <= tagdate(t) < ts('2026-01-01T00:00:00Z')]
add('count', "number of releases tagged in 2025?", cnt([len(t25), len([t for t in t25 if t.startswith('curl-')])]), 'tags whose commit is dated 2025 (alt: curl-* only)')
add('count', "how many commits did x2018 make", cnt([sum(1 for c in L if c['an'] == 'x2018'), sum(1 for c in L if c['aN'] == 'Xiaoke Wang')]), 'raw author name x2018 (mailmap Xiaoke Wang)')
add('count', "commits by Daniel Stenberg excluding merges, all time", cnt([sum(1 for c in L if f(c) and not c['merge']) for f in who(**P['daniel'])]), 'git rev-list --no-merges --author')
add('date', "when was the most recent release tagged", {'any_of': dates([T21])['any_of'] + [{'date': git('for-each-ref', '--format=%(creatordate:short)', 'refs/tags/curl-8_21_0').strip()}] + dates([BYH[git('rev-list', '-n1', newest).strip()]])['any_of'] + [{'date': git('for-each-ref', '--format=%(creatordate:short)', 'refs/tags/' + newest).strip()}]},
    'curl-8_21_0 (last release) or newest tag %s; commit or tagger date' % newest)
# -------------------------------------------------------------- must decline
for t, why in [
    ("who is the best developer on curl?", 'judgment'),
    ("Is Viktor's code better than Stefan Eissing's?", 'judgment'),
    ("how many commits did Daniel make last year?", 'ambiguous first name: Daniel Stenberg, Daniel Gustafsson, Daniel McCarney, ...'),
    ("what did stefan change in 2025", 'ambiguous: Stefan Eissing, Stefan Bühler, Stefan Tomanek'),
    ("How many hours did Jay Satiro spend working on curl?", 'git lacks working hours'),
    ("who reviewed the HTTP/3 patches?", 'git lacks reviewers'),
    ("how many open issues does curl have right now", 'git lacks issues'),
    ("should we upgrade to curl 8.21 or wait for 8.22?", 'advice'),
    ("what's the test coverage of lib/?", 'git lacks coverage'),
    ("predict how many commits there'll be next month", 'forecast'),
    ("which curl release was the most stable one?", 'judgment'),
    ("who approved the last pull request?", 'git lacks approvals'),
    ("rate the quality of Viktor Szakats' commit messages 1-10", 'judgment'),
    ("how many downloads did curl 8.20.0 get", 'git lacks downloads'),
    ("was Dan Fandrich a better maintainer than Yang Tse?", 'judgment'),
    ("how many commits did Daniel do in lib/ this year?", 'ambiguous first name Daniel'),
]:
    add('decline', t, {'decline': True}, 'must decline: ' + why)
# -------------------------------------------------------------- write, split
for it in items:
    assert it['expect'], it
    if 'count' in it['expect']: assert it['expect']['count'] and all(isinstance(x, int) for x in it['expect']['count']), it
texts = [it['text'] for it in items]; assert len(texts) == len(set(texts))
os.makedirs('/root/heldout9', exist_ok=True)
with open('/root/heldout9/all.jsonl', 'w') as f:
    for it in items: f.write(json.dumps(it, ensure_ascii=False) + '\n')
rnd = random.Random(9009)
byk = collections.defaultdict(list)
for it in items: byk[it['kind']].append(it)
dev, held = [], []
flip = 0
for k in sorted(byk):
    xs = byk[k][:]; rnd.shuffle(xs)
    n = len(xs) // 2 + (len(xs) % 2) * flip; flip ^= len(xs) % 2
    dev += xs[:n]; held += xs[n:]
dev.sort(key=lambda x: x['id']); held.sort(key=lambda x: x['id'])
os.makedirs('/work/plain9/dev', exist_ok=True)
with open('/work/plain9/dev/router.jsonl', 'w') as f:
    for it in dev: f.write(json.dumps(it, ensure_ascii=False) + '\n')
with open('/root/heldout9/router.jsonl', 'w') as f:
    for it in held: f.write(json.dumps(it, ensure_ascii=False) + '\n')
with open('/root/heldout9/build_notes.txt', 'w') as f: f.write('\n'.join(NOTES) + '\n')
print('items', len(items), 'dev', len(dev), 'held', len(held))
for name, xs in (('dev', dev), ('held', held)):
    print(name, dict(sorted(collections.Counter(x['kind'] for x in xs).items())))
