#!/bin/sh
# tests/probe/mcp_http.sh: repeats the concurrency cases of `quarry mcp --http` in bounded
# loops, to shake out the races one run of tests/cli/33_mcp_http_faults.sh may miss:
# cancels racing queued and running calls, a client that does not read its answer while
# its session's other calls run, twelve large messages at once, SIGTERM with clients that
# do not read. Each case starts its own server and bounds every wait (a hang is a failure).
#
# Usage: sh tests/probe/mcp_http.sh [QUARRY] [LOOPS]   (defaults: build/quarry, 5)
#        PROBE_ROUNDS=N sets the rounds of the cancel race inside each loop (default 10).
# Prints each check and a summary; exits 1 when any loop failed.
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
Q=${1:-$SRC/build/quarry}
LOOPS=${2:-5}
command -v python3 >/dev/null 2>&1 || { echo "python3 is needed"; exit 2; }
[ -x "$Q" ] || { echo "no quarry binary at '$Q'"; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
R="$TMP/repo"
git init -q -b main "$R"
printf 'int main(void) { return 0; }\n' >"$R/a.c"
git -C "$R" add a.c
git -C "$R" -c user.name=Ann -c user.email=ann@example.com commit -qm one
fails=0
i=1
while [ $i -le "$LOOPS" ]; do
  echo "loop $i of $LOOPS"
  if ! timeout 600 python3 "$SRC/tests/mcp/http_faults.py" "$Q" "$R" \
      cancel-race cancel-queued slow-reader sigterm memory; then
    fails=$((fails + 1))
  fi
  i=$((i + 1))
done
echo "$fails of $LOOPS loops failed"
[ $fails -eq 0 ]
