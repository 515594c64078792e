# questions.sh: issue 25's questions, each answered by one query of the DSL
# (tests/query/questions/NN_name.edn), run against a repository built here with git, and
# each answer compared with what git itself says about the same repository (git log with
# --date=format: for the author's own weekday and month, --numstat, --name-only,
# shortlog). Run as `sh questions.sh QUARRY` (ctest: query/questions).
#
# The fixture: four authors over 2024, author dates in several UTC offsets (a commit at
# 23:30 -05:00 on a Wednesday is a Wednesday for its author, a Thursday in UTC), .c and
# .h files changed together and apart, three merges (two by someone other than the
# merged branch's author), subjects that start with a verb and some that do not.
. "$(dirname "$0")/../cli/lib.sh"

if ! command -v git >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
  echo "skipped: git or python3 is not installed"
  exit 77
fi

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_AUTHOR_NAME \
  GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE
mkdir -p "$HOME"
# today is 2024-06-20 12:00 UTC: "this quarter" starts on 2024-04-01
QUARRY_NOW=1718884800 GIT_TEST_DATE_NOW=1718884800
export QUARRY_NOW GIT_TEST_DATE_NOW

R="$TMP/repo"
QS="$SRC/tests/query/questions"
git init -q -b main "$R"
git -C "$R" config commit.gpgsign false

# lines FILE N: appends N numbered lines to FILE; cut FILE N: deletes its first N lines
lines() { i=0; while [ $i -lt "$2" ]; do echo "line $i of $1 $(date +%N)" >> "$R/$1"; i=$((i + 1)); done; }
cut_lines() { sed -i "1,$2d" "$R/$1"; }
# commit DATE NAME MESSAGE: commits everything as NAME, author and committer date DATE
commit() {
  lower=$(echo "$2" | tr 'A-Z' 'a-z')
  git -C "$R" add -A
  GIT_AUTHOR_NAME=$2 GIT_AUTHOR_EMAIL=$lower@example.com GIT_AUTHOR_DATE=$1 \
  GIT_COMMITTER_NAME=$2 GIT_COMMITTER_EMAIL=$lower@example.com GIT_COMMITTER_DATE=$1 \
    git -C "$R" commit -q -m "$3"
}
# merge DATE NAME BRANCH: NAME merges BRANCH into main with a merge commit
merge() {
  lower=$(echo "$2" | tr 'A-Z' 'a-z')
  GIT_AUTHOR_NAME=$2 GIT_AUTHOR_EMAIL=$lower@example.com GIT_AUTHOR_DATE=$1 \
  GIT_COMMITTER_NAME=$2 GIT_COMMITTER_EMAIL=$lower@example.com GIT_COMMITTER_DATE=$1 \
    git -C "$R" merge -q --no-ff --no-edit "$3"
  git -C "$R" branch -q -D "$3"
}
mkdir -p "$R/src" "$R/tests"
lines src/parse.c 5; lines src/parse.h 3
commit 2024-01-08T09:00:00+00:00 Ann "Add parser"
cut_lines src/parse.c 2; lines src/parse.c 1
commit 2024-01-10T10:00:00+01:00 Bob "fix parser crash"
cut_lines src/parse.c 3; lines src/parse.c 1
commit 2024-02-14T23:30:00-05:00 Carol "Parser speedup"
lines README 4
commit 2024-02-20T08:00:00+02:00 Dave "docs: explain the parser"
cut_lines src/parse.c 1; lines src/parse.c 1; cut_lines src/parse.h 1; lines src/parse.h 1
commit 2024-03-05T11:00:00+00:00 Ann "Update parse.c and parse.h"
git -C "$R" checkout -q -b feature
lines src/lex.c 6; lines src/lex.h 2
commit 2024-04-03T09:00:00+00:00 Ann "Add lexer"
cut_lines src/lex.c 2
commit 2024-04-09T09:00:00+00:00 Ann "Tweak lexer"
git -C "$R" checkout -q main
cut_lines src/parse.c 2
commit 2024-04-05T16:00:00-07:00 Carol "remove dead code"
merge 2024-04-10T09:00:00+00:00 Bob feature
git -C "$R" checkout -q -b fix2
cut_lines src/lex.c 2; lines src/lex.c 1
commit 2024-05-02T09:00:00+00:00 Carol "Faster lexing"
git -C "$R" checkout -q main
merge 2024-05-03T09:00:00+00:00 Carol fix2
git -C "$R" checkout -q -b b3
lines tests/t.c 10
commit 2024-05-13T09:00:00+00:00 Dave "Add tests"
lines tests/t.c 4
commit 2024-05-14T09:00:00+00:00 Dave "More tests"
git -C "$R" checkout -q main
merge 2024-05-15T09:00:00+00:00 Ann b3
cut_lines src/lex.c 3; lines src/lex.c 2; cut_lines src/lex.h 1
commit 2024-06-03T09:00:00+00:00 Bob "Refactor lexer"
lines tests/t.c 1
commit 2024-06-10T22:00:00+09:00 Dave "Wip"
cut_lines tests/t.c 2
commit 2024-06-11T09:00:00+00:00 Dave "Tidy tests"
# fillers: Ann 2, Carol 3, Bob 5 more commits this quarter (Dave, with 4, is the quietest)
for who in Ann Ann Carol Carol Carol Bob Bob Bob Bob Bob; do
  lines notes.txt 1
  n=$(wc -l < "$R/notes.txt")
  commit "2024-06-1$((n % 8 + 2))T0$((n % 9)):00:00+00:00" $who "Update notes $n"
done

# ask NAME: runs the question's query; its findings as lines of tab-separated values
ask() {
  name=$1
  shift
  if ! "$Q" query --repo "$R" --format json - < "$QS/$name.edn" > "$TMP/$name.json" 2> "$TMP/err"; then
    echo "FAIL: $name: the query failed"; sed 's/^/  /' "$TMP/err"
    FAILS=$((FAILS + 1))
    return
  fi
  python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
keys = sys.argv[2:]
for row in r["findings"]:
    print("\t".join(str(row[k]) for k in keys))' "$TMP/$name.json" "$@"
}
# same NAME WANT GOT: compares two texts
same() {
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1"; echo "  want (git):"; echo "$2" | sed 's/^/    /'
    echo "  got (quarry):"; echo "$3" | sed 's/^/    /'
    FAILS=$((FAILS + 1))
  fi
}
summary() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"])' "$TMP/$1.json"; }

# 1: lines deleted per weekday of the author date, as written (--date=format: keeps the
# author's offset), most first; the top day is unique in this fixture
want=$(git -C "$R" log --numstat --format='C %ad' --date=format:%A |
  awk '/^C / { d = $2; next } NF { del[d] += $2 } END { for (d in del) print d "\t" del[d] }' |
  sort -t "$(printf '\t')" -k2,2nr -k1,1)
got=$(ask 01_weekday_deletions weekday deleted | sort -t "$(printf '\t')" -k2,2nr -k1,1)
same "01 lines deleted by weekday" "$want" "$got"
top=$(echo "$want" | head -1 | cut -f1)
same "01 the weekday with most deletions" "most lines deleted on $top" "$(summary 01_weekday_deletions)"

# 2: commits per calendar month of the author date, in time order
want=$(git -C "$R" log --format=%ad --date=format:%Y-%m | sort | uniq -c | awk '{ print $2 "\t" $1 }')
same "02 commits by month" "$want" "$(ask 02_commits_by_month month commits)"

# 3: commits whose changed paths hold X.c and X.h (the same X, directory included)
want=$(git -C "$R" log --name-only --no-renames --format='C %h %s' |
  awk '/^C / { if (h) check(); h = $2; s = substr($0, length($2) + 4); delete f; n = 0; next }
       NF { f[$0] = 1; p[++n] = $0 }
       function check(  i, k) { for (i = 1; i <= n; i++) if (p[i] ~ /\.c$/) { k = p[i]; sub(/c$/, "h", k); if (k in f) { print h "\t" s; return } } }
       END { if (h) check() }')
same "03 .c and .h together" "$want" "$(ask 03_c_and_h short_hash subject)"
[ "$(echo "$want" | wc -l)" -eq 4 ] || { echo "FAIL: 03 the fixture should hold 4 such commits"; FAILS=$((FAILS + 1)); }

# 4: for each merge, the author of its second parent when it is not the merge's author
want=$(git -C "$R" log --merges --format='%ae %P' | while read -r merger p1 p2; do
    tip=$(git -C "$R" log -1 --format=%ae "$p2")
    [ "$tip" != "$merger" ] && echo "$tip"
  done | sort | uniq -c | sort -k1,1nr -k2,2 | awk '{ print $2 "\t" $1 }')
same "04 merged by someone else" "$want" "$(ask 04_merged_by_others email merged)"

# 5: the author with fewest commits since the quarter began (shortlog's last), then that
# author's three largest commits of the quarter by lines added and deleted
quiet=$(git -C "$R" shortlog -sne --since=2024-04-01 HEAD | tail -1 | sed 's/.*<\(.*\)>/\1/')
want=$(git -C "$R" log --numstat --format='C %h %s' --since=2024-04-01 --author="$quiet" |
  awk '/^C / { if (h) print t "\t" h "\t" s; h = $2; s = substr($0, length($2) + 4); t = 0; next }
       NF { t += $1 + $2 } END { if (h) print t "\t" h "\t" s }' |
  sort -t "$(printf '\t')" -k1,1nr | head -3 | awk -F '\t' '{ print $2 "\t" $3 "\t" $1 }')
same "05 the quietest author's largest commits" "$want" "$(ask 05_quietest_top3 short_hash subject lines)"
same "05 the quietest author" "Dave's largest commits this quarter" "$(summary 05_quietest_top3)"

# 6: subjects whose first word (letters, digits, _ ' -) is not one of the verbs
verbs=' add fix remove update merge refactor rename move make use bump revert improve clean split drop allow support document test tweak tidy '
want=$(git -C "$R" log --format='%h%x09%s' | while IFS="$(printf '\t')" read -r h s; do
    w=$(printf '%s' "$s" | grep -o "[A-Za-z0-9_][A-Za-z0-9_'-]*" | head -1 | sed "s/[-']*\$//" | tr 'A-Z' 'a-z')
    case "$verbs" in *" $w "*) ;; *) printf '%s\t%s\n' "$h" "$s" ;; esac
  done)
same "06 subjects not starting with a verb" "$want" "$(ask 06_no_verb_first short_hash subject)"
[ "$(echo "$want" | wc -l)" -eq 5 ] || { echo "FAIL: 06 the fixture should hold 5 such subjects"; FAILS=$((FAILS + 1)); }

finish
