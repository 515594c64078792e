# 70_code_decl_macro.sh: issue 23's reproducer for a definition written `TYPE * MACRO
# name(...)`, where MACRO is a calling-convention or attribute macro defined in a header
# the file includes (nginx's `u_char * ngx_cdecl ngx_sprintf(u_char *buf, const char
# *fmt, ...)`, ngx_cdecl empty in os/unix/ngx_linux_config.h). A word after a `*` is never
# the type: ngx_sprintf is a function (it had no definition, so its callers linked to
# nothing), and the function after it is not lost either. And `#include <ngx_core.h>` is
# looked up in the build's -I directories in the tree (compile_commands.json), as the
# compiler looks: nginx compiles with -I src/core, and the graph had left every such
# include a system header, so no macro of the project's headers was seen (ngx_memcpy, a
# macro over memcpy, was read as a call of the function compiled out; ngx_log_error, a
# macro over ngx_log_error_core, as one of the function of the no-variadic-macros branch).
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE QUARRY_CODE_DEFINES
mkdir -p "$HOME"

R="$TMP/repo"
git init -q -b main "$R"
cat > "$R/ngx_config.h" <<'C'
#define ngx_cdecl
#define NGX_EXPORT
typedef unsigned char u_char;
C
cat > "$R/ngx_string.c" <<'C'
#include "ngx_config.h"

static u_char *ngx_sprintf_num(u_char *buf, int n);

u_char * ngx_cdecl
ngx_sprintf(u_char *buf, const char *fmt, ...)
{
    return ngx_sprintf_num(buf, 1);
}

u_char * ngx_cdecl
ngx_slprintf(u_char *buf, u_char *last, const char *fmt, ...)
{
    return ngx_sprintf(buf, fmt);
}

static u_char *
ngx_sprintf_num(u_char *buf, int n)
{
    return buf + n;
}

void ngx_cdecl
ngx_log_error_core(int level, const char *fmt, ...)
{
    u_char buf[8];
    ngx_slprintf(buf, buf + 8, fmt);
}

char ** NGX_EXPORT ngx_names(void);
u_char ** NGX_EXPORT ngx_words(void);
C
git -C "$R" add -A
git -C "$R" -c user.name=T -c user.email=t@example.com commit -qm one

expect_out "a definition with a macro after the star names the function" \
  'declaration:ngx_sprintf_num:3 function:ngx_sprintf:5 function:ngx_slprintf:11 function:ngx_sprintf_num:17 function:ngx_log_error_core:23 declaration:ngx_names:30 declaration:ngx_words:31' \
  sh -c "'$Q' code dump --repo '$R' --path ngx_string.c | python3 -c 'import json,sys; print(\" \".join(\"%s:%s:%s\" % (r[\"node\"], r[\"name\"], r[\"line\"]) for r in map(json.loads, sys.stdin) if r.get(\"node\") in (\"declaration\", \"function\")))'"
expect_out "its return type is the type before the star" 'u_char *' \
  sh -c "'$Q' code dump --repo '$R' --path ngx_string.c | python3 -c 'import json,sys; print(\" \".join(r[\"returns\"] for r in map(json.loads, sys.stdin) if r.get(\"node\") == \"function\" and r[\"name\"] == \"ngx_sprintf\"))'"
expect_out "its callers link to it" 'ngx_string.c:ngx_slprintf' \
  sh -c "'$Q' code query get_call_graph --name ngx_sprintf --direction callers --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(r[\"from\"] for r in json.load(sys.stdin)[\"results\"])))'"
expect_out "its callees are read" 'ngx_string.c:ngx_sprintf_num' \
  sh -c "'$Q' code query get_call_graph --name ngx_sprintf --direction callees --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(r[\"to\"] for r in json.load(sys.stdin)[\"results\"])))'"
expect_out "no parse errors left" '' \
  sh -c "'$Q' code query get_index_stats --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(f[\"file\"] for f in json.load(sys.stdin)[\"error_files\"]))'"

R2="$TMP/repo2"
git init -q -b main "$R2"
mkdir -p "$R2/core" "$R2/http"
cat > "$R2/core/ngx_core.h" <<'C'
#define ngx_memcpy(dst, src, n) (void) memcpy(dst, src, n)
#define ngx_log_error(level, ...) ngx_log_error_core(level, __VA_ARGS__)
void ngx_log_error_core(int level, const char *fmt, ...);
C
cat > "$R2/core/ngx_string.c" <<'C'
#include <ngx_core.h>
#if (NGX_MEMCPY_LIMIT)
void *ngx_memcpy(void *dst, const void *src, int n) { return dst; }
#endif
void ngx_log_error_core(int level, const char *fmt, ...) { }
C
cat > "$R2/http/ngx_http.c" <<'C'
#include <ngx_core.h>
void ngx_http_init(char *a, char *b) { ngx_memcpy(a, b, 1); ngx_log_error(1, "x"); }
C
git -C "$R2" add -A
git -C "$R2" -c user.name=T -c user.email=t@example.com commit -qm one

# what ngx_http.c includes and calls: "I FILE" for an include, "C CALLEE" for a compiled
# call, "E MACRO" for a call written through a macro
uses() {
  "$Q" code dump --repo "$R2" --path http/ngx_http.c | python3 -c '
import json, sys
for r in map(json.loads, sys.stdin):
    k = {"includes": "I", "calls": "C", "expands": "E"}.get(r.get("edge"))
    if k and not (k == "C" and r.get("resolved") is False):
        print(k, r["to"])' | sort | tr '\n' ' '
}
# without the build's flags, an angled include is the one file of its name in the tree
# (as a -I would find it); with two such files it stays a system header
expect_out "without the build's flags: the one tree file of that name" \
  'C core/ngx_string.c:ngx_log_error_core E ngx_log_error E ngx_memcpy I core/ngx_core.h ' uses
mkdir -p "$R2/compat"
echo '/* another */' > "$R2/compat/ngx_core.h"
git -C "$R2" add -A
git -C "$R2" -c user.name=T -c user.email=t@example.com commit -qm two
expect_out "two files of that name: a system header" \
  'C core/ngx_string.c:ngx_memcpy I <ngx_core.h> ' uses
printf '[{"directory": "%s", "arguments": ["cc", "-I", "core", "-c", "http/ngx_http.c"], "file": "http/ngx_http.c"}]\n' \
  "$R2" > "$R2/compile_commands.json"
expect_out "with them it is the tree's header, and its macros are the calls" \
  'C core/ngx_string.c:ngx_log_error_core E ngx_log_error E ngx_memcpy I core/ngx_core.h ' uses

# annotation macros with arguments on a line of their own, defined in another header
# (htop's XUtils.h: `ATTR_RETNONNULL ATTR_MALLOC ATTR_ALLOC_SIZE1(1)` before `void*
# xMalloc(size_t size);`, the macros in Macros.h): the line is blanks, not an old-style
# definition named ATTR_ALLOC_SIZE1 running to the next body; `BOOL WINAPI` on a line of
# its own is a type and stays
R3="$TMP/repo3"
git init -q -b main "$R3"
cat > "$R3/Macros.h" <<'C'
#define ATTR_MALLOC __attribute__((malloc))
#define ATTR_ALLOC_SIZE1(a) __attribute__((alloc_size (a)))
#define ATTR_NONNULL __attribute__((nonnull))
C
cat > "$R3/XUtils.h" <<'C'
#include "Macros.h"
ATTR_MALLOC ATTR_ALLOC_SIZE1(1)
void* xMalloc(size_t size);

ATTR_NONNULL
static inline int String_eq(const char* a, const char* b) {
   return a == b;
}
C
cat > "$R3/win.c" <<'C'
BOOL WINAPI
DllMain(void *h, int reason, void *r) {
   return 1;
}
C
git -C "$R3" add -A
git -C "$R3" -c user.name=T -c user.email=t@example.com commit -qm one
nodes3() {
  "$Q" code dump --repo "$R3" | python3 -c '
import json, sys
for r in map(json.loads, sys.stdin):
    if r.get("node") in ("function", "declaration"):
        print(r["node"][0], r["name"], r["line"])' | tr '\n' ' '
}
expect_out "an argument-taking annotation line defined elsewhere is blanks" \
  'd xMalloc 3 f String_eq 6 f DllMain 1 ' nodes3
# a function whose head a macro writes, its body after the invocation (Janet's
# `JANET_CORE_FN(cfun_x, "(usage)", "doc") { ... }`, the macro expanding to `Janet
# cfun_x(int32_t argc, Janet *argv)`): the function cfun_x at its lines, its calls read,
# its signature the invocation as written; a file-scope call-like line with no body after
# it stays no function
R4="$TMP/repo4"
git init -q -b main "$R4"
cat > "$R4/core.c" <<'C'
#define JANET_FN(CNAME, USAGE, DOCSTRING) \
    int CNAME (int argc, int *argv)
#define JANET_CORE_FN JANET_FN
static int helper(int x) { return x; }
JANET_CORE_FN(cfun_close,
              "(ev/close stream)",
              "Close a stream (or not).") {
    return helper(argc);
}
DECLARE_THING(other_name, "x");
int after(void) { return cfun_close(1, 0); }
C
git -C "$R4" add -A
git -C "$R4" -c user.name=T -c user.email=t@example.com commit -qm one
nodes4() {
  "$Q" code dump --repo "$R4" | python3 -c '
import json, sys
for r in map(json.loads, sys.stdin):
    if r.get("node") == "function":
        print(r["name"], r["line"], r.get("end_line"))
    if r.get("edge") == "calls" or r.get("node") == "call":
        pass' | tr '\n' ' '
}
expect_out "a head a macro writes: the function, at its lines" \
  'helper 4 4 cfun_close 5 9 after 11 11 ' nodes4
expect_out "its calls are read" "helper" sh -c "'$Q' tool query_codebase --repo '$R4' --query_type get_call_graph --name cfun_close --direction callees | grep -o '\"to\":\"[^\"]*helper' | sed 's/.*://'"
expect_out "its signature is the invocation as written" 'JANET_CORE_FN(cfun_close, "(ev/close stream)", "Close a stream (or not).")' \
  sh -c "'$Q' tool query_codebase --repo '$R4' --query_type get_definition --name cfun_close | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"signature\"])'"
finish
