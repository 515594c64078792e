#!/bin/sh
# run.sh: the differential test against real Clojure. Runs every expression of
# corpus.txt through Clojure (one JVM for the whole corpus: eval.clj) and through quarry,
# compares the printed results (compare.py, which names the normalisations) and fails
# when fewer than MIN_PERCENT agree. Skips (exit 77) only when no `clojure` is installed
# (Debian's clojure package, installed by scripts/deps.sh --test).
# usage: run.sh QUARRY [MIN_PERCENT]
set -u
Q=$1
MIN=${2:-98}
DIR=$(cd "$(dirname "$0")" && pwd)
if ! command -v clojure >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
  echo "SKIP: clojure is not installed (scripts/deps.sh --test installs it)"
  exit 77
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

clojure "$DIR/eval.clj" "$DIR/corpus.txt" > "$TMP/clojure.out" 2> "$TMP/clojure.err" || {
  echo "FAIL: clojure did not run the corpus"; cat "$TMP/clojure.err"; exit 1; }

# quarry: one run per expression (each independent); the value is the last line printed
while IFS= read -r expr; do
  if out=$("$Q" lisp --timeout-ms 20000 -e "$expr" 2>/dev/null); then
    printf '%s\n' "$out" | tail -n 1
  else
    echo "ERROR exit $?"
  fi
done < "$DIR/corpus.txt" > "$TMP/quarry.out"

python3 "$DIR/compare.py" "$DIR/corpus.txt" "$TMP/clojure.out" "$TMP/quarry.out" "$MIN"
