#!/bin/sh
# usage: make_fixture.sh DIR NOW_EPOCH  -- builds the kvlite fixture repository in DIR
set -e
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 TZ=UTC
here=$(cd "$(dirname "$0")" && pwd)
python3 "$here/gen_history.py" "$1" "$2"
