#!/usr/bin/env bash
# run.sh -- the runaway of issue 21 (bench/flow/runaway.flow: a nested for pushing without
# end) next to the same runaway in quarry lisp (runaway.clj), both under one memory cap:
# each must end with its memory-limit error; prints each one's peak resident memory (from
# /usr/bin/time -v), its wall time and its ratio of peak to cap. Targets (issue 21): the
# flow ends within 2 s and peaks within 20% of the cap.
#
# Usage: bench/flow/run.sh [QUARRY_BINARY]      (default: build/quarry)
# Environment: BENCH_CAP (default 256M, the flow's default budget), BENCH_RUNS (default 3;
# the best time and the highest peak of the runs are shown).
# Exit status: 0 (it reports, it does not gate); 2 when /usr/bin/time is missing.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
QUARRY=${1:-$ROOT/build/quarry}
CAP=${BENCH_CAP:-256M}
RUNS=${BENCH_RUNS:-3}
[ -x /usr/bin/time ] || { echo "run.sh: /usr/bin/time is not installed (apt-get install time)" >&2; exit 2; }
[ -x "$QUARRY" ] || { echo "run.sh: no quarry binary at $QUARRY" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

cap_bytes=$(awk -v c="$CAP" 'BEGIN { n = c + 0; u = toupper(substr(c, length(c)));
  if (u == "K") n *= 1024; else if (u == "M") n *= 1048576; else if (u == "G") n *= 1073741824;
  print n }')

# measure NAME CMD...: the best wall time and highest peak of RUNS runs, and the message
measure() {
  local name=$1; shift
  local best="" peak=0 msg="" i
  for ((i = 0; i < RUNS; i++)); do
    /usr/bin/time -v "$@" >"$TMP/out" 2>"$TMP/err"
    local t kb
    t=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0;
          for (k = 1; k <= n; k++) s = s * 60 + p[k]; print s }' "$TMP/err")
    kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$TMP/err")
    msg=$(grep -m1 -e 'memory limit' -e 'memory-exceeded' "$TMP/err" | cut -c1-90)
    if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi
    if [ "$kb" -gt "$peak" ]; then peak=$kb; fi
  done
  awk -v n="$name" -v t="$best" -v kb="$peak" -v cap="$cap_bytes" -v m="$msg" 'BEGIN {
    printf "%-6s %7.2f s  peak %7.1f MiB  %5.1f%% of the cap  %s\n", n, t, kb / 1024,
           100 * kb * 1024 / cap, (m == "" ? "(no memory-limit error!)" : m) }'
}

echo "runaway under a cap of $CAP ($RUNS runs each; best time, highest peak)"
measure flow "$QUARRY" flow run --max-memory "$CAP" "$HERE/runaway.flow"
measure lisp "$QUARRY" lisp --max-memory "$CAP" --timeout-ms 60000 --max-steps 1000000000 "$HERE/runaway.clj"
