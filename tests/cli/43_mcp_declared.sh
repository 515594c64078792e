# 43_mcp_declared.sh: every method the MCP server declares answers (issue 24): for each
# capability initialize declares, the methods the MCP 2025-11-25 specification defines
# for it (written from the specification: tools -> tools/list, tools/call; resources ->
# resources/list, resources/read, resources/templates/list, and subscribe/unsubscribe
# when `subscribe` is declared; prompts -> prompts/list, prompts/get; logging ->
# logging/setLevel; completions -> completion/complete) are called, and none may answer
# -32601 (method not found). The instructions cover the history, code and memory tools
# and name every tool served; `quarry mcp --help` lists the tools tools/list serves.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
git init -q -b main "$R"
git -C "$R" config user.name Ann; git -C "$R" config user.email ann@example.com
git -C "$R" config commit.gpgsign false
echo 'int main(void) { return 0; }' > "$R/m.c"
git -C "$R" add m.c
git -C "$R" commit -q -m "Add main"

cat > "$TMP/drive.py" <<'EOF'
import json, subprocess, sys
q, repo = sys.argv[1], sys.argv[2]
p = subprocess.Popen([q, "mcp", "--repo", repo], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     text=True)
n = 0
def call(method, params=None):
    global n
    n += 1
    msg = {"jsonrpc": "2.0", "id": n, "method": method}
    if params is not None:
        msg["params"] = params
    p.stdin.write(json.dumps(msg) + "\n"); p.stdin.flush()
    while True:
        r = json.loads(p.stdout.readline())
        if r.get("id") == n:
            return r
init = call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "t", "version": "1"}})["result"]
p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
caps = init["capabilities"]
tools = call("tools/list")["result"]["tools"]
names = [t["name"] for t in tools]
calls = {
    "tools": [("tools/list", {}), ("tools/call", {"name": "get_commits", "arguments": {"limit": 1}})],
    "resources": [("resources/list", {}), ("resources/templates/list", {})],
    "prompts": [("prompts/list", {})],
    "logging": [("logging/setLevel", {"level": "info"})],
    "completions": [("completion/complete", {"ref": {"type": "ref/prompt", "name": "x"},
                                              "argument": {"name": "a", "value": ""}})],
}
out = []
for cap in caps:
    for method, params in calls.get(cap, [("?" + cap, {})]):
        r = call(method, params)
        code = r.get("error", {}).get("code")
        out.append(f"{method} {'-32601' if code == -32601 else 'answers'}")
    if cap == "resources":
        uri = call("resources/list")["result"]["resources"][0]["uri"]
        r = call("resources/read", {"uri": uri})
        out.append(f"resources/read {'answers' if 'result' in r else r}")
        if caps[cap].get("subscribe"):
            for m in ("resources/subscribe", "resources/unsubscribe"):
                r = call(m, {"uri": uri})
                out.append(f"{m} {'-32601' if r.get('error', {}).get('code') == -32601 else 'answers'}")
    if cap == "prompts":
        name = call("prompts/list")["result"]["prompts"][0]["name"]
        r = call("prompts/get", {"name": name, "arguments": {}})
        out.append(f"prompts/get {'answers' if 'result' in r else r}")
r = call("resources/templates/list")
out.append("templates " + json.dumps(r.get("result")))
ins = init.get("instructions", "")
out.append("instructions name every tool: " + str(all(n in ins for n in names)))
out.append("instructions cover: " + " ".join(w for w in ("history", "code", "memory", "dwim") if w.lower() in ins.lower()))
open(sys.argv[3], "w").write(" ".join(names) + "\n")
p.stdin.close(); p.wait()
print("\n".join(out))
EOF
python3 "$TMP/drive.py" "$Q" "$R" "$TMP/names" > "$TMP/out" 2>"$TMP/err" || { echo "FAIL: the driver"; cat "$TMP/err"; FAILS=$((FAILS + 1)); }
if grep -q -- '-32601\|^?' "$TMP/out"; then
  echo "FAIL: a declared method is not answered:"; sed 's/^/  /' "$TMP/out"; FAILS=$((FAILS + 1))
fi
expect_out "every declared capability was tried" "4" grep -c '^tools/list\|^resources/list\|^prompts/list\|^logging/setLevel' "$TMP/out"
expect_out "resources/templates/list: an empty list" 'templates {"resourceTemplates": []}' grep '^templates' "$TMP/out"
expect_out "the instructions name every tool served" "instructions name every tool: True" grep '^instructions name' "$TMP/out"
expect_out "the instructions cover history, code, memory and dwim" "instructions cover: history code memory dwim" grep '^instructions cover' "$TMP/out"

# quarry mcp --help lists exactly the tools tools/list serves (generated, so it cannot drift)
expect_out "mcp --help lists the tools served" "$(cat "$TMP/names")" \
  sh -c "\"$Q\" mcp --help | sed -n '/^tools served/,/^and with/p' | sed '1d;\$d' | tr -s ' \n' ' ' | sed 's/^ //; s/ \$//'"
expect_out "mcp --help lists what --allow-write memory adds" "1" \
  sh -c "\"$Q\" mcp --help | sed -n '/^and with --allow-write memory/,/^dwim/p' | grep -c memory_add"
# and the list of a server started with the flags is the one the export prints
expect_out "--allow-write memory --allow-exec: the export's list" \
  "$("$Q" tools --format mcp --allow-write memory --allow-exec | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" \
  sh -c "\"$Q\" mcp --help | sed -n '/^tools served/,/^dwim/p' | grep '^  ' | wc -w"
finish
