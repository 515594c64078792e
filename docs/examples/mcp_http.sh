#!/bin/sh
# mcp_http.sh: a session with `quarry mcp --http` by hand, with curl: starts the server on
# a free loopback port, begins a session, calls run_lisp, shows what is refused, ends the
# session and stops the server. Run from a git repository: sh docs/examples/mcp_http.sh
set -u
err=$(mktemp)
quarry mcp --http 127.0.0.1:0 2>"$err" &
pid=$!
url=
while [ -z "$url" ]; do
  sleep 0.1
  url=$(sed -n 's/.*serving MCP over HTTP at //p' "$err")
done

post() { # post BODY [CURL-ARGS...]: prints the status, then the body
  body=$1; shift
  curl -s -D "$err.head" -w '\n%{http_code}\n' -X POST "$url" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    "$@" -d "$body"
}

# initialize: the answer's Mcp-Session-Id header names the session from then on
post '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}' >/dev/null
sid=$(tr -d '\r' <"$err.head" | sed -n 's/^Mcp-Session-Id: //p')
echo "session id: ${#sid} hex digits"
post '{"jsonrpc":"2.0","method":"notifications/initialized"}' -H "Mcp-Session-Id: $sid" | tail -n 1

# a tools/call is answered as a stream of events: progress, then the response
post '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_lisp","arguments":{"program":"(+ 1 2)"}}}' \
  -H "Mcp-Session-Id: $sid" | grep '^data:' | sed 's/"content".*"structuredContent"/.../'

# what is refused
echo "foreign Origin: $(post '{"jsonrpc":"2.0","id":3,"method":"ping"}' -H "Mcp-Session-Id: $sid" -H 'Origin: https://evil.example' | tail -n 1)"
echo "unknown session: $(post '{"jsonrpc":"2.0","id":4,"method":"ping"}' -H 'Mcp-Session-Id: 00000000000000000000000000000000' | tail -n 1)"

# DELETE ends the session
echo "DELETE: $(curl -s -o /dev/null -w '%{http_code}' -X DELETE -H "Mcp-Session-Id: $sid" "$url")"
kill -TERM $pid
wait $pid
echo "server exit status: $?"
rm -f "$err" "$err.head"
