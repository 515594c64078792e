# 46_streetrace_corpus.sh: StreetRace's own workflow files (tests/streetrace: its 35 .sr
# files at a pinned commit, with its grammar and licence) as a corpus. For each file
# tests/streetrace/expectations.txt says what `quarry flow check` must answer: `clean`
# (no error; the warnings listed, if any), `refused` with every error it must report,
# each naming the construct quarry does not support, or `invalid` (StreetRace's own test
# of a syntax error) with the syntax error. No file may crash the checker or
# the formatter, a clean file formats to a fixed point that checks the same, and a
# StreetRace file whose model is `anthropic/...` is run against the scripted model
# server and must reach it through the Anthropic Messages format.
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
  echo "FAIL: python3 is needed (scripts/deps.sh --test installs it)"
  exit 1
fi
export HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/home/.config" TZ=UTC LC_ALL=C
unset QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_LLM_API_KEY QUARRY_LLM_PROVIDER QUARRY_LLM_STREAM
mkdir -p "$HOME"
export QUARRY_LLM_RETRY_BASE_MS=5 QUARRY_LLM_MAX_RETRIES=0
C="$SRC/tests/streetrace"
E="$C/expectations.txt"

# every .sr file of the corpus has an expectation, and every expectation a file
expect_out "corpus: 35 files, one expectation each" "35 35" sh -c "
  n=\$(cd '$C' && find . -name '*.sr' | sed 's|^\./||' | sort | tee '$TMP/files' | wc -l)
  grep -v '^#' '$E' | grep . | cut -f1 | sort > '$TMP/listed'
  cmp -s '$TMP/files' '$TMP/listed' && echo \$n \$(wc -l < '$TMP/listed')"

# check each file: the exit status, and the diagnostics (code and message, sorted)
grep -v '^#' "$E" | grep . | while IFS="	" read -r file result msgs; do
  "$Q" flow check --format json "$C/$file" >"$TMP/out.json" 2>"$TMP/err"
  rc=$?
  want_rc=1
  [ "$result" = clean ] && want_rc=0
  if [ "$rc" != "$want_rc" ]; then
    echo "FAIL: $file: exit $rc, want $want_rc ($result)"; cat "$TMP/err"; echo x >>"$TMP/fails"
    continue
  fi
  got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["files"][0]["diagnostics"]
print("; ".join(sorted(set(x["code"] + " " + x["message"] for x in d))))' "$TMP/out.json")
  if [ "$got" != "$msgs" ]; then
    echo "FAIL: $file: diagnostics"; echo "  want: $msgs"; echo "  got:  $got"; echo x >>"$TMP/fails"
  fi
  if [ "$result" = refused ] && echo "$got" | tr ';' '\n' | grep '^ *E' | grep -qv 'unsupported construct'; then
    echo "FAIL: $file: an error that names no unsupported construct: $got"; echo x >>"$TMP/fails"
  fi
  # the formatter never crashes; a clean file formats to a fixed point that checks the same
  "$Q" flow fmt --stdout "$C/$file" >"$TMP/f1.sr" 2>"$TMP/err"
  frc=$?
  if [ "$result" = clean ]; then
    "$Q" flow fmt --stdout "$TMP/f1.sr" >"$TMP/f2.sr" 2>>"$TMP/err"
    if [ $frc != 0 ] || ! cmp -s "$TMP/f1.sr" "$TMP/f2.sr" || ! "$Q" flow check "$TMP/f1.sr" >/dev/null 2>&1; then
      echo "FAIL: $file: fmt (exit $frc) is not a fixed point or does not check"; cat "$TMP/err"; echo x >>"$TMP/fails"
    fi
  elif [ $frc != 1 ]; then
    echo "FAIL: $file: fmt of a refused file exits $frc, want 1"; echo x >>"$TMP/fails"
  fi
done
[ -f "$TMP/fails" ] && FAILS=$((FAILS + $(wc -l <"$TMP/fails")))

# the whole corpus at once: the counts the expectations give
clean=$(grep -v '^#' "$E" | cut -f2 | grep -c '^clean$')
expect_out "corpus as a directory: the clean count" "$clean" sh -c "
  '$Q' flow check --format json '$C' | python3 -c 'import json,sys; print(sum(f[\"valid\"] for f in json.load(sys.stdin)[\"files\"]))'"

# a StreetRace file with `model main = anthropic/claude-sonnet` and one unnamed agent,
# run unchanged: the request goes to /v1/messages with the file's model name
llm_script "$TMP/s.json" '{"text": "Hello! How can I help?"}'
llm_serve "$TMP/s.json"
export QUARRY_LLM_API_KEY=sk-test-corpus
expect_out "anthropic/ model: the run answers" "Hello! How can I help?" \
  "$Q" flow run "$C/agents/examples/dsl/minimal.sr" --input "hi"
llm_unserve
pylog() {
  python3 -c "import json,sys; L=[json.loads(l) for l in open(sys.argv[2])]; print($1)" "$1" "$TMP/log.jsonl" 2>&1 | tail -1
}
expect_out "anthropic/ model: Messages endpoint" "/v1/messages" pylog 'L[0]["path"]'
expect_out "anthropic/ model: the file's model name" "claude-sonnet" pylog 'L[0]["body"]["model"]'
expect_out "anthropic/ model: instruction as system text" "True" pylog '"Greet the user warmly" in L[0]["body"]["system"][0]["text"]'

# `tool fs = builtin streetrace.fs` is quarry's files group: read_file and search_files
# always, edit_file only with --allow-write files; they work on the repository's tree
if command -v git >/dev/null 2>&1; then
  R="$TMP/repo"
  git init -q -b main "$R"
  printf 'int add(int a, int b)\n{\n    return a - b;\n}\n' > "$R/calc.c"
  printf 'hello\n' > "$R/notes.txt"
  git -C "$R" add -A
  GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@example.com GIT_COMMITTER_NAME=Ann \
    GIT_COMMITTER_EMAIL=ann@example.com git -C "$R" commit -q -m "calc"
  F="$C/agents/examples/workloads/flow_tools.sr"
  llm_script "$TMP/s.json" \
    '{"tool_calls": [{"name": "read_file", "arguments": {"path": "calc.c", "start": 3, "end": 3}}]}' \
    '{"tool_calls": [{"name": "search_files", "arguments": {"pattern": "return a"}}]}' \
    '{"tool_calls": [{"name": "edit_file", "arguments": {"path": "calc.c", "search": "    return a - b;", "replace": "    return a + b;"}}]}' \
    '{"text": "calc.c, notes.txt"}'
  llm_serve "$TMP/s.json"
  expect_out "fs: the agent answers" "calc.c, notes.txt" sh -c "cd '$R' && '$Q' flow run '$F'"
  llm_unserve
  expect_out "fs: read-only tools offered without --allow-write" "read_file search_files" \
    pylog '" ".join(t["name"] for t in L[0]["body"]["tools"])'
  expect_out "fs: read_file gives the line from the tree" "True" \
    pylog '"return a - b;" in json.dumps(L[1]["body"]["messages"][-1]) and "add(int" not in json.dumps(L[1]["body"]["messages"][-1])'
  expect_out "fs: search_files finds the match" "True" \
    pylog '"calc.c:3" in json.dumps(L[2]["body"]["messages"][-1])'
  expect_out "fs: edit_file without the permission is refused" "True" \
    pylog '"no tool" in json.dumps(L[3]["body"]["messages"][-1])'
  expect_out "fs: the file is unchanged" "    return a - b;" sed -n 3p "$R/calc.c"
  # with --allow-write files: edit_file is offered and changes the file
  llm_script "$TMP/s.json" \
    '{"tool_calls": [{"name": "edit_file", "arguments": {"path": "calc.c", "search": "    return a - b;", "replace": "    return a + b;"}}]}' \
    '{"text": "fixed"}'
  llm_serve "$TMP/s.json"
  expect_out "fs --allow-write files: the agent answers" "fixed" \
    sh -c "cd '$R' && '$Q' flow run '$F' --allow-write files"
  llm_unserve
  expect_out "fs --allow-write files: edit_file offered" "read_file search_files edit_file" \
    pylog '" ".join(t["name"] for t in L[0]["body"]["tools"])'
  expect_out "fs --allow-write files: the file is changed" "    return a + b;" sed -n 3p "$R/calc.c"
  expect_rc "--allow-write takes only files" 2 "$Q" flow run "$F" --allow-write memory
fi

finish
