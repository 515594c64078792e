# 67_code_defs.sh: issue 23's reproducers for definitions quarry got wrong on zlib, jq and
# redis, each a small repository built here with git, indexed, then dumped or queried:
# `monotime (*getMonotonicUs)(void) = NULL;` at file scope (redis monotonic.c), which the
# parser reads as an expression because `monotime` is a typedef it cannot see, is a
# function-pointer variable, and a call through it resolves to it.
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
expect_out "its type is the pointer's" 'monotime (*)(void)' \
  sh -c "'$Q' code dump --repo '$R' --path monotonic.c | python3 -c 'import json,sys; print(\" \".join(r[\"type\"] for r in map(json.loads, sys.stdin) if r.get(\"name\") == \"getMonotonicUs\"))'"
expect_out "a call through it resolves to it" 'monotonic.c:getMonotonicUs:true' \
  sh -c "'$Q' code query get_call_graph --name elapsed --direction callees --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(\"%s:%s\" % (r[\"to\"], str(r.get(\"resolved\", True)).lower()) for r in json.load(sys.stdin)[\"results\"]))'"

finish
