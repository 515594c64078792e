#!/bin/sh
# make_fixture.sh DIR: deterministic libevent fixture for plain11
set -e
DIR=${1:?usage: make_fixture.sh DIR}
REPO=${LIBEVENT_REPO:-/work/.mirror/libevent+libevent/repo}
PIN=5df3037d10556bfcb675bc73e516978b75fc7bc7
rm -rf "$DIR"
git clone -q --no-local --no-checkout "$REPO" "$DIR"
git -C "$DIR" -c advice.detachedHead=false checkout -q "$PIN"
test "$(git -C "$DIR" rev-parse HEAD)" = "$PIN" || { echo "HEAD mismatch" >&2; exit 1; }
