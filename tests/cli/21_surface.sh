# 21_surface.sh: what an agent builder sees at the surfaces: `quarry tool` on a pipe prints
# the whole window (a terminal gets 50 rows unless --limit-output says), a tool's error
# message stays short however long the input it quotes, the time a program spends in its
# tools counts against its time limit (and stops the tools' own work), and `quarry mcp`'s
# --workers option.
. "$(dirname "$0")/lib.sh"

if ! command -v git >/dev/null 2>&1; then
  echo "skipped: git is not installed"
  exit 77
fi
export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY
mkdir -p "$HOME"

# 120 commits by one author, a minute apart
R="$TMP/repo"
git init -q -b main "$R"
i=1
while [ $i -le 120 ]; do
  printf 'commit refs/heads/main\ncommitter Ann <ann@example.com> %d +0000\ndata 9\nstep %04d\nM 644 inline f%d.txt\ndata 10\nstep %04d\n\n' \
    $((1700000000 + i * 60)) $i $((i % 5)) $i
  i=$((i + 1))
done | git -C "$R" fast-import --quiet
git -C "$R" reset -q --hard main

# ---- no silent caps: on a pipe, every row; --limit-output cuts and says so on stderr ----
expect_out "tool on a pipe prints the whole window" "120" \
  sh -c "\"$Q\" tool get_commits --repo \"$R\" | { printf '{\"rows\":'; cat; printf '}'; } | \"$Q\" lisp --data - -e '(count data/rows)'"
expect_out "--limit-output cuts" "10" \
  sh -c "\"$Q\" tool get_commits --repo \"$R\" --limit-output 10 2>/dev/null | { printf '{\"rows\":'; cat; printf '}'; } | \"$Q\" lisp --data - -e '(count data/rows)'"
expect_err "--limit-output says what it left out" "110 more rows left out" \
  "$Q" tool get_commits --repo "$R" --limit-output 10

# ---- --args - replays a model's call from stdin, MCP's repo and offset included ----
expect_out "--args - reads the arguments from stdin" "2" \
  sh -c "echo '{\"limit\": 2, \"author\": null}' | \"$Q\" tool get_commits --repo \"$R\" --args - | { printf '{\"rows\":'; cat; printf '}'; } | \"$Q\" lisp --data - -e '(count data/rows)'"
expect_out "--args - with MCP's repo and offset" '"step 0118"' \
  sh -c "cd / && echo '{\"limit\": 5, \"repo\": \"$R\", \"offset\": 2}' | \"$Q\" tool get_commits --args - --limit-output 1 2>/dev/null | grep -o '\"subject\":\"[^\"]*\"' | cut -d: -f2"

# ---- errors quote a bounded part of their input ----
long=$(head -c 100000 /dev/zero | tr '\0' x)
"$Q" tool get_commits --repo "$R" --ref "$long" >"$TMP/out" 2>"$TMP/err"
rc=$?
size=$(wc -c < "$TMP/err" | tr -d ' ')
if [ "$rc" != 2 ] || [ "$size" -gt 700 ] || ! grep -q 'more bytes)' "$TMP/err"; then
  echo "FAIL: a 100 KB ref: exit $rc (want 2), a message of $size bytes (want at most 700, cut)"
  head -c 300 "$TMP/err"; echo
  FAILS=$((FAILS + 1))
fi

# ---- time inside tools is the program's ----
# statistics without the index start git processes, which alone take longer than 1 ms:
# the program fails with a timeout rather than finishing on its tools' time
expect_err "time in tools counts against --timeout-ms" "timeout" \
  "$Q" lisp --repo "$R" --no-index --timeout-ms 1 -e '(count (tool/get_author_stats {}))'
expect_rc "the same program fails" 1 \
  "$Q" lisp --repo "$R" --no-index --timeout-ms 1 -e '(count (tool/get_author_stats {}))'
expect_out "with time to spare it runs" "1" \
  "$Q" lisp --repo "$R" --no-index --timeout-ms 60000 -e '(count (tool/get_author_stats {}))'

# ---- quarry mcp --workers ----
expect_rc "mcp --workers 0" 2 "$Q" mcp --repo "$R" --workers 0
expect_rc "mcp --workers lots" 2 "$Q" mcp --repo "$R" --workers lots
expect_out "mcp --help documents --workers" "1" \
  sh -c "\"$Q\" mcp --help | grep -c -- '--workers N'"

# ---- one suggestion, in one form, for an unknown command or option ----
expect_rc "an unknown command" 2 "$Q" mpc
expect_err "an unknown command gets a suggestion" "quarry: unknown command 'mpc' (did you mean 'mcp'?); see 'quarry --help'" "$Q" mpc
expect_err "help of an unknown command" "unknown command 'mpc' (did you mean 'mcp'?)" "$Q" help mpc
expect_rc "version --bogus" 2 "$Q" version --bogus
expect_err "an unknown option gets a suggestion" "quarry mcp: unknown option '--wokers' (did you mean '--workers'?); see 'quarry mcp --help'" "$Q" mcp --wokers 2
expect_err "the same form in lisp" "unknown option '--timout-ms' (did you mean '--timeout-ms'?)" "$Q" lisp --timout-ms 3 -e 1
expect_err "nothing close: no suggestion" "quarry: unknown command 'xyzzy'; see 'quarry --help'" "$Q" xyzzy

# ---- tool schemas: the strict OpenAI export follows strict mode's rules ----
"$Q" tools --format openai-strict > "$TMP/strict.json"
"$Q" tools --format openai > "$TMP/plain.json"
if ! python3 "$SRC/tests/cli/strict_check.py" "$TMP/strict.json" "$TMP/plain.json" > "$TMP/strict.out"; then
  echo "FAIL: openai-strict breaks strict mode's rules:"; sed 's/^/  /' "$TMP/strict.out"
  FAILS=$((FAILS + 1))
fi
# a deliberately broken export is caught (the checker can fail)
sed 's/"additionalProperties": false/"additionalProperties": true/' "$TMP/strict.json" > "$TMP/broken.json"
expect_rc "the strict checker rejects additionalProperties true" 1 \
  python3 "$SRC/tests/cli/strict_check.py" "$TMP/broken.json" "$TMP/plain.json"
expect_rc "the plain export is not strict" 1 \
  python3 "$SRC/tests/cli/strict_check.py" "$TMP/plain.json" "$TMP/plain.json"
# null means "not given": a strict call with every optional parameter null runs
expect_out "a strict call with nulls" "2" sh -c "echo '{\"since\": null, \"until\": null, \"author\": null, \"path\": null, \"ref\": null, \"limit\": 2, \"grep\": null, \"merges\": null, \"first_parent\": null, \"with_paths\": null, \"repo\": \"$R\", \"offset\": null}' | \"$Q\" tool get_commits --args - | { printf '{\"rows\":'; cat; printf '}'; } | \"$Q\" lisp --data - -e '(count data/rows)'"
expect_out "the export has titles, run_lisp and repo" "Run a PTC-Lisp program string" \
  sh -c "\"$Q\" tools --format mcp --compact run_lisp | python3 -c 'import json,sys; t=json.load(sys.stdin)[0]; print(t[\"title\"], t[\"inputSchema\"][\"properties\"][\"repo\"][\"type\"])'"

# ---- --format json: errors are JSON objects on stderr in every command ----
for cmd in "tools nope" "mpc" "lisp --bogus" "version --bogus" "mcp --workers 0" "tool nope" "query --bogus"; do
  # shellcheck disable=SC2086
  "$Q" $cmd --format json >/dev/null 2>"$TMP/err"
  case $(cat "$TMP/err") in
    '{"error":{"kind":"usage","message":'*'}}') ;;
    *) echo "FAIL: quarry $cmd --format json: not a JSON error: $(cat "$TMP/err")"; FAILS=$((FAILS + 1)) ;;
  esac
done
finish
