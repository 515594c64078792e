# 39_hostile_repo.sh: a repository is untrusted input. Over MCP with no --allow-exec, nothing
# in a repository runs: not a core.fsmonitor command in its .git/config (git runs it on
# ls-files, diff-tree...), nor one in a git directory committed inside the tree and named
# as the call's `repo`. With --allow-exec, a committed .quarry.toml that is a symbolic link
# to /dev/stdin is not read (it would swallow the protocol stream), and a check command that
# never ends is stopped at the server's time limit with its whole process group. A memory
# write named in a dwim line is refused naming the flag that allows it.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || { echo "FAIL: python3 is needed"; exit 1; }
export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY
mkdir -p "$HOME"
CLIENT="$SRC/tests/mcp/jsonl_client.py"
commit() { git -C "$1" add -A && git -C "$1" -c user.name=A -c user.email=a@example.com commit -qm "$2"; }
call() { # call ID TOOL ARGS-JSON
  printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' "$1" "$2" "$3"
}

# ---- a repository whose own .git/config has a core.fsmonitor command ----
R1="$TMP/r1"
git init -q -b main "$R1"
echo 'int f;' > "$R1/a.c"; commit "$R1" one
echo 'int g;' >> "$R1/a.c"; commit "$R1" two
git -C "$R1" config core.fsmonitor "touch $TMP/PWNED1; false"
{ call 1 get_diff_stats '{"from":"HEAD~1","to":"HEAD"}'; call 2 dwim '{"line":"grep '"'"'int'"'"'"}'; } \
  | python3 "$CLIENT" "$Q" 60 --repo "$R1" --workers 1 >"$TMP/out1" 2>&1 \
  || { echo "FAIL: the calls on a repository with an fsmonitor command:"; sed 's/^/  /' "$TMP/out1"; FAILS=$((FAILS + 1)); }
[ -e "$TMP/PWNED1" ] && { echo "FAIL: the repository's core.fsmonitor command ran"; FAILS=$((FAILS + 1)); }

# ---- a git directory committed inside the tree, named as the call's repo ----
R2="$TMP/src"
git init -q -b main "$R2"
echo 'int x;' > "$R2/a.c"
git init -q --bare "$R2/evil"
git -C "$R2/evil" config core.bare false
git -C "$R2/evil" config core.worktree .
git -C "$R2/evil" config core.fsmonitor "touch $TMP/PWNED2; false"
touch "$R2/evil/refs/heads/.keep" "$R2/evil/refs/tags/.keep" "$R2/evil/objects/.keep"
commit "$R2" hostile
git clone -q "$R2" "$TMP/victim"
call 1 dwim '{"line":"grep '"'"'x'"'"'","repo":"evil"}' \
  | (cd "$TMP/victim" && python3 "$CLIENT" "$Q" 60 --repo "$TMP/victim" --workers 1) >"$TMP/out2" 2>&1 \
  || { echo "FAIL: the call naming a committed git directory:"; sed 's/^/  /' "$TMP/out2"; FAILS=$((FAILS + 1)); }
[ -e "$TMP/PWNED2" ] && { echo "FAIL: a committed git directory's core.fsmonitor command ran"; FAILS=$((FAILS + 1)); }

# ---- a memory write named in a dwim line is refused, naming the flag that allows it ----
call 1 dwim '{"line":"memory_add key=k4 content=x"}' \
  | QUARRY_MEMORY="$TMP/mem.db" python3 "$CLIENT" "$Q" 60 --repo "$R1" --workers 1 >"$TMP/out5" 2>&1
expect_out "the refusal names --allow-write memory" "1" sh -c "grep -c 'start the server with --allow-write memory' '$TMP/out5'"
[ -e "$TMP/mem.db" ] && { echo "FAIL: the refused write created the store"; FAILS=$((FAILS + 1)); }

# ---- a request id already in flight is refused (a cancel naming it would be ambiguous) ----
{ call 5 run_lisp '{"program":"(loop [] (recur))"}'; call 5 run_lisp '{"program":"(+ 1 2)"}'; } \
  | python3 "$CLIENT" "$Q" 60 --repo "$R1" --workers 2 --timeout-ms 1500 >"$TMP/out6" 2>&1
expect_out "the second request with id 5 is refused" "1" sh -c "grep -c 'request id 5 is already in use' '$TMP/out6'"

# ---- with --allow-exec: .quarry.toml -> /dev/stdin is not read ----
R3="$TMP/r3"
git init -q -b main "$R3"
echo 'int f(void) { return 0; }' > "$R3/a.c"
ln -s /dev/stdin "$R3/.quarry.toml"
commit "$R3" link
{ call 1 dwim '{"line":"validate"}'; printf '{"jsonrpc":"2.0","id":2,"method":"ping"}\n'; call 3 run_lisp '{"program":"(+ 1 2)"}'; } \
  | python3 "$CLIENT" "$Q" 60 --repo "$R3" --workers 2 --allow-exec >"$TMP/out3" 2>&1 \
  || { echo "FAIL: a .quarry.toml linked to /dev/stdin held up the server:"; sed 's/^/  /' "$TMP/out3"; FAILS=$((FAILS + 1)); }
expect_out "the calls after it are answered" "3" \
  python3 -c 'import json,sys; print([json.loads(l) for l in open(sys.argv[1]) if "\"id\": 3" in l][0]["result"]["structuredContent"]["result"])' "$TMP/out3"

# ---- search_codebase says why the model's configuration was not read ----
expect_err "a linked .quarry.toml is named as the reason" "is a symbolic link, which is not followed" \
  env QUARRY_LLM_URL=http://127.0.0.1:9/v1 QUARRY_LLM_MODEL=m \
  "$Q" tool search_codebase --repo "$R3" --question "explain the design of this program"

# ---- with --allow-exec: a check command that never ends stops at the time limit ----
R4="$TMP/r4"
git init -q -b main "$R4"
echo 'int f(void) { return 0; }' > "$R4/a.c"
MARK="quarry-hostile-check-$$"
printf 'check = ["sh", "-c", "(sleep 300; echo %s) & sleep 300 # %s"]\n' "$MARK" "$MARK" > "$R4/.quarry.toml"
commit "$R4" check
call 1 dwim '{"line":"validate"}' \
  | python3 "$CLIENT" "$Q" 120 --repo "$R4" --workers 1 --allow-exec --timeout-ms 2000 >"$TMP/out4" 2>&1 \
  || { echo "FAIL: a check command that never ends held the call:"; sed 's/^/  /' "$TMP/out4"; FAILS=$((FAILS + 1)); }
expect_out "the call says it was stopped" "1" sh -c "grep -c 'time limit of 2000 ms' '$TMP/out4'"
sleep 0.5
if pgrep -f "$MARK" >/dev/null; then
  echo "FAIL: the check command's processes outlived the call"; pgrep -af "$MARK" | sed 's/^/  /'
  pkill -f "$MARK"; FAILS=$((FAILS + 1))
fi
finish
