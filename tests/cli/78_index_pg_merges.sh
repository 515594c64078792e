#!/bin/sh
# 78_index_pg_merges.sh: a path window with merges, `since` and get_file_stats' authors
# answer the same from the shared statistics index on a real PostgreSQL 15 (pg_lib.sh) as
# the local tools on the repository (issue 26). The history here has what made them
# differ:
#   - merges that differ within a path from every parent (git log -- PATH shows them) and
#     merges the same as one parent there (hidden, and followed through that parent only),
#     for a file, a directory, a glob (a merge differing from one parent in one file and
#     from the other in another: shown for *.c), an exclude pathspec, and an evil merge
#     adding a file neither parent has;
#   - a side branch whose change to a.c a merge discards (`git merge -s ours`): its commit
#     is not in `git log -- a.c`, as history simplification never walks that branch;
#   - a commit dated before its parent: a walk without a path stops at it for a `since`
#     between the two dates, and the commits after it in the walk are not shown;
#   - one author under two cases of an email changing one file (one author in
#     get_file_stats' :authors, as in get_author_stats).
# Each tool's rows for each window are compared whole (`--repo` against `--repos`); what
# git itself shows is checked too, so that both backends agreeing on a wrong answer fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg_lib.sh"
pg_test_start
export QUARRY_NOW=1773144000 # 2026-03-10T12:00:00Z

# at DATE NAME EMAIL: the environment of one commit
at() {
  export GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1" GIT_AUTHOR_NAME="$2" \
    GIT_AUTHOR_EMAIL="$3" GIT_COMMITTER_NAME="$2" GIT_COMMITTER_EMAIL="$3"
}
# gc DATE NAME EMAIL MESSAGE FILE...: change each FILE and commit
gc() {
  at "$1" "$2" "$3"
  m=$4
  shift 4
  for f in "$@"; do mkdir -p "$(dirname "$f")" && echo "$m" >>"$f" && git add "$f"; done
  git commit -q -m "$m"
}
# mg DATE NAME EMAIL BRANCH [git merge options]: merge BRANCH into the current branch
mg() {
  at "$1" "$2" "$3"
  b=$4
  shift 4
  git merge -q --no-edit "$@" "$b" >/dev/null 2>&1 || fail "the fixture: merging $b"
}
R="$TMP/merges"
mkdir -p "$R" && cd "$R" && git init -q -b main
gc 2024-01-01T10:00:00Z Ann ann@example.com "one" a.c b.c dir/x.c dir/y.c
gc 2024-01-02T10:00:00Z Ann ann@example.com "two" a.c
# side1 changes dir/x.c while main changes dir/y.c: the merge differs within dir/ from both
git checkout -q -b side1
gc 2024-01-03T10:00:00Z Bob Bob@Example.com "side1" dir/x.c
git checkout -q main
gc 2024-01-04T10:00:00Z Ann ann@example.com "three" dir/y.c
mg 2024-01-05T10:00:00Z Ann ann@example.com side1
# side2 changes b.c while main changes a.c: for a.c the merge is main's (hidden); for *.c
# it differs from main in b.c and from side2 in a.c (shown)
git checkout -q -b side2
gc 2024-01-06T10:00:00Z Bob bob@example.com "side2" b.c
git checkout -q main
gc 2024-01-07T10:00:00Z Cy cy@example.com "four" a.c
mg 2024-01-08T10:00:00Z Cy cy@example.com side2
# side3 changes a.c and dir/x.c; merged with -s ours, which keeps main's tree: the merge is
# hidden for every path and its commit is never walked with a path
git checkout -q -b side3
gc 2024-01-09T10:00:00Z Dee dee@example.com "side3" a.c dir/x.c
git checkout -q main
gc 2024-01-10T10:00:00Z Ann ann@example.com "five" b.c
mg 2024-01-11T10:00:00Z Ann ann@example.com side3 -s ours
# an evil merge: side4 changes dir/y.c; the merge also adds e.c, which neither parent has
git checkout -q -b side4
gc 2024-01-12T10:00:00Z Bob BOB@example.com "side4" dir/y.c
git checkout -q main
gc 2024-01-13T10:00:00Z Cy cy@example.com "six" b.c
at 2024-01-14T10:00:00Z Cy cy@example.com
git merge -q --no-commit side4 >/dev/null 2>&1 || fail "the fixture: merging side4"
echo evil >e.c && git add e.c && git commit -q --no-edit || fail "the fixture: the evil merge"
# a commit dated before its parent (a clock set wrong), then newer ones
gc 2024-01-10T12:00:00Z Eve eve@example.com "seven (clock wrong)" a.c
gc 2024-01-16T10:00:00Z Ann ann@example.com "eight" b.c
gc 2024-01-17T10:00:00Z Bob bob@Example.COM "nine" dir/x.c
cd "$TMP"

U=$(pg_createdb idx)
pg_index "$U" "$R"

pg_rows_py
# compare: every tool, every window, both backends
compare() {
  n=0
  for t in get_author_stats get_file_stats get_commits; do
    for p in "" a.c b.c dir/ dir/x.c "*.c" e.c ":(exclude)a.c"; do
      for w in "" "--merges only" "--merges exclude" "--since 2024-01-10T11:00:00Z" \
        "--since 2024-01-12T00:00:00Z" "--since 2024-01-05T00:00:00Z --merges only" \
        "--until 2024-01-11T00:00:00Z"; do
        set -- $w
        [ -n "$p" ] && set -- "$@" --path "$p"
        "$Q" tool $t --repo "$R" "$@" --format json >"$TMP/l.json" 2>"$TMP/err" ||
          fail "$t $*: local: $(cat "$TMP/err")"
        QUARRY_DATABASE_URL="$U" "$Q" tool $t --repos merges "$@" --format json >"$TMP/s.json" \
          2>"$TMP/err" || fail "$t $*: shared: $(cat "$TMP/err")"
        python3 "$TMP/rows.py" "$TMP/l.json" "$TMP/s.json" merges >"$TMP/rows.out" ||
          fail "$1: $t $*: the backends differ: $(cat "$TMP/rows.out")"
        n=$((n + 1))
      done
    done
  done
  [ "$n" = 168 ] || fail "$1: $n windows compared, want 168"
}
compare "first run"

# what git shows, which both backends must show
subjects() { # subjects TOOL ARGS...: the subjects the shared tool lists, one line
  QUARRY_DATABASE_URL="$U" "$Q" tool get_commits --repos merges "$@" --format json |
    python3 -c 'import json,sys; print(" | ".join(r["subject"] for r in json.load(sys.stdin)))'
}
gitlog() { git -C "$R" log --format=%s "$@" | sed ':a;N;$!ba;s/\n/ | /g'; }
for p in a.c dir/ "*.c" e.c; do
  [ "$(subjects --path "$p")" = "$(gitlog -- "$p")" ] ||
    fail "--path $p: want git log's $(gitlog -- "$p"), got $(subjects --path "$p")"
done
[ "$(subjects --path '*.c' --merges only)" = "Merge branch 'side4' | Merge branch 'side2' | Merge branch 'side1'" ] ||
  fail "*.c: the merges shown: $(subjects --path '*.c' --merges only)"
case " $(subjects --path a.c) " in
*side3*) fail "a.c: the commit a merge -s ours discarded is shown" ;;
esac
[ "$(subjects --path e.c)" = "Merge branch 'side4'" ] || fail "e.c: the evil merge: $(subjects --path e.c)"
# "seven" is dated 2024-01-10T12:00, its parent (the evil merge) 2024-01-14: a since
# between them stops the walk at seven, before the merge, six and side4 of later dates
[ "$(subjects --since 2024-01-12T00:00:00Z)" = "nine | eight" ] ||
  fail "since: the walk stops at the commit dated before its parent: $(subjects --since 2024-01-12T00:00:00Z)"
[ "$(subjects --since 2024-01-12T00:00:00Z)" = "$(gitlog --since=2024-01-12T00:00:00Z)" ] ||
  fail "since: want git log's $(gitlog --since=2024-01-12T00:00:00Z)"
# with a path, since filters (git log --since-as-filter): side4, walked after seven, is
# there (its merge is side4's tree within dir/: hidden, and followed through side4)
[ "$(subjects --since 2024-01-12T00:00:00Z --path dir/)" = "nine | side4" ] ||
  fail "since with a path: $(subjects --since 2024-01-12T00:00:00Z --path dir/)"
# dir/x.c: changed by one (Ann), side1 (Bob@Example.com) and nine (bob@Example.COM), and by
# side3 (Dee), which the -s ours merge discarded and a path window does not walk: three
# commits, two authors (Bob once whatever the case of his address), on both backends
for how in local shared; do
  if [ $how = local ]; then
    "$Q" tool get_file_stats --repo "$R" --path dir/x.c --format json >"$TMP/f.json"
  else
    QUARRY_DATABASE_URL="$U" "$Q" tool get_file_stats --repos merges --path dir/x.c --format json >"$TMP/f.json"
  fi
  got=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))[0]; print(r["commits"], r["authors"])' "$TMP/f.json")
  [ "$got" = "3 2" ] || fail "$how: dir/x.c: 3 commits by Ann and Bob (Bob@Example.com, bob@Example.COM): want '3 2', got '$got'"
done

# merges published without their files (a database of before migration 6): the next run
# fills them, and the answers are the same again
pg_sql idx "DELETE FROM git_merge_parents" >/dev/null
[ "$(subjects --path '*.c' --merges only)" = "" ] || fail "merges without rows: not counted"
"$Q" index --enqueue --repo "$R" --store "$U" >/dev/null || fail "enqueue again"
"$Q" index --worker --store "$U" >"$TMP/w.out" 2>&1 || fail "worker again: $(cat "$TMP/w.out")"
[ "$(pg_sql idx "SELECT count(*) FROM git_merge_parents")" = 8 ] ||
  fail "four merges of two parents each: $(pg_sql idx "SELECT count(*) FROM git_merge_parents")"
# the -s ours merge is its first parent's tree: no file differs from it
[ "$(pg_sql idx "SELECT cardinality(p.paths) FROM git_merge_parents p JOIN git_commits c USING (repo, oid) WHERE c.subject = 'Merge branch ''side3''' AND p.idx = 0")" = 0 ] ||
  fail "the -s ours merge differs from its first parent in no file"
# the evil merge differs from main in side4's dir/y.c and in e.c, from side4 in
# main's b.c and in e.c
[ "$(pg_sql idx "SELECT string_agg(p.idx || ':' || array_to_string(p.paths, ','), ' ' ORDER BY p.idx) FROM git_merge_parents p JOIN git_commits c USING (repo, oid) WHERE c.subject = 'Merge branch ''side4'''")" = \
  "0:dir/y.c,e.c 1:b.c,e.c" ] || fail "the evil merge's files per parent"
compare "after the merges were filled again"

[ "$FAILS" = 0 ] && echo "ok"
exit "$((FAILS > 0))"
