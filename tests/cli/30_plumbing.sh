#!/bin/sh
# 30_plumbing.sh: the shared plumbing (issue 21, part 6) seen from the command line: a
# check command a repository configures runs with a scrubbed environment (no key of ours
# reaches it, PATH does); the statistics index and the code index of a newer schema are
# refused with a message saying to upgrade and left as they are, while an older one is
# rebuilt; the language server and the MCP server answer an oversized or badly framed
# message with one error and go on. Framing, runner and store are unit-tested in
# tests/unit/test_jsonrpc.c, test_proc.c and test_store.c.
. "$(dirname "$0")/lib.sh"

if ! command -v git >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
  echo "skipped: git or python3 is not installed"
  exit 77
fi
export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE QUARRY_LLM_URL QUARRY_LLM_MODEL
mkdir -p "$HOME"
R="$TMP/repo"
git init -q -b main "$R"
git -C "$R" config user.name T
git -C "$R" config user.email t@example.com
printf 'int one(void) { return 1; }\n' > "$R/a.c"
git -C "$R" add a.c
git -C "$R" commit -q -m "first"
printf 'int two(void) { return 2; }\n' >> "$R/a.c"
git -C "$R" commit -q -am "second"

# ---- a configured check command sees no key of ours ----
printf 'check = ["sh", "-c", "env; exit 3"]\n' > "$R/.quarry.toml"
(cd "$R" && QUARRY_LLM_API_KEY=sk-plumbing-secret OPENAI_API_KEY=sk-other-secret \
  GIT_DIR=/elsewhere "$Q" dwim validate) > "$TMP/validate.out" 2>&1
grep -q '^sh -c env; exit 3: failed (exit 3)' "$TMP/validate.out" || { echo "FAIL: validate ran the check"; cat "$TMP/validate.out"; FAILS=$((FAILS + 1)); }
grep -q '^PATH=' "$TMP/validate.out" || { echo "FAIL: validate: PATH passed"; FAILS=$((FAILS + 1)); }
if grep -q 'secret\|GIT_DIR' "$TMP/validate.out"; then
  echo "FAIL: a key or GIT_DIR reached the check command"; FAILS=$((FAILS + 1))
fi
rm "$R/.quarry.toml"

# ---- stores: a newer schema is refused and left as it is; an older one is rebuilt ----
G="$R/.git/quarry"
expect_rc "index" 0 "$Q" index --repo "$R"
pragma() { python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); r=c.execute(sys.argv[2]).fetchone(); c.commit(); print(r[0] if r else '')" "$@"; }
pragma "$G/index.db" "PRAGMA user_version = 99" >/dev/null
expect_rc "index of a newer schema: refused" 1 "$Q" index --repo "$R"
expect_err "index of a newer schema: the message" "has schema version 99, newer than this quarry reads" "$Q" index --repo "$R"
expect_out "index of a newer schema: left as it is" "99" pragma "$G/index.db" "PRAGMA user_version"
expect_out "no broken copy made" "0" sh -c "ls '$G' | grep -c 'index.db.broken-'"
pragma "$G/index.db" "PRAGMA user_version = 1" >/dev/null
expect_rc "index of an older schema: rebuilt" 0 "$Q" index --repo "$R"
expect_out "older schema moved aside" "1" sh -c "ls '$G' | grep -c 'index.db.broken-'"

expect_rc "code index" 0 "$Q" code index --repo "$R"
pragma "$G/code.db" "PRAGMA user_version = 99" >/dev/null
expect_err "code index of a newer schema: refused" "code index '$G/code.db' has schema version 99, newer than this quarry reads" "$Q" code index --repo "$R"
expect_out "code index of a newer schema: left as it is" "99" pragma "$G/code.db" "PRAGMA user_version"
pragma "$G/code.db" "PRAGMA user_version = 1" >/dev/null
expect_rc "code index of an older schema: rebuilt" 0 "$Q" code index --repo "$R"

# ---- framing: one error for a bad message, then the next is answered ----
expect_out "lsp: duplicated and conflicting Content-Length" "-32700 -32700 0" python3 - "$Q" <<'PY'
import json, subprocess, sys
def frame(b):
    return b"Content-Length: %d\r\n\r\n" % len(b) + b
init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}).encode()
msgs = [b"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
        b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
        frame(init), frame(b'{"jsonrpc":"2.0","method":"exit"}')]
p = subprocess.run([sys.argv[1], "lsp"], input=b"".join(msgs), capture_output=True, timeout=30)
out, codes = p.stdout, []
while out:
    head, _, rest = out.partition(b"\r\n\r\n")
    n = int(head.split(b":")[1])
    m = json.loads(rest[:n])
    out = rest[n:]
    codes.append(str(m["error"]["code"]) if "error" in m else "0" if m.get("id") == 1 else "?")
print(" ".join(codes))
PY
expect_out "mcp: a line over the cap, then the next" "-32600 7 ok 8" python3 - "$Q" <<'PY'
import json, subprocess, sys
init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
big = {"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"x": "a" * 2000}}
lines = [init, {"jsonrpc": "2.0", "method": "notifications/initialized"}, big, {"jsonrpc": "2.0", "id": 8, "method": "ping"}]
data = "".join(json.dumps(m) + "\n" for m in lines).encode()
p = subprocess.run([sys.argv[1], "mcp", "--max-message", "1000"], input=data, capture_output=True, timeout=30)
out = {m.get("id"): m for m in map(json.loads, p.stdout.splitlines())}
print(out[7]["error"]["code"], out[7]["id"], "ok" if out[8]["result"] == {} else "?", out[8]["id"])
PY
finish
