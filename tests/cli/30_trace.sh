# 30_trace.sh: one trace format for every command that asks a model (docs/trace.md).
# `quarry ask`, `quarry do`, `quarry tool search_codebase`, `quarry mem agent run` and
# `quarry flow run` each run against the scripted model server (tests/llm/model_server.py,
# real HTTP on 127.0.0.1) with --trace FILE, and every line of the five traces is checked against
# docs/trace.schema.json by scripts/trace_check.py (standard-library Python). Also: the
# API key never reaches a trace, not even when the model's reply holds it; each trace
# ends with an "end" event whose totals match the requests the server saw; a repair is
# traced as invalid_reply then a call with repair 1; a trace file that cannot be written
# is a usage error.
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
  echo "skip: no python3"; exit 77
fi
export HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/home/.config" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_LLM_PROVIDER \
  QUARRY_LLM_STREAM QUARRY_LLM_TIMEOUT_MS QUARRY_MEMORY QUARRY_MEMORY_AGENTS QUARRY_SPARQL_DATA
mkdir -p "$HOME"
KEY=sk-test-secret-trace-0123456789
export QUARRY_LLM_API_KEY=$KEY QUARRY_LLM_MAX_RETRIES=0 QUARRY_LLM_RETRY_BASE_MS=5
SCHEMA="$SRC/docs/trace.schema.json"
CHECK="$SRC/scripts/trace_check.py"

serve() { # serve STEP...: the model server answering with these steps (JSON or reply files)
  llm_script "$TMP/script.json" "$@"
  llm_serve "$TMP/script.json"
}
requests() { wc -l < "$TMP/log.jsonl" | tr -d ' '; }
# ev FILE EXPR: EXPR over the trace's events (E: the list of objects)
ev() { python3 -c "import json,sys; E=[json.loads(l) for l in open(sys.argv[2])]; print($2)" "$1" "$1" 2>&1 | tail -1; }

# ---- a repository with code and history ----
R="$TMP/repo"
git init -q -b main "$R"
git -C "$R" config user.name T
git -C "$R" config user.email t@example.com
mkdir -p "$R/src"
cat > "$R/src/main.c" <<'C'
static int twice(int n) { return n + n; }
int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
int main(void) { return twice(fact(3)); }
C
git -C "$R" add -A
git -C "$R" commit -qm "the code"

# ---- search_codebase: a broken query repaired once; the reply echoes the key ----
BROKEN="{\"text\": \"SELECT (COUNT(?f) AS ?n) WHERE { ?f a code:Function } # $KEY\"}"
GOOD='{"text": "```sparql\nPREFIX code: <https://quarry.dev/code#>\nSELECT (COUNT(?f) AS ?n) WHERE { ?f a code:Function }\n```"}'
serve "$BROKEN" "$GOOD"
T1="$TMP/search.jsonl"
expect_out "search: answered after a repair" "model 2" sh -c "'$Q' tool search_codebase --repo '$R' --question 'count the functions' --format json --trace '$T1' | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[\"how\"], d[\"model_calls\"])'"
expect_out "search: two requests" "2" requests
expect_out "search: events" "llm_request llm_response invalid_reply llm_request llm_response end" ev "$T1" '" ".join(e["event"] for e in E)'
expect_out "search: the repair is numbered" "[0, 1]" ev "$T1" '[e["repair"] for e in E if e["event"] == "llm_request"]'
expect_out "search: who called" "search_codebase" ev "$T1" 'E[0]["source"]'
expect_out "search: the end counts the calls" "True 2 1" ev "$T1" '"%s %s %s" % (E[-1]["ok"], E[-1]["calls"], E[-1]["repairs"])'
expect_out "search: the key is never written" "0" sh -c "grep -c -- '$KEY' '$T1'"
expect_out "search: not even a piece of it" "0" sh -c "grep -c -- 'secret-trace' '$T1'"
expect_out "search: the echoed key is masked" "True" ev "$T1" '"[redacted]" in E[1]["text"]'
llm_unserve

# ---- ask: tier 2, a query in one call ----
cat >"$TMP/arch.txt" <<'EOF'
```edn
{:mode :query
 :query {:fetch [{:tool :get_commits :as :commits :params {:since "1 week ago"}}]
         :return {:findings :commits :summary "{{count:commits}} commits"}}}
```
EOF
serve "$TMP/arch.txt"
T2="$TMP/ask.jsonl"
expect_out "ask: answered" "1 commits" sh -c "cd '$R' && '$Q' ask 'the commits of the past week please' --no-router --format json --trace '$T2' | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"summary\"])'"
expect_out "ask: one request" "1" requests
expect_out "ask: the model turn, the tool call, the end" "True" ev "$T2" 'all(x in [e["event"] for e in E] for x in ["question", "llm_request", "llm_response", "compile", "run", "tool", "answer"]) and E[-1]["event"] == "end"'
expect_out "ask: tokens are counted once, the same way" "True" ev "$T2" 'E[-1]["usage"]["tokens"] == sum(e["usage"]["tokens"] for e in E if e["event"] == "llm_response") > 0'
expect_out "ask: the architect called" "architect" ev "$T2" '[e["agent"] for e in E if e["event"] == "llm_request"][0]'
llm_unserve

# ---- quarry do: two turns ----
serve '{"text": "skeleton src/main.c"}' "{\"text\": \"done: main returns twice fact 3 ($KEY)\"}"
T3="$TMP/do.jsonl"
(cd "$R" && "$Q" do "what does main return" --trace "$T3" >"$TMP/do.out" 2>&1)
expect_out "do: exit 0" "0" echo $?
expect_out "do: two turns traced" "2 done" ev "$T3" '"%d %s" % (len([e for e in E if e["event"] == "turn"]), [e for e in E if e["event"] == "turn"][-1]["verb"])'
expect_out "do: each turn after its call" "llm_request llm_response turn llm_request llm_response turn end" ev "$T3" '" ".join(e["event"] for e in E)'
expect_out "do: the end" "True 2" ev "$T3" '"%s %s" % (E[-1]["ok"], E[-1]["calls"])'
expect_out "do: the key the model quoted is not printed" "0" grep -c -- "$KEY" "$TMP/do.out"
expect_out "do: it says it was redacted (the turn and the summary)" "2" grep -c "twice fact 3 (\[redacted\])" "$TMP/do.out"
llm_unserve

# ---- a memory agent run ----
mkdir -p "$TMP/mem/agents"
S="$TMP/mem/notes.db"
cat >"$TMP/notes.jsonl" <<'EOF'
{"key":"j1","type":"episodic","weight":0.5,"content":"alpha: we split the btree pages"}
{"key":"j2","type":"episodic","weight":0.5,"content":"beta: page cache misses doubled"}
EOF
"$Q" mem import "$TMP/notes.jsonl" --store "$S" >/dev/null || FAILS=$((FAILS + 1))
cat >"$TMP/mem/agents/linker.toml" <<'EOF'
[query]
pipeline = "all | type:episodic"
[prompt]
template = """
You are {{agent}}. Link the notes below that belong together.
{{nodes}}
"""
[execution]
actions = ["link-add"]
schedule = "daily"
EOF
cat >"$TMP/r1.txt" <<'EOF'
```json
[{"action": "link-add", "source": "j1", "target": "j2", "strength": 0.8}]
```
EOF
serve "$TMP/r1.txt"
T4="$TMP/mem.jsonl"
expect_rc "mem agent: exit 0" 0 "$Q" mem agent run linker --store "$S" --trace "$T4"
expect_out "mem agent: events" "llm_request llm_response mem_agent end" ev "$T4" '" ".join(e["event"] for e in E)'
expect_out "mem agent: what it did" "linker 2 1 1 2" ev "$T4" '" ".join(str(E[2][k]) for k in ["agent", "selected", "actions", "applied", "visits"])'
expect_out "mem agent: the source" "mem_agent" ev "$T4" 'E[0]["source"]'
llm_unserve

# ---- a flow run: two model calls, its own events through the same writer ----
cat > "$TMP/t.flow" <<'EOF'
model main = openai/scripted-model

prompt summarize: """Summarize: $data"""

flow main:
    data = input_prompt
    s = call llm summarize
    t = call llm summarize with s
    return s + " / " + t
EOF
serve '{"text": "one"}' '{"text": "two"}'
T5="$TMP/flow.jsonl"
expect_out "flow: answered" "one / two" "$Q" flow run "$TMP/t.flow" --input x --trace "$T5"
expect_out "flow: events" "flow llm_request llm_response llm_request llm_response done" ev "$T5" '" ".join(e["event"] for e in E)'
expect_out "flow: the source" "flow flow" ev "$T5" 'E[1]["source"] + " " + E[-1]["source"]'
llm_unserve

# ---- every line of the five traces against the schema ----
expect_out "all five traces validate against docs/trace.schema.json" "valid" python3 "$CHECK" "$SCHEMA" "$T1" "$T2" "$T3" "$T4" "$T5"
expect_out "no trace holds the key" "0" sh -c "cat '$T1' '$T2' '$T3' '$T4' '$T5' | grep -c -- '$KEY'"
# the checker is not a rubber stamp: a line missing a field or of a wrong type fails
head -1 "$T2" | sed 's/"t_ms":[0-9.]*,//' > "$TMP/bad1.jsonl"
expect_rc "the checker rejects a line without t_ms" 1 python3 "$CHECK" "$SCHEMA" "$TMP/bad1.jsonl"
grep '"event":"end"' "$T4" | sed 's/"ok":true/"ok":1/' > "$TMP/bad2.jsonl"
expect_err "the checker names the field" "bad2.jsonl:1: \$.ok: expected boolean" python3 "$CHECK" "$SCHEMA" "$TMP/bad2.jsonl"

# ---- a trace file that cannot be written: usage ----
expect_rc "ask: unwritable trace" 2 "$Q" ask "x" --repo "$R" --trace "$TMP/no/such/dir/t.jsonl"
expect_rc "tool: unwritable trace" 2 "$Q" tool search_codebase --repo "$R" --question "q" --trace "$TMP/no/such/dir/t.jsonl"
expect_err "mem agent: unwritable trace says which file" "cannot write the trace file" "$Q" mem agent run linker --store "$S" --dry-run --trace "$TMP/no/such/dir/t.jsonl"

finish
