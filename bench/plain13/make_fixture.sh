#!/bin/sh
# make_fixture.sh DIR: clone nginx (NGINX_REPO, default the bare mirror) into DIR and check out the pinned commit.
set -e
DIR="$1"; [ -n "$DIR" ] || { echo "usage: make_fixture.sh DIR" >&2; exit 2; }
SRC="${NGINX_REPO:-/work/.mirror/nginx+nginx/repo}"
PIN=3f6f7824d4e2eb1ac37dec76683d525ac0ff521c
git clone -q --no-local "$SRC" "$DIR"
git -C "$DIR" -c advice.detachedHead=false checkout -q "$PIN"
[ "$(git -C "$DIR" rev-parse HEAD)" = "$PIN" ] || { echo "HEAD mismatch" >&2; exit 1; }
