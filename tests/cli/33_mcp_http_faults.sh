# 33_mcp_http_faults.sh: `quarry mcp --http` under hostile and unlucky clients, over real
# loopback HTTP (tests/mcp/http_faults.py): twelve 15 MB messages at once keep the
# server's peak memory bounded (and those for no session are refused before they are
# read); calls cancelled while queued end their connections without an answer, and so
# does every call of rounds of cancels racing queued and running calls; a client
# that does not read its answer holds up no other answer of its session; SIGTERM ends the
# server at once with clients that do not read, send half a body, or wait for a call.
# The memory case is skipped under sanitizers (their allocator's overhead is not the
# server's).
. "$(dirname "$0")/lib.sh"

for tool in git python3; do
  if ! command -v $tool >/dev/null 2>&1; then
    echo "FAIL: $tool is not installed (sh scripts/deps.sh --test installs it)"
    exit 1
  fi
done
export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY
mkdir -p "$HOME"

R="$TMP/repo"
git init -q -b main "$R"
printf 'int main(void) { return 0; }\n' >"$R/a.c"
git -C "$R" add a.c
git -C "$R" -c user.name=Ann -c user.email=ann@example.com commit -qm one

CASES="cancel-queued cancel-race slow-reader sigterm"
[ -n "${QUARRY_SANITIZED:-}" ] || CASES="memory $CASES"
# shellcheck disable=SC2086
if ! python3 "$SRC/tests/mcp/http_faults.py" "$Q" "$R" $CASES >"$TMP/out" 2>&1; then
  echo "FAIL: tests/mcp/http_faults.py:"; sed 's/^/  /' "$TMP/out"
  FAILS=$((FAILS + 1))
else
  sed 's/^/  /' "$TMP/out"
fi
finish
