# 16_mcp_options.sh: `quarry mcp` checks its options before it serves: a --repo that is no
# repository is refused at start (exit 2), not reported to the model on its first call,
# and the sandbox limits are the same options, with the same checks, as `quarry lisp`'s.
. "$(dirname "$0")/lib.sh"

mkdir "$TMP/notrepo"
expect_rc "mcp --repo on a directory that is no repository" 2 "$Q" mcp --repo "$TMP/notrepo"
expect_err "mcp --repo names the directory" "bad --repo '$TMP/notrepo'" \
  "$Q" mcp --repo "$TMP/notrepo"
expect_rc "mcp --max-steps 0" 2 "$Q" mcp --max-steps 0
expect_err "mcp --max-steps 0 says what is wrong" "bad --max-steps '0'" "$Q" mcp --max-steps 0
expect_err "lisp --max-steps 0 says the same" "bad --max-steps '0'" "$Q" lisp --max-steps 0 -e 1
expect_rc "mcp --max-depth needs a value" 2 "$Q" mcp --max-depth
expect_rc "mcp --bogus" 2 "$Q" mcp --bogus
if command -v git >/dev/null 2>&1; then
  git init -q "$TMP/repo"
  # every limit accepted; the server reads the client's messages until end of input
  expect_rc "mcp with every limit option serves" 0 sh -c \
    "\"$Q\" mcp --repo \"$TMP/repo\" --max-steps 1000 --max-depth 50 --max-output 4K \
      --timeout-ms 100 --max-memory 8M </dev/null"
  # a program over the step limit given to mcp ends with the limit's error
  printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_lisp","arguments":{"program":"(loop [i 0] (recur (inc i)))"}}}' \
    >"$TMP/in.jsonl"
  "$Q" mcp --repo "$TMP/repo" --max-steps 1000 <"$TMP/in.jsonl" >"$TMP/out.jsonl" 2>"$TMP/err"
  if ! grep -q 'step-limit: step limit of 1000' "$TMP/out.jsonl"; then
    echo "FAIL: run_lisp under mcp --max-steps 1000 did not stop at the step limit"
    sed 's/^/  /' "$TMP/out.jsonl" "$TMP/err"
    FAILS=$((FAILS + 1))
  fi
fi
finish
