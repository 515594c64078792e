# 03_git.sh: the git tools against repositories built here with git (several authors, a
# .mailmap with case differences, merges, a rename, a binary file, a type change, an empty
# commit, non-UTF-8 and quoted paths, a path with a tab, commit dates out of order, equal
# commit dates on two branches, an empty repository, a shallow clone, a bare clone). Each
# result is compared with what git prints for the same question: `git log` for commits
# and their order under every filter, `git log --numstat --no-renames` for line counts,
# `git shortlog -sne` for authors, `git log --follow` for file history, `git diff` for
# diffs. Numbers are summed with awk; quarry's side is printed by Lisp programs.
. "$(dirname "$0")/lib.sh"

if ! command -v git >/dev/null 2>&1; then
  echo "skipped: git is not installed"
  exit 77
fi

# a clean git: no user or system configuration, no repository from the environment
export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_AUTHOR_NAME \
  GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE
mkdir -p "$HOME"

R="$TMP/repo"

# at NAME EMAIL DATE GIT-ARGS...: runs git in $R as that person at that date
at() {
  n=$1 e=$2 d=$3; shift 3
  GIT_AUTHOR_NAME=$n GIT_AUTHOR_EMAIL=$e GIT_AUTHOR_DATE=$d \
  GIT_COMMITTER_NAME=$n GIT_COMMITTER_EMAIL=$e GIT_COMMITTER_DATE=$d git -C "$R" "$@"
}

git init -q -b main "$R"
git -C "$R" config commit.gpgsign false
mkdir -p "$R/src" "$R/bin" "$R/docs" "$R/dir with space"
printf 'quarry fixture\nline two\nline three\n' > "$R/README.md"
i=1; while [ $i -le 10 ]; do echo "int line$i;"; i=$((i + 1)); done > "$R/src/main.c"
printf '\211PNG\r\n\032\n\000\001\002' > "$R/bin/logo.png"
printf 'quoted\n' > "$R/docs/a \"quoted\" name.txt"
CAFE="docs/$(printf 'caf\351').txt"   # Latin-1, not UTF-8
# shown: git's raw paths as quarry shows them: a name that is not UTF-8 in C-quoted form
shown() { sed "s|$CAFE|\"docs/caf\\\\351.txt\"|"; }
printf 'caf\n' > "$R/$CAFE"
printf 'one\n' > "$R/dir with space/file one.txt"
printf 'tab\n' > "$R/docs/$(printf 'tab\there').txt"
printf 'Ann Author <ann@example.com>\nAnn Author <ann@example.com> <ann.old@EXAMPLE.com>\n' > "$R/.mailmap"
git -C "$R" add -A
at Ann ann@example.com 2024-01-01T10:00:00Z commit -q -m "Initial import"
printf 'int added1;\nint added2;\n' >> "$R/src/main.c"
sed 's/int line3;/int line3_changed;/' "$R/src/main.c" > "$TMP/main.c" && mv "$TMP/main.c" "$R/src/main.c"
i=1; while [ $i -le 8 ]; do echo "util $i"; i=$((i + 1)); done > "$R/src/util.c"
git -C "$R" add -A
at Bob bob@example.com "2024-01-02T09:00:00+0200" commit -q -m "Add util and grow main"
printf 'line four\n' >> "$R/README.md"
at "Ann Old" Ann.Old@example.com 2024-01-03T11:00:00Z commit -q -am "Fix README wording" -m "A longer body
with two lines."
at Carol carol@example.com 2024-01-04T08:00:00Z checkout -q -b feature
printf 'feature\nmore\n' > "$R/src/feature.c"
git -C "$R" add -A
at Carol carol@example.com 2024-01-04T08:00:00Z commit -q -m "Start feature"
printf 'even more\n' >> "$R/src/feature.c"
at Carol carol@example.com 2024-01-06T08:00:00Z commit -q -am "fix: feature edge case"
at Bob bob@example.com 2024-01-05T09:00:00Z checkout -q main
git -C "$R" mv src/util.c src/helpers.c
printf 'helpers\n' >> "$R/src/helpers.c"
at Bob bob@example.com 2024-01-05T09:00:00Z commit -q -am "Rename util to helpers"
at Dave dave@example.com 2024-01-07T12:00:00-0500 merge -q --no-ff --no-edit -m "Merge feature" feature
printf 'requoted\n' >> "$R/docs/a \"quoted\" name.txt"
printf '\211PNG\r\n\032\n\000\003' > "$R/bin/logo.png"
at Ann ann@example.com 2023-12-25T10:00:00Z commit -q -am "Back-dated change"
rm "$R/dir with space/file one.txt"
ln -s ../README.md "$R/dir with space/file one.txt"
git -C "$R" add -A
at Bob bob@example.com 2024-01-08T10:00:00Z commit -q -m "Make file one a symlink"
at Eve eve@example.com 2024-01-09T10:00:00Z commit -q --allow-empty -m "Empty commit"
printf 'cafe\n' >> "$R/$CAFE"
git -C "$R" rm -q bin/logo.png
at Ann ann@example.com 2024-01-10T10:00:00Z commit -q -am "Remove logo, touch cafe"
printf 'int after;\n' >> "$R/src/helpers.c"
at Bob bob@example.com 2024-01-11T10:00:00Z commit -q -am "Grow helpers"
at Eve eve@example.com 2024-01-12T10:00:00Z checkout -q -b topic
printf 'topic 1\n' > "$R/topic.txt"
git -C "$R" add topic.txt
at Eve eve@example.com 2024-01-12T10:00:00Z commit -q -m "Topic one"
printf 'topic 2\n' >> "$R/topic.txt"
at Eve eve@example.com 2024-01-12T10:00:00Z commit -q -am "Topic two"
at Bob bob@example.com 2024-01-12T10:00:00Z checkout -q main
printf 'int same_time;\n' >> "$R/src/main.c"
at Bob bob@example.com 2024-01-12T10:00:00Z commit -q -am "Same time on main"
at Dave dave@example.com 2024-01-12T10:00:00Z merge -q --no-ff --no-edit -m "Merge topic" topic

# ql REPO PROGRAM: runs a Lisp program that prints lines; drops the final value (nil)
ql() { "$Q" lisp --repo "$1" -e "$2" | sed '$d'; }
# per-commit totals as git log --numstat prints them: "hash files additions deletions"
totals() {
  awk '/^C / { if (h) print h, f, a, d; h = $2; f = a = d = 0; next }
       NF == 0 { next }
       { f++; if ($1 != "-") { a += $1; d += $2 } }
       END { if (h) print h, f, a, d }'
}
PTOT='(doseq [c (tool/get_commits %s)] (println (str (:hash c) " " (:files c) " " (:additions c) " " (:deletions c))))'
ptot() { printf "$PTOT" "$1"; }

# ---- commits, their order, and per-commit line counts ----
check_totals() { # description, quarry params, git log args...
  desc=$1 params=$2; shift 2
  want=$(git -C "$R" log --numstat --no-renames --format='C %H' "$@" | totals)
  expect_out "totals: $desc" "$want" ql "$R" "$(ptot "$params")"
}
check_totals "whole history" '{}'
check_totals "first parent (merges carry their first-parent diff)" '{:first_parent true}' --first-parent
check_totals "path src" '{:path "src"}' -- src
check_totals "path glob *.c" '{:path "*.c"}' -- '*.c'
check_totals "path with spaces" '{:path "dir with space"}' -- 'dir with space'
check_totals "no merges" '{:merges "exclude"}' --no-merges
check_totals "ref feature" '{:ref "feature"}' feature
check_totals "first parent and path" '{:first_parent true :path "src"}' --first-parent -- src

PHASH='(doseq [c (tool/get_commits %s)] (println (:hash c)))'
check_order() { # description, quarry params, git log args...
  desc=$1 params=$2; shift 2
  want=$(git -C "$R" log --format=%H "$@")
  expect_out "commits: $desc" "$want" ql "$R" "$(printf "$PHASH" "$params")"
}
check_order "all, equal dates in git's order" '{}'
check_order "since cuts the walk at an out-of-order date" '{:since "2024-01-02T00:00:00Z"}' --since=2024-01-02T00:00:00Z
check_order "since before the out-of-order date" '{:since "2023-12-30T00:00:00Z"}' --since=2023-12-30T00:00:00Z
check_order "until" '{:until "2024-01-05T00:00:00Z"}' --until=2024-01-05T00:00:00Z
check_order "since and until" '{:since "2024-01-03T00:00:00Z" :until "2024-01-09T00:00:00Z"}' --since=2024-01-03T00:00:00Z --until=2024-01-09T00:00:00Z
check_order "epoch since" '{:since "@1704800000"}' --since=@1704800000
check_order "path: directory" '{:path "src"}' -- src
check_order "path: directory with slash" '{:path "src/"}' -- src/
check_order "path: file renamed here" '{:path "src/helpers.c"}' -- src/helpers.c
check_order "path: glob" '{:path "*.c"}' -- '*.c'
check_order "path: glob in a directory" '{:path "docs/*.txt"}' -- 'docs/*.txt'
check_order "path: a file on a merged branch" '{:path "src/feature.c"}' -- src/feature.c
check_order "path: README" '{:path "README.md"}' -- README.md
check_order "path: quoted name" '{:path "docs/a \"quoted\" name.txt"}' -- 'docs/a "quoted" name.txt'
check_order "path: absent" '{:path "nothing/here"}' -- nothing/here
check_order "path and since (filtered, as --since-as-filter)" '{:path "src" :since "2024-01-04T00:00:00Z"}' --since-as-filter=2024-01-04T00:00:00Z -- src
check_order "merges only" '{:merges "only"}' --merges
check_order "no merges" '{:merges "exclude"}' --no-merges
check_order "first parent" '{:first_parent true}' --first-parent
check_order "author, any case, mapped" '{:author "ann"}' -i --author=ann
check_order "author email part" '{:author "BOB@"}' -i --author=bob@
check_order "grep, any case" '{:grep "fix"}' -i --grep=fix
check_order "grep, regular expression" '{:grep "^(start|topic) "}' -i -E --grep='^(start|topic) '
check_order "limit" '{:limit 3}' -n 3
check_order "limit with a filter" '{:limit 2 :merges "exclude"}' -n 2 --no-merges
check_order "ref: branch" '{:ref "feature"}' feature
check_order "ref: revision" '{:ref "HEAD~3"}' HEAD~3
check_order "ref: commit id" "{:ref \"$(git -C "$R" rev-parse HEAD~2)\"}" HEAD~2

expect_out "count in the Lisp = git rev-list --count" "$(git -C "$R" rev-list --count HEAD)" \
  "$Q" lisp --repo "$R" -e '(count (tool/get_commits {}))'

# fields of one commit: author through .mailmap, dates, subject (first paragraph), parents
H=$(git -C "$R" log --format=%H --grep='^Fix README')
want=$(git -C "$R" log -1 --format='%H|%h|%aN|%aE|%aI|%at|%s|%P' "$H")
expect_out "commit fields as git log prints them" "$want" ql "$R" \
  "(let [c (first (tool/get_commits {:ref \"$H\" :limit 1}))] (println (str (:hash c) \"|\" (:short_hash c) \"|\" (:author c) \"|\" (:email c) \"|\" (:date c) \"|\" (:timestamp c) \"|\" (:subject c) \"|\" (first (:parents c)))))"
expect_out "message: the whole message" "Fix README wording

A longer body
with two lines." ql "$R" "(println (:message (first (tool/get_commits {:ref \"$H\" :limit 1}))))"
MERGE=$(git -C "$R" rev-parse HEAD)
expect_out "a merge lists its parents" "$(git -C "$R" log -1 --format=%P "$MERGE")" ql "$R" \
  "(println (clojure.string/join \" \" (:parents (first (tool/get_commits {:limit 1})))))"

# with_paths: every file with its status and counts, as --numstat and --name-status give
want=$(git -C "$R" -c core.quotePath=false log --no-renames --raw --numstat -z --format='C %H' |
  tr '\0' '\n' | awk -F'\t' '
    /^C / { h = substr($0, 3); n = 0; m = 0; next }
    /^:/ { st[n++] = substr($0, length($0)); getline p; next }
    NF >= 3 { p = substr($0, length($1) + length($2) + 3)
              a = $1 == "-" ? 0 : $1; d = $2 == "-" ? 0 : $2
              print h "|" p "|" st[m++] "|" a "|" d }' | shown)
expect_out "with_paths: paths, statuses and counts" "$want" ql "$R" \
  '(doseq [c (tool/get_commits {:with_paths true}) p (:paths c)] (println (str (:hash c) "|" (:path p) "|" (:status p) "|" (:additions p) "|" (:deletions p))))'

# ---- authors ----
want=$(git -C "$R" shortlog -sne HEAD | awk -F'\t' '{ sub(/^ +/, "", $1); print $1 " " $2 }')
expect_out "authors: git shortlog -sne" "$want" ql "$R" \
  '(doseq [a (tool/get_author_stats {})] (println (str (:commits a) " " (:author a) " <" (:email a) ">")))'
want=$(git -C "$R" shortlog -sne --no-merges HEAD -- src | awk -F'\t' '{ sub(/^ +/, "", $1); print $1 " " $2 }')
expect_out "authors: shortlog without merges, in src" "$want" ql "$R" \
  '(doseq [a (tool/get_author_stats {:merges "exclude" :path "src"})] (println (str (:commits a) " " (:author a) " <" (:email a) ">")))'
want=$(git -C "$R" -c core.quotePath=false log --numstat --no-renames -z --format='C %aE' | tr '\0' '\n' |
  awk -F'\t' '/^C / { e = substr($0, 3); c[e] += 0; next }
    NF >= 3 { p = substr($0, length($1) + length($2) + 3)
              if ($1 != "-") { a[e] += $1; d[e] += $2 }
              if (!((e, p) in seen)) { seen[e, p] = 1; f[e]++ } }
    END { for (e in c) print e, a[e] + 0, d[e] + 0, f[e] + 0 }' | sort)
expect_out "authors: lines and distinct files per email" "$want" sh -c \
  "\"$Q\" lisp --repo \"$R\" -e '(doseq [a (tool/get_author_stats {})] (println (str (:email a) \" \" (:additions a) \" \" (:deletions a) \" \" (:files a))))' | sed '\$d' | sort"
expect_out "authors: first and last author dates" "2023-12-25T10:00:00+00:00 2024-01-10T10:00:00+00:00" ql "$R" \
  '(let [a (first (filter #(= (:email %) "ann@example.com") (tool/get_author_stats {})))] (println (str (:first a) " " (:last a))))'
expect_out "authors: limit keeps the top" "2" "$Q" lisp --repo "$R" -e '(count (tool/get_author_stats {:limit 2}))'

# ---- files ----
want=$(git -C "$R" -c core.quotePath=false log --numstat --no-renames -z --format='C %aE' | tr '\0' '\n' |
  awk -F'\t' '/^C / { e = substr($0, 3); next }
    NF >= 3 { p = substr($0, length($1) + length($2) + 3); c[p]++
              if ($1 != "-") { a[p] += $1; d[p] += $2 }
              if (!((p, e) in seen)) { seen[p, e] = 1; u[p]++ } }
    END { for (p in c) print p "|" c[p] "|" a[p] + 0 "|" d[p] + 0 "|" u[p] }' | shown | sort)
expect_out "files: commits, lines, authors per path (non-UTF-8 quoted)" "$want" sh -c \
  "\"$Q\" lisp --repo \"$R\" -e '(doseq [f (tool/get_file_stats {})] (println (str (:path f) \"|\" (:commits f) \"|\" (:additions f) \"|\" (:deletions f) \"|\" (:authors f))))' | sed '\$d' | sort"
expect_out "files: sorted by commits" "src/main.c" ql "$R" '(println (:path (first (tool/get_file_stats {}))))'
expect_out "files: path limits them" "src/feature.c src/helpers.c src/main.c src/util.c" ql "$R" \
  '(println (clojure.string/join " " (sort (map :path (tool/get_file_stats {:path "src"})))))'

# ---- file history, following renames ----
for f in src/helpers.c README.md "$CAFE" 'docs/a "quoted" name.txt' topic.txt; do
  want=$(git -C "$R" -c core.quotePath=false log --follow --numstat -z --format='C %H' -- "$f" | tr '\0' '\n' |
    awk -F'\t' '/^C / { h = substr($0, 3); next } NF >= 3 { print h, $1 == "-" ? 0 : $1, $2 == "-" ? 0 : $2 }')
  expect_out "history: $f" "$want" ql "$R" \
    "(doseq [c (tool/get_file_history {:path \"$(printf '%s' "$f" | sed 's/"/\\"/g')\"})] (println (str (:hash c) \" \" (:additions c) \" \" (:deletions c))))"
done
expect_out "history: names across the rename" "src/helpers.c src/helpers.c src/util.c" ql "$R" \
  '(println (clojure.string/join " " (map :path (tool/get_file_history {:path "src/helpers.c"}))))'
expect_out "history: the rename's old name" "src/util.c" ql "$R" \
  '(println (:old_path (second (tool/get_file_history {:path "src/helpers.c"}))))'
expect_out "history: a file that never existed" "[]" "$Q" tool get_file_history --repo "$R" --path no/such --format edn

# ---- diffs ----
want=$(git -C "$R" diff --numstat --no-renames HEAD~6 HEAD | awk '{ f++; if ($1 != "-") { a += $1; d += $2 } } END { print f, a, d }')
expect_out "diff: from/to totals = git diff --numstat" "$want" ql "$R" \
  '(let [d (tool/get_diff_stats {:from "HEAD~6" :to "HEAD"})] (println (str (:files d) " " (:additions d) " " (:deletions d))))'
want=$(git -C "$R" -c core.quotePath=false diff --name-status --no-renames HEAD~6 HEAD | awk -F'\t' '{ print $2 "|" $1 }' | shown | sort)
expect_out "diff: statuses = git diff --name-status" "$want" sh -c \
  "\"$Q\" lisp --repo \"$R\" -e '(doseq [p (:paths (tool/get_diff_stats {:from \"HEAD~6\"}))] (println (str (:path p) \"|\" (:status p))))' | sed '\$d' | sort"
want=$(git -C "$R" log --numstat --no-renames --format='C %H' -n 5 | totals | awk '{ a += $3; d += $4 } END { print a, d }')
expect_out "diff: commits mode sums their own changes" "$want" ql "$R" \
  '(let [d (tool/get_diff_stats {:commits (map :hash (tool/get_commits {:limit 5}))})] (println (str (:additions d) " " (:deletions d))))'
expect_out "diff: commits mode keyed by hash" "$(git -C "$R" log --numstat --no-renames --format='C %H' -n 3 | totals | awk 'NR == 3 { print $3 }')" ql "$R" \
  '(let [cs (tool/get_commits {:limit 3}) d (tool/get_diff_stats {:commits (map :hash cs)})] (println (:additions (get (:commits d) (:hash (nth cs 2))))))'

# ---- the index: same answers with and without it, kept under the git directory ----
rm -rf "$R/.git/quarry"
"$Q" tool get_commits --repo "$R" --no-index --format edn --limit-output 0 > "$TMP/noindex.edn" 2>/dev/null
expect_out "--no-index writes no index" "no" sh -c "test -e '$R/.git/quarry/index.db' && echo yes || echo no"
"$Q" tool get_commits --repo "$R" --format edn --limit-output 0 > "$TMP/cold.edn" 2>/dev/null
expect_out "the index is created under .git/quarry" "yes" sh -c "test -e '$R/.git/quarry/index.db' && echo yes || echo no"
"$Q" tool get_commits --repo "$R" --format edn --limit-output 0 > "$TMP/warm.edn" 2>/dev/null
expect_out "index cold = no index" "" sh -c "cmp '$TMP/noindex.edn' '$TMP/cold.edn'"
expect_out "index warm = no index" "" sh -c "cmp '$TMP/noindex.edn' '$TMP/warm.edn'"

# ---- output forms, discovery, other repositories ----
"$Q" tool get_commits --repo "$R" --format json --limit-output 0 > "$TMP/commits.json"
printf '{"commits": %s}' "$(cat "$TMP/commits.json")" > "$TMP/wrapped.json"
expect_out "JSON output reads back" "$(git -C "$R" rev-list --count HEAD)" \
  "$Q" lisp --data "$TMP/wrapped.json" -e '(count data/commits)'
expect_out "the repository of the working directory" "$(git -C "$R" rev-list --count HEAD)" \
  sh -c "cd '$R/src' && '$Q' lisp -e '(count (tool/get_commits {}))'"
"$Q" tool get_commits --repo "$R" --format json --limit-output 5 > "$TMP/five.json" 2>/dev/null
printf '{"c": %s}' "$(cat "$TMP/five.json")" > "$TMP/five2.json"
expect_out "tool output is capped for people" "5" "$Q" lisp --data "$TMP/five2.json" -e '(count data/c)'
expect_err "the cut is announced" "more rows left out" "$Q" tool get_commits --repo "$R" --format json --limit-output 5

S="$TMP/shallow"
git clone -q --depth 4 "file://$R" "$S"
want=$(git -C "$S" log --numstat --no-renames --format='C %H' | totals)
expect_out "shallow clone: boundary commits diff against the empty tree" "$want" ql "$S" "$(ptot '{}')"
want=$(git -C "$S" shortlog -sne HEAD | awk -F'\t' '{ sub(/^ +/, "", $1); print $1 " " $2 }')
expect_out "shallow clone: shortlog" "$want" ql "$S" \
  '(doseq [a (tool/get_author_stats {})] (println (str (:commits a) " " (:author a) " <" (:email a) ">")))'
expect_out "shallow clone: boundary commits have no parents" "$(git -C "$S" log --format='%h:%p')" ql "$S" \
  '(doseq [c (tool/get_commits {})] (println (str (:short_hash c) ":" (clojure.string/join " " (map #(subs % 0 7) (:parents c))))))'

B="$TMP/bare.git"
git clone -q --bare "$R" "$B"
want=$(git -C "$B" shortlog -sne HEAD | awk -F'\t' '{ sub(/^ +/, "", $1); print $1 " " $2 }')
expect_out "bare clone: .mailmap read from HEAD" "$want" ql "$B" \
  '(doseq [a (tool/get_author_stats {})] (println (str (:commits a) " " (:author a) " <" (:email a) ">")))'

E="$TMP/empty"
git init -q "$E"
for t in get_commits get_author_stats get_file_stats; do
  expect_out "empty repository: $t" "[]" "$Q" tool $t --repo "$E" --format edn
done
expect_out "empty repository: get_file_history" "[]" "$Q" tool get_file_history --repo "$E" --path x --format edn
expect_out "empty repository: count" "0" "$Q" lisp --repo "$E" -e '(count (tool/get_commits {}))'

# ---- get_tags: the tags newest first (git tag --sort=-creatordate), annotated or not ----
git -C "$R" tag v0.1 HEAD~2
at Ann ann@example.com 2024-03-01T10:00:00Z tag -a v0.2 -m "Release 0.2" HEAD
tags_q() { "$Q" tool get_tags --repo "$R" "$@" --format json | python3 -c '
import json, sys
print(" ".join(t["name"] + ("+" if t["annotated"] else "") for t in json.load(sys.stdin)))'; }
want_tags=$(git -C "$R" tag --sort=-creatordate | while read -r t; do
  if [ "$(git -C "$R" cat-file -t "$t")" = tag ]; then printf '%s+ ' "$t"; else printf '%s ' "$t"; fi
done | sed 's/ $//')
expect_out "get_tags: newest first, annotated marked" "$want_tags" tags_q
expect_out "get_tags: pattern and limit" "v0.2+" tags_q --pattern 'v0.*' --limit 1
expect_out "get_tags: the commit a tag names" "$(git -C "$R" rev-parse v0.1^{commit})" \
  sh -c "'$Q' tool get_tags --repo '$R' --pattern v0.1 --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0][\"hash\"])'"
expect_out "get_tags: an annotated tag's subject is its message's" "Release 0.2" \
  sh -c "'$Q' tool get_tags --repo '$R' --pattern v0.2 --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0][\"subject\"])'"
expect_out "get_tags: no tags matched" "[]" "$Q" tool get_tags --repo "$R" --pattern 'nope*' --format edn
git -C "$R" tag -d v0.1 v0.2 >/dev/null

# ---- errors: one line, exit 2 (bad input) ----
mkdir -p "$TMP/plain"
expect_rc "not a repository: exit 2" 2 "$Q" tool get_commits --repo "$TMP/plain"
expect_err "not a repository: message" "not a git repository: '" "$Q" tool get_commits --repo "$TMP/plain"
expect_rc "unknown ref: exit 2" 2 "$Q" tool get_commits --repo "$R" --ref no-such-branch
expect_err "unknown ref: message" "unknown ref 'no-such-branch'" "$Q" tool get_commits --repo "$R" --ref no-such-branch
expect_rc "bad date: exit 2" 2 "$Q" tool get_commits --repo "$R" --since "next blursday"
expect_err "bad date: lists the accepted forms" "parameter 'since': cannot parse date 'next blursday': expected ISO-8601" "$Q" tool get_commits --repo "$R" --since "next blursday"
expect_rc "unknown parameter: exit 2" 2 "$Q" tool get_commits --repo "$R" --sinse "1 week ago"
expect_err "unknown parameter: suggestion" "did you mean 'since'?" "$Q" tool get_commits --repo "$R" --sinse "1 week ago"
expect_rc "wrong type: exit 2" 2 "$Q" tool get_commits --repo "$R" --limit many
expect_rc "bad grep: exit 2" 2 "$Q" tool get_commits --repo "$R" --grep '('
expect_rc "file history needs a path" 2 "$Q" tool get_file_history --repo "$R"
expect_rc "diff stats needs from or commits" 2 "$Q" tool get_diff_stats --repo "$R"
expect_rc "diff stats: unknown commit in the list" 2 "$Q" tool get_diff_stats --repo "$R" --commits deadbeef
expect_out "errors are one line" "1" sh -c "'$Q' tool get_commits --repo '$R' --ref nope 2>&1 >/dev/null | wc -l | tr -d ' '"
expect_rc "in the Lisp a tool error fails the program (exit 1)" 1 "$Q" lisp --repo "$R" -e '(tool/get_commits {:ref "nope"})'
expect_err "in the Lisp the message names the tool" "tool 'get_commits': unknown ref 'nope'" "$Q" lisp --repo "$R" -e '(tool/get_commits {:ref "nope"})'
expect_err "JSON errors with --format json" '{"error":{"kind":"usage","message":"tool '"'"'get_commits'"'"': unknown ref '"'"'nope'"'"'' "$Q" tool get_commits --repo "$R" --ref nope --format json
finish
