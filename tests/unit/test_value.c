/*
 * test_value.c: unit tests for the value layer: collections (sharing, order, index
 * growth), equality/hash/compare semantics, the printer, and the EDN and JSON readers.
 */
#include "check.h"
#include "quarry/value.h"

#include <math.h>
#include <setjmp.h>
#include <stdlib.h>

static qr_arena A;

static char *pr(qr_val v)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_print(&b, v, QR_PRINT_READABLY);
    return qr_buf_detach(&b, NULL);
}

static qr_val edn(const char *s)
{
    qr_val forms;
    qr_read_error e;
    int rc = qr_read_all(&A, s, strlen(s), QR_READ_LISP, &forms, &e);
    if (rc != QR_OK) {
        fprintf(stderr, "read error: %s\n", e.msg);
        return qr_nil();
    }
    return qr_vec_at(forms, 0);
}

#define CHECK_PR(v, want)                                                                    \
    do {                                                                                     \
        char *s_ = pr(v);                                                                    \
        CHECK_STR(s_, want);                                                                 \
        free(s_);                                                                            \
    } while (0)

static void test_vectors(void)
{
    qr_val v = qr_vec_empty(QR_T_VEC);
    for (int i = 0; i < 100; i++)
        v = qr_vec_conj(&A, v, qr_int(i));
    CHECK(qr_vec_len(v) == 100);
    CHECK(qr_vec_at(v, 99).i == 99);
    /* an older value never sees later appends; a branch copies */
    qr_val a = qr_vec_from(&A, QR_T_VEC, (qr_val[]){qr_int(1), qr_int(2)}, 2);
    qr_val b = qr_vec_conj(&A, a, qr_int(3));
    qr_val c = qr_vec_conj(&A, a, qr_int(4));
    CHECK_PR(a, "[1 2]");
    CHECK_PR(b, "[1 2 3]");
    CHECK_PR(c, "[1 2 4]");
    qr_val s = qr_vec_slice(&A, b, 1, 3);
    CHECK_PR(s, "[2 3]");
    CHECK_PR(qr_vec_assoc(&A, b, 0, qr_kw_cstr(&A, "x")), "[:x 2 3]");
    CHECK_PR(b, "[1 2 3]");
    qr_val l = qr_vec_from(&A, QR_T_LIST, qr_vec_items(b), 3);
    CHECK_PR(l, "(1 2 3)");
    CHECK(qr_equal(l, b));
    CHECK(qr_hash(l) == qr_hash(b));
}

static void test_maps(void)
{
    qr_val m = qr_map_empty();
    char key[16];
    for (int i = 0; i < 50; i++) {
        snprintf(key, sizeof key, "k%d", i);
        m = qr_map_assoc(&A, m, qr_kw_cstr(&A, key), qr_int(i));
    }
    CHECK(qr_map_len(m) == 50);
    qr_val out;
    CHECK(qr_map_get(m, qr_kw_cstr(&A, "k37"), &out) && out.i == 37);
    CHECK(!qr_map_get(m, qr_kw_cstr(&A, "nope"), &out));
    /* string/keyword fallback */
    CHECK(qr_map_lookup(m, qr_str_cstr(&A, "k5"), &out) && out.i == 5);
    qr_val sm = edn("{\"name\" 1}");
    CHECK(qr_map_lookup(sm, qr_kw_cstr(&A, "name"), &out) && out.i == 1);
    /* insertion order, replace keeps place, dissoc */
    qr_val small = edn("{:b 1 :a 2}");
    CHECK_PR(qr_map_assoc(&A, small, qr_kw_cstr(&A, "b"), qr_int(9)), "{:b 9, :a 2}");
    CHECK_PR(qr_map_dissoc(&A, small, qr_kw_cstr(&A, "b")), "{:a 2}");
    CHECK_PR(small, "{:b 1, :a 2}");
    /* the index of a shared buffer does not leak later keys into older views */
    qr_val before = m;
    qr_val after = qr_map_assoc(&A, m, qr_kw_cstr(&A, "late"), qr_int(1));
    CHECK(!qr_map_get(before, qr_kw_cstr(&A, "late"), &out));
    CHECK(qr_map_get(after, qr_kw_cstr(&A, "late"), &out));
    /* content equality, whatever the order */
    CHECK(qr_equal(edn("{:a 1 :b 2}"), edn("{:b 2 :a 1}")));
    CHECK(qr_hash(edn("{:a 1 :b 2}")) == qr_hash(edn("{:b 2 :a 1}")));
    CHECK(qr_equal(edn("#{1 2 3}"), edn("#{3 2 1}")));
    CHECK(!qr_equal(edn("{:a 1}"), edn("{:a 2}")));
}

static void test_semantics(void)
{
    CHECK(!qr_equal(qr_int(1), qr_double(1.0)));
    CHECK(qr_num_equal(qr_int(1), qr_double(1.0)));
    CHECK(!qr_equal(qr_double(NAN), qr_double(NAN)));
    int c;
    CHECK(qr_compare(qr_nil(), qr_int(1), &c) && c < 0);
    CHECK(qr_compare(qr_int(2), qr_double(1.5), &c) && c > 0);
    CHECK(qr_compare(edn("[1 2]"), edn("[1 2 0]"), &c) && c < 0);
    CHECK(qr_compare(edn("[2]"), edn("[1 5]"), &c) && c < 0); /* length first */
    CHECK(qr_compare(edn(":a"), edn(":b"), &c) && c < 0);
    CHECK(!qr_compare(edn(":a"), qr_int(1), &c));
    CHECK(qr_compare(qr_str_cstr(&A, "ab"), qr_str_cstr(&A, "b"), &c) && c < 0);
}

static void test_printer(void)
{
    CHECK_PR(qr_double(1.0), "1.0");
    CHECK_PR(qr_double(0.1), "0.1");
    CHECK_PR(qr_double(1e7), "1.0E7");
    CHECK_PR(qr_double(1234567.0), "1234567.0");
    CHECK_PR(qr_double(1.0e-4), "1.0E-4");
    CHECK_PR(qr_double(0.001), "0.001");
    CHECK_PR(qr_double(-0.5), "-0.5");
    CHECK_PR(qr_double(1.0 / 3), "0.3333333333333333");
    CHECK_PR(qr_double(INFINITY), "##Inf");
    CHECK_PR(qr_double(NAN), "##NaN");
    CHECK_PR(qr_str_cstr(&A, "a\"b\\\n"), "\"a\\\"b\\\\\\n\"");
    CHECK_PR(edn("{:a [1 2.5 \"x\" nil true] :b #{:k}}"), "{:a [1 2.5 \"x\" nil true], :b #{:k}}");
    qr_buf b;
    qr_buf_init(&b);
    qr_print_json(&b, edn("{:a [1 2.5 \"x\" nil true] \"b c\" #{:k} 3 ##NaN}"), false);
    CHECK_STR(b.p, "{\"a\":[1,2.5,\"x\",null,true],\"b c\":[\"k\"],\"3\":null}");
    qr_buf_release(&b);
}

static void test_readers(void)
{
    qr_val v;
    qr_read_error e;
    const char *json = "{\"a\": [1, -2, 3.5e2, \"\\u00e9\\ud83d\\ude00\"], \"not a kw\": null, "
                       "\"big\": 123456789012345678901}";
    CHECK(qr_json_read(&A, json, strlen(json), &v, &e) == QR_OK);
    CHECK_PR(v, "{:a [1 -2 350.0 \"\xc3\xa9\xf0\x9f\x98\x80\"], \"not a kw\" nil, :big 1.2345678901234568E20}");
    CHECK(qr_json_read(&A, "[1,]", 4, &v, &e) == QR_EINVAL);
    CHECK(e.line == 1 && e.col == 4);
    CHECK(qr_json_read(&A, "{\"a\" 1}", 7, &v, &e) == QR_EINVAL);
    CHECK(qr_json_read(&A, "[1] x", 5, &v, &e) == QR_EINVAL);
    /* nesting is bounded */
    char deep[5000];
    memset(deep, '[', sizeof deep);
    CHECK(qr_json_read(&A, deep, sizeof deep, &v, &e) == QR_EINVAL);
    qr_val forms;
    CHECK(qr_read_all(&A, deep, sizeof deep, QR_READ_EDN, &forms, &e) == QR_EINVAL);
    /* EDN reader */
    CHECK_PR(edn("(a :b/c \"s\" \\a \\newline ##Inf 0x10 -7 1.5 #{1} [] {})"),
             "(a :b/c \"s\" \"a\" \"\\n\" ##Inf 16 -7 1.5 #{1} [] {})");
    CHECK(qr_read_all(&A, "(1 2", 4, QR_READ_EDN, &forms, &e) == QR_EINVAL);
    CHECK(strstr(e.msg, "unterminated list") != NULL);
    CHECK(qr_read_all(&A, "{:a}", 4, QR_READ_EDN, &forms, &e) == QR_EINVAL);
    CHECK(qr_read_all(&A, "{:a 1 :a 2}", 11, QR_READ_EDN, &forms, &e) == QR_EINVAL);
    CHECK(qr_read_all(&A, "99999999999999999999", 20, QR_READ_EDN, &forms, &e) == QR_EINVAL);
    CHECK(qr_read_all(&A, "1 #_ 2 3", 8, QR_READ_EDN, &forms, &e) == QR_OK);
    CHECK_PR(forms, "[1 3]");
    CHECK_PR(edn("#(+ % %2)"), "(fn [%1 %2] (+ %1 %2))");
    CHECK_PR(edn("'x"), "(quote x)");
    CHECK(qr_read_all(&A, "#\"(\"", 4, QR_READ_LISP, &forms, &e) == QR_EINVAL);
}

/* doubles print with the fewest digits that read back as the same double: checked
 * against a linear search over every precision, on random bit patterns */
static void test_double_shortest(void)
{
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double d;
        memcpy(&d, &x, sizeof d);
        if (!isfinite(d) || d == 0)
            continue;
        qr_buf b;
        qr_buf_init(&b);
        qr_print_double(&b, d);
        double back = strtod(b.p, NULL);
        CHECK(back == d);
        char tmp[40];
        int prec = 1;
        for (; prec < 17; prec++) {
            snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
            if (strtod(tmp, NULL) == d)
                break;
        }
        size_t digits = 0;
        for (size_t k = 0; k < b.len && b.p[k] != 'E'; k++)
            digits += b.p[k] >= '1' && b.p[k] <= '9' ? 1 : 0;
        CHECK(digits <= (size_t)prec);
        qr_buf_release(&b);
    }
}

/* error messages stay valid UTF-8 whatever byte the input held */
static void test_error_bytes(void)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_val v;
    qr_read_error e;
    CHECK(qr_json_read(&a, "{\"a\": \xde}", 8, &v, &e) == QR_EINVAL);
    CHECK(qr_utf8_valid(e.msg, strlen(e.msg)) && strstr(e.msg, "'\\xde'") != NULL);
    CHECK(qr_json_read(&a, "\"\\\xc3\"", 5, &v, &e) == QR_EINVAL);
    CHECK(qr_utf8_valid(e.msg, strlen(e.msg)) && strstr(e.msg, "\\xc3") != NULL);
    CHECK(qr_read_all(&a, "(a \"\\\xc3\")", 8, QR_READ_EDN, &v, &e) == QR_EINVAL);
    CHECK(qr_utf8_valid(e.msg, strlen(e.msg)));
    CHECK(qr_read_all(&a, "#\x01", 2, QR_READ_LISP, &v, &e) == QR_EINVAL);
    CHECK(qr_utf8_valid(e.msg, strlen(e.msg)) && strstr(e.msg, "\\x01") != NULL);
    /* tokens quoted whole: character literals, numbers, symbolic values (found by
     * review), and a cut that would fall inside a character */
    const char *toks[] = {"\\ab\xff", "12\xff", "##In\xff",
                          "\\abbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\xc3\xa9"};
    for (size_t i = 0; i < sizeof toks / sizeof toks[0]; i++) {
        CHECK(qr_read_all(&a, toks[i], strlen(toks[i]), QR_READ_LISP, &v, &e) == QR_EINVAL);
        CHECK(qr_utf8_valid(e.msg, strlen(e.msg)));
    }
    char m[16] = "ok \x01 \xc3\xa9";
    qr_utf8_clean(m, sizeof m);
    CHECK_STR(m, "ok \\x01 \xc3\xa9");
    char buf[8];
    CHECK_STR(qr_char_shown('a', buf), "a");
    CHECK_STR(qr_char_shown(0x7f, buf), "\\x7f");
    qr_arena_release(&a);
}

static void test_json_dedup(void)
{
    /* a large document shares one string per distinct short text; values stay equal */
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_putc(&b, '[');
    for (int i = 0; i < 3000; i++)
        qr_buf_printf(&b, "%s{\"author\":\"ann\",\"msg\":\"%0100d\"}", i ? "," : "", i);
    qr_buf_putc(&b, ']');
    CHECK(b.len > 65536);
    qr_arena text;
    qr_arena_init(&text, 0);
    qr_val v;
    qr_read_error e;
    CHECK(qr_json_read_split(&A, &text, b.p, b.len, &v, &e) == QR_OK);
    CHECK(qr_vec_len(v) == 3000);
    qr_val a0 = qr_nil(), a1 = qr_nil(), m0 = qr_nil(), m1 = qr_nil();
    qr_val kw = qr_kw_cstr(&A, "author"), msg = qr_kw_cstr(&A, "msg");
    CHECK(qr_map_get(qr_vec_at(v, 0), kw, &a0) && qr_map_get(qr_vec_at(v, 2999), kw, &a1));
    CHECK(a0.s == a1.s);
    CHECK(qr_equal(a0, qr_str_cstr(&A, "ann")));
    CHECK(qr_hash(a0) == qr_hash(qr_str_cstr(&A, "ann")));
    CHECK(qr_map_get(qr_vec_at(v, 0), msg, &m0) && qr_map_get(qr_vec_at(v, 1), msg, &m1));
    CHECK(!qr_equal(m0, m1));
    qr_buf_release(&b);
    qr_arena_release(&text);
}

/* ---- bounded work on values that share their parts ---- */

/* A vector holding the same vector twice, n levels deep: 2^n leaves. */
static qr_val dag(int n)
{
    qr_val v = qr_vec_empty(QR_T_VEC);
    for (int i = 0; i < n; i++) {
        qr_val two[2] = {v, v};
        v = qr_vec_from(&A, QR_T_VEC, two, 2);
    }
    return v;
}

typedef struct test_meter {
    qr_meter m;
    int checks, stop_after;
    jmp_buf jb;
} test_meter;

static bool test_check(qr_meter *m)
{
    test_meter *t = (test_meter *)m;
    m->left = 1000;
    if (++t->checks < t->stop_after)
        return false;
    if (m->soft)
        return true;
    longjmp(t->jb, 1);
}

static void test_meter_bounds(void)
{
    /* printing stops at its byte limit whatever the value shares */
    qr_buf b;
    qr_buf_init(&b);
    CHECK(qr_print_max(&b, dag(60), QR_PRINT_READABLY, 25) == QR_PRINT_CUT);
    CHECK_STR(b.p, "[[[[[[[[[[[[[[[[[[[[[[[[[");
    qr_buf_reset(&b);
    CHECK(qr_print_max(&b, dag(3), QR_PRINT_READABLY, 100) == QR_PRINT_DONE);
    CHECK_STR(b.p, "[[[[] []] [[] []]] [[[] []] [[] []]]]");
    qr_buf_reset(&b);
    /* measuring only: nothing appended */
    CHECK(qr_print_max(NULL, dag(10), QR_PRINT_READABLY, 5117) == QR_PRINT_DONE);
    CHECK(qr_print_max(NULL, dag(10), QR_PRINT_READABLY, 5116) == QR_PRINT_CUT);
    CHECK(qr_print_json_max(NULL, dag(60), false, 1 << 20) == QR_PRINT_CUT);
    /* a cut never splits a character, and a long string is not copied past the cut */
    qr_val s = qr_str_cstr(&A, "\xc3\xa9\xc3\xa9\xc3\xa9");
    CHECK(qr_print_max(&b, s, QR_PRINT_DISPLAY, 3) == QR_PRINT_CUT);
    CHECK_STR(b.p, "\xc3\xa9");
    qr_buf_reset(&b);
    qr_print_short(&b, dag(60), 12);
    CHECK_STR(b.p, "[[[[[[[[[...");
    qr_buf_reset(&b);

    /* equality, hashing and ordering tick the meter, which may jump out of them */
    test_meter t = {.m = {.left = 1000, .check = test_check}, .stop_after = 5};
    qr_meter *prev = qr_meter_install(&t.m);
    CHECK(prev == NULL);
    qr_val x = dag(60), y = dag(60);
    volatile int stage = 0;
    if (setjmp(t.jb) == 0) {
        (void)qr_equal(x, y);
        stage = 1;
    }
    CHECK(stage == 0 && t.checks == 5);
    t.checks = 0;
    if (setjmp(t.jb) == 0) {
        (void)qr_hash(x);
        stage = 1;
    }
    CHECK(stage == 0 && t.checks == 5);
    t.checks = 0;
    if (setjmp(t.jb) == 0) {
        int c;
        (void)qr_compare(x, y, &c);
        stage = 1;
    }
    CHECK(stage == 0 && t.checks == 5);
    /* a printer makes the meter soft: told to stop, it returns instead of jumping */
    t.checks = 0;
    CHECK(qr_print_max(&b, x, QR_PRINT_READABLY, SIZE_MAX) == QR_PRINT_STOPPED);
    CHECK(t.checks == 5 && t.m.soft == 0 && b.len < 50000);
    qr_buf_reset(&b);
    /* small shared values compare in full */
    t.checks = 0;
    t.stop_after = 1 << 30;
    CHECK(qr_equal(dag(12), dag(12)));
    CHECK(!qr_equal(dag(12), dag(11)));
    CHECK(qr_hash(dag(12)) == qr_hash(dag(12)));
    CHECK(t.checks > 0);
    qr_meter_install(NULL);
    qr_buf_release(&b);

    /* the readers count prefix forms against the depth limit */
    const char *deep[] = {"'", "#_", "#'", "#x "};
    for (size_t i = 0; i < sizeof deep / sizeof deep[0]; i++) {
        qr_buf src;
        qr_buf_init(&src);
        for (int k = 0; k < 100000; k++)
            qr_buf_puts(&src, deep[i]);
        qr_buf_puts(&src, "a");
        qr_val out;
        qr_read_error err;
        CHECK(qr_read_all(&A, src.p, src.len, QR_READ_LISP, &out, &err) == QR_EINVAL);
        CHECK(strstr(err.msg, "nested deeper than 1000 levels") != NULL);
        qr_buf_release(&src);
    }
}

int main(void)
{
    test_error_bytes();
    test_double_shortest();
    qr_arena_init(&A, 0);
    test_vectors();
    test_maps();
    test_semantics();
    test_printer();
    test_readers();
    test_json_dedup();
    test_meter_bounds();
    qr_arena_release(&A);
    CHECK_DONE();
}
