#!/bin/sh
# spread.sh [QUARRY [NODES]]: a graph query on a memory store shared on PostgreSQL after
# the first load (issue 26: "a spread over 1M links stays in milliseconds after the first
# load"). Makes bench/memory/gen.sh's deterministic store (NODES notes, default 20,000,
# ten links each) as SQLite, moves it to a throwaway PostgreSQL 15 (tests/cli/pg_lib.sh)
# with export and import (timed), then runs one pipeline with --repeat 5 on each backend:
# the first run loads the snapshot (SQLite from STORE.snapshot when present, so removed
# first; PostgreSQL from its tables), the others check the change counter and reuse it.
# Prints the import time, each backend's times (stderr of --repeat) and whether the two
# answers are the same keys in the same order.
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
Q=${1:-$SRC/build/quarry}
NODES=${2:-20000}
TMP=$(mktemp -d)
llm_unserve() { :; }
. "$SRC/tests/cli/pg_lib.sh"
pg_start
export QUARRY_NOW=2026-03-10T12:00:00Z
sh "$SRC/bench/memory/gen.sh" "$Q" "$TMP/mem.db" "$NODES" >/dev/null
"$Q" mem export --store "$TMP/mem.db" >"$TMP/mem.jsonl"
"$PG_BIN/psql" -X -q -h "$PG_SOCK" -p "$PG_PORT" -U postgres -d postgres -c 'CREATE DATABASE spread'
URL="postgresql://postgres@/spread?host=$PG_SOCK&port=$PG_PORT"
a=$(date +%s%N)
"$Q" mem import "$TMP/mem.jsonl" --store "$URL" --format json
b=$(date +%s%N)
echo "import into PostgreSQL: $(( (b - a) / 1000000 )) ms ($(wc -l <"$TMP/mem.jsonl") lines)"
P='match:t17 | spread,max_hops=2 | limit:10'
rm -f "$TMP/mem.db.snapshot"
echo "sqlite:"
"$Q" mem query "$P" --store "$TMP/mem.db" --no-cache --repeat 5 --format json >"$TMP/a.json"
echo "postgresql:"
"$Q" mem query "$P" --store "$URL" --no-cache --repeat 5 --format json >"$TMP/b.json"
if [ "$(grep -o '"key":"[^"]*"' "$TMP/a.json")" = "$(grep -o '"key":"[^"]*"' "$TMP/b.json")" ]; then
  echo "same answer"
else
  echo "answers differ"; diff "$TMP/a.json" "$TMP/b.json" | head
fi
