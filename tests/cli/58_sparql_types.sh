# 58_sparql_types.sh: issue 28's datatype and shape cases (tests/sparql/types/*.txt, run
# by tests/sparql/types_run.py over tests/sparql/types/data.ttl): dates and dateTimes with
# and without zones, Unicode case mapping, integers and decimals beyond 64 bits, invalid
# regexes, EXISTS, MINUS and ORDER BY with LIMIT/OFFSET shapes; then the parse and memory
# bounds and the messages for a BOM and a NUL byte.
. "$(dirname "$0")/lib.sh"

if ! python3 "$SRC/tests/sparql/types_run.py" "$Q" "$SRC/tests/sparql/types/cases.txt"; then
  echo "FAIL: tests/sparql/types/cases.txt"
  FAILS=$((FAILS + 1))
fi

finish
