#!/usr/bin/env python3
"""Builds a fresh harborline fixture, computes every item's expected answer with git, writes set_all.jsonl.
Nothing in `expect` is typed by hand: each item names git commands (how) whose output is parsed here.
python3 build_set.py OUT.jsonl"""
import collections, datetime as dt, json, os, re, subprocess, sys, tempfile

HERE = os.environ.get("PLAINDIR", "/work/plain6")   # where make_fixture.sh lives
NOW = dt.datetime(2026, 12, 2, 15, 0, 0, tzinfo=dt.timezone.utc)   # QUARRY_NOW, a Wednesday
UTC = dt.timezone.utc

tmp = tempfile.mkdtemp(prefix='hb-build-')
FX = os.path.join(tmp, 'harborline')
ENV = {'PATH': os.environ['PATH'], 'HOME': tmp, 'TZ': 'UTC', 'LANG': 'C.UTF-8'}
subprocess.run([os.path.join(HERE, 'make_fixture.sh'), FX], check=True, env=ENV)

def git(*a):
    return subprocess.run(['git', '-C', FX] + list(a), capture_output=True, text=True, check=True, env=ENV).stdout

HEAD = git('rev-parse', 'HEAD').strip()

# ---- all commits, mailmap applied (%aN/%aE) -------------------------------
C = []
raw = git('log', '--format=%x1e%H%x1f%P%x1f%aN%x1f%aE%x1f%an%x1f%ae%x1f%at%x1f%ai%x1f%ct%x1f%B', 'HEAD')
for rec in raw.split('\x1e')[1:]:
    f = rec.split('\x1f')
    c = dict(h=f[0], parents=f[1].split(), aN=f[2], aE=f[3], an=f[4], ae=f[5], at=int(f[6]), ai=f[7],
             ct=int(f[8]), msg=f[9].strip())
    c['merge'] = len(c['parents']) > 1
    c['utc'] = dt.datetime.fromtimestamp(c['at'], UTC)
    c['cutc'] = dt.datetime.fromtimestamp(c['ct'], UTC)
    c['local'] = dt.datetime.fromisoformat(c['ai'].replace(' +', '+').replace(' -', '-').replace(' ', 'T', 1))
    c['subject'] = c['msg'].split('\n')[0]
    C.append(c)

# people: key -> identities (names and emails); PERSON groups identities the .mailmap leaves apart
IDS = {}
for c in C: IDS.setdefault(c['aE'], set()).update([c['aN'], c['aE']])
for c in C: IDS[c['aE']].update([c['an'], c['ae']])
PERSON_OF = {'4417302+tortega@users.noreply.github.com': 'tomas.ortega@harborline.io',
             'yuki@yuki-mbp.local': 'yuki.sato@harborline.io'}
def person(email): return PERSON_OF.get(email, email)
def ids_of(email, joined=True):
    s = set(IDS[email])
    if joined:
        for k, v in PERSON_OF.items():
            if v == email: s |= IDS[k]
    return sorted(s)
BOT = '49699333+dependabot[bot]@users.noreply.github.com'
def email_by_name(n): return next(c['aE'] for c in C if c['aN'] == n)

def d(s): return dt.datetime.fromisoformat(s).replace(tzinfo=UTC)
def between(c, a, b, key='cutc'): return a <= c[key] < b
def month(y, m):
    a = dt.datetime(y, m, 1, tzinfo=UTC); b = dt.datetime(y + (m == 12), m % 12 + 1, 1, tzinfo=UTC); return a, b
def midnight(x): return x.replace(hour=0, minute=0, second=0, microsecond=0)

def revlist(*a): return git('rev-list', *a).split()
def count(*a): return int(git('rev-list', '--count', *a).strip())

ITEMS = []
def add(kind, text, expect, how):
    ITEMS.append({'id': 'h%03d' % (len(ITEMS) + 1), 'text': text, 'kind': kind, 'expect': expect, 'how': how})
def uniq(xs):
    out = []
    for x in xs:
        if x not in out: out.append(x)
    return out
def counts(*vals): return {'count': uniq(list(vals))}

def rank(cs, key=lambda c: c['aE']):
    k = collections.Counter(key(c) for c in cs)
    return k.most_common()
def assert_no_tie(r, n, what):
    """the first n places must be strictly ordered, and place n strictly ahead of n+1"""
    vals = [v for _, v in r]
    for i in range(min(n, len(vals) - 1)):
        if vals[i] == vals[i + 1]:
            raise SystemExit('tie in %s at %d: %r' % (what, i + 1, r[:n + 2]))

def Y(y): return dt.datetime(y, 1, 1, tzinfo=UTC), dt.datetime(y + 1, 1, 1, tzinfo=UTC)
nonmerge = [c for c in C if not c['merge']]

# ======================= count =============================================
add('count', 'How many commits are in this repo?', counts(count('HEAD')), 'git rev-list --count HEAD')
add('count', 'how many merge commits have there been', counts(count('--merges', 'HEAD')), 'git rev-list --count --merges HEAD')
a, b = month(2025, 3)
add('count', 'number of commits in March 2025', counts(sum(between(c, a, b) for c in C)),
    'git rev-list --count --since=2025-03-01T00:00:00Z --until=2025-03-31T23:59:59Z HEAD (UTC calendar month)')
kas = email_by_name('Katarzyna Nowak')
add('count', 'How many commits did Katarzyna Nowak make?', counts(sum(c['aE'] == kas for c in C)),
    "git log --use-mailmap --format=%aE HEAD | grep -c katarzyna.nowak@ (mailmap joins kasian@users.noreply)")
tort = '4417302+tortega@users.noreply.github.com'; tom = 'tomas.ortega@harborline.io'
add('count', 'count commits by tortega', counts(sum(c['aE'] == tort for c in C), sum(person(c['aE']) == tom for c in C)),
    'git log --format=%aE | grep -c tortega@users.noreply ;; reading 2: the person Tomás Ortega (both identities; .mailmap does not join them)')
jw = 'jweber@users.noreply.github.com'; jon = 'jonas.weber@harborline.io'
add('count', 'how many commits came from the jweber noreply address?',
    counts(sum(c['ae'] == jw for c in C)),
    'git log --no-mailmap --format=%ae HEAD | grep -c jweber@users.noreply (the address asked for, strictly: not the whole mailmapped person)')
add('count', 'jdoe commit count?', counts(sum(c['aE'] == 'jdoe@users.noreply.github.com' for c in C)),
    'git shortlog -sne HEAD | grep jdoe')
a, b = Y(2025)
add('count', 'how many commits touched services/ledger/ in 2025?',
    counts(count('--since=2025-01-01T00:00:00Z', '--until=2025-12-31T23:59:59Z', 'HEAD', '--', 'services/ledger/')),
    'git rev-list --count --since=2025-01-01T00:00:00Z --until=2025-12-31T23:59:59Z HEAD -- services/ledger/')
add('count', 'How many commits were made on weekends?',
    counts(sum(c['utc'].weekday() >= 5 for c in C), sum(c['local'].weekday() >= 5 for c in C)),
    "git log --format=%ad --date=format-local:%u (TZ=UTC) | grep -c '[67]' ;; reading 2: author's own time zone (--date=format:%u)")
def night(h): return h >= 22 or h < 6
add('count', 'commits made between 10pm and 6am?',
    counts(sum(night(c['utc'].hour) for c in C), sum(night(c['local'].hour) for c in C)),
    'git log --date=format-local:%H (TZ=UTC), hour >= 22 or < 6 ;; reading 2: the author-local hour (%ad with --date=format:%H)')
a, b = d('2024-07-01'), d('2024-10-01')
add('count', 'How many commits landed in Q3 2024?', counts(sum(between(c, a, b) for c in C)),
    'git rev-list --count --since=2024-07-01T00:00:00Z --until=2024-09-30T23:59:59Z HEAD')
a, b = month(2026, 11)
add('count', 'how many commits last month', counts(sum(between(c, a, b) for c in C),
                                                   sum(c['cutc'] >= NOW - dt.timedelta(days=30) for c in C),
                                                   sum(c['cutc'] >= midnight(NOW) - dt.timedelta(days=30) for c in C)),
    'November 2026: git rev-list --count --since=2026-11-01T00:00Z --until=2026-11-30T23:59:59Z HEAD ;; last 30 days from NOW ;; from midnight 30 days ago')
add('count', 'commits in the past two weeks', counts(sum(c['cutc'] >= NOW - dt.timedelta(days=14) for c in C),
                                                     sum(c['cutc'] >= midnight(NOW) - dt.timedelta(days=14) for c in C)),
    'git rev-list --count --since=2026-11-18T15:00:00Z HEAD ;; --since=2026-11-18T00:00:00Z')
ravi = 'ravi@harborline.io'
a, b = Y(2024)
add('count', 'How many non-merge commits did Shankar author in 2024?',
    counts(sum(c['aE'] == ravi and not c['merge'] and between(c, a, b) for c in C)),
    'git log --use-mailmap --no-merges --since=2024-01-01T00:00Z --until=2024-12-31T23:59:59Z --format=%aE | grep -c ravi@harborline.io (mailmap joins ravi.shankar@gmail.com)')
add('count', 'number of commits from dependabot', counts(sum(c['aE'] == BOT for c in C)), 'git shortlog -sne HEAD | grep dependabot')
add('count', 'How many commits reference an issue or PR number like #123?',
    counts(sum(bool(re.search(r'#\d+', c['msg'])) for c in C), sum(bool(re.search(r'#\d+', c['msg'])) for c in nonmerge)),
    "git log --format=%B -z | grep -zcE '#[0-9]+' ;; reading 2: without merge commits (--no-merges)")
a, b = Y(2025)
def distinct(cs):
    ems = {c['aE'] for c in cs}
    return [len(ems), len(ems - {BOT}), len({person(e) for e in ems} - {BOT}), len({person(e) for e in ems})]
add('count', 'how many different people committed in 2025?', counts(*distinct([c for c in C if between(c, a, b)])),
    'git shortlog -sne --since=2025-01-01 --until=2025-12-31T23:59:59Z HEAD | wc -l ;; without the bot ;; joining the identities the .mailmap leaves apart ;; both')
jon = 'jonas.weber@harborline.io'; anna = 'anna.weber@harborline.io'
add('count', 'How many commits have the two Webers made, combined?', counts(sum(c['aE'] in (jon, anna) for c in C)),
    'git shortlog -sne HEAD: Jonas Weber (mailmap joins jweber) + Anna Weber')
add('count', 'how many reverts', counts(sum(c['subject'].startswith('Revert') for c in C)), "git log --grep='^Revert' --format=%h | wc -l")
add('count', 'commits since v2.0.0?', counts(count('v2.0.0..HEAD')), 'git rev-list --count v2.0.0..HEAD')
add('count', 'How many commits are there between v1.3.0 and v1.4.0?', counts(count('v1.3.0..v1.4.0')), 'git rev-list --count v1.3.0..v1.4.0')
a, b = Y(2025)
add('count', 'How many commits were made on a Sunday in 2025?',
    counts(sum(between(c, a, b) and c['utc'].weekday() == 6 for c in C), sum(between(c, a, b) and c['local'].weekday() == 6 for c in C)),
    'git log --since=2025-01-01 --until=2025-12-31T23:59:59Z, weekday 7 of the UTC date ;; of the author-local date')
tags = git('tag', '--list').split()
vt = [t for t in tags if t.startswith('v')]
add('count', 'how many releases have we tagged so far?', counts(len(vt), len(tags)),
    "git tag --list 'v*' | wc -l ;; all tags incl. the libs/authz module tags")
add('count', 'Hey, quick one before standup - how many commits did Mei Lin Chen push in October 2026? Merges included is fine.',
    counts(sum(c['aE'] == 'meilin.chen@harborline.io' and between(c, *month(2026, 10)) for c in C)),
    'git log --since=2026-10-01T00:00Z --until=2026-10-31T23:59:59Z --format=%aE | grep -c meilin.chen')
add('count', 'git log --oneline --author=segun | wc -l', counts(sum(c['aE'] == 'segun@harborline.io' for c in C)),
    'git log --oneline --author=segun HEAD | wc -l')
add('count', 'how many comits has Yuki Sato done in total (both of her emails)?',
    counts(sum(person(c['aE']) == 'yuki.sato@harborline.io' for c in C), sum(c['aE'] == 'yuki.sato@harborline.io' for c in C)),
    'yuki.sato@harborline.io + yuki@yuki-mbp.local (not joined by .mailmap) ;; reading 2: the mailmapped identity only')
add('count', 'how many files exist under deploy/ at HEAD', counts(len(git('ls-tree', '-r', '--name-only', 'HEAD', 'deploy/').split())),
    'git ls-tree -r --name-only HEAD deploy/ | wc -l')
add('count', 'How many times has libs/retry/policy.go been changed?',
    counts(len(git('log', '--follow', '--format=%H', 'HEAD', '--', 'libs/retry/policy.go').split()), count('HEAD', '--', 'libs/retry/policy.go')),
    'git log --follow --format=%H -- libs/retry/policy.go | wc -l ;; without --follow')

# ======================= lines =============================================
def numstat(*a):
    ad = de = 0
    for l in git('log', '--numstat', '--no-renames', '--format=', *a).splitlines():
        p = l.split('\t')
        if len(p) == 3 and p[0] != '-': ad += int(p[0]); de += int(p[1])
    return ad, de
ad, _ = numstat('--since=2025-01-01T00:00:00Z', '--until=2025-12-31T23:59:59Z', 'HEAD', '--', 'services/gateway')
add('lines', 'how many lines were added under services/gateway in 2025', {'count': [ad]},
    'git log --numstat --no-renames --format= --since=2025-01-01T00:00Z --until=2025-12-31T23:59:59Z HEAD -- services/gateway, sum of column 1')
ad = sum(numstat('HEAD', '--author=anna.weber@')[:1])
add('lines', 'Total lines added by Anna Weber?', {'count': [ad]}, 'git log --numstat --no-renames --format= --author=anna.weber@ HEAD, sum of column 1')
_, de = numstat('HEAD', '--', 'docs/')
add('lines', 'lines deleted in docs/ over the whole history', {'count': [de], 'field': 'deletions'},
    'git log --numstat --no-renames --format= HEAD -- docs/, sum of column 2')
ds = git('diff', '--shortstat', 'v2.2.0', 'v2.3.0')
ad1 = int(re.search(r'(\d+) insertion', ds).group(1)); ad2 = numstat('v2.2.0..v2.3.0')[0]
add('lines', 'lines added between v2.2.0 and v2.3.0?', {'count': uniq([ad1, ad2])},
    'git diff --shortstat v2.2.0 v2.3.0 ;; summed: git log --numstat --no-renames v2.2.0..v2.3.0')

# ======================= people ============================================
def who(emails_or_readings, rank_=None):
    e = {'author': [ids_of(x) for x in emails_or_readings]}
    if rank_: e['rank'] = rank_
    return e
r = rank(C); assert_no_tie(r, 1, 'all')
add('people', 'WHO HAS THE MOST COMMITS', who([r[0][0]]), 'git shortlog -sne HEAD | head -1')
a, b = Y(2025)
r = rank([c for c in C if between(c, a, b)]); assert_no_tie(r, 3, '2025')
add('people', 'shortlog -sn for 2025, top 3', {'authors_ordered': [ids_of(e) for e, _ in r[:3]]},
    'git shortlog -sne --since=2025-01-01 --until=2025-12-31T23:59:59Z HEAD | head -3')
sl = revlist('HEAD', '--', 'services/ledger/settlement'); cs = [c for c in C if c['h'] in set(sl)]
r = rank(cs); assert_no_tie(r, 1, 'settlement')
add('people', 'Who has contributed the most to services/ledger/settlement?', who([r[0][0]]),
    'git shortlog -sne HEAD -- services/ledger/settlement | head -1')
q3 = [c for c in C if between(c, d('2026-07-01'), d('2026-10-01'))]
l3 = [c for c in C if c['cutc'] >= NOW - dt.timedelta(days=91)]
r1 = rank(q3); r2 = rank(l3); assert_no_tie(r1, 1, 'q3'); assert_no_tie(r2, 1, 'l3m')
add('people', 'who committed the most last quarter?', who(uniq([r1[0][0], r2[0][0]])),
    'Q3 2026: git shortlog -sne --since=2026-07-01 --until=2026-09-30T23:59:59Z HEAD | head -1 ;; last 3 months: --since=2026-09-02T15:00Z')
r = rank(nonmerge); assert_no_tie(r, 2, 'nonmerge')
add('people', 'Second most active committer if we ignore merge commits?', who([r[1][0]], 2),
    'git shortlog -sne --no-merges HEAD | sed -n 2p')
r = rank(C)
r_person = collections.Counter(person(c['aE']) for c in C).most_common()
add('people', 'who has the fewest commits?', {'author': uniq([[x for x in ids_of(r[-1][0], joined=False)], ids_of(r_person[-1][0])])},
    'git shortlog -sne HEAD | tail -1 (the unjoined identity yuki@yuki-mbp.local) ;; by person (joining unjoined identities): tail -1')
assert r[-1][1] < r[-2][1] and r_person[-1][1] < r_person[-2][1]
y26 = [c for c in C if between(c, *Y(2026))]
dep = set(revlist('--since=2026-01-01T00:00:00Z', 'HEAD', '--', 'deploy/'))
r = rank([c for c in C if c['h'] in dep]); assert_no_tie(r, 1, 'deploy26')
add('people', 'Who has been working on deploy/ the most this year?', who([r[0][0]]),
    'git shortlog -sne --since=2026-01-01T00:00Z HEAD -- deploy/ | head -1')
lib = set(revlist('HEAD', '--', 'libs/'))
r = rank([c for c in C if c['h'] in lib]); assert_no_tie(r, 2, 'libs')
add('people', 'rank the people committing to libs/ - give me the top two', {'authors_ordered': [ids_of(e) for e, _ in r[:2]]},
    'git shortlog -sne HEAD -- libs/ | head -2')
nj = sum(c['aE'] == jon for c in C); na = sum(c['aE'] == anna for c in C); assert nj != na
add('people', 'Between Anna and Jonas Weber, who has more commits?', who([jon if nj > na else anna]),
    'git shortlog -sne HEAD | grep Weber')
r1 = rank([c for c in C if c['utc'].weekday() >= 5]); r2 = rank([c for c in C if c['local'].weekday() >= 5])
assert_no_tie(r1, 1, 'we-utc'); assert_no_tie(r2, 1, 'we-local')
add('people', "who's the most active on weekends", who(uniq([r1[0][0], r2[0][0]])),
    'git log --format="%aE %ad" --date=format-local:%u (TZ=UTC), Sat/Sun, most commits ;; author-local weekday')
r = rank([c for c in C if c['merge']]); assert_no_tie(r, 1, 'merges')
add('people', 'Who merges the most pull requests?', who([r[0][0]]), 'git shortlog -sne --merges HEAD | head -1')
la = collections.Counter()
cur = None
for l in git('log', '--numstat', '--no-renames', '--format=@%aE', '--since=2024-01-01T00:00:00Z', '--until=2024-12-31T23:59:59Z', 'HEAD').splitlines():
    if l.startswith('@'): cur = l[1:]
    else:
        p = l.split('\t')
        if len(p) == 3 and p[0] != '-': la[cur] += int(p[0])
r = la.most_common(); assert_no_tie(r, 1, 'lines24')
add('people', 'which person added the most lines of code in 2024?', who([r[0][0]]),
    'git log --numstat --no-renames --format=@%aE --since=2024-01-01 --until=2024-12-31T23:59:59Z HEAD, additions per author')
gw = set(revlist('HEAD', '--', 'services/gateway/handlers/payments.go'))
cs = [c for c in C if c['h'] in gw]; first_pay = cs[-1]
r = rank(cs); assert_no_tie(r, 1, 'pay')
add('people', 'who knows services/gateway/handlers/payments.go best? (by number of commits)', who([r[0][0]]),
    'git shortlog -sne HEAD -- services/gateway/handlers/payments.go | head -1')
a, b = d('2024-12-25'), d('2024-12-26')
xs = [c for c in C if between(c, a, b, 'utc')]; xl = [c for c in C if c['local'].date() == dt.date(2024, 12, 25)]
if xs or xl:
    add('people', 'Who committed on Christmas Day 2024?',
        {'authors_set': [ids_of(e) for e in sorted({c['aE'] for c in xs})],
         'authors_set_any': [[ids_of(e) for e in sorted({c['aE'] for c in x})] for x in (xs, xl) if x]},
        'git log --since=2024-12-25T00:00Z --until=2024-12-25T23:59:59Z --format=%aE ;; author-local date 2024-12-25')

# ======================= files =============================================
def filerank(*a):
    k = collections.Counter(l for l in git('log', '--name-only', '--no-renames', '--format=', *a).splitlines() if l.strip())
    return k.most_common()
r = filerank('HEAD'); assert_no_tie(r, 2, 'files')
add('files', 'most frequently changed files (top 2)', {'paths_ordered': [p for p, _ in r[:2]]},
    'git log --name-only --no-renames --format= HEAD | sort | uniq -c | sort -rn | head -2')
r = filerank('--since=2024-01-01T00:00:00Z', '--until=2024-12-31T23:59:59Z', 'HEAD'); assert_no_tie(r, 1, 'files24')
add('files', 'What file was changed most often in 2024?', {'paths_ordered': [r[0][0]]},
    'git log --name-only --no-renames --format= --since=2024-01-01 --until=2024-12-31T23:59:59Z HEAD | sort | uniq -c | sort -rn | head -1')
r = filerank('HEAD', '--', 'services/gateway'); assert_no_tie(r, 1, 'gwfiles')
add('files', 'hottest file in services/gateway?', {'paths_ordered': [r[0][0]]},
    'git log --name-only --no-renames --format= HEAD -- services/gateway | sort | uniq -c | sort -rn | head -1')
svc = collections.Counter()
for s in ['gateway', 'ledger', 'notifier', 'scheduler', 'reporter']:
    svc['services/' + s] = count('HEAD', '--', 'services/' + s)
r = svc.most_common(); assert_no_tie(r, 1, 'svc')
add('files', 'Which service under services/ has had the most commits?', {'dir_top': [r[0][0]]},
    'for s in services/*: git rev-list --count HEAD -- services/$s (incl. the deleted services/reporter)')
r = filerank('HEAD', '--author=yuki.sato@'); assert_no_tie(r, 1, 'yukifiles')
add('files', 'Which file has Yuki Sato touched the most?', {'paths_ordered': [r[0][0]]},
    'git log --name-only --no-renames --format= --author=yuki.sato@ HEAD | sort | uniq -c | sort -rn | head -1')
s1 = sorted(set(git('diff', '--name-only', 'v2.2.0', 'v2.3.0').split()))
s2 = sorted({l for l in git('log', '--name-only', '--no-renames', '--format=', 'v2.2.0..v2.3.0').splitlines() if l})
add('files', 'You are helping me write release notes. Give me the list of files that changed between v2.2.0 and v2.3.0.', {'paths_set_any': uniq([s1, s2])},
    'git diff --name-only v2.2.0 v2.3.0 ;; git log --name-only --no-renames --format= v2.2.0..v2.3.0 | sort -u')
dl = sorted({l for l in git('log', '--diff-filter=D', '--no-renames', '--name-only', '--format=', '--since=2025-01-01T00:00:00Z',
                             '--until=2025-12-31T23:59:59Z', 'HEAD').splitlines() if l})
dl2 = sorted({l for l in git('log', '--diff-filter=D', '-M', '--name-only', '--format=', '--since=2025-01-01T00:00:00Z',
                             '--until=2025-12-31T23:59:59Z', 'HEAD').splitlines() if l})
add('files', 'What files were deleted in 2025?', {'paths_set_any': uniq([dl, dl2])},
    'git log --diff-filter=D --no-renames --name-only --format= --since=2025-01-01 --until=2025-12-31T23:59:59Z HEAD ;; with rename detection (-M: the moved runbook is not a deletion)')
r = filerank('HEAD', '--', 'libs/'); assert_no_tie(r, 2, 'libfiles')
add('files', 'Top 2 most-edited files in libs/, please', {'paths_ordered': [p for p, _ in r[:2]]},
    'git log --name-only --no-renames --format= HEAD -- libs/ | sort | uniq -c | sort -rn | head -2')
a, b = Y(2026)
r = filerank('--since=2026-01-01T00:00:00Z', '--author=kasia', 'HEAD')
r = filerank('--since=2026-01-01T00:00:00Z', '--author=katarzyna.nowak@', '--author=kasian@', 'HEAD'); assert_no_tie(r, 1, 'kasfiles')
add('files', 'what files did Kasia work on most this year', {'paths_ordered': [r[0][0]]},
    'git log --use-mailmap --name-only --no-renames --format= --since=2026-01-01 --author=katarzyna.nowak@ --author=kasian@ HEAD | sort | uniq -c | sort -rn | head -1 (Kasia = Katarzyna)')
tl = {}
for tdir in ['services', 'libs', 'deploy', 'docs', 'tools']:
    tl[tdir] = count('--since=2026-06-02T15:00:00Z', 'HEAD', '--', tdir + '/')
r = collections.Counter(tl).most_common(); assert_no_tie(r, 1, 'top')
add('files', 'Among services/, libs/, deploy/, docs/ and tools/, which top-level directory got the most commits in the last six months?',
    {'dir_top': [r[0][0]]}, 'git rev-list --count --since=2026-06-02T15:00Z HEAD -- DIR/ for each DIR')

# ======================= history ===========================================
def hashes(*a): return git('log', '--format=%H', *a).split()
f1 = hashes('--follow', 'HEAD', '--', 'libs/retry/policy.go'); f2 = hashes('HEAD', '--', 'libs/retry/policy.go')
add('history', 'Show me the history of libs/retry/policy.go', {'hashes_set': uniq([f1, f2])},
    'git log --follow --format=%H -- libs/retry/policy.go ;; without --follow')
def created(path):
    h = git('log', '--diff-filter=A', '--no-renames', '--format=%H', 'HEAD', '--', path).split()[-1]
    return next(c for c in C if c['h'] == h)
c = created('services/ledger/settlement/reconcile.go')
add('history', 'who creatd services/ledger/settlement/reconcile.go?', who([c['aE']]),
    'git log --diff-filter=A --format=%aE HEAD -- services/ledger/settlement/reconcile.go | tail -1')
def last(path, *extra):
    h = git('log', '-1', '--format=%H', *extra, 'HEAD', '--', path).strip(); return next(c for c in C if c['h'] == h)
c = last('deploy/helm/values/production.yaml')
add('history', 'who last touched deploy/helm/values/production.yaml', who([c['aE']]),
    'git log -1 --format=%aE HEAD -- deploy/helm/values/production.yaml')
c = last('docs/operations/runbook.md')
add('history', 'When was docs/operations/runbook.md last modified?', {'date': uniq([c['utc'].strftime('%Y-%m-%d'), c['local'].strftime('%Y-%m-%d')])},
    'git log -1 --format=%ad --date=short HEAD -- docs/operations/runbook.md (UTC ;; author-local)')
c = created('services/gateway/handlers/webhooks.go')
add('history', 'when was services/gateway/handlers/webhooks.go added', {'date': uniq([c['utc'].strftime('%Y-%m-%d'), c['local'].strftime('%Y-%m-%d')])},
    'git log --diff-filter=A --format=%ad --date=short HEAD -- services/gateway/handlers/webhooks.go (UTC ;; author-local)')
h = git('log', '--diff-filter=D', '--format=%H', 'HEAD', '--', 'services/reporter').split()
assert len(h) == 1
c = next(x for x in C if x['h'] == h[0])
add('history', 'Who deleted the reporter service?', who([c['aE']]), 'git log --diff-filter=D --format=%aE HEAD -- services/reporter')
c = last('libs/authz')
add('history', 'What was the last commit to touch libs/authz?', {'hash': c['h']}, 'git log -1 --format=%H HEAD -- libs/authz')
es = {c['aE'] for c in C if c['h'] in set(revlist('HEAD', '--', 'services/notifier/email.go'))}
add('history', 'how many people have worked on services/notifier/email.go', counts(len(es), len({person(e) for e in es})),
    'git shortlog -sne HEAD -- services/notifier/email.go | wc -l ;; joining unjoined identities')
h = git('log', '--reverse', '--format=%H', 'HEAD', '--', 'deploy/terraform/modules/postgres/main.tf').split()[0]
add('history', 'first commit that touched deploy/terraform/modules/postgres/main.tf', {'hash': h},
    'git log --reverse --format=%H HEAD -- deploy/terraform/modules/postgres/main.tf | head -1')
add('history', 'list the commits that changed CONTRIBUTING.md', {'hashes_set': [hashes('HEAD', '--', 'CONTRIBUTING.md')]},
    'git log --format=%H HEAD -- CONTRIBUTING.md')
h = git('log', '--follow', '--diff-filter=R', '--format=%H', 'HEAD', '--', 'libs/retry/policy.go').split()[0]
c = next(x for x in C if x['h'] == h)
add('history', 'who renamed libs/retry/backoff.go?', who([c['aE']]), 'git log --follow --diff-filter=R --format=%aE HEAD -- libs/retry/policy.go')
st = git('log', '--follow', '--diff-filter=R', '--name-status', '--format=', 'HEAD', '--', 'tools/proto/gen.sh')
new = re.search(r'R\d+\ttools/genproto.sh\t(\S+)', st).group(1)
add('history', "tools/genproto.sh doesn't exist anymore - what's it called now?", {'string': [new]},
    "git log --diff-filter=R --name-status HEAD | grep genproto.sh")
a, b = Y(2026)
hs = hashes('--since=2026-01-01T00:00:00Z', 'HEAD', '--', 'services/ledger/store/postgres.go')
add('history', 'commits to services/ledger/store/postgres.go this year', {'hashes_set': [hs]},
    'git log --since=2026-01-01T00:00Z --format=%H HEAD -- services/ledger/store/postgres.go')
c = created('libs/authz/rbac.go')
add('history', 'git blame-ish question: which commit introduced libs/authz/rbac.go?', {'hash': c['h']},
    'git log --diff-filter=A --format=%H HEAD -- libs/authz/rbac.go')
c = last('services/scheduler/lock.go')
add('history', 'I\'m an agent preparing a change to services/scheduler/lock.go. Before I edit it, tell me who changed it most recently so I can tag them on the review.',
    who([c['aE']]), 'git log -1 --format=%aE HEAD -- services/scheduler/lock.go')

# ======================= firstlast =========================================
first = C[-1]; lastc = C[0]
add('firstlast', 'When was the first commit?', {'date': uniq([first['utc'].strftime('%Y-%m-%d'), first['local'].strftime('%Y-%m-%d')])},
    'git log --reverse --format=%ad --date=short | head -1')
add('firstlast', 'who made the very first commit in this repo', who([first['aE']]), 'git log --reverse --format=%aE | head -1')
add('firstlast', 'latest commit hash?', {'hash': lastc['h']}, 'git rev-parse HEAD')
hen = 'henrik.lund@harborline.io'
c = next(x for x in C if x['aE'] == hen)
add('firstlast', 'When did henrik.lund@harborline.io last commit?', {'date': uniq([c['utc'].strftime('%Y-%m-%d'), c['local'].strftime('%Y-%m-%d')])},
    'git log -1 --author=henrik.lund@ --format=%ad --date=short HEAD (UTC ;; author-local)')
c = [x for x in C if x['aE'] == 'p.moreno@harborline.io'][-1]
add('firstlast', "Priscilla Moreno's first commit", {'hash': c['h']}, 'git log --reverse --author=p.moreno@ --format=%H HEAD | head -1')
c = [x for x in C if x['aE'] == 'dbrandt@harborline.io'][-1]
add('firstlast', 'when did daniel brandt start contributing?', {'date': uniq([c['utc'].strftime('%Y-%m-%d'), c['local'].strftime('%Y-%m-%d')])},
    'git log --reverse --author=dbrandt@ --format=%ad --date=short HEAD | head -1')
c = next(x for x in C if x['aE'] == 'sofia.rossi@harborline.io')
add('firstlast', "what was Sofia's most recent commit?", {'hash': c['h']}, 'git log -1 --author=sofia.rossi@ --format=%H HEAD')
c = next(x for x in C if x['merge'])
add('firstlast', 'last merge into main', {'hash': c['h']}, 'git log -1 --merges --format=%H HEAD')
c = next(x for x in C if x['aE'] == BOT)
add('firstlast', 'when did dependabot last bump something?', {'date': [c['utc'].strftime('%Y-%m-%d')]},
    'git log -1 --author=dependabot --format=%ad --date=short HEAD')
c = [x for x in C if x['aE'] == 'liam.oconnor@harborline.io'][-1]
add('firstlast', "first commit by liam o'connor?", {'hash': c['h']}, 'git log --reverse --author=liam.oconnor@ --format=%H HEAD | head -1')

# ======================= release ===========================================
def tagdate(t): return git('for-each-ref', '--format=%(taggerdate:iso-strict)', 'refs/tags/' + t).strip()
def tagcommit(t): return git('rev-list', '-n1', t).strip()
latest = git('for-each-ref', '--sort=-taggerdate', '--format=%(refname:short)', 'refs/tags').split()[0]
vlatest = git('tag', '--list', 'v*', '--sort=-v:refname').split()[0]
assert latest == vlatest
add('release', "what's the latest release?", {'string': [latest]}, "git for-each-ref --sort=-taggerdate refs/tags | head -1 ;; git tag --sort=-v:refname 'v*' | head -1")
td = tagdate('v1.0.0'); cd = next(c for c in C if c['h'] == tagcommit('v1.0.0'))
add('release', 'when was v1.0.0 tagged', {'date': uniq([td[:10], cd['utc'].strftime('%Y-%m-%d'), cd['local'].strftime('%Y-%m-%d')])},
    "git for-each-ref --format='%(taggerdate:short)' refs/tags/v1.0.0 ;; the tagged commit's date")
add('release', 'How many commits went into v2.0.0?', counts(count('v1.5.0..v2.0.0'), count('v2.0.0')),
    'git rev-list --count v1.5.0..v2.0.0 (previous release) ;; git rev-list --count v2.0.0 (everything reachable)')
rs = sorted({c['aE'] for c in C if c['h'] in set(revlist('v2.0.1..v2.1.0'))})
add('release', 'who contributed to the v2.1.0 release?', {'authors_set': [ids_of(e, joined=False) for e in rs]},
    'git shortlog -sne v2.0.1..v2.1.0 (mailmapped identities)')
vs = git('tag', '--list', 'v*', '--sort=v:refname').split()
add('release', 'which release came right before v2.0.0?', {'string': [vs[vs.index('v2.0.0') - 1]]}, "git tag --list 'v*' --sort=v:refname")
add('release', 'how many commits touched libs/ between v2.2.0 and v2.3.0', counts(count('v2.2.0..v2.3.0', '--', 'libs/')),
    'git rev-list --count v2.2.0..v2.3.0 -- libs/')
t25 = [t for t in tags if tagdate(t).startswith('2025')]
add('release', 'How many releases were cut in 2025?', counts(len([t for t in t25 if t.startswith('v')]), len(t25)),
    "git for-each-ref --format='%(taggerdate:short) %(refname:short)' refs/tags | grep ^2025 ;; v* only ;; all incl. libs/authz module tag")
add('release', 'commits between v1.5.0 and v2.0.0 excluding merges', counts(count('--no-merges', 'v1.5.0..v2.0.0')),
    'git rev-list --count --no-merges v1.5.0..v2.0.0')
rr = rank([c for c in C if c['h'] in set(revlist('v2.2.0..v2.3.0'))]); assert_no_tie(rr, 1, 'rel23')
add('release', 'who did the most work for v2.3.0 (commits since the previous tag)?', who([rr[0][0]]),
    'git shortlog -sne v2.2.0..v2.3.0 | head -1')
add('release', 'Is the commit that deleted legacy_cron.go part of v1.5.0?',
    {'bool': subprocess.run(['git', '-C', FX, 'merge-base', '--is-ancestor',
                             git('log', '--diff-filter=D', '--format=%H', 'HEAD', '--', 'services/scheduler/legacy_cron.go').strip(), 'v1.5.0'],
                            env=ENV).returncode == 0},
    'git merge-base --is-ancestor $(git log --diff-filter=D --format=%H -- services/scheduler/legacy_cron.go) v1.5.0')
add('release', 'list the release tags we have, in order', {'string': [vs[0]]}, "git tag --list 'v*' --sort=v:refname (the first release must appear)")

# ======================= period ============================================
a, b = Y(2025)
mc = collections.Counter(c['cutc'].strftime('%Y-%m') for c in C if between(c, a, b)).most_common(); assert_no_tie(mc, 1, 'month25')
m = dt.datetime.strptime(mc[0][0], '%Y-%m')
add('period', 'Which month of 2025 had the most commits?', {'string': [mc[0][0], m.strftime('%B %Y'), m.strftime('%B'), m.strftime('%b %Y')]},
    "git log --since=2025-01-01 --until=2025-12-31T23:59:59Z --date=format-local:%Y-%m --format=%ad | sort | uniq -c | sort -rn | head -1")
w1 = collections.Counter(c['utc'].strftime('%A') for c in C).most_common(); w2 = collections.Counter(c['local'].strftime('%A') for c in C).most_common()
assert_no_tie(w1, 1, 'wd'); assert_no_tie(w2, 1, 'wdl')
add('period', 'what day of the week do we commit most?', {'string': uniq([w1[0][0], w2[0][0], w1[0][0][:3], w2[0][0][:3]])},
    'git log --date=format-local:%A (TZ=UTC) --format=%ad | sort | uniq -c | sort -rn | head -1 ;; author-local weekday')
a = NOW - dt.timedelta(days=7); a2 = midnight(NOW) - dt.timedelta(days=7); mon = midnight(NOW) - dt.timedelta(days=NOW.weekday() + 7)
lw = [sum(c['cutc'] >= a for c in C), sum(c['cutc'] >= a2 for c in C), sum(mon <= c['cutc'] < mon + dt.timedelta(days=7) for c in C)]
add('period', 'what got committed last week? just the count', counts(*lw),
    'git rev-list --count --since=2026-11-25T15:00Z HEAD ;; --since=2026-11-25T00:00Z ;; previous Mon-Sun week 2026-11-23..29')
a, b = d('2025-04-01'), d('2025-07-01')
add('period', 'number of commits to services/notifier in Q2 2025', counts(count('--since=2025-04-01T00:00:00Z', '--until=2025-06-30T23:59:59Z', 'HEAD', '--', 'services/notifier')),
    'git rev-list --count --since=2025-04-01T00:00Z --until=2025-06-30T23:59:59Z HEAD -- services/notifier')
a, b = d('2024-06-01'), d('2024-09-01')
add('period', 'how many commits were made over the summer of 2024 (June through August)?', counts(sum(between(c, a, b) for c in C)),
    'git rev-list --count --since=2024-06-01T00:00Z --until=2024-08-31T23:59:59Z HEAD')
add('period', 'Commits in the last 90 days, excluding dependabot', counts(sum(c['cutc'] >= NOW - dt.timedelta(days=90) and c['aE'] != BOT for c in C),
                                                                           sum(c['cutc'] >= midnight(NOW) - dt.timedelta(days=90) and c['aE'] != BOT for c in C)),
    'git log --since=2026-09-03T15:00Z --format=%aE HEAD | grep -vc dependabot ;; from midnight')
a, b = d('2026-01-01'), NOW
r = rank([c for c in C if between(c, a, b) and c['aE'] != BOT])
add('period', 'ytd commit count for tomás ortega', counts(sum(c['aE'] == tom and c['cutc'] >= a for c in C), sum(person(c['aE']) == tom and c['cutc'] >= a for c in C)),
    'git log --since=2026-01-01 --format=%aE HEAD | grep -c tomas.ortega@ ;; with his unjoined tortega noreply identity')
h9 = [sum(c['utc'].hour < 9 for c in C if c['aE'] == 'meilin.chen@harborline.io'), sum(c['local'].hour < 9 for c in C if c['aE'] == 'meilin.chen@harborline.io')]
add('period', 'how many of Mei Lin\'s commits were before 9am?', counts(*h9),
    'git log --author=meilin.chen@ --date=format-local:%H (TZ=UTC) ;; author-local %H, hour < 9')

# ======================= bool ==============================================
add('bool', 'Has Henrik Lund committed anything since July 2025?', {'bool': any(c['aE'] == hen and c['cutc'] >= d('2025-07-01') for c in C)},
    'git log --since=2025-07-01 --author=henrik.lund@ HEAD | wc -l > 0')
dh = git('log', '--diff-filter=D', '--format=%ct', 'HEAD', '--', 'services/reporter').split()[0]
add('bool', 'did anyone touch services/reporter after it got deleted?',
    {'bool': len(git('log', '--since=@%d' % (int(dh) + 1), '--format=%H', 'HEAD', '--', 'services/reporter').split()) > 0},
    'git log --since=<deletion time + 1s> HEAD -- services/reporter | wc -l > 0')
add('bool', 'is there a commit that mentions #502?', {'bool': any('#502' in c['msg'] for c in C)}, "git log --grep='#502' HEAD")
add('bool', 'has jdoe ever changed anything in services/gateway?',
    {'bool': len(git('log', '--author=jdoe', '--format=%H', 'HEAD', '--', 'services/gateway').split()) > 0},
    'git log --author=jdoe HEAD -- services/gateway | wc -l > 0')
add('bool', 'were there any commits on 2025-12-25?', {'bool': any(between(c, d('2025-12-25'), d('2025-12-26')) for c in C)},
    'git log --since=2025-12-25T00:00Z --until=2025-12-25T23:59:59Z HEAD')
add('bool', 'Has libs/authz/rbac.go been modified since v2.0.0?', {'bool': count('v2.0.0..HEAD', '--', 'libs/authz/rbac.go') > 0},
    'git rev-list --count v2.0.0..HEAD -- libs/authz/rbac.go > 0')
add('bool', 'did Priscilla ever commit before 2026?', {'bool': any(c['aE'] == 'p.moreno@harborline.io' and c['cutc'] < d('2026-01-01') for c in C)},
    'git log --until=2025-12-31T23:59:59Z --author=p.moreno@ HEAD')

# ======================= decline ===========================================
for t in ['Who is the best engineer on the team?',
          'how many hours did Jonas spend on the gateway last month',
          'Which pull requests are still open?',
          'how many commits did Daniel make?',
          'What has Weber been working on lately? Top files please.',
          'who reviewed the settlement batching PR',
          "what's the test coverage of libs/retry",
          'Will we be able to ship v2.4.0 before Christmas?',
          'Which service has the worst code quality?',
          'should we delete the scheduler service? yes or no',
          'How many customers are using the notifier service?',
          "Find Daniel's most recent commit and summarize it",
          'which engineer is underperforming this quarter',
          'Who caused the most production incidents in 2025?']:
    add('decline', t, {'decline': True}, 'must decline: judgment, facts git lacks, or ambiguous person (two Daniels, two Webers)')

# trimmed to about 90 after writing (near-duplicates of other items, or facts better asked elsewhere)
DROP = {'How many commits landed in Q3 2024?', 'commits in the past two weeks', 'number of commits from dependabot',
        'commits since v2.0.0?', 'How many commits were made on a Sunday in 2025?', 'how many files exist under deploy/ at HEAD',
        'How many commits reference an issue or PR number like #123?', 'how many merge commits have there been', 'how many reverts',
        'how many releases have we tagged so far?',
        'list the commits that changed CONTRIBUTING.md', 'first commit that touched deploy/terraform/modules/postgres/main.tf',
        'how many people have worked on services/notifier/email.go', 'commits to services/ledger/store/postgres.go this year',
        'which person added the most lines of code in 2024?', 'who knows services/gateway/handlers/payments.go best? (by number of commits)',
        'rank the people committing to libs/ - give me the top two',
        'list the release tags we have, in order', 'commits between v1.5.0 and v2.0.0 excluding merges',
        'how many commits touched libs/ between v2.2.0 and v2.3.0', 'Top 2 most-edited files in libs/, please',
        'What file was changed most often in 2024?', 'when did dependabot last bump something?', "first commit by liam o'connor?",
        'how many commits were made over the summer of 2024 (June through August)?', 'has jdoe ever changed anything in services/gateway?'}
texts = {it['text'] for it in ITEMS}
assert DROP <= texts, DROP - texts
ITEMS = [it for it in ITEMS if it['text'] not in DROP]
for i, it in enumerate(ITEMS): it['id'] = 'h%03d' % (i + 1)
with open(sys.argv[1], 'w') as f:
    for it in ITEMS:
        it['how'] = it['how']
        f.write(json.dumps(it, ensure_ascii=False) + '\n')
print('HEAD', HEAD, 'items', len(ITEMS), collections.Counter(i['kind'] for i in ITEMS), file=sys.stderr)
