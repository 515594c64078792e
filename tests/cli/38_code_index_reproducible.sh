# 38_code_index_reproducible.sh: two clean builds of the code index of one tree are the
# same bytes. ctags names anonymous definitions (a JavaScript callback, a C struct without
# a tag) after a hash of the file name it is given; quarry gave it a file in a new
# temporary directory each time, so every build differed.
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
mkdir -p "$HOME"
command -v ctags >/dev/null || { echo "skip: no ctags"; exit 77; }
R="$TMP/repo"
git init -q -b main "$R"
printf 'foo(function(a){ return a; });\nvar o = {f: function(){}};\n' > "$R/app.js"
printf 'def f():\n    return lambda x: x\n' > "$R/m.py"
git -C "$R" add -A
git -C "$R" -c user.name=T -c user.email=t@example.com commit -qm one
expect_rc "first build" 0 "$Q" code index --repo "$R"
cp "$R/.git/quarry/code.db" "$TMP/first.db"
rm -rf "$R/.git/quarry"
expect_rc "second build" 0 "$Q" code index --repo "$R"
expect_out "the same bytes" "same" sh -c "cmp -s '$R/.git/quarry/code.db' '$TMP/first.db' && echo same"
finish
