#!/bin/sh
# 53_index_pg.sh: the statistics index of many repositories on a real PostgreSQL 15
# (issue 26, part 3; pg_lib.sh): `quarry index --enqueue` and `--worker`, and the git
# tools' `repos` parameter. What it checks:
#   - with no database configured nothing changes: the local tools answer as before, and
#     `repos` is refused (exit 2) saying what to set;
#   - a worker's rows are what the local SQLite index gives: per repository, every commit
#     with its files and line counts equals `get_commits --with_paths` on the clone, and
#     get_author_stats / get_file_stats with `repos` equal the local tools' rows plus :repo;
#   - kill -9 of a worker mid-run (stopped with SIGSTOP first, so "mid-run" is checked,
#     not hoped for): nothing of it is visible, a worker before the lease ends claims
#     nothing, one after it finishes, and the result is the clean run's, byte for byte;
#   - the database stopped under a worker mid-run: it exits 1 with one line naming the
#     server; after the restart nothing of the run is visible and it resumes as above;
#   - two workers at once index each repository once, with the same result;
#   - a repository that fails (its directory gone) is reported and recorded, waits one
#     lease, and does not stop the worker from indexing the next;
#   - a new commit is indexed incrementally, a rewritten history drops what HEAD no longer
#     reaches, and both equal a clean run of the new state;
#   - errors: bad flags exit 2, a password in the URL is never printed;
#   - `quarry ask` with a model (the scripted model server): the prompt offers `repos`,
#     and a query the Architect writes across repositories runs on the shared index.
# Leases are quarry's clock (QUARRY_NOW): a lease ends because a later process's clock is
# past it; nothing sleeps to wait for an expiry.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg_lib.sh"
pg_test_start
T=1773144000 # 2026-03-10T12:00:00Z
export QUARRY_NOW=$T
PIDS=
trap 'for p in $PIDS; do kill -9 "$p" 2>/dev/null; done; pg_stop; llm_unserve; rm -rf "$TMP"' EXIT

# ---- the repositories ----
gc() { # gc DATE AUTHOR EMAIL MESSAGE: commit what is staged
  GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1" GIT_AUTHOR_NAME="$2" GIT_AUTHOR_EMAIL="$3" \
    GIT_COMMITTER_NAME="$2" GIT_COMMITTER_EMAIL="$3" git commit -q -m "$4"
}
# small: a merge, a .mailmap, a rename, a binary file, a deletion
mkdir -p "$TMP/small" && cd "$TMP/small" && git init -q -b main
printf 'a\nb\n' >a.c && git add a.c && gc "2025-01-01T10:00:00Z" Alice alice@example.com "first"
git checkout -q -b side
mkdir lib && printf 'x\ny\nz\n' >lib/x.c
git add lib && gc "2025-01-02T10:00:00+02:00" Bob bob@old.example.com "side work"
git checkout -q main
printf 'a\nb\nc\n' >a.c && printf '\000\001' >blob.bin && git add a.c blob.bin &&
  gc "2025-01-03T10:00:00Z" Alice alice@example.com "main work"
GIT_AUTHOR_DATE="2025-01-04T10:00:00Z" GIT_COMMITTER_DATE="2025-01-04T10:00:00Z" \
  GIT_AUTHOR_NAME=Alice GIT_AUTHOR_EMAIL=alice@example.com GIT_COMMITTER_NAME=Alice \
  GIT_COMMITTER_EMAIL=alice@example.com git merge -q --no-edit side >/dev/null
printf 'Bob <bob@example.com> <bob@old.example.com>\n' >.mailmap
git mv a.c b.c && git rm -q blob.bin && git add .mailmap && gc "2025-02-01T10:00:00Z" Bob bob@example.com "rename"
# what an array literal and the database's encoding must survive: quotes, backslashes,
# braces and commas in a message and a path, a path that is not UTF-8, NULL-looking text
printf 'q\n' >'we"ird\{a,b}.c' && printf 'r\n' >"$(printf 'caf\351.txt')" && printf 's\n' >NULL &&
  git add . && gc "2025-02-02T10:00:00Z" 'Zoë "Z" \ O'"'"'Brien' zoe@example.com "$(printf 'odd {x,"y"} \\ text\n\nbody, NULL')"
# big: 300 commits by three authors (git fast-import: quick to make, enough for batches)
mkdir -p "$TMP/big" && cd "$TMP/big" && git init -q -b main
awk -v n=300 'BEGIN {
  t = 1735689600
  for (i = 1; i <= n; i++) {
    a = i % 3
    printf "commit refs/heads/main\nauthor Dev%d <dev%d@example.com> %d +0000\n", a, a, t + i * 3600
    printf "committer Dev%d <dev%d@example.com> %d +0000\ndata <<EOT\nchange %d\nEOT\n", a, a, t + i * 3600, i
    printf "M 100644 inline src/f%d.c\ndata <<EOT\nline %d\nline two %d\nEOT\n", i % 17, i, i
    if (i % 5 == 0) printf "M 100644 inline docs/n%d.md\ndata <<EOT\nnote %d\nEOT\n", i % 7, i
    print ""
  }
}' | git fast-import --quiet && git checkout -q main
# fork: a clone of small under another name (same root commit, another repository)
git clone -q "$TMP/small" "$TMP/fork"
cd "$TMP"

# ---- no database: nothing changes ----
"$Q" tool get_author_stats --repo "$TMP/small" --format json >"$TMP/local_before.json" ||
  fail "local get_author_stats"
expect_rc "repos without a database: usage" 2 "$Q" tool get_author_stats --repo "$TMP/small" --repos all
expect_err "repos without a database: says what to set" "set QUARRY_DATABASE_URL" \
  "$Q" tool get_author_stats --repo "$TMP/small" --repos all
expect_rc "worker without a database: usage" 2 "$Q" index --worker
expect_rc "worker on a file: usage" 2 "$Q" index --worker --store "$TMP/x.db"
expect_rc "enqueue and worker: usage" 2 "$Q" index --enqueue --worker
expect_rc "bad --lease" 2 "$Q" index --worker --lease 0 --store "$PG_URL"
expect_rc "bad --batch" 2 "$Q" index --worker --batch 0 --store "$PG_URL"
"$Q" index --worker --store 'postgresql://alice:s3cret@/nodb?host=/nonexistent&port=5999' \
  >"$TMP/pw.out" 2>&1 && fail "a server that is not there: exit 0"
grep -q -e s3cret -e alice "$TMP/pw.out" && fail "the URL's user or password printed: $(cat "$TMP/pw.out")"
grep -q 'postgresql server /nonexistent:5999, database nodb' "$TMP/pw.out" || fail "the server named: $(cat "$TMP/pw.out")"

# ---- helpers ----
newdb() { # newdb NAME: a database with the schema; prints its URL
  u=$(pg_createdb "$1") && "$Q" db init --url "$u" >/dev/null && echo "$u"
}
# dump DB NAME: the published rows of repository NAME, as JSON sorted by commit
dump() {
  pg_sql "$1" "SELECT coalesce(json_agg(json_build_object('hash', c.oid, 'author', c.author,
    'email', c.email, 'timestamp', c.atime, 'parents', c.parents, 'subject', c.subject,
    'files', c.nfiles, 'additions', c.additions, 'deletions', c.deletions,
    'paths', (SELECT coalesce(json_agg(json_build_object('path', f.path, 'additions', f.additions,
      'deletions', f.deletions, 'status', f.status, 'binary', f.is_binary) ORDER BY f.seq), '[]')
      FROM git_files f WHERE f.repo = c.repo AND f.oid = c.oid)) ORDER BY c.oid), '[]')
    FROM git_commits_live c WHERE c.repo_name = '$2'"
}
cat >"$TMP/same.py" <<'EOF'
# same.py LOCAL DUMP: the local get_commits --with_paths rows equal the database's
import json, sys
local = json.load(open(sys.argv[1]))
db = json.load(open(sys.argv[2]))
want = sorted(({"hash": c["hash"], "author": c["author"], "email": c["email"],
                "timestamp": c["timestamp"], "parents": " ".join(c["parents"]),
                "subject": c["subject"], "files": c["files"], "additions": c["additions"],
                "deletions": c["deletions"],
                "paths": [{"path": p["path"], "additions": p["additions"],
                           "deletions": p["deletions"], "status": p["status"],
                           "binary": bool(p.get("binary", False))} for p in c.get("paths", [])]}
               for c in local), key=lambda c: c["hash"])
if want != db:
    print("differ: local %d commits, database %d" % (len(want), len(db)))
    for a, b in zip(want, db):
        if a != b:
            print(" local:", a); print(" db:   ", b); break
    sys.exit(1)
EOF
pg_rows_py
# check DB NAME DIR WHAT: the database's rows of NAME are the local index's of DIR
check() {
  "$Q" tool get_commits --repo "$3" --with-paths --format json >"$TMP/local.json" 2>"$TMP/err" ||
    { fail "$4: local get_commits: $(cat "$TMP/err")"; return; }
  dump "$1" "$2" >"$TMP/dump.json"
  python3 "$TMP/same.py" "$TMP/local.json" "$TMP/dump.json" >"$TMP/same.out" ||
    fail "$4: $2 differs from the local index: $(cat "$TMP/same.out")"
}

# ---- a clean run ----
U1=$(newdb clean) || fail "clean database"
export QUARRY_DATABASE_URL="$U1"
expect_out "enqueue small" "enqueued $(git -C "$TMP/small" rev-list --max-parents=0 HEAD)/small" \
  "$Q" index --enqueue --repo "$TMP/small"
"$Q" index --enqueue --repo "$TMP/big" --format json >"$TMP/enq.json" || fail "enqueue big"
grep -q '"enqueued":"[0-9a-f]\{40\}/big"' "$TMP/enq.json" || fail "enqueue big: $(cat "$TMP/enq.json")"
expect_out "enqueue fork under its name" "enqueued $(git -C "$TMP/small" rev-list --max-parents=0 HEAD)/mine" \
  "$Q" index --enqueue --repo "$TMP/fork" --name mine
"$Q" index --worker --format json >"$TMP/w.out" 2>"$TMP/w.err" || fail "worker: $(cat "$TMP/w.err")"
[ "$(grep -c '"indexed"' "$TMP/w.out")" = 3 ] || fail "worker: three repositories: $(cat "$TMP/w.out")"
grep -q '"indexed":"[0-9a-f]*/big","added":300,"removed":0,"commits":300' "$TMP/w.out" ||
  fail "worker: big's 300 commits: $(cat "$TMP/w.out")"
expect_out "worker: the queue is empty" "nothing to index: the queue is empty" "$Q" index --worker
"$Q" index --status --store "$U1" >"$TMP/st.out" || fail "status --store"
[ "$(cut -d' ' -f1 "$TMP/st.out" | tr '\n' ' ')" = "big mine small " ] || fail "status --store: $(cat "$TMP/st.out")"
grep -q '^big  [0-9a-f]\{40\}/big  300 commits at [0-9a-f]\{12\}$' "$TMP/st.out" || fail "status --store: big: $(cat "$TMP/st.out")"
check clean small "$TMP/small" "clean run"
check clean big "$TMP/big" "clean run"
check clean mine "$TMP/fork" "clean run"
[ "$(pg_sql clean "SELECT count(*) FROM git_commits_live WHERE repo_name = 'small' AND nparents = 2")" = 1 ] ||
  fail "the merge is a row"
dump clean big >"$TMP/big_clean.json"
dump clean small >"$TMP/small_clean.json"

# the tools across repositories: each repository's rows are the local tool's
for t in get_author_stats get_file_stats; do
  for args in "" "--since 2025-01-02" "--path src/" "--author dev1" "--path *.c --merges exclude"; do
    for r in small big; do
      # shellcheck disable=SC2086
      "$Q" tool $t --repo "$TMP/$r" $args --format json >"$TMP/l.json" 2>"$TMP/err" || fail "$t $args local"
      # shellcheck disable=SC2086
      "$Q" tool $t --repos all $args --format json >"$TMP/s.json" 2>"$TMP/err" || fail "$t $args shared: $(cat "$TMP/err")"
      python3 "$TMP/rows.py" "$TMP/l.json" "$TMP/s.json" "$r" >"$TMP/rows.out" ||
        fail "$t $args: $r: $(cat "$TMP/rows.out")"
    done
  done
done
"$Q" tool get_author_stats --repos small,mine --format json >"$TMP/two.json" || fail "repos small,mine"
[ "$(grep -o '"repo":"[a-z]*"' "$TMP/two.json" | sort -u | tr '\n' ' ')" = '"repo":"mine" "repo":"small" ' ] ||
  fail "repos small,mine: rows name both: $(cat "$TMP/two.json")"
"$Q" tool get_commits --repos all --limit 2 --format json >"$TMP/c.json" || fail "get_commits repos"
[ "$(grep -o '"repo":' "$TMP/c.json" | wc -l)" = 2 ] || fail "get_commits --limit 2: $(cat "$TMP/c.json")"
expect_err "an unknown repository lists the known ones" "no repository 'nope' in the shared index; it has: big, mine, small" \
  "$Q" tool get_author_stats --repos nope
expect_rc "ref with repos: usage" 2 "$Q" tool get_author_stats --repos all --ref HEAD~1
# and the local tools are still local with a database configured
"$Q" tool get_author_stats --repo "$TMP/small" --format json >"$TMP/local_after.json"
cmp -s "$TMP/local_before.json" "$TMP/local_after.json" || fail "the local tool changed with a database set"

# catch DB: starts a worker on DB (one repository queued) with batches of 2 commits and
# stops it (SIGSTOP) once it has written rows but not published them; sets WP to its pid
# and returns 1 when it finished before it could be caught
catch() {
  "$Q" index --worker --batch 2 --lease 5m >"$TMP/k.out" 2>&1 &
  WP=$!
  PIDS="$PIDS $WP"
  i=0
  while [ $i -lt 3000 ]; do
    n=$(pg_sql "$1" "SELECT count(*) FROM git_commits")
    [ "${n:-0}" -gt 0 ] && break
    kill -0 "$WP" 2>/dev/null || break
    i=$((i + 1))
  done
  kill -STOP "$WP" 2>/dev/null
  [ "$(pg_sql "$1" "SELECT gen FROM git_repos")" = 0 ] &&
    [ "$(pg_sql "$1" "SELECT count(*) FROM git_commits")" -gt 0 ] && return 0
  kill -9 "$WP" 2>/dev/null; wait "$WP" 2>/dev/null
  return 1
}
# resumed DB WHAT: nothing of the stopped run is visible, the lease blocks a worker until
# it ends, then a worker finishes with the clean run's result
resumed() {
  [ "$(pg_sql "$1" "SELECT count(*) FROM git_commits_live")" = 0 ] ||
    fail "$2: the stopped run's rows are visible"
  [ "$(pg_sql "$1" "SELECT count(*) FROM git_commits")" -lt 300 ] || fail "$2: it had not finished"
  [ -n "$(pg_sql "$1" "SELECT holder FROM git_repos")" ] || fail "$2: the lease is held"
  expect_out "$2: before the lease ends nothing is claimable" "nothing to index: the queue is empty" \
    "$Q" index --worker
  QUARRY_NOW=$((T + 301)) "$Q" index --worker >"$TMP/k2.out" 2>&1 || fail "$2: the next worker: $(cat "$TMP/k2.out")"
  grep -q '/big: [0-9]* commits written, 0 dropped, 300 in all' "$TMP/k2.out" || fail "$2: $(cat "$TMP/k2.out")"
  dump "$1" big | cmp -s - "$TMP/big_clean.json" || fail "$2: the result differs from a clean run"
  [ "$(pg_sql "$1" "SELECT runs || ' ' || (holder IS NULL) || ' ' || (queued IS NULL) || ' ' || commits FROM git_repos")" = "1 true true 300" ] ||
    fail "$2: the repository's row: $(pg_sql "$1" "SELECT * FROM git_repos")"
}

# ---- kill -9 mid-run: the lease ends, another worker finishes, the same result ----
killed=
for attempt in 1 2 3 4 5; do
  U2=$(newdb "kill$attempt") || { fail "kill database"; break; }
  export QUARRY_DATABASE_URL="$U2"
  "$Q" index --enqueue --repo "$TMP/big" >/dev/null || fail "enqueue big ($attempt)"
  if catch "kill$attempt"; then
    kill -9 "$WP"; wait "$WP" 2>/dev/null
    killed=$attempt
    break
  fi
done
if [ -z "$killed" ]; then
  fail "kill -9: the worker never was caught mid-run in 5 attempts"
else
  resumed "kill$killed" "kill -9"
fi

# ---- the database stopped mid-run: one line naming the server, the run resumes ----
stopped=
for attempt in 1 2 3 4 5; do
  U4=$(newdb "down$attempt") || { fail "down database"; break; }
  export QUARRY_DATABASE_URL="$U4"
  "$Q" index --enqueue --repo "$TMP/big" >/dev/null || fail "enqueue big ($attempt)"
  if catch "down$attempt"; then
    pg_server_stop || fail "stop the server"
    kill -CONT "$WP"
    wait "$WP"; rc=$?
    [ "$rc" = 1 ] || fail "database down: the worker exits 1, not $rc"
    [ "$(wc -l <"$TMP/k.out")" = 1 ] || fail "database down: one line: $(cat "$TMP/k.out")"
    grep -q "postgresql server $PG_SOCK:$PG_PORT, database down$attempt" "$TMP/k.out" ||
      fail "database down: the server named: $(cat "$TMP/k.out")"
    pg_server_start || pg_fail "the server did not start again"
    stopped=$attempt
    break
  fi
done
if [ -z "$stopped" ]; then
  fail "database down: the worker never was caught mid-run in 5 attempts"
else
  resumed "down$stopped" "database down"
fi

# ---- two workers at once ----
U3=$(newdb two) || fail "two database"
export QUARRY_DATABASE_URL="$U3"
for r in small big fork; do "$Q" index --enqueue --repo "$TMP/$r" >/dev/null || fail "enqueue $r"; done
"$Q" index --worker --batch 7 >"$TMP/w1.out" 2>&1 &
P1=$!
"$Q" index --worker --batch 7 >"$TMP/w2.out" 2>&1 &
P2=$!
PIDS="$PIDS $P1 $P2"
wait $P1 || fail "two workers: the first: $(cat "$TMP/w1.out")"
wait $P2 || fail "two workers: the second: $(cat "$TMP/w2.out")"
[ "$(cat "$TMP/w1.out" "$TMP/w2.out" | grep -c '^indexed ')" = 3 ] ||
  fail "two workers: each repository once: $(cat "$TMP/w1.out" "$TMP/w2.out")"
[ "$(pg_sql two "SELECT string_agg(name || ':' || runs, ' ' ORDER BY name) FROM git_repos")" = "big:1 fork:1 small:1" ] ||
  fail "two workers: runs: $(pg_sql two "SELECT name, runs FROM git_repos")"
dump two big | cmp -s - "$TMP/big_clean.json" || fail "two workers: big differs from the clean run"
dump two small | cmp -s - "$TMP/small_clean.json" || fail "two workers: small differs from the clean run"

# ---- a repository that fails does not hold the queue ----
U5=$(newdb failing) || fail "failing database"
export QUARRY_DATABASE_URL="$U5"
git clone -q "$TMP/small" "$TMP/gone"
"$Q" index --enqueue --repo "$TMP/gone" >/dev/null || fail "enqueue gone"
"$Q" index --enqueue --repo "$TMP/big" >/dev/null || fail "enqueue big (failing)"
rm -rf "$TMP/gone"
"$Q" index --worker >"$TMP/f.out" 2>"$TMP/f.err"; rc=$?
[ "$rc" = 1 ] || fail "a failing repository: exit 1, not $rc"
grep -q "repository '[0-9a-f]*/gone': cannot open its location '$TMP/gone' on this machine" "$TMP/f.err" ||
  fail "a failing repository: the message: $(cat "$TMP/f.err")"
grep -q '^indexed [0-9a-f]*/big: 300 commits written' "$TMP/f.out" || fail "a failing repository: the next one was indexed: $(cat "$TMP/f.out")"
"$Q" index --status --store "$U5" >"$TMP/st2.out"
grep -q '^gone  .*never indexed, queued; last run failed: repository' "$TMP/st2.out" ||
  fail "a failing repository: status: $(cat "$TMP/st2.out")"
expect_out "a failing repository waits a lease" "nothing to index: the queue is empty" "$Q" index --worker
git clone -q "$TMP/small" "$TMP/gone"
QUARRY_NOW=$((T + 901)) "$Q" index --worker >"$TMP/f2.out" 2>&1 || fail "a failing repository, back: $(cat "$TMP/f2.out")"
grep -q '/gone: ' "$TMP/f2.out" || fail "a failing repository, back: $(cat "$TMP/f2.out")"
[ "$(pg_sql failing "SELECT count(*) FROM git_repos WHERE error IS NOT NULL")" = 0 ] || fail "a failing repository: the error is cleared"

# ---- incremental: a new commit, then a rewritten history ----
export QUARRY_DATABASE_URL="$U1"
cd "$TMP/small"
printf 'q\n' >new.c && git add new.c && gc "2025-03-01T10:00:00Z" Carol carol@example.com "new"
cd "$TMP"
"$Q" index --enqueue --repo "$TMP/small" >/dev/null
expect_out "incremental: one commit written" "1" sh -c "'$Q' index --worker --format json | grep -o '\"added\":[0-9]*' | cut -d: -f2"
check clean small "$TMP/small" "incremental"
git -C "$TMP/small" reset -q --hard HEAD~2
"$Q" index --enqueue --repo "$TMP/small" >/dev/null
expect_out "rewritten: two dropped" "0 2" sh -c "'$Q' index --worker --format json | sed 's/.*\"added\":\\([0-9]*\\),\"removed\":\\([0-9]*\\).*/\\1 \\2/'"
check clean small "$TMP/small" "rewritten"
[ "$(pg_sql clean "SELECT count(*) FROM git_files f WHERE NOT EXISTS (SELECT 1 FROM git_commits c WHERE c.repo = f.repo AND c.oid = f.oid)")" = 0 ] ||
  fail "rewritten: files of dropped commits remain"

# ---- quarry ask with a model: the Architect sees `repos` and a query across repositories
# runs (the scripted model server, tests/llm/model_server.py, is the model) ----
export QUARRY_DATABASE_URL="$U1"
cat >"$TMP/arch.txt" <<'EOF'
```edn
{:mode :query
 :query {:fetch [{:tool :get_author_stats :as :authors :params {:repos ["all"] :since "2025-01-01"}}]
         :transform [{:op :sort :on :authors :as :ranked :by :additions :order :desc}]
         :return {:findings :ranked :summary "{{count:authors}} authors across the repositories"}}}
```
EOF
llm_script "$TMP/s.json" "$TMP/arch.txt"
llm_serve "$TMP/s.json"
(cd "$TMP/small" && "$Q" ask --no-router --format json \
  "who changed the most lines across all repositories since 2025") >"$TMP/ask.json" 2>"$TMP/ask.err" ||
  fail "ask across repositories: $(cat "$TMP/ask.err")"
python3 - "$TMP/ask.json" "$TMP/log.jsonl" >"$TMP/ask.out" 2>&1 <<'EOF' || fail "ask across repositories: $(cat "$TMP/ask.out")"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["findings"]
repos = sorted({r["repo"] for r in rows})
assert repos == ["big", "mine", "small"], repos
adds = [r["additions"] for r in rows]
assert adds == sorted(adds, reverse=True), adds
log = open(sys.argv[2]).read()
assert "repos?: [string]" in log, "the prompt does not offer repos"
EOF
llm_unserve

# ---- the router (no model) across repositories: one row per person, summed ----
(cd "$TMP/small" && env -u QUARRY_LLM_URL -u QUARRY_LLM_MODEL "$Q" ask --format json \
  "who changed the most lines across all repositories since 2025") >"$TMP/rask.json" 2>"$TMP/rask.err" ||
  fail "router across repositories: $(cat "$TMP/rask.err")"
"$Q" tool get_author_stats --repos all --since 2025-01-01 --format json >"$TMP/rall.json" ||
  fail "get_author_stats --repos all"
python3 - "$TMP/rask.json" "$TMP/rall.json" >"$TMP/rask.out" 2>&1 <<'EOF' || fail "router across repositories: $(cat "$TMP/rask.out")"
import json, sys
rows = json.load(open(sys.argv[1]))["findings"]
per = {}
for r in json.load(open(sys.argv[2])):
    p = per.setdefault(r["email"], [0, 0])
    p[0] += r["additions"] + r["deletions"]
    p[1] += 1
want = sorted(per.items(), key=lambda kv: (-kv[1][0], kv[0]))
got = [(r["email"], r["additions"] + r["deletions"], r["repos"]) for r in rows]
assert len(got) == len(set(e for e, _, _ in got)), "one row per person: %s" % got
assert [g[1] for g in got] == sorted((g[1] for g in got), reverse=True), got
assert got[0][0] == want[0][0] and got[0][1] == want[0][1][0] and got[0][2] == want[0][1][1], (got, want)
EOF

# ---- a worker that waits (last: the late repository joins the index) ----
expect_rc "bad --wait" 2 "$Q" index --worker --wait 4000
# a worker that waits: idle on the empty queue, it indexes what is queued later, and an
# interrupt while idle ends it with 0 (polled, not timed: the test only waits for news)
"$Q" index --worker --wait 1 --format json >"$TMP/ww.out" 2>"$TMP/ww.err" &
WPID=$!
PIDS="$PIDS $WPID"
git clone -q "$TMP/small" "$TMP/late"
"$Q" index --enqueue --repo "$TMP/late" >/dev/null || fail "enqueue late"
for _ in $(seq 1 300); do grep -q '"indexed"' "$TMP/ww.out" && break; sleep 0.1; done
grep -q '"indexed":"[0-9a-f]*/late","added":[1-9]' "$TMP/ww.out" ||
  fail "waiting worker: the late commit: $(cat "$TMP/ww.out" "$TMP/ww.err")"
kill -INT "$WPID"
wait "$WPID"; rc=$?
[ "$rc" = 0 ] || fail "waiting worker interrupted while idle: exit $rc: $(cat "$TMP/ww.err")"

# ---- the schema ----
[ "$(pg_sql clean "SELECT max(version) FROM schema_migrations")" = 6 ] || fail "schema version 6"
finish
