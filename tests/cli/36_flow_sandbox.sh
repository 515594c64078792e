# 36_flow_sandbox.sh: flows inside the sandbox, from the command line. The runaway of
# bench/flow/runaway.flow (a nested for pushing without end) ends with the memory-limit
# error of the run's budget and exit 1, under the default cap and under --max-memory;
# bad budget options are usage errors (exit 2); a function's error is the Lisp's message
# under the flow function's name. Only messages and exit codes: never time.
. "$(dirname "$0")/lib.sh"

RUNAWAY="$SRC/bench/flow/runaway.flow"
expect_rc "runaway: exit 1" 1 "$Q" flow run "$RUNAWAY"
expect_err "runaway: the default cap" "quarry flow run: line 8: memory limit of 256 MiB reached: the values this run builds need more" "$Q" flow run "$RUNAWAY"
expect_rc "runaway, --max-memory: exit 1" 1 "$Q" flow run --max-memory 32M "$RUNAWAY"
expect_err "runaway, --max-memory: its cap" "memory limit of 32 MiB reached" "$Q" flow run --max-memory 32M "$RUNAWAY"
# one line on stderr, nothing on stdout
"$Q" flow run --max-memory 32M "$RUNAWAY" >"$TMP/out" 2>"$TMP/err"
expect_out "runaway: one line of error" "1 0" sh -c "echo \$(wc -l < '$TMP/err') \$(wc -c < '$TMP/out')"

printf 'flow main:\n    n = 0\n    for i in range(100000) do\n        n = n + i\n    end\n    return n\n' > "$TMP/steps.flow"
expect_out "steps: within the default" "4999950000" "$Q" flow run "$TMP/steps.flow"
expect_rc "steps: --max-steps" 1 "$Q" flow run --max-steps 5000 "$TMP/steps.flow"
expect_err "steps: the message" "step limit of 5000 steps reached" "$Q" flow run --max-steps 5000 "$TMP/steps.flow"

expect_rc "--max-memory: not a size" 2 "$Q" flow run --max-memory lots "$RUNAWAY"
expect_err "--max-memory: says what it takes" "--max-memory takes a size of at least 4K" "$Q" flow run --max-memory lots "$RUNAWAY"
expect_rc "--max-memory: too small" 2 "$Q" flow run --max-memory 10 "$RUNAWAY"
expect_rc "--max-steps 0" 2 "$Q" flow run --max-steps 0 "$RUNAWAY"
expect_rc "--max-calls 0 (would be the default, not none)" 2 "$Q" flow run --max-calls 0 "$RUNAWAY"
expect_out "--help: the library's defaults" "2" sh -c "'$Q' flow run --help | grep -c -e '(default 256M)' -e 'default 100000000)'"

printf 'flow main:\n    return len(5)\n' > "$TMP/len.flow"
expect_err "a function's error: the Lisp's message" "line 2: len() expects a collection as argument 1, got integer 5" "$Q" flow run "$TMP/len.flow"
python3 -c "print('flow main:\n    return ' + ' + '.join(['1'] * 3000))" > "$TMP/deep.flow"
expect_rc "a 3000-long chain: an error, not a crash" 1 "$Q" flow run "$TMP/deep.flow"
expect_err "a 3000-long chain: E0007" "expression nested deeper than 1000 levels" "$Q" flow run "$TMP/deep.flow"
finish
