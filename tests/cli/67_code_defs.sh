# 67_code_defs.sh: issue 23's reproducers for definitions quarry got wrong on zlib, jq and
# redis, each a small repository built here with git, indexed, then dumped or queried:
# `monotime (*getMonotonicUs)(void) = NULL;` at file scope (redis monotonic.c), which the
# parser reads as an expression because `monotime` is a typedef it cannot see, is a
# function-pointer variable, and a call through it resolves to it. Words among a
# declaration's specifiers that only a header the file cannot see defines (zlib's
# `ZEXTERN int ZEXPORT deflate(...)`, `local once_t made = ONCE_INIT;`, `int ZEXPORT
# deflateResetKeep(z_streamp strm) {`, a cast `(struct state FAR *)`) are read as the
# macros they must be, not as variables named `int` or `once_t`; a preprocessor group
# inside an expression or a statement (jq's jv_dtoa.c: `#ifndef Sudden_Underflow / i =
# / #endif`, `if (x) / #endif / {`, `have_i: / #endif`, `, 1e23 / #endif`) no longer makes
# the grammar lose the function and the rest of the file. A .c file #included by .c files
# that first rename its functions (jq's decDouble.c and decQuad.c `#define decFloatAdd
# decDoubleAdd` then `#include "decBasic.c"`) is compiled as each renaming: a function
# per name (expanded_from the written one) calling the renamed callees, while the written
# function's calls are compiled out.
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE QUARRY_CODE_DEFINES
mkdir -p "$HOME"

R="$TMP/repo"
git init -q -b main "$R"
cat > "$R/monotonic.c" <<'C'
#include <stdint.h>
typedef uint64_t monotime;
monotime (*getMonotonicUs)(void) = NULL;
static monotime getMonotonicUs_generic(void) { return 1; }
const char *monotonicInit(void) { getMonotonicUs = getMonotonicUs_generic; return "x"; }
int elapsed(void) { return (int)getMonotonicUs(); }
C
cat > "$R/zlib.h" <<'C'
#include "zconf.h"
ZEXTERN int ZEXPORT deflate(z_streamp strm, int flush);
ZEXTERN gzFile ZEXPORT gzdopen(int fd, const char *mode);
ZEXTERN const z_crc_t FAR * ZEXPORT get_crc_table(void);
C
cat > "$R/deflate.c" <<'C'
#include "zutil.h"
local once_t made = ONCE_INIT;
local z_crc_t FAR x2n_table[32];
int ZLIB_INTERNAL z_verbose = 1;
local int helper(int x) { return x; }
int ZEXPORT deflateResetKeep(z_streamp strm) {
    struct state FAR *s = (struct state FAR *)strm;
    return helper(s != 0);
}
int ZEXPORT deflateReset(z_streamp strm) { return deflateResetKeep(strm); }
C
cat > "$R/dtoa.c" <<'C'
static int lo0bits(int *y) { return *y; }
static int d2b(int *d, int *e) {
	int i, k, z = 0, de = *d;
#ifndef Sudden_Underflow
	i =
#endif
	    k = lo0bits(&z);
	if (k > 0
#ifdef VAX
	    || de
#endif
	   )
		z = 1;
#ifdef Honor_FLT_ROUNDS
	if (*e == 1)
#endif
		{
		z = lo0bits(&k);
		}
#ifndef Sudden_Underflow
 have_i:
#endif
	*e = z;
	return i;
}
static const double tens[] = {
	1e0, 1e1, 1e22
#ifdef VAX
	, 1e23, 1e24
#endif
	};
int after_d2b(int *d) { return d2b(d, d) + (int)tens[0]; }
C
mkdir -p "$R/dec"
cat > "$R/dec/decBasic.c" <<'C'
static int decCanonical(int x) { return x; }
int decFloatAdd(int a, int b) { return decFloatZero(decCanonical(a + b)); }
C
cat > "$R/dec/decCommon.c" <<'C'
int decFloatZero(int x) { return x * 0; }
C
for t in Double Quad; do
  cat > "$R/dec/dec$t.c" <<C
#define decFloatAdd dec${t}Add
#define decFloatZero dec${t}Zero
#include "decCommon.c"
#include "decBasic.c"
C
done
# a #define among a struct's members (libevent's evbuffer-internal.h flags) is a macro
cat > "$R/chain.h" <<'C'
struct chain {
	unsigned flags;
#define CHAIN_PINNED	0x0010
#define CHAIN_FLAGGED(c) ((c)->flags & CHAIN_PINNED)
	int refcnt;
};
C
git -C "$R" add -A
git -C "$R" -c user.name=T -c user.email=t@example.com commit -qm one

# nodes FILE: "kind:name:line" of each node but the file's, in order
nodes() {
  "$Q" code dump --repo "$R" --path "$1" | python3 -c '
import json, sys
print(" ".join("%s:%s:%s" % (r["node"], r["name"], r["line"]) for r in map(json.loads, sys.stdin) if r.get("node") not in (None, "file")))'
}

expect_out "a function-pointer variable with a typedef'd return type is a variable" \
  'typedef:monotime:2 variable:getMonotonicUs:3 function:getMonotonicUs_generic:4 function:monotonicInit:5 function:elapsed:6' \
  nodes monotonic.c
expect_out "a #define among a struct's members is a macro" \
  'struct:chain:1 member:flags:2 macro:CHAIN_PINNED:3 macro:CHAIN_FLAGGED:4 member:refcnt:5' nodes chain.h
expect_out "its type is the pointer's" 'monotime (*)(void)' \
  sh -c "'$Q' code dump --repo '$R' --path monotonic.c | python3 -c 'import json,sys; print(\" \".join(r[\"type\"] for r in map(json.loads, sys.stdin) if r.get(\"name\") == \"getMonotonicUs\"))'"
expect_out "a call through it resolves to it" 'monotonic.c:getMonotonicUs:true' \
  sh -c "'$Q' code query get_call_graph --name elapsed --direction callees --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(\"%s:%s\" % (r[\"to\"], str(r.get(\"resolved\", True)).lower()) for r in json.load(sys.stdin)[\"results\"]))'"

expect_out "a header's prototypes between export macros" \
  'declaration:deflate:2 declaration:gzdopen:3 declaration:get_crc_table:4' nodes zlib.h
expect_out "variables and functions beside macros from another header" \
  'variable:made:2 variable:x2n_table:3 variable:z_verbose:4 function:helper:5 function:deflateResetKeep:6 function:deflateReset:10' \
  nodes deflate.c
expect_out "the calls of a function whose head holds a macro" 'deflate.c:helper' \
  sh -c "'$Q' code query get_call_graph --name deflateResetKeep --direction callees --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(r[\"to\"] for r in json.load(sys.stdin)[\"results\"])))'"
expect_out "groups inside expressions and statements: the functions stay" \
  'function:lo0bits:1 function:d2b:2 variable:tens:26 function:after_d2b:32' nodes dtoa.c
expect_out "groups inside expressions and statements: the calls stay" 'dtoa.c:lo0bits' \
  sh -c "'$Q' code query get_call_graph --name d2b --direction callees --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(sorted(set(r[\"to\"] for r in json.load(sys.stdin)[\"results\"]))))'"
expect_out "the file's parse errors are gone" '' \
  sh -c "'$Q' code query get_index_stats --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(f[\"file\"] for f in json.load(sys.stdin)[\"error_files\"] if f[\"file\"] in (\"dtoa.c\", \"deflate.c\", \"zlib.h\")))'"

expect_out "an included .c file: a function for each renaming" \
  'decCanonical: decFloatAdd: decDoubleAdd:decFloatAdd decQuadAdd:decFloatAdd' \
  sh -c "'$Q' code dump --repo '$R' --path dec/decBasic.c | python3 -c 'import json,sys; print(\" \".join(\"%s:%s\" % (r[\"name\"], r.get(\"expanded_from\", \"\")) for r in map(json.loads, sys.stdin) if r.get(\"node\") == \"function\"))'"
expect_out "each renaming calls the renamed callees; the written function's calls are compiled out" \
  'decDoubleAdd>decCanonical decDoubleAdd>decDoubleZero decFloatAdd>decCanonical:inactive decFloatAdd>decFloatZero:inactive decQuadAdd>decCanonical decQuadAdd>decQuadZero' \
  sh -c "'$Q' code dump --repo '$R' --path dec/decBasic.c | python3 -c 'import json,sys; print(\" \".join(sorted(\"%s>%s%s\" % (r[\"from\"].split(\":\")[1], r[\"to\"].split(\":\")[-1], \":inactive\" if r.get(\"inactive\") else \"\") for r in map(json.loads, sys.stdin) if r.get(\"edge\") == \"calls\")))'"

# an empty #define with blanks after its name (written so, or left by a comment the
# parser blanks: curl's `#  define CURL_INLINE /* empty */`) does not swallow the line
# after it: the group's #endif stays, so what follows is neither in the group nor lost
# (the grammar read the #endif as the macro's replacement, the header's guard lost its
# #endif, and curl_setup.h was read in one configuration without its build conditions);
# function-like macros every definition of which is an attribute or empty (curl's
# `ALLOC_SIZE(s)`), after more than 32 empty #defines, are read as annotations
R4="$TMP/tails"
git init -q -b main "$R4"
printf '#ifndef CONF_H\n#define CONF_H\n#ifdef HAVE_INLINE\n#elif defined(inline)\n#  define MY_INLINE inline /* as is */\n#else\n#  define MY_INLINE /* empty */\n#endif\nvoid after(void);\n#endif\n' > "$R4/conf.h"
printf '#ifdef A\n#define B   \n#endif\nint later(void) { return 0; }\n#define F(x)\t\nint last(void) { return 1; }\n' > "$R4/b.c"
{
  for i in $(seq 1 40); do echo "#define HAVE_FLAG_$i"; done
  cat <<'C'
#ifdef DEBUGBUILD
#  define ALLOC_FUNC __attribute__((__malloc__))
#  define ALLOC_SIZE(s) __attribute__((__alloc_size__(s)))
#  define ALLOC_SIZE2(n, s) __attribute__((__alloc_size__(n, s)))
#else
#  define ALLOC_FUNC
#  define ALLOC_SIZE(s)
#  define ALLOC_SIZE2(n, s)
#endif
#define NOTHING(x)
extern ALLOC_FUNC ALLOC_SIZE(1)
  void *dbg_malloc(unsigned long n);
extern ALLOC_FUNC ALLOC_SIZE2(1, 2)
  void *dbg_calloc(unsigned long n, unsigned long s);
ALLOC_SIZE(2) void *dbg_realloc(void *p, unsigned long n);
int use(void) { NOTHING(2); return dbg_malloc(1) != 0; }
C
} > "$R4/mem.h"
git -C "$R4" add -A && git -C "$R4" -c user.name=T -c user.email=t@example.com commit -qm one
dumped() { "$Q" code dump --repo "$R4" --path "$1" | python3 -c 'import json,sys; print(" ".join("%s:%s-%s%s" % (r["name"], r["line"], r["end_line"], ":inactive" if r.get("inactive") else "") for r in map(json.loads, sys.stdin) if r.get("node") not in (None, "file")))'; }
expect_out "empty #define with trailing blanks: the #endif after it stays" \
  'CONF_H:2-2 MY_INLINE:5-5:inactive MY_INLINE:7-7 after:9-9' dumped conf.h
expect_out "empty #define with trailing blanks: what follows is outside the group" \
  'B:2-2:inactive later:4-4 F:5-5 last:6-6' dumped b.c
expect_out "attribute macros with arguments: the declarations and the function" \
  'declaration:dbg_malloc:51 declaration:dbg_calloc:53 declaration:dbg_realloc:55 function:use:56' \
  sh -c "'$Q' code dump --repo '$R4' --path mem.h | python3 -c 'import json,sys; print(\" \".join(\"%s:%s:%s\" % (r[\"node\"], r[\"name\"], r[\"line\"]) for r in map(json.loads, sys.stdin) if r.get(\"node\") in (\"declaration\", \"function\")))'"
expect_out "no parse errors left" '' \
  sh -c "'$Q' code query get_index_stats --repo '$R4' --format json | python3 -c 'import json,sys; print(\" \".join(f[\"file\"] for f in json.load(sys.stdin)[\"error_files\"]))'"

finish
