/*
 * lib_num.c: numbers. Arithmetic on 64-bit integers and doubles, comparison, predicates,
 * conversions, parse-long/parse-double and the Math/ functions models tend to write.
 *
 * Integer overflow is an arithmetic-error, never a silent wrap (Clojure throws too).
 * `/` always returns a double (there are no ratios); dividing two integers by an exact
 * zero is an error, as in Clojure, while a double operand follows IEEE (##Inf, ##NaN).
 */
#include "lisp_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void need_num(qr_lx *lx, const char *f, int i, qr_val v)
{
    if (v.t != QR_T_INT && v.t != QR_T_DOUBLE)
        lx_type_error(lx, f, i + 1, "a number", v);
}

static _Noreturn void overflow(qr_lx *lx, const char *f)
{
    lx_throw(lx, QR_LE_ARITH, "integer overflow in '%s' (integers are 64-bit; use doubles, "
                              "as in (double x), for larger values)",
             f);
}

static qr_val bi_num_add(qr_lx *lx, int argc, const qr_val *argv)
{
    int64_t acc = 0;
    int i = 0;
    for (; i < argc; i++) {
        need_num(lx, "+", i, argv[i]);
        if (argv[i].t != QR_T_INT)
            break;
        if (__builtin_add_overflow(acc, argv[i].i, &acc))
            overflow(lx, "+");
    }
    if (i == argc)
        return qr_int(acc);
    double d = (double)acc;
    for (; i < argc; i++) {
        need_num(lx, "+", i, argv[i]);
        d += qr_to_double(argv[i]);
    }
    return qr_double(d);
}

static qr_val bi_num_mul(qr_lx *lx, int argc, const qr_val *argv)
{
    int64_t acc = 1;
    int i = 0;
    for (; i < argc; i++) {
        need_num(lx, "*", i, argv[i]);
        if (argv[i].t != QR_T_INT)
            break;
        if (__builtin_mul_overflow(acc, argv[i].i, &acc))
            overflow(lx, "*");
    }
    if (i == argc)
        return qr_int(acc);
    double d = (double)acc;
    for (; i < argc; i++) {
        need_num(lx, "*", i, argv[i]);
        d *= qr_to_double(argv[i]);
    }
    return qr_double(d);
}

static qr_val bi_num_sub(qr_lx *lx, int argc, const qr_val *argv)
{
    need_num(lx, "-", 0, argv[0]);
    if (argc == 1) {
        if (argv[0].t == QR_T_DOUBLE)
            return qr_double(-argv[0].d);
        if (argv[0].i == INT64_MIN)
            overflow(lx, "-");
        return qr_int(-argv[0].i);
    }
    qr_val acc = argv[0];
    for (int i = 1; i < argc; i++) {
        need_num(lx, "-", i, argv[i]);
        if (acc.t == QR_T_INT && argv[i].t == QR_T_INT) {
            int64_t r;
            if (__builtin_sub_overflow(acc.i, argv[i].i, &r))
                overflow(lx, "-");
            acc = qr_int(r);
        } else {
            acc = qr_double(qr_to_double(acc) - qr_to_double(argv[i]));
        }
    }
    return acc;
}

static qr_val bi_num_div(qr_lx *lx, int argc, const qr_val *argv)
{
    need_num(lx, "/", 0, argv[0]);
    if (argc == 1) {
        if (argv[0].t == QR_T_INT && argv[0].i == 0)
            lx_throw(lx, QR_LE_ARITH, "divide by zero");
        return qr_double(1.0 / qr_to_double(argv[0]));
    }
    qr_val acc = argv[0];
    bool exact = acc.t == QR_T_INT; /* every operand so far an integer */
    for (int i = 1; i < argc; i++) {
        need_num(lx, "/", i, argv[i]);
        exact = exact && argv[i].t == QR_T_INT;
        if (exact && argv[i].i == 0)
            lx_throw(lx, QR_LE_ARITH, "divide by zero");
        acc = qr_double(qr_to_double(acc) / qr_to_double(argv[i]));
    }
    return acc;
}

typedef enum { DIV_QUOT, DIV_REM, DIV_MOD } divkind;

static qr_val intdiv(qr_lx *lx, const char *f, const qr_val *argv, divkind k)
{
    need_num(lx, f, 0, argv[0]);
    need_num(lx, f, 1, argv[1]);
    if (argv[0].t == QR_T_INT && argv[1].t == QR_T_INT) {
        int64_t a = argv[0].i, b = argv[1].i;
        if (b == 0)
            lx_throw(lx, QR_LE_ARITH, "divide by zero in '%s'", f);
        if (a == INT64_MIN && b == -1) {
            if (k == DIV_QUOT)
                overflow(lx, f);
            return qr_int(0);
        }
        int64_t q = a / b, r = a % b;
        if (k == DIV_QUOT)
            return qr_int(q);
        if (k == DIV_REM)
            return qr_int(r);
        if (r != 0 && ((r < 0) != (b < 0)))
            r += b;
        return qr_int(r);
    }
    double a = qr_to_double(argv[0]), b = qr_to_double(argv[1]);
    if (b == 0)
        lx_throw(lx, QR_LE_ARITH, "divide by zero in '%s'", f);
    double q = trunc(a / b);
    if (k == DIV_QUOT)
        return qr_double(q);
    double r = fmod(a, b);
    if (k == DIV_MOD && r != 0 && ((r < 0) != (b < 0)))
        r += b;
    return qr_double(r);
}

static qr_val bi_num_quot(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return intdiv(lx, "quot", argv, DIV_QUOT);
}

static qr_val bi_num_rem(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return intdiv(lx, "rem", argv, DIV_REM);
}

static qr_val bi_num_mod(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return intdiv(lx, "mod", argv, DIV_MOD);
}

static qr_val bi_num_inc(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    need_num(lx, "inc", 0, argv[0]);
    if (argv[0].t == QR_T_DOUBLE)
        return qr_double(argv[0].d + 1);
    if (argv[0].i == INT64_MAX)
        overflow(lx, "inc");
    return qr_int(argv[0].i + 1);
}

static qr_val bi_num_dec(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    need_num(lx, "dec", 0, argv[0]);
    if (argv[0].t == QR_T_DOUBLE)
        return qr_double(argv[0].d - 1);
    if (argv[0].i == INT64_MIN)
        overflow(lx, "dec");
    return qr_int(argv[0].i - 1);
}

static qr_val bi_num_abs(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    need_num(lx, "abs", 0, argv[0]);
    if (argv[0].t == QR_T_DOUBLE)
        return qr_double(fabs(argv[0].d));
    if (argv[0].i == INT64_MIN)
        overflow(lx, "abs");
    return qr_int(argv[0].i < 0 ? -argv[0].i : argv[0].i);
}

static int numcmp(qr_val a, qr_val b)
{
    int c;
    qr_compare(a, b, &c);
    return c;
}

static qr_val extreme(qr_lx *lx, const char *f, int argc, const qr_val *argv, int sign)
{
    qr_val best = argv[0];
    need_num(lx, f, 0, best);
    for (int i = 1; i < argc; i++) {
        need_num(lx, f, i, argv[i]);
        if (argv[i].t == QR_T_DOUBLE && isnan(argv[i].d))
            return argv[i];
        if (numcmp(argv[i], best) * sign > 0)
            best = argv[i];
    }
    return best;
}

static qr_val bi_num_max(qr_lx *lx, int argc, const qr_val *argv)
{
    return extreme(lx, "max", argc, argv, 1);
}

static qr_val bi_num_min(qr_lx *lx, int argc, const qr_val *argv)
{
    return extreme(lx, "min", argc, argv, -1);
}

typedef enum { CMP_LT, CMP_GT, CMP_LE, CMP_GE, CMP_EQ } cmpkind;

static qr_val chain(qr_lx *lx, const char *f, int argc, const qr_val *argv, cmpkind k)
{
    for (int i = 0; i < argc; i++)
        need_num(lx, f, i, argv[i]);
    for (int i = 0; i + 1 < argc; i++) {
        qr_val a = argv[i], b = argv[i + 1];
        bool ok;
        if (a.t == QR_T_INT && b.t == QR_T_INT) {
            int64_t x = a.i, y = b.i;
            ok = k == CMP_LT ? x < y : k == CMP_GT ? x > y : k == CMP_LE ? x <= y
                 : k == CMP_GE ? x >= y : x == y;
        } else {
            double x = qr_to_double(a), y = qr_to_double(b);
            ok = k == CMP_LT ? x < y : k == CMP_GT ? x > y : k == CMP_LE ? x <= y
                 : k == CMP_GE ? x >= y : x == y;
        }
        if (!ok)
            return qr_bool(false);
    }
    return qr_bool(true);
}

static qr_val bi_num_lt(qr_lx *lx, int argc, const qr_val *argv)
{
    return chain(lx, "<", argc, argv, CMP_LT);
}
static qr_val bi_num_gt(qr_lx *lx, int argc, const qr_val *argv)
{
    return chain(lx, ">", argc, argv, CMP_GT);
}
static qr_val bi_num_le(qr_lx *lx, int argc, const qr_val *argv)
{
    return chain(lx, "<=", argc, argv, CMP_LE);
}
static qr_val bi_num_ge(qr_lx *lx, int argc, const qr_val *argv)
{
    return chain(lx, ">=", argc, argv, CMP_GE);
}
static qr_val bi_num_eq(qr_lx *lx, int argc, const qr_val *argv)
{
    return chain(lx, "==", argc, argv, CMP_EQ);
}

#define NUMPRED(cname, lname, itest, dtest)                                                  \
    static qr_val cname(qr_lx *lx, int argc, const qr_val *argv)                             \
    {                                                                                        \
        (void)argc;                                                                          \
        need_num(lx, lname, 0, argv[0]);                                                     \
        if (argv[0].t == QR_T_INT) {                                                         \
            int64_t x = argv[0].i;                                                           \
            return qr_bool(itest);                                                           \
        }                                                                                    \
        double x = argv[0].d;                                                                \
        return qr_bool(dtest);                                                               \
    }

NUMPRED(bi_num_zero_p, "zero?", x == 0, x == 0)
NUMPRED(bi_num_pos_p, "pos?", x > 0, x > 0)
NUMPRED(bi_num_neg_p, "neg?", x < 0, x < 0)
NUMPRED(bi_num_nan_p, "NaN?", false && x, isnan(x))
NUMPRED(bi_num_inf_p, "infinite?", false && x, isinf(x))

/* even? and odd? take a whole double as its integer, and are false for any other double
 * (the PTC-Lisp specification: (even? 4.0) is true, (even? 4.5) false; Clojure refuses
 * doubles, docs/decisions.md "The specification's examples, second pass"). */
static qr_val parity(qr_lx *lx, const char *f, qr_val x, int want)
{
    if (x.t == QR_T_DOUBLE) {
        if (!isfinite(x.d) || x.d != floor(x.d))
            return qr_bool(false);
        return qr_bool((fmod(fabs(x.d), 2.0) == 1.0) == (want == 1));
    }
    if (x.t != QR_T_INT)
        lx_type_error(lx, f, 1, "an integer", x);
    return qr_bool((x.i & 1) == want);
}

static qr_val bi_num_even_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return parity(lx, "even?", argv[0], 0);
}

static qr_val bi_num_odd_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return parity(lx, "odd?", argv[0], 1);
}

static qr_val to_int(qr_lx *lx, const char *f, double d)
{
    if (isnan(d) || d >= 9223372036854775808.0 || d < -9223372036854775808.0)
        lx_throw(lx, QR_LE_ARITH, "'%s': value out of the 64-bit integer range", f);
    return qr_int((int64_t)d);
}

static qr_val bi_num_int(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val x = argv[0];
    if (x.t == QR_T_INT)
        return x;
    /* NaN is 0, as the JVM's cast gives (Clojure's (int ##NaN)) */
    if (x.t == QR_T_DOUBLE)
        return isnan(x.d) ? qr_int(0) : to_int(lx, "int", x.d);
    /* a string is an error, never its code point: characters read as one-character
     * strings here, so (int "5") would silently be 53; (Integer/parseInt s) parses */
    lx_type_error(lx, "int", 1, "a number (parse text with Integer/parseInt or parse-long)", x);
}

static qr_val bi_num_double(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    need_num(lx, "double", 0, argv[0]);
    return qr_double(qr_to_double(argv[0]));
}

static qr_val bi_num_parse_long(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    (void)lx;
    if (argv[0].t != QR_T_STR) /* the specification: nil for what is no string */
        return qr_nil();
    const qr_str *s = argv[0].s;
    const char *p = s->data;
    size_t n = s->len, i = 0;
    if (i < n && (p[i] == '+' || p[i] == '-'))
        i++;
    if (i == n)
        return qr_nil();
    for (size_t j = i; j < n; j++)
        if (p[j] < '0' || p[j] > '9')
            return qr_nil();
    errno = 0;
    long long v = strtoll(p, NULL, 10);
    if (errno == ERANGE)
        return qr_nil();
    return qr_int(v);
}

static qr_val bi_num_parse_double(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    (void)lx;
    if (argv[0].t != QR_T_STR) /* the specification: nil for what is no string */
        return qr_nil();
    const qr_str *s = argv[0].s;
    const char *p = s->data;
    size_t n = s->len;
    /* digits, sign, '.', exponent, or the words Infinity / NaN: no hex, no spaces inside */
    if (n == 0 || n > 400)
        return qr_nil();
    size_t a = 0, b = n;
    while (a < b && (p[a] == ' ' || p[a] == '\t' || p[a] == '\n'))
        a++;
    while (b > a && (p[b - 1] == ' ' || p[b - 1] == '\t' || p[b - 1] == '\n'))
        b--;
    char buf[410];
    memcpy(buf, p + a, b - a);
    buf[b - a] = 0;
    const char *body = buf[0] == '+' || buf[0] == '-' ? buf + 1 : buf;
    if (!strcmp(body, "Infinity"))
        return qr_double(buf[0] == '-' ? -INFINITY : INFINITY);
    if (!strcmp(body, "NaN"))
        return qr_double(NAN);
    for (const char *q = body; *q; q++)
        if (!strchr("0123456789.eE+-", *q))
            return qr_nil();
    if (!*body)
        return qr_nil();
    char *end;
    double d = strtod(buf, &end);
    if (*end || end == buf)
        return qr_nil();
    return qr_double(d);
}

static double math_arg(qr_lx *lx, const char *f, qr_val v)
{
    return lx_arg_num(lx, f, 1, v);
}

#define MATH1(cname, lname, expr)                                                            \
    static qr_val cname(qr_lx *lx, int argc, const qr_val *argv)                             \
    {                                                                                        \
        (void)argc;                                                                          \
        double x = math_arg(lx, lname, argv[0]);                                             \
        return qr_double(expr);                                                              \
    }

MATH1(bi_num_sqrt, "Math/sqrt", sqrt(x))
MATH1(bi_num_floor, "Math/floor", floor(x))
MATH1(bi_num_ceil, "Math/ceil", ceil(x))
MATH1(bi_num_log, "Math/log", log(x))
MATH1(bi_num_log10, "Math/log10", log10(x))
MATH1(bi_num_exp, "Math/exp", exp(x))

static qr_val bi_num_pow(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return qr_double(pow(math_arg(lx, "Math/pow", argv[0]), lx_arg_num(lx, "Math/pow", 2, argv[1])));
}

static qr_val bi_num_round(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val x = argv[0];
    if (x.t == QR_T_INT)
        return x;
    double d = math_arg(lx, "Math/round", x);
    return to_int(lx, "Math/round", floor(d + 0.5));
}

const qr_builtin qr_lib_num[] = {
    QR_BUILTIN("+", bi_num_add, 0, -1, "[& xs]", "sum; integer overflow is an error"),
    QR_BUILTIN("-", bi_num_sub, 1, -1, "[x & ys]", "difference, or negation of one argument"),
    QR_BUILTIN("*", bi_num_mul, 0, -1, "[& xs]", "product; integer overflow is an error"),
    QR_BUILTIN("/", bi_num_div, 1, -1, "[x & ys]", "quotient, always a double; integer divide by zero is an error"),
    QR_BUILTIN("quot", bi_num_quot, 2, 2, "[n d]", "quotient rounded toward zero"),
    QR_BUILTIN("rem", bi_num_rem, 2, 2, "[n d]", "remainder with the sign of n"),
    QR_BUILTIN("mod", bi_num_mod, 2, 2, "[n d]", "modulus with the sign of d"),
    QR_BUILTIN("inc", bi_num_inc, 1, 1, "[x]", "x + 1"),
    QR_BUILTIN("dec", bi_num_dec, 1, 1, "[x]", "x - 1"),
    QR_BUILTIN("abs", bi_num_abs, 1, 1, "[x]", "absolute value"),
    QR_BUILTIN("max", bi_num_max, 1, -1, "[x & ys]", "largest number"),
    QR_BUILTIN("min", bi_num_min, 1, -1, "[x & ys]", "smallest number"),
    QR_BUILTIN("<", bi_num_lt, 1, -1, "[x & ys]", "true when numbers increase"),
    QR_BUILTIN(">", bi_num_gt, 1, -1, "[x & ys]", "true when numbers decrease"),
    QR_BUILTIN("<=", bi_num_le, 1, -1, "[x & ys]", "true when numbers do not decrease"),
    QR_BUILTIN(">=", bi_num_ge, 1, -1, "[x & ys]", "true when numbers do not increase"),
    QR_BUILTIN("==", bi_num_eq, 1, -1, "[x & ys]", "numeric equality: (== 1 1.0) is true"),
    QR_BUILTIN("zero?", bi_num_zero_p, 1, 1, "[x]", "true when x is zero"),
    QR_BUILTIN("pos?", bi_num_pos_p, 1, 1, "[x]", "true when x > 0"),
    QR_BUILTIN("neg?", bi_num_neg_p, 1, 1, "[x]", "true when x < 0"),
    QR_BUILTIN("NaN?", bi_num_nan_p, 1, 1, "[x]", "true when x is ##NaN"),
    QR_BUILTIN("infinite?", bi_num_inf_p, 1, 1, "[x]", "true when x is ##Inf or ##-Inf"),
    QR_BUILTIN("even?", bi_num_even_p, 1, 1, "[n]", "true for even integers"),
    QR_BUILTIN("odd?", bi_num_odd_p, 1, 1, "[n]", "true for odd integers"),
    QR_BUILTIN("int", bi_num_int, 1, 1, "[x]", "x truncated to an integer"),
    QR_BUILTIN("long", bi_num_int, 1, 1, "[x]", "x truncated to an integer"),
    QR_BUILTIN("double", bi_num_double, 1, 1, "[x]", "x as a double"),
    QR_BUILTIN("float", bi_num_double, 1, 1, "[x]", "x as a double"),
    QR_BUILTIN("parse-long", bi_num_parse_long, 1, 1, "[s]", "the integer in s, or nil"),
    QR_BUILTIN("parse-double", bi_num_parse_double, 1, 1, "[s]", "the double in s, or nil"),
    QR_BUILTIN("Math/sqrt", bi_num_sqrt, 1, 1, "[x]", "square root"),
    QR_BUILTIN("Math/floor", bi_num_floor, 1, 1, "[x]", "largest integral double <= x"),
    QR_BUILTIN("Math/ceil", bi_num_ceil, 1, 1, "[x]", "smallest integral double >= x"),
    QR_BUILTIN("Math/round", bi_num_round, 1, 1, "[x]", "nearest integer (halves round up)"),
    QR_BUILTIN("Math/log", bi_num_log, 1, 1, "[x]", "natural logarithm"),
    QR_BUILTIN("Math/log10", bi_num_log10, 1, 1, "[x]", "base-10 logarithm"),
    QR_BUILTIN("Math/exp", bi_num_exp, 1, 1, "[x]", "e to the power x"),
    QR_BUILTIN("Math/pow", bi_num_pow, 2, 2, "[x y]", "x to the power y"),
    QR_BUILTIN("Math/abs", bi_num_abs, 1, 1, "[x]", "absolute value"),
    {.hdr = {.name = NULL}},
};
