#!/bin/bash
# run.sh [QUARRY [STORE]]: the pipeline benchmark on a generated store of 100,000 notes
# and 1,000,000 links (gen.sh; deterministic). Prints, warm:
#   (1) all | type:episodic | weight:>0.3 | not-visited:linker,7d | sort:weight | limit:20
#       (target: under 20 ms), and the same query in plain SQL by the sqlite3 CLI on the
#       same file, with the ratio
#   (2) spread, 3 hops from 5 seeds (target: under 50 ms)
#   (3) match: on two terms (target: under 10 ms), rare terms and common ones
#   (4) the one-time spectral embedding (computed, then read back from STORE.spectral)
# Each pipeline is timed two ways: in the process (`quarry mem query --repeat N`: the
# pipeline alone, the snapshot already loaded; best and median of N), and as whole CLI
# runs (hyperfine when installed, else a shell loop; best of N), which include starting
# the process and loading the store's snapshot (about 0.3 s for 1M links).
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
Q=${1:-$here/build/quarry}
S=${2:-/tmp/quarry-bench-memory.db}
RUNS=${RUNS:-10}
REPEAT=${REPEAT:-50}
NOW="--now 2026-03-10T00:00:00Z"
[ -x "$Q" ] || { echo "run.sh: no quarry binary at '$Q' (give its path)" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "run.sh: needs the sqlite3 CLI (Debian package sqlite3)" >&2; exit 2; }

t0=$(date +%s.%N)
sh "$here/bench/memory/gen.sh" "$Q" "$S" >/dev/null
printf 'store: %s, generated in %.1f s\n' "$S" "$(echo "$(date +%s.%N) - $t0" | bc)"
"$Q" mem stats --store "$S" --format json | grep -o '"\(nodes\|edges\|visits\)":[0-9]*' | tr '\n' ' ' | sed 's/^/  /; s/ $/\n/'

# best wall time of RUNS runs of a command, in ms
cli_ms() {
  if command -v hyperfine >/dev/null; then
    hyperfine -N --warmup 2 --runs "$RUNS" --export-json /tmp/quarry-bench-hf.json "$@" >/dev/null 2>&1
    sed -n 's/.*"min": *\([0-9.e-]*\).*/\1/p' /tmp/quarry-bench-hf.json | head -1 | awk '{ printf "%.1f", $1 * 1000 }'
  else
    best=
    for _ in $(seq "$RUNS"); do
      a=$(date +%s%N); sh -c "$1" >/dev/null 2>&1; b=$(date +%s%N)
      ms=$(( (b - a) / 1000000 ))
      if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
    done
    printf '%s' "$best"
  fi
}

# in-process best and median of REPEAT runs
inproc() {
  "$Q" mem query "$1" --store "$S" $NOW --repeat "$REPEAT" --format json 2>&1 >/dev/null |
    sed -n 's/.*best \([0-9.]*\) ms, median \([0-9.]*\) ms.*/best \1 ms, median \2 ms/p'
}

rows() { "$Q" mem query "$1" --store "$S" $NOW --format json | grep -c '"key"' || true; }

bench() {
  name=$1 pipeline=$2 target=$3
  printf '%s  %s\n' "$name" "$pipeline"
  printf '  rows: %s; in process: %s (target %s); CLI: %s ms\n' "$(rows "$pipeline")" \
    "$(inproc "$pipeline")" "$target" \
    "$(cli_ms "$Q mem query '$pipeline' --store $S $NOW --format json")"
}

echo
echo "(4) spectral embedding (8 dimensions), once per graph:"
rm -f "$S.spectral"
"$Q" mem query 'key:note#1[0-4] | spectral,k=5' --store "$S" $NOW --explain --format json 2>&1 >/dev/null |
  sed -n 's/.*\(embedding: computed in [0-9.]* s\).*/  \1 (written to STORE.spectral)/p'
"$Q" mem query 'key:note#1[0-4] | spectral,k=5' --store "$S" $NOW --explain --format json 2>&1 >/dev/null |
  sed -n 's/^ *3  spectral,k=5 *[0-9]* *\([0-9.]*\) ms.*/  next run: the stage took \1 ms (embedding read from STORE.spectral)/p'

echo
P1='all | type:episodic | weight:>0.3 | not-visited:linker,7d | sort:weight | limit:20'
bench "(1)" "$P1" "20 ms"
SQL="SELECT n.key, n.type, n.weight, n.modified FROM nodes n
 WHERE n.deleted IS NULL AND (n.type = 'episodic' OR n.type LIKE 'episodic-%') AND n.weight > 0.3
   AND NOT EXISTS (SELECT 1 FROM visits v WHERE v.node = n.id AND v.agent = 'linker'
                   AND v.time > 1773100800 - 7 * 86400)
 ORDER BY n.weight DESC, n.key LIMIT 20;"
# in process: the best of 5 runs in one sqlite3 session (the first warms its page cache)
sql_in=$( (echo '.timer on'; for _ in 1 2 3 4 5 6; do printf '%s\n' "$SQL"; done) | sqlite3 "$S" |
  sed -n 's/Run Time: real \([0-9.]*\).*/\1/p' | tail -n +2 | sort -n | head -1 | awk '{ printf "%.1f", $1 * 1000 }')
sql_rows=$(printf '%s\n' "$SQL" | sqlite3 "$S" | wc -l)
sql_cli=$(cli_ms "sqlite3 $S \"$SQL\"")
q_in=$(inproc "$P1" | sed -n 's/best \([0-9.]*\) ms.*/\1/p')
q_cli=$(cli_ms "$Q mem query '$P1' --store $S $NOW --format json")
same=$(cmp -s <("$Q" mem query "$P1" --store "$S" $NOW --format json | grep -o '"key":"[^"]*"' | cut -d'"' -f4) \
              <(printf '%s\n' "$SQL" | sqlite3 "$S" | cut -d'|' -f1) && echo "same rows" || echo "ROWS DIFFER")
printf '  plain SQL (sqlite3 CLI): %s rows (%s); in process %s ms, CLI %s ms\n' "$sql_rows" "$same" "$sql_in" "$sql_cli"
printf '  ratio SQL / pipeline: in process %s, CLI %s\n' \
  "$(echo "$sql_in $q_in" | awk '{ printf "%.1fx", $1 / $2 }')" \
  "$(echo "$sql_cli $q_cli" | awk '{ printf "%.2fx", $1 / $2 }')"

echo
bench "(2)" 'key:note#1[0-4] | spread,max_hops=3' "50 ms"
echo
bench "(3)" 'match:t1234 t777' "10 ms"
bench "(3b)" 'match:btree journal | limit:20' "10 ms"
echo
echo "CLI times include the process start and loading the snapshot of the store."
