# 28_mcp_http.sh: `quarry mcp --http`, the Streamable HTTP transport. First the official
# MCP TypeScript SDK's StreamableHTTPClientTransport (tests/mcp/http_client_test.mjs:
# tools in pages, calls, the pages of a 10-day window, progress, ping during a long call,
# a cancel, two sessions at once), then the edges with curl and raw bytes over a socket:
# a foreign Origin or Host is refused (403), a bad or missing session id, GET, other
# paths, wrong media types, an oversized body, malformed HTTP; the addresses refused at
# start (anything not loopback: exit 2); SIGTERM ends the server with status 0.
. "$(dirname "$0")/lib.sh"

for tool in git node npm curl python3; do
  if ! command -v $tool >/dev/null 2>&1; then
    echo "skipped: $tool is not installed (scripts/deps.sh --test installs it)"
    exit 77
  fi
done

MCPDIR="$SRC/tests/mcp"
npm_install "$MCPDIR" @modelcontextprotocol/sdk "the MCP SDK"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY
mkdir -p "$HOME"

# repo DIR COUNT FIRST STEP WHO: COUNT commits by WHO, the first at FIRST (seconds),
# one every STEP seconds, each changing one of five files
repo() {
  git init -q -b main "$1"
  i=1
  {
    while [ $i -le "$2" ]; do
      printf 'commit refs/heads/main\ncommitter %s %d +0000\ndata 9\nstep %04d\n' "$5" $(($3 + i * $4)) $i
      printf 'M 644 inline f%d.txt\ndata 10\nstep %04d\n\n' $((i % 5)) $i
      i=$((i + 1))
    done
  } | git -C "$1" fast-import --quiet
  git -C "$1" reset -q --hard main
}
ALPHA="$TMP/alpha"; repo "$ALPHA" 6 1709200000 86400 'Ann <ann@example.com>'
GAMMA="$TMP/gamma"; repo "$GAMMA" 1200 1700000000 60 'Gus <gus@example.com>'
# DELTA: 21 commits a day apart before 2024-05-01, then 79 three hours apart from it
DELTA="$TMP/delta"
git init -q -b main "$DELTA"
i=1
{
  while [ $i -le 100 ]; do
    t=$((1714521600 + (i - 22) * 10800))
    [ $i -le 21 ] && t=$((1714521600 - (22 - i) * 86400))
    printf 'commit refs/heads/main\ncommitter Dee <dee@example.com> %d +0000\ndata 9\nstep %04d\n' $t $i
    printf 'M 644 inline d%d.txt\ndata 10\nstep %04d\n\n' $((i % 5)) $i
    i=$((i + 1))
  done
} | git -C "$DELTA" fast-import --quiet
git -C "$DELTA" reset -q --hard main

if ! node "$MCPDIR/http_client_test.mjs" "$Q" "$ALPHA" "$GAMMA" "$DELTA" >"$TMP/node.out" 2>&1; then
  echo "FAIL: the MCP SDK HTTP client test:"; sed 's/^/  /' "$TMP/node.out"
  FAILS=$((FAILS + 1))
else
  sed 's/^/  /' "$TMP/node.out"
fi

# ---- the edges, with curl and raw bytes ----

# start ADDR ARGS...: starts a server, sets PID and URL (empty when it did not start)
start() {
  addr=$1; shift
  : >"$TMP/serr"
  "$Q" mcp --http "$addr" "$@" 2>"$TMP/serr" &
  PID=$!
  URL=
  n=0
  while [ $n -lt 300 ]; do
    URL=$(sed -n 's/.*serving MCP over HTTP at \(http[^ ]*\)$/\1/p' "$TMP/serr")
    [ -n "$URL" ] && return 0
    kill -0 $PID 2>/dev/null || return 1
    sleep 0.1; n=$((n + 1))
  done
  return 1
}

# stop: SIGTERM; the server must exit 0
stop() {
  kill -TERM $PID
  wait $PID; rc=$?
  if [ $rc != 0 ]; then
    echo "FAIL: quarry mcp --http exits $rc on SIGTERM, want 0"; sed 's/^/  /' "$TMP/serr"
    FAILS=$((FAILS + 1))
  fi
}

# post [CURL-ARGS...]: POSTs to $URL; prints the status code, saves the body in $TMP/body
# and the headers in $TMP/head
post() {
  post_as application/json 'application/json, text/event-stream' "$@"
}
# post_as CONTENT-TYPE ACCEPT [CURL-ARGS...]: the same with those two headers
post_as() {
  ct=$1 acc=$2; shift 2
  curl -s -o "$TMP/body" -D "$TMP/head" -w '%{http_code}' -X POST "$URL" \
    -H "Content-Type: $ct" -H "Accept: $acc" "$@"
}

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
PING='{"jsonrpc":"2.0","id":7,"method":"ping"}'

# check DESCRIPTION WANT GOT: compares two strings
check() {
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1: want '$2', got '$3'"; sed 's/^/  body: /' "$TMP/body" 2>/dev/null
    FAILS=$((FAILS + 1))
  fi
}

# body_has DESCRIPTION TEXT: the last body holds TEXT
body_has() {
  if ! grep -qF -- "$2" "$TMP/body"; then
    echo "FAIL: $1: the body lacks '$2'"; sed 's/^/  /' "$TMP/body"
    FAILS=$((FAILS + 1))
  fi
}

if ! start 127.0.0.1:0 --repo "$ALPHA" --max-message 4096; then
  echo "FAIL: quarry mcp --http 127.0.0.1:0 did not start"; sed 's/^/  /' "$TMP/serr"
  exit 1
fi
PORT=${URL#http://127.0.0.1:}; PORT=${PORT%/mcp}

check "initialize from a loopback Origin" 200 "$(post -H 'Origin: http://localhost:5173' -d "$INIT")"
SID=$(tr -d '\r' <"$TMP/head" | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p')
case $SID in
  ????????????????????????????????) ;;
  *) echo "FAIL: initialize gave no 32-character Mcp-Session-Id (got '$SID')"; FAILS=$((FAILS + 1)) ;;
esac
body_has "the initialize result" '"protocolVersion":"2025-06-18"'
check "notifications/initialized is accepted" 202 \
  "$(post -H "Mcp-Session-Id: $SID" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}')"
check "ping in the session" 200 "$(post -H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 2025-06-18' -d "$PING")"
body_has "the ping answer" '{"jsonrpc":"2.0","id":7,"result":{}}'
check "a tools/call is answered as an event stream" 200 \
  "$(post -H "Mcp-Session-Id: $SID" -d '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"get_commits","arguments":{"limit":1}}}')"
grep -qi '^content-type: text/event-stream' "$TMP/head" || { echo "FAIL: tools/call is not text/event-stream"; FAILS=$((FAILS + 1)); }
body_has "the call's event" 'data: {"jsonrpc":"2.0","id":8,"result":'
check "a tools/call for a client that takes JSON only is answered in JSON" 200 \
  "$(post_as application/json application/json -H "Mcp-Session-Id: $SID" -d '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"get_commits","arguments":{"limit":1}}}')"
grep -qi '^content-type: application/json' "$TMP/head" || { echo "FAIL: Accept: application/json got no JSON"; FAILS=$((FAILS + 1)); }

# what the transport refuses
check "a foreign Origin" 403 "$(post -H 'Origin: http://evil.example' -H "Mcp-Session-Id: $SID" -d "$PING")"
body_has "the Origin refusal says why" "Origin is not a loopback one"
check "a foreign Origin on initialize" 403 "$(post -H 'Origin: https://attacker.example:443' -d "$INIT")"
check "Origin null" 403 "$(post -H 'Origin: null' -d "$INIT")"
check "a foreign Host (DNS rebinding)" 403 "$(post -H 'Host: evil.example' -d "$INIT")"
check "a bad session id" 404 "$(post -H 'Mcp-Session-Id: 0123456789abcdef0123456789abcdef' -d "$PING")"
body_has "the 404 says what to do" "send initialize"
check "no session id" 400 "$(post -d "$PING")"
check "an unknown protocol version" 400 "$(post -H "Mcp-Session-Id: $SID" -H 'MCP-Protocol-Version: 1999-01-01' -d "$PING")"
check "a body that is not JSON" 200 "$(post -H "Mcp-Session-Id: $SID" -d '{"jsonrpc":')"
body_has "a parse error for it" '"code":-32700'
check "a batch" 200 "$(post -H "Mcp-Session-Id: $SID" -d "[$PING]")"
body_has "an Invalid Request for it" '"code":-32600'
check "text/plain" 415 "$(post_as text/plain '*/*' -H "Mcp-Session-Id: $SID" -d "$PING")"
check "Accept: text/html" 406 "$(post_as application/json text/html -H "Mcp-Session-Id: $SID" -d "$PING")"
head -c 5000 /dev/zero | tr '\0' ' ' >"$TMP/big"
check "a body over --max-message" 413 "$(post -H "Mcp-Session-Id: $SID" --data-binary @"$TMP/big")"
check "chunked" 411 "$(post -H "Mcp-Session-Id: $SID" -H 'Transfer-Encoding: chunked' -d "$PING")"
check "GET (no server stream)" 405 "$(curl -s -o "$TMP/body" -D "$TMP/head" -w '%{http_code}' -H "Mcp-Session-Id: $SID" -H 'Accept: text/event-stream' "$URL")"
grep -qi '^allow: POST, DELETE' "$TMP/head" || { echo "FAIL: 405 without Allow"; FAILS=$((FAILS + 1)); }
check "another path" 404 "$(curl -s -o "$TMP/body" -w '%{http_code}' -X POST "http://127.0.0.1:$PORT/other" -H 'Content-Type: application/json' -d "$PING")"
check "DELETE without a session id" 400 "$(curl -s -o "$TMP/body" -w '%{http_code}' -X DELETE "$URL")"

# malformed HTTP, as raw bytes: answered with a status, never a crash
raw() { # raw BYTES-FILE: sends the bytes, prints the status line's code (or "closed")
  python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
data = b""
try:
    s.sendall(open(sys.argv[2], "rb").read())
    s.shutdown(socket.SHUT_WR)
except OSError:
    pass  # the server answered and closed before reading it all: its answer is read below
while True:
    try:
        b = s.recv(65536)
    except OSError:
        break
    if not b: break
    data += b
line = data.split(b"\r\n", 1)[0].split(b" ")
print(line[1].decode() if len(line) > 1 else "closed")' "$PORT" "$1"
}
printf 'GARBAGE\r\n\r\n' >"$TMP/r1"
check "a request line without a target" 400 "$(raw "$TMP/r1")"
printf 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!' >"$TMP/r2"
check "two different Content-Lengths" 400 "$(raw "$TMP/r2")"
printf 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n folded: header\r\n\r\n' >"$TMP/r3"
check "a folded header line" 400 "$(raw "$TMP/r3")"
{ printf 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: '; head -c 20000 /dev/zero | tr '\0' a; printf '\r\n\r\n'; } >"$TMP/r4"
check "a head over 16 KiB" 431 "$(raw "$TMP/r4")"
printf 'POST /mcp HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n' >"$TMP/r5"
check "HTTP/2.0 in a request line" 505 "$(raw "$TMP/r5")"
printf 'POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}' >"$TMP/r6"
check "HTTP/1.1 without Host" 400 "$(raw "$TMP/r6")"
printf 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc"' >"$TMP/r7"
check "a body cut short" 400 "$(raw "$TMP/r7")"
printf 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-' >"$TMP/r8"
check "a head cut short" 400 "$(raw "$TMP/r8")"

check "the session still answers after all that" 200 "$(post -H "Mcp-Session-Id: $SID" -d "$PING")"
check "DELETE ends the session" 204 "$(curl -s -o "$TMP/body" -w '%{http_code}' -X DELETE -H "Mcp-Session-Id: $SID" "$URL")"
check "the ended session is unknown" 404 "$(post -H "Mcp-Session-Id: $SID" -d "$PING")"
stop

# the addresses: loopback only
expect_rc "0.0.0.0 is refused" 2 "$Q" mcp --http 0.0.0.0:0
expect_err "and says why" "'0.0.0.0:0' is not a loopback address" "$Q" mcp --http 0.0.0.0:0
expect_rc "a LAN address is refused" 2 "$Q" mcp --http 192.168.1.10:8080
expect_rc "a host name is refused" 2 "$Q" mcp --http example.com:80
expect_rc "[::] is refused" 2 "$Q" mcp --http '[::]:0'
expect_rc "no port" 2 "$Q" mcp --http 127.0.0.1
expect_rc "a port past 65535" 2 "$Q" mcp --http 127.0.0.1:65536
if start localhost:0 --repo "$ALPHA"; then
  case $URL in http://127.0.0.1:*/mcp) ;; *) echo "FAIL: localhost:0 serves at '$URL'"; FAILS=$((FAILS + 1)) ;; esac
  stop
else
  echo "FAIL: quarry mcp --http localhost:0 did not start"; sed 's/^/  /' "$TMP/serr"; FAILS=$((FAILS + 1))
fi
if start '[::1]:0' --repo "$ALPHA"; then
  case $URL in 'http://[::1]:'*/mcp) ;; *) echo "FAIL: [::1]:0 serves at '$URL'"; FAILS=$((FAILS + 1)) ;; esac
  check "initialize over IPv6" 200 "$(post -g -d "$INIT")"
  stop
elif grep -q "cannot listen" "$TMP/serr"; then
  echo "  (no IPv6 loopback on this machine: [::1] not tried)"
else
  echo "FAIL: quarry mcp --http [::1]:0"; sed 's/^/  /' "$TMP/serr"; FAILS=$((FAILS + 1))
fi
# a port in use: exit 1 with the reason
python3 -c 'import socket,time,sys; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(30)' >"$TMP/busy" &
BUSY=$!
n=0; while [ ! -s "$TMP/busy" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
expect_rc "a port in use" 1 "$Q" mcp --http "127.0.0.1:$(cat "$TMP/busy")"
expect_err "says so" "cannot listen on" "$Q" mcp --http "127.0.0.1:$(cat "$TMP/busy")"
kill $BUSY 2>/dev/null; wait $BUSY 2>/dev/null
finish
