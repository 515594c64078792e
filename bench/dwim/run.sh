#!/usr/bin/env bash
# run.sh -- what one turn of `quarry do` costs a model, in tokens, against an agent that
# sends every tool's full schema in every request and keeps the transcript.
#
# Usage: bench/dwim/run.sh [QUARRY_BINARY]             (works from any directory)
#
# A scripted task (tests/llm/model_server.py answers from a script, over real HTTP) runs
# on this project's own repository for 10 and for 30 turns of real lines (skeleton,
# expand, read, grep, callers of real files and symbols). For each turn it reads, from
# the server's log, the request quarry actually sent, and prints:
#   dwim       the request's tokens (system role + task path + notes + last preview),
#              estimated as characters / 4 (the server's simulated usage; no tokenizer)
#   schemas    the same turn for an agent with full tool schemas in every request:
#              `quarry tools --format openai` + the same system role + the transcript of
#              every earlier line and its whole result (what a chat agent keeps)
# and the means per turn, for 10 and 30 turns: the dwim figure should stay flat (the
# user message is held within 2,000 characters, src/dwim/loop.c, plus the system role)
# while the schema agent's grows with the turns.
#
# Exit status: 0 (this reports, it does not gate); 1 when a command fails.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
Q=${1:-"$root/build/quarry"}
case $Q in /*) ;; *) Q="$PWD/$Q" ;; esac
TMP=$(mktemp -d)
SERVER_PID=
trap '[ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
command -v python3 >/dev/null || { echo "bench/dwim: needs python3"; exit 1; }

schema_chars=$("$Q" tools --format openai | wc -c)
lines=(
  "skeleton src/lisp/eval.c" "expand lx_eval" "callers lx_eval" "read src/base/arena.c:1-40"
  "grep 'qr_edit_distance'" "skeleton src/dwim" "expand qr_dwim_parse" "deps src/dwim/parse.c"
  "read include/quarry/dwim.h:1-30" "skeleton src/base/buf.c" "expand qr_buf_printf"
  "grep 'QR_EDIT_FOLD'" "callers qr_buf_printf" "skeleton include/quarry/tools.h"
  "expand qr_tools_call"
)
run() { # run N: N turns, the last one "done"
  n=$1
  python3 - "$TMP/script.json" "$n" "${lines[@]}" <<'PY'
import json, sys
out, n, lines = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
steps = [{"text": lines[i] if i < len(lines) else f"read src/lisp/eval.c:{i * 10}-{i * 10 + 9}"}
         for i in range(n - 1)]
steps.append({"text": "done: read what was asked"})
json.dump({"responses": steps}, open(out, "w"))
PY
  rm -f "$TMP/port" "$TMP/log.jsonl" "$TMP/trace.jsonl"
  python3 "$root/tests/llm/model_server.py" --script "$TMP/script.json" --log "$TMP/log.jsonl" \
    --port-file "$TMP/port" 2>"$TMP/server.err" &
  SERVER_PID=$!
  for _ in $(seq 200); do [ -s "$TMP/port" ] && break; sleep 0.05; done
  QUARRY_LLM_URL="http://127.0.0.1:$(cat "$TMP/port")/v1" QUARRY_LLM_MODEL=bench \
    QUARRY_LLM_MAX_RETRIES=0 "$Q" do "read the evaluator and the dwim parser" \
    --repo "$root" --max-turns "$n" --trace "$TMP/trace.jsonl" >"$TMP/out.txt" 2>&1 || {
    echo "bench/dwim: quarry do failed:"; cat "$TMP/out.txt"; exit 1; }
  kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=
  python3 - "$TMP/log.jsonl" "$TMP/trace.jsonl" "$schema_chars" "$n" <<'PY'
import json, sys
log = [json.loads(l) for l in open(sys.argv[1])]
trace = [t for t in map(json.loads, open(sys.argv[2])) if t.get("event") == "turn"]
schema, n = int(sys.argv[3]), int(sys.argv[4])
dwim, full, transcript = [], [], 0
for req, t in zip(log, trace):
    body = req["body"]
    system = sum(len(m["content"]) for m in body["messages"] if m["role"] == "system")
    user = sum(len(m["content"]) for m in body["messages"] if m["role"] != "system")
    dwim.append((system + user) / 4)
    full.append((schema + system + len(t["line"] or "") + transcript) / 4)
    transcript += len(t["line"] or "") + t.get("result_chars", 0)
print(f"{n:>3} turns: dwim {sum(dwim)/len(dwim):7.0f} tokens/turn (first {dwim[0]:.0f}, "
      f"last {dwim[-1]:.0f}, max {max(dwim):.0f}); full schemas + transcript "
      f"{sum(full)/len(full):7.0f} tokens/turn (last {full[-1]:.0f}); "
      f"ratio {sum(full)/sum(dwim):.1f}x")
PY
}
echo "bench/dwim: tool schemas (quarry tools --format openai): $schema_chars chars, ~$((schema_chars / 4)) tokens"
run 10
run 30
