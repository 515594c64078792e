# 05_query.sh: `quarry query` and `quarry compile` against a repository built here with
# git, dated relative to now so that seed 000's windows ("1 week ago", "1 month ago")
# hold a known set of commits. Every query of seed 000 runs (examples 1 to 4, the return
# clause, the transform snippets, and the plan walkthrough's Fetcher and Evaluator steps
# chained through --data), and each answer is compared with what git says about the same
# repository (git log, --numstat, shortlog). Then the golden invalid queries
# (tests/query/invalid/NAME.edn, with the expected stderr in NAME.err), exit codes,
# JSON errors and the output formats.
. "$(dirname "$0")/lib.sh"

if ! command -v git >/dev/null 2>&1; then
  echo "skipped: git is not installed"
  exit 77
fi

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_AUTHOR_NAME \
  GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE
mkdir -p "$HOME"

R="$TMP/repo"
git init -q -b main "$R"
git -C "$R" config commit.gpgsign false

# commit DAYS_AGO NAME FILES MESSAGE: NAME changes FILES files, DAYS_AGO times 24 hours
# before now (so the edges of "1 week ago" and "1 month ago" are days from any commit)
n=0
commit() {
  days=$1 name=$2 files=$3 msg=$4
  n=$((n + 1))
  i=1
  while [ $i -le "$files" ]; do
    echo "$msg" >> "$R/file$i.txt"
    i=$((i + 1))
  done
  git -C "$R" add -A
  d="$((NOW - days * 86400)) +0000"
  lower=$(echo "$name" | tr 'A-Z' 'a-z')
  GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$lower@example.com GIT_AUTHOR_DATE=$d \
  GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$lower@example.com GIT_COMMITTER_DATE=$d \
    git -C "$R" commit -q -m "$msg"
}
commit 60 Ann 8 "Initial import"
commit 45 Carol 2 "Add docs"
commit 25 Carol 2 "docs: refactor layout"
commit 22 Ann 6 "Grow util"
commit 20 Bob 3 "Parser tokenizer"
commit 15 Carol 1 "fix: off by one"
commit 12 Bob 7 "Big rename sweep"
commit 10 Dave 6 "Add tests"
commit 5 Carol 6 "Tweak docs"
commit 4 Bob 2 "refactor: split module"
commit 3 Ann 1 "fix typo"
commit 2 Bob 9 "Add benchmarks"

WEEK="1 week ago"
MONTH="1 month ago"

# qrun OUT QUERY [ARGS...]: runs a query; its JSON result goes to OUT
qrun() {
  out=$1 q=$2
  shift 2
  if ! "$Q" query --repo "$R" --format json "$@" "$q" > "$out" 2> "$TMP/qerr"; then
    echo "FAIL: query failed: $q"; sed 's/^/  /' "$TMP/qerr"
    FAILS=$((FAILS + 1))
  fi
}
# lines FILE PROGRAM: runs a Lisp program over a JSON file (data/NAME), drops its nil
lines() { "$Q" lisp --data "$1" -e "$2" | sed '$d'; }
# git log with one "C hash files" line per commit (numstat counted), plus options
gfiles() {
  git -C "$R" log --numstat --format='C %H' "$@" |
    awk '/^C / { if (h) print h, f; h = $2; f = 0; next } NF { f++ } END { if (h) print h, f }'
}

# ---- example 1 (and use case 1): commits from last week ----
Q1='{:query
  {:fetch [{:tool :get_commits :as :commits :params {:since "1 week ago"}}]
   :return {:findings :commits
            :summary "Found {{count:commits}} commits from last week"}}}'
qrun "$TMP/q1.json" "$Q1"
expect_out "example 1: the commits of the week, newest first" \
  "$(git -C "$R" log --since="$WEEK" --format=%H)" lines "$TMP/q1.json" '(doseq [c data/findings] (println (:hash c)))'
expect_out "example 1: summary" \
  "Found $(git -C "$R" rev-list --count --since="$WEEK" HEAD) commits from last week" lines "$TMP/q1.json" '(println data/summary)'
expect_out "example 1: compiled program" '(def q-commits (tool/get_commits {:since "1 week ago"}))
(return {:findings q-commits
         :summary (str "Found " (count q-commits) " commits from last week")})' "$Q" compile "$Q1"

# ---- example 2: large commits from last week, sorted by size ----
Q2='{:query
  {:fetch [{:tool :get_commits :as :commits :params {:since "1 week ago"}}]
   :transform [{:op :filter :on :commits :as :large :where [:> :files 5]}
               {:op :sort :on :large :as :ranked :by :files :order :desc}]
   :return {:findings :ranked
            :summary "{{count:large}} large commits (5+ files)"}}}'
qrun "$TMP/q2.json" "$Q2"
want=$(gfiles --since="$WEEK" | awk '$2 > 5' | sort -s -k2,2nr)
expect_out "example 2: large commits by size" "$want" \
  lines "$TMP/q2.json" '(doseq [c data/findings] (println (:hash c) (:files c)))'
expect_out "example 2: summary" "$(echo "$want" | grep -c .) large commits (5+ files)" \
  lines "$TMP/q2.json" '(println data/summary)'

# ---- example 3: commits per author this month ----
Q3='{:query
  {:fetch [{:tool :get_commits :as :commits :params {:since "1 month ago"}}]
   :transform [{:op :group :on :commits :as :by_author :by :author}
               {:op :aggregate :on :by_author :as :stats
                :compute {:count [:count] :files [:sum :files]}}
               {:op :sort :on :stats :as :ranked :by :count :order :desc}]
   :return {:findings :ranked
            :summary "{{count:ranked}} authors contributed this month"}}}'
qrun "$TMP/q3.json" "$Q3"
want=$(git -C "$R" log --numstat --format='C %aN' --since="$MONTH" |
  awk '/^C / { a = $2; c[a]++; next } NF { f[a]++ } END { for (a in c) print a, c[a], f[a] + 0 }' |
  sort -k2,2nr)
expect_out "example 3: per author: commits and files" "$want" \
  lines "$TMP/q3.json" '(doseq [r data/findings] (println (:author r) (:count r) (:files r)))'
expect_out "example 3: summary" "$(echo "$want" | grep -c .) authors contributed this month" \
  lines "$TMP/q3.json" '(println data/summary)'

# ---- example 4: the top contributor's recent commits, in two steps ----
Q4A='{:query
  {:fetch [{:tool :get_author_stats :as :authors :params {:since "1 month ago"}}]
   :transform [{:op :sort :on :authors :as :ranked :by :count :order :desc}
               {:op :first :on :ranked :as :top}]
   :return {:step_result {:top_contributor "{{top:author}}"}}}}'
qrun "$TMP/q4a.json" "$Q4A"
top=$(git -C "$R" shortlog -sn --since="$MONTH" HEAD | head -1 | cut -f2)
expect_out "example 4, step 1: the top contributor (git shortlog)" "$top" \
  lines "$TMP/q4a.json" '(println (:top_contributor data/step_result))'
expect_out "example 4, step 1: :count is read as :commits, with a note" \
  ";; :count is read as :commits (the field get_author_stats results have)" \
  sh -c "'$Q' compile '$Q4A' | grep '^;;'"
lines "$TMP/q4a.json" '(println (str "{\"resolved\": {\"top_contributor\": " (pr-str (:top_contributor data/step_result)) "}}"))' > "$TMP/ctx4.json"
Q4B='{:query
  {:fetch [{:tool :get_commits :as :commits
            :params {:since "1 month ago" :author "{{resolved:top_contributor}}"}}]
   :transform [{:op :filter :on :commits :as :interesting
                :where [:or [:> :files 5] [:contains :message "refactor"]]}]
   :return {:findings :interesting
            :summary "{{resolved:top_contributor}} had {{count:interesting}} interesting commits"}}}'
qrun "$TMP/q4b.json" "$Q4B" --data "$TMP/ctx4.json"
want=""
for h in $(git -C "$R" log --since="$MONTH" --author="$top" --format=%H); do
  files=$(git -C "$R" show --numstat --format= "$h" | grep -c .)
  if [ "$files" -gt 5 ] || git -C "$R" log -1 --format=%B "$h" | grep -q refactor; then
    want="$want$h
"
  fi
done
expect_out "example 4, step 2: interesting commits of $top" "$(printf '%s' "$want")" \
  lines "$TMP/q4b.json" '(doseq [c data/findings] (println (:hash c)))'
expect_out "example 4, step 2: summary" \
  "$top had $(printf '%s' "$want" | grep -c .) interesting commits" lines "$TMP/q4b.json" '(println data/summary)'

# ---- the return clause and the transform snippets of the seed, in one query ----
QR='{:fetch [{:tool :get_commits :as :commits}
          {:tool :get_author_stats :as :author_details}]
 :transform [{:op :filter :on :commits :as :large_commits :where [:> :files 5]}
             {:op :sort :on :large_commits :as :ranked :by :files :order :desc}
             {:op :take :on :ranked :as :top5 :n 5}
             {:op :drop :on :ranked :as :rest :n 5}
             {:op :map :on :commits :as :with_score :select [:hash :author]
              :compute {:risk [:+ [:* :deletions 2] :additions]}}
             {:op :join :left :commits :right :author_details :on [:= :author :author]
              :as :enriched}
             {:op :first :on :ranked :as :top_commit}
             {:op :last :on :ranked :as :bottom_commit}]
 :return {:findings :top5
          :summary "Found {{count:large_commits}} large commits, showing top 5"
          :metadata {:total "{{count:commits}}" :filtered "{{count:large_commits}}"}
          :rest "{{count:rest}}" :scores :with_score :enriched :enriched
          :top "{{top_commit:hash}}" :bottom "{{bottom_commit:files}}"}}'
qrun "$TMP/qr.json" "$QR"
large=$(gfiles | awk '$2 > 5' | sort -s -k2,2nr)
nlarge=$(echo "$large" | grep -c .)
expect_out "return clause: top 5 large" "$(echo "$large" | head -5 | cut -d' ' -f1)" \
  lines "$TMP/qr.json" '(doseq [c data/findings] (println (:hash c)))'
expect_out "return clause: summary" "Found $nlarge large commits, showing top 5" \
  lines "$TMP/qr.json" '(println data/summary)'
expect_out "return clause: metadata" "$(git -C "$R" rev-list --count HEAD) $nlarge" \
  lines "$TMP/qr.json" '(println (:total data/metadata) (:filtered data/metadata))'
expect_out "drop: the rest" "$((nlarge > 5 ? nlarge - 5 : 0))" lines "$TMP/qr.json" '(println data/rest)'
expect_out "first and last" "$(echo "$large" | head -1 | cut -d' ' -f1) $(echo "$large" | tail -1 | cut -d' ' -f2)" \
  lines "$TMP/qr.json" '(println data/top data/bottom)'
want=$(git -C "$R" log --numstat --format='C %H' |
  awk '/^C / { if (h) print h, 2 * d + a; h = $2; a = d = 0; next } NF { a += $1; d += $2 } END { if (h) print h, 2 * d + a }')
expect_out "map with a computed risk" "$want" \
  lines "$TMP/qr.json" '(doseq [c data/scores] (println (:hash c) (:risk c)))'
want=$(git -C "$R" log --format=%aN | while read -r a; do
  printf '%s %s\n' "$a" "$(git -C "$R" log --format=%aN | grep -cx "$a")"; done)
expect_out "join: each commit with its author's commit count" "$want" \
  lines "$TMP/qr.json" '(doseq [c data/enriched] (println (:author c) (:commits c)))'

# ---- the plan walkthrough: Fetcher and Evaluator steps chained through --data ----
F1='{:mode :query
 :query {:fetch [{:tool :get_author_stats :as :authors :params {:since "1 week ago"}}]}}'
E1='{:mode :query
 :query {:transform [{:op :sort :on :authors :as :ranked :by :count :order :desc}
                     {:op :first :on :ranked :as :top}]
         :return {:action :advance
                  :result {:top_contributor "{{top:author}}"}}}}'
F2='{:mode :query
 :query {:fetch [{:tool :get_commits :as :commits
                  :params {:since "1 week ago"
                           :author "{{resolved:top_contributor}}"}}]}}'
E2='{:mode :query
 :query {:transform [{:op :filter :on :commits :as :interesting
                      :where [:or [:> :files 5]
                                  [:contains :message "refactor"]
                                  [:contains :message "fix"]]}
                     {:op :sort :on :interesting :as :ranked :by :files :order :desc}]
         :return {:action :done
                  :findings :ranked
                  :summary "{{resolved:top_contributor}} made {{count:interesting}} notable commits"}}}'
qrun "$TMP/f1.json" "$F1"
qrun "$TMP/e1.json" "$E1" --data "$TMP/f1.json"
wtop=$(git -C "$R" shortlog -sn --since="$WEEK" HEAD | head -1 | cut -f2)
expect_out "walkthrough: evaluator 1 advances with the week's top contributor" "advance $wtop" \
  lines "$TMP/e1.json" '(println data/action (:top_contributor data/result))'
lines "$TMP/e1.json" '(println (str "{\"resolved\": {\"top_contributor\": " (pr-str (:top_contributor data/result)) "}}"))' > "$TMP/ctx2.json"
qrun "$TMP/f2.json" "$F2" --data "$TMP/ctx2.json"
expect_out "walkthrough: fetcher 2 gets the top contributor's commits" \
  "$(git -C "$R" log --since="$WEEK" --author="$wtop" --format=%H)" \
  lines "$TMP/f2.json" '(doseq [c data/commits] (println (:hash c)))'
"$Q" lisp --format json --data "$TMP/f2.json" \
  -e "{:commits data/commits :resolved {:top_contributor $(lines "$TMP/ctx2.json" '(prn (:top_contributor data/resolved))')}}" > "$TMP/ctx3.json"
qrun "$TMP/e2.json" "$E2" --data "$TMP/ctx3.json"
want=$(for h in $(git -C "$R" log --since="$WEEK" --author="$wtop" --format=%H); do
  files=$(git -C "$R" show --numstat --format= "$h" | grep -c .)
  if [ "$files" -gt 5 ] || git -C "$R" log -1 --format=%B "$h" | grep -Eq 'refactor|fix'; then
    echo "$h $files"
  fi
done | sort -s -k2,2nr)
expect_out "walkthrough: evaluator 2 is done with the notable commits" "$(echo "$want" | cut -d' ' -f1)" \
  lines "$TMP/e2.json" '(doseq [c data/findings] (println (:hash c)))'
expect_out "walkthrough: evaluator 2 summary" "done $wtop made $(echo "$want" | grep -c .) notable commits" \
  lines "$TMP/e2.json" '(println data/action data/summary)'

# the Evaluator specification's final answer (large commits only)
E3='{:mode :query
 :query {:transform [{:op :filter :on :commits :as :interesting
                      :where [:> :files 5]}
                     {:op :sort :on :interesting :as :ranked :by :files :order :desc}]
         :return {:action :done
                  :findings :ranked
                  :summary "{{resolved:top_contributor}} had {{count:interesting}} notable commits"}}}'
qrun "$TMP/e3.json" "$E3" --data "$TMP/ctx3.json"
want=$(gfiles --since="$WEEK" --author="$wtop" | awk '$2 > 5' | sort -s -k2,2nr)
expect_out "evaluator spec: large commits of the top contributor" "$(echo "$want" | cut -d' ' -f1)" \
  lines "$TMP/e3.json" '(doseq [c data/findings] (println (:hash c)))'
expect_out "evaluator spec: summary" "done $wtop had $(echo "$want" | grep -c .) notable commits" \
  lines "$TMP/e3.json" '(println data/action data/summary)'

# ---- the JSON form gives the same program and the same answer ----
J2='{"fetch": [{"tool": "get_commits", "as": "commits", "params": {"since": "1 week ago"}}],
 "transform": [{"op": "filter", "on": "commits", "as": "large", "where": [">", "files", 5]},
               {"op": "sort", "on": "large", "as": "ranked", "by": "files", "order": "desc"}],
 "return": {"findings": "ranked", "summary": "{{count:large}} large commits (5+ files)"}}'
expect_out "JSON form: same program" "$("$Q" compile "$Q2")" "$Q" compile "$J2"
expect_out "JSON form: same answer" "$(cat "$TMP/q2.json")" "$Q" query --repo "$R" --format json "$J2"
expect_out "JSON form: same normalized query and cache key" "$("$Q" compile --format json "$Q2")" "$Q" compile --format json "$J2"
expect_out "query from stdin" "$(cat "$TMP/q2.json")" sh -c "printf '%s' '$J2' | '$Q' query --repo '$R' --format json -"

# ---- output formats ----
expect_out "table: the summary line above the findings" "2 large commits (5+ files)" \
  sh -c "'$Q' query --repo '$R' --format table '$Q2' | head -1"
expect_out "table: a header row" "hash short_hash author email date timestamp subject message parents files additions deletions" \
  sh -c "'$Q' query --repo '$R' --format table '$Q2' | sed -n 3p | tr -s ' '"
expect_out "edn" '{:n 12}' "$Q" query --repo "$R" --format edn '{:fetch [{:tool :get_commits :as :c}] :return {:n "{{count:c}}"}}'

# ---- errors and exit codes ----
expect_rc "invalid query: exit 2" 2 "$Q" query --repo "$R" '{:fetch [{:tool :get_comits :as :c}]}'
expect_rc "invalid query to compile: exit 2" 2 "$Q" compile '{:fetch [{:tool :get_comits :as :c}]}'
expect_err "JSON errors are data" '{"error":{"kind":"invalid-query","message":":fetch[0] :tool: unknown tool :get_comits; expected one of :get_commits :get_author_stats :get_file_stats :get_file_history :get_diff_stats :get_diff :get_tags :memory_query :memory_get :memory_add :memory_update :memory_delete :memory_restore :memory_link :memory_unlink :memory_visit :query_codebase :sparql_query :search_codebase; did you mean :get_commits?","problems":[{"path":["fetch",0,"tool"],"at":":fetch[0] :tool","message":"unknown tool :get_comits","expected":"one of :get_commits :get_author_stats :get_file_stats :get_file_history :get_diff_stats :get_diff :get_tags :memory_query :memory_get :memory_add :memory_update :memory_delete :memory_restore :memory_link :memory_unlink :memory_visit :query_codebase :sparql_query :search_codebase","found":"keyword :get_comits","hint":"did you mean :get_commits?"}]}}' \
  "$Q" query --repo "$R" --format json '{:fetch [{:tool :get_comits :as :c}]}'
printf '{"resolved": {"d": "next tuesday"}}' > "$TMP/baddate.json"
expect_rc "a query that runs and fails: exit 1" 1 "$Q" query --repo "$R" '{:fetch [{:tool :get_commits :as :c :params {:ref "nope"}}]}'
expect_err "a run-time error names the step" "quarry: tool-error in :fetch[0] (:c): tool 'get_commits': unknown ref 'nope'" \
  "$Q" query --repo "$R" '{:fetch [{:tool :get_commits :as :c :params {:ref "nope"}}]}'
# a bad literal date is the query's fault, found before anything runs
expect_rc "a bad date in :params: exit 2" 2 "$Q" query --repo "$R" '{:fetch [{:tool :get_commits :as :c :params {:since "next tuesday"}}]}'
expect_err "a bad date in :params: named with its path" "quarry: invalid-query: :fetch[0] :params :since: parameter 'since': cannot parse date 'next tuesday'" \
  "$Q" query --repo "$R" '{:fetch [{:tool :get_commits :as :c :params {:since "next tuesday"}}]}'
# a template is checked when it is filled in, at run time
expect_rc "a template date is checked at run time" 1 "$Q" query --repo "$R" --data "$TMP/baddate.json" '{:fetch [{:tool :get_commits :as :c :params {:since "{{resolved:d}}"}}]}'
expect_rc "a context that is not a map: exit 2" 2 sh -c "echo '[1]' > '$TMP/bad.json' && '$Q' query --data '$TMP/bad.json' '{:return {:a 1}}'"
expect_rc "no query: exit 2" 2 "$Q" query --repo "$R" --no-such-option

# ---- every op of the compiler's table is documented ----
for op in $("$Q" compile --ops | sed -n 's/^:\([a-z]*\) .*/\1/p'); do
  grep -q "\`:$op\`" "$SRC/docs/query.md" || { echo "FAIL: op :$op is not in docs/query.md"; FAILS=$((FAILS + 1)); }
done
expect_out "compile --ops lists 12 ops" "12" sh -c "'$Q' compile --ops | grep -c '^:'"

# ---- golden invalid queries: tests/query/invalid/NAME.edn, expected stderr NAME.err ----
ng=0
for f in "$SRC"/tests/query/invalid/*.edn; do
  ng=$((ng + 1))
  want=$(cat "${f%.edn}.err")
  got=$("$Q" compile - < "$f" 2>&1 >/dev/null); rc=$?
  if [ "$rc" != 2 ] || [ "$got" != "$want" ]; then
    echo "FAIL: golden $(basename "$f") (exit $rc)"
    echo "$want" > "$TMP/want"; echo "$got" > "$TMP/got"
    diff "$TMP/want" "$TMP/got" | sed 's/^/  /'
    FAILS=$((FAILS + 1))
  fi
done
[ "$ng" -ge 25 ] || { echo "FAIL: only $ng golden invalid queries"; FAILS=$((FAILS + 1)); }
finish
