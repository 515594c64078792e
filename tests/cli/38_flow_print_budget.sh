# 38_flow_print_budget.sh: a flow spends its run's budgets on what it prints and on the
# model. A value shared with itself (`x = [x, x]` forty times: a few hundred bytes holding
# 2^40 leaves) printed by the result, `log`, `json()`, `str()`, `+` on a string or a
# prompt's $x ends with the memory-limit error of the run (its printed size is measured
# against the room left before it is built) or, under a huge memory budget, with the time
# budget, in bounded memory; `parallel do` workers share one memory budget; a model that
# never answers is given the time left, not the client's 60 s. Messages and exit codes,
# and generous upper bounds on wall time (never a lower one).
. "$(dirname "$0")/lib.sh"
trap 'llm_unserve; rm -rf "$TMP"' EXIT

shared() { # shared FILE TAIL...: a flow building the shared value, then the lines TAIL
  f=$1; shift
  { printf 'prompt p: """look: $x"""\nflow main:\n    x = [1]\n'
    i=0; while [ $i -lt 40 ]; do printf '    x = [x, x]\n'; i=$((i + 1)); done
    for l in "$@"; do printf '    %s\n' "$l"; done; } > "$f"
}
shared "$TMP/ret.flow" "return x"
shared "$TMP/log.flow" "log x" "return 1"
shared "$TMP/json.flow" "y = json(x)" "return 1"
shared "$TMP/str.flow" "y = str(x)" "return 1"
shared "$TMP/plus.flow" 'y = "a" + x' "return 1"
shared "$TMP/prompt.flow" "y = call llm p" "return y"

# the prompt fails while it is rendered: the model (a closed port) is never reached
export QUARRY_LLM_URL=http://127.0.0.1:9/v1 QUARRY_LLM_MODEL=test-model
for k in ret log json str plus prompt; do
  expect_rc "$k: a shared value past the memory budget: exit 1" 1 \
    timeout 60 "$Q" flow run --max-memory 4M --max-time-ms 600000 "$TMP/$k.flow"
  expect_err "$k: the run's memory limit" "memory limit of 4 MiB reached: a value printed here is longer than the room left" \
    timeout 60 "$Q" flow run --max-memory 4M --max-time-ms 600000 "$TMP/$k.flow"
done
# under a memory budget far larger than can be printed in the time: the time budget ends it,
# and the printing holds no more than the process's usual few megabytes
expect_err "a huge memory budget: the time budget ends the print" "1000 ms" \
  timeout 60 "$Q" flow run --max-memory 64G --max-time-ms 1000 "$TMP/json.flow"
if command -v /usr/bin/time >/dev/null 2>&1; then
  /usr/bin/time -f "%M" -o "$TMP/rss" timeout 60 "$Q" flow run --max-memory 64G --max-time-ms 1000 "$TMP/log.flow" >/dev/null 2>&1
  expect_out "a huge memory budget: printing stays under 64 MB" "ok" \
    sh -c "[ \$(tail -1 '$TMP/rss') -lt 65536 ] && echo ok || echo \"RSS \$(tail -1 '$TMP/rss') KB\""
fi

# parallel workers share the run's one memory budget: six workers each building their own
# copy of a big value stop at the run's limit, not six times it
cat > "$TMP/par.flow" <<'EOF'
flow main:
    parallel do
        a = run grow
        b = run grow
        c = run grow
        d = run grow
        e = run grow
        f = run grow
    end
    return 1

flow grow:
    out = []
    for i in range(10000000) do
        push "some text that takes room " + str(i) to out
    end
    return out
EOF
if "$Q" flow check "$TMP/par.flow" >/dev/null 2>&1; then
  if command -v /usr/bin/time >/dev/null 2>&1; then
    /usr/bin/time -f "%M" -o "$TMP/rss" timeout 120 "$Q" flow run --workers 6 --max-memory 64M "$TMP/par.flow" >"$TMP/par.out" 2>"$TMP/par.err"
    expect_out "parallel: the run's memory limit" "1" grep -c "memory limit of 64 MiB reached" "$TMP/par.err"
    expect_out "parallel: six workers stay near one budget" "ok" \
      sh -c "[ \$(tail -1 '$TMP/rss') -lt 262144 ] && echo ok || echo \"RSS \$(tail -1 '$TMP/rss') KB\""
  fi
else
  echo "FAIL: par.flow does not check:"; "$Q" flow check "$TMP/par.flow"; FAILS=$((FAILS + 1))
fi

# a model that takes 60 s to answer: the run's 3 s time budget ends the call
llm_script "$TMP/slow.json" '{"text": "late", "delay_ms": 60000}'
llm_serve "$TMP/slow.json"
printf 'prompt p: """say hi"""\nflow main:\n    y = call llm p\n    return y\n' > "$TMP/slow.flow"
start=$(date +%s)
QUARRY_LLM_API_KEY=sk-test timeout 50 "$Q" flow run --max-time-ms 3000 "$TMP/slow.flow" >"$TMP/slow.out" 2>"$TMP/slow.err"
rc=$?
took=$(( $(date +%s) - start ))
expect_out "a silent model: exit 1 (not killed by the 50 s guard)" "1" echo $rc
expect_out "a silent model: the run ends within its budget's order (< 30 s)" "ok" \
  sh -c "[ $took -lt 30 ] && echo ok || echo 'took $took s'"
expect_out "a silent model: the error names the time" "1" sh -c "grep -c -e 'time' '$TMP/slow.err'"
llm_unserve
finish
