#!/usr/bin/env bash
# run.sh -- cancel latency over MCP: for each kind of long work (SPARQL, a program looping
# over tools, SPARQL inside a program, code indexing, a model call), over stdio and over
# Streamable HTTP, the time from the official SDK client's cancel to the answer of the next
# call on a one-worker server (which can only run once the cancelled work has stopped).
# It runs tests/cli/32_mcp_cancel.sh, which builds the fixtures and asserts the behaviour,
# and prints what that run measured. Target: every figure under 200 ms.
#
# Usage: bench/cancel/run.sh [QUARRY_BINARY]     (default: build/quarry)
# Exit status: 0 (it reports, it does not gate), 1 when the test itself failed.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
QUARRY=${1:-$ROOT/build/quarry}
[ -x "$QUARRY" ] || { echo "run.sh: no quarry binary at $QUARRY" >&2; exit 2; }
REPORT=$(mktemp)
trap 'rm -f "$REPORT"' EXIT
if ! QUARRY_CANCEL_REPORT=$REPORT sh "$ROOT/tests/cli/32_mcp_cancel.sh" "$QUARRY" >/dev/null; then
  echo "run.sh: tests/cli/32_mcp_cancel.sh failed; run it for the details" >&2
  exit 1
fi
python3 - "$REPORT" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(f"{'transport':<10} {'long work cancelled':<48} {'to next answer':>14}")
for r in rows:
    print(f"{r['transport']:<10} {r['case']:<48} {r['ms']:>11} ms")
worst = max(r["ms"] for r in rows)
print(f"worst {worst} ms against the 200 ms target: {'met' if worst < 200 else 'MISSED'}")
PY
