# 13_ask.sh: `quarry ask` against the scripted model server (tests/llm/model_server.py, a
# real HTTP server on 127.0.0.1 speaking the OpenAI and Anthropic wire formats) and a
# repository built here with git. Shows what the issue asks: a simple question costs one
# call, an intent two, seed 000's two-step plan five; the north star is in every request;
# an agent's cached prefix is byte-identical across calls; a repair turn fixes a broken
# query; the budget holds; retries happen on 429 and stop; with no model, the router
# answers what it knows and anything else gets one line on configuring a model. Each
# answer is checked against git.
. "$(dirname "$0")/lib.sh"

if ! command -v git >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
  echo "FAIL: git and python3 are needed (scripts/deps.sh --test installs them)"
  exit 1
fi

export HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/home/.config" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL \
  GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE \
  QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_LLM_API_KEY QUARRY_LLM_PROVIDER QUARRY_LLM_STREAM \
  QUARRY_LLM_MAX_RETRIES QUARRY_LLM_TIMEOUT_MS
mkdir -p "$HOME"
export QUARRY_LLM_RETRY_BASE_MS=5

R="$TMP/repo"
git init -q -b main "$R"
n=0
commit() {
  days=$1 name=$2 files=$3 msg=$4
  n=$((n + 1))
  i=1
  while [ $i -le "$files" ]; do
    echo "$msg $n" >> "$R/file$i.txt"
    i=$((i + 1))
  done
  git -C "$R" add -A
  d="$((NOW - days * 86400)) +0000"
  lower=$(echo "$name" | tr 'A-Z' 'a-z')
  GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$lower@example.com GIT_AUTHOR_DATE=$d \
  GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$lower@example.com GIT_COMMITTER_DATE=$d \
    git -C "$R" commit -q -m "$msg"
}
commit 40 Ann 8 "Initial import"
commit 20 Carol 2 "docs: refactor layout"
commit 6 Carol 1 "fix: off by one"
commit 5 Bob 7 "Big rename sweep"
commit 4 Bob 2 "refactor: split module"
commit 3 Ann 1 "fix typo"
commit 2 Bob 9 "Add benchmarks"
WEEK="1 week ago"

# ---- the model server ----
serve() { llm_serve "$1"; export QUARRY_LLM_API_KEY=sk-test-secret-123; }
unserve() { llm_unserve; }
trap 'unserve; rm -rf "$TMP"' EXIT

# script OUT REPLY...: a server script; each REPLY is a file of reply text, or a JSON step
# object written inline ({"status": 429}).
script() { llm_script "$@"; }

# requests: how many the server got
requests() { wc -l < "$TMP/log.jsonl" | tr -d ' '; }

# pyq EXPR FILE: evaluates a Python expression over the JSON in FILE (bound to `d`)
pyq() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[2])); print($1)" "$1" "$2" 2>&1 | tail -1
}
# pylog EXPR: over the list of logged requests (`L`)
pylog() {
  python3 -c "import json,sys; L=[json.loads(l) for l in open(sys.argv[2])]; print($1)" "$1" "$TMP/log.jsonl" 2>&1 | tail -1
}

ask() { # ask OUT ARGS...: runs quarry ask in the repository; JSON to OUT, stderr to OUT.err
  out=$1; shift
  # time inside tools counts against a program's limit: a generous one, as the sanitizer
  # build computes cold statistics slowly while the rest of the suite runs
  (cd "$R" && "$Q" ask --timeout-ms 60000 --format json "$@") >"$out" 2>"$out.err"
  echo $? >"$out.rc"
}

git_week_count=$(git -C "$R" log --since="$WEEK" --format=%H | wc -l | tr -d ' ')

# ---- tier 1 with no model ----
ask "$TMP/t1" "commits from last week"
expect_out "router: no model, exit 0" "0" cat "$TMP/t1.rc"
if [ -f "$TMP/t1" ] && grep -q findings "$TMP/t1"; then
  expect_out "router: findings match git" "$git_week_count" pyq 'len(d["findings"])' "$TMP/t1"
fi
ask "$TMP/nomodel" "rank authors by a risk score of deletions times two plus additions"
expect_out "no model: exit 2" "2" cat "$TMP/nomodel.rc"
if ! grep -q "QUARRY_LLM_URL" "$TMP/nomodel.err"; then
  echo "FAIL: no-model error lacks the configuration hint"; cat "$TMP/nomodel.err"; FAILS=$((FAILS + 1))
fi
expect_out "no model: one line" "1" sh -c "wc -l < '$TMP/nomodel.err' | tr -d ' '"

# ---- tier 2: a query, one call ----
cat >"$TMP/arch_query.txt" <<'EOF'
I will answer with a query.
```edn
{:mode :query
 :query {:fetch [{:tool :get_commits :as :commits :params {:since "1 week ago"}}]
         :transform [{:op :sort :on :commits :as :ranked :by :files :order :desc}]
         :return {:findings :ranked :summary "Found {{count:commits}} commits from last week"}}}
```
EOF
script "$TMP/s1.json" "$TMP/arch_query.txt"
serve "$TMP/s1.json"
ask "$TMP/q1" "show me the commits of the past week ordered by size" --no-router --explain --trace "$TMP/trace1.jsonl"
expect_out "query: exit 0" "0" cat "$TMP/q1.rc"
expect_out "query: one call" "1" requests
expect_out "query: findings match git" "$git_week_count" pyq 'len(d["findings"])' "$TMP/q1"
expect_out "query: summary" "Found $git_week_count commits from last week" pyq 'd["summary"]' "$TMP/q1"
expect_out "query: largest first" "9" pyq 'd["findings"][0]["files"]' "$TMP/q1"
expect_out "query: explain says tier 2" "2" sh -c "python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1])[\"explain\"][\"tier\"])' '$TMP/q1.err'"
expect_out "query: north star in the request" "True" pylog '"ordered by size" in L[0]["body"]["messages"][-1]["content"]'
expect_out "query: system prompt first" "system" pylog 'L[0]["body"]["messages"][0]["role"]'
expect_out "query: key sent as bearer" "Bearer sk-test-secret-123" pylog 'L[0]["headers"]["authorization"]'
expect_out "trace: every line is JSON with an event" "True" python3 -c "import json,sys; print(all('event' in json.loads(l) for l in open(sys.argv[1])))" "$TMP/trace1.jsonl"
expect_out "trace: never holds the key" "0" sh -c "grep -c 'sk-test-secret' '$TMP/trace1.jsonl'"
expect_out "trace: has the prompt, the reply, the program and the tool call" "True" python3 -c "
import json,sys
ev=[json.loads(l)['event'] for l in open(sys.argv[1])]
print(all(e in ev for e in ['question','llm_request','llm_response','compile','run','tool','answer']))" "$TMP/trace1.jsonl"
unserve

# ---- tier 3: an intent, two calls ----
cat >"$TMP/arch_intent.txt" <<'EOF'
{:mode :intent
 :intent "Get the commits of the last week. Score each as deletions * 2 + additions. Return the three highest scoring commits with their hash, author and score."}
EOF
cat >"$TMP/compiler.txt" <<'EOF'
```clojure
(def commits (tool/get_commits {:since "1 week ago"}))
(def scored (map (fn [c] {:hash (:hash c) :author (:author c)
                          :score (+ (* 2 (:deletions c)) (:additions c))}) commits))
(def top3 (take 3 (sort-by :score > scored)))
(return {:findings top3 :summary (str "Top " (count top3) " of " (count commits) " commits by risk")})
```
EOF
script "$TMP/s2.json" "$TMP/arch_intent.txt" "$TMP/compiler.txt"
serve "$TMP/s2.json"
ask "$TMP/q2" "rank last week's commits by a risk score" --explain
expect_out "intent: exit 0" "0" cat "$TMP/q2.rc"
expect_out "intent: two calls" "2" requests
expect_out "intent: three findings" "3" pyq 'len(d["findings"])' "$TMP/q2"
expect_out "intent: summary" "Top 3 of $git_week_count commits by risk" pyq 'd["summary"]' "$TMP/q2"
expect_out "intent: compiler sees the intent" "True" pylog '"deletions * 2" in L[1]["body"]["messages"][-1]["content"]'
expect_out "intent: north star in both requests" "True" pylog 'all("risk score" in r["body"]["messages"][-1]["content"] for r in L)'
unserve

# ---- tier 4: seed 000's two-step plan, five calls ----
cat >"$TMP/plan.txt" <<'EOF'
```edn
{:mode :plan
 :steps [{:id 1 :goal "find most active contributor last week" :needs []}
         {:id 2 :goal "find interesting commits by that contributor" :needs [1]}]}
```
EOF
cat >"$TMP/fetch1.txt" <<'EOF'
```edn
{:mode :query
 :query {:fetch [{:tool :get_author_stats :as :authors :params {:since "1 week ago"}}]}}
```
EOF
cat >"$TMP/eval1.txt" <<'EOF'
```edn
{:mode :query
 :query {:transform [{:op :sort :on :authors :as :ranked :by :count :order :desc}
                     {:op :first :on :ranked :as :top}]
         :return {:action :advance
                  :result {:top_contributor "{{top:author}}"}}}}
```
EOF
cat >"$TMP/fetch2.txt" <<'EOF'
```edn
{:mode :query
 :query {:fetch [{:tool :get_commits :as :commits
                  :params {:since "1 week ago"
                           :author "{{resolved:top_contributor}}"}}]}}
```
EOF
cat >"$TMP/eval2.txt" <<'EOF'
```edn
{:mode :query
 :query {:transform [{:op :filter :on :commits :as :interesting
                      :where [:or [:> :files 5]
                                  [:contains :message "refactor"]
                                  [:contains :message "fix"]]}
                     {:op :sort :on :interesting :as :ranked :by :files :order :desc}]
         :return {:action :done
                  :findings :ranked
                  :summary "{{resolved:top_contributor}} made {{count:interesting}} notable commits"}}}
```
EOF
script "$TMP/s3.json" "$TMP/plan.txt" "$TMP/fetch1.txt" "$TMP/eval1.txt" "$TMP/fetch2.txt" "$TMP/eval2.txt"
serve "$TMP/s3.json"
ask "$TMP/q3" "interesting commits from the most active contributor last week" --explain
expect_out "plan: exit 0" "0" cat "$TMP/q3.rc"
expect_out "plan: five calls" "5" requests
top=$(git -C "$R" shortlog -sn --since="$WEEK" HEAD | sort -k1,1nr | head -1 | cut -f2)
expect_out "plan: the top contributor is git's" "$top made 3 notable commits" pyq 'd["summary"]' "$TMP/q3"
expect_out "plan: findings are that author's" "True" pyq "all(c['author'] == '$top' for c in d['findings'])" "$TMP/q3"
expect_out "plan: findings match git" "$(git -C "$R" log --since="$WEEK" --author="$top" --format=%H | wc -l | tr -d ' ')" pyq 'len(d["findings"])' "$TMP/q3"
expect_out "plan: north star in every request" "True" pylog 'all("most active contributor last week" in r["body"]["messages"][-1]["content"] for r in L)'
expect_out "plan: the cached prefix is identical across an agent's calls" "True" pylog 'L[1]["body"]["messages"][0]["content"] == L[3]["body"]["messages"][0]["content"] and L[2]["body"]["messages"][0]["content"] == L[4]["body"]["messages"][0]["content"]'
expect_out "plan: the evaluator sees the fetched data" "True" pylog '"authors" in L[2]["body"]["messages"][-1]["content"] and "bob@example.com" in L[2]["body"]["messages"][-1]["content"]'
expect_out "plan: step 2 sees the resolved value" "True" pylog '"top_contributor" in L[3]["body"]["messages"][-1]["content"]'
unserve

# ---- :fetch with hints, then :revise, in a plan; JSON replies ----
cat >"$TMP/plan1.txt" <<'EOF'
{"mode": "plan", "steps": [{"id": 1, "goal": "count the commits of last week", "needs": []}]}
EOF
cat >"$TMP/fetch_wrong.txt" <<'EOF'
{:mode :query :query {:fetch [{:tool :get_file_stats :as :files :params {:since "1 week ago"}}]}}
EOF
cat >"$TMP/eval_fetch.txt" <<'EOF'
{:mode :query :query {:return {:action :fetch :hints ["need the commits themselves, not file stats"]}}}
EOF
cat >"$TMP/fetch_right.txt" <<'EOF'
{"mode": "query", "query": {"fetch": [{"tool": "get_commits", "as": "commits", "params": {"since": "1 week ago"}}]}}
EOF
cat >"$TMP/eval_revise.txt" <<'EOF'
{:mode :query :query {:return {:action :revise :steps [{:id 2 :goal "list last week's commits by size" :needs []}]}}}
EOF
cat >"$TMP/eval_done.txt" <<'EOF'
{:mode :query :query {:transform [{:op :sort :on :commits :as :ranked :by :files :order :desc}]
                      :return {:action :done :findings :ranked :summary "{{count:commits}} commits"}}}
EOF
script "$TMP/s3b.json" "$TMP/plan1.txt" "$TMP/fetch_wrong.txt" "$TMP/eval_fetch.txt" \
  "$TMP/fetch_right.txt" "$TMP/eval_revise.txt" "$TMP/fetch_right.txt" "$TMP/eval_done.txt"
serve "$TMP/s3b.json"
ask "$TMP/q3b" "how many commits were made last week, and which were largest"
expect_out "fetch/revise: exit 0" "0" cat "$TMP/q3b.rc"
expect_out "fetch/revise: seven calls" "7" requests
expect_out "fetch/revise: the answer" "$git_week_count commits" pyq 'd["summary"]' "$TMP/q3b"
expect_out "fetch/revise: the Fetcher gets the hints" "True" pylog '"need the commits themselves" in L[3]["body"]["messages"][-1]["content"] and "need the commits themselves" not in L[1]["body"]["messages"][-1]["content"]'
expect_out "fetch/revise: the revised plan is shown" "True" pylog "\"list last week's commits by size\" in L[5]['body']['messages'][-1]['content']"
unserve

# ---- a body that is not the wire format: a run failure (exit 1), not bad usage ----
script "$TMP/s10.json" '{"garbage": "<html>oops</html>"}'
serve "$TMP/s10.json"
QUARRY_LLM_MAX_RETRIES=0 ask "$TMP/q10g" "commits of the past week by size" --no-router
expect_out "garbage body: exit 1" "1" cat "$TMP/q10g.rc"
unserve

# ---- a revised plan that is not a plan: refused ----
cat >"$TMP/eval_badrevise.txt" <<'EOF'
{:mode :query :query {:return {:action :revise :steps :commits}}}
EOF
script "$TMP/s11.json" "$TMP/plan1.txt" "$TMP/fetch_right.txt" "$TMP/eval_badrevise.txt"
serve "$TMP/s11.json"
ask "$TMP/q11" "how many commits were made last week, and which were largest"
expect_out "bad revision: exit 1" "1" cat "$TMP/q11.rc"
expect_out "bad revision: says so" "True" python3 -c "import sys; print('revised plan is not usable' in open(sys.argv[1]).read())" "$TMP/q11.err"
expect_out "bad revision: no further calls" "3" requests
unserve

# ---- code a model writes reaches only the tools the agents are shown ----
cat >"$TMP/compiler_mem.txt" <<'EOF'
```clojure
(return {:findings (tool/memory_query {:pipeline "all" :store "/etc/passwd"})})
```
EOF
script "$TMP/s12.json" "$TMP/arch_intent.txt" "$TMP/compiler_mem.txt" "$TMP/compiler_mem.txt"
serve "$TMP/s12.json"
ask "$TMP/q12" "rank last week's commits by a risk score"
expect_out "tool fence: exit 1" "1" cat "$TMP/q12.rc"
expect_out "tool fence: the repair turn was told why" "True" pylog '"not available to quarry ask" in L[2]["body"]["messages"][-1]["content"]'
unserve

# ---- the budget holds ----
script "$TMP/s4.json" "$TMP/plan.txt" "$TMP/fetch1.txt" "$TMP/eval1.txt" "$TMP/fetch2.txt" "$TMP/eval2.txt"
serve "$TMP/s4.json"
ask "$TMP/q4" "interesting commits from the most active contributor last week" --max-calls 3
expect_out "budget: exit 1" "1" cat "$TMP/q4.rc"
expect_out "budget: three calls, not more" "3" requests
expect_out "budget: says so" "True" python3 -c "import sys; print('budget of 3 model calls' in open(sys.argv[1]).read())" "$TMP/q4.err"
unserve

# ---- a repair turn fixes a broken query ----
cat >"$TMP/broken.txt" <<'EOF'
```edn
{:mode :query
 :query {:fetch [{:tool :get_commits :as :commits :params {:since "1 week ago"}}]
         :transform [{:op :sortt :on :commits :as :ranked :by :files :order :desc}]
         :return {:findings :ranked :summary "{{count:commits}} commits"}}}
```
EOF
script "$TMP/s5.json" "$TMP/broken.txt" "$TMP/arch_query.txt"
serve "$TMP/s5.json"
ask "$TMP/q5" "commits of the past week by size" --no-router --explain
expect_out "repair: exit 0" "0" cat "$TMP/q5.rc"
expect_out "repair: two calls" "2" requests
expect_out "repair: the answer" "$git_week_count" pyq 'len(d["findings"])' "$TMP/q5"
expect_out "repair: the second request carries the broken reply and the error" "True" pylog 'L[1]["body"]["messages"][2]["content"].count(":sortt") == 1 and "did you mean :sort" in L[1]["body"]["messages"][3]["content"]'
expect_out "repair: same system prefix" "True" pylog 'L[0]["body"]["messages"][0] == L[1]["body"]["messages"][0]'
unserve

# ---- still broken after the repair: a clean failure ----
script "$TMP/s6.json" "$TMP/broken.txt" "$TMP/broken.txt"
serve "$TMP/s6.json"
ask "$TMP/q6" "commits of the past week by size" --no-router
expect_out "unrepaired: exit 1" "1" cat "$TMP/q6.rc"
expect_out "unrepaired: two calls only" "2" requests
expect_out "unrepaired: says why" "True" python3 -c "import sys; print('after a repair turn' in open(sys.argv[1]).read())" "$TMP/q6.err"
unserve

# ---- retries on 429, and they stop ----
script "$TMP/s7.json" '{"status": 429, "retry_after": 0}' "$TMP/arch_query.txt"
serve "$TMP/s7.json"
ask "$TMP/q7" "commits of the past week by size" --no-router --explain
expect_out "429: exit 0 after a retry" "0" cat "$TMP/q7.rc"
expect_out "429: two HTTP requests" "2" requests
expect_out "429: one model call, retried" "1" python3 -c "import json,sys; e=json.loads(open(sys.argv[1]).read().splitlines()[-1])['explain']; print(len(e['calls']) if e['calls'][0]['attempts']==2 else 'attempts '+str(e['calls'][0]['attempts']))" "$TMP/q7.err"
unserve
script "$TMP/s8.json" '{"status": 500}' '{"status": 500}' '{"status": 500}' '{"status": 500}' '{"status": 500}'
serve "$TMP/s8.json"
QUARRY_LLM_MAX_RETRIES=2 ask "$TMP/q8" "commits of the past week by size" --no-router
expect_out "500s: exit 1" "1" cat "$TMP/q8.rc"
expect_out "500s: 1 + 2 retries" "3" requests
expect_out "500s: the error names the status, not the key" "True" python3 -c "import sys; t=open(sys.argv[1]).read(); print('500' in t and 'sk-test' not in t)" "$TMP/q8.err"
unserve

# ---- Anthropic wire format, streamed, with prompt caching ----
script "$TMP/s9.json" "$TMP/plan.txt" "$TMP/fetch1.txt" "$TMP/eval1.txt" "$TMP/fetch2.txt" "$TMP/eval2.txt"
serve "$TMP/s9.json"
QUARRY_LLM_URL="http://127.0.0.1:$PORT" QUARRY_LLM_PROVIDER=anthropic QUARRY_LLM_STREAM=1 \
  ask "$TMP/q9" "interesting commits from the most active contributor last week" --explain
expect_out "anthropic: exit 0" "0" cat "$TMP/q9.rc"
expect_out "anthropic: same answer" "$top made 3 notable commits" pyq 'd["summary"]' "$TMP/q9"
expect_out "anthropic: messages endpoint, key header, cache_control" "True" pylog 'all(r["path"] == "/v1/messages" and r["headers"]["x-api-key"] == "sk-test-secret-123" and r["body"]["system"][0]["cache_control"]["type"] == "ephemeral" and r["body"]["stream"] for r in L)'
expect_out "anthropic: the second fetcher call reads the cache" "True" python3 -c "import json,sys; e=json.loads(open(sys.argv[1]).read().splitlines()[-1])['explain']; c=e['calls']; print(c[1]['usage']['cache_write']>0 and c[3]['usage']['cache_read']>0 and e['usage']['cache_read']>0)" "$TMP/q9.err"
unserve

# ---- the model is down ----
export QUARRY_LLM_URL="http://127.0.0.1:9/v1" QUARRY_LLM_MAX_RETRIES=0
ask "$TMP/q10" "commits of the past week by size" --no-router
expect_out "down: exit 1" "1" cat "$TMP/q10.rc"
expect_out "down: says it cannot reach the model" "True" python3 -c "import sys; print('cannot reach' in open(sys.argv[1]).read())" "$TMP/q10.err"

# ---- usage errors ----
expect_rc "no question" 2 "$Q" ask
expect_rc "bad --max-calls" 2 "$Q" ask "x" --max-calls 0
expect_rc "unknown option" 2 "$Q" ask "x" --bogus
expect_out "--help tells the budget" "1" sh -c "'$Q' ask --help | grep -c 'budget of model calls'"
finish
