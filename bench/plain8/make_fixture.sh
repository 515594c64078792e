#!/bin/sh
# make_fixture.sh DIR: clone the redis mirror into DIR, pinned at the commit the set was computed on.
set -e
DIR=${1:?usage: make_fixture.sh DIR}
SRC=${REDIS_REPO:-/work/.mirror/redis+redis/repo}
PIN=4f8cdc2a1ea53e42955af758aabffee67cb455dd
git clone -q "$SRC" "$DIR"
git -C "$DIR" -c advice.detachedHead=false checkout -q -B unstable "$PIN"
test "$(git -C "$DIR" rev-parse HEAD)" = "$PIN"
