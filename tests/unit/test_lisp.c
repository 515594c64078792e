/*
 * test_lisp.c: unit tests for the interpreter's embedding API: sessions keep defs
 * across runs and lose none on failure, the data context, the tool hook, typed errors
 * with positions, and every sandbox limit stopping a hostile program; the interrupt hook;
 * and fault injection: every arena allocation along a set of programs is made to fail in
 * turn, and each failure must end in memory-exceeded with the session left clean.
 */
#include "check.h"
#include "quarry/lisp.h"

#include <pthread.h>
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
static int fake_tool(void *ud, qr_req *req, const char *name, qr_val args, qr_arena *a, qr_val *out,
                     qr_buf *err)
{
    (void)req;
    (void)ud;
    tool_calls++;
    qr_val v;
    if (strcmp(name, "kind") == 0) { /* the type of :x, as the host sees it */
        bool has = args.t == QR_T_MAP && qr_map_lookup(args, qr_kw_cstr(a, "x"), &v);
        const char *t = has ? qr_type_name((qr_type)v.t) : "none";
        if (has && v.t == QR_T_VEC && v.c->len && qr_vec_at(v, 0).t != QR_T_INT)
            t = qr_type_name((qr_type)qr_vec_at(v, 0).t);
        *out = qr_str_new(a, t, strlen(t));
        return QR_OK;
    }
    if (strcmp(name, "echo") != 0) {
        qr_buf_printf(err, "unknown tool '%s'", name);
        return QR_EINVAL;
    }
    if (args.t == QR_T_MAP && qr_map_lookup(args, qr_kw_cstr(a, "x"), &v))
        *out = v;
    else
        *out = qr_nil();
    return QR_OK;
}

static int slow_tool(void *ud, qr_req *req, const char *name, qr_val args, qr_arena *a, qr_val *out,
                     qr_buf *err)
{
    (void)req;
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
static int interrupting_tool(void *ud, qr_req *req, const char *name, qr_val args, qr_arena *a, qr_val *out,
                             qr_buf *err)
{
    (void)req;
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

static void test_interrupt_from_tool(void)
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
    /* a bounded range reaches a tool as the list it stands for, however deep */
    expect(s, "(tool/kind {:x (range 5000)})", "\"list\"");
    expect(s, "(tool/kind {:x [(range 5000)]})", "\"list\"");
    expect(s, "(count (tool/echo {:x {:r (range 3000)}}))", "1");
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

/* Fault injection, as SQLite and Lua do it: for each program, count the arena allocations
 * of a normal run (N), then for every k in 1..N run it with the k-th refused. Each such
 * run must fail with memory-exceeded (or, past the allocations this run makes, succeed
 * with the same value), and the session must be clean afterwards: its earlier defs intact
 * and the next run correct. */
static const char *const fault_programs[] = {
    "(+ 1 2)",
    "(def m {:a 1 :b [1 2 3]}) (assoc m :c (str \"x\" (:a m)))",
    "(defn f [{:keys [a b]} & more] (into [a b] more)) (f {:a 1 :b 2} 3 4)",
    "(->> (range 40) (map (fn [i] {:k (mod i 3) :v i})) (group-by :k) (map (fn [[k vs]] [k (count vs)])) (sort-by first))",
    "(let [s (clojure.string/join \",\" (map str (range 30)))] (clojure.string/split s #\",\"))",
    "(frequencies (map #(mod % 7) (range 50)))",
    "(for [x (range 5) y [:a :b] :when (odd? x)] [x y])",
    "(reduce (fn [acc x] (update acc (mod x 4) (fnil conj []) x)) {} (range 20))",
    "(pr-str (distinct (concat [1 2 3] #{4 5} '(6 1))))",
    "(sort (comp - compare) (map (juxt identity inc) [3 1 2]))",
    "(re-seq #\"[a-z]+\" \"one two three\")",
    "(defn dag [n] (reduce (fn [a _] [a a]) [] (range n))) (= (dag 8) (dag 8))",
    "(format \"%s-%05.1f\" (set [1 2]) 3.14159)",
    "(->> (tool/rows {:n 20}) (filter #(odd? (:i %))) (map :s) (take 2))",
    "(keyword \"ns\" (str (symbol \"a\" \"b\")))",
    NULL};

/* A host tool that builds rows in the run's arena while it holds a heap buffer of its own,
 * as real tools hold statements and files: a refusal inside it must not unwind past it
 * (ASan would see the buffer leak). */
static int rows_tool(void *ud, qr_req *req, const char *name, qr_val args, qr_arena *a, qr_val *out,
                     qr_buf *err)
{
    (void)req;
    (void)ud;
    (void)name;
    (void)args;
    qr_buf held;
    qr_buf_init(&held);
    qr_buf_puts(&held, "a resource of the host");
    qr_vecb vb;
    qr_vecb_init(&vb, a, 0);
    for (int i = 0; i < 20; i++) {
        qr_mapb mb;
        qr_mapb_init(&mb, a, 2);
        qr_mapb_put(&mb, qr_kw_cstr(a, "i"), qr_int(i));
        qr_mapb_put(&mb, qr_kw_cstr(a, "s"), qr_str_new(a, held.p, held.len));
        qr_vecb_push(&vb, qr_mapb_finish(&mb, QR_T_MAP));
    }
    *out = qr_vecb_finish(&vb, QR_T_VEC);
    qr_buf_release(&held);
    if (a->exhausted) {
        qr_buf_puts(err, "out of memory");
        return QR_ENOMEM;
    }
    return QR_OK;
}

static void test_fault_injection(void)
{
    qr_lisp_session *s = qr_lisp_session_new(NULL);
    qr_lisp_set_tools(s, rows_tool, NULL);
    qr_arena *a = qr_lisp_session_arena(s);
    expect(s, "(def base 41)", "#'user/base");
    int injected = 0;
    for (int p = 0; fault_programs[p]; p++) {
        const char *prog = fault_programs[p];
        const uint64_t big = UINT64_MAX / 2;
        int rc;
        qr_lisp_result res;
        a->fail_countdown = big;
        char *want = run(s, prog, &rc, &res);
        uint64_t n = big - a->fail_countdown;
        a->fail_countdown = 0;
        CHECK(rc == QR_OK);
        CHECK(n > 0);
        qr_lisp_result_clear(&res);
        for (uint64_t k = 1; k <= n; k++) {
            a->fail_countdown = k;
            char *got = run(s, prog, &rc, &res);
            bool reached = a->fail_countdown == 0;
            a->fail_countdown = 0;
            if (reached) {
                injected++;
                if (rc == QR_OK || res.kind != QR_LE_MEMORY) {
                    fprintf(stderr, "program %d, allocation %llu of %llu: %s: %s\n", p,
                            (unsigned long long)k, (unsigned long long)n, got, res.message);
                    CHECK(rc != QR_OK && res.kind == QR_LE_MEMORY);
                }
            } else {
                CHECK(rc == QR_OK);
                CHECK_STR(got, want);
            }
            free(got);
            qr_lisp_result_clear(&res);
            /* the session is clean: its defs survive and the next run is correct */
            char *after = run(s, "(inc base)", &rc, &res);
            CHECK_STR(after, "42");
            free(after);
            qr_lisp_result_clear(&res);
        }
        char *again = run(s, prog, &rc, &res);
        CHECK_STR(again, want);
        free(again);
        qr_lisp_result_clear(&res);
        free(want);
    }
    CHECK(injected > 100);
    qr_lisp_session_free(s);
}

typedef struct interrupter {
    qr_lisp_session *s;
    int delay_ms;
} interrupter;

static void *interrupt_later(void *arg)
{
    interrupter *it = arg;
    struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)it->delay_ms * 1000000L};
    nanosleep(&ts, NULL);
    qr_lisp_interrupt(it->s);
    return NULL;
}

/* qr_lisp_interrupt stops a run from another thread, in evaluation and inside equality,
 * and the session works afterwards. */
static void test_interrupt(void)
{
    qr_lisp_limits lim;
    qr_lisp_limits_default(&lim);
    lim.timeout_ms = 600000;
    lim.max_steps = UINT64_MAX / 4;
    lim.max_memory = (size_t)1 << 40;
    qr_lisp_session *s = qr_lisp_session_new(&lim);
    /* a request made between runs stops the next run at its first check */
    qr_lisp_interrupt(s);
    expect(s, "(loop [i 0] (recur (inc i)))", "interrupted");
    expect(s, "(+ 1 1)", "2");
    const char *const progs[] = {
        "(loop [i 0] (recur (inc i)))",
        "(defn dag [n] (reduce (fn [a _] [a a]) [] (range n))) (= (dag 60) (dag 60))",
        /* measuring the value for the host, within a memory limit it never reaches */
        "(defn dag [n] (reduce (fn [a _] [a a]) [] (range n))) (dag 60)",
    };
    for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
        interrupter it = {s, 50};
        pthread_t t;
        CHECK(pthread_create(&t, NULL, interrupt_later, &it) == 0);
        expect(s, progs[i], "interrupted");
        pthread_join(t, NULL);
        expect(s, "(+ 1 1)", "2");
    }
    qr_lisp_session_free(s);
}

int main(void)
{
    test_session();
    test_tools_and_data();
    test_tool_time_counted();
    test_interrupt_from_tool();
    test_errors();
    test_limits();
    test_fault_injection();
    test_interrupt();
    CHECK_DONE();
}
