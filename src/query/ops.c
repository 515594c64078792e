/*
 * ops.c: the transform ops of the query DSL, one record each (name, keys, summary,
 * example, check, emit), in one table at the end of this file. The validator reads a
 * step's keys from the record (unknown and missing keys are reported from it), the
 * check function validates the values and says what the step makes (its shape), and the
 * emit function writes the Lisp expression the step's `def` binds. The DSL reference
 * (qr_query_each_op) and the docs' list of ops come from the same table; adding an op is
 * adding a record (the seed's open question on extensibility): existing queries cannot
 * change meaning, since an op never changes once published, and an unknown op is an
 * error that lists the known ones.
 *
 * Each emitter writes one line, or (c->wrap, when the one line would be too long) the
 * layout seed 000 shows, assuming the expression starts at column 2 under its `def`.
 *
 * Rejected: a switch over op names in the compiler (the validator, the docs and the
 * compiler would each need to learn a new op); ops as Lisp macros (a model would see
 * them in programs and write them where they do not exist).
 */
#include "query_int.h"

#include <math.h>
#include <string.h>

const char *const qq_key_names[QK_COUNT] = {"on",     "where",   "by",   "order", "n",
                                            "select", "compute", "left", "right", "type"};

int qq_key_index(const char *s, size_t n)
{
    for (int i = 0; i < QK_COUNT; i++)
        if (strlen(qq_key_names[i]) == n && !memcmp(qq_key_names[i], s, n))
            return i;
    return -1;
}

/* ---- helpers ---- */

static int input(qq_ctx *c, qr_val v, const char *key)
{
    qq_push_key(c, key);
    int bi = qq_need_binding(c, v, "a binding to work on");
    qq_pop(c);
    return bi;
}

static bool need_seq(qq_ctx *c, int bi, const char *key, const char *op, bool records, bool group)
{
    qq_push_key(c, key);
    bool ok = qq_need_seq(c, &c->binds[bi], op, records, group);
    qq_pop(c);
    return ok;
}

/* The input's shape, or an unknown one when the input has problems (the step's other
 * keys are still checked, so that every problem is reported at once). */
static const qq_shape *in_shape(qq_ctx *c, int in, bool ok)
{
    static const qq_shape unknown = {.kind = SK_UNKNOWN};
    return ok ? &c->binds[in].shape : &unknown;
}

/* The shape of a step that keeps its input's items (filter, sort, take...). */
static void same_items(qq_ctx *c, int in, qq_shape *out)
{
    if (in < 0)
        return;
    qq_shape_copy(c, out, &c->binds[in].shape);
    if (out->kind == SK_UNKNOWN)
        out->kind = SK_SEQ;
}

static bool is_name(qr_val v)
{
    return v.t == QR_T_KW || v.t == QR_T_STR;
}

/* A field, or a vector of fields, as a canonical vector of keywords. */
static bool field_list(qq_ctx *c, const qq_shape *s, qr_val v, const char *key, qr_val *out)
{
    qq_push_key(c, key);
    bool ok = true;
    qr_vecb vb;
    if (is_name(v)) {
        qr_val kw;
        const qq_field *f;
        ok = qq_resolve_field(c, s, v, &kw, &f);
        qr_vecb_init(&vb, c->a, 1);
        if (ok)
            qr_vecb_push(&vb, kw);
    } else if ((v.t == QR_T_VEC || v.t == QR_T_LIST) && qr_vec_len(v) > 0) {
        size_t n = qr_vec_len(v);
        qr_vecb_init(&vb, c->a, n);
        for (size_t i = 0; i < n; i++) {
            qr_val kw;
            const qq_field *f;
            qq_push_index(c, (long)i);
            if (!qq_resolve_field(c, s, qr_vec_at(v, i), &kw, &f)) {
                ok = false;
            } else {
                bool dup = false;
                for (size_t j = 0; j < vb.buf->used; j++)
                    dup = dup || qr_equal(vb.buf->items[j], kw);
                if (dup) {
                    qq_problem(c, NULL, qq_show(c, kw), "each field once",
                               "remove the repeated field", "field %s is listed twice",
                               qq_show(c, kw));
                    ok = false;
                } else {
                    qr_vecb_push(&vb, kw);
                }
            }
            qq_pop(c);
        }
    } else {
        qq_problem(c, &v, NULL, "a field keyword or a non-empty vector of them",
                   qq_fmt(c, "e.g. :%s :author or :%s [:author :email]", key, key), "bad :%s %s",
                   key, qq_show(c, v));
        qq_pop(c);
        return false;
    }
    qq_pop(c);
    *out = qr_vecb_finish(&vb, QR_T_VEC);
    return ok;
}

/* (juxt :a :b) for several fields, :a for one. */
static void emit_keyfn(qr_buf *b, qr_val fields)
{
    if (qr_vec_len(fields) == 1) {
        qr_print(b, qr_vec_at(fields, 0), QR_PRINT_READABLY);
        return;
    }
    qr_buf_puts(b, "(juxt");
    for (size_t i = 0; i < qr_vec_len(fields); i++) {
        qr_buf_putc(b, ' ');
        qr_print(b, qr_vec_at(fields, i), QR_PRINT_READABLY);
    }
    qr_buf_putc(b, ')');
}

static void pad(qr_buf *b, int n)
{
    qr_buf_putc(b, '\n');
    for (int i = 0; i < n; i++)
        qr_buf_putc(b, ' ');
}

/* ---- filter ---- */

static bool check_filter(qq_ctx *c, qq_step *st, const qr_val *raw, const bool *has, qq_shape *out)
{
    (void)has;
    int in = input(c, raw[QK_ON], "on");
    bool in_ok = in >= 0 && need_seq(c, in, "on", "filter", true, false);
    st->in = in;
    qq_push_key(c, "where");
    bool ok = qq_check_where(c, in_shape(c, in, in_ok), raw[QK_WHERE], &st->keys[QK_WHERE], 0);
    qq_pop(c);
    same_items(c, in, out);
    return ok && in_ok;
}

static void emit_filter(qq_ctx *c, const qq_step *st, qr_buf *b)
{
    qr_buf_puts(b, "(filter (fn [x] ");
    c->where_col = c->wrap ? 18 : 0;
    qq_emit_where(c, &c->binds[st->in].shape, st->keys[QK_WHERE], "x", b);
    c->where_col = 0;
    qr_buf_putc(b, ')');
    if (c->wrap)
        pad(b, 10);
    else
        qr_buf_putc(b, ' ');
    qr_buf_printf(b, "%s)", qq_sym(c, st->in));
}

/* ---- sort ---- */

static bool order_of(qq_ctx *c, qr_val v, qr_val *out)
{
    const char *s;
    size_t n;
    static const char *const orders[] = {"asc", "desc"};
    if (qq_name_of(v, &s, &n) &&
        ((n == 3 && !memcmp(s, "asc", 3)) || (n == 4 && !memcmp(s, "desc", 4)))) {
        *out = qq_kw(c, s, n);
        return true;
    }
    const char *hint = "sort :asc (smallest first) or :desc (largest first)";
    if (qq_name_of(v, &s, &n)) {
        if (n >= 3 && !memcmp(s, "des", 3))
            hint = "write :desc";
        else if (n >= 3 && !memcmp(s, "asc", 3))
            hint = "write :asc";
        else
            hint = qq_did_you_mean(c, s, n, orders, 2, ":", hint);
    }
    qq_problem(c, &v, NULL, ":asc or :desc", hint, "bad sort order %s", qq_show(c, v));
    return false;
}

static bool is_order_name(qr_val v)
{
    const char *s;
    size_t n;
    return qq_name_of(v, &s, &n) &&
           ((n == 3 && !memcmp(s, "asc", 3)) || (n == 4 && !memcmp(s, "desc", 4)));
}

static bool sort_key(qq_ctx *c, const qq_shape *s, qr_val v, qr_val dflt, qr_vecb *vb)
{
    qr_val field = v, order = dflt, kw, o;
    const qq_field *f;
    if ((v.t == QR_T_VEC || v.t == QR_T_LIST) && qr_vec_len(v) == 2) {
        field = qr_vec_at(v, 0);
        qq_push_index(c, 1);
        bool ok = order_of(c, qr_vec_at(v, 1), &order);
        qq_pop(c);
        if (!ok)
            return false;
        qq_push_index(c, 0);
        ok = qq_resolve_field(c, s, field, &kw, &f);
        qq_pop(c);
        if (!ok)
            return false;
    } else if (is_name(v)) {
        if (!qq_resolve_field(c, s, v, &kw, &f))
            return false;
    } else {
        qq_problem(c, &v, NULL, "a field keyword, or [field order]",
                   "e.g. :by :files, or :by [[:files :desc] [:author :asc]]", "bad sort key %s",
                   qq_show(c, v));
        return false;
    }
    if (f && (f->type == FT_COLL)) {
        qq_problem(c, NULL, qq_show(c, kw), "a field holding numbers or text",
                   "sort by a field of numbers, text or dates",
                   "cannot sort by %s, which holds "
                   "collections",
                   qq_show(c, kw));
        return false;
    }
    o = order;
    qr_val pair[2] = {kw, o};
    qr_vecb_push(vb, qr_vec_from(c->a, QR_T_VEC, pair, 2));
    return true;
}

static bool check_sort(qq_ctx *c, qq_step *st, const qr_val *raw, const bool *has, qq_shape *out)
{
    int in = input(c, raw[QK_ON], "on");
    bool in_ok = in >= 0 && need_seq(c, in, "on", "sort", true, false);
    st->in = in;
    const qq_shape *s = in_shape(c, in, in_ok);
    qr_val order = qq_kw(c, "asc", 3);
    bool ok = in_ok;
    if (has[QK_ORDER]) {
        qq_push_key(c, "order");
        ok = order_of(c, raw[QK_ORDER], &order);
        qq_pop(c);
    }
    qr_val by = raw[QK_BY];
    qr_vecb vb;
    qr_vecb_init(&vb, c->a, 2);
    qq_push_key(c, "by");
    if (is_name(by)) {
        ok = sort_key(c, s, by, order, &vb) && ok;
    } else if ((by.t == QR_T_VEC || by.t == QR_T_LIST) && qr_vec_len(by) == 2 &&
               is_name(qr_vec_at(by, 0)) && is_order_name(qr_vec_at(by, 1))) {
        ok = sort_key(c, s, by, order, &vb) && ok; /* [:files :desc]: one key and its order */
    } else if ((by.t == QR_T_VEC || by.t == QR_T_LIST) && qr_vec_len(by) > 0) {
        for (size_t i = 0; i < qr_vec_len(by); i++) {
            qq_push_index(c, (long)i);
            ok = sort_key(c, s, qr_vec_at(by, i), order, &vb) && ok;
            qq_pop(c);
        }
    } else {
        qq_problem(c, &by, NULL, "a field keyword or a vector of sort keys",
                   "e.g. :by :files :order :desc", "bad :by %s", qq_show(c, by));
        ok = false;
    }
    qq_pop(c);
    st->keys[QK_BY] = qr_vecb_finish(&vb, QR_T_VEC);
    same_items(c, in, out);
    return ok;
}

static void emit_sort_by(qr_buf *b, qr_val pair, const char *coll)
{
    size_t on;
    const char *o = qr_sym_name(qr_vec_at(pair, 1).sym, &on);
    qr_buf_puts(b, "(sort-by ");
    qr_print(b, qr_vec_at(pair, 0), QR_PRINT_READABLY);
    if (o[0] == 'd')
        qr_buf_puts(b, " :desc");
    if (coll)
        qr_buf_printf(b, " %s", coll);
    qr_buf_putc(b, ')');
}

static void emit_sort(qq_ctx *c, const qq_step *st, qr_buf *b)
{
    qr_val by = st->keys[QK_BY];
    size_t n = qr_vec_len(by);
    if (n == 1) {
        emit_sort_by(b, qr_vec_at(by, 0), qq_sym(c, st->in));
        return;
    }
    /* stable sorts from the last key to the first */
    qr_buf_printf(b, "(->> %s", qq_sym(c, st->in));
    for (size_t i = n; i-- > 0;) {
        qr_buf_putc(b, ' ');
        emit_sort_by(b, qr_vec_at(by, i), NULL);
    }
    qr_buf_putc(b, ')');
}

/* ---- take, drop ---- */

static bool count_arg(qq_ctx *c, qr_val v, qr_val *out)
{
    qq_push_key(c, "n");
    bool ok = true;
    if (v.t == QR_T_INT && v.i >= 0) {
        *out = v;
    } else if (v.t == QR_T_DOUBLE && v.d >= 0 && v.d <= 1e15 && floor(v.d) == v.d) {
        *out = qr_int((int64_t)v.d);
    } else {
        qq_problem(c, &v, NULL, "a whole number, 0 or more", "e.g. :n 5", "bad :n %s",
                   qq_show(c, v));
        ok = false;
    }
    qq_pop(c);
    return ok;
}

static bool check_take(qq_ctx *c, qq_step *st, const qr_val *raw, const bool *has, qq_shape *out)
{
    (void)has;
    int in = input(c, raw[QK_ON], "on");
    bool ok = count_arg(c, raw[QK_N], &st->keys[QK_N]);
    if (in < 0 || !need_seq(c, in, "on", st->op->name, false, false))
        return false;
    st->in = in;
    same_items(c, in, out);
    return ok;
}

static void emit_take(qq_ctx *c, const qq_step *st, qr_buf *b)
{
    qr_buf_printf(b, "(%s %lld %s)", st->op->name, (long long)st->keys[QK_N].i, qq_sym(c, st->in));
}

/* ---- map ---- */

static bool check_map(qq_ctx *c, qq_step *st, const qr_val *raw, const bool *has, qq_shape *out)
{
    int in = input(c, raw[QK_ON], "on");
    bool in_ok = in >= 0 && need_seq(c, in, "on", "map", true, false);
    st->in = in;
    const qq_shape *s = in_shape(c, in, in_ok);
    if (!has[QK_SELECT] && !has[QK_COMPUTE]) {
        qq_problem(c, NULL, "neither", ":select, :compute or both",
                   "e.g. :select [:hash :author] :compute {:lines [:+ :additions :deletions]}",
                   ":map needs :select (fields to keep) or :compute (fields to add)");
        return false;
    }
    qq_shape_unknown(out, qq_fmt(c, "the records of :%s", st->as));
    out->kind = SK_SEQ;
    out->records = true;
    out->closed = has[QK_SELECT] || s->closed;
    bool ok = in_ok;
    qr_val rs = raw[QK_SELECT];
    if (has[QK_SELECT] && has[QK_COMPUTE] && (rs.t == QR_T_VEC || rs.t == QR_T_LIST) &&
        qr_vec_len(rs) == 0) {
        /* :select [] keeps no field: the records are the computed fields only (a rename:
         * :select [] :compute {:who :author}) */
        st->keys[QK_SELECT] = qr_vec_empty(QR_T_VEC);
    } else if (has[QK_SELECT]) {
        if (field_list(c, s, raw[QK_SELECT], "select", &st->keys[QK_SELECT])) {
            qr_val sel = st->keys[QK_SELECT];
            for (size_t i = 0; i < qr_vec_len(sel); i++) {
                size_t n;
                const char *nm = qr_sym_name(qr_vec_at(sel, i).sym, &n);
                const qq_field *f = qq_field_find(s, nm, n);
                qq_shape_add(c, out, nm, n, f ? f->type : FT_ANY, f && f->always);
            }
        } else {
            ok = false;
        }
    } else {
        for (size_t i = 0; i < s->nfields; i++)
            qq_shape_add(c, out, s->fields[i].name, strlen(s->fields[i].name), s->fields[i].type,
                         s->fields[i].always);
    }
    if (has[QK_COMPUTE]) {
        qr_val m = raw[QK_COMPUTE];
        qq_push_key(c, "compute");
        if (m.t != QR_T_MAP || qr_map_len(m) == 0) {
            qq_problem(c, &m, NULL, "a map from new field names to expressions",
                       "e.g. {:risk [:+ [:* :deletions 2] :additions]}", "bad :compute %s",
                       qq_show(c, m));
            ok = false;
        } else {
            qr_mapb mb;
            qr_mapb_init(&mb, c->a, qr_map_len(m));
            for (size_t i = 0; i < qr_map_len(m); i++) {
                qr_val k = qr_map_key_at(m, i), e;
                const char *kn;
                size_t kl;
                if (!qq_name_of(k, &kn, &kl) || !qr_kw_valid(kn, kl) || kl == 0) {
                    qq_problem(c, &k, NULL, "a field name (keyword)", "e.g. :risk",
                               "bad field name %s", qq_show(c, k));
                    ok = false;
                    continue;
                }
                qq_push_key(c, qr_arena_strndup(c->a, kn, kl));
                qr_val kw = qq_kw(c, kn, kl);
                bool in_select = false;
                if (has[QK_SELECT] && st->keys[QK_SELECT].t == QR_T_VEC)
                    for (size_t j = 0; j < qr_vec_len(st->keys[QK_SELECT]); j++)
                        in_select = in_select || qr_equal(qr_vec_at(st->keys[QK_SELECT], j), kw);
                uint8_t type;
                bool always;
                if (in_select) {
                    qq_problem(c, NULL, qq_show(c, kw), "a name not in :select",
                               "rename the computed field", "%s is both selected and computed",
                               qq_show(c, kw));
                    ok = false;
                } else if (qq_check_expr(c, s, qr_map_val_at(m, i), &e, &type, &always, 0)) {
                    qr_mapb_put(&mb, kw, e);
                    qq_shape_add(c, out, kn, kl, type, always);
                } else {
                    ok = false;
                }
                qq_pop(c);
            }
            st->keys[QK_COMPUTE] = qr_mapb_finish(&mb, QR_T_MAP);
        }
        qq_pop(c);
    }
    return ok;
}

static void emit_map(qq_ctx *c, const qq_step *st, qr_buf *b)
{
    const qq_shape *s = &c->binds[st->in].shape;
    qr_val sel = st->keys[QK_SELECT], comp = st->keys[QK_COMPUTE];
    bool assoc = sel.t != QR_T_VEC;
    int col = assoc ? 24 : 16; /* where entries after the first start, when wrapped */
    qr_buf_puts(b, assoc ? "(map (fn [x] (assoc x " : "(map (fn [x] {");
    size_t k = 0;
    for (size_t i = 0; !assoc && i < qr_vec_len(sel); i++, k++) {
        if (k)
            c->wrap ? pad(b, col) : qr_buf_putc(b, ' ');
        qr_val f = qr_vec_at(sel, i);
        qr_print(b, f, QR_PRINT_READABLY);
        qr_buf_putc(b, ' ');
        qq_emit_field(b, f, "x");
    }
    for (size_t i = 0; comp.t == QR_T_MAP && i < qr_map_len(comp); i++, k++) {
        if (k)
            c->wrap ? pad(b, col) : qr_buf_putc(b, ' ');
        qr_print(b, qr_map_key_at(comp, i), QR_PRINT_READABLY);
        qr_buf_putc(b, ' ');
        qq_emit_expr(c, s, qr_map_val_at(comp, i), "x", b);
    }
    qr_buf_puts(b, assoc ? "))" : "})");
    if (c->wrap)
        pad(b, 7);
    else
        qr_buf_putc(b, ' ');
    qr_buf_printf(b, "%s)", qq_sym(c, st->in));
}

/* ---- group ---- */

static bool check_group(qq_ctx *c, qq_step *st, const qr_val *raw, const bool *has, qq_shape *out)
{
    (void)has;
    int in = input(c, raw[QK_ON], "on");
    bool in_ok = in >= 0 && need_seq(c, in, "on", "group", true, false);
    st->in = in;
    bool ok = field_list(c, in_shape(c, in, in_ok), raw[QK_BY], "by", &st->keys[QK_BY]) && in_ok;
    same_items(c, in, out);
    out->kind = SK_GROUP;
    out->by = st->keys[QK_BY];
    return ok;
}

static void emit_group(qq_ctx *c, const qq_step *st, qr_buf *b)
{
    qr_buf_puts(b, "(group-by ");
    emit_keyfn(b, st->keys[QK_BY]);
    qr_buf_printf(b, " %s)", qq_sym(c, st->in));
}

/* ---- aggregate ---- */

enum { AG_COUNT, AG_SUM, AG_AVG, AG_MIN, AG_MAX, AG_DISTINCT, AG_N };
static const char *const agg_fns[AG_N] = {"count", "sum", "avg", "min", "max", "count-distinct"};

static const struct {
    const char *wrong, *right;
} agg_misspelt[] = {
    {"mean", "avg"},
    {"average", "avg"},
    {"total", "sum"},
    {"minimum", "min"},
    {"maximum", "max"},
    {"distinct", "count-distinct"},
    {"count_distinct", "count-distinct"},
    {"nunique", "count-distinct"},
    {"uniq", "count-distinct"},
    {"cnt", "count"},
};

static int agg_find(const char *s, size_t n)
{
    for (int i = 0; i < AG_N; i++)
        if (strlen(agg_fns[i]) == n && !memcmp(agg_fns[i], s, n))
            return i;
    return -1;
}

static bool check_agg_fn(qq_ctx *c, const qq_shape *s, qr_val v, qr_val *out, uint8_t *type,
                         bool *always)
{
    const char *fn;
    size_t fl;
    bool vec = (v.t == QR_T_VEC || v.t == QR_T_LIST) && qr_vec_len(v) >= 1;
    if (!vec || !qq_name_of(qr_vec_at(v, 0), &fn, &fl)) {
        qq_problem(c, &v, NULL,
                   "[:count], [:count :field], [:sum :field], [:avg :field], [:min :field], "
                   "[:max :field] or [:count-distinct :field]",
                   v.t == QR_T_KW ? qq_fmt(c, "write [%s] in a vector", qq_show(c, v))
                                  : "e.g. {:commits [:count] :lines [:sum :additions]}",
                   "bad aggregate %s", qq_show(c, v));
        return false;
    }
    int ag = agg_find(fn, fl);
    if (ag < 0) {
        const char *hint = NULL;
        for (size_t i = 0; i < sizeof agg_misspelt / sizeof agg_misspelt[0]; i++)
            if (strlen(agg_misspelt[i].wrong) == fl && !memcmp(agg_misspelt[i].wrong, fn, fl))
                hint = qq_fmt(c, "write :%s", agg_misspelt[i].right);
        if (!hint)
            hint = qq_did_you_mean(c, fn, fl, agg_fns, AG_N, ":",
                                   "arithmetic on fields belongs in a :map step's :compute");
        qr_val f0 = qr_vec_at(v, 0);
        qq_push_index(c, 0);
        qq_problem(c, &f0, NULL, "one of :count :sum :avg :min :max :count-distinct", hint,
                   "unknown aggregate :%.*s", (int)fl, fn);
        qq_pop(c);
        return false;
    }
    size_t n = qr_vec_len(v);
    if ((ag == AG_COUNT && n > 2) || (ag != AG_COUNT && n != 2)) {
        qq_problem(c, &v, NULL,
                   ag == AG_COUNT ? "[:count] or [:count :field]"
                                  : qq_fmt(c, "[:%s :field]", agg_fns[ag]),
                   ag == AG_COUNT ? "[:count] counts records; [:count :f] those with :f"
                                  : qq_fmt(c, "e.g. [:%s :additions]", agg_fns[ag]),
                   "bad aggregate %s", qq_show(c, v));
        return false;
    }
    qr_val items[2] = {qq_kw(c, agg_fns[ag], strlen(agg_fns[ag])), qr_nil()};
    const qq_field *f = NULL;
    if (n == 2) {
        qq_push_index(c, 1);
        bool ok = qq_resolve_field(c, s, qr_vec_at(v, 1), &items[1], &f);
        if (ok && f && (ag == AG_SUM || ag == AG_AVG) && f->type != FT_NUM && f->type != FT_ANY &&
            f->type != FT_NIL) {
            qq_problem(c, NULL,
                       qq_fmt(c, "%s holding %s", qq_show(c, items[1]), qq_ftype_name(f->type)),
                       "a field holding numbers",
                       "count values with [:count :field] or [:count-distinct :field]",
                       ":%s adds numbers, and %s holds %s", agg_fns[ag], qq_show(c, items[1]),
                       qq_ftype_name(f->type));
            ok = false;
        } else if (ok && f && (ag == AG_MIN || ag == AG_MAX) &&
                   (f->type == FT_BOOL || f->type == FT_COLL)) {
            qq_problem(c, NULL, qq_show(c, items[1]), "a field holding numbers or text",
                       "min and max order numbers, text and dates", ":%s cannot order %s",
                       agg_fns[ag], qq_ftype_name(f->type));
            ok = false;
        }
        qq_pop(c);
        if (!ok)
            return false;
    }
    *out = qr_vec_from(c->a, QR_T_VEC, items, n);
    *type = (ag == AG_MIN || ag == AG_MAX) ? (f ? f->type : FT_ANY) : FT_NUM;
    *always = ag == AG_COUNT || ag == AG_DISTINCT || ag == AG_SUM;
    return true;
}

static bool check_aggregate(qq_ctx *c, qq_step *st, const qr_val *raw, const bool *has,
                            qq_shape *out)
{
    (void)has;
    int in = input(c, raw[QK_ON], "on");
    bool in_ok = in >= 0 && need_seq(c, in, "on", "aggregate", true, true);
    st->in = in;
    const qq_shape *s = in_shape(c, in, in_ok);
    bool group = s->kind == SK_GROUP;
    qq_shape_unknown(out, qq_fmt(c, "the records of :%s", st->as));
    out->kind = group ? SK_SEQ : SK_RECORD;
    out->records = true;
    out->closed = true;
    if (group)
        for (size_t i = 0; i < qr_vec_len(s->by); i++) {
            size_t n;
            const char *nm = qr_sym_name(qr_vec_at(s->by, i).sym, &n);
            const qq_field *f = qq_field_find(s, nm, n);
            qq_shape_add(c, out, nm, n, f ? f->type : FT_ANY, false);
        }
    qr_val m = raw[QK_COMPUTE];
    qq_push_key(c, "compute");
    if (m.t != QR_T_MAP || qr_map_len(m) == 0) {
        qq_problem(c, &m, NULL, "a map from result names to aggregates",
                   "e.g. {:commits [:count] :lines [:sum :additions]}", "bad :compute %s",
                   qq_show(c, m));
        qq_pop(c);
        return false;
    }
    bool ok = in_ok;
    qr_mapb mb;
    qr_mapb_init(&mb, c->a, qr_map_len(m));
    for (size_t i = 0; i < qr_map_len(m); i++) {
        qr_val k = qr_map_key_at(m, i), e;
        const char *kn;
        size_t kl;
        if (!qq_name_of(k, &kn, &kl) || !qr_kw_valid(kn, kl) || kl == 0) {
            qq_problem(c, &k, NULL, "a result name (keyword)", "e.g. :commits",
                       "bad result name %s", qq_show(c, k));
            ok = false;
            continue;
        }
        qq_push_key(c, qr_arena_strndup(c->a, kn, kl));
        if (group && qq_field_find(out, kn, kl)) {
            qq_problem(c, NULL, qq_fmt(c, ":%.*s", (int)kl, kn),
                       "a name other than the group's key field",
                       "the group key is already in each result under this name; rename it",
                       ":%.*s is the group key", (int)kl, kn);
            ok = false;
        } else {
            uint8_t type;
            bool always;
            if (check_agg_fn(c, s, qr_map_val_at(m, i), &e, &type, &always)) {
                qr_mapb_put(&mb, qq_kw(c, kn, kl), e);
                qq_shape_add(c, out, kn, kl, type, always);
            } else {
                ok = false;
            }
        }
        qq_pop(c);
    }
    qq_pop(c);
    st->keys[QK_COMPUTE] = qr_mapb_finish(&mb, QR_T_MAP);
    return ok;
}

static void emit_agg_fn(qr_buf *b, qr_val e, const char *coll)
{
    size_t n;
    const char *fn = qr_sym_name(qr_vec_at(e, 0).sym, &n);
    int ag = agg_find(fn, n);
    if (qr_vec_len(e) == 1) {
        qr_buf_printf(b, "(count %s)", coll);
        return;
    }
    qr_buf fb;
    qr_buf_init(&fb);
    qr_print(&fb, qr_vec_at(e, 1), QR_PRINT_READABLY);
    const char *f = fb.p ? fb.p : "";
    switch (ag) {
    case AG_COUNT: qr_buf_printf(b, "(count (keep %s %s))", f, coll); break;
    case AG_SUM:
    case AG_AVG: qr_buf_printf(b, "(%s-by %s %s)", agg_fns[ag], f, coll); break;
    case AG_MIN:
    case AG_MAX: qr_buf_printf(b, "(%s (%s-by %s %s))", f, agg_fns[ag], f, coll); break;
    default: qr_buf_printf(b, "(count (distinct (keep %s %s)))", f, coll); break;
    }
    qr_buf_release(&fb);
}

static void emit_aggregate(qq_ctx *c, const qq_step *st, qr_buf *b)
{
    const qq_shape *s = &c->binds[st->in].shape;
    qr_val comp = st->keys[QK_COMPUTE];
    if (s->kind != SK_GROUP) {
        qr_buf_putc(b, '{');
        for (size_t i = 0; i < qr_map_len(comp); i++) {
            if (i)
                c->wrap ? pad(b, 3) : qr_buf_putc(b, ' ');
            qr_print(b, qr_map_key_at(comp, i), QR_PRINT_READABLY);
            qr_buf_putc(b, ' ');
            emit_agg_fn(b, qr_map_val_at(comp, i), qq_sym(c, st->in));
        }
        qr_buf_putc(b, '}');
        return;
    }
    qr_buf_puts(b, "(map (fn [[k items]]");
    if (c->wrap)
        pad(b, 9);
    else
        qr_buf_putc(b, ' ');
    qr_buf_putc(b, '{');
    size_t nby = qr_vec_len(s->by), k = 0;
    for (size_t i = 0; i < nby; i++, k++) {
        if (k)
            c->wrap ? pad(b, 10) : qr_buf_putc(b, ' ');
        qr_print(b, qr_vec_at(s->by, i), QR_PRINT_READABLY);
        if (nby == 1)
            qr_buf_puts(b, " k");
        else
            qr_buf_printf(b, " (nth k %zu)", i);
    }
    for (size_t i = 0; i < qr_map_len(comp); i++, k++) {
        if (k)
            c->wrap ? pad(b, 10) : qr_buf_putc(b, ' ');
        qr_print(b, qr_map_key_at(comp, i), QR_PRINT_READABLY);
        qr_buf_putc(b, ' ');
        emit_agg_fn(b, qr_map_val_at(comp, i), "items");
    }
    qr_buf_puts(b, "})");
    if (c->wrap)
        pad(b, 7);
    else
        qr_buf_putc(b, ' ');
    qr_buf_printf(b, "%s)", qq_sym(c, st->in));
}

/* ---- join ---- */

static bool check_join(qq_ctx *c, qq_step *st, const qr_val *raw, const bool *has, qq_shape *out)
{
    int l = input(c, raw[QK_LEFT], "left"), r = input(c, raw[QK_RIGHT], "right");
    bool ok = true;
    qr_val type = qq_kw(c, "left", 4);
    bool inner = false;
    if (has[QK_TYPE]) {
        const char *s;
        size_t n;
        qr_val t = raw[QK_TYPE];
        qq_push_key(c, "type");
        if (qq_name_of(t, &s, &n) &&
            ((n == 4 && !memcmp(s, "left", 4)) || (n == 5 && !memcmp(s, "inner", 5)))) {
            type = qq_kw(c, s, n);
            inner = n == 5;
        } else {
            qq_problem(c, &t, NULL, ":left or :inner",
                       ":left keeps every left record (merged with its first match, if "
                       "any); :inner keeps only those with a match",
                       "bad join type %s", qq_show(c, t));
            ok = false;
        }
        qq_pop(c);
    }
    if (l < 0 || r < 0)
        return false;
    if (!need_seq(c, l, "left", "join", true, false) ||
        !need_seq(c, r, "right", "join", true, false))
        return false;
    st->in = l;
    st->in2 = r;
    const qq_shape *ls = &c->binds[l].shape, *rs = &c->binds[r].shape;
    qr_val on = raw[QK_ON], lf, rf, lk = qr_nil(), rk = qr_nil();
    const qq_field *f;
    qq_push_key(c, "on");
    if (is_name(on)) {
        lf = rf = on;
    } else if ((on.t == QR_T_VEC || on.t == QR_T_LIST) && qr_vec_len(on) == 3 &&
               is_name(qr_vec_at(on, 0))) {
        const char *opn;
        size_t opl;
        qq_name_of(qr_vec_at(on, 0), &opn, &opl);
        if (!(opl == 1 && opn[0] == '=')) {
            qr_val o = qr_vec_at(on, 0);
            qq_push_index(c, 0);
            qq_problem(c, &o, NULL, ":= (joins match equal fields)", "e.g. :on [:= :author :name]",
                       "a join matches on :=, not :%.*s", (int)opl, opn);
            qq_pop(c);
            qq_pop(c);
            return false;
        }
        lf = qr_vec_at(on, 1);
        rf = qr_vec_at(on, 2);
    } else {
        qq_problem(c, &on, NULL, "[:= left-field right-field], or one field both sides have",
                   "e.g. :on [:= :author :name] or :on :author", "bad join condition %s",
                   qq_show(c, on));
        qq_pop(c);
        return false;
    }
    bool two = !is_name(on);
    if (two)
        qq_push_index(c, 1);
    ok = qq_resolve_field(c, ls, lf, &lk, &f) && ok;
    if (two) {
        qq_pop(c);
        qq_push_index(c, 2);
    }
    ok = qq_resolve_field(c, rs, rf, &rk, &f) && ok;
    if (two)
        qq_pop(c);
    qq_pop(c);
    if (!ok)
        return false;
    qr_val cond[3] = {qq_kw(c, "=", 1), lk, rk};
    st->keys[QK_ON] = qr_vec_from(c->a, QR_T_VEC, cond, 3);
    st->keys[QK_TYPE] = type;
    qq_shape_unknown(out, qq_fmt(c, "the records of :%s", st->as));
    out->kind = SK_SEQ;
    out->records = true;
    out->closed = ls->closed && rs->closed;
    for (size_t i = 0; i < ls->nfields; i++)
        qq_shape_add(c, out, ls->fields[i].name, strlen(ls->fields[i].name), ls->fields[i].type,
                     ls->fields[i].always);
    for (size_t i = 0; i < rs->nfields; i++) {
        const qq_field *lfd = qq_field_find(out, rs->fields[i].name, strlen(rs->fields[i].name));
        uint8_t t = rs->fields[i].type;
        bool always = rs->fields[i].always && inner;
        if (lfd && !inner) { /* a left record without a match keeps its own value */
            t = lfd->type == t ? t : FT_ANY;
            always = always || (lfd->always && rs->fields[i].always);
        }
        qq_shape_add(c, out, rs->fields[i].name, strlen(rs->fields[i].name), t, always);
    }
    return true;
}

static void emit_join(qq_ctx *c, const qq_step *st, qr_buf *b)
{
    qr_val cond = st->keys[QK_ON];
    size_t tn;
    bool inner = qr_sym_name(st->keys[QK_TYPE].sym, &tn)[0] == 'i';
    qr_buf_puts(b, "(let [index (dissoc (group-by ");
    qr_print(b, qr_vec_at(cond, 2), QR_PRINT_READABLY);
    qr_buf_printf(b, " %s) nil)]", qq_sym(c, st->in2));
    if (c->wrap)
        pad(b, 4);
    else
        qr_buf_putc(b, ' ');
    if (inner) {
        qr_buf_puts(b, "(keep (fn [l] (when-let [r (first (get index ");
        qq_emit_field(b, qr_vec_at(cond, 1), "l");
        qr_buf_puts(b, "))] (merge l r)))");
    } else {
        qr_buf_puts(b, "(map (fn [l] (merge l (first (get index ");
        qq_emit_field(b, qr_vec_at(cond, 1), "l");
        qr_buf_puts(b, "))))");
    }
    qr_buf_printf(b, " %s))", qq_sym(c, st->in));
}

/* ---- first, last, distinct ---- */

static bool check_first(qq_ctx *c, qq_step *st, const qr_val *raw, const bool *has, qq_shape *out)
{
    (void)has;
    int in = input(c, raw[QK_ON], "on");
    if (in < 0 || !need_seq(c, in, "on", st->op->name, false, false))
        return false;
    st->in = in;
    qq_shape_copy(c, out, &c->binds[in].shape);
    out->origin = qq_fmt(c, "the %s record of :%s", st->op->name, c->binds[in].name);
    if (out->records)
        out->kind = SK_RECORD;
    else if (out->closed && out->kind == SK_SEQ)
        out->kind = SK_SCALAR;
    else
        out->kind = SK_UNKNOWN;
    return true;
}

static void emit_first(qq_ctx *c, const qq_step *st, qr_buf *b)
{
    qr_buf_printf(b, "(%s %s)", st->op->name, qq_sym(c, st->in));
}

static bool check_distinct(qq_ctx *c, qq_step *st, const qr_val *raw, const bool *has,
                           qq_shape *out)
{
    int in = input(c, raw[QK_ON], "on");
    bool in_ok = in >= 0 && need_seq(c, in, "on", "distinct", has[QK_BY], false);
    st->in = in;
    bool ok = in_ok;
    if (has[QK_BY])
        ok = field_list(c, in_shape(c, in, in_ok), raw[QK_BY], "by", &st->keys[QK_BY]) && ok;
    same_items(c, in, out);
    return ok;
}

static void emit_distinct(qq_ctx *c, const qq_step *st, qr_buf *b)
{
    if (st->keys[QK_BY].t != QR_T_VEC) {
        qr_buf_printf(b, "(distinct %s)", qq_sym(c, st->in));
        return;
    }
    qr_buf_puts(b, "(distinct-by ");
    emit_keyfn(b, st->keys[QK_BY]);
    qr_buf_printf(b, " %s)", qq_sym(c, st->in));
}

/* ---- concat ---- */

static bool check_concat(qq_ctx *c, qq_step *st, const qr_val *raw, const bool *has, qq_shape *out)
{
    (void)has;
    qr_val v = raw[QK_ON];
    if (!(v.t == QR_T_VEC || v.t == QR_T_LIST) || qr_vec_len(v) < 2 || qr_vec_len(v) > 16) {
        qq_push_key(c, "on");
        qq_problem(c, &v, NULL, "a vector of 2 to 16 bindings", "e.g. :on [:recent :older]",
                   "bad :on %s", qq_show(c, v));
        qq_pop(c);
        return false;
    }
    size_t n = qr_vec_len(v);
    qr_vecb vb;
    qr_vecb_init(&vb, c->a, n);
    bool ok = true;
    qq_push_key(c, "on");
    for (size_t i = 0; i < n; i++) {
        qq_push_index(c, (long)i);
        int bi = qq_need_binding(c, qr_vec_at(v, i), "a binding holding a vector");
        bool good = bi >= 0 && qq_need_seq(c, &c->binds[bi], "concat", false, false);
        qq_pop(c);
        if (!good) {
            ok = false;
            continue;
        }
        if (i == 0)
            st->in = bi;
        else if (i == 1)
            st->in2 = bi;
        qr_vecb_push(&vb, qq_kw(c, c->binds[bi].name, strlen(c->binds[bi].name)));
        /* the items: the first input's fields, then the others'; a field some input
         * lacks is not always present */
        const qq_shape *bs = &c->binds[bi].shape;
        if (i == 0) {
            qq_shape_copy(c, out, bs);
            out->kind = SK_SEQ;
            continue;
        }
        out->records = out->records && bs->records;
        out->closed = out->closed && bs->closed;
        for (size_t k = 0; k < out->nfields; k++) {
            const qq_field *f = qq_field_find(bs, out->fields[k].name, strlen(out->fields[k].name));
            if (!f || !f->always)
                out->fields[k].always = false;
            if (f && f->type != out->fields[k].type)
                out->fields[k].type = FT_ANY;
        }
        for (size_t k = 0; k < bs->nfields; k++)
            if (!qq_field_find(out, bs->fields[k].name, strlen(bs->fields[k].name)))
                qq_shape_add(c, out, bs->fields[k].name, strlen(bs->fields[k].name),
                             bs->fields[k].type, false);
    }
    qq_pop(c);
    st->keys[QK_ON] = qr_vecb_finish(&vb, QR_T_VEC);
    out->origin = qq_fmt(c, "the items of %zu bindings", n);
    return ok;
}

static void emit_concat(qq_ctx *c, const qq_step *st, qr_buf *b)
{
    qr_val on = st->keys[QK_ON];
    qr_buf_puts(b, "(vec (concat");
    for (size_t i = 0; i < qr_vec_len(on); i++) {
        size_t n;
        const char *nm = qr_sym_name(qr_vec_at(on, i).sym, &n);
        qr_buf_printf(b, " %s", qq_sym(c, qq_lookup(c, nm, n)));
    }
    qr_buf_puts(b, "))");
}

/* ---- the table ---- */

static const qq_op ops[] = {
    {"filter", "keep the records for which :where holds", ":on :where", "",
     "{:op :filter :on :commits :as :large :where [:> :files 5]}", check_filter, emit_filter},
    {"sort", "order records by one or more fields (stable); :order :asc (default) or :desc",
     ":on :by", ":order", "{:op :sort :on :large :as :ranked :by :files :order :desc}", check_sort,
     emit_sort},
    {"take", "the first :n items", ":on :n", "", "{:op :take :on :ranked :as :top5 :n 5}",
     check_take, emit_take},
    {"drop", "the items after the first :n", ":on :n", "", "{:op :drop :on :ranked :as :rest :n 5}",
     check_take, emit_take},
    {"map",
     "records with only the :select fields (all of them without :select; none with :select "
     "[]) plus :compute fields (a field keyword renames: :compute {:who :author})",
     ":on",
     ":select :compute",
     "{:op :map :on :commits :as :scored :select [:hash :author] :compute {:risk [:+ [:* "
     ":deletions 2] :additions]}}",
     check_map, emit_map},
    {"group", "a map from each value of the :by field(s) to the records with it", ":on :by", "",
     "{:op :group :on :commits :as :by_author :by :author}", check_group, emit_group},
    {"aggregate",
     "one record per group (the :by fields and the :compute aggregates), or one record for a "
     "vector",
     ":on :compute", "",
     "{:op :aggregate :on :by_author :as :stats :compute {:count [:count] :files [:sum "
     ":files]}}",
     check_aggregate, emit_aggregate},
    {"join",
     "each :left record merged with the first :right record whose field matches (:type :left, "
     "the default, keeps unmatched left records; :inner drops them)",
     ":left :right :on", ":type",
     "{:op :join :left :commits :right :authors :on [:= :author :author] :as :enriched}",
     check_join, emit_join},
    {"first", "the first item (a record), or nil", ":on", "", "{:op :first :on :ranked :as :top}",
     check_first, emit_first},
    {"last", "the last item (a record), or nil", ":on", "", "{:op :last :on :ranked :as :bottom}",
     check_first, emit_first},
    {"concat", "the items of several bindings, one after the other", ":on", "",
     "{:op :concat :on [:recent :older] :as :all}", check_concat, emit_concat},
    {"distinct", "the items without repeats (by the :by fields when given), first ones kept", ":on",
     ":by", "{:op :distinct :on :commits :as :authors :by :author}", check_distinct, emit_distinct},
};

const qq_op *qq_op_find(const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strlen(ops[i].name) == n && !memcmp(ops[i].name, name, n))
            return &ops[i];
    return NULL;
}

size_t qq_op_count(void)
{
    return sizeof ops / sizeof ops[0];
}

const qq_op *qq_op_at(size_t i)
{
    return &ops[i];
}

void qr_query_each_op(void (*fn)(void *ud, const char *name, const char *required,
                                 const char *optional, const char *summary, const char *example),
                      void *ud)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        fn(ud, ops[i].name, ops[i].required, ops[i].optional, ops[i].summary, ops[i].example);
}
