#!/bin/sh
# make_fixture.sh DIR: clone tmux's history (TMUX_REPO, default the bare mirror) and check out the pinned HEAD as master.
set -eu
DIR=${1:?usage: make_fixture.sh DIR}
SRC=${TMUX_REPO:-/work/.mirror/tmux+tmux/repo}
PIN=c1f947a3c5bc72a40c32dead736f84c4628791ec
git clone -q --no-local --no-checkout "$SRC" "$DIR"
cd "$DIR"
git -c advice.detachedHead=false checkout -q -B master "$PIN"
h=$(git rev-parse HEAD)
[ "$h" = "$PIN" ] || { echo "HEAD $h != $PIN" >&2; exit 1; }
