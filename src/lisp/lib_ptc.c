/*
 * lib_ptc.c: the PTC-Lisp specification's own extensions that are not Clojure: the
 * predicate builders `where`, `all-of`, `any-of`, `none-of`; the string functions under
 * their bare names (split, join, trim, upcase, downcase, upper-case, lower-case,
 * starts-with?, ends-with?, split-lines, replace with three arguments) and grep/grep-n;
 * integer-valued floor and ceil. Where a bare name is also Clojure's (replace with two
 * arguments), Clojure's meaning wins. Java's .indexOf and .lastIndexOf live here too
 * (they answer -1, as Java does).
 *
 * (where field op value) is a derived form (expand.c) that calls --where with the operator
 * quoted, since `in` and `includes` are no functions. A field is a key or a path vector;
 * a keyword key also finds a string key of the same name, and the reverse. = not= in
 * includes compare keywords as their names (:active matches "active"); the ordering
 * operators are false, never an error, for nil or a value that is no number.
 */
#define _GNU_SOURCE /* memmem */
#include "lib_seq.h"

#include <math.h>
#include <string.h>

static qr_val call_named(qr_lx *lx, const char *name, int argc, const qr_val *argv)
{
    const qr_builtin *b = lx_builtin_find(name, strlen(name));
    return b->fn(lx, argc, argv);
}

/* ---- where ---- */

enum { W_TRUTHY, W_EQ, W_NE, W_GT, W_LT, W_GE, W_LE, W_IN, W_INCLUDES };

static const struct {
    const char *name;
    int op;
} where_ops[] = {{"=", W_EQ},  {"not=", W_NE}, {">", W_GT},  {"<", W_LT},
                 {">=", W_GE}, {"<=", W_LE},   {"in", W_IN}, {"includes", W_INCLUDES}};

/* (get m k), where a keyword also finds the string of its name and the reverse */
static bool flex_get(qr_lx *lx, qr_val m, qr_val k, qr_val *out)
{
    if (m.t != QR_T_MAP)
        return lx_get(m, k, out);
    if (qr_map_lookup(m, k, out))
        return true;
    if (k.t == QR_T_KW)
        return qr_map_lookup(m, lx_str(lx, k.sym->text, k.sym->len), out);
    if (k.t == QR_T_STR)
        return qr_map_lookup(m, qr_kw(lx->a, k.s->data, k.s->len), out);
    return false;
}

static qr_val field_of(qr_lx *lx, qr_val item, qr_val path)
{
    qr_val v = item;
    if (path.t != QR_T_VEC)
        return flex_get(lx, v, path, &v) ? v : qr_nil();
    for (size_t i = 0; i < path.c->len; i++)
        if (!flex_get(lx, v, qr_vec_at(path, i), &v))
            return qr_nil();
    return v;
}

/* keywords (not booleans) compare as their names */
static qr_val coerce(qr_lx *lx, qr_val v)
{
    return v.t == QR_T_KW ? lx_str(lx, v.sym->text, v.sym->len) : v;
}

static bool coerced_equal(qr_lx *lx, qr_val a, qr_val b)
{
    return qr_equal(coerce(lx, a), coerce(lx, b));
}

static bool includes(qr_lx *lx, qr_val field, qr_val v)
{
    if (field.t == QR_T_STR) {
        qr_val s = coerce(lx, v);
        return s.t == QR_T_STR && memmem(field.s->data, field.s->len, s.s->data, s.s->len);
    }
    if (field.t == QR_T_VEC || field.t == QR_T_LIST || field.t == QR_T_SET) {
        lx_seq s = lx_items(lx, field, "where", 1);
        for (size_t i = 0; i < s.n; i++)
            if (coerced_equal(lx, s.items[i], v))
                return true;
    }
    return false;
}

static qr_val combo_where(qr_lx *lx, int argc, const qr_val *argv)
{
    const lx_combo *c = (const lx_combo *)lx->cur_combo;
    if (argc != 1)
        lx_throw(lx, QR_LE_ARITY, "a 'where' predicate takes one item, got %d arguments", argc);
    qr_val path = c->fns[0], want = c->fns[2];
    int op = (int)c->fns[1].i;
    qr_val v = field_of(lx, argv[0], path);
    switch (op) {
    case W_TRUTHY: return qr_bool(qr_truthy(v));
    case W_EQ: return qr_bool(coerced_equal(lx, v, want));
    case W_NE: return qr_bool(!coerced_equal(lx, v, want));
    case W_IN: {
        if (!lx_seqable(want))
            lx_type_error(lx, "where", 3, "a collection after 'in'", want);
        lx_seq s = lx_items(lx, want, "where", 3);
        for (size_t i = 0; i < s.n; i++)
            if (coerced_equal(lx, v, s.items[i]))
                return qr_bool(true);
        return qr_bool(false);
    }
    case W_INCLUDES: return qr_bool(includes(lx, v, want));
    default: {
        if (!qr_is_number(v) || !qr_is_number(want))
            return qr_bool(false);
        double x = qr_to_double(v), y = qr_to_double(want);
        if (v.t == QR_T_INT && want.t == QR_T_INT) {
            x = (double)(v.i > want.i) - (double)(v.i < want.i);
            y = 0;
        }
        switch (op) {
        case W_GT: return qr_bool(x > y);
        case W_LT: return qr_bool(x < y);
        case W_GE: return qr_bool(x >= y);
        default: return qr_bool(x <= y);
        }
    }
    }
}

/* (--where field) or (--where field 'op value), from the derived form where */
static qr_val bi_ptc_where(qr_lx *lx, int argc, const qr_val *argv)
{
    int op = W_TRUTHY;
    if (argc == 2 || argc > 3)
        lx_throw(lx, QR_LE_ARITY, "where expects a field, or a field, an operator and a "
                                  "value, as in (where :status = \"active\")");
    if (argc == 3) {
        op = -1;
        if (argv[1].t == QR_T_SYM)
            for (size_t i = 0; i < sizeof where_ops / sizeof where_ops[0]; i++)
                if (!strcmp(argv[1].sym->text, where_ops[i].name))
                    op = where_ops[i].op;
        if (op < 0)
            lx_throw(lx, QR_LE_TYPE, "where expects an operator (= not= > < >= <= in "
                                     "includes) after the field, got %s",
                     lx_pr_str(lx, argv[1], QR_PRINT_READABLY).s->data);
    }
    qr_val fns[3] = {argv[0], qr_int(op), argc == 3 ? argv[2] : qr_nil()};
    return lx_make_combo(lx, "where", combo_where, 3, fns);
}

/* all-of, any-of, none-of: fns[0] is the kind (0 all, 1 any, 2 none), then the preds */
static qr_val combo_preds(qr_lx *lx, int argc, const qr_val *argv)
{
    const lx_combo *c = (const lx_combo *)lx->cur_combo;
    int kind = (int)c->fns[0].i, n = c->n;
    qr_val fns[64];
    for (int i = 1; i < n; i++)
        fns[i] = c->fns[i];
    for (int i = 1; i < n; i++) {
        bool t = qr_truthy(lx_apply(lx, fns[i], argc, argv));
        if (kind == 0 && !t)
            return qr_bool(false);
        if (kind != 0 && t)
            return qr_bool(kind == 1);
    }
    return qr_bool(kind != 1);
}

static qr_val make_preds(qr_lx *lx, int kind, const char *name, int argc, const qr_val *argv)
{
    if (argc > 63)
        lx_throw(lx, QR_LE_ARITY, "'%s' takes at most 63 predicates", name);
    qr_val fns[64];
    fns[0] = qr_int(kind);
    for (int i = 0; i < argc; i++) {
        seq_need_fn(lx, name, i + 1, argv[i]);
        fns[i + 1] = argv[i];
    }
    return lx_make_combo(lx, name, combo_preds, argc + 1, fns);
}

static qr_val bi_ptc_all_of(qr_lx *lx, int argc, const qr_val *argv)
{
    return make_preds(lx, 0, "all-of", argc, argv);
}

static qr_val bi_ptc_any_of(qr_lx *lx, int argc, const qr_val *argv)
{
    return make_preds(lx, 1, "any-of", argc, argv);
}

static qr_val bi_ptc_none_of(qr_lx *lx, int argc, const qr_val *argv)
{
    return make_preds(lx, 2, "none-of", argc, argv);
}

/* ---- strings under their bare names ---- */

#define ALIAS(cname, target)                                                                 \
    static qr_val cname(qr_lx *lx, int argc, const qr_val *argv)                             \
    {                                                                                        \
        return call_named(lx, target, argc, argv);                                           \
    }

ALIAS(bi_ptc_join, "clojure.string/join")
ALIAS(bi_ptc_trim, "clojure.string/trim")
ALIAS(bi_ptc_upper, "clojure.string/upper-case")
ALIAS(bi_ptc_lower, "clojure.string/lower-case")
ALIAS(bi_ptc_starts, "clojure.string/starts-with?")
ALIAS(bi_ptc_ends, "clojure.string/ends-with?")
ALIAS(bi_ptc_split_lines, "clojure.string/split-lines")

/* (split s sep): a string separator is literal text, "" splits into characters */
static qr_val bi_ptc_split(qr_lx *lx, int argc, const qr_val *argv)
{
    qr_val sep = argv[1];
    if (sep.t == QR_T_STR) {
        const qr_str *s = lx_arg_str(lx, "split", 1, argv[0]);
        if (sep.s->len == 0)
            return lx_str_chars(lx, s);
        qr_vecb vb;
        qr_vecb_init(&vb, lx->a, 8);
        const char *p = s->data, *end = s->data + s->len;
        for (;;) {
            const char *hit = memmem(p, (size_t)(end - p), sep.s->data, sep.s->len);
            if (!hit) {
                qr_vecb_push(&vb, lx_str(lx, p, (size_t)(end - p)));
                break;
            }
            qr_vecb_push(&vb, lx_str(lx, p, (size_t)(hit - p)));
            p = hit + sep.s->len;
        }
        lx_tick_n(lx, s->len);
        return qr_vecb_finish(&vb, QR_T_VEC);
    }
    return call_named(lx, "clojure.string/split", argc, argv);
}

/* (replace s match replacement) is clojure.string/replace; (replace smap coll) is
 * Clojure's: each item found in smap replaced by its value */
static qr_val bi_ptc_replace(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc == 3)
        return call_named(lx, "clojure.string/replace", argc, argv);
    qr_val smap = argv[0], coll = argv[1];
    lx_seq s = lx_items(lx, coll, "replace", 2);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, s.n);
    for (size_t i = 0; i < s.n; i++) {
        qr_val v = s.items[i];
        qr_vecb_push(&vb, lx_get(smap, v, &v) ? v : s.items[i]);
    }
    lx_tick_n(lx, s.n);
    return qr_vecb_finish(&vb, QR_T_VEC);
}

/* (grep pattern text): the lines of text containing pattern; grep-n also their numbers */
static qr_val grep_impl(qr_lx *lx, const qr_val *argv, bool numbered, const char *fname)
{
    const qr_str *pat = lx_arg_str(lx, fname, 1, argv[0]);
    const qr_str *text = lx_arg_str(lx, fname, 2, argv[1]);
    qr_val lines = call_named(lx, "clojure.string/split-lines", 1, &argv[1]);
    (void)text;
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, 8);
    qr_val kline = qr_kw(lx->a, "line", 4), ktext = qr_kw(lx->a, "text", 4);
    for (size_t i = 0; i < lines.c->len; i++) {
        qr_val l = qr_vec_at(lines, i);
        if (!memmem(l.s->data, l.s->len, pat->data, pat->len))
            continue;
        if (numbered) {
            qr_val m = qr_map_assoc(lx->a, qr_map_empty(), kline, qr_int((int64_t)i + 1));
            qr_vecb_push(&vb, qr_map_assoc(lx->a, m, ktext, l));
        } else {
            qr_vecb_push(&vb, l);
        }
    }
    return qr_vecb_finish(&vb, QR_T_VEC);
}

static qr_val bi_ptc_grep(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return grep_impl(lx, argv, false, "grep");
}

static qr_val bi_ptc_grep_n(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return grep_impl(lx, argv, true, "grep-n");
}

/* ---- numbers: floor and ceil give integers, as the specification shows ---- */

static qr_val int_valued(qr_lx *lx, const char *fname, qr_val x, double (*f)(double))
{
    if (x.t == QR_T_INT)
        return x;
    double d = f(lx_arg_num(lx, fname, 1, x));
    if (isfinite(d) && d >= -9.2e18 && d <= 9.2e18)
        return qr_int((int64_t)d);
    return qr_double(d);
}

static qr_val bi_ptc_floor(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return int_valued(lx, "floor", argv[0], floor);
}

static qr_val bi_ptc_ceil(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return int_valued(lx, "ceil", argv[0], ceil);
}

/* ---- Java's String.indexOf and lastIndexOf: -1 when not found ---- */

static qr_val index_or_minus_one(qr_val r)
{
    return r.t == QR_T_NIL ? qr_int(-1) : r;
}

/* the specification's index-of and last-index-of: clojure.string's, nil when absent */
static qr_val bi_ptc_str_index_of(qr_lx *lx, int argc, const qr_val *argv)
{
    return call_named(lx, "clojure.string/index-of", argc, argv);
}

static qr_val bi_ptc_str_last_index_of(qr_lx *lx, int argc, const qr_val *argv)
{
    return call_named(lx, "clojure.string/last-index-of", argc, argv);
}

static qr_val bi_ptc_index_of(qr_lx *lx, int argc, const qr_val *argv)
{
    return index_or_minus_one(call_named(lx, "clojure.string/index-of", argc, argv));
}

static qr_val bi_ptc_last_index_of(qr_lx *lx, int argc, const qr_val *argv)
{
    return index_or_minus_one(call_named(lx, "clojure.string/last-index-of", argc, argv));
}

const qr_builtin qr_lib_ptc[] = {
    QR_BUILTIN("--where", bi_ptc_where, 1, 3, "[field] or [field op value]", "internal: where"),
    QR_BUILTIN("all-of", bi_ptc_all_of, 0, -1, "[& preds]", "a predicate true when every pred is"),
    QR_BUILTIN("any-of", bi_ptc_any_of, 0, -1, "[& preds]", "a predicate true when some pred is"),
    QR_BUILTIN("none-of", bi_ptc_none_of, 0, -1, "[& preds]", "a predicate true when no pred is"),
    QR_BUILTIN("split", bi_ptc_split, 2, 3, "[s separator]", "s split at each separator (a string is literal text, \"\" gives the characters)"),
    QR_BUILTIN("join", bi_ptc_join, 1, 2, "[coll] or [separator coll]", "clojure.string/join"),
    QR_BUILTIN("trim", bi_ptc_trim, 1, 1, "[s]", "clojure.string/trim"),
    QR_BUILTIN("upcase", bi_ptc_upper, 1, 1, "[s]", "clojure.string/upper-case"),
    QR_BUILTIN("upper-case", bi_ptc_upper, 1, 1, "[s]", "clojure.string/upper-case"),
    QR_BUILTIN("downcase", bi_ptc_lower, 1, 1, "[s]", "clojure.string/lower-case"),
    QR_BUILTIN("lower-case", bi_ptc_lower, 1, 1, "[s]", "clojure.string/lower-case"),
    QR_BUILTIN("starts-with?", bi_ptc_starts, 2, 2, "[s prefix]", "clojure.string/starts-with?"),
    QR_BUILTIN("ends-with?", bi_ptc_ends, 2, 2, "[s suffix]", "clojure.string/ends-with?"),
    QR_BUILTIN("split-lines", bi_ptc_split_lines, 1, 1, "[s]", "clojure.string/split-lines"),
    QR_BUILTIN("replace", bi_ptc_replace, 2, 3, "[smap coll] or [s match replacement]", "Clojure's replace, or clojure.string/replace with three arguments"),
    QR_BUILTIN("grep", bi_ptc_grep, 2, 2, "[pattern text]", "the lines of text that contain pattern"),
    QR_BUILTIN("grep-n", bi_ptc_grep_n, 2, 2, "[pattern text]", "{:line n :text line} for each line of text that contains pattern"),
    QR_BUILTIN("floor", bi_ptc_floor, 1, 1, "[x]", "the largest integer <= x"),
    QR_BUILTIN("ceil", bi_ptc_ceil, 1, 1, "[x]", "the smallest integer >= x"),
    QR_BUILTIN("index-of", bi_ptc_str_index_of, 2, 3, "[s value] or [s value from]", "clojure.string/index-of: the index of value in s, or nil"),
    QR_BUILTIN("last-index-of", bi_ptc_str_last_index_of, 2, 3, "[s value] or [s value from]", "clojure.string/last-index-of: the index of the last value in s, or nil"),
    QR_BUILTIN(".indexOf", bi_ptc_index_of, 2, 3, "[s value] or [s value from]", "index of value in s, or -1 (Java's String.indexOf)"),
    QR_BUILTIN(".lastIndexOf", bi_ptc_last_index_of, 2, 3, "[s value] or [s value from]", "index of the last value in s, or -1"),
    {.hdr = {.name = NULL}},
};
