# 32_mcp_cancel.sh: over stdio and Streamable HTTP, with the official MCP SDK client, a
# cancel stops each kind of long work quarry runs for a call (SPARQL, a program looping
# over tools, SPARQL inside a program, code indexing, a model call): the next call on a
# one-worker server is answered, the cancelled one never is (tests/mcp/cancel_test.mjs).
# Then the code index keeps the batches stored before its cancel (fewer blobs than files,
# and more than none). The time from each cancel to the next answer is printed; bench/
# cancel/run.sh reports it. The SDK comes from the npm registry (tests/mcp/package.json).
. "$(dirname "$0")/lib.sh"

for tool in git node npm python3; do
  if ! command -v $tool >/dev/null 2>&1; then
    echo "FAIL: $tool is not installed (sh scripts/deps.sh --test installs it)"
    exit 1
  fi
done
MCPDIR="$SRC/tests/mcp"
npm_install "$MCPDIR" @modelcontextprotocol/sdk "the MCP SDK"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY
mkdir -p "$HOME"

# a small repository: 20 commits of a C file
SMALL="$TMP/small"
git init -q -b main "$SMALL"
i=1
{
  while [ $i -le 20 ]; do
    printf 'commit refs/heads/main\ncommitter Ann <ann@example.com> %d +0000\ndata 9\nstep %04d\n' $((1700000000 + i * 60)) $i
    printf 'M 644 inline main.c\ndata 30\nint f%04d(void) { return 0; }\n\n' $i
    i=$((i + 1))
  done
} | git -C "$SMALL" fast-import --quiet
git -C "$SMALL" reset -q --hard main

# a large C tree: 4,000 files of 60 functions each, whose index takes minutes to build
BIG="$TMP/big"
git init -q -b main "$BIG"
python3 - "$BIG" <<'PY'
import os, sys
root = sys.argv[1]
for d in range(40):
    os.makedirs(f"{root}/d{d}", exist_ok=True)
    for f in range(100):
        with open(f"{root}/d{d}/f{f}.c", "w") as o:
            for k in range(30):
                o.write(f"static int s{k}(int x) {{ return x * {k}; }}\n"
                        f"int d{d}_f{f}_g{k}(int y) {{ if (y > 3) return s{k}(y) + "
                        f"d{d}_f{f}_g{(k + 1) % 30}(y - 1); return 0; }}\n")
PY
git -C "$BIG" add -A
GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@example.com GIT_COMMITTER_NAME=Ann \
  GIT_COMMITTER_EMAIL=ann@example.com GIT_AUTHOR_DATE=2024-01-01T00:00:00Z \
  GIT_COMMITTER_DATE=2024-01-01T00:00:00Z git -C "$BIG" commit -q -m tree

# a mid-sized tree: 300 files, for parallel calls on a fresh server
MID="$TMP/mid"
git init -q -b main "$MID"
python3 - "$MID" <<'PY'
import os, sys
root = sys.argv[1]
for d in range(3):
    os.makedirs(f"{root}/d{d}", exist_ok=True)
    for f in range(100):
        with open(f"{root}/d{d}/f{f}.c", "w") as o:
            for k in range(10):
                o.write(f"int d{d}_f{f}_g{k}(int y) {{ return y ? d{d}_f{f}_g{(k + 1) % 10}(y - 1) : 0; }}\n")
PY
git -C "$MID" add -A
GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@example.com GIT_COMMITTER_NAME=Ann \
  GIT_COMMITTER_EMAIL=ann@example.com GIT_AUTHOR_DATE=2024-01-01T00:00:00Z \
  GIT_COMMITTER_DATE=2024-01-01T00:00:00Z git -C "$MID" commit -q -m tree

# 6,000 triples on which the EXISTS query runs for minutes
python3 -c "
for i in range(6000): print(f'<http://e/n{i}> <http://e/p> <http://e/n{i+1}> .')" >"$TMP/data.nt"

# a model that answers after ten minutes
llm_script "$TMP/script.json" '{"text": "SELECT * {}", "delay_ms": 600000}' \
  '{"text": "SELECT * {}", "delay_ms": 600000}'
llm_serve "$TMP/script.json"

if ! node "$MCPDIR/cancel_test.mjs" "$Q" "$SMALL" "$BIG" "$TMP/data.nt" "$QUARRY_LLM_URL" \
  "$MID" >"$TMP/node.out" 2>&1; then
  echo "FAIL: the MCP cancel test:"; sed 's/^/  /' "$TMP/node.out"
  FAILS=$((FAILS + 1))
else
  sed 's/^/  /' "$TMP/node.out"
fi

# the index keeps what it stored before each cancel, and no more than it had time for
kept=$(python3 -c "
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(db.execute('SELECT COUNT(*) FROM blobs').fetchone()[0])" "$BIG/.git/quarry/code.db" 2>&1)
case $kept in
  ''|*[!0-9]*) echo "FAIL: cannot count the stored blobs: $kept"; FAILS=$((FAILS + 1)) ;;
  *)
    if [ "$kept" -ge 4000 ]; then
      echo "FAIL: the cancelled indexing ran to its end ($kept blobs stored)"; FAILS=$((FAILS + 1))
    fi ;;
esac

finish
