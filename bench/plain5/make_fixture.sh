#!/bin/sh
# make_fixture.sh DIR: clone the local libevent mirror into DIR at the pinned commit.
# The mirror path comes from $LIBEVENT_REPO (default /work/.mirror/libevent+libevent/repo).
set -eu
DIR=${1:?usage: make_fixture.sh DIR}
SRC=${LIBEVENT_REPO:-/work/.mirror/libevent+libevent/repo}
PIN=0c3e47ad5f654714e39bae3f8689a3446599b614
[ -e "$DIR" ] && { echo "make_fixture.sh: $DIR exists" >&2; exit 2; }
git clone -q --no-checkout "$SRC" "$DIR"
git -C "$DIR" checkout -q -B master "$PIN"
test "$(git -C "$DIR" rev-parse HEAD)" = "$PIN"
