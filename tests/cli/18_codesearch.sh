# 18_codesearch.sh: the search_codebase tool (seed 004, tier 2) on a repository built here:
# template questions answered with no model (checked against the code), other questions
# by one call to the scripted model server (tests/llm/model_server.py, real HTTP on
# 127.0.0.1), a broken query repaired once with the structured error, a refused one
# failing after the repair, and the cached prefix byte-identical across calls.
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/home/.config" GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
unset QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_LLM_API_KEY QUARRY_LLM_PROVIDER QUARRY_LLM_STREAM \
  QUARRY_LLM_MAX_RETRIES QUARRY_SPARQL_DATA
mkdir -p "$HOME"

R="$TMP/repo"
git init -q -b main "$R"
mkdir -p "$R/src"
cat > "$R/src/util.h" <<'C'
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

# ask QUESTION: the rows of the answer as JSON, and how it was answered
ask() {
  "$Q" tool search_codebase --repo "$R" --question "$1" --format json > "$TMP/out.json" 2> "$TMP/err" || true
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['how'], d['model_calls'], json.dumps(d['rows'], separators=(',',':')))" "$TMP/out.json" 2>/dev/null || cat "$TMP/err"
}

expect_out "who calls" 'template:callers 0 [{"caller":"twice","file":"src/main.c","line":3}]' ask "Who calls add?"
expect_out "what does X call" 'template:callees 0 [{"callee":"fact","line":7},{"callee":"printf","line":7},{"callee":"twice","line":7}]' ask "what does main call"
expect_out "where defined" 'template:definition 0 [{"kind":"Declaration","file":"src/util.h","line":1,"end":1},{"kind":"Function","file":"src/main.c","line":5,"end":5}]' ask "where is \`add\` defined?"
expect_out "includers" 'template:includers 0 [{"file":"src/main.c"}]' ask "which files include util.h"
expect_out "functions of a file" 'template:file-functions 0 [{"name":"twice","line":3,"static":true},{"name":"unused","line":4,"static":true},{"name":"add","line":5,"static":false},{"name":"fact","line":6,"static":false},{"name":"main","line":7,"static":false}]' ask "functions in main.c"
expect_out "dead statics" 'template:dead-statics 0 [{"name":"unused","file":"src/main.c","line":4}]' ask "static functions nobody calls"
expect_out "recursive" 'template:recursive 0 [{"name":"fact","file":"src/main.c"}]' ask "Which functions are recursive?"
expect_out "most included" 'template:most-included 0 [{"header":"<stdio.h>","includers":1},{"header":"util.h","includers":1}]' ask "most included headers"
# issue 27: more phrasings through the shared reader, and an unknown name is an error
expect_out "where is X called from" 'template:callers 0 [{"caller":"twice","file":"src/main.c","line":3}]' ask "hey, where is add called from?"
expect_out "a file's includes" 'template:file-includes 0 [{"header":"stdio.h"},{"header":"util.h"}]' ask "what does src/main.c include"
expect_out "in which file is X" 'template:definition 0 [{"kind":"Declaration","file":"src/util.h","line":1,"end":1},{"kind":"Function","file":"src/main.c","line":5,"end":5}]' ask "in which file is add"
expect_out "static functions" 'template:statics 0 [{"name":"twice","file":"src/main.c","line":3},{"name":"unused","file":"src/main.c","line":4}]' ask "which functions are static"
expect_out "count of functions" 'template:count-functions 0 [{"count":5}]' ask "how many functions are defined under src/"
expect_out "transitive callers" 'template:transitive-callers 0 [{"caller":"main"},{"caller":"twice"}]' ask "everything that eventually calls add"
expect_out "a name called by nobody: 0 rows" 'template:callers 0 []' ask "who calls main"
expect_err "a misspelt name: did you mean" "no such function 'factt' in the code index; did you mean 'fact'?" \
  "$Q" tool search_codebase --repo "$R" --question "who calls factt"
expect_rc "a misspelt name exits 2" 2 "$Q" tool search_codebase --repo "$R" --question "who calls factt"
expect_err "a wrongly cased name: did you mean" "did you mean 'twice'" \
  "$Q" tool search_codebase --repo "$R" --question "what does Twice call"
expect_err "a name the index lacks" "no such function 'zzzq' in the code index" \
  "$Q" tool search_codebase --repo "$R" --question "where is zzzq defined"
expect_err "a name that is not an identifier matches no template" "no template answers" \
  "$Q" tool search_codebase --repo "$R" --question 'who calls x" } } INSERT DATA { <a:a> <a:b> <a:c> } #'
expect_err "no template, no model" "no template answers 'how many functions are there' and no model is configured" \
  "$Q" tool search_codebase --repo "$R" --question "how many functions are there"

# quarry ask reaches the templates for code questions (tier 1, no model)
expect_out "quarry ask: code question" '{"findings":[{"name":"unused","file":"src/main.c","line":4}],"summary":"1 result(s) from the code graph (template dead-statics)"}' \
  "$Q" ask "static functions nobody calls?" --repo "$R" --format json
expect_out "quarry ask --explain names the rule" "tier 1 (router), rule code-dead-statics: 0 model calls" \
  sh -c "'$Q' ask 'static functions nobody calls?' --repo '$R' --explain 2>&1 | head -1 | sed 's/, [0-9.]* ms\$//'"

# ---- the model path ----
serve() { # serve STEP...: the model server answering with these steps
  llm_script "$TMP/script.json" "$@"
  llm_serve "$TMP/script.json"
}
unserve() { llm_unserve; unset QUARRY_LLM_URL; }
trap 'unserve; rm -rf "$TMP"' EXIT
pylog() { python3 -c "import json,sys; L=[json.loads(l) for l in open(sys.argv[2])]; print($1)" "$1" "$TMP/log.jsonl"; }

GOOD='{"text": "```sparql\nPREFIX code: <https://quarry.dev/code#>\nSELECT (COUNT(?f) AS ?n) WHERE { ?f a code:Function }\n```"}'
serve "$GOOD"
expect_out "one model call" 'model 1 [{"n":5}]' ask "how many functions are there"
expect_out "the question is the user message" "how many functions are there" pylog 'L[0]["body"]["messages"][-1]["content"]'
unserve

BROKEN='{"text": "SELECT (COUNT(?f) AS ?n) WHERE { ?f a code:Function }"}'
serve "$BROKEN" "$GOOD"
expect_out "repaired once" 'model 2 [{"n":5}]' ask "count the functions"
expect_out "the repair carries the error" "True" pylog '"unknown prefix" in L[1]["body"]["messages"][-1]["content"]'
expect_out "the cached prefix is byte-identical" "True" pylog 'L[0]["body"]["messages"][0] == L[1]["body"]["messages"][0] and L[0]["body"]["messages"][0]["role"] == "system"'
unserve

UPDATE='{"text": "```sparql\nINSERT DATA { <a:a> <a:b> <a:c> }\n```"}'
serve "$UPDATE" "$UPDATE"
expect_err "refused twice: an error" "the model's query failed twice: refused: read-only: INSERT DATA is an update" \
  "$Q" tool search_codebase --repo "$R" --question "delete everything"
expect_out "two calls, no more" "2" pylog 'len(L)'
unserve

# a model whose broken query quotes the API key: the error names the failure, never the key
LEAK='{"text": "```sparql\nSELECT ?x WHERE { ?x <sk-leak-0123456789abcdef> }\n```"}'
serve "$LEAK" "$LEAK"
QUARRY_LLM_API_KEY=sk-leak-0123456789abcdef "$Q" tool search_codebase --repo "$R" --question "x" >"$TMP/leak.out" 2>"$TMP/leak.err"
expect_out "a key in the model's query: the error says the query failed" "1" grep -c "the model's query failed twice" "$TMP/leak.err"
expect_out "a key in the model's query: not in the error" "0" sh -c "cat '$TMP/leak.out' '$TMP/leak.err' | grep -c 0123456789abcdef"
unserve
# a model whose good query quotes the key (in a comment, and as a literal it selects): the
# answer holds it neither in its query text nor in its rows
QUOTE='{"text": "```sparql\nSELECT (\"sk-leak-0123456789abcdef\" AS ?k) WHERE {} # sk-leak-0123456789abcdef\n```"}'
serve "$QUOTE"
QUARRY_LLM_API_KEY=sk-leak-0123456789abcdef "$Q" tool search_codebase --repo "$R" --question "x" --format json >"$TMP/quote.out" 2>"$TMP/quote.err"
expect_out "a key in a good query: answered" "1" sh -c "grep -c '\"how\"' '$TMP/quote.out'"
expect_out "a key in a good query: not in the answer" "0" sh -c "cat '$TMP/quote.out' '$TMP/quote.err' | grep -c 0123456789abcdef"
unserve
finish
