# 42_ask_first.sh: the first question on a repository (issue 25 part 3) and ask's exit
# status without one (issue 24 part 3), on repositories made here with git at fixed dates
# and QUARRY_NOW pinned:
#  - `ask --repo DIR` where DIR is no repository exits 2, as `index` and `tool` do;
#  - the first question builds the statistics index before its program runs (outside the
#    program's time limit), says so once, and answers; the next question reuses it;
#  - --no-index builds nothing;
#  - a program that reaches its time limit while the index lacks commits says how many
#    and what to run;
#  - an empty answer says nothing matched and where the history runs, instead of a
#    summary with empty templates ("most commits:  ()").
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null 2>&1 || { echo "FAIL: git is needed (scripts/deps.sh --test)"; exit 1; }
export HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/home/.config" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_LLM_API_KEY QUARRY_LLM_PROVIDER QUARRY_LLM_STREAM
mkdir -p "$HOME"
export QUARRY_NOW=2026-03-02T10:00:00Z

R="$TMP/repo"
git init -q -b main "$R"
n=0
commit() { # commit DATE AUTHOR
  n=$((n + 1))
  echo "$n" > "$R/f$((n % 7)).txt"
  git -C "$R" add -A
  GIT_AUTHOR_NAME=$2 GIT_AUTHOR_EMAIL=$2@example.com GIT_AUTHOR_DATE="$1" \
  GIT_COMMITTER_NAME=$2 GIT_COMMITTER_EMAIL=$2@example.com GIT_COMMITTER_DATE="$1" \
    git -C "$R" commit -q -m "change $n"
}
for d in 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19 20; do
  commit "2024-01-${d}T10:00:00Z" ann
  commit "2024-01-${d}T11:00:00Z" bob
  commit "2024-01-${d}T12:00:00Z" ann
done
commit "2024-10-18T09:00:00Z" cid

# ---- no repository: exit 2, like index and tool ----
mkdir -p "$TMP/plain"
expect_rc "ask outside a repository exits 2" 2 "$Q" ask "who contributed most" --repo "$TMP/plain"
expect_err "and says why" "not a git repository" "$Q" ask "who contributed most" --repo "$TMP/plain"
expect_rc "index outside a repository exits 2 too" 2 "$Q" index --repo "$TMP/plain"
expect_rc "--format json: exit 2" 2 "$Q" ask "who contributed most" --repo "$TMP/plain" --format json
expect_out "--format json: a JSON error of kind usage" "usage" \
  sh -c "'$Q' ask 'who contributed most' --repo '$TMP/plain' --format json 2>&1 >/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"error\"][\"kind\"])'"

# ---- --no-index: nothing is built ----
expect_rc "--no-index answers" 0 "$Q" ask "who contributed most" --repo "$R" --no-index --format json
if grep -q "building the statistics index" "$TMP/stderr"; then
  echo "FAIL: --no-index built the index"; FAILS=$((FAILS + 1))
fi
expect_out "--no-index: no index written" "(not built yet)" \
  sh -c "'$Q' index --status --repo '$R' | sed -n 's/^index: .*db *//p'"

# ---- the first question builds the index, then answers ----
expect_rc "first question: exit 0" 0 "$Q" ask "who contributed most" --repo "$R" --format json
cp "$TMP/stdout" "$TMP/first.json"
if ! grep -q "quarry: building the statistics index (the first question on this repository" "$TMP/stderr"; then
  echo "FAIL: the first question does not say it builds the index"; sed 's/^/  /' "$TMP/stderr"; FAILS=$((FAILS + 1))
fi
expect_out "first question: the answer, as git shortlog counts it" \
  "$(git -C "$R" shortlog -sne HEAD | head -1 | awk '{print $2, $1}')" \
  python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['findings'][0]; print(f['author'], f['commits'])" "$TMP/first.json"
expect_out "first question: the index is complete after it" "0" \
  sh -c "'$Q' index --status --repo '$R' | sed -n 's/^missing: *//p'"
expect_rc "second question: exit 0" 0 "$Q" ask "who contributed most" --repo "$R" --format json
if grep -q "building the statistics index" "$TMP/stderr"; then
  echo "FAIL: the second question builds the index again"; FAILS=$((FAILS + 1))
fi

# ---- a time limit reached while the index lacks commits says what to run ----
for d in 21 22 23 24 25; do commit "2024-10-${d}T10:00:00Z" dan; done
expect_rc "stale index, 1 ms limit: exit 1" 1 "$Q" ask "who contributed most" --repo "$R" --timeout-ms 1
expect_err "stale index: how many commits it lacks, what to run" \
  "the statistics index lacks 5 commits, computed inside that limit: run 'quarry index' once, then ask again" \
  "$Q" ask "who contributed most" --repo "$R" --timeout-ms 1
expect_rc "after quarry index" 0 "$Q" index --repo "$R"
expect_rc "the same question then answers" 0 "$Q" ask "who contributed most" --repo "$R" --format json

# ---- an empty window says where the history runs ----
expect_out "empty window: nothing matched, the history's span" \
  "0 authors committed since 1 year ago; nothing matched: the repository's history runs from 2024-01-01 to 2024-10-25" \
  sh -c "'$Q' ask 'who contributed most in the past year' --repo '$R' --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"summary\"])'"
expect_out "empty window: no rows" "0" \
  sh -c "'$Q' ask 'largest commits last month' --repo '$R' --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)[\"findings\"]))'"
expect_out "empty window: no empty template" "False" \
  sh -c "'$Q' ask 'largest commits last month' --repo '$R' --format json | python3 -c 'import json,sys; print(\"()\" in json.load(sys.stdin)[\"summary\"])'"
# ranked summaries read right: the top N of a file's authors counts them all (as
# get_author_stats would, by email), and one largest commit is "the largest"
n_auth=$(git -C "$R" log --follow --use-mailmap --format=%aE -- f1.txt | sort -u | wc -l | tr -d ' ')
top=$(git -C "$R" log --follow --use-mailmap --format=%aN -- f1.txt | sort | uniq -c | sort -rn | head -1 | awk '{print $2 " (" $1 ")"}')
expect_out "top 1 contributor to a file: all its authors counted, as git counts them" \
  "$n_auth authors changed f1.txt; most commits: $top" \
  sh -c "'$Q' ask 'top 1 contributor to f1.txt' --repo '$R' --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"summary\"])'"
expect_out "the largest commit: singular" "True" \
  sh -c "'$Q' ask 'the largest commit' --repo '$R' --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"summary\"].startswith(\"The largest of $(git -C "$R" rev-list --count HEAD) commits\"))'"

finish
