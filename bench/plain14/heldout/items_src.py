# items of the plain14 set (BOTH halves): texts written first, then the spec that computes each answer with git.
# Executed by /work/plain14/build_set.py (its helpers are in scope). NOW = 2026-06-05T12:00:00Z.
T = ts
NOWS = int(NOW.timestamp())
DAY = 86400

def revs(a, b):
    hs = set(git('rev-list', '%s..%s' % (a, b)).split())
    return [c for c in LOG if c['h'] in hs]

def rng_count(a, b, date_alt=True, **kw):
    vals = [len([c for c in revs(a, b) if kw.get('path') is None or c['h'] in touching(kw['path'])])]
    how = ['git rev-list --count %s..%s%s' % (a, b, ' -- ' + kw['path'] if kw.get('path') else '')]
    if date_alt:
        t0 = tag_ts(a)
        e, h = E_count(since=t0 + 1, until=(tag_ts(b) + 1 if b != 'HEAD' else None), **kw)
        vals += e['count']; how += ['or by date after the tag: ' + h[0]]
    return {'count': dedup(vals)}, how

def tag_ts(name):
    return int(git('log', '-1', '--format=%ct', name).strip())

def tagger_ts(name):
    return int(git('for-each-ref', '--format=%(creatordate:unix)', 'refs/tags/' + name).strip())

def day(x): return dt.datetime.fromtimestamp(x, dt.timezone.utc).strftime('%Y-%m-%d')

def dir_fewest(since, until):
    alts = []
    for date in ('ct', 'at'):
        for merges in (True, False):
            rk = numstat_files(since, until, None, merges, date, (), 'dir', None)
            lo = min(v for _, v in rk)
            low = [k for k, v in rk if v == lo]
            assert len(low) == 1, low
            alts.append(low[0])
    return {'dir_fewest': dedup(alts)}, ["git log --format='@%H %at %ct' --name-only --no-renames HEAD; commits per top-level directory in 2025 (ct or at, merges in/out); the unique minimum"]

def make_items():
    I = []
    def add(kind, text, f):
        e, how = f()
        I.append({'kind': kind, 'text': text, 'expect': e, 'how': how})
    JN = emails_of('Jameson Nash'); BN = emails_of('Ben Noordhuis'); JJA = emails_of('Juan José Arboleda')
    SG = emails_of('Santiago Gimeno'); SIC = emails_of('Saúl Ibarra Corretgé'); BB = emails_of('Bert Belder')
    CJ = emails_of('cjihrig'); RD = emails_of('Ryan Dahl'); ES = emails_of('Edy Silva')
    BOT = emails_of('dependabot[bot]')
    MAY = (T('2026-05-01'), T('2026-06-01')); D30 = [NOWS - 30 * DAY, T('2026-05-06')]
    Q1 = (T('2026-01-01'), T('2026-04-01')); M3 = [NOWS - 92 * DAY, T('2026-03-05'), NOWS - 90 * DAY]
    HALF = [NOWS - 182 * DAY, T('2025-12-05'), NOWS - 183 * DAY]
    Y26 = T('2026-01-01'); Y25 = (T('2025-01-01'), T('2026-01-01'))
    # ------------------------------------------------------------ window
    add('window', 'what got committed in april 2026?', lambda: E_hashes(T('2026-04-01'), T('2026-05-01')))
    add('window', 'commits last month', lambda: E_hashes([MAY[0]] + D30, [MAY[1], None]))
    add('window', 'Show me everything that landed in the past two weeks', lambda: E_hashes([NOWS - 14 * DAY, T('2026-05-22')]))
    add('window', 'how many commits were made last quarter', lambda: (
        {'count': dedup(E_count(*Q1)[0]['count'] + E_count(M3)[0]['count'])},
        E_count(*Q1)[1] + ['or the last three months: '] + E_count(M3)[1]))
    add('window', 'number of commits in the past half year', lambda: E_count(HALF))
    add('window', 'list commits between Feb 1 and Feb 15, 2026', lambda: E_hashes(T('2026-02-01'), [T('2026-02-16'), T('2026-02-15')]))
    add('window', 'commits from 2025-07-01 to 2025-07-31', lambda: E_hashes(T('2025-07-01'), [T('2025-08-01'), T('2025-07-31')]))
    add('window', 'how many commits since v1.40.0?', lambda: rng_count('v1.40.0', 'HEAD'))
    add('window', 'what changed between the last two releases', lambda: (
        {'hashes_set': dedup([sorted(c['h'] for c in revs('v1.52.0', 'v1.52.1'))] +
                             [sorted(c['h'] for c in sel(since=tag_ts('v1.52.0') + 1, until=tag_ts('v1.52.1') + 1, date=d)) for d in ('ct', 'at')])},
        ['git rev-list v1.52.0..v1.52.1 (the two newest v* tags), or commits dated after the first tag up to the second']))
    add('window', 'commits in december', lambda: E_hashes(T('2025-12-01'), T('2026-01-01')))
    add('window', 'last 5 commits', lambda: E_last_n(5))
    add('window', 'count of commits this year', lambda: E_count(Y26))
    add('window', 'What was committed during the first week of March 2026?', lambda: E_hashes(T('2026-03-01'), [T('2026-03-08'), T('2026-03-07')]))
    add('window', 'commits on 14 May 2026', lambda: E_hashes(T('2026-05-14'), T('2026-05-15')))
    add('window', 'How many commits happened in Q3 2025?', lambda: E_count(T('2025-07-01'), T('2025-10-01')))
    add('window', 'total commits in 2019', lambda: E_count(T('2019-01-01'), T('2020-01-01')))
    # ------------------------------------------------------------ person
    add('person', 'show me Jameson Nash commits from this year', lambda: E_hashes(Y26, author=JN))
    add('person', 'how many commits has Ben Noordhuis made in total', lambda: E_count(author=BN))
    add('person', 'bnoordhuis commits since 2026-03-01', lambda: E_hashes(T('2026-03-01'), author=BN))
    add('person', 'commits by soyjuanarbol@gmail.com in March 2026', lambda: E_hashes(T('2026-03-01'), T('2026-04-01'), author=JJA))
    add('person', 'what did Santiago commit in 2025?', lambda: E_hashes(*Y25, author=SG))
    add('person', "Arboleda's commits last quarter", lambda: (
        {'any_of': [E_hashes(*Q1, author=JJA)[0], E_hashes(M3, author=JJA)[0]]}, E_hashes(*Q1, author=JJA)[1] + E_hashes(M3, author=JJA)[1]))
    add('person', 'how many commits did Saúl Ibarra Corretgé author', lambda: E_count(author=SIC))
    add('person', 'list the commits made by dependabot', lambda: E_hashes(author=BOT))
    add('person', 'first commit by Jameson Nash', lambda: (
        {'hash': dedup([min(sel(author=JN), key=lambda c: c[k])['h'] for k in ('at', 'ct')] + [sel(author=JN)[-1]['h']])},
        [win_how(None, None, author=JN) + '; earliest by author date, committer date, or last in git log order']))
    add('person', 'when did Bert Belder last commit?', lambda: (
        {'date': dedup([day(max(c[k] for c in sel(author=BB))) for k in ('at', 'ct')])},
        [win_how(None, None, author=BB) + '; latest author or committer date']))
    add('person', "list Edy Silva's commits", lambda: E_hashes(author=ES))
    add('person', 'how many commits did Colin Ihrig make in 2016', lambda: E_count(T('2016-01-01'), T('2017-01-01'), author=CJ))
    # ------------------------------------------------------------ count
    add('count', 'how many commits are there in total', lambda: E_count())
    add('count', 'number of commits touching src/unix/linux.c', lambda: E_file_count('src/unix/linux.c'))
    add('count', 'how many distinct authors have contributed', lambda: E_distinct_authors())
    add('count', 'how many commits touched docs/ in 2025', lambda: E_count(*Y25, path='docs'))
    add('count', 'count commits by Ben Noordhuis in 2025', lambda: E_count(*Y25, author=BN))
    add('count', 'how many commits changed test/ since v1.50.0', lambda: rng_count('v1.50.0', 'HEAD', path='test'))
    add('count', 'How many people committed in March 2026?', lambda: E_distinct_authors(T('2026-03-01'), T('2026-04-01')))
    add('count', "number of commits mentioning io_uring in the message", lambda: (
        {'count': dedup([len(git('log', '--format=%H', '-i', '-E', '--grep=' + g, 'HEAD').split()) for g in ('io_uring', 'io[_-]?uring')] +
                        [len(git('log', '--format=%H', '--grep=io_uring', 'HEAD').split())])},
        ["git log --format=%H -i -E --grep=io_uring HEAD | wc -l (or io[_-]?uring, or case-sensitive)"]))
    add('count', 'how many commits were authored in 2024', lambda: E_count(T('2024-01-01'), T('2025-01-01')))
    add('count', 'How many commits has include/uv.h had since the start of 2025?', lambda: E_file_count('include/uv.h', since=Y25[0]))
    add('count', 'commit count for src/win in the last 6 months', lambda: E_count(HALF, path='src/win'))
    # ------------------------------------------------------------ ranking
    add('ranking', 'top 5 contributors of all time', lambda: E_top_authors(5))
    add('ranking', 'who committed the most in 2025?', lambda: E_top_authors(1, *Y25))
    add('ranking', "who's the second most active committer since 2025-06-01", lambda: E_top_authors(2, T('2025-06-01'), rank_pos=2))
    add('ranking', 'top 3 authors in src/win', lambda: E_top_authors(3, path='src/win'))
    add('ranking', 'most frequently changed files in 2026', lambda: E_top_files(3, Y26))
    add('ranking', 'which directory under src gets the most commits', lambda: E_top_files(1, path='src', by='dir', under='src'))
    add('ranking', 'top 10 most changed files under src/unix', lambda: E_top_files(10, path='src/unix'))
    add('ranking', 'which file has been modified the most ever', lambda: E_top_files(1))
    add('ranking', 'third biggest contributor to test/', lambda: E_top_authors(3, path='test', rank_pos=3))
    add('ranking', 'top committers last quarter', lambda: (
        {'any_of': E_top_authors(2, *Q1)[0]['any_of'] + E_top_authors(2, M3)[0]['any_of']}, E_top_authors(2, *Q1)[1] + E_top_authors(2, M3)[1]))
    add('ranking', 'rank the top-level directories by number of commits', lambda: E_top_files(3, by='dir'))
    add('ranking', 'who has touched include/uv.h the most', lambda: E_file_authors('include/uv.h', top=1))
    add('ranking', 'which top-level directory saw the fewest commits in 2025?', lambda: dir_fewest(*Y25))
    add('ranking', 'top 4 authors since v1.48.0', lambda: (
        {'any_of': [{'authors_ordered': [ident(k) for k in o]} for by in ('email', 'name') for o in tie_orders(rank(revs('v1.48.0', 'HEAD'), by), 4)
                    if no_tie(rank(revs('v1.48.0', 'HEAD'), by), 4)]
         + E_top_authors(4, tag_ts('v1.48.0') + 1)[0]['any_of']},
        ['git shortlog -sne v1.48.0..HEAD (by mapped email or name) top 4, or by date after the tag']))
    # ------------------------------------------------------------ file
    add('file', 'who added src/unix/udp.c to the repo', lambda: E_file_creator('src/unix/udp.c'))
    add('file', 'who last changed src/win/pipe.c', lambda: E_file_last('src/win/pipe.c'))
    add('file', 'when was include/uv.h last modified', lambda: E_file_last('include/uv.h', 'date'))
    add('file', 'how many times has CMakeLists.txt changed', lambda: E_file_count('CMakeLists.txt'))
    add('file', 'history of src/unix/kqueue.c since January 2026', lambda: E_file_hashes('src/unix/kqueue.c', since=Y26))
    add('file', 'who changed docs/src/fs.rst in 2025', lambda: E_file_authors('docs/src/fs.rst', *Y25))
    add('file', 'first commit of src/threadpool.c', lambda: E_file_creator('src/threadpool.c', 'hash'))
    add('file', 'last 3 commits to src/unix/stream.c', lambda: E_file_hashes('src/unix/stream.c', last=3))
    add('file', 'when was test/test-spawn.c created?', lambda: E_file_creator('test/test-spawn.c', 'date'))
    add('file', 'Which commits touched SECURITY.md?', lambda: E_file_hashes('SECURITY.md'))
    add('file', 'who has changed src/uv-common.c the most', lambda: E_file_authors('src/uv-common.c', top=1))
    add('file', 'number of commits to src/unix/core.c by Ben Noordhuis', lambda: E_file_count('src/unix/core.c', author=BN))
    add('file', 'which commit last touched src/unix/pipe.c', lambda: E_file_last('src/unix/pipe.c', 'hash'))
    # ------------------------------------------------------------ commit_files
    add('commit_files', 'which files did 6179e7af change', lambda: E_commit_files('6179e7af'))
    add('commit_files', 'files touched by commit 40d45efe', lambda: E_commit_files('40d45efe'))
    add('commit_files', 'what did commit fa0ac9ec modify?', lambda: E_commit_files('fa0ac9ec'))
    add('commit_files', 'how many files changed in 9f5306fa', lambda: E_commit_files('9f5306fa', count=True))
    add('commit_files', 'what files did the most recent commit change', lambda: E_commit_files('HEAD'))
    add('commit_files', 'diffstat of 1cfa32ff', lambda: E_commit_files('1cfa32ff'))
    add('commit_files', 'which files were added in commit 276f6acf', lambda: E_commit_files('276f6acf', status='A'))
    # ------------------------------------------------------------ merges
    add('merges', 'total number of merges in the history', lambda: ({'count': [sum(c['merge'] for c in LOG)]}, ['git rev-list --merges --count HEAD']))
    add('merges', 'list merges from 2014', lambda: E_hashes(T('2014-01-01'), T('2015-01-01'), author=lambda c: c['merge'], mopts=(True,)))
    add('merges', 'who made the most merge commits', lambda: E_top_authors(1, author=lambda c: c['merge'], mopts=(True,)))
    add('merges', 'when was the last merge', lambda: (
        {'date': dedup([day(max(c[k] for c in LOG if c['merge'])) for k in ('at', 'ct')])}, ['git log --merges -1 --format=%ad/%cd HEAD']))
    add('merges', 'were there any merge commits in 2025?', lambda: E_bool(bool(sel(*Y25, author=lambda c: c['merge'])), ['git log --merges --since=2025-01-01 --until=2026-01-01 HEAD']))
    add('merges', 'how many merges did Bert Belder do', lambda: E_count(author=lambda c: c['merge'] and c['email'] in BB, mopts=(True,)))
    # ------------------------------------------------------------ tags
    def TG(releases_only=False): return tags(releases_only=releases_only)[0]
    add('tags', 'what is the latest release', lambda: ({'tag': dedup([TG(True)[0]['name'], TG()[0]['name']])}, ['git for-each-ref --sort=-creatordate refs/tags (first v* tag)']))
    add('tags', 'list the last 5 releases', lambda: ({'any_of': [{'names_ordered': [t['name'] for t in TG(True)[:5]]}, {'names_ordered': [t['name'] for t in TG()[:5]]}]},
                                                     ['git for-each-ref --sort=-creatordate refs/tags, first 5 (v* only, or every tag)']))
    add('tags', 'when was v1.48.0 tagged', lambda: ({'date': dedup([day(tagger_ts('v1.48.0')), day(tag_ts('v1.48.0'))])}, ['git for-each-ref refs/tags/v1.48.0 %(creatordate); or its commit date']))
    add('tags', 'which commit is tagged v1.50.0', lambda: ({'hash': [git('rev-parse', 'v1.50.0^{commit}').strip()]}, ['git rev-parse v1.50.0^{commit}']))
    add('tags', 'how many releases were there in 2025', lambda: ({'count': dedup([len([t for t in TG(True) if Y25[0] <= t['ts'] < Y25[1]]), len([t for t in TG() if Y25[0] <= t['ts'] < Y25[1]])])},
                                                                 ['git for-each-ref refs/tags by creatordate in 2025 (v* only, or all tags)']))
    add('tags', 'tags matching v1.4*', lambda: ({'names_set': sorted(t['name'] for t in TG() if t['name'].startswith('v1.4'))}, ["git tag -l 'v1.4*'"]))
    add('tags', 'how many commits between v1.51.0 and v1.52.0', lambda: rng_count('v1.51.0', 'v1.52.0'))
    add('tags', 'which release came right before v1.49.0?', lambda: ({'tag': ['v1.48.0']}, ['git tag --sort=v:refname | grep -B1 v1.49.0 (and by creatordate: also v1.48.0)']))
    # ------------------------------------------------------------ exclusion
    add('exclusion', 'commits in March 2026 not touching test/', lambda: (
        {'any_of': [E_hashes(T('2026-03-01'), T('2026-04-01'), notpath='test', notpath_mode=m)[0] for m in ('none-under', 'touches-outside')]},
        [win_how(T('2026-03-01'), T('2026-04-01')) + "; either no file under test/ (git log -- test) or some file outside it (git log -- . ':(exclude)test')"]))
    add('exclusion', 'top contributors in 2025 ignoring dependabot', lambda: E_top_authors(3, *Y25, exclude=BOT))
    add('exclusion', 'most changed files since 2025-01-01 except ChangeLog', lambda: E_top_files(3, Y25[0], excl_files=('ChangeLog',)))
    add('exclusion', 'Jameson Nash commits in 2026, excluding anything under src/win', lambda: (
        {'any_of': [E_hashes(Y26, author=JN, notpath='src/win', notpath_mode=m)[0] for m in ('none-under', 'touches-outside')]},
        [win_how(Y26, None, author=JN) + '; no file under src/win, or some file outside it']))
    add('exclusion', 'who committed most in the last year, not counting Ben Noordhuis', lambda: (
        {'any_of': E_top_authors(1, *Y25, exclude=BN)[0]['any_of'] + E_top_authors(1, [NOWS - 365 * DAY, T('2025-06-05')], exclude=BN)[0]['any_of']},
        E_top_authors(1, *Y25, exclude=BN)[1] + E_top_authors(1, [NOWS - 365 * DAY], exclude=BN)[1]))
    add('exclusion', 'most changed directories in src except src/win', lambda: (
        {'any_of': [{'dirs_ordered': [d for d in a['dirs_ordered'] if d != 'src/win'][:1]} for a in E_top_files(3, path='src', by='dir', under='src')[0]['any_of']]},
        E_top_files(3, path='src', by='dir', under='src')[1] + ['src/win dropped; top 1']))
    add('exclusion', 'how many commits overall excluding merges', lambda: ({'count': [sum(not c['merge'] for c in LOG)]}, ['git rev-list --no-merges --count HEAD']))
    # ------------------------------------------------------------ yesno
    add('yesno', 'has Ben Noordhuis committed anything in 2026?', lambda: E_bool(bool(sel(Y26, author=BN)), [win_how(Y26, None, author=BN)]))
    add('yesno', 'did anyone commit in the past week?', lambda: E_bool(any(sel(s) for s in (NOWS - 7 * DAY, T('2026-05-29'))), [win_how([NOWS - 7 * DAY], None)]))
    add('yesno', 'Has Bert Belder ever made changes to src/win/tcp.c?', lambda: E_bool(bool(sel(author=BB, path='src/win/tcp.c')), ['git log --author (mapped Bert Belder) -- src/win/tcp.c']))
    add('yesno', 'Is there a v1.53.0 release?', lambda: E_bool(any(t['name'] == 'v1.53.0' for t in TG()), ['git tag -l v1.53.0']))
    add('yesno', 'were there any commits to include/uv.h in April 2026', lambda: E_bool(bool(sel(T('2026-04-01'), T('2026-05-01'), path='include/uv.h')), ['git log --since=2026-04-01 --until=2026-05-01 -- include/uv.h']))
    add('yesno', 'has src/unix/linux.c been changed since v1.52.1?', lambda: E_bool(bool([c for c in revs('v1.52.1', 'HEAD') if c['h'] in touching('src/unix/linux.c')]), ['git log v1.52.1..HEAD -- src/unix/linux.c']))
    add('yesno', 'did Ryan Dahl commit anything after 2012?', lambda: E_bool(bool(sel(T('2013-01-01'), author=RD)), [win_how(T('2013-01-01'), None, author=RD)]))
    add('yesno', 'any commits from Saúl this year?', lambda: E_bool(bool(sel(Y26, author=SIC)), [win_how(Y26, None, author=SIC)]))
    # ------------------------------------------------------------ terse (git-like)
    add('terse', 'log -n5 src/unix', lambda: E_last_n(5, path='src/unix'))
    add('terse', 'author=vtjnash since=30d', lambda: E_hashes(D30, author=JN))
    add('terse', 'shortlog -sn --since=2026-01-01', lambda: E_top_authors(3, Y26))
    add('terse', 'git log --author=santiago --since=2025-10-01 --until=2025-12-31', lambda: E_hashes(T('2025-10-01'), [T('2025-12-31'), T('2026-01-01')], author=SG))
    add('terse', 'show --stat HEAD~1', lambda: E_commit_files('HEAD~1'))
    add('terse', 'count commits path:src/win since:2025-01-01', lambda: E_count(Y25[0], path='src/win'))
    add('terse', 'top-files src/win since=2025-01-01', lambda: E_top_files(2, Y25[0], path='src/win'))
    add('terse', 'tags -n3', lambda: ({'any_of': [{'names_ordered': [t['name'] for t in TG(True)[:3]]}, {'names_ordered': [t['name'] for t in TG()[:3]]}]}, ['git for-each-ref --sort=-creatordate refs/tags --count=3']))
    add('terse', 'log --merges --since=2013-01-01 --until=2013-12-31 | wc -l', lambda: E_count(T('2013-01-01'), [T('2013-12-31'), T('2014-01-01')], author=lambda c: c['merge'], mopts=(True,)))
    # ------------------------------------------------------------ chatter / typos / agent phrasing
    add('chatter', 'hey, could you pls tell me who made the most commits to libuv in 2024? thanks!!', lambda: E_top_authors(1, T('2024-01-01'), T('2025-01-01')))
    add('chatter', 'hw many comits did jameson nash make in 2026', lambda: E_count(Y26, author=JN))
    add('chatter', 'As an agent I need the list of files changed by commit 88775685. Return paths only.', lambda: E_commit_files('88775685'))
    add('chatter', 'ok so um what happened in the repo during february 2026', lambda: E_hashes(T('2026-02-01'), T('2026-03-01')))
    add('chatter', 'WHO FIRST ADDED src/unix/tcp.c', lambda: E_file_creator('src/unix/tcp.c'))
    add('chatter', "I'm reviewing the spawn code - who has been changing src/unix/process.c this year?", lambda: E_file_authors('src/unix/process.c', Y26))
    add('chatter', 'quick q: number of commits in the last 90 days?', lambda: E_count([NOWS - 90 * DAY, T('2026-03-07')]))
    add('chatter', 'yo which version got tagged in february 2026?', lambda: ({'tag': [t['name'] for t in TG() if T('2026-02-01') <= t['ts'] < T('2026-03-01')]}, ['git for-each-ref --sort=-creatordate refs/tags, creatordate in February 2026 (exactly one)']))
    add('chatter', 'how many commits did saul ibarra make in 2015', lambda: E_count(T('2015-01-01'), T('2016-01-01'), author=SIC))
    add('chatter', 'COMMITS BY SANTIAGO GIMENO IN APRIL 2026', lambda: E_hashes(T('2026-04-01'), T('2026-05-01'), author=SG))
    add('chatter', 'pleaes list the 3 most recent commits to docs/', lambda: E_last_n(3, path='docs'))
    # ------------------------------------------------------------ decline (judgment, facts the history lacks, ambiguous names)
    for t in ['which contributor writes the cleanest code?',
              'is the switch to posix_spawn a good idea?',
              'why did Bert Belder stop contributing?',
              'how many users does libuv have?',
              'what did reviewers say in PR #5135?',
              'how many commits did Michael make',
              "what's the test coverage of src/unix?",
              'how fast is uv_run compared to libevent?',
              'who should review my patch to src/win/pipe.c?',
              'which release was the most stable?',
              'how many GitHub stars does libuv have',
              'how many hours did Jameson spend on the io_uring work',
              'summarize the design philosophy of libuv',
              'show me what Alex committed',
              'will v1.53.0 ship next month?',
              'which bugs are still open?',
              'who is the friendliest maintainer',
              "what's the weather in Amsterdam today",
              'how many downloads did v1.52.1 get',
              'did CI pass on the latest commit?',
              'is Ben Noordhuis a better engineer than Bert Belder?']:
        I.append({'kind': 'decline', 'text': t, 'expect': {'decline': True},
                  'how': ['must decline: judgment, a fact the git history lacks, or an ambiguous name (Michael: %d mapped authors, Alex*: %d)' % (
                      len({c['name'] for c in LOG if c['name'].split()[0] == 'Michael'}), len({c['name'] for c in LOG if c['name'].lower().startswith('alex')}))]})
    return I
