# 37_dwim_safety.sh: what `quarry dwim` promises under hostile lines and trees, on a real
# C repository made here and indexed by the code indexer: a tool's required parameter
# given as key=value beside a known symbol runs (it crashed the parser), quoted values,
# a backtracking grep pattern ends with a message (the regex limits) and a cancel ends a
# slow grep between lines; fix never edits the git directory (.git/, a hook, $GIT_DIR, a
# linked worktree's gitdir or its .git file); a read-only file is refused; an edit keeps
# the file's mode and undo restores the exact mode; undo never overwrites changes made
# after the edit nor deletes a created file edited since; fix and undo work in a linked
# worktree. Races and kills: tests/probe/dwim_races.sh.
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
mkdir -p "$HOME"
R="$TMP/repo"
git init -q -b main "$R"
git -C "$R" config user.name T
git -C "$R" config user.email t@example.com
cat > "$R/a.c" <<'C'
int helper(int x)
{
    return x + 1;
}

int main(void)
{
    return helper(1);
}
C
printf '#!/bin/sh\necho run\n' > "$R/run.sh"
chmod 755 "$R/run.sh"
printf 'const\n' > "$R/ro.txt"
chmod 444 "$R/ro.txt"
git -C "$R" add -A
git -C "$R" commit -qm init
cd "$R" || exit 1

# ---- the parser ----
expect_rc "key=value beside a known symbol runs" 0 "$Q" dwim "get_file_history path=a.c main"
grep -q "a.c" "$TMP/stdout" || { echo "FAIL: get_file_history printed no history of a.c"; FAILS=$((FAILS + 1)); }
"$Q" dwim parse "get_commits author='ann smith'" | head -1 > "$TMP/parse.out"
expect_out "quoted value" "run 0.95 tool -> get_commits {:author \"ann smith\"}" cat "$TMP/parse.out"

# ---- grep: the regex limits, and a cancel between lines ----
awk 'BEGIN { for (i = 0; i < 3000; i++) print "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" }' > many_a.txt
expect_err "catastrophic pattern ends with a message" "is too costly at many_a.txt:1" \
  timeout 60 "$Q" dwim "grep '(a*)*(b|c)'"
rm many_a.txt
# each line costs many backtracking steps, under the limit; 10,000 lines take minutes: a
# SIGINT must end the walk between lines, well before the 60 s guard
awk 'BEGIN { for (i = 0; i < 10000; i++) print "aaaaaaaaaaaaaaaaaaaaaaaaa" }' > slow.txt
timeout 60 "$Q" dwim "grep '(?:a|aa)*(?=b)'" > "$TMP/slow.out" 2> "$TMP/slow.err" &
pid=$!
# the signal goes once quarry catches SIGINT (its request's handler, set before the walk
# starts; a signal before that would be the default end, whatever the machine's speed)
n=0
while [ $n -lt 1200 ]; do
  qpid=$(pgrep -P $pid | head -1)
  # the child timeout forked is quarry only once it has exec'd it: before, it is a copy
  # of timeout, which catches SIGINT too
  caught=
  [ -n "$qpid" ] && [ "$(readlink "/proc/$qpid/exe" 2>/dev/null)" = "$(readlink -f "$Q")" ] &&
    caught=$(awk '/^SigCgt/ {print $2}' "/proc/$qpid/status" 2>/dev/null)
  [ -n "$caught" ] && [ $(( 0x$caught & 2 )) -ne 0 ] && break
  sleep 0.05; n=$((n + 1))
done
sleep 0.3
# to quarry itself, once: signalled through timeout, it gets SIGINT twice (timeout passes
# it on and then signals its process group), and a second SIGINT is the default end (130)
kill -INT "${qpid:-$pid}" 2>/dev/null
wait $pid; rc=$?
if [ "$rc" = 124 ] || [ "$rc" = 0 ] || ! grep -qi "cancel" "$TMP/slow.err"; then
  echo "FAIL: a cancelled grep went on (exit $rc)"; sed 's/^/  /' "$TMP/slow.err"; FAILS=$((FAILS + 1))
fi
rm slow.txt

# ---- fix never edits the git directory ----
for target in .git/config .git/hooks/pre-commit .git/quarry/dwim-undo/000001.path; do
  mkdir -p "$(dirname "$target")"; touch "$target"
  expect_err "fix refuses $target" "is in the git directory" "$Q" dwim --write "fix $target
<<<<<<< SEARCH
=======
[core]
	fsmonitor = id
>>>>>>> REPLACE"
  expect_err "a diff refuses $target" "is in the git directory" "$Q" dwim --write "fix
--- a/$target
+++ b/$target
@@ -0,0 +1 @@
+x"
done
rm -f .git/quarry/dwim-undo/000001.path
expect_err "a diff may not create a hook" "is in the git directory" "$Q" dwim --write "fix
--- /dev/null
+++ b/.git/hooks/post-commit
@@ -0,0 +1,2 @@
+#!/bin/sh
+id"
[ -e .git/hooks/post-commit ] && { echo "FAIL: a hook was created"; FAILS=$((FAILS + 1)); }
expect_rc "nothing was logged" 2 "$Q" dwim undo

# ---- modes ----
expect_err "a read-only file is refused" "'ro.txt' is read-only (mode 0444)" "$Q" dwim --write "fix ro.txt
<<<<<<< SEARCH
const
=======
changed
>>>>>>> REPLACE"
expect_out "read-only file untouched" "const 444" sh -c 'printf "%s %s" "$(cat ro.txt)" "$(stat -c %a ro.txt)"'
expect_out "edit of an executable" "edited run.sh at line 2: -4 +4 bytes (quarry dwim undo restores it)" \
  "$Q" dwim --write "fix run.sh
<<<<<<< SEARCH
run
=======
ran
>>>>>>> REPLACE"
expect_out "the edit keeps the mode" "755" stat -c %a run.sh
chmod 750 run.sh
printf '#!/bin/sh\necho ran\n' > "$TMP/ran"
expect_out "undo restores" "restored run.sh" "$Q" dwim undo
expect_out "undo restores the exact mode" "755 run" sh -c 'printf "%s %s" "$(stat -c %a run.sh)" "$(sed -n 2p run.sh | cut -c6-)"'

# ---- undo never loses later work ----
expect_rc "an edit" 0 "$Q" dwim --write "fix a.c
<<<<<<< SEARCH
    return x + 1;
=======
    return x + 2;
>>>>>>> REPLACE"
sed -i 's/x + 2/x + 3/' a.c
expect_err "undo refuses to overwrite a later change" "'a.c' changed since the edit; undo would overwrite those changes" \
  "$Q" dwim undo
expect_out "the later change is kept" "    return x + 3;" grep 'return x' a.c
sed -i 's/x + 3/x + 2/' a.c
expect_out "once back as the edit left it, undo works" "restored a.c" "$Q" dwim undo
expect_out "the original is back" "    return x + 1;" grep 'return x' a.c
expect_rc "a created file" 0 "$Q" dwim --write "fix
--- /dev/null
+++ b/new.c
@@ -0,0 +1 @@
+int created;"
echo 'int mine;' >> new.c
expect_err "undo does not delete a created file edited since" "'new.c' was created by the edit and changed since; undo does not delete it" \
  "$Q" dwim undo
expect_out "the created file stays" "int created;
int mine;" cat new.c
printf 'int created;\n' > new.c
expect_out "undo deletes it once it is as created" "restored new.c" "$Q" dwim undo
[ -e new.c ] && { echo "FAIL: new.c left"; FAILS=$((FAILS + 1)); }

# ---- a linked worktree: .git is a file there ----
git worktree add -q "$TMP/wt" -b side
cd "$TMP/wt" || exit 1
expect_out "fix in a linked worktree" "edited a.c at line 3: -18 +18 bytes (quarry dwim undo restores it)" \
  "$Q" dwim --write "fix a.c
<<<<<<< SEARCH
    return x + 1;
=======
    return x + 9;
>>>>>>> REPLACE"
expect_err "the worktree's .git file is refused" "is in the git directory" "$Q" dwim --write "fix .git
<<<<<<< SEARCH
gitdir
=======
gitdir
>>>>>>> REPLACE"
WTGIT=$(git rev-parse --absolute-git-dir)
expect_err "the worktree's gitdir is refused" "outside the working tree" "$Q" dwim --write "fix $WTGIT/HEAD
<<<<<<< SEARCH
ref
=======
ref
>>>>>>> REPLACE"
expect_out "undo in a linked worktree" "restored a.c" "$Q" dwim undo
expect_out "worktree file restored" "    return x + 1;" grep 'return x' a.c
cd "$R" || exit 1
expect_out "the main tree untouched" "    return x + 1;" grep 'return x' a.c

finish
