#!/bin/bash
# write.sh [QUARRY [STORE]]: what a one-shot write costs on the 100,000-note bench store
# (gen.sh): `quarry mem add` as a whole CLI run, best of RUNS, in three states:
#   checked    the damaged-store check runs (PRAGMA quick_check reads the whole file):
#              no state directory, so no marker can say the file is unchanged (what every
#              write paid before the marker existed)
#   unchanged  the file is as quarry's last checked write left it: the check is skipped
#   changed    another SQLite writer changed the file first, so the check runs again
# and the anchors, by the sqlite3 CLI on the same file: one INSERT, and the quick_check
# alone. Each state is confirmed by QUARRY_DEBUG=store's line, not by its time. The
# writes go to a copy of the store in a temporary directory (also the state directory).
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
Q=${1:-$here/build/quarry}
S=${2:-/tmp/quarry-bench-memory.db}
RUNS=${RUNS:-7}
[ -x "$Q" ] || { echo "write.sh: no quarry binary at '$Q' (give its path)" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "write.sh: needs the sqlite3 CLI (Debian package sqlite3)" >&2; exit 2; }
STATE=$(mktemp -d)
trap 'rm -rf "$STATE"' EXIT
export XDG_STATE_HOME="$STATE"

if [ ! -s "$S" ] || [ "$("$Q" mem stats --store "$S" --format json | grep -o '"nodes":[0-9]*')" != '"nodes":100000' ]; then
  sh "$here/bench/memory/gen.sh" "$Q" "$S" >/dev/null
fi
# the writes go to a copy: the bench store stays as gen.sh made it
W="$STATE/write.db"
cp "$S" "$W"
printf 'store: copy of %s, %s MB\n' "$S" "$(( $(stat -c %s "$W") / 1000000 ))"

# one timed run of a command (its output dropped, its stderr kept): ms, two decimals
timed() {
  local a b
  a=$(date +%s%N); "$@" >/dev/null 2>"$STATE/err"; b=$(date +%s%N)
  echo "$a $b" | awk '{ printf "%.2f\n", ($2 - $1) / 1e6 }'
}
# the state a write saw, from its debug line
saw() { grep -o 'integrity check [a-z]*' "$STATE/err" | head -1; }
# a real change (an UPDATE that leaves the bytes as they were writes nothing)
touch_sqlite() { sqlite3 "$W" "UPDATE meta SET value = value + 1 WHERE key = 'generation'"; }

# run_state NAME WANT PREP ENV...: best of RUNS one-shot adds, each after PREP
run_state() {
  local state=$1 want=$2 prep=$3 t seen k
  shift 3
  for _ in $(seq "$RUNS"); do
    $prep
    k=$(date +%s%N) # a new key each time (run_state runs in a subshell)
    t=$(timed env "$@" QUARRY_DEBUG=store "$Q" mem add "bench-write-$k" --content "bench write $k" --store "$W")
    seen=$(saw)
    [ "$seen" = "$want" ] && ! grep -q error "$STATE/err" ||
      { echo "write.sh: state '$state' saw '$seen', not '$want'" >&2; cat "$STATE/err" >&2; exit 1; }
    echo "$t"
  done | sort -n | head -1
}

checked=$(run_state checked "integrity check ran" : -u HOME -u XDG_STATE_HOME)
"$Q" mem add bench-write-first --content x --store "$W" >/dev/null # leaves the marker
unchanged=$(run_state unchanged "integrity check skipped" :)
changed=$(run_state changed "integrity check ran" touch_sqlite)
ins=$(for k in $(seq "$RUNS"); do timed sqlite3 "$W" "PRAGMA busy_timeout = 5000; INSERT INTO tags(node, tag) VALUES (1, 'bench-$k')"; done | sort -n | head -1)
qc=$(for _ in 1 2 3; do timed sqlite3 "$W" "PRAGMA quick_check"; done | sort -n | head -1)

for v in "$checked" "$unchanged" "$changed"; do [ -n "$v" ] || { echo "write.sh: a state did not run" >&2; exit 1; }; done
printf 'quarry mem add, one-shot, best of %s:\n' "$RUNS"
printf '  checked (no marker: the cost before it):  %8.2f ms\n' "$checked"
printf '  unchanged since quarry'"'"'s checked write:   %8.2f ms\n' "$unchanged"
printf '  changed by another SQLite writer first:   %8.2f ms\n' "$changed"
printf 'anchors, sqlite3 CLI on the same file:\n'
printf '  one INSERT:                               %8.2f ms\n' "$ins"
printf '  PRAGMA quick_check:                       %8.2f ms\n' "$qc"
awk -v a="$unchanged" -v b="$ins" -v c="$checked" 'BEGIN { printf "ratio unchanged / sqlite3 INSERT: %.2f; checked / unchanged: %.1f\n", a / b, c / a }'
