# 42_tool_schemas.sh: the tool schemas every client accepts (issue 24, section 3). Every
# export format of the real registry (`quarry tools --format openai|openai-strict|
# anthropic|mcp`, for the default server and for one started with --allow-write memory
# --allow-exec) is checked against the limits OpenAI, Anthropic and MCP document
# (tests/cli/api_limits.py, written from their documentation, not from the exporter);
# openai-strict gives run_query a way to pass its query; and every exported tool,
# run_lisp, run_query and dwim included, can be replayed with `quarry tool NAME --args -`,
# as docs/tools.md says.
. "$(dirname "$0")/lib.sh"

CHECK="$SRC/tests/cli/api_limits.py"
for flags in "" "--allow-write memory --allow-exec"; do
  for f in openai openai-strict anthropic mcp; do
    # shellcheck disable=SC2086
    "$Q" tools --format $f $flags > "$TMP/$f.json"
    if ! python3 "$CHECK" $f "$TMP/$f.json" > "$TMP/limits.out"; then
      echo "FAIL: tools --format $f $flags breaks a documented limit:"; sed 's/^/  /' "$TMP/limits.out"
      FAILS=$((FAILS + 1))
    fi
  done
done
# (the full list: every registry tool, and run_lisp, run_query, dwim)
expect_out "the full list has every tool" "$(( $("$Q" tools --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))') + 3 ))" \
  python3 -c "import json; print(len(json.load(open('$TMP/mcp.json'))))"

# the checker can fail: a long description, a bad name, a nullable-only strict schema, a
# description cut inside a word
python3 - "$TMP/openai.json" "$TMP/openai-strict.json" "$TMP" <<'EOF'
import json, sys
plain, strict, tmp = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
long = json.loads(json.dumps(plain)); long[0]["function"]["description"] = "Word. " * 200
json.dump(long, open(f"{tmp}/long.json", "w"))
name = json.loads(json.dumps(plain)); name[0]["function"]["name"] = "memory.query"
json.dump(name, open(f"{tmp}/name.json", "w"))
cut = json.loads(json.dumps(plain)); cut[0]["function"]["description"] = "List the commi"
json.dump(cut, open(f"{tmp}/cut.json", "w"))
opt = json.loads(json.dumps(strict)); opt[0]["function"]["parameters"]["required"] = []
json.dump(opt, open(f"{tmp}/opt.json", "w"))
dflt = json.loads(json.dumps(strict)); dflt[0]["function"]["parameters"]["properties"]["limit"]["default"] = 5
json.dump(dflt, open(f"{tmp}/dflt.json", "w"))
EOF
expect_rc "the checker refuses a description over 1,024" 1 python3 "$CHECK" openai "$TMP/long.json"
expect_rc "the checker refuses a name with a dot" 1 python3 "$CHECK" openai "$TMP/name.json"
expect_rc "the checker refuses a description cut inside a word" 1 python3 "$CHECK" openai "$TMP/cut.json"
expect_rc "the checker refuses a strict schema with optional properties" 1 python3 "$CHECK" openai-strict "$TMP/opt.json"
expect_rc "the checker refuses a default in strict mode" 1 python3 "$CHECK" openai-strict "$TMP/dflt.json"
expect_rc "the plain export is not strict" 1 python3 "$CHECK" openai-strict "$TMP/openai.json"

# run_query: its description names every transform step within the limit, and the
# description of `text` says what each does
expect_out "run_query's description lists the steps" "True" python3 -c "
import json
t = [t for t in json.load(open('$TMP/openai.json')) if t['function']['name'] == 'run_query'][0]['function']
d = t['description']
print(len(d) <= 1024 and 'distinct (:on' in d and 'filter (:on :where)' in d
      and 'first ones kept' in t['parameters']['properties']['text']['description'])"

# openai-strict: run_query's query can only come as `text` (a strict schema cannot take
# any JSON object), so `text` is required and not nullable: a strict model must send it
expect_out "strict run_query: text is needed" "string True" python3 -c "
import json
f = [t for t in json.load(open('$TMP/openai-strict.json')) if t['function']['name'] == 'run_query'][0]['function']
p = f['parameters']
print(p['properties']['text']['type'], 'text' in p['required'] and 'query' not in p['properties'])"
# every other optional parameter is nullable; no tool's needed value is nullable-only
expect_out "strict: needed parameters are not nullable" "" python3 -c "
import json
plain = {t['function']['name']: t['function']['parameters'] for t in json.load(open('$TMP/openai.json'))}
for t in json.load(open('$TMP/openai-strict.json')):
    f = t['function']
    for r in plain[f['name']].get('required', []):
        ty = f['parameters']['properties'][r]['type']
        if isinstance(ty, list):
            print(f['name'], r)"

# ---- replays: every exported tool runs with `quarry tool NAME --args -` ----
R="$TMP/repo"
git init -q -b main "$R"
git -C "$R" config user.name Ann; git -C "$R" config user.email ann@example.com
git -C "$R" config commit.gpgsign false
printf 'int add(int a, int b) { return a + b; }\n' > "$R/a.c"
git -C "$R" add a.c
GIT_COMMITTER_DATE=2024-03-01T10:00:00Z git -C "$R" commit -q --date=2024-03-01T10:00:00Z -m "Add add"
echo 'int twice(int a) { return add(a, a); }' >> "$R/a.c"
GIT_COMMITTER_DATE=2024-03-02T10:00:00Z git -C "$R" commit -q -a --date=2024-03-02T10:00:00Z -m "Add twice"

# a strict model's calls: every property present, null for what it does not give
expect_out "replay run_lisp (strict call)" '{"result":["Add twice","Add add"]}' \
  sh -c "echo '{\"program\": \"(map :subject (tool/get_commits {}))\", \"offset\": null, \"repo\": \"$R\"}' | \"$Q\" tool run_lisp --args -"
expect_out "replay run_query (strict call, query as text)" '2' \
  sh -c "echo '{\"text\": \"{:fetch [{:tool :get_commits :as :c}] :return {:findings :c}}\", \"offset\": null, \"repo\": \"$R\"}' | \"$Q\" tool run_query --args - | \"$Q\" lisp --data - -e '(count (:findings data/result))'"
expect_out "replay run_query (plain call, query as an object)" '"Add add"' \
  sh -c "echo '{\"query\": {\"fetch\": [{\"tool\": \"get_commits\", \"as\": \"c\"}], \"transform\": [{\"op\": \"last\", \"on\": \"c\", \"as\": \"l\"}], \"return\": {\"findings\": \"l\"}}}' | \"$Q\" tool run_query --repo \"$R\" --args - | \"$Q\" lisp --data - -e '(:subject (:findings data/result))'"
expect_out "replay dwim" "1" \
  sh -c "echo '{\"line\": \"grep twice\", \"repo\": \"$R\"}' | \"$Q\" tool dwim --args - | grep -c 'a.c:2'"
expect_out "run_lisp with flags" '{"result":3}' "$Q" tool run_lisp --program '(+ 1 2)' --repo "$R" --format json
# a bad replay is bad usage (exit 2) with the tool's message
expect_rc "run_query with neither query nor text" 2 sh -c "echo '{\"text\": null}' | \"$Q\" tool run_query --repo '$R' --args -"
expect_err "run_query says what it needs" "give the query either as 'query'" sh -c "echo '{}' | \"$Q\" tool run_query --repo '$R' --args -"
expect_rc "run_lisp with a program that fails" 1 "$Q" tool run_lisp --repo "$R" --program '(/ 1 0)'
expect_rc "run_lisp with an unknown parameter" 2 "$Q" tool run_lisp --repo "$R" --program 1 --frob 2
expect_out "run_lisp --help" "usage: quarry tool run_lisp [--PARAM VALUE ...] [OPTIONS]" sh -c "\"$Q\" tool run_lisp --help | head -1"
# every tool of the full export is known to `quarry tool`
for name in $(python3 -c "import json; print(' '.join(t['name'] for t in json.load(open('$TMP/mcp.json'))))"); do
  "$Q" tool "$name" --help >/dev/null 2>&1 || { echo "FAIL: quarry tool $name --help: unknown"; FAILS=$((FAILS + 1)); }
done
finish
