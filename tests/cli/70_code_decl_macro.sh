# 70_code_decl_macro.sh: issue 23's reproducer for a definition written `TYPE * MACRO
# name(...)`, where MACRO is a calling-convention or attribute macro defined in a header
# the file includes (nginx's `u_char * ngx_cdecl ngx_sprintf(u_char *buf, const char
# *fmt, ...)`, ngx_cdecl empty in os/unix/ngx_linux_config.h). A word after a `*` is never
# the type: ngx_sprintf is a function (it had no definition, so its callers linked to
# nothing), and the function after it is not lost either.
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

finish
