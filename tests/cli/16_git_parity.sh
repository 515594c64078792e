# 16_git_parity.sh: places where quarry's git answers once differed from git's, each built
# here with git and compared with git's own output and with `--no-index`: a shallow clone
# made shallower after indexing, .gitattributes that change what git counts, non-UTF-8
# paths given back in their escaped form, a commit's `encoding` header, pathspecs with
# `..` and magic (icase, exclude, glob, literal, top), globs in get_file_history, and
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

finish
