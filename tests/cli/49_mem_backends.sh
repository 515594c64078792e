#!/bin/sh
# 49_mem_backends.sh: the memory suite on both backends (issue 26): one suite, run once on
# a SQLite file and once on a PostgreSQL database (pg_lib.sh's throwaway server), whose
# outputs must agree line for line once the store's name, its sizes and the search
# scores (bm25 on SQLite, ts_rank on PostgreSQL) are set aside: every command of `quarry
# mem` (add, get, update with tags and re-weights, delete, restore, link, unlink, import,
# export, stats, query with its filters and graph stages), a snapshot that follows another
# process's writes, writers racing (eight imports at once, four agents adding one key)
# losing nothing; and a store moves from SQLite to PostgreSQL and back exactly (the
# export of each is the same bytes).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg_lib.sh"
export QUARRY_NOW=2026-03-10T12:00:00Z
unset QUARRY_MEMORY QUARRY_DATABASE_URL QUARRY_LLM_URL QUARRY_LLM_MODEL
fail() { echo "FAIL: $1"; FAILS=$((FAILS + 1)); }
pg_start

# what differs by backend and nothing else: the store's name and its sizes on disk
norm() {
  sed -e 's/"store":"[^"]*"/"store":"STORE"/' -e 's/"fts_bytes":[0-9]*/"fts_bytes":N/' \
    -e 's/"file_bytes":[0-9]*/"file_bytes":N/' -e "s|memory store '[^']*'|memory store STORE|" \
    -e 's/memory store at postgresql server [^,]*, database [a-z]*/memory store STORE/' \
    -e 's/"content":"from agent [1-4]"/"content":"from agent K"/' \
    -e 's/"score":[-0-9.e]*/"score":S/'
}

# suite NAME STORE: the operations, each printed with its exit status to $TMP/NAME.out
suite() {
  name=$1 S=$2 o="$TMP/$1.out"
  : >"$o"
  run() { "$Q" mem "$@" --store "$S" --format json >>"$o" 2>&1; echo "exit $?" >>"$o"; }
  run add alpha --content "first note" --tag x --tag y --weight 0.25
  run add beta --content "second" --type episodic --provenance "agent a1"
  run add "gamma#1" --content 'quotes " and \ and ünïcode
on two lines'
  run add alpha --content "again"
  run add "bad key" --content x
  run link alpha beta --strength 0.3
  run link alpha beta --strength 0.7
  run link beta "gamma#1" --type cites --strength 0.125
  run link alpha alpha
  run link alpha nosuch
  run link alpha beta --strength 1.5
  printf '%s\n' '{"kind":"visit","node":"alpha","agent":"a1","time":"2026-03-01T00:00:00Z","outcome":"used"}' \
    '{"kind":"node","key":"delta","content":"imported","deleted":"2026-03-02T00:00:00Z"}' \
    '{"kind":"edge","source":"delta","target":"alpha","type":"related","strength":0.5}' >"$TMP/in.jsonl"
  run import "$TMP/in.jsonl"
  printf '%s\n' '{"kind":"node","key":"eps","content":"x"}' '{"kind":"visit","node":"nosuch","agent":"a1","time":"2026-03-01T00:00:00Z"}' >"$TMP/bad.jsonl"
  run import "$TMP/bad.jsonl"
  run stats
  # reading and changing notes
  run get alpha
  run get nosuch
  run update alpha --content "first note, changed" --weight 0.875 --tag z --untag x
  run update alpha --untag nosuch
  run update beta --type semantic --provenance "agent b2"
  run get alpha
  run get beta
  run unlink beta "gamma#1"
  run unlink beta "gamma#1"
  run link beta "gamma#1" --type cites --strength 0.25
  run unlink beta "gamma#1" --type related
  run delete beta
  run delete beta
  run get beta
  run link alpha beta
  run query all
  run restore beta
  run restore beta
  run get alpha
  # the pipeline and the graph stages, on the snapshot
  run query all
  run query 'match:changed'
  run query 'match:second | spread,max_hops=2'
  run query 'match:note second quotes | sort:key'
  run query 'match:lines | sort:key'
  run query 'all | tag:y | sort:key'
  run query 'all | not-visited:a1 | sort:key'
  run query 'all | visited:a1'
  run query 'all | degree:>=1 | sort:weight'
  run query 'all | community:0 | sort:key'
  run query 'key:alpha | confluence,min_seeds=1 | sort:key'
  # writers at once: eight imports of 25 visits each, and four agents adding one key
  i=1 pids=""
  while [ $i -le 8 ]; do
    j=1; : >"$TMP/v$i.jsonl"
    while [ $j -le 25 ]; do
      echo "{\"kind\":\"visit\",\"node\":\"beta\",\"agent\":\"agent-$i\",\"time\":\"2026-03-0${i}T00:00:$((10 + j))Z\",\"outcome\":\"seen\"}" >>"$TMP/v$i.jsonl"
      j=$((j + 1))
    done
    "$Q" mem import "$TMP/v$i.jsonl" --store "$S" >"$TMP/$name.imp$i" 2>&1 &
    pids="$pids $!"
    i=$((i + 1))
  done
  for k in 1 2 3 4; do
    "$Q" mem add race --content "from agent $k" --store "$S" >"$TMP/$name.race$k" 2>&1 &
    pids="$pids $!"
  done
  for p in $pids; do wait "$p"; done
  echo "imports: $(cat "$TMP/$name".imp* | sort | uniq -c | sed 's/^ *//')" >>"$o"
  echo "race: $(grep -l '"added":"race"' "$TMP/$name".race* | wc -l) added, $(grep -l "node 'race' already exists" "$TMP/$name".race* | wc -l) refused" >>"$o"
  run stats
  run export
}

suite sqlite "$TMP/mem.db"
suite postgres "$(pg_createdb mem)"
norm <"$TMP/sqlite.out" >"$TMP/sqlite.norm"
norm <"$TMP/postgres.out" >"$TMP/postgres.norm"
if ! cmp -s "$TMP/sqlite.norm" "$TMP/postgres.norm"; then
  fail "the backends disagree"
  diff "$TMP/sqlite.norm" "$TMP/postgres.norm" | head -40
fi
# and what they agree on is right
for want in \
  "race: 1 added, 3 refused" \
  "imports: 8 {\"nodes\":0,\"edges\":0,\"visits\":25}" \
  '{"store":"STORE","nodes":4,"deleted":1,"types":{"episodic":1,"semantic":3},"edges":2,"hidden_edges":1,"tags":2,"visits":1,"fts_bytes":N,"file_bytes":N,"generation":8}' \
  '{"store":"STORE","nodes":5,"deleted":1,"types":{"semantic":5},"edges":2,"hidden_edges":1,"tags":2,"visits":201,"fts_bytes":N,"file_bytes":N,"generation":23}' \
  '{"kind":"edge","source":"alpha","target":"beta","type":"related","strength":0.7}' \
  '{"kind":"edge","source":"beta","target":"gamma#1","type":"cites","strength":0.25}' \
  '[{"key":"gamma#1","type":"semantic","weight":0.5,"score":S,"modified":"2026-03-10T12:00:00Z","degree":1}]' \
  '{"key":"alpha","type":"semantic","weight":0.875,"provenance":"manual","created":"2026-03-10T12:00:00Z","modified":"2026-03-10T12:00:00Z","retrievals":0,"uses":0,"wrongs":0,"tags":["y","z"],"deleted":null,"content":"first note, changed","links":[{"source":"alpha","target":"beta","type":"related","strength":0.7}]}' \
  '{"error":{"kind":"error","message":"node '"'beta'"' is not deleted: nothing to restore"}}' \
  '{"error":{"kind":"error","message":"node '"'alpha'"' has no tag '"'nosuch'"': see its tags with '"'quarry mem get alpha'"'"}}' \
  '{"kind":"node","key":"gamma#1","type":"semantic","weight":0.5,"provenance":"manual","created":"2026-03-10T12:00:00Z","modified":"2026-03-10T12:00:00Z","retrievals":0,"uses":0,"wrongs":0,"tags":[],"content":"quotes \" and \\ and ünïcode\non two lines"}'; do
  grep -qxF -- "$want" "$TMP/postgres.norm" || fail "both backends: missing line: $want"
done
[ "$(grep -c '"kind":"visit"' "$TMP/postgres.out")" = 201 ] || fail "postgres: 201 visits exported"

# a store moved across: SQLite -> PostgreSQL -> SQLite, the same bytes each way
"$Q" mem export --store "$TMP/mem.db" >"$TMP/from-sqlite.jsonl" || fail "export from SQLite"
P2=$(pg_createdb moved)
expect_out "import into PostgreSQL" '{"nodes":6,"edges":3,"visits":201}' \
  "$Q" mem import "$TMP/from-sqlite.jsonl" --store "$P2"
"$Q" mem export --store "$P2" >"$TMP/from-pg.jsonl" || fail "export from PostgreSQL"
cmp -s "$TMP/from-sqlite.jsonl" "$TMP/from-pg.jsonl" || {
  fail "SQLite -> PostgreSQL: exports differ"; diff "$TMP/from-sqlite.jsonl" "$TMP/from-pg.jsonl" | head; }
"$Q" mem import "$TMP/from-pg.jsonl" --store "$TMP/back.db" >/dev/null || fail "import back into SQLite"
"$Q" mem export --store "$TMP/back.db" >"$TMP/back.jsonl"
cmp -s "$TMP/from-sqlite.jsonl" "$TMP/back.jsonl" || fail "PostgreSQL -> SQLite: exports differ"
expect_rc "import into a non-empty PostgreSQL store: refused" 2 \
  "$Q" mem import "$TMP/from-sqlite.jsonl" --store "$P2"
[ "$(pg_sql moved "SELECT count(*) FROM mem_visits")" = 201 ] || fail "a refused import left rows"

# what has no meaning for a database: refused as usage, never printing the URL
SECRET="postgresql://bob:pw-s3cret9@/moved?host=$PG_SOCK&port=$PG_PORT"
expect_rc "postgres: export --salvage refused" 2 "$Q" mem export --salvage --store "$SECRET"
expect_err "postgres: export --salvage says why" \
  "quarry: usage: --salvage reads a damaged SQLite store file; the memory store named is on PostgreSQL" \
  "$Q" mem export --salvage --store "$SECRET"
grep -q "pw-s3cret9" "$TMP/stdout" "$TMP/stderr" && fail "export --salvage printed the password"
expect_rc "postgres: agents without --agents" 2 "$Q" mem agent list --store "$SECRET"
expect_err "postgres: agents without --agents says why" \
  "no agent directory: the memory store is on PostgreSQL; give --agents DIR or set QUARRY_MEMORY_AGENTS" \
  "$Q" mem agent list --store "$SECRET"
grep -q "pw-s3cret9" "$TMP/stdout" "$TMP/stderr" && fail "mem agent printed the password"
E=$(pg_createdb empty)
expect_rc "postgres: a read of an empty database" 1 "$Q" mem stats --store "$E"
expect_err "postgres: a read of an empty database says how" \
  "database empty has no schema yet: run 'quarry db init', or add a note or import one to create it" \
  "$Q" mem stats --store "$E"
finish
