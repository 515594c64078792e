#!/bin/bash
# run.sh [QUARRY]: quarry's SPARQL engine against Oxigraph (npm `oxigraph`, installed here
# into bench/sparql/.node on first run) on the same synthetic code graph (gen.awk:
# ~50,000 functions, ~600,000 triples, N-Triples) and ten queries agents ask
# (queries.txt). Prints the load times, each query's best time over REPEAT runs in the
# process (the graph already loaded), both row counts, and the ratio quarry / Oxigraph
# (below 1: quarry is faster).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
Q=${1:-$root/build/quarry}
REPEAT=${REPEAT:-5}
[ -x "$Q" ] || { echo "run.sh: no quarry binary at '$Q' (give its path)" >&2; exit 2; }
command -v node >/dev/null || { echo "run.sh: needs node and npm (Debian: nodejs npm)" >&2; exit 2; }
if [ ! -d "$here/.node/node_modules/oxigraph" ]; then
  mkdir -p "$here/.node"
  (cd "$here/.node" && npm install --silent --no-audit --no-fund oxigraph@0.5 >/dev/null)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
awk -v MODS=40 -v FILES=50 -v FUNCS=25 -v CALLS=4 -f "$here/gen.awk" > "$work/graph.nt"
echo "graph: $(wc -l < "$work/graph.nt") triples"
cp "$here/oxigraph_bench.mjs" "$here/.node/"
node "$here/.node/oxigraph_bench.mjs" "$work/graph.nt" "$here/queries.txt" "$REPEAT" > "$work/ox.txt"
ox_load=$(awk '$1 == "load" { print $2 }' "$work/ox.txt")
printf '%-16s %10s %10s %8s %8s %7s\n' query quarry_ms oxigraph_ms q_rows o_rows ratio
q_load=
while IFS='	' read -r name query; do
  case $name in '#'*|'') continue ;; esac
  "$Q" sparql --data "$work/graph.nt" --repeat "$REPEAT" --format tsv "$query" > /dev/null 2> "$work/q.err"
  [ -n "$q_load" ] || q_load=$(sed -n 's/^load: \([0-9.]*\) ms.*/\1/p' "$work/q.err")
  q_ms=$(sed -n 's/^query: best \([0-9.]*\) ms.*/\1/p' "$work/q.err")
  q_rows=$(sed -n 's/.*runs, \([0-9]*\) rows/\1/p' "$work/q.err")
  read -r _ o_ms _ o_rows < <(awk -v n="$name" '$1 == n' "$work/ox.txt")
  ratio=$(awk -v a="$q_ms" -v b="$o_ms" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
  printf '%-16s %10s %10s %8s %8s %7s\n' "$name" "$q_ms" "$o_ms" "$q_rows" "$o_rows" "$ratio"
done < "$here/queries.txt"
printf 'load: quarry %s ms, oxigraph %s ms, ratio %s\n' "$q_load" "$ox_load" \
  "$(awk -v a="$q_load" -v b="$ox_load" 'BEGIN { printf "%.2f", a / b }')"
