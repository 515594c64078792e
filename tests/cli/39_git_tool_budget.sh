# 39_git_tool_budget.sh: a git tool called from a Lisp program spends the program's budget.
# Over a real repository of 300 files and 10 commits, get_file_history {:path "*"} under
# --max-memory 256K fails with the tool's own memory-limit error (git's output is held to
# the program's memory, not read whole first), and the same call with room answers. A git
# that never finishes (a wrapper first on PATH that sleeps) is killed at the program's
# --timeout-ms. Messages and exit codes; the only time bound is a generous upper one.
. "$(dirname "$0")/lib.sh"

R="$TMP/repo"
mkdir -p "$R" && cd "$R" && git init -q . && git config user.email ann@example.com &&
  git config user.name Ann && git config commit.gpgsign false || exit 1
c=0
while [ $c -lt 10 ]; do
  i=0
  while [ $i -lt 300 ]; do
    mkdir -p "$R/directory_number_$((i % 10))"
    echo "int f${i}_$c;" >> "$R/directory_number_$((i % 10))/source_file_number_$i.c"
    i=$((i + 1))
  done
  git add -A && GIT_AUTHOR_DATE="2024-03-0$((c % 9 + 1)) 10:00:00 +0000" \
    GIT_COMMITTER_DATE="2024-03-0$((c % 9 + 1)) 10:00:00 +0000" git commit -qm "change $c"
  c=$((c + 1))
done

expect_out "with room: one row per file and commit" "3000" \
  "$Q" lisp --max-memory 64M -e '(count (tool/get_file_history {:path "*"}))'
expect_rc "--max-memory 256K: exit 1" 1 \
  "$Q" lisp --max-memory 256K -e '(count (tool/get_file_history {:path "*"}))'
expect_err "--max-memory 256K: the tool's memory limit" \
  "tool 'get_file_history': memory limit of 262144 bytes reached: git's output for this call is larger" \
  "$Q" lisp --max-memory 256K -e '(count (tool/get_file_history {:path "*"}))'

# a git that hangs: the program's time limit kills it
mkdir -p "$TMP/bin"
cat > "$TMP/bin/git" <<EOF
#!/bin/sh
case " \$* " in *" log "*) sleep 60 ;; esac
exec $(command -v git) "\$@"
EOF
chmod +x "$TMP/bin/git"
start=$(date +%s)
PATH="$TMP/bin:$PATH" timeout 50 "$Q" lisp --timeout-ms 2000 -e '(count (tool/get_file_history {:path "*"}))' >"$TMP/hang.out" 2>"$TMP/hang.err"
rc=$?
took=$(( $(date +%s) - start ))
expect_out "a hanging git: exit 1, not the 50 s guard" "1" echo $rc
expect_out "a hanging git: the time limit's message" "1" grep -c "time limit of 2000 ms reached" "$TMP/hang.err"
expect_out "a hanging git: killed well before its 60 s" "ok" sh -c "[ $took -lt 30 ] && echo ok || echo 'took $took s'"
finish
