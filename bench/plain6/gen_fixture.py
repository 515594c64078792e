#!/usr/bin/env python3
"""Deterministic git fast-import stream for the 'harborline' Go monorepo fixture.
Usage: python3 gen_fixture.py > stream; git fast-import < stream.
No clock, no environment: everything is derived from random.Random(SEED)."""
import random, sys, datetime as dt

SEED = 60606
R = random.Random(SEED)
UTC = dt.timezone.utc

# ---- people -------------------------------------------------------------
# key: (name, email, tzkind, hours(local), weight, start, end, areas)
P = {
 'jonas':   ('Jonas Weber', 'jonas.weber@harborline.io', 'eu', (8, 19), 9, '2023-11-01', '2027-01-01', ['gateway', 'authz', 'k8s', 'tools']),
 'jweber':  ('jweber', 'jweber@users.noreply.github.com', 'eu', (20, 23), 2, '2024-02-01', '2027-01-01', ['gateway', 'authz', 'tools']),
 'anna':    ('Anna Weber', 'anna.weber@harborline.io', 'eu', (9, 18), 6, '2024-03-01', '2027-01-01', ['notifier', 'docs', 'config']),
 'ravi':    ('Ravi Shankar', 'ravi@harborline.io', 'in', (10, 21), 10, '2023-11-01', '2027-01-01', ['ledger', 'retry', 'tools', 'docs']),
 'ravig':   ('Ravi Shankar', 'ravi.shankar@gmail.com', 'in', (21, 24), 2, '2024-01-01', '2027-01-01', ['ledger', 'retry']),
 'meilin':  ('Mei Lin Chen', 'meilin.chen@harborline.io', 'sg', (9, 19), 8, '2023-11-01', '2027-01-01', ['ledger', 'scheduler', 'metrics', 'terraform']),
 'tomas':   ('Tomás Ortega', 'tomas.ortega@harborline.io', 'ar', (9, 18), 6, '2023-12-01', '2027-01-01', ['k8s', 'helm', 'terraform', 'ci']),
 'tortega': ('tortega', '4417302+tortega@users.noreply.github.com', 'ar', (19, 24), 2, '2024-04-01', '2027-01-01', ['helm', 'ci']),
 'segun':   ('Olusegun Adeyemi', 'segun@harborline.io', 'ng', (9, 18), 5, '2024-01-15', '2027-01-01', ['notifier', 'scheduler', 'reporter']),
 'kasia':   ('Katarzyna Nowak', 'katarzyna.nowak@harborline.io', 'eu', (8, 17), 7, '2024-02-01', '2027-01-01', ['ledger', 'settlement', 'config']),
 'kasian':  ('kasian', 'kasian@users.noreply.github.com', 'eu', (18, 23), 2, '2024-05-01', '2027-01-01', ['settlement', 'docs']),
 'liam':    ("Liam O'Connor", 'liam.oconnor@harborline.io', 'ie', (9, 18), 4, '2024-06-01', '2027-01-01', ['gateway', 'metrics', 'ci']),
 'sofia':   ('Sofia Rossi', 'sofia.rossi@harborline.io', 'eu', (9, 18), 4, '2024-09-01', '2027-01-01', ['docs', 'gateway', 'notifier']),
 'henrik':  ('Henrik Lund', 'henrik.lund@harborline.io', 'eu', (7, 16), 5, '2023-11-01', '2025-06-30', ['terraform', 'k8s', 'reporter', 'scheduler']),
 'yuki':    ('Yuki Sato', 'yuki.sato@harborline.io', 'jp', (10, 20), 5, '2024-04-01', '2027-01-01', ['scheduler', 'retry', 'metrics']),
 'yukilap': ('yuki', 'yuki@yuki-mbp.local', 'jp', (21, 24), 1, '2024-08-01', '2026-06-01', ['scheduler', 'retry']),
 'okoro':   ('Daniel Okoro', 'daniel.okoro@harborline.io', 'ng', (9, 18), 4, '2024-10-01', '2027-01-01', ['ledger', 'gateway', 'config']),
 'brandt':  ('Daniel Brandt', 'dbrandt@harborline.io', 'us', (9, 18), 4, '2025-01-15', '2027-01-01', ['k8s', 'ci', 'tools']),
 'jdoe':    ('jdoe', 'jdoe@users.noreply.github.com', 'uspac', (0, 5), 2, '2024-07-01', '2026-09-01', ['docs', 'tools']),
 'pris':    ('Priscilla Moreno', 'p.moreno@harborline.io', 'mx', (9, 18), 9, '2026-03-01', '2027-01-01', ['notifier', 'gateway', 'docs']),
}
BOT = ('dependabot[bot]', '49699333+dependabot[bot]@users.noreply.github.com')
MAINTAINERS = ['ravi', 'meilin', 'jonas']
HANDLE = {'jonas': 'jweber', 'jweber': 'jweber', 'anna': 'annaweber', 'ravi': 'ravishankar', 'ravig': 'ravishankar',
          'meilin': 'meilinc', 'tomas': 'tortega', 'tortega': 'tortega', 'segun': 'sadeyemi', 'kasia': 'kasian',
          'kasian': 'kasian', 'liam': 'loconnor', 'sofia': 'srossi', 'henrik': 'hlund', 'yuki': 'ysato',
          'yukilap': 'ysato', 'okoro': 'dokoro', 'brandt': 'dbrandt', 'jdoe': 'jdoe', 'pris': 'pmoreno'}

def offset_min(kind, day):
    summer = 4 <= day.month <= 10
    return {'eu': 120 if summer else 60, 'ie': 60 if summer else 0, 'in': 330, 'sg': 480, 'jp': 540,
            'ar': -180, 'ng': 60, 'us': -240 if summer else -300, 'uspac': -420 if summer else -480,
            'mx': -360, 'utc': 0}[kind]

# ---- files ----------------------------------------------------------------
# area -> list of (path, birth fraction)
AREAS = {
 'gateway': [('services/gateway/main.go', 0), ('services/gateway/router.go', 0), ('services/gateway/middleware/auth.go', 0),
             ('services/gateway/middleware/ratelimit.go', .15), ('services/gateway/middleware/cors_old.go', 0),
             ('services/gateway/handlers/accounts.go', 0), ('services/gateway/handlers/payments.go', .1),
             ('services/gateway/handlers/webhooks.go', .55)],
 'ledger': [('services/ledger/main.go', 0), ('services/ledger/api.go', 0), ('services/ledger/store/postgres.go', 0),
            ('services/ledger/store/migrations.go', .05)],
 'settlement': [('services/ledger/settlement/batch.go', .2), ('services/ledger/settlement/reconcile.go', .33),
                ('services/ledger/settlement/fx.go', .7)],
 'notifier': [('services/notifier/main.go', 0), ('services/notifier/email.go', 0), ('services/notifier/sms.go', .25),
              ('services/notifier/queue.go', .1), ('services/notifier/templates/receipt.tmpl', .12)],
 'scheduler': [('services/scheduler/main.go', 0), ('services/scheduler/jobs.go', 0), ('services/scheduler/legacy_cron.go', 0),
               ('services/scheduler/lock.go', .3)],
 'reporter': [('services/reporter/main.go', .02), ('services/reporter/export.go', .05)],
 'authz': [('libs/authz/policy.go', 0), ('libs/authz/rbac.go', .08), ('libs/authz/rbac_test.go', .08)],
 'retry': [('libs/retry/backoff.go', 0), ('libs/retry/retry.go', 0), ('libs/retry/retry_test.go', .1)],
 'metrics': [('libs/metrics/prom.go', 0), ('libs/metrics/tracing.go', .4)],
 'config': [('libs/config/load.go', 0), ('libs/config/env.go', .06)],
 'k8s': [('deploy/k8s/gateway.yaml', 0), ('deploy/k8s/ledger.yaml', 0), ('deploy/k8s/notifier.yaml', .05),
         ('deploy/k8s/scheduler.yaml', .05)],
 'helm': [('deploy/helm/Chart.yaml', .1), ('deploy/helm/values-prod.yaml', .1), ('deploy/helm/values-staging.yaml', .12)],
 'terraform': [('deploy/terraform/main.tf', 0), ('deploy/terraform/variables.tf', 0),
               ('deploy/terraform/modules/redis/main.tf', .1), ('deploy/terraform/modules/postgres/main.tf', .1)],
 'ci': [('.github/workflows/ci.yml', 0), ('.github/workflows/release.yml', .3), ('Makefile', 0)],
 'tools': [('tools/genproto.sh', 0), ('tools/lint.sh', .05), ('tools/release/main.go', .3)],
 'docs': [('README.md', 0), ('docs/architecture.md', 0), ('docs/runbook.md', .05), ('docs/adr/0001-monorepo.md', 0),
          ('docs/adr/0002-event-bus.md', .35), ('docs/adr/0003-settlement-batching.md', .6), ('CONTRIBUTING.md', .2)],
}
VERBS = {
 'gateway': ['add request id to access logs', 'tighten header validation', 'return 429 with Retry-After', 'handle client disconnects',
             'stream large responses', 'fix panic on empty bearer token', 'log upstream latency', 'reject oversized bodies',
             'refactor route table', 'add idempotency keys to payments', 'cache JWKS for ten minutes', 'fix trailing slash redirects'],
 'ledger': ['index entries by account and date', 'use pgx pool', 'add balance snapshot endpoint', 'fix rounding in minor units',
            'wrap writes in serializable tx', 'expose entry cursor pagination', 'drop unused column', 'speed up migrations check'],
 'settlement': ['batch settlement writes', 'reconcile against bank statements', 'retry failed payouts', 'handle partial refunds',
                'add fx rate snapshotting', 'fix off-by-one in cutoff window', 'split batches per currency'],
 'notifier': ['render receipts with templates', 'dedupe queued messages', 'add SMS provider failover', 'fix utf-8 subjects',
              'back off on provider 5xx', 'move templates to embed.FS', 'add unsubscribe header'],
 'scheduler': ['add distributed lock', 'jitter job start times', 'fix missed runs after DST change', 'expose job metrics',
               'skip overlapping runs', 'port cron parser'],
 'reporter': ['export monthly CSV', 'add XLSX export', 'fix timezone in report headers', 'paginate exports'],
 'authz': ['add role inheritance', 'cache policy decisions', 'deny by default on unknown action', 'add scope checks',
           'test wildcard resources'],
 'retry': ['add full jitter', 'cap max backoff', 'respect context deadline', 'make retry policy configurable', 'test retry budget'],
 'metrics': ['add histogram buckets for latency', 'propagate trace context', 'rename metric labels', 'add exemplars'],
 'config': ['load secrets from env', 'validate config on startup', 'support YAML overlays', 'add defaults for timeouts'],
 'k8s': ['raise memory limits', 'add readiness probes', 'set pod disruption budget', 'pin image digests', 'add HPA'],
 'helm': ['template resource limits', 'bump chart version', 'add staging values', 'move secrets to external-secrets'],
 'terraform': ['add postgres replica', 'tag all resources', 'upgrade aws provider', 'split variables per env', 'enable backups'],
 'ci': ['cache go modules', 'run tests with -race', 'add golangci-lint', 'build images on tags', 'matrix over go versions'],
 'tools': ['generate protos with buf', 'add lint script', 'release tool: write changelog', 'fix release notes ordering'],
 'docs': ['document local setup', 'describe deploy flow', 'add on-call section', 'fix broken links', 'explain settlement cutoffs',
          'update architecture diagram notes'],
}
PREFIX = {'settlement': 'ledger', 'k8s': 'deploy', 'helm': 'helm', 'terraform': 'terraform', 'ci': 'ci'}

def ts(s):
    return dt.datetime.fromisoformat(s).replace(tzinfo=UTC)

START = ts('2023-11-06T09:00:00')
END = ts('2026-11-27T12:00:00')

out = []
def emit(s): out.append(s)
def data(b):
    b = b.encode() if isinstance(b, str) else b
    emit('data %d\n' % len(b)); out.append(b); emit('\n')

mark = [0]
def newmark():
    mark[0] += 1; return mark[0]

def fmt_date(t_utc, kind):
    off = offset_min(kind, t_utc)
    sign = '+' if off >= 0 else '-'
    return '%d %s%02d%02d' % (int(t_utc.timestamp()), sign, abs(off) // 60, abs(off) % 60)

# repository state
state = {}          # main tree: path -> list of lines
counter = [0]
issue = [120]
prnum = [40]

def content_new(path, author):
    counter[0] += 1
    if path.endswith('.go'):
        pkg = path.split('/')[-2] if '/' in path else 'main'
        if path.endswith('main.go'): pkg = 'main'
        pkg = pkg.replace('-', '')
        return ['package %s' % pkg, '', '// %s' % path, '', 'func init%d() {}' % counter[0]]
    if path.endswith('.md'):
        return ['# ' + path.split('/')[-1][:-3].replace('-', ' '), '', 'Maintained by the platform team.']
    return ['# ' + path, 'version: 1']

def mutate(lines, subj):
    counter[0] += 1
    n = counter[0]
    lines = list(lines)
    k = R.choice([1, 1, 2, 3, 5, 8])
    if len(lines) > 8 and R.random() < .45:
        # replace some lines
        i = R.randrange(4, len(lines))
        del lines[i:i + R.randint(1, 3)]
    for j in range(k):
        if lines and lines[0].startswith('package'):
            lines.append('// %d.%d %s' % (n, j, subj))
        elif lines and lines[0].startswith('#') and not lines[0].startswith('# ' + 'services'):
            lines.append('- %s (%d.%d)' % (subj, n, j))
        else:
            lines.append('# %d.%d %s' % (n, j, subj))
    return lines

def tree_text(lines):
    return '\n'.join(lines) + '\n'

heads = {}   # branch name -> mark
def commit(ref, who, t, msg, changes, parent=None, merge=None, committer=None):
    """changes: dict path -> lines or None (delete); renames are delete+add."""
    m = newmark()
    name, email, kind = who
    emit('commit %s\n' % ref)
    emit('mark :%d\n' % m)
    emit('author %s <%s> %s\n' % (name, email, fmt_date(t, kind)))
    cn, ce, ck = committer or who
    emit('committer %s <%s> %s\n' % (cn, ce, fmt_date(t, ck)))
    data(msg)
    if parent: emit('from :%d\n' % parent)
    if merge: emit('merge :%d\n' % merge)
    for p in sorted(changes):
        v = changes[p]
        if v is None: emit('D %s\n' % p)
        else:
            emit('M 100644 inline %s\n' % p); data(tree_text(v))
    emit('\n')
    return m

def who_of(key):
    n, e, k = P[key][0], P[key][1], P[key][2]
    return (n, e, k)

def pick_time(prev, key, min_gap_days):
    name, email, kind, hrs = P[key][0], P[key][1], P[key][2], P[key][3]
    d = prev + dt.timedelta(days=min_gap_days)
    day = d.date()
    # weekend dampening
    while day.weekday() >= 5 and R.random() < .7:
        day += dt.timedelta(days=1)
    lo, hi = hrs
    h = R.randint(lo, hi - 1); mi = R.randint(0, 59); s = R.randint(0, 59)
    local = dt.datetime(day.year, day.month, day.day, h, mi, s)
    off = offset_min(kind, local)
    t = (local - dt.timedelta(minutes=off)).replace(tzinfo=UTC)
    if t <= prev:
        t = prev + dt.timedelta(minutes=R.randint(7, 95), seconds=R.randint(0, 59))
    return t

def active(key, t):
    return ts(P[key][5] + 'T00:00:00') <= t <= ts(P[key][6] + 'T00:00:00')

def pick_author(t, exclude=()):
    ks = [k for k in P if active(k, t) and k not in exclude]
    return R.choices(ks, weights=[P[k][4] for k in ks])[0]

born = set()
dead = set()   # deleted/renamed-away paths never come back
def progress(t): return (t - START) / (END - START)

def area_files(area, t, allow_birth=True):
    fs = [p for p, b in AREAS[area] if p in born and p not in dead]
    newb = [p for p, b in AREAS[area] if p not in born and p not in dead and b <= progress(t)]
    return fs, newb

def make_subject(area, with_issue=True):
    pre = PREFIX.get(area, area)
    s = '%s: %s' % (pre, R.choice(VERBS[area]))
    body = ''
    r = R.random()
    if with_issue and r < .35:
        issue[0] += R.randint(1, 6); s += ' (#%d)' % issue[0]
    elif with_issue and r < .55:
        issue[0] += R.randint(1, 6); body = '\n\nFixes #%d' % issue[0]
    return s, body

# ---- scripted events (processed on main when no branch is open) ----------
SPECIAL = [
 ('2024-01-10', 'mailmap'),
 ('2024-05-14', 'rename', 'jonas', 'tools/genproto.sh', 'tools/proto/gen.sh', 'tools: move proto generation under tools/proto'),
 ('2024-09-03', 'delete', 'jonas', ['services/gateway/middleware/cors_old.go'], 'gateway: remove old CORS middleware (#311)'),
 ('2024-10-22', 'rename', 'ravi', 'libs/retry/backoff.go', 'libs/retry/policy.go', 'retry: rename backoff.go to policy.go'),
 ('2025-02-11', 'revert', 'meilin'),
 ('2025-03-18', 'rename', 'anna', 'docs/runbook.md', 'docs/operations/runbook.md', 'docs: move runbook to docs/operations'),
 ('2025-05-06', 'delete', 'henrik', ['deploy/terraform/modules/redis/main.tf'], 'terraform: drop redis module, we use Elasticache now'),
 ('2025-06-24', 'delete', 'segun', ['services/reporter/main.go', 'services/reporter/export.go'], 'reporter: delete the reporter service (#502)\n\nReplaced by the warehouse export job.'),
 ('2025-09-09', 'revert', 'ravi'),
 ('2025-11-04', 'delete', 'yuki', ['services/scheduler/legacy_cron.go'], 'scheduler: delete legacy cron runner'),
 ('2026-02-17', 'rename', 'tomas', 'deploy/helm/values-prod.yaml', 'deploy/helm/values/production.yaml', 'helm: move values files under values/'),
 ('2026-07-14', 'revert', 'kasia'),
 ('2026-10-06', 'mailmapfix'),
]
TAGS = [('v0.9.0', '2024-02-20'), ('v1.0.0', '2024-05-28'), ('v1.1.0', '2024-08-13'), ('v1.2.0', '2024-11-12'),
        ('v1.3.0', '2025-02-25'), ('v1.3.1', '2025-03-11'), ('v1.4.0', '2025-06-10'), ('v1.5.0', '2025-09-23'),
        ('v2.0.0', '2026-01-20'), ('v2.0.1', '2026-02-03'), ('v2.1.0', '2026-05-19'), ('v2.2.0', '2026-08-25'),
        ('v2.3.0', '2026-11-17')]
MODTAGS = [('libs/authz/v1.0.0', '2024-07-02'), ('libs/authz/v1.1.0', '2025-10-14')]

MAILMAP_1 = '''Jonas Weber <jonas.weber@harborline.io> <jweber@users.noreply.github.com>
Ravi Shankar <ravi@harborline.io> <ravi.shankar@gmail.com>
'''
MAILMAP_2 = MAILMAP_1 + '''Katarzyna Nowak <katarzyna.nowak@harborline.io> <kasian@users.noreply.github.com>
'''

def main():
    emit('feature done\n')
    t = START
    # initial import by Ravi
    init = {}
    for area, fl in AREAS.items():
        for p, b in fl:
            if b == 0:
                init[p] = content_new(p, 'ravi'); born.add(p)
    init['go.work'] = ['go 1.21', '', 'use (', '\t./services/gateway', '\t./services/ledger', ')']
    init['CHANGELOG.md'] = ['# Changelog']
    state.update(init)
    tip = commit('refs/heads/main', who_of('ravi'), t, 'Initial import of the harborline monorepo\n', dict(init))
    t = t + dt.timedelta(hours=3)
    specials = list(SPECIAL); tags = list(TAGS); modtags = list(MODTAGS)
    branch = None
    recent_subjects = []   # (mark, subject, changes-before) for reverts
    n_events = 0
    while t < END:
        n_events += 1
        # tags due?
        while tags and ts(tags[0][1] + 'T12:00:00') <= t and branch is None:
            name, d = tags.pop(0)
            tt = t - dt.timedelta(minutes=5)
            emit('tag %s\nfrom :%d\ntagger Ravi Shankar <ravi@harborline.io> %s\n' % (name, tip, fmt_date(tt, 'in')))
            data('Release %s\n' % name)
            # changelog entry after release
            state['CHANGELOG.md'] = state['CHANGELOG.md'] + ['', '## %s' % name, '- see release notes']
            t = t + dt.timedelta(minutes=R.randint(20, 200))
            tip = commit('refs/heads/main', who_of('ravi'), t, 'Update CHANGELOG for %s\n' % name,
                         {'CHANGELOG.md': state['CHANGELOG.md']}, parent=tip)
        while modtags and ts(modtags[0][1] + 'T12:00:00') <= t and branch is None:
            name, d = modtags.pop(0)
            emit('tag %s\nfrom :%d\ntagger Jonas Weber <jonas.weber@harborline.io> %s\n' % (name, tip, fmt_date(t, 'eu')))
            data('authz module %s\n' % name.split('/')[-1])
        if specials and ts(specials[0][0] + 'T00:00:00') <= t and branch is None:
            sp = specials.pop(0)
            kind = sp[1]
            if kind in ('mailmap', 'mailmapfix'):
                key = 'ravi' if kind == 'mailmap' else 'kasia'
                t = pick_time(t, key, 0)
                state['.mailmap'] = (MAILMAP_1 if kind == 'mailmap' else MAILMAP_2).rstrip('\n').split('\n')
                msg = 'Add .mailmap for contributors with several emails\n' if kind == 'mailmap' else 'mailmap: map kasian noreply address\n'
                tip = commit('refs/heads/main', who_of(key), t, msg, {'.mailmap': state['.mailmap']}, parent=tip)
            elif kind == 'rename':
                _, _, key, a, b, msg = sp
                t = pick_time(t, key, 0)
                lines = state.pop(a); state[b] = lines
                dead.add(a); born.add(b)
                for ar, fl in AREAS.items():
                    for i, (p, bb) in enumerate(fl):
                        if p == a: fl.append((b, 0))
                tip = commit('refs/heads/main', who_of(key), t, msg + '\n', {a: None, b: lines}, parent=tip)
            elif kind == 'delete':
                _, _, key, paths, msg = sp
                t = pick_time(t, key, 0)
                ch = {}
                for p in paths:
                    state.pop(p); dead.add(p); ch[p] = None
                tip = commit('refs/heads/main', who_of(key), t, msg + '\n', ch, parent=tip)
            elif kind == 'revert':
                key = sp[2]
                # revert the most recent plain commit whose files still exist unchanged since
                cand = None
                for rm, subj, before, after in reversed(recent_subjects[-6:]):
                    if all(state.get(p) == after[p] for p in after):
                        cand = (rm, subj, before, after); break
                if cand:
                    rm, subj, before, after = cand
                    t = pick_time(t, key, 0)
                    ch = {}
                    for p in after:
                        ch[p] = before.get(p)
                        if ch[p] is None: state.pop(p, None); born.discard(p)
                        else: state[p] = ch[p]
                    tip = commit('refs/heads/main', who_of(key), t,
                                 'Revert "%s"\n\nThis reverts the change; it broke staging deploys.\n' % subj.split('\n')[0], ch, parent=tip)
            continue
        # branch handling
        if branch is None and R.random() < .11:
            key = pick_author(t, exclude=('jdoe', 'yukilap'))
            area = R.choice(P[key][7])
            fs, nb = area_files(area, t)
            fs = fs + nb[:1]
            if fs and not any(p in ('CHANGELOG.md', '.mailmap') for p in fs):
                fset = R.sample(fs, min(len(fs), R.randint(1, 3)))
                slug = R.choice(VERBS[area]).split(' ')
                bname = '%s-%s' % (area, '-'.join(w.strip(':,') for w in slug[:3]).lower())
                branch = {'key': key, 'area': area, 'files': fset, 'n': R.randint(2, 5), 'tip': tip,
                          'state': {p: state.get(p) for p in fset}, 'name': bname, 'base_tip': tip, 'changed': set()}
        if branch is not None and (branch['n'] == 0):
            # merge
            key = R.choice([m for m in MAINTAINERS if m != branch['key']])
            t = pick_time(t, key, R.choice([0, 0, 1]))
            ch = {}
            for p in branch['changed']:
                ch[p] = branch['state'][p]; state[p] = branch['state'][p]; born.add(p)
            prnum[0] += R.randint(3, 9)
            msg = 'Merge pull request #%d from %s/%s\n\n%s\n' % (prnum[0], HANDLE[branch['key']], branch['name'], make_subject(branch['area'], False)[0])
            tip = commit('refs/heads/main', who_of(key), t, msg, ch, parent=tip, merge=branch['tip'])
            branch = None
            continue
        if branch is not None and R.random() < .55:
            key = branch['key']
            if R.random() < .15 and branch['key'] in ('jonas',): key = 'jweber'
            t = pick_time(t, key, R.choice([0, 0, 1, 1, 2]))
            p = R.choice(branch['files'])
            subj, body = make_subject(branch['area'], with_issue=False)
            old = branch['state'][p]
            new = mutate(old, subj) if old is not None else content_new(p, key)
            branch['state'][p] = new; branch['changed'].add(p); branch['n'] -= 1
            branch['tip'] = commit('refs/heads/%s' % branch['name'], who_of(key), t, subj + body + '\n', {p: new},
                                   parent=branch['tip'])
            continue
        # plain main commit
        bots_ok = R.random() < .045
        if bots_ok:
            t = t + dt.timedelta(days=R.choice([0, 1, 2]), hours=R.randint(1, 20))
            mod = R.choice(['services/gateway/go.mod', 'services/ledger/go.mod'])
            if mod not in state: state[mod] = ['module harborline/' + mod.split('/')[1], '', 'go 1.21']; born.add(mod)
            dep = R.choice(['golang.org/x/net', 'github.com/jackc/pgx/v5', 'google.golang.org/grpc', 'github.com/prometheus/client_golang'])
            ver = 'v%d.%d.%d' % (R.randint(0, 5), R.randint(1, 60), R.randint(0, 9))
            before = {mod: list(state[mod])}
            state[mod] = state[mod] + ['require %s %s' % (dep, ver)]
            subj = 'build(deps): bump %s to %s in /%s' % (dep, ver, mod.rsplit('/', 1)[0])
            tip = commit('refs/heads/main', (BOT[0], BOT[1], 'utc'), t, subj + '\n', {mod: state[mod]}, parent=tip,
                         committer=('GitHub', 'noreply@github.com', 'utc'))
            continue
        key = pick_author(t)
        areas = list(P[key][7])
        if branch is not None:
            areas = [a for a in areas if a != branch['area']] or ['docs']
        area = R.choice(areas)
        fs, nb = area_files(area, t)
        if branch is not None:
            fs = [p for p in fs if p not in branch['files']]; nb = [p for p in nb if p not in branch['files']]
        if not fs and not nb: continue
        t = pick_time(t, key, R.choice([0, 1, 1, 2, 2, 3, 4]))
        subj, body = make_subject(area)
        ch = {}
        before = {}
        if nb and R.random() < .5:
            p = nb[0]; born.add(p)
            ch[p] = content_new(p, key); before[p] = None
            subj = '%s: add %s' % (PREFIX.get(area, area), p.split('/')[-1]) + (' (#%d)' % (issue[0] + 1))
            issue[0] += 1
        else:
            for p in R.sample(fs, min(len(fs), R.choice([1, 1, 1, 2, 2, 3]))):
                before[p] = state[p]; ch[p] = mutate(state[p], subj)
        if R.random() < .07 and branch is None:
            before['docs/architecture.md'] = state['docs/architecture.md']
            ch['docs/architecture.md'] = mutate(state['docs/architecture.md'], subj)
        for p, v in ch.items(): state[p] = v
        tip = commit('refs/heads/main', who_of(key), t, subj + body + '\n', ch, parent=tip)
        recent_subjects.append((tip, subj, before, {p: v for p, v in ch.items()}))
    emit('reset refs/heads/main\nfrom :%d\n\n' % tip)
    emit('done\n')
    w = sys.stdout.buffer
    for s in out:
        w.write(s.encode() if isinstance(s, str) else s)

if __name__ == '__main__':
    main()
