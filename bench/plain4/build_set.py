#!/usr/bin/env python3
"""Builds router.jsonl: every expect is computed by running the item's `how` (git, in a fresh fixture)."""
import json, os, subprocess, sys, tempfile
HERE = os.path.dirname(os.path.abspath(__file__))
NOW = '2026-05-13T15:00:00Z'   # Wednesday; last commit 2026-05-12 (Tuesday)
fx = tempfile.mkdtemp(prefix='tidepool-')
subprocess.run([os.path.join(HERE, 'make_fixture.sh'), fx], check=True)
ENV = {'PATH': os.environ['PATH'], 'HOME': fx + '/.nohome', 'TZ': 'UTC', 'GIT_CONFIG_NOSYSTEM': '1'}
def sh(cmd):
    r = subprocess.run(['bash', '-c', 'set -o pipefail; ' + cmd], cwd=fx, env=ENV, capture_output=True, text=True)
    if r.returncode: sys.exit('how failed: %s\n%s' % (cmd, r.stderr))
    return r.stdout.strip()
# canonical people: name -> all emails (after .mailmap)
PEOPLE = {}
for line in sh("git log --format='%aN|%aE|%an|%ae'").splitlines():
    n, e, rn, re_ = line.split('|'); PEOPLE.setdefault(n, set()).update([e, re_])
def who(name):  # all identities of a person
    return sorted({name} | PEOPLE[name])

W = lambda a, b: "--since='%s +0000' --until='%s +0000'" % (a, b)
Y2025 = W('2025-01-01 00:00:00', '2025-12-31 23:59:59')
Y2026 = W('2026-01-01 00:00:00', '2026-12-31 23:59:59')
items = []
def Q(text, kind, how, typ, **kw):
    items.append(dict(text=text, kind=kind, how=how, typ=typ, **kw))
def C(text, kind, *hows):   # count; several hows = several accepted readings
    Q(text, kind, ' ;; '.join(hows), 'count')

# ---------- counts over windows
C("How many commits are there in total?", 'count', "git rev-list --count HEAD")
C("how many commits last week", 'window-relative',
  "git rev-list --count HEAD --since='2026-05-06 15:00:00 +0000'",
  "git rev-list --count HEAD " + W('2026-05-04 00:00:00', '2026-05-10 23:59:59'),
  "git rev-list --count HEAD --since='2026-05-06 00:00:00 +0000'")
C("How many commits were made in March 2026?", 'window-month', "git rev-list --count HEAD " + W('2026-03-01 00:00:00', '2026-03-31 23:59:59'))
C("commits in Q1 2026, how many?", 'window-quarter', "git rev-list --count HEAD " + W('2026-01-01 00:00:00', '2026-03-31 23:59:59'))
C("How many commits did we land in 2025?", 'window-year', "git rev-list --count HEAD " + Y2025)
C("How many commits since v1.2.0?", 'window-tag', "git rev-list --count v1.2.0..HEAD")
C("How many commits between v1.3.0 and v1.4.0?", 'window-tag', "git rev-list --count v1.3.0..v1.4.0")
C("How many commits in the last 30 days?", 'window-relative',
  "git rev-list --count HEAD --since='2026-04-13 15:00:00 +0000'", "git rev-list --count HEAD --since='2026-04-13 00:00:00 +0000'")
C("number of commits made on weekends", 'window-weekday', "git log --format=%ad --date=format:%a | grep -cE 'Sat|Sun'")
C("How many merge commits are there?", 'merges', "git rev-list --count --merges HEAD")
C("How many commits did Priya make?", 'person-first', "git log --format=%aN | grep -c '^Priya Raghunathan$'")
C("How many commits has Amara Okafor authored?", 'person-full', "git log --format=%aN | grep -c '^Amara Okafor$'")
C("count commits by zofiak", 'person-handle', "git log --format=%aN | grep -c '^Zofia Kowalski$'", "git log --format=%an | grep -c '^zofiak$'")
C("how many commits from nightowl42@users.noreply.github.com?", 'person-email', "git log --format=%aE | grep -c '^nightowl42@users.noreply.github.com$'")
C("How many commits did Tanaka make in 2025?", 'person-surname', "git log %s --format=%%aN | grep -c '^Hiroshi Tanaka$'" % Y2025)
C("How many distinct authors committed in 2025?", 'distinct', "git log %s --format=%%aE | sort -u | wc -l" % Y2025)
C("How many people have contributed to this project?", 'distinct', "git log --format=%aE | sort -u | wc -l")
C("how many commits touched app/routes/billing.py?", 'file-count', "git rev-list --count HEAD -- app/routes/billing.py")
C("How many times has app/services/email.py been changed?", 'file-count',
  "git log --follow --format=%H -- app/services/email.py | wc -l", "git rev-list --count HEAD -- app/services/email.py")
C("how many commits changed files under tests/ in 2026?", 'path-count', "git rev-list --count HEAD %s -- tests/" % Y2026)
C("How many commits mention Stripe?", 'message', "git rev-list --count -i --grep=stripe HEAD")
C("How many reverts have there been?", 'revert', "git rev-list --count --grep='^Revert' HEAD")
C("How many commits did Ingrid make in the first half of 2025?", 'person-window',
  "git log %s --format=%%aN | grep -c '^Ingrid Johansson$'" % W('2025-01-01 00:00:00', '2025-06-30 23:59:59'))
C("How many non-merge commits since January 1st 2026?", 'exclusion', "git rev-list --count --no-merges HEAD --since='2026-01-01 00:00:00 +0000'")
C("How many commits touched docs/ last quarter?", 'path-window',
  "git rev-list --count HEAD %s -- docs/" % W('2026-01-01 00:00:00', '2026-03-31 23:59:59'),
  "git rev-list --count HEAD --since='2026-02-13 15:00:00 +0000' -- docs/")
C("commits by Mateo Gutierrez in May 2026?", 'person-window',
  "git log %s --format=%%aN | grep -c '^Mateo Gutierrez$'" % W('2026-05-01 00:00:00', '2026-05-31 23:59:59'))
C("How many commits did Fatima make on Thursdays?", 'window-weekday', "git log --format='%ad|%aN' --date=format:%a | grep -c '^Thu|Fatima Zahra Benali$'")
C("How many commits since v1.4.0 were not by Amara Okafor?", 'exclusion', "git log v1.4.0..HEAD --format=%aN | grep -vc '^Amara Okafor$'")
C("How many commits in 2025, not counting merges?", 'exclusion', "git rev-list --count --no-merges HEAD " + Y2025)
C("git log --oneline v1.4.1..v1.4.2 | wc -l", 'terse', "git rev-list --count v1.4.1..v1.4.2")
C("count commits app/routes/users.py since 2026-01-01", 'terse', "git rev-list --count HEAD --since='2026-01-01 00:00:00 +0000' -- app/routes/users.py")
C("Hey, quick one for standup: how many commits did the team push in the past two weeks?", 'chatty',
  "git rev-list --count HEAD --since='2026-04-29 15:00:00 +0000'", "git rev-list --count HEAD --since='2026-04-29 00:00:00 +0000'")
C("As an agent I need the number of commits touching app/services/payments.py since v1.0.0, please.", 'chatty',
  "git rev-list --count v1.0.0..HEAD -- app/services/payments.py")
C("How many lines were added to app/routes/auth.py in total?", 'lines', "git log --numstat --format= -- app/routes/auth.py | awk '{s+=$1} END {print s}'")

# ---------- people rankings (author = top row; list = ordered top N)
A = lambda t, k, h, **kw: Q(t, k, h, 'author', **kw)
A("Who made the most commits?", 'ranking', "git shortlog -sne HEAD | head -1")
Q("top 3 contributors in 2025", 'ranking', "git shortlog -sne HEAD %s | head -3" % Y2025, 'authors_ordered')
A("Who was the most active committer last quarter?", 'ranking',
  "git shortlog -sne HEAD %s | head -1 ;; git shortlog -sne HEAD --since='2026-02-13 15:00:00 +0000' | head -1" % W('2026-01-01 00:00:00', '2026-03-31 23:59:59'))
A("Who has the second most commits overall?", 'ranking-nth', "git shortlog -sne HEAD | sed -n 2p", rank=2)
A("Who has the fewest commits?", 'ranking-fewest', "git shortlog -sne HEAD | tail -1", rank=-1)
A("Who changed app/models/invoice.py the most?", 'file-people', "git shortlog -sne HEAD -- app/models/invoice.py | head -1")
A("who contributed most to docs/ in 2025?", 'path-people', "git shortlog -sne HEAD %s -- docs/ | head -1" % Y2025)
A("Who merged the most pull requests?", 'merges', "git shortlog -sne --merges HEAD | head -1")
A("Who committed most in 2026, excluding Amara?", 'exclusion', "git shortlog -sne HEAD %s | grep -v 'Amara Okafor' | head -1" % Y2026)
Q("shortlog -sn since 2026-01-01", 'terse', "git shortlog -sne HEAD --since='2026-01-01 00:00:00 +0000' | head -2", 'authors_ordered')
# ---------- files rankings
P = lambda t, k, h, **kw: Q(t, k, h, 'paths_ordered', **kw)
FS = "git log --no-renames --format= --name-only %s | grep . | sort | uniq -c | sort -k1,1nr -k2 | awk '{print $2}'"
P("Which file has been changed the most?", 'file-ranking', (FS % 'HEAD') + " | head -1")
P("What are the 3 most frequently modified files in app/routes/?", 'file-ranking', (FS % 'HEAD -- app/routes/') + " | head -3")
P("most changed file in tests/ since v1.3.0", 'file-ranking', (FS % 'v1.3.0..HEAD -- tests/') + " | head -1")
P("top files 2025", 'terse', (FS % ('HEAD ' + Y2025)) + " | head -1")
Q("Which directory under app/ saw the most commits in 2025?", 'per-directory',
  "git log %s --format=@%%H --name-only -- app/ | awk '/^@/{c=$0;next} NF{sub(/\\/[^\\/]*$/,\"\"); if(!s[c\" \"$0]++) n[$0]++} END{for(d in n) print n[d], d}' | sort -k1,1nr | head -1 | awk '{print $2}'" % Y2025,
  'dir_top')
# ---------- file history
A("Who created app/routes/search.py?", 'file-creator', "git log --diff-filter=A --format='%aN <%aE>' -- app/routes/search.py | tail -1")
A("Who last touched app/services/payments.py?", 'file-last', "git log -1 --format='%aN <%aE>' -- app/services/payments.py")
Q("When was docs/api.md last modified?", 'file-last', "git log -1 --format=%ad --date=short -- docs/api.md", 'date')
Q("Show the history of app/services/email.py", 'file-history',
  "git log --follow --format=%H -- app/services/email.py ;; git log --format=%H -- app/services/email.py", 'hashes_set')
A("Who added the CI workflow file .github/workflows/ci.yml?", 'file-creator', "git log --diff-filter=A --format='%aN <%aE>' -- .github/workflows/ci.yml | tail -1")
A("Who deleted app/models/session.py?", 'file-deleted', "git log --diff-filter=D --format='%aN <%aE>' -- app/models/session.py | head -1")
Q("In which commit was app/models/session.py removed?", 'file-deleted', "git log --diff-filter=D --format=%H -- app/models/session.py | head -1", 'hash')
Q("what was app/services/cache_backend.py called before it was renamed?", 'rename', "git log --follow --name-status --format= -M -- app/services/cache_backend.py | awk '$1 ~ /^R/ {print $2}' | head -1", 'string')
Q("Which commit first added docs/CHANGELOG.md?", 'file-creator', "git log --diff-filter=A --format=%H -- docs/CHANGELOG.md | tail -1", 'hash')
Q("Who has touched migrations/0001_initial.py?", 'file-people', "git log --format='%aN <%aE>' -- migrations/0001_initial.py | sort -u", 'authors_set')
Q("authors docs/api.md", 'terse', "git log --format='%aN <%aE>' -- docs/api.md | sort -u", 'authors_set')
A("Could you please find out who made the very first commit to tests/test_billing.py? Thanks!", 'chatty',
  "git log --format='%aN <%aE>' -- tests/test_billing.py | tail -1")
# ---------- commits
SEARCH = "git log --format=%H --grep='add full-text search endpoint' | head -1"
Q("list the files changed in {SEARCH7}", 'commit-files', "git show --name-only --format= $(%s)" % SEARCH, 'paths_set')
A("who authored commit {REV1_7}?", 'commit-author', "git log -1 --format='%aN <%aE>' $(git log --format=%H --grep='^feat: switch payments to async client')")
Q("What files did the 'add database migrations' commit change?", 'commit-files', "git show --name-only --format= $(git log --format=%H --grep='add database migrations' | head -1)", 'paths_set')
Q("Which commit reverted 'feat: switch payments to async client'?", 'revert', "git log --format=%H --grep='^Revert \"feat: switch payments' | head -1", 'hash')
Q("list merge commits in April 2026", 'merges', "git log --merges --format=%%H %s" % W('2026-04-01 00:00:00', '2026-04-30 23:59:59'), 'hashes_set')
Q("Show me the commits that mention #600", 'message', "git log --format=%H --grep='#600\\b' -P", 'hashes_set')
Q("Which commit references issue 900?", 'message', "git log --format=%H --grep='#900\\b' -P", 'hash')
Q("What was the last commit by Lucas Ferreira?", 'person-last', "git log -1 --format=%H --author=lferreira@protonmail.com", 'hash')
Q("What was the very first commit in the repo?", 'commit', "git rev-list --max-parents=0 HEAD", 'hash')
Q("latest commit on main?", 'terse', "git rev-parse main", 'hash')
Q("list Daniel Kim's commits from 2026", 'person-window', "git log %s --format=%%H --author=daniel.kim@tidepool.dev" % Y2026, 'hashes_set')
Q("I'm writing the release notes: who contributed between v1.4.0 and v1.4.2?", 'chatty', "git log v1.4.0..v1.4.2 --format='%aN <%aE>' | sort -u", 'authors_set')
# ---------- yes/no
B = lambda t, k, h: Q(t, k, h, 'bool')
B("Did nightowl42 ever commit to app/routes/billing.py?", 'yes-no', "git log --format=%aE -- app/routes/billing.py | grep -c nightowl42 || true")
B("Has anyone touched docs/deploying.md since v1.4.0?", 'yes-no', "git rev-list --count v1.4.0..HEAD -- docs/deploying.md")
B("Was anything committed on Christmas Day 2025?", 'yes-no', "git rev-list --count HEAD " + W('2025-12-25 00:00:00', '2025-12-25 23:59:59'))
B("Did Ingrid Johansson commit anything in April 2026?", 'yes-no', "git log %s --format=%%aN | grep -c '^Ingrid Johansson$' || true" % W('2026-04-01 00:00:00', '2026-04-30 23:59:59'))
# ---------- must decline
for t in ["Who is the best developer on the team?", "Is the billing code well tested?",
          "How many commits did Lucas make?", "What did Lucas change last month?",
          "How many hours did Priya spend on the search feature?", "Which pull requests are still open?",
          "What is the test coverage of app/routes/auth.py?", "Who reviewed pull request #146?",
          "Which commit introduced the most bugs?", "Should we release v1.5.0 this week?",
          "Is Hiroshi a better engineer than Priya?", "How many customers use the billing endpoint?",
          "When will the CSV export feature be finished?"]:
    Q(t, 'decline', '', 'decline')

# ---------- compute expects
subst = {'SEARCH7': sh(SEARCH)[:7], 'REV1_7': sh("git log --format=%h --grep='^feat: switch payments to async client'")[:7]}
def parse_author(s):
    s = s.strip(); s = s.split('\t', 1)[-1] if '\t' in s else s
    name = s.split(' <')[0].strip(); return name
out = []
for i, it in enumerate(items, 1):
    text = it['text'].format(**subst)
    typ, how = it['typ'], it['how']
    hows = [h.strip() for h in how.split(';;')] if how else []
    res = [sh(h) for h in hows]
    if typ == 'count': exp = {'count': sorted({int(r) for r in res})}
    elif typ == 'author':
        exp = {'author': [who(n) for n in sorted({parse_author(r) for r in res})]}
        if 'rank' in it: exp['rank'] = it['rank']
    elif typ in ('authors_ordered', 'authors_set'):
        exp = {typ: [who(parse_author(l)) for l in res[0].splitlines()]}
    elif typ in ('paths_ordered', 'paths_set'): exp = {typ: res[0].splitlines()}
    elif typ == 'dir_top': exp = {'dir_top': sorted(set(res))}
    elif typ == 'date': exp = {'date': res[0]}
    elif typ == 'hashes_set': exp = {'hashes_set': [r.splitlines() for r in res]}
    elif typ == 'hash': exp = {'hash': res[0]}
    elif typ == 'string': exp = {'string': res[0]}
    elif typ == 'bool': exp = {'bool': int(res[0]) > 0}
    elif typ == 'decline': exp = {'decline': True}
    out.append({'id': 'q-%03d' % i, 'text': text, 'kind': it['kind'], 'expect': exp, 'how': how})
with open(os.path.join(HERE, 'router.jsonl'), 'w') as f:
    for o in out: f.write(json.dumps(o) + '\n')
print(len(out), 'items;', sum(1 for o in out if 'decline' in o['expect']), 'must-decline; HEAD', sh('git rev-parse HEAD'))
subprocess.run(['rm', '-rf', fx])
