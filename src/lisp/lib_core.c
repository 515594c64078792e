/*
 * lib_core.c: the core builtins that are not about sequences, maps, numbers or strings:
 * equality and comparison, type predicates, printing and output capture, constructors
 * (list, vector, hash-map, keyword, symbol), function combinators (comp, partial, juxt,
 * complement, constantly, fnil, identity, apply), reduced, and the internal helpers the
 * analyzer's expansions call (names starting with "--", hidden from help).
 *
 * Combinators return builtin-backed closures: a small record holding the functions
 * they combine, so `(comp f g)` costs one allocation and no analysis.
 */
#include "lisp_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- equality and comparison ---- */

static qr_val bi_core_eq(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)lx;
    for (int i = 0; i + 1 < argc; i++)
        if (!qr_equal(argv[i], argv[i + 1]))
            return qr_bool(false);
    return qr_bool(true);
}

static qr_val bi_core_not_eq(qr_lx *lx, int argc, const qr_val *argv)
{
    return qr_bool(!qr_truthy(bi_core_eq(lx, argc, argv)));
}

/* Java's String.compareTo: the difference of the first code points that differ, else of
 * the lengths (in code points). */
static qr_val compare_strings(const qr_str *a, const qr_str *b)
{
    size_t i = 0, j = 0;
    while (i < a->len && j < b->len) {
        uint32_t x, y;
        i += qr_utf8_decode(a->data + i, a->len - i, &x);
        j += qr_utf8_decode(b->data + j, b->len - j, &y);
        if (x != y)
            return qr_int((int64_t)x - (int64_t)y);
    }
    return qr_int((int64_t)a->nchars - (int64_t)b->nchars);
}

static qr_val bi_core_compare(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    int c;
    if (argv[0].t == QR_T_STR && argv[1].t == QR_T_STR)
        return compare_strings(argv[0].s, argv[1].s);
    if (!qr_compare(argv[0], argv[1], &c)) {
        lx_throw(lx, QR_LE_TYPE, "'compare' cannot compare %s with %s",
                 qr_type_name((qr_type)argv[0].t), qr_type_name((qr_type)argv[1].t));
    }
    return qr_int(c);
}

static qr_val bi_core_not(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)lx;
    (void)argc;
    return qr_bool(!qr_truthy(argv[0]));
}

static qr_val bi_core_identity(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)lx;
    (void)argc;
    return argv[0];
}

/* ---- type predicates ---- */

#define PRED(cname, test)                                                                    \
    static qr_val cname(qr_lx *lx, int argc, const qr_val *argv)                             \
    {                                                                                        \
        (void)lx;                                                                            \
        (void)argc;                                                                          \
        qr_val x = argv[0];                                                                  \
        return qr_bool(test);                                                                \
    }

PRED(bi_core_nil_p, x.t == QR_T_NIL)
PRED(bi_core_some_p, x.t != QR_T_NIL)
PRED(bi_core_string_p, x.t == QR_T_STR)
PRED(bi_core_number_p, x.t == QR_T_INT || x.t == QR_T_DOUBLE)
PRED(bi_core_int_p, x.t == QR_T_INT)
PRED(bi_core_double_p, x.t == QR_T_DOUBLE)
PRED(bi_core_keyword_p, x.t == QR_T_KW)
PRED(bi_core_symbol_p, x.t == QR_T_SYM)
PRED(bi_core_map_p, x.t == QR_T_MAP)
PRED(bi_core_vector_p, x.t == QR_T_VEC)
PRED(bi_core_list_p, x.t == QR_T_LIST)
PRED(bi_core_set_p, x.t == QR_T_SET)
PRED(bi_core_coll_p, x.t == QR_T_VEC || x.t == QR_T_LIST || x.t == QR_T_MAP || x.t == QR_T_SET)
PRED(bi_core_seq_p, x.t == QR_T_LIST)
PRED(bi_core_sequential_p, x.t == QR_T_VEC || x.t == QR_T_LIST)
PRED(bi_core_fn_p, x.t == QR_T_FN)
PRED(bi_core_ifn_p, lx_is_callable(x))
PRED(bi_core_boolean_p, x.t == QR_T_BOOL)
PRED(bi_core_true_p, x.t == QR_T_BOOL && x.b)
PRED(bi_core_false_p, x.t == QR_T_BOOL && !x.b)
PRED(bi_core_regex_p, x.t == QR_T_REGEX)
PRED(bi_core_seqable_p, lx_seqable(x))
PRED(bi_core_var_p, x.t == QR_T_VAR)

static qr_val bi_core_type(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return qr_kw_cstr(lx->a, qr_type_name((qr_type)argv[0].t));
}

/* ---- printing ---- */

/* str, pr-str and print-str build their string in place (lx_print_str): a long one is
 * never held twice. */
static qr_val bi_core_str(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc == 1 && argv[0].t == QR_T_STR)
        return argv[0];
    return lx_print_str(lx, argc, argv, LX_PRINT_STR);
}

static qr_val bi_core_pr_str(qr_lx *lx, int argc, const qr_val *argv)
{
    return lx_print_str(lx, argc, argv, QR_PRINT_READABLY);
}

static qr_val bi_core_print_str(qr_lx *lx, int argc, const qr_val *argv)
{
    return lx_print_str(lx, argc, argv, QR_PRINT_DISPLAY);
}

/* println and friends print straight into the captured output and stop where it is full,
 * so a value that prints to more than the output limit costs no more than the limit, and
 * nothing is held twice. */
static void emit(qr_lx *lx, int argc, const qr_val *argv, int mode, bool newline)
{
    size_t max = lx->s->limits.max_output;
    size_t room = lx->out.len >= max ? 0 : max - lx->out.len;
    int st = lx_print_pieces(lx, &lx->out, argc, argv, mode, room);
    if (st != QR_PRINT_DONE || lx->out.failed)
        lx->out_truncated = true;
    else if (newline)
        lx_write(lx, "\n", 1);
    lx_tick(lx);
}

static qr_val bi_core_println(qr_lx *lx, int argc, const qr_val *argv)
{
    emit(lx, argc, argv, QR_PRINT_DISPLAY, true);
    return qr_nil();
}

static qr_val bi_core_print(qr_lx *lx, int argc, const qr_val *argv)
{
    emit(lx, argc, argv, QR_PRINT_DISPLAY, false);
    return qr_nil();
}

static qr_val bi_core_prn(qr_lx *lx, int argc, const qr_val *argv)
{
    emit(lx, argc, argv, QR_PRINT_READABLY, true);
    return qr_nil();
}

static qr_val bi_core_pr(qr_lx *lx, int argc, const qr_val *argv)
{
    emit(lx, argc, argv, QR_PRINT_READABLY, false);
    return qr_nil();
}

/* ---- constructors ---- */

static qr_val bi_core_list(qr_lx *lx, int argc, const qr_val *argv)
{
    return qr_vec_from(lx->a, QR_T_LIST, argv, (size_t)argc);
}

static qr_val bi_core_vector(qr_lx *lx, int argc, const qr_val *argv)
{
    return qr_vec_from(lx->a, QR_T_VEC, argv, (size_t)argc);
}

static qr_val bi_core_hash_map(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc % 2)
        lx_throw(lx, QR_LE_ARITY, "'hash-map' expects key/value pairs, got %d arguments", argc);
    qr_mapb mb;
    qr_mapb_init(&mb, lx->a, (size_t)argc / 2);
    for (int i = 0; i < argc; i += 2)
        qr_mapb_put(&mb, argv[i], argv[i + 1]);
    return qr_mapb_finish(&mb, QR_T_MAP);
}

static qr_val bi_core_hash_set(qr_lx *lx, int argc, const qr_val *argv)
{
    qr_mapb mb;
    qr_mapb_init(&mb, lx->a, (size_t)argc);
    for (int i = 0; i < argc; i++)
        if (!qr_mapb_slot(&mb, argv[i]))
            qr_mapb_put(&mb, argv[i], argv[i]);
    return qr_mapb_finish(&mb, QR_T_SET);
}

/* The names (keyword s) accepts, after the PTC-Lisp specification: a letter (any
 * non-ASCII character counts as one), then letters, digits and - _ ? ! . ; no '/', space,
 * empty name or operator (Clojure makes a keyword of any string, :a b included, which no
 * program can write back; docs/decisions.md). */
static bool keyword_name_ok(const char *p, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)p[i];
        bool letter = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch >= 0x80;
        if (letter || (i > 0 && ((ch >= '0' && ch <= '9') || strchr("-_?!.", ch))))
            continue;
        return false;
    }
    return true;
}

static qr_val bi_core_keyword(qr_lx *lx, int argc, const qr_val *argv)
{
    qr_val x = argv[argc - 1];
    if (argc == 2) {
        if (argv[0].t != QR_T_STR && argv[0].t != QR_T_NIL)
            lx_type_error(lx, "keyword", 1, "a namespace string", argv[0]);
        if (x.t != QR_T_STR)
            lx_type_error(lx, "keyword", 2, "a name string", x);
        if (argv[0].t == QR_T_NIL)
            return qr_kw(lx->a, x.s->data, x.s->len);
        qr_buf *b = lx_scratch(lx);
        qr_buf_printf(b, "%s/%s", argv[0].s->data, x.s->data);
        return qr_kw(lx->a, b->p, b->len);
    }
    switch (x.t) {
    case QR_T_KW: return x;
    case QR_T_SYM: return qr_kw(lx->a, x.sym->text, x.sym->len);
    case QR_T_STR: {
        const char *p = x.s->data;
        size_t n = x.s->len;
        if (n > 0 && p[0] == ':')
            p++, n--;
        if (!keyword_name_ok(p, n))
            lx_type_error(lx, "keyword", 1,
                          "a keyword name: a letter, then letters, digits and - _ ? ! . (no "
                          "spaces, / or operators)",
                          x);
        return qr_kw(lx->a, p, n);
    }
    case QR_T_DOUBLE:
        if (!isfinite(x.d))
            lx_type_error(lx, "keyword", 1, "a string, keyword or symbol", x);
        return qr_nil();
    default: return qr_nil(); /* Clojure: (keyword 5) is nil */
    }
}

static qr_val bi_core_symbol(qr_lx *lx, int argc, const qr_val *argv)
{
    qr_val x = argv[argc - 1];
    if (argc == 2) {
        const qr_str *ns = lx_arg_str(lx, "symbol", 1, argv[0]);
        const qr_str *nm = lx_arg_str(lx, "symbol", 2, x);
        qr_buf *b = lx_scratch(lx);
        qr_buf_printf(b, "%s/%s", ns->data, nm->data);
        return qr_symbol(lx->a, b->p, b->len);
    }
    switch (x.t) {
    case QR_T_SYM: return x;
    case QR_T_KW: return qr_symbol(lx->a, x.sym->text, x.sym->len);
    case QR_T_STR: return qr_symbol(lx->a, x.s->data, x.s->len);
    default: lx_type_error(lx, "symbol", 1, "a string, symbol or keyword", x);
    }
}

static qr_val bi_core_name(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val x = argv[0];
    if (x.t == QR_T_STR)
        return x;
    if (x.t == QR_T_KW || x.t == QR_T_SYM) {
        size_t n;
        const char *s = qr_sym_name(x.sym, &n);
        return qr_str_new(lx->a, s, n);
    }
    lx_type_error(lx, "name", 1, "a string, keyword or symbol", x);
}

static qr_val bi_core_namespace(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val x = argv[0];
    if (x.t == QR_T_KW || x.t == QR_T_SYM)
        return x.sym->ns_len ? qr_str_new(lx->a, x.sym->text, x.sym->ns_len) : qr_nil();
    lx_type_error(lx, "namespace", 1, "a keyword or symbol", x);
}

/* ---- function combinators ---- */

static const lx_combo *self_combo(qr_lx *lx)
{
    /* lx_apply sets cur_combo to the combo it is calling */
    return (const lx_combo *)lx->cur_combo;
}

qr_val lx_make_combo(qr_lx *lx, const char *name, qr_builtin_fn body, int n, const qr_val *fns)
{
    lx_combo *c = qr_arena_alloc(lx->a, sizeof(lx_combo) + sizeof(qr_val) * (size_t)n);
    memset(&c->b, 0, sizeof c->b);
    c->b.hdr.name = name;
    c->b.hdr.kind = FN_COMBO;
    c->b.fn = body;
    c->b.min_args = 0;
    c->b.max_args = -1;
    c->b.args = "[& args]";
    c->b.doc = "";
    c->n = n;
    memcpy(c->fns, fns, sizeof(qr_val) * (size_t)n);
    qr_val v = {.t = QR_T_FN};
    v.fn = &c->b.hdr;
    return v;
}

static qr_val combo_comp(qr_lx *lx, int argc, const qr_val *argv)
{
    const lx_combo *c = self_combo(lx);
    qr_val r = lx_apply(lx, c->fns[c->n - 1], argc, argv);
    for (int i = c->n - 2; i >= 0; i--)
        r = lx_call1(lx, c->fns[i], r);
    return r;
}

static qr_val bi_core_comp(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc == 0) {
        const qr_builtin *id = lx_builtin_find("identity", 8);
        qr_val v = {.t = QR_T_FN};
        v.fn = &id->hdr;
        return v;
    }
    if (argc == 1)
        return argv[0];
    return lx_make_combo(lx, "comp", combo_comp, argc, argv);
}

static qr_val combo_partial(qr_lx *lx, int argc, const qr_val *argv)
{
    const lx_combo *c = self_combo(lx);
    int nb = c->n - 1;
    qr_val *args = qr_arena_alloc(lx->a, sizeof(qr_val) * (size_t)(nb + argc + 1));
    memcpy(args, c->fns + 1, sizeof(qr_val) * (size_t)nb);
    memcpy(args + nb, argv, sizeof(qr_val) * (size_t)argc);
    return lx_apply(lx, c->fns[0], nb + argc, args);
}

static qr_val bi_core_partial(qr_lx *lx, int argc, const qr_val *argv)
{
    return lx_make_combo(lx, "partial", combo_partial, argc, argv);
}

static qr_val combo_juxt(qr_lx *lx, int argc, const qr_val *argv)
{
    const lx_combo *c = self_combo(lx);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, (size_t)c->n);
    for (int i = 0; i < c->n; i++) {
        const lx_combo *saved = self_combo(lx);
        qr_val r = lx_apply(lx, c->fns[i], argc, argv);
        lx->cur_combo = saved;
        qr_vecb_push(&vb, r);
    }
    return qr_vecb_finish(&vb, QR_T_VEC);
}

static qr_val bi_core_juxt(qr_lx *lx, int argc, const qr_val *argv)
{
    return lx_make_combo(lx, "juxt", combo_juxt, argc, argv);
}

static qr_val combo_complement(qr_lx *lx, int argc, const qr_val *argv)
{
    const lx_combo *c = self_combo(lx);
    return qr_bool(!qr_truthy(lx_apply(lx, c->fns[0], argc, argv)));
}

static qr_val bi_core_complement(qr_lx *lx, int argc, const qr_val *argv)
{
    return lx_make_combo(lx, "complement", combo_complement, argc, argv);
}

static qr_val combo_constantly(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    (void)argv;
    return self_combo(lx)->fns[0];
}

static qr_val bi_core_constantly(qr_lx *lx, int argc, const qr_val *argv)
{
    return lx_make_combo(lx, "constantly", combo_constantly, argc, argv);
}

static qr_val combo_fnil(qr_lx *lx, int argc, const qr_val *argv)
{
    const lx_combo *c = self_combo(lx);
    qr_val *args = qr_arena_alloc(lx->a, sizeof(qr_val) * (size_t)(argc + 1));
    memcpy(args, argv, sizeof(qr_val) * (size_t)argc);
    for (int i = 0; i < argc && i < c->n - 1; i++)
        if (args[i].t == QR_T_NIL)
            args[i] = c->fns[i + 1];
    return lx_apply(lx, c->fns[0], argc, args);
}

static qr_val bi_core_fnil(qr_lx *lx, int argc, const qr_val *argv)
{
    return lx_make_combo(lx, "fnil", combo_fnil, argc, argv);
}

static qr_val combo_every_pred(qr_lx *lx, int argc, const qr_val *argv)
{
    const lx_combo *c = self_combo(lx);
    for (int i = 0; i < c->n; i++)
        for (int j = 0; j < argc; j++) {
            lx->cur_combo = c;
            if (!qr_truthy(lx_call1(lx, c->fns[i], argv[j])))
                return qr_bool(false);
        }
    return qr_bool(true);
}

static qr_val bi_core_every_pred(qr_lx *lx, int argc, const qr_val *argv)
{
    return lx_make_combo(lx, "every-pred", combo_every_pred, argc, argv);
}

static qr_val bi_core_apply(qr_lx *lx, int argc, const qr_val *argv)
{
    lx_seq last = lx_items(lx, argv[argc - 1], "apply", argc);
    size_t nfixed = (size_t)argc - 2;
    size_t total = nfixed + last.n;
    /* the argument array lives in the request's arena (so under its memory limit) and
     * costs steps as a builtin walking that many items does (so under the step limit) */
    if (total > 16000000)
        lx_throw(lx, QR_LE_ARITY, "'apply' with %zu arguments: too many (at most 16000000)",
                 total);
    lx_tick_n(lx, total);
    qr_val *args = qr_arena_alloc(lx->a, sizeof(qr_val) * (total + 1));
    memcpy(args, argv + 1, sizeof(qr_val) * nfixed);
    if (last.n)
        memcpy(args + nfixed, last.items, sizeof(qr_val) * last.n);
    return lx_apply(lx, argv[0], (int)total, args);
}

/* ---- reduced ---- */

qr_val lx_reduced(qr_lx *lx, qr_val v)
{
    qr_val *box = qr_arena_alloc(lx->a, sizeof *box);
    *box = v;
    qr_val r = {.t = QR_T_REDUCED};
    r.p = box;
    return r;
}

static qr_val bi_core_reduced(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return lx_reduced(lx, argv[0]);
}

static qr_val bi_core_reduced_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)lx;
    (void)argc;
    return qr_bool(lx_is_reduced(argv[0]));
}

/* ---- internal helpers for expansions and destructuring ---- */

static qr_val bi_core_nthnext(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val coll = argv[0];
    int64_t k = argv[1].i;
    if (coll.t == QR_T_NIL)
        return qr_nil();
    if (lx_unbounded(coll))
        lx_throw(lx, QR_LE_TYPE, "cannot destructure the rest of an unbounded sequence");
    lx_seq s = lx_items(lx, coll, "destructuring", 1);
    if ((size_t)k >= s.n)
        return qr_nil();
    if (coll.t == QR_T_VEC)
        return qr_vec_slice(lx->a, coll, (size_t)k, s.n);
    return qr_vec_from(lx->a, QR_T_VEC, s.items + k, s.n - (size_t)k);
}

static qr_val bi_core_destructure_map(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val x = argv[0];
    /* keyword arguments arrive as a sequence of k v pairs, optionally followed by one
     * trailing map whose entries join them (Clojure 1.11: (f 1 {:b 2}) and (f 1 :b 2)
     * bind alike) */
    if ((x.t == QR_T_VEC || x.t == QR_T_LIST) && x.c->len > 0) {
        size_t len = x.c->len;
        qr_val last = qr_vec_at(x, len - 1);
        bool trailing = len % 2 == 1 && last.t == QR_T_MAP;
        if (len % 2 == 1 && !trailing)
            return x;
        size_t npairs = len / 2, nlast = trailing ? qr_map_len(last) : 0;
        qr_mapb mb;
        qr_mapb_init(&mb, lx->a, npairs + nlast);
        for (size_t i = 0; i + 1 < len; i += 2)
            qr_mapb_put(&mb, qr_vec_at(x, i), qr_vec_at(x, i + 1));
        for (size_t i = 0; i < nlast; i++)
            qr_mapb_put(&mb, qr_map_key_at(last, i), qr_map_val_at(last, i));
        return qr_mapb_finish(&mb, QR_T_MAP);
    }
    return x;
}

static qr_val bi_core_no_match(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_buf b;
    qr_buf_init(&b);
    qr_describe(&b, argv[1]);
    char what[200];
    snprintf(what, sizeof what, "%s", b.p ? b.p : "?");
    qr_buf_release(&b);
    lx_throw(lx, QR_LE_FAIL, "no %s clause matches %s and there is no default", argv[0].s->data,
             what);
}

const qr_builtin qr_lib_core[] = {
    QR_BUILTIN_LAZY("=", bi_core_eq, 1, -1, "[x & more]", "true when all arguments are equal (1 and 1.0 differ)"),
    QR_BUILTIN_LAZY("not=", bi_core_not_eq, 1, -1, "[x & more]", "(not (= x ...))"),
    QR_BUILTIN("compare", bi_core_compare, 2, 2, "[x y]", "-1, 0 or 1: numbers, strings, keywords, vectors"),
    QR_BUILTIN("not", bi_core_not, 1, 1, "[x]", "true when x is nil or false"),
    QR_BUILTIN_LAZY("identity", bi_core_identity, 1, 1, "[x]", "x"),
    QR_BUILTIN("nil?", bi_core_nil_p, 1, 1, "[x]", "true when x is nil"),
    QR_BUILTIN("some?", bi_core_some_p, 1, 1, "[x]", "true when x is not nil"),
    QR_BUILTIN("string?", bi_core_string_p, 1, 1, "[x]", "true for strings"),
    QR_BUILTIN("number?", bi_core_number_p, 1, 1, "[x]", "true for integers and doubles"),
    QR_BUILTIN("int?", bi_core_int_p, 1, 1, "[x]", "true for integers"),
    QR_BUILTIN("integer?", bi_core_int_p, 1, 1, "[x]", "true for integers"),
    QR_BUILTIN("double?", bi_core_double_p, 1, 1, "[x]", "true for doubles"),
    QR_BUILTIN("float?", bi_core_double_p, 1, 1, "[x]", "true for doubles"),
    QR_BUILTIN("keyword?", bi_core_keyword_p, 1, 1, "[x]", "true for keywords"),
    QR_BUILTIN("symbol?", bi_core_symbol_p, 1, 1, "[x]", "true for symbols"),
    QR_BUILTIN("map?", bi_core_map_p, 1, 1, "[x]", "true for maps"),
    QR_BUILTIN("vector?", bi_core_vector_p, 1, 1, "[x]", "true for vectors"),
    QR_BUILTIN("list?", bi_core_list_p, 1, 1, "[x]", "true for lists"),
    QR_BUILTIN("set?", bi_core_set_p, 1, 1, "[x]", "true for sets"),
    QR_BUILTIN("coll?", bi_core_coll_p, 1, 1, "[x]", "true for vectors, lists, maps and sets"),
    QR_BUILTIN("seq?", bi_core_seq_p, 1, 1, "[x]", "true for lists"),
    QR_BUILTIN("sequential?", bi_core_sequential_p, 1, 1, "[x]", "true for vectors and lists"),
    QR_BUILTIN("seqable?", bi_core_seqable_p, 1, 1, "[x]", "true for nil, collections and strings"),
    QR_BUILTIN("fn?", bi_core_fn_p, 1, 1, "[x]", "true for functions"),
    QR_BUILTIN("ifn?", bi_core_ifn_p, 1, 1, "[x]", "true for anything callable (functions, keywords, maps, sets, vectors)"),
    QR_BUILTIN("boolean?", bi_core_boolean_p, 1, 1, "[x]", "true for true and false"),
    QR_BUILTIN("true?", bi_core_true_p, 1, 1, "[x]", "true when x is true"),
    QR_BUILTIN("false?", bi_core_false_p, 1, 1, "[x]", "true when x is false"),
    QR_BUILTIN("regex?", bi_core_regex_p, 1, 1, "[x]", "true for regexes"),
    QR_BUILTIN("var?", bi_core_var_p, 1, 1, "[x]", "true for vars"),
    QR_BUILTIN("type", bi_core_type, 1, 1, "[x]", "the type of x as a keyword (:string, :integer, :map, ...)"),
    QR_BUILTIN_LAZY("str", bi_core_str, 0, -1, "[& xs]", "concatenates the printed forms of xs (nil prints nothing)"),
    QR_BUILTIN_LAZY("pr-str", bi_core_pr_str, 0, -1, "[& xs]", "the readable printed form of xs, space separated"),
    QR_BUILTIN("print-str", bi_core_print_str, 0, -1, "[& xs]", "the printed form of xs as print shows it"),
    QR_BUILTIN_LAZY("println", bi_core_println, 0, -1, "[& xs]", "writes xs and a newline to the captured output"),
    QR_BUILTIN_LAZY("print", bi_core_print, 0, -1, "[& xs]", "writes xs to the captured output"),
    QR_BUILTIN_LAZY("prn", bi_core_prn, 0, -1, "[& xs]", "writes the readable forms of xs and a newline"),
    QR_BUILTIN_LAZY("pr", bi_core_pr, 0, -1, "[& xs]", "writes the readable forms of xs"),
    QR_BUILTIN_LAZY("list", bi_core_list, 0, -1, "[& xs]", "a list of xs"),
    QR_BUILTIN_LAZY("vector", bi_core_vector, 0, -1, "[& xs]", "a vector of xs"),
    QR_BUILTIN_LAZY("hash-map", bi_core_hash_map, 0, -1, "[& kvs]", "a map of the key/value pairs"),
    QR_BUILTIN("array-map", bi_core_hash_map, 0, -1, "[& kvs]", "a map of the key/value pairs"),
    QR_BUILTIN("hash-set", bi_core_hash_set, 0, -1, "[& xs]", "a set of xs"),
    QR_BUILTIN("keyword", bi_core_keyword, 1, 2, "[name] or [ns name]", "a keyword from a string or symbol"),
    QR_BUILTIN("symbol", bi_core_symbol, 1, 2, "[name] or [ns name]", "a symbol from a string or keyword"),
    QR_BUILTIN("name", bi_core_name, 1, 1, "[x]", "the name of a keyword or symbol (without namespace), or the string"),
    QR_BUILTIN("namespace", bi_core_namespace, 1, 1, "[x]", "the namespace of a keyword or symbol, or nil"),
    QR_BUILTIN("comp", bi_core_comp, 0, -1, "[& fs]", "the composition of fs, applied right to left"),
    QR_BUILTIN("partial", bi_core_partial, 1, -1, "[f & args]", "f with its first arguments fixed"),
    QR_BUILTIN("juxt", bi_core_juxt, 1, -1, "[& fs]", "a function returning the vector of each f applied to its arguments"),
    QR_BUILTIN("complement", bi_core_complement, 1, 1, "[f]", "a function returning (not (f ...))"),
    QR_BUILTIN("constantly", bi_core_constantly, 1, 1, "[x]", "a function that always returns x"),
    QR_BUILTIN("fnil", bi_core_fnil, 2, 4, "[f default & defaults]", "f with nil arguments replaced by defaults"),
    QR_BUILTIN("every-pred", bi_core_every_pred, 1, -1, "[& preds]", "a predicate true when every pred holds for every argument"),
    QR_BUILTIN("apply", bi_core_apply, 2, -1, "[f & args coll]", "calls f with args followed by the items of coll"),
    QR_BUILTIN("reduced", bi_core_reduced, 1, 1, "[x]", "stops a reduce early with x"),
    QR_BUILTIN("reduced?", bi_core_reduced_p, 1, 1, "[x]", "true for values made by reduced"),
    QR_BUILTIN("--nthnext", bi_core_nthnext, 2, 2, "[coll n]", "internal: rest of coll from n, nil when empty"),
    QR_BUILTIN("--destructure-map", bi_core_destructure_map, 1, 1, "[x]", "internal"),
    QR_BUILTIN("--no-match", bi_core_no_match, 2, 2, "[what value]", "internal"),
    {.hdr = {.name = NULL}},
};
