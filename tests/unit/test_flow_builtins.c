/*
 * test_flow_builtins.c: flows inside the sandbox. The table of flow functions against
 * docs/flow.md's table (usage, Lisp builtin, description, in order) and against the Lisp
 * (each named builtin exists); qr_lisp_call (results in the caller's arena, its errors,
 * its memory limit given back); the flow functions' semantics where they follow the Lisp
 * and where they deliberately differ (docs/decisions.md); and the run's one budget:
 * library defaults, memory (shared by parallel statements), steps, a stop, and
 * expression depth.
 */
#include "check.h"
#include "quarry/flow.h"
#include "quarry/lisp.h"
#include "quarry/llm.h"

#include <stdlib.h>

typedef struct run_out {
    int rc;
    char value[4096];
    char error[600];
} run_out;

static void run_budget(const char *src, const qr_flow_budget *b, run_out *o)
{
    memset(o, 0, sizeof *o);
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_flow_diags d;
    qr_flow_diags_init(&d);
    qr_flow_file *f = NULL;
    CHECK(qr_flow_check_text(&a, src, strlen(src), &f, &d) == QR_OK);
    if (d.errors) {
        fprintf(stderr, "unexpected diagnostic: %s\n", d.v[0].message);
        check_failures++;
    }
    qr_llm_config cfg;
    qr_llm_config_init(&cfg);
    qr_flow_run_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.llm = &cfg;
    if (b)
        opts.budget = *b;
    qr_flow_result r;
    o->rc = qr_flow_run(f, &opts, &r);
    if (r.value)
        snprintf(o->value, sizeof o->value, "%s", r.value);
    snprintf(o->error, sizeof o->error, "%s", r.error);
    qr_flow_result_clear(&r);
    qr_flow_diags_clear(&d);
    qr_arena_release(&a);
}

static void expect_value(const char *src, const char *want)
{
    run_out o;
    run_budget(src, NULL, &o);
    CHECK(o.rc == QR_OK);
    if (o.rc != QR_OK)
        fprintf(stderr, "  error: %s\n", o.error);
    CHECK_STR(o.value, want);
}

static void expect_error(const char *src, int rc, const qr_flow_budget *b, const char *want)
{
    run_out o;
    run_budget(src, b, &o);
    CHECK(o.rc == rc);
    if (o.rc != rc || !strstr(o.error, want)) {
        fprintf(stderr, "rc %d, error \"%s\" lacks \"%s\"\n", o.rc, o.error, want);
        check_failures++;
    }
}

/* ---- the table and the docs ---- */
static char *read_doc(void)
{
    /* this file is tests/unit/test_flow_builtins.c in the source tree */
    char path[4096];
    snprintf(path, sizeof path, "%s", __FILE__);
    char *slash = strstr(path, "tests/unit/test_flow_builtins.c");
    if (!slash)
        return NULL;
    snprintf(slash, sizeof path - (size_t)(slash - path), "docs/flow.md");
    char *text = NULL;
    size_t n = 0;
    if (qr_read_file(path, 0, &text, &n) != QR_OK)
        return NULL;
    return text;
}

static void test_docs_table(void)
{
    char *doc = read_doc();
    CHECK(doc != NULL);
    if (!doc)
        return;
    const char *sec = strstr(doc, "### Functions");
    CHECK(sec != NULL);
    const qr_flow_builtin *b = qr_flow_builtins();
    size_t rows = 0;
    for (const char *line = sec; line && *line;
         line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (!strncmp(line, "## ", 3))
            break;
        if (strncmp(line, "| `", 3))
            continue;
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        char want[400];
        if (!b[rows].name) {
            fprintf(stderr, "docs/flow.md lists more functions than the table: %.*s\n", (int)n,
                    line);
            check_failures++;
            break;
        }
        char lisp[120];
        if (b[rows].lisp)
            snprintf(lisp, sizeof lisp, "`%s`", b[rows].lisp);
        else
            snprintf(lisp, sizeof lisp, "(JSON, no Lisp builtin)");
        snprintf(want, sizeof want, "| `%s` | %s | %s |", b[rows].usage, lisp, b[rows].doc);
        if (strlen(want) != n || memcmp(want, line, n)) {
            fprintf(stderr, "docs/flow.md row %zu:\n  doc:   %.*s\n  table: %s\n", rows + 1, (int)n,
                    line, want);
            check_failures++;
        }
        /* the usage starts with the name */
        CHECK(!strncmp(b[rows].usage, b[rows].name, strlen(b[rows].name)));
        rows++;
    }
    size_t count = 0;
    while (b[count].name)
        count++;
    CHECK(rows == count);
    CHECK(count == 24);
    free(doc);
}

static void no_such(void *ud, const char *name, const char *args, const char *doc)
{
    (void)args, (void)doc;
    const char **want = ud;
    if (*want && !strcmp(name, *want))
        *want = NULL;
}

static void test_table_names_lisp(void)
{
    for (const qr_flow_builtin *b = qr_flow_builtins(); b->name; b++) {
        CHECK((b->fn != NULL || b->lisp != NULL) && b->min_args >= 1 && b->max_args >= b->min_args);
        CHECK(qr_flow_builtin_find(b->name, strlen(b->name)) == b);
        if (!b->lisp)
            continue;
        const char *want = b->lisp;
        qr_lisp_each_builtin(no_such, &want);
        if (want) {
            fprintf(stderr, "flow %s names '%s', which the Lisp does not have\n", b->name, b->lisp);
            check_failures++;
        }
    }
    CHECK(qr_flow_builtin_find("nope", 4) == NULL);
}

/* ---- qr_lisp_call ---- */
static void test_lisp_call(void)
{
    qr_lisp_session *s = qr_lisp_session_new(NULL);
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_lisp_result r;
    qr_val v[2];
    qr_val items[3] = {qr_int(1), qr_int(2), qr_int(3)};
    v[0] = qr_vec_from(&a, QR_T_VEC, items, 3);
    CHECK(qr_lisp_call(s, &a, "count", 1, v, &r) == QR_OK);
    CHECK(r.value.t == QR_T_INT && r.value.i == 3);
    qr_lisp_result_clear(&r);
    /* a range comes back realised, in the caller's arena */
    v[0] = qr_int(4);
    size_t before = a.used;
    CHECK(qr_lisp_call(s, &a, "range", 1, v, &r) == QR_OK);
    CHECK((r.value.t == QR_T_LIST || r.value.t == QR_T_VEC) && qr_vec_len(r.value) == 4);
    CHECK(a.used > before);
    qr_lisp_result_clear(&r);
    /* the Lisp's own errors */
    v[0] = qr_int(5);
    CHECK(qr_lisp_call(s, &a, "count", 1, v, &r) == QR_ERUNTIME);
    CHECK(r.kind == QR_LE_TYPE);
    CHECK_STR(r.message, "'count' expects a collection as argument 1, got integer 5");
    qr_lisp_result_clear(&r);
    CHECK(qr_lisp_call(s, &a, "count", 2, v, &r) == QR_EINVAL);
    CHECK(r.kind == QR_LE_ARITY && strstr(r.message, "wrong number of arguments (2) to 'count'"));
    qr_lisp_result_clear(&r);
    CHECK(qr_lisp_call(s, &a, "no-such-fn", 1, v, &r) == QR_EINVAL);
    CHECK(r.kind == QR_LE_UNBOUND);
    qr_lisp_result_clear(&r);
    /* the memory limit: counted from the arena's use; what the call built is given back */
    qr_lisp_session_limits(s)->max_memory = 1 << 20;
    v[0] = qr_int(1000000);
    before = a.used;
    CHECK(qr_lisp_call(s, &a, "range", 1, v, &r) == QR_ERUNTIME);
    CHECK(r.kind == QR_LE_MEMORY);
    CHECK(a.used == before && !a.exhausted && a.cap == 0 && a.on_fail == NULL);
    qr_lisp_result_clear(&r);
    /* the arena's own cap, when smaller, holds too */
    qr_lisp_session_limits(s)->max_memory = 64u << 20;
    a.cap = a.used + 4096;
    CHECK(qr_lisp_call(s, &a, "range", 1, v, &r) == QR_ERUNTIME && r.kind == QR_LE_MEMORY);
    CHECK(a.cap == before + 4096 && a.used == before);
    qr_lisp_result_clear(&r);
    a.cap = 0;
    /* the step limit: realising a long range counts its items */
    qr_lisp_session_limits(s)->max_steps = 10;
    v[0] = qr_int(1000000);
    before = a.used;
    CHECK(qr_lisp_call(s, &a, "range", 1, v, &r) == QR_ERUNTIME);
    CHECK(r.kind == QR_LE_STEPS && a.used == before);
    qr_lisp_result_clear(&r);
    qr_arena_release(&a);
    qr_lisp_session_free(s);
}

/* ---- the functions' semantics ---- */
static void test_semantics(void)
{
    /* what the Lisp gives */
    expect_value("flow main:\n    return [len(\"héllo\"), len(null), lower(\"ÄB\"), upper(\"ß\"), "
                 "trim(\" a \"), sum([]), round(2.5), abs(-2.5), first([]), last([1, 2]), "
                 "unique([3, 1, 3]), range(2, 5), int(3.9), int(\"-7\"), float(2)]\n",
                 "[5,0,\"äb\",\"SS\",\"a\",0,3,2.5,null,2,[3,1],[2,3,4],3,-7,2.0]");
    /* where a flow differs, as docs/decisions.md says */
    expect_value("flow main:\n    return [keys({ a: 1, \"b c\": 2 }), keys({}), values({}), "
                 "flatten([[1], 2, [[3]]]), slice([1, 2, 3, 4], -3, -1), slice(\"héllo\", 1, 99), "
                 "join([1, \"x\"]), split(\"a\\nb\"), min([]), max([2, 7]), str([1, { k: 2 }]), "
                 "str(2.0), str(null)]\n",
                 "[[\"a\",\"b c\"],[],[],[1,2,[3]],[2,3],\"éllo\",\"1, x\",[\"a\",\"b\"],null,7,"
                 "\"[1,{\\\"k\\\":2}]\",\"2.0\",\"\"]");
    /* the Lisp's messages, under the flow function's name */
    expect_error("flow main:\n    return lower(5)\n", QR_ERUNTIME, NULL,
                 "line 2: lower() expects a string as argument 1, got integer 5");
    expect_error("flow main:\n    return range(\"a\")\n", QR_ERUNTIME, NULL,
                 "line 2: range() expects a number as argument 1, got string \"a\"");
    expect_error("flow main:\n    return sum([1, \"a\"])\n", QR_ERUNTIME, NULL, "line 2: sum()");
    expect_error("flow main:\n    return int(\"abc\")\n", QR_ERUNTIME, NULL,
                 "line 2: int() cannot read a number from \"abc\"");
    expect_error("flow main:\n    return keys([1])\n", QR_ERUNTIME, NULL,
                 "line 2: keys() needs an object, got a list");
    expect_error("flow main:\n    return split(\"a\", \"\")\n", QR_ERUNTIME, NULL,
                 "split() needs a non-empty separator");
}

/* ---- the budget ---- */
static const char runaway[] = "flow main:\n    out = []\n    for i in range(100000) do\n"
                              "        for j in range(1000) do\n            push j to out\n"
                              "        end\n    end\n    return len(out)\n";

static void test_budget(void)
{
    qr_flow_budget b;
    qr_flow_budget_default(&b);
    CHECK(b.max_calls == 100 && b.max_tokens == 1000000 && b.max_ms == 600000);
    CHECK(b.max_steps == 100000000 && b.max_memory == (size_t)256 << 20);
    CHECK(b.max_turns == 8 && b.workers == 4 && b.stop == NULL);
    qr_flow_budget z;
    memset(&z, 0, sizeof z);
    z.max_steps = 7;
    qr_flow_budget_fill(&z);
    CHECK(z.max_steps == 7 && z.max_memory == b.max_memory && z.max_ms == b.max_ms);

    /* memory: the runaway ends with the limit, whatever builds the values */
    memset(&z, 0, sizeof z);
    z.max_memory = 8u << 20;
    expect_error(runaway, QR_ELIMIT, &z, "line 5: memory limit of 8 MiB reached");
    expect_error("flow main:\n    x = range(1000000)\n", QR_ELIMIT, &z,
                 "line 2: memory limit of 8 MiB reached");
    expect_error("flow main:\n    x = \"ab\"\n    for i in range(40) do\n        x = x + x\n"
                 "    end\n",
                 QR_ELIMIT, &z, "line 4: memory limit of 8 MiB reached");
    /* with the library's defaults (a zeroed budget), the same runaway still ends */
    expect_error(runaway, QR_ELIMIT, NULL, "memory limit of 256 MiB reached");

    /* parallel statements share the one budget: 200000 numbers (3.2 MB) fit in 6 MiB
     * alone, but not twice at once */
    const char *one = "flow main:\n    a = run f\n    return len(a)\n"
                      "flow f:\n    return range(200000)\n";
    const char *two = "flow main:\n    parallel do\n        a = run f\n        b = run f\n"
                      "    end\n    return len(a) + len(b)\n"
                      "flow f:\n    return range(200000)\n";
    memset(&z, 0, sizeof z);
    z.max_memory = 6u << 20;
    run_out o;
    run_budget(one, &z, &o);
    CHECK(o.rc == QR_OK);
    CHECK_STR(o.value, "200000");
    expect_error(two, QR_ELIMIT, &z, "memory limit of 6 MiB reached");
    z.max_memory = 16u << 20;
    run_budget(two, &z, &o);
    CHECK(o.rc == QR_OK);
    CHECK_STR(o.value, "400000");

    /* steps: statements and loop turns, and the work of the functions */
    memset(&z, 0, sizeof z);
    z.max_steps = 1000;
    expect_error("flow main:\n    n = 0\n    for i in range(5000) do\n        n = n + 1\n"
                 "    end\n",
                 QR_ELIMIT, &z, "step limit of 1000 steps reached");
    expect_error("flow main:\n    return sum(range(1000000))\n", QR_ELIMIT, &z,
                 "step limit of 1000 steps reached");

    /* a stop (a cancel, or the request's deadline) ends the run */
    qr_stop st;
    qr_stop_init(&st, 0);
    qr_stop_request(&st);
    memset(&z, 0, sizeof z);
    z.stop = &st;
    expect_error("flow main:\n    return 1\n", QR_ESTOPPED, &z, "the run was stopped");
}

static void test_depth(void)
{
    /* a chain of operators deeper than the bound is E0007, not a stack overflow */
    size_t n = 5000;
    char *src = malloc(n * 4 + 64);
    char *p = src + sprintf(src, "flow main:\n    return 1");
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, " + 1");
    sprintf(p, "\n");
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_flow_diags d;
    qr_flow_diags_init(&d);
    qr_flow_file *f = NULL;
    CHECK(qr_flow_check_text(&a, src, strlen(src), &f, &d) == QR_OK);
    CHECK(d.errors == 1 && !strcmp(d.v[0].code, "E0007") &&
          !strcmp(d.v[0].message, "expression nested deeper than 1000 levels"));
    qr_flow_diags_clear(&d);
    qr_arena_release(&a);
    /* 999 operators are fine */
    p = src + sprintf(src, "flow main:\n    return 1");
    for (size_t i = 0; i < 999; i++)
        p += sprintf(p, " + 1");
    sprintf(p, "\n");
    expect_value(src, "1000");
    /* evaluations nested through flows an expression runs are bounded too */
    p = src + sprintf(src, "flow main:\n    return run main");
    for (size_t i = 0; i < 990; i++)
        p += sprintf(p, " + 1");
    sprintf(p, "\n");
    expect_error(src, QR_ERUNTIME, NULL, "expression nested deeper than 2000 levels");
    free(src);
}

int main(void)
{
    test_docs_table();
    test_table_names_lisp();
    test_lisp_call();
    test_semantics();
    test_budget();
    test_depth();
    CHECK_DONE();
}
