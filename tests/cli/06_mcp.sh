# 06_mcp.sh: `quarry mcp` driven by the official MCP TypeScript SDK client
# (@modelcontextprotocol/sdk, pinned in tests/mcp/package.json and its lock file): the
# client connects over stdio, lists the tools, calls them on fixture repositories built
# here with git (fixed dates and authors) and compares the results with git; see
# tests/mcp/client_test.mjs for what is checked. The SDK is installed from the npm
# registry into tests/mcp/node_modules the first time (npm ci); without node or npm the
# test is skipped with a message (exit 77, which ctest reports as skipped).
. "$(dirname "$0")/lib.sh"

for tool in git node npm; do
  if ! command -v $tool >/dev/null 2>&1; then
    echo "skipped: $tool is not installed (the MCP SDK test needs git, node and npm)"
    exit 77
  fi
done

MCPDIR="$SRC/tests/mcp"
npm_install "$MCPDIR" @modelcontextprotocol/sdk "the MCP SDK"

# a clean git: no user or system configuration, no repository from the environment
export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_AUTHOR_NAME \
  GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE
mkdir -p "$HOME"

# at REPO NAME EMAIL DATE GIT-ARGS...: runs git in REPO as that person at that date
at() {
  r=$1 n=$2 e=$3 d=$4; shift 4
  GIT_AUTHOR_NAME=$n GIT_AUTHOR_EMAIL=$e GIT_AUTHOR_DATE=$d \
  GIT_COMMITTER_NAME=$n GIT_COMMITTER_EMAIL=$e GIT_COMMITTER_DATE=$d git -C "$r" "$@"
}

# R1: six commits by three authors, a rename, a file in a directory
R1="$TMP/alpha"
git init -q -b main "$R1"
git -C "$R1" config commit.gpgsign false
mkdir -p "$R1/src"
printf 'one\ntwo\n' > "$R1/notes.txt"
printf 'int main(void) { return 0; }\n' > "$R1/src/main.c"
git -C "$R1" add -A
at "$R1" Ann ann@example.com 2024-03-01T10:00:00Z commit -q -m "Add notes and main"
printf 'three\n' >> "$R1/notes.txt"
at "$R1" Bob bob@example.com 2024-03-02T10:00:00Z commit -q -am "More notes"
printf 'int helper(void);\n' > "$R1/src/helper.h"
git -C "$R1" add -A
at "$R1" Ann ann@example.com 2024-03-03T10:00:00Z commit -q -m "Add helper header"
git -C "$R1" mv notes.txt journal.txt
printf 'four\n' >> "$R1/journal.txt"
at "$R1" Carol carol@example.com 2024-03-04T10:00:00Z commit -q -am "Rename notes to journal"
printf '/* main */\n' >> "$R1/src/main.c"
at "$R1" Bob bob@example.com 2024-03-05T10:00:00Z commit -q -am "Comment main"
printf 'five\nsix\n' >> "$R1/journal.txt"
at "$R1" Ann ann@example.com 2024-03-06T10:00:00Z commit -q -am "Grow journal"

# R2: another repository, for the per-call `repo` argument
R2="$TMP/beta"
git init -q -b main "$R2"
git -C "$R2" config commit.gpgsign false
printf 'beta\n' > "$R2/README"
git -C "$R2" add -A
at "$R2" Dora dora@example.com 2023-05-01T08:00:00Z commit -q -m "Start beta"
printf 'more\n' >> "$R2/README"
at "$R2" Dora dora@example.com 2023-05-02T08:00:00Z commit -q -am "Grow beta"

# R3: 1,200 commits (over the 1,000 that make the git layer report progress), written
# with fast-import in one go
R3="$TMP/gamma"
git init -q -b main "$R3"
i=1
{
  while [ $i -le 1200 ]; do
    printf 'commit refs/heads/main\ncommitter Gus <gus@example.com> %d +0000\ndata 9\nstep %04d\n' \
      $((1700000000 + i * 60)) $i
    printf 'M 644 inline f%d.txt\ndata 10\nstep %04d\n\n' $((i % 7)) $i
    i=$((i + 1))
  done
} | git -C "$R3" fast-import --quiet
git -C "$R3" reset -q --hard main

# R4: 79 commits in the ten days from 2024-05-01 (one every three hours), and 21 in the
# days before: the window the pages test fetches
R4="$TMP/delta"
git init -q -b main "$R4"
i=1
{
  while [ $i -le 100 ]; do
    t=$((1714521600 + (i - 22) * 10800)) # 2024-05-01T00:00:00Z is commit 22
    [ $i -le 21 ] && t=$((1714521600 - (22 - i) * 86400))
    printf 'commit refs/heads/main\ncommitter Dee <dee@example.com> %d +0000\ndata 9\nstep %04d\n' $t $i
    printf 'M 644 inline d%d.txt\ndata 10\nstep %04d\n\n' $((i % 5)) $i
    i=$((i + 1))
  done
} | git -C "$R4" fast-import --quiet
git -C "$R4" reset -q --hard main

if ! node "$MCPDIR/client_test.mjs" "$Q" "$R1" "$R2" "$R3" "$R4" >"$TMP/node.out" 2>&1; then
  echo "FAIL: the MCP SDK client test:"; sed 's/^/  /' "$TMP/node.out"
  FAILS=$((FAILS + 1))
else
  sed 's/^/  /' "$TMP/node.out"
fi
finish
