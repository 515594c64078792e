# 66_code_calls.sh: issue 23's reproducers for what the call graph missed on jq and Lua,
# each a small repository built here with git, indexed, then queried: a bare
# `extern "C"` between `#ifdef __cplusplus` and `#endif` (jq's util.c, before `void
# *alloca(size_t);`) no longer makes the rest of the file inactive; a .c file judges
# `#if defined(X)` by the #defines it can see (its own and its includes'), not one in a
# header it never includes (Lua's ltests.h defines LUA_DEBUG for test builds only); a call
# through a function pointer kept in a struct (`c->cmd->proc(c)`) is a call of the member,
# with its struct (as cscope lists it), in the lexical view only; preprocessor branches
# that open a brace and close it in another group (jq's decNumber `#if DECSUBSET / if (x)
# { / #endif`, decLnOp's `#if DECDPUN==1 / if (a) { / #else / if (b) { / #endif`) or that
# each open a function (`#ifdef WIN32 / int umain(...) { / #else /
# int main(...) { / #endif`) no longer lose the functions after them.
# `const char *(name) (args);` is a prototype, not a variable (Lua's lauxlib.h);
# a `.def` or `.inc` table beside C sources (redis's commands.def) is read as C;
# a function a macro defines where it is invoked at file scope (jq's libm.h, 116 lines of
# `LIBM_DD(acos)` with LIBM_DD defining `static jv f_ ## name(...) {...}`) is a function
# with the body's calls; get_index_stats names the lines of a file's parse errors.
# A macro named alone at file scope whose replacement is a list of such invocations (jq's
# builtin.h `#define BINOPS BINOP(plus) BINOP(minus)`) defines each function; a macro
# that calls what a selector macro picks among its arguments (jq's `#define BLOCK(...)
# BLOCK_IDX(__VA_ARGS__, BLOCK_3, BLOCK_2, BLOCK_1)(__VA_ARGS__)`) reaches what those
# call; an #ifndef group inside a string concatenation (jq's builtin.c `"def ..."` /
# `#ifndef HAVE_FREXP` / `"def frexp..."` / `#endif` / `;`) no longer swallows the
# functions after it. A function whose head a macro writes (every flex scanner's
# `#define YY_DECL int yylex (void)` then `YY_DECL { ... }`) is the function the
# replacement names, through the aliases that rename it (jq's `#define yylex jq_yylex`),
# with the body's calls. A call written through an object-like alias (`#define s_free zfree`) is
# an expansion of the alias, as cscope and cflow list it; `else if (...) {` after a
# statement macro without a `;` calls neither `else` nor `if`. Groups on one condition
# whose braces pair across them (jv_dtoa.c's `#ifdef Avoid_Underflow` / `#else` / `if (x)
# {` then `#ifndef Avoid_Underflow` / `}`) keep the same branch, and a kept branch that
# leaves a brace open is read as plain code (decNumber's `#if FASTMUL` / `else {`); an
# #if alone on a macro only the build defines (jq's jv_print.c `#ifdef USE_DECNUM` /
# `} else {`) keeps its code; a group that begins with `else` (curl's `#ifdef USE_IPV6` /
# `else if (...)`) is read as part of the statement before it, and `VERBOSE(char b[N]);`
# in a body is a call of the macro.
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE QUARRY_CODE_DEFINES
mkdir -p "$HOME"

R="$TMP/repo"
git init -q -b main "$R"
cat > "$R/util.c" <<'C'
#include <stddef.h>
#ifdef HAVE_ALLOCA_H
# include <alloca.h>
#elif !defined alloca
# ifdef __GNUC__
#  define alloca __builtin_alloca
# elif !defined HAVE_ALLOCA
#  ifdef  __cplusplus
extern "C"
#  endif
void *alloca (size_t);
# endif
#endif
static int get_home(void) { return 1; }
int expand_path(int p) { return p + get_home(); }
C
cat > "$R/ltests.h" <<'C'
#define LUA_DEBUG
C
cat > "$R/ltests.c" <<'C'
#include "lua.h"
#if defined(LUA_DEBUG)
static int tref(int x) { return x; }
int testC(int x) { return tref(x); }
#endif
C
cat > "$R/lua.h" <<'C'
#ifndef lua_h
#define lua_h
#define LUA_OK 0
#endif
C
cat > "$R/lvm.c" <<'C'
#include "ltests.h"
#include "lua.h"
#if defined(LUA_DEBUG)
static int check(int x) { return x; }
int debug_only(int x) { return check(x); }
#endif
C
cat > "$R/server.c" <<'C'
typedef void redisCommandProc(struct client *c);
struct redisCommand { const char *name; redisCommandProc *proc; };
struct client { struct redisCommand *cmd; void (*reply)(struct client *); };
void call(struct client *c) {
    c->cmd->proc(c);
    (*c->reply)(c);
}
C
cat > "$R/power.c" <<'C'
#define DECSUBSET 0
static int divide(int a) { return a / 2; }
int power(int x, int ext) {
  int r = 0;
  if (x < 0) {
    #if DECSUBSET
    if (ext) {
    #endif
      r = divide(x);
    #if DECSUBSET
      }
    #endif
    }
  return r;
}
int after_power(int x) { return divide(x); }
#ifdef WIN32
int umain(int argc, char **argv);
int wmain(int argc, char **argv) { return umain(argc, argv); }
int umain(int argc, char* argv[]) {
#else
int main(int argc, char* argv[]) {
#endif
  return divide(argc) + (argv != 0);
}
int after_main(void) { return divide(4); }
C
cat > "$R/lauxlib.h" <<'C'
#define LUALIB_API extern
LUALIB_API const char *(luaL_checklstring) (void *L, int arg, unsigned long *l);
LUALIB_API int (luaL_newmetatable) (void *L, const char *tname);
extern int (*lua_hook)(int);
C
mkdir -p "$R/srv" "$R/win32"
cat > "$R/srv/commands.c" <<'C'
typedef void proc_t(int);
struct cmd { const char *name; proc_t *proc; };
void getCommand(int c) { (void)c; }
struct cmd table[] = {
#include "commands.def"
};
C
cat > "$R/srv/commands.def" <<'C'
{"get", getCommand},
C
printf 'LIBRARY\nEXPORTS\n    deflate @1\n' > "$R/win32/zlib.def"
cat > "$R/builtin.c" <<'C'
int jv_free(int);
int jv_number(int);
#define LIBM_DD(name) \
static int f_ ## name(int input) { \
  int ret = jv_number(input); \
  jv_free(input); \
  return ret; \
}
#include "libm.h"
#undef LIBM_DD
C
printf '#ifdef HAVE_NOTHING\nLIBM_DD(acos)\n#else\nLIBM_DD_NO(acos)\n#endif\nLIBM_DD(asin)\nLIBM_DD(atan)\n' > "$R/libm.h"
cat > "$R/declocal.h" <<'C'
#if !defined(DECCHECK)
  #define DECCHECK 0
#endif
#define DECUSE64 1
C
cat > "$R/dec.c" <<'C'
#include "declocal.h"
static int check_operands(int x) { return x; }
static int wide(int x) { return x; }
static int narrow(int x) { return x; }
int dec_add(int x) {
  #if DECCHECK
  if (check_operands(x)) return 0;
  #endif
  #if DECUSE64
  x = wide(x);
  #else
  x = narrow(x);
  #endif
  #if !NOT_DEFINED_ANYWHERE
  x += 1;
  #endif
  return x;
}
C
cat > "$R/redismodule.h" <<'C'
#ifndef REDISMODULE_API
#define REDISMODULE_API
#endif
#define REDISMODULE_ATTR_COMMON __attribute__((__common__))
#define REDISMODULE_ATTR REDISMODULE_ATTR_COMMON
REDISMODULE_API void * (*RedisModule_Alloc)(unsigned long bytes) REDISMODULE_ATTR;
REDISMODULE_API int (*RedisModule_Two)(int x) REDISMODULE_ATTR;
REDISMODULE_API void (*RedisModule_Log)(const char *fmt) REDISMODULE_ATTR;
C
cat > "$R/jv_parse.c" <<'C'
typedef const char* presult;
#define pfunc __attribute__((warn_unused_result)) presult
static pfunc check_literal(int p) { return p ? "x" : 0; }
C
cat > "$R/ln.c" <<'C'
static int ln10(void) { return 10; }
int lnop(int *lsu, int digits) {
  do {
    if (digits > 0) {
      #if DECDPUN==1
      if (lsu[0]==0 && lsu[1]==1 && digits==2) {
      #else
      if (lsu[0]==10 && digits==2) {
      #endif
        return ln10();
        }
      }
    } while(0);
  return 0;
}
int after_lnop(void) { return ln10(); }
C
cat > "$R/binops.h" <<'C'
#define BINOPS \
  BINOP(plus) \
  BINOP(minus)
C
cat > "$R/binops.c" <<'C'
#include "binops.h"
int binop_plus(int a, int b);
int binop_minus(int a, int b);
int bfree(int x) { return x; }
#define BINOP(name) \
static int f_ ## name(int input, int a, int b) { \
  bfree(input); \
  return binop_ ## name(a, b); \
}
BINOPS
#undef BINOP
static const char jq_builtins[] =
  "def a: 1;"
#ifndef HAVE_FREXP
  "def frexp: error;"
#endif
;
#define HAVE_FREXP 1
int after_builtins(int x) { return bfree(x); }
C
cat > "$R/block.c" <<'C'
typedef struct block { int n; } block;
block block_join(block a, block b) { a.n += b.n; return a; }
#define BLOCK_1(b1) (b1)
#define BLOCK_2(b1,b2) (block_join((b1),(b2)))
#define BLOCK_3(b1,b2,b3) (block_join(BLOCK_2(b1,b2),(b3)))
#define BLOCK_IDX(_1,_2,_3,NAME,...) NAME
#define BLOCK(...) BLOCK_IDX(__VA_ARGS__, BLOCK_3, BLOCK_2, BLOCK_1)(__VA_ARGS__)
block gen_both(block a, block b) { return BLOCK(a, b); }
C
cat > "$R/lexer.c" <<'C'
#define yylex jq_yylex
static int yy_get_next_buffer(void) { return 0; }
#ifndef YY_DECL
#define YY_DECL int yylex \
               (void *yyscanner)
#endif
/** The main scanner function which does all the work. */
YY_DECL
{
	int yy_act = yy_get_next_buffer();
	return yy_act;
}
int after_lexer(void) { return yylex(0); }
C
cat > "$R/alias.c" <<'C'
void *zfree(void *p);
#define s_free zfree
#define redis_unreachable __builtin_unreachable
void sds_free(void *p) { s_free(p); }
void never(void) { redis_unreachable(); }
C
cat > "$R/numeric.c" <<'C'
#define GET_NUMERIC_TYPE(val) \
    if (kind == 1) { val = 1; } else { val = 2; }
static int ll2string(char *b, long long v) { return b[0] = (char)v; }
static int ull2string(char *b, long long v) { return b[0] = (char)v; }
int numericConfigGet(int kind, char *buf) {
    long long value = 0;
    GET_NUMERIC_TYPE(value)

    if (kind & 1 && value < 0) {
        ll2string(buf, -value);
    }
    else if (kind & 2) {
        ull2string(buf, value);
    } else {
        ll2string(buf, value);
    }
    return 0;
}
C
cat > "$R/dtoa.c" <<'C'
static int tiny(double *r) { return *r == 0; }
static int big(double *r) { return *r > 1; }
int strtod_like(double *rv, int e1) {
	if (e1 < 0) {
#ifdef Avoid_Underflow
		if (big(rv))
			return 1;
#else
		if (!tiny(rv)) {
			*rv *= 2;
#endif
			if (tiny(rv))
				return 0;
#ifndef Avoid_Underflow
			*rv = 1;
			}
#endif
		}
	return big(rv);
}
int after_strtod(double *rv) { return tiny(rv); }
C
cat > "$R/mul.c" <<'C'
#define FASTMUL (USE64 && DPUN<5)
static int fast(int x) { return x * 2; }
static int slow(int x) { return x + x; }
int multiply(int digits, int x) {
  int acc = 0;
  #if FASTMUL
  int lazy = 0;
  #endif
  #if FASTMUL
  if (digits > 4) {
    acc = fast(x);
    }
   else {
  #endif
    acc = slow(x);
  #if FASTMUL
    }
  #endif
  return acc + lazy;
}
int after_multiply(int x) { return slow(x); }
C
cat > "$R/print.c" <<'C'
static int get_literal(int x) { return x; }
static int value(int x) { return x; }
int dump_term(int x) {
  if (x) {
    return 0;
  } else {
#ifdef USE_DECNUM
    int lit = get_literal(x);
    if (lit) {
      return lit;
    } else {
#endif
      return value(x);
#ifdef USE_DECNUM
    }
#endif
  }
}
int after_dump(int x) { return value(x); }
C
cat > "$R/dns.c" <<'C'
#define VERBOSE(x) x
static int is_ipv4(const char *h) { return h[0] == '1'; }
static int is_ipaddr(const char *h) { return h[0] == ':'; }
int dns_start(const char *host) {
  int q = 0;
  VERBOSE(char buffer[16]);
  if(is_ipv4(host))
    q |= 1;
#ifdef USE_IPV6
  else if(is_ipaddr(host)) /* not ipv4, must be ipv6 then */
    q |= 2;
#endif
  return q;
}
int after_dns(const char *h) { return is_ipv4(h); }
C
git -C "$R" add -A
git -C "$R" -c user.name=T -c user.email=t@example.com commit -qm one

# state NAME...: "name:active|inactive|missing" for each function named
state() {
  "$Q" code dump --repo "$R" | python3 -c '
import json, sys
rows = [r for r in map(json.loads, sys.stdin) if r.get("node") == "function"]
out = []
for name in sys.argv[1:]:
    hit = [r for r in rows if r["name"] == name]
    out.append("%s:%s" % (name, ",".join("inactive" if r.get("inactive") else "active" for r in hit) or "missing"))
print(" ".join(out))' "$@"
}

# the build defines HAVE_ALLOCA_H (jq's does): the file's end was read under !HAVE_ALLOCA_H
expect_out "bare extern C: what follows the #endif stays active" \
  'get_home:active expand_path:active' env QUARRY_CODE_DEFINES=HAVE_ALLOCA_H sh -c '
  "$0" code dump --repo "$1" | python3 -c "
import json, sys
rows = [r for r in map(json.loads, sys.stdin) if r.get(\"node\") == \"function\" and r[\"file\"] == \"util.c\"]
print(\" \".join(\"%s:%s\" % (r[\"name\"], \"inactive\" if r.get(\"inactive\") else \"active\") for r in rows))"' "$Q" "$R"
expect_out "bare extern C: its call is active" 'util.c:get_home:active' \
  env QUARRY_CODE_DEFINES=HAVE_ALLOCA_H sh -c "'$Q' code query get_call_graph --name expand_path --direction callees --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(\"%s:%s\" % (r[\"to\"], \"inactive\" if r.get(\"inactive\") else \"active\") for r in json.load(sys.stdin)[\"results\"]))'"
expect_out "a macro defined in a header the file does not include is not defined there" \
  'testC:inactive tref:inactive' state testC tref
expect_out "a macro defined in a header the file includes is" \
  'debug_only:active check:active' state debug_only check
expect_out "a call through a struct member is a call of the member" \
  'calls server.c:call server.c:client.reply 6|calls server.c:call server.c:redisCommand.proc 5' \
  sh -c "'$Q' code dump --repo '$R' | python3 -c '
import json, sys
print(\"|\".join(sorted(\"%s %s %s %s\" % (r[\"edge\"], r[\"from\"], r[\"to\"], r[\"line\"]) for r in map(json.loads, sys.stdin) if r.get(\"edge\") == \"calls\" and r[\"from\"].startswith(\"server.c\"))))'"
expect_out "callees of call name the members" 'server.c:client.reply server.c:redisCommand.proc' \
  sh -c "'$Q' code query get_call_graph --name call --direction callees --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(r[\"to\"] for r in json.load(sys.stdin)[\"results\"])))'"

expect_out "unbalanced branches: the functions after them are kept" \
  'power:active after_power:active main:active after_main:active' state power after_power main after_main
expect_out "both branches open a brace (jq's decLnOp): the function after is kept" \
  'lnop:active after_lnop:active' state lnop after_lnop
expect_out "unbalanced branches: the calls inside are kept" 'power.c:divide' \
  sh -c "'$Q' code query get_call_graph --name power --direction callees --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(r[\"to\"] for r in json.load(sys.stdin)[\"results\"])))'"
expect_out "unbalanced branches: main's calls are main's" 'power.c:divide' \
  sh -c "'$Q' code query get_call_graph --name main --direction callees --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(r[\"to\"] for r in json.load(sys.stdin)[\"results\"])))'"

expect_out "get_index_stats: the lines of the parse errors" 'bad.c [2]' \
  sh -c "printf 'int ok(void) { return 1; }\nint bad(void) { return ) ; }\n' > '$R/bad.c' && '$Q' code query get_index_stats --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(\"%s %s\" % (f[\"file\"], f[\"lines\"]) for f in json.load(sys.stdin)[\"error_files\"] if f[\"file\"] == \"bad.c\"))'"

expect_out "a prototype with its name in parentheses is a declaration, a pointer a variable" \
  'declaration:luaL_checklstring declaration:luaL_newmetatable variable:lua_hook' \
  sh -c "'$Q' code dump --repo '$R' --path lauxlib.h | python3 -c 'import json,sys; print(\" \".join(\"%s:%s\" % (r[\"node\"], r[\"name\"]) for r in map(json.loads, sys.stdin) if r.get(\"node\") in (\"declaration\", \"variable\")))'"

expect_out "an included table (.def beside C) is indexed: its uses are found" \
  'srv/commands.def:1:use' \
  sh -c "'$Q' code query find_references --name getCommand --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(\"%s:%s:%s\" % (r[\"file\"], r[\"line\"], r[\"kind\"]) for r in json.load(sys.stdin)[\"results\"]))'"
expect_out "a module definition (.def beside no C) is not" '0' \
  sh -c "'$Q' code dump --repo '$R' | grep -c 'win32/zlib.def'"

expect_out "a macro invoked at file scope defines the function it names, with the body's calls" \
  'f_acos:2:inactive f_asin:6:active f_atan:7:active' \
  sh -c "'$Q' code dump --repo '$R' --path libm.h | python3 -c 'import json,sys; print(\" \".join(\"%s:%s:%s\" % (r[\"name\"], r[\"line\"], \"inactive\" if r.get(\"inactive\") else \"active\") for r in map(json.loads, sys.stdin) if r.get(\"expanded_from\") == \"LIBM_DD\"))'"
expect_out "callees of a function a macro defines" 'jv_free jv_number' \
  sh -c "'$Q' code query get_call_graph --name f_asin --direction callees --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(r[\"to\"] for r in json.load(sys.stdin)[\"results\"])))'"

expect_out "#if X on a macro defined as a number: 0 off, 1 on, and the #else the other way" \
  'dec.c:check_operands:inactive dec.c:narrow:inactive dec.c:wide:active' \
  sh -c "'$Q' code query get_call_graph --name dec_add --direction callees --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(\"%s:%s\" % (r[\"to\"], \"inactive\" if r.get(\"inactive\") else \"active\") for r in json.load(sys.stdin)[\"results\"])))'"

expect_out "a macro that is an attribute and a type is not an annotation" 'check_literal:active' state check_literal
expect_out "annotation macros the file defines are read as the preprocessor does (nothing)" \
  'RedisModule_Alloc RedisModule_Two RedisModule_Log' \
  sh -c "'$Q' code dump --repo '$R' --path redismodule.h | python3 -c 'import json,sys; print(\" \".join(r[\"name\"] for r in map(json.loads, sys.stdin) if r.get(\"node\") == \"variable\"))'"

expect_out "a list of invocations named at file scope defines each function" \
  'f_minus:binops.c:10 f_plus:binops.c:10' \
  sh -c "'$Q' code dump --repo '$R' --path binops.c | python3 -c 'import json,sys; print(\" \".join(sorted(\"%s:%s:%s\" % (r[\"name\"], r[\"file\"], r[\"line\"]) for r in map(json.loads, sys.stdin) if r.get(\"expanded_from\") == \"BINOP\")))'"
expect_out "each with the body's calls" 'binops.c:bfree' \
  sh -c "'$Q' code query get_call_graph --name f_plus --direction callees --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(r[\"to\"] for r in json.load(sys.stdin)[\"results\"])))'"
expect_out "a group inside a string concatenation: the function after it is active" \
  'after_builtins:active' state after_builtins
expect_out "a selector macro: the call reaches what the picked macro calls" 'block.c:block_join' \
  sh -c "'$Q' code query get_call_graph --name gen_both --direction callees --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(set(r[\"to\"] for r in json.load(sys.stdin)[\"results\"] if not r.get(\"inactive\")))))'"

expect_out "a function whose head a macro writes: named as the macro names it" \
  'jq_yylex:8-12:YY_DECL' \
  sh -c "'$Q' code dump --repo '$R' --path lexer.c | python3 -c 'import json,sys; print(\" \".join(\"%s:%s-%s:%s\" % (r[\"name\"], r[\"line\"], r[\"end_line\"], r[\"expanded_from\"]) for r in map(json.loads, sys.stdin) if r.get(\"node\") == \"function\" and r.get(\"expanded_from\")))'"
expect_out "its callees" 'lexer.c:yy_get_next_buffer' \
  sh -c "'$Q' code query get_call_graph --name jq_yylex --direction callees --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(r[\"to\"] for r in json.load(sys.stdin)[\"results\"])))'"
expect_out "its callers, through the alias" 'lexer.c:after_lexer' \
  sh -c "'$Q' code query get_call_graph --name jq_yylex --direction callers --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(r[\"from\"] for r in json.load(sys.stdin)[\"results\"])))'"

# edges NAME...: "edge from to [via]" of each call or expansion from the functions named
edges() {
  "$Q" code dump --repo "$R" | python3 -c '
import json, sys
rows = [r for r in map(json.loads, sys.stdin) if r.get("edge") in ("calls", "expands")]
print("|".join("%s %s %s%s" % (r["edge"], r["from"], r["to"], " via " + r["via"] if "via" in r else "")
               for r in rows if r["from"].split(":")[-1] in sys.argv[1:]))' "$@"
}
expect_out "a call written through an object-like alias expands the alias, then calls its target" \
  'expands alias.c:sds_free s_free|calls alias.c:sds_free zfree via s_free|expands alias.c:never redis_unreachable|calls alias.c:never __builtin_unreachable via redis_unreachable' \
  edges sds_free never
expect_out "after a statement macro without a ';', 'else if (...) {' calls neither else nor if" \
  'expands numeric.c:numericConfigGet GET_NUMERIC_TYPE|calls numeric.c:numericConfigGet numeric.c:ll2string|calls numeric.c:numericConfigGet numeric.c:ull2string|calls numeric.c:numericConfigGet numeric.c:ll2string' \
  edges numericConfigGet
expect_out "groups on one condition (#ifdef X / #else / if (a) { then #ifndef X / }) are read alike" \
  'strtod_like:active after_strtod:active' state strtod_like after_strtod
expect_out "... with the calls of both" 'dtoa.c:big dtoa.c:tiny' \
  sh -c "'$Q' code query get_call_graph --name strtod_like --direction callees --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(set(r[\"to\"] for r in json.load(sys.stdin)[\"results\"]))))'"
expect_out "a kept branch that leaves a brace open: the function and the one after it are whole" \
  'multiply:active after_multiply:active|' \
  sh -c "'$Q' code dump --repo '$R' --path mul.c | python3 -c '
import json, sys
rows = list(map(json.loads, sys.stdin))
print(\" \".join(\"%s:%s\" % (r[\"name\"], \"inactive\" if r.get(\"inactive\") else \"active\") for r in rows if r.get(\"node\") == \"function\" and r[\"name\"] in (\"multiply\", \"after_multiply\")) + \"|\" + \" \".join(r[\"name\"] for r in rows if r.get(\"node\") == \"variable\"))'"
expect_out "an #if alone on a macro the build defines (not the file) keeps its code, braces paired" \
  'print.c:get_literal print.c:value' \
  sh -c "'$Q' code query get_call_graph --name dump_term --direction callees --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(set(r[\"to\"] for r in json.load(sys.stdin)[\"results\"]))))'"
expect_out "... and the function after it is whole" 'dump_term:active after_dump:active' state dump_term after_dump
expect_out "a group that goes on with the statement before it (#ifdef X / else if (...)) keeps its call; a statement macro with a declaration for argument is a call" \
  'expands dns.c:dns_start VERBOSE|calls dns.c:dns_start dns.c:is_ipv4|calls dns.c:dns_start dns.c:is_ipaddr' \
  edges dns_start

finish
