#!/bin/sh
# make_fixture.sh DIR: clone Janet's mirror into DIR and check out the pinned commit (detached HEAD).
# A local (hardlinking) clone: the mirror lacks some large blobs outside the pinned tree, which makes --no-local fail.
set -e
DIR=${1:?usage: make_fixture.sh DIR}
SRC=${JANET_REPO:-/work/.mirror/janet-lang+janet/repo}
PIN=284990a04303a40e6ce42cf33e049d23873b5535
rm -rf "$DIR"
git clone -q --no-checkout "$SRC" "$DIR"
git -C "$DIR" -c advice.detachedHead=false checkout -q "$PIN"
test "$(git -C "$DIR" rev-parse HEAD)" = "$PIN" || { echo "HEAD is not $PIN" >&2; exit 1; }
