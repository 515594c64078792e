#!/bin/sh
# graph_bench.sh BUILD_DIR [nodes [edges]]: builds bench/memory/graph_bench.c against
# BUILD_DIR/libquarrycore.a (link line as in CMake's, libraries from pkg-config) and runs it.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: graph_bench.sh BUILD_DIR [nodes [edges]]}
shift
libs=$(pkg-config --libs libpcre2-8 sqlite3 libgit2 libcurl)
out="$build/graph_bench"
cc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -I "$here/include" "$here/bench/memory/graph_bench.c" \
    "$build/libquarrycore.a" $libs -lm -o "$out"
"$out" "$@"
