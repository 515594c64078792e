# 16_code.sh: `quarry code index|query|dump|graph` and the query_codebase tool against a
# repository built here with git: the JSON-lines shapes of the dump, calls through a
# project macro (via), static functions keyed by file, #if 0 and #ifdef of an undefined
# macro marked inactive, includes resolved or kept as written, the working tree's
# uncommitted changes, another ref, bad files counted (binary, too large, a symlink out of
# the tree, a non-UTF-8 path, a file that does not parse, a language only ctags knows),
# "did you mean" errors with exit 2, pictures in DOT (and SVG when Graphviz is there), and
# the same tool reached from the Lisp.
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
mkdir -p "$HOME"
R="$TMP/repo"
git init -q -b main "$R"
git -C "$R" config user.name T
git -C "$R" config user.email t@example.com
git -C "$R" config commit.gpgsign false
mkdir -p "$R/src" "$R/include"
cat > "$R/include/lib.h" <<'C'
#ifndef LIB_H
#define LIB_H
#define newlib(L, l) (setfuncs((L), (l)))
struct reg { const char *name; int (*fn)(int); };
int pushint(int *L, int n);
void setfuncs(int *L, const struct reg *l);
#endif
C
cat > "$R/src/api.c" <<'C'
#include "lib.h"
#include <stdio.h>

static int check(int n) { return n > 0; }

int pushint(int *L, int n)
{
    if (check(n))
        *L = n;
    return printf("%d\n", n);
}

void setfuncs(int *L, const struct reg *l) { pushint(L, l->fn(1)); }

void openlib(int *L)
{
    static const struct reg funcs[] = {{"check", check}};
    newlib(L, funcs);
}
#if 0
void old(int *L) { pushint(L, 0); }
#endif
C
cat > "$R/src/main.c" <<'C'
#include "../include/lib.h"
static int check(void) { return 1; }
int main(void) { int L = 0; openlib(&L); return pushint(&L, check()); }
#ifdef NEVER_DEFINED
int extra(void) { return check(); }
#endif
C
git -C "$R" add -A
git -C "$R" commit -qm one

expect_out "dump: a function node" \
  '{"node":"function","name":"pushint","file":"src/api.c","line":6,"end_line":11,"static":false,"signature":"int pushint(int *L, int n)","returns":"int"}' \
  sh -c "'$Q' code dump --repo '$R' | grep '\"node\":\"function\",\"name\":\"pushint\"'"
expect_out "dump: calls, static callee keyed by its file" \
  '{"edge":"calls","from":"src/api.c:pushint","to":"src/api.c:check","line":8}
{"edge":"calls","from":"src/main.c:main","to":"src/main.c:check","line":3}
{"edge":"calls","from":"src/main.c:extra","to":"src/main.c:check","line":5,"inactive":true}' \
  sh -c "'$Q' code dump --repo '$R' | grep '\"edge\":\"calls\".*\"to\":\"src/[a-z]*.c:check\"'"
expect_out "dump: an unresolved callee by its bare name" \
  '{"edge":"calls","from":"src/api.c:pushint","to":"printf","line":10,"resolved":false}' \
  sh -c "'$Q' code dump --repo '$R' | grep '\"to\":\"printf\"'"
expect_out "dump: a call through a project macro" \
  '{"edge":"expands","from":"src/api.c:openlib","to":"newlib","line":18}
{"edge":"calls","from":"src/api.c:openlib","to":"src/api.c:setfuncs","line":18,"via":"newlib"}' \
  sh -c "'$Q' code dump --repo '$R' | grep -E '(expands|calls).*from.:.src/api.c:openlib'"
expect_out "dump: includes resolved and as written" \
  '{"edge":"includes","from":"src/api.c","to":"include/lib.h","line":1}
{"edge":"includes","from":"src/api.c","to":"<stdio.h>","line":2}
{"edge":"includes","from":"src/main.c","to":"include/lib.h","line":1}' \
  sh -c "'$Q' code dump --repo '$R' | grep '\"edge\":\"includes\"'"
expect_out "dump: inactive branches" \
  '{"node":"function","name":"old","file":"src/api.c","line":21,"end_line":21,"static":false,"signature":"void old(int *L)","returns":"void","inactive":true}
{"node":"function","name":"extra","file":"src/main.c","line":5,"end_line":5,"static":false,"signature":"int extra(void)","returns":"int","inactive":true}' \
  sh -c "'$Q' code dump --repo '$R' | grep '\"node\":\"function\".*inactive'"
expect_out "dump --path restricts to a prefix" "3" \
  sh -c "'$Q' code dump --repo '$R' --path src/main.c | grep -c '\"node\":\"function\"'"

expect_out "query: callers of pushint" \
  'src/api.c:setfuncs src/api.c:old src/main.c:main' \
  sh -c "'$Q' code query get_call_graph --name pushint --direction callers --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(r[\"from\"] for r in json.load(sys.stdin)[\"results\"]))'"
expect_out "query: paging" '1 3 1' \
  sh -c "'$Q' code query list_functions --file src/api.c --limit 1 --repo '$R' --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d[\"results\"]), d[\"total\"] - 2, d[\"next_offset\"])'"
expect_rc "query: unknown function exits 2" 2 "$Q" code query find_function --name pushnit --repo "$R"
expect_err "query: did you mean" "no function 'pushnit'; did you mean 'pushint'?" \
  "$Q" code query find_function --name pushnit --repo "$R"
expect_rc "query: unknown type exits 2" 2 "$Q" code query find_everything --repo "$R"
expect_out "query: struct members" 'name fn' \
  sh -c "'$Q' code query find_struct --name reg --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(m[\"name\"] for m in json.load(sys.stdin)[\"results\"][0][\"members\"]))'"
expect_out "query: references with their functions" 'src/api.c 8 call pushint|src/api.c 17 use openlib|src/main.c 3 call main|src/main.c 5 call extra' \
  sh -c "'$Q' code query find_references --name check --repo '$R' --format json | python3 -c 'import json,sys; print(\"|\".join(\"%s %d %s %s\" % (r[\"file\"], r[\"line\"], r[\"kind\"], r.get(\"function\")) for r in json.load(sys.stdin)[\"results\"]))'"
expect_out "query: references scanned, then indexed, alike" 'true' \
  "$Q" lisp --repo "$R" -e '(let [q {:query_type "find_references" :name "pushint"}] (= (tool/query_codebase q) (tool/query_codebase q) (tool/query_codebase q)))'
expect_out "query: a file by its bare name" 'include/lib.h 7' \
  sh -c "'$Q' code query get_skeleton --file lib.h --repo '$R' --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[\"file\"], d[\"total\"])'"
expect_err "query: a file that is not there" "no file 'lob.h' in the index; did you mean 'include/lib.h'?" \
  "$Q" code query get_dependencies --file lob.h --repo "$R"
expect_out "query: a table on request" 'kind      name   file        line  end_line  stati' \
  sh -c "'$Q' code query list_functions --file src/main.c --limit 1 --repo '$R' --format table | head -1 | cut -c1-50"
expect_out "the same tool from the Lisp" '["src/api.c:pushint"]' \
  "$Q" lisp --repo "$R" --format json -e '(:functions (tool/query_codebase {:query_type "get_call_graph" :name "pushint"}))'
expect_out "the tool is listed" 'query_codebase' \
  sh -c "'$Q' tools --format json | python3 -c 'import json,sys; print(\" \".join(t[\"name\"] for t in json.load(sys.stdin) if t[\"name\"]==\"query_codebase\"))'"

# the working tree, then another ref
printf 'int fresh(void) { return pushint(0, 1); }\n' >> "$R/src/main.c"
expect_out "working tree: an uncommitted function" '1' \
  sh -c "'$Q' code query find_function --name fresh --repo '$R' --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"total\"])'"
git -C "$R" commit -qam two
expect_rc "--ref: the first commit lacks it" 2 "$Q" code query find_function --name fresh --ref HEAD~1 --repo "$R"
expect_err "--ref: unknown revision" "unknown revision 'nope'" "$Q" code dump --ref nope --repo "$R"

# bad input, counted
printf 'int a(void) { return 1 }\nint b( {\n' > "$R/src/broken.c"
printf 'x\000y' > "$R/src/blob.c"
head -c 3000000 /dev/zero | tr '\0' 'x' > "$R/src/huge.c"
ln -s /etc/passwd "$R/src/outside.c"
printf 'int z;\n' > "$R/src/$(printf 'caf\351').c"
printf 'def hello(x):\n    return x\n\nclass Greeter:\n    def greet(self):\n        pass\n' > "$R/tool.py"
expect_out "index: counts of bad input" '1 1 1 1 1 1 True' \
  sh -c "'$Q' code index --repo '$R' --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[\"skipped_binary\"], d[\"skipped_large\"], d[\"skipped_symlink\"], d[\"skipped_path\"], d[\"files_with_errors\"], d[\"ctags_files\"], d[\"parse_errors\"] > 0)'"
expect_out "ctags: a Python function and method" 'hello greet' \
  sh -c "'$Q' code query list_functions --file tool.py --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(r[\"name\"] for r in json.load(sys.stdin)[\"results\"]))'"
expect_out "a function that parses before an error" '1' \
  sh -c "'$Q' code query find_function --name a --file src/broken.c --repo '$R' --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"total\"])'"

# pictures
expect_out "graph: DOT" 'digraph quarry {' sh -c "'$Q' code graph pushint --repo '$R' | head -1"
expect_out "graph: a header and what includes it" '  "src/api.c" -> "include/lib.h";
  "src/main.c" -> "include/lib.h";' \
  sh -c "'$Q' code graph lib.h --repo '$R' | grep -- '->'"
expect_out "graph: a static function filled" '1' \
  sh -c "'$Q' code graph pushint --callees --repo '$R' | grep -c 'label=\"check\", style=filled'"
if command -v dot >/dev/null 2>&1; then
  expect_out "graph: SVG through Graphviz" '1' \
    sh -c "'$Q' code graph pushint --format svg --repo '$R' | grep -c '</svg>'"
else
  expect_err "graph: SVG needs Graphviz" "cannot run Graphviz 'dot'" \
    "$Q" code graph pushint --format svg --repo "$R"
fi
expect_rc "graph: unknown symbol exits 2" 2 "$Q" code graph nothing_here --repo "$R"
expect_rc "code: unknown subcommand exits 2" 2 "$Q" code frobnicate
expect_rc "not a repository exits 2" 2 "$Q" code dump --repo "$TMP/home"

# parsing on several threads gives the same graph as on one: 80 files, each calling the
# next, indexed from nothing with QUARRY_THREADS=1 and with 4
P="$TMP/many"
git init -q -b main "$P"
mkdir -p "$P/src"
i=0
while [ $i -lt 80 ]; do
  printf 'int f%d(int x);\nstatic int g%d(int x) { return x + %d; }\nint f%d(int x) { return g%d(f%d(x)); }\n' \
    $i $i $i $i $i $(((i + 1) % 80)) >"$P/src/f$i.c"
  i=$((i + 1))
done
git -C "$P" add -A && git -C "$P" -c user.name=t -c user.email=t@t commit -q -m many
QUARRY_THREADS=1 "$Q" code index --repo "$P" >/dev/null && "$Q" code dump --repo "$P" >"$TMP/one.jsonl"
rm -f "$P/.git/quarry/code.db"*
QUARRY_THREADS=4 "$Q" code index --repo "$P" >/dev/null && "$Q" code dump --repo "$P" >"$TMP/four.jsonl"
expect_out "threads: 80 calls resolved either way" "80 80" \
  sh -c "echo \$(grep -c '\"edge\":\"calls\".*\"to\":\"src/f[0-9]*.c:f' '$TMP/one.jsonl') \$(grep -c '\"edge\":\"calls\".*\"to\":\"src/f[0-9]*.c:f' '$TMP/four.jsonl')"
expect_out "threads: the same graph on 1 and 4 threads" "" cmp "$TMP/one.jsonl" "$TMP/four.jsonl"
finish
