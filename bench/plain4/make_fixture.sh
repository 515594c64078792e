#!/bin/bash
# usage: make_fixture.sh DIR  -- builds the deterministic 'tidepool' repository in DIR
set -euo pipefail
DIR=${1:?usage: make_fixture.sh DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$DIR"; cd "$DIR"
env -i PATH="$PATH" HOME="$DIR/.home" git init -q -b main .
python3 "$HERE/gen_fixture.py" 2>/dev/null | env -i PATH="$PATH" HOME="$DIR/.home" git fast-import --quiet
env -i PATH="$PATH" HOME="$DIR/.home" git reset -q --hard main
rm -rf "$DIR/.home"
