#!/bin/sh
# make_fixture.sh DIR: clone libuv from $LIBUV_REPO (default /work/.mirror/libuv+libuv/repo) into DIR,
# detached at the pinned commit; aborts if HEAD differs.
set -eu
PIN=6179e7af87413396d5853a1c3722c8b5749336c8
SRC=${LIBUV_REPO:-/work/.mirror/libuv+libuv/repo}
DIR=${1:?usage: make_fixture.sh DIR}
git clone -q --no-local "$SRC" "$DIR"
git -C "$DIR" -c advice.detachedHead=false checkout -q --detach "$PIN"
git -C "$DIR" reset -q --hard "$PIN"
H=$(git -C "$DIR" rev-parse HEAD)
[ "$H" = "$PIN" ] || { echo "HEAD $H != $PIN" >&2; exit 1; }
