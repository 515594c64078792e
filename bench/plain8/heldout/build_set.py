#!/usr/bin/env python3
"""Builds the redis fixture (make_fixture.sh), computes every expected answer with git, writes router.jsonl.
No expected value is typed by hand. Readings are listed in each item's `how` (separated by ' ;; ')."""
import collections, datetime as dt, json, os, subprocess, sys, tempfile
PLAIN = '/work/plain8'
OUT = '/root/heldout8'
NOW = dt.datetime(2024, 10, 22, 12, 0, 0, tzinfo=dt.timezone.utc)
tmp = tempfile.mkdtemp(prefix='h8-'); FX = os.path.join(tmp, 'redis')
subprocess.run([os.path.join(PLAIN, 'make_fixture.sh'), FX], check=True)
ENV = {'PATH': os.environ['PATH'], 'HOME': tmp, 'TZ': 'UTC', 'LANG': 'C.UTF-8'}
def git(*a):
    return subprocess.run(['git', '-C', FX, '-c', 'core.quotepath=off'] + list(a), capture_output=True, text=True, env=ENV, check=True).stdout
def P(s): return dt.datetime.fromisoformat(s)
U = dt.timezone.utc
C = []  # all commits reachable from HEAD
for l in git('log', '--format=%H%x1f%an%x1f%ae%x1f%aI%x1f%cI%x1f%P', 'HEAD').splitlines():
    h, an, ae, ai, ci, par = l.split('\x1f')
    C.append(dict(h=h, an=an, ae=ae.lower(), ad=P(ai), cd=P(ci), merge=len(par.split()) > 1))
BYH = {c['h']: c for c in C}
def path_commits(*paths, extra=()):
    return [BYH[h] for h in git('log', '--format=%H', *extra, 'HEAD', '--', *paths).split()]
# people (no .mailmap in redis: identities are grouped here by name/email; readings below)
PEOPLE = {
 'salvatore': ({'Salvatore Sanfilippo', 'antirez'}, {'antirez@gmail.com', 'antirez@metal.(none)'}),
 'oran': ({'Oran Agra', 'oranagra'}, {'oran@redislabs.com', 'oran@monfort.co.il'}),
 'binbin': ({'Binbin'}, {'binloveplay1314@qq.com'}),
 'sundb': ({'sundb'}, {'sundbcn@gmail.com'}),
 'madelyn': ({'Madelyn Olson'}, {'34459052+madolson@users.noreply.github.com', 'matolson@amazon.com', 'madelyneolson@gmail.com'}),
 'yossi': ({'Yossi Gottlieb'}, {'yossigo@gmail.com', 'yossigo@users.noreply.github.com'}),
 'itamar': ({'Itamar Haber', 'itamar'}, {'itamar@redislabs.com', 'itamar@redis.com', 'itamar@garantiadata.com'}),
 'pieter_n': ({'Pieter Noordhuis'}, {'pcnoordhuis@gmail.com'}),
 'viktor': ({'Viktor Söderqvist'}, {'viktor.soderqvist@est.tech', 'viktor@zuiderkwast.se'}),
 'debing': ({'debing.sun'}, {'debing.sun@redis.com'}),
 'guybe7': ({'guybe7', 'Guy Benoish'}, {'guy.benoish@redislabs.com'}),
 'moti': ({'Moti Cohen'}, {'moticless@gmail.com'}),
 'filipe': ({'filipe oliveira', 'Filipe Oliveira (Redis)'}, set()),
}
def ids(p):
    n, e = PEOPLE[p]; return sorted(n | e)
def person_readings(cs, p, canon=None):
    """count readings for a person: exact canonical name; any of their names; any of their emails; name-or-email."""
    n, e = PEOPLE[p]
    r = set()
    if canon: r.add(sum(c['an'] == canon for c in cs))
    r.add(sum(c['an'] in n for c in cs)); 
    if e: r.add(sum(c['ae'] in e for c in cs)); r.add(sum(c['an'] in n or c['ae'] in e for c in cs))
    return sorted(r)
def who(c, how):
    if how == 'name': return c['an']
    if how == 'email': return c['ae']
    for p, (n, e) in PEOPLE.items():
        if c['an'] in n or c['ae'] in e: return 'P:' + p
    return c['an']
def rank(cs, how):
    return collections.Counter(who(c, how) for c in cs).most_common()
def idents_of(key, cs, how):
    if key.startswith('P:'): return ids(key[2:])
    s = set()
    for c in cs:
        if who(c, how) == key: s.add(c['an']); s.add(c['ae'])
    return sorted(s)
def top_people(cs, n, notes, label):
    """expect authors_ordered for the top n, under 3 identity readings; checks ties at positions 1..n(+1)."""
    alts = []
    for how in ('name', 'email', 'person'):
        r = rank(cs, how)
        for i in range(n):
            if i + 1 < len(r) and r[i][1] == r[i + 1][1]:
                notes.append('TIE %s %s at %d: %s' % (label, how, i + 1, r[i:i + 2]))
        e = [idents_of(k, cs, how) for k, _ in r[:n]]
        if e not in alts: alts.append(e)
        notes.append('%s %s: %s' % (label, how, r[:n + 1]))
    return alts
def in_period(c, lo, hi, field='ad', local=False):
    d = c[field] if local else c[field].astimezone(U)
    d = d.replace(tzinfo=None); return lo <= d < hi
def period_counts(cs, lo, hi):
    return sorted({sum(in_period(c, lo, hi, 'ad') for c in cs), sum(in_period(c, lo, hi, 'ad', True) for c in cs),
                   sum(in_period(c, lo, hi, 'cd') for c in cs)})
def period_cs(cs, lo, hi, how='ad'):
    return [c for c in cs if in_period(c, lo, hi, how)]
D = dt.datetime
def since_git(since, *paths):
    return int(git('rev-list', '--count', '--since=' + since, 'HEAD', '--', *paths).strip() or 0) if paths else int(git('rev-list', '--count', '--since=' + since, 'HEAD').strip())
def file_rank(lo, hi, notes, label, n, prefix=''):
    cnt = collections.Counter()
    out = git('log', '--no-renames', '--format=@%H', '--name-only', 'HEAD')
    cur = None
    for l in out.splitlines():
        if l.startswith('@'): cur = BYH[l[1:]]; continue
        if l and cur and in_period(cur, lo, hi) and l.startswith(prefix): cnt[l] += 1
    r = cnt.most_common(n + 1); notes.append('%s: %s' % (label, r))
    for i in range(n):
        if r[i][1] == r[i + 1][1]: notes.append('TIE %s at %d' % (label, i + 1))
    return [p for p, _ in r[:n]]
def lines_added(extra, filt=None):
    tot = 0; cur = None
    for l in git('log', '--no-merges', '--numstat', '--format=@%H', *extra).splitlines():
        if l.startswith('@'): cur = BYH[l[1:]]; continue
        f = l.split('\t')
        if len(f) == 3 and f[0] != '-' and (filt is None or filt(cur)): tot += int(f[0])
    return tot

notes = []; items = []
def add(kind, text, expect, how):
    items.append({'id': 'h8-%02d' % (len(items) + 1), 'text': text, 'kind': kind, 'expect': expect, 'how': how})
def decline(text, why): add('decline', text, {'decline': True}, 'must decline: ' + why)
NM = [c for c in C if not c['merge']]
def Y(y): return D(y, 1, 1), D(y + 1, 1, 1)
# ---------------- counts
add('count', 'how many commits are there in total?', {'count': [int(git('rev-list', '--count', 'HEAD'))]}, 'git rev-list --count HEAD')
add('count', 'commits in 2018', {'count': period_counts(C, *Y(2018))}, 'commits reachable from HEAD with date in 2018: author date UTC ;; author date local ;; committer date UTC')
add('count', 'How many commits has Oran Agra made?', {'count': person_readings(C, 'oran', 'Oran Agra')}, 'author name == "Oran Agra" ;; name in {Oran Agra, oranagra} ;; email in his emails ;; name or email')
add('count', 'count commits by sundb', {'count': person_readings(C, 'sundb', 'sundb')}, 'author name sundb ;; email sundbcn@gmail.com')
add('count', 'number of commits authored by yossigo@gmail.com', {'count': sorted({sum(c['ae'] == 'yossigo@gmail.com' for c in C)} | set(person_readings(C, 'yossi')))}, 'author email == yossigo@gmail.com ;; any Yossi Gottlieb identity')
add('count', "how many commits has madolson got in here", {'count': sorted({sum(c['ae'] == '34459052+madolson@users.noreply.github.com' for c in C)} | set(person_readings(C, 'madelyn')))}, 'email 34459052+madolson@users.noreply.github.com ;; any Madelyn Olson identity')
add('count', 'For a churn report I need the number of commits that modified src/server.c over the whole history of the project. Return just the count.', {'count': sorted({len(path_commits('src/server.c')), len(path_commits('src/server.c', extra=('--follow',)))})}, 'git rev-list --count HEAD -- src/server.c ;; git log --follow (includes src/redis.c before the 2015 rename)')
add('count', 'how many non-merge commits r there', {'count': [int(git('rev-list', '--count', '--no-merges', 'HEAD'))]}, 'git rev-list --count --no-merges HEAD')
add('count', 'Merge commits: how many?', {'count': [int(git('rev-list', '--count', '--merges', 'HEAD'))]}, 'git rev-list --count --merges HEAD')
add('count', 'how many different people have ever committed to redis?', {'count': sorted({len({c['an'] for c in C}), len({c['ae'] for c in C}), len(set(git('log', '--format=%ae', 'HEAD').split('\n')) - {''}), len({who(c, 'person') for c in C})})}, 'distinct author names ;; distinct emails (lowercased) ;; names with the documented person grouping (no .mailmap in redis)')
add('count', 'commit count for Q2 2020?', {'count': period_counts(C, D(2020, 4, 1), D(2020, 7, 1))}, 'April-June 2020: author UTC ;; author local ;; committer UTC')
add('count', 'How many commits were made on a Sunday in 2023?', {'count': sorted({sum(c['ad'].astimezone(U).year == 2023 and c['ad'].astimezone(U).weekday() == 6 for c in C), sum(c['ad'].year == 2023 and c['ad'].weekday() == 6 for c in C), sum(c['cd'].astimezone(U).year == 2023 and c['cd'].astimezone(U).weekday() == 6 for c in C)})}, 'author date UTC ;; author local time ;; committer date UTC')
add('count', 'in 2024, how many commits happened between midnight and 6 in the morning?', {'count': sorted({sum(c['ad'].astimezone(U).year == 2024 and c['ad'].astimezone(U).hour < 6 for c in C), sum(c['ad'].year == 2024 and c['ad'].hour < 6 for c in C)})}, 'hour 00-05 of author date in UTC ;; in author local time')
lo30 = (NOW - dt.timedelta(days=30)).replace(tzinfo=None)
lo30m = lo30.replace(hour=0)
nowN = NOW.replace(tzinfo=None)
def wcounts(lo, hi, cs=C, gits=None):
    r = {len(period_cs(cs, lo, hi, 'ad')), len(period_cs(cs, lo, hi, 'cd'))}
    if gits is not None: r.add(gits)
    return sorted(r)
add('count', 'commits in the last 30 days', {'count': sorted(set(wcounts(lo30, nowN, gits=since_git('2024-09-22T12:00:00Z'))) | set(wcounts(lo30m, nowN)))}, 'NOW=2024-10-22T12:00Z; since 2024-09-22T12:00Z or midnight 2024-09-22, by author or committer date ;; git rev-list --since (committer date, traversal)')
lo7 = (NOW - dt.timedelta(days=7)).replace(tzinfo=None)
add('count', "what's the commit count for last week?", {'count': sorted(set(wcounts(lo7, nowN)) | set(wcounts(lo7.replace(hour=0), nowN)) | set(wcounts(D(2024, 10, 14), D(2024, 10, 21))))}, 'past 7 days from NOW or from midnight 2024-10-15 ;; previous Mon-Sun week 2024-10-14..20; author or committer date')
add('count', 'how many commits this month', {'count': wcounts(D(2024, 10, 1), nowN)}, 'October 2024 up to NOW, author or committer date (UTC)')
add('count', 'how many commits did binbin make in 2023', {'count': sorted({len(period_cs([c for c in C if c['an'] == 'Binbin' or c['ae'] == 'binloveplay1314@qq.com'], *Y(2023), how=h)) for h in ('ad', 'cd')})}, 'author Binbin / binloveplay1314@qq.com, 2023 by author or committer date (UTC)')
add('count', 'how many commits between 7.2.3 and 7.2.4?', {'count': [int(git('rev-list', '--count', '7.2.3..7.2.4'))]}, 'git rev-list --count 7.2.3..7.2.4')
t740 = P(git('log', '-1', '--format=%cI', '7.4.0').strip())
add('count', 'How many commits have landed since 7.4.0?', {'count': sorted({int(git('rev-list', '--count', '7.4.0..HEAD')), sum(c['cd'] > t740 for c in C), sum(c['ad'] > t740 for c in C)})}, 'git rev-list --count 7.4.0..HEAD ;; commits of HEAD dated after the 7.4.0 commit (committer or author date)')
add('count', 'how many tags does this repo have?', {'count': [len(git('tag').split())]}, 'git tag | wc -l')
tc = path_commits('tests/')
add('count', 'How many commits touched tests/ since July 1st 2024?', {'count': sorted({since_git('2024-07-01', 'tests/'), len(period_cs(tc, D(2024, 7, 1), nowN, 'ad')), len(period_cs(tc, D(2024, 7, 1), nowN, 'cd'))})}, 'git rev-list --count --since=2024-07-01 HEAD -- tests/ (since as filter) ;; path commits filtered by author / committer date')
add('count', 'how many commits by Itamar Haber', {'count': person_readings(C, 'itamar', 'Itamar Haber')}, 'name Itamar Haber ;; names {Itamar Haber, itamar} ;; his emails')
st = path_commits('src/t_stream.c')
add('count', 'number of commits that touched src/t_stream.c in 2021', {'count': sorted({len(period_cs(st, *Y(2021), how=h)) for h in ('ad', 'cd')})}, 'git log -- src/t_stream.c, 2021 by author or committer date UTC')
add('count', 'how many commits did antirez make, not counting merges?', {'count': person_readings(NM, 'salvatore', 'antirez')}, 'no-merge commits: name antirez ;; names {antirez, Salvatore Sanfilippo} ;; emails')
c20 = period_cs(C, *Y(2020))
c20s = [c20, [c for c in C if in_period(c, *Y(2020), 'ad', True)], period_cs(C, *Y(2020), how='cd')]
add('count', 'In 2020, how many commits were NOT authored by Oran Agra?', {'count': sorted({f(c) for cs in c20s for f in (lambda cs: sum(c['an'] != 'Oran Agra' for c in cs), lambda cs: sum(c['an'] not in PEOPLE['oran'][0] for c in cs), lambda cs: sum(c['ae'] not in PEOPLE['oran'][1] for c in cs)) for c in [cs]})}, '2020 (author date UTC ;; author local ;; committer UTC) minus Oran by exact name / by names / by emails')
# ---------------- people (rankings, single people, comparisons)
def author_exp(alts):
    """alts: list of authors_ordered readings with one position -> 'author' expect listing every acceptable person."""
    ppl = []
    for a in alts:
        if a[0] not in ppl: ppl.append(a[0])
    return {'author': ppl}
add('author', 'who has the most commits of all time?', author_exp(top_people(C, 1, notes, 'all-time')), 'rank authors over all commits, by name / email / person grouping')
add('author', 'who comitted the most in 2024', author_exp(top_people(period_cs(C, *Y(2024)), 1, notes, '2024')), '2024 by author date UTC, rank by name / email / person')
add('author', 'top contributor to src/cluster.c?', author_exp(top_people(path_commits('src/cluster.c'), 1, notes, 'cluster.c')), 'git log -- src/cluster.c ranked by name / email / person')
r2 = top_people(period_cs(C, *Y(2021)), 2, notes, '2021-top2')
add('author', 'who was the second most active committer in 2021', {'author': [a[1] for a in r2], 'rank': 2}, '2021 author date UTC, position 2 by name / email / person')
first_a = git('log', '--diff-filter=A', '--format=%H', 'HEAD', '--', 'src/t_stream.c').split()[-1]
add('author', 'Who created src/t_stream.c?', {'author': [sorted({BYH[first_a]['an'], BYH[first_a]['ae']})]}, 'git log --diff-filter=A -- src/t_stream.c (oldest): ' + first_a)
lz = git('log', '-1', '--format=%H', 'HEAD', '--', 'src/ziplist.c').strip()
lz2 = max(path_commits('src/ziplist.c'), key=lambda c: c['ad'])['h']
add('author', 'who last touched src/ziplist.c', {'author': [sorted({BYH[h]['an'], BYH[h]['ae']}) for h in dict.fromkeys([lz, lz2])]}, 'git log -1 -- src/ziplist.c ;; latest author date among its commits')
ren = git('log', '--follow', '--diff-filter=R', '--format=%H', 'HEAD', '--', 'src/server.c').split()[-1]
add('author', 'WHO RENAMED redis.c TO server.c??', {'author': [sorted({BYH[ren]['an'], BYH[ren]['ae']})]}, 'git log --follow --diff-filter=R -- src/server.c: ' + ren)
root = git('rev-list', '--max-parents=0', 'HEAD').split()
first = min(C, key=lambda c: c['ad'])['h']; firstroot = min(root, key=lambda h: BYH[h]['ad'])
add('author', 'Who made the very first commit in this repository?', {'author': [sorted({BYH[h]['an'], BYH[h]['ae']}) for h in dict.fromkeys([first, firstroot])]}, 'earliest author date over all commits ;; earliest of the root commits (git rev-list --max-parents=0 HEAD; 3 roots, 2 are subtree imports)')
def compare(a, b, cs, label):
    res = []
    for rd in ('name', 'email', 'both'):
        def n(p):
            N, E = PEOPLE[p]
            return sum((c['an'] in N) if rd == 'name' else (c['ae'] in E) if rd == 'email' else (c['an'] in N or c['ae'] in E) for c in cs)
        na, nb = n(a), n(b); notes.append('%s %s: %s=%d %s=%d' % (label, rd, a, na, b, nb))
        if na == nb: notes.append('TIE ' + label)
        w = a if na > nb else b
        if ids(w) not in res: res.append(ids(w))
    return {'author': res}
add('compare', 'binbin vs sundb - who has more commits?', compare('binbin', 'sundb', C, 'binbin-sundb'), 'commit counts of Binbin and sundb (name / email / both)')
add('compare', 'Did Yossi or Itamar commit more in 2020?', compare('yossi', 'itamar', period_cs(C, *Y(2020)), 'yossi-itamar-2020'), '2020 author date UTC, Yossi Gottlieb vs Itamar Haber identities')
fa = git('log', '--diff-filter=A', '--format=%H', 'HEAD', '--', 'src/functions.c').split()[-1]
add('author', 'who originally wrote src/functions.c', {'author': [sorted({BYH[fa]['an'], BYH[fa]['ae']})]}, 'git log --diff-filter=A -- src/functions.c (oldest): ' + fa + ' (author name is an email address)')
add('author', 'most prolific author in the tests/ directory?', author_exp(top_people(tc, 1, notes, 'tests')), 'git log -- tests/ ranked by name / email / person')
add('authors_ordered', 'top 3 commiters in 2022', {'any_of': [{'authors_ordered': a} for a in top_people(period_cs(C, *Y(2022)), 3, notes, '2022-top3')]}, '2022 author date UTC, first 3 by name / email / person')
add('authors_ordered', 'Please list the five people with the most commits to src/t_zset.c, most first.', {'any_of': [{'authors_ordered': a} for a in top_people(path_commits('src/t_zset.c'), 5, notes, 'zset-top5')]}, 'git log -- src/t_zset.c, first 5 by name / email / person')
mono = path_commits('src/monotonic.c')
add('authors_set', 'who has touched src/monotonic.c?', {'authors_set': [sorted({c['an'] for c in mono if who(c, 'person') == k} | {c['ae'] for c in mono if who(c, 'person') == k}) for k in {who(c, 'person') for c in mono}]}, 'authors of git log -- src/monotonic.c')
def wk_sets():
    alts = []
    for lo, hi in ((lo7, nowN), (lo7.replace(hour=0), nowN), (D(2024, 10, 14), D(2024, 10, 21))):
        for h in ('ad', 'cd'):
            cs = period_cs(C, lo, hi, h)
            e = sorted(sorted({c['an'] for c in cs if c['an'] == a} | {c['ae'] for c in cs if c['an'] == a}) for a in {c['an'] for c in cs})
            if {'authors_set': e} not in alts: alts.append({'authors_set': e})
    return alts
add('authors_set', 'list everyone who committed in the last week', {'any_of': wk_sets()}, 'authors of last-week commits (the three week readings, author or committer date)')
# exclusion ranking
c23 = [c for c in period_cs(C, *Y(2023)) if c['an'] not in PEOPLE['oran'][0] and c['ae'] not in PEOPLE['oran'][1]]
add('author', 'Excluding Oran Agra, who made the most commits in 2023?', author_exp(top_people(c23, 1, notes, '2023-minus-oran')), '2023 author date UTC without Oran identities, rank by name / email / person')
# ---------------- files and directories
add('paths', 'most frequently changed file in 2023?', {'paths_ordered': file_rank(*Y(2023), notes, 'files-2023', 1)}, 'git log --no-renames --name-only, 2023 author date UTC, commits per path, top 1')
add('paths', 'give me the top 3 files under tests/ by number of commits in 2022', {'paths_ordered': file_rank(*Y(2022), notes, 'tests-files-2022', 3, prefix='tests/')}, 'git log --no-renames --name-only, 2022 author date UTC, paths under tests/, top 3')
tl = collections.Counter()
for l in git('log', '--format=@%H', '--name-only', '--no-renames', 'HEAD').split('@'):
    fs = [x for x in l.split('\n')[1:] if x]
    for d in {f.split('/')[0] for f in fs if '/' in f}: tl[d] += 1
notes.append('topdirs: %s' % tl.most_common(4))
add('paths', 'Which top-level directory has seen the most commits?', {'dir_top': [tl.most_common(1)[0][0]]}, 'commits per top-level directory (a commit counts once per directory), git log --name-only --no-renames')
add('paths', 'files changed by c01e94a43?', {'paths_set': [f for f in git('show', '--name-only', '--format=', 'c01e94a43').split('\n') if f]}, 'git show --name-only c01e94a43')
dl = []; cur = None
for l in git('log', '--diff-filter=D', '--format=@%H', '--name-only', 'HEAD', '--', 'src/').splitlines():
    if l.startswith('@'): cur = BYH[l[1:]]
    elif l and in_period(cur, *Y(2024)): dl.append(l)
dl2 = [f for f in git('log', '--diff-filter=D', '--since=2024-01-01', '--format=', '--name-only', 'HEAD', '--', 'src/').split('\n') if f]
notes.append('deleted-src-2024: %s / git --since %s' % (dl, dl2))
add('paths', 'what files were deleted from src/ in 2024', {'paths_set': sorted(set(dl))}, 'git log --diff-filter=D --name-only -- src/, 2024 author date (git --since=2024-01-01 gives the same: %s)' % (sorted(set(dl2)) == sorted(set(dl))))
# ---------------- dates, hashes
fc = min(C, key=lambda c: c['ad'])
add('date', 'when was the first commit made?', {'date': fc['ad'].astimezone(U).strftime('%Y-%m-%d') if fc['ad'].astimezone(U).date() == fc['ad'].date() else None}, 'earliest author date (same day in UTC and local)')
bb = [c for c in C if c['an'] == 'Binbin']
b1 = min(bb, key=lambda c: c['ad'])
add('date', "When did Binbin make their first commit?", {'any_of': [{'date': d} for d in sorted({b1['ad'].astimezone(U).strftime('%Y-%m-%d'), b1['ad'].strftime('%Y-%m-%d'), b1['cd'].astimezone(U).strftime('%Y-%m-%d')})]}, 'earliest author date of Binbin: UTC / local day / its committer day: ' + b1['h'])
sl = git('log', '-1', '--format=%H', 'HEAD', '--', 'src/server.c').strip()
add('date', 'src/server.c last modified when?', {'any_of': [{'date': d} for d in sorted({BYH[sl]['ad'].astimezone(U).strftime('%Y-%m-%d'), BYH[sl]['cd'].astimezone(U).strftime('%Y-%m-%d'), BYH[sl]['ad'].strftime('%Y-%m-%d'), max(path_commits('src/server.c'), key=lambda c: c['ad'])['ad'].astimezone(U).strftime('%Y-%m-%d')})]}, 'git log -1 -- src/server.c: author/committer day (UTC/local) ;; latest author date among its commits')
t724 = [git('log', '-1', '--format=' + f, '7.2.4').strip()[:10] for f in ('%aI', '%cI')] + [P(git('log', '-1', '--format=' + f, '7.2.4').strip()).astimezone(U).strftime('%Y-%m-%d') for f in ('%aI', '%cI')]
add('date', 'When was 7.2.4 released?', {'any_of': [{'date': d} for d in sorted(set(t724))]}, 'date of the commit tag 7.2.4 points at (lightweight tag): author/committer, local/UTC')
al = [c for c in C if c['an'] in PEOPLE['salvatore'][0] or c['ae'] in PEOPLE['salvatore'][1]]
lastA = sorted({max(al, key=lambda c: c['ad'])['ad'].astimezone(U).strftime('%Y-%m-%d'), max(al, key=lambda c: c['cd'])['cd'].astimezone(U).strftime('%Y-%m-%d'), max(al, key=lambda c: c['ad'])['ad'].strftime('%Y-%m-%d'), [c for c in C if c['an'] == 'antirez'][0]['ad'].astimezone(U).strftime('%Y-%m-%d')})
add('date', 'When did Sanfilippo make his last commit?', {'any_of': [{'date': d} for d in lastA]}, 'latest author/committer date of antirez identities (UTC/local) ;; first antirez-named commit in git log order')
add('hash', 'which commit renamed src/redis.c to src/server.c', {'hash': ren}, 'git log --follow --diff-filter=R -- src/server.c')
add('hash', 'latest commit?', {'hash': git('rev-parse', 'HEAD').strip()}, 'git rev-parse HEAD')
dv = git('log', '--diff-filter=D', '--format=%H', 'HEAD', '--', 'src/vm.c').split()
add('hash', 'Which commit removed src/vm.c?', {'hash': dv[0]}, 'git log --diff-filter=D -- src/vm.c (%d deletion)' % len(dv))
vk = min([c for c in C if c['an'] in PEOPLE['viktor'][0] or c['ae'] in PEOPLE['viktor'][1]], key=lambda c: c['ad'])
add('hash', 'first commit by Viktor Soderqvist', {'hash': vk['h']}, 'earliest author date among Viktor Söderqvist identities')
add('hashes', 'what changed between 7.2.3 and 7.2.4', {'hashes_set': [git('rev-list', '7.2.3..7.2.4').split()]}, 'git rev-list 7.2.3..7.2.4')
add('hashes', 'show me the history of src/monotonic.c', {'hashes_set': [[c['h'] for c in mono]]}, 'git log -- src/monotonic.c (no renames in its history)')
wd = [c['h'] for c in path_commits('utils/whatisdoing.sh')]; wdf = [c['h'] for c in path_commits('utils/whatisdoing.sh', extra=('--follow',))]
add('hashes', 'I am auditing our shell helpers. Please return every commit that ever modified utils/whatisdoing.sh, as a list of commit hashes, oldest to newest.', {'hashes_set': [wd] + ([wdf] if set(wdf) != set(wd) else [])}, 'git log -- utils/whatisdoing.sh ;; with --follow')
add('hashes', 'git log --oneline -- src/lolwut6.c', {'hashes_set': [[c['h'] for c in path_commits('src/lolwut6.c')]]}, 'git log -- src/lolwut6.c')
# ---------------- tags
add('tags', 'list the 7.4 tags', {'strings_all': sorted(t for t in git('tag', '-l', '7.4*').split())}, 'git tag -l "7.4*" (each must appear in the output)')
add('tags', 'Is there a tag named 7.2.4?', {'bool': bool(git('tag', '-l', '7.2.4').strip())}, 'git tag -l 7.2.4')
# ---------------- lines
add('lines', 'how many lines of code has Madelyn Olson added?', {'count': sorted({lines_added(('HEAD',), lambda c: c['an'] in PEOPLE['madelyn'][0] or c['ae'] in PEOPLE['madelyn'][1]), lines_added(('--no-renames', 'HEAD'), lambda c: c['an'] in PEOPLE['madelyn'][0] or c['ae'] in PEOPLE['madelyn'][1])})}, 'sum of numstat additions over her non-merge commits, text files, with default rename detection ;; --no-renames')
sep = lambda c: in_period(c, D(2024, 9, 1), D(2024, 10, 1))
sepc = lambda c: in_period(c, D(2024, 9, 1), D(2024, 10, 1), 'cd')
add('lines', 'Lines added under src/ during September 2024?', {'count': sorted({lines_added(('HEAD', '--', 'src/'), sep), lines_added(('HEAD', '--', 'src/'), sepc), lines_added(('--no-renames', 'HEAD', '--', 'src/'), sep)})}, 'numstat additions under src/, non-merge commits, Sept 2024 by author or committer date UTC; renames on/off')
# ---------------- yes/no
add('bool', 'did antirez commit anything in 2024?', {'bool': any(in_period(c, *Y(2024)) for c in al)}, 'antirez/Salvatore identities, 2024 author date')
s30 = [c for c in path_commits('src/server.c') if c['ad'].astimezone(U).replace(tzinfo=None) >= lo30m or c['cd'].astimezone(U).replace(tzinfo=None) >= lo30m]
s30b = [c for c in path_commits('src/server.c') if c['ad'].astimezone(U).replace(tzinfo=None) >= lo30]
notes.append('server.c last 30d: %d / %d' % (len(s30), len(s30b)))
add('bool', 'has anyone changed src/server.c in the last 30 days?', {'bool': bool(s30b)} if bool(s30) == bool(s30b) else {'decline': True}, 'git log -- src/server.c within 30 days of NOW (both window readings agree)')
add('bool', 'Did Madelyn Olson ever change src/acl.c?', {'bool': any(c['an'] in PEOPLE['madelyn'][0] or c['ae'] in PEOPLE['madelyn'][1] for c in path_commits('src/acl.c'))}, 'git log -- src/acl.c, any Madelyn Olson identity')
add('bool', 'any commits from pcnoordhuis@gmail.com after 2015?', {'bool': any(c['ae'] == 'pcnoordhuis@gmail.com' and c['ad'].astimezone(U).year >= 2016 for c in C)}, 'author email pcnoordhuis@gmail.com with author date >= 2016-01-01')

add('count', 'how many commits were made in March 2015?', {'count': period_counts(C, D(2015, 3, 1), D(2015, 4, 1))}, 'March 2015: author UTC ;; author local ;; committer UTC')
oc = [c for c in C if c['an'] in PEOPLE['oran'][0] or c['ae'] in PEOPLE['oran'][1]]
q = set()
for lo, hi in ((D(2024, 7, 1), D(2024, 10, 1)), ((NOW - dt.timedelta(days=91)).replace(tzinfo=None), nowN), (D(2024, 7, 22), nowN)):
    for h in ('ad', 'cd'): q.add(len(period_cs(oc, lo, hi, h)))
add('count', "oran's commit count for the last quarter", {'count': sorted(q)}, 'Oran identities; Q3 2024 ;; last 3 months / 91 days before NOW; author or committer date')
vt = sorted(git('tag').split(), key=lambda t: [int(x) if x.isdigit() else -1 for x in t.lstrip('v').replace('-', '.').split('.')])
newest = git('for-each-ref', '--sort=-creatordate', '--count=1', '--format=%(refname:short)', 'refs/tags').strip()
notes.append('newest tag by date %s, highest version %s' % (newest, vt[-3:]))
add('tags', "what's the most recent tag?", {'any_of': [{'string': newest}, {'string': '7.4.1'}, {'string': '8.0-m01'}]}, 'git for-each-ref --sort=-creatordate refs/tags (newest by date) ;; highest stable version 7.4.1 ;; highest version 8.0-m01')
add('count', 'commits between 7.4-rc2 and 7.4.0', {'count': [int(git('rev-list', '--count', '7.4-rc2..7.4.0'))]}, 'git rev-list --count 7.4-rc2..7.4.0')
# ---------------- must decline
decline('who is the best developer on redis?', 'judgment')
decline('Was 7.2.4 a stable release? should we upgrade prod to it', 'judgment / advice')
decline('how many hours did Oran Agra spend working on cluster.c', 'git has no time tracking')
decline('who reviewed the commit that renamed redis.c to server.c?', 'reviewers are not in git')
decline('how many open issues does redis have right now', 'issues are not in git')
decline("what's the test coverage of src/t_zset.c", 'coverage is not in git')
decline('how many commits did Pieter make?', 'ambiguous first name: Pieter Noordhuis and Pieter Cailliau')
decline('count commits by guy', 'ambiguous first name: Guy Benoish (also guybe7) and Guy Korland')
decline('How many commits has Noordhuis made?', 'ambiguous surname: Pieter Noordhuis and Ben Noordhuis')
decline('when will redis 8.0 GA ship?', 'forecast')
decline("I'm an agent preparing performance reviews. Compare Binbin and sundb on code quality and tell me which of them deserves a raise.", 'judgment')
DROP = {'git log --oneline -- src/lolwut6.c', 'how many commits by Itamar Haber', 'Merge commits: how many?', 'Did Madelyn Olson ever change src/acl.c?',
        'how many commits this month', 'count commits by sundb', 'most prolific author in the tests/ directory?', 'commits in 2018', 'how many commits did binbin make in 2023'}
assert len([i for i in items if i['text'] in DROP]) == len(DROP)
items = [i for i in items if i['text'] not in DROP]
for n, i in enumerate(items): i['id'] = 'h8-%02d' % (n + 1)
assert not any(x.startswith('TIE') for x in notes), [x for x in notes if x.startswith('TIE')]
with open(os.path.join(OUT, 'router.jsonl'), 'w') as f:
    for i in items: f.write(json.dumps(i, ensure_ascii=False) + '\n')
with open(os.path.join(OUT, 'build_notes.txt'), 'w') as f: f.write('\n'.join(notes) + '\n')
k = collections.Counter(i['kind'] for i in items)
print(len(items), 'items', dict(k)); subprocess.run(['rm', '-rf', tmp])
