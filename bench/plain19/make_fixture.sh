#!/bin/sh
# make_fixture.sh DIR: clone the Redis mirror into DIR and check out the pinned commit (detached); abort if HEAD differs.
set -eu
PIN=4f8cdc2a1ea53e42955af758aabffee67cb455dd
SRC=${REDIS_REPO:-/work/.mirror/redis+redis/repo}
DIR=${1:?usage: make_fixture.sh DIR}
[ -e "$DIR" ] && [ -n "$(ls -A "$DIR" 2>/dev/null)" ] && { echo "make_fixture.sh: $DIR not empty" >&2; exit 1; }
git clone -q --no-checkout "$SRC" "$DIR"
git -C "$DIR" -c advice.detachedHead=false checkout -q --detach "$PIN"
HEAD=$(git -C "$DIR" rev-parse HEAD)
[ "$HEAD" = "$PIN" ] || { echo "make_fixture.sh: HEAD $HEAD != $PIN" >&2; exit 1; }
