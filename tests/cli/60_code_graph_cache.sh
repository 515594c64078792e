# 60_code_graph_cache.sh: the assembled code graph kept on disk (src/code/gcache.c) gives
# exactly the answers of a graph assembled afresh: every query type, run on a fixture
# both ways (QUARRY_CODE_GRAPH_CACHE=off assembles, the default reads the kept graph),
# prints the same bytes; the kept graph is really what answers (a name changed inside
# the file shows in the answer); and a change to what the graph is built from (a file
# edited, added or committed, the build's -D macros) is seen at once.
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE QUARRY_CODE_GRAPH_CACHE QUARRY_CODE_DEFINES
mkdir -p "$HOME"
R="$TMP/repo"
git init -q -b main "$R"
git -C "$R" config user.name T
git -C "$R" config user.email t@example.com
mkdir -p "$R/src" "$R/include"
cat > "$R/include/lib.h" <<'C'
#ifndef LIB_H
#define LIB_H
#define newlib(L, l) (setfuncs((L), (l)))
#define check_ptr(p) do { if (!(p)) die(#p); } while (0)
struct reg { const char *name; int (*fn)(int); };
typedef struct reg reg_t;
enum mode { MODE_A, MODE_B };
int pushint(int *L, int n);
void setfuncs(int *L, const struct reg *l);
void die(const char *why);
extern int verbose;
#endif
C
cat > "$R/src/api.c" <<'C'
#include "lib.h"
#include <stdio.h>

int verbose;
static int check(int n) { return n > 0; }

int pushint(int *L, int n)
{
    check_ptr(L);
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
#ifdef WITH_EXTRA
void extra(int *L) { openlib(L); }
#endif
C
cat > "$R/src/main.c" <<'C'
#include "lib.h"
#include "missing.h"
#include <stdlib.h>

static int check(int n) { return n < 0; }

void die(const char *why) { (void)why; exit(check(1)); }

int main(void)
{
    int L = 0;
    reg_t r = {"x", 0};
    openlib(&L);
    setfuncs(&L, &r);
    return pushint(&L, MODE_B);
}
C
git -C "$R" add -A && git -C "$R" commit -qm one

# every query type, with the arguments that change what it walks
queries() {
  cat <<'Q'
find_file --pattern api
list_files
list_files --file src
find_function --name pushint
find_function --name check
list_functions
list_functions --file src/api.c --visibility static
get_dependencies --file src/main.c
get_dependencies --file include/lib.h --reverse true
get_call_graph --name pushint
get_call_graph --name pushint --direction callers --depth 3
get_call_graph --name main --direction callees --depth 2
get_call_graph --name pushint --include_inactive true
find_struct --name reg
list_structs
find_type --name reg_t
find_macro --name newlib
find_references --name pushint
find_references --name verbose
search_by_name --pattern push
get_skeleton --file src/api.c
get_definition --name setfuncs
get_definition --name reg
get_index_stats
find_function --name pushnit
get_call_graph --name nosuch
Q
}

# compare NAME: every query both ways, byte for byte (stdout, stderr and exit status)
compare() {
  n=0
  queries | while read -r line; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    QUARRY_CODE_GRAPH_CACHE=off "$Q" code query $line --repo "$R" --format json \
      >"$TMP/fresh.$n" 2>&1; echo "exit $?" >>"$TMP/fresh.$n"
    # shellcheck disable=SC2086
    "$Q" code query $line --repo "$R" --format json >"$TMP/kept.$n" 2>&1
    echo "exit $?" >>"$TMP/kept.$n"
    if ! cmp -s "$TMP/fresh.$n" "$TMP/kept.$n"; then
      echo "FAIL: $1: '$line' differs from a fresh assembly"
      diff "$TMP/fresh.$n" "$TMP/kept.$n" | head -5
    fi
  done >"$TMP/cmp.out"
  if [ -s "$TMP/cmp.out" ]; then cat "$TMP/cmp.out"; FAILS=$((FAILS + 1)); fi
}

# the first run keeps the graph and (the files being older than a second) the working
# tree's stat snapshot; the next ones read the graph without listing the tree with git
sleep 2
"$Q" code query list_files --repo "$R" >/dev/null
expect_out "a graph is kept" "1" sh -c "ls '$R/.git/quarry/graphs/' | grep -c '\\.graph\$'"
expect_out "a snapshot is kept" "1" sh -c "ls '$R/.git/quarry/graphs/' | grep -c '^worktree-.*\\.snap\$'"
compare "committed tree"
# the snapshot holds, so git is not even opened: the answer comes without git's objects
mv "$R/.git/objects" "$TMP/objects"
expect_out "without git, from the snapshot" "2" sh -c \
  "'$Q' code query find_function --name pushint --repo '$R' --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)[\"results\"]))'"
expect_out "a definition's text from the clean file on disk" "int pushint(int *L, int n)" sh -c \
  "'$Q' code query get_definition --name pushint --repo '$R' --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"text\"].splitlines()[0])'"
expect_rc "git needed when the graph is not kept" 2 env QUARRY_CODE_GRAPH_CACHE=off "$Q" code query find_function --name pushint --repo "$R"
mv "$TMP/objects" "$R/.git/objects"

# find_references answers from the references kept beside the graph: rename one there
expect_out "references are kept" "1" sh -c "ls '$R/.git/quarry/graphs/' | grep -c '\\.refs\$'"
python3 - "$R/.git/quarry/graphs" <<'PY'
import os, sys
d = sys.argv[1]
for f in os.listdir(d):
    if f.endswith(".refs"):
        p = os.path.join(d, f)
        b = open(p, "rb").read()
        open(p, "wb").write(b.replace(b"printf\0", b"printx\0"))
PY
expect_out "the kept references answer" "src/api.c" sh -c \
  "'$Q' code query find_references --name printx --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(r[\"file\"] for r in json.load(sys.stdin)[\"results\"]))'"
rm -f "$R"/.git/quarry/graphs/*.refs

# the answers really come from the kept file: rename pushint inside it (same length)
python3 - "$R/.git/quarry/graphs" <<'PY'
import os, sys
d = sys.argv[1]
for f in os.listdir(d):
    if f.endswith(".graph"):
        p = os.path.join(d, f)
        b = open(p, "rb").read()
        open(p, "wb").write(b.replace(b"pushint\0", b"pushinx\0"))
PY
expect_out "the kept graph answers" "pushinx" sh -c \
  "'$Q' code query find_function --name pushinx --repo '$R' --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"results\"][0][\"name\"])'"
expect_out "off: assembled afresh" "2" sh -c \
  "QUARRY_CODE_GRAPH_CACHE=off '$Q' code query find_function --name pushinx --repo '$R' >/dev/null 2>&1; echo \$?"
rm -f "$R"/.git/quarry/graphs/*.graph

# an uncommitted edit, then a new untracked file, then a commit, each after a snapshot
# was kept (a query more than a second after the last change)
settle() { sleep 2; "$Q" code query list_files --repo "$R" >/dev/null; }
settle
cat >> "$R/src/main.c" <<'C'
int later(void) { return pushint(0, 2); }
C
compare "edited file"
expect_out "the edit is seen" "later" sh -c \
  "'$Q' code query get_call_graph --name pushint --direction callers --repo '$R' --format json | python3 -c 'import json,sys; print(\" \".join(r[\"from\"].split(\":\")[-1] for r in json.load(sys.stdin)[\"results\"] if r[\"from\"].endswith(\":later\")))'"
settle
mkdir "$R/src/more"
cat > "$R/src/more/new.c" <<'C'
#include "../../include/lib.h"
int fresh(void) { return pushint(0, 3); }
C
compare "untracked file in a new directory"
settle
git -C "$R" add -A && git -C "$R" commit -qm two
compare "after a commit"
settle
git -C "$R" rm -q --cached src/api.c
compare "a file removed from the index"
git -C "$R" add src/api.c
expect_out "the new file is seen" "1" sh -c \
  "'$Q' code query find_function --name fresh --repo '$R' --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)[\"results\"]))'"

# the build's -D macros decide what is inactive: a kept graph of other macros is not used
export QUARRY_CODE_DEFINES=WITH_EXTRA
compare "with -DWITH_EXTRA"
expect_out "WITH_EXTRA makes extra active" "false" sh -c \
  "'$Q' code query find_function --name extra --repo '$R' --format json | python3 -c 'import json,sys; print(str(json.load(sys.stdin)[\"results\"][0].get(\"inactive\", False)).lower())'"
unset QUARRY_CODE_DEFINES
expect_out "without it, inactive again" "true" sh -c \
  "'$Q' code query find_function --name extra --repo '$R' --format json --include_inactive true | python3 -c 'import json,sys; print(str(json.load(sys.stdin)[\"results\"][0].get(\"inactive\", False)).lower())'"

# from a subdirectory, through a symbolic link to the repository: the same answers
ln -s "$R" "$TMP/link"
settle
expect_out "through a link, from a subdirectory" "$(QUARRY_CODE_GRAPH_CACHE=off "$Q" code query list_functions --repo "$R" --format json)" \
  "$Q" code query list_functions --repo "$TMP/link/src" --format json
expect_out "again, from what that run kept" "$(QUARRY_CODE_GRAPH_CACHE=off "$Q" code query list_functions --repo "$R" --format json)" \
  "$Q" code query list_functions --repo "$TMP/link/src" --format json

# another ref
git -C "$R" tag v1 HEAD~1
compare_ref() {
  a=$(QUARRY_CODE_GRAPH_CACHE=off "$Q" code query list_functions --ref v1 --repo "$R" --format json 2>&1)
  b=$("$Q" code query list_functions --ref v1 --repo "$R" --format json 2>&1)
  c=$("$Q" code query list_functions --ref v1 --repo "$R" --format json 2>&1)
  [ "$a" = "$b" ] && [ "$b" = "$c" ] && echo same
}
expect_out "a ref's graph is kept and the same" "same" compare_ref
finish
