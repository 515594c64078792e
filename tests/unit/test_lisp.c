/*
 * test_lisp.c: unit tests for the interpreter's embedding API: sessions keep defs
 * across runs and lose none on failure, the data context, the tool hook, typed errors
 * with positions, and every sandbox limit stopping a hostile program.
 */
#include "check.h"
#include "quarry/lisp.h"

#include <stdlib.h>
#include <pthread.h>
#include <time.h>

static char *run(qr_lisp_session *s, const char *src, int *rc, qr_lisp_result *res)
{
    *rc = qr_lisp_run(s, src, strlen(src), res);
    qr_buf b;
    qr_buf_init(&b);
    if (*rc == QR_OK)
        qr_print(&b, res->value, QR_PRINT_READABLY);
    else
        qr_buf_puts(&b, qr_lisp_errkind_name(res->kind));
    return qr_buf_detach(&b, NULL);
}

static void expect(qr_lisp_session *s, const char *src, const char *want)
{
    int rc;
    qr_lisp_result res;
    char *got = run(s, src, &rc, &res);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "program: %s\n  message: %s\n", src, res.message);
    CHECK_STR(got, want);
    free(got);
    qr_lisp_result_clear(&res);
}

static void test_session(void)
{
    qr_lisp_session *s = qr_lisp_session_new(NULL);
    expect(s, "(def x 41)", "#'user/x");
    expect(s, "(inc x)", "42");
    expect(s, "(defn twice [n] (* 2 n))", "#'user/twice");
    expect(s, "(twice x)", "82");
    /* a failing program leaves earlier defs exactly as they were */
    expect(s, "(def x 0) (def y 1) (inc \"boom\")", "type-error");
    expect(s, "x", "41");
    expect(s, "y", "unbound-symbol");
    /* a name a failed program meant to define does not hide the builtin afterwards */
    expect(s, "(defn + [x] when)", "parse-error");
    expect(s, "(+ 1 2)", "3");
    /* a def used before it runs is an error, not a crash */
    expect(s, "(defn g [] (h)) (g)", "unbound-symbol");
    qr_lisp_session_free(s);
}

static int tool_calls;
static int fake_tool(void *ud, const char *name, qr_val args, qr_arena *a, qr_val *out,
                     qr_buf *err)
{
    (void)ud;
    tool_calls++;
    if (strcmp(name, "echo") != 0) {
        qr_buf_printf(err, "unknown tool '%s'", name);
        return QR_EINVAL;
    }
    qr_val v;
    if (args.t == QR_T_MAP && qr_map_lookup(args, qr_kw_cstr(a, "x"), &v))
        *out = v;
    else
        *out = qr_nil();
    return QR_OK;
}

static int slow_tool(void *ud, const char *name, qr_val args, qr_arena *a, qr_val *out,
                     qr_buf *err)
{
    (void)ud;
    (void)name;
    (void)args;
    (void)a;
    (void)err;
    struct timespec ts = {0, 150 * 1000000L};
    nanosleep(&ts, NULL);
    *out = qr_int(1);
    return QR_OK;
}

static void test_tool_time_counted(void)
{
    /* three tool calls of at least 150 ms each in a program limited to 200 ms: the time
     * inside tools is the program's too, so the run stops with a timeout after the second */
    qr_lisp_limits lim;
    qr_lisp_limits_default(&lim);
    lim.timeout_ms = 200;
    lim.max_steps = UINT64_MAX;
    qr_lisp_session *s = qr_lisp_session_new(&lim);
    qr_lisp_set_tools(s, slow_tool, NULL);
    expect(s, "(+ (tool/slow {}) (tool/slow {}) (tool/slow {}))", "timeout");
    expect(s, "(tool/slow {})", "1");
    qr_lisp_session_free(s);
}

/* a tool that asks its own session to stop, as another thread would */
static int interrupting_tool(void *ud, const char *name, qr_val args, qr_arena *a, qr_val *out,
                             qr_buf *err)
{
    (void)name;
    (void)args;
    (void)a;
    (void)err;
    qr_lisp_interrupt(ud);
    *out = qr_int(1);
    return QR_OK;
}

typedef struct spin_run {
    qr_lisp_session *s;
    int rc;
    qr_lisp_errkind kind;
} spin_run;

static void *spin_thread(void *arg)
{
    spin_run *sr = arg;
    qr_lisp_result res;
    sr->rc = qr_lisp_run(sr->s, "(loop [] (recur))", 17, &res);
    sr->kind = res.kind;
    qr_lisp_result_clear(&res);
    return NULL;
}

static void test_interrupt(void)
{
    /* no time or step limit that could stop these: only the interrupt does */
    qr_lisp_limits lim;
    qr_lisp_limits_default(&lim);
    lim.timeout_ms = 3600u * 1000u;
    lim.max_steps = UINT64_MAX;
    qr_lisp_session *s = qr_lisp_session_new(&lim);
    qr_lisp_set_tools(s, interrupting_tool, s);
    expect(s, "(def x 1) (tool/stop {}) (loop [] (recur))", "interrupted");
    expect(s, "x", "unbound-symbol"); /* the failed run's defs are undone */
    expect(s, "(+ 1 2)", "3");        /* the request ended with its run */
    /* from another thread, while the program spins */
    spin_run sr = {s, 0, QR_LE_NONE};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, spin_thread, &sr) == 0);
    struct timespec ts = {0, 20 * 1000000L};
    nanosleep(&ts, NULL);
    qr_lisp_interrupt(s);
    pthread_join(t, NULL);
    CHECK(sr.rc == QR_ERUNTIME && sr.kind == QR_LE_INTERRUPT);
    qr_lisp_session_free(s);
}

static void test_tools_and_data(void)
{
    qr_lisp_session *s = qr_lisp_session_new(NULL);
    expect(s, "(tool/echo {:x 1})", "tool-error"); /* no tools registered */
    qr_lisp_set_tools(s, fake_tool, NULL);
    expect(s, "(tool/echo {:x [1 2]})", "[1 2]");
    expect(s, "(tool/echo {\"x\" 3})", "3");
    expect(s, "(tool/nope {})", "tool-error");
    expect(s, "(tool/echo 5)", "type-error");
    int before = tool_calls;
    /* an unknown name is found before anything runs, so no tool is called */
    expect(s, "(tool/echo {:x 1}) (undefined-thing 1)", "unbound-symbol");
    CHECK(tool_calls == before);

    qr_arena *a = qr_lisp_session_arena(s);
    qr_val forms;
    qr_read_error e;
    CHECK(qr_read_all(a, "{:question \"why\" :n 3}", 22, QR_READ_EDN, &forms, &e) == QR_OK);
    qr_lisp_set_data(s, qr_vec_at(forms, 0));
    expect(s, "[data/question (inc data/n)]", "[\"why\" 4]");
    expect(s, "data/missing", "unbound-symbol");
    qr_lisp_session_free(s);
}

static void test_errors(void)
{
    qr_lisp_session *s = qr_lisp_session_new(NULL);
    int rc;
    qr_lisp_result res;
    char *k = run(s, "(+ 1\n  (inc \"a\"))", &rc, &res);
    CHECK(rc == QR_ERUNTIME);
    CHECK_STR(k, "type-error");
    CHECK(res.line == 2 && res.col == 3);
    CHECK(strstr(res.message, "'inc' expects a number") != NULL);
    free(k);
    qr_lisp_result_clear(&res);
    k = run(s, "(let [x 1] (+ x", &rc, &res);
    CHECK(rc == QR_EINVAL);
    CHECK_STR(k, "parse-error");
    free(k);
    qr_lisp_result_clear(&res);
    k = run(s, "(fail {:why 1})", &rc, &res);
    CHECK_STR(k, "fail");
    CHECK_STR(res.message, "{:why 1}");
    free(k);
    qr_lisp_result_clear(&res);
    expect(s, "(do (return 7) (inc \"never\"))", "7");
    expect(s, "(recur 1)", "parse-error");
    expect(s, "(loop [x 1] (inc (recur 2)))", "parse-error");
    qr_lisp_session_free(s);
}

static void test_limits(void)
{
    qr_lisp_limits lim;
    qr_lisp_limits_default(&lim);
    lim.timeout_ms = 200;
    lim.max_memory = 8u << 20;
    qr_lisp_session *s = qr_lisp_session_new(&lim);
    expect(s, "(loop [i 0] (recur (inc i)))", "timeout");
    expect(s, "(defn f [n] (+ 1 (f n))) (f 1)", "depth-limit");
    expect(s, "(loop [s \"x\"] (recur (str s s)))", "memory-exceeded");
    expect(s, "(loop [acc []] (recur [acc]))", "depth-limit");
    expect(s, "(re-find #\"^(\\w+\\s?)*$\" (str (apply str (repeat 40 \"a\")) \"!\"))",
           "regex-limit");
    expect(s, "(count (range))", "type-error");
    expect(s, "(apply str (repeat 1000000000 \"a\"))", "memory-exceeded");
    /* the session still works after every limit */
    expect(s, "(+ 1 1)", "2");
    qr_lisp_session_free(s);

    qr_lisp_limits_default(&lim);
    lim.max_steps = 1000;
    s = qr_lisp_session_new(&lim);
    expect(s, "(loop [] (recur))", "step-limit");
    qr_lisp_session_free(s);

    qr_lisp_limits_default(&lim);
    lim.max_output = 10;
    s = qr_lisp_session_new(&lim);
    int rc;
    qr_lisp_result res;
    char *v = run(s, "(println \"hello world, this is long\") 1", &rc, &res);
    CHECK_STR(v, "1");
    CHECK(res.output_truncated);
    CHECK(res.output_len <= 10);
    free(v);
    qr_lisp_result_clear(&res);
    qr_lisp_session_free(s);
}

int main(void)
{
    test_session();
    test_tools_and_data();
    test_tool_time_counted();
    test_interrupt();
    test_errors();
    test_limits();
    CHECK_DONE();
}
