# 44_dwim_prompt.sh: the per-turn prompt of `quarry do` stays within its budget (2,000
# characters of user message, about 500 tokens) over a 20-turn scripted run that piles up
# what used to make it grow: long goals four subtasks deep, long notes, many files read
# (the SEEN list), a long result. Also: `fetch ID` pages through a long result (the
# prompts' views put together are the whole result), `fetch nN` reads a note whole (the
# prompt shows 100 characters of it). Prints the sizes (QUARRY_PROMPT_REPORT=FILE appends
# them to FILE too).
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_LLM_API_KEY
mkdir -p "$HOME"
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
export QUARRY_LLM_MAX_RETRIES=0
R="$TMP/repo"
git init -q -b main "$R"
git -C "$R" config user.name T
git -C "$R" config user.email t@example.com
mkdir -p "$R/src"
for f in a b c d e f; do
  printf 'int f%s(int x)\n{\n    return x + 1;\n}\n\nint g%s(int x)\n{\n    return f%s(x) * 2;\n}\n' "$f" "$f" "$f" > "$R/src/$f.c"
done
seq 1 100 | awk '{ printf "int big_value_%03d = %d;\n", $1, $1 * 7 }' > "$R/src/big.c"
git -C "$R" add -A && git -C "$R" commit -qm init
cd "$R" || exit 1
LONG_GOAL="find every function that adds one to its argument and check whether each caller relies on it overflowing, across all the files of src, without changing any of them and keeping a list"
NOTE1="first finding: fa, fb and fc each return x + 1 and nothing checks for INT_MAX; the callers ga, gb and gc double the result, so an overflow there doubles too END-OF-NOTE-ONE"
python3 - "$TMP/script.json" "$LONG_GOAL" "$NOTE1" <<'PY'
import json, sys
out, goal, note1 = sys.argv[1:4]
lines = [
    "plan: " + goal,                              # 1  -> #0001
    "note: " + note1,                             # 2  -> #0002
    "read src/big.c",                             # 3  -> #0003 (about 5,000 chars)
    "fetch 0003", "fetch 0003", "fetch 0003", "fetch 0003",   # 4-7: its parts, then again
    "fetch n1",                                   # 8  -> #0004
    "plan: second level: " + goal,                # 9
    "note: " + "second note " * 20,               # 10
    "plan: third level: " + goal,                 # 11
    "note 3: " + "short-lived " * 12,             # 12
    "skeleton src/a.c", "read src/b.c", "expand fc", "read src/d.c", "read src/e.c",  # 13-17
    "note: " + "third note " * 20,                # 18
    "read src/f.c",                               # 19
    "done: enough for this run",                  # 20 (closes the third level)
]
assert len(lines) == 20, len(lines)
json.dump({"responses": [{"text": t} for t in lines]}, open(out, "w"))
PY
llm_serve "$TMP/script.json"
"$Q" do "$LONG_GOAL" --max-turns 20 > "$TMP/out" 2>&1
llm_unserve
expect_out "20 turns ran" "max-turns after 20 turns" sh -c "tail -1 '$TMP/out' | cut -d'(' -f1 | sed 's/ *\$//'"
python3 - "$TMP/log.jsonl" "$R/src/big.c" > "$TMP/report" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
user = [r["body"]["messages"][-1]["content"] for r in rows]
sizes = [len(u) for u in user]
system = len(rows[0]["body"]["messages"][0]["content"])
print(f"20-turn run: per-turn message {min(sizes)}-{max(sizes)} chars (mean "
      f"{sum(sizes) / len(sizes):.0f}, ~{max(sizes) // 4} tokens at most); system role "
      f"{system} chars; sizes {sizes}")
assert len(rows) == 20, len(rows)
assert max(sizes) <= 2000, sizes
# the views of result 3 in the prompts of turns 4.. (after read, and after each fetch)
def view(u):
    head, rest = u.split("\nLAST #0003 `read src/big.c`", 1)
    rest = rest.split("\n", 1)[1]
    rest = rest.rsplit("\nTURN ", 1)[0]
    if "\n... " in rest and "more chars: fetch 0003 goes on" in rest:
        rest = rest.rsplit("\n... ", 1)[0] + "\n"
    elif rest.endswith("more chars: fetch 0003 goes on"):
        rest = rest.rsplit("... ", 1)[0]
    return rest
parts, k = [], 3
while True:
    parts.append(view(user[k]))
    more = "more chars: fetch 0003 goes on" in user[k]
    k += 1
    if not more:
        break
whole = "".join(parts)
lines = whole.splitlines()
assert lines[0] == "src/big.c:1-100", lines[0]
assert len(lines) == 101 and lines[-1].strip().startswith("100"), (len(lines), lines[-3:])
assert len(parts) >= 2 and "from char" in user[4], user[4]
print("fetch: result #0003 (%d chars) read whole in %d views" % (len(whole), len(parts)))
# once shown to its end, the next fetch starts again from the top
assert k <= 7 and "src/big.c:1-100" in user[k], (k, user[k][-400:])
# the note: cut at 100 characters in the prompt, whole after fetch n1
assert "END-OF-NOTE-ONE" not in user[2] and "n1: first finding" in user[2]
assert "END-OF-NOTE-ONE" in user[8], user[8]
print("notes: cut in the prompt, whole after fetch n1")
PY
rc=$?
cat "$TMP/report"
[ $rc -eq 0 ] || { echo "FAIL: the prompt checks"; FAILS=$((FAILS + 1)); }
[ -n "${QUARRY_PROMPT_REPORT:-}" ] && cat "$TMP/report" >> "$QUARRY_PROMPT_REPORT"
user_msg() {
  python3 -c 'import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
print(rows[int(sys.argv[2])]["body"]["messages"][-1]["content"])' "$TMP/log.jsonl" "$1"
}
# the path four deep: the root, a gap, the two deepest
user_msg 18 > "$TMP/m18"
expect_out "the path keeps the root and the two deepest" "1. [active] find every function
  ... 1 subtasks between
  3. [active] second level: find
    4. [active] third level: fin" sh -c "sed -n '2,5p' '$TMP/m18' | cut -c1-32 | sed 's/ *\$//'"
finish
