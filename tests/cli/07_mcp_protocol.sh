# 07_mcp_protocol.sh: `quarry mcp` fed malformed and hostile input on stdin, line by line:
# bad JSON, batches, wrong jsonrpc versions, ids of the wrong type, unknown methods,
# requests without ids, params of the wrong type, calls before initialize, messages over
# the size limit (with the id found anyway), deep nesting, NUL bytes and bad UTF-8,
# cancellations (of the running request, of a queued one, of an unknown id), progress and
# log notifications, version negotiation, and a client that disappears (end of input,
# EPIPE). Each answer is compared with what JSON-RPC 2.0 and MCP 2025-11-25 say it must
# be, every line the server writes must be one valid JSON object, and the server must
# exit with status 0 when the client goes away.
. "$(dirname "$0")/lib.sh"

if ! command -v git >/dev/null 2>&1; then
  echo "skipped: git is not installed"
  exit 77
fi
export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY
mkdir -p "$HOME"

# a fixture: 1,100 commits by one author (enough for the git layer to report progress)
R="$TMP/repo"
git init -q -b main "$R"
i=1
while [ $i -le 1100 ]; do
  printf 'commit refs/heads/main\ncommitter Ann <ann@example.com> %d +0000\ndata 10\nstep %04d\nM 644 inline f%d.txt\ndata 10\nstep %04d\n\n' \
    $((1700000000 + i * 60)) $i $((i % 5)) $i
  i=$((i + 1))
done | git -C "$R" fast-import --quiet
git -C "$R" reset -q --hard main

INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"0"}}}'
INITED='{"jsonrpc":"2.0","method":"notifications/initialized"}'

# session NAME [ARGS...]: runs `quarry mcp ARGS` on $TMP/NAME.in, writing $TMP/NAME.out
# and $TMP/NAME.rc; every output line must be a JSON object
session() {
  name=$1; shift
  "$Q" mcp "$@" < "$TMP/$name.in" > "$TMP/$name.out" 2> "$TMP/$name.err"
  echo $? > "$TMP/$name.rc"
  if [ "$(cat "$TMP/$name.rc")" != 0 ]; then
    echo "FAIL: $name: quarry mcp exited $(cat "$TMP/$name.rc")"; sed 's/^/  /' "$TMP/$name.err"
    FAILS=$((FAILS + 1))
  fi
  n=0
  while IFS= read -r line; do
    n=$((n + 1))
    printf '%s' "$line" > "$TMP/line.json"
    case $line in
      '{"jsonrpc":"2.0",'*'}') ;;
      *) echo "FAIL: $name: line $n is not a JSON-RPC object: $(printf '%s' "$line" | cut -c1-200)"
         FAILS=$((FAILS + 1)); continue ;;
    esac
    if ! "$Q" lisp --data "$TMP/line.json" -e 1 >/dev/null 2>"$TMP/line.err"; then
      echo "FAIL: $name: line $n is not valid JSON: $(cut -c1-200 "$TMP/line.err")"
      FAILS=$((FAILS + 1))
    fi
  done < "$TMP/$name.out"
}

# expect_lines NAME: the output of session NAME must be the lines on stdin
expect_lines() {
  cat > "$TMP/$1.want"
  if ! cmp -s "$TMP/$1.want" "$TMP/$1.out"; then
    echo "FAIL: $1: output differs (- want, + got):"
    diff "$TMP/$1.want" "$TMP/$1.out" | sed 's/^/  /' | head -40
    FAILS=$((FAILS + 1))
  fi
}

# expect_lines_any_order NAME: the same, in any order (calls run on a pool of workers, so
# their responses may come before or after the ones answered at once; ids tell them apart)
expect_lines_any_order() {
  LC_ALL=C sort > "$TMP/$1.want"
  LC_ALL=C sort "$TMP/$1.out" > "$TMP/$1.sorted"
  if ! cmp -s "$TMP/$1.want" "$TMP/$1.sorted"; then
    echo "FAIL: $1: output differs, in any order (- want, + got):"
    diff "$TMP/$1.want" "$TMP/$1.sorted" | sed 's/^/  /' | head -40
    FAILS=$((FAILS + 1))
  fi
}

# expect_grep NAME PATTERN [COUNT]: lines of NAME's output matching PATTERN (fixed string)
expect_grep() {
  got=$(grep -cF -- "$2" "$TMP/$1.out")
  want=${3:-1}
  if [ "$got" != "$want" ]; then
    echo "FAIL: $1: $got lines contain '$2', want $want"
    FAILS=$((FAILS + 1))
  fi
}

# ---- the lifecycle, and everything malformed ----
cat > "$TMP/hostile.in" <<'EOF'
{"jsonrpc":"2.0","id":1,"method":"tools/list"}
{"jsonrpc":"2.0","id":2,"method":"ping"}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"capabilities":{}}}
{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2099-01-01","capabilities":{},"clientInfo":{"name":"sh","version":"0"}}}
{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":3,
not json at all
[{"jsonrpc":"2.0","id":1,"method":"ping"}]
[]
"hello"
42
{"jsonrpc":"1.0","id":5,"method":"ping"}
{"id":6,"method":"ping"}
{"jsonrpc":2.0,"id":7,"method":"ping"}
{"jsonrpc":"2.0","id":8,"method":"no/such"}
{"jsonrpc":"2.0","method":"no/such"}
{"jsonrpc":"2.0","method":"ping"}
{"jsonrpc":"2.0","id":null,"method":"ping"}
{"jsonrpc":"2.0","id":1.5,"method":"ping"}
{"jsonrpc":"2.0","id":true,"method":"ping"}
{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}
{"jsonrpc":"2.0","id":9,"method":5}
{"jsonrpc":"2.0","id":10}
{"jsonrpc":"2.0","id":11,"method":"tools/list","params":[1,2]}
{"jsonrpc":"2.0","id":12,"method":"tools/list","params":"x"}
{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":5}}
{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"arguments":{}}}
{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"get_commits","arguments":[1]}}
{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"get_comits"}}
{"jsonrpc":"2.0","id":17,"method":"logging/setLevel","params":{"level":"loud"}}
{"jsonrpc":"2.0","id":18,"method":"logging/setLevel"}
{"jsonrpc":"2.0","id":19,"method":"tools/list","params":{"cursor":"zzz"}}
{"jsonrpc":"2.0","id":20,"method":"tools/list","params":{"cursor":7}}
{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}
{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}
{"jsonrpc":"2.0","method":"notifications/cancelled"}
{"jsonrpc":"2.0","id":21,"method":"notifications/cancelled","params":{"requestId":1}}
{"jsonrpc":"2.0","id":22,"result":{}}
{"jsonrpc":"2.0","id":23,"error":{"code":1,"message":"x"}}
{"jsonrpc":"2.0","id":"s-24","method":"ping"}

   
{"jsonrpc":"2.0","id":25,"method":"ping","params":null}
{"jsonrpc":"2.0","id":26,"method":"tools/call","params":{"name":"get_commits","arguments":{"repo":"/nonexistent/quarry"}}}
{"jsonrpc":"2.0","id":27,"method":"tools/call","params":{"name":"get_commits","arguments":{"limit":"ten"}}}
{"jsonrpc":"2.0","id":28,"method":"tools/call","params":{"name":"run_lisp","arguments":{"program":"(+ 1"}}}
{"jsonrpc":"2.0","id":29,"method":"tools/call","params":{"name":"run_lisp","arguments":{"program":"(+ 1 2)"},"_meta":{"progressToken":{"bad":1}}}}
EOF
# a CRLF line, a NUL byte, bad UTF-8, and a last line without a newline
printf '{"jsonrpc":"2.0","id":30,"method":"ping"}\r\n' >> "$TMP/hostile.in"
printf '{"jsonrpc":"2.0","id":31,\000"method":"ping"}\n' >> "$TMP/hostile.in"
printf '{"jsonrpc":"2.0","id":32,"method":"tools/call","params":{"name":"run_lisp","arguments":{"program":"(count \\"a\377b\\")"}}}\n' >> "$TMP/hostile.in"
printf '{"jsonrpc":"2.0","id":33,"method":"ping"}' >> "$TMP/hostile.in"
session hostile --repo "$R"
grep -F '"id":32,' "$TMP/hostile.out" > "$TMP/utf8.line.out"
grep -vF '"id":32,' "$TMP/hostile.out" > "$TMP/hostile.rest" && mv "$TMP/hostile.rest" "$TMP/hostile.out"
expect_lines_any_order hostile <<'EOF'
{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"server not initialized: send 'initialize' first (protocolVersion \"2025-11-25\"), then 'notifications/initialized'"}}
{"jsonrpc":"2.0","id":2,"result":{}}
{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"initialize needs params.protocolVersion, a string such as \"2025-11-25\""}}
{"jsonrpc":"2.0","id":"init","result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":false},"resources":{},"prompts":{},"logging":{}},"serverInfo":{"name":"quarry","version":"0.1.0"},"instructions":"quarry answers questions about a git repository and an agent's memory. History: commits, authors, file churn and line counts of any window (the get_* tools). Code: the repository's code as a graph of files, functions, types, calls and includes (query_codebase; sparql_query for SPARQL over it; search_codebase for a question in plain words). Memory: a store of notes with types, weights, tags and links, read with a pipeline of stages (memory_query, memory_get; the memory tools that write are served only when the server was started with --allow-write memory). dwim takes one terse line (skeleton FILE, expand SYMBOL, read FILE:A-B, grep 'RE', callers SYMBOL) and answers in few tokens. Call one tool for one question; to filter, join or aggregate across calls, send one run_query query or one run_lisp program that calls the tools as (tool/NAME {...}), and get back only what you need. Every tool works on the repository the server was started in, or on the one named by its `repo` argument. Results that are lists come a page at a time: a cut result gives the total and a next_offset to pass as `offset` for the next page; or aggregate in run_query or run_lisp. Tools served: get_commits, get_author_stats, get_file_stats, get_file_history, get_diff_stats, get_diff, get_tags, memory_query, memory_get, query_codebase, sparql_query, search_codebase, run_lisp, run_query, dwim."}}
{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"already initialized with protocol 2025-11-25: initialize is sent once, as the first request"}}
{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error at 1:25: expected a string key in object; send one JSON-RPC message per line"}}
{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error at 1:1: unexpected character 'n': expected a JSON value; send one JSON-RPC message per line"}}
{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batches (JSON arrays of messages) are not supported: send each message as its own line"}}
{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batches (JSON arrays of messages) are not supported: send each message as its own line"}}
{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"a message must be a JSON object, got string \"hello\""}}
{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"a message must be a JSON object, got integer 42"}}
{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"'jsonrpc' must be \"2.0\", got string \"1.0\""}}
{"jsonrpc":"2.0","id":6,"error":{"code":-32600,"message":"'jsonrpc' must be \"2.0\", got nothing"}}
{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"'jsonrpc' must be \"2.0\", got number 2.0"}}
{"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"unknown method 'no/such'; this server speaks MCP 2025-11-25 (initialize, ping, tools/list, tools/call, resources/list, resources/read, resources/templates/list, prompts/list, prompts/get, logging/setLevel)"}}
{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"the request id must be a string or an integer, got null"}}
{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"the request id must be a string or an integer, got number 1.5"}}
{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"the request id must be a string or an integer, got true"}}
{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"the request id must be a string or an integer, got object {\"a\":1}"}}
{"jsonrpc":"2.0","id":9,"error":{"code":-32600,"message":"'method' must be a string, got integer 5"}}
{"jsonrpc":"2.0","id":10,"error":{"code":-32600,"message":"the request has no 'method'"}}
{"jsonrpc":"2.0","id":11,"error":{"code":-32602,"message":"'params' of 'tools/list' must be an object, got array [1,2]"}}
{"jsonrpc":"2.0","id":12,"error":{"code":-32602,"message":"'params' of 'tools/list' must be an object, got string \"x\""}}
{"jsonrpc":"2.0","id":13,"error":{"code":-32602,"message":"tools/call needs params.name, the name of a tool (tools/list lists them)"}}
{"jsonrpc":"2.0","id":14,"error":{"code":-32602,"message":"tools/call needs params.name, the name of a tool (tools/list lists them)"}}
{"jsonrpc":"2.0","id":15,"error":{"code":-32602,"message":"tools/call: params.arguments must be an object of the tool's parameters, got array [1]"}}
{"jsonrpc":"2.0","id":16,"error":{"code":-32602,"message":"unknown tool 'get_comits'; did you mean 'get_commits'? tools: get_commits, get_author_stats, get_file_stats, get_file_history, get_diff_stats, get_diff, get_tags, memory_query, memory_get, query_codebase, sparql_query, search_codebase, run_lisp, run_query, dwim"}}
{"jsonrpc":"2.0","id":17,"error":{"code":-32602,"message":"logging/setLevel: params.level must be one of debug, info, notice, warning, error, critical, alert, emergency; got string \"loud\""}}
{"jsonrpc":"2.0","id":18,"error":{"code":-32602,"message":"logging/setLevel: params.level must be one of debug, info, notice, warning, error, critical, alert, emergency; got nothing"}}
{"jsonrpc":"2.0","id":19,"error":{"code":-32602,"message":"tools/list: invalid cursor string \"zzz\"; pass the nextCursor of the previous page, or no cursor for the first page"}}
{"jsonrpc":"2.0","id":20,"error":{"code":-32602,"message":"tools/list: invalid cursor integer 7; pass the nextCursor of the previous page, or no cursor for the first page"}}
{"jsonrpc":"2.0","id":21,"error":{"code":-32600,"message":"'notifications/cancelled' is a notification: send it without an id"}}
{"jsonrpc":"2.0","id":"s-24","result":{}}
{"jsonrpc":"2.0","id":25,"result":{}}
{"jsonrpc":"2.0","id":26,"result":{"content":[{"type":"text","text":"tool 'get_commits': not a git repository: '/nonexistent/quarry' (nor any parent directory); run inside a repository or give --repo DIR"}],"isError":true}}
{"jsonrpc":"2.0","id":27,"result":{"content":[{"type":"text","text":"tool 'get_commits': parameter 'limit' expects an integer, got string \"ten\""}],"isError":true}}
{"jsonrpc":"2.0","id":28,"result":{"content":[{"type":"text","text":"tool 'run_lisp': parse-error at 1:1: unterminated list: expected ')' before the end of input"}],"isError":true}}
{"jsonrpc":"2.0","id":29,"result":{"content":[{"type":"text","text":"{\"result\":3}"}],"structuredContent":{"result":3},"isError":false}}
{"jsonrpc":"2.0","id":30,"result":{}}
{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error at 1:26: expected a string key in object; send one JSON-RPC message per line"}}
{"jsonrpc":"2.0","id":33,"result":{}}
EOF
# the line with bad UTF-8 is answered (how the reader takes the byte is its business)
expect_grep utf8.line '{"jsonrpc":"2.0","id":32,'

# ---- version negotiation: an older revision gets no outputSchema or structuredContent ----
for v in 2024-11-05 2025-03-26 2025-06-18; do
  printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"$v\",\"capabilities\":{},\"clientInfo\":{\"name\":\"sh\",\"version\":\"0\"}}}" \
    "$INITED" '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_commits","arguments":{"limit":1}}}' > "$TMP/v$v.in"
  session "v$v" --repo "$R"
  expect_grep "v$v" "\"id\":1,\"result\":{\"protocolVersion\":\"$v\""
  if [ $v = 2025-06-18 ]; then n=1; else n=0; fi
  expect_grep "v$v" '"outputSchema"' $n
  expect_grep "v$v" '"structuredContent"' $n
  expect_grep "v$v" 'step 1100' 1
done

# ---- pagination: pages of 4, then the rest ----
printf '%s\n' "$INIT" "$INITED" '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"p4"}}' \
  '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"p400"}}' > "$TMP/pages.in"
session pages --repo "$R" --page-size 4
expect_grep pages '"nextCursor":"p4"}}' 1
expect_grep pages '"id":2,"result":{"tools":[{"name":"get_diff_stats"' 1
expect_grep pages '"id":3,"error":{"code":-32602' 1

# ---- messages over the limit: answered with their id (found by the scanner), then on ----
pad() { head -c "$1" /dev/zero | tr '\0' 'x'; }
{
  echo "$INIT"
  printf '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"run_lisp","arguments":{"program":"%s"}},"id":"big-1"}\n' "$(pad 5000)"
  printf '{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"run_lisp","arguments":{"program":"%s"}}}\n' "$(pad 200000)"
  printf '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"run_lisp","arguments":{"program":"%s","x":{"id":5,"y":["id",{"id":6}]}}},"id":"late \\"id\\""}\n' "$(pad 200000)"
  printf '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"%s"}}\n' "$(pad 200000)"
  printf '{"jsonrpc":"2.0","id":78,"method":"ping","params":{"p":"%s"}}\n' "$(pad 965)"
  printf '{"jsonrpc":"2.0","id":79,"method":"ping","params":{"p":"%s"}}\n' "$(pad 966)"
  echo '{"jsonrpc":"2.0","id":80,"method":"ping"}'
} > "$TMP/big.in"
session big --repo "$R" --max-message 1K
expect_lines big <<'EOF'
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":false},"resources":{},"prompts":{},"logging":{}},"serverInfo":{"name":"quarry","version":"0.1.0"},"instructions":"quarry answers questions about a git repository and an agent's memory. History: commits, authors, file churn and line counts of any window (the get_* tools). Code: the repository's code as a graph of files, functions, types, calls and includes (query_codebase; sparql_query for SPARQL over it; search_codebase for a question in plain words). Memory: a store of notes with types, weights, tags and links, read with a pipeline of stages (memory_query, memory_get; the memory tools that write are served only when the server was started with --allow-write memory). dwim takes one terse line (skeleton FILE, expand SYMBOL, read FILE:A-B, grep 'RE', callers SYMBOL) and answers in few tokens. Call one tool for one question; to filter, join or aggregate across calls, send one run_query query or one run_lisp program that calls the tools as (tool/NAME {...}), and get back only what you need. Every tool works on the repository the server was started in, or on the one named by its `repo` argument. Results that are lists come a page at a time: a cut result gives the total and a next_offset to pass as `offset` for the next page; or aggregate in run_query or run_lisp. Tools served: get_commits, get_author_stats, get_file_stats, get_file_history, get_diff_stats, get_diff, get_tags, memory_query, memory_get, query_codebase, sparql_query, search_codebase, run_lisp, run_query, dwim."}}
{"jsonrpc":"2.0","id":"big-1","error":{"code":-32600,"message":"message of 5108 bytes is larger than the limit of 1024 bytes (quarry mcp --max-message); send large data in smaller pieces","data":{"size":5108,"limit":1024}}}
{"jsonrpc":"2.0","id":77,"error":{"code":-32600,"message":"message of 200103 bytes is larger than the limit of 1024 bytes (quarry mcp --max-message); send large data in smaller pieces","data":{"size":200103,"limit":1024}}}
{"jsonrpc":"2.0","id":"late \"id\"","error":{"code":-32600,"message":"message of 200147 bytes is larger than the limit of 1024 bytes (quarry mcp --max-message); send large data in smaller pieces","data":{"size":200147,"limit":1024}}}
{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"message of 200075 bytes is larger than the limit of 1024 bytes (quarry mcp --max-message); send large data in smaller pieces","data":{"size":200075,"limit":1024}}}
{"jsonrpc":"2.0","id":78,"result":{}}
{"jsonrpc":"2.0","id":79,"error":{"code":-32600,"message":"message of 1025 bytes is larger than the limit of 1024 bytes (quarry mcp --max-message); send large data in smaller pieces","data":{"size":1025,"limit":1024}}}
{"jsonrpc":"2.0","id":80,"result":{}}
EOF

# ---- the default limit (16 MiB): a 17 MB message, its id at the end ----
{
  echo "$INIT"
  printf '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"run_lisp","arguments":{"program":"'
  pad 17000000
  printf '"}},"id":"huge"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n'
} > "$TMP/huge.in"
session huge --repo "$R"
expect_grep huge '{"jsonrpc":"2.0","id":"huge","error":{"code":-32600,"message":"message of 17000107 bytes is larger than the limit of 16777216 bytes' 1
expect_grep huge '{"jsonrpc":"2.0","id":2,"result":{}}' 1

# ---- nesting far deeper than any value may go ----
{
  echo "$INIT"
  printf '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":'; pad 100000 | tr x '['; echo '}}'
  pad 100000 | tr x '{'; echo
  echo '{"jsonrpc":"2.0","id":2,"method":"ping"}'
} > "$TMP/deep.in"
session deep --repo "$R"
expect_grep deep '"id":null,"error":{"code":-32700' 2
expect_grep deep '{"jsonrpc":"2.0","id":2,"result":{}}' 1

# ---- cancellation: of the running request (no response), of a queued one (not run) ----
# With the workers (two here): programs that would spin until their time limit (an hour,
# and steps without limit), so only the cancellation can stop them. Request 51 waits in
# the queue behind two spinning calls; its cancellation comes before theirs, so it is
# dropped unrun; then ping 52 is answered, and nothing for 40, "50", "50b" or 51.
SPIN='(loop [] (recur))'
{
  echo "$INIT"; echo "$INITED"
  echo "{\"jsonrpc\":\"2.0\",\"id\":40,\"method\":\"tools/call\",\"params\":{\"name\":\"run_lisp\",\"arguments\":{\"program\":\"$SPIN\"}}}"
  echo '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":40,"reason":"no longer needed"}}'
  echo '{"jsonrpc":"2.0","id":41,"method":"ping"}'
  echo "{\"jsonrpc\":\"2.0\",\"id\":\"50\",\"method\":\"tools/call\",\"params\":{\"name\":\"run_lisp\",\"arguments\":{\"program\":\"$SPIN\"}}}"
  echo "{\"jsonrpc\":\"2.0\",\"id\":\"50b\",\"method\":\"tools/call\",\"params\":{\"name\":\"run_lisp\",\"arguments\":{\"program\":\"$SPIN\"}}}"
  echo '{"jsonrpc":"2.0","id":51,"method":"tools/call","params":{"name":"run_lisp","arguments":{"program":"(+ 1 2)"}}}'
  echo '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":51}}'
  echo '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"50"}}'
  echo '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"50b"}}'
  echo '{"jsonrpc":"2.0","id":52,"method":"ping"}'
} > "$TMP/pool.in"
session pool --repo "$R" --workers 2 --timeout-ms 3600000 --max-steps 1000000000000000
expect_grep pool '"id":40,' 0
expect_grep pool '{"jsonrpc":"2.0","id":41,"result":{}}' 1
expect_grep pool '"id":"50",' 0
expect_grep pool '"id":"50b",' 0
expect_grep pool '"id":51,' 0
expect_grep pool '{"jsonrpc":"2.0","id":52,"result":{}}' 1
# With one worker, calls run one at a time in order; the reading thread still answers
# ping and takes cancellations at once.
SLOW='(loop [i 0] (if (< i 3000000) (recur (inc i)) i))'
{
  echo "$INIT"; echo "$INITED"
  echo "{\"jsonrpc\":\"2.0\",\"id\":40,\"method\":\"tools/call\",\"params\":{\"name\":\"run_lisp\",\"arguments\":{\"program\":\"$SLOW\"}}}"
  echo '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":40,"reason":"no longer needed"}}'
  echo '{"jsonrpc":"2.0","id":41,"method":"ping"}'
  echo "{\"jsonrpc\":\"2.0\",\"id\":\"50\",\"method\":\"tools/call\",\"params\":{\"name\":\"run_lisp\",\"arguments\":{\"program\":\"$SLOW\"}}}"
  echo '{"jsonrpc":"2.0","id":51,"method":"tools/call","params":{"name":"run_lisp","arguments":{"program":"(+ 1 2)"}}}'
  echo '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":51}}'
  echo '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"50"}}'
  echo '{"jsonrpc":"2.0","id":52,"method":"ping"}'
} > "$TMP/cancel.in"
session cancel --repo "$R" --timeout-ms 60000 --workers 1
expect_grep cancel '"id":40,' 0
expect_grep cancel '{"jsonrpc":"2.0","id":41,"result":{}}' 1
expect_grep cancel '"id":"50",' 0
expect_grep cancel '"id":51,' 0
expect_grep cancel '{"jsonrpc":"2.0","id":52,"result":{}}' 1
# a cancellation with the id as a string does not cancel the integer id 60
{
  echo "$INIT"; echo "$INITED"
  echo "{\"jsonrpc\":\"2.0\",\"id\":60,\"method\":\"tools/call\",\"params\":{\"name\":\"run_lisp\",\"arguments\":{\"program\":\"$SLOW\"}}}"
  echo '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"60"}}'
} > "$TMP/cancel2.in"
session cancel2 --repo "$R" --timeout-ms 60000
expect_grep cancel2 '{"jsonrpc":"2.0","id":60,"result":{"content":[{"type":"text","text":"{\"result\":3000000}"}]' 1

# ---- progress for a request with a progressToken; log messages after setLevel ----
printf '%s\n' "$INIT" "$INITED" '{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_author_stats","arguments":{},"_meta":{"progressToken":"tok-1"}}}' \
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_author_stats","arguments":{}}}' > "$TMP/progress.in"
session progress --repo "$R" --no-index
grep -n . "$TMP/progress.out" | grep -F '"method":"notifications/progress"' > "$TMP/progress.lines"
if ! grep -qF '"progressToken":"tok-1","progress":0,"total":1100,' "$TMP/progress.lines" ||
   ! grep -qF '"progressToken":"tok-1","progress":1100,"total":1100,' "$TMP/progress.lines"; then
  echo "FAIL: progress: want notifications from 0 to 1100 of 1100 for tok-1:"; sed 's/^/  /' "$TMP/progress.lines"
  FAILS=$((FAILS + 1))
fi
# every progress notification comes before the response to request 2, and none after
last=$(tail -n 1 "$TMP/progress.lines" | cut -d: -f1)
resp=$(grep -n '"id":2,"result"' "$TMP/progress.out" | cut -d: -f1)
if [ -z "$last" ] || [ -z "$resp" ] || [ "$last" -ge "$resp" ]; then
  echo "FAIL: progress: notifications must precede the response (last at $last, response at $resp)"
  FAILS=$((FAILS + 1))
fi
expect_grep progress '"progressToken":"tok-1"' "$(wc -l < "$TMP/progress.lines" | tr -d ' ')"
expect_grep progress '"method":"notifications/message","params":{"level":"debug","logger":"quarry","data":"tools/call get_author_stats: ok' 2
expect_grep progress '"author":"Ann","email":"ann@example.com","commits":1100' 2

# ---- the client goes away ----
: > "$TMP/empty.in"
session empty --repo "$R"
expect_lines empty < /dev/null
# input ends in the middle of a call: the call is answered, then the server exits 0
printf '%s\n%s' "$INIT" "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"run_lisp\",\"arguments\":{\"program\":\"$SLOW\"}}}" > "$TMP/midcall.in"
session midcall --repo "$R" --timeout-ms 60000
expect_grep midcall '{"jsonrpc":"2.0","id":9,"result":' 1
# the client stops reading (EPIPE on the next write): exit 0, promptly
if command -v timeout >/dev/null 2>&1; then T="timeout 60"; else T=; fi
( yes '{"jsonrpc":"2.0","id":1,"method":"ping"}' | $T "$Q" mcp --repo "$R" 2>"$TMP/epipe.err"; echo $? > "$TMP/epipe.rc" ) | head -n 2 > "$TMP/epipe.out"
if [ "$(cat "$TMP/epipe.rc")" != 0 ]; then
  echo "FAIL: a client that stops reading: quarry mcp exited $(cat "$TMP/epipe.rc"), want 0"
  sed 's/^/  /' "$TMP/epipe.err"
  FAILS=$((FAILS + 1))
fi
expect_grep epipe '{"jsonrpc":"2.0","id":1,"result":{}}' 2
( printf '%s\n' "$INIT" "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"run_lisp\",\"arguments\":{\"program\":\"$SLOW\"}}}" |
  $T "$Q" mcp --repo "$R" --timeout-ms 60000 2>/dev/null; echo $? > "$TMP/closed.rc" ) | true
expect_out "a client that closes its end before the answer: exit 0" 0 cat "$TMP/closed.rc"

# ---- usage ----
expect_rc "an unknown option" 2 "$Q" mcp --bogus
expect_rc "a bad --max-message" 2 "$Q" mcp --max-message lots
expect_out "--help" "usage: quarry mcp [--repo DIR] [--http ADDR] [OPTIONS]" sh -c "\"$Q\" mcp --help | head -n 1"
finish
