# 01_lisp.sh: `quarry lisp`: programs from -e, files and stdin; --data; formats; exit codes;
# error lines; limits from the command line; captured output; --help.
. "$(dirname "$0")/lib.sh"

expect_out "eval expression" "3" "$Q" lisp -e '(+ 1 2)'
expect_out "result printed as EDN" '{:a [1 2.5 "x"], :b nil}' "$Q" lisp -e '{:a [1 2.5 "x"] :b nil}'
expect_out "result as JSON" '{"a":[1,2.5,"x"],"b":null}' "$Q" lisp --format json -e '{:a [1 2.5 "x"] :b nil}'

printf '(defn sq [x] (* x x))\n(sq 12)\n' > "$TMP/prog.clj"
expect_out "program from a file" "144" "$Q" lisp "$TMP/prog.clj"
expect_out "program from stdin" "144" sh -c "\"$Q\" lisp < \"$TMP/prog.clj\""
expect_out "program from - " "144" sh -c "\"$Q\" lisp - < \"$TMP/prog.clj\""

printf '{"commits": [{"author": "ann", "files": 3}, {"author": "bob", "files": 9}], "n": 2}' > "$TMP/ctx.json"
expect_out "--data JSON" '"bob"' "$Q" lisp --data "$TMP/ctx.json" -e '(:author (last data/commits))'
printf '{:question "why" :limit 3}' > "$TMP/ctx.edn"
expect_out "--data EDN" '["why" 3]' "$Q" lisp --data "$TMP/ctx.edn" -e '[data/question data/limit]'
printf '[1 2]' > "$TMP/notmap.json"
expect_rc "--data must be a map" 2 "$Q" lisp --data "$TMP/notmap.json" -e '1'
printf '{"a": ' > "$TMP/bad.json"
expect_rc "--data with bad JSON" 2 "$Q" lisp --data "$TMP/bad.json" -e '1'
expect_err "--data bad JSON names the place" "at 1:7" "$Q" lisp --data "$TMP/bad.json" -e '1'
expect_rc "--data missing file" 2 "$Q" lisp --data "$TMP/none.json" -e '1'

# exit codes: 0 ok, 1 ran and failed, 2 bad input or usage
expect_rc "success" 0 "$Q" lisp -e 'nil'
expect_rc "runtime error" 1 "$Q" lisp -e '(inc "a")'
expect_rc "fail" 1 "$Q" lisp -e '(fail "no")'
expect_rc "parse error" 2 "$Q" lisp -e '(+ 1'
expect_rc "unknown symbol" 2 "$Q" lisp -e '(frobnicate 1)'
expect_rc "unknown option" 2 "$Q" lisp --frob -e '1'
expect_rc "bad format" 2 "$Q" lisp --format xml -e '1'
expect_rc "two programs" 2 "$Q" lisp -e '1' "$TMP/prog.clj"
expect_rc "missing program file" 2 "$Q" lisp "$TMP/nope.clj"
expect_rc "unknown command" 2 "$Q" frobnicate

expect_err "type error names place and form" "type-error at 1:4: 'inc' expects a number as argument 1, got string \"a\" in (inc \"a\")" "$Q" lisp -e '(+ (inc "a") 1)'
expect_err "did you mean" "did you mean 'inc'" "$Q" lisp -e '(incc 1)'
expect_err "parse error position" "parse-error at 1:1: unterminated list" "$Q" lisp -e '(+ 1'
expect_err "JSON error object" '{"error":{"kind":"arity-error","message":' "$Q" lisp --format json -e '((fn [x] x))'

# limits from the command line stop hostile programs with typed errors
expect_err "timeout" "timeout" "$Q" lisp --timeout-ms 50 -e '(loop [i 0] (recur (inc i)))'
expect_err "memory" "memory-exceeded" "$Q" lisp --max-memory 4M -e '(loop [s "x"] (recur (str s s)))'
expect_err "steps" "step-limit" "$Q" lisp --max-steps 1000 -e '(loop [] (recur))'
expect_err "depth" "depth-limit" "$Q" lisp --max-depth 100 -e '(defn f [n] (inc (f n))) (f 1)'
expect_rc "bad --max-memory" 2 "$Q" lisp --max-memory lots -e '1'
expect_err "regex backtracking" "regex-limit" "$Q" lisp -e '(re-find #"^(\w+\s?)*$" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!")'
expect_rc "limit errors exit 1" 1 "$Q" lisp -e '(count (range))'

# println output is captured: before the result in EDN mode, on stderr in JSON mode
expect_out "println" "$(printf 'hi 1\nnil')" "$Q" lisp -e '(println "hi" 1)'
expect_out "println with JSON keeps stdout clean" "2" "$Q" lisp --format json -e '(println "x") 2'
expect_err "output cut at --max-output" "output was cut" "$Q" lisp --max-output 5 -e '(println "hello world")'

expect_out "--stats on stderr, result on stdout" "1" "$Q" lisp --stats -e '1'
expect_err "--stats fields" '"eval_ms":' "$Q" lisp --stats -e '1'

expect_rc "--help" 0 "$Q" lisp --help
expect_out "--help mentions --data" "  --data FILE          request context (JSON or EDN map), read as data/NAME" sh -c "\"$Q\" lisp --help | grep -- '--data FILE'"
expect_rc "quarry --help" 0 "$Q" --help
expect_rc "quarry help lisp" 0 "$Q" help lisp

# rand and friends come from a generator the host seeds: --seed N (default 1)
r1=$("$Q" lisp --seed 42 -e '[(rand-int 1000000) (shuffle (range 10)) (rand)]')
r2=$("$Q" lisp --seed 42 -e '[(rand-int 1000000) (shuffle (range 10)) (rand)]')
r3=$("$Q" lisp --seed 43 -e '[(rand-int 1000000) (shuffle (range 10)) (rand)]')
expect_out "same seed, same numbers" "$r1" printf '%s' "$r2"
if [ "$r1" = "$r3" ]; then echo "FAIL: another seed gave the same numbers: $r1"; FAILS=$((FAILS + 1)); fi
expect_out "default seed is 1" "$("$Q" lisp --seed 1 -e '(rand-int 1000000)')" "$Q" lisp -e '(rand-int 1000000)'
expect_rc "bad --seed" 2 "$Q" lisp --seed -3 -e '1'

# tools: none are registered yet, and the error says so
expect_err "unknown tool" "unknown tool 'get_comits'; did you mean 'get_commits'?" "$Q" lisp -e '(tool/get_comits {})'

# the golden runner reports failures with file and line
printf '(+ 1 1)\n=> 3\n' > "$TMP/bad.txt"
expect_rc "golden failure exits 1" 1 "$Q" lisp --run-tests "$TMP/bad.txt"
expect_err "golden failure names the line" "bad.txt:1:" "$Q" lisp --run-tests "$TMP/bad.txt"

# the REPL keeps definitions across inputs (needs a terminal: script(1) gives one)
if command -v script >/dev/null 2>&1; then
  out=$(printf '(def x 20)\n(+ x\n 22)\n' | script -qec "\"$Q\" lisp" /dev/null 2>&1 | tr -d '\r')
  case $out in
    *42*) ;;
    *) echo "FAIL: REPL: $out"; FAILS=$((FAILS + 1)) ;;
  esac
fi
finish
