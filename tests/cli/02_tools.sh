# 02_tools.sh: `quarry tools` and `quarry tool` with the product registry (the git tools):
# the listing, every export format being valid JSON with one entry per tool, exit codes,
# error lines (plain and JSON), --help, and the Lisp reaching the registry. Validation,
# exports and flag parsing are covered with test tools in tests/unit/test_tools.c; what
# the git tools return, in 03_git.sh.
. "$(dirname "$0")/lib.sh"

NAMES="get_commits get_author_stats get_file_stats get_file_history get_diff_stats get_diff get_tags memory_query memory_get memory_add memory_update memory_delete memory_restore memory_link memory_unlink memory_visit query_codebase sparql_query search_codebase"
N=19
# the tools that write (served by `quarry mcp` only with --allow-write memory)
WRITERS=7
READERS="get_commits get_author_stats get_file_stats get_file_history get_diff_stats get_diff get_tags memory_query memory_get query_codebase sparql_query search_codebase"
expect_out "tools: one line per tool" "$NAMES" sh -c "\"$Q\" tools | awk '/^[a-z]/ { printf \"%s%s\", n++ ? \" \" : \"\", \$1 }'"
expect_rc "tools exits 0" 0 "$Q" tools
expect_out "tools NAME lists one" "get_commits" sh -c "\"$Q\" tools get_commits | head -1 | cut -d' ' -f1"

# every JSON format is an array with one entry per tool, and valid JSON (read back by
# quarry's own reader)
# (the formats of what `quarry mcp` serves have run_lisp, run_query and dwim too)
SERVED="$READERS run_lisp run_query dwim"
for f in json openai openai-strict anthropic mcp; do
  n=$N; [ $f = json ] || n=$((N - WRITERS + 3))
  for c in "" --compact; do
    out=$("$Q" tools --format $f $c)
    printf '{"tools": %s}' "$out" > "$TMP/$f.json"
    expect_out "tools --format $f $c parses as JSON" "$n" "$Q" lisp --data "$TMP/$f.json" -e '(count data/tools)'
  done
done
expect_out "openai: function names" "\"$SERVED\"" "$Q" lisp --data "$TMP/openai.json" -e '(clojure.string/join " " (map #(get-in % [:function :name]) data/tools))'
expect_out "mcp: the tools are read-only" "true" "$Q" lisp --data "$TMP/mcp.json" -e '(every? #(get-in % [:annotations :readOnlyHint]) data/tools)'

expect_rc "tools: unknown format" 2 "$Q" tools --format xml
expect_err "tools: unknown format named" "unknown format 'xml': expected text, json, mcp, openai, openai-strict or anthropic" "$Q" tools --format xml
expect_rc "tools: unknown option" 2 "$Q" tools --frob
expect_rc "tools: --format needs a value" 2 "$Q" tools --format
expect_rc "tools: unknown tool name" 2 "$Q" tools get_comits
expect_err "tools: unknown tool name says why" "quarry: usage: unknown tool 'get_comits'; did you mean 'get_commits'?" "$Q" tools get_comits
expect_rc "tools --repo accepted" 0 "$Q" tools --repo .

expect_rc "tools --help" 0 "$Q" tools --help
for f in text json openai anthropic mcp; do
  expect_out "tools --help names $f" "1" sh -c "\"$Q\" tools --help | grep -c '^  $f '"
done

# quarry tool: unknown tool and bad usage exit 2 with one line on stderr
expect_rc "tool: unknown tool" 2 "$Q" tool get_comits --since '1 week ago'
expect_err "tool: unknown tool line" "quarry: usage: unknown tool 'get_comits'; did you mean 'get_commits'? tools: $(echo $NAMES run_lisp run_query dwim | sed 's/ /, /g')" "$Q" tool get_comits
expect_out "tool: nothing on stdout" "" "$Q" tool get_comits
expect_err "tool: JSON error with --format json" '{"error":{"kind":"usage","message":"unknown tool '"'"'x'"'"'; tools: get_commits, ' "$Q" tool x --format json
expect_rc "tool: no name" 2 "$Q" tool
expect_err "tool: no name says so" "which tool? give its NAME" "$Q" tool
expect_rc "tool: parameters before the name" 2 "$Q" tool --since x get_commits
expect_err "tool: parameters before the name says so" "give the tool's NAME before its parameters" "$Q" tool --since x get_commits
expect_rc "tool: bad format" 2 "$Q" tool x --format xml
expect_rc "tool: bad --limit-output" 2 "$Q" tool x --limit-output lots
expect_rc "tool: --format needs a value" 2 "$Q" tool x --format

expect_rc "tool --help" 0 "$Q" tool --help
expect_out "tool --help first line" "usage: quarry tool NAME [--PARAM VALUE ...] [OPTIONS] [-- --PARAM VALUE ...]" sh -c "\"$Q\" tool --help | head -1"
expect_out "tool --help lists the tools" "tools: $(echo $NAMES run_lisp run_query dwim | sed 's/ /, /g')" sh -c "\"$Q\" tool --help | tail -1"
expect_out "tool NAME --help describes it" "usage: quarry tool get_commits [--PARAM VALUE ...] [OPTIONS]" sh -c "\"$Q\" tool get_commits --help | head -1"
expect_out "tool --help documents --limit-output" "1" sh -c "\"$Q\" tool --help | grep -c -- '--limit-output N      rows of a vector result to print (default: 50 on a'"

expect_rc "help tools" 0 "$Q" help tools
expect_rc "help tool" 0 "$Q" help tool
expect_out "overview lists tools" "1" sh -c "\"$Q\" --help | grep -c '^  tools '"
expect_out "overview lists tool" "1" sh -c "\"$Q\" --help | grep -c '^  tool '"

# the Lisp reaches the same registry
expect_rc "lisp: unknown tool is a tool error" 1 "$Q" lisp -e '(tool/get_comits {:since "1 week ago"})'
expect_err "lisp: unknown tool message" "unknown tool 'get_comits'; did you mean 'get_commits'?" "$Q" lisp -e '(tool/get_comits {})'
expect_err "lisp: bad parameter message" "tool 'get_commits': unknown parameter 'sinse'; did you mean 'since'?" "$Q" lisp -e '(tool/get_commits {:sinse "1 week ago"})'
finish
