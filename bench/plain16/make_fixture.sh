#!/bin/sh
# make_fixture.sh DIR: clone The Silver Searcher (ag) from the local mirror into DIR and check out the pinned commit.
# AG_REPO overrides the mirror (a bare git directory). Deterministic: same commit, same tags.
set -eu
DIR="${1:?usage: make_fixture.sh DIR}"
SRC="${AG_REPO:-/work/.mirror/ggreer+the_silver_searcher/repo}"
PIN=a61f1780b64266587e7bc30f0f5f71c6cca97c0f
[ -e "$DIR" ] && { echo "make_fixture.sh: $DIR exists" >&2; exit 1; }
git clone -q --no-local "$SRC" "$DIR"
git -C "$DIR" -c advice.detachedHead=false checkout -q "$PIN"
H=$(git -C "$DIR" rev-parse HEAD)
[ "$H" = "$PIN" ] || { echo "make_fixture.sh: HEAD $H != $PIN" >&2; exit 1; }
