#!/usr/bin/env bash
# run.sh -- the code graph's benchmark: quarry's code index against ctags and cscope on the
# same C tree, in one run.
#
# Usage: bench/code/run.sh [QUARRY_BINARY] [--repo DIR]     (works from any directory)
#   QUARRY_BINARY  defaults to build/quarry under the repository root.
#   --repo DIR     time a real C repository instead of the synthetic one. Its code index
#                  (<git dir>/quarry/code.db) is removed by the cold run: it is a cache.
#
# The synthetic tree: BENCH_COPIES (default 20) copies of quarry's own src/ and include/,
# each file of copy K ending with a comment naming K (so that no two blobs are equal and
# nothing is shared by the per-blob store), committed to a git repository under
# bench/code/.data/. Real code, about BENCH_COPIES x 60,000 lines.
#
# Timed (wall clock, `date +%s%N`, best of BENCH_RUNS, default 3):
#   cold    quarry code index with no code.db      vs  ctags -R  +  cscope -b -R -k
#   warm    quarry code index with everything stored (list, load, assemble)
#   change  one file changed in the working tree: quarry code index (hashes the changed
#           file, parses it, assembles the graph); target under 100 ms for the part that
#           is the change (the parse: printed apart as "change - warm")
#   query   get_call_graph and find_references in one process (a Lisp program making
#           BENCH_QUERIES + 1 calls, less one making one, divided by BENCH_QUERIES; target
#           under 5 ms; both totals are printed, since on a busy machine the difference
#           can be within the noise of loading the graph), and through the CLI (a fresh
#           process: loading the graph included)
# Prints the times, the ratios against ctags+cscope, and the targets. Exit status 0 even
# when a target is missed (this reports, it does not gate); 1 when a command fails; 2 on
# a usage or setup error.

set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
RUNS=${BENCH_RUNS:-3}
COPIES=${BENCH_COPIES:-20}
QUERIES=${BENCH_QUERIES:-1000}
WORK=$HERE/.data

say() { printf '%s\n' "$*" >&2; }
die() { say "run.sh: $*"; exit 2; }

Q=$ROOT/build/quarry
REPO=""
while [ $# -gt 0 ]; do
  case $1 in
    --repo) REPO=${2:?--repo needs a directory}; shift 2 ;;
    -*) die "unknown option '$1'" ;;
    *) Q=$1; shift ;;
  esac
done
Q=$(cd "$(dirname "$Q")" && pwd)/$(basename "$Q")
[ -x "$Q" ] || die "no quarry binary at '$Q' (make first)"
for t in git ctags cscope; do
  command -v $t >/dev/null 2>&1 || die "'$t' is not installed (sh scripts/deps.sh --test)"
done

if [ -z "$REPO" ]; then
  REPO=$WORK/tree
  stamp="copies=$COPIES $(cd "$ROOT" && git ls-files -s src include | git hash-object --stdin)"
  if [ ! -f "$WORK/tree.stamp" ] || [ "$(cat "$WORK/tree.stamp")" != "$stamp" ]; then
    say "building the synthetic tree ($COPIES copies of src/ and include/) in $REPO"
    rm -rf "$REPO"
    mkdir -p "$REPO"
    k=1
    while [ $k -le "$COPIES" ]; do
      mkdir -p "$REPO/copy$k"
      (cd "$ROOT" && git ls-files src include) | while IFS= read -r f; do
        mkdir -p "$REPO/copy$k/$(dirname "$f")"
        { cat "$ROOT/$f"; printf '/* copy %d */\n' "$k"; } > "$REPO/copy$k/$f"
      done
      k=$((k + 1))
    done
    git -C "$REPO" init -q
    git -C "$REPO" add -A
    git -C "$REPO" -c user.name=B -c user.email=b@example.com -c commit.gpgsign=false \
      commit -qm tree || die "cannot commit the synthetic tree"
    echo "$stamp" > "$WORK/tree.stamp"
  fi
fi
REPO=$(cd "$REPO" && pwd)
GITDIR=$(git -C "$REPO" rev-parse --git-common-dir)
case $GITDIR in /*) ;; *) GITDIR=$REPO/$GITDIR ;; esac
FILES=$(git -C "$REPO" ls-files '*.c' '*.h' | wc -l)
LINES=$(git -C "$REPO" ls-files -z '*.c' '*.h' | (cd "$REPO" && xargs -0 cat) | wc -l)
say "tree: $REPO ($FILES C files, $LINES lines)"

now() { date +%s%N; }
# best NAME CMD...: runs CMD RUNS times (after SETUP, when set), keeps the best in ms
best() {
  local name=$1 b="" t0 t1 ms i
  shift
  for ((i = 0; i < RUNS; i++)); do
    [ -n "${SETUP:-}" ] && eval "$SETUP"
    t0=$(now)
    "$@" >/dev/null 2>"$WORK/err" || { say "run.sh: $name failed:"; cat "$WORK/err" >&2; exit 1; }
    t1=$(now)
    ms=$(( (t1 - t0) / 1000000 ))
    if [ -z "$b" ] || [ "$ms" -lt "$b" ]; then b=$ms; fi
  done
  printf '%s' "$b"
}

mkdir -p "$WORK"
cd "$REPO" || exit 2
SETUP="rm -f '$GITDIR/quarry/code.db' '$GITDIR/quarry/code.db-wal' '$GITDIR/quarry/code.db-shm'"
cold=$(best "cold index" "$Q" code index --repo "$REPO" --format json)
SETUP="rm -f '$WORK/tags' '$WORK/cscope.out'"
ctags_ms=$(best "ctags -R" ctags -R -f "$WORK/tags" .)
cscope_ms=$(best "cscope -b" cscope -b -R -k -f "$WORK/cscope.out")
SETUP=""
warm=$(best "warm index" "$Q" code index --repo "$REPO" --format json)

# one file changed in the working tree, a new blob every run
victim=$(git -C "$REPO" ls-files '*.c' | head -1)
cp "$REPO/$victim" "$WORK/victim.orig"
n=0
SETUP='n=$((n + 1)); cp "$WORK/victim.orig" "$REPO/$victim"; printf "int bench_change_%d(void) { return %d; }\n" $n $n >> "$REPO/$victim"'
change=$(best "index after one change" "$Q" code index --repo "$REPO" --format json)
SETUP=""
cp "$WORK/victim.orig" "$REPO/$victim"

# queries: a function with callers and callees, and a much-used name
fn=qr_buf_printf
inproc() {
  local q=$1 k=$2
  "$Q" lisp --repo "$REPO" --timeout-ms 600000 --max-steps 100000000 \
    -e "(count (for [i (range $k)] (tool/query_codebase $q)))"
}
cg='{:query_type "get_call_graph" :name "'$fn'"}'
fr='{:query_type "find_references" :name "'$fn'"}'
one_cg=$(best "get_call_graph x1" inproc "$cg" 1)
many_cg=$(best "get_call_graph x$QUERIES" inproc "$cg" $((QUERIES + 1)))
one_fr=$(best "find_references x1" inproc "$fr" 1)
many_fr=$(best "find_references x$QUERIES" inproc "$fr" $((QUERIES + 1)))
cli_cg=$(best "CLI get_call_graph" "$Q" code query get_call_graph --name "$fn" --repo "$REPO" --format json)
cli_fr=$(best "CLI find_references" "$Q" code query find_references --name "$fn" --repo "$REPO" --format json)

per() { awk -v a="$1" -v b="$2" -v n="$QUERIES" 'BEGIN { printf "%.2f", (b - a) / n }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
anchor=$((ctags_ms + cscope_ms))
printf '\ncode graph benchmark: %s (%d C files, %d lines), best of %d\n' "$REPO" "$FILES" "$LINES" "$RUNS"
printf '  %-44s %8s\n' "what" "ms"
printf '  %-44s %8d\n' "quarry code index, cold" "$cold"
printf '  %-44s %8d\n' "ctags -R" "$ctags_ms"
printf '  %-44s %8d\n' "cscope -b -R -k" "$cscope_ms"
printf '  %-44s %8s\n' "cold / (ctags + cscope)" "$(ratio "$cold" "$anchor")"
printf '  %-44s %8d\n' "quarry code index, warm (nothing to parse)" "$warm"
printf '  %-44s %8d\n' "quarry code index after one file changed" "$change"
printf '  %-44s %8d   (target < 100)\n' "  of which the change (change - warm)" "$((change - warm))"
printf '  %-44s %8s   (target < 5)\n' "get_call_graph in process, per call" "$(per "$one_cg" "$many_cg")"
printf '  %-44s %8s\n' "  (one process: 1 call, $((QUERIES + 1)) calls)" "$one_cg, $many_cg"
printf '  %-44s %8s   (target < 5)\n' "find_references in process, per call" "$(per "$one_fr" "$many_fr")"
printf '  %-44s %8s\n' "  (one process: 1 call, $((QUERIES + 1)) calls)" "$one_fr, $many_fr"
printf '  %-44s %8d\n' "get_call_graph through the CLI" "$cli_cg"
printf '  %-44s %8d\n' "find_references through the CLI" "$cli_fr"
exit 0
