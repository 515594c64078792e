#!/bin/sh
# 50_mem_pg_faults.sh: the memory store shared on PostgreSQL under faults (issue 26), on a
# throwaway server (pg_lib.sh):
#   - test_mem_pg on the server: a snapshot refreshed when another handle writes, a
#     caller's transaction, four processes counting and re-weighting one note with no lost
#     increment, and four schedulers racing for one due agent: it runs once;
#   - the database stopped mid-run: an import that has written every row but not yet
#     committed (held at its last statement by a lock another session keeps) fails with
#     a one-line error naming the server, never the URL's password; commands while the
#     server is down say they cannot connect to it; after the restart nothing of the
#     import is visible (nor its generation), and the same import then succeeds.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg_lib.sh"
export QUARRY_NOW=2026-03-10T12:00:00Z
unset QUARRY_MEMORY QUARRY_DATABASE_URL PGPASSWORD
fail() { echo "FAIL: $1"; FAILS=$((FAILS + 1)); }
pg_start

# ---- the shared store's checks, in C, on this server ----
U=$(pg_createdb unit)
T="$(dirname "$Q")/test_mem_pg"
if [ -x "$T" ]; then
  QUARRY_TEST_PG_URL=$U "$T" >"$TMP/unit.out" 2>&1 || { fail "test_mem_pg on the server"; cat "$TMP/unit.out"; }
else
  fail "test_mem_pg is not built beside quarry ($T)"
fi

# ---- the database stopped mid-run ----
pg_createdb faults >/dev/null
SERVER="postgresql server $PG_SOCK:$PG_PORT, database faults"
SECRET="postgresql://postgres:pw-s3cret9@/faults?host=$PG_SOCK&port=$PG_PORT"
expect_rc "seed" 0 "$Q" mem add seed --content "before the fault" --store "$SECRET"
G0=$(pg_sql faults "SELECT generation FROM mem_state")
i=1
: >"$TMP/big.jsonl"
while [ $i -le 300 ]; do
  echo "{\"kind\":\"node\",\"key\":\"n$i\",\"content\":\"imported $i\"}" >>"$TMP/big.jsonl"
  i=$((i + 1))
done
# another session holds the change counter's row: the import writes every row, then waits
# at its commit's UPDATE of mem_state
"$PG_BIN/psql" -X -q -h "$PG_SOCK" -p "$PG_PORT" -U postgres -d faults \
  -c "BEGIN; UPDATE mem_state SET created = created; SELECT pg_sleep(120);" \
  >/dev/null 2>&1 &
HOLDER=$!
n=0
until [ "$(pg_sql faults "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(120)%' AND state = 'active' AND pid <> pg_backend_pid()")" = 1 ]; do
  n=$((n + 1)); [ $n -lt 200 ] || { fail "the lock holder did not start"; break; }; sleep 0.05
done
"$Q" mem import "$TMP/big.jsonl" --store "$SECRET" >"$TMP/imp.out" 2>"$TMP/imp.err" &
IMP=$!
n=0
until [ "$(pg_sql faults "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE mem_state SET generation%'")" = 1 ]; do
  n=$((n + 1)); [ $n -lt 400 ] || { fail "the import never reached its commit"; break; }; sleep 0.05
done
pg_server_stop || fail "stopping the server"
wait "$IMP"
rc=$?
wait "$HOLDER" 2>/dev/null
[ "$rc" = 1 ] || fail "import cut by the stop: exit $rc, want 1"
[ "$(wc -l <"$TMP/imp.err")" = 1 ] || { fail "import cut by the stop: one line of error"; cat "$TMP/imp.err"; }
grep -qF "quarry: error: cannot write the memory store on $SERVER: " "$TMP/imp.err" ||
  { fail "import cut by the stop: names the server"; cat "$TMP/imp.err"; }
grep -q "pw-s3cret9\|postgres:pw" "$TMP/imp.err" "$TMP/imp.out" && fail "import cut by the stop: printed the password"
# while it is down
expect_rc "server down: add" 1 "$Q" mem add late --content x --store "$SECRET"
expect_err "server down: says it cannot connect" \
  "quarry: error: memory store: cannot connect to $SERVER: " "$Q" mem add late --content x --store "$SECRET"
grep -q "pw-s3cret9" "$TMP/stdout" "$TMP/stderr" && fail "server down: printed the password"
expect_rc "server down: query" 1 "$Q" mem query all --store "$SECRET"
# restarted: nothing of the import, the same generation, and the run resumes
pg_server_start || fail "restarting the server"
[ "$(pg_sql faults "SELECT count(*) FROM mem_nodes")" = 1 ] || fail "after restart: a half-written import is visible"
[ "$(pg_sql faults "SELECT generation FROM mem_state")" = "$G0" ] || fail "after restart: the generation moved"
expect_out "after restart: the import runs again" '{"nodes":300,"edges":0,"visits":0}' \
  "$Q" mem import "$TMP/big.jsonl" --store "$SECRET" --format json
[ "$(pg_sql faults "SELECT count(*) FROM mem_nodes")" = 301 ] || fail "after restart: 301 notes"
finish
