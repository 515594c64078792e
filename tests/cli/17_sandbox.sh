# 17_sandbox.sh: hostile input ends in a typed error within the limits (issue 11, part 2).
# Deep prefix forms (100,000 ' or #' and 50,000 #_) through every surface that reads
# programs, queries or data (`quarry lisp`, `quarry query`, `quarry compile`, --data EDN,
# MCP run_lisp, model replies read by `quarry ask`; MCP run_query takes its query as
# JSON, whose depth 07 tests); functions built at run time 100,000 deep; a small value
# that shares its parts (2^60 leaves) printed, compared, hashed and sorted. Each must end
# with its typed error and exit code, within its time limit, with peak memory under the
# limit plus 50 MB, and the MCP server must keep answering after each.
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
  echo "skipped: python3 is not installed (it measures peak memory)"
  exit 77
fi

# python3 peak.py OUT COMMAND...: runs COMMAND (stdin passed on) with a time limit of its
# own, so a hang fails instead of blocking the suite; writes "EXIT PEAK-KB" to OUT
cat > "$TMP/peak.py" <<'PY'
import resource, subprocess, sys
try:
    rc = subprocess.run(sys.argv[2:], timeout=120).returncode
except subprocess.TimeoutExpired:
    rc = "hang"
kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
open(sys.argv[1], "w").write("%s %d\n" % (rc, kb))
PY

# repeat N TEXT: TEXT N times, no newline
repeat() {
  awk -v n="$1" -v s="$2" 'BEGIN { out = ""; for (i = 0; i < n; i++) printf "%s", s }'
}
repeat 100000 "'" > "$TMP/quotes.clj";   printf 'a\n' >> "$TMP/quotes.clj"
repeat 50000 '#_' > "$TMP/discards.clj"; printf 'a\n' >> "$TMP/discards.clj"
repeat 100000 "#'" > "$TMP/vars.clj";    printf 'a\n' >> "$TMP/vars.clj"
repeat 100000 '#x ' > "$TMP/tags.clj";   printf 'a\n' >> "$TMP/tags.clj"

# bounded DESC WANT-RC WANT-STDERR MAX-MEMORY-MB COMMAND...: runs COMMAND (peak.py) and
# checks its exit code, that stderr names the error (none to name: WANT-STDERR empty), and
# that its peak memory (ru_maxrss) is under MAX + 50 MB
bounded() {
  desc=$1 want_rc=$2 want_err=$3 max_mb=$4; shift 4
  python3 "$TMP/peak.py" "$TMP/peak" "$@" >"$TMP/stdout" 2>"$TMP/stderr"
  read -r rc kb < "$TMP/peak"
  if [ "$rc" != "$want_rc" ]; then
    echo "FAIL: $desc: exit $rc, want $want_rc"; sed 's/^/  /' "$TMP/stderr" | cut -c1-300
    FAILS=$((FAILS + 1))
  elif [ -n "$want_err" ] && ! grep -qF -- "$want_err" "$TMP/stderr"; then
    echo "FAIL: $desc: stderr lacks '$want_err'"; sed 's/^/  /' "$TMP/stderr" | cut -c1-300
    FAILS=$((FAILS + 1))
  elif [ "$kb" -gt $(((max_mb + 50) * 1024)) ]; then
    echo "FAIL: $desc: peak memory $((kb / 1024)) MB, over $max_mb MB + 50 MB"
    FAILS=$((FAILS + 1))
  fi
}

# ---- the readers: a parse error (exit 2), never a crash ----
DEEP="forms nested deeper than 1000 levels"
for f in quotes discards vars tags; do
  bounded "lisp: $f" 2 "$DEEP" 64 "$Q" lisp "$TMP/$f.clj"
  bounded "lisp from stdin: $f" 2 "$DEEP" 64 sh -c "\"$Q\" lisp < \"$TMP/$f.clj\""
done
for f in discards tags; do
  bounded "query: $f" 2 "$DEEP" 64 sh -c "\"$Q\" query - < \"$TMP/$f.clj\""
  bounded "compile: $f" 2 "$DEEP" 64 sh -c "\"$Q\" compile - < \"$TMP/$f.clj\""
  { printf '{:a '; cat "$TMP/$f.clj"; printf '}\n'; } > "$TMP/$f.edn"
  bounded "--data EDN: $f" 2 "$DEEP" 64 "$Q" lisp --data "$TMP/$f.edn" -e 'data/a'
done
# a JSON context nested past the limit
{ repeat 5000 '['; repeat 5000 ']'; } > "$TMP/deep.json"
bounded "--data JSON: deep arrays" 2 "nested deeper than 1000 levels" 64 \
  "$Q" lisp --data "$TMP/deep.json" -e '1'
# nesting up to the limit still reads
{ printf "'"; repeat 998 '['; repeat 998 ']'; } > "$TMP/ok.clj"
expect_rc "999 levels read and run" 0 "$Q" lisp "$TMP/ok.clj"
{ repeat 900 "'"; printf 'a\n'; } > "$TMP/ok_quotes.clj"
expect_rc "900 quotes read and run" 0 "$Q" lisp "$TMP/ok_quotes.clj"

# ---- work the program asks for: a runtime error (exit 1) ----
DAG='(defn dag [n] (reduce (fn [a _] [a a]) [] (range n)))'
bounded "juxt 100,000 deep" 1 "depth-limit" 64 \
  "$Q" lisp --timeout-ms 60000 -e '((loop [f inc i 0] (if (< i 100000) (recur (juxt f) (inc i)) f)) 0)'
bounded "comp 300,000 deep" 1 "depth-limit" 64 \
  "$Q" lisp --timeout-ms 60000 -e '((loop [f inc i 0] (if (< i 300000) (recur (comp inc f) (inc i)) f)) 0)'
bounded "every-pred 100,000 deep" 1 "depth-limit" 64 \
  "$Q" lisp --timeout-ms 60000 -e '((loop [f inc i 0] (if (< i 100000) (recur (every-pred f) (inc i)) f)) 0)'
for e in '(dag 60)' '(str (dag 60))' '(pr-str (dag 60))' '(format "%s" (dag 60))'; do
  bounded "print $e" 1 "memory-exceeded" 16 "$Q" lisp --max-memory 16M --timeout-ms 60000 -e "$DAG $e"
done
# a string near the memory limit is built once, in place (the scratch copy held it twice:
# 168 MB for an 84 MB string under --max-memory 96M); it fits and the peak stays under
# the limit + 50 MB
for e in '(str (dag 24))' '(pr-str (dag 24))' '(print-str (dag 24))'; do
  bounded "$e near --max-memory: one copy" 0 "" 96 \
    "$Q" lisp --max-memory 96M --timeout-ms 120000 -e "$DAG (count $e)"
  [ "$(cat "$TMP/stdout")" = 83886077 ] || { echo "FAIL: (count $e): $(head -c 100 "$TMP/stdout")"; FAILS=$((FAILS + 1)); }
done
bounded "result as JSON" 1 "memory-exceeded" 16 \
  "$Q" lisp --format json --max-memory 16M --timeout-ms 60000 -e "$DAG (dag 60)"
for e in '(= (dag 28) (dag 28))' '(sort [(dag 60) (dag 60)])' '(distinct [(dag 60) (dag 60)])' \
         '(frequencies [(dag 60) (dag 60)])' '(contains? #{(dag 60)} (dag 60))'; do
  bounded "$e under --timeout-ms 100" 1 "timeout" 64 "$Q" lisp --timeout-ms 100 -e "$DAG $e"
done
bounded "(inc dag) quotes it short" 1 "type-error" 64 "$Q" lisp -e "$DAG (inc (dag 60))"
if [ "$(wc -c < "$TMP/stderr")" -gt 400 ]; then
  echo "FAIL: (inc dag): the error line is $(wc -c < "$TMP/stderr") bytes"; FAILS=$((FAILS + 1))
fi
bounded "(fail dag)" 1 "fail" 64 "$Q" lisp -e "$DAG (fail (dag 60))"
expect_out "println stops at the output limit" "[[[[[[[[[[nil" "$Q" lisp --max-output 10 -e "$DAG (println (dag 60))"

# ---- MCP: each call fails with its error, and the server keeps answering ----
if command -v git >/dev/null 2>&1; then
  export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
  unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY
  mkdir -p "$HOME"
  R="$TMP/repo"
  git init -q -b main "$R"
  printf 'x\n' > "$R/a.txt"
  git -C "$R" add -A
  GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@example.com GIT_AUTHOR_DATE=2024-03-01T10:00:00Z \
  GIT_COMMITTER_NAME=Ann GIT_COMMITTER_EMAIL=ann@example.com GIT_COMMITTER_DATE=2024-03-01T10:00:00Z \
    git -C "$R" commit -q -m "Add a"
  quotes=$(repeat 100000 "'")
  discards=$(repeat 50000 '#_')
  INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sh","version":"0"}}}'
  INITED='{"jsonrpc":"2.0","method":"notifications/initialized"}'
  # call ID PROGRAM: a run_lisp request
  call() {
    printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"run_lisp","arguments":{"program":"%s"}}}\n' "$1" "$2"
  }
  # mcp_session NAME ARGS...: quarry mcp ARGS on $TMP/NAME.in in the fixture repository;
  # it must exit 0 with peak memory under its 64 MB limit + 50 MB
  mcp_session() {
    name=$1; shift
    (cd "$R" && python3 "$TMP/peak.py" "$TMP/peak" "$Q" mcp "$@" < "$TMP/$name.in" > "$TMP/$name.out" 2> "$TMP/$name.err")
    read -r rc kb < "$TMP/peak"
    [ "$rc" = 0 ] || { echo "FAIL: $name: mcp exited $rc"; sed 's/^/  /' "$TMP/$name.err"; FAILS=$((FAILS + 1)); }
    [ "$kb" -le $(((64 + 50) * 1024)) ] || { echo "FAIL: $name: peak memory $((kb / 1024)) MB"; FAILS=$((FAILS + 1)); }
  }
  # mcp_answer NAME ID SUBSTRING: the answer to request ID contains SUBSTRING
  mcp_answer() {
    line=$(grep -F "\"id\":$2," "$TMP/$1.out" | head -1)
    case $line in
      *"$3"*) ;;
      *) echo "FAIL: $1: answer $2 lacks '$3': $(printf '%s' "$line" | cut -c1-300)"; FAILS=$((FAILS + 1)) ;;
    esac
  }
  # limits that end each call at the same limit on any machine: memory, then time
  {
    echo "$INIT"; echo "$INITED"
    call 1 "${quotes}a"
    call 2 "${discards}a"
    call 3 '((loop [f inc i 0] (if (< i 20000) (recur (juxt f) (inc i)) f)) 0)'
    call 4 "$DAG (dag 60)"
    call 5 "$DAG (tool/get_commits {:author (dag 60)})"
    call 6 "$DAG (str (dag 60))"
    call 7 '(+ 1 2)'
    printf '%s\n' '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"run_query","arguments":{"query":{"fetch":[{"tool":"get_commits","as":"commits"}],"return":{"findings":"commits","summary":"{{count:commits}} commits"}}}}}'
  } > "$TMP/mcp_memory.in"
  mcp_session mcp_memory --max-memory 4M --timeout-ms 60000
  mcp_answer mcp_memory 1 "parse-error at 1:1001: forms nested deeper than 1000 levels"
  mcp_answer mcp_memory 2 "parse-error at 1:2003: forms nested deeper than 1000 levels"
  mcp_answer mcp_memory 3 "depth-limit"
  mcp_answer mcp_memory 4 "memory-exceeded: the program's value prints to more than 4194304 bytes"
  mcp_answer mcp_memory 5 "memory-exceeded: the tool's argument map prints to more than 4194304 bytes"
  mcp_answer mcp_memory 6 "memory-exceeded"
  mcp_answer mcp_memory 7 '"structuredContent":{"result":3}'
  mcp_answer mcp_memory 8 '1 commits'
  {
    echo "$INIT"; echo "$INITED"
    call 1 "$DAG (= (dag 60) (dag 60))"
    call 2 "$DAG (count (distinct [(dag 60) (dag 60)]))"
    call 3 '(+ 1 2)'
  } > "$TMP/mcp_time.in"
  mcp_session mcp_time --timeout-ms 100
  mcp_answer mcp_time 1 "timeout"
  mcp_answer mcp_time 2 "timeout"
  mcp_answer mcp_time 3 '"structuredContent":{"result":3}'

  # ---- quarry ask: model replies holding deep prefix forms are refused, not a crash ----
  unset QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_LLM_API_KEY QUARRY_LLM_PROVIDER QUARRY_LLM_STREAM
  python3 - "$TMP/model.json" <<'PY'
import json, sys
edn = "```edn\n{:mode :query :query " + "#_" * 50000 + "{}}\n```\n"
lisp = "```clojure\n" + "'" * 100000 + "a\n```\n"
json.dump({"responses": [{"text": edn}, {"text": lisp}]}, open(sys.argv[1], "w"))
PY
  llm_serve "$TMP/model.json"
  cd "$R"
  bounded "ask: deep replies" 1 "ask-failed" 64 env QUARRY_LLM_API_KEY=sk-test QUARRY_LLM_MAX_RETRIES=0 \
    "$Q" ask --no-router "rank authors by a risk score"
  cd - >/dev/null
  [ "$(wc -l < "$TMP/log.jsonl" | tr -d ' ')" = 2 ] || { echo "FAIL: ask: want 2 model calls"; FAILS=$((FAILS + 1)); }
  llm_unserve
fi

finish
