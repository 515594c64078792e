#!/bin/bash
# run.sh [QUARRY]: quarry's SPARQL engine against Oxigraph 0.5.11 (npm `oxigraph`,
# installed on first run into $OXIGRAPH_DIR, by default ~/.cache/quarry-bench-oxigraph,
# never into the tree) on the same graphs, N-Triples:
#   (1) a synthetic code graph (gen.awk: 50,000 functions, ~600,000 triples) and the code
#       graph of a real C tree (this repository, `quarry sparql --export-nt`; CTREE=DIR
#       names another, such as a redis checkout), each with ten queries agents ask
#       (queries.txt; @FN@, @PATH@ and @RE@ name a function, a file and a name pattern);
#   (2) a social and bibliographic graph (gen_social.awk: 1.68M triples with dates and
#       dateTimes with and without zones, decimals, doubles, names beyond ASCII) with the
#       shapes of issue 28 (queries_social.txt: correlated EXISTS, MINUS, top-k ORDER BY,
#       grouping, datatypes).
# Prints the load times, each query's best time over REPEAT runs in the process (the graph
# already loaded and indexed), both row counts, whether single-row answers agree, and the
# ratio quarry / Oxigraph (below 1: quarry is faster); then per graph the geometric mean
# of the ratios and how many queries quarry is ahead on.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
Q=${1:-$root/build/quarry}
REPEAT=${REPEAT:-5}
OX=${OXIGRAPH_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/quarry-bench-oxigraph}
[ -x "$Q" ] || { echo "run.sh: no quarry binary at '$Q' (give its path)" >&2; exit 2; }
command -v node >/dev/null || { echo "run.sh: needs node and npm (Debian: nodejs npm)" >&2; exit 2; }
if [ ! -d "$OX/node_modules/oxigraph" ]; then
  mkdir -p "$OX"
  (cd "$OX" && npm install --silent --no-audit --no-fund oxigraph@0.5.11 >/dev/null)
fi
cp "$here/oxigraph_bench.mjs" "$here/types_oxigraph.mjs" "$OX/"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bench_graph() { # GRAPH QUERIES [FN PATH RE]
  sed "s|@FN@|${3:-}|g; s|@PATH@|${4:-}|g; s|@RE@|${5:-}|g" "$2" > "$work/q.txt"
  echo "graph: $(wc -l < "$1") triples"
  node "$OX/oxigraph_bench.mjs" "$1" "$work/q.txt" "$REPEAT" > "$work/ox.txt"
  ox_load=$(awk '$1 == "load" { print $2 }' "$work/ox.txt")
  printf '%-20s %10s %10s %8s %8s %6s %7s\n' query quarry_ms oxigraph_ms q_rows o_rows agree ratio
  q_load=
  : > "$work/ratios"
  while IFS='	' read -r name query; do
    case $name in '#'*|'') continue ;; esac
    "$Q" sparql --data "$1" --repeat "$REPEAT" --timeout-ms 600000 --format tsv "$query" \
      > "$work/q.out" 2> "$work/q.err" || true
    [ -n "$q_load" ] || q_load=$(sed -n 's/^load: \([0-9.]*\) ms.*/\1/p' "$work/q.err")
    q_ms=$(sed -n 's/^query: best \([0-9.]*\) ms.*/\1/p' "$work/q.err")
    q_rows=$(sed -n 's/.*runs, \([0-9]*\) rows/\1/p' "$work/q.err")
    [ -n "$q_ms" ] || { q_ms=-; q_rows="$(head -c 60 "$work/q.err")"; }
    q_first=$(sed -n 2p "$work/q.out" | tr '\t' '|' | tr ' ' '_')
    read -r _ o_ms _ o_rows o_first < <(awk -v n="$name" '$1 == n' "$work/ox.txt")
    agree=$(awk -v qr="$q_rows" -v or="$o_rows" -v a="$q_first" -v b="$o_first" 'BEGIN {
      if (qr != or) { print "ROWS"; exit }
      if (qr != 1 || a == b) { print "yes"; exit }
      na = split(a, x, "|"); nb = split(b, y, "|"); ok = na == nb
      for (i = 1; i <= na && ok; i++) if (x[i] != y[i] && !(x[i] + 0 == y[i] + 0 && x[i] ~ /^[-0-9.E]+$/)) ok = 0
      print ok ? "yes" : "VALUE" }')
    ratio=$(awk -v a="$q_ms" -v b="$o_ms" 'BEGIN { if (a != "-" && b > 0) printf "%.2f", a / b; else print "-" }')
    [ "$ratio" = - ] || echo "$ratio" >> "$work/ratios"
    printf '%-20s %10s %10s %8s %8s %6s %7s\n' "$name" "$q_ms" "$o_ms" "$q_rows" "$o_rows" "$agree" "$ratio"
  done < "$work/q.txt"
  awk '{ s += log($1 > 0 ? $1 : 0.001); n++; if ($1 < 1) ahead++ }
       END { if (n) printf "geometric mean ratio %.3f over %d queries; quarry ahead on %d\n", exp(s / n), n, ahead }' "$work/ratios"
  printf 'load: quarry %s ms, oxigraph %s ms, ratio %s\n\n' "$q_load" "$ox_load" \
    "$(awk -v a="$q_load" -v b="$ox_load" 'BEGIN { printf "%.2f", a / b }')"
}
if [ -z "${ONLY_SOCIAL:-}" ]; then
  echo "== synthetic code graph"
  awk -v MODS=40 -v FILES=50 -v FUNCS=25 -v CALLS=4 -f "$here/gen.awk" > "$work/synth.nt"
  bench_graph "$work/synth.nt" "$here/queries.txt" fn_11_21_2 src/m12/f4.c '^fn_1[0-9]_2_1[0-9]$'
  echo "== the code graph of a real C tree (${CTREE:-$root})"
  "$Q" sparql --repo "${CTREE:-$root}" --export-nt "$work/self.nt"
  if [ -n "${CTREE:-}" ]; then
    bench_graph "$work/self.nt" "$here/queries.txt" "${CTREE_FN:-main}" "${CTREE_PATH:-src/server.c}" "${CTREE_RE:-^redis}"
  else
    bench_graph "$work/self.nt" "$here/queries.txt" qr_buf_init src/sparql/eval.c '^qr_sparql_'
  fi
fi
echo "== social and bibliographic graph (gen_social.awk)"
awk -v PEOPLE=50000 -v PAPERS=90000 -f "$here/gen_social.awk" > "$work/social.nt"
bench_graph "$work/social.nt" "$here/queries_social.txt"
echo "== issue 28's datatype and shape cases in Oxigraph (quarry: tests/cli/58_sparql_types.sh)"
node "$OX/types_oxigraph.mjs" "$root/tests/sparql/types/data.ttl" \
  "$root/tests/sparql/types/cases.txt" "$root/tests/sparql/types/heldout.txt" | grep -v '^same'
