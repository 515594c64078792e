# 18_codesearch.sh: the search_codebase tool (seed 004, tier 2) on a repository built here:
# template questions answered with no model (checked against the code), other questions
# by one call to the scripted model server (tests/llm/model_server.py, real HTTP on
# 127.0.0.1), a broken query repaired once with the structured error, a refused one
# failing after the repair, and the cached prefix byte-identical across calls.
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/home/.config" GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
unset QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_LLM_API_KEY QUARRY_LLM_PROVIDER QUARRY_LLM_STREAM \
  QUARRY_LLM_MAX_RETRIES QUARRY_SPARQL_DATA
mkdir -p "$HOME"

R="$TMP/repo"
git init -q -b main "$R"
mkdir -p "$R/src"
cat > "$R/src/util.h" <<'C'
int add(int a, int b);
C
mkdir -p "$R/types"
cat > "$R/types/shape.h" <<'C'
typedef struct Shape { int width; int height; } Shape;
typedef int Length;
struct Point { int x; int y; };
C
cat > "$R/src/main.c" <<'C'
#include <stdio.h>
#include "util.h"
static int twice(int n) { return add(n, n); }
static int unused(void) { return 0; }
int add(int a, int b) { return a + b; }
int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
int main(void) { printf("%d\n", twice(fact(3))); return 0; }
C

# ask QUESTION: the rows of the answer as JSON, and how it was answered
ask() {
  "$Q" tool search_codebase --repo "$R" --question "$1" --format json > "$TMP/out.json" 2> "$TMP/err" || true
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['how'], d['model_calls'], json.dumps(d['rows'], separators=(',',':')))" "$TMP/out.json" 2>/dev/null || cat "$TMP/err"
}

expect_out "who calls" 'template:callers 0 [{"caller":"twice","file":"src/main.c","line":3}]' ask "Who calls add?"
# the repository's own functions; the C library's (printf) when asked for
expect_out "what does X call" 'template:callees 0 [{"callee":"fact","line":7,"file":"src/main.c","function_line":7},{"callee":"twice","line":7,"file":"src/main.c","function_line":7}]' ask "what does main call"
expect_out "an aside asks for the direct calls whatever else says eventually" 'template:callees 0 [{"callee":"fact","line":7,"file":"src/main.c","function_line":7},{"callee":"twice","line":7,"file":"src/main.c","function_line":7}]' ask "what does main end up calling (direct calls only)"
expect_out "what does X call, library functions too" 'template:callees 0 [{"callee":"fact","line":7,"file":"src/main.c","function_line":7},{"callee":"printf","line":7,"file":"src/main.c","function_line":7},{"callee":"twice","line":7,"file":"src/main.c","function_line":7}]' ask "what does main call including library functions"
expect_out "where defined" 'template:definition 0 [{"kind":"Declaration","file":"src/util.h","line":1,"end":1},{"kind":"Function","file":"src/main.c","line":5,"end":5}]' ask "where is \`add\` defined?"
expect_out "includers" 'template:includers 0 [{"file":"src/main.c"}]' ask "which files include util.h"
expect_out "functions of a file" 'template:file-functions 0 [{"name":"twice","file":"src/main.c","line":3,"static":true},{"name":"unused","file":"src/main.c","line":4,"static":true},{"name":"add","file":"src/main.c","line":5,"static":false},{"name":"fact","file":"src/main.c","line":6,"static":false},{"name":"main","file":"src/main.c","line":7,"static":false}]' ask "functions in main.c"
expect_out "dead statics" 'template:dead-statics 0 [{"name":"unused","file":"src/main.c","line":4}]' ask "static functions nobody calls"
expect_out "recursive" 'template:recursive 0 [{"name":"fact","file":"src/main.c","line":6}]' ask "Which functions are recursive?"
expect_out "most included" 'template:most-included 0 [{"header":"stdio.h","includers":1},{"header":"util.h","includers":1}]' ask "most included headers"
# issue 27: more phrasings through the shared reader, and an unknown name is an error
expect_out "where is X called from" 'template:callers 0 [{"caller":"twice","file":"src/main.c","line":3}]' ask "hey, where is add called from?"
expect_out "a file's includes" 'template:file-includes 0 [{"header":"stdio.h"},{"header":"util.h"}]' ask "what does src/main.c include"
expect_out "in which file is X" 'template:definition 0 [{"kind":"Declaration","file":"src/util.h","line":1,"end":1},{"kind":"Function","file":"src/main.c","line":5,"end":5}]' ask "in which file is add"
expect_out "static functions" 'template:statics 0 [{"name":"twice","file":"src/main.c","line":3},{"name":"unused","file":"src/main.c","line":4}]' ask "which functions are static"
expect_out "count of functions" 'template:count-functions 0 [{"count":5}]' ask "how many functions are defined under src/"
expect_out "transitive callers" 'template:transitive-callers 0 [{"caller":"main","file":"src/main.c"},{"caller":"twice","file":"src/main.c"}]' ask "everything that eventually calls add"
expect_out "recursive functions of one file" 'template:recursive 0 [{"name":"fact","file":"src/main.c","line":6}]' ask "which functions in src/main.c are recursive?"
expect_out "functions by a name prefix" 'template:functions-named 0 [{"name":"twice","file":"src/main.c","line":3,"static":true}]' ask "functions starting with tw"
# a struct's members, the structs with a member of a name, a file's typedefs
expect_out "a struct's members" 'template:members 0 [{"member":"x","type":"int","file":"types/shape.h","line":3},{"member":"y","type":"int","file":"types/shape.h","line":3}]' ask "what fields does Point have"
expect_out "the structs with a member" 'template:field 0 [{"struct":"Point","file":"types/shape.h","line":3}]' ask "which struct has a field named x"
expect_out "members of a name that is no struct: declined" 'usage' sh -c "'$Q' tool search_codebase --repo '$R' --question 'members of struct add' 2>&1 | grep -o usage | head -1"
expect_out "a file's typedefs" 'Length Shape' sh -c "'$Q' tool search_codebase --repo '$R' --question 'list the typedefs in types/shape.h' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(r[\"name\"] for r in json.load(sys.stdin)[\"rows\"])))'"
expect_out "a name pattern with *" 'template:functions-named 0 [{"name":"add","file":"src/main.c","line":5,"static":false}]' ask "functions named like *dd"
expect_out "a pattern is a list, not a name to call" 'usage' sh -c "'$Q' tool search_codebase --repo '$R' --question 'who calls tw*' 2>&1 | grep -o usage | head -1"
expect_out "a name called by nobody: 0 rows" 'template:callers 0 []' ask "who calls main"
expect_err "a misspelt name: did you mean" "no such function 'factt' in the code index; did you mean 'fact'?" \
  "$Q" tool search_codebase --repo "$R" --question "who calls factt"
expect_rc "a misspelt name exits 2" 2 "$Q" tool search_codebase --repo "$R" --question "who calls factt"
expect_err "a wrongly cased name: did you mean" "did you mean 'twice'" \
  "$Q" tool search_codebase --repo "$R" --question "what does Twice call"
expect_err "a name the index lacks" "no such function 'zzzq' in the code index" \
  "$Q" tool search_codebase --repo "$R" --question "where is zzzq defined"
expect_err "a name that is not an identifier matches no template" "no template answers" \
  "$Q" tool search_codebase --repo "$R" --question 'who calls x" } } INSERT DATA { <a:a> <a:b> <a:c> } #'
expect_err "no template, no model" "no template answers 'how many functions are there' and no model is configured" \
  "$Q" tool search_codebase --repo "$R" --question "how many functions are there"

# ---- issue 27: questions read as frames (relation x subject x filters) ----
# A second repository with what redis showed: callbacks whose address is taken, a .c file
# #included by another (ae.c and its event backends), a call written through a macro, two
# functions of one name, a test main under a disabled #ifdef.
R2="$TMP/repo2"
git init -q -b main "$R2"
mkdir -p "$R2/lib" "$R2/tools"
cat > "$R2/lib/log.h" <<'C'
void log_impl(int level, const char *msg);
#define LOG(l, m) log_impl(l, m)
C
cat > "$R2/lib/log.c" <<'C'
#include <stdio.h>
#include "log.h"
void log_impl(int level, const char *msg) { printf("%d %s\n", level, msg); }
static void never_used(void) { log_impl(0, "x"); }
C
cat > "$R2/lib/backend.c" <<'C'
static int backend_poll(int n) { return n + 1; }
static int backend_orphan(int n) { return n; }
C
cat > "$R2/lib/loop.c" <<'C'
#include "log.h"
#include "backend.c"
typedef int (*handler)(int);
static int on_read(int fd) { LOG(1, "read"); return fd; }
static int on_write(int fd) { return fd; }
static int on_close(int fd) { return fd; }
static handler table[] = { on_write };
static void set_handler(handler h) { (void)h; }
#define INSTALL(h) set_handler(h)
int loop_run(int n) {
    handler h = on_read;
    INSTALL(on_close);
    LOG(2, "run");
    return h(backend_poll(n)) + table[0](n);
}
int helper(int n) { return loop_run(n); }
#ifdef LOOP_TEST_MAIN
int main(void) { return loop_run(1); }
#endif
C
cat > "$R2/tools/cli.c" <<'C'
#include "../lib/log.h"
int loop_run(int n);
static int helper(int n) { LOG(3, "cli"); return n; }
int main(void) { return loop_run(helper(1)); }
C
# a command table (.def) a source includes, names made by ## pasting, a name looked up by
# its string: all uses the index's calls do not hold
cat > "$R2/lib/cmds.def" <<'C'
struct cmd table[] = { CMD(ping) };
C
cat > "$R2/lib/cmds.c" <<'C'
#define CMD(n) {cmd_ ## n}
struct cmd { int (*fn)(void); };
static int cmd_table_fn(void) { return 0; }
int cmd_ping(void) { return 1; }
int cmd_pong(void) { return 2; }
int plugin_init(void) { return 0; }
void *find_symbol(const char *name);
void *load(void) { return find_symbol("plugin_init"); }
#include "cmds.def"
C
# code under a disabled #if: its #include and its function are written in the file
cat > "$R2/lib/plat.c" <<'C'
#ifdef PLAT_WIN
#include "log.h"
static int win_only(void) { return 1; }
#endif
static int plat_id(void) { return 0; }
int plat(void) { return plat_id(); }
C
git -C "$R2" add -A && git -C "$R2" -c user.name=T -c user.email=t@x commit -qm two
ask2() {
  "$Q" tool search_codebase --repo "$R2" --question "$1" --format json > "$TMP/out.json" 2> "$TMP/err" || true
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['how'], json.dumps(d['rows'], separators=(',',':')))" "$TMP/out.json" 2>/dev/null || cat "$TMP/err"
}
expect_out "what files include H (not only 'which')" 'template:includers [{"file":"lib/log.c"},{"file":"lib/loop.c"},{"file":"lib/plat.c","inactive":true},{"file":"tools/cli.c"}]' ask2 "what files include log.h"
expect_out "how many functions call X: its callers counted" 'template:count-callers [{"count":3}]' ask2 "how many callers does loop_run have"
expect_out "how many files include H: the includers counted" 'template:count-includers [{"count":4}]' ask2 "how many files include log.h"
expect_out "which .c files include H: the sources" 'template:includers [{"file":"lib/log.c"},{"file":"lib/loop.c"},{"file":"lib/plat.c","inactive":true},{"file":"tools/cli.c"}]' ask2 "which .c files include log.h"
expect_out "what FILE defines: its functions" 'template:file-functions [{"name":"win_only","file":"lib/plat.c","line":3,"static":true,"inactive":true},{"name":"plat_id","file":"lib/plat.c","line":5,"static":true},{"name":"plat","file":"lib/plat.c","line":6,"static":false}]' ask2 "what does lib/plat.c define"
expect_out "a header named in another case" 'template:includers [{"file":"lib/log.c"},{"file":"lib/loop.c"},{"file":"lib/plat.c","inactive":true},{"file":"tools/cli.c"}]' ask2 "which files include LOG.H"
expect_out "an #include under a disabled #if is one, marked" 'template:file-includes [{"header":"log.h","inactive":true}]' ask2 "what does lib/plat.c include"
expect_out "the functions of one file: disabled ones too, marked" 'template:statics [{"name":"win_only","file":"lib/plat.c","line":3,"inactive":true},{"name":"plat_id","file":"lib/plat.c","line":5}]' ask2 "static functions in lib/plat.c"
expect_out "public (non-static) functions of one file" 'template:public-functions [{"name":"plat","file":"lib/plat.c","line":6,"static":false}]' ask2 "public (non-static) functions of lib/plat.c"
expect_out "how many exported functions" 'template:count-functions [{"count":1}]' ask2 "how many exported functions in lib/plat.c"
ask2 "which functions are static" > "$TMP/statics.txt"
expect_out "across the tree: the active ones" '0' grep -c win_only "$TMP/statics.txt"
expect_out "across the tree: the active ones, plat_id among them" '1' grep -c plat_id "$TMP/statics.txt"
expect_out "a .c file #included" 'template:includers [{"file":"lib/loop.c"}]' ask2 "where is backend.c included"
expect_out "a file's dependencies" 'template:file-includes [{"header":"backend.c"},{"header":"log.h"}]' ask2 "what are the dependencies of lib/loop.c?"
expect_out "the includes of a file (a noun)" 'template:file-includes [{"header":"log.h"},{"header":"stdio.h"}]' ask2 "includes of log.c"
expect_out "what does FILE depend on" 'template:file-includes [{"header":"backend.c"},{"header":"log.h"}]' ask2 "what does loop.c depend on"
# unused: an address taken (a variable, a table, a macro argument) or a call from a file
# that #includes the .c is a use; only the truly unused are listed
expect_out "static functions nobody calls" 'template:dead-statics [{"name":"backend_orphan","file":"lib/backend.c","line":2},{"name":"cmd_table_fn","file":"lib/cmds.c","line":3},{"name":"never_used","file":"lib/log.c","line":4},{"name":"win_only","file":"lib/plat.c","line":3,"inactive":true}]' ask2 "static functions nobody calls"
expect_out "never-called functions of one file" 'template:unused [{"name":"never_used","file":"lib/log.c","line":4}]' ask2 "which functions in lib/log.c are never called?"
# a header's static inline function used by a file that includes it through a search path
# the index cannot resolve (nginx: src/http/*.c has #include <ngx_core.h>, found by -I): a
# use, so not unused
R3="$TMP/repo3"
git init -q -b main "$R3"
mkdir -p "$R3/src/core" "$R3/src/http"
printf '#include <fast.h>\n' > "$R3/src/core/core.h"
printf 'static inline int fast_add(int a, int b) { return a + b; }\nstatic inline int fast_none(void) { return 0; }\n' > "$R3/src/core/fast.h"
printf '#include <core.h>\nint serve(void) { return fast_add(1, 2); }\nint log_it(void) { return ext_call(1); }\n' > "$R3/src/http/h.c"
printf 'typedef struct { int a; } anon_t;\ntypedef struct tagged { int b; } tagged;\ntypedef struct\n{\n    int c;\n} anon2_t;\nstruct plain { int d; };\n' > "$R3/src/core/types.h"
git -C "$R3" add -A && git -C "$R3" -c user.name=T -c user.email=t@x commit -qm three
expect_out "used through an include path: only the unused one" 'template:dead-statics [{"name":"fast_none","file":"src/core/fast.h","line":2}]' \
  sh -c '"$1" tool search_codebase --repo "$2" --question "static functions nobody calls" --format json | python3 -c "import json,sys; d=json.load(sys.stdin); print(d[\"how\"], json.dumps(d[\"rows\"], separators=(\",\",\":\")))"' _ "$Q" "$R3"
# a name the index holds only as a call (defined outside the tree): its callers are
# answered; its definition is an error that says so, not an empty answer
expect_out "callers of a function defined elsewhere" 'log_it' \
  sh -c '"$1" tool search_codebase --repo "$2" --question "who calls ext_call" --format json | python3 -c "import json,sys; print(\" \".join(r[\"caller\"] for r in json.load(sys.stdin)[\"rows\"]))"' _ "$Q" "$R3"
expect_err "no definition read" "holds no definition of 'ext_call'" "$Q" tool search_codebase --repo "$R3" --question "where is ext_call defined"
# structs as ctags lists them: a tagged struct by its tag (also when a typedef shares the
# name), an untagged one is its typedef, not a struct
expect_out "structs: tagged ones only" 'tagged plain' \
  sh -c '"$1" tool search_codebase --repo "$2" --question "what structs are declared in src/core/types.h" --format json | python3 -c "import json,sys; print(\" \".join(r[\"name\"] for r in json.load(sys.stdin)[\"rows\"]))"' _ "$Q" "$R3"
expect_out "unused functions of one file, other words" 'template:unused [{"name":"helper","file":"lib/loop.c","line":16}]' ask2 "unused functions in loop.c"
expect_out "a .def table, a ## paste, a name looked up by string" 'template:unused [{"name":"cmd_table_fn","file":"lib/cmds.c","line":3},{"name":"cmd_pong","file":"lib/cmds.c","line":5},{"name":"load","file":"lib/cmds.c","line":8}]' ask2 "which functions in lib/cmds.c are never called"
# calls through a macro: answered, and ?via says which macro
expect_out "what calls a macro" 'template:callers [{"caller":"on_read","file":"lib/loop.c","line":4,"via":"LOG"},{"caller":"loop_run","file":"lib/loop.c","line":13,"via":"LOG"},{"caller":"helper","file":"tools/cli.c","line":3,"via":"LOG"}]' ask2 "what calls LOG"
expect_out "callers of what a macro calls say the macro" 'template:callers [{"caller":"never_used","file":"lib/log.c","line":4},{"caller":"on_read","file":"lib/loop.c","line":4,"via":"LOG"},{"caller":"loop_run","file":"lib/loop.c","line":13,"via":"LOG"},{"caller":"helper","file":"tools/cli.c","line":3,"via":"LOG"}]' ask2 "who calls log_impl"
expect_out "callers in one file" 'template:callers [{"caller":"helper","file":"tools/cli.c","line":3,"via":"LOG"}]' ask2 "who calls LOG in tools/cli.c"
# callees per definition, with its file; the test main under a disabled #ifdef left out
expect_out "what does main call: the active main only" 'template:callees [{"callee":"helper","line":4,"file":"tools/cli.c","function_line":4},{"callee":"loop_run","line":4,"file":"tools/cli.c","function_line":4}]' ask2 "what does main call"
# the calls written in the body; those a macro's body makes (helper's LOG -> log_impl) only
# when asked for
expect_out "two functions of one name: each with its file" 'template:callees [{"callee":"loop_run","line":16,"file":"lib/loop.c","function_line":16},{"callee":"log_impl","line":3,"via":"LOG","file":"tools/cli.c","function_line":3}]' ask2 "what does helper call through macros"
expect_out "calls written in the body only" 'template:callees [{"callee":"loop_run","line":16,"file":"lib/loop.c","function_line":16}]' ask2 "what does helper call"
expect_out "one of them, by file" 'template:callees [{"callee":"loop_run","line":16,"file":"lib/loop.c","function_line":16}]' ask2 "what does helper in lib/loop.c call"
expect_out "disabled code when asked" 'template:callees [{"callee":"loop_run","line":18,"file":"lib/loop.c","function_line":18},{"callee":"helper","line":4,"file":"tools/cli.c","function_line":4},{"callee":"loop_run","line":4,"file":"tools/cli.c","function_line":4}]' ask2 "what does main call, including disabled code"
expect_out "the subject after a passive verb" 'template:callees [{"callee":"helper","line":4,"file":"tools/cli.c","function_line":4},{"callee":"loop_run","line":4,"file":"tools/cli.c","function_line":4}]' ask2 "what is called by main"
# every call written counts at each step, under a disabled #if too (lib/loop.c's main),
# as one step's callers do
expect_out "callers to a depth, each at its nearest" 'template:callers-depth [{"caller":"helper","file":"lib/loop.c","depth":1},{"caller":"main","file":"lib/loop.c","depth":1},{"caller":"main","file":"tools/cli.c","depth":1}]' ask2 "callers of loop_run 2 levels deep"
expect_out "callees to a depth" 'template:callees-depth [{"callee":"loop_run","file":"lib/loop.c","depth":1},{"callee":"backend_poll","file":"lib/backend.c","depth":2},{"callee":"h","depth":2},{"callee":"log_impl","file":"lib/log.c","depth":2},{"callee":"set_handler","file":"lib/loop.c","depth":2}]' ask2 "what does helper in lib/loop.c call, two levels deep"
# a misspelt or wrongly cased name, or a file that is not there: an error that says what to
# write, exit 2; never 0 rows
expect_err "a misspelt name in a frame" "no such function 'loop_rnu' in the code index; did you mean 'loop_run'?" \
  "$Q" tool search_codebase --repo "$R2" --question "callers of loop_rnu"
expect_rc "a wrongly cased name exits 2" 2 "$Q" tool search_codebase --repo "$R2" --question "what does Loop_Run call"
expect_err "a file the index lacks" "no file 'lop.c' in the code index; did you mean 'lib/log.c', 'lib/loop.c'?" \
  "$Q" tool search_codebase --repo "$R2" --question "what does lop.c include"
expect_rc "a header nobody has exits 2" 2 "$Q" tool search_codebase --repo "$R2" --question "who includes lgo.h"
# a typo of a frame word is read through the shared typo measure
expect_out "a misspelt frame word" 'template:callers [{"caller":"helper","file":"lib/loop.c","line":16},{"caller":"main","file":"lib/loop.c","line":18,"inactive":true},{"caller":"main","file":"tools/cli.c","line":4}]' ask2 "callrs of loop_run"

# quarry ask reaches the templates for code questions (tier 1, no model)
expect_out "quarry ask: code question" '{"findings":[{"name":"unused","file":"src/main.c","line":4}],"summary":"1 result(s) from the code graph (template dead-statics)"}' \
  "$Q" ask "static functions nobody calls?" --repo "$R" --format json
expect_out "quarry ask --explain names the rule" "tier 1 (router), rule code-dead-statics: 0 model calls" \
  sh -c "'$Q' ask 'static functions nobody calls?' --repo '$R' --explain 2>&1 | head -1 | sed 's/, [0-9.]* ms\$//'"

# ---- the model path ----
serve() { # serve STEP...: the model server answering with these steps
  llm_script "$TMP/script.json" "$@"
  llm_serve "$TMP/script.json"
}
unserve() { llm_unserve; unset QUARRY_LLM_URL; }
trap 'unserve; rm -rf "$TMP"' EXIT
pylog() { python3 -c "import json,sys; L=[json.loads(l) for l in open(sys.argv[2])]; print($1)" "$1" "$TMP/log.jsonl"; }

GOOD='{"text": "```sparql\nPREFIX code: <https://quarry.dev/code#>\nSELECT (COUNT(?f) AS ?n) WHERE { ?f a code:Function }\n```"}'
serve "$GOOD"
expect_out "one model call" 'model 1 [{"n":5}]' ask "how many functions are there"
expect_out "the question is the user message" "how many functions are there" pylog 'L[0]["body"]["messages"][-1]["content"]'
unserve

BROKEN='{"text": "SELECT (COUNT(?f) AS ?n) WHERE { ?f a code:Function }"}'
serve "$BROKEN" "$GOOD"
expect_out "repaired once" 'model 2 [{"n":5}]' ask "count the functions"
expect_out "the repair carries the error" "True" pylog '"unknown prefix" in L[1]["body"]["messages"][-1]["content"]'
expect_out "the cached prefix is byte-identical" "True" pylog 'L[0]["body"]["messages"][0] == L[1]["body"]["messages"][0] and L[0]["body"]["messages"][0]["role"] == "system"'
unserve

UPDATE='{"text": "```sparql\nINSERT DATA { <a:a> <a:b> <a:c> }\n```"}'
serve "$UPDATE" "$UPDATE"
expect_err "refused twice: an error" "the model's query failed twice: refused: read-only: INSERT DATA is an update" \
  "$Q" tool search_codebase --repo "$R" --question "delete everything"
expect_out "two calls, no more" "2" pylog 'len(L)'
unserve

# a model whose broken query quotes the API key: the error names the failure, never the key
LEAK='{"text": "```sparql\nSELECT ?x WHERE { ?x <sk-leak-0123456789abcdef> }\n```"}'
serve "$LEAK" "$LEAK"
QUARRY_LLM_API_KEY=sk-leak-0123456789abcdef "$Q" tool search_codebase --repo "$R" --question "x" >"$TMP/leak.out" 2>"$TMP/leak.err"
expect_out "a key in the model's query: the error says the query failed" "1" grep -c "the model's query failed twice" "$TMP/leak.err"
expect_out "a key in the model's query: not in the error" "0" sh -c "cat '$TMP/leak.out' '$TMP/leak.err' | grep -c 0123456789abcdef"
unserve
# a model whose good query quotes the key (in a comment, and as a literal it selects): the
# answer holds it neither in its query text nor in its rows
QUOTE='{"text": "```sparql\nSELECT (\"sk-leak-0123456789abcdef\" AS ?k) WHERE {} # sk-leak-0123456789abcdef\n```"}'
serve "$QUOTE"
QUARRY_LLM_API_KEY=sk-leak-0123456789abcdef "$Q" tool search_codebase --repo "$R" --question "x" --format json >"$TMP/quote.out" 2>"$TMP/quote.err"
expect_out "a key in a good query: answered" "1" sh -c "grep -c '\"how\"' '$TMP/quote.out'"
expect_out "a key in a good query: not in the answer" "0" sh -c "cat '$TMP/quote.out' '$TMP/quote.err' | grep -c 0123456789abcdef"
unserve
# recursion under a disabled #if is recursion too, marked (a tree without its configure
# run compiles nothing under HAVE_*); "recursively" with no name to follow asks for it
R5="$TMP/repo5"
git init -q -b main "$R5"
cat > "$R5/walk.c" <<'C'
int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
#ifdef HAVE_TREE
static int walk(int n) { return n ? walk(n - 1) : 0; }
#endif
C
git -C "$R5" add -A && git -C "$R5" -c user.name=T -c user.email=t@x commit -qm five
ask5() {
  "$Q" tool search_codebase --repo "$R5" --question "$1" --format json > "$TMP/out.json" 2> "$TMP/err" || true
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['how'], json.dumps(d['rows'], separators=(',',':')))" "$TMP/out.json" 2>/dev/null || cat "$TMP/err"
}
expect_out "recursive functions, disabled ones marked" 'template:recursive [{"name":"fact","file":"walk.c","line":1},{"name":"walk","file":"walk.c","line":3,"inactive":true}]' ask5 "which functions call themselves recursively"
# a header found through the build's search path: main.c includes "plat.h", which the
# build takes from one platform's folder and the index, without the build, may take from
# the other; a static function of either that main.c calls is not dead
R6="$TMP/repo6"
git init -q -b main "$R6"
mkdir -p "$R6/linux" "$R6/bsd"
printf 'static inline int plat_id(void) { return 1; }\nstatic inline int plat_unused(void) { return 0; }\n' > "$R6/linux/plat.h"
printf 'static inline int plat_id(void) { return 2; }\nstatic inline int plat_unused(void) { return 0; }\n' > "$R6/bsd/plat.h"
printf '#include "plat.h"\nint main(void) { return plat_id(); }\n' > "$R6/main.c"
git -C "$R6" add -A && git -C "$R6" -c user.name=T -c user.email=t@x commit -qm six
ask6() {
  "$Q" tool search_codebase --repo "$R6" --question "$1" --format json > "$TMP/out.json" 2> "$TMP/err" || true
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['how'], json.dumps([r['name'] + ' ' + r['file'] for r in d['rows']]))" "$TMP/out.json" 2>/dev/null || cat "$TMP/err"
}
expect_out "a static in a header found by a search path: used" 'template:dead-statics ["plat_unused bsd/plat.h", "plat_unused linux/plat.h"]' ask6 "static functions nobody calls"
finish
