#!/bin/sh
# 51_team_docs.sh: docs/team.md against a real PostgreSQL 15 (issue 26, part 4). Its
# ```shell blocks are examples on a database (09_docs.sh runs the ```console ones, which
# need no server); 09_docs.sh's runner runs them (QUARRY_DOCS_FENCE=shell), in order, on
# one throwaway server (pg_lib.sh) with ADMIN_URL (the owner), WRITER_URL and READER_URL
# (the roles the page creates) set and psql on PATH. Then the read-only role's promise: an
# MCP server connected with it, even started with --allow-write memory, cannot write
# through any tool: every memory tool that writes returns an error naming the refusal and
# the store (its rows and change counter) is unchanged, while the reading tools work; the
# git tools answer across repositories from the shared index on that role, and neither
# they nor psql can change the index's tables with it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg_lib.sh"
export QUARRY_NOW=2026-03-10T12:00:00Z
unset QUARRY_MEMORY QUARRY_DATABASE_URL PGPASSWORD PGUSER PGHOST PGPORT PGDATABASE
fail() { echo "FAIL: $1"; FAILS=$((FAILS + 1)); }
pg_start

pg_createdb team >/dev/null
export ADMIN_URL="postgresql://postgres@/team?host=$PG_SOCK&port=$PG_PORT"
export WRITER_URL="postgresql://quarry_writer@/team?host=$PG_SOCK&port=$PG_PORT"
export READER_URL="postgresql://quarry_reader@/team?host=$PG_SOCK&port=$PG_PORT"
# the examples, by 09_docs.sh's runner, with psql on PATH
mkdir -p "$TMP/bin"
ln -s "$PG_BIN/psql" "$TMP/bin/psql"
PATH="$TMP/bin:$PATH" QUARRY_DOCS_FENCE=shell QUARRY_DOCS_FILES="$SRC/docs/team.md" \
  sh "$SRC/tests/cli/09_docs.sh" "$Q" >"$TMP/docs.out" 2>&1 || { fail "docs/team.md examples"; cat "$TMP/docs.out"; }
n=$(sed -n 's/^\([0-9]*\) examples$/\1/p' "$TMP/docs.out")
[ "${n:-0}" -ge 14 ] || fail "only ${n:-0} examples ran from docs/team.md"

# ---- an MCP server on the read-only role cannot write through any tool ----
before=$(pg_sql team "SELECT generation || ' ' || (SELECT count(*) FROM mem_nodes) || ' ' || (SELECT count(*) FROM mem_edges) || ' ' || (SELECT count(*) FROM mem_visits) || ' ' || (SELECT count(*) FROM mem_tags) || ' ' || (SELECT string_agg(key || ':' || weight || ':' || coalesce(deleted, 0), ',' ORDER BY key) FROM mem_nodes) FROM mem_state")
call() { # call ID TOOL ARGS
  echo "{\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"tools/call\",\"params\":{\"name\":\"$2\",\"arguments\":$3}}"
}
{
  echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  echo '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
  call 10 memory_add '{"key":"mcp-note","content":"should not land"}'
  call 11 memory_update '{"key":"onboarding","content":"changed","weight":0.9,"add_tags":["x"]}'
  call 12 memory_delete '{"key":"onboarding"}'
  call 13 memory_restore '{"key":"onboarding"}'
  call 14 memory_link '{"source":"onboarding","target":"design","strength":0.5}'
  call 15 memory_unlink '{"source":"onboarding","target":"design"}'
  call 16 memory_visit '{"key":"onboarding","agent":"reader","outcome":"seen"}'
  call 20 memory_get '{"key":"onboarding"}'
  call 21 memory_query '{"pipeline":"all | sort:key"}'
} >"$TMP/mcp.in"
"$Q" mcp --allow-write memory --store "$READER_URL" <"$TMP/mcp.in" >"$TMP/mcp.out" 2>"$TMP/mcp.err"
for t in memory_add memory_update memory_delete memory_restore memory_link memory_unlink memory_visit; do
  grep -q "\"name\":\"$t\"" "$TMP/mcp.out" || fail "reader MCP: $t is served (--allow-write memory)"
done
for id in 10 11 12 13 14 15 16; do
  line=$(grep "\"id\":$id," "$TMP/mcp.out")
  case $line in
    *'"isError":true'*) ;;
    *) fail "reader MCP: call $id was not refused: $line" ;;
  esac
done
# memory_restore of a live note is refused by the store before any write; the others by
# the database
[ "$(grep -c 'permission denied for table' "$TMP/mcp.out")" -ge 5 ] ||
  { fail "reader MCP: the refusals are the database's"; cat "$TMP/mcp.out"; }
grep -q 'quarry_reader\|postgresql://' "$TMP/mcp.out" "$TMP/mcp.err" && fail "reader MCP: printed the URL or the role"
grep "\"id\":20," "$TMP/mcp.out" | grep -q 'run make check before a push' || fail "reader MCP: memory_get reads"
grep "\"id\":21," "$TMP/mcp.out" | grep -q 'design' || fail "reader MCP: memory_query reads"
after=$(pg_sql team "SELECT generation || ' ' || (SELECT count(*) FROM mem_nodes) || ' ' || (SELECT count(*) FROM mem_edges) || ' ' || (SELECT count(*) FROM mem_visits) || ' ' || (SELECT count(*) FROM mem_tags) || ' ' || (SELECT string_agg(key || ':' || weight || ':' || coalesce(deleted, 0), ',' ORDER BY key) FROM mem_nodes) FROM mem_state")
[ "$before" = "$after" ] || fail "reader MCP: the store changed ('$before' -> '$after')"
# the git tools across repositories on the read-only role: they answer from the shared
# index (the page's examples indexed /tmp/team-repo), and no tool writes it
git_before=$(pg_sql team "SELECT (SELECT string_agg(id || ':' || gen || ':' || runs || ':' || coalesce(queued, 0) || ':' || coalesce(holder, ''), ',') FROM git_repos) || ' ' || (SELECT count(*) FROM git_commits) || ' ' || (SELECT count(*) FROM git_files)")
{
  echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  call 30 get_author_stats '{"repos":["all"]}'
  call 31 get_file_stats '{"repos":["team-repo"]}'
  call 32 get_commits '{"repos":["all"],"limit":5}'
} >"$TMP/mcpg.in"
# the server's own repository is another, empty one: the answers come from the database
git init -q "$TMP/elsewhere"
(cd "$TMP/elsewhere" && QUARRY_DATABASE_URL="$READER_URL" "$Q" mcp --allow-write memory --repo "$TMP/elsewhere" \
  <"$TMP/mcpg.in" >"$TMP/mcpg.out" 2>"$TMP/mcpg.err")
grep '"id":30,' "$TMP/mcpg.out" | grep -q 'repo.*team-repo.*Ann' || { fail "reader MCP: get_author_stats across repositories"; cat "$TMP/mcpg.out" "$TMP/mcpg.err"; }
grep '"id":31,' "$TMP/mcpg.out" | grep -q 'a\.c' || fail "reader MCP: get_file_stats across repositories"
grep '"id":32,' "$TMP/mcpg.out" | grep -q 'start' || fail "reader MCP: get_commits across repositories"
grep -q 'quarry_reader\|postgresql://' "$TMP/mcpg.out" "$TMP/mcpg.err" && fail "reader MCP (git): printed the URL or the role"
git_after=$(pg_sql team "SELECT (SELECT string_agg(id || ':' || gen || ':' || runs || ':' || coalesce(queued, 0) || ':' || coalesce(holder, ''), ',') FROM git_repos) || ' ' || (SELECT count(*) FROM git_commits) || ' ' || (SELECT count(*) FROM git_files)")
[ -n "$git_before" ] && [ "$git_before" = "$git_after" ] || fail "reader MCP: the shared index changed ('$git_before' -> '$git_after')"
# the read-only role cannot write the shared index's tables, whatever the client
for sql in "INSERT INTO git_repos(id, name, location) VALUES ('x', 'x', 'x')" "UPDATE git_commits SET additions = 0" "DELETE FROM git_files"; do
  "$PG_BIN/psql" -X -q "$READER_URL" -c "$sql" 2>&1 | grep -q 'permission denied' || fail "reader role: '$sql' was not refused"
done

# the writing role can (the same server, its own URL)
sed 's/"mcp-note"/"mcp-note-w"/' "$TMP/mcp.in" | "$Q" mcp --allow-write memory --store "$WRITER_URL" >"$TMP/mcpw.out" 2>&1
grep '"id":10,' "$TMP/mcpw.out" | grep -q '"isError":true' && fail "writer MCP: memory_add refused"
[ "$(pg_sql team "SELECT count(*) FROM mem_nodes WHERE key = 'mcp-note-w'")" = 1 ] || fail "writer MCP: the note landed"
finish
