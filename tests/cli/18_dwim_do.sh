# 18_dwim_do.sh: `quarry do` end to end against the scripted model server
# (tests/llm/model_server.py, real HTTP over loopback) on a C repository built here: the
# model's lines open a subtask, break the code with a real edit, see the real compiler's
# error through validate, repair it, close the subtask and finish; every edit is undone
# after. Also: the prompt is a path, not a transcript (its size does not grow with the
# turns), notes expire, fetch expands a cached result, stalls stop the loop, the model-call
# budget holds, no model configured is a usage error. The loop's memory of reads: the SEEN
# list, a repeated read answered from the cache, a unified diff as models write it, and a
# real race (the model server changes the file between the read turn and the fix turn:
# fix refuses, the model reads again, the diff applies).
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_LLM_API_KEY
mkdir -p "$HOME"
if ! command -v cc >/dev/null || ! command -v make >/dev/null || ! command -v python3 >/dev/null; then
  echo "skip: no cc, make or python3"; exit 77
fi
R="$TMP/repo"
git init -q -b main "$R"
git -C "$R" config user.name T
git -C "$R" config user.email t@example.com
mkdir -p "$R/src"
cat > "$R/src/calc.c" <<'C'
int add(int a, int b)
{
    return a + b;
}

int twice(int a)
{
    return add(a, a);
}
C
printf 'all:\n\tcc -Wall -fsyntax-only src/calc.c\n' > "$R/Makefile"
git -C "$R" add -A
git -C "$R" commit -qm init
cp "$R/src/calc.c" "$TMP/calc.orig"
cd "$R" || exit 1

expect_err "no model" "no model configured" "$Q" do "anything"
expect_rc "no model exit" 2 "$Q" do "anything"

serve() { # serve REPLY...: one step per reply text
  python3 - "$TMP/script.json" "$@" <<'PY'
import json, sys
json.dump({"responses": [{"text": t} for t in sys.argv[2:]]}, open(sys.argv[1], "w"))
PY
  serve_script
}
serve_script() { # the script in $TMP/script.json
  llm_serve "$TMP/script.json"
  export QUARRY_LLM_MAX_RETRIES=0
}
unserve() { llm_unserve; }
trap 'unserve; rm -rf "$TMP"' EXIT
# user_msg N: the user message of request N
user_msg() {
  python3 -c 'import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
print(rows[int(sys.argv[2])]["body"]["messages"][-1]["content"])' "$TMP/log.jsonl" "$1"
}

BREAK='fix src/calc.c
<<<<<<< SEARCH
    return a + b;
=======
    return a + b
>>>>>>> REPLACE'
REPAIR='fix src/calc.c
<<<<<<< SEARCH
    return a + b
=======
    return b + a;
>>>>>>> REPLACE'
serve "skeleton src/calc.c" "note 'error': the build must stay green" "plan: swap the operands of add" \
  "$BREAK" "validate" "fetch 0005" "$REPAIR" "validate" "done: operands swapped" "done: add now returns b + a"
expect_out "the loop" "1> skeleton src/calc.c
   src/calc.c ...
2> note 'error': the build must stay green
   noted n1
3> plan: swap the operands of add
   subtask 2 opened
4> fix src/calc.c
   edited src/calc.c at line 3: -18 +17 bytes (quarry dwim undo restores it)
5> validate
   make -k: failed (exit 2), 1 error, 0 warnings ...
6> fetch 0005
   #0005 again from its start (100 chars)
7> fix src/calc.c
   edited src/calc.c at line 3: -17 +18 bytes (quarry dwim undo restores it)
8> validate
   make -k: ok (exit 0), 0 errors, 0 warnings
9> done: operands swapped
   subtask 2 closed
10> done: add now returns b + a
   task done" sh -c "'$Q' do 'swap the operands of add' --write --trace '$TMP/trace.jsonl' | sed '\$d'"
unserve
expect_out "the edit is on disk" "    return b + a;" sed -n 3p src/calc.c
expect_out "the real compiler agrees" "ok" sh -c "make -s >/dev/null 2>&1 && echo ok"
# what the model saw: the task path, the note until 'error' appeared, the last result
user_msg 3 > "$TMP/m3"
expect_out "turn 4 has the path" "1. [active] swap the operands of add
  2. [active] swap the operands of add" sed -n 2,3p "$TMP/m3"
expect_out "turn 4 has the note" "n1: the build must stay green" grep '^n1:' "$TMP/m3"
user_msg 5 > "$TMP/m5"
expect_out "the note expired at 'error'" "0" sh -c "grep -c '^NOTES' '$TMP/m5'"
expect_out "turn 6 shows result 5" "LAST #0005 \`validate\`" grep '^LAST' "$TMP/m5"
user_msg 9 > "$TMP/m9"
expect_out "after the subtask closed, the root holds its summary" "1. [active] swap the operands of add - last subtask: operands swapped" sed -n 2p "$TMP/m9"
# the context is a path: no prompt repeats an older result, and the prompts do not grow
user_msg 1 > "$TMP/m1"
expect_out "turn 2 shows the skeleton" "1" sh -c "grep -c 'int twice(int a)' '$TMP/m1'"
expect_out "no transcript" "0" sh -c "grep -c 'twice' '$TMP/m9'"
expect_out "prompt size flat" "ok" python3 -c 'import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
sizes=[len(r["body"]["messages"][-1]["content"]) for r in rows]
assert len(rows)==10, sizes
assert all(len(r["body"]["messages"])==2 for r in rows), "one system + one user message"
assert max(sizes) < 1500, sizes
print("ok")' "$TMP/log.jsonl"
# the common trace (docs/trace.md): each call's llm_request/llm_response, a turn event
# per turn, and the end event with the totals
expect_out "trace" "10 done 10 10" python3 -c 'import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
turns=[r for r in rows if r["event"]=="turn"]
calls=[r for r in rows if r["event"]=="llm_response"]
assert rows[-1]["event"]=="end" and all(r["source"]=="dwim" for r in rows), rows[-1]
print(len(turns), turns[-1]["verb"], len(calls), rows[-1]["calls"])' "$TMP/trace.jsonl"
# every edit undone
expect_out "undo 1" "restored src/calc.c" "$Q" dwim undo
expect_out "undo 2" "restored src/calc.c" "$Q" dwim undo
expect_out "tree as it was" "same" sh -c "cmp -s src/calc.c '$TMP/calc.orig' && echo same"

# without --write, fix is refused and the model is told so
serve "$BREAK" "done"
expect_out "fix refused" "1> fix src/calc.c
   error: fix changes files: run with --write" sh -c "'$Q' do 'x' | sed -n 1,2p"
unserve

# stalls: the same line three times
serve "read src/calc.c:1-2" "read src/calc.c:1-2" "read src/calc.c:1-2" "done"
expect_out "stall" "stall: the same line three times after 3 turns (3 model calls, " sh -c "'$Q' do 'x' | tail -1 | cut -d'(' -f1-2 | sed 's/[0-9]* tokens.*//'"
unserve
# no progress: lines that are not understood
serve "make coffee" "sing" "dance" "weather" "lorem ipsum" "more" "done"
expect_out "no progress" "stall: no progress after 5 turns" sh -c "'$Q' do 'x' | tail -1 | cut -d'(' -f1 | sed 's/ *\$//'"
unserve
# the budget: --max-turns N is N model calls
serve "skeleton src/calc.c" "expand add" "expand twice" "done"
expect_out "budget" "max-turns after 2 turns (2 model calls" sh -c "'$Q' do 'x' --max-turns 2 | tail -1 | cut -d, -f1"
expect_rc "budget exit" 1 "$Q" do 'x' --max-turns 1
unserve
# the model fails: the loop stops with what it has
serve "skeleton src/calc.c"
expect_err "model error" "the model failed" "$Q" do 'x'
unserve
expect_rc "bad --max-turns" 2 "$Q" do 'x' --max-turns 0

# the loop remembers what was read: a SEEN list in the prompt, a repeated read answered
# from the cache while the file is unchanged, a unified diff written the way models write
# it (in a fence, no line before it), and a read after the edit run again
DIFF='```diff
--- a/src/calc.c
+++ b/src/calc.c
@@ -1,4 +1,4 @@
 int add(int a, int b)
 {
-    return a + b;
+    return a + b + 0;
 }
```'
serve "read src/calc.c" "expand twice" "read src/calc.c" "$DIFF" "read src/calc.c" "done: ok"
"$Q" do 'add zero' --write > "$TMP/out" 2>&1
unserve
expect_out "repeat read from the cache" "3> read src/calc.c
   #0001 again (src/calc.c unchanged since; answered from the cache) ..." sed -n 5,6p "$TMP/out"
expect_out "the diff applied" "4> fix
   edited src/calc.c at line 3: -1 +1 lines ..." sed -n 7,8p "$TMP/out"
expect_out "the read after the edit ran again" "5> read src/calc.c
   src/calc.c:1-9 ..." sed -n 9,10p "$TMP/out"
expect_out "edit on disk" "    return a + b + 0;" sed -n 3p src/calc.c
user_msg 2 > "$TMP/s2"
expect_out "SEEN in the prompt" "SEEN (fetch ID shows one again)
#0002 src/calc.c expand twice (lines 6-9)
#0001 src/calc.c lines 1-9" sh -c "sed -n '/^SEEN/,/^LAST/p' '$TMP/s2' | sed '\$d'"
user_msg 3 > "$TMP/s3"
expect_out "the repeat is in the prompt, whole" "1" sh -c "grep -c 'return a + b;' '$TMP/s3'"
user_msg 5 > "$TMP/s5"
expect_out "SEEN after the edit" "#0005 src/calc.c lines 1-9
#0002 src/calc.c expand twice (lines 6-9) (edited since)
#0001 src/calc.c lines 1-9 (edited since)" sh -c "sed -n '/^SEEN/,/^LAST/p' '$TMP/s5' | sed '1d;\$d'"
expect_out "undo the diff" "restored src/calc.c" "$Q" dwim undo
expect_out "tree as it was (diff)" "same" sh -c "cmp -s src/calc.c '$TMP/calc.orig' && echo same"

# a real race: the file changes between the read turn and the fix turn (the model server
# appends to it when the fix turn's request arrives); fix refuses, the model reads again
# (not from the cache: the file changed) and the same diff then applies
DIFF2='--- a/src/calc.c
+++ b/src/calc.c
@@ -3 +3 @@
-    return a + b;
+    return b + a;'
python3 - "$TMP/script.json" "$R/src/calc.c" "$DIFF2" <<'PY'
import json, sys
path, diff = sys.argv[2], sys.argv[3]
append = ["sh", "-c", 'printf "/* changed underneath */\\n" >> "$0"', path]
json.dump({"responses": [{"text": "read src/calc.c"},
                         {"text": diff, "run": append},
                         {"text": "read src/calc.c"},
                         {"text": diff},
                         {"text": "done: swapped"}]}, open(sys.argv[1], "w"))
PY
serve_script
"$Q" do 'swap' --write > "$TMP/out" 2>&1
unserve
expect_out "fix refused: changed since read" "2> fix
   error: 'src/calc.c' changed since it was read (#0001); read it again" sed -n 3,4p "$TMP/out"
expect_out "read again, not from the cache" "3> read src/calc.c
   src/calc.c:1-10 ..." sed -n 5,6p "$TMP/out"
expect_out "then the fix applies" "4> fix
   edited src/calc.c at line 3: -1 +1 lines ..." sed -n 7,8p "$TMP/out"
expect_out "both changes on disk" "    return b + a;|/* changed underneath */" sh -c "sed -n '3p;10p' src/calc.c | paste -sd'|'"
expect_out "one edit to undo" "restored src/calc.c" "$Q" dwim undo
expect_out "the outside change stays" "/* changed underneath */" sed -n 10p src/calc.c
expect_rc "no second undo" 2 "$Q" dwim undo

# a verb sent alone: sure of itself, so the loop asks for its target, not for the verb
serve "skeleton" "callers" "done: nothing to do"
"$Q" do 'look around' > "$TMP/out" 2>&1
unserve
expect_out "asks for the skeleton's target" "1> skeleton
   skeleton of what? 'skeleton' needs a file or directory: write 'skeleton FILE|DIR'" sed -n 1,2p "$TMP/out"
expect_out "asks for the callers' target" "2> callers
   callers of what? 'callers' needs a symbol: write 'callers SYMBOL'" sed -n 3,4p "$TMP/out"
finish
