/*
 * test_flow_run.c: the workflow interpreter without a model: expressions and statements
 * (values, operators, functions, filter, for, if/else, push, nested assignment, return),
 * run FLOW sharing the context, parallel do over flows (worker threads; results in
 * statement order; every error reported), entry point rules, runtime errors with their
 * line, the trace's events, and a model call with no model configured. Model calls and
 * agents are covered against the scripted server in tests/cli/18_flow_run.sh.
 */
#include "check.h"
#include "quarry/flow.h"
#include "quarry/llm.h"

#include <stdlib.h>

typedef struct run_out {
    int rc;
    char value[4096];
    char error[600];
    char trace[8192];
} run_out;

/* Whether one line of text starts with head and holds part. */
static bool line_with(const char *text, const char *head, const char *part)
{
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (!strncmp(p, head, strlen(head))) {
            const char *f = strstr(p, part);
            if (f && f + strlen(part) <= p + n)
                return true;
        }
        p = e ? e + 1 : NULL;
    }
    return false;
}

static void on_trace(void *ud, const char *line, size_t n)
{
    run_out *o = ud;
    size_t have = strlen(o->trace);
    if (have + n + 2 < sizeof o->trace) {
        memcpy(o->trace + have, line, n);
        o->trace[have + n] = '\n';
        o->trace[have + n + 1] = 0;
    }
}

static void run(const char *src, const char *flow, const char *input, run_out *o)
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
    opts.flow = flow;
    opts.input = input;
    opts.inputn = input ? strlen(input) : 0;
    opts.llm = &cfg;
    opts.trace = on_trace;
    opts.trace_ud = o;
    opts.budget.workers = 3;
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
    run(src, NULL, "in", &o);
    CHECK(o.rc == QR_OK);
    if (o.rc != QR_OK)
        fprintf(stderr, "  error: %s\n", o.error);
    CHECK_STR(o.value, want);
}

static void expect_error(const char *src, const char *want)
{
    run_out o;
    run(src, NULL, "in", &o);
    CHECK(o.rc == QR_ERUNTIME);
    if (!strstr(o.error, want)) {
        fprintf(stderr, "error \"%s\" lacks \"%s\"\n", o.error, want);
        check_failures++;
    }
}

static void test_expressions(void)
{
    expect_value("flow main:\n    return 1 + 2 * 3 - 4 / 2\n", "5");
    expect_value("flow main:\n    return 7 / 2\n", "3.5");
    expect_value("flow main:\n    return -(2 - 5) % 2\n", "1");
    expect_value("flow main:\n    return \"a\" + 1 + true\n", "a1true");
    expect_value("flow main:\n    return [1] + [2, 3] + 4\n", "[1,2,3,4]");
    expect_value("flow main:\n    return input_prompt + \"!\"\n", "in!");
    expect_value("flow main:\n    return 1 < 2 and not (2 <= 1) or false\n", "true");
    expect_value("flow main:\n    return [\"a\", \"b\"] contains \"b\"\n", "true");
    expect_value("flow main:\n    return \"Hello\" contains \"ell\"\n", "true");
    expect_value("flow main:\n    return \"  *The Answer.* \" ~ \"the   answer\"\n", "true");
    expect_value("flow main:\n    return 1 == 1.0\n", "true");
    expect_value("flow main:\n    x = { a: { b: [1, { c: \"deep\" }] } }\n    return x.a.b\n",
                 "[1,{\"c\":\"deep\"}]");
    /* a returned null prints as null (issue 24); a flow with no return prints nothing */
    expect_value("flow main:\n    x = { a: 1 }\n    return x.missing\n", "null");
    expect_value("flow main:\n    return null\n", "null");
    expect_value("flow main:\n    run f\nflow f:\n    return null\n", "");
    expect_value("flow main:\n    x = 1\n", "");
    expect_value("flow main:\n    return \"\"\n", "");
    expect_value("flow main:\n    xs = [{ n: 1, t: { ok: true } }, { n: 5, t: { ok: false } }, { n: 9, t: { ok: true } }]\n"
                 "    return filter xs where .n > 2 and .t.ok\n",
                 "[{\"n\":9,\"t\":{\"ok\":true}}]");
    expect_value("flow main:\n    return [len(\"héllo\"), len([1, 2]), upper(\"ab\"), trim(\"  x \"), "
                 "join([1, 2], \"-\"), split(\"a,b\", \",\"), first([4, 5]), last([4, 5]), "
                 "sum([1, 2.5]), min([3, 1]), max([3, 1]), range(3), slice([1, 2, 3], 1), "
                 "round(2.6), abs(-3), int(\"42\"), float(\"1.5\"), unique([1, 1, 2]), "
                 "flatten([[1], [2, [3]]]), keys({ a: 1 }), values({ a: 1 }), "
                 "parse_json(\"{\\\"k\\\": [1]}\"), json({ k: null }), str(1.0)]\n",
                 "[5,2,\"AB\",\"x\",\"1-2\",[\"a\",\"b\"],4,5,3.5,1,3,[0,1,2],[2,3],3,3,42,1.5,"
                 "[1,2],[1,2,[3]],[\"a\"],[1],{\"k\":[1]},\"{\\\"k\\\":null}\",\"1.0\"]");
}

static void test_statements(void)
{
    expect_value("flow main:\n    total = 0\n    for x in [1, 2, 3] do\n        total = total + x\n"
                 "        if x == 2:\n            push x to evens\n        else:\n"
                 "            push x * 10 to others\n    end\n    return [total, evens, others]\n",
                 "[6,[2],[10,30]]");
    expect_value("flow main:\n    cfg.a.b = 1\n    cfg.a.c = 2\n    cfg.d = [cfg.a.b]\n    return cfg\n",
                 "{\"a\":{\"b\":1,\"c\":2},\"d\":[1]}");
    expect_value("flow main:\n    for k in { x: 1, y: 2 } do\n        push k to ks\n    end\n    return ks\n",
                 "[\"x\",\"y\"]");
    expect_value("flow main:\n    for x in [1, 2, 3] do\n        if x == 2:\n            return x\n    end\n"
                 "    return 0\n",
                 "2");
    /* run FLOW: the same context, its return value, `with` sets input_prompt */
    expect_value("flow main:\n    a = 1\n    r = run helper with \"hi\"\n    return [a, b, r, input_prompt]\n"
                 "flow helper:\n    b = a + 1\n    return input_prompt\n",
                 "[1,2,\"hi\",\"in\"]");
    /* prompts are values: a name that is a prompt renders it; variables win */
    expect_value("prompt p: \"\"\"Hello $who, $$5 ${who}!\"\"\"\nflow main:\n    who = \"Ann\"\n"
                 "    return p\n",
                 "Hello Ann, $5 Ann!");
    expect_value("prompt inner: \"\"\"[$x]\"\"\"\nprompt outer: \"\"\"<$inner $o.k>\"\"\"\n"
                 "flow main:\n    x = [1, 2]\n    o = { k: \"v\" }\n    return outer\n",
                 "<[[1,2]] v>");
}

static void test_parallel(void)
{
    /* flows run on worker threads; results land in statement order */
    run_out o;
    run("flow main:\n    n = 3\n    parallel do\n        a = run f1\n        b = run f2\n"
        "        c = run f3\n        d = run f1\n    end\n    return [a, b, c, d, seen]\n"
        "flow f1:\n    seen = \"f1\"\n    return n * 1\nflow f2:\n    total = 0\n"
        "    for i in range(20000) do\n        total = total + i\n    end\n    return total\n"
        "flow f3:\n    return [n, \"three\"]\n",
        NULL, NULL, &o);
    CHECK(o.rc == QR_OK);
    CHECK_STR(o.value, "[3,199990000,[3,\"three\"],3,\"f1\"]");
    /* workers change their own copies; writes land in statement order (the last wins) and
     * what a worker only read is not written back */
    run("flow main:\n    xs = [1]\n    keep = { a: 1 }\n    parallel do\n        run p1\n"
        "        run p2\n        run p3\n    end\n    return [xs, keep]\n"
        "flow p1:\n    push 2 to xs\nflow p2:\n    push 3 to xs\n"
        "flow p3:\n    k = keep.a + len(xs)\n",
        NULL, NULL, &o);
    CHECK(o.rc == QR_OK);
    CHECK_STR(o.value, "[[1,3],{\"a\":1}]");
    /* every failure is reported */
    expect_error("flow main:\n    parallel do\n        a = run bad1\n        b = run ok\n"
                 "        c = run bad2\n    end\n"
                 "flow bad1:\n    return 1 / 0\nflow ok:\n    return 1\nflow bad2:\n    return len(5)\n",
                 "parallel block failed (2 of 3 statements): line 8: division by zero; line 12: "
                 "len() expects a collection as argument 1, got integer 5");
}

static void test_errors(void)
{
    expect_error("flow main:\n    return 1 / 0\n", "line 2: division by zero");
    expect_error("flow main:\n    x = 1\n    return x - \"a\"\n", "line 3: '-' needs numbers");
    expect_error("flow main:\n    run other\n    return later\nflow other:\n    later = later2\n"
                 "flow never:\n    later2 = 1\n",
                 "line 5: variable 'later2' is not set yet");
    expect_error("flow main:\n    for x in 5 do\n        log x\n    end\n", "for needs a list");
    expect_error("prompt a: \"\"\"$b\"\"\"\nprompt b: \"\"\"$a\"\"\"\nflow main:\n    return a\n",
                 "includes itself");
    expect_error("flow main:\n    return run main\n", "flows nested more than 32 deep");
    expect_error("prompt p: \"\"\"x\"\"\"\nflow main:\n    return call llm p\n",
                 "line 3: no model configured");
}

static void test_entry(void)
{
    run_out o;
    run("flow a:\n    return 1\nflow b:\n    return 2\n", NULL, NULL, &o);
    CHECK(o.rc == QR_ERUNTIME && strstr(o.error, "none called 'main'"));
    run("flow a:\n    return 1\nflow b:\n    return 2\n", "b", NULL, &o);
    CHECK(o.rc == QR_OK);
    CHECK_STR(o.value, "2");
    run("flow only:\n    return 7\n", NULL, NULL, &o);
    CHECK_STR(o.value, "7");
    run("flow only:\n    return 7\n", "nope", NULL, &o);
    CHECK(o.rc == QR_ERUNTIME && strstr(o.error, "no flow or agent named 'nope'"));
    run("flow main:\n    log \"hi\"\n    run sub\nflow sub:\n    return 1\n", NULL, NULL, &o);
    CHECK(o.rc == QR_OK);
    /* the shared trace writer puts source and t_ms after the event name */
    CHECK(line_with(o.trace, "{\"event\":\"flow\",\"source\":\"flow\"", "\"name\":\"main\"}"));
    CHECK(line_with(o.trace, "{\"event\":\"log\",", "\"line\":2,\"value\":\"hi\"}"));
    CHECK(line_with(o.trace, "{\"event\":\"flow\",", "\"name\":\"sub\"}"));
    CHECK(line_with(o.trace, "{\"event\":\"done\",", "\"value\":\"\",\"calls\":0"));
}

int main(void)
{
    test_expressions();
    test_statements();
    test_parallel();
    test_errors();
    test_entry();
    CHECK_DONE();
}
