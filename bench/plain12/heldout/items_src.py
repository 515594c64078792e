# item source: texts and how-specs of BOTH halves (held-out texts: keep in /root/heldout12 only).
# executed inside build_set.py (helpers: win, add, sel, rev, file_log, ...).
NO_M = (False,)
# ---------------- window: counts / lists of commits in time windows (NOW = 2026-08-25T12:00Z, Tuesday)
win('window', 'How many commits were made in July 2026?', '2026-07-01', '2026-08-01')
win('window', 'number of commits in 2019', '2019-01-01', '2020-01-01')
r = win_readings('2026-04-01', '2026-07-01') + win_readings('2026-05-25T12:00:00', None)
add('window', 'How many commits landed last quarter?', E_count(r), 'calendar Q2 2026 [2026-04-01, 2026-07-01) ;; or the last 3 months [2026-05-25T12:00, now); committer/author date, with/without merges')
r = win_readings('2026-08-11T12:00:00', None) + win_readings('2026-08-11', None)
add('window', 'in the past fortnight, how many commits were there?', E_count(r), 'last 14 days: since 2026-08-11T12:00Z or since 2026-08-11 (day granularity); committer/author date, with/without merges')
r = [rev('3.3a..' + HEAD), rev('3.3a..' + HEAD, '--no-merges')]
add('window', 'How many commits since 3.3a?', E_count(r), 'git rev-list 3.3a..HEAD [--no-merges] | wc -l')
r = [rev('3.2..3.3'), rev('3.2..3.3', '--no-merges')]
add('window', 'count the commits between 3.2 and 3.3', E_count(r), 'git rev-list 3.2..3.3 [--no-merges] | wc -l')
def wkday(days, date):
    def p(c):
        t = c['ct'] if date == 'c' else c['at']
        return dt.datetime.fromtimestamp(t, UTC).weekday() in days
    return p
def wk_local(days):
    return lambda c: dt.datetime.fromisoformat(c['aI']).weekday() in days
def wk_readings(y0, y1, days):
    r = []
    for m in (True, False):
        r.append(sel(y0, y1, 'c', m, wkday(days, 'c'))); r.append(sel(y0, y1, 'a', m, wkday(days, 'a')))
        r.append(sel(y0, y1, 'a', m, wk_local(days)))
    return r
add('window', 'How many commits were made on weekends in 2024?', E_count(wk_readings('2024-01-01', '2025-01-01', (5, 6))),
    'commits of 2024 whose weekday is Sat/Sun: committer date UTC ;; author date UTC ;; author date in its own zone; with/without merges')
add('window', 'how many commits happened on Mondays during 2025', E_count(wk_readings('2025-01-01', '2026-01-01', (0,))),
    'commits of 2025 on a Monday: committer date UTC ;; author date UTC ;; author local; with/without merges')
win('window', 'how many commits this month', '2026-08-01', None)
win('window', "what's the commit count for last month", '2026-07-01', '2026-08-01')
win('window', 'How many commits in the first half of 2023?', '2023-01-01', '2023-07-01')
win('window', 'total commits between March and May 2021', '2021-03-01', '2021-06-01', extra=' (March 1 to May 31 inclusive)')
win('window', 'How many commits so far this year?', '2026-01-01', None)
win('window', 'How many commits were there in December 2015?', '2015-12-01', '2016-01-01')
win('window', 'commits in Q3 2022: how many?', '2022-07-01', '2022-10-01')
r = win_readings('2026-07-26T12:00:00', None) + win_readings('2026-07-26', None)
add('window', 'how many commits in the last 30 days', E_count(r), 'since 2026-07-26T12:00Z or 2026-07-26; committer/author date, with/without merges')
r = win_readings('2026-08-17', '2026-08-24') + win_readings('2026-08-18T12:00:00', None) + win_readings('2026-08-18', None)
add('window', 'list the commits from last week', E_hashes(r), 'calendar week Mon 2026-08-17 .. Sun 2026-08-23 ;; last 7 days (since 08-18T12:00 or 08-18); committer/author date, with/without merges')
win('window', 'Show me the commits from 21 August 2026', '2026-08-21', '2026-08-22', listing=True)
win('window', 'what got committed between 2026-08-10 and 2026-08-14?', '2026-08-10', '2026-08-15', listing=True, extra=' (both days inclusive)')
win('window', 'How many commits did tmux get back in 2009?', '2009-01-01', '2010-01-01')

# ---------------- people
def top_in(text, y0, y1, rank, pred=None, how=''):
    ppl = []
    for d in 'ca':
        for m in (True, False):
            ppl += rank_people(sel(y0, y1, d, m, pred), rank)
    add('people', text, {'author': ppl, 'rank': rank}, 'authors ranked by commits in [%s, %s) (mailmap name ;; raw email), committer/author date, with/without merges, rank %d (ties: any)%s' % (y0, y1, rank, how))
top_in('Who made the most commits in 2025?', '2025-01-01', '2026-01-01', 1)
top_in('who was the second most active contributor in 2024', '2024-01-01', '2025-01-01', 2)
top_in('which author committed the least in 2026?', '2026-01-01', None, -1)
r = [sel(pred=person('Thomas Adam')), sel(pred=person('Thomas Adam'), merges=False)]
add('people', 'How many commits has Thomas Adam made?', E_count(r), "git log --use-mailmap, author name Thomas Adam, with/without merges")
r = [sel(pred=lambda c: 'tcunha@gmx.com' in (c['ae'].lower(), c['aE'])), sel(pred=lambda c: c['ae'].lower() == 'tcunha@gmx.com')]
add('people', 'how many commits by tcunha@gmx.com', E_count(r), 'author email tcunha@gmx.com (raw ;; after mailmap)')
r = win_readings('2020-01-01', '2021-01-01', pred=lambda c: c['aN'].endswith(' Adam'))
add('people', 'How many commits did Adam author in 2020?', E_count(r), 'surname Adam (= Thomas Adam, the only Adam); 2020; committer/author date, with/without merges')
r = win_readings('2020-01-01', None, pred=person('Jason McIntyre'))
add('people', 'What has Jason McIntyre committed since 2020?', E_hashes(r), 'author Jason McIntyre (mailmap), since 2020-01-01, committer/author date, with/without merges')
top3 = [ids(n) for n, _ in ranking(C)[:3]]
add('people', 'Who are the top 3 contributors of all time?', {'authors_ordered': top3}, 'git shortlog -sn HEAD (mailmap), first three')
add('people', 'when did Tiago Cunha make his last commit?', dates_any(sel(pred=person('Tiago Cunha'))[:1]), 'newest commit by Tiago Cunha: author or committer date, UTC or own zone')
add('people', 'When did Micah Cowan first commit?', dates_any([min(sel(pred=person('Micah Cowan')), key=lambda c: c['at']), sel(pred=person('Micah Cowan'))[-1]]),
    'oldest commit by Micah Cowan (by author date ;; last in log order): author or committer date')
def authors_set_readings(readings):
    out = []
    for cs in readings:
        names = sorted({c['aN'] for c in cs})
        out.append({'authors_set': [ids(n) for n in names]})
    return out
r = []
for d in 'ca':
    r += [x for x in [sel('2025-01-01', '2026-01-01', d, True, commits=file_log('tmux.1'))]]
add('people', 'Which people touched tmux.1 in 2025?', {'any_of': authors_set_readings(r)}, 'git log -- tmux.1 in 2025 (committer ;; author date), distinct mailmap authors')
r = win_readings('2026-08-01', '2026-09-01')
add('people', 'who are the authors of commits in August 2026', {'any_of': authors_set_readings(r)}, 'distinct mailmap authors of August 2026, committer/author date, with/without merges')
r = win_readings('2023-01-01', '2024-01-01')
vals = set()
for cs in r: vals |= {len({c['aN'] for c in cs}), len({c['aE'] for c in cs}), len({c['ae'].lower() for c in cs})}
add('people', 'How many different people committed in 2023?', {'count': sorted(vals)}, 'distinct authors in 2023 (mailmap name ;; mailmap email ;; raw email), committer/author date, with/without merges')
r = win_readings('2026-07-01', '2026-08-01', pred=person(NICK)) + win_readings('2026-07-01', '2026-08-01', pred=is_nick_any)
add('people', "Nicholas's commits in July 2026, how many?", E_count(r), 'July 2026 by Nicholas Marriott (mailmap) ;; plus the unmapped nicm <nicm@openbsd.org>; committer/author date, with/without merges')
r = [sel(pred=lambda c: c['aE'] == 'actions@github.com')]
add('people', 'how many commits has the update bot made', E_count(r), 'author "tmux update bot" <actions@github.com>')
top_in('Who wrote the most code in 2018?', '2018-01-01', '2019-01-01', 1, how=' (by commits; the by-lines leader is added below)')
cs = sel('2018-01-01', '2019-01-01', 'a', False)
lines = collections.Counter()
for c in cs: lines[c['aN']] += c['add'] + c['del']
ITEMS[-1]['expect']['author'].append(ids(lines.most_common(1)[0][0]))

# ---------------- files
r = file_readings('window-copy.c') + file_readings('window-copy.c', (False, True), '--no-merges')
add('files', 'How many commits changed window-copy.c?', E_count(r), 'git log [--follow] [--no-merges] -- window-copy.c | count')
def creator(path):
    cs = file_log(path, '--diff-filter=A', follow=True) + file_log(path, '--diff-filter=A')
    return [ids(c['aN']) for c in cs]
add('files', 'Who created tmux-protocol.h?', {'author': creator('tmux-protocol.h')}, 'git log [--follow] --diff-filter=A -- tmux-protocol.h: author (mailmap)')
add('files', 'who last touched screen-write.c', {'author': [ids(file_log('screen-write.c')[0]['aN'])]}, 'git log -1 -- screen-write.c: author')
add('files', 'When was format.c last changed?', dates_any(file_log('format.c')[:1]), 'git log -1 -- format.c: author/committer date')
def frank(text, cs_readings, n, pred=lambda p: True, how='', kind='files'):
    rs = []
    for cs in cs_readings:
        try:
            for o in file_rank(cs, n, pred):
                if {'paths_ordered': o} not in rs: rs.append({'paths_ordered': o})
        except SystemExit: pass
    assert rs, text
    add(kind, text, {'any_of': rs}, how)
frank('which files changed the most in 2025', [sel('2025-01-01', '2026-01-01', d) for d in 'ca'], 3, how='files ranked by commits (git log --name-only --no-merges) in 2025, committer/author date; top 3 in order')
frank('Most frequently modified files in regress/', [C], 3, pred=lambda p: p.startswith('regress/'), how='files under regress/ ranked by commits, all history; top 3')
dircnt = collections.Counter()
for c in C:
    for dd in {p.split('/')[0] for p in c['files'] if '/' in p}: dircnt[dd] += 1
dr = dircnt.most_common(2); assert dr[0][1] != dr[1][1]
add('files', 'which directory has seen the most changes?', {'dir_top': [dr[0][0]]}, 'top-level directories ranked by commits changing something in them (root files left out): %r' % dr)
r = [sel('2024-01-01', '2025-01-01', d, commits=file_log('cmd-parse.y')) for d in 'ca']
add('files', 'How many times was cmd-parse.y modified in 2024?', E_count(r), 'git log -- cmd-parse.y in 2024, committer/author date')
add('files', 'Show the last 3 commits that touched input.c', {'hashes_set': [[c['h'] for c in file_log('input.c')[:3]]]}, 'git log -3 -- input.c')
def most_on(path):
    out = []
    for key in ('aN', 'ae'):
        cs = file_log(path); r = ranking(cs, key); v = r[0][1]
        for k, n in r:
            if n == v: out.append(ids(k) if key == 'aN' else sorted({k} | {c['an'] for c in cs if c['ae'] == k} | {c['aN'] for c in cs if c['ae'] == k}))
    return out
add('files', 'who has changed tty-keys.c the most', {'author': most_on('tty-keys.c')}, 'git shortlog -sn -- tty-keys.c (mailmap ;; raw email), first')
add('files', 'When was hyperlinks.c added?', dates_any(file_log('hyperlinks.c', '--diff-filter=A')), 'git log --diff-filter=A -- hyperlinks.c: author/committer date')
frank('Which files did Nicholas Marriott change most in 2021?', [sel('2021-01-01', '2022-01-01', d, pred=p) for d in 'ca' for p in (person(NICK), is_nick_any)], 3, how='files ranked by commits by Nicholas Marriott (;; with nicm) in 2021; top 3')
def added_in(y0, y1, d):
    s = set()
    for l in git('log', HEAD, '--no-renames', '--diff-filter=A', '--name-only', '--format=@%H').splitlines():
        if l.startswith('@'): c = BYH[l[1:]]; t = c['ct'] if d == 'c' else c['at']; ok = ts(y0) <= t < ts(y1); continue
        if l.strip() and ok: s.add(l)
    return s
add('files', 'what files were added in 2025?', {'any_of': [{'paths_set': sorted(added_in('2025-01-01', '2026-01-01', d))} for d in 'ca']}, 'git log --diff-filter=A --no-renames --name-only in 2025 (committer ;; author date)')
cs = rev('3.4..' + HEAD)
s1 = sorted({p for c in cs for p in c['files'] if p.startswith('compat/')})
s2 = sorted(p for p in git('diff', '--name-only', '3.4', HEAD, '--', 'compat/').split())
add('files', 'files under compat/ changed since 3.4', {'any_of': [{'paths_set': s1}, {'paths_set': s2}]}, 'compat/ paths touched by commits 3.4..HEAD ;; git diff --name-only 3.4 HEAD -- compat/')
add('files', 'how often did cmd-split-window.c change in 2022', E_count([sel('2022-01-01', '2023-01-01', d, commits=file_log('cmd-split-window.c')) for d in 'ca']), 'git log -- cmd-split-window.c in 2022, committer/author date')

# ---------------- tags
add('tags', 'When was 3.4 released?', tag_dates('3.4'), 'tag 3.4: tagger date ;; its commit author/committer date (UTC or own zone)')
newest = max(TAGS.values(), key=lambda t: t['tdate'] or '')['name']
add('tags', "What's the latest tag?", {'string': newest}, 'git for-each-ref --sort=-taggerdate refs/tags: first (%s)' % newest)
add('tags', 'how many commits between 3.5 and 3.5a', E_count([rev('3.5..3.5a'), rev('3.5..3.5a', '--no-merges')]), 'git rev-list 3.5..3.5a [--no-merges]')
add('tags', 'which files changed between 3.6 and 3.6a', {'any_of': [{'paths_set': sorted(git('diff', '--name-only', '3.6', '3.6a').split())},
    {'paths_set': sorted({p for c in rev('3.6..3.6a') for p in c['files']})}]}, 'git diff --name-only 3.6 3.6a ;; files of the commits 3.6..3.6a')
add('tags', 'how many tags does the repo have', {'count': [len(TAGS)]}, 'git tag | wc -l')
add('tags', 'commits since the last release?', E_count([rev(newest + '..' + HEAD), rev(newest + '..' + HEAD, '--no-merges')]), 'git rev-list %s..HEAD [--no-merges]' % newest)
add('tags', 'Which release came right after 2.9?', {'string': '2.9a'}, 'git tag --sort=taggerdate: the tag after 2.9')
y2020 = sorted(n for n, t in TAGS.items() if t['tdate'].startswith('2020'))
c2020 = sorted(n for n, t in TAGS.items() if git('log', '-1', '--format=%cI', t['commit']).startswith('2020'))
add('tags', 'list the tags made in 2020', {'any_of': [{'names_set': y2020}, {'names_set': c2020}]}, 'tags whose tagger date (%s) ;; commit date (%s) is in 2020' % (y2020, c2020))
ppl = []
for m in (True, False):
    ppl += rank_people(rev('3.3..3.4', *([] if m else ['--no-merges'])), 1)
add('tags', 'Who made the most commits between 3.3 and 3.4?', {'author': ppl}, 'git shortlog -sn 3.3..3.4 [--no-merges], first')
add('tags', 'when was tag 3.0a cut', tag_dates('3.0a'), 'tag 3.0a date: tagger ;; commit')
add('tags', 'how many commits went into 3.7 since 3.6b?', E_count([rev('3.6b..3.7'), rev('3.6b..3.7', '--no-merges')]), 'git rev-list 3.6b..3.7 [--no-merges]')

# ---------------- commit: single commits
def commit_files(h): return sorted(git('show', '--no-renames', '--name-only', '--format=', h).split()) or sorted(BYH[h]['files'])
ex = [c for c in sel('2024-03-01', '2024-04-01', 'c', False) if 3 <= len(c['files']) <= 8][0]
add('commit', 'Which files did commit %s change?' % ex['h'][:10], {'paths_set': commit_files(ex['h'])}, 'git show --name-only --no-renames %s' % ex['h'])
def biggest(cs, key):
    r = sorted(cs, key=key, reverse=True)
    return [c['h'] for c in r if key(c) == key(r[0])]
cs = sel('2025-01-01', '2026-01-01', 'c', False) + sel('2025-01-01', '2026-01-01', 'a', False)
hs = biggest(cs, lambda c: c['add'] + c['del']) + biggest(cs, lambda c: len(c['files'])) + biggest(cs, lambda c: c['add'])
add('commit', 'What was the biggest commit in 2025?', {'any_of': [{'hash': h} for h in sorted(set(hs))]}, 'non-merge commits of 2025 (committer/author date) with most changed lines (numstat add+del) ;; most files ;; most additions')
roots = git('rev-list', '--max-parents=0', HEAD).split()
oldest = min(C, key=lambda c: c['at'])['h']
add('commit', 'What was the very first commit?', {'any_of': [{'hash': h} for h in sorted(set(roots + [oldest, C[-1]['h']]))]}, 'root commits (git rev-list --max-parents=0 HEAD) ;; oldest author date ;; last in git log order')
ex2 = sel('2017-06-01', '2017-07-01', 'c', False, pred=person('Thomas Adam'))[0]
add('commit', 'Who wrote commit %s?' % ex2['h'][:8], {'author': [ids(ex2['aN'])]}, 'git log -1 --format=%%aN %s' % ex2['h'])
ex3 = sel('2021-02-01', '2021-03-01', 'c', False, pred=person(NICK))[-1]
add('commit', 'when was %s committed' % ex3['h'][:12], dates_any([ex3]), 'git log -1 --format=%%aI/%%cI %s' % ex3['h'])
cs = sel('2024-01-01', '2025-01-01', 'c', False) + sel('2024-01-01', '2025-01-01', 'a', False)
add('commit', 'which commit touched the most files in 2024', {'any_of': [{'hash': h} for h in sorted(set(biggest(cs, lambda c: len(c['files']))))]}, 'non-merge commits of 2024 by number of changed files (numstat, no renames)')
add('commit', "what's the most recent commit on master", {'hash': HEAD}, 'git rev-parse HEAD')
merges = [c for c in C if merge(c)]
add('commit', 'show me the last merge', {'any_of': [{'hash': h} for h in sorted({merges[0]['h'], max(merges, key=lambda c: c['ct'])['h'], max(merges, key=lambda c: c['at'])['h']})]}, 'git log --merges -1 ;; newest merge by committer/author date')

# ---------------- exclusion
r = win_readings('2025-01-01', '2026-01-01', pred=lambda c: c['aN'] != NICK) + win_readings('2025-01-01', '2026-01-01', pred=lambda c: not is_nick_any(c))
add('exclusion', 'How many commits in 2025 were not by Nicholas Marriott?', E_count(r), '2025 commits whose mailmap author is not Nicholas Marriott (;; nor nicm@openbsd.org), committer/author date, with/without merges')
r = win_readings('2026-07-01', '2026-08-01', pred=lambda c: c['aN'] != 'Thomas Adam')
add('exclusion', 'commits in July 2026 except the ones from Thomas Adam', E_hashes(r), 'July 2026, author not Thomas Adam, committer/author date, with/without merges')
def touches(c, pre): return any(p.startswith(pre) for p in c['files'])
r = win_readings('2024-01-01', '2025-01-01', pred=lambda c: not touches(c, 'regress/'), merges_opts=(False,)) + \
    win_readings('2024-01-01', '2025-01-01', pred=lambda c: any(not p.startswith('regress/') for p in c['files']), merges_opts=(False,)) + \
    win_readings('2024-01-01', '2025-01-01', pred=lambda c: not touches(c, 'regress/'), merges_opts=(True,))
add('exclusion', "How many commits in 2024 didn't touch regress/?", E_count(r), "2024 commits changing nothing under regress/ (merges count as touching nothing, or excluded) ;; commits changing some file outside regress/ (git log -- ':!regress/'); committer/author date")
top_in('apart from Nicholas, who contributed most in 2022?', '2022-01-01', '2023-01-01', 1, pred=lambda c: not is_nick_any(c), how=' excluding Nicholas Marriott/nicm')
ITEMS[-1]['kind'] = 'exclusion'
win('exclusion', 'Count the 2025 commits, excluding merges', '2025-01-01', '2026-01-01', merges_opts=NO_M)
win('exclusion', 'how many non-merge commits were made in 2023', '2023-01-01', '2024-01-01', merges_opts=NO_M)
r = [[c for c in rev('3.5..' + HEAD, *m) if c['aE'] != 'actions@github.com'] for m in ([], ['--no-merges'])]
add('exclusion', 'commits since 3.5 not made by the update bot, how many', E_count(r), 'git rev-list 3.5..HEAD [--no-merges], author not actions@github.com')
frank('files changed most in 2024, ignoring tmux.1', [sel('2024-01-01', '2025-01-01', d) for d in 'ca'], 3, pred=lambda p: p != 'tmux.1', how='files ranked by commits in 2024 except tmux.1; top 3', kind='exclusion')

# ---------------- yes/no
def yn(text, val, how): add('yesno', text, {'bool': val}, how + ' -> %s' % val)
yn('Did Micah Cowan commit anything after 2010?', bool(sel('2011-01-01', None, 'a', pred=person('Micah Cowan'))) or bool(sel('2011-01-01', None, 'c', pred=person('Micah Cowan'))), 'commits by Micah Cowan dated 2011-01-01 or later (author or committer date)')
v = [bool(sel('2024-01-01', None, d, commits=file_log('window-clock.c'))) for d in 'ca']; assert v[0] == v[1]
yn('Has anyone changed window-clock.c since 2024?', v[0], 'git log --since=2024-01-01 -- window-clock.c')
v = [bool(sel('2026-08-24', '2026-08-25', d)) for d in 'ca']; assert v[0] == v[1]
yn('Was there any commit on 2026-08-24?', v[0], 'commits with date 2026-08-24 (UTC)')
v = [bool(sel('2026-08-01', None, d, pred=person('Thomas Adam'))) for d in 'ca']; assert v[0] == v[1]
yn('Did Thomas Adam commit in August 2026?', v[0], 'August 2026 commits by Thomas Adam')
yn('Is there a tag called 3.8?', '3.8' in TAGS, 'git tag -l 3.8')
v = [bool(sel('2020-01-01', None, d, commits=file_log('osdep-hpux.c'))) for d in 'ca']; assert v[0] == v[1]
yn('Has osdep-hpux.c been modified since 2020?', v[0], 'git log --since=2020-01-01 -- osdep-hpux.c')
yn('Did Tiago Cunha ever touch anything in regress/?', any(c['aN'] == 'Tiago Cunha' for c in file_log('regress/')), 'git log --author=Tiago -- regress/ non-empty')
v = [bool(sel('2026-01-01', None, d, pred=person('Jason McIntyre'))) for d in 'ca']; assert v[0] == v[1]
yn('any commits from Jason McIntyre this year?', v[0], 'Jason McIntyre commits since 2026-01-01')

# ---------------- terse, git-like lines
add('terse', 'log -n5 window.c', {'hashes_set': [[c['h'] for c in file_log('window.c')[:5]], [c['h'] for c in file_log('window.c', follow=True)[:5]]]}, 'git log -5 [--follow] -- window.c')
r = win_readings('2013-01-01', None, pred=lambda c: 'tcunha' in (c['aN'] + c['aE'] + c['an'] + c['ae']).lower())
add('terse', 'author=tcunha since=2013', {'any_of': [E_hashes(r), E_count(r)]}, 'author matching tcunha (Tiago Cunha), since 2013-01-01; hashes or the count')
ppl = []
for d in 'ca':
    cs = sel('2025-01-01', '2026-01-01', d)
    ppl.append({'authors_ordered': [ids(n) for n, _ in ranking(cs)[:3]]})
add('terse', 'shortlog -sn 2025', {'any_of': ppl}, 'git shortlog -sn over 2025 (committer/author date): first three in order')
win('terse', 'commits --since=2026-08-15', '2026-08-15', None, listing=True)
add('terse', 'count 3.6..3.6a', E_count([rev('3.6..3.6a'), rev('3.6..3.6a', '--no-merges')]), 'git rev-list 3.6..3.6a [--no-merges] | wc -l')
add('terse', 'last change tty.c', {'hash': file_log('tty.c')[0]['h']}, 'git log -1 -- tty.c')
frank('top files 2024 limit 5', [sel('2024-01-01', '2025-01-01', d) for d in 'ca'], 5, how='files ranked by commits in 2024, top 5', kind='terse')
add('terse', 'who: compat/', {'author': most_on('compat/')}, 'git shortlog -sn -- compat/, first')
add('terse', 'git log --author=jmc --oneline | wc -l', E_count([sel(pred=lambda c: 'jmc' in (c['aN'] + c['aE'] + c['an'] + c['ae']).lower())]), 'commits whose author name/email contains jmc (mailmap or raw)')
add('terse', 'tags 3.*', {'names_set': sorted(n for n in TAGS if n.startswith('3.'))}, 'git tag -l "3.*"')

# ---------------- typo / wrong case
win('typo', 'how many comits in juli 2026', '2026-07-01', '2026-08-01')
top_in('who maed the most commmits in 2025', '2025-01-01', '2026-01-01', 1); ITEMS[-1]['kind'] = 'typo'
add('typo', 'wen was 3.3a relesed', tag_dates('3.3a'), 'tag 3.3a: tagger ;; commit date')
win('typo', 'NUMBER OF COMMITS BY THOMAS ADAM IN 2021', '2021-01-01', '2022-01-01', pred=person('Thomas Adam'), extra='; author Thomas Adam (mailmap)')
add('typo', 'who touched Tmux.h last', {'author': [ids(file_log('tmux.h')[0]['aN'])]}, 'git log -1 -- tmux.h (case-folded name): author')
r = win_readings('2026-06-01', '2026-07-01', pred=person(NICK)) + win_readings('2026-06-01', '2026-07-01', pred=is_nick_any)
add('typo', 'commits by nicholas marriot in june 2026', E_count(r), 'June 2026 by Nicholas Marriott (;; with nicm), committer/author date, with/without merges')
frank('which fiels changed most in 2025', [sel('2025-01-01', '2026-01-01', d) for d in 'ca'], 3, how='files ranked by commits in 2025; top 3', kind='typo')
add('typo', "tiago cunha's frist commit date", dates_any([min(sel(pred=person('Tiago Cunha')), key=lambda c: c['at']), sel(pred=person('Tiago Cunha'))[-1]]), 'oldest commit by Tiago Cunha: author/committer date')
add('typo', 'hw many commits touched STATUS.C', E_count(file_readings('status.c')), 'git log [--follow] -- status.c | count')

# ---------------- chatty / agent-style wrappers
win('chatty', 'Hey, could you tell me how many commits there were in June 2026? Thanks!', '2026-06-01', '2026-07-01')
r = win_readings('2026-01-01', None, pred=person('Thomas Adam'))
add('chatty', 'Task: report the number of commits authored by Thomas Adam since 2026-01-01. Return a number only.', E_count(r), 'Thomas Adam since 2026-01-01, committer/author date, with/without merges')
add('chatty', "I'm drafting release notes -- which files changed between 3.7b and 3.7c?", {'any_of': [{'paths_set': sorted(git('diff', '--name-only', '3.7b', '3.7c').split())},
    {'paths_set': sorted({p for c in rev('3.7b..3.7c') for p in c['files']})}]}, 'git diff --name-only 3.7b 3.7c ;; files of commits 3.7b..3.7c')
ppl = []
for d in 'ca':
    for m in (True, False): ppl += rank_people(sel('2026-05-25T12:00:00', None, d, m), 1) + rank_people(sel('2026-05-25', None, d, m), 1)
add('chatty', "quick one: who's been the most active person over the last 3 months?", {'author': ppl, 'rank': 1}, 'top author since 2026-05-25 (3 months before NOW)')
r = [sel('2025-01-01', '2026-01-01', d, commits=file_log('cmd-display-menu.c')) for d in 'ca']
add('chatty', 'As an agent I need the list of commits touching cmd-display-menu.c in 2025, please.', E_hashes(r), 'git log -- cmd-display-menu.c in 2025 (committer/author date)')
add('chatty', 'Please give me the date of the last commit that touched popup.c, ta', dates_any(file_log('popup.c')[:1]), 'git log -1 -- popup.c: date')
add('chatty', 'I wonder who created the file fuzzy.c, do you happen to know?', {'author': creator('fuzzy.c')}, 'git log --diff-filter=A -- fuzzy.c: author')
frank('Could you rank the top 5 files by number of changes this year?', [sel('2026-01-01', None, d) for d in 'ca'], 5, how='files ranked by commits since 2026-01-01; top 5', kind='chatty')
add('chatty', "so, umm, how many tags have been pushed since the start of 2024? just curious", {'count': sorted({sum(1 for t in TAGS.values() if t['tdate'] >= '2024'), sum(1 for t in TAGS.values() if git('log', '-1', '--format=%cI', t['commit']).strip() >= '2024')})}, 'tags with tagger date ;; commit date >= 2024-01-01')

# ---------------- must decline
for t, why in [
    ('Which contributor writes the cleanest commits?', 'judgement'),
    ('Why did Nicholas rewrite the grid code?', 'motive; history has no reasons beyond messages'),
    ('Which commit introduced the most bugs?', 'judgement / fact not in history'),
    ('How many users does tmux have?', 'fact not in history'),
    ('What was the mood of the team in 2019?', 'judgement'),
    ('How many hours did Thomas spend on tmux last year?', 'fact not in history (time spent)'),
    ('Who is the best developer on this project?', 'judgement'),
    ('How many commits did Ben make?', 'ambiguous: Ben Boeckel and Ben Maurer'),
    ('What did Michael commit?', 'ambiguous: Michael Grant and Michael McConville'),
    ('Which pull request got the most review comments?', 'fact not in git history'),
    ('How much was Tiago paid for his work on tmux?', 'fact not in history'),
    ('Should I use tmux or screen?', 'judgement / off-topic'),
    ('Was the 3.0 release a good one?', 'judgement'),
    ("what's the CI pass rate on master?", 'fact not in history'),
    ('What will tmux 3.8 contain?', 'future; not in history'),
    ('Is Thomas Adam a better programmer than Tiago Cunha?', 'judgement'),
    ('How many commits will land next month?', 'prediction'),
    ("When was Michael's first commit?", 'ambiguous: Michael Grant and Michael McConville'),
    ('Which file in tmux is the most confusing to read?', 'judgement'),
    ('Which countries do the contributors live in?', 'fact not in history'),
]:
    add('decline', t, {'decline': True}, why)
for first in ('Ben', 'Michael'):
    assert len({n for n in IDS if n.split()[0] == first}) >= 2
