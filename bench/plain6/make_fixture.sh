#!/bin/sh
# Deterministic build of the harborline fixture: make_fixture.sh DIR
set -eu
DIR=${1:?usage: make_fixture.sh DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
[ -e "$DIR" ] && { echo "$DIR exists" >&2; exit 1; }
unset $(env | sed -n 's/^\(GIT_[A-Z_]*\)=.*/\1/p') 2>/dev/null || true
mkdir -p "$DIR"
cd "$DIR"
git -c init.defaultBranch=main init -q .
python3 "$HERE/gen_fixture.py" | git fast-import --quiet --done
# feature branches were merged; like on GitHub, delete them
git for-each-ref --format='%(refname)' refs/heads | grep -v '^refs/heads/main$' | while read r; do git update-ref -d "$r"; done
git symbolic-ref HEAD refs/heads/main
git -c core.autocrlf=false checkout -q -f main
git gc -q --prune=now 2>/dev/null || true
