# 04_index.sh: `quarry index` and `quarry index --status` against repositories built here
# with git (several authors, merges, a rename, a tag, a branch HEAD does not reach,
# commit dates out of order, an empty repository): the status before and after, counts
# compared with `git rev-list --all`, a second run that computes nothing, new commits
# indexed incrementally, a damaged index.db moved aside and rebuilt with a warning, the
# tools' answers identical with the index (built by `quarry index`, by the tools
# themselves, or partly) and without it (--no-index), a complete index that needs no git
# at all, and the errors.
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
at() { # at NAME EMAIL DATE GIT-ARGS...
  n=$1 e=$2 d=$3; shift 3
  GIT_AUTHOR_NAME=$n GIT_AUTHOR_EMAIL=$e GIT_AUTHOR_DATE=$d \
  GIT_COMMITTER_NAME=$n GIT_COMMITTER_EMAIL=$e GIT_COMMITTER_DATE=$d git -C "$R" "$@"
}
git init -q -b main "$R"
git -C "$R" config commit.gpgsign false
mkdir -p "$R/src"
printf 'one\ntwo\n' > "$R/README"
printf 'int a;\n' > "$R/src/a.c"
printf 'Ann Author <ann@example.com> <ann.old@example.com>\n' > "$R/.mailmap"
git -C "$R" add -A
at Ann ann@example.com 2024-02-01T10:00:00Z commit -q -m "Initial"
printf 'int b;\n' >> "$R/src/a.c"
at "Ann Old" ann.old@example.com 2024-02-02T10:00:00Z commit -q -am "Grow a"
at Bob bob@example.com 2024-02-03T10:00:00Z checkout -q -b feature
printf 'f\n' > "$R/src/f.c"
git -C "$R" add src/f.c
at Bob bob@example.com 2024-02-03T10:00:00Z commit -q -m "Feature"
printf 'g\n' >> "$R/src/f.c"
at Bob bob@example.com 2024-01-20T10:00:00Z commit -q -am "Back-dated feature fix"
at Ann ann@example.com 2024-02-04T10:00:00Z checkout -q main
git -C "$R" mv README README.md
at Carol carol@example.com 2024-02-05T10:00:00Z commit -q -m "Rename README"
at Dave dave@example.com 2024-02-06T10:00:00Z merge -q --no-ff --no-edit -m "Merge feature" feature
at Dave dave@example.com 2024-02-06T10:00:00Z tag -a v1 -m "one"
at Eve eve@example.com 2024-02-07T10:00:00Z checkout -q -b topic
printf 'topic\n' > "$R/topic.txt"
git -C "$R" add topic.txt
at Eve eve@example.com 2024-02-07T10:00:00Z commit -q -m "Unmerged topic"
at Ann ann@example.com 2024-02-08T10:00:00Z checkout -q main
printf 'three\n' >> "$R/README.md"
at Ann ann@example.com 2024-02-08T10:00:00Z commit -q -am "More README"

IX="$R/.git/quarry/index.db"
ALL=$(git -C "$R" rev-list --all --count)
NOMERGE=$(git -C "$R" rev-list --all --no-merges --count)
MERGES=$((ALL - NOMERGE))
# json_field FIELD: the value of FIELD in the one-line JSON object on stdin
json_field() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p"; }

# ---- help, usage, errors ----
expect_rc "--help: exit 0" 0 "$Q" index --help
expect_out "--help tells what --status reports" "1" sh -c "'$Q' index --help | grep -c -- '--status  '"
expect_rc "quarry help index" 0 "$Q" help index
expect_rc "unknown option: exit 2" 2 "$Q" index --bogus
expect_rc "bad format: exit 2" 2 "$Q" index --repo "$R" --format yaml
mkdir -p "$TMP/plain"
expect_rc "not a repository: exit 2" 2 "$Q" index --repo "$TMP/plain"
expect_err "not a repository: message" "not a git repository: '" "$Q" index --repo "$TMP/plain"
expect_out "not a repository: one line" "1" sh -c "'$Q' index --repo '$TMP/plain' 2>&1 >/dev/null | wc -l | tr -d ' '"
expect_err "not a repository: JSON with --format json" '{"error":{"kind":"usage","message":"not a git repository' \
  "$Q" index --repo "$TMP/plain" --format json
expect_rc "status of a plain directory: exit 2" 2 "$Q" index --repo "$TMP/plain" --status

# ---- status before: nothing built, nothing created ----
expect_out "status before: not built" "index:           $IX (not built yet)" sh -c "'$Q' index --repo '$R' --status | head -1"
"$Q" index --repo "$R" --status --format json > "$TMP/s0.json"
expect_out "status before: JSON" \
  "{\"path\":\"$IX\",\"exists\":false,\"schema_version\":null,\"indexed\":0,\"reachable\":$ALL,\"unstored\":$MERGES,\"missing\":$NOMERGE,\"bytes\":0}" \
  cat "$TMP/s0.json"
expect_out "status creates no index" "no" sh -c "test -e '$R/.git/quarry' && echo yes || echo no"

# ---- building: one line, then a run that finds nothing to do ----
"$Q" index --repo "$R" > "$TMP/build1" 2> "$TMP/build1.err"
expect_out "build: exit 0, stderr quiet (not a terminal)" "" cat "$TMP/build1.err"
expect_out "build: one summary line" "indexed $NOMERGE commits in S s; $NOMERGE in the index" \
  sed 's/in [0-9]*\.[0-9][0-9] s;/in S s;/' "$TMP/build1"
"$Q" index --repo "$R" --status --format json > "$TMP/s1.json"
expect_out "status after: JSON" \
  "{\"path\":\"$IX\",\"exists\":true,\"schema_version\":3,\"indexed\":$NOMERGE,\"reachable\":$ALL,\"unstored\":$MERGES,\"missing\":0,\"bytes\":B}" \
  sed 's/"bytes":[1-9][0-9]*}/"bytes":B}/' "$TMP/s1.json"
expect_out "status after: text" "commits indexed: $NOMERGE
reachable:       $ALL ($MERGES of them merges or shallow boundaries, which carry no statistics)
missing:         0" sh -c "'$Q' index --repo '$R' --status | sed -n '3,5p'"
expect_out "second run: nothing to compute" "indexed 0 commits in S s; $NOMERGE in the index" \
  sh -c "'$Q' index --repo '$R' | sed 's/in [0-9]*\.[0-9][0-9] s;/in S s;/'"
expect_out "second run: JSON" "{\"indexed_now\":0,\"indexed\":$NOMERGE,\"seconds\":S}" \
  sh -c "'$Q' index --repo '$R' --format json | sed 's/\"seconds\":[0-9.]*/\"seconds\":S/'"
expect_out "second run: same status" "$(sed 's/"bytes":[0-9]*//' "$TMP/s1.json")" \
  sh -c "'$Q' index --repo '$R' --status --format json | sed 's/\"bytes\":[0-9]*//'"
expect_out "the working directory's repository" "indexed 0 commits" \
  sh -c "cd '$R/src' && '$Q' index | cut -d' ' -f1-3"

# ---- a complete index needs no git: every statistic is read from it ----
mkdir -p "$TMP/nogit"
expect_out "complete index: author stats without git in PATH" \
  "$("$Q" tool get_author_stats --repo "$R" --no-index --format json)" \
  env PATH="$TMP/nogit" "$Q" tool get_author_stats --repo "$R" --format json

# ---- the same answers with and without the index ----
same_answers() { # label: every window of author and file stats, index vs --no-index
  for args in "" "--since 2024-02-03" "--until 2024-02-04T00:00:00Z" "--author ann" \
      "--merges exclude" "--merges only" "--first_parent" "--ref feature" "--ref topic" \
      "--path src" "--since 2024-02-02 --merges exclude --author bob" "--limit 2"; do
    for t in get_author_stats get_file_stats; do
      # shellcheck disable=SC2086
      want=$("$Q" tool $t --repo "$R" --no-index --format json --limit-output 0 $args 2>&1)
      # shellcheck disable=SC2086
      expect_out "$1: $t $args" "$want" "$Q" tool $t --repo "$R" --format json --limit-output 0 $args
    done
  done
}
same_answers "index built by quarry index"
rm -rf "$R/.git/quarry"
same_answers "index built by the tools as they go"

# ---- new commits: found missing, computed alone; a partly filled graph ----
printf 'int c;\n' >> "$R/src/a.c"
at Bob bob@example.com 2024-02-09T10:00:00Z commit -q -am "Grow a again"
printf 'four\n' >> "$R/README.md"
at Carol carol@example.com 2024-02-10T10:00:00Z commit -q -am "Four"
expect_out "new commits: missing" "2" sh -c "'$Q' index --repo '$R' --status --format json | sed -n 's/.*\"missing\":\([0-9]*\).*/\1/p'"
same_answers "two commits the index lacks"
NOMERGE=$((NOMERGE + 2))
expect_out "new commits: only they are computed" "indexed 0 commits; $NOMERGE in the index" \
  sh -c "'$Q' index --repo '$R' | sed 's/ in [0-9.]* s;/;/'"
printf 'five\n' >> "$R/README.md"
at Carol carol@example.com 2024-02-11T10:00:00Z commit -q -am "Five"
NOMERGE=$((NOMERGE + 1))
expect_out "quarry index computes what the tools did not" "indexed 1 commit; $NOMERGE in the index" \
  sh -c "'$Q' index --repo '$R' | sed 's/ in [0-9.]* s;/;/'"

# ---- a damaged index.db is moved aside and rebuilt, with a warning ----
printf 'this is not a database, only some bytes that look nothing like one....' > "$IX"
"$Q" index --repo "$R" > "$TMP/build2" 2> "$TMP/build2.err"; rc=$?
expect_out "damaged: exit 0" "0" echo "$rc"
expect_out "damaged: rebuilt from scratch" "indexed $NOMERGE commits; $NOMERGE in the index" \
  sed 's/ in [0-9.]* s;/;/' "$TMP/build2"
expect_out "damaged: one warning" "quarry: warning: statistics index '$IX' was damaged or from another version: moved aside and rebuilt" \
  cat "$TMP/build2.err"
expect_out "damaged: the old file kept aside" "1" sh -c "ls '$R/.git/quarry' | grep -c '^index.db.broken-'"
same_answers "a rebuilt index"
printf 'garbage again, garbage again, garbage again, garbage again, garbage!!' > "$IX"
expect_err "damaged: the tools warn too" "moved aside and rebuilt" \
  "$Q" tool get_author_stats --repo "$R" --format json
printf 'garbage once more, garbage once more, garbage once more, garbage!!!!' > "$IX"
expect_err "damaged: status warns and reports" "moved aside and rebuilt" "$Q" index --repo "$R" --status
expect_out "--no-index ignores a damaged index" "" sh -c \
  "printf 'junk junk junk junk junk junk junk junk junk junk junk junk junk junk' > '$IX' && '$Q' tool get_author_stats --repo '$R' --no-index --format json 2>&1 >/dev/null"

# ---- a repository with no commits ----
E="$TMP/empty"
git init -q "$E"
expect_out "empty repository: builds nothing" "indexed 0 commits; 0 in the index" \
  sh -c "'$Q' index --repo '$E' | sed 's/ in [0-9.]* s;/;/'"
expect_out "empty repository: status" "{\"path\":\"$E/.git/quarry/index.db\",\"exists\":true,\"schema_version\":3,\"indexed\":0,\"reachable\":0,\"unstored\":0,\"missing\":0,\"bytes\":B}" \
  sh -c "'$Q' index --repo '$E' --status --format json | sed 's/\"bytes\":[1-9][0-9]*}/\"bytes\":B}/'"
expect_out "empty repository: author stats" "[]" "$Q" tool get_author_stats --repo "$E" --format json

# ---- a bare clone: the index lives in the repository itself ----
B="$TMP/bare.git"
git clone -q --bare "$R" "$B"
expect_out "bare clone: builds" "indexed $(git -C "$B" rev-list --all --no-merges --count) commits" \
  sh -c "'$Q' index --repo '$B' | cut -d' ' -f1-3"
expect_out "bare clone: index under the repository" "yes" sh -c "test -e '$B/quarry/index.db' && echo yes || echo no"
finish
