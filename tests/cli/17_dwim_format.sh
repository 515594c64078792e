# 17_dwim_format.sh: every result of `quarry dwim` honours --format (issue 27): each verb
# and a registry tool under edn, json and table, on a C repository built here. JSON is
# read back with python3's json module, EDN's shape checked; table keeps a definition's
# source whole (line breaks), never one squashed cell. Also: dwim parse's "missing"
# target, limit= honoured, grep 'PAT' DIR searching only DIR.
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
mkdir -p "$HOME"
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
R="$TMP/repo"
git init -q -b main "$R"
git -C "$R" config user.name T
git -C "$R" config user.email t@example.com
mkdir -p "$R/src" "$R/lib"
cat > "$R/src/calc.c" <<'C'
#include "calc.h"

int add(int a, int b)
{
    return a + b;
}

static int twice(int a)
{
    return add(a, a);
}
C
cat > "$R/src/calc.h" <<'C'
int add(int a, int b);
C
cat > "$R/lib/other.c" <<'C'
int add_other(int x)
{
    return x; /* add here too */
}
C
git -C "$R" add -A && git -C "$R" commit -q -m init
cd "$R" || exit 1

# JSON: one object that parses, with the key that says what it is
json_has() { # line key
  "$Q" dwim "$1" --format json | python3 -c "import json,sys; d=json.load(sys.stdin); print('$2' in d)"
}
for l in "skeleton src/calc.c:results" "skeleton src:results" "expand add:text" \
         "read src/calc.c:3-5:text" "grep add src:results" "callers add:results" \
         "callees twice:results" "references add:results" "definition add:text" \
         "deps src/calc.c:results" "get_commits limit=1:" "done: finished:text"; do
  line=${l%:*} key=${l##*:}
  if [ -z "$key" ]; then
    expect_out "json $line" "1" sh -c "'$Q' dwim '$line' --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'"
  else
    expect_out "json $line" "True" json_has "$line" "$key"
  fi
done
# EDN: a map, never text or JSON
for line in "skeleton src/calc.c" "expand add" "read src/calc.c" "grep add" "callers add" \
            "definition add" "get_commits limit=1"; do
  expect_out "edn $line" "true" sh -c "'$Q' dwim '$line' --format edn | head -c 2 | grep -q '^[{[]:\\?' && echo true"
done
expect_out "edn skeleton keys" "true" sh -c "'$Q' dwim 'skeleton src/calc.c' --format edn | grep -q '^{:path \"src/calc.c\", :results \\[{:line 3' && echo true"
# table: a definition's source printed whole below its fields
expect_out "table definition source whole" "    return a + b;" sh -c "'$Q' dwim 'definition add' --format table | grep -F 'return a + b'"
expect_out "table skeleton header" "true" sh -c "'$Q' dwim 'skeleton src/calc.c' --format table | head -1 | grep -q 'line.*name.*declaration' && echo true"
# text stays the default
expect_out "text default" "src/calc.c" sh -c "'$Q' dwim 'skeleton src/calc.c' | head -1"
# errors follow --format json
expect_out "json error" "True" sh -c "'$Q' dwim 'grep add colour=red' --format json 2>&1 >/dev/null | python3 -c 'import json,sys; print(\"takes pattern\" in json.load(sys.stdin)[\"error\"][\"message\"])'"
# grep 'PAT' DIR searches only DIR; limit= bounds it
expect_out "grep only lib/" "lib/other.c" sh -c "'$Q' dwim \"grep 'add' lib/\" --format json | python3 -c 'import json,sys; print(\"\\n\".join(sorted({r[\"file\"] for r in json.load(sys.stdin)[\"results\"]})))'"
expect_out "grep limit=1" "1" sh -c "'$Q' dwim 'grep add limit=1' --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)[\"results\"]))'"
# a verb alone: sure of itself, its target reported missing
expect_out "missing target" "skeleton 0.95 ['target']" sh -c "'$Q' dwim parse 'skeleton' --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[\"verb\"], \"%.2f\" % d[\"confidence\"], d[\"missing\"])'"
# a line not run (below the run band): its readings as data on stdout, exit 2
expect_out "not run: readings as json" "callers 0.80 2" sh -c "'$Q' dwim 'calles add' --format json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d[\"verb\"], \"%.2f\" % d[\"confidence\"], end=\" \")'; '$Q' dwim 'calles add' >/dev/null 2>&1; echo \$?"
expect_rc "bad format" 2 "$Q" dwim "skeleton src" --format xml
finish
