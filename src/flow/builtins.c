/*
 * builtins.c: the functions of flow expressions, as one table of records (name, arity
 * range, function, the Lisp builtin it calls, usage, one-line doc). The checker reads the
 * names and arities, the runtime the functions, the language server its completion and
 * docs/flow.md's list is held to it by a unit test (tests/unit/test_flow_builtins.c).
 *
 * Each function calls the sandbox's builtin (qr_lisp_call, through flow_lisp_call) on the
 * values the flow holds, so a flow gets the Lisp's semantics, error messages and limits
 * (time, steps and memory, counted against the run's budget). What a flow function adds
 * around the call is its argument order (join's list first), its defaults (join's ", ",
 * split's newline), and the few places where what a flow's user expects differs from
 * Clojure (docs/decisions.md): keys are strings, not keywords; flatten takes one level;
 * slice counts from the end and clamps like Python; str prints lists and objects as JSON,
 * as prompts insert them. json and parse_json are the value layer's JSON printer and
 * reader: the Lisp has no JSON functions.
 *
 * Rejected: compiling whole flow expressions to PTC-Lisp source (the flow's own operators
 * - `~`, `contains` on objects, `+` on lists and strings - have no Lisp spelling, and
 * every value would be printed and read back at each expression).
 */
#include "run_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int lisp(struct qr_flow_call *c, const char *name, int argc, const qr_val *argv, qr_val *out)
{
    return flow_lisp_call(c->fr, c->line, c->b->name, name, argc, argv, out);
}

static int fail(struct qr_flow_call *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct qr_flow_call *c, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return flow_fail(c->fr, c->line, "%s() %s", c->b->name, msg);
}

static int bi_str(struct qr_flow_call *c, int argc, const qr_val *argv, qr_val *out)
{
    qr_val x = argv[0];
    (void)argc;
    if (x.t == QR_T_NIL || x.t == QR_T_BOOL || x.t == QR_T_INT || x.t == QR_T_STR)
        return lisp(c, "str", 1, argv, out);
    /* doubles, keywords, lists and objects: as prompts insert them (2.0, a, JSON) */
    qr_buf b;
    qr_buf_init(&b);
    int rc = flow_print(c->fr, c->line, &b, x, false);
    if (!rc)
        *out = qr_str_new(c->fr->a, b.p ? b.p : "", b.len);
    qr_buf_release(&b);
    return rc;
}

/* int("42"), float("1.5"): text is read as a number (parse-double), then converted. */
static int number_of(struct qr_flow_call *c, const qr_val *argv, const char *conv, qr_val *out)
{
    qr_val x = argv[0];
    if (x.t == QR_T_STR) {
        qr_val d;
        int rc = lisp(c, "parse-double", 1, &x, &d);
        if (rc)
            return rc;
        if (qr_is_nil(d)) {
            char shown[80];
            size_t n = x.s->len < 60 ? x.s->len : 60;
            snprintf(shown, sizeof shown, "%.*s%s", (int)n, x.s->data, x.s->len > 60 ? "..." : "");
            return fail(c, "cannot read a number from \"%s\"", shown);
        }
        x = d;
    }
    return lisp(c, conv, 1, &x, out);
}

static int bi_int(struct qr_flow_call *c, int argc, const qr_val *argv, qr_val *out)
{
    (void)argc;
    return number_of(c, argv, "int", out);
}

static int bi_float(struct qr_flow_call *c, int argc, const qr_val *argv, qr_val *out)
{
    (void)argc;
    return number_of(c, argv, "double", out);
}

static int bi_join(struct qr_flow_call *c, int argc, const qr_val *argv, qr_val *out)
{
    if (!flow_is_list(argv[0]) && !qr_is_nil(argv[0]))
        return fail(c, "needs a list as its first argument, got %s", flow_type_of(argv[0]));
    qr_val args[2] = {argc > 1 ? argv[1] : qr_str_new(c->fr->a, ", ", 2), argv[0]};
    return lisp(c, "clojure.string/join", 2, args, out);
}

static int bi_split(struct qr_flow_call *c, int argc, const qr_val *argv, qr_val *out)
{
    qr_val args[2] = {argv[0], argc > 1 ? argv[1] : qr_str_new(c->fr->a, "\n", 1)};
    if (args[1].t == QR_T_STR && args[1].s->len == 0)
        return fail(c, "needs a non-empty separator");
    return lisp(c, "clojure.string/split", 2, args, out);
}

/* keys and values of an object: a list ([] for an empty object); keys as strings */
static int entries(struct qr_flow_call *c, const qr_val *argv, bool keys, qr_val *out)
{
    if (argv[0].t != QR_T_MAP)
        return fail(c, "needs an object, got %s", flow_type_of(argv[0]));
    qr_val v;
    int rc = lisp(c, keys ? "keys" : "vals", 1, argv, &v);
    if (rc)
        return rc;
    qr_arena *a = c->fr->a;
    size_t n = qr_is_nil(v) ? 0 : qr_vec_len(v);
    qr_vecb b;
    qr_vecb_init(&b, a, n);
    for (size_t i = 0; i < n; i++) {
        qr_val k = qr_vec_at(v, i);
        if (keys && (k.t == QR_T_KW || k.t == QR_T_SYM)) {
            size_t kn;
            const char *ks = qr_sym_name(k.sym, &kn);
            k = qr_str_new(a, ks, kn);
        }
        qr_vecb_push(&b, k);
    }
    *out = qr_vecb_finish(&b, QR_T_VEC);
    return QR_OK;
}

static int bi_keys(struct qr_flow_call *c, int argc, const qr_val *argv, qr_val *out)
{
    (void)argc;
    return entries(c, argv, true, out);
}

static int bi_values(struct qr_flow_call *c, int argc, const qr_val *argv, qr_val *out)
{
    (void)argc;
    return entries(c, argv, false, out);
}

static int bi_json(struct qr_flow_call *c, int argc, const qr_val *argv, qr_val *out)
{
    (void)argc;
    qr_buf b;
    qr_buf_init(&b);
    int rc = flow_print(c->fr, c->line, &b, argv[0], true);
    if (!rc)
        *out = qr_str_new(c->fr->a, b.p ? b.p : "", b.len);
    qr_buf_release(&b);
    return rc;
}

static int bi_parse_json(struct qr_flow_call *c, int argc, const qr_val *argv, qr_val *out)
{
    (void)argc;
    qr_buf b;
    qr_buf_init(&b);
    qr_read_error err;
    int rc = flow_print(c->fr, c->line, &b, argv[0], false);
    if (!rc && qr_json_read(c->fr->a, b.p ? b.p : "", b.len, out, &err) != QR_OK)
        rc = flow_fail(c->fr, c->line, "parse_json(): %s at %u:%u", err.msg, err.line, err.col);
    qr_buf_release(&b);
    return rc;
}

static int need_list(struct qr_flow_call *c, qr_val x)
{
    if (flow_is_list(x))
        return QR_OK;
    return fail(c, "needs a list, got %s", flow_type_of(x));
}

/* One level, as JavaScript's flat() and lodash's flatten: (apply concat) with every item
 * that is not a list taken as a list of itself. */
static int bi_flatten(struct qr_flow_call *c, int argc, const qr_val *argv, qr_val *out)
{
    (void)argc;
    int rc = need_list(c, argv[0]);
    if (rc)
        return rc;
    qr_arena *a = c->fr->a;
    size_t n = qr_vec_len(argv[0]);
    qr_val *parts = qr_arena_alloc(a, (n ? n : 1) * sizeof *parts);
    if (!parts)
        return flow_mem_sync(c->fr, c->line) ? QR_ELIMIT : QR_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        qr_val it = qr_vec_at(argv[0], i);
        parts[i] = flow_is_list(it) ? it : qr_vec_from(a, QR_T_VEC, &it, 1);
    }
    if (n > INT32_MAX)
        return fail(c, "takes at most 2^31 lists");
    qr_val v;
    if ((rc = lisp(c, "concat", (int)n, parts, &v)))
        return rc;
    *out = v.t == QR_T_LIST ? qr_vec_from(a, QR_T_VEC, qr_vec_items(v), qr_vec_len(v)) : v;
    if (qr_is_nil(*out))
        *out = qr_vec_empty(QR_T_VEC);
    return QR_OK;
}

static int bi_unique(struct qr_flow_call *c, int argc, const qr_val *argv, qr_val *out)
{
    int rc = need_list(c, argv[0]);
    return rc ? rc : lisp(c, "distinct", argc, argv, out);
}

static int bi_sum(struct qr_flow_call *c, int argc, const qr_val *argv, qr_val *out)
{
    int rc = need_list(c, argv[0]);
    return rc ? rc : lisp(c, "sum", argc, argv, out);
}

/* min and max of a list: (apply min xs); null for an empty list */
static int extreme(struct qr_flow_call *c, const qr_val *argv, const char *fn, qr_val *out)
{
    int rc = need_list(c, argv[0]);
    if (rc)
        return rc;
    size_t n = qr_vec_len(argv[0]);
    if (!n) {
        *out = qr_nil();
        return QR_OK;
    }
    if (n > INT32_MAX)
        return fail(c, "takes at most 2^31 numbers");
    return lisp(c, fn, (int)n, qr_vec_items(argv[0]), out);
}

static int bi_min(struct qr_flow_call *c, int argc, const qr_val *argv, qr_val *out)
{
    (void)argc;
    return extreme(c, argv, "min", out);
}

static int bi_max(struct qr_flow_call *c, int argc, const qr_val *argv, qr_val *out)
{
    (void)argc;
    return extreme(c, argv, "max", out);
}

/* slice(x, from, to): Python's slicing: negative indices count from the end, and indices
 * past either end are clamped; then subvec or subs cuts. */
static int bi_slice(struct qr_flow_call *c, int argc, const qr_val *argv, qr_val *out)
{
    qr_val x = argv[0];
    int64_t n = flow_is_list(x)   ? (int64_t)qr_vec_len(x)
                : x.t == QR_T_STR ? (int64_t)x.s->nchars
                                  : -1;
    if (n < 0)
        return fail(c, "needs a list or a string, got %s", flow_type_of(x));
    for (int i = 1; i < argc; i++)
        if (argv[i].t != QR_T_INT && !qr_is_nil(argv[i]))
            return fail(c, "needs whole numbers for its bounds, got %s", flow_type_of(argv[i]));
    int64_t from = argv[1].t == QR_T_INT ? argv[1].i : 0;
    int64_t to = argc > 2 && argv[2].t == QR_T_INT ? argv[2].i : n;
    if (from < 0)
        from += n;
    if (to < 0)
        to += n;
    from = from < 0 ? 0 : from > n ? n : from;
    to = to < from ? from : to > n ? n : to;
    qr_val args[3] = {
        x.t == QR_T_LIST ? qr_vec_from(c->fr->a, QR_T_VEC, qr_vec_items(x), qr_vec_len(x)) : x,
        qr_int(from), qr_int(to)};
    return lisp(c, x.t == QR_T_STR ? "subs" : "subvec", 3, args, out);
}

static const qr_flow_builtin table[] = {
    {"len", 1, 1, NULL, "count", "len(x)",
     "characters of a string, items of a list, entries of an object; 0 for null"},
    {"str", 1, 1, bi_str, "str", "str(x)",
     "x as text, as prompts insert it: lists and objects as JSON, null as \"\""},
    {"int", 1, 1, bi_int, "int", "int(x)",
     "a number or a numeric string as a whole number, cut toward zero"},
    {"float", 1, 1, bi_float, "double", "float(x)", "a number or a numeric string as a float"},
    {"lower", 1, 1, NULL, "clojure.string/lower-case", "lower(s)", "s in lower case"},
    {"upper", 1, 1, NULL, "clojure.string/upper-case", "upper(s)", "s in upper case"},
    {"trim", 1, 1, NULL, "clojure.string/trim", "trim(s)", "s without blanks at either end"},
    {"join", 1, 2, bi_join, "clojure.string/join", "join(list, sep)",
     "the items as text joined by sep (default \", \")"},
    {"split", 1, 2, bi_split, "clojure.string/split", "split(s, sep)",
     "the parts of s between occurrences of sep (default a newline)"},
    {"keys", 1, 1, bi_keys, "keys", "keys(obj)", "an object's keys, as strings, in order"},
    {"values", 1, 1, bi_values, "vals", "values(obj)", "an object's values, in order"},
    {"json", 1, 1, bi_json, NULL, "json(x)", "x printed as JSON"},
    {"parse_json", 1, 1, bi_parse_json, NULL, "parse_json(s)", "the value of the JSON text s"},
    {"first", 1, 1, NULL, "first", "first(list)", "the first item, or null when empty"},
    {"last", 1, 1, NULL, "last", "last(list)", "the last item, or null when empty"},
    {"flatten", 1, 1, bi_flatten, "concat", "flatten(list)",
     "the items of the inner lists, one level deep"},
    {"unique", 1, 1, bi_unique, "distinct", "unique(list)",
     "the items without repeats, first occurrence kept"},
    {"sum", 1, 1, bi_sum, "sum", "sum(list)", "the sum of a list of numbers (0 when empty)"},
    {"min", 1, 1, bi_min, "min", "min(list)", "the smallest number, or null when empty"},
    {"max", 1, 1, bi_max, "max", "max(list)", "the largest number, or null when empty"},
    {"range", 1, 2, NULL, "range", "range(to) / range(from, to)",
     "the whole numbers from (default 0) up to, not including, to"},
    {"slice", 2, 3, bi_slice, "subvec", "slice(x, from, to)",
     "part of a list or string; negative indices count from the end"},
    {"round", 1, 1, NULL, "round", "round(x)", "x rounded to the nearest whole number"},
    {"abs", 1, 1, NULL, "abs", "abs(x)", "x without its sign"},
    {NULL, 0, 0, NULL, NULL, NULL, NULL},
};

int qr_flow_builtin_call(const qr_flow_builtin *b, struct qr_flow_call *c, int argc,
                         const qr_val *argv, qr_val *out)
{
    return b->fn ? b->fn(c, argc, argv, out) : lisp(c, b->lisp, argc, argv, out);
}

const qr_flow_builtin *qr_flow_builtins(void)
{
    return table;
}

const qr_flow_builtin *qr_flow_builtin_find(const char *s, size_t n)
{
    for (const qr_flow_builtin *b = table; b->name; b++)
        if (strlen(b->name) == n && !memcmp(b->name, s, n))
            return b;
    return NULL;
}
