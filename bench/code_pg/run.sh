#!/bin/sh
# run.sh [BUILD_DIR [TREE...]]: the code graph on SQLite and on PostgreSQL 15 (issue 26),
# compared in one run. For each TREE (default: the zlib and redis mirrors under
# /work/.mirror), a local clone, then on each backend: a cold `quarry code index` (no local
# index, no kept graph; on PostgreSQL a fresh database, fsync on, as the tests start one:
# tests/cli/pg_lib.sh), one query with the kept graph off (the graph assembled from the
# store's rows: what a first query after indexing pays) and the same query answered from
# the kept graph; then the dump of each backend, which must be identical. Prints a table
# and writes it to $CODE_PG_OUT (default /tmp/code_pg.txt).
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$SRC/build}
[ $# -gt 0 ] && shift
Q=$BUILD/quarry
[ -x "$Q" ] || { echo "run.sh: build quarry in $BUILD first" >&2; exit 2; }
[ $# -gt 0 ] || set -- /work/.mirror/madler+zlib/repo /work/.mirror/redis+redis/repo
OUT=${CODE_PG_OUT:-/tmp/code_pg.txt}
TMP=$(mktemp -d)
llm_unserve() { :; }
. "$SRC/tests/cli/pg_lib.sh"
PG_FSYNC=on
pg_start
unset QUARRY_DATABASE_URL QUARRY_NOW QUARRY_CODE_GRAPH_CACHE
export LC_ALL=C TZ=UTC

ms() { date +%s%N | cut -c1-13; }
QUERY="get_call_graph --name deflate --direction callers"
printf '%-8s %-10s %10s %12s %12s %8s %8s\n' tree backend index_ms query_cold_ms query_kept_ms files blobs >"$OUT"
n=0
for src in "$@"; do
  n=$((n + 1))
  name=$(basename "$(dirname "$src")")
  name=${name#*+}
  W=$TMP/$name
  git clone -q "$src" "$W"
  case $name in redis) QUERY="get_call_graph --name createClient --direction callers" ;; esac
  for backend in sqlite postgresql; do
    rm -rf "$W/.git/quarry"
    if [ $backend = postgresql ]; then
      U=$(pg_createdb "c$n")
      "$Q" db init --url "$U" >/dev/null
      export QUARRY_DATABASE_URL="$U"
    else
      unset QUARRY_DATABASE_URL
    fi
    t0=$(ms)
    "$Q" code index --repo "$W" --format json >"$TMP/$name.$backend.index"
    t1=$(ms)
    # shellcheck disable=SC2086
    QUARRY_CODE_GRAPH_CACHE=off "$Q" code query $QUERY --repo "$W" --format json >"$TMP/$name.$backend.q1"
    t2=$(ms)
    # shellcheck disable=SC2086
    "$Q" code query $QUERY --repo "$W" --format json >"$TMP/$name.$backend.q2"
    t3=$(ms)
    cmp -s "$TMP/$name.$backend.q1" "$TMP/$name.$backend.q2" || echo "DIFFER: $name $backend query cold/kept" >>"$OUT"
    QUARRY_CODE_GRAPH_CACHE=off "$Q" code dump --repo "$W" >"$TMP/$name.$backend.dump"
    files=$(grep -o '"files":[0-9]*' "$TMP/$name.$backend.index" | cut -d: -f2)
    blobs=$(grep -o '"stored_blobs":[0-9]*' "$TMP/$name.$backend.index" | cut -d: -f2)
    printf '%-8s %-10s %10d %12d %12d %8s %8s\n' "$name" $backend $((t1 - t0)) $((t2 - t1)) $((t3 - t2)) "$files" "$blobs" >>"$OUT"
  done
  if cmp -s "$TMP/$name.sqlite.dump" "$TMP/$name.postgresql.dump" &&
    cmp -s "$TMP/$name.sqlite.q1" "$TMP/$name.postgresql.q1"; then
    echo "$name: the dump ($(wc -l <"$TMP/$name.sqlite.dump") lines) and the query's answer are identical on both backends" >>"$OUT"
  else
    echo "$name: DIFFERENT dumps or answers on the two backends" >>"$OUT"
  fi
done
cat "$OUT"
rm -rf "$TMP"
