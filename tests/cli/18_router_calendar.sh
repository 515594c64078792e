# 18_router_calendar.sh: tier-1 questions with calendar windows, typos, names the
# repository knows and two-step questions, answered with no model and checked against
# git on a repository built here at fixed dates, with "now" pinned (QUARRY_NOW) to
# Tuesday 2026-11-24 12:00 UTC, so the answers are the same on any day.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null 2>&1 || { echo "FAIL: git is needed"; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is needed"; exit 1; }
export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C QUARRY_NOW=2026-11-24T12:00:00Z
unset QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_LLM_API_KEY QUARRY_LLM_PROVIDER
mkdir -p "$HOME"
R="$TMP/repo"
git init -q -b main "$R"
commit() { # commit DATE "NAME" EMAIL
  echo "$1 $2" >> "$R/log.txt"
  git -C "$R" add -A
  GIT_AUTHOR_NAME=$2 GIT_AUTHOR_EMAIL=$3 GIT_AUTHOR_DATE="$1 +0000" \
  GIT_COMMITTER_NAME=$2 GIT_COMMITTER_EMAIL=$3 GIT_COMMITTER_DATE="$1 +0000" \
    git -C "$R" commit -q -m "work of $2 on $1"
}
commit "2025-12-15T10:00:00" "Ines Duarte" ines@example.org
commit "2025-12-16T10:00:00" "Ines Duarte" ines@example.org
commit "2026-03-10T10:00:00" "Bob Stone" bob@example.org
commit "2026-07-20T10:00:00" "Ines Duarte" ines@example.org
commit "2026-08-05T10:00:00" "Bob Stone" bob@example.org
commit "2026-10-02T10:00:00" "Ines Duarte" ines@example.org
commit "2026-10-30T10:00:00" "Ines Duarte" ines@example.org
commit "2026-10-31T10:00:00" "Bob Stone" bob@example.org
commit "2026-11-01T10:00:00" "Bob Stone" bob@example.org
commit "2026-11-05T10:00:00" "dependabot[bot]" "49699333+dependabot[bot]@users.noreply.github.com"
mkdir -p "$R/docs"
echo guide > "$R/docs/guide.md"
commit "2026-11-06T10:00:00" "Bob Stone" bob@example.org
commit "2026-11-07T10:00:00" "Zoë Ångström" zangs@example.net
commit "2026-11-21T10:00:00" "Ines Duarte" ines@example.org
commit "2026-11-22T10:00:00" "Bob Stone" bob@example.org
commit "2026-11-23T10:00:00" "Ines Duarte" ines@example.org
commit "2026-11-24T09:00:00" "Bob Stone" bob@example.org

# ask Q: the rule that answered, then the hashes it found (one per line)
ask() {
  (cd "$R" && "$Q" ask "$1" --format json --explain) >"$TMP/out.json" 2>"$TMP/err.json"
  python3 - "$TMP/out.json" "$TMP/err.json" <<'PY'
import json, sys
try:
    out = json.load(open(sys.argv[1]))
    rule = json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])["explain"]["rule"]
except Exception:
    print("no-answer")
    sys.exit(0)
print(rule)
for row in out.get("findings", []):
    print(row.get("short_hash", "?"))
PY
}
gitlog() { # gitlog ARGS...: rule-less list of short hashes, as the answer prints them
  git -C "$R" log --format=%h "$@"
}
check() { # check "QUESTION" RULE GIT-ARGS...
  q=$1 rule=$2; shift 2
  want=$(printf '%s\n%s' "$rule" "$(gitlog "$@")")
  expect_out "$q" "$want" ask "$q"
}
check "commits in october" commits-in-window --since=2026-10-01T00:00:00 --until=2026-10-31T23:59:59
check "commits in december" commits-in-window --since=2025-12-01T00:00:00 --until=2025-12-31T23:59:59
# "from MONTH" alone is that month, not "since" it (a held-out phrasing once answered since)
check "commits from December 2025" commits-in-window --since=2025-12-01T00:00:00 --until=2025-12-31T23:59:59
check "commits from march" commits-in-window --since=2026-03-01T00:00:00 --until=2026-03-31T23:59:59
check "commits during Q3" commits-in-window --since=2026-07-01T00:00:00 --until=2026-09-30T23:59:59
check "commits since monday" commits-in-window --since=2026-11-23T00:00:00
check "what changed over the weekend" commits-in-window --since=2026-11-21T00:00:00 --until=2026-11-22T23:59:59
check "commits since the 1st" commits-in-window --since=2026-11-01T00:00:00
check "commits between march and august" commits-in-window --since=2026-03-01T00:00:00 --until=2026-08-31T23:59:59
check "commmits in the last wek" commits-in-window --since=2026-11-17T12:00:00
check "commits last 48h" commits-in-window --since=2026-11-22T12:00:00
check "ines commits in october" commits-by-author --author=ines@example.org --since=2026-10-01T00:00:00 --until=2026-10-31T23:59:59
check "bob's commits since monday" commits-by-author --author=bob@example.org --since=2026-11-23T00:00:00
# the most active author of October is Ines (2 commits to Bob's 1): her October commits
check "what did the top contributor do in october" top-author-commits --author=ines@example.org --since=2026-10-01T00:00:00 --until=2026-10-31T23:59:59
# exclusions: bots by name and email (docs/decisions.md), merges, folders (":!" magic)
nobots='--author=(?i)^(?!.*(?:[[]bot[]]|[ _-]bot <|dependabot|renovate|github-actions|<actions@github[.]com>|<no-?reply@))'
check "commits not by bots since the 1st" commits-in-window --perl-regexp "$nobots" --since=2026-11-01T00:00:00
check "commits by bots" commits-in-window --perl-regexp '--author=(?i)[[]bot[]]'
check "commits since the 1st excluding docs/" commits-in-window --since=2026-11-01T00:00:00 -- ':!docs/'
check "commits without the docs folder in november" commits-in-window --since=2026-11-01T00:00:00 --until=2026-11-30T23:59:59 -- ':!docs/'
check "bob's commits excluding merges since nov 1" commits-by-author --no-merges --author=bob@example.org --since=2026-11-01T00:00:00
# names typed without their accents find their person; "dependabot" names dependabot[bot]
check "angstrom's commits" commits-by-author --author=zangs@example.net
check "zoe commits in november" commits-by-author --author=zangs@example.net --since=2026-11-01T00:00:00 --until=2026-11-30T23:59:59
check "what did dependabot do" commits-by-author --author=dependabot
# two people the repository knows
check "commits by ines and bob since nov 20" commits-by-author --author=ines@example.org --author=bob@example.org --since=2026-11-20T00:00:00
check "commits since nov 15" commits-in-window --since=2026-11-15T00:00:00
# rankings reversed and ownership: the first row's author, against git's own counts
first_author() {
  (cd "$R" && "$Q" ask "$1" --format json) 2>/dev/null |
    python3 -c "import json,sys; print(json.load(sys.stdin)['findings'][0]['author'])"
}
least=$(git -C "$R" shortlog -sn --since=2026-10-01T00:00:00 --until=2026-10-31T23:59:59 HEAD | sort -n | head -1 | cut -f2)
expect_out "least active contributors in october" "$least" first_author "least active contributors in october"
expect_out "who last touched log.txt" "$(git -C "$R" log -1 --format=%an -- log.txt)" first_author "who last touched log.txt"
owner=$(git -C "$R" shortlog -sn HEAD -- log.txt | head -1 | cut -f2)
expect_out "who knows log.txt best" "$owner" first_author "who knows log.txt best"
# never guess: a name the repository lacks (alone or as the second of two), judgement
expect_out "unknown name" "no-answer" ask "what did jo do last week"
expect_out "two people, one unknown" "no-answer" ask "commits by ines and jo"
expect_out "judgement" "no-answer" ask "why did the top contributor stop in november"
# people on a second repository (issue 27, jq's history): one name written with two
# emails is left out of a ranking and a count by that name; a one-word name that is also
# another person's first name ("Stephen" and "Stephen Dolan") is ambiguous
R2="$TMP/people"
git init -q -b main "$R2"
pcommit() { # pcommit DATE "NAME" EMAIL
  echo "$1 $2" >> "$R2/log.txt"
  git -C "$R2" add -A
  GIT_AUTHOR_NAME=$2 GIT_AUTHOR_EMAIL=$3 GIT_AUTHOR_DATE="$1 +0000" \
  GIT_COMMITTER_NAME=$2 GIT_COMMITTER_EMAIL=$3 GIT_COMMITTER_DATE="$1 +0000" \
    git -C "$R2" commit -q -m "work of $2 on $1"
}
pcommit "2025-02-01T10:00:00" "itchyny" itchyny@one.example
pcommit "2025-03-01T10:00:00" "itchyny" itchyny@two.example
pcommit "2025-04-01T10:00:00" "itchyny" itchyny@one.example
pcommit "2025-05-01T10:00:00" "Kai Ode" kai@example.org
pcommit "2025-06-01T10:00:00" "Kai Ode" kai@example.org
pcommit "2025-07-01T10:00:00" "Lu Pham" lu@example.org
pcommit "2025-08-01T10:00:00" "Stephen" stephen@polya.example
pcommit "2025-09-01T10:00:00" "Stephen Dolan" sd@example.org
p_first() { # p_first Q: the first row's author
  (cd "$R2" && "$Q" ask "$1" --format json) 2>/dev/null |
    python3 -c "import json,sys; print(json.load(sys.stdin)['findings'][0]['author'])"
}
p_count() { # p_count Q: the count answered
  (cd "$R2" && "$Q" ask "$1" --format json) 2>/dev/null |
    python3 -c "import json,sys; print(json.load(sys.stdin)['count'])"
}
p_rc() { (cd "$R2" && "$Q" ask "$1" --format json) >/dev/null 2>&1; echo "rc $?"; }
expect_out "ranking excluding a two-email name" "Kai Ode" p_first "who contributed most in 2025 excluding itchyny?"
expect_out "count excluding a two-email name" "5" p_count "how many commits in 2025 excluding itchyny"
expect_out "a whole name and another's first name" "rc 2" p_rc "what did Stephen do?"
expect_out "the full name is one person" "Stephen Dolan" p_first "what did stephen dolan do"
# tags as the project names them (jq-1.7.1, "jq 1.7", "since 1.8.0"), resolved against the
# repository's own tags; a release without a tag is not guessed
git -C "$R2" tag proj-1.0 HEAD~5
git -C "$R2" tag proj-1.1 HEAD~2
git -C "$R2" tag proj-1.1rc1 HEAD~3
n_since=$(git -C "$R2" rev-list --count proj-1.0..HEAD)
n_between=$(git -C "$R2" rev-list --count proj-1.0..proj-1.1)
expect_out "since a tag named with its project" "$n_since" p_count "how many commits since proj 1.0"
expect_out "since a bare release number" "$n_since" p_count "how many commits since 1.0"
expect_out "between two tags" "$n_between" p_count "how many commits between proj-1.0 and proj-1.1?"
expect_out "a range of two tags" "$n_between" p_count "proj-1.0..proj-1.1 count"
expect_out "a release with no tag" "rc 2" p_rc "how many commits since proj-2.0"
near=$( (cd "$R2" && "$Q" ask "how many commits since proj-2.0" --format json) 2>&1 | grep -o "nearest release is [a-z0-9.-]*")
expect_out "the decline names the nearest release" "nearest release is proj-1.1" echo "$near"
hash=$(git -C "$R2" rev-parse --short=8 HEAD~4)
expect_out "who wrote one commit" "$(git -C "$R2" log -1 --format=%an "$hash")" p_first "who wrote commit $hash?"
# a login made of the initial and the surname, or a personal domain holding the surname,
# names its person ("bnoordhuis" for Ben Noordhuis <info@bnoordhuis.nl>)
pcommit "2025-10-01T10:00:00" "Bram Noordhuis" info@bnoordhuis.example
pcommit "2025-10-02T10:00:00" "Bram Noordhuis" info@bnoordhuis.example
pcommit "2025-10-03T10:00:00" "Cora Ihrig" cora@mail.example
expect_out "a login: initial and surname" "2" p_count "how many commits by bnoordhuis"
expect_out "a login by its initial and surname, another person" "1" p_count "how many commits by cihrig"
expect_out "a login nobody's surname makes" "rc 2" p_rc "how many commits by bnoord"
finish
