# 41_code_real_c.sh: issue 23's reproducers of the C the code graph misread, each a
# one-file repository built here with git, indexed, then queried: a comment before the `\`
# of a multi-line #define; a statement macro without a `;` inside a function (no false
# function named `if` or after the macro, its calls credited to the enclosing function);
# a parenthesized declarator `int (name) (...)`; a macro whose body stringizes a
# parameter keeps its calls.
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
mkdir -p "$HOME"

# mkrepo NAME: a repository at $TMP/NAME holding stdin as a.c, committed
mkrepo() {
  git init -q -b main "$TMP/$1"
  git -C "$TMP/$1" config user.name T
  git -C "$TMP/$1" config user.email t@example.com
  git -C "$TMP/$1" config commit.gpgsign false
  cat > "$TMP/$1/a.c"
  git -C "$TMP/$1" add -A
  git -C "$TMP/$1" commit -qm one
}

# names REPO TYPE ARGS...: the `name` of each result of a query, space-separated
names() {
  r=$1; shift
  "$Q" code query "$@" --repo "$TMP/$r" --limit 100 --format json |
    python3 -c 'import json,sys; print(" ".join(sorted(r["name"] for r in json.load(sys.stdin)["results"])))'
}

# calls REPO NAME DIRECTION: the other end of each call edge of a function
calls() {
  "$Q" code query get_call_graph --name "$2" --direction "$3" --repo "$TMP/$1" --format json |
    python3 -c 'import json,sys; d=json.load(sys.stdin); k="from" if sys.argv[1]=="callers" else "to"; print(" ".join(sorted(r[k] for r in d["results"])))' "$3"
}

# 1. a comment before the `\` of a multi-line #define
mkrepo define <<'C'
#define STORE(p, x) do { /* big-endian */ \
    (p)[0] = (x); /* low byte */ \
    store_one(p); \
} while (0)
static int store_one(unsigned char *p) { return p[0]; }
int store_large(unsigned char *p, int len) { STORE(p, len); return len; }
int prev_len_diff(unsigned char *p) { return store_large(p, 1) - 1; }
C
expect_out "define: the functions after a commented continuation" \
  'prev_len_diff store_large store_one' names define list_functions
expect_out "define: the macro is whole: its last line's call is made through it" \
  'a.c:STORE a.c:store_large' calls define store_one callers
expect_out "define: the macro ends at its last line" 'STORE 1 4' \
  sh -c "'$Q' code query find_macro --name STORE --repo '$TMP/define' --format json | python3 -c 'import json,sys; r=json.load(sys.stdin)[\"results\"]; print(\" \".join(\"%s %d %d\" % (x[\"name\"], x[\"line\"], x[\"end_line\"]) for x in r))'"

# 2. statement macros without a `;` inside a function
mkrepo stmt <<'C'
#define GET_TYPE(v) v = get_value()
#define vmcase(l) case l:
#define vmbreak break
int get_value(void) { return 1; }
int check(int v) { return v; }
int apply(int v) { return v + 1; }
int numeric_set(int prev)
{
    GET_TYPE(prev)
    if (check(prev)) {
        return apply(prev);
    }
    switch (prev) {
        vmcase(1) {
            apply(2);
            vmbreak;
        }
        vmcase(2) {
            check(3);
            vmbreak;
        }
    }
    return 0;
}
#define vmdispatch(o) switch (o)
void lua_exec(int i)
{
    for (;;) {
        vmdispatch (i) {
            vmcase(1) {
                apply(i);
                vmbreak;
            }
        }
    }
}
C
expect_out "stmt: no function named after a keyword or a macro" \
  'apply check get_value lua_exec numeric_set' names stmt list_functions
expect_out "stmt: a dispatch macro's cases" 'a.c:lua_exec a.c:numeric_set a.c:numeric_set' \
  calls stmt apply callers
expect_out "stmt: the calls are the enclosing function's" \
  'a.c:apply 11 a.c:apply 15 a.c:check 10 a.c:check 19 a.c:get_value 9 GET_TYPE' \
  sh -c "'$Q' code query get_call_graph --name numeric_set --direction callees --repo '$TMP/stmt' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(\"%s %d%s\" % (r[\"to\"], r[\"line\"], \" \" + r[\"via\"] if \"via\" in r else \"\") for r in json.load(sys.stdin)[\"results\"])))'"
expect_out "stmt: check's callers" 'a.c:numeric_set a.c:numeric_set' calls stmt check callers

# 3. parenthesized declarators
mkrepo paren <<'C'
typedef int lua_Integer;
typedef struct lua_State lua_State;
typedef int (*lua_CFunction)(lua_State *L);
#define LUA_API extern
static int helper(void) { return 0; }
LUA_API lua_CFunction (lua_atpanic) (lua_State *L, lua_CFunction f) { helper(); return f; }
LUA_API lua_Integer (lua_tointegerx) (lua_State *L, int idx, int *isnum) { return idx; }
int (plain)(void) { return helper(); }
LUA_API int (lua_gettop) (lua_State *L);
C
expect_out "paren: functions named by their declarators" \
  'helper lua_atpanic lua_tointegerx plain' names paren list_functions
expect_out "paren: a prototype" 'lua_gettop int' \
  sh -c "'$Q' code dump --repo '$TMP/paren' | python3 -c 'import json,sys; print(\" \".join(\"%s %s\" % (r[\"name\"], r[\"returns\"]) for r in map(json.loads, sys.stdin) if r.get(\"node\") == \"declaration\"))'"
expect_out "paren: the return type" 'lua_CFunction' \
  sh -c "'$Q' code dump --repo '$TMP/paren' | python3 -c 'import json,sys; print(\" \".join(r[\"returns\"] for r in map(json.loads, sys.stdin) if r.get(\"name\") == \"lua_atpanic\"))'"
expect_out "paren: their calls" 'a.c:lua_atpanic a.c:plain' calls paren helper callers

# 4. a macro stringizing a parameter keeps its calls
mkrepo assert <<'C'
void _serverAssert(const char *e, const char *f, int l) { (void)e; (void)f; (void)l; }
#define serverAssert(_e) ((_e)?(void)0 : (_serverAssert(#_e,__FILE__,__LINE__),__builtin_unreachable()))
#define debugAssert(e) do { if (!(e)) log_failed(# e); } while (0)
void log_failed(const char *s) { (void)s; }
int process(int c) { serverAssert(c > 0); debugAssert(c < 9); return c; }
C
expect_out "assert: the macro's callee" 'a.c:_serverAssert' calls assert serverAssert callees
expect_out "assert: a stringizing macro with a spaced #" 'a.c:log_failed' \
  calls assert debugAssert callees
expect_out "assert: the macro's callers" 'a.c:process' calls assert serverAssert callers
expect_out "assert: the call made through it" 'a.c:process serverAssert' \
  sh -c "'$Q' code query get_call_graph --name _serverAssert --direction callers --repo '$TMP/assert' --format json | python3 -c 'import json,sys; print(\" \".join(\"%s %s\" % (r[\"from\"], r.get(\"via\")) for r in json.load(sys.stdin)[\"results\"] if r[\"from\"] != \"a.c:serverAssert\"))'"

finish
