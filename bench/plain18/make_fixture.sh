#!/bin/sh
# make_fixture.sh DIR: clone tmux's mirror into DIR and check out the pinned commit (detached); abort if HEAD differs.
set -eu
SRC="${TMUX_REPO:-/work/.mirror/tmux+tmux/repo}"
PIN=c1f947a3c5bc72a40c32dead736f84c4628791ec
DIR="$1"
[ -n "$DIR" ] || { echo "usage: make_fixture.sh DIR" >&2; exit 2; }
if [ -d "$DIR" ] && [ -n "$(ls -A "$DIR" 2>/dev/null)" ]; then echo "make_fixture.sh: $DIR not empty" >&2; exit 2; fi
git clone -q --no-checkout "$SRC" "$DIR"
git -C "$DIR" -c advice.detachedHead=false checkout -q --detach "$PIN"
HEAD=$(git -C "$DIR" rev-parse HEAD)
[ "$HEAD" = "$PIN" ] || { echo "make_fixture.sh: HEAD $HEAD != $PIN" >&2; exit 1; }
