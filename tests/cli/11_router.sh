# 11_router.sh: tier 1 of `quarry ask`, end to end. A repository is built here with git
# (four authors with fixed emails, commits 400, 200, 120, 40, 20, 10, 5 and 4 days ago,
# one at noon yesterday and three between midnight and now, a merge among them, files in
# subdirectories, a rename), then each
# question is asked with no model configured, so only the router can answer, and the
# answer (the query's :return as JSON) is compared with git's own: git log with the same
# window, author, grep, merges or path, git shortlog -sne, git log --numstat summed with
# awk, git log --follow. Windows that the router reads as calendar points ("today",
# "this week") are computed here the same way (midnight, Monday, the 1st, in UTC), and
# "now" is lib.sh's pinned NOW for quarry and git alike.
. "$(dirname "$0")/lib.sh"

if ! command -v git >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
  echo "skipped: git or python3 is not installed"
  exit 77
fi

export HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/home/.config" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_AUTHOR_NAME \
  GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE \
  QUARRY_LLM_URL QUARRY_LLM_MODEL
mkdir -p "$HOME/.config"

R="$TMP/repo"
git init -q -b main "$R"
git -C "$R" config commit.gpgsign false
mkdir -p "$R/src" "$R/lib" "$R/docs"

# calendar points as the router's windows mean them (UTC, the tests' TZ), from the pinned
# NOW (lib.sh) that quarry and git read too
eval "$(python3 -c '
import datetime, sys
now = datetime.datetime.fromtimestamp(int(sys.argv[1]), datetime.timezone.utc)
day = now.replace(hour=0, minute=0, second=0, microsecond=0)
f = lambda d: d.strftime("%Y-%m-%d %H:%M:%S")
print("TODAY_S=%d" % day.timestamp())
print("TODAY=\"%s\"" % f(day))
print("YESTERDAY=\"%s\"" % f(day - datetime.timedelta(days=1)))
print("MONDAY=\"%s\"" % f(day - datetime.timedelta(days=day.weekday())))
print("MONTH1=\"%s\"" % f(day.replace(day=1)))
# "last month" is the calendar month before this one (docs/decisions.md, issue 27)
lm_end = day.replace(day=1) - datetime.timedelta(days=1)
print("LASTM1=\"%s\"" % f(lm_end.replace(day=1)))
print("LASTM_END=\"%s\"" % lm_end.strftime("%Y-%m-%d 23:59:59"))
print("JAN1=\"%s\"" % f(day.replace(month=1, day=1)))
# "last year" is the calendar year before this one, as "last month" is
print("LASTY1=\"%s\"" % f(day.replace(year=day.year - 1, month=1, day=1)))
print("LASTY_END=\"%d-12-31 23:59:59\"" % (day.year - 1))
print("D50=\"%s\"" % (day - datetime.timedelta(days=50)).strftime("%Y-%m-%d"))
print("D15=\"%s\"" % (day - datetime.timedelta(days=15)).strftime("%Y-%m-%d"))
print("D14=\"%s\"" % (day - datetime.timedelta(days=14)).strftime("%Y-%m-%d"))
print("D10=\"%s\"" % (now - datetime.timedelta(days=10)).strftime("%Y-%m-%d"))
' "$NOW")"

# lines FILE N TEXT: appends N numbered lines to FILE
lines() {
  i=1
  while [ "$i" -le "$2" ]; do echo "$3 $i" >> "$R/$1"; i=$((i + 1)); done
}
# commit_at EPOCH NAME MESSAGE: commits what is staged, as NAME, at that time
commit_at() {
  d="$1 +0000"
  lower=$(echo "$2" | tr 'A-Z' 'a-z')
  GIT_AUTHOR_NAME=$2 GIT_AUTHOR_EMAIL=$lower@example.com GIT_AUTHOR_DATE=$d \
  GIT_COMMITTER_NAME=$2 GIT_COMMITTER_EMAIL=$lower@example.com GIT_COMMITTER_DATE=$d \
    git -C "$R" commit -q -m "$3"
}
# commit SECONDS_AGO NAME MESSAGE: the same, that long before NOW
commit() { commit_at $((NOW - $1)) "$2" "$3"; }
DAY=86400
# The last three commits fall between midnight and NOW, a quarter of that span apart, the
# one before them at noon yesterday, so that "today", "this week" (bob's too), "this
# month", "this year" (a merge and a change in src/ too) and "yesterday" each hold at
# least one commit whatever the day and hour: Mondays, the 1st and 1 January included.
QUARTER=$(((NOW - TODAY_S) / 4))
lines src/main.c 10 main; lines lib/old.c 5 old; lines README.md 3 readme
git -C "$R" add -A; commit $((400 * DAY)) Alice "Initial import"
lines src/main.c 3 more; lines docs/guide.md 6 guide
git -C "$R" add -A; commit $((200 * DAY)) Bob "Add guide"
git -C "$R" mv lib/old.c lib/util.c; lines lib/util.c 2 util
git -C "$R" add -A; commit $((120 * DAY)) Carol "Rename old to util"
lines src/main.c 20 split; lines src/parse.c 30 parse
git -C "$R" add -A; commit $((40 * DAY)) Alice "refactor: parser split"
lines README.md 1 typo
git -C "$R" add -A; commit $((20 * DAY)) Bob "fix typo in readme"
sed -i '1d' "$R/lib/util.c"; lines lib/util.c 5 overflow; lines src/parse.c 2 guard
git -C "$R" add -A; commit $((10 * DAY)) Carol "fix: util overflow"
git -C "$R" checkout -q -b feature
lines docs/guide.md 4 util-docs
git -C "$R" add -A; commit $((5 * DAY)) Dave "Document util"
git -C "$R" checkout -q main
lines src/main.c 1 tweak
git -C "$R" add -A; commit $((4 * DAY)) Alice "Tweak main"
lines src/parse.c 40 rewrite; lines lib/util.c 3 rewrite
git -C "$R" add -A; commit_at $((TODAY_S - DAY / 2)) Bob "Parser rewrite (fix #12)"
d="$((TODAY_S + QUARTER)) +0000"
GIT_AUTHOR_NAME=Alice GIT_AUTHOR_EMAIL=alice@example.com GIT_AUTHOR_DATE=$d \
GIT_COMMITTER_NAME=Alice GIT_COMMITTER_EMAIL=alice@example.com GIT_COMMITTER_DATE=$d \
  git -C "$R" merge -q --no-ff -m "Merge branch feature" feature
lines src/version.h 2 version
git -C "$R" add -A; commit_at $((TODAY_S + 2 * QUARTER)) Bob "Bump the version"
lines README.md 2 update
git -C "$R" add -A; commit_at $((TODAY_S + 3 * QUARTER)) Carol "Update README"

cat > "$TMP/j.py" <<'EOF'
# j.py MODE ARGS < answer.json: what the tests compare, one item a line
import json, sys
d = json.load(sys.stdin)
mode = sys.argv[1]
if mode == "field":     # a field of each finding
    for r in d["findings"]:
        print(r.get(sys.argv[2]))
elif mode == "pairs":   # two fields of each finding, sorted
    for line in sorted("%s %s" % (r.get(sys.argv[2]), r.get(sys.argv[3])) for r in d["findings"]):
        print(line)
elif mode == "key":     # a top-level key
    print(d[sys.argv[2]])
EOF

PASSED=0
# ask QUESTION: the answer as JSON in $TMP/ask.json, how it was routed in $TMP/ask.err
ask() {
  "$Q" ask "$1" --repo "${ASK_REPO:-$R}" --format json --explain >"$TMP/ask.json" 2>"$TMP/ask.err"
}
# same QUESTION GOT WANT: one comparison
same() {
  if [ "$2" = "$3" ] && [ -n "$3" ]; then
    PASSED=$((PASSED + 1))
  else
    echo "FAIL: '$1'"
    echo "  want: $(echo "$3" | tr '\n' ' ')"
    echo "  got:  $(echo "$2" | tr '\n' ' ')"
    sed 's/^/  /' "$TMP/ask.err"
    FAILS=$((FAILS + 1))
  fi
}
# check QUESTION MODE ARGS... -- GIT_ANSWER: the answer read by j.py against git's
check() {
  question=$1; shift
  args=""
  while [ "$1" != "--" ]; do args="$args $1"; shift; done
  shift
  if ask "$question"; then
    # shellcheck disable=SC2086
    got=$(python3 "$TMP/j.py" $args < "$TMP/ask.json" 2>&1)
  else
    got="(quarry ask exited $?)"
  fi
  same "$question" "$got" "$1"
}

G() { git -C "${ASK_REPO:-$R}" "$@"; }
# hashes of git log with these options, newest first
hashes() { G log --format=%h --abbrev=7 "$@"; }
# files with their commits, most first, then most changed lines, then by path
churn() {
  G log --numstat --no-renames --format= "$@" |
    awk 'NF == 3 { c[$3]++; l[$3] += $1 + $2 } END { for (f in c) print c[f], l[f], f }' |
    sort -k1,1nr -k2,2nr -k3,3 | awk '{ print $3 }'
}
# authors by a numstat column (1 additions, 2 deletions, 3 both), most first
by_lines() {
  col=$1; shift
  G log --numstat --no-renames --format='@%aN' "$@" |
    awk -v col="$col" '/^@/ { a = substr($0, 2); seen[a] = 1; next }
      NF == 3 { v[a] += (col == 3 ? $1 + $2 : $col) }
      END { for (a in seen) print v[a] + 0, a }' | sort -k1,1nr -k2,2 | awk '{ print $2 }'
}
# commits by lines changed, most first, ties newest first
largest() {
  G log --numstat --no-renames --format='@%h' "$@" |
    awk '/^@/ { n++; h[n] = substr($0, 2); next } NF == 3 { l[n] += $1 + $2 }
      END { for (i = 1; i <= n; i++) print i, l[i] + 0, h[i] }' |
    sort -k2,2nr -k1,1n | awk '{ print $3 }'
}
shortlog() { G shortlog -sne HEAD "$@" | sed 's/^ *[0-9]*\t//; s/ <.*//'; }

# ---- commits in a window ----
check "commits from last week" field short_hash -- "$(hashes --since='1 week ago')"
check "show commits since yesterday" field short_hash -- "$(hashes --since="$YESTERDAY")"
check "What was committed in the last 3 days?" field short_hash -- "$(hashes --since='3 days ago')"
check "commits this month" field short_hash -- "$(hashes --since="$MONTH1")"
check "commits this week" field short_hash -- "$(hashes --since="$MONDAY")"
check "commits this year" field short_hash -- "$(hashes --since="$JAN1")"
check "recent commits" field short_hash -- "$(hashes -20)"
check "last 3 commits" field short_hash -- "$(hashes -3)"
check "show me the last five commits" field short_hash -- "$(hashes -5)"
check "the latest commit" field short_hash -- "$(hashes -1)"
check "commits between $D50 and $D15" field short_hash -- \
  "$(hashes --since="$D50 00:00:00" --until="$D15 23:59:59")"
check "what changed since $D15" field short_hash -- "$(hashes --since="$D15 00:00:00")"
check "commits before $D15" field short_hash -- "$(hashes --until="$D15 00:00:00")"
check "commits on $D10" field short_hash -- "$(hashes --since="$D10 00:00:00" --until="$D10 23:59:59")"
check "commits today" field short_hash -- "$(hashes --since="$TODAY")"
check "yesterday's commits" field short_hash -- "$(hashes --since="$YESTERDAY" --until="$TODAY")"
check "commits in the past 2 weeks" field short_hash -- "$(hashes --since='2 weeks ago')"
check "Please list the commits from last month." field short_hash -- "$(hashes --since="$LASTM1" --until="$LASTM_END")"
check "non-merge commits last week" field short_hash -- "$(hashes --no-merges --since='1 week ago')"
# commits that touch a path are dropped whole (issue 27), as git lists the ones that do
untouched() {
  touch_list=$(mktemp)
  G log --format=%h --abbrev=7 -- "$1" > "$touch_list"
  G log --format=%h --abbrev=7 | grep -vxF -f "$touch_list"
  rm -f "$touch_list"
}
check "commits that don't touch docs/" field short_hash -- "$(untouched docs/)"
check "commits in src/ this year" field short_hash -- "$(hashes --since="$JAN1" -- src/)"

# ---- by author ----
check "commits by alice" field short_hash -- "$(hashes -i --author=alice)"
check "alice's commits in the past month" field short_hash -- "$(hashes -i --author=alice --since='1 month ago')"
check "what did bob do this week" field short_hash -- "$(hashes -i --author=bob --since="$MONDAY")"
check "Commits authored by Carol in the last 2 months" field short_hash -- \
  "$(hashes -i --author=carol --since='2 months ago')"
check "last 2 commits by bob@example.com" field short_hash -- "$(hashes -2 --author=bob@example.com)"
check "how many commits did carol make" key count -- "$(hashes -i --author=carol | wc -l | tr -d ' ')"

# ---- counts ----
check "how many commits last week" key count -- "$(hashes --since='1 week ago' | wc -l | tr -d ' ')"
check "number of commits by alice" key count -- "$(hashes -i --author=alice | wc -l | tr -d ' ')"
check "how many merge commits this year" key count -- "$(hashes --merges --since="$JAN1" | wc -l | tr -d ' ')"
check "how many commits last week" key summary -- \
  "$(hashes --since='1 week ago' | wc -l | tr -d ' ') commits since 1 week ago"
check "how many contributors this year" key count -- "$(shortlog --since="$JAN1" | wc -l | tr -d ' ')"

# ---- top contributors ----
check "who contributed most this month" field author -- "$(shortlog --since="$MONTH1")"
check "most active contributors" field author -- "$(shortlog)"
check "top 2 authors last year" field author -- "$(shortlog --since="$LASTY1" --until="$LASTY_END" | head -2)"
check "who committed the most" field author -- "$(shortlog)"
check "authors ranked by lines added" field author -- "$(by_lines 1)"
check "authors by lines deleted" field author -- "$(by_lines 2 | head -10)"
check "top 3 contributors by lines changed" field author -- "$(by_lines 3 | head -3)"

# ---- file churn ----
check "most changed files" field path -- "$(churn | head -10)"
check "top 2 most modified files this month" field path -- "$(churn --since="$MONTH1" | head -2)"
check "hotspots" field path -- "$(churn | head -10)"
check "which files change most often in src/" field path -- "$(churn -- src/ | head -10)"
check "which files changed last week" field path -- "$(churn --since='1 week ago')"

# ---- file history ----
check "history of lib/util.c" field short_hash -- "$(hashes --follow -- lib/util.c)"
check "commits touching lib/util.c since last month" field short_hash -- \
  "$(hashes --follow --since='1 month ago' -- lib/util.c)"
check "changes to README.md by bob" field short_hash -- "$(hashes --follow -i --author=bob -- README.md)"
check "when was docs/guide.md last changed" field short_hash -- "$(hashes -1 --follow -- docs/guide.md)"
check "who changed README.md" pairs author commits -- \
  "$(G log --follow --format=%aN -- README.md | sort | uniq -c | awk '{ print $2, $1 }' | sort)"
check "who worked on src/" field author -- "$(shortlog -- src/)"

# ---- largest commits ----
check "largest commits this year" field short_hash -- "$(largest --since="$JAN1" | head -10)"
check "biggest commits by lines changed" field short_hash -- "$(largest | head -10)"
check "what was the largest commit last year?" field short_hash -- "$(largest --since="$LASTY1" --until="$LASTY_END" | head -1)"
check "top 3 largest commits last month" field short_hash -- "$(largest --since="$LASTM1" --until="$LASTM_END" | head -3)"

# ---- messages and merges ----
check "commits mentioning fix" field short_hash -- "$(hashes -i --grep=fix)"
check "commits with 'refactor' in the message" field short_hash -- "$(hashes -i --grep=refactor)"
check "merge commits over the past month" field short_hash -- "$(hashes --merges --since='1 month ago')"
check "commits mentioning '#12'" field short_hash -- "$(hashes -i --fixed-strings --grep='#12')"

# ---- review fixes: superlatives, "after" / "until" a day, "all", "per author" ----
# commits by how many files they changed (numstat entries; a merge shows none), most
# first, newest first among equals
by_files() {
  G log --numstat --no-renames --format='@%h' "$@" |
    awk '/^@/ { n++; h[n] = substr($0, 2); next } NF == 3 { f[n]++ }
      END { for (i = 1; i <= n; i++) print i, f[i] + 0, h[i] }' |
    sort -k2,2nr -k1,1n | awk '{ print $3 }'
}
# commits by lines added, most first, newest first among equals
by_added() {
  G log --numstat --no-renames --format='@%h' "$@" |
    awk '/^@/ { n++; h[n] = substr($0, 2); next } NF == 3 { a[n] += $1 }
      END { for (i = 1; i <= n; i++) print i, a[i] + 0, h[i] }' |
    sort -k2,2nr -k1,1n | awk '{ print $3 }'
}
check "which commit changed the most files" field short_hash -- "$(by_files | head -1)"
check "commits with the most files" field short_hash -- "$(by_files | head -10)"
check "commits with the most lines added" field short_hash -- "$(by_added | head -10)"
check "files with the most commits" field path -- "$(churn | head -10)"
check "authors with the most commits" field author -- "$(shortlog | head -10)"
check "commits after yesterday" field short_hash -- "$(hashes --since="$TODAY")"
check "commits after $D15" field short_hash -- "$(hashes --since="$D14 00:00:00")"
check "commits until today" field short_hash -- "$(hashes)"
check "commits until yesterday" field short_hash -- "$(hashes --until="$TODAY")"
check "commits between yesterday and today" field short_hash -- "$(hashes --since="$YESTERDAY")"
check "which files did alice change" field path -- "$(churn -i --author=alice)"
check "the last commit by alice" field short_hash -- "$(hashes -1 -i --author=alice)"
check "can you show me commits from last week" field short_hash -- "$(hashes --since='1 week ago')"
check "who committed last week" field author -- "$(shortlog --since='1 week ago')"
check "top 5 files" field path -- "$(churn | head -5)"
check "what did Alice do?" field short_hash -- "$(hashes -i --author=alice)"
check "commits about README.md" field short_hash -- "$(hashes --follow -- README.md)"
check "who is the most active" field author -- "$(shortlog)"
check "commits by carol on $D10" field short_hash -- \
  "$(hashes -i --author=carol --since="$D10 00:00:00" --until="$D10 23:59:59")"

# a second repository with more commits (25) and authors (12) than the default cuts
R2="$TMP/repo2"
git init -q -b main "$R2"
k=0
for who in Ann Ben Cat Dan Eli Fay Gus Hal Ivy Jon Kim Lou Ann Ben Cat Ann Ben Ann Kim Lou \
  Ann Ivy Jon Ann Eli; do
  k=$((k + 1))
  echo "line $k" >> "$R2/notes.txt"
  git -C "$R2" add notes.txt
  d="$((NOW - k * 3600)) +0000"
  lower=$(echo "$who" | tr 'A-Z' 'a-z')
  GIT_AUTHOR_NAME=$who GIT_AUTHOR_EMAIL=$lower@example.com GIT_AUTHOR_DATE=$d \
  GIT_COMMITTER_NAME=$who GIT_COMMITTER_EMAIL=$lower@example.com GIT_COMMITTER_DATE=$d \
    git -C "$R2" commit -q -m "note $k"
done
ASK_REPO=$R2
check "show all commits" field short_hash -- "$(hashes)"
check "commits per author" pairs author commits -- \
  "$(G log --format=%aN | sort | uniq -c | awk '{ print $2, $1 }' | sort)"
check "commits per author last week" pairs author commits -- \
  "$(G log --since='1 week ago' --format=%aN | sort | uniq -c | awk '{ print $2, $1 }' | sort)"
check "top authors" field author -- \
  "$(G log --format=%aN | sort | uniq -c | sort -k1,1nr -k2,2 | awk '{ print $2 }' | head -10)"
check "recent commits" field short_hash -- "$(hashes -20)"
ASK_REPO=

# ---- the route itself, and what tier 1 must leave alone ----
ask "commits by alice last week"
expect_out "explain names the rule" "1" grep -c "commits-by-author" "$TMP/ask.err"
for q in "interesting commits from the most active contributor last week" \
  "rank authors by risk score" "why did the build break" \
  "commits by alice that touch tests and have no review" \
  "what did he do this month" "what has she done" "how many commits did they make" \
  "commits by user" "commits by mistake" "main's commits" \
  "my commits" "largest recent commits" "commits on 11/19/2026" "what changed on 11/19" \
  "commits after today" "which commit has the most files"; do
  "$Q" ask "$q" --repo "$R" --format json >"$TMP/nm.out" 2>"$TMP/nm.err"
  rc=$?
  if [ "$rc" = 0 ]; then
    echo "FAIL: '$q' was answered without a model"
    FAILS=$((FAILS + 1))
  fi
done

echo "router: $PASSED questions agree with git"
finish
