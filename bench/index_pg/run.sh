#!/bin/sh
# run.sh [BUILD_DIR [SYNTHETIC]]: the statistics index of many repositories on PostgreSQL
# 15 (issue 26, part 5). In one run:
#   1. the repositories: a local clone of every /work/.mirror/*/repo (real histories; one
#      whose history git itself cannot diff, a mirror without its largest blobs, is left
#      out and named), and SYNTHETIC (default: as many as make 20 repositories) histories
#      of bench/git/gen_repo.awk of 300, 400, ... commits
#      (one generator, so they share a root: forks of one another under other names),
#      kept in $INDEX_PG_CACHE (default ~/.cache/quarry-bench/index_pg) between runs;
#   2. a throwaway PostgreSQL server as the tests start one (tests/cli/pg_lib.sh; fsync on),
#      one database per measurement;
#   3. indexing all of them with one worker, then again from scratch (the local SQLite
#      indexes removed too, so both runs compute every statistic with git) with two
#      workers at once: the wall time of each; then both again with the local indexes
#      kept (the walk and the database's writes alone);
#   4. the result per repository against the local SQLite index: every commit with its
#      files and line counts (get_commits --with-paths on the clone) equals the published
#      rows, and get_author_stats / get_file_stats / get_commits (every commit, in order)
#      with `repos` equal the local tools' rows;
#   4b. with INDEX_PG_CODE=1 (the default; 0: statistics only), steps 3's cold runs enqueue
#      every repository with --code, so each worker run also brings the repository's code
#      graph to HEAD (one queue, one lease); then per repository the code graph the
#      workers stored, dumped from the database (kept graphs off: from the rows), equals
#      `quarry code dump --ref HEAD` on the repository's own SQLite code index;
#   5. one question across every repository, "each repository's authors since 2020 with
#      their commits and changed lines", asked of quarry (get_author_stats --repos all
#      --since 2020-01-01) and written by hand in SQL over the views (the Mergestat way):
#      the same rows, and the time of each (five runs; the process start included for both:
#      quarry and psql are each one process per question).
# Prints a summary and writes it to $INDEX_PG_OUT (default /tmp/index_pg.txt).
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$SRC/build}
SYN=${2:-auto}
Q=$BUILD/quarry
[ -x "$Q" ] || { echo "run.sh: build quarry in $BUILD first" >&2; exit 2; }
CACHE=${INDEX_PG_CACHE:-$HOME/.cache/quarry-bench/index_pg}
CODE=${INDEX_PG_CODE:-1}
OUT=${INDEX_PG_OUT:-/tmp/index_pg.txt}
TMP=$(mktemp -d)
llm_unserve() { :; }
. "$SRC/tests/cli/pg_lib.sh"
PG_FSYNC=on
pg_start
unset QUARRY_DATABASE_URL QUARRY_NOW
export LC_ALL=C TZ=UTC

# ---- the repositories ----
mkdir -p "$CACHE"
SKIPPED=
real=0
for m in /work/.mirror/*/repo; do
  [ -d "$m" ] || continue
  name=$(basename "$(dirname "$m")" | sed 's/.*+//')
  [ -d "$CACHE/$name" ] || git clone -q "$m" "$CACHE/$name"
  # a mirror may lack its largest blobs: a history git itself cannot diff is left out
  if ! git -C "$CACHE/$name" log --numstat --no-renames --format=%H >/dev/null 2>&1; then
    SKIPPED="$SKIPPED $name"
    rm -rf "$CACHE/$name"
    continue
  fi
  real=$((real + 1))
done
[ "$SYN" != auto ] || SYN=$((20 - real))
i=0
while [ $i -lt "$SYN" ]; do
  n=$((300 + i * 100))
  d="$CACHE/synthetic$n"
  if [ ! -d "$d" ]; then
    git init -q -b main "$d"
    awk -v commits=$n -v authors=30 -f "$SRC/bench/git/gen_repo.awk" /dev/null |
      git -C "$d" fast-import --quiet
    git -C "$d" checkout -q main 2>/dev/null || git -C "$d" checkout -q -f "$(git -C "$d" for-each-ref --format='%(refname:short)' refs/heads | head -n 1)"
  fi
  i=$((i + 1))
done
REPOS=$(ls "$CACHE")
NREPOS=$(echo "$REPOS" | wc -l)
COMMITS=0
for r in $REPOS; do COMMITS=$((COMMITS + $(git -C "$CACHE/$r" rev-list --count HEAD))); done

now_ms() { date +%s%3N; }
fresh() { # fresh DB [warm]: a new database, the schema, every repository enqueued, no local
  # index (with warm: the local indexes kept, so only the database's side is measured;
  # without it and with CODE=1, enqueued with --code: their code graphs too)
  "$PG_BIN/psql" -X -q -h "$PG_SOCK" -p "$PG_PORT" -U postgres -d postgres -c "CREATE DATABASE $1"
  U="postgresql://postgres@/$1?host=$PG_SOCK&port=$PG_PORT"
  "$Q" db init --url "$U" >/dev/null
  for r in $REPOS; do
    [ "${2:-}" = warm ] || rm -rf "$CACHE/$r/.git/quarry"
    if [ "${2:-}" != warm ] && [ "$CODE" = 1 ]; then
      "$Q" index --enqueue --code --repo "$CACHE/$r" --store "$U" >/dev/null
    else
      "$Q" index --enqueue --repo "$CACHE/$r" --store "$U" >/dev/null
    fi
  done
  echo "$U"
}
sql() { "$PG_BIN/psql" -X -At -q -h "$PG_SOCK" -p "$PG_PORT" -U postgres -d "$1" -c "$2"; }

{
  echo "# bench/index_pg: $NREPOS repositories, $COMMITS commits reachable from their HEADs; $(nproc) cores; $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "# repositories: $(echo $REPOS | tr '\n' ' ')"
  [ -z "$SKIPPED" ] || echo "# left out (git cannot read their history: blobs missing from the mirror):$SKIPPED"
} | tee "$OUT"

# ---- one worker ----
U1=$(fresh one)
t0=$(now_ms)
"$Q" index --worker --store "$U1" >"$TMP/one.log"
t1=$(now_ms)
WITH=
[ "$CODE" = 1 ] && WITH=" (statistics and code graphs: $(grep -c 'code graph at HEAD' "$TMP/one.log") code graphs)"
echo "one worker:  $(( (t1 - t0) ))  ms wall, $(grep -c '^indexed ' "$TMP/one.log") repositories$WITH" | tee -a "$OUT"

# ---- two workers ----
U2=$(fresh two)
t0=$(now_ms)
"$Q" index --worker --store "$U2" >"$TMP/two_a.log" &
A=$!
"$Q" index --worker --store "$U2" >"$TMP/two_b.log" &
B=$!
wait $A
wait $B
t1=$(now_ms)
WITH=
[ "$CODE" = 1 ] && WITH=", $(cat "$TMP/two_a.log" "$TMP/two_b.log" | grep -c 'code graph at HEAD') code graphs"
echo "two workers: $(( (t1 - t0) )) ms wall, $(cat "$TMP/two_a.log" "$TMP/two_b.log" | grep -c '^indexed ') repositories ($(grep -c '^indexed ' "$TMP/two_a.log") and $(grep -c '^indexed ' "$TMP/two_b.log"))$WITH" | tee -a "$OUT"

# ---- the database's side alone: the local indexes warm, one worker and two ----
U3=$(fresh warm1 warm)
t0=$(now_ms)
"$Q" index --worker --store "$U3" >/dev/null
t1=$(now_ms)
U4=$(fresh warm2 warm)
"$Q" index --worker --store "$U4" >/dev/null &
A=$!
"$Q" index --worker --store "$U4" >/dev/null &
B=$!
wait $A
wait $B
t2=$(now_ms)
echo "local indexes warm (the walk and the database's writes): one worker $((t1 - t0)) ms, two workers $((t2 - t1)) ms" | tee -a "$OUT"

# ---- identical to the local SQLite index, per repository ----
same=0
differ=""
for r in $REPOS; do
  ok=1
  "$Q" tool get_commits --repo "$CACHE/$r" --with-paths --format json >"$TMP/local.json"
  for db in one two; do
    sql "$db" "SELECT coalesce(json_agg(json_build_object('hash', c.oid, 'author', c.author,
      'email', c.email, 'timestamp', c.atime, 'parents', c.parents, 'subject', c.subject,
      'files', c.nfiles, 'additions', c.additions, 'deletions', c.deletions,
      'paths', (SELECT coalesce(json_agg(json_build_object('path', f.path, 'additions',
        f.additions, 'deletions', f.deletions, 'status', f.status, 'binary', f.is_binary)
        ORDER BY f.seq), '[]') FROM git_files f WHERE f.repo = c.repo AND f.oid = c.oid))
      ORDER BY c.oid), '[]') FROM git_commits_live c WHERE c.repo_name = '$r'" >"$TMP/dump.json"
    python3 "$SRC/bench/index_pg/check.py" commits "$TMP/local.json" "$TMP/dump.json" >>"$TMP/check.log" || ok=0
  done
  # get_commits: every commit, in the local tool's order (the walk's)
  for t in get_author_stats get_file_stats "get_commits --limit 10000000"; do
    # shellcheck disable=SC2086
    "$Q" tool $t --repo "$CACHE/$r" --format json >"$TMP/l.json"
    # shellcheck disable=SC2086
    QUARRY_DATABASE_URL="$U2" "$Q" tool $t --repos "$r" --format json >"$TMP/s.json"
    python3 "$SRC/bench/index_pg/check.py" rows "$TMP/l.json" "$TMP/s.json" "$r" >>"$TMP/check.log" || ok=0
  done
  if [ $ok = 1 ]; then same=$((same + 1)); else differ="$differ $r"; fi
done
echo "identical to the local SQLite index: $same of $NREPOS repositories${differ:+ (differ:$differ)}" | tee -a "$OUT"
[ -z "$differ" ] || sed 's/^/  /' "$TMP/check.log" | head -n 20 | tee -a "$OUT"

# ---- the code graphs the workers stored, against each repository's own SQLite index ----
if [ "$CODE" = 1 ]; then
  csame=0
  cdiffer=""
  for r in $REPOS; do
    ok=1
    QUARRY_CODE_GRAPH_CACHE=off "$Q" code dump --repo "$CACHE/$r" --ref HEAD >"$TMP/code_local.jsonl"
    for u in "$U1" "$U2"; do
      QUARRY_DATABASE_URL="$u" QUARRY_CODE_GRAPH_CACHE=off "$Q" code dump --repo "$CACHE/$r" \
        --ref HEAD >"$TMP/code_db.jsonl"
      cmp -s "$TMP/code_local.jsonl" "$TMP/code_db.jsonl" || ok=0
    done
    if [ $ok = 1 ]; then csame=$((csame + 1)); else cdiffer="$cdiffer $r"; fi
  done
  echo "code graphs identical to the local SQLite index (the dump at HEAD): $csame of $NREPOS repositories${cdiffer:+ (differ:$cdiffer)}" | tee -a "$OUT"
  echo "  code rows: $(sql one "SELECT count(*) FROM code_blobs") blobs for $(sql one "SELECT count(*) FROM code_files") recorded files ($(sql one "SELECT count(DISTINCT oid) FROM code_files") distinct)" | tee -a "$OUT"
fi

# ---- one question across repositories: quarry and hand-written SQL ----
# an author is an email whatever its ASCII case (src/git/git_int.h), hence lower() under
# COLLATE "C"; check.py compares quarry's emails folded the same way. `since` is git
# log's: the walk stops at the first commit older than it, so a commit counts when the
# oldest date its walk had met by then (walk_time) is not older
HAND="SELECT repo_name, lower(email COLLATE \"C\") AS email, count(*) AS commits,
  sum(additions) AS additions, sum(deletions) AS deletions FROM git_commits_live
  WHERE coalesce(walk_time, ctime) >= 1577836800 GROUP BY repo, repo_name, 2
  ORDER BY commits DESC, repo_name, 2"
best_q=999999
best_s=999999
for k in 1 2 3 4 5; do
  t0=$(now_ms)
  QUARRY_DATABASE_URL="$U2" "$Q" tool get_author_stats --repos all --since 2020-01-01 --format json >"$TMP/q.json"
  t1=$(now_ms)
  sql two "SELECT json_agg(r) FROM ($HAND) AS r" >"$TMP/s.json"
  t2=$(now_ms)
  [ $((t1 - t0)) -lt $best_q ] && best_q=$((t1 - t0))
  [ $((t2 - t1)) -lt $best_s ] && best_s=$((t2 - t1))
done
ans=$(python3 "$SRC/bench/index_pg/check.py" question "$TMP/q.json" "$TMP/s.json")
echo "question across $NREPOS repositories (each repository's authors since 2020: commits, lines): $ans" | tee -a "$OUT"
echo "  quarry tool get_author_stats --repos all --since 2020-01-01: best of 5 $best_q ms" | tee -a "$OUT"
echo "  hand-written SQL over git_commits_live (psql): best of 5 $best_s ms" | tee -a "$OUT"
rm -rf "$TMP"
