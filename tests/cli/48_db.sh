#!/bin/sh
# 48_db.sh: `quarry db init|migrate|status` on a real PostgreSQL 15 (issue 26): usage errors
# and an unreachable server without one; then, on a throwaway server (pg_lib.sh), the
# store seam's unit checks, the schema created and upgraded by numbered migrations, two
# migrations racing, a newer schema refused, and a password that no message ever prints.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg_lib.sh"
export QUARRY_NOW=2026-03-10T12:00:00Z
unset QUARRY_DATABASE_URL PGPASSWORD PGUSER PGHOST PGPORT PGDATABASE
fail() { echo "FAIL: $1"; FAILS=$((FAILS + 1)); }
lacks() { # lacks DESC TEXT FILE...: no FILE holds TEXT
  if grep -qF -- "$2" "$3" "$4" 2>/dev/null; then fail "$1: '$2' printed"; fi
}

# ---- without a server ----
expect_rc "no URL: usage" 2 "$Q" db status
expect_err "no URL: says how to name one" \
  "quarry: usage: name the database: --url postgresql://... or QUARRY_DATABASE_URL" "$Q" db status
expect_rc "a file is not a database URL" 2 "$Q" db init --url "$TMP/mem.db"
expect_err "a file is not a database URL: message" \
  "quarry db manages a PostgreSQL database: the URL must begin with postgres:// or postgresql://" \
  "$Q" db init --url "$TMP/mem.db"
BAD='postgresql://alice:s3cr%zzet@db.example/team'
expect_rc "a URL that does not parse: usage" 2 "$Q" db status --url "$BAD"
expect_err "a URL that does not parse: not shown" \
  "team database: postgresql server (an invalid URL, not shown): the URL does not parse" \
  "$Q" db status --url "$BAD"
lacks "invalid URL" "s3cr" "$TMP/stdout" "$TMP/stderr"
GONE="postgresql://alice:pw-n0where@/team?host=$TMP/nosuch&port=5999"
expect_rc "no server: exit 1" 1 "$Q" db migrate --url "$GONE"
expect_err "no server: names it" \
  "quarry: error: team database: cannot connect to postgresql server $TMP/nosuch:5999, database team: connection to server on socket" \
  "$Q" db migrate --url "$GONE"
lacks "no server" "pw-n0where" "$TMP/stdout" "$TMP/stderr"
lacks "no server" "alice" "$TMP/stdout" "$TMP/stderr"
expect_rc "no server: json error" 1 "$Q" db status --url "$GONE" --format json
grep -q '^{"error":{"kind":"error","message":"team database: cannot connect to postgresql server' \
  "$TMP/stderr" || fail "no server: json error shape"
expect_rc "mem on a postgresql URL, no server: exit 1" 1 "$Q" mem stats --store "$GONE"
expect_err "mem on a postgresql URL, no server: names the server" \
  "quarry: error: memory store: cannot connect to postgresql server $TMP/nosuch:5999, database team: connection to server on socket" \
  "$Q" mem stats --store "$GONE"
lacks "mem on a postgresql URL" "pw-n0where" "$TMP/stdout" "$TMP/stderr"
lacks "mem on a postgresql URL" "alice" "$TMP/stdout" "$TMP/stderr"

# ---- a real server ----
# a script that fails with its server running leaves neither the server nor its directory
cat >"$TMP/failing.sh" <<SCRIPT
. "$SRC/tests/cli/lib.sh"
. "$SRC/tests/cli/pg_lib.sh"
pg_start
echo "\$PG_DIR" >"$TMP/failing.dir"
head -1 "\$PG_DIR/data/postmaster.pid" >"$TMP/failing.pid"
exit 3
SCRIPT
sh "$TMP/failing.sh" "$Q" >"$TMP/failing.out" 2>&1; rc=$?
[ $rc = 77 ] && { cat "$TMP/failing.out"; exit 77; }
[ $rc = 3 ] || fail "a failing script with a server: exit $rc, want 3: $(cat "$TMP/failing.out")"
[ -s "$TMP/failing.dir" ] && [ ! -e "$(cat "$TMP/failing.dir")" ] ||
  fail "a failing script left its server's directory"
# (a stopped server may stay a zombie until init reaps it: only a live one counts)
state=$(ps -o stat= -p "$(cat "$TMP/failing.pid")" 2>/dev/null)
[ -s "$TMP/failing.pid" ] && case $state in "" | Z*) true ;; *) false ;; esac ||
  fail "a failing script left its server running ($state)"

pg_start
U=$(pg_createdb unit)
T="$(dirname "$Q")/test_store"
if [ -x "$T" ]; then
  QUARRY_TEST_PG_URL=$U "$T" >"$TMP/unit.out" 2>&1 || { fail "test_store on the server"; cat "$TMP/unit.out"; }
else
  fail "test_store is not built beside quarry ($T)"
fi

D=$(pg_createdb team)
SERVER="postgresql server $PG_SOCK:$PG_PORT, database team"
expect_out "status: empty" "database: $SERVER
schema: none (run 'quarry db init')
pending: 6
  1  memory store and due-agents lease table
  2  memory agents' run state in due_agents
  3  statistics index of many repositories and its indexing queue
  4  code graph of many repositories, keyed by blob
  5  the order of a repository's commits in git_commits.walk_pos
  6  the files in which each merge differs from each parent" "$Q" db status --url "$D"
expect_out "status --format json: empty" \
  "{\"server\": \"$SERVER\", \"initialized\": false, \"version\": 0, \"latest\": 6, \"pending\": [{\"version\": 1, \"name\": \"memory store and due-agents lease table\"}, {\"version\": 2, \"name\": \"memory agents' run state in due_agents\"}, {\"version\": 3, \"name\": \"statistics index of many repositories and its indexing queue\"}, {\"version\": 4, \"name\": \"code graph of many repositories, keyed by blob\"}, {\"version\": 5, \"name\": \"the order of a repository's commits in git_commits.walk_pos\"}, {\"version\": 6, \"name\": \"the files in which each merge differs from each parent\"}]}" \
  "$Q" db status --url "$D" --format json
expect_out "init" "initialized $SERVER: schema version 6 (6 migrations applied)" \
  "$Q" db init --url "$D"
[ "$(pg_sql team "SELECT version || ' ' || name || ' ' || applied FROM schema_migrations ORDER BY version")" = \
  "1 memory store and due-agents lease table 1773144000
2 memory agents' run state in due_agents 1773144000
3 statistics index of many repositories and its indexing queue 1773144000
4 code graph of many repositories, keyed by blob 1773144000
5 the order of a repository's commits in git_commits.walk_pos 1773144000
6 the files in which each merge differs from each parent 1773144000" ] || fail "init: schema_migrations row"
[ "$(pg_sql team "SELECT count(*) FROM information_schema.tables WHERE table_name IN
  ('mem_nodes', 'mem_tags', 'mem_edges', 'mem_visits', 'mem_state', 'due_agents')")" = 6 ] ||
  fail "init: the tables"
[ "$(pg_sql team "SELECT generation || ' ' || created FROM mem_state")" = "0 1773144000" ] ||
  fail "init: mem_state"
expect_out "status: QUARRY_DATABASE_URL" "database: $SERVER
schema: version 6 (this quarry knows 6)
pending: 0" env QUARRY_DATABASE_URL="$D" "$Q" db status
expect_rc "init again: refused" 2 "$Q" db init --url "$D"
expect_err "init again: says so" \
  "quarry: usage: the database at $SERVER is initialized already (schema version 6): 'quarry db status' reports it, 'quarry db migrate' upgrades it" \
  "$Q" db init --url "$D"
expect_out "migrate: up to date" "$SERVER is up to date: schema version 6" "$Q" db migrate --url "$D"
expect_out "migrate --format json" "{\"server\": \"$SERVER\", \"version\": 6, \"applied\": 0}" \
  "$Q" db migrate --url "$D" --format json

# two migrations racing on an empty database: each migration applied once
R=$(pg_createdb race)
"$Q" db migrate --url "$R" >"$TMP/m1" 2>&1 & P1=$!
"$Q" db migrate --url "$R" >"$TMP/m2" 2>&1 & P2=$!
wait $P1 || fail "race: first migrate failed: $(cat "$TMP/m1")"
wait $P2 || fail "race: second migrate failed: $(cat "$TMP/m2")"
[ "$(cat "$TMP/m1" "$TMP/m2" | grep -c '(6 migrations applied)')" = 1 ] &&
  [ "$(cat "$TMP/m1" "$TMP/m2" | grep -c 'is up to date')" = 1 ] ||
  fail "race: one applies, one finds it done: $(cat "$TMP/m1" "$TMP/m2")"
[ "$(pg_sql race "SELECT count(*) FROM schema_migrations")" = 6 ] || fail "race: one row each"

# a schema newer than this quarry: refused, untouched
pg_sql team "INSERT INTO schema_migrations VALUES (7, 'from the future', 0)"
NEWER="the database at $SERVER has schema version 7, newer than this quarry knows (6): upgrade quarry"
for op in status migrate init; do
  expect_rc "newer schema: $op exit 2" 2 "$Q" db $op --url "$D"
  expect_err "newer schema: $op message" "quarry: usage: $NEWER" "$Q" db $op --url "$D"
done
[ "$(pg_sql team "SELECT string_agg(version::text, ',' ORDER BY version) FROM schema_migrations")" = "1,2,3,4,5,6,7" ] ||
  fail "newer schema: schema_migrations changed"

# a password: wrong or right, never printed
pg_sql postgres "CREATE ROLE alice LOGIN PASSWORD 'Right-Pa55word'" >/dev/null
pg_sql race "GRANT SELECT ON schema_migrations TO alice" >/dev/null
HBA="$PG_DIR/data/pg_hba.conf"
{ echo "local all alice scram-sha-256"; cat "$HBA"; } >"$HBA.new" && cat "$HBA.new" >"$HBA"
$PG_RUN "$PG_BIN/pg_ctl" -D "$PG_DIR/data" reload >/dev/null 2>&1 || fail "reload the server"
sleep 0.5
WRONG="postgresql://alice:Wr0ng-Pa55word@/race?host=$PG_SOCK&port=$PG_PORT"
expect_rc "wrong password: exit 1" 1 "$Q" db status --url "$WRONG"
expect_err "wrong password: the server's reason" \
  "team database: cannot connect to postgresql server $PG_SOCK:$PG_PORT, database race:" \
  "$Q" db status --url "$WRONG"
expect_err "wrong password: the server's reason" 'password authentication failed for user "alice"' \
  "$Q" db status --url "$WRONG"
lacks "wrong password" "Wr0ng-Pa55word" "$TMP/stdout" "$TMP/stderr"
lacks "wrong password" "$WRONG" "$TMP/stdout" "$TMP/stderr"
RIGHT="postgres://alice:Right-Pa55word@/race?host=$PG_SOCK&port=$PG_PORT"
expect_out "right password: status" "database: postgresql server $PG_SOCK:$PG_PORT, database race
schema: version 6 (this quarry knows 6)
pending: 0" "$Q" db status --url "$RIGHT"
lacks "right password" "Right-Pa55word" "$TMP/stdout" "$TMP/stderr"
finish
