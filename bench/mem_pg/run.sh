#!/bin/sh
# run.sh [BUILD_DIR [WRITERS [N]]]: the memory store with eight writers at once, SQLite WAL
# and PostgreSQL 15 in the same run (issue 26, part 5). Builds mem_pg_bench.c with the
# build's own link line (BUILD_DIR/CMakeFiles/test_mem_pg.dir/link.txt: the layers'
# libraries, libsqlite3 and libpq), starts a throwaway PostgreSQL server the way the tests
# do (tests/cli/pg_lib.sh, on a Unix socket, as the postgres user) but with fsync on, and
# runs the bench once on a fresh SQLite file and once on a fresh database: one JSON line
# each (writes per second, p50/p99/max latency of one write, failed and lost writes).
# SQLite runs as the store opens it (WAL, synchronous=NORMAL: no fsync per commit);
# PostgreSQL with its defaults (fsync on, synchronous_commit on: one WAL flush per commit).
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$SRC/build}
WRITERS=${2:-8}
N=${3:-1000}
[ -f "$BUILD/CMakeFiles/test_mem_pg.dir/link.txt" ] ||
  { echo "run.sh: build quarry's tests in $BUILD first (cmake --build $BUILD)" >&2; exit 2; }
TMP=$(mktemp -d)
llm_unserve() { :; }
. "$SRC/tests/cli/pg_lib.sh"
PG_FSYNC=on
pg_start
flags=$(sed -n 's/^C_FLAGS = //p' "$BUILD/CMakeFiles/test_mem_pg.dir/flags.make")
incs=$(sed -n 's/^C_INCLUDES = //p' "$BUILD/CMakeFiles/test_mem_pg.dir/flags.make")
# shellcheck disable=SC2086
cc $flags $incs -c "$SRC/bench/mem_pg/mem_pg_bench.c" -o "$TMP/bench.o"
link=$(cat "$BUILD/CMakeFiles/test_mem_pg.dir/link.txt")
link=$(echo "$link" | sed "s|CMakeFiles/test_mem_pg.dir/tests/unit/test_mem_pg.c.o|$TMP/bench.o|; s|-o test_mem_pg|-o $TMP/mem_pg_bench|")
(cd "$BUILD" && eval "$link")
nproc_=$(nproc)
echo "# $WRITERS writers x $N notes + $N links + $N visits each; $nproc_ cores; $(date -u +%Y-%m-%dT%H:%MZ)"
"$TMP/mem_pg_bench" "$TMP/bench.db" "$WRITERS" "$N"
"$PG_BIN/psql" -X -q -h "$PG_SOCK" -p "$PG_PORT" -U postgres -d postgres -c 'CREATE DATABASE bench'
"$TMP/mem_pg_bench" "postgresql://postgres@/bench?host=$PG_SOCK&port=$PG_PORT" "$WRITERS" "$N"
