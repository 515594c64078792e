# 29_table_width.sh: tables fit the terminal's width and line up wide characters.
# `quarry tool get_commits --format table` on a repository whose authors are written in
# CJK (two columns a character), with combining accents (none) and an emoji: with
# COLUMNS set, every line fits in it (the widest text column is cut with "...", numbers
# never are), and every row's columns start at the same display column; without COLUMNS
# on a pipe the rows are whole. Display widths are measured here with Python's
# unicodedata (East Asian Width W/F: 2, combining: 0), independently of quarry's tables.
# Also: `quarry mem` subcommands' unknown options and commands get one suggestion, and
# JSON errors under --format json.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null 2>&1 || { echo "skipped: python3 is not installed"; exit 77; }

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY COLUMNS
mkdir -p "$HOME"
R="$TMP/repo"
git init -q -b main "$R"
i=0
for who in '山田太郎 <yamada@example.com>' 'José Müller <jose@example.com>' \
  'Zoë Ångström <zoe@example.com>' '김민준 <kim@example.com>' 'Ann 🚀 <ann@example.com>'; do
  i=$((i + 1))
  printf 'commit refs/heads/main\ncommitter %s %d +0000\ndata <<END\n' "$who" $((1700000000 + i * 3600))
  printf '%s\nEND\nM 644 inline f%d.txt\ndata 2\n%d\n\n' "変更 $i: a subject long enough that a narrow terminal cannot show all of it, ça va" $i $i
done | git -C "$R" fast-import --quiet
git -C "$R" reset -q --hard main

# checks FILE WIDTH: every line of FILE at most WIDTH display columns (0: no limit), and
# the columns of the header start where each row's do
cat >"$TMP/check.py" <<'PY'
import sys, unicodedata
def width(s):
    w = 0
    for ch in s:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        w += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    return w
# (a last line in parentheses says what was left out)
lines = [l for l in open(sys.argv[1], encoding="utf-8").read().split("\n")[:-1] if not l.startswith("(")]
limit = int(sys.argv[2])
bad = [l for l in lines if limit and width(l) > limit]
if bad:
    print("wider than %d: %r (%d)" % (limit, bad[0], width(bad[0]))); sys.exit(1)
# the display column where each header word starts; a left-aligned text column's cells
# start there too (a cell may be empty only at the end of a line)
head = lines[0]
starts, col, prev = [], 0, " "
for ch in head:
    if ch != " " and prev == " ":
        starts.append(col)
    col += width(ch); prev = ch
name = sys.argv[3]
i = head.split().index(name)
for l in lines[1:]:
    # the display column where the named column's text starts in this row
    col, pos = 0, 0
    while col < starts[i] and pos < len(l):
        col += width(l[pos]); pos += 1
    if col != starts[i] or l[pos - 1:pos] not in (" ",) or l[pos:pos + 1] == " ":
        print("column %s misaligned in %r" % (name, l)); sys.exit(1)
print("ok")
PY

for w in 60 80 100 150; do
  COLUMNS=$w "$Q" tool get_commits --repo "$R" --format table >"$TMP/t$w" 2>"$TMP/err"
  # (author: the column of wide and combining characters, kept at every width)
  if ! python3 "$TMP/check.py" "$TMP/t$w" $w author >"$TMP/c" 2>&1; then
    echo "FAIL: COLUMNS=$w: $(cat "$TMP/c")"; sed 's/^/  /' "$TMP/t$w"; FAILS=$((FAILS + 1))
  fi
done
grep -q '\.\.\.' "$TMP/t60" || { echo "FAIL: COLUMNS=60 cut nothing"; FAILS=$((FAILS + 1)); }
# get_commits names the columns a reader needs: at 60 they are what is left (the subject
# above all), in the table's order
expect_out "COLUMNS=60 keeps the columns get_commits names" "short_hash author subject" \
  sh -c "head -1 '$TMP/t60' | tr -s ' ' ' ' | sed 's/ \$//'"
grep -q '山田太郎' "$TMP/t150" || { echo "FAIL: the CJK name is not shown whole at 150 columns"; FAILS=$((FAILS + 1)); }
grep -q '^(.* columns left out to fit 60 columns; --format json shows all)$' "$TMP/t60" ||
  { echo "FAIL: at 60 columns no line says columns were left out"; FAILS=$((FAILS + 1)); }
# on a pipe without COLUMNS: whole rows (the subject is longer than 60 columns: cut at the
# 60-column cell limit only)
"$Q" tool get_commits --repo "$R" --format table >"$TMP/pipe"
python3 "$TMP/check.py" "$TMP/pipe" 0 date >/dev/null || { echo "FAIL: misaligned on a pipe"; FAILS=$((FAILS + 1)); }
max=$(python3 -c 'import sys,unicodedata
w=lambda s: sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
print(max(w(l) for l in open(sys.argv[1],encoding="utf-8").read().split("\n")))' "$TMP/pipe")
[ "$max" -gt 100 ] || { echo "FAIL: a pipe without COLUMNS cut the rows to $max columns"; FAILS=$((FAILS + 1)); }
# the widest columns are cut first: at 150 the subject is cut, the narrow columns whole
grep -q "変更 1: a[a-z ]*\.\.\." "$TMP/t150" || { echo "FAIL: the subject is not cut at 150"; FAILS=$((FAILS + 1)); }
grep -q "Zoë Ångström" "$TMP/t150" || { echo "FAIL: a narrow column was cut at 150"; FAILS=$((FAILS + 1)); }
expect_rc "a COLUMNS that is no number is ignored" 0 env COLUMNS=wide "$Q" tool get_commits --repo "$R" --format table

# quarry mem: one suggestion, JSON errors
S="$TMP/store.db"
expect_err "mem add: unknown option, one suggestion" "unknown option '--tagg' (did you mean '--tag'?)" \
  "$Q" mem add k1 --store "$S" --tagg x
expect_rc "and exits 2" 2 "$Q" mem add k1 --store "$S" --tagg x
expect_err "mem: unknown command, one suggestion" "unknown command 'quer' (did you mean 'query'?)" \
  "$Q" mem quer --store "$S"
expect_err "mem query: unknown option" "quarry mem query: unknown option '--explian' (did you mean '--explain'?)" \
  "$Q" mem query 'key:x' --store "$S" --explian
expect_err "mem agent: unknown verb" "unknown agent command 'lst' (did you mean 'list'?)" \
  "$Q" mem agent lst --store "$S"
"$Q" mem add k1 --store "$S" --tagg x --format json 2>"$TMP/jerr"
python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["error"]; assert e["kind"]=="usage" and "--tag" in e["message"], e' "$TMP/jerr" ||
  { echo "FAIL: mem add --format json: the usage error is not JSON:"; sed 's/^/  /' "$TMP/jerr"; FAILS=$((FAILS + 1)); }
"$Q" mem nope --format json 2>"$TMP/jerr"
python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["error"]; assert e["kind"]=="usage", e' "$TMP/jerr" ||
  { echo "FAIL: mem nope --format json: not JSON:"; sed 's/^/  /' "$TMP/jerr"; FAILS=$((FAILS + 1)); }
finish
