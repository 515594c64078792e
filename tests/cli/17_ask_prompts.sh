# 17_ask_prompts.sh: what `quarry ask` tells the model and what it caches, against the
# scripted model server (tests/llm/model_server.py: real HTTP on 127.0.0.1, both wire
# formats) and a repository built here with git at fixed dates:
#  - every user message starts with today's date and weekday (QUARRY_NOW), the time zone,
#    and the repository's first and last commit dates;
#  - each role's system prompt holds what it uses (issue 25): the Architect and the
#    Fetcher share conventions and tools byte for byte, the Evaluator (no tools) shares
#    the conventions only and gets no tool documentation; with Anthropic a cache
#    breakpoint follows the shared part, so the second agent's call reads it from the
#    cache;
#  - a plan whose Fetcher, asked for more data, repeats its query ends there with what it
#    fetched (4 calls, not the whole budget).
. "$(dirname "$0")/lib.sh"

for tool in git python3; do
  command -v $tool >/dev/null 2>&1 || { echo "FAIL: $tool is needed (scripts/deps.sh --test)"; exit 1; }
done
export HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/home/.config" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_LLM_API_KEY QUARRY_LLM_PROVIDER QUARRY_LLM_STREAM
mkdir -p "$HOME"
# Monday 2 March 2026, 10:00 UTC
export QUARRY_NOW=2026-03-02T10:00:00Z

R="$TMP/repo"
git init -q -b main "$R"
commit() { # commit DATE AUTHOR MESSAGE
  echo "$3" >> "$R/notes.txt"
  git -C "$R" add -A
  GIT_AUTHOR_NAME=$2 GIT_AUTHOR_EMAIL=$2@example.com GIT_AUTHOR_DATE="$1" \
  GIT_COMMITTER_NAME=$2 GIT_COMMITTER_EMAIL=$2@example.com GIT_COMMITTER_DATE="$1" \
    git -C "$R" commit -q -m "$3"
}
commit "2025-11-03T09:00:00Z" ann "first"
commit "2026-02-27T12:00:00Z" bob "second"
commit "2026-03-01T08:00:00Z" ann "third"

serve() { llm_serve "$1"; }
unserve() { llm_unserve; }
trap 'unserve; rm -rf "$TMP"' EXIT
script() { llm_script "$@"; }
pylog() { # pylog EXPR: over the logged requests, L
  python3 -c "import json,sys; L=[json.loads(l) for l in open(sys.argv[2])]; print($1)" "$1" "$TMP/log.jsonl" 2>&1 | tail -1
}
ask() { # ask OUT ARGS...
  out=$1; shift
  (cd "$R" && "$Q" ask --format json --no-router "$@") >"$out" 2>"$out.err"
  echo $? >"$out.rc"
}

cat >"$TMP/plan.txt" <<'X'
{:mode :plan :steps [{:id 1 :goal "find the recent commits" :needs []}]}
X
cat >"$TMP/fetch.txt" <<'X'
{:mode :query :query {:fetch [{:tool :get_commits :as :commits :params {:since "1 week ago"}}]}}
X
cat >"$TMP/eval_more.txt" <<'X'
{:mode :query :query {:return {:action :fetch :hints ["fetch more"]}}}
X

# ---- OpenAI wire: the TODAY lines, the shared block, the repeated fetch ----
script "$TMP/s1.json" "$TMP/plan.txt" "$TMP/fetch.txt" "$TMP/eval_more.txt" "$TMP/fetch.txt" \
  "$TMP/eval_more.txt" "$TMP/fetch.txt"
serve "$TMP/s1.json"
ask "$TMP/a1" "what happened recently that matters"
unserve
expect_out "repeated fetch: exit 0" "0" cat "$TMP/a1.rc"
expect_out "repeated fetch: stops after 4 calls" "4" pylog 'len(L)'
expect_out "repeated fetch: the commits it got" "2" \
  python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['findings']))" "$TMP/a1"
expect_out "repeated fetch: says why it stopped" "True" \
  python3 -c "import json,sys; print('repeated' in json.load(open(sys.argv[1]))['summary'])" "$TMP/a1"
expect_out "today line" "TODAY: 2026-03-02 (Monday), now 10:00, time zone UTC+00:00" \
  pylog 'L[0]["body"]["messages"][1]["content"].splitlines()[0]'
expect_out "repository span" "REPOSITORY: first commit 2025-11-03, last commit 2026-03-01" \
  pylog 'L[0]["body"]["messages"][1]["content"].splitlines()[1]'
expect_out "every request starts with the today line" "True" \
  pylog 'all(r["body"]["messages"][1]["content"].startswith("TODAY: 2026-03-02") for r in L)'
# the Architect's and Fetcher's system prompts agree up to the DSL; the Evaluator's
# agrees with them up to the tools, which it does not get
expect_out "shared block identical across agents" "True" \
  pylog 'len({r["body"]["messages"][0]["content"].split("\nTOOLS\n" if r is not L[2] else "\nQUERY DSL")[0] for r in L}) == 1 and len({r["body"]["messages"][0]["content"].split("\nQUERY DSL")[0] for r in L[:2]}) == 1 and len({r["body"]["messages"][0]["content"] for r in L}) == 3'
expect_out "the Evaluator gets no tool documentation" "True False" \
  pylog '"get_commits(" in L[1]["body"]["messages"][0]["content"], "get_commits(" in L[2]["body"]["messages"][0]["content"]'
expect_out "the Evaluator's prompt is shorter than the Architect's by the tools" "True" \
  pylog 'len(L[2]["body"]["messages"][0]["content"]) + 1500 < len(L[0]["body"]["messages"][0]["content"])'
expect_out "no page a model cannot read" "False" \
  pylog 'any("docs/" in m["content"] for r in L for m in r["body"]["messages"])'

# ---- Anthropic wire: a breakpoint after the shared block ----
export QUARRY_LLM_PROVIDER=anthropic
script "$TMP/s2.json" "$TMP/plan.txt" "$TMP/fetch.txt" "$TMP/eval_more.txt" "$TMP/fetch.txt"
serve "$TMP/s2.json"
export QUARRY_LLM_URL="http://127.0.0.1:$(cat "$TMP/port")"
ask "$TMP/a2" "what happened recently that matters"
unserve
expect_out "anthropic: exit 0" "0" cat "$TMP/a2.rc"
expect_out "anthropic: two system blocks, both breakpoints" "[2, 2]" \
  pylog '[len(L[0]["body"]["system"]), sum("cache_control" in b for b in L[0]["body"]["system"])]'
expect_out "anthropic: the first block is shared by the Architect and the Fetcher" "True" \
  pylog 'L[0]["body"]["system"][0]["text"] == L[1]["body"]["system"][0]["text"] and L[0]["body"]["system"][1]["text"] != L[1]["body"]["system"][1]["text"]'
# the Fetcher's call (the second) reads the shared block from the cache: the server
# reports cache_read tokens for it, and --explain shows them
serve "$TMP/s2.json"
export QUARRY_LLM_URL="http://127.0.0.1:$(cat "$TMP/port")"
ask "$TMP/a3" "what happened recently that matters" --explain
unserve
expect_out "anthropic: the Fetcher reads the shared block from the cache" "True" \
  python3 -c "import json,sys; e=json.loads(open(sys.argv[1]).read().splitlines()[-1])['explain']; c=e['calls']; print(c[0]['usage']['cache_read'] == 0 and c[1]['usage']['cache_read'] > 400)" "$TMP/a3.err"
finish
