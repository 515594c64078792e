# 17_sparql.sh: `quarry sparql`: results in every format, exit codes (0 results, 1 a
# limit, 2 syntax error / refused / bad data), the hostile corpus (every query refused or
# stopped by a limit, none crashing) and the W3C conformance floor (tests/sparql/w3c_run.py
# is its own ctest).
. "$(dirname "$0")/lib.sh"

cat > "$TMP/g.ttl" <<'TTL'
@prefix : <http://e/> .
:main :calls :parse , :eval . :parse :calls :lex . :eval :calls :eval .
:main :name "main" . :parse :name "parse" . :lex :name "lex" . :eval :name "eval" .
:lex :lines 120 . :parse :lines 300 . :eval :lines 80 . :main :lines 12 .
TTL
printf '<http://e/x> <http://e/p> "named" .\n' > "$TMP/n.nt"
P='PREFIX : <http://e/> '

expect_out "select tsv" "?n
\"eval\"
\"lex\"" "$Q" sparql --data "$TMP/g.ttl" --format tsv "$P SELECT ?n { :main :calls/:calls ?f . ?f :name ?n } ORDER BY ?n"
expect_out "csv" "f,total
http://e/eval,80
http://e/parse,420" sh -c "'$Q' sparql --data '$TMP/g.ttl' --format csv '$P SELECT ?f (SUM(?l) AS ?total) { :main :calls ?f . ?f :calls* ?g . ?g :lines ?l } GROUP BY ?f ORDER BY ?f' | tr -d '\\r'"
expect_out "ask json" '{"head":{},"boolean":true}' "$Q" sparql --data "$TMP/g.ttl" --format json "$P ASK { :eval :calls+ :eval }"
expect_out "json bindings" '{"head":{"vars":["f"]},"results":{"bindings":[
{"f":{"type":"uri","value":"http://e/main"}}]}}' "$Q" sparql --data "$TMP/g.ttl" --format json "$P SELECT ?f { ?f :name ?n FILTER NOT EXISTS { ?g :calls ?f } }"
expect_out "xml" '<?xml version="1.0"?>
<sparql xmlns="http://www.w3.org/2005/sparql-results#">
<head>
  <variable name="v"/>
</head>
<results>
  <result>
    <binding name="v"><literal>named</literal></binding>
  </result>
</results>
</sparql>' "$Q" sparql --graph http://n/=$TMP/n.nt --data "$TMP/g.ttl" --format xml "SELECT ?v { GRAPH <http://n/> { ?s ?p ?v } }"
expect_out "table" "?f              ?l
<http://e/lex>  120" "$Q" sparql --data "$TMP/g.ttl" --format table "$P SELECT ?f ?l { ?f :lines ?l FILTER(?l > 100 && ?l < 200) }"
printf '%s' "$P SELECT (COUNT(*) AS ?n) { ?s :calls ?o }" > "$TMP/q.rq"
expect_out "--query file" '?n
4' "$Q" sparql --query "$TMP/q.rq" --data "$TMP/g.ttl" --format tsv
expect_out "stdin" '?n
4' sh -c "'$Q' sparql - --data '$TMP/g.ttl' --format tsv < '$TMP/q.rq'"

expect_out "NOW() reads the one clock (QUARRY_NOW)" '?y	?n
2024	"2024-02-29T12:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime>' \
  env QUARRY_NOW=2024-02-29T12:00:00Z "$Q" sparql --data "$TMP/g.ttl" --format tsv "SELECT (YEAR(NOW()) AS ?y) (NOW() AS ?n) {}"

# exit codes and messages
expect_rc "syntax error exits 2" 2 "$Q" sparql --data "$TMP/g.ttl" "SELECT ?x WHERE { ?x }"
expect_err "syntax error message" "quarry: syntax error at 1:22: unexpected '}'" "$Q" sparql --data "$TMP/g.ttl" "SELECT ?x WHERE { ?x }"
expect_rc "update exits 2" 2 "$Q" sparql --data "$TMP/g.ttl" "INSERT DATA { <a:a> <a:b> <a:c> }"
expect_err "update message" "quarry: refused: read-only: INSERT DATA is an update" "$Q" sparql --data "$TMP/g.ttl" "INSERT DATA { <a:a> <a:b> <a:c> }"
expect_err "construct message" "CONSTRUCT is not supported" "$Q" sparql --data "$TMP/g.ttl" "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }"
expect_rc "row limit exits 1" 1 "$Q" sparql --data "$TMP/g.ttl" --max-rows 3 "SELECT * { ?s ?p ?o }"
expect_err "row limit message" "quarry: limit: row limit reached" "$Q" sparql --data "$TMP/g.ttl" --max-rows 3 "SELECT * { ?s ?p ?o }"
expect_rc "memory limit exits 1" 1 "$Q" sparql --data "$TMP/g.ttl" --max-memory 1M "SELECT * { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
printf '<http://a> <http://b> .\n' > "$TMP/bad.nt"
expect_rc "bad data exits 2" 2 "$Q" sparql --data "$TMP/bad.nt" "SELECT * { ?s ?p ?o }"
expect_err "bad data message" "bad RDF in" "$Q" sparql --data "$TMP/bad.nt" "SELECT * { ?s ?p ?o }"
mkdir "$TMP/norepo"
expect_rc "no repository, no data exits 2" 2 "$Q" sparql --repo "$TMP/norepo" "SELECT * { ?s ?p ?o }"
expect_err "no repository message" "not a git repository" "$Q" sparql --repo "$TMP/norepo" "SELECT * { ?s ?p ?o }"

# the code graph of a repository as RDF (docs/sparql.md)
R="$TMP/repo"
git init -q -b main "$R"
mkdir -p "$R/src"
cat > "$R/src/util.h" <<'C'
struct point { int x; int y; };
int add(int a, int b);
C
cat > "$R/src/main.c" <<'C'
#include <stdio.h>
#include "util.h"
static int twice(int n) { return add(n, n); }
static int unused(void) { return 0; }
int add(int a, int b) { return a + b; }
int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
int main(void) { printf("%d\n", twice(fact(3))); return 0; }
C
git -C "$R" add -A
GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@x git -C "$R" commit -q -m init
C='PREFIX code: <https://quarry.dev/code#> '
expect_out "code graph: callers" '?n
"twice"' "$Q" sparql --repo "$R" --format tsv "$C SELECT ?n { ?f code:calls ?g . ?g code:name \"add\" . ?f code:name ?n } ORDER BY ?n"
expect_out "code graph: transitive callees" '?n
"add"
"fact"
"printf"
"twice"' "$Q" sparql --repo "$R" --format tsv "$C SELECT DISTINCT ?n { ?m code:name \"main\" ; a code:Function ; code:calls+ ?g . ?g code:name ?n } ORDER BY ?n"
expect_out "code graph: dead statics" '?n
"unused"' "$Q" sparql --repo "$R" --format tsv "$C SELECT ?n { ?f a code:Function ; code:static true ; code:name ?n FILTER NOT EXISTS { ?g code:calls ?f } }"
expect_out "code graph: recursive" '?n
"fact"' "$Q" sparql --repo "$R" --format tsv "$C SELECT ?n { ?f code:calls ?f ; code:name ?n }"
expect_out "code graph: includes" '?h
"<stdio.h>"
"util.h"' "$Q" sparql --repo "$R" --format tsv "$C SELECT ?h { ?f code:path \"src/main.c\" ; code:includes ?x . ?x code:name ?h } ORDER BY ?h"
expect_out "code graph: members" '?m	?t
"x"	"int"
"y"	"int"' "$Q" sparql --repo "$R" --format tsv "$C SELECT ?m ?t { ?s a code:Struct ; code:name \"point\" . ?x code:memberOf ?s ; code:name ?m ; code:type ?t } ORDER BY ?m"
expect_out "code graph: call sites" '?l
7' "$Q" sparql --repo "$R" --format tsv "$C SELECT ?l { ?f code:name \"main\" ; a code:Function ; code:callSite ?c . ?c code:callee/code:name \"printf\" ; code:line ?l }"
"$Q" sparql --repo "$R" --export-nt "$TMP/code.nt"
n_repo=$("$Q" sparql --repo "$R" --format tsv "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }" | tail -1)
expect_out "export-nt round trip" "$n_repo" sh -c "'$Q' sparql --data '$TMP/code.nt' --format tsv 'SELECT (COUNT(*) AS ?n) { ?s ?p ?o }' | tail -1"
expect_rc "export-nt takes no query" 2 "$Q" sparql --repo "$R" --export-nt - "SELECT * { ?s ?p ?o }"
expect_out "tool over the code graph" '{"vars":["n"],"rows":[{"n":"fact"}],"total":1,"truncated":false}' \
  env -u QUARRY_SPARQL_DATA "$Q" tool sparql_query --repo "$R" --query "$C SELECT ?n { ?f code:calls ?f ; code:name ?n }" --format json
expect_rc "bad format exits 2" 2 "$Q" sparql --data "$TMP/g.ttl" --format yaml "SELECT * { ?s ?p ?o }"
expect_err "json errors" '{"error":{"kind":"refused","message":"read-only: DROP is an update"}}' "$Q" sparql --format json --data "$TMP/g.ttl" "DROP ALL"

# the sparql_query tool: pages, the refusal before running, no data configured
expect_out "tool page" '{"vars":["f"],"rows":[{"f":"http://e/eval"},{"f":"http://e/lex"}],"total":4,"truncated":true,"next_offset":2,"hint":"showing rows 0 to 2 of 4; call again with offset 2 for the next page, or narrow the query (ORDER BY, LIMIT)"}' \
  env QUARRY_SPARQL_DATA="$TMP/g.ttl" "$Q" tool sparql_query --query "$P SELECT ?f { ?f :lines ?l } ORDER BY ?f" --limit 2 --format json
expect_out "tool next page" '{"vars":["f","l"],"rows":[{"f":"http://e/main","l":12},{"f":"http://e/parse","l":300}],"total":4,"truncated":false}' \
  env QUARRY_SPARQL_DATA="$TMP/g.ttl" "$Q" tool sparql_query --query "$P SELECT ?f ?l { ?f :lines ?l } ORDER BY ?f" --limit 2 --offset 2 --format json
expect_out "tool ask" '{"boolean":false}' \
  env QUARRY_SPARQL_DATA="$TMP/g.ttl" "$Q" tool sparql_query --query "$P ASK { :lex :calls ?x }" --format json
expect_err "tool refuses updates" "parameter 'query': refused: read-only: INSERT DATA is an update" \
  env QUARRY_SPARQL_DATA="$TMP/g.ttl" "$Q" tool sparql_query --query "INSERT DATA { <a:a> <a:b> <a:c> }"
expect_err "tool outside a repository" "not a git repository" \
  env -u QUARRY_SPARQL_DATA "$Q" tool sparql_query --repo "$TMP/norepo" --query "SELECT * { ?s ?p ?o }"
expect_err "tool time limit" "time limit reached" \
  env QUARRY_SPARQL_DATA="$TMP/g.ttl" "$Q" tool sparql_query --timeout_ms 1 --query "SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n2 ?o }"

# the hostile corpus: every file refused (exit 2) with one line, none crashing
for f in "$SRC"/tests/sparql/hostile/*.rq; do
  "$Q" sparql --data "$TMP/g.ttl" --query "$f" >"$TMP/out" 2>"$TMP/err"; rc=$?
  if [ "$rc" != 2 ] || [ "$(wc -l < "$TMP/err")" != 1 ] || [ -s "$TMP/out" ]; then
    echo "FAIL: hostile $(basename "$f"): exit $rc"; cat "$TMP/err"; FAILS=$((FAILS + 1))
  fi
done
expect_err "hidden update" "read-only: DELETE DATA is an update" "$Q" sparql --data "$TMP/g.ttl" --query "$SRC/tests/sparql/hostile/01_comment_update.rq"
expect_err "escaped update" "read-only: DELETE WHERE is an update" "$Q" sparql --data "$TMP/g.ttl" --query "$SRC/tests/sparql/hostile/04_escape_update.rq"
expect_err "service" "SERVICE is not supported" "$Q" sparql --data "$TMP/g.ttl" --query "$SRC/tests/sparql/hostile/07_service.rq"
expect_err "construct in subquery" "syntax error" "$Q" sparql --data "$TMP/g.ttl" --query "$SRC/tests/sparql/hostile/06_construct_subquery.rq"

# stopped by limits: exponential paths, huge VALUES, deep nesting
awk 'BEGIN { for (i = 0; i < 300; i++) printf "<http://e/n%d> <http://e/p> <http://e/n%d> .\n", i, i + 1 }' > "$TMP/chain.nt"
expect_rc "exponential path stopped" 1 "$Q" sparql --data "$TMP/chain.nt" --timeout-ms 300 --max-memory 64M "SELECT * { ?a <http://e/p>* ?b . ?c <http://e/p>* ?d . ?e (<http://e/p>|^<http://e/p>)* ?f }"
awk 'BEGIN { printf "SELECT * { VALUES ?x {"; for (i = 0; i < 200000; i++) printf " %d", i; printf " } ?s ?p ?o }" }' > "$TMP/values.rq"
expect_rc "huge VALUES stopped" 1 "$Q" sparql --data "$TMP/g.ttl" --max-memory 8M --query "$TMP/values.rq"
awk 'BEGIN { printf "SELECT * WHERE "; for (i = 0; i < 5000; i++) printf "{"; for (i = 0; i < 5000; i++) printf "}" }' > "$TMP/deep.rq"
expect_err "deep nesting refused" "nests deeper than" "$Q" sparql --data "$TMP/g.ttl" --query "$TMP/deep.rq"
awk 'BEGIN { printf "SELECT * { FILTER("; for (i = 0; i < 5000; i++) printf "("; printf "1"; for (i = 0; i < 5000; i++) printf ")"; printf ") }" }' > "$TMP/deep2.rq"
expect_rc "deep expression refused" 2 "$Q" sparql --data "$TMP/g.ttl" --query "$TMP/deep2.rq"
finish
