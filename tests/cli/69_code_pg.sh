# 69_code_pg.sh: the code graph on PostgreSQL (issue 26): the code tests are one suite
# parameterized by backend, so this script reruns 16_code.sh, 66_code_calls.sh and
# 67_code_defs.sh (index, dump, pictures and every query type, each asserting its own
# expected outputs) with QUARRY_DATABASE_URL naming a fresh team database on a real
# PostgreSQL 15 (pg_lib.sh) and the kept graphs off, so that every load reads the rows
# from the server. Then what only the shared store has: the graph of one repository is
# the same on both backends (the dump, byte for byte); two repositories that vendor one
# file parse it once (one row per blob, the second index parses only its own file, and
# code_files says both hold it); query_codebase with `repos` asks several repositories'
# graphs from the database (rows naming their :repo, paged as one list, an unknown name
# listing the known ones); a read-only role queries but cannot index; no SQLite file
# is written beside the repository; and the URL's password never shows in an error.
# Skips (exit 77) only when PostgreSQL cannot be installed, as pg_lib.sh says.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg_lib.sh"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE QUARRY_CODE_DEFINES QUARRY_MEMORY
unset QUARRY_DATABASE_URL PGPASSWORD PGUSER PGHOST PGPORT PGDATABASE
mkdir -p "$HOME"
fail() { echo "FAIL: $1"; FAILS=$((FAILS + 1)); }

pg_start

# ---- the code suite, rerun on the team database ----
for t in 16_code 66_code_calls 67_code_defs; do
  U=$(pg_createdb "t$t")
  "$Q" db init --url "$U" >/dev/null || fail "$t: db init"
  if ! QUARRY_DATABASE_URL="$U" QUARRY_CODE_GRAPH_CACHE=off sh "$SRC/tests/cli/$t.sh" "$Q" \
    >"$TMP/$t.out" 2>&1; then
    fail "$t on PostgreSQL"
    sed 's/^/  /' "$TMP/$t.out"
  fi
  [ "$(pg_sql "t$t" "SELECT count(*) > 0 FROM code_blobs")" = t ] ||
    fail "$t: no rows on the server"
done
# and once with the kept graphs on: the graph that indexing assembles (from the batches it
# has just stored) is the one kept, so it must equal what the rows give
U=$(pg_createdb kept)
"$Q" db init --url "$U" >/dev/null || fail "kept: db init"
if ! QUARRY_DATABASE_URL="$U" sh "$SRC/tests/cli/16_code.sh" "$Q" >"$TMP/kept.out" 2>&1; then
  fail "16_code on PostgreSQL with the kept graphs"
  sed 's/^/  /' "$TMP/kept.out"
fi

# ---- the same graph on both backends ----
mk_repo() {
  git init -q -b main "$1"
  mkdir -p "$1/src" "$1/vendor"
  cat >"$1/vendor/z.c" <<'C'
#include "z.h"
static int adler(int a, int b) { return a * 65521 + b; }
int z_crc(int x) { return adler(x, 1); }
C
  printf 'int z_crc(int x);\n' >"$1/vendor/z.h"
  printf '#include "../vendor/z.h"\nint %s_main(void) { return z_crc(%s); }\n' "$2" "$3" \
    >"$1/src/$2.c"
  git -C "$1" add -A
  git -C "$1" -c user.name=t -c user.email=t@t commit -q -m "$2"
}
R1=$TMP/one
R2=$TMP/two
R3=$TMP/three
mk_repo "$R1" one 1
mk_repo "$R2" two 2
mk_repo "$R3" three 3

U=$(pg_createdb shared)
"$Q" db init --url "$U" >/dev/null || fail "db init shared"
"$Q" code index --repo "$R1" >/dev/null || fail "sqlite: index"
"$Q" code dump --repo "$R1" >"$TMP/sqlite.jsonl" || fail "sqlite: dump"
rm -rf "$R1/.git/quarry"
export QUARRY_DATABASE_URL="$U"
"$Q" code index --repo "$R1" --format json >"$TMP/i1.json" || fail "pg: index one"
QUARRY_CODE_GRAPH_CACHE=off "$Q" code dump --repo "$R1" >"$TMP/pg.jsonl" || fail "pg: dump"
expect_out "the dump is the same on both backends" "" cmp "$TMP/sqlite.jsonl" "$TMP/pg.jsonl"
[ -s "$TMP/pg.jsonl" ] || fail "pg: an empty dump"
[ ! -e "$R1/.git/quarry/code.db" ] || fail "pg: an SQLite code index was written"
expect_out "get_index_stats names the server, not the URL" \
  "\"indexed_now\":3 \"database\":\"postgresql server $PG_SOCK:$PG_PORT, database shared\"" \
  sh -c "grep -o '\"indexed_now\":[0-9]*\\|\"database\":\"[^\"]*\"' '$TMP/i1.json' | tr '\\n' ' ' | sed 's/ \$//'"

# ---- a blob two repositories share is parsed once ----
"$Q" code index --repo "$R2" --format json >"$TMP/i2.json" || fail "pg: index two"
expect_out "the second repository parses only its own file" '"indexed_now":1' \
  grep -o '"indexed_now":[0-9]*' "$TMP/i2.json"
ZOID=$(git -C "$R1" rev-parse HEAD:vendor/z.c)
[ "$ZOID" = "$(git -C "$R2" rev-parse HEAD:vendor/z.c)" ] || fail "fixture: the vendored blob differs"
expect_out "one row for the shared blob" "1" pg_sql shared "SELECT count(*) FROM code_blobs WHERE oid = '$ZOID'"
expect_out "its functions once" "2" \
  pg_sql shared "SELECT count(*) FROM code_items WHERE oid = '$ZOID' AND kind = (SELECT kind FROM code_items WHERE name = 'z_crc' AND oid = '$ZOID')"
expect_out "blobs: z.c, z.h and one file of each repository" "4" pg_sql shared "SELECT count(*) FROM code_blobs"
expect_out "both repositories hold it (code_files)" "one
two" pg_sql shared "SELECT repo FROM code_files WHERE oid = '$ZOID' ORDER BY repo"
expect_out "code_repos: name, commit, files" "one|$(git -C "$R1" rev-parse HEAD)|3
two|$(git -C "$R2" rev-parse HEAD)|3" pg_sql shared "SELECT name, commit, files FROM code_repos ORDER BY name"
expect_out "a query across the shared rows" "one|src/one.c
two|src/two.c" pg_sql shared "SELECT f.repo, f.path FROM code_refs r JOIN code_files f ON f.oid = r.oid WHERE r.name = 'z_crc' AND f.path LIKE 'src/%' ORDER BY 1"
expect_out "query_codebase reads the server" "src/two.c:two_main" \
  sh -c "QUARRY_CODE_GRAPH_CACHE=off '$Q' code query get_call_graph --name z_crc --direction callers --repo '$R2' --format json | grep -o '\"from\":\"[^\"]*\"' | cut -d'\"' -f4"

# ---- two indexers at once on repositories sharing blobs: both finish, one set of rows ----
for n in four five; do
  git init -q -b main "$TMP/$n"
  mkdir -p "$TMP/$n/lib"
  i=0
  while [ $i -lt 40 ]; do
    printf 'int lib%d(int x) { return x + %d; }\n' $i $i >"$TMP/$n/lib/l$i.c"
    i=$((i + 1))
  done
  printf 'int lib0(int x);\nint %s(void) { return lib0(1); }\n' $n >"$TMP/$n/$n.c"
  git -C "$TMP/$n" add -A
  git -C "$TMP/$n" -c user.name=t -c user.email=t@t commit -q -m $n
done
"$Q" code index --repo "$TMP/four" >"$TMP/four.out" 2>&1 &
p4=$!
"$Q" code index --repo "$TMP/five" >"$TMP/five.out" 2>&1 &
p5=$!
wait $p4 || fail "racing indexers: four failed: $(cat "$TMP/four.out")"
wait $p5 || fail "racing indexers: five failed: $(cat "$TMP/five.out")"
expect_out "racing indexers: one row per shared blob" "40 40" \
  pg_sql shared "SELECT count(DISTINCT b.oid) || ' ' || count(*) FROM code_blobs b WHERE b.oid IN (SELECT oid FROM code_files WHERE repo = 'four' AND path LIKE 'lib/%')"

# ---- query_codebase across repositories (repos): rows name their repository ----
(cd "$TMP" && expect_out "repos all: the callers in each repository" \
  "one src/one.c:one_main
two src/two.c:two_main" sh -c "'$Q' tool query_codebase --query_type get_call_graph --name z_crc --direction callers --repos all --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"repos\"] == [\"five\", \"four\", \"one\", \"two\"] and d[\"total\"] == 2, d; print(\"\\n\".join(r[\"repo\"] + \" \" + r[\"from\"] for r in d[\"results\"]))'")
expect_out "repos: paged as one list" "2 1 2 two:two_main" \
  sh -c "cd '$TMP' && '$Q' tool query_codebase --query_type list_functions --pattern '*_main' --repos one,two --limit 1 --offset 1 --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[\"total\"], d[\"offset\"], d[\"next_offset\"] or 2, \" \".join(r[\"repo\"] + \":\" + r[\"name\"] for r in d[\"results\"]))'"
expect_out "repos: a symbol of one repository only" "two two_main" \
  sh -c "cd '$TMP' && '$Q' tool query_codebase --query_type get_definition --name two_main --repos all --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(\" \".join(r[\"repo\"] + \" \" + r[\"name\"] for r in d[\"results\"]))'"
expect_err "repos: an unknown name lists what there is" \
  "no repository 'nine' in the shared code index; it has: five, four, one, two" \
  "$Q" tool query_codebase --query_type list_functions --repos nine
expect_rc "repos: an unknown name is usage" 2 "$Q" tool query_codebase --query_type list_functions --repos nine
expect_err "repos: with ref" "parameter 'ref': with 'repos'" \
  "$Q" tool query_codebase --query_type list_functions --repos one --ref HEAD
expect_err "repos: without a database" "'repos' reads the shared code index, and none is configured: set QUARRY_DATABASE_URL" \
  env -u QUARRY_DATABASE_URL "$Q" tool query_codebase --query_type list_functions --repos one

# ---- sparql_query and search_codebase across repositories: the same repos path ----
CALLERS='PREFIX code: <https://quarry.dev/code#> SELECT ?caller WHERE { ?f code:name "z_crc" ; a code:Function . ?c code:calls ?f ; code:name ?caller } ORDER BY ?caller'
expect_out "sparql_query repos all: each row names its repo" \
  "repo caller|one one_main|two two_main" \
  sh -c "cd '$TMP' && '$Q' tool sparql_query --query '$CALLERS' --repos all --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"repos\"] == [\"five\", \"four\", \"one\", \"two\"] and d[\"total\"] == 2 and not d[\"truncated\"], d; print(\" \".join(d[\"vars\"]) + \"|\" + \"|\".join(r[\"repo\"] + \" \" + r[\"caller\"] for r in d[\"rows\"]))'"
FUNCS='PREFIX code: <https://quarry.dev/code#> SELECT ?n WHERE { ?f a code:Function ; code:name ?n } ORDER BY ?n'
expect_out "sparql_query repos: paged as one list" "6 4 one:z_crc two:adler" \
  sh -c "cd '$TMP' && '$Q' tool sparql_query --query '$FUNCS' --repos one,two --limit 2 --offset 2 --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[\"total\"], d[\"next_offset\"], \" \".join(r[\"repo\"] + \":\" + r[\"n\"] for r in d[\"rows\"]))'"
expect_out "sparql_query repos: ASK answers per repository" "True one:False two:True" \
  sh -c "cd '$TMP' && '$Q' tool sparql_query --query 'PREFIX code: <https://quarry.dev/code#> ASK { ?f code:name \"two_main\" }' --repos one,two --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[\"boolean\"], \" \".join(r[\"repo\"] + \":\" + str(r[\"boolean\"]) for r in d[\"rows\"]))'"
expect_err "sparql_query repos: an unknown name lists what there is" \
  "no repository 'nine' in the shared code index; it has: five, four, one, two" \
  "$Q" tool sparql_query --query "$CALLERS" --repos nine
expect_rc "sparql_query repos: an unknown name is usage" 2 "$Q" tool sparql_query --query "$CALLERS" --repos nine
expect_err "sparql_query repos: without a database" "'repos' reads the shared code index, and none is configured: set QUARRY_DATABASE_URL" \
  env -u QUARRY_DATABASE_URL "$Q" tool sparql_query --query "$CALLERS" --repos one
expect_rc "sparql_query repos: without a database is usage" 2 \
  env -u QUARRY_DATABASE_URL "$Q" tool sparql_query --query "$CALLERS" --repos one
expect_out "search_codebase repos all: the template over each repository" \
  "template:callers repo caller|one one_main|two two_main" \
  sh -c "cd '$TMP' && '$Q' tool search_codebase --question 'who calls z_crc' --repos all --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"model_calls\"] == 0 and d[\"repos\"] == [\"five\", \"four\", \"one\", \"two\"], d; print(d[\"how\"], \" \".join(d[\"vars\"][:2]) + \"|\" + \"|\".join(r[\"repo\"] + \" \" + r[\"caller\"] for r in d[\"rows\"]))'"
expect_out "search_codebase repos: a name only one repository holds" "two" \
  sh -c "cd '$TMP' && '$Q' tool search_codebase --question 'where is two_main defined' --repos all --format json | python3 -c 'import json,sys; print(\" \".join(sorted(set(r[\"repo\"] for r in json.load(sys.stdin)[\"rows\"]))))'"
expect_err "search_codebase repos: a name no repository holds" "no_such_fn" \
  "$Q" tool search_codebase --question "who calls no_such_fn" --repos one,two
expect_err "search_codebase repos: an unknown name lists what there is" \
  "no repository 'nine' in the shared code index; it has: five, four, one, two" \
  "$Q" tool search_codebase --question "who calls z_crc" --repos nine
# a question no template reads: one model call writes the query for the first repository,
# and the same query runs over the others (the scripted model server, real HTTP)
unset QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_LLM_API_KEY QUARRY_LLM_PROVIDER QUARRY_LLM_STREAM QUARRY_LLM_MAX_RETRIES
llm_script "$TMP/script.json" '{"text": "```sparql\nPREFIX code: <https://quarry.dev/code#>\nSELECT (COUNT(?f) AS ?n) WHERE { ?f a code:Function }\n```"}'
llm_serve "$TMP/script.json"
expect_out "search_codebase repos: a model's query, written once, over every repository" \
  "model 1 repo n|one 3|two 3" \
  sh -c "cd '$TMP' && '$Q' tool search_codebase --question 'how many functions are there' --repos one,two --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[\"how\"], d[\"model_calls\"], \" \".join(d[\"vars\"]) + \"|\" + \"|\".join(r[\"repo\"] + \" \" + str(r[\"n\"]) for r in d[\"rows\"]))'"
expect_out "search_codebase repos: the model server was asked once" "1" sh -c "wc -l <'$TMP/log.jsonl' | tr -d ' '"
llm_unserve
unset QUARRY_LLM_URL QUARRY_LLM_MODEL
expect_err "search_codebase repos: without a database" "'repos' reads the shared code index, and none is configured: set QUARRY_DATABASE_URL" \
  env -u QUARRY_DATABASE_URL "$Q" tool search_codebase --question "who calls z_crc" --repos one

# ---- least privilege: the read-only role queries, and cannot index ----
pg_sql shared "CREATE ROLE code_reader LOGIN; GRANT SELECT ON ALL TABLES IN SCHEMA public TO code_reader" >/dev/null
READER="postgresql://code_reader@/shared?host=$PG_SOCK&port=$PG_PORT"
expect_out "reader: get_definition" "int z_crc(int x)" \
  sh -c "QUARRY_DATABASE_URL='$READER' QUARRY_CODE_GRAPH_CACHE=off '$Q' tool query_codebase --query_type get_definition --name z_crc --repo '$R1' --format json | grep -o '\"signature\":\"[^\"]*\"' | cut -d'\"' -f4"
expect_out "reader: repos" "one:vendor/z.c:function two:vendor/z.c:function" \
  sh -c "cd '$TMP' && QUARRY_DATABASE_URL='$READER' '$Q' tool query_codebase --query_type find_function --name z_crc --repos all --format json | python3 -c 'import json,sys; print(\" \".join(r[\"repo\"] + \":\" + r[\"file\"] + \":\" + r[\"kind\"] for r in json.load(sys.stdin)[\"results\"] if r[\"kind\"] == \"function\"))'"
expect_err "reader: indexing a new repository is refused" \
  "cannot store code rows on postgresql server $PG_SOCK:$PG_PORT, database shared: ERROR:  permission denied for table code_blobs" \
  env QUARRY_DATABASE_URL="$READER" "$Q" code index --repo "$R3"
expect_rc "reader: code index exits 1" 1 env QUARRY_DATABASE_URL="$READER" "$Q" code index --repo "$R3"
expect_rc "reader: recording an indexed repository is refused too" 1 \
  env QUARRY_DATABASE_URL="$READER" "$Q" code index --repo "$R1"
expect_out "reader: nothing of the third repository was written" "0" \
  pg_sql shared "SELECT count(*) FROM code_files WHERE repo = 'three'"

# ---- bad settings: one line, exit 2, no password ----
NOSCHEMA=$(pg_createdb bare)
expect_err "a database with no schema" \
  "quarry: usage: tool 'query_codebase': the shared code index on postgresql server $PG_SOCK:$PG_PORT, database bare has no schema yet: run 'quarry db init'" \
  env QUARRY_DATABASE_URL="$NOSCHEMA" QUARRY_CODE_GRAPH_CACHE=off "$Q" code query get_definition --name z_crc --repo "$R3"
expect_rc "a database with no schema: exit 2" 2 \
  env QUARRY_DATABASE_URL="$NOSCHEMA" QUARRY_CODE_GRAPH_CACHE=off "$Q" code index --repo "$R3"
expect_rc "not a PostgreSQL URL: exit 2" 2 env QUARRY_DATABASE_URL="mysql://u:Sekr3tPw@h/db" "$Q" code index --repo "$R3"
grep -q "QUARRY_DATABASE_URL is not a postgres:// or postgresql:// URL" "$TMP/stderr" ||
  fail "not a PostgreSQL URL: the message: $(cat "$TMP/stderr")"
WRONG="postgresql://nobody:Sekr3tPw@/shared?host=$PG_SOCK&port=$PG_PORT"
expect_rc "an unknown role: exit 1" 1 env QUARRY_DATABASE_URL="$WRONG" "$Q" code index --repo "$R3"
grep -q 'role "nobody" does not exist' "$TMP/stderr" || fail "an unknown role: the reason: $(cat "$TMP/stderr")"
for f in "$TMP/stdout" "$TMP/stderr"; do
  if grep -q "Sekr3tPw" "$f"; then fail "the password was printed: $(cat "$f")"; fi
done
[ "$(wc -l <"$TMP/stderr")" = 1 ] || fail "an unknown role: one line: $(cat "$TMP/stderr")"
finish
