#!/usr/bin/env python3
"""Deterministic history for the kvlite fixture. usage: gen_history.py DIR NOW_EPOCH
Writes git objects directly (zlib loose objects), so every hash is known at once
(reverts cite the reverted hash). All dates are +0000 and before NOW."""
import os, sys, zlib, hashlib, random, datetime as dt, subprocess

DIR, NOW = sys.argv[1], int(sys.argv[2])
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fx_src")
rng = random.Random(20231002)
os.makedirs(DIR, exist_ok=True)
subprocess.run(["git", "init", "-q", "-b", "main", DIR], check=True)
GITDIR = os.path.join(DIR, ".git")

def put(kind, data):
    raw = b"%s %d\0" % (kind.encode(), len(data)) + data
    h = hashlib.sha1(raw).hexdigest()
    p = os.path.join(GITDIR, "objects", h[:2], h[2:])
    if not os.path.exists(p):
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f: f.write(zlib.compress(raw))
    return h

def write_tree(files):
    """files: path -> bytes."""
    root = {}
    for path, data in files.items():
        parts = path.split("/"); d = root
        for p in parts[:-1]: d = d.setdefault(p, {})
        d[parts[-1]] = data
    def mk(d):
        ents = []
        for name, v in d.items():
            if isinstance(v, dict): ents.append((name + "/", b"40000 " + name.encode() + b"\0" + bytes.fromhex(mk(v))))
            else:
                mode = b"100755 " if name.endswith((".py", ".sh")) else b"100644 "
                ents.append((name, mode + name.encode() + b"\0" + bytes.fromhex(put("blob", v))))
        ents.sort(key=lambda e: e[0].encode())
        return put("tree", b"".join(e[1] for e in ents))
    return mk(root)

def commit(files, parents, who, ts, msg):
    name, email = who
    tree = write_tree(files)
    s = "tree %s\n" % tree + "".join("parent %s\n" % p for p in parents)
    s += "author %s <%s> %d +0000\ncommitter %s <%s> %d +0000\n\n%s" % (name, email, ts, name, email, ts, msg)
    if not msg.endswith("\n"): s += "\n"
    return put("commit", s.encode())

def src(p): return open(os.path.join(SRC, p), "rb").read().decode()

# ---------------------------------------------------------------- people
P = {
 "priya":  [("Priya Raman", "priya@kvlite.dev")],
 "priya_old": [("Priya Raman", "praman@oldcorp.com")],
 "tomasz": [("Tomasz Nowak", "tomasz.nowak@kvlite.dev")],
 "anna":   [("Anna Nowak", "anna.nowak@gmail.com")],
 "markus": [("Markus Fischer", "markus.fischer@kvlite.dev")],
 "mfischer": [("mfischer", "41822907+mfischer@users.noreply.github.com")],
 "kenji":  [("Kenji Watanabe", "kenji.w@kvlite.dev")],
 "kenji_home": [("Kenji Watanabe", "kenji@watanabe.jp")],
 "rahul":  [("Rahul Menon", "rahul.menon@kvlite.dev")],
 "rmenon": [("rmenon", "rahul.menon@kvlite.dev")],
 "alexm":  [("Alex Moreau", "alex.moreau@kvlite.dev")],
 "alexk":  [("Alex Kim", "alexkim@protonmail.com")],
 "sofia":  [("Sofia Lindqvist", "sofia@lindqvist.se")],
 "grace":  [("Grace Holloway", "grace.holloway@kvlite.dev")],
 "daniel": [("Daniel Okafor", "dokafor@kvlite.dev")],
 "olu":    [("Olu Adeyemi", "olu@adeyemi.ng")],
 "lena":   [("Lena Brandt", "lena.brandt@kvlite.dev")],
}
def D(s): return int(dt.datetime.fromisoformat(s).replace(tzinfo=dt.timezone.utc).timestamp())
# person: (weight, active from, active until, favourite areas, night owl)
PEOPLE = {
 "priya": (16, "2023-10-02", "2026-12-31", ["store", "core", "docs"], False),
 "tomasz": (13, "2023-10-20", "2026-12-31", ["cli", "build", "tests"], False),
 "kenji": (11, "2023-11-15", "2026-12-31", ["wal", "crc", "store"], True),
 "markus": (8, "2024-02-01", "2026-12-31", ["compress", "vendor", "build"], False),
 "anna": (5, "2024-05-01", "2026-12-31", ["docs", "tests"], False),
 "rahul": (6, "2024-03-01", "2026-12-31", ["tests", "cli", "wal"], False),
 "alexm": (5, "2024-07-01", "2026-12-31", ["store", "bench"], False),
 "alexk": (4, "2025-01-10", "2026-12-31", ["compact", "tests"], False),
 "sofia": (4, "2024-09-01", "2026-12-31", ["bench", "docs"], False),
 "grace": (3, "2024-01-15", "2025-12-31", ["docs", "build"], False),
 "daniel": (4, "2025-03-01", "2026-12-31", ["compact", "store"], True),
 "olu": (3, "2025-06-01", "2026-12-31", ["ci", "build", "tests"], True),
 "lena": (3, "2023-10-02", "2024-06-30", ["core", "hash"], False),
}
def identity(key, ts):
    if key == "priya" and ts < D("2024-02-01"): return P["priya_old"][0]
    if key == "markus" and rng.random() < 0.35: return P["mfischer"][0]
    if key == "kenji" and rng.random() < 0.25: return P["kenji_home"][0]
    if key == "rahul" and rng.random() < 0.3: return P["rmenon"][0]
    return P[key][0]

AREA_FILES = {
 "store": ["src/STORE.c", "src/store.h", "include/kv.h"], "core": ["include/kv.h", "src/STORE.c", "lib/log.c", "lib/log.h"],
 "wal": ["src/wal.c", "src/wal.h"], "crc": ["lib/crc32.c", "lib/crc32.h"], "hash": ["lib/hash.c", "lib/hash.h"],
 "cli": ["src/cli.c"], "build": ["Makefile"], "tests": ["tests/test_store.c", "tests/test_wal.c", "tests/test_util.c", "tests/test.h"],
 "docs": ["README.md", "docs/FORMAT", "docs/hacking.md"], "compress": ["src/compress.c", "src/compress.h"],
 "vendor": ["src/compress.c"], "bench": ["tools/kvbench.c"], "compact": ["src/compact.c"], "ci": [".github/workflows/ci.yml"],
 "util": ["lib/UTIL.c", "lib/UTIL.h"],
}
PHRASES = ["fix off-by-one in {x}", "handle empty keys", "tidy up {x}", "add missing NULL check", "simplify error paths",
 "avoid double free on close", "clarify comments", "rename local variables", "speed up {x}", "guard against short reads",
 "fix build on macOS", "silence -Wextra warnings", "cover edge case in {x}", "document {x}", "check return value of write",
 "reduce allocations in {x}", "make {x} reentrant", "fix typo", "use size_t for lengths", "log more context on failure",
 "bump limits", "drop dead code in {x}", "fix leak in {x}", "refactor {x}", "add assertion for invariant"]
XS = ["slot probing", "rehash", "replay", "the header parser", "checksums", "argument parsing", "the test harness",
 "compaction", "block compression", "key hashing", "the logger", "benchmark setup", "the build", "error messages"]

# ---------------------------------------------------------------- file content with a changing trailer
class Files:
    def __init__(self): self.f = {}; self.trail = {}
    def comment(self, path, text):
        if path.endswith((".c", ".h")): return "/* %s */" % text
        if path.endswith(".md"): return "- %s" % text
        return "# %s" % text
    def touch(self, path, base, note):
        t = self.trail.setdefault(path, [])
        for _ in range(rng.randint(0, min(3, len(t)))):
            t.pop(rng.randrange(len(t)))
        for _ in range(rng.randint(1, 9)):
            t.insert(rng.randint(0, len(t)), self.comment(path, "%s %d" % (note, rng.randint(1, 999))))
        self.f[path] = (base.rstrip("\n") + "\n\n" + "\n".join(t) + "\n").encode()

class Repo:
    def __init__(self):
        self.files = Files(); self.head = None; self.log = []
        self.names = {"src/STORE.c": "src/kvstore.c", "lib/UTIL.c": "lib/strutil.c", "lib/UTIL.h": "lib/strutil.h", "docs/FORMAT": "docs/FORMAT.txt"}
        self.base = {}
    def real(self, p): return self.names.get(p, p)
    def do(self, who_key, ts, msg, paths=(), add=(), delete=(), rename=(), parents=None, who=None):
        who = who or identity(who_key, ts)
        for old, new in rename:
            self.files.f[new] = self.files.f.pop(old); self.files.trail[new] = self.files.trail.pop(old); self.base[new] = self.base.pop(old)
        for p in delete:
            self.files.f.pop(p, None); self.files.trail.pop(p, None)
        for p, content in add:
            self.base[p] = content; self.files.touch(p, content, "init")
        for p in paths:
            rp = self.real(p)
            self.files.touch(rp, self.base[rp], "note")
        h = commit(self.files.f, parents if parents is not None else ([self.head] if self.head else []), who, ts, msg)
        self.head = h
        self.log.append((h, ts, msg))
        return h

R = Repo()
def base_for(real, final):
    R.base[real] = src(final)

# ---------------------------------------------------------------- scripted events
T0 = D("2023-10-02T10:12:00")
init = [("README.md", src("README.md")), ("Makefile", src("Makefile")), ("include/kv.h", src("include/kv.h")),
        ("src/kvstore.c", src("src/store.c")), ("src/store.h", src("src/store.h")), ("lib/log.c", src("lib/log.c")),
        ("lib/log.h", src("lib/log.h")), ("lib/hash.c", src("lib/hash.c")), ("lib/hash.h", src("lib/hash.h")),
        ("lib/strutil.c", src("lib/util.c")), ("lib/strutil.h", src("lib/util.h")), ("src/legacy_db.c", src("src/legacy_db.c"))]
R.do("lena", T0, "Initial import of kvlite", add=init)

EVENTS = [  # (date, who, msg, kwargs) applied when the day loop reaches the date
 ("2023-11-03T14:20:00", "tomasz", "cli: add kvcli command line tool", dict(add=[("src/cli.c", src("src/cli.c"))])),
 ("2023-11-08T11:05:00", "priya", "docs: describe the on-disk format", dict(add=[("docs/FORMAT.txt", src("docs/format.md"))])),
 ("2023-11-21T16:40:00", "tomasz", "tests: add unit test harness", dict(add=[("tests/test.h", src("tests/test.h")), ("tests/test_util.c", src("tests/test_util.c")), ("tests/test_store.c", src("tests/test_store.c"))])),
 ("2023-12-05T23:47:00", "kenji", "wal: add write-ahead log", dict(add=[("src/wal.c", src("src/wal.c")), ("src/wal.h", src("src/wal.h")), ("lib/crc32.c", src("lib/crc32.c")), ("lib/crc32.h", src("lib/crc32.h")), ("lib/crc32_tab.c", src("lib/crc32_tab.c")), ("tests/test_wal.c", src("tests/test_wal.c"))])),
 ("2024-01-09T10:00:00", "priya", "tools: add migrate.py for legacy files", dict(add=[("tools/migrate.py", src("tools/migrate.py"))])),
 ("2024-01-30T15:00:00", "priya", "release: v0.9.0", dict(add=[("CHANGELOG.md", src("CHANGELOG.md"))], tag="v0.9.0")),
 ("2024-04-09T09:31:00", "priya", "store: rename kvstore.c to store.c", dict(rename=[("src/kvstore.c", "src/store.c")], names={"src/STORE.c": "src/store.c"})),
 ("2024-05-14T13:00:00", "priya", "release: v1.0.0", dict(paths=["CHANGELOG.md"], tag="v1.0.0")),
 ("2024-06-03T10:45:00", "tomasz", "lib: rename strutil to util", dict(rename=[("lib/strutil.c", "lib/util.c"), ("lib/strutil.h", "lib/util.h")], names={"lib/UTIL.c": "lib/util.c", "lib/UTIL.h": "lib/util.h"})),
 ("2024-06-20T11:11:00", "grace", "docs: add hacking guide", dict(add=[("docs/hacking.md", src("docs/hacking.md"))])),
 ("2024-09-24T14:00:00", "priya", "release: v1.1.0", dict(paths=["CHANGELOG.md"], tag="v1.1.0")),
 ("2024-10-15T09:20:00", "anna", "docs: convert FORMAT.txt to markdown", dict(rename=[("docs/FORMAT.txt", "docs/format.md")], names={"docs/FORMAT": "docs/format.md"})),
 ("2024-11-12T17:30:00", "sofia", "bench: add kvbench tool", dict(add=[("tools/kvbench.c", src("tools/kvbench.c"))])),
 ("2025-01-14T12:00:00", "priya", "add .mailmap", dict(add=[(".mailmap", "MAILMAP")])),
 ("2025-01-20T15:30:00", "priya", "release: v1.2.0", dict(paths=["CHANGELOG.md"], tag="v1.2.0", branch_release=True)),
 ("2025-02-11T10:02:00", "priya", "store: remove legacy_db backend (#187)\n\nNobody has used the flat-file backend since 1.0.\nCloses #187.", dict(delete=["src/legacy_db.c"])),
 ("2025-04-02T16:10:00", "olu", "ci: add GitHub Actions workflow", dict(add=[(".github/workflows/ci.yml", src(".github/workflows/ci.yml"))])),
 ("2025-08-12T14:00:00", "priya", "release: v2.0.0", dict(paths=["CHANGELOG.md", "include/kv.h"], tag="v2.0.0")),
 ("2025-09-09T11:30:00", "tomasz", "tools: drop migrate.py (legacy backend is gone)", dict(delete=["tools/migrate.py"])),
 ("2026-03-03T13:00:00", "priya", "release: v2.1.0", dict(paths=["CHANGELOG.md"], tag="v2.1.0")),
 ("2026-09-15T12:00:00", "tomasz", "release: v2.2.0", dict(paths=["CHANGELOG.md"], tag="v2.2.0")),
 # planted issue #214 (three commits) and #305
 ("2025-06-17T10:40:00", "kenji", "wal: fix torn header on crash (#214)", dict(paths=["src/wal.c"])),
 ("2025-06-19T22:58:00", "kenji", "wal: follow-up for #214, fsync the header too", dict(paths=["src/wal.c", "src/wal.h"])),
 ("2025-07-01T09:15:00", "rahul", "tests: regression test for #214", dict(paths=["tests/test_wal.c"])),
 ("2026-02-10T15:05:00", "daniel", "fix #305: compaction drops the last live entry", dict(paths=["src/compact.c"])),
]
EVENTS = sorted([(D(d), w, m, k) for d, w, m, k in EVENTS], key=lambda e: e[0])
MAILMAP = """Priya Raman <priya@kvlite.dev> <praman@oldcorp.com>
Markus Fischer <markus.fischer@kvlite.dev> mfischer <41822907+mfischer@users.noreply.github.com>
Kenji Watanabe <kenji.w@kvlite.dev> <kenji@watanabe.jp>
Rahul Menon <rahul.menon@kvlite.dev>
"""
# feature branches: (name, pr, author, start, end, files, adds, merger)
BRANCHES = [
 ("feature/lz4", 41, "markus", "2024-08-05", "2024-08-27", ["src/compress.c", "src/compress.h", "Makefile"],
  [("vendor/lz4/lz4.c", src("vendor/lz4/lz4.c")), ("vendor/lz4/lz4.h", src("vendor/lz4/lz4.h")), ("src/compress.c", src("src/compress.c")), ("src/compress.h", src("src/compress.h"))], "priya"),
 ("feature/wal-batching", 77, "kenji", "2024-10-01", "2024-10-22", ["src/wal.c", "src/wal.h"], [], "priya"),
 ("feature/compaction", 156, "daniel", "2025-04-07", "2025-05-06", ["src/compact.c", "src/store.h"], [("src/compact.c", src("src/compact.c"))], "tomasz"),
 ("fix/crc-endianness", 171, "kenji", "2025-05-20", "2025-05-29", ["lib/crc32.c", "lib/crc32_tab.c"], [], "priya"),
 ("feature/stats-hook", 198, "rahul", "2025-07-14", "2025-07-30", ["src/cli.c"], [], "tomasz"),
 ("feature/bench-json", 233, "sofia", "2025-10-06", "2025-10-21", ["tools/kvbench.c"], [], "priya"),
 ("feature/wal-v2", 262, "kenji", "2025-11-10", "2025-12-09", ["src/wal.c", "src/wal.h", "docs/format.md"], [], "priya"),
 ("feature/lz4-update", 281, "markus", "2026-01-12", "2026-01-20", ["vendor/lz4/lz4.c", "vendor/lz4/lz4.h"], [], "priya"),
 ("feature/compact-incremental", 318, "alexk", "2026-04-06", "2026-04-28", ["src/compact.c"], [], "tomasz"),
 ("feature/hash-seed", 352, "alexm", "2026-07-13", "2026-07-24", ["lib/hash.c", "lib/hash.h"], [], "priya"),
 ("feature/cli-help", 371, "olu", "2026-10-12", "2026-10-27", ["src/cli.c"], [], "tomasz"),
]
UNMERGED = ("feature/mmap", "alexk", "2026-10-26", ["src/store.c", "src/store.h"])
REVERT_DAYS = ["2024-03-12", "2024-12-03", "2025-09-23", "2026-05-19"]
RELEASE_FIX = [("2025-02-04T11:00:00", "tomasz", "wal: backport fix for short writes (#190)", ["src/wal.c"]),
               ("2025-02-10T16:00:00", "tomasz", "release: v1.2.1", ["CHANGELOG.md"], "v1.2.1"),
               ("2025-03-11T10:30:00", "rahul", "cli: backport argument check (#203)", ["src/cli.c"]),
               ("2025-03-18T15:00:00", "tomasz", "release: v1.2.2", ["CHANGELOG.md"], "v1.2.2")]
RELEASE_MERGE = D("2025-03-20T10:00:00")

TAGS = {}; REFS = {}
END = NOW - 3600 * 5
day = dt.date(2023, 10, 3)
lastday = dt.datetime.fromtimestamp(END, dt.timezone.utc).date()
ev_i = 0
active_branch = None  # (spec, state-files, state-trail, head, base)
release = None
issues_used = {214, 305, 187, 190, 203}

def choose_author(ts, exclude=()):
    keys = [k for k, v in PEOPLE.items() if D(v[1]) <= ts <= D(v[2] + "T23:59:59") and k not in exclude]
    w = [PEOPLE[k][0] for k in keys]
    return rng.choices(keys, w)[0]

def live_paths(excluded):
    out = []
    return out

def pick_paths(author, excluded):
    areas = PEOPLE[author][3] + ["store", "wal", "tests", "docs", "cli", "util"]
    for _ in range(20):
        a = rng.choice(areas)
        cands = [p for p in AREA_FILES[a] if R.real(p) in R.files.f and R.real(p) not in excluded]
        if cands:
            n = 1 if rng.random() < 0.6 else 2
            ps = rng.sample(cands, min(n, len(cands)))
            if rng.random() < 0.15:
                extra = [p for p in ("tests/test_store.c", "README.md", "Makefile") if p in R.files.f and p not in excluded]
                if extra: ps.append(rng.choice(extra))
            return a, sorted(set(ps))
    return None, []

def message(area, paths):
    x = rng.choice(XS)
    subj = "%s: %s" % (area, rng.choice(PHRASES).format(x=x))
    r = rng.random()
    if r < 0.12:
        n = rng.choice([i for i in range(1, 400) if i not in issues_used]); subj += " (#%d)" % n
    elif r < 0.18:
        n = rng.choice([i for i in range(1, 400) if i not in issues_used]); subj = "fix #%d: %s" % (n, subj.split(": ", 1)[1])
    elif r < 0.22:
        n = rng.choice([i for i in range(1, 400) if i not in issues_used]); subj += "\n\nCloses #%d." % n
    return subj

while day <= lastday:
    ds = day.isoformat()
    y = day.year
    rate = {2023: 0.45, 2024: 0.62, 2025: 0.66, 2026: 0.55}[y]
    if day.weekday() >= 5: rate *= 0.3
    if day.month == 12 and day.day > 22: rate *= 0.2
    n = 0
    while rng.random() < rate and n < 4:
        n += 1; rate *= 0.45
    times = []
    for _ in range(n):
        if rng.random() < 0.1: hh = rng.choice([22, 23, 0, 1, 2])
        else: hh = rng.randint(8, 19)
        t = D(ds) + hh * 3600 + rng.randint(0, 59) * 60 + rng.randint(0, 59)
        if hh <= 2: t += 86400 - 86400  # just after midnight of this day
        times.append(t)
    # scripted events of this day
    todays = []
    while ev_i < len(EVENTS) and EVENTS[ev_i][0] < D(ds) + 86400:
        todays.append(EVENTS[ev_i]); ev_i += 1
    items = [("rnd", t) for t in times] + [("ev", e[0], e) for e in todays]
    # branch start / merge
    for spec in BRANCHES:
        if spec[3] == ds: items.append(("bstart", D(ds) + 8 * 3600, spec))
        if spec[4] == ds: items.append(("bmerge", D(ds) + 17 * 3600 + 600, spec))
    if ds == UNMERGED[2]: items.append(("mmap", D(ds) + 20 * 3600, None))
    for rf in RELEASE_FIX:
        if rf[0][:10] == ds: items.append(("rel", D(rf[0]), rf))
    if ds == "2025-03-20": items.append(("relmerge", RELEASE_MERGE, None))
    items.sort(key=lambda x: x[1])
    if END < D(ds) + 86400:
        items = [i for i in items if i[1] <= END]
    for it in items:
        kind, ts = it[0], it[1]
        excluded = set(active_branch[0][5]) if active_branch else set()
        if release: excluded |= {"src/wal.c", "src/cli.c", "CHANGELOG.md"}
        if kind == "ev":
            _, who, msg, kw = it[2]
            kw = dict(kw); tag = kw.pop("tag", None); names = kw.pop("names", None); brel = kw.pop("branch_release", False)
            kw["add"] = [(p, MAILMAP if c == "MAILMAP" else c) for p, c in kw.get("add", [])]
            h = R.do(who, ts, msg, **kw)
            if names:
                R.names.update(names)
                for k, v in names.items(): pass
            if tag: TAGS[tag] = (h, ts, who)
            if brel:
                release = {"files": dict(R.files.f), "trail": {k: list(v) for k, v in R.files.trail.items()}, "head": h}
        elif kind == "rnd":
            a = choose_author(ts)
            if ts % 86400 < 3 * 3600 or ts % 86400 >= 22 * 3600:
                owls = [k for k in ("kenji", "daniel", "olu") if D(PEOPLE[k][1]) <= ts]
                if owls: a = rng.choice(owls)
            area, ps = pick_paths(a, excluded)
            if not ps: continue
            msg = message(area, ps)
            before = dict(R.files.f); before_tr = {k: list(v) for k, v in R.files.trail.items()}
            h = R.do(a, ts, msg, paths=ps)
            if REVERT_DAYS and ds >= REVERT_DAYS[0]:
                REVERT_DAYS.pop(0)
                rv = choose_author(ts, exclude=(a,))
                R.files.f = before; R.files.trail = before_tr
                subj = msg.split("\n")[0]
                R.do(rv, ts + 2 * 3600 + 17 * 60, 'Revert "%s"\n\nThis reverts commit %s.\n' % (subj, h))
        elif kind == "bstart":
            spec = it[2]
            active_branch = (spec, {"files": dict(R.files.f), "trail": {k: list(v) for k, v in R.files.trail.items()}, "head": R.head})
            # branch commits: spread over the window
            name, pr, au, s, e, files, adds, merger = spec
            saved = (R.files.f, R.files.trail, R.head)
            R.files.f = dict(active_branch[1]["files"]); R.files.trail = {k: list(v) for k, v in active_branch[1]["trail"].items()}; R.head = active_branch[1]["head"]
            nb = rng.randint(3, 7)
            span = D(e) - D(s)
            tss = sorted(D(s) + rng.randint(3600 * 9, span - 3600 * 12) for _ in range(nb))
            for i, bts in enumerate(tss):
                if i == 0 and adds:
                    R.do(au, bts, "%s: initial implementation" % name.split("/")[1], add=adds)
                else:
                    fs = [f for f in files if f in R.files.f]
                    R.do(au, bts, "%s: %s" % (name.split("/")[1], rng.choice(PHRASES).format(x=rng.choice(XS))), paths=rng.sample(fs, rng.randint(1, len(fs))))
            bstate = (R.files.f, R.files.trail, R.head)
            R.files.f, R.files.trail, R.head = saved
            active_branch = (spec, bstate)
        elif kind == "bmerge":
            spec, bstate = active_branch
            name, pr, au, s, e, files, adds, merger = spec
            bf, btr, bh = bstate
            for p in set(files) | {a[0] for a in adds}:
                if p in bf: R.files.f[p] = bf[p]; R.files.trail[p] = list(btr[p])
            owner = P[au][0][1].split("@")[0].split(".")[0]
            R.do(merger, ts, "Merge pull request #%d from %s/%s\n\n%s" % (pr, owner, name, name.split("/")[1].replace("-", " ")), parents=[R.head, bh])
            REFS["refs/heads/" + name] = bh if name in ("feature/wal-v2",) else None
            active_branch = None
        elif kind == "rel":
            rf = it[2]
            saved = (R.files.f, R.files.trail, R.head)
            R.files.f, R.files.trail, R.head = release["files"], release["trail"], release["head"]
            h = R.do(rf[1], ts, rf[2], paths=rf[3])
            if len(rf) > 4: TAGS[rf[4]] = (h, ts, rf[1])
            release = {"files": R.files.f, "trail": R.files.trail, "head": h}
            R.files.f, R.files.trail, R.head = saved
        elif kind == "relmerge":
            for p in ("src/wal.c", "src/cli.c", "CHANGELOG.md"):
                R.files.f[p] = release["files"][p]; R.files.trail[p] = list(release["trail"][p])
            REFS["refs/heads/release/1.2"] = release["head"]
            R.do("tomasz", ts, "Merge branch 'release/1.2'", parents=[R.head, release["head"]])
            release = None
        elif kind == "mmap":
            saved = (R.files.f, R.files.trail, R.head)
            R.files.f = dict(R.files.f); R.files.trail = {k: list(v) for k, v in R.files.trail.items()}
            for i in range(3):
                R.do("alexk", ts + i * 86400 * 3, "mmap: %s" % ["map the table file", "grow the mapping on rehash", "msync on close"][i], paths=["src/store.c", "src/store.h"][: 1 + i % 2])
            REFS["refs/heads/feature/mmap"] = R.head
            R.files.f, R.files.trail, R.head = saved
    day += dt.timedelta(days=1)

REFS["refs/heads/main"] = R.head
with open(os.path.join(GITDIR, "packed-refs"), "w") as f:
    for k, v in sorted(REFS.items()):
        if v: f.write("%s %s\n" % (v, k))
env = dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")
for tag, (h, ts, who) in sorted(TAGS.items()):
    n, e = P[who][0]
    subprocess.run(["git", "-C", DIR, "tag", "-a", tag, h, "-m", "kvlite " + tag], check=True,
                   env=dict(env, GIT_COMMITTER_NAME=n, GIT_COMMITTER_EMAIL=e, GIT_COMMITTER_DATE="%d +0000" % (ts + 600)))
subprocess.run(["git", "-C", DIR, "reset", "-q", "--hard", "main"], check=True, env=env)
