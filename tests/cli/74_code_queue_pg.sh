#!/bin/sh
# 74_code_queue_pg.sh: the code graph through the shared index's queue, on a real
# PostgreSQL 15 (issue 26, part 3; pg_lib.sh). `quarry index --enqueue --code` puts a
# repository in the shared code index, and every `quarry index --worker` run on it also
# brings its code graph to HEAD, in the same lease, before the run is published. Checks:
#   - a worker's code rows are those of `quarry code index --ref HEAD` run by hand on a
#     clean database (the repository's record, its files, every blob's rows, the dump);
#   - a repository enqueued without --code gets no code graph from the worker;
#   - kill -9 of a worker in the middle of the code step (stopped with SIGSTOP first, once
#     blob rows are stored and the listing is not, so "mid-step" is checked, not hoped
#     for): the repository stays queued and claimed, a worker before the lease ends claims
#     nothing, one after it finishes, and the result is the clean run's;
#   - a new commit: the next run brings the graph to the new HEAD, as a clean run does;
#   - two workers at once on four repositories sharing a vendored file: each indexed once,
#     the shared blob stored once, the result the clean one;
#   - `--code` without a database exits 2 naming the setting;
#   - `quarry code gc` on the database (two repositories sharing a vendored blob): it
#     prunes exactly the blobs no repository's recorded files hold (an old version of a
#     file, a file a query parsed and nobody recorded), never the shared blob one of them
#     dropped, and every kept repository's rows are unchanged; with an indexer stopped
#     between its blobs and its record it prunes nothing and says why (exit 1), and once
#     that indexer is killed its orphan rows go; an index whose blobs were pruned under it
#     records nothing and says so, and the worker loads again and records.
# Leases are quarry's clock (QUARRY_NOW): nothing sleeps to wait for an expiry.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg_lib.sh"
export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C QUARRY_CODE_GRAPH_CACHE=off
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE QUARRY_CODE_DEFINES QUARRY_MEMORY
unset QUARRY_DATABASE_URL PGPASSWORD PGUSER PGHOST PGPORT PGDATABASE
mkdir -p "$HOME"
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
pg_start
T=1773144000 # 2026-03-10T12:00:00Z
export QUARRY_NOW=$T
PIDS=
trap 'for p in $PIDS; do kill -9 "$p" 2>/dev/null; done; pg_stop; llm_unserve; rm -rf "$TMP"' EXIT

newdb() { # newdb NAME: a database with the schema; prints its URL
  u=$(pg_createdb "$1") && "$Q" db init --url "$u" >/dev/null && echo "$u"
}
# mk NAME FILES: a repository of FILES C files that call each other, and a vendored crc.c
mk() {
  mkdir -p "$TMP/$1/src" "$TMP/$1/vendor"
  git init -q -b main "$TMP/$1"
  printf 'int crc(int x) { return x * 31; }\n' >"$TMP/$1/vendor/crc.c"
  awk -v n="$2" -v d="$TMP/$1/src" -v r="$1" 'BEGIN {
    for (i = 0; i < n; i++) {
      f = sprintf("%s/f%d.c", d, i)
      printf "int crc(int x);\nint %s_f%d(int x);\n", r, (i + 1) % n >f
      printf "static int helper%d(int x) { return x + %d; }\n", i, i >>f
      printf "int %s_f%d(int x) { return crc(helper%d(x)) + (x > 0 ? %s_f%d(x - 1) : 0); }\n", r, i, i, r, (i + 1) % n >>f
      close(f)
    }
  }'
  git -C "$TMP/$1" add -A
  git -C "$TMP/$1" -c user.name=t -c user.email=t@t commit -q -m "$1"
}
# state DB NAME: what the database holds of repository NAME's code graph, as text: its
# record, its files, and every row of its blobs (the extractor's output, ordered)
state() {
  pg_sql "$1" "SELECT name || ' ' || coalesce(commit, '-') || ' ' || worktree || ' ' || files FROM code_repos WHERE name = '$2'"
  pg_sql "$1" "SELECT path || ' ' || oid || ' ' || lang FROM code_files WHERE repo = '$2' ORDER BY path"
  pg_sql "$1" "SELECT md5(string_agg(b::text, '|' ORDER BY b.oid)) FROM code_blobs b WHERE oid IN (SELECT oid FROM code_files WHERE repo = '$2')"
  pg_sql "$1" "SELECT md5(string_agg(i::text, '|' ORDER BY i.oid, i.seq)) FROM code_items i WHERE oid IN (SELECT oid FROM code_files WHERE repo = '$2')"
  pg_sql "$1" "SELECT md5(string_agg(r::text, '|' ORDER BY r::text)) FROM code_refs r WHERE oid IN (SELECT oid FROM code_files WHERE repo = '$2')"
}

mk alpha 300
mk beta 5
mk gamma 5
mk delta 5

# ---- the clean result: `quarry code index --ref HEAD` by hand, one database each ----
for r in alpha beta gamma delta; do
  U=$(newdb "hand_$r") || fail "hand database"
  QUARRY_DATABASE_URL="$U" "$Q" code index --repo "$TMP/$r" --ref HEAD >/dev/null || fail "hand index $r"
  state "hand_$r" "$r" >"$TMP/$r.clean"
  QUARRY_DATABASE_URL="$U" "$Q" code dump --repo "$TMP/$r" --ref HEAD >"$TMP/$r.dump" || fail "hand dump $r"
done
grep -q "^alpha $(git -C "$TMP/alpha" rev-parse HEAD) false 301\$" "$TMP/alpha.clean" ||
  fail "the clean record: $(head -1 "$TMP/alpha.clean")"

# ---- a worker brings the code graph of a repository queued with --code ----
U=$(newdb queue) || fail "queue database"
export QUARRY_DATABASE_URL="$U"
expect_out "enqueue --code" "enqueued $(git -C "$TMP/beta" rev-list --max-parents=0 HEAD)/beta, with its code graph" \
  "$Q" index --enqueue --code --repo "$TMP/beta"
expect_out "enqueue --code: queued, never indexed" "beta - false 0" \
  pg_sql queue "SELECT name || ' ' || coalesce(commit, '-') || ' ' || worktree || ' ' || files FROM code_repos"
"$Q" index --enqueue --repo "$TMP/gamma" >/dev/null || fail "enqueue gamma"
"$Q" index --worker --format json >"$TMP/w.json" 2>"$TMP/w.err" || fail "worker: $(cat "$TMP/w.err")"
expect_out "the worker says which runs brought the code graph" "beta true
gamma false" sh -c "python3 -c 'import json,sys; [print(d[\"indexed\"].split(\"/\")[1], str(d[\"code\"]).lower()) for d in map(json.loads, open(sys.argv[1]))]' '$TMP/w.json' | sort"
state queue beta >"$TMP/beta.got"
cmp -s "$TMP/beta.clean" "$TMP/beta.got" || fail "the worker's code rows differ from a clean run: $(diff "$TMP/beta.clean" "$TMP/beta.got")"
"$Q" code dump --repo "$TMP/beta" --ref HEAD >"$TMP/beta.wdump" || fail "dump after the worker"
cmp -s "$TMP/beta.dump" "$TMP/beta.wdump" || fail "the dump after the worker differs"
expect_out "without --code, no code graph" "0" pg_sql queue "SELECT count(*) FROM code_repos WHERE name = 'gamma'"
expect_out "query_codebase repos sees the worker's graph" "beta:src/f0.c:beta_f0" \
  sh -c "cd '$TMP' && '$Q' tool query_codebase --query_type get_call_graph --name beta_f1 --direction callers --repos beta --format json | python3 -c 'import json,sys; print(\" \".join(r[\"repo\"] + \":\" + r[\"from\"] for r in json.load(sys.stdin)[\"results\"]))'"

# ---- a new commit: the next run brings the graph to the new HEAD ----
printf 'int beta_new(void) { return 1; }\n' >"$TMP/beta/src/new.c"
git -C "$TMP/beta" add -A && git -C "$TMP/beta" -c user.name=t -c user.email=t@t commit -q -m new
"$Q" index --enqueue --repo "$TMP/beta" >/dev/null || fail "enqueue beta again"
"$Q" index --worker >"$TMP/w2.out" 2>&1 || fail "worker again: $(cat "$TMP/w2.out")"
grep -q "code graph at HEAD" "$TMP/w2.out" || fail "the second run: $(cat "$TMP/w2.out")"
U2=$(newdb hand_beta2) || fail "hand database 2"
QUARRY_DATABASE_URL="$U2" "$Q" code index --repo "$TMP/beta" --ref HEAD >/dev/null || fail "hand index beta 2"
state hand_beta2 beta >"$TMP/beta2.clean"
state queue beta >"$TMP/beta2.got"
cmp -s "$TMP/beta2.clean" "$TMP/beta2.got" || fail "after a new commit: $(diff "$TMP/beta2.clean" "$TMP/beta2.got")"

# ---- kill -9 in the middle of the code step ----
# catch DB: starts a worker (alpha queued with --code) and stops it (SIGSTOP) once blob
# rows are stored and alpha's listing is not yet; sets WP; returns 1 when it finished first
catch() {
  QUARRY_THREADS=1 "$Q" index --worker --lease 5m >"$TMP/k.out" 2>&1 &
  WP=$!
  PIDS="$PIDS $WP"
  i=0
  while [ $i -lt 3000 ]; do
    n=$(pg_sql "$1" "SELECT count(*) FROM code_blobs")
    [ "${n:-0}" -gt 0 ] && break
    kill -0 "$WP" 2>/dev/null || break
    i=$((i + 1))
  done
  kill -STOP "$WP" 2>/dev/null
  [ "$(pg_sql "$1" "SELECT files FROM code_repos WHERE name = 'alpha'")" = 0 ] &&
    [ "$(pg_sql "$1" "SELECT count(*) FROM code_blobs")" -gt 0 ] && return 0
  kill -9 "$WP" 2>/dev/null; wait "$WP" 2>/dev/null
  return 1
}
killed=
for attempt in 1 2 3 4 5; do
  UK=$(newdb "kill$attempt") || { fail "kill database"; break; }
  export QUARRY_DATABASE_URL="$UK"
  "$Q" index --enqueue --code --repo "$TMP/alpha" >/dev/null || fail "enqueue alpha"
  if catch "kill$attempt"; then
    kill -9 "$WP"; wait "$WP" 2>/dev/null
    killed=$attempt
    break
  fi
done
if [ -z "$killed" ]; then
  fail "kill -9: five workers finished before they could be stopped mid-step"
else
  DB=kill$killed
  expect_out "killed: the listing was not written" "alpha - 0" \
    pg_sql "$DB" "SELECT name || ' ' || coalesce(commit, '-') || ' ' || files FROM code_repos"
  expect_out "killed: still queued and claimed" "true true" \
    pg_sql "$DB" "SELECT (queued IS NOT NULL) || ' ' || (holder IS NOT NULL) FROM git_repos"
  expect_out "killed: before the lease ends nothing is claimable" "nothing to index: the queue is empty" \
    "$Q" index --worker
  QUARRY_NOW=$((T + 301)) "$Q" index --worker >"$TMP/k2.out" 2>&1 || fail "killed: the next worker: $(cat "$TMP/k2.out")"
  grep -q '/alpha: .*code graph at HEAD' "$TMP/k2.out" || fail "killed: $(cat "$TMP/k2.out")"
  state "$DB" alpha >"$TMP/alpha.got"
  cmp -s "$TMP/alpha.clean" "$TMP/alpha.got" || fail "killed: the result differs from a clean run: $(diff "$TMP/alpha.clean" "$TMP/alpha.got" | head -5)"
  "$Q" code dump --repo "$TMP/alpha" --ref HEAD >"$TMP/alpha.kdump" || fail "killed: dump"
  cmp -s "$TMP/alpha.dump" "$TMP/alpha.kdump" || fail "killed: the dump differs from a clean run"
  expect_out "killed: the repository was published once" "1 true true" \
    pg_sql "$DB" "SELECT runs || ' ' || (holder IS NULL) || ' ' || (queued IS NULL) FROM git_repos"
fi

# ---- two workers at once on repositories sharing a vendored blob ----
UT=$(newdb two) || fail "two database"
export QUARRY_DATABASE_URL="$UT"
for r in beta gamma delta alpha; do
  "$Q" index --enqueue --code --repo "$TMP/$r" >/dev/null || fail "enqueue $r"
done
"$Q" index --worker >"$TMP/t1.out" 2>&1 &
p1=$!
"$Q" index --worker >"$TMP/t2.out" 2>&1 &
p2=$!
PIDS="$PIDS $p1 $p2"
wait $p1 || fail "two workers: the first failed: $(cat "$TMP/t1.out")"
wait $p2 || fail "two workers: the second failed: $(cat "$TMP/t2.out")"
expect_out "two workers: each repository indexed once, with its code graph" "4" \
  sh -c "cat '$TMP/t1.out' '$TMP/t2.out' | grep -c 'code graph at HEAD'"
expect_out "two workers: four runs in all" "4" pg_sql two "SELECT sum(runs) FROM git_repos"
expect_out "two workers: the vendored blob stored once" "1 4" \
  pg_sql two "SELECT count(*) || ' ' || (SELECT count(*) FROM code_files WHERE path = 'vendor/crc.c') FROM code_blobs WHERE oid = (SELECT oid FROM code_files WHERE path = 'vendor/crc.c' LIMIT 1)"
for r in alpha gamma delta; do
  state two "$r" >"$TMP/$r.two"
  cmp -s "$TMP/$r.clean" "$TMP/$r.two" || fail "two workers: $r differs from a clean run"
done
state two beta >"$TMP/beta.two"
cmp -s "$TMP/beta2.clean" "$TMP/beta.two" || fail "two workers: beta differs from a clean run"

# ---- quarry code gc on the team database ----
UG=$(newdb gcdb) || fail "gc database"
export QUARRY_DATABASE_URL="$UG"
mk one 3
mk two 3
for r in one two; do "$Q" code index --repo "$TMP/$r" --ref HEAD >/dev/null || fail "gc: index $r"; done
blobs() { pg_sql gcdb "SELECT count(*) FROM code_blobs"; }
expect_out "gc: the shared blob is stored once" "7" blobs
expect_out "gc: nothing to prune" '"blobs_before":7,"blobs_removed":0' \
  sh -c "'$Q' code gc --repo '$TMP/one' --format json | grep -o '\"blobs_before\":[0-9]*,\"blobs_removed\":[0-9]*'"
# one drops the vendored file and changes another; a query parses an uncommitted file of two
git -C "$TMP/one" rm -q vendor/crc.c
printf 'int one_f0(int x) { return x; }\n' >"$TMP/one/src/f0.c"
git -C "$TMP/one" add -A && git -C "$TMP/one" -c user.name=t -c user.email=t@t commit -q -m change
"$Q" code index --repo "$TMP/one" --ref HEAD >/dev/null || fail "gc: index one again"
printf 'int two_extra(void) { return 2; }\n' >"$TMP/two/src/extra.c"
"$Q" code query list_functions --repo "$TMP/two" >/dev/null || fail "gc: a query of the working tree"
rm "$TMP/two/src/extra.c"
state gcdb one >"$TMP/one.before"
state gcdb two >"$TMP/two.before"
expect_out "gc: the old f0.c of one and the unrecorded extra.c go; the shared crc.c stays" \
  '"blobs_before":9,"blobs_removed":2' \
  sh -c "'$Q' code gc --repo '$TMP/one' --format json | grep -o '\"blobs_before\":[0-9]*,\"blobs_removed\":[0-9]*'"
expect_out "gc: every recorded file keeps its rows" "0" \
  pg_sql gcdb "SELECT count(*) FROM code_files f WHERE NOT EXISTS (SELECT 1 FROM code_blobs b WHERE b.oid = f.oid)"
expect_out "gc: no rows of a pruned blob are left" "0 0" \
  pg_sql gcdb "SELECT (SELECT count(*) FROM code_items i WHERE NOT EXISTS (SELECT 1 FROM code_blobs b WHERE b.v = i.v AND b.oid = i.oid)) || ' ' || (SELECT count(*) FROM code_refs i WHERE NOT EXISTS (SELECT 1 FROM code_blobs b WHERE b.v = i.v AND b.oid = i.oid))"
expect_out "gc: the shared blob is still there" "1" \
  pg_sql gcdb "SELECT count(*) FROM code_blobs WHERE oid = '$(git -C "$TMP/two" rev-parse HEAD:vendor/crc.c)'"
state gcdb one | cmp -s "$TMP/one.before" - || fail "gc: one's rows changed"
state gcdb two | cmp -s "$TMP/two.before" - || fail "gc: two's rows changed"
# an indexer in flight: stopped after its blobs are stored and before its record
QUARRY_THREADS=1 "$Q" code index --repo "$TMP/alpha" --ref HEAD >"$TMP/ia.out" 2>&1 &
IP=$!
PIDS="$PIDS $IP"
i=0
while [ $i -lt 3000 ] && [ "$(blobs)" -le 7 ] && kill -0 $IP 2>/dev/null; do i=$((i + 1)); done
kill -STOP $IP
if [ "$(pg_sql gcdb "SELECT count(*) FROM code_repos WHERE name = 'alpha'")" != 0 ]; then
  fail "gc: the indexer of alpha finished before it could be stopped"
  kill -CONT $IP
else
  n=$(blobs)
  expect_rc "gc: an indexer in flight: exit 1" 1 env QUARRY_CODE_GC_WAIT=1 "$Q" code gc --repo "$TMP/one"
  grep -q "cannot prune the shared code index on postgresql server .*: 1 session stored code rows not recorded yet (an indexer in flight" "$TMP/stderr" ||
    fail "gc: an indexer in flight: the message: $(cat "$TMP/stderr")"
  expect_out "gc: an indexer in flight: nothing pruned" "$n" blobs
  kill -CONT $IP
fi
wait $IP || fail "gc: the indexer of alpha: $(cat "$TMP/ia.out")"
expect_out "gc: after the indexer recorded, its blobs stay" '"blobs_removed":0' \
  sh -c "'$Q' code gc --repo '$TMP/one' --format json | grep -o '\"blobs_removed\":[0-9]*'"
state gcdb alpha | cmp -s "$TMP/alpha.clean" - || fail "gc: alpha's rows differ from a clean run"
# a killed indexer: its lock goes with its connection, and its orphan rows with gc
mk eps 300
QUARRY_THREADS=1 "$Q" code index --repo "$TMP/eps" --ref HEAD >/dev/null 2>&1 &
IP=$!
PIDS="$PIDS $IP"
i=0
base=$(blobs)
while [ $i -lt 3000 ] && [ "$(blobs)" -le "$base" ] && kill -0 $IP 2>/dev/null; do i=$((i + 1)); done
kill -9 $IP 2>/dev/null
wait $IP 2>/dev/null
if [ "$(pg_sql gcdb "SELECT count(*) FROM code_repos WHERE name = 'eps'")" = 0 ]; then
  [ "$(blobs)" -gt "$base" ] || fail "gc: the killed indexer had stored nothing"
  QUARRY_CODE_GC_WAIT=5 "$Q" code gc --repo "$TMP/one" >"$TMP/gk.out" 2>&1 || fail "gc after a killed indexer: $(cat "$TMP/gk.out")"
  expect_out "gc: a killed indexer's orphan rows go" "$base" blobs
else
  fail "gc: the indexer of eps finished before it could be killed"
fi
# rows pruned under an index (here by hand, between the kept graph and the record): the
# record refuses, the next index parses them again
QUARRY_CODE_GRAPH_CACHE=on "$Q" code index --repo "$TMP/two" --ref HEAD >/dev/null || fail "gc: index two with the kept graph"
pg_sql gcdb "DELETE FROM code_items WHERE oid = '$(git -C "$TMP/two" rev-parse HEAD:src/f1.c)'; DELETE FROM code_blobs WHERE oid = '$(git -C "$TMP/two" rev-parse HEAD:src/f1.c)'" >/dev/null
expect_err "gc: pruned under an index: it records nothing and says so" \
  "1 of the files of 'two' lost their rows to 'quarry code gc' on postgresql server" \
  env QUARRY_CODE_GRAPH_CACHE=on "$Q" code index --repo "$TMP/two" --ref HEAD
grep -q "run 'quarry code index' again" "$TMP/stderr" || fail "gc: pruned under an index: the hint: $(cat "$TMP/stderr")"
QUARRY_CODE_GRAPH_CACHE=on "$Q" code index --repo "$TMP/two" --ref HEAD >/dev/null || fail "gc: index two again"
state gcdb two | cmp -s "$TMP/two.before" - || fail "gc: two's rows after the second index"
# and the worker loads again by itself
"$Q" index --enqueue --code --repo "$TMP/two" >/dev/null || fail "gc: enqueue two"
QUARRY_CODE_GRAPH_CACHE=on "$Q" index --worker >/dev/null 2>&1 || fail "gc: worker on two"
pg_sql gcdb "DELETE FROM code_items WHERE oid = '$(git -C "$TMP/two" rev-parse HEAD:src/f1.c)'; DELETE FROM code_blobs WHERE oid = '$(git -C "$TMP/two" rev-parse HEAD:src/f1.c)'" >/dev/null
"$Q" index --enqueue --repo "$TMP/two" >/dev/null || fail "gc: enqueue two again"
QUARRY_CODE_GRAPH_CACHE=on "$Q" index --worker >"$TMP/wg.out" 2>&1 || fail "gc: the worker after a prune: $(cat "$TMP/wg.out")"
grep -q "code graph at HEAD" "$TMP/wg.out" || fail "gc: the worker after a prune: $(cat "$TMP/wg.out")"
state gcdb two | cmp -s "$TMP/two.before" - || fail "gc: two's rows after the worker"

# ---- errors ----
expect_rc "--code without a database: usage" 2 env -u QUARRY_DATABASE_URL "$Q" index --enqueue --code --repo "$TMP/beta"
grep -q "QUARRY_DATABASE_URL" "$TMP/stderr" || fail "--code without a database: $(cat "$TMP/stderr")"
finish
