# 63_sparql_interrupt.sh: `quarry sparql` stops on the first SIGINT, as every command does
# (cli_req): a query that would run for hours (nested EXISTS, cubic in the triples) ends
# promptly once the signal is caught, with exit 1 and a line saying it was stopped, and
# nothing on stdout.
. "$(dirname "$0")/lib.sh"

command -v pgrep >/dev/null 2>&1 || { echo "FAIL: pgrep is needed (scripts/deps.sh --test)"; exit 1; }
python3 -c "
for i in range(6000): print(f'<http://e/n{i}> <http://e/p> <http://e/n{i+1}> .')" > "$TMP/data.nt"
Q_SLOW='SELECT (COUNT(*) AS ?n) WHERE { ?x ?p ?a FILTER EXISTS { ?y ?q ?b FILTER EXISTS { ?z ?r ?c FILTER(STR(?c) = CONCAT(STR(?a), STR(?b))) } } }'
"$Q" sparql --data "$TMP/data.nt" --timeout-ms 600000 "$Q_SLOW" > "$TMP/out" 2> "$TMP/err" &
pid=$!
# wait until quarry has installed its SIGINT handler (read from /proc, not a fixed delay)
n=0
while [ $n -lt 1200 ]; do
  caught=
  # only once the shell's fork has exec'd quarry (before, it is a copy of the shell)
  [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$(readlink -f "$Q")" ] &&
    caught=$(awk '/^SigCgt/ {print $2}' "/proc/$pid/status" 2>/dev/null)
  [ -n "$caught" ] && [ $(( 0x$caught & 2 )) -ne 0 ] && break
  sleep 0.05; n=$((n + 1))
done
sleep 0.5
kill -INT $pid 2>/dev/null
# the query stops within the test's own time limit: wait with a bound, then look
n=0
while kill -0 $pid 2>/dev/null && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
if kill -0 $pid 2>/dev/null; then
  echo "FAIL: quarry sparql went on after SIGINT"; kill -KILL $pid; FAILS=$((FAILS + 1))
fi
wait $pid; rc=$?
expect_out "stopped: exit 1" "1" echo "$rc"
expect_out "stopped: says so" "1" sh -c "grep -ci 'cancel\|stopped\|interrupt' '$TMP/err' | head -1 | sed 's/[2-9]/1/'"
expect_out "stopped: nothing on stdout" "" cat "$TMP/out"
finish
