# 17_git_parity.sh: places where quarry's git answers once differed from git's, each built
# here with git and compared with git's own output and with `--no-index`: a shallow clone
# made shallower after indexing, .gitattributes that change what git counts, non-UTF-8
# paths given back in their escaped form, a commit's `encoding` header, pathspecs with
# `..` and magic (icase, exclude, glob, literal, top), globs in get_file_history (and the
# merges it lists as git log -- FILE does), and
# ranges (A..B, A...B, ^A B) as `ref`. Dates are pinned; "now" is QUARRY_NOW.
. "$(dirname "$0")/lib.sh"

if ! command -v git >/dev/null 2>&1; then
  echo "skipped: git is not installed"
  exit 77
fi

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C QUARRY_NOW=2024-06-01T00:00:00Z
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_AUTHOR_NAME \
  GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_DATE
mkdir -p "$HOME"

# at DIR NAME DATE GIT-ARGS...: runs git in DIR as NAME at DATE
at() {
  d=$1 n=$2 t=$3; shift 3
  GIT_AUTHOR_NAME=$n GIT_AUTHOR_EMAIL="$n@example.com" GIT_AUTHOR_DATE=$t \
  GIT_COMMITTER_NAME=$n GIT_COMMITTER_EMAIL="$n@example.com" GIT_COMMITTER_DATE=$t git -C "$d" "$@"
}
# git_adds DIR LOG-ARGS...: the lines added as `git log --numstat` sums them ('-' is 0)
git_adds() {
  d=$1; shift
  git -C "$d" log --numstat --no-renames --format= "$@" | awk '$1 != "-" {s += $1} END {print s + 0}'
}
# ql DIR [OPTIONS] -e PROGRAM: a program's printed lines (without the nil it returns)
ql() {
  d=$1; shift
  "$Q" lisp --repo "$d" "$@" | sed '$d'
}
# q_adds DIR [--no-index] [ARGS...]: the same from quarry's get_commits
q_adds() {
  d=$1; shift
  "$Q" lisp --repo "$d" "$@" -e '(reduce + 0 (map :additions (tool/get_commits {})))'
}

# ---- a shallow clone made shallower keeps no stale lines for its new boundary ----
S="$TMP/deep"
git init -q -b main "$S"
i=1
while [ $i -le 30 ]; do
  printf 'line %s\n' $i >> "$S/f.txt"
  git -C "$S" add f.txt
  at "$S" ann "2024-01-01T00:00:$(printf %02d $i)Z" commit -q -m "c$i"
  i=$((i + 1))
done
SH="$TMP/shallow"
git clone -q --depth 20 "file://$S" "$SH"
expect_rc "index the depth-20 clone" 0 "$Q" index --repo "$SH"
git -C "$SH" fetch -q --depth 5
want=$(git_adds "$SH")
expect_out "git counts the new boundary against the empty tree" "30" echo "$want"
expect_out "a shallower clone: indexed answer equals git" "$want" q_adds "$SH"
expect_out "a shallower clone: --no-index equals git" "$want" q_adds "$SH" --no-index
git -C "$SH" fetch -q --depth 12
want=$(git_adds "$SH")
expect_out "deepened again: indexed answer equals git" "$want" q_adds "$SH"
expect_out "deepened again: --no-index equals git" "$want" q_adds "$SH" --no-index

# ---- .gitattributes that change what git counts ----
A="$TMP/attrs"
git init -q -b main "$A"
printf '<svg>\n<g/>\n</svg>\n' > "$A/logo.svg"
printf '{\n  "lock": 1\n}\n' > "$A/package-lock.json"
printf 'one\ntwo\n' > "$A/notes.txt"
git -C "$A" add -A
at "$A" ann 2024-02-01T10:00:00Z commit -q -m "Initial"
printf '<p/>\n' >> "$A/logo.svg"
printf '  "more": 2\n' >> "$A/package-lock.json"
at "$A" ann 2024-02-02T10:00:00Z commit -q -am "Grow"
# paths_of DIR [--no-index]: each commit's files as quarry counts them
paths_of() {
  d=$1; shift
  "$Q" lisp --repo "$d" "$@" -e '(doseq [c (tool/get_commits {:with_paths true}) p (:paths c)] (println (str (:short_hash c) " " (:path p) " " (:additions p) " " (:deletions p) " " (true? (:binary p)))))' | sed '$d'
}
# git_paths DIR: the same from git log --numstat ('-' is binary, counted 0)
git_paths() {
  git -C "$1" log --numstat --no-renames --format='C %h' | awk '
    /^C / { h = $2; next } NF >= 3 { b = $1 == "-" ? "true" : "false"
      print h, $3, ($1 == "-" ? 0 : $1), ($2 == "-" ? 0 : $2), b }'
}
expect_rc "index before the attributes" 0 "$Q" index --repo "$A"
printf '*.svg binary\npackage-lock.json -diff\n' > "$A/.gitattributes"
git -C "$A" add .gitattributes
at "$A" ann 2024-02-03T10:00:00Z commit -q -m "Attributes"
expect_out "git now counts the old svg as binary" "2" sh -c "git -C '$A' log --numstat --format= | grep -c '^-	-	logo.svg'"
want=$(git_paths "$A")
expect_out "attributes committed: indexed answer equals git" "$want" paths_of "$A"
expect_out "attributes committed: --no-index equals git" "$want" paths_of "$A" --no-index
expect_out "attributes committed: totals equal git" "$(git_adds "$A")" q_adds "$A"
# a macro defined in info/attributes, used by the work tree's file (uncommitted)
printf '[attr]nocount -diff\n' > "$A/.git/info/attributes"
printf 'notes.txt nocount\n' >> "$A/.gitattributes"
want=$(git_paths "$A")
expect_out "a macro in info/attributes: indexed answer equals git" "$want" paths_of "$A"
expect_out "a macro in info/attributes: --no-index equals git" "$want" paths_of "$A" --no-index
# back to no attributes in force (the file still tracked, deleted from the work tree):
# the lines come back, as git log does not read the index's copy
rm "$A/.gitattributes" "$A/.git/info/attributes"
want=$(git_paths "$A")
expect_out "attributes removed: indexed answer equals git" "$want" paths_of "$A"
# a comment or a text rule keeps the index: nothing is recomputed
printf '# just a comment\n*.txt text eol=lf\n' > "$A/.git/info/attributes"
before=$("$Q" index --repo "$A" --status --format json)
expect_out "a rule that cannot change a diff keeps the index" "$before" sh -c \
  "printf '# other\n' >> '$A/.git/info/attributes'; '$Q' index --repo '$A' --status --format json"
case $before in *'"missing":0'*) ;; *) echo "FAIL: the index lost commits to a comment: $before"; FAILS=$((FAILS + 1)) ;; esac
# diff.DRIVER.binary makes a driver's files binary
printf 'notes.txt diff=plain\n' > "$A/.git/info/attributes"
git -C "$A" config diff.plain.binary true
want=$(git_paths "$A")
expect_out "diff.<driver>.binary: indexed answer equals git" "$want" paths_of "$A"
git -C "$A" config --unset diff.plain.binary
rm -f "$A/.git/info/attributes"

# ---- a non-UTF-8 path: shown C-quoted, and the quoted form fed back matches ----
N="$TMP/names"
git init -q -b main "$N"
RAW="$(printf 'caf\351').txt"
printf 'x\n' > "$N/$RAW"
printf 'y\n' > "$N/plain.txt"
git -C "$N" add -A
at "$N" ann 2024-03-01T10:00:00Z commit -q -m "Names"
printf 'x2\n' >> "$N/$RAW"
at "$N" ann 2024-03-02T10:00:00Z commit -q -am "Touch cafe"
expect_out "the path is shown quoted (JSON)" '["\"caf\\351.txt\"","plain.txt"]' \
  "$Q" lisp --repo "$N" --format json -e '(vec (sort (map :path (tool/get_file_stats {}))))'
QUOTED='"caf\351.txt"'
want=$(git -C "$N" log --format=%h -- "$RAW" | tr '\n' ' ')
expect_out "the quoted form as path: get_commits equals git" "$want" sh -c \
  "'$Q' tool get_commits --repo '$N' --path '$QUOTED' --format json | grep -o '\"short_hash\":\"[0-9a-f]*\"' | cut -d'\"' -f4 | tr '\n' ' '"
expect_out "the quoted form as path: get_file_history equals git --follow" \
  "$(git -C "$N" log --follow --format=%h -- "$RAW" | tr '\n' ' ')" sh -c \
  "'$Q' tool get_file_history --repo '$N' --path '$QUOTED' --format json | grep -o '\"short_hash\":\"[0-9a-f]*\"' | cut -d'\"' -f4 | tr '\n' ' '"
expect_out "the shown form round-trips through a program" "2" "$Q" lisp --repo "$N" -e \
  '(let [p (:path (first (filter #(= (:commits %) 2) (tool/get_file_stats {}))))] (count (tool/get_commits {:path p})))'
expect_err "a bad quoted path is refused" "bad quoted path" "$Q" tool get_commits --repo "$N" --path '"caf\9.txt"'
expect_rc "a bad quoted path: exit 2" 2 "$Q" tool get_commits --repo "$N" --path '"caf\9.txt"'

# ---- a commit's encoding header: converted as git log converts it ----
E="$TMP/encoding"
git init -q -b main "$E"
printf 'a\n' > "$E/a"
git -C "$E" add a
GIT_AUTHOR_NAME="$(printf 'Ren\351')" GIT_AUTHOR_EMAIL=rene@example.com GIT_AUTHOR_DATE=2024-04-01T10:00:00Z \
GIT_COMMITTER_NAME="$(printf 'Ren\351')" GIT_COMMITTER_EMAIL=rene@example.com GIT_COMMITTER_DATE=2024-04-01T10:00:00Z \
  git -C "$E" -c i18n.commitEncoding=ISO-8859-1 commit -q -m "$(printf 'Caf\351 cr\350me')"
expect_out "the commit declares its encoding" "encoding ISO-8859-1" sh -c "git -C '$E' cat-file -p HEAD | grep '^encoding'"
want=$(git -C "$E" log --format='%an|%s')
expect_out "encoding: author and subject equal git log" "$want" ql "$E" -e \
  '(doseq [c (tool/get_commits {})] (println (str (:author c) "|" (:subject c))))'
expect_out "encoding: --no-index equals git log" "$want" ql "$E" --no-index -e \
  '(doseq [c (tool/get_commits {})] (println (str (:author c) "|" (:subject c))))'
want=$(git -C "$E" shortlog -sne HEAD | awk -F'\t' '{ sub(/^ +/, "", $1); print $1 " " $2 }')
expect_out "encoding: authors (from the index's graph) equal git shortlog" "$want" ql "$E" -e \
  '(doseq [a (tool/get_author_stats {})] (println (str (:commits a) " " (:author a) " <" (:email a) ">")))'
expect_out "encoding: authors again, warm" "$want" ql "$E" -e \
  '(doseq [a (tool/get_author_stats {})] (println (str (:commits a) " " (:author a) " <" (:email a) ">")))'
expect_out "encoding: the author filter sees the converted name" "1" "$Q" lisp --repo "$E" -e \
  "(count (tool/get_commits {:author \"$(printf 'Ren\303\251')\"}))"

# ---- pathspecs, globs in get_file_history, and ranges, on a history with branches ----
P="$TMP/paths"
git init -q -b main "$P"
mkdir -p "$P/src/vendor" "$P/Src" "$P/docs/api"
printf 'int a;\n' > "$P/src/a.c"
printf 'v\n' > "$P/src/vendor/v.c"
printf 'S\n' > "$P/Src/Upper.C"
printf '# doc\n' > "$P/docs/api/index.md"
printf 'top\n' > "$P/a.txt"
git -C "$P" add -A
at "$P" ann 2024-05-01T10:00:00Z commit -q -m "Start"
printf 'int b;\n' >> "$P/src/a.c"
printf 'more\n' >> "$P/docs/api/index.md"
at "$P" bob 2024-05-02T10:00:00Z commit -q -am "Grow a and docs"
at "$P" bob 2024-05-03T10:00:00Z checkout -q -b topic
printf 'w\n' >> "$P/src/vendor/v.c"
printf 't\n' > "$P/src/topic.c"
git -C "$P" add -A
at "$P" carol 2024-05-03T10:00:00Z commit -q -m "Topic work"
git -C "$P" mv src/topic.c src/renamed.c
printf 'u\n' >> "$P/src/renamed.c"
at "$P" carol 2024-05-04T10:00:00Z commit -q -am "Rename topic"
at "$P" ann 2024-05-05T10:00:00Z checkout -q main
printf 'top2\n' >> "$P/a.txt"
printf 'S2\n' >> "$P/Src/Upper.C"
at "$P" ann 2024-05-05T10:00:00Z commit -q -am "Main work"
at "$P" dave 2024-05-06T10:00:00Z merge -q --no-ff --no-edit -m "Merge topic" topic
printf 'int c;\n' >> "$P/src/a.c"
at "$P" ann 2024-05-07T10:00:00Z commit -q -am "After merge"
git -C "$P" tag v1 HEAD~2

# hashes_of DIR ARGS...: get_commits' short hashes for the Lisp map ARGS, on one line
hashes_of() {
  d=$1; shift
  "$Q" lisp --repo "$d" -e "(clojure.string/join \" \" (map :short_hash (tool/get_commits $*)))" | tr -d '"'
}
for spec in 'src/../a.txt' './src//vendor/' ':(icase)src' ':(icase)SRC/A.C' ':!src' ':^src/vendor' \
    ':(exclude)docs' ':(exclude,icase)SRC' ':(glob)src/*.c' ':(glob)**/*.md' ':(glob)src/**' \
    ':(literal)src' ':(top)docs' ':/src/a.c' 'src/*.c' '*.C' 'docs/api/../../a.txt'; do
  want=$(git -C "$P" log --format=%h -- "$spec" | tr '\n' ' ' | sed 's/ $//')
  expect_out "pathspec '$spec': get_commits equals git log" "$want" hashes_of "$P" "{:path \"$spec\"}"
  want=$(git -C "$P" log --numstat --no-renames --format= -- "$spec" | awk '{ a += $1; d += $2 } END { print a + 0, d + 0 }')
  expect_out "pathspec '$spec': lines equal git log --numstat" "$want" ql "$P" -e \
    "(let [cs (tool/get_commits {:path \"$spec\"})] (println (str (reduce + 0 (map :additions cs)) \" \" (reduce + 0 (map :deletions cs)))))" 
  expect_out "pathspec '$spec': --no-index equals the index" \
    "$("$Q" tool get_file_stats --repo "$P" --path "$spec" --format json)" \
    "$Q" tool get_file_stats --repo "$P" --no-index --path "$spec" --format json
done
for spec in '..' '../x' 'src/../../x' '/etc/passwd' ':(foo)src' ':(attr:binary)src' ':(glob,literal)x'; do
  expect_rc "pathspec '$spec' is refused with exit 2" 2 "$Q" tool get_commits --repo "$P" --path "$spec"
done
expect_err "'..' names what is wrong" "is outside the repository" "$Q" tool get_commits --repo "$P" --path ../x
expect_err "unknown magic names the magic" "unknown magic 'foo'" "$Q" tool get_commits --repo "$P" --path ':(foo)src'
git -C "$P" log --format=%h -- ../x >/dev/null 2>&1
expect_out "git refuses '..' too" "128" echo $?
expect_out "an absolute path inside the work tree is taken" "$(git -C "$P" log --format=%h -- src/a.c | tr '\n' ' ' | sed 's/ $//')" \
  hashes_of "$P" "{:path \"$(cd "$P" && pwd -P)/src/a.c\"}"

# get_file_history with a pattern: every matching file, one row per commit and file, as
# git log -M prints them; with one file, git log --follow
hist_rows() {
  "$Q" lisp --repo "$P" -e "(doseq [r (tool/get_file_history $*)] (println (str (:short_hash r) \" \" (:status r) \" \" (:path r) \" \" (:additions r) \" \" (:deletions r))))" | sed '$d'
}
git_rows() { # git_rows FOLLOW-OR-M REV PATHSPEC
  git -C "$P" log "$1" --raw --numstat --format='C %h' "$2" -- "$3" | awk -F'\t' '
    /^C / { h = substr($0, 3); n = 0; m = 0; next }
    /^:/ { split($1, f, " "); st[n] = substr(f[5], 1, 1); path[n++] = NF == 3 ? $3 : $2; next }
    NF >= 3 { print h, st[m], path[m], ($1 == "-" ? 0 : $1), ($2 == "-" ? 0 : $2); m++ }'
}
for spec in '*.c' 'src/*.c' ':(glob)src/*.c' ':(icase)SRC/A.C' ':!src' ':(glob)**/*.md'; do
  expect_out "history of pattern '$spec' equals git log -M" "$(git_rows -M HEAD "$spec")" hist_rows "{:path \"$spec\"}"
done
expect_out "history of one file still follows renames" "$(git_rows --follow HEAD src/renamed.c)" hist_rows '{:path "src/renamed.c"}'
expect_out "history of a normalised path follows renames" "$(git_rows --follow HEAD src/renamed.c)" hist_rows '{:path "docs/../src/renamed.c"}'

# ranges as ref: A..B, A...B, ^A B, with an empty side meaning HEAD
for r in 'main~1..topic' 'topic..main' 'v1...topic' 'main~3...main' '^topic main' 'main ^main~2' '..topic' 'topic...' 'main~1^2' 'main^1 ^topic'; do
  # shellcheck disable=SC2086
  want=$(git -C "$P" log --format=%h $r | tr '\n' ' ' | sed 's/ $//')
  expect_out "range '$r': get_commits equals git log" "$want" hashes_of "$P" "{:ref \"$r\"}"
  # shellcheck disable=SC2086
  want=$(git -C "$P" shortlog -sne $r | awk -F'\t' '{ sub(/^ +/, "", $1); print $1 " " $2 }')
  expect_out "range '$r': get_author_stats equals git shortlog" "$want" sh -c \
    "'$Q' lisp --repo '$P' -e '(doseq [a (tool/get_author_stats {:ref \"$r\"})] (println (str (:commits a) \" \" (:author a) \" <\" (:email a) \">\")))' | sed '\$d'"
  # shellcheck disable=SC2086
  want=$(git -C "$P" log --numstat --no-renames --format= $r | awk '{ a += $1 } END { print a + 0 }')
  expect_out "range '$r': lines equal git (index)" "$want" "$Q" lisp --repo "$P" -e "(reduce + 0 (map :additions (tool/get_commits {:ref \"$r\"})))"
  expect_out "range '$r': lines equal git (--no-index)" "$want" "$Q" lisp --repo "$P" --no-index -e "(reduce + 0 (map :additions (tool/get_commits {:ref \"$r\"})))"
  # shellcheck disable=SC2086
  want=$(git -C "$P" log --follow --format=%h $r -- src/a.c | tr '\n' ' ' | sed 's/ $//')
  expect_out "range '$r': get_file_history equals git log --follow" "$want" sh -c \
    "'$Q' lisp --repo '$P' -e '(clojure.string/join \" \" (map :short_hash (tool/get_file_history {:ref \"$r\" :path \"src/a.c\"})))' | tr -d '\"'"
done
expect_out "a range with a path" "$(git -C "$P" log --format=%h main~3..main -- src | tr '\n' ' ' | sed 's/ $//')" \
  hashes_of "$P" '{:ref "main~3..main" :path "src"}'
for r in 'v1..topic' 'v1...topic'; do
  want=$(git -C "$P" diff --numstat --no-renames "$r" | awk '{ f++; a += $1; d += $2 } END { print f + 0, a + 0, d + 0 }')
  expect_out "get_diff_stats from '$r' equals git diff" "$want" ql "$P" -e \
    "(let [d (tool/get_diff_stats {:from \"$r\"})] (println (str (:files d) \" \" (:additions d) \" \" (:deletions d))))"
done
expect_err "an unknown side of a range is named" "unknown ref 'nope'" "$Q" tool get_commits --repo "$P" --ref 'main..nope'
expect_rc "an unknown side of a range: exit 2" 2 "$Q" tool get_commits --repo "$P" --ref 'nope...main'

# ---- a file changed on both sides of a merge: get_file_history lists the merge as git log
# -- FILE does (git log --follow lists no merge), interleaved in the walk's order, and a
# commit whose author date is older than its neighbour's stays where git shows it ----
M="$TMP/merged"
git init -q -b main "$M"
printf 'a\nb\nc\nd\ne\n' > "$M/both.c"
git -C "$M" add -A
at "$M" ann 2024-06-01T10:00:00Z commit -q -m "Start"
at "$M" bob 2024-06-02T10:00:00Z checkout -q -b side
sed -i 's/^a$/A/' "$M/both.c"
at "$M" bob 2024-06-02T10:00:00Z commit -q -am "Side: first line"
at "$M" ann 2024-06-03T10:00:00Z checkout -q main
sed -i 's/^e$/E/' "$M/both.c"
at "$M" ann 2024-06-03T10:00:00Z commit -q -am "Main: last line"
at "$M" dave 2024-06-04T10:00:00Z merge -q --no-ff --no-edit -m "Merge side" side
sed -i 's/^c$/C/' "$M/both.c"
GIT_AUTHOR_NAME=eve GIT_AUTHOR_EMAIL=eve@example.com GIT_AUTHOR_DATE=2024-05-20T10:00:00Z \
  GIT_COMMITTER_NAME=eve GIT_COMMITTER_EMAIL=eve@example.com GIT_COMMITTER_DATE=2024-06-05T10:00:00Z \
  git -C "$M" commit -q -am "Rebased: an older author date"
fh() { "$Q" lisp --repo "$M" -e "(clojure.string/join \" \" (map :short_hash (tool/get_file_history $1)))" | tr -d '"'; }
expect_out "merges git lists for a file: get_file_history equals git log -- FILE" \
  "$(git -C "$M" log --format=%h -- both.c | tr '\n' ' ' | sed 's/ $//')" fh '{:path "both.c"}'
expect_out "merges excluded: git log --follow --no-merges" \
  "$(git -C "$M" log --follow --no-merges --format=%h -- both.c | tr '\n' ' ' | sed 's/ $//')" fh '{:path "both.c" :merges "exclude"}'
expect_out "merges only: git log --merges -- FILE" \
  "$(git -C "$M" log --merges --format=%h -- both.c | tr '\n' ' ' | sed 's/ $//')" fh '{:path "both.c" :merges "only"}'
expect_out "a limit counts the merge" \
  "$(git -C "$M" log -2 --format=%h -- both.c | tr '\n' ' ' | sed 's/ $//')" fh '{:path "both.c" :limit 2}'

finish
