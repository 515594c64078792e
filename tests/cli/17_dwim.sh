# 17_dwim.sh: `quarry dwim` on a C repository built here: parse (JSON shape, bands), the
# verbs run one line at a time (skeleton of a file and a directory, expand, read, grep
# respecting .gitignore, a code graph route, a registry tool), validate with a real
# compiler run (make -k) and its diagnostics, fix (a SEARCH/REPLACE block and a symbol's
# new body) only with --write, then undo; and the hostile set for fix: paths outside the
# tree, a symlink out (the undo log untouched). Unified diffs: 19_dwim_diff.sh; a file
# changed between the read and the fix (a real race, made by the test): 18_dwim_do.sh.
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
mkdir -p "$HOME"
if ! command -v cc >/dev/null || ! command -v make >/dev/null; then
  echo "skip: no cc or make"; exit 77
fi
R="$TMP/repo"
git init -q -b main "$R"
git -C "$R" config user.name T
git -C "$R" config user.email t@example.com
mkdir -p "$R/src" "$R/build"
cat > "$R/src/calc.c" <<'C'
#include "calc.h"

struct acc {
    int total;
    int count;
};

int add(int a, int b)
{
    return a + b;
}

static int twice(int a)
{
    return add(a, a);
}

int mean(struct acc *s)
{
    return s->count ? s->total / s->count : twice(0);
}
C
cat > "$R/src/calc.h" <<'C'
struct acc;
int add(int a, int b);
int mean(struct acc *s);
C
printf 'all:\n\tcc -Wall -c src/calc.c -o build/calc.o\n' > "$R/Makefile"
printf 'build/\n' > "$R/.gitignore"
echo 'int add(int a, int b);' > "$R/build/ignored.c"
git -C "$R" add -A
git -C "$R" commit -qm init
cd "$R" || exit 1

# parse: the JSON shape, and bands
expect_out "parse json" '{"verb":"expand","target":"add","targets":["add"],"content":null,"tool":"expand","params":{"symbol":"add"},"confidence":0.95,"alternatives":[]}' \
  "$Q" dwim parse "expand add" --format json
# one deletion under the shared typo measure (src/words): 0.95 * (1 - 2 * 0.025)
expect_out "parse typo" "run 0.90 skeleton -> skeleton 'src/calc.c' {:path \"src/calc.c\"}" \
  "$Q" dwim parse "skeletn src/calc.c"
# issue 27: a bare verb is sure and says what is missing; key=value names the target;
# grep 'PAT' DIR searches DIR only
expect_out "bare verb" '{"verb":"skeleton","target":null,"targets":[],"content":null,"tool":"skeleton","params":{},"missing":["target"],"confidence":0.95,"alternatives":[]}' \
  "$Q" dwim parse "skeleton" --format json
"$Q" dwim parse "read path=src/calc.c" | head -1 > "$TMP/kv.out"
expect_out "key=value target" "run 0.95 read -> read 'src/calc.c' {:path \"src/calc.c\"}" \
  cat "$TMP/kv.out"
printf 'int add_outside;\n' > add_note.txt
grep_src=$("$Q" dwim "grep 'add' src/" 2>&1)
case "$grep_src" in
  *src/calc.c*) ;;
  *) echo "FAIL: grep 'add' src/ found nothing in src/: $grep_src"; FAILS=$((FAILS + 1)) ;;
esac
case "$grep_src" in
  *add_note.txt*) echo "FAIL: grep 'add' src/ searched outside src/"; FAILS=$((FAILS + 1)) ;;
esac
"$Q" dwim "grep 'add_outside'" 2>&1 | grep -q add_note.txt || {
  echo "FAIL: grep without a path no longer searches the whole tree"; FAILS=$((FAILS + 1)); }
rm -f add_note.txt
expect_out "parse reject" "reject 0.00 none {}" "$Q" dwim parse "make coffee"
expect_rc "a reject is not run" 2 "$Q" dwim "make coffee"
expect_err "a clarify shows readings" "clarify" "$Q" dwim "what functions are in this file"

# skeleton: signatures and members with lines, no bodies
expect_out "skeleton file" "src/calc.c
3-6 struct acc
    4 int total
    5 int count
8-11 int add(int a, int b)
13-16 static int twice(int a)
18-21 int mean(struct acc *s)" "$Q" dwim "skeleton src/calc.c"
expect_out "skeleton dir" "src/calc.c: acc add mean
src/calc.h: add mean" "$Q" dwim "outline src"
expect_out "expand" "src/calc.c:8-11 function add
     8  int add(int a, int b)
     9  {
    10      return a + b;
    11  }" "$Q" dwim "expand add"
# "struct X" to the code tools: the name and its kind apart (the tool knows no "struct acc")
expect_out "definition of struct X: name and kind" '"target":"acc","targets":["acc"]' sh -c "'$Q' dwim parse 'definition struct acc' --format json | grep -o '\"target\":\"acc\",\"targets\":\[\"acc\"\]'"
expect_out "definition of struct X: found" 'struct' sh -c "'$Q' dwim 'definition struct acc' --format json | grep -o '\"kind\":\"struct\"' | head -1 | cut -d'\"' -f4"
expect_out "expand file:symbol" "src/calc.c:13-16 function twice" sh -c "'$Q' dwim 'expand calc.c:twice' | head -1"
expect_out "expand struct" "src/calc.c:3-6 struct acc" sh -c "'$Q' dwim 'expand struct acc' | head -1"
expect_out "expand member" "src/calc.c:5-5 member count" sh -c "'$Q' dwim 'expand acc.count' | head -1"
expect_err "expand unknown" "no symbol 'nosuch'" "$Q" dwim "expand nosuch"
expect_out "read range" "src/calc.c:9-10
     9  {
    10      return a + b;
... 21 lines in all" "$Q" dwim "read src/calc.c:9-10"
# grep: tracked and untracked-but-not-ignored files; build/ is ignored
expect_out "grep" "src/calc.c-7-
src/calc.c:8:int add(int a, int b)
src/calc.c-9-{
src/calc.c-14-{
src/calc.c:15:    return add(a, a);
src/calc.c-16-}
src/calc.h-1-struct acc;
src/calc.h:2:int add(int a, int b);
src/calc.h-3-int mean(struct acc *s);
3 matches in 2 files" "$Q" dwim "grep 'add\\('"
# a pattern that is no regular expression is searched as the text written, and says so
expect_out "grep bad regex as text" "true" sh -c "'$Q' dwim \"grep '('\" | grep -q 'searched as plain text' && echo true"
# key=value terms are honoured or refused, never dropped (issue 27)
expect_out "grep limit" "1" sh -c "'$Q' dwim 'grep add limit=1' | grep -c '^src/[a-z.]*:[0-9]*:'"
expect_err "grep unknown key" "'grep' takes pattern, path, limit; not 'colour'" "$Q" dwim "grep add colour=red"
expect_err "skeleton bad limit" "limit=\"-3\" is out of range" "$Q" dwim "skeleton src limit=-3"
expect_err "callers unknown key" "unknown parameter 'bogus'" "$Q" dwim "callers add bogus=1"
expect_out "callers route" "true" sh -c "'$Q' dwim 'callers add' | grep -q 'src/calc.c:twice' && echo true"
expect_out "registry tool route" "true" sh -c "'$Q' dwim 'get_commits limit=1' | grep -q ':message \"init' && echo true"

# validate: a real compiler run
expect_out "validate ok" "make -k: ok (exit 0), 0 errors, 0 warnings" "$Q" dwim validate

# fix: refused without --write, then a block applied, validated, undone
BLOCK='fix src/calc.c
<<<<<<< SEARCH
    return a + b;
=======
    return a + b
>>>>>>> REPLACE'
expect_err "fix needs --write" "run with --write" "$Q" dwim "$BLOCK"
cp src/calc.c "$TMP/calc.orig"
expect_out "fix applied" "edited src/calc.c at line 10: -18 +17 bytes (quarry dwim undo restores it)" \
  "$Q" dwim --write "$BLOCK"
expect_out "validate sees the error" "true" sh -c "'$Q' dwim validate | grep -q '^src/calc.c:10:.*: error: ' && echo true"
expect_out "validate summary" "true" sh -c "'$Q' dwim check | head -1 | grep -q 'make -k: failed (exit 2), 1 error' && echo true"
expect_out "undo" "restored src/calc.c" "$Q" dwim undo
expect_out "undo restored the bytes" "same" sh -c "cmp -s src/calc.c '$TMP/calc.orig' && echo same"
expect_rc "nothing left to undo" 2 "$Q" dwim undo
# a symbol's new body
expect_out "fix symbol" "edited src/calc.c at line 8: -43 +43 bytes (quarry dwim undo restores it)" \
  "$Q" dwim --write "fix add
int add(int a, int b)
{
    return b + a;
}"
expect_out "new body in place" "    return b + a;" sed -n 10p src/calc.c
expect_out "undo symbol" "restored src/calc.c" "$Q" dwim undo
expect_out "symbol undone" "same" sh -c "cmp -s src/calc.c '$TMP/calc.orig' && echo same"

# hostile: outside the tree, a symlink out, a file changed underneath
echo 'secret' > "$TMP/outside.c"
expect_err "fix ../ outside" "outside the working tree" "$Q" dwim --write "fix ../outside.c
<<<<<<< SEARCH
secret
=======
owned
>>>>>>> REPLACE"
expect_err "fix absolute outside" "outside the working tree" "$Q" dwim --write "fix $TMP/outside.c
<<<<<<< SEARCH
secret
=======
owned
>>>>>>> REPLACE"
ln -s "$TMP/outside.c" src/link.c
expect_err "fix symlink out" "outside the working tree" "$Q" dwim --write "fix src/link.c
<<<<<<< SEARCH
secret
=======
owned
>>>>>>> REPLACE"
expect_out "outside untouched" "secret" cat "$TMP/outside.c"
expect_err "read outside" "outside the working tree" "$Q" dwim "read ../outside.c"
rm src/link.c
expect_err "search text missing" "not in 'src/calc.c'" "$Q" dwim --write "fix src/calc.c
<<<<<<< SEARCH
no such text
=======
x
>>>>>>> REPLACE"
expect_rc "no undo entry for a refused edit" 2 "$Q" dwim undo
finish
