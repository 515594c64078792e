# 19_dwim_diff.sh: `quarry dwim --write` with unified diffs on a real repository: several
# files and hunks applied, then undone as one edit; a new file and a deleted file; a
# headerless hunk on the file the line names; a CRLF file; and the refusals, each leaving
# every file as it was and the undo log empty: a second file whose hunk does not apply
# (the first file, already applied in memory, is not written), a path with .., an
# absolute path, a symbolic link (inside and out of the tree), a binary file, a new file
# that exists, wrong context.
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
mkdir -p "$HOME"
R="$TMP/repo"
git init -q -b main "$R"
git -C "$R" config user.name T
git -C "$R" config user.email t@example.com
mkdir -p "$R/src"
printf 'int add(int a, int b)\n{\n    return a + b;\n}\n\nint sub(int a, int b)\n{\n    return a - b;\n}\n' > "$R/src/a.c"
printf 'int mul(int a, int b)\n{\n    return a * b;\n}\n' > "$R/src/b.c"
printf 'one\r\ntwo\r\nthree\r\n' > "$R/src/crlf.txt"
printf 'x\0y\n' > "$R/src/blob.bin"
printf 'gone\n' > "$R/src/old.c"
git -C "$R" add -A
git -C "$R" commit -qm init
cd "$R" || exit 1
# the tree's paths, contents and link targets (not times)
snapshot() {
  find . -path ./.git -prune -o -type f -exec md5sum {} + -o -type l -printf '%p -> %l\n' |
    sort | md5sum
}
BEFORE=$(snapshot)

TWO='--- a/src/a.c
+++ b/src/a.c
@@ -1,4 +1,4 @@
 int add(int a, int b)
 {
-    return a + b;
+    return b + a;
 }
@@ -6,4 +6,4 @@
 int sub(int a, int b)
 {
-    return a - b;
+    return -(b - a);
 }
diff --git a/src/b.c b/src/b.c
index 1111111..2222222 100644
--- a/src/b.c
+++ b/src/b.c
@@ -2,3 +2,3 @@
 {
-    return a * b;
+    return b * a;
 }'
expect_err "diff needs --write" "run with --write" "$Q" dwim "fix
$TWO"
expect_out "two files, three hunks" "edited src/a.c at line 3: -2 +2 lines
edited src/b.c at line 3: -1 +1 lines
(quarry dwim undo restores them)" "$Q" dwim --write "fix
$TWO"
expect_out "a.c edited" "    return b + a;|    return -(b - a);" sh -c "sed -n '3p;8p' src/a.c | paste -sd'|'"
expect_out "b.c edited" "    return b * a;" sed -n 3p src/b.c
expect_out "one undo restores both" "restored src/b.c
restored src/a.c" "$Q" dwim undo
expect_out "tree as it was" "$BEFORE" snapshot
expect_rc "nothing left to undo" 2 "$Q" dwim undo

# new and deleted files, in one edit
NEWDEL='--- /dev/null
+++ b/src/new.c
@@ -0,0 +1,2 @@
+int neu(void);
+int neu(void) { return 1; }
--- a/src/old.c
+++ /dev/null
@@ -1 +0,0 @@
-gone'
expect_out "create and delete" "created src/new.c: +2 lines
deleted src/old.c: -1 lines
(quarry dwim undo restores them)" "$Q" dwim --write "fix
$NEWDEL"
expect_out "new file content" "int neu(void) { return 1; }" sed -n 2p src/new.c
expect_out "old file gone" "no" sh -c "test -e src/old.c && echo yes || echo no"
expect_out "undo create and delete" "restored src/old.c
restored src/new.c" "$Q" dwim undo
expect_out "tree as it was after create/delete" "$BEFORE" snapshot

# a headerless hunk applies to the file the line names, found 2 lines off
expect_out "headerless" "edited src/a.c at line 8: -1 +1 lines
(quarry dwim undo restores it)" "$Q" dwim --write "fix src/a.c
@@ -6,1 +6,1 @@
-    return a - b;
+    return a - b - 0;"
expect_out "headerless undo" "restored src/a.c" "$Q" dwim undo
# a CRLF file keeps its line endings
expect_out "crlf" "edited src/crlf.txt at line 2: -1 +1 lines
(quarry dwim undo restores it)" "$Q" dwim --write "fix src/crlf.txt
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three"
expect_out "crlf bytes" "$(printf 'one\r\nTWO\r\nthree\r\n' | od -c)" od -c src/crlf.txt
expect_out "crlf undo" "restored src/crlf.txt" "$Q" dwim undo
expect_out "tree as it was after the single-file edits" "$BEFORE" snapshot

# refusals: nothing written, nothing logged
refused() { # refused NAME WORDS DIFF
  expect_err "$1" "$2" "$Q" dwim --write "fix
$3"
  expect_out "$1: tree untouched" "$BEFORE" snapshot
  expect_rc "$1: no undo entry" 2 "$Q" dwim undo
}
refused "second file fails, first not written" "hunk 1 of 'src/b.c' (@@ -2,3) does not apply" \
'--- a/src/a.c
+++ b/src/a.c
@@ -3 +3 @@
-    return a + b;
+    return b + a;
--- a/src/b.c
+++ b/src/b.c
@@ -2,3 +2,3 @@
 {
-    return a / b;
+    return b / a;
 }'
echo 'secret' > "$TMP/outside.c"
refused "path with .." "leaves the working tree" '--- a/../outside.c
+++ b/../outside.c
@@ -1 +1 @@
-secret
+owned'
refused "absolute path" "absolute path" "--- $TMP/outside.c
+++ $TMP/outside.c
@@ -1 +1 @@
-secret
+owned"
ln -s "$TMP/outside.c" src/out.c
BEFORE=$(snapshot)
refused "symlink out of the tree" "outside the working tree" '--- a/src/out.c
+++ b/src/out.c
@@ -1 +1 @@
-secret
+owned'
expect_out "outside untouched" "secret" cat "$TMP/outside.c"
rm src/out.c
ln -s b.c src/in.c
BEFORE=$(snapshot)
refused "symlink inside the tree" "is a symbolic link" '--- a/src/in.c
+++ b/src/in.c
@@ -3 +3 @@
-    return a * b;
+    return b * a;'
rm src/in.c
BEFORE=$(snapshot)
refused "binary file" "is a binary file" '--- a/src/blob.bin
+++ b/src/blob.bin
@@ -1 +1 @@
-xy
+z'
refused "binary patch" "binary patches are not supported" 'diff --git a/src/blob.bin b/src/blob.bin
GIT binary patch
literal 4
Lc${NkU|;|M00aO5'
refused "new file that exists" "already exists" '--- /dev/null
+++ b/src/b.c
@@ -0,0 +1 @@
+x'
refused "wrong context" "line 2 reads '{'" '--- a/src/b.c
+++ b/src/b.c
@@ -2,2 +2,2 @@
-    return a / b;
+    return b * a;
 }'
refused "overlapping hunks" "overlaps" '--- a/src/a.c
+++ b/src/a.c
@@ -2,2 +2,2 @@
 {
-    return a + b;
+    return b + a;
@@ -3,1 +3,1 @@
-    return a + b;
+    return 0;'
refused "no file for a headerless hunk" "needs a file" '@@ -3 +3 @@
-    return a + b;
+    return b + a;'
expect_rc "refusal exit code" 2 "$Q" dwim --write "fix
--- a/src/b.c
+++ b/src/b.c
@@ -1 +1 @@
-nope
+x"
finish
