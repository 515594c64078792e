# 19_lsp.sh: `quarry lsp` driven by a real LSP client from the npm registry
# (vscode-languageserver-protocol over vscode-jsonrpc, pinned in tests/lsp/package.json
# and its lock file; see tests/lsp/client_test.mjs for what is checked), then fed broken
# framing and bad JSON directly. The client is installed into tests/lsp/node_modules the
# first time (npm ci). Without node or npm the script exits 77 (ctest reports a skip).
. "$(dirname "$0")/lib.sh"

for tool in node npm python3; do
  if ! command -v $tool >/dev/null 2>&1; then
    echo "skipped: $tool is not installed (scripts/deps.sh --test installs it)"
    exit 77
  fi
done

LSPDIR="$SRC/tests/lsp"
npm_install "$LSPDIR" vscode-languageserver-protocol "the LSP client"

if ! node "$LSPDIR/client_test.mjs" "$Q" "$SRC/docs/examples" >"$TMP/node.out" 2>&1; then
  echo "FAIL: the LSP client test:"; sed 's/^/  /' "$TMP/node.out"
  FAILS=$((FAILS + 1))
else
  sed 's/^/  /' "$TMP/node.out"
fi

# hostile input straight on stdin: every answer is a well-framed JSON-RPC error, the
# server survives to answer the next request, and exits 1 without a shutdown
expect_out "bad framing and JSON" "-32700 -32700 -32002 0 -32601 1" python3 - "$Q" <<'PY'
import json, subprocess, sys
def frame(b):
    return b"Content-Length: %d\r\n\r\n" % len(b) + b
msgs = [b"Content-Type: nothing\r\n\r\n",                      # no Content-Length
        frame(b"{not json"),                                    # bad JSON
        frame(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": {}}).encode()),
        frame(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"capabilities": {}}}).encode()),
        frame(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "workspace/frobnicate"}).encode()),
        frame(b'{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"u","text":"flow main:\\n\\tx = [[[[("}}}'),
        frame(json.dumps({"jsonrpc": "2.0", "method": "exit"}).encode())]
p = subprocess.run([sys.argv[1], "lsp"], input=b"".join(msgs), capture_output=True, timeout=30)
out, codes = p.stdout, []
while out:
    head, _, rest = out.partition(b"\r\n\r\n")
    n = int(head.split(b":")[1])
    m = json.loads(rest[:n])
    out = rest[n:]
    if "error" in m:
        codes.append(str(m["error"]["code"]))
    elif m.get("id") == 2:
        codes.append("0")
print(" ".join(codes), p.returncode)
PY
finish
