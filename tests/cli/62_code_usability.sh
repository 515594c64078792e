# 62_code_usability.sh: what a developer new to a tree meets (issue 23, usability):
# get_call_graph filters by where the definition is (file) or where the calls are
# (site_file), and says which when the definition is elsewhere; get_definition's table
# shows the definition's text as written.
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
mkdir -p "$HOME"
R="$TMP/repo"
git init -q -b main "$R"
git -C "$R" config user.name T
git -C "$R" config user.email t@example.com
mkdir -p "$R/src"
cat > "$R/src/net.c" <<'C'
void reply(int c) { (void)c; }
void net_ping(int c) { reply(c); }
C
cat > "$R/src/obj.h" <<'C'
struct obj {
    unsigned type:4;
    int refcount; /* how many hold it */
    void *ptr;
};
C
cat > "$R/src/str.c" <<'C'
void reply(int c);
void str_get(int c) { reply(c); }
void str_set(int c) { reply(c); reply(c + 1); }
C
git -C "$R" add -A && git -C "$R" commit -qm one

callers() {
  "$Q" code query get_call_graph --name reply --direction callers --repo "$R" --format json "$@" |
    python3 -c 'import json,sys; print(" ".join("%s@%s:%d" % (r["from"].split(":")[-1], r["file"], r["line"]) for r in json.load(sys.stdin)["results"]))'
}
expect_out "all callers" "net_ping@src/net.c:2 str_get@src/str.c:2 str_set@src/str.c:3 str_set@src/str.c:3" callers
expect_out "site_file: the calls written in str.c" "str_get@src/str.c:2 str_set@src/str.c:3 str_set@src/str.c:3" \
  callers --site_file src/str.c
expect_out "site_file: a bare file name" "net_ping@src/net.c:2" callers --site_file net.c
expect_out "file: where the definition is" "net_ping@src/net.c:2 str_get@src/str.c:2 str_set@src/str.c:3 str_set@src/str.c:3" \
  callers --file src/net.c
expect_rc "file where the function is not defined: exit 2" 2 \
  "$Q" code query get_call_graph --name reply --file src/str.c --repo "$R"
expect_err "says where it is and names site_file" \
  "tool 'query_codebase': function 'reply' is defined in 'src/net.c', not under 'src/str.c' (file picks where the function is defined; site_file keeps the calls written in a file)" \
  "$Q" code query get_call_graph --name reply --file src/str.c --repo "$R"

# get_definition as a table: the fields, then the whole text (a struct's members), not
# one squashed cell
"$Q" code query get_definition --name obj --kind struct --repo "$R" --format table >"$TMP/def.txt"
expect_out "table: the fields, then the text as written" "kind      struct
name      obj
file      src/obj.h
line      1
end_line  5

struct obj {
    unsigned type:4;
    int refcount; /* how many hold it */
    void *ptr;
}" cat "$TMP/def.txt"
finish
