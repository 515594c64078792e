# 30_mcp_caps.sh: what `quarry mcp` lets a client do (docs/capabilities.md), with the
# official MCP SDK client over stdio and Streamable HTTP (tests/mcp/caps_client_test.mjs):
# memory writes only with --allow-write memory (refused naming the flag without it), and
# issue 21's reproducer: a repository whose .quarry.toml has check = "touch FILE", where an
# MCP call of dwim {"line": "validate"} must create nothing unless --allow-exec was given.
# Then the options themselves: a bad --allow-write value is a usage error naming what is
# accepted, and --help documents both flags.
. "$(dirname "$0")/lib.sh"

for tool in git node npm; do
  if ! command -v $tool >/dev/null 2>&1; then
    echo "skipped: $tool is not installed (the MCP SDK test needs git, node and npm)"
    exit 77
  fi
done

MCPDIR="$SRC/tests/mcp"
npm_install "$MCPDIR" @modelcontextprotocol/sdk "the MCP SDK"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY QUARRY_MEMORY
mkdir -p "$HOME"

R="$TMP/repo"
PWNED="$TMP/pwned"
git init -q -b main "$R"
printf 'hello\n' > "$R/README"
printf 'check = "touch %s"\n' "$PWNED" > "$R/.quarry.toml"
git -C "$R" add -A
GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@example.com GIT_AUTHOR_DATE=2024-03-01T10:00:00Z \
GIT_COMMITTER_NAME=Ann GIT_COMMITTER_EMAIL=ann@example.com GIT_COMMITTER_DATE=2024-03-01T10:00:00Z \
  git -C "$R" -c commit.gpgsign=false commit -q -m "Start"
mkdir -p "$TMP/stores"

if ! node "$MCPDIR/caps_client_test.mjs" "$Q" "$R" "$TMP/stores" "$PWNED" >"$TMP/node.out" 2>&1; then
  echo "FAIL: the MCP SDK capability test:"; sed 's/^/  /' "$TMP/node.out"
  FAILS=$((FAILS + 1))
else
  sed 's/^/  /' "$TMP/node.out"
fi
expect_out "the reproducer left no file behind" "absent" sh -c "[ -e '$PWNED' ] && echo present || echo absent"

# `quarry do`: the tool lines a model writes get no memory writes either (the line is not
# a tool the loop knows, and the store is not even created), while a person's
# `quarry tool` may write
if command -v python3 >/dev/null 2>&1; then
  python3 -c 'import json,sys; json.dump({"responses":[{"text":"memory_add key=x content=y"},{"text":"done: gave up"}]}, open(sys.argv[1],"w"))' "$TMP/do.json"
  llm_serve "$TMP/do.json"
  trap 'llm_unserve; rm -rf "$TMP"' EXIT
  export QUARRY_LLM_MAX_RETRIES=0
  expect_out "do: a model's memory_add is not run" "0" sh -c "cd '$R' && QUARRY_MEMORY='$TMP/do.db' '$Q' do 'remember x' 2>&1 | grep -c 'added'"
  llm_unserve
  expect_out "do: no store was made" "absent" sh -c "[ -e '$TMP/do.db' ] && echo present || echo absent"
  expect_out "tool: a person may write" '{"added":"x"}' "$Q" tool memory_add --store "$TMP/do.db" --key x --format json
fi

expect_rc "--allow-write with an unknown store" 2 "$Q" mcp --allow-write memory,files
expect_err "--allow-write names what it accepts" "quarry mcp: bad --allow-write 'memory,files': unknown store 'files'; expected memory" "$Q" mcp --allow-write memory,files
expect_rc "--allow-write needs a value" 2 "$Q" mcp --allow-write
expect_out "--help: --allow-write" "1" sh -c "\"$Q\" mcp --help | grep -c '^  --allow-write WHAT'"
expect_out "--help: --allow-exec" "1" sh -c "\"$Q\" mcp --help | grep -c '^  --allow-exec'"
finish
