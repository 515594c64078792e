# 44_dwim_tasks.sh: the three DWIM tasks of issue 24, each a `quarry do` run against the
# scripted model server (tests/llm/model_server.py, real HTTP, the real wire format) on a
# fixture repository built here with git, with no check configured unless the task says:
#   1. a small C project whose test fails: find the bug, fix it, the test passes;
#   2. exploring an option parser: what -n accepts, read in pieces (a result paged
#      with fetch), the check named on the line (`validate make test`);
#   3. renaming a function across four files with one unified diff.
# Each must end with `done` within 12 turns and the repository's own `make test` passing
# afterwards; every request's per-turn message stays within about 500 tokens (2,000
# characters). The turn counts and prompt sizes are printed (QUARRY_TASKS_REPORT=FILE
# appends them to FILE as well).
. "$(dirname "$0")/lib.sh"

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 TZ=UTC LC_ALL=C
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE QUARRY_LLM_URL QUARRY_LLM_MODEL QUARRY_LLM_API_KEY
mkdir -p "$HOME"
if ! command -v cc >/dev/null || ! command -v make >/dev/null || ! command -v python3 >/dev/null; then
  echo "skip: no cc, make or python3"; exit 77
fi
export QUARRY_LLM_MAX_RETRIES=0

newrepo() { # newrepo DIR: an empty repository with a committer
  git init -q -b main "$1"
  git -C "$1" config user.name T
  git -C "$1" config user.email t@example.com
  git -C "$1" config commit.gpgsign false
  printf 'build/\n' > "$1/.gitignore"
}
commit() { git -C "$1" add -A && git -C "$1" commit -qm "$2"; }
# script FILE LINE...: one model reply per line
script() {
  out=$1; shift
  python3 - "$out" "$@" <<'PY'
import json, sys
json.dump({"responses": [{"text": t} for t in sys.argv[2:]]}, open(sys.argv[1], "w"))
PY
}
# sizes NAME: the per-turn message sizes of the run just logged; fails over 2,000 chars
sizes() {
  python3 - "$TMP/log.jsonl" "$1" "$2" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
name, turns = sys.argv[2], sys.argv[3]
user = [len(r["body"]["messages"][-1]["content"]) for r in rows]
system = len(rows[0]["body"]["messages"][0]["content"])
line = (f"{name}: {turns} turns; per-turn message {min(user)}-{max(user)} chars "
        f"(mean {sum(user) / len(user):.0f}, ~{max(user) // 4} tokens at most); "
        f"system role {system} chars (the same every turn)")
print(line)
assert max(user) <= 2000, user
PY
}
run_task() { # run_task NAME REPO TASK: quarry do on the served script; prints the report
  name=$1 repo=$2 task=$3
  (cd "$repo" && "$Q" do "$task" --write --max-turns 12 --trace "$TMP/$name.trace") \
    > "$TMP/$name.out" 2>&1
  rc=$?
  llm_unserve
  cp "$TMP/log.jsonl" "$TMP/$name.log"
  last=$(tail -1 "$TMP/$name.out")
  case $last in
    "done after "*) ;;
    *) echo "FAIL: $name did not finish (exit $rc): $last"; sed 's/^/  /' "$TMP/$name.out"
       FAILS=$((FAILS + 1)); return ;;
  esac
  turns=$(echo "$last" | sed 's/^done after \([0-9]*\) turn.*/\1/')
  if [ "$turns" -gt 12 ]; then echo "FAIL: $name took $turns turns"; FAILS=$((FAILS + 1)); fi
  r=$(sizes "$name" "$turns") || { echo "FAIL: $name prompt too large: $r"; FAILS=$((FAILS + 1)); }
  echo "$r"
  [ -n "${QUARRY_TASKS_REPORT:-}" ] && echo "$r" >> "$QUARRY_TASKS_REPORT"
  expect_out "$name: make test passes after" "ok" sh -c "cd '$repo' && make -s test >/dev/null 2>&1 && echo ok"
}

# ---- task 1: a small C project with a failing test ----
T1="$TMP/stack"
newrepo "$T1"
mkdir -p "$T1/src" "$T1/tests"
cat > "$T1/src/stack.h" <<'C'
#ifndef STACK_H
#define STACK_H

typedef struct stack {
    int items[16];
    int n;
} stack;

void stack_push(stack *s, int v);
int stack_pop(stack *s);
int stack_size(const stack *s);

#endif
C
cat > "$T1/src/stack.c" <<'C'
#include "stack.h"

void stack_push(stack *s, int v)
{
    s->items[s->n++] = v;
}

int stack_pop(stack *s)
{
    return s->items[s->n--];
}

int stack_size(const stack *s)
{
    return s->n;
}
C
cat > "$T1/tests/test_stack.c" <<'C'
#include <stdio.h>

#include "../src/stack.h"

static int fails;

static void expect(int got, int want, const char *what, int line)
{
    if (got != want) {
        printf("tests/test_stack.c:%d: error: %s is %d, expected %d\n", line, what, got, want);
        fails++;
    }
}

int main(void)
{
    stack s = {{0}, 0};
    stack_push(&s, 1);
    stack_push(&s, 2);
    expect(stack_pop(&s), 2, "the first pop", __LINE__);
    expect(stack_pop(&s), 1, "the second pop", __LINE__);
    expect(stack_size(&s), 0, "the size after two pops", __LINE__);
    return fails != 0;
}
C
cat > "$T1/Makefile" <<'MK'
CFLAGS = -Wall -Wextra -O0

all: build/test_stack

build/test_stack: src/stack.c src/stack.h tests/test_stack.c
	mkdir -p build
	$(CC) $(CFLAGS) -o $@ src/stack.c tests/test_stack.c

test: build/test_stack
	./build/test_stack

.PHONY: all test
MK
commit "$T1" "a stack"
expect_rc "task 1 starts with a failing test" 2 sh -c "cd '$T1' && make -s test"
FIX1='fix src/stack.c
<<<<<<< SEARCH
return s->items[s->n--];
=======
return s->items[--s->n];
>>>>>>> REPLACE'
script "$TMP/t1.json" "validate" "read src/stack.c" "$FIX1" "validate" \
  "done: stack_pop read the slot above the top; it now pre-decrements"
llm_serve "$TMP/t1.json"
run_task task1 "$T1" "make the failing test pass"
expect_out "task 1: validate found make test" "1" sh -c "grep -c '^   make test: failed' '$TMP/task1.out'"

# ---- task 2: exploring an option parser ----
T2="$TMP/opts"
newrepo "$T2"
mkdir -p "$T2/src"
cat > "$T2/src/opts.h" <<'C'
#ifndef OPTS_H
#define OPTS_H

typedef struct options {
    int verbose;
    int count;
    const char *output;
} options;

/* 0 when every argument was understood, -1 on a bad value, else the index of the first
 * argument that is not an option */
int parse_options(int argc, char **argv, options *o);

#endif
C
cat > "$T2/src/opts.c" <<'C'
#include "opts.h"

#include <stdlib.h>
#include <string.h>

/* a count: a decimal number from 0 to 1000 */
static int parse_count(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < 0 || v > 1000)
        return -1;
    *out = (int)v;
    return 0;
}

int parse_options(int argc, char **argv, options *o)
{
    o->verbose = 0;
    o->count = 1;
    o->output = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            o->verbose++;
        } else if (!strcmp(a, "-n") || !strcmp(a, "--count")) {
            if (i + 1 >= argc || parse_count(argv[++i], &o->count) != 0)
                return -1;
        } else if (!strncmp(a, "--count=", 8)) {
            if (parse_count(a + 8, &o->count) != 0)
                return -1;
        } else if (!strncmp(a, "--output=", 9)) {
            o->output = a + 9;
        } else if (!strcmp(a, "-o")) {
            if (i + 1 >= argc)
                return -1;
            o->output = argv[++i];
        } else if (!strcmp(a, "--")) {
            return i + 1 < argc ? i + 1 : 0;
        } else {
            return i;
        }
    }
    return 0;
}
C
cat > "$T2/src/main.c" <<'C'
#include <stdio.h>

#include "opts.h"

int main(int argc, char **argv)
{
    options o;
    int r = parse_options(argc, argv, &o);
    if (r < 0) {
        fprintf(stderr, "usage: tool [-v] [-n COUNT] [-o FILE]\n");
        return 2;
    }
    for (int i = 0; i < o.count; i++)
        printf("%s%s\n", o.verbose ? "verbose " : "", o.output ? o.output : "-");
    return 0;
}
C
cat > "$T2/Makefile" <<'MK'
CFLAGS = -Wall -Wextra -O0

build/tool: src/main.c src/opts.c src/opts.h
	mkdir -p build
	$(CC) $(CFLAGS) -o $@ src/main.c src/opts.c

test: build/tool
	test "$$(./build/tool -n 2 | wc -l)" = 2
	! ./build/tool -n 1001 2>/dev/null
	! ./build/tool -n 2>/dev/null

check: test

.PHONY: test check
MK
commit "$T2" "a tool with options"
script "$TMP/t2.json" "skeleton src/opts.c" "grep '\"-n\"'" "expand parse_options" "fetch 0003" \
  "expand parse_count" \
  "note: -n/--count takes the next argument (or --count=N) through parse_count: 0..1000, else parse_options returns -1" \
  "callers parse_options" "validate make test" \
  "done: -n and --count read the next argument, --count=N the rest of the word; parse_count accepts a decimal 0..1000 with nothing after it, anything else makes parse_options return -1 (main prints usage, exit 2)"
llm_serve "$TMP/t2.json"
run_task task2 "$T2" "how does the option parser handle -n, and which values does it accept?"
expect_out "task 2: the check named on the line ran" "1" sh -c "grep -c '^   make test: ok' '$TMP/task2.out'"

# ---- task 3: renaming a function across several files ----
T3="$TMP/text"
newrepo "$T3"
mkdir -p "$T3/src" "$T3/tests"
cat > "$T3/src/text.h" <<'C'
#ifndef TEXT_H
#define TEXT_H

#include <stddef.h>

/* the length of s without its leading and trailing spaces; *start: where it begins */
size_t str_trim(const char *s, size_t n, size_t *start);
int str_blank(const char *s, size_t n);

#endif
C
cat > "$T3/src/text.c" <<'C'
#include "text.h"

size_t str_trim(const char *s, size_t n, size_t *start)
{
    size_t b = 0;
    while (b < n && s[b] == ' ')
        b++;
    while (n > b && s[n - 1] == ' ')
        n--;
    *start = b;
    return n - b;
}

int str_blank(const char *s, size_t n)
{
    size_t b;
    return str_trim(s, n, &b) == 0;
}
C
cat > "$T3/src/main.c" <<'C'
#include <stdio.h>
#include <string.h>

#include "text.h"

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        size_t b, n = str_trim(argv[i], strlen(argv[i]), &b);
        printf("[%.*s]\n", (int)n, argv[i] + b);
    }
    return 0;
}
C
cat > "$T3/tests/test_text.c" <<'C'
#include <stdio.h>

#include "../src/text.h"

int main(void)
{
    size_t b, n = str_trim("  ab ", 5, &b);
    if (n != 2 || b != 2) {
        printf("tests/test_text.c:8: error: str_trim gave %zu at %zu\n", n, b);
        return 1;
    }
    return !str_blank("   ", 3);
}
C
cat > "$T3/Makefile" <<'MK'
CFLAGS = -Wall -Wextra -Werror -O0

build/trim: src/main.c src/text.c src/text.h
	mkdir -p build
	$(CC) $(CFLAGS) -o $@ src/main.c src/text.c

build/test_text: tests/test_text.c src/text.c src/text.h
	mkdir -p build
	$(CC) $(CFLAGS) -o $@ tests/test_text.c src/text.c

test: build/trim build/test_text
	./build/test_text
	test "$$(./build/trim '  x ')" = "[x]"

.PHONY: test
MK
commit "$T3" "text helpers"
# the model's diff: written against the files as they are (git diff of the rename)
cp -r "$T3" "$TMP/t3work"
(cd "$TMP/t3work" && sed -i 's/\bstr_trim\b/text_trim/g' src/text.h src/text.c src/main.c tests/test_text.c \
  && git diff --no-color > "$TMP/t3.diff")
script "$TMP/t3.json" "grep 'str_trim'" "$(cat "$TMP/t3.diff")" "validate" "grep '\\bstr_trim\\b'" \
  "done: str_trim is text_trim in text.h, text.c, main.c and the test"
llm_serve "$TMP/t3.json"
run_task task3 "$T3" "rename str_trim to text_trim everywhere"
expect_out "task 3: no str_trim left" "0" sh -c "cd '$T3' && git grep -c 'str_trim' | wc -l"
[ -n "${QUARRY_TASKS_KEEP:-}" ] && cp "$TMP"/task*.out "$TMP"/task*.log "$QUARRY_TASKS_KEEP"/
finish
