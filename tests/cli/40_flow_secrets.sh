# 40_flow_secrets.sh: a flow never lets a configured secret out. The scripted model's
# reply quotes the API key: the run's stdout, its log lines on stderr and its trace show
# "[redacted]" instead. An MCP server over HTTP (quarry mcp behind tests/mcp/http_bridge.py)
# whose tool result holds the flow's bearer token (a commit message quoting it): the model
# is sent the result without it, and the trace has none. A key pasted into the timeout
# setting is not printed back in the configuration error.
. "$(dirname "$0")/lib.sh"
BRIDGE_PID=
unbridge() { [ -n "$BRIDGE_PID" ] && kill "$BRIDGE_PID" 2>/dev/null && wait "$BRIDGE_PID" 2>/dev/null; BRIDGE_PID=; }
trap 'llm_unserve; unbridge; rm -rf "$TMP"' EXIT

KEY=sk-test-0123456789abcdefSECRET
TOKEN=tok-0123456789abcdefBEARER
absent() { # absent WHAT SECRET FILE...
  what=$1 secret=$2; shift 2
  expect_out "$what" "0" sh -c "cat $* | grep -c -F '$secret'"
}

# ---- the key in the model's reply ----
llm_script "$TMP/s.json" "{\"text\": \"your key is $KEY, keep it\"}"
llm_serve "$TMP/s.json"
printf 'prompt p: """say it"""\nflow main:\n    y = call llm p\n    log "heard: " + y\n    return y\n' > "$TMP/echo.flow"
QUARRY_LLM_API_KEY=$KEY "$Q" flow run --trace "$TMP/trace.jsonl" "$TMP/echo.flow" >"$TMP/out" 2>"$TMP/err"
expect_out "key echoed: the run succeeds" "0" echo $?
absent "key echoed: not on stdout, stderr or in the trace" "$KEY" "$TMP/out" "$TMP/err" "$TMP/trace.jsonl"
absent "key echoed: no 8-character piece of it either" "0123456789abcdef" "$TMP/out" "$TMP/err" "$TMP/trace.jsonl"
expect_out "key echoed: stdout says it was redacted" "your key is [redacted], keep it" cat "$TMP/out"
expect_out "key echoed: the log line too" "1" grep -c "heard: your key is \[redacted\]" "$TMP/err"
llm_unserve

# ---- the bearer token in an MCP tool result ----
R="$TMP/repo"
mkdir -p "$R" && cd "$R" && git init -q . && git config user.email ann@example.com &&
  git config user.name Ann && git config commit.gpgsign false && echo a > a.txt && git add a.txt &&
  GIT_AUTHOR_DATE="2024-03-01 10:00:00 +0000" GIT_COMMITTER_DATE="2024-03-01 10:00:00 +0000" \
  git commit -qm "configure the server with $TOKEN" || exit 1
cd "$TMP"
rm -f "$TMP/bport"
python3 "$SRC/tests/mcp/http_bridge.py" --port-file "$TMP/bport" --log "$TMP/blog.jsonl" --token "$TOKEN" \
  -- "$Q" mcp --repo "$R" 2>"$TMP/bridge.err" &
BRIDGE_PID=$!
i=0
while [ ! -s "$TMP/bport" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
BPORT=$(cat "$TMP/bport" 2>/dev/null)
[ -n "$BPORT" ] || { echo "FAIL: the MCP bridge did not start"; cat "$TMP/bridge.err"; exit 1; }
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
llm_script "$TMP/s.json" '{"tool_calls": [{"name": "get_commits", "arguments": {"limit": 1}}]}' \
  '{"text": "done"}'
llm_serve "$TMP/s.json"
MCP_TOKEN=$TOKEN QUARRY_LLM_API_KEY=$KEY "$Q" flow run --trace "$TMP/trace2.jsonl" "$TMP/mcph.flow" \
  --input "newest?" >"$TMP/out2" 2>"$TMP/err2"
expect_out "token echoed: the run succeeds" "0 done" sh -c "echo $? \$(cat '$TMP/out2')"
expect_out "token echoed: the tool result reached the model" "1" \
  sh -c "grep -c 'configure the server with \[redacted\]' '$TMP/log.jsonl'"
absent "token echoed: not sent to the model, nor in the trace" "$TOKEN" "$TMP/log.jsonl" "$TMP/trace2.jsonl" "$TMP/out2" "$TMP/err2"
llm_unserve
unbridge

# ---- a key pasted into the wrong setting ----
QUARRY_LLM_TIMEOUT_MS=$KEY QUARRY_LLM_URL=http://127.0.0.1:9/v1 QUARRY_LLM_MODEL=m \
  "$Q" flow run "$TMP/echo.flow" >"$TMP/out3" 2>"$TMP/err3"
expect_out "a key as timeout: a configuration error (exit 2)" "2" echo $?
expect_out "a key as timeout: the error says what is wrong" "1" grep -c "QUARRY_LLM_TIMEOUT_MS must be an integer from 1 to 3600000" "$TMP/err3"
absent "a key as timeout: not printed back" "0123456789abcdef" "$TMP/out3" "$TMP/err3"
# ---- a secret passed to an MCP server's command with ${env:VAR} ----
cat > "$TMP/cmd.flow" <<'EOF'
tool box = mcp "stdio:///nonexistent/mcp-server --key ${env:BOX_KEY}"
agent main:
    tools box
    instruction p
prompt p: """use the box"""
EOF
BOX_KEY=$KEY "$Q" flow run --trace "$TMP/cmd.jsonl" "$TMP/cmd.flow" >"$TMP/cmd.out" 2>"$TMP/cmd.err"
expect_out "a server that cannot start: the run fails naming it" "1" grep -c "tool 'box': MCP server" "$TMP/cmd.err"
absent "the key in the server's command: not in the error or the trace" "$KEY" "$TMP/cmd.out" "$TMP/cmd.err" "$TMP/cmd.jsonl"
finish
