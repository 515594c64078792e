#!/bin/sh
# 75_index_pg_authors.sh: who an author is, and which commit is an author's first and
# last, are the same on the local SQLite index and on the shared statistics index on a
# real PostgreSQL 15 (issue 26: "the result identical to SQLite's per repository";
# pg_lib.sh). The bench found curl and libevent differing by a row or two: one person
# committing as Eric@X.org and eric@x.org was one author locally and two on the server.
# The repository here has what made them differ and what could:
#   - one email in two ASCII cases, under two names (one author; the name and email shown
#     are those of the last commit);
#   - a .mailmap mapping an old address to a mixed-case one that is also committed as is;
#   - an email whose case differs only in a non-ASCII letter (ÉMILE, émile): two authors,
#     as git's mailmap and the author filter fold ASCII only, also on a database whose
#     locale (C.UTF-8) folds more;
#   - ties: two commits with the same author and committer dates in other time zones (the
#     first and last dates shown), and two names on one address at one instant (the name
#     shown), which a walk's order and a server's row order could each settle their way.
# Each tool's rows, with several windows, are compared whole between `--repo` (local) and
# `--repos NAME` (shared), and the folded author's row is checked for its values. And the
# order of get_commits: a walk's (equal committer dates, a child dated before its parent),
# which dates alone do not give; with two repositories, each one's rows in its own order;
# after new commits on top and after a merge that brings in old ones. A path with merges
# included, and since's cut, are 78_index_pg_merges.sh's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg_lib.sh"
pg_test_start
export QUARRY_NOW=1773144000 # 2026-03-10T12:00:00Z

# gc ADATE CDATE NAME EMAIL MESSAGE FILE: change FILE and commit it
gc() {
  echo "$5" >>"$6" && git add "$6" &&
    GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$2" GIT_AUTHOR_NAME="$3" GIT_AUTHOR_EMAIL="$4" \
      GIT_COMMITTER_NAME="$3" GIT_COMMITTER_EMAIL="$4" git commit -q -m "$5"
}
R="$TMP/cases"
mkdir -p "$R" && cd "$R" && git init -q -b main
gc 2024-01-01T10:00:00Z 2024-01-01T10:00:00Z "Eric H" ehu@example.com "one" a.c
gc 2024-02-01T10:00:00Z 2024-02-01T10:00:00Z "Eric Hu" EHu@Example.com "two" b.c
gc 2024-03-01T10:00:00Z 2024-03-01T10:00:00Z "Eric Hu" EHu@Example.com "three" a.c
gc 2024-03-02T10:00:00Z 2024-03-02T10:00:00Z "Frank" frank@old.org "four" c.c
gc 2024-03-03T10:00:00Z 2024-03-03T10:00:00Z "Frank" frank@example.org "five" c.c
printf 'Frank <Frank@Example.org> <frank@old.org>\n' >.mailmap && git add .mailmap
gc 2024-03-04T10:00:00Z 2024-03-04T10:00:00Z "Frank" Frank@Example.org "six" d.c
gc 2024-03-05T10:00:00Z 2024-03-05T10:00:00Z "Émile" "ÉMILE@example.org" "seven" e.c
gc 2024-03-06T10:00:00Z 2024-03-06T10:00:00Z "émile" "émile@example.org" "eight" e.c
# one instant written in two zones, twice, with equal committer dates: a walk meets the
# child first, a server's min() and max() go by the offset
gc 2024-04-01T10:00:00Z 2024-04-01T12:00:00Z "Gina" gina@example.org "nine" f.c
gc 2024-04-01T12:00:00+02:00 2024-04-01T12:00:00Z "Gina" gina@example.org "ten" f.c
gc 2024-04-01T16:00:00+01:00 2024-04-01T16:00:00Z "Gina" gina@example.org "eleven" f.c
gc 2024-04-01T10:00:00-05:00 2024-04-01T16:00:00Z "Gina" gina@example.org "twelve" f.c
# two names on one address at one instant
gc 2024-05-01T10:00:00Z 2024-05-01T10:00:00Z "Hal" hal@example.org "thirteen" g.c
gc 2024-05-01T10:00:00Z 2024-05-01T10:00:00Z "HAL" Hal@Example.org "fourteen" g.c
git checkout -q -b side HEAD~2
gc 2024-05-01T10:00:00Z 2024-05-01T10:00:00Z "Hal 9000" HAL@example.org "fifteen" h.c
# a child dated before its parent (a clock set wrong): a walk meets it before commits of
# later dates, and its parent after it
gc 2024-04-10T10:00:00Z 2024-04-10T10:00:00Z "Ivy" ivy@example.org "sixteen" i.c
git checkout -q main
GIT_AUTHOR_DATE=2024-05-02T10:00:00Z GIT_COMMITTER_DATE=2024-05-02T10:00:00Z \
  GIT_AUTHOR_NAME="Eric Hu" GIT_AUTHOR_EMAIL=ehu@EXAMPLE.com GIT_COMMITTER_NAME="Eric Hu" \
  GIT_COMMITTER_EMAIL=ehu@EXAMPLE.com git merge -q --no-edit side >/dev/null ||
  fail "the fixture's merge"
cd "$TMP"

# a database whose locale folds more than ASCII (C.UTF-8: lower('É') is 'é'), so a
# statement that left case to the server's locale would show it; C when the machine
# lacks it (then only the ASCII cases are checked)
if pg_sql postgres "CREATE DATABASE idx LOCALE 'C.UTF-8' TEMPLATE template0" >/dev/null 2>&1; then
  U="postgresql://postgres@/idx?host=$PG_SOCK&port=$PG_PORT"
else
  echo "note: no C.UTF-8 locale for the database: only ASCII case is checked"
  U=$(pg_createdb idx)
fi
pg_index "$U" "$R"

pg_rows_py
for t in get_author_stats get_file_stats get_commits; do
  for args in "" "--author eric" "--author ÉMILE" "--author émile" "--author example.COM" \
    "--since 2024-03-01" "--until 2024-04-01T12:00:00Z" "--path *.c --merges exclude" \
    "--path e.c" "--merges exclude" \
    "--merges only" "--limit 3" "--limit 7"; do
    [ $t = get_commits ] && case $args in *--path*) continue ;; esac
    # shellcheck disable=SC2086
    "$Q" tool $t --repo "$R" $args --format json >"$TMP/l.json" 2>"$TMP/err" ||
      fail "$t $args: local: $(cat "$TMP/err")"
    # shellcheck disable=SC2086
    QUARRY_DATABASE_URL="$U" "$Q" tool $t --repos cases $args --format json >"$TMP/s.json" \
      2>"$TMP/err" || fail "$t $args: shared: $(cat "$TMP/err")"
    python3 "$TMP/rows.py" "$TMP/l.json" "$TMP/s.json" cases >"$TMP/rows.out" ||
      fail "$t $args: the backends differ: $(cat "$TMP/rows.out")"
  done
done

# what the rows say, on both backends
for how in local shared; do
  if [ $how = local ]; then
    "$Q" tool get_author_stats --repo "$R" --format json >"$TMP/a.json"
  else
    QUARRY_DATABASE_URL="$U" "$Q" tool get_author_stats --repos cases --format json >"$TMP/a.json"
  fi
  python3 - "$TMP/a.json" >"$TMP/a.out" <<'EOF' || fail "$how: $(cat "$TMP/a.out")"
import json, sys
fold = lambda s: "".join(c.lower() if c.isascii() else c for c in s)  # ASCII only
rows = {fold(r["email"]): r for r in json.load(open(sys.argv[1]))}
def want(key, **kv):
    r = rows.get(key)
    got = r and {k: r[k] for k in kv}
    if got != kv:
        print("%s: want %s, got %s" % (key, kv, got)); sys.exit(1)
# Eric: one author in three cases (the merge is his too), shown as his last commit
want("ehu@example.com", author="Eric Hu", email="ehu@EXAMPLE.com", commits=4,
     first="2024-01-01T10:00:00+00:00", last="2024-05-02T10:00:00+00:00")
# Frank: the mapped old address and the mixed-case one are one author
want("frank@example.org", author="Frank", email="Frank@Example.org", commits=3)
# Émile: two authors (É is not an ASCII letter)
if sum(1 for e in rows if e.endswith("mile@example.org")) != 2:
    print("ÉMILE and émile: want two authors: %s" % sorted(rows)); sys.exit(1)
# Gina: one instant in several zones: the least and greatest of (author date, committer
# date, offset, id)
want("gina@example.org", commits=4, first="2024-04-01T10:00:00+00:00", last="2024-04-01T16:00:00+01:00")
# Hal: three names at one instant with equal dates: the shown name is the greatest id's
want("hal@example.org", commits=3)
EOF
done
hal_local=$("$Q" tool get_author_stats --repo "$R" --author hal --format json)
hal_want=$(git -C "$R" log --format='%H %an' --author='[Hh][Aa][Ll]' | sort | tail -n 1 | cut -d' ' -f2-)
case "$hal_local" in
*"\"author\":\"$hal_want\""*) ;;
*) fail "Hal: the shown name is the greatest id's ($hal_want): $hal_local" ;;
esac

# ---- get_commits in each repository's walk order ----
# same COMMITS... NAME...: each repository's rows of `--repos all` are its local rows
same() {
  what=$1
  shift
  QUARRY_DATABASE_URL="$U" "$Q" tool get_commits --repos all --limit 1000 --format json \
    >"$TMP/s.json" 2>"$TMP/err" || fail "$what: shared get_commits: $(cat "$TMP/err")"
  for r in "$@"; do
    "$Q" tool get_commits --repo "$TMP/$r" --limit 1000 --format json >"$TMP/l.json" ||
      fail "$what: local get_commits of $r"
    python3 "$TMP/rows.py" "$TMP/l.json" "$TMP/s.json" "$r" >"$TMP/rows.out" ||
      fail "$what: get_commits of $r: $(cat "$TMP/rows.out")"
  done
}
walked=$(git -C "$R" log --format=%s | tr '\n' ' ')
[ "$walked" = "Merge branch 'side' fourteen thirteen sixteen fifteen twelve eleven ten nine eight seven six five four three two one " ] ||
  fail "the fixture: git log's order is not the one this test means: $walked"
# another repository, its dates between the first one's
git clone -q "$R" "$TMP/other"
(cd "$TMP/other" && gc 2024-04-05T10:00:00Z 2024-04-05T10:00:00Z "Jo" jo@example.org "o1" o.c &&
  gc 2024-04-03T10:00:00Z 2024-04-03T10:00:00Z "Jo" jo@example.org "o2" o.c) || fail "other"
"$Q" index --enqueue --repo "$TMP/other" --store "$U" >/dev/null || fail "enqueue other"
"$Q" index --worker --store "$U" >"$TMP/w.out" 2>&1 || fail "worker other: $(cat "$TMP/w.out")"
same "two repositories" cases other
# new commits on top leave the others' places alone; a merge of old commits moves some
pos() { pg_sql idx "SELECT string_agg(c.oid || ':' || coalesce(c.walk_pos::text, 'none'), ' ' ORDER BY c.oid) FROM git_commits c JOIN git_repos r ON r.id = c.repo WHERE r.name = '$1'"; }
before=$(pos cases)
(cd "$R" && gc 2024-06-01T10:00:00Z 2024-06-01T10:00:00Z "Eric Hu" ehu@example.com "seventeen" a.c) ||
  fail "seventeen"
"$Q" index --enqueue --repo "$R" --store "$U" >/dev/null && "$Q" index --worker --store "$U" >/dev/null ||
  fail "worker after seventeen"
after=$(pos cases)
printf '%s\n' $before | sort >"$TMP/before"
printf '%s\n' $after | sort >"$TMP/after"
[ "$(comm -13 "$TMP/before" "$TMP/after" | wc -l)" = 1 ] && [ -z "$(comm -23 "$TMP/before" "$TMP/after")" ] ||
  fail "a commit on top: only its row is new, the others keep their places: $before -> $after"
same "a commit on top" cases other
(cd "$R" && git checkout -q -b late HEAD~12 &&
  gc 2024-03-20T10:00:00Z 2024-03-20T10:00:00Z "Kim" kim@example.org "late" k.c &&
  git checkout -q main &&
  GIT_AUTHOR_DATE=2024-06-02T10:00:00Z GIT_COMMITTER_DATE=2024-06-02T10:00:00Z \
    GIT_AUTHOR_NAME=Kim GIT_AUTHOR_EMAIL=kim@example.org GIT_COMMITTER_NAME=Kim \
    GIT_COMMITTER_EMAIL=kim@example.org git merge -q --no-edit late >/dev/null) ||
  fail "the late merge"
"$Q" index --enqueue --repo "$R" --store "$U" >/dev/null && "$Q" index --worker --store "$U" >/dev/null ||
  fail "worker after the late merge"
same "a merge of an old commit" cases other
# the places themselves (the order above could also come out of dates by luck)
want=$(git -C "$R" log --format=%H | tr '\n' ' ')
got=$(pg_sql idx "SELECT string_agg(c.oid, ' ' ORDER BY c.walk_pos DESC) || ' ' FROM git_commits c JOIN git_repos r ON r.id = c.repo WHERE r.name = 'cases'")
[ "$got" = "$want" ] || fail "a merge of an old commit: the places: want $want, got $got"
got=$(pg_sql idx "SELECT count(DISTINCT walk_pos) || ' ' || min(walk_pos) || ' ' || max(walk_pos) FROM git_commits c JOIN git_repos r ON r.id = c.repo WHERE r.name = 'cases'")
[ "$got" = "20 0 19" ] || fail "a merge of an old commit: the places are 0 to 19, once each: $got"
[ "$(pg_sql idx "SELECT count(*) FROM git_commits WHERE walk_pos IS NULL")" = 0 ] ||
  fail "every row has its place"

[ "$FAILS" = 0 ] && echo "ok"
exit "$((FAILS > 0))"
