# 61_code_gc.sh: `quarry code gc` prunes the code index of the blobs nothing reaches (a
# deleted branch's versions, an uncommitted edit since undone) and keeps what a branch, a
# tag, HEAD or the working tree reaches; it removes the graphs kept on disk; the next
# query answers as before; past QUARRY_CODE_GC_BYTES a load prunes by itself.
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE QUARRY_CODE_GC_BYTES
mkdir -p "$HOME"
R="$TMP/repo"
git init -q -b main "$R"
git -C "$R" config user.name T
git -C "$R" config user.email t@example.com
mkdir -p "$R/src"
printf 'int one(void) { return 1; }\nint two(void) { return one(); }\n' > "$R/src/a.c"
git -C "$R" add -A && git -C "$R" commit -qm one && git -C "$R" tag v1
printf 'int one(void) { return 1; }\nint two(void) { return one() + 1; }\n' > "$R/src/a.c"
git -C "$R" commit -qam two
blobs() { "$Q" code index --repo "$R" "$@" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["stored_blobs"])'; }

# v1 and main, a branch made and deleted, an edit made and undone: five versions stored
"$Q" code index --repo "$R" --ref v1 >/dev/null
git -C "$R" checkout -q -b gone
printf 'int one(void) { return 3; }\n' > "$R/src/a.c"
git -C "$R" commit -qam gone
"$Q" code index --repo "$R" --ref gone >/dev/null
git -C "$R" checkout -q main
git -C "$R" branch -qD gone
printf 'int one(void) { return 4; }\n' > "$R/src/a.c"
"$Q" code index --repo "$R" >/dev/null
git -C "$R" checkout -q -- src/a.c
expect_out "five versions stored" "4" blobs
"$Q" code query list_files --repo "$R" >/dev/null
expect_out "graphs are kept before gc" "yes" sh -c "ls '$R/.git/quarry/graphs' | grep -q '\\.graph\$' && echo yes"

expect_out "gc removes the deleted branch's and the undone edit's blobs" "2 4" sh -c \
  "'$Q' code gc --repo '$R' --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[\"blobs_removed\"], d[\"blobs_before\"])'"
expect_out "kept graphs removed" "0" sh -c "ls '$R/.git/quarry/graphs' | grep -c '\\.graph\$'"
expect_out "what is reachable stays" "2" blobs
expect_out "the tag's version needs no indexing" "0" sh -c \
  "'$Q' code index --repo '$R' --ref v1 --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"indexed_now\"])'"
expect_out "queries answer as before" "src/a.c:two" sh -c \
  "'$Q' code query get_call_graph --name one --direction callers --repo '$R' --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"results\"][0][\"from\"])'"
expect_out "a second gc removes nothing" "0" sh -c \
  "'$Q' code gc --repo '$R' --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"blobs_removed\"])'"
expect_out "table output" "code gc: 0 of 2 blobs removed" sh -c "'$Q' code gc --repo '$R' | cut -d'(' -f1 | sed 's/ \$//'"

# automatic: past the size, a load that indexes prunes what nothing reaches
printf 'int one(void) { return 5; }\n' > "$R/src/a.c"
"$Q" code index --repo "$R" >/dev/null
git -C "$R" checkout -q -- src/a.c
printf 'int three(void) { return 3; }\n' > "$R/src/b.c"
expect_out "without a limit nothing is pruned" "4" blobs
printf 'int four(void) { return 4; }\n' > "$R/src/b.c"
expect_out "past QUARRY_CODE_GC_BYTES a load prunes by itself" "3" \
  env QUARRY_CODE_GC_BYTES=1 sh -c "'$Q' code index --repo '$R' >/dev/null; '$Q' code index --repo '$R' --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"stored_blobs\"])'"

expect_rc "not a repository: exit 2" 2 "$Q" code gc --repo "$TMP/nowhere"
expect_rc "bad format: exit 2" 2 "$Q" code gc --repo "$R" --format edn
finish
