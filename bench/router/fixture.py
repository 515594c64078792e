#!/usr/bin/env python3
# fixture.py DIR: builds the router phrasing set's fixture repository in DIR with git.
# Deterministic (a fixed random seed, fixed dates): about 200 commits from 2025-09 to
# Tuesday 2026-11-24 09:00 UTC, the QUARRY_NOW the harness pins (12:00 that day).
# People with accents (Inês, Zoë Ångström, José García), a human with a GitHub noreply
# address (Carol), three bots ([bot] names and noreply emails), merge commits of
# feature branches, and src/, src/net/, docs/, tests/ folders.
import os
import random
import subprocess
import sys

HUMANS = [
    ("Inês Duarte", "ines@example.org", 6),
    ("Bob Stone", "bob@example.org", 5),
    ("Zoë Ångström", "zoe@example.com", 3),
    ("José García", "jose@example.es", 2),
    ("Carol Nguyen", "1234+carol@users.noreply.github.com", 2),
    ("Alice Martin", "alice@example.com", 3),
]
BOTS = [
    ("dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com"),
    ("renovate[bot]", "29139614+renovate[bot]@users.noreply.github.com"),
    ("github-actions[bot]", "41898282+github-actions[bot]@users.noreply.github.com"),
]
FILES = {
    "src": ["src/main.c", "src/parser.c", "src/lexer.c", "src/net/http.c", "src/net/socket.c"],
    "docs": ["docs/guide.md", "docs/api.md", "README.md"],
    "tests": ["tests/test_parser.c", "tests/test_http.c"],
}
SUBJECTS = ["fix crash in {f}", "refactor {f}", "add option to {f}", "update {f}",
            "typo in {f}", "speed up {f}", "clean up {f}", "handle errors in {f}"]


def git(repo, *args, env=None):
    subprocess.run(["git", "-C", repo, *args], check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    repo = sys.argv[1]
    rnd = random.Random(13)
    os.makedirs(repo, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    # dates: random older ones, denser in the last three weeks, all at fixed hours
    days = []
    base = 20332  # 2025-09-01 as days since 1970-01-01
    for _ in range(150):
        days.append(base + rnd.randrange(0, 430))  # up to 2026-11-04
    for _ in range(45):
        days.append(20762 + rnd.randrange(0, 19))  # 2026-11-05 .. 2026-11-23
    days.sort()
    stamps = [d * 86400 + (8 + rnd.randrange(0, 11)) * 3600 + rnd.randrange(0, 3600)
              for d in days]
    stamps.sort()
    stamps.append(20781 * 86400 + 9 * 3600)  # today, 2026-11-24 09:00 UTC
    counter = [0]

    def env_for(name, email, ts):
        e = dict(os.environ)
        date = "@%d +0000" % ts
        e.update(GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email, GIT_AUTHOR_DATE=date,
                 GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email, GIT_COMMITTER_DATE=date)
        return e

    def commit(ts, who=None):
        counter[0] += 1
        if who is None:
            if rnd.random() < 0.12:
                who = rnd.choice(BOTS)
            else:
                h = rnd.choices(HUMANS, weights=[w for _, _, w in HUMANS])[0]
                who = (h[0], h[1])
        name, email = who
        if name.endswith("[bot]"):
            path = "deps.txt" if "github-actions" not in name else ".github/workflows/ci.yml"
            subject = "bump dependency %d" % counter[0]
        else:
            area = rnd.choices(["src", "docs", "tests"], weights=[6, 2, 2])[0]
            path = rnd.choice(FILES[area])
            subject = rnd.choice(SUBJECTS).format(f=os.path.basename(path))
        full = os.path.join(repo, path)
        os.makedirs(os.path.dirname(full) or repo, exist_ok=True)
        lines = rnd.randrange(1, 30)
        with open(full, "a") as f:
            for i in range(lines):
                f.write("line %d of commit %d\n" % (i, counter[0]))
        if rnd.random() < 0.3 and os.path.getsize(full) > 400:  # some deletions too
            with open(full) as f:
                content = f.readlines()
            cut = rnd.randrange(1, min(20, len(content)))
            with open(full, "w") as f:
                f.writelines(content[cut:])
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", subject, env=env_for(name, email, ts))

    i = 0
    branch_no = 0
    while i < len(stamps):
        # every so often a feature branch of two commits, merged with --no-ff
        if i + 3 < len(stamps) - 1 and rnd.random() < 0.1:
            branch_no += 1
            br = "feature-%d" % branch_no
            git(repo, "checkout", "-q", "-b", br)
            commit(stamps[i])
            commit(stamps[i + 1])
            git(repo, "checkout", "-q", "main")
            merger = rnd.choice([HUMANS[0], HUMANS[1]])
            git(repo, "merge", "-q", "--no-ff", "-m", "Merge branch '%s'" % br, br,
                env=env_for(merger[0], merger[1], stamps[i + 2]))
            git(repo, "branch", "-q", "-D", br)
            i += 3
            continue
        commit(stamps[i])
        i += 1


if __name__ == "__main__":
    main()
