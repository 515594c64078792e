#!/usr/bin/env python3
"""Deterministic generator of the plain10 fixture: 'shopwave', a Python web shop (Django-like backend,
TypeScript storefront, docs, terraform infra). Called by make_fixture.sh DIR. Seeded randomness (seed 1010),
fixed author/committer dates, fixed identities. Do not edit after freezing."""
import os, random, subprocess, sys, datetime as dt
R = random.Random(1010)
D = os.path.abspath(sys.argv[1])
os.makedirs(D, exist_ok=True)
BASE_ENV = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'), 'HOME': D + '/.nohome', 'LANG': 'C',
            'GIT_CONFIG_NOSYSTEM': '1', 'GIT_CONFIG_GLOBAL': '/dev/null'}
def git(*a, env=None, out=False):
    e = dict(BASE_ENV); e.update(env or {})
    r = subprocess.run(['git', '-C', D] + list(a), env=e, capture_output=True, text=True)
    if r.returncode: sys.exit('git %s failed: %s' % (a, r.stderr))
    return r.stdout
# people: key -> (name, email, tz hours, weight, areas)
P = {
 'mgon':  ('Maria Gonzalez', 'maria@shopwave.io', -5, 14, ['shop/orders', 'shop/payments', 'shop/api']),
 'mgon2': ('Maria Gonzalez', 'maria.gonzalez.dev@gmail.com', -5, 4, ['shop/orders', 'shop/api']),
 'mpet':  ('Maria Petrova', 'mpetrova@shopwave.io', 3, 9, ['shop/catalog', 'shop/search']),
 'kenji': ('Kenji Tanaka', 'kenji@shopwave.io', 9, 18, ['shop/catalog', 'shop/orders', 'shop/core']),
 'priya': ('Priya Raman', 'priya@shopwave.io', 5.5, 13, ['web/src', 'web/src/components']),
 'tbeck': ('Tom Becker', 'tom.becker@shopwave.io', 1, 8, ['infra/terraform', 'infra/k8s', '.github']),
 'tbeck2':('tbecker', 'tbecker@old-agency.de', 1, 3, ['infra/terraform', 'infra/k8s']),
 'tnguy': ('Tom Nguyen', 'tnguyen@shopwave.io', -8, 7, ['web/src', 'web/tests']),
 'aisha': ('Aisha Okafor', 'aisha@shopwave.io', 1, 10, ['shop/payments', 'shop/core', 'tests']),
 'lucas': ('Lucas Silva', 'lucas.silva@shopwave.io', -3, 6, ['shop/search', 'tests']),
 'emma':  ('Emma Lindqvist', 'emma@shopwave.io', 1, 7, ['docs']),
 'dan':   ('Daniel Cohen', 'dcohen@shopwave.io', 2, 5, ['shop/api', 'shop/core']),
 'dan2':  ('Daniel Cohen', '4418210+dancohen@users.noreply.github.com', 2, 3, ['shop/api']),
 'sven':  ('Sven Olsen', 'sven@shopwave.io', 1, 2, ['infra/k8s']),
 'grace': ('Grace Kim', 'grace.kim@shopwave.io', -7, 6, ['web/src/components', 'docs']),
}
MAILMAP = """Maria Gonzalez <maria@shopwave.io> <maria.gonzalez.dev@gmail.com>
Tom Becker <tom.becker@shopwave.io> tbecker <tbecker@old-agency.de>
Daniel Cohen <dcohen@shopwave.io> <4418210+dancohen@users.noreply.github.com>
"""
# activity windows (some join late / leave early)
ACTIVE = {'tbeck2': (0.0, 0.25), 'tbeck': (0.2, 1.0), 'mgon2': (0.0, 0.4), 'dan2': (0.5, 1.0), 'dan': (0.0, 0.55),
          'sven': (0.3, 0.6), 'grace': (0.45, 1.0), 'lucas': (0.0, 0.8)}
START = dt.datetime(2024, 11, 4, 9, 0, tzinfo=dt.timezone.utc)
END = dt.datetime(2026, 11, 17, 18, 0, tzinfo=dt.timezone.utc)
N = 560
EXT = {'shop': '.py', 'tests': '.py', 'web': '.ts', 'docs': '.md', 'infra/terraform': '.tf', 'infra/k8s': '.yaml', '.github': '.yml'}
WORDS = ['cart', 'checkout', 'invoice', 'refund', 'coupon', 'stock', 'price', 'shipping', 'tax', 'wishlist', 'review',
         'session', 'token', 'webhook', 'sku', 'variant', 'basket', 'receipt', 'currency', 'address']
VERBS = ['fix', 'add', 'refactor', 'tidy', 'speed up', 'handle', 'validate', 'document', 'test', 'rename']
files = {}
def ext_for(area):
    for k in ('infra/terraform', 'infra/k8s', '.github', 'shop', 'tests', 'web', 'docs'):
        if area.startswith(k): return EXT[k]
    return '.txt'
def write(path, text):
    full = os.path.join(D, path); os.makedirs(os.path.dirname(full) or D, exist_ok=True)
    with open(full, 'w') as f: f.write(text)
    files[path] = text
def when(t, tzh):
    tz = dt.timezone(dt.timedelta(hours=tzh))
    return t.astimezone(tz).isoformat()
def commit(pk, t, msg, committer=None):
    name, email, tzh = P[pk][0], P[pk][1], P[pk][2]
    c = P[committer or pk]
    env = {'GIT_AUTHOR_NAME': name, 'GIT_AUTHOR_EMAIL': email, 'GIT_AUTHOR_DATE': when(t, tzh),
           'GIT_COMMITTER_NAME': c[0], 'GIT_COMMITTER_EMAIL': c[1], 'GIT_COMMITTER_DATE': when(t, c[2])}
    git('add', '-A')
    git('commit', '-q', '--no-verify', '-m', msg, env=env)
git('init', '-q', '-b', 'main')
git('config', 'commit.gpgsign', 'false'); git('config', 'core.autocrlf', 'false')
# initial skeleton
skel = ['README.md', 'shop/__init__.py', 'shop/core/settings.py', 'shop/core/urls.py', 'shop/orders/models.py',
        'shop/orders/views.py', 'shop/catalog/models.py', 'shop/catalog/views.py', 'shop/payments/stripe.py',
        'shop/api/serializers.py', 'web/src/app.ts', 'web/src/components/Cart.ts', 'docs/setup.md',
        'infra/terraform/main.tf', 'requirements.txt', '.gitignore']
for s in skel: write(s, '# %s\n' % s)
write('.mailmap', MAILMAP)
commit('kenji', START, 'Initial commit: shopwave skeleton')
keys = list(P)
def pick_person(frac):
    ks = [k for k in keys if ACTIVE.get(k, (0, 1))[0] <= frac <= ACTIVE.get(k, (0, 1))[1]]
    return R.choices(ks, weights=[P[k][3] for k in ks])[0]
def touch(pk):
    area = R.choice(P[pk][4])
    cands = [f for f in files if f.startswith(area + '/') and f != '.mailmap']
    if not cands or R.random() < 0.18:
        f = '%s/%s%s' % (area, R.choice(WORDS) + ('_' + R.choice(WORDS) if R.random() < 0.5 else ''), ext_for(area))
        if f in files: f = f  # modify existing
    else:
        f = R.choice(cands)
    lines = files.get(f, '').splitlines()
    add = R.randint(1, 25); 
    for _ in range(add): lines.insert(R.randint(0, len(lines)), '%s %s %d' % (R.choice(VERBS), R.choice(WORDS), R.randint(0, 9999)))
    if len(lines) > 10 and R.random() < 0.5:
        for _ in range(R.randint(1, min(8, len(lines) - 5))): lines.pop(R.randrange(len(lines)))
    write(f, '\n'.join(lines) + '\n')
    return f
RENAMES = {90: ('shop/payments/stripe.py', 'shop/payments/stripe_gateway.py'), 210: ('docs/setup.md', 'docs/installation.md'),
           330: ('web/src/components/Cart.ts', 'web/src/components/ShoppingCart.ts'), 450: ('shop/core/urls.py', 'shop/core/routes.py')}
DELETES = {150: 'requirements.txt', 260: 'infra/terraform/main.tf', 400: 'shop/api/serializers.py'}
TAGS = {60: ('v1.0.0', 'a'), 120: ('v1.1.0', 'a'), 175: ('v1.2.0', 'a'), 200: ('black-friday-2025', 'l'), 240: ('v1.3.0', 'a'),
        300: ('v2.0.0', 'a'), 340: ('prod-freeze', 'l'), 380: ('v2.1.0', 'a'), 430: ('v2.1.1', 'a'), 470: ('demo-berlin', 'l'),
        500: ('v2.2.0', 'a'), 545: ('v2.3.0-rc1', 'a')}
# times: sorted random instants between START and END, weekday-heavy
span = (END - START).total_seconds()
ts = sorted(R.random() for _ in range(N))
times = [START + dt.timedelta(seconds=60 + x * (span - 120)) for x in ts]
times = [t.replace(second=R.randint(0, 59), microsecond=0) for t in times]
for i in range(1, len(times)):
    if times[i] <= times[i - 1]: times[i] = times[i - 1] + dt.timedelta(seconds=37)
i = 0; n = 0
while i < len(times):
    frac = i / len(times); t = times[i]; pk = pick_person(frac)
    due = [x for x in RENAMES if x <= n]
    if due:
        a, b = RENAMES.pop(due[0])
        if a in files:
            git('mv', a, b); files[b] = files.pop(a)
            commit(pk, t, 'Rename %s to %s' % (a, b)); i += 1; n += 1; continue
    due = [x for x in DELETES if x <= n]
    if due:
        dp = DELETES.pop(due[0])
        if dp in files:
            git('rm', '-q', dp); files.pop(dp)
            commit(pk, t, 'Remove %s' % dp); i += 1; n += 1; continue
    if R.random() < 0.09 and i + 4 < len(times):
        # feature branch with 2-3 commits, one commit on main, then a --no-ff merge by a maintainer
        k = R.randint(2, 3); br = 'feature/%s-%s' % (R.choice(WORDS), R.choice(WORDS))
        git('checkout', '-q', '-b', br)
        for j in range(k):
            f = touch(pk); commit(pk, times[i], '%s %s in %s' % (R.choice(VERBS).capitalize(), R.choice(WORDS), os.path.basename(f))); i += 1; n += 1
        saved = dict(files)
        git('checkout', '-q', 'main')
        # reload file map from main
        files.clear()
        for p in git('ls-files').split('\n'):
            if p: files[p] = open(os.path.join(D, p)).read()
        other = pick_person(frac)
        cl = files.get('CHANGELOG.md', '# Changelog\n'); write('CHANGELOG.md', cl + '- %s %s\n' % (R.choice(VERBS), R.choice(WORDS)))
        commit(other, times[i], 'Update changelog'); i += 1; n += 1
        merger = R.choice(['kenji', 'mgon', 'aisha'])
        mt = times[i]; mp = P[merger]
        env = {'GIT_AUTHOR_NAME': mp[0], 'GIT_AUTHOR_EMAIL': mp[1], 'GIT_AUTHOR_DATE': when(mt, mp[2]),
               'GIT_COMMITTER_NAME': mp[0], 'GIT_COMMITTER_EMAIL': mp[1], 'GIT_COMMITTER_DATE': when(mt, mp[2])}
        git('merge', '-q', '--no-ff', '-m', "Merge branch '%s'" % br, br, env=env)
        git('branch', '-q', '-d', br)
        files.clear()
        for p in git('ls-files').split('\n'):
            if p: files[p] = open(os.path.join(D, p)).read()
        i += 1; n += 1
    else:
        nf = R.choice([1, 1, 1, 2, 2, 3]); ch = []
        for _ in range(nf): ch.append(touch(pk))
        msg = '%s %s %s' % (R.choice(VERBS).capitalize(), R.choice(WORDS), R.choice(['handling', 'logic', 'tests', 'docs', 'edge case', 'config']))
        if R.random() < 0.08: msg += ' (#%d)' % R.randint(100, 900)
        commit(pk, t, msg); i += 1; n += 1
    for tn in [x for x in TAGS if x <= n]:
        name, kind = TAGS.pop(tn)
        if kind == 'a':
            lt = times[i - 1]
            git('tag', '-a', name, '-m', 'Release ' + name, env={'GIT_COMMITTER_NAME': 'Kenji Tanaka', 'GIT_COMMITTER_EMAIL': 'kenji@shopwave.io', 'GIT_COMMITTER_DATE': when(lt + dt.timedelta(minutes=5), 9)})
        else:
            git('tag', name)
print(git('rev-list', '--count', 'HEAD').strip(), 'commits; HEAD', git('rev-parse', 'HEAD').strip())
