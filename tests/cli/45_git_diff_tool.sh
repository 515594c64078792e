# 45_git_diff_tool.sh: get_diff, the patch text of a change (src/git/diff_tool.c), on a
# repository made here: one commit against its first parent, a root commit, two refs and
# a range, the same pathspec rules as the other git tools, pages of files with
# next_offset, a file longer than a page cut at a line end; the text agrees with
# `git diff` byte for byte whatever the user's diff settings; bad input is a one-line
# error with exit 2.
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
mkdir -p "$HOME"
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
R="$TMP/repo"
git init -q -b main "$R"
git -C "$R" config user.name T
git -C "$R" config user.email t@example.com
cd "$R" || exit 1
mkdir -p src docs
printf 'a\nb\nc\n' > f.txt
printf 'int x;\n' > src/one.c
printf 'int y;\n' > src/two.c
git add -A && git commit -qm one
printf 'a\nB\nc\n' > f.txt
git rm -q src/two.c
printf 'new\n' > docs/n.md
seq 1 400 | sed 's/^/line /' > src/big.c
git add -A && git commit -qm two
printf 'a\nB\nC\n' > f.txt
git commit -qam three
# user settings that would change git diff's text: get_diff is not moved by them
git config diff.noprefix true
git config diff.mnemonicPrefix true
cat > "$TMP/sum.py" <<'PY'
import json, sys
d = json.load(sys.stdin)
for p in d["patches"]:
    print(p["path"], p["status"], p["additions"], p["deletions"], "cut" if p.get("cut") else "-")
print("files", d["files"], "next", d["next_offset"])
PY
gd() { "$Q" tool get_diff --format json "$@" | python3 "$TMP/sum.py"; }

expect_out "one commit, per file" "docs/n.md A 1 0 -
f.txt M 1 1 -
src/big.c A 400 0 -
src/two.c D 0 1 -
files 4 next None" gd --commit HEAD~1
"$Q" tool get_diff --commit HEAD~1 --max_chars 1000000 --format json \
  | python3 -c 'import json,sys; sys.stdout.write("".join(p["patch"] for p in json.load(sys.stdin)["patches"]))' > "$TMP/ours"
git -c diff.noprefix=false -c diff.mnemonicPrefix=false diff --no-color --no-renames HEAD~2 HEAD~1 > "$TMP/git"
expect_out "the same text as git diff" "same" sh -c "cmp -s '$TMP/ours' '$TMP/git' && echo same"
expect_out "removed lines are there" "-b" sh -c "'$Q' tool get_diff --commit HEAD~1 --path f.txt --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"patches\"][0][\"patch\"].splitlines()[-3])'"
expect_out "a root commit against the empty tree" "f.txt A 3 0 -
src/one.c A 1 0 -
src/two.c A 1 0 -
files 3 next None" gd --commit HEAD~2
expect_out "two refs" "docs/n.md A 1 0 -
f.txt M 1 1 -
src/big.c A 400 0 -
src/two.c D 0 1 -
files 4 next None" gd --from HEAD~2 --to HEAD~1
expect_out "a range" "f.txt M 2 2 -
files 1 next None" gd --from HEAD~2..HEAD --path f.txt
# the pathspec rules of the other git tools: a directory, a glob, an exclusion
expect_out "a directory" "src/big.c A 400 0 -
src/two.c D 0 1 -
files 2 next None" gd --commit HEAD~1 --path src
expect_out "a glob" "docs/n.md A 1 0 -
files 1 next None" gd --commit HEAD~1 --path '*.md'
expect_out "an exclusion" "docs/n.md A 1 0 -
f.txt M 1 1 -
files 2 next None" gd --commit HEAD~1 --path ':!src'
# pages: limit files, or max_chars of text (at least one file a page)
expect_out "page 1 by limit" "docs/n.md A 1 0 -
f.txt M 1 1 -
files 4 next 2" gd --commit HEAD~1 --limit 2
expect_out "page 2 by limit" "src/big.c A 400 0 -
src/two.c D 0 1 -
files 4 next None" gd --commit HEAD~1 --limit 2 --offset 2
expect_out "a page ends before a file that does not fit" "docs/n.md A 1 0 -
f.txt M 1 1 -
files 4 next 2" gd --commit HEAD~1 --max_chars 400
expect_out "a file longer than a page is cut at a line end" "src/big.c A 400 0 cut
files 4 next 3" gd --commit HEAD~1 --max_chars 400 --offset 2
expect_out "the cut ends with a whole line" "ok" sh -c "'$Q' tool get_diff --commit HEAD~1 --max_chars 400 --offset 2 --format json | python3 -c 'import json,sys; t=json.load(sys.stdin)[\"patches\"][0][\"patch\"]; assert len(t) <= 400 and t.endswith(\"\\n\"), t; print(\"ok\")'"
expect_out "offset past the end" "files 4 next None" gd --commit HEAD~1 --offset 9
# errors: one line, exit 2
expect_err "unknown ref" "tool 'get_diff': unknown ref 'nope'" "$Q" tool get_diff --commit nope
expect_rc "unknown ref exit" 2 "$Q" tool get_diff --commit nope
expect_err "nothing to compare" "missing what to compare" "$Q" tool get_diff
expect_err "commit and from" "give either 'commit' or 'from'" "$Q" tool get_diff --commit HEAD --from HEAD~1
expect_err "a path outside" "is outside the repository" "$Q" tool get_diff --commit HEAD --path ../x
expect_rc "a path outside exit" 2 "$Q" tool get_diff --commit HEAD --path ../x
expect_rc "max_chars too small" 2 "$Q" tool get_diff --commit HEAD --max_chars 10
# from a program and from the DWIM line
expect_out "from Lisp" "1" "$Q" lisp -e '(count (:patches (tool/get_diff {:commit "HEAD"})))'
expect_out "from a dwim line: the patch as text" "$(git rev-parse --short=7 HEAD~1)..$(git rev-parse --short=7 HEAD): 1 file
diff --git a/f.txt b/f.txt" sh -c "'$Q' dwim 'get_diff commit=HEAD' | sed -n 1,2p"
expect_out "a dwim line's page says where the next starts" "$(git rev-parse --short=7 HEAD~2)..$(git rev-parse --short=7 HEAD~1): 4 files, 1-2 shown (next page: offset=2)" \
  sh -c "'$Q' dwim 'get_diff commit=HEAD~1 limit=2' | head -1"
finish
