# 42_code_preproc.sh: issue 23's preprocessor reproducers, each a small repository built
# here with git, indexed, then queried: the `extern "C" {` wrapper whose brace opens in
# one `#ifdef __cplusplus` branch and closes in another (the header stays active); the
# compiler's predefined macros and the C library's endian macros judged as the host
# defines them (`#ifdef __linux__` active, `#ifdef _WIN32` and `#if BYTE_ORDER ==
# BIG_ENDIAN` inactive); the build's -D options from compile_commands.json and
# QUARRY_CODE_DEFINES; an object-like alias (`#define s_free zfree`) followed to the
# function it names, unless it is compiled out; a call no header declares is guessed
# from C before another language and from the caller's directory first; an unresolved
# quoted include is not a system one; get_index_stats names the files with parse errors;
# #ifndef X's #else is inactive when nothing defines X; a macro defined in two branches
# expands to the chosen body; an alias of a function the project lacks is a call of it.
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE QUARRY_CODE_DEFINES
mkdir -p "$HOME"

R="$TMP/repo"
git init -q -b main "$R"
git -C "$R" config user.name T
git -C "$R" config user.email t@example.com
git -C "$R" config commit.gpgsign false
cat > "$R/jv.h" <<'C'
#ifndef JV_H
#define JV_H
#ifdef __cplusplus
extern "C" {
#endif
typedef struct jv { int k; } jv;
void jv_dumpf(jv x, int flags);
void jv_dump(jv x, int flags);
#ifdef __cplusplus
}
#endif
#endif
C
cat > "$R/jv.c" <<'C'
#include "jv.h"
void jv_dump_term(jv x) { (void)x; }
void jv_dumpf(jv x, int flags) { (void)flags; jv_dump_term(x); }
void jv_dump(jv x, int flags) { jv_dumpf(x, flags); }
#ifdef __linux__
static int linux_only(void) { return 1; }
int use_linux(void) { return linux_only(); }
#endif
#if defined(_WIN32) || defined(__APPLE__)
int win_only(void) { return 2; }
#elif defined(__linux__) && defined(HAVE_EPOLL)
int epoll_only(void) { return 3; }
#endif
#if BYTE_ORDER == BIG_ENDIAN
static int swap_big(int v) { return v; }
#else
static int swap_little(int v) { return v; }
#endif
int conv(int v) {
#if BYTE_ORDER == BIG_ENDIAN
  return swap_big(v);
#else
  return swap_little(v);
#endif
}
#ifdef USE_FAST
int fast_path(void) { return 1; }
#endif
#define s_free zfree
#define s_malloc  zmalloc   
void zfree(void *p) { (void)p; }
void *zmalloc(int n) { (void)n; return 0; }
void release(void *p) { s_free(s_malloc(1)); s_free(p); }
C
git -C "$R" add -A
git -C "$R" commit -qm one

# inactive NAME...: "name:inactive" for each function or declaration named, in order
inactive() {
  "$Q" code dump --repo "$R" | python3 -c '
import json, sys
rows = [r for r in map(json.loads, sys.stdin) if r.get("node") in ("function", "declaration", "typedef")]
out = []
for name in sys.argv[1:]:
    hit = [r for r in rows if r["name"] == name]
    out.append("%s:%s" % (name, ",".join("inactive" if r.get("inactive") else "active" for r in hit) or "missing"))
print(" ".join(out))' "$@"
}

expect_out "extern C: the header's declarations stay active" \
  'jv:active jv_dumpf:active,active jv_dump:active,active' inactive jv jv_dumpf jv_dump
expect_out "host: __linux__ is defined, _WIN32 and __APPLE__ are not" \
  'linux_only:active use_linux:active win_only:inactive' inactive linux_only use_linux win_only
expect_out "host: a project macro in an && still decides" 'epoll_only:inactive' inactive epoll_only
expect_out "host: the byte order is little-endian" 'swap_big:inactive swap_little:active' \
  inactive swap_big swap_little
expect_out "host: the big-endian call is inactive" 'jv.c:swap_big:inactive jv.c:swap_little:active' \
  sh -c "'$Q' code query get_call_graph --name conv --direction callees --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(\"%s:%s\" % (r[\"to\"], \"inactive\" if r.get(\"inactive\") else \"active\") for r in json.load(sys.stdin)[\"results\"]))'"
expect_out "build flags: USE_FAST undefined by default" 'fast_path:inactive' inactive fast_path
printf '[{"directory": "%s", "command": "cc -O2 -DUSE_FAST=1 -c jv.c", "file": "jv.c"}]\n' "$R" \
  > "$R/compile_commands.json"
expect_out "build flags: -D in compile_commands.json" 'fast_path:active' inactive fast_path
rm "$R/compile_commands.json"
mkdir "$R/build"
printf '[{"directory": "%s", "arguments": ["cc", "-D", "USE_FAST", "-c", "jv.c"], "file": "jv.c"}]\n' \
  "$R" > "$R/build/compile_commands.json"
expect_out "build flags: -D NAME in build/compile_commands.json" 'fast_path:active' inactive fast_path
rm -r "$R/build"
expect_out "build flags: QUARRY_CODE_DEFINES" 'fast_path:active' \
  env QUARRY_CODE_DEFINES="NDEBUG USE_FAST" sh -c "'$Q' code dump --repo '$R' | grep -c '\"name\":\"fast_path\".*inactive' | sed 's/^0\$/fast_path:active/'"

expect_out "alias: a call through an object-like alias reaches the function" \
  'jv.c:zfree:s_free jv.c:zfree:s_free jv.c:zmalloc:s_malloc' \
  sh -c "'$Q' code query get_call_graph --name release --direction callees --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(\"%s:%s\" % (r[\"to\"], r.get(\"via\")) for r in json.load(sys.stdin)[\"results\"])))'"
expect_out "alias: zfree's callers" 'jv.c:release jv.c:release' \
  sh -c "'$Q' code query get_call_graph --name zfree --direction callers --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(r[\"from\"] for r in json.load(sys.stdin)[\"results\"])))'"

# an alias under a condition the build leaves out is not followed (zlib's Z_PREFIX)
R2="$TMP/repo2"
git init -q -b main "$R2"
mkdir -p "$R2/contrib/cs" "$R2/lib" "$R2/app"
cat > "$R2/zconf.h" <<'C'
#ifdef Z_PREFIX
#  define adler32_z z_adler32_z
#endif
C
cat > "$R2/adler.c" <<'C'
#include "zconf.h"
unsigned long adler32_z(unsigned long a) { return a; }
unsigned long adler32(unsigned long a) { return adler32_z(a); }
C
# a call no header declares: the guess prefers C over another language, and the
# caller's own directory over another
cat > "$R2/contrib/cs/Deflater.cs" <<'C'
class Deflater { public int deflateInit_(int x) { return x; } }
C
cat > "$R2/lib/deflate.c" <<'C'
int deflateInit_(int x) { return x; }
int helper(int x) { return x; }
C
cat > "$R2/app/helper.c" <<'C'
int helper(int x) { return x + 1; }
C
cat > "$R2/app/main.c" <<'C'
int main(void) { return deflateInit_(1) + helper(2); }
C
git -C "$R2" add -A
git -C "$R2" -c user.name=T -c user.email=t@example.com commit -qm one
expect_out "alias: an inactive alias is not followed" 'adler.c:adler32_z:None' \
  sh -c "'$Q' code query get_call_graph --name adler32 --direction callees --repo '$R2' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(\"%s:%s\" % (r[\"to\"], r.get(\"via\")) for r in json.load(sys.stdin)[\"results\"])))'"
expect_out "guess: C before C#, the caller's directory before another" \
  'app/helper.c:helper lib/deflate.c:deflateInit_' \
  sh -c "'$Q' code query get_call_graph --name main --direction callees --repo '$R2' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(r[\"to\"] for r in json.load(sys.stdin)[\"results\"])))'"

# an include the tree lacks, written with quotes, is unresolved, not a system header; the
# index statistics name the files the parser recovered in
R3="$TMP/repo3"
git init -q -b main "$R3"
printf '#include "missing.h"\n#include <stdio.h>\nint z(void) { return 0; }\n' > "$R3/inc.c"
printf 'int broken( { x = ;\nint ok(void) { return 0; }\n' > "$R3/bad.c"
git -C "$R3" add -A
git -C "$R3" -c user.name=T -c user.email=t@example.com commit -qm one
expect_out "includes: quoted and missing is unresolved; <> is system" \
  '"missing.h" system=False resolved=False <stdio.h> system=True resolved=None' \
  sh -c "'$Q' code query get_dependencies --file inc.c --repo '$R3' --format json | python3 -c 'import json,sys; print(\" \".join(\"%s system=%s resolved=%s\" % (r[\"to\"], r[\"system\"], r.get(\"resolved\")) for r in json.load(sys.stdin)[\"results\"]))'"
expect_out "stats: the files with parse errors" 'bad.c' \
  sh -c "'$Q' code query get_index_stats --repo '$R3' --format json | python3 -c 'import json,sys; print(\" \".join(r[\"file\"] for r in json.load(sys.stdin)[\"error_files\"]))'"

# #ifndef X / #else where no file defines X: the #else is inactive (a header guard is not
# judged); a macro defined in both branches expands to the body of the one chosen; an
# alias of a function the project does not define is a call of that function
R4="$TMP/repo4"
git init -q -b main "$R4"
cat > "$R4/tally.h" <<'C'
#ifndef TALLY_H
#define TALLY_H
#ifndef ZLIB_DEBUG
#  define tally(s, c) ((s) += (c))
#else
#  define tally(s, c) tally_debug(s, c)
int tally_debug(int s, int c);
#endif
#ifdef HAVE_MEMCPY
#  define zmemcpy memcpy
#endif
#endif
C
cat > "$R4/tally.c" <<'C'
#include "tally.h"
#define HAVE_MEMCPY
int tally_debug(int s, int c) { return s + c; }
#ifdef ZLIB_DEBUG
int debug_only(void) { return 1; }
#else
int release_only(void) { return 2; }
#endif
void zmemcpy(char *d, const char *s, int n) { while (n--) *d++ = *s++; }
int run(int s, char *d) { zmemcpy(d, "x", 1); return tally(s, 1); }
C
git -C "$R4" add -A
git -C "$R4" -c user.name=T -c user.email=t@example.com commit -qm one
R=$R4
expect_out "ifndef: the #else of an undefined macro is inactive, the guard is not judged" \
  'debug_only:inactive release_only:active tally_debug:active,inactive' \
  inactive debug_only release_only tally_debug
expect_out "macro branches: the call reaches the chosen body only; an alias of memcpy" \
  'memcpy:zmemcpy' \
  sh -c "'$Q' code query get_call_graph --name run --direction callees --include_inactive false --repo '$R4' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(\"%s:%s\" % (r[\"to\"], r.get(\"via\")) for r in json.load(sys.stdin)[\"results\"])))'"

# a macro defined only inside a branch nothing enables does not count as defined
R5="$TMP/repo5"
git init -q -b main "$R5"
cat > "$R5/z.h" <<'C'
#ifdef Z_PREFIX
#  define Z_PREFIX_SET
#endif
#ifdef Z_PREFIX_SET
#  define zinit(s) z_init_prefixed(s)
#else
#  define zinit(s) init_((s), 1)
#endif
C
cat > "$R5/z.c" <<'C'
#include "z.h"
int init_(int s, int v) { return s + v; }
int z_init_prefixed(int s) { return s; }
int start(int s) { return zinit(s); }
C
git -C "$R5" add -A
git -C "$R5" -c user.name=T -c user.email=t@example.com commit -qm one
expect_out "nested: Z_PREFIX_SET is defined only under Z_PREFIX, so the #else holds" 'z.c:init_' \
  sh -c "'$Q' code query get_call_graph --name start --direction callees --include_inactive false --repo '$R5' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(r[\"to\"] for r in json.load(sys.stdin)[\"results\"])))'"

# a disjunction one of whose parts is a conjunction (curl's `#if (defined(USE_NGTCP2) &&
# defined(USE_NGHTTP3)) || defined(USE_QUICHE)` / `#define USE_HTTP3`): judged, a part
# holding only when all of its own do; its #else is not judged
R6="$TMP/repo6"
git init -q -b main "$R6"
cat > "$R6/s.h" <<'C'
#ifndef S_H
#define S_H
#define HAVE_A
#define HAVE_B
#if (defined(USE_NGTCP2) && defined(USE_NGHTTP3)) || defined(USE_QUICHE)
#define USE_HTTP3
#else
#define NO_HTTP3
#endif
#if (defined(HAVE_A) && defined(HAVE_B)) || defined(USE_QUICHE)
#define BOTH_AB
#endif
#if (defined(HAVE_A) && defined(USE_NGTCP2)) || (defined(HAVE_B) && HAVE_LEVEL)
#define ONE_SHORT
#endif
#endif
C
cat > "$R6/a.c" <<'C'
#include "s.h"
#ifdef USE_HTTP3
void h3(void) {}
#endif
#ifdef BOTH_AB
void ab(void) {}
#endif
C
git -C "$R6" add -A
git -C "$R6" -c user.name=T -c user.email=t@example.com commit -qm one
expect_out "a conjunction inside a disjunction: judged" \
  'h3:inactive ab:active USE_HTTP3:inactive NO_HTTP3:active BOTH_AB:active ONE_SHORT:inactive' \
  sh -c "'$Q' code dump --repo '$R6' | python3 -c 'import json,sys; print(\" \".join(\"%s:%s\" % (r[\"name\"], \"inactive\" if r.get(\"inactive\") else \"active\") for r in map(json.loads, sys.stdin) if r.get(\"node\") in (\"macro\", \"function\") and r[\"name\"] in (\"USE_HTTP3\", \"NO_HTTP3\", \"BOTH_AB\", \"ONE_SHORT\", \"h3\", \"ab\")))'"

# a header included only under a condition nothing enables (curl_setup.h's `#ifdef
# __OS400__` / `#include "config-os400.h"`) defines nothing for its includer
R7="$TMP/repo7"
git init -q -b main "$R7"
printf '#define HAVE_GSSAPI\n' > "$R7/config-os400.h"
printf '#define HAVE_SOCKET\n' > "$R7/config-linux.h"
printf '#ifdef __OS400__\n#include "config-os400.h"\n#endif\n#ifdef __linux__\n#include "config-linux.h"\n#endif\n' > "$R7/setup.h"
printf '#include "setup.h"\n#ifdef HAVE_GSSAPI\nvoid gss(void) {}\n#endif\n#ifdef HAVE_SOCKET\nvoid sock(void) {}\n#endif\n' > "$R7/a.c"
git -C "$R7" add -A
git -C "$R7" -c user.name=T -c user.email=t@example.com commit -qm one
expect_out "an include compiled out defines nothing" 'gss:inactive sock:active' \
  sh -c "'$Q' code dump --repo '$R7' --path a.c | python3 -c 'import json,sys; print(\" \".join(\"%s:%s\" % (r[\"name\"], \"inactive\" if r.get(\"inactive\") else \"active\") for r in map(json.loads, sys.stdin) if r.get(\"node\") == \"function\"))'"

finish
