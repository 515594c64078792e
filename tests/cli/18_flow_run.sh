# 18_flow_run.sh: `quarry flow run` against the scripted model server (real HTTP over
# loopback, both wire formats), a repository built here with git, and quarry's own MCP
# server as an MCP tool. Checks: entry point rules, call llm (what is sent: prompt
# interpolation, `with`, JSON of structures), run agent with quarry's git tools through
# function calling (the tool results the model receives agree with git) in the OpenAI
# and the Anthropic format, the same through `quarry mcp` over stdio and over Streamable
# HTTP (tests/mcp/http_bridge.py: JSON and SSE answers, bearer token, session id), use,
# expecting Schema[] with validation and at most 3 retries, parallel do (concurrent:
# the server holds the answers until all three requests are in flight; results land in
# statement order; one failure fails the block with every error), budgets, the trace,
# and the pure parts of the language (for, if, filter, push, +, functions, return, log).
. "$(dirname "$0")/lib.sh"

if ! command -v git >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
  echo "FAIL: git and python3 are needed (scripts/deps.sh --test installs them)"
  exit 1
fi
export HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/home/.config" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_LLM_API_KEY \
  QUARRY_LLM_PROVIDER QUARRY_LLM_STREAM QUARRY_LLM_MAX_RETRIES QUARRY_LLM_TIMEOUT_MS
mkdir -p "$HOME"
export QUARRY_LLM_RETRY_BASE_MS=5 QUARRY_LLM_MAX_RETRIES=0

R="$TMP/repo"
git init -q -b main "$R"
for n in 1 2 3; do
  echo "line $n" >> "$R/file.txt"
  git -C "$R" add -A
  GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@example.com GIT_COMMITTER_NAME=Ann \
  GIT_COMMITTER_EMAIL=ann@example.com GIT_AUTHOR_DATE="2024-03-0$n 10:00:00 +0000" \
  GIT_COMMITTER_DATE="2024-03-0$n 10:00:00 +0000" git -C "$R" commit -q -m "Change number $n"
done

serve() { llm_serve "$1"; export QUARRY_LLM_API_KEY=sk-test-secret-123; }
unserve() { llm_unserve; }
trap 'unserve; rm -rf "$TMP"' EXIT

# script OUT STEP...: each STEP is a JSON object
script() { llm_script "$@"; }
# pylog EXPR: over the logged requests (`L`)
pylog() {
  python3 -c "import json,sys; L=[json.loads(l) for l in open(sys.argv[2])]; print($1)" "$1" "$TMP/log.jsonl" 2>&1 | tail -1
}
run() { # run OUT FILE ARGS...: quarry flow run in the repository; stdout to OUT
  out=$1; shift
  (cd "$R" && "$Q" flow run "$@") >"$out" 2>"$out.err"
  echo $? >"$out.rc"
}

# ---- pure flows: no model ----
cat > "$TMP/pure.flow" <<'EOF'
flow main:
    items = [{ name: "a", score: 90 }, { name: "b", score: 40 }, { name: "c", score: 85 }]
    high = filter items where .score >= 80
    names = []
    for it in high do
        push upper(it.name) to names
    end
    if len(names) == 2 and names contains "A":
        log "two high: " + join(names, "+")
    else:
        log "unexpected"
    report = { count: len(items), names: names + ["z"] }
    report.extra.deep = 7 * 6
    return report
EOF
run "$TMP/p1" "$TMP/pure.flow"
expect_out "pure: result" '{"count":3,"names":["A","C","z"],"extra":{"deep":42}}' cat "$TMP/p1"
expect_out "pure: log on stderr" "log: two high: A+C" cat "$TMP/p1.err"
expect_out "pure: ~ and arithmetic" 'true 2 2.5 abc' sh -c "printf 'flow main:\n    return str(\"**Yes!**\" ~ \" yes\") + \" \" + str(7 %% 5) + \" \" + str(5 / 2) + \" \" + lower(\"ABC\")\n' > '$TMP/p2.flow' && '$Q' flow run '$TMP/p2.flow'"
printf 'flow main:\n    x = 1 / 0\n' > "$TMP/div.flow"
expect_rc "runtime error: exit 1" 1 "$Q" flow run "$TMP/div.flow"
expect_err "runtime error: line" "quarry flow run: line 2: division by zero" "$Q" flow run "$TMP/div.flow"
expect_rc "a file with errors is not run" 1 "$Q" flow run "$SRC/docs/examples/broken.flow"
expect_err "not run: says why" "has 7 errors; nothing was run" "$Q" flow run "$SRC/docs/examples/broken.flow"
expect_rc "unreadable: exit 2" 2 "$Q" flow run "$TMP/none.flow"
printf 'flow a:\n    return 1\nflow b:\n    return 2\n' > "$TMP/two.flow"
expect_err "entry: several flows, no main" "several flows and none called 'main'" "$Q" flow run "$TMP/two.flow"
expect_out "entry: --flow" "2" "$Q" flow run "$TMP/two.flow" --flow b
printf 'flow main:\n    x = input_prompt + "!"\n    run b\n    return y\nflow b:\n    y = x + "?"\n' > "$TMP/shared.flow"
expect_out "run FLOW shares the context" "hi!?" "$Q" flow run "$TMP/shared.flow" --input hi

# ---- call llm: both wire formats, interpolation, with ----
for provider in openai anthropic; do
  cat > "$TMP/call.flow" <<EOF
model main = $provider/scripted-model

prompt summarize: """Summarize for \$who: \$data"""
prompt judge: """You judge summaries."""

flow main:
    who = input_prompt
    data = { files: ["a.c", "b.c"], count: 2 }
    s = call llm summarize
    verdict = call llm judge with s
    return s + " / " + verdict
EOF
  script "$TMP/s.json" '{"text": "two files changed"}' '{"text": "good"}'
  serve "$TMP/s.json"
  run "$TMP/c_$provider" "$TMP/call.flow" --input Ann
  unserve
  expect_out "$provider: call llm result" "two files changed / good" cat "$TMP/c_$provider"
  if [ $provider = openai ]; then
    expect_out "$provider: endpoint" "/v1/chat/completions" pylog 'L[0]["path"]'
    expect_out "$provider: interpolation, JSON of objects" 'Summarize for Ann: {"files":["a.c","b.c"],"count":2}' pylog 'L[0]["body"]["messages"][0]["content"]'
    expect_out "$provider: with: prompt as system" "You judge summaries.|two files changed" pylog 'L[1]["body"]["messages"][0]["content"] + "|" + L[1]["body"]["messages"][1]["content"]'
  else
    expect_out "$provider: endpoint" "/v1/messages" pylog 'L[0]["path"]'
    expect_out "$provider: interpolation, JSON of objects" 'Summarize for Ann: {"files":["a.c","b.c"],"count":2}' pylog 'L[0]["body"]["messages"][0]["content"]'
    expect_out "$provider: with: prompt as system" "You judge summaries.|two files changed" pylog 'L[1]["body"]["system"][0]["text"] + "|" + L[1]["body"]["messages"][0]["content"]'
  fi
  expect_out "$provider: model name from the file" "scripted-model" pylog 'L[0]["body"]["model"]'
  expect_out "$provider: key never in the log body" "False" pylog '"sk-test-secret" in json.dumps([l.get("body") for l in L])'
done

# ---- run agent with quarry's git tools (function calling), both formats ----
for provider in openai anthropic; do
  cat > "$TMP/agent.flow" <<EOF
model main = $provider/scripted-model

prompt historian_instruction: """You answer questions about the history of a repository."""
prompt ask_history: """\$question"""

agent historian:
    tools git
    instruction historian_instruction
    prompt ask_history
    produces answer

flow main:
    question = input_prompt
    run agent historian
    return answer
EOF
  script "$TMP/s.json" \
    '{"text": "Let me look.", "tool_calls": [{"name": "get_commits", "arguments": {"limit": 2}}]}' \
    '{"text": "The last change is Change number 3."}'
  serve "$TMP/s.json"
  run "$TMP/a_$provider" "$TMP/agent.flow" --input "what changed last?" --trace "$TMP/trace_$provider.jsonl"
  unserve
  expect_out "$provider agent: answer" "The last change is Change number 3." cat "$TMP/a_$provider"
  expect_out "$provider agent: two turns" "2" pylog 'len(L)'
  if [ $provider = openai ]; then
    expect_out "$provider agent: tools offered" "True" pylog '"get_commits" in [t["function"]["name"] for t in L[0]["body"]["tools"]]'
    expect_out "$provider agent: no write tools" "False" pylog 'any(t["function"]["name"].startswith("memory_add") for t in L[0]["body"]["tools"])'
    expect_out "$provider agent: tool result from git" "['Change number 3', 'Change number 2']" pylog '[c["subject"] for c in json.loads([m for m in L[1]["body"]["messages"] if m["role"] == "tool"][0]["content"])]'
    expect_out "$provider agent: call id echoed" "True" pylog '[m for m in L[1]["body"]["messages"] if m["role"] == "tool"][0]["tool_call_id"] == L[1]["body"]["messages"][-2]["tool_calls"][0]["id"]'
  else
    expect_out "$provider agent: tools offered" "True" pylog '"get_commits" in [t["name"] for t in L[0]["body"]["tools"]]'
    expect_out "$provider agent: tool result from git" "['Change number 3', 'Change number 2']" pylog '[c["subject"] for c in json.loads(L[1]["body"]["messages"][-1]["content"][0]["content"])]'
    expect_out "$provider agent: tool_use echoed" "tool_use get_commits" pylog '" ".join([L[1]["body"]["messages"][1]["content"][1]["type"], L[1]["body"]["messages"][1]["content"][1]["name"]])'
  fi
  expect_out "$provider agent: instruction is the system text" "True" pylog '"history of a repository" in json.dumps(L[0]["body"])'
  expect_out "$provider trace: events" "flow llm_request llm_response tool llm_request llm_response done" python3 -c '
import json, sys
print(" ".join(json.loads(l)["event"] for l in open(sys.argv[1])))' "$TMP/trace_$provider.jsonl"
  expect_out "$provider trace: no key" "0" sh -c "grep -c sk-test-secret '$TMP/trace_$provider.jsonl'"
done

# ---- the same agent through quarry's own MCP server (stdio) ----
cat > "$TMP/mcp.flow" <<EOF
model main = anthropic/scripted-model

tool history = mcp "stdio:'$Q' mcp --repo '$R'"

prompt historian_instruction: """You answer questions about the history of a repository."""

agent historian:
    tools history
    instruction historian_instruction

flow main:
    return run agent historian with input_prompt
EOF
script "$TMP/s.json" \
  '{"tool_calls": [{"name": "get_commits", "arguments": {"limit": 1}}]}' \
  '{"text": "Change number 3 is the newest."}'
serve "$TMP/s.json"
run "$TMP/m1" "$TMP/mcp.flow" --input "newest commit?"
unserve
expect_out "mcp agent: answer" "Change number 3 is the newest." cat "$TMP/m1"
expect_out "mcp agent: tools listed by the server" "True" pylog '"get_commits" in [t["name"] for t in L[0]["body"]["tools"]]'
expect_out "mcp agent: result from quarry mcp" "True" pylog '"Change number 3" in L[1]["body"]["messages"][-1]["content"][0]["content"]'

# ---- the same over MCP's Streamable HTTP (quarry mcp behind an HTTP bridge) ----
BRIDGE_PID=
bridge() { # bridge ARGS...: starts tests/mcp/http_bridge.py in front of quarry mcp
  rm -f "$TMP/bport" "$TMP/blog.jsonl"
  python3 "$SRC/tests/mcp/http_bridge.py" --port-file "$TMP/bport" --log "$TMP/blog.jsonl" "$@" \
    -- "$Q" mcp --repo "$R" 2>"$TMP/bridge.err" &
  BRIDGE_PID=$!
  i=0
  while [ ! -s "$TMP/bport" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
  BPORT=$(cat "$TMP/bport" 2>/dev/null)
  [ -n "$BPORT" ] || { echo "FAIL: the MCP bridge did not start"; cat "$TMP/bridge.err"; exit 1; }
}
unbridge() { [ -n "$BRIDGE_PID" ] && kill "$BRIDGE_PID" 2>/dev/null && wait "$BRIDGE_PID" 2>/dev/null; BRIDGE_PID=; }
trap 'unserve; unbridge; rm -rf "$TMP"' EXIT
for mode in json sse; do
  if [ $mode = sse ]; then bridge --sse --token "tok-$mode"; else bridge --token "tok-$mode"; fi
  cat > "$TMP/mcph.flow" <<EOF
model main = openai/scripted-model

tool history = mcp "http://127.0.0.1:$BPORT/mcp" with auth bearer "\${env:MCP_TOKEN}"

prompt historian_instruction: """You answer questions about the history of a repository."""

agent historian:
    tools history
    instruction historian_instruction

flow main:
    return run agent historian with input_prompt
EOF
  script "$TMP/s.json" \
    '{"tool_calls": [{"name": "get_commits", "arguments": {"limit": 1}}]}' \
    '{"text": "Change number 3, over HTTP."}'
  serve "$TMP/s.json"
  (export MCP_TOKEN="tok-$mode"; run "$TMP/h_$mode" "$TMP/mcph.flow" --input "newest?")
  unserve
  expect_out "mcp http $mode: answer" "Change number 3, over HTTP." cat "$TMP/h_$mode"
  expect_out "mcp http $mode: result from quarry mcp" "True" pylog '"Change number 3" in [m for m in L[1]["body"]["messages"] if m["role"] == "tool"][0]["content"]'
  expect_out "mcp http $mode: session and token sent" "True True" python3 -c '
import json, sys
L = [json.loads(l) for l in open(sys.argv[1])]
print(all(l["headers"].get("authorization") == "Bearer " + sys.argv[2] for l in L),
      all("mcp-session-id" in l["headers"] for l in L[1:]))' "$TMP/blog.jsonl" "tok-$mode"
  # a wrong token: a clear error
  script "$TMP/s.json" '{"text": "unused"}'
  serve "$TMP/s.json"
  (export MCP_TOKEN=wrong; run "$TMP/hw_$mode" "$TMP/mcph.flow" --input "newest?")
  unserve
  unbridge
  expect_out "mcp http $mode: refused" "True" python3 -c 'import sys; print("refused the credentials (HTTP 401)" in open(sys.argv[1]).read())' "$TMP/hw_$mode.err"
done

# ---- use and delegate ----
cat > "$TMP/use.flow" <<'EOF'
model main = openai/scripted-model

prompt lead_i: """You lead."""
prompt helper_i: """You help."""

agent helper:
    instruction helper_i
    description "answers small questions"

agent lead:
    instruction lead_i
    use helper

flow main:
    return run agent lead with "go"
EOF
script "$TMP/s.json" \
  '{"match": "You lead", "tool_calls": [{"name": "helper", "arguments": {"input": "what is 2+2?"}}]}' \
  '{"match": "You help", "text": "4"}' \
  '{"match": "You lead", "text": "the helper says 4"}'
serve "$TMP/s.json"
run "$TMP/u1" "$TMP/use.flow"
unserve
expect_out "use: answer" "the helper says 4" cat "$TMP/u1"
expect_out "use: helper got the input" "what is 2+2?" pylog '[l for l in L if "You help" in json.dumps(l["body"])][0]["body"]["messages"][-1]["content"]'
expect_out "use: helper's answer returned" "4" pylog '[m for m in L[-1]["body"]["messages"] if m["role"] == "tool"][0]["content"]'

# ---- expecting Schema[]: validation and retries ----
cat > "$TMP/schema.flow" <<'EOF'
model main = openai/scripted-model

schema Finding:
    file: string
    line: int
    confidence: int

prompt find expecting Finding[]: """Find problems in $input_prompt"""

flow main:
    findings = call llm find
    sure = filter findings where .confidence >= 80
    return len(findings) + " found, " + len(sure) + " sure: " + sure[0].file
EOF
# sure[0] is not the syntax: the checker says so
expect_rc "index syntax is an error" 1 "$Q" flow check "$TMP/schema.flow"
sed -i 's/sure\[0\].file/first(sure).file/' "$TMP/schema.flow"
script "$TMP/s.json" \
  '{"text": "Here you go: not json"}' \
  '{"text": "[{\"file\": \"a.c\", \"line\": \"ten\", \"confidence\": 90}]"}' \
  '{"text": "```json\n[{\"file\": \"a.c\", \"line\": 10, \"confidence\": 90}, {\"file\": \"b.c\", \"line\": 2, \"confidence\": 20}]\n```"}'
serve "$TMP/s.json"
run "$TMP/sc1" "$TMP/schema.flow" --input "x.c"
unserve
expect_out "schema: valid on the third try" "2 found, 1 sure: a.c" cat "$TMP/sc1"
expect_out "schema: three calls" "3" pylog 'len(L)'
expect_out "schema: the format is asked for" "True" pylog '"JSON array of objects" in L[0]["body"]["messages"][0]["content"]'
expect_out "schema: the reason is sent back" "True" pylog '"[0].line should be an integer" in L[2]["body"]["messages"][-1]["content"]'
# every problem of a reply in one retry (issue 24: one a round trip cost a retry each)
script "$TMP/s.json" \
  '{"text": "[{\"file\": \"a.c\", \"line\": \"ten\", \"confidence\": 90}, {\"file\": 3, \"line\": 2, \"confidence\": \"high\"}, {\"line\": 1, \"confidence\": 5}]"}' \
  '{"text": "[{\"file\": \"a.c\", \"line\": 10, \"confidence\": 90}]"}'
serve "$TMP/s.json"
run "$TMP/sc3" "$TMP/schema.flow" --input "x.c"
unserve
expect_out "schema: all errors at once: one retry" "1 found, 1 sure: a.c|2" sh -c "printf '%s|' \"\$(cat '$TMP/sc3')\"; python3 -c 'import json,sys; print(len(open(sys.argv[1]).readlines()))' '$TMP/log.jsonl'"
expect_out "schema: all errors at once: the message" "[0].line should be an integer; [1].file should be a string; [1].confidence should be an integer; field '[2].file' is missing" \
  pylog 'L[1]["body"]["messages"][-1]["content"].split(": ", 1)[1].rsplit(". Reply again", 1)[0]'
script "$TMP/s.json" '{"text": "no"}' '{"text": "no"}' '{"text": "no"}' '{"text": "no"}' '{"text": "no"}'
serve "$TMP/s.json"
run "$TMP/sc2" "$TMP/schema.flow" --input "x.c"
unserve
expect_out "schema: fails after 3 retries" "1" cat "$TMP/sc2.rc"
expect_out "schema: 4 calls, no more" "4" pylog 'len(L)'
expect_out "schema: clear error" "quarry flow run: line 11: call llm find: the reply does not match 'Finding[]' after 3 retries: the reply is not JSON" sh -c "cut -d: -f1-6 '$TMP/sc2.err' | sed 's/: expected.*//;s/: unexpected.*//' | head -1 | cut -c1-133"

# ---- parallel do: concurrent, statement order, all errors ----
cat > "$TMP/par.flow" <<'EOF'
model main = openai/scripted-model

prompt ins: """You review for $topic."""
prompt sec: """security"""
prompt perf: """performance"""
prompt style: """style"""

agent reviewer:
    instruction ins

flow main:
    topic = "bugs"
    parallel do
        a = run agent reviewer with sec
        b = run agent reviewer with perf
        c = run agent reviewer with style
    end
    return [a, b, c]
EOF
script "$TMP/s.json" \
  '{"match": "style", "wait_for": 3, "text": "S"}' \
  '{"match": "performance", "wait_for": 3, "text": "P"}' \
  '{"match": "security", "wait_for": 3, "text": "X"}'
serve "$TMP/s.json"
run "$TMP/par1" "$TMP/par.flow" --workers 3
unserve
expect_out "parallel: statement order" '["X","P","S"]' cat "$TMP/par1"
expect_out "parallel: the three were in flight at once" "0" sh -c "grep -c 'barrier not reached' '$TMP/par1.err'"
script "$TMP/s.json" \
  '{"match": "style", "status": 500, "text": "style broke"}' \
  '{"match": "performance", "text": "P"}' \
  '{"match": "security", "status": 500, "text": "security broke"}'
serve "$TMP/s.json"
run "$TMP/par2" "$TMP/par.flow"
unserve
expect_out "parallel: failure exit 1" "1" cat "$TMP/par2.rc"
expect_out "parallel: every error" "2 of 3 security broke style broke" python3 -c '
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"\((\d) of (\d) statements\)", t)
print(m.group(1), "of", m.group(2), "security broke" if "security broke" in t else "", "style broke" if "style broke" in t else "")' "$TMP/par2.err"

# ---- budgets ----
script "$TMP/s.json" '{"text": "one"}' '{"text": "two"}'
serve "$TMP/s.json"
run "$TMP/b1" "$TMP/call.flow" --input Ann --max-calls 1
unserve
expect_out "budget: calls" "quarry flow run: line 10: the budget of 1 model calls is spent" cat "$TMP/b1.err"
expect_out "budget: one request only" "1" pylog 'len(L)'
script "$TMP/s.json" '{"text": "one", "usage": {"input": 500, "output": 600}}' '{"text": "two"}'
serve "$TMP/s.json"
run "$TMP/b2" "$TMP/call.flow" --input Ann --max-tokens 1000
unserve
expect_out "budget: tokens" "quarry flow run: line 10: the budget of 1000 tokens is spent" cat "$TMP/b2.err"
script "$TMP/s.json" '{"tool_calls": [{"name": "get_commits", "arguments": {}}]}' '{"tool_calls": [{"name": "get_commits", "arguments": {}}]}' '{"tool_calls": [{"name": "get_commits", "arguments": {}}]}'
serve "$TMP/s.json"
run "$TMP/b3" "$TMP/agent.flow" --input "?" --max-turns 2
unserve
expect_out "budget: turns" "quarry flow run: line 14: agent 'historian' did not answer within 2 turns" cat "$TMP/b3.err"

# ---- no model configured ----
unset QUARRY_LLM_URL QUARRY_LLM_MODEL
run "$TMP/nm" "$TMP/call.flow" --input Ann
expect_out "no model: exit 1" "1" cat "$TMP/nm.rc"
expect_out "no model: says how" "True" python3 -c 'import sys; print("QUARRY_LLM_URL" in open(sys.argv[1]).read())' "$TMP/nm.err"
finish
