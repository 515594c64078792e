# 44_cli_surface.sh: issue 24's small surface items: `quarry mem` prints its errors as
# JSON only when --format json asks for it (not because stdout is a pipe); `quarry version
# --format json`; memory scores in the shortest form that reads back as the same float.
. "$(dirname "$0")/lib.sh"

S="$TMP/m.db"
# errors: a plain line on stderr whether stdout is a terminal or a pipe
expect_out "mem error on a pipe is a plain line" "quarry: error: no memory store at '$TMP/none.db': create it with 'quarry mem add' or 'quarry mem import'" \
  sh -c "\"$Q\" mem get k --store '$TMP/none.db' 2>&1 >/dev/null | cat"
expect_out "mem error with --format json is JSON" '{"error":{"kind":"error","message":"no memory store at '"'$TMP/none.db'"': create it with '"'quarry mem add'"' or '"'quarry mem import'"'"}}' \
  sh -c "\"$Q\" mem get k --store '$TMP/none.db' --format json 2>&1 >/dev/null | cat"
expect_out "mem query error on a pipe is plain" "1" \
  sh -c "\"$Q\" mem query 'all sort:x' --store '$TMP/none.db' 2>&1 >/dev/null | grep -c '^quarry: '"
expect_rc "mem usage error exit 2 on a pipe" 2 sh -c "\"$Q\" mem get --store '$S' | cat; exit \$(\"$Q\" mem get --store '$S' 2>/dev/null | cat >/dev/null; \"$Q\" mem get --store '$S' >/dev/null 2>&1; echo \$?)"
expect_out "mem usage error plain on a pipe" "0" \
  sh -c "\"$Q\" mem get --store '$S' 2>&1 >/dev/null | grep -c '^{'"

# version
expect_out "version" "quarry $("$Q" version | sed 's/^quarry //')" "$Q" version
expect_out "version --format json" "{\"name\":\"quarry\",\"version\":\"$("$Q" version | sed 's/^quarry //')\"}" "$Q" version --format json
expect_out "version --format text" "$("$Q" version)" "$Q" version --format text
expect_rc "version --format xml" 2 "$Q" version --format xml

# scores: a float's precision, shortest form (spread halves 0.45f: 0.22499999403953552
# before)
printf '%s\n' '{"key":"a","type":"semantic","weight":0.5,"created":"2026-11-20T10:00:00Z","content":"alpha"}' \
  '{"key":"b","type":"semantic","weight":0.5,"created":"2026-11-20T10:00:00Z","content":"beta"}' \
  | "$Q" mem import - --store "$S" >/dev/null
"$Q" mem link a b --store "$S" --strength 0.45 >/dev/null
expect_out "mem query: scores in the shortest form" '"score":1.0 "score":0.225' \
  sh -c "\"$Q\" mem query 'key:a | spread,max_hops=1' --store '$S' --now 2026-11-21T00:00:00Z --format json | grep -o '\"score\":[0-9.e-]*' | sort -r | tr '\n' ' ' | sed 's/ \$//'"
expect_out "memory_query: the same" '"score":1.0 "score":0.225' \
  sh -c "QUARRY_MEMORY='$S' \"$Q\" tool memory_query --pipeline 'key:a | spread,max_hops=1' --format json | grep -o '\"score\":[0-9.e-]*' | sort -r | tr '\n' ' ' | sed 's/ \$//'"
# at 60 columns a ranked result keeps the column it ranks by (here `lines`, the last)
R="$TMP/repo"
git init -q -b main "$R"
git -C "$R" config user.name Ann; git -C "$R" config user.email ann@example.com
git -C "$R" config commit.gpgsign false
for n in 1 2 3 4; do
  seq 1 $((n * 7 % 5 * 10 + 3)) > "$R/f$n.txt"; git -C "$R" add .
  GIT_COMMITTER_DATE=2024-03-0${n}T10:00:00Z git -C "$R" commit -q --date=2024-03-0${n}T10:00:00Z \
    -m "A fairly long subject line for change number $n of this test"
done
(cd "$R" && COLUMNS=60 QUARRY_NOW=2024-06-01T00:00:00Z "$Q" ask 'largest commits in 2024' --format table) >"$TMP/ask60" 2>/dev/null
# the table: from its header (short_hash...) to the line saying what was left out
expect_out "ask at 60 columns keeps the ranking column" "lines 43 33 23 13" python3 -c "
rows = open('$TMP/ask60').read().split('\\n')
t = [l for l in rows[next(i for i, l in enumerate(rows) if l.startswith('short')):] if l and not l.startswith('(')]
print(' '.join(l.split()[-1] for l in t))"
expect_out "and the table fits in 60 columns" "0" python3 -c "
rows = open('$TMP/ask60').read().split('\\n')
t = rows[next(i for i, l in enumerate(rows) if l.startswith('short')):]
print(sum(len(l) > 60 for l in t if not l.startswith('(')))"
finish
