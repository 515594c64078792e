#!/bin/sh
# make_fixture.sh DIR: clone the Lua C sources at a pinned commit (deterministic).
# The mirror path comes from $LUA_REPO (default /work/.mirror/lua+lua/repo).
set -eu
DIR=${1:?usage: make_fixture.sh DIR}
PIN=53b41d0cddd80bf33fdc631bdd32e3ba53842b89
SRC=${LUA_REPO:-/work/.mirror/lua+lua/repo}
rm -rf "$DIR"
git clone -q --no-local "$SRC" "$DIR"
git -C "$DIR" -c advice.detachedHead=false checkout -q "$PIN"
test "$(git -C "$DIR" rev-parse HEAD)" = "$PIN" || { echo "fixture HEAD mismatch" >&2; exit 1; }
