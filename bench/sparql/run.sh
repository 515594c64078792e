#!/bin/bash
# run.sh [QUARRY]: quarry's SPARQL engine against Oxigraph (npm `oxigraph`, installed here
# into bench/sparql/.node on first run) on the same graphs, N-Triples: (1) a synthetic
# code graph (gen.awk: 50,000 functions, ~600,000 triples) and (2) the code graph of this
# repository as quarry builds it (`quarry sparql --export-nt`), each with ten queries
# agents ask (queries.txt; @FN@, @PATH@ and @RE@ name a function, a file and a name
# pattern of that graph). Prints the load times, each query's best time over REPEAT runs
# in the process (the graph already loaded), both row counts, and the ratio
# quarry / Oxigraph (below 1: quarry is faster).
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
bench_graph() { # GRAPH FN PATH RE
  sed "s|@FN@|$2|g; s|@PATH@|$3|g; s|@RE@|$4|g" "$here/queries.txt" > "$work/q.txt"
  echo "graph: $(wc -l < "$1") triples"
  node "$here/.node/oxigraph_bench.mjs" "$1" "$work/q.txt" "$REPEAT" > "$work/ox.txt"
  ox_load=$(awk '$1 == "load" { print $2 }' "$work/ox.txt")
  printf '%-16s %10s %10s %8s %8s %7s\n' query quarry_ms oxigraph_ms q_rows o_rows ratio
  q_load=
  while IFS='	' read -r name query; do
    case $name in '#'*|'') continue ;; esac
    "$Q" sparql --data "$1" --repeat "$REPEAT" --format tsv "$query" > /dev/null 2> "$work/q.err"
    [ -n "$q_load" ] || q_load=$(sed -n 's/^load: \([0-9.]*\) ms.*/\1/p' "$work/q.err")
    q_ms=$(sed -n 's/^query: best \([0-9.]*\) ms.*/\1/p' "$work/q.err")
    q_rows=$(sed -n 's/.*runs, \([0-9]*\) rows/\1/p' "$work/q.err")
    read -r _ o_ms _ o_rows < <(awk -v n="$name" '$1 == n' "$work/ox.txt")
    ratio=$(awk -v a="$q_ms" -v b="$o_ms" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
    printf '%-16s %10s %10s %8s %8s %7s\n' "$name" "$q_ms" "$o_ms" "$q_rows" "$o_rows" "$ratio"
  done < "$work/q.txt"
  printf 'load: quarry %s ms, oxigraph %s ms, ratio %s\n\n' "$q_load" "$ox_load" \
    "$(awk -v a="$q_load" -v b="$ox_load" 'BEGIN { printf "%.2f", a / b }')"
}
cp "$here/oxigraph_bench.mjs" "$here/.node/"
echo "== synthetic code graph"
awk -v MODS=40 -v FILES=50 -v FUNCS=25 -v CALLS=4 -f "$here/gen.awk" > "$work/synth.nt"
bench_graph "$work/synth.nt" fn_11_21_2 src/m12/f4.c '^fn_1[0-9]_2_1[0-9]$'
echo "== the code graph of this repository"
"$Q" sparql --repo "$root" --export-nt "$work/self.nt"
bench_graph "$work/self.nt" qr_buf_init src/sparql/eval.c '^qr_sparql_'
