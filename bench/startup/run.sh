#!/usr/bin/env bash
# run.sh -- start-up: `quarry lisp -e nil` against `lua5.4 -e ''` (the anchor: a small
# interpreter that starts about as fast as a process can), each as a fresh process, in
# the same run on the same machine, and the ratio of their times. Target: within 1.5x.
# Also `quarry version` (the smallest command) and `quarry tools --format mcp` (builds the
# served tool list without opening a repository).
#
# Usage: bench/startup/run.sh [QUARRY_BINARY]     (default: build/quarry)
# Environment: BENCH_RUNS (default 300 runs of each, in alternating rounds so that a
# burst of load on the machine falls on both sides alike).
# Exit status: 0 (it reports, it does not gate); 2 when lua5.4 is missing (`make bench`
# installs it through scripts/deps.sh --bench).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
QUARRY=${1:-$ROOT/build/quarry}
RUNS=${BENCH_RUNS:-300}
command -v lua5.4 >/dev/null || { echo "run.sh: lua5.4 is not installed (run scripts/deps.sh --bench)" >&2; exit 2; }
[ -x "$QUARRY" ] || { echo "run.sh: no quarry binary at $QUARRY" >&2; exit 2; }

# loop ROUNDS CMD...: wall nanoseconds of ROUNDS runs of CMD
loop() {
  local n=$1; shift
  local t0 t1 i
  t0=$(date +%s%N)
  for ((i = 0; i < n; i++)); do "$@" >/dev/null; done
  t1=$(date +%s%N)
  echo $((t1 - t0))
}

declare -A total=([lua]=0 [lisp]=0 [version]=0 [tools]=0)
ROUNDS=10
per=$((RUNS / ROUNDS))
for ((r = 0; r < ROUNDS; r++)); do
  total[lua]=$((total[lua] + $(loop $per lua5.4 -e '')))
  total[lisp]=$((total[lisp] + $(loop $per "$QUARRY" lisp -e nil)))
  total[version]=$((total[version] + $(loop $per "$QUARRY" version)))
  total[tools]=$((total[tools] + $(loop $((per / 5 + 1)) "$QUARRY" tools --format mcp)))
done
ms() { awk -v t="$1" -v n="$2" 'BEGIN { printf "%.2f", t / n / 1e6 }'; }
lua=$(ms "${total[lua]}" $((per * ROUNDS)))
lisp=$(ms "${total[lisp]}" $((per * ROUNDS)))
version=$(ms "${total[version]}" $((per * ROUNDS)))
tools=$(ms "${total[tools]}" $(((per / 5 + 1) * ROUNDS)))
ratio=$(awk -v a="$lisp" -v b="$lua" 'BEGIN { printf "%.2f", a / b }')
verdict=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.5) ? "met" : "MISSED" }')
echo
echo "quarry start-up -- fresh processes, mean of $((per * ROUNDS)) runs each ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
printf '  %-34s %8s ms\n' "lua5.4 -e ''" "$lua"
printf '  %-34s %8s ms   %sx lua (<= 1.5: %s)\n' "quarry lisp -e nil" "$lisp" "$ratio" "$verdict"
printf '  %-34s %8s ms\n' "quarry version" "$version"
printf '  %-34s %8s ms\n' "quarry tools --format mcp" "$tools"
printf '  shared libraries mapped at start: %s\n' "$(ldd "$QUARRY" | grep -c '=>')"
