#!/bin/sh
# make_fixture.sh DIR: deterministic htop fixture for the plain15 set.
# Clones $HTOP_REPO (default /work/.mirror/htop-dev+htop/repo) into DIR and resets to the pinned commit.
set -eu
PIN=1a4504c0c6a74ecd7f2eb1c17c22750c55f555ff
SRC=${HTOP_REPO:-/work/.mirror/htop-dev+htop/repo}
DIR=${1:?usage: make_fixture.sh DIR}
if [ -e "$DIR" ] && [ -n "$(ls -A "$DIR" 2>/dev/null)" ]; then echo "make_fixture.sh: $DIR not empty" >&2; exit 2; fi
git -c advice.detachedHead=false clone -q --no-local --no-checkout "$SRC" "$DIR"
git -C "$DIR" -c advice.detachedHead=false checkout -q --detach "$PIN"
git -C "$DIR" reset -q --hard "$PIN"
test "$(git -C "$DIR" rev-parse HEAD)" = "$PIN" || { echo "make_fixture.sh: HEAD is not $PIN" >&2; exit 1; }
