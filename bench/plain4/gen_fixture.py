#!/usr/bin/env python3
"""Deterministic fast-import stream for 'tidepool', a Python (Flask-style) web app."""
import sys, datetime

class LCG:
    def __init__(s, seed): s.x = seed
    def n(s, m):
        s.x = (s.x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return (s.x >> 33) % m
    def pick(s, seq): return seq[s.n(len(seq))]

R = LCG(20241202)
P = {
 'amara':  ('Amara Okafor', 'amara.okafor@tidepool.dev'),
 'amara2': ('Amara Okafor', 'amara@users.noreply.github.com'),
 'hiro':   ('Hiroshi Tanaka', 'hiroshi.tanaka@tidepool.dev'),
 'priya':  ('Priya Raghunathan', 'priya.r@tidepool.dev'),
 'priya2': ('Priya R', 'praghunathan@gmail.com'),
 'lucasm': ('Lucas Moreau', 'lucas.moreau@tidepool.dev'),
 'lucasf': ('Lucas Ferreira', 'lferreira@protonmail.com'),
 'ingrid': ('Ingrid Johansson', 'ingrid@tidepool.dev'),
 'mateo':  ('Mateo Gutierrez', 'mateo.g@tidepool.dev'),
 'fatima': ('Fatima Zahra Benali', 'fz.benali@tidepool.dev'),
 'zofia':  ('Zofia Kowalski', 'zofia.kowalski@tidepool.dev'),
 'zofia2': ('zofiak', 'zofiak@users.noreply.github.com'),
 'daniel': ('Daniel Kim', 'daniel.kim@tidepool.dev'),
 'owl':    ('nightowl42', 'nightowl42@users.noreply.github.com'),
}
MAILMAP = """Amara Okafor <amara.okafor@tidepool.dev> <amara@users.noreply.github.com>
Priya Raghunathan <priya.r@tidepool.dev> Priya R <praghunathan@gmail.com>
Zofia Kowalski <zofia.kowalski@tidepool.dev> zofiak <zofiak@users.noreply.github.com>
"""
# weights of who commits, by era
ERA_W = [
 {'amara':10,'hiro':8,'priya':6,'lucasm':4,'ingrid':3},
 {'amara':7,'amara2':2,'hiro':7,'priya':5,'priya2':2,'lucasm':4,'ingrid':4,'mateo':4,'fatima':3,'zofia':2,'zofia2':1,'owl':1},
 {'amara':5,'amara2':2,'hiro':5,'priya':4,'priya2':2,'lucasm':3,'lucasf':4,'ingrid':3,'mateo':5,'fatima':4,'zofia':3,'zofia2':2,'daniel':4,'owl':1},
]
def who(era):
    w = ERA_W[era]; keys = sorted(w); tot = sum(w.values()); r = R.n(tot)
    for k in keys:
        r -= w[k]
        if r < 0: return k

START = datetime.datetime(2024, 6, 3, 9, 0, tzinfo=datetime.timezone.utc)
files = {}   # path -> list of lines
out = []
mark = [0]
def data(b):
    out.append('data %d\n' % len(b.encode())); out.append(b); out.append('\n')

def body(path, n):
    ext = path.rsplit('.', 1)[-1]
    L = []
    for i in range(n):
        t = R.n(1000)
        if ext == 'py': L.append('    value_%d = compute(%d)  # %s' % (t, R.n(99), path.split('/')[-1]))
        elif ext == 'md': L.append('Paragraph %d about %s.' % (t, path.split('/')[-1][:-3]))
        else: L.append('key_%d = %d' % (t, R.n(99)))
    return L

ts = [START]
def tick(days_lo, days_hi):
    d = days_lo + R.n(max(1, days_hi - days_lo + 1))
    t = ts[0] + datetime.timedelta(days=d, hours=R.n(9), minutes=R.n(60))
    t = t.replace(hour=8 + R.n(10))
    if t <= ts[0]: t = ts[0] + datetime.timedelta(minutes=37 + R.n(200))
    ts[0] = t
    return t

def commit(branch, who_k, msg, changes, t, parents=(), full_tree=None):
    """changes: list of ('M',path) / ('D',path) / ('R',old,new)"""
    mark[0] += 1; m = mark[0]
    name, email = P[who_k]
    e = int(t.timestamp())
    out.append('commit refs/heads/%s\nmark :%d\n' % (branch, m))
    out.append('author %s <%s> %d +0000\n' % (name, email, e))
    out.append('committer %s <%s> %d +0000\n' % (name, email, e))
    data(msg)
    if parents:
        out.append('from :%d\n' % parents[0])
        for p in parents[1:]: out.append('merge :%d\n' % p)
    if full_tree is not None:
        out.append('deleteall\n')
        for p in sorted(full_tree):
            out.append('M 100644 inline %s\n' % p); data('\n'.join(full_tree[p]) + '\n')
    for c in changes:
        if c[0] == 'M':
            out.append('M 100644 inline %s\n' % c[1]); data('\n'.join(files[c[1]]) + '\n')
        elif c[0] == 'D': out.append('D %s\n' % c[1])
        elif c[0] == 'R': out.append('R %s %s\n' % (c[1], c[2]))
    return m

def edit(path, add, dele=0):
    L = files.setdefault(path, [])
    for _ in range(min(dele, len(L))):
        del L[R.n(len(L))]
    for _ in range(add):
        L.insert(R.n(len(L) + 1), body(path, 1)[0])

AREAS = {
 'app/routes': ['auth.py', 'users.py', 'billing.py', 'health.py'],
 'app/models': ['user.py', 'invoice.py', 'session.py'],
 'app/services': ['mailer.py', 'payments.py', 'cache.py'],
 'tests': ['test_auth.py', 'test_users.py', 'test_billing.py', 'conftest.py'],
 'docs': ['index.md', 'deployment.md', 'api.md'],
}
VERBS = {'fix':'Fix', 'feat':'Add', 'refactor':'Refactor', 'docs':'Document', 'test':'Test', 'chore':'Bump'}
TOPICS = ['password reset token expiry', 'pagination on user list', 'invoice rounding', 'session cookie flags',
          'SMTP retry backoff', 'Stripe webhook signature check', 'redis cache TTL', 'health endpoint latency',
          'login rate limiting', 'CSV export of invoices', 'timezone handling in reports', 'email templates',
          'N+1 query in billing', 'OAuth callback state', 'flaky fixture cleanup', 'deployment guide typos']

# ---- initial commit
for a, fs in AREAS.items():
    for f in fs: edit(a + '/' + f, 6 + R.n(10))
files['app/__init__.py'] = ['from flask import Flask', 'app = Flask(__name__)']
files['pyproject.toml'] = ['[project]', 'name = "tidepool"', 'version = "0.1.0"']
files['README.md'] = ['# tidepool', 'A small billing web app.']
files['app/config.py'] = body('app/config.py', 8)
head = commit('main', 'amara', 'Initial commit: tidepool skeleton\n', [('M', p) for p in sorted(files)], START)
tree_main = None
marks_of = {}  # mark -> time
issue = [100]
tags = []
reverts_pending = []
count = 1
era = 0
merge_count = 0
plan_tags = {40:'v0.9.0', 80:'v1.0.0', 130:'v1.1.0', 175:'v1.1.1', 220:'v1.2.0', 270:'v1.3.0', 310:'v1.3.1', 350:'v1.4.0', 380:'v1.4.1', 400:'v1.4.2'}
special = {}
def one_change(w, t, branch, parent):
    global count
    kind = R.pick(['fix','fix','feat','feat','refactor','docs','test','chore'])
    topic = R.pick(TOPICS)
    issue[0] += 1 + R.n(4)
    if kind == 'docs':
        area = 'docs'
    elif kind == 'test':
        area = 'tests'
    else:
        area = R.pick(['app/routes','app/routes','app/models','app/services','app/services'])
    cand = sorted(p for p in files if p.startswith(area + '/'))
    f = R.pick(cand)
    ch = []
    a_, d_ = 1 + R.n(25), R.n(8)
    if kind != 'chore':
        edit(f, a_, d_); ch.append(('M', f))
    if kind in ('feat', 'fix') and R.n(3) == 0:
        tc = sorted(p for p in files if p.startswith('tests/'))
        g = R.pick(tc); edit(g, 2 + R.n(10), R.n(3)); ch.append(('M', g))
    if kind == 'chore':
        f = 'pyproject.toml'; edit(f, 1, 1); ch = [('M', f)]
        msg = 'chore: bump dependencies (#%d)\n' % issue[0]
    else:
        msg = '%s: %s %s (#%d)\n' % (kind, VERBS[kind], topic, issue[0])
        if R.n(4) == 0: msg += '\nCloses #%d.\n' % issue[0]
    m = commit(branch, w, msg, ch, t, parents=(parent,))
    count += 1
    return m, msg

# scripted special events by commit count
events = {
 25: 'add_ci', 55: 'mailmap', 70: 'rename_mailer', 95: 'add_migrations', 120: 'revert1',
 150: 'delete_session', 190: 'rename_docs', 240: 'revert2', 260: 'add_search', 300: 'rename_cache',
 330: 'delete_legacy', 360: 'changelog',
}
done_events = set()
target = 420
while count < target:
    era = 0 if count < 120 else (1 if count < 260 else 2)
    # event?
    ev = None
    for k in sorted(events):
        if count >= k and k not in done_events:
            ev = events[k]; done_events.add(k); break
    t = tick(0, 4)
    w = who(era)
    if ev:
        if ev == 'add_ci':
            files['.github/workflows/ci.yml'] = body('ci.yml', 12)
            head = commit('main', 'hiro', 'ci: add GitHub Actions workflow running pytest (#%d)\n' % (issue[0] + 1), [('M', '.github/workflows/ci.yml')], t, (head,))
        elif ev == 'mailmap':
            files['.mailmap'] = MAILMAP.strip().split('\n')
            head = commit('main', 'amara', 'chore: add .mailmap to join duplicate identities\n', [('M', '.mailmap')], t, (head,))
        elif ev == 'rename_mailer':
            files['app/services/email.py'] = files.pop('app/services/mailer.py')
            edit('app/services/email.py', 3, 1)
            head = commit('main', 'priya', 'refactor: rename mailer service to email (#%d)\n' % (issue[0] + 2), [('D', 'app/services/mailer.py'), ('M', 'app/services/email.py')], t, (head,))
        elif ev == 'add_migrations':
            for i, n in enumerate(['0001_initial.py', '0002_invoices.py', '0003_sessions.py']):
                files['migrations/' + n] = body(n, 10 + i)
            head = commit('main', 'ingrid', 'feat: add database migrations (#%d)\n' % (issue[0] + 1), [('M', 'migrations/' + n) for n in ['0001_initial.py', '0002_invoices.py', '0003_sessions.py']], t, (head,))
        elif ev in ('revert1', 'revert2'):
            # make a commit then revert it
            f = 'app/services/payments.py' if ev == 'revert1' else 'app/routes/users.py'
            before = list(files[f])
            edit(f, 12)
            subj = 'feat: switch payments to async client (#%d)' % (issue[0] + 1) if ev == 'revert1' else 'perf: cache user list responses (#%d)' % (issue[0] + 1)
            issue[0] += 1
            bad = commit('main', 'lucasm' if ev == 'revert1' else 'mateo', subj + '\n', [('M', f)], t, (head,))
            count += 1
            t = tick(1, 2)
            files[f] = before
            head = commit('main', 'hiro' if ev == 'revert1' else 'fatima', 'Revert "%s"\n\nReverted after regression reports in production.\n' % subj, [('M', f)], t, (bad,))
        elif ev == 'delete_session':
            del files['app/models/session.py']
            head = commit('main', 'hiro', 'refactor: drop server-side session model in favour of signed cookies (#%d)\n' % (issue[0] + 1), [('D', 'app/models/session.py')], t, (head,))
        elif ev == 'rename_docs':
            files['docs/deploying.md'] = files.pop('docs/deployment.md')
            head = commit('main', 'zofia2', 'docs: rename deployment.md to deploying.md\n', [('R', 'docs/deployment.md', 'docs/deploying.md')], t, (head,))
        elif ev == 'add_search':
            files['app/routes/search.py'] = body('app/routes/search.py', 20)
            files['tests/test_search.py'] = body('tests/test_search.py', 14)
            head = commit('main', 'daniel', 'feat: add full-text search endpoint (#%d)\n' % (issue[0] + 1), [('M', 'app/routes/search.py'), ('M', 'tests/test_search.py')], t, (head,))
        elif ev == 'rename_cache':
            files['app/services/cache_backend.py'] = files.pop('app/services/cache.py')
            edit('app/services/cache_backend.py', 2, 0)
            head = commit('main', 'lucasf', 'refactor: rename cache.py to cache_backend.py (#%d)\n' % (issue[0] + 1), [('D', 'app/services/cache.py'), ('M', 'app/services/cache_backend.py')], t, (head,))
        elif ev == 'delete_legacy':
            del files['migrations/0003_sessions.py']
            head = commit('main', 'ingrid', 'chore: remove obsolete sessions migration\n', [('D', 'migrations/0003_sessions.py')], t, (head,))
        elif ev == 'changelog':
            files['docs/CHANGELOG.md'] = body('CHANGELOG.md', 30)
            head = commit('main', 'amara2', 'docs: add CHANGELOG for 1.x releases\n', [('M', 'docs/CHANGELOG.md')], t, (head,))
        count += 1
        marks_of[head] = t
    elif R.n(9) == 0 and count > 15:
        # feature branch of 2-4 commits, merged with a merge commit
        br = 'feature/%d' % (issue[0] + 1)
        w = who(era)
        p = head
        k = 2 + R.n(3)
        subj = None
        for i in range(k):
            p, msg = one_change(w, t, br, p)
            if subj is None: subj = msg.split('\n')[0]
            t = tick(0, 1)
        merger = 'amara' if era == 0 else R.pick(['amara', 'hiro', 'priya', 'ingrid'])
        num = 40 + merge_count * 3 + R.n(3)
        merge_count += 1
        head = commit('main', merger, "Merge pull request #%d from %s\n\n%s\n" % (num, br, subj), [], t, (head, p), full_tree=files)
        count += 1
        out.append('reset refs/heads/%s\nfrom 0000000000000000000000000000000000000000\n' % br)  # delete branch
    else:
        head, _ = one_change(w, t, 'main', head)
    for n in sorted(plan_tags):
        if count >= n and plan_tags[n] not in [x[0] for x in tags]:
            tags.append((plan_tags[n], head, t))
            # version bump happens in the tagged commit's successor; keep simple
for name, m, t in tags:
    e = int(t.timestamp()) + 600
    out.append('tag %s\nfrom :%d\ntagger Amara Okafor <amara.okafor@tidepool.dev> %d +0000\n' % (name, m, e))
    data('Release %s\n' % name)
sys.stdout.write(''.join(out))
sys.stderr.write('commits=%d last=%s\n' % (count, ts[0].isoformat()))
