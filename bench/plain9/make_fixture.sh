#!/bin/sh
# make_fixture.sh DIR: deterministic curl fixture for the plain9 phrasing set.
# Clones $CURL_REPO (default /work/.mirror/curl+curl/repo) and pins master at the commit the set was computed on.
set -eu
DIR=${1:?usage: make_fixture.sh DIR}
SRC=${CURL_REPO:-/work/.mirror/curl+curl/repo}
PIN=5c61e168698a72b87437d58ed728bcdea6d5db42
git clone --quiet "$SRC" "$DIR"
git -C "$DIR" checkout --quiet -B master "$PIN"
H=$(git -C "$DIR" rev-parse HEAD)
[ "$H" = "$PIN" ] || { echo "fixture HEAD $H != $PIN" >&2; exit 1; }
