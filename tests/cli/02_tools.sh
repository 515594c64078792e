# 02_tools.sh: `quarry tools` and `quarry tool` with the product registry, which is empty
# until the git tools land: the empty-registry messages, every export format being valid
# JSON (an empty array), exit codes, error lines (plain and JSON), --help, and the Lisp
# reaching the registry. Validation, exports of real records and flag parsing are covered
# with test tools in tests/unit/test_tools.c.
. "$(dirname "$0")/lib.sh"

expect_out "tools, empty registry" "no tools are registered" "$Q" tools
expect_rc "tools exits 0" 0 "$Q" tools
expect_out "tools --format text" "no tools are registered" "$Q" tools --format text

# every JSON format is an empty array, and valid JSON (read back by quarry's own reader)
for f in json openai anthropic mcp; do
  expect_out "tools --format $f" "[]" "$Q" tools --format $f
  expect_out "tools --format $f --compact" "[]" "$Q" tools --format $f --compact
  out=$("$Q" tools --format $f)
  printf '{"tools": %s}' "$out" > "$TMP/$f.json"
  expect_out "tools --format $f parses as JSON" "true" "$Q" lisp --data "$TMP/$f.json" -e '(and (vector? data/tools) (empty? data/tools))'
done

expect_rc "tools: unknown format" 2 "$Q" tools --format xml
expect_err "tools: unknown format named" "unknown format 'xml': expected text, json, openai, anthropic or mcp" "$Q" tools --format xml
expect_rc "tools: unknown option" 2 "$Q" tools --frob
expect_rc "tools: --format needs a value" 2 "$Q" tools --format
expect_rc "tools: unknown tool name" 2 "$Q" tools get_commits
expect_err "tools: unknown tool name says why" "quarry: usage: unknown tool 'get_commits'; no tools are registered" "$Q" tools get_commits
expect_rc "tools --repo accepted" 0 "$Q" tools --repo .

expect_rc "tools --help" 0 "$Q" tools --help
for f in text json openai anthropic mcp; do
  expect_out "tools --help names $f" "1" sh -c "\"$Q\" tools --help | grep -c '^  $f '"
done

# quarry tool: unknown tool and bad usage exit 2 with one line on stderr
expect_rc "tool: unknown tool" 2 "$Q" tool get_commits --since '1 week ago'
expect_err "tool: unknown tool line" "quarry: usage: unknown tool 'get_commits'; no tools are registered" "$Q" tool get_commits
expect_out "tool: nothing on stdout" "" "$Q" tool get_commits
expect_err "tool: JSON error with --format json" '{"error":{"kind":"usage","message":"unknown tool '"'"'x'"'"'; no tools are registered"}}' "$Q" tool x --format json
expect_rc "tool: no name" 2 "$Q" tool
expect_err "tool: no name says so" "which tool? give its NAME" "$Q" tool
expect_rc "tool: parameters before the name" 2 "$Q" tool --since x get_commits
expect_err "tool: parameters before the name says so" "give the tool's NAME before its parameters" "$Q" tool --since x get_commits
expect_rc "tool: bad format" 2 "$Q" tool x --format xml
expect_rc "tool: bad --limit-output" 2 "$Q" tool x --limit-output lots
expect_rc "tool: --format needs a value" 2 "$Q" tool x --format

expect_rc "tool --help" 0 "$Q" tool --help
expect_out "tool --help first line" "usage: quarry tool NAME [--PARAM VALUE ...] [OPTIONS] [-- --PARAM VALUE ...]" sh -c "\"$Q\" tool --help | head -1"
expect_out "tool --help lists the (no) tools" "no tools are registered" sh -c "\"$Q\" tool --help | tail -1"
expect_out "tool --help documents --limit-output" "1" sh -c "\"$Q\" tool --help | grep -c -- '--limit-output N      rows of a vector result to print (default 50; 0: all)'"

expect_rc "help tools" 0 "$Q" help tools
expect_rc "help tool" 0 "$Q" help tool
expect_out "overview lists tools" "1" sh -c "\"$Q\" --help | grep -c '^  tools '"
expect_out "overview lists tool" "1" sh -c "\"$Q\" --help | grep -c '^  tool '"

# the Lisp reaches the same registry
expect_rc "lisp: unknown tool is a tool error" 1 "$Q" lisp -e '(tool/get_commits {:since "1 week ago"})'
expect_err "lisp: unknown tool message" "unknown tool 'get_commits'; no tools are registered" "$Q" lisp -e '(tool/get_commits {})'
finish
