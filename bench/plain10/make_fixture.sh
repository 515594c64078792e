#!/bin/sh
# make_fixture.sh DIR: builds the plain10 fixture (shopwave) deterministically into DIR (must not exist or be empty).
set -e
[ -n "$1" ] || { echo "usage: make_fixture.sh DIR" >&2; exit 2; }
[ ! -e "$1" ] || [ -z "$(ls -A "$1")" ] || { echo "$1 not empty" >&2; exit 2; }
exec env -i PATH="${PATH:-/usr/bin:/bin}" python3 "$(dirname "$0")/gen_fixture.py" "$1"
