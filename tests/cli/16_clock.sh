# 16_clock.sh: the one clock. QUARRY_NOW pins "now" for every command that reads it (git
# windows, pipeline ages, the memory store's timestamps, mem query --now), in ISO-8601
# with or without a zone or as epoch seconds; a value that is not a time stops every
# command with exit 2 instead of falling back to the real clock. Times without a zone
# take the UTC offset in force on their own date (TZ=America/Los_Angeles: a commit at
# 00:30 PDT on 2026-10-15 is found by --since '2026-10-15 00:00:00' in November, when
# the offset is PST's), compared with git's own answer under the same TZ.
. "$(dirname "$0")/lib.sh"

if ! command -v git >/dev/null 2>&1; then
  echo "skipped: git is not installed"
  exit 77
fi

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 LC_ALL=C TZ=UTC
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_AUTHOR_DATE GIT_COMMITTER_DATE
mkdir -p "$HOME"

R="$TMP/repo"
git init -q -b main "$R"
git -C "$R" config commit.gpgsign false
git -C "$R" config user.name Ann
git -C "$R" config user.email ann@example.com
# at DATE MESSAGE: an empty commit at that date
at() {
  GIT_AUTHOR_DATE=$1 GIT_COMMITTER_DATE=$1 git -C "$R" commit -q --allow-empty -m "$2"
}
at 2026-03-09T23:30:00Z "late on the 9th"
at 2026-03-10T00:30:00Z "early on the 10th"
at 2026-10-15T00:30:00-07:00 "00:30 PDT on 2026-10-15"
at 2026-11-24T10:00:00Z "on the 24th"

# ---- QUARRY_NOW pins the windows ----
expect_out "today, pinned by ISO-8601" "on the 24th" \
  env QUARRY_NOW=2026-11-24T12:00:00Z sh -c "$(printf '"%s" tool get_commits --repo "%s" --since today --format json' "$Q" "$R") | grep -o '\"subject\":\"[^\"]*\"' | cut -d'\"' -f4"
expect_out "today, pinned by epoch seconds (2026-03-10T06:00:00Z)" "early on the 10th" \
  env QUARRY_NOW=1773122400 sh -c "$(printf '"%s" tool get_commits --repo "%s" --since today --until now --format json' "$Q" "$R") | grep -o '\"subject\":\"[^\"]*\"' | cut -d'\"' -f4"
expect_out "yesterday, pinned with @" "late on the 9th" \
  env QUARRY_NOW=@1773122400 sh -c "$(printf '"%s" tool get_commits --repo "%s" --since yesterday --until today --format json' "$Q" "$R") | grep -o '\"subject\":\"[^\"]*\"' | cut -d'\"' -f4"
# zone-less QUARRY_NOW is local time: 2026-03-10 05:00 in Kolkata is 2026-03-09T23:30Z,
# and "today" there began at 2026-03-09T18:30Z
expect_out "a zone-less QUARRY_NOW is read in TZ" "late on the 9th" \
  env TZ=Asia/Kolkata QUARRY_NOW='2026-03-10 05:00:00' sh -c "$(printf '"%s" tool get_commits --repo "%s" --since today --until now --format json' "$Q" "$R") | grep -o '\"subject\":\"[^\"]*\"' | cut -d'\"' -f4"
expect_out "lisp reads the same clock" "2" \
  env QUARRY_NOW=2026-03-10T06:00:00Z "$Q" lisp --repo "$R" -e '(count (tool/get_commits {:since "1 week ago" :until "now"}))'

# ---- a bad QUARRY_NOW stops every command, exit 2 ----
for v in soon yesterday 2026-13-01 @ 99999999999999 '2026-03-10T25:00:00Z'; do
  expect_rc "QUARRY_NOW='$v': tool exits 2" 2 env QUARRY_NOW="$v" "$Q" tool get_commits --repo "$R"
  expect_err "QUARRY_NOW='$v': says so" "quarry: QUARRY_NOW '$v' is not a time" \
    env QUARRY_NOW="$v" "$Q" tool get_commits --repo "$R"
done
expect_err "the message lists the accepted forms" "expected ISO-8601 (2026-11-24T01:30:00Z" \
  env QUARRY_NOW=soon "$Q" lisp -e 1
for cmd in "lisp -e 1" "query {:return 1}" "mem stats --store $TMP/bad.db" "ask hello --repo $R" "index --repo $R"; do
  # shellcheck disable=SC2086
  expect_rc "QUARRY_NOW=soon: quarry $cmd exits 2" 2 env QUARRY_NOW=soon "$Q" $cmd
done
[ -e "$TMP/bad.db" ] && { echo "FAIL: a bad QUARRY_NOW still created a store"; FAILS=$((FAILS + 1)); }
expect_rc "an empty QUARRY_NOW is the real clock" 0 env QUARRY_NOW= "$Q" lisp -e 1

# ---- the memory store and the pipeline read it too ----
S="$TMP/notes.db"
expect_rc "mem add at a pinned time" 0 env QUARRY_NOW=2026-03-10T12:00:00Z "$Q" mem add k1 --content hello --store "$S"
expect_out "created and modified are the pinned time" '"created":"2026-03-10T12:00:00Z","modified":"2026-03-10T12:00:00Z"' \
  sh -c "'$Q' mem get k1 --store '$S' --format json | grep -o '\"created\":\"[^\"]*\",\"modified\":\"[^\"]*\"'"
expect_out "age:<1d an hour later" '"key":"k1"' sh -c \
  "QUARRY_NOW=2026-03-10T13:00:00Z '$Q' mem query 'age:<1d' --store '$S' --format json | grep -o '\"key\":\"k1\"'"
expect_out "age:<1d two days later" "[]" env QUARRY_NOW=2026-03-12T13:00:00Z "$Q" mem query 'age:<1d' --store "$S" --format json
expect_out "--now yesterday is relative to the pinned clock" '"key":"k1"' sh -c \
  "QUARRY_NOW=2026-03-11T13:00:00Z '$Q' mem query 'age:<1d' --now yesterday --store '$S' --format json | grep -o '\"key\":\"k1\"'"

# ---- times without a zone use the offset in force on their date (DST) ----
export TZ=America/Los_Angeles QUARRY_NOW=2026-11-24T12:00:00-08:00
# (a bare date is left out: git reads it at the current time of day, quarry at 00:00)
for w in "2026-10-15 00:00:00" "2026-10-15T00:30:00" "2026-10-15 00:30:01" "2026-10-14 23:59:59"; do
  want=$(git -C "$R" log --format=%s --since="$w" --until="2026-11-01 00:00:00")
  expect_out "TZ=America/Los_Angeles --since '$w' as git" "$want" \
    sh -c "'$Q' tool get_commits --repo '$R' --since '$w' --until '2026-11-01 00:00:00' --format json | grep -o '\"subject\":\"[^\"]*\"' | cut -d'\"' -f4"
done
expect_out "the 00:30 PDT commit is found from 00:00 that day" "00:30 PDT on 2026-10-15" \
  sh -c "'$Q' tool get_commits --repo '$R' --since '2026-10-15 00:00:00' --until '2026-10-16' --format json | grep -o '\"subject\":\"[^\"]*\"' | cut -d'\"' -f4"
expect_out "a bare date is 00:00 local on that date" "00:30 PDT on 2026-10-15" \
  sh -c "'$Q' tool get_commits --repo '$R' --since '2026-10-15' --until '2026-10-16' --format json | grep -o '\"subject\":\"[^\"]*\"' | cut -d'\"' -f4"
expect_out "and not from 00:30:01" "" \
  sh -c "'$Q' tool get_commits --repo '$R' --since '2026-10-15 00:30:01' --until '2026-10-16' --format json | grep -o '\"subject\":\"[^\"]*\"' | cut -d'\"' -f4"
expect_out "git agrees" "00:30 PDT on 2026-10-15" git -C "$R" log --format=%s --since='2026-10-15 00:00:00' --until='2026-10-16'
# "this month" in November began at 00:00 PDT (07:00Z), before the change at 02:00
expect_out "this month, read in November PST" "on the 24th" \
  sh -c "QUARRY_NOW='2026-11-24 12:00:00' '$Q' tool get_commits --repo '$R' --since 'this month' --format json | grep -o '\"subject\":\"[^\"]*\"' | cut -d'\"' -f4"

finish
