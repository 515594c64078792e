# 47_flow_mcp_subset.sh: an agent takes some tools of an MCP server (`tools repo.dwim`,
# `tools repo.get_commits, repo.dwim`) and only their schemas are sent to the model.
# quarry's own MCP server over stdio is the server; the scripted model server logs the
# requests, whose sizes the test prints (the figure issue 24 asks for) and compares.
. "$(dirname "$0")/lib.sh"

if ! command -v git >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
  echo "FAIL: git and python3 are needed (scripts/deps.sh --test installs them)"
  exit 1
fi
export HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/home/.config" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_LLM_API_KEY \
  QUARRY_LLM_PROVIDER QUARRY_LLM_STREAM
mkdir -p "$HOME"
export QUARRY_LLM_RETRY_BASE_MS=5 QUARRY_LLM_MAX_RETRIES=0 QUARRY_LLM_API_KEY=sk-test

R="$TMP/repo"
git init -q -b main "$R"
echo one > "$R/a.txt"
git -C "$R" add -A
GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@example.com GIT_COMMITTER_NAME=Ann \
  GIT_COMMITTER_EMAIL=ann@example.com git -C "$R" commit -q -m "First change"

pylog() {
  python3 -c "import json,sys; L=[json.loads(l) for l in open(sys.argv[2])]; print($1)" "$1" "$TMP/log.jsonl" 2>&1 | tail -1
}
# flow TOOLS: a fetcher agent with that tools line, over quarry's MCP server
flow() {
  cat > "$TMP/f.flow" <<EOF2
model main = openai/scripted-model

tool repo = mcp "stdio:'$Q' mcp --repo '$R'"

prompt fetcher_instruction: """You fetch facts about the repository with the tools."""

agent fetcher:
    tools $1
    instruction fetcher_instruction

flow main:
    return run agent fetcher with input_prompt
EOF2
}
# size: characters of the first request's body, and of its tool schemas
size() { pylog 'str(len(json.dumps(L[0]["body"]))) + " " + str(len(json.dumps(L[0]["body"].get("tools", []))))'; }

run_with() { # run_with TOOLS: one tool call of get_commits, then the answer
  flow "$1"
  llm_script "$TMP/s.json" \
    '{"tool_calls": [{"name": "get_commits", "arguments": {"limit": 1}}]}' \
    '{"text": "First change."}'
  llm_serve "$TMP/s.json"
  (cd "$R" && "$Q" flow run "$TMP/f.flow" --input "newest commit?") >"$TMP/out" 2>"$TMP/err"
  echo $? >"$TMP/rc"
  llm_unserve
}

run_with "repo"
expect_out "whole server: answer" "First change." cat "$TMP/out"
all=$(pylog 'len(L[0]["body"]["tools"])')
set -- $(size)
whole_body=$1 whole_tools=$2

run_with "repo.get_commits"
expect_out "one tool: answer" "First change." cat "$TMP/out"
expect_out "one tool: only its schema is sent" "get_commits" pylog '" ".join(t["function"]["name"] for t in L[0]["body"]["tools"])'
expect_out "one tool: the call reaches the server" "True" pylog '"First change" in json.dumps(L[1]["body"]["messages"][-1])'
set -- $(size)
one_body=$1 one_tools=$2

run_with "repo.get_commits, repo.get_file_stats"
expect_out "a list: both schemas, nothing else" "get_commits get_file_stats" pylog '" ".join(t["function"]["name"] for t in L[0]["body"]["tools"])'

echo "request size, first turn: whole server ($all tools) $whole_body chars ($whole_tools of tool schemas);" \
  "tools repo.get_commits: $one_body chars ($one_tools of tool schemas)"
expect_out "a subset makes the request smaller" "yes" sh -c "[ $one_body -lt $whole_body ] && [ $all -gt 1 ] && echo yes"

# a tool the server does not have: the run fails and names it
flow "repo.get_comits"
llm_script "$TMP/s.json" '{"text": "unused"}'
llm_serve "$TMP/s.json"
expect_err "unknown tool of the server: named" "the MCP server 'repo' has no tool 'get_comits'" \
  sh -c "cd '$R' && '$Q' flow run '$TMP/f.flow' --input x"
llm_unserve

finish
