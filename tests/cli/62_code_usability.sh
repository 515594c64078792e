# 62_code_usability.sh: what a developer new to a tree meets (issue 23, usability):
# get_call_graph filters by where the definition is (file) or where the calls are
# (site_file), and says which when the definition is elsewhere; get_definition's table
# shows the definition's text as written; the picture shows what the query answers; a
# call through a function-pointer variable is resolved to it.
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
cat > "$R/src/chain.c" <<'C'
void c3(void) {}
void b2(void) { c3(); }
void a1(void) { b2(); }
void e5(void) { c3(); }
C
cat > "$R/src/clock.c" <<'C'
static long real_now(void) { return 1; }
long (*now_us)(void) = 0;
void clock_init(void) { now_us = real_now; }
long elapsed(long t0) { return now_us() - t0; }
long later(void) { return undefined_lib_call(); }
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

# quarry code graph draws what get_call_graph answers: callers of b2 and what b2 calls,
# onward in the same direction; not e5, a caller of b2's callee
nodes() { "$Q" code graph "$@" --repo "$R" | grep -o '\[label="[a-z0-9]*"' | sed 's/.*="//; s/"//' | sort | tr '\n' ' '; }
expect_out "graph: the query's nodes" "a1 b2 c3 " nodes b2 --depth 2
expect_out "the query answers the same" "src/chain.c:a1 src/chain.c:b2 src/chain.c:c3" sh -c \
  "'$Q' code query get_call_graph --name b2 --depth 2 --repo '$R' --format json | python3 -c 'import json,sys; r=json.load(sys.stdin)[\"results\"]; print(\" \".join(sorted({x[\"from\"] for x in r} | {x[\"to\"] for x in r})))'"
expect_out "graph: a node cap, the rest counted" "1 more not drawn" sh -c \
  "'$Q' code graph b2 --depth 2 --max-nodes 2 --repo '$R' | grep -o '[0-9]* more not drawn'"
expect_rc "graph: --max-nodes 0 is bad input" 2 "$Q" code graph b2 --max-nodes 0 --repo "$R"

# a call through a project function-pointer variable reaches the variable
expect_out "function-pointer variable: resolved" "src/clock.c:elapsed -> src/clock.c:now_us resolved" sh -c \
  "'$Q' code query get_call_graph --name now_us --direction callers --repo '$R' --format json | python3 -c 'import json,sys; r=json.load(sys.stdin)[\"results\"][0]; print(r[\"from\"], \"->\", r[\"to\"], \"unresolved\" if r.get(\"resolved\") is False else \"resolved\")'"
expect_out "a library call stays unresolved" "undefined_lib_call False" sh -c \
  "'$Q' code query get_call_graph --name later --direction callees --repo '$R' --format json | python3 -c 'import json,sys; r=json.load(sys.stdin)[\"results\"][0]; print(r[\"to\"], r.get(\"resolved\"))'"

# a prototype's signature has no ';' of its own (a skeleton prints its own)
expect_out "prototype signature without ;" "void reply(int c)" sh -c \
  "'$Q' code query get_skeleton --file src/str.c --repo '$R' --format json | python3 -c 'import json,sys; print([r for r in json.load(sys.stdin)[\"results\"] if r[\"kind\"] == \"declaration\"][0][\"signature\"])'"

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
# quarry code query --help names every query type the tool takes (each with what it
# reads); the other code subcommands' --help is their page, exit 0
"$Q" code query --help >"$TMP/qhelp.txt"; rc=$?
expect_out "code query --help: exit 0" "0" echo "$rc"
types=$("$Q" tool query_codebase --help | sed -n 's/^ *query_type *\([a-z_|]*\),.*/\1/p' | tr '|' ' ')
expect_out "the tool lists its types" "15" sh -c "echo $types | wc -w | tr -d ' '"
missing=""
for t in $types; do grep -qw -- "$t" "$TMP/qhelp.txt" || missing="$missing $t"; done
expect_out "code query --help: every TYPE named" "" echo "$missing"
for sub in index dump graph gc; do
  expect_rc "code $sub --help: exit 0" 0 "$Q" code "$sub" --help
done
# a function defined in two translation units: a caller that sees neither definition is
# linked to the nearer one (its own directory), marked as a guess; a caller that sees one
# (it is in its own file) is not a guess; --file elsewhere names both definitions
R2="$TMP/two"
git init -q -b main "$R2"
mkdir -p "$R2/x" "$R2/y"
printf 'int helper(int a) { return a; }\nint self(void) { return helper(0); }\n' > "$R2/x/h.c"
printf 'int helper(int a) { return a + 1; }\n' > "$R2/y/h.c"
printf 'int helper(int);\nint m(void) { return helper(1); }\n' > "$R2/y/m.c"
printf 'int once(void) { return 0; }\nint m3(void) { return once(); }\n' > "$R2/one.c"
git -C "$R2" add -A && git -C "$R2" -c user.name=T -c user.email=t@example.com commit -qm one
expect_out "several definitions: the nearer one, said to be a guess" \
  "x/h.c:self -> x/h.c:helper guess=None y/m.c:m -> y/h.c:helper guess=True" sh -c \
  "'$Q' code query get_call_graph --name helper --direction callers --repo '$R2' --format json | python3 -c 'import json,sys; print(\" \".join(\"%s -> %s guess=%s\" % (r[\"from\"], r[\"to\"], r.get(\"guess\")) for r in json.load(sys.stdin)[\"results\"]))'"
expect_out "one definition: no guess" "one.c:once None" sh -c \
  "'$Q' code query get_call_graph --name m3 --direction callees --repo '$R2' --format json | python3 -c 'import json,sys; r=json.load(sys.stdin)[\"results\"][0]; print(r[\"to\"], r.get(\"guess\"))'"
expect_out "dump: the guess on the edge" '{"edge":"calls","from":"y/m.c:m","to":"y/h.c:helper","line":2,"guess":true}' sh -c \
  "'$Q' code dump --repo '$R2' --path y/m.c | grep '\"edge\":\"calls\"'"
expect_err "file elsewhere: every definition named" \
  "tool 'query_codebase': function 'helper' is defined in 'x/h.c', 'y/h.c', not under 'one.c' (file picks where the function is defined; site_file keeps the calls written in a file)" \
  "$Q" code query get_call_graph --name helper --file one.c --repo "$R2"
# the progress bar of a code index (on a terminal) counts code files, not commits
R3="$TMP/bar"
git init -q -b main "$R3"
printf 'int f(void) { return 0; }\n' > "$R3/f.c"
git -C "$R3" add -A && git -C "$R3" -c user.name=T -c user.email=t@example.com commit -qm one
bar() {
  python3 - "$Q" code index --repo "$R3" --format json <<'PY'
import os, pty, select, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        r, _, _ = select.select([fd], [], [], 60)
        d = os.read(fd, 65536) if r else b""
    except OSError:
        d = b""
    if not d:
        break
    out += d
os.waitpid(pid, 0)
text = out.decode("utf-8", "replace").split("{", 1)[0]
print(text.replace("\r", "").replace("\x1b[K", "").split("[", 1)[0].strip())
PY
}
expect_out "progress: code files" "quarry: indexing code files" bar
# a file that renames a library's functions through a header it includes (redis-cli.c and
# hiredis's sdscompat.h, `#define sdsnew hi_sdsnew`) reaches the renamed definition under
# deps/, not the project's own sdsnew; a file that includes the project's sds.h reaches
# that one. The picture of the callers groups each file's functions in a cluster.
R5="$TMP/hi"
git init -q -b main "$R5"
mkdir -p "$R5/src" "$R5/deps/hiredis"
printf 'typedef char *hisds;\nhisds hi_sdsnew(const char *s);\n' > "$R5/deps/hiredis/sds.h"
printf '#define sdsnew hi_sdsnew\n' > "$R5/deps/hiredis/sdscompat.h"
printf '#include "sds.h"\nhisds hi_sdsnew(const char *s) { return (hisds)s; }\n' > "$R5/deps/hiredis/sds.c"
printf 'typedef char *sds;\nsds sdsnew(const char *s);\n' > "$R5/src/sds.h"
printf '#include "sds.h"\nsds sdsnew(const char *s) { return (sds)s; }\n' > "$R5/src/sds.c"
printf '#include "../deps/hiredis/sdscompat.h"\n#include "../deps/hiredis/sds.h"\nvoid cli_main(void) { sdsnew("x"); }\n' > "$R5/src/cli.c"
printf '#include "sds.h"\nvoid server_main(void) { sdsnew("y"); }\nvoid server_two(void) { sdsnew("z"); }\n' > "$R5/src/server.c"
git -C "$R5" add -A && git -C "$R5" -c user.name=T -c user.email=t@example.com commit -qm one
callee() {
  "$Q" code query get_call_graph --name "$1" --direction callees --repo "$R5" --format json |
    python3 -c 'import json,sys; print(" ".join("%s via=%s" % (r["to"], r.get("via")) for r in json.load(sys.stdin)["results"]))'
}
expect_out "renamed through a deps/ header: the renamed definition" \
  "deps/hiredis/sds.c:hi_sdsnew via=sdsnew" callee cli_main
expect_out "the project's own: its definition" "src/sds.c:sdsnew via=None" callee server_main
expect_out "picture: one cluster per file" 'src/sds.c:sdsnew src/server.c:server_main,server_two' sh -c \
  "'$Q' code graph sdsnew --callers --repo '$R5' | python3 -c '
import re,sys
out=[]
for m in re.finditer(r\"subgraph cluster_[0-9]+ \\{\\s*label=\\\"([^\\\"]*)\\\";(.*?)\\n  \\}\", sys.stdin.read(), re.S):
    out.append(m.group(1) + \":\" + \",\".join(re.findall(r\"\\[label=\\\"([^\\\"]*)\\\"\", m.group(2))))
print(\" \".join(out))'"
finish
