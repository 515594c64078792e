/*
 * lib_seq.c: the sequence builtins that access (first, rest, nth, last, peek...), build
 * (cons, conj, concat, into, vec, set), transform (map, filter, reduce, keep, mapcat...),
 * cut (take, drop, split-at...), combine (interleave, interpose, zipmap) and generate
 * (range, repeat, iterate, cycle). Sorting, grouping, partitioning, flattening, the
 * predicates over items and the PTC aggregates are in lib_seq_sort.c (one file would be
 * too long to read); what both use is in lib_seq.h.
 *
 * There are no lazy sequences: every result is a vector (conj and into keep their
 * target's type), built once with a size hint. Inputs are viewed as arrays (lx_items), so
 * a vector's or list's own storage is read in place, and results that are a run of the
 * input (rest, take, drop, subvec) share that storage.
 *
 * Unbounded generators are QR_T_LAZY values. Only what bounds them accepts them: take,
 * take-while, first, second, nth, the walkers of several collections (map, mapcat,
 * interleave, zipmap) when another collection is bounded, and rest/drop/nthrest, which
 * return another unbounded value. Everything else raises a type-error through lx_items.
 */
#include "lib_seq.h"

#include <math.h>
#include <string.h>

/* ---- helpers ---- */

static qr_val lazy_new(qr_lx *lx, lazy_kind kind, qr_val a, qr_val b)
{
    lazy_seq *z = qr_arena_alloc(lx->a, sizeof *z);
    memset(z, 0, sizeof *z);
    z->kind = kind;
    z->a = a;
    z->b = b;
    qr_val v = {.t = QR_T_LAZY};
    v.p = z;
    return v;
}

int64_t seq_count_arg(qr_lx *lx, const char *fname, int argn, qr_val v)
{
    if (v.t == QR_T_INT)
        return v.i;
    if (v.t == QR_T_DOUBLE && !isnan(v.d)) {
        double c = ceil(v.d);
        if (c >= 9.2e18)
            return INT64_MAX;
        if (c <= -9.2e18)
            return INT64_MIN;
        return (int64_t)c;
    }
    lx_type_error(lx, fname, argn, "an integer", v);
}

static size_t clamp_count(int64_t n)
{
    return n <= 0 ? 0 : (size_t)n;
}

/* Items [from, to) of coll (whose items are s) as a vector; a vector's or list's own
 * storage is shared (a list's view is re-tagged: same items, vector type). */
static qr_val sub_vec(qr_lx *lx, qr_val coll, lx_seq s, size_t from, size_t to)
{
    if (to > s.n)
        to = s.n;
    if (from >= to)
        return qr_vec_empty(QR_T_VEC);
    if (coll.t == QR_T_VEC || coll.t == QR_T_LIST) {
        qr_val r = qr_vec_slice(lx->a, coll, from, to);
        r.t = QR_T_VEC;
        return r;
    }
    return qr_vec_from(lx->a, QR_T_VEC, s.items + from, to - from);
}

static qr_val vec_of(qr_lx *lx, qr_val coll, lx_seq s)
{
    return sub_vec(lx, coll, s, 0, s.n);
}

/* Walks an unbounded sequence item by item (iterate applies f once per step). */
typedef struct lz_iter {
    const lazy_seq *z;
    size_t i;
    qr_val cur;
} lz_iter;

static qr_val lz_next(qr_lx *lx, lz_iter *it)
{
    qr_val x;
    if (it->z->kind == LAZY_ITERATE)
        x = it->i == 0 ? it->z->b : lx_call1(lx, it->z->a, it->cur);
    else
        x = lx_lazy_nth(lx, it->z, it->i);
    it->cur = x;
    it->i++;
    lx_tick(lx);
    return x;
}

/* The unbounded sequence v without its first n items (still unbounded). */
static qr_val lazy_drop(qr_lx *lx, qr_val v, size_t n)
{
    const lazy_seq *z = lx_lazy(v);
    if (n == 0)
        return v;
    if (z->h.bounded) {
        if (n >= z->h.count)
            return qr_vec_empty(QR_T_LIST);
        return lx_range_new(lx, qr_range_at(v, n), z->h.step, z->h.count - n);
    }
    switch (z->kind) {
    case LAZY_RANGE: return lazy_new(lx, LAZY_RANGE, lx_lazy_nth(lx, z, n), z->b);
    case LAZY_REPEAT: return v;
    case LAZY_ITERATE: {
        lz_iter it = {z, 0, qr_nil()};
        for (size_t i = 0; i <= n; i++)
            lz_next(lx, &it);
        return lazy_new(lx, LAZY_ITERATE, z->a, it.cur);
    }
    case LAZY_CYCLE: {
        size_t len = z->a.c->len, k = n % len;
        if (k == 0)
            return v;
        qr_vecb vb;
        qr_vecb_init(&vb, lx->a, len);
        for (size_t i = 0; i < len; i++)
            qr_vecb_push(&vb, qr_vec_at(z->a, (k + i) % len));
        return lazy_new(lx, LAZY_CYCLE, qr_vecb_finish(&vb, QR_T_VEC), qr_nil());
    }
    }
    return v;
}

/* Item i of coll without materializing the rest (maps give a [k v] vector, strings a
 * one-character string). False when i is past the end. */
static bool item_at(qr_lx *lx, qr_val coll, size_t i, qr_val *out, const char *fname)
{
    switch (coll.t) {
    case QR_T_NIL: return false;
    case QR_T_VEC:
    case QR_T_LIST:
        if (i >= coll.c->len)
            return false;
        *out = qr_vec_at(coll, i);
        return true;
    case QR_T_MAP: {
        if (i >= coll.c->len)
            return false;
        qr_val kv[2] = {qr_map_key_at(coll, i), qr_map_val_at(coll, i)};
        *out = qr_vec_from(lx->a, QR_T_VEC, kv, 2);
        return true;
    }
    case QR_T_SET:
        if (i >= coll.c->len)
            return false;
        *out = qr_map_key_at(coll, i);
        return true;
    case QR_T_STR: {
        const qr_str *s = coll.s;
        if (i >= s->nchars)
            return false;
        size_t off = qr_utf8_offset(s->data, s->len, i);
        size_t k = off < s->len ? qr_utf8_offset(s->data + off, s->len - off, 1) : 0;
        *out = qr_str_new(lx->a, s->data + off, k);
        return true;
    }
    case QR_T_LAZY: {
        const lazy_seq *z = lx_lazy(coll);
        if (z->h.bounded && i >= z->h.count)
            return false;
        if (z->kind != LAZY_ITERATE) {
            *out = lx_lazy_nth(lx, z, i);
            return true;
        }
        lz_iter it = {z, 0, qr_nil()}; /* steps counted, so a far index times out */
        for (size_t k = 0; k <= i; k++)
            lz_next(lx, &it);
        *out = it.cur;
        return true;
    }
    default: lx_type_error(lx, fname, 1, "a collection", coll);
    }
}

/* Several collections walked in step (map, mapcat, interleave, zipmap): returns the
 * length of the shortest bounded one and fills out[] with items, unbounded ones taken to
 * that length. When all are unbounded, lx_items raises the usual type-error. */
static size_t multi_items(qr_lx *lx, const char *fname, const qr_val *colls, int nc, int argn0,
                          lx_seq *out)
{
    size_t n = SIZE_MAX;
    bool bounded = false;
    for (int c = 0; c < nc; c++) {
        if (lx_unbounded(colls[c]))
            continue;
        out[c] = lx_items(lx, colls[c], fname, argn0 + c);
        if (out[c].n < n)
            n = out[c].n;
        bounded = true;
    }
    if (!bounded)
        lx_items(lx, colls[0], fname, argn0); /* raises */
    for (int c = 0; c < nc; c++) {
        if (!lx_unbounded(colls[c]))
            continue;
        qr_val v = lx_take(lx, colls[c], n, fname);
        out[c].items = qr_vec_items(v);
        out[c].n = n;
    }
    return n;
}

static lx_seq *seq_array(qr_lx *lx, int n)
{
    return qr_arena_alloc(lx->a, sizeof(lx_seq) * (size_t)n);
}

/* ---- access ---- */

static qr_val bi_seq_first(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val r;
    return item_at(lx, argv[0], 0, &r, "first") ? r : qr_nil();
}

static qr_val bi_seq_second(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val r;
    return item_at(lx, argv[0], 1, &r, "second") ? r : qr_nil();
}

static qr_val bi_seq_ffirst(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val r;
    if (!item_at(lx, argv[0], 0, &r, "ffirst"))
        return qr_nil();
    return item_at(lx, r, 0, &r, "ffirst") ? r : qr_nil();
}

static qr_val bi_seq_last(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val coll = argv[0], r;
    size_t n;
    switch (coll.t) {
    case QR_T_NIL: return qr_nil();
    case QR_T_VEC:
    case QR_T_LIST:
    case QR_T_MAP:
    case QR_T_SET: n = coll.c->len; break;
    case QR_T_STR: n = coll.s->nchars; break;
    case QR_T_LAZY:
        if (qr_is_range(coll))
            return qr_int(qr_range_at(coll, qr_range_len(coll) - 1));
        /* fall through */
    default: lx_items(lx, coll, "last", 1); return qr_nil(); /* raises */
    }
    return n && item_at(lx, coll, n - 1, &r, "last") ? r : qr_nil();
}

/* (drop n coll) for rest, next, nthrest, nthnext and drop. */
static qr_val drop_n(qr_lx *lx, qr_val coll, size_t n, const char *fname, int argn)
{
    if (coll.t == QR_T_LAZY)
        return lazy_drop(lx, coll, n);
    lx_seq s = lx_items(lx, coll, fname, argn);
    return sub_vec(lx, coll, s, n, s.n);
}

static qr_val nil_if_empty(qr_val v)
{
    return v.t == QR_T_VEC && v.c->len == 0 ? qr_nil() : v;
}

static qr_val bi_seq_rest(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return drop_n(lx, argv[0], 1, "rest", 1);
}

static qr_val bi_seq_next(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return nil_if_empty(drop_n(lx, argv[0], 1, "next", 1));
}

static qr_val bi_seq_nfirst(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val r;
    if (!item_at(lx, argv[0], 0, &r, "nfirst"))
        return qr_nil();
    return nil_if_empty(drop_n(lx, r, 1, "nfirst", 1));
}

static qr_val bi_seq_nnext(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return nil_if_empty(drop_n(lx, argv[0], 2, "nnext", 1));
}

static qr_val bi_seq_nthrest(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    int64_t n = seq_count_arg(lx, "nthrest", 2, argv[1]);
    if (argv[0].t == QR_T_NIL)
        return argv[0];
    if (n <= 0) {
        if (argv[0].t != QR_T_LAZY)
            lx_items(lx, argv[0], "nthrest", 1); /* type check */
        return argv[0];
    }
    return drop_n(lx, argv[0], (size_t)n, "nthrest", 1);
}

static qr_val seq_of(qr_lx *lx, qr_val coll, const char *fname, int argn);

static qr_val bi_seq_nthnext(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    int64_t n = seq_count_arg(lx, "nthnext", 2, argv[1]);
    if (n <= 0)
        return seq_of(lx, argv[0], "nthnext", 1);
    return nil_if_empty(drop_n(lx, argv[0], (size_t)n, "nthnext", 1));
}

static qr_val bi_seq_nth(qr_lx *lx, int argc, const qr_val *argv)
{
    qr_val coll = argv[0], idx = argv[1], r;
    int64_t i;
    if (idx.t == QR_T_INT)
        i = idx.i;
    else if (idx.t == QR_T_DOUBLE && isfinite(idx.d) && fabs(idx.d) < 9e18)
        i = (int64_t)idx.d;
    else
        lx_type_error(lx, "nth", 2, "an integer index", idx);
    if (coll.t == QR_T_MAP || coll.t == QR_T_SET)
        lx_type_error(lx, "nth", 1, "a vector, list, string or sequence", coll);
    if (coll.t == QR_T_NIL)
        return argc == 3 ? argv[2] : qr_nil();
    if (i >= 0 && item_at(lx, coll, (size_t)i, &r, "nth"))
        return r;
    if (argc == 3)
        return argv[2];
    /* the PTC-Lisp specification: "item at index or nil", as get gives (Clojure throws;
     * docs/decisions.md, "The specification's examples, second pass") */
    return qr_nil();
}

static qr_val bi_seq_peek(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val c = argv[0];
    if (c.t == QR_T_NIL)
        return qr_nil();
    if (c.t != QR_T_VEC && c.t != QR_T_LIST)
        lx_type_error(lx, "peek", 1, "a vector or list", c);
    if (c.c->len == 0)
        return qr_nil();
    return qr_vec_at(c, c.t == QR_T_VEC ? c.c->len - 1 : 0);
}

static qr_val bi_seq_pop(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val c = argv[0];
    if (c.t == QR_T_NIL)
        return qr_nil();
    if (c.t != QR_T_VEC && c.t != QR_T_LIST)
        lx_type_error(lx, "pop", 1, "a vector or list", c);
    size_t n = c.c->len;
    if (n == 0) /* the specification: nil (Clojure throws; docs/decisions.md) */
        return qr_nil();
    return c.t == QR_T_VEC ? qr_vec_slice(lx->a, c, 0, n - 1) : qr_vec_slice(lx->a, c, 1, n);
}

static qr_val bi_seq_subvec(qr_lx *lx, int argc, const qr_val *argv)
{
    qr_val v = argv[0];
    if (v.t != QR_T_VEC)
        lx_type_error(lx, "subvec", 1, "a vector", v);
    int64_t n = (int64_t)v.c->len;
    int64_t from = lx_arg_int(lx, "subvec", 2, argv[1]);
    int64_t to = argc == 3 ? lx_arg_int(lx, "subvec", 3, argv[2]) : n;
    if (from < 0 || to > n || from > to)
        lx_throw(lx, QR_LE_INDEX, "'subvec' range %lld..%lld is out of bounds for a vector of "
                                  "%lld items",
                 (long long)from, (long long)to, (long long)n);
    return qr_vec_slice(lx->a, v, (size_t)from, (size_t)to);
}

/* ---- counting and emptiness ---- */

static qr_val bi_seq_count(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val c = argv[0];
    switch (c.t) {
    case QR_T_NIL: return qr_int(0);
    case QR_T_VEC:
    case QR_T_LIST:
    case QR_T_MAP:
    case QR_T_SET: return qr_int((int64_t)c.c->len);
    case QR_T_STR: return qr_int((int64_t)c.s->nchars);
    case QR_T_LAZY:
        if (qr_is_range(c))
            return qr_int((int64_t)qr_range_len(c));
        /* fall through */
    default: lx_items(lx, c, "count", 1); return qr_nil(); /* raises */
    }
}

/* -1: not a collection; else whether it is empty. An unbounded sequence is not empty. */
static int emptiness(qr_val c)
{
    switch (c.t) {
    case QR_T_NIL: return 1;
    case QR_T_VEC:
    case QR_T_LIST:
    case QR_T_MAP:
    case QR_T_SET: return c.c->len == 0;
    case QR_T_STR: return c.s->len == 0;
    case QR_T_LAZY: return 0;
    default: return -1;
    }
}

static qr_val bi_seq_empty_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    int e = emptiness(argv[0]);
    if (e < 0)
        lx_type_error(lx, "empty?", 1, "a collection", argv[0]);
    return qr_bool(e == 1);
}

static qr_val bi_seq_not_empty(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    int e = emptiness(argv[0]);
    if (e < 0)
        lx_type_error(lx, "not-empty", 1, "a collection", argv[0]);
    return e ? qr_nil() : argv[0];
}

/* (seq coll): nil when empty; a non-empty vector or list as it is; else the items. */
static qr_val seq_of(qr_lx *lx, qr_val coll, const char *fname, int argn)
{
    if (coll.t == QR_T_LAZY)
        return coll;
    if ((coll.t == QR_T_VEC || coll.t == QR_T_LIST) && coll.c->len)
        return coll;
    lx_seq s = lx_items(lx, coll, fname, argn);
    if (s.n == 0)
        return qr_nil();
    return qr_vec_from(lx->a, QR_T_VEC, s.items, s.n);
}

static qr_val bi_seq_seq(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return seq_of(lx, argv[0], "seq", 1);
}

static qr_val bi_seq_vec(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val c = argv[0];
    if (c.t == QR_T_VEC)
        return c;
    lx_seq s = lx_items(lx, c, "vec", 1);
    return vec_of(lx, c, s);
}

static qr_val bi_seq_sequence(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc == 2)
        return lx_into_xf(lx, qr_vec_empty(QR_T_VEC), argv[0], argv[1]);
    lx_seq s = lx_items(lx, argv[0], "sequence", 1);
    return vec_of(lx, argv[0], s);
}

static qr_val bi_seq_set(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val c = argv[0];
    if (c.t == QR_T_SET)
        return c;
    lx_seq s = lx_items(lx, c, "set", 1);
    qr_mapb mb;
    qr_mapb_init(&mb, lx->a, s.n);
    for (size_t i = 0; i < s.n; i++)
        qr_mapb_put(&mb, s.items[i], s.items[i]);
    lx_tick_n(lx, s.n);
    return qr_mapb_finish(&mb, QR_T_SET);
}

static qr_val bi_seq_empty(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)lx;
    (void)argc;
    switch (argv[0].t) {
    case QR_T_VEC: return qr_vec_empty(QR_T_VEC);
    case QR_T_LIST: return qr_vec_empty(QR_T_LIST);
    case QR_T_MAP: return qr_map_empty();
    case QR_T_SET: return qr_set_empty();
    case QR_T_LAZY: return qr_vec_empty(QR_T_VEC);
    default: return qr_nil();
    }
}

/* ---- building ---- */

static qr_val bi_seq_cons(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    lx_seq s = lx_items(lx, argv[1], "cons", 2);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, s.n + 1);
    qr_vecb_push(&vb, argv[0]);
    for (size_t i = 0; i < s.n; i++)
        qr_vecb_push(&vb, s.items[i]);
    lx_tick_n(lx, s.n);
    return qr_vecb_finish(&vb, QR_T_VEC);
}

/* A list of xs (reversed when rev) followed by the items of tail. */
static qr_val list_prepend(qr_lx *lx, const qr_val *xs, size_t nx, bool rev, const qr_val *tail,
                           size_t ntail)
{
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, nx + ntail);
    for (size_t i = 0; i < nx; i++)
        qr_vecb_push(&vb, xs[rev ? nx - 1 - i : i]);
    for (size_t i = 0; i < ntail; i++)
        qr_vecb_push(&vb, tail[i]);
    lx_tick_n(lx, nx + ntail);
    return qr_vecb_finish(&vb, QR_T_LIST);
}

/* Adds x to map m as conj does: a [k v] vector, or every entry of a map. */
static qr_val map_conj(qr_lx *lx, qr_val m, qr_val x, const char *fname)
{
    if (x.t == QR_T_NIL)
        return m;
    if (x.t == QR_T_MAP) {
        for (size_t i = 0; i < x.c->len; i++)
            m = qr_map_assoc(lx->a, m, qr_map_key_at(x, i), qr_map_val_at(x, i));
        return m;
    }
    if (x.t == QR_T_VEC && x.c->len == 2)
        return qr_map_assoc(lx->a, m, qr_vec_at(x, 0), qr_vec_at(x, 1));
    lx_type_error(lx, fname, 0, "a [key value] vector or a map to add to a map", x);
}

static qr_val bi_seq_conj(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc == 0)
        return qr_vec_empty(QR_T_VEC);
    qr_val c = argv[0];
    const qr_val *xs = argv + 1;
    size_t nx = (size_t)argc - 1;
    switch (c.t) {
    case QR_T_NIL:
        if (nx == 0)
            return c;
        return list_prepend(lx, xs, nx, true, NULL, 0);
    case QR_T_VEC:
        for (size_t i = 0; i < nx; i++)
            c = qr_vec_conj(lx->a, c, xs[i]);
        return c;
    case QR_T_LIST:
        if (nx == 0)
            return c;
        return list_prepend(lx, xs, nx, true, qr_vec_items(c), c.c->len);
    case QR_T_MAP:
        for (size_t i = 0; i < nx; i++)
            c = map_conj(lx, c, xs[i], "conj");
        return c;
    case QR_T_SET:
        for (size_t i = 0; i < nx; i++)
            c = qr_set_conj(lx->a, c, xs[i]);
        return c;
    default: lx_type_error(lx, "conj", 1, "a collection", c);
    }
}

static qr_val bi_seq_into(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc == 0)
        return qr_vec_empty(QR_T_VEC);
    qr_val to = lx_realize(lx, argv[0]);
    if (argc == 1)
        return to;
    if (argc == 3)
        return lx_into_xf(lx, to, argv[1], argv[2]);
    qr_val from = argv[1];
    if (to.t != QR_T_NIL && to.t != QR_T_VEC && to.t != QR_T_LIST && to.t != QR_T_MAP &&
        to.t != QR_T_SET)
        lx_type_error(lx, "into", 1, "a collection", to);
    if (qr_is_sorted(to)) { /* one at a time, each to its place */
        lx_seq s = lx_items(lx, from, "into", 2);
        for (size_t i = 0; i < s.n; i++)
            to = to.t == QR_T_MAP ? map_conj(lx, to, s.items[i], "into")
                                  : qr_set_conj(lx->a, to, s.items[i]);
        lx_tick_n(lx, s.n);
        return to;
    }
    if (to.t == QR_T_MAP && from.t == QR_T_MAP) {
        if (to.c->len == 0)
            return from;
        for (size_t i = 0; i < from.c->len; i++)
            to = qr_map_assoc(lx->a, to, qr_map_key_at(from, i), qr_map_val_at(from, i));
        lx_tick_n(lx, from.c->len);
        return to;
    }
    lx_seq s = lx_items(lx, from, "into", 2);
    if (s.n == 0)
        return to;
    lx_tick_n(lx, s.n);
    switch (to.t) {
    case QR_T_NIL: return list_prepend(lx, s.items, s.n, true, NULL, 0);
    case QR_T_LIST: return list_prepend(lx, s.items, s.n, true, qr_vec_items(to), to.c->len);
    case QR_T_VEC: {
        size_t n0 = to.c->len;
        if (n0 == 0)
            return vec_of(lx, from, s);
        if (s.n * 2 < n0) {
            /* appends in place when `to` ends its buffer: cheaper than copying `to` */
            for (size_t i = 0; i < s.n; i++)
                to = qr_vec_conj(lx->a, to, s.items[i]);
            return to;
        }
        qr_vecb vb;
        qr_vecb_init(&vb, lx->a, n0 + s.n);
        const qr_val *old = qr_vec_items(to);
        for (size_t i = 0; i < n0; i++)
            qr_vecb_push(&vb, old[i]);
        for (size_t i = 0; i < s.n; i++)
            qr_vecb_push(&vb, s.items[i]);
        return qr_vecb_finish(&vb, QR_T_VEC);
    }
    case QR_T_MAP: {
        if (to.c->len && s.n <= to.c->len) {
            for (size_t i = 0; i < s.n; i++)
                to = map_conj(lx, to, s.items[i], "into");
            return to;
        }
        qr_mapb mb;
        qr_mapb_init(&mb, lx->a, to.c->len + s.n);
        for (size_t i = 0; i < to.c->len; i++)
            qr_mapb_put(&mb, qr_map_key_at(to, i), qr_map_val_at(to, i));
        for (size_t i = 0; i < s.n; i++) {
            qr_val x = s.items[i];
            if (x.t == QR_T_VEC && x.c->len == 2) {
                qr_mapb_put(&mb, qr_vec_at(x, 0), qr_vec_at(x, 1));
            } else if (x.t == QR_T_MAP) {
                for (size_t k = 0; k < x.c->len; k++)
                    qr_mapb_put(&mb, qr_map_key_at(x, k), qr_map_val_at(x, k));
            } else if (x.t != QR_T_NIL) {
                lx_type_error(lx, "into", 0, "[key value] vectors or maps to add to a map", x);
            }
        }
        return qr_mapb_finish(&mb, QR_T_MAP);
    }
    default: { /* set */
        if (to.c->len && s.n <= to.c->len) {
            for (size_t i = 0; i < s.n; i++)
                to = qr_set_conj(lx->a, to, s.items[i]);
            return to;
        }
        qr_mapb mb;
        qr_mapb_init(&mb, lx->a, to.c->len + s.n);
        for (size_t i = 0; i < to.c->len; i++)
            qr_mapb_put(&mb, qr_map_key_at(to, i), qr_map_key_at(to, i));
        for (size_t i = 0; i < s.n; i++)
            if (!qr_mapb_slot(&mb, s.items[i]))
                qr_mapb_put(&mb, s.items[i], s.items[i]);
        return qr_mapb_finish(&mb, QR_T_SET);
    }
    }
}

static qr_val bi_seq_concat(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc == 1) {
        lx_seq s = lx_items(lx, argv[0], "concat", 1);
        return vec_of(lx, argv[0], s);
    }
    lx_seq *ss = seq_array(lx, argc ? argc : 1);
    size_t total = 0;
    for (int i = 0; i < argc; i++) {
        ss[i] = lx_items(lx, argv[i], "concat", i + 1);
        total += ss[i].n;
    }
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, total);
    for (int i = 0; i < argc; i++)
        for (size_t k = 0; k < ss[i].n; k++)
            qr_vecb_push(&vb, ss[i].items[k]);
    lx_tick_n(lx, total);
    return qr_vecb_finish(&vb, QR_T_VEC);
}

static qr_val bi_seq_list_star(qr_lx *lx, int argc, const qr_val *argv)
{
    lx_seq s = lx_items(lx, argv[argc - 1], "list*", argc);
    if (argc == 1 && s.n == 0)
        return qr_nil();
    return list_prepend(lx, argv, (size_t)argc - 1, false, s.items, s.n);
}

static qr_val bi_seq_reverse(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    lx_seq s = lx_items(lx, argv[0], "reverse", 1);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, s.n);
    for (size_t i = s.n; i > 0; i--)
        qr_vecb_push(&vb, s.items[i - 1]);
    lx_tick_n(lx, s.n);
    return qr_vecb_finish(&vb, QR_T_VEC);
}

/* ---- map, filter and friends ---- */

static qr_val map_impl(qr_lx *lx, int argc, const qr_val *argv, const char *fname)
{
    qr_val f = argv[0];
    seq_need_fn(lx, fname, 1, f);
    qr_vecb vb;
    if (argc == 2) {
        lx_seq s = lx_items(lx, argv[1], fname, 2);
        qr_vecb_init(&vb, lx->a, s.n);
        const seq_pf pf = seq_pf_for(lx, f);
        for (size_t i = 0; i < s.n; i++) {
            seq_prefetch(s.items, s.n, i, &pf);
            qr_vecb_push(&vb, seq_call1(lx, f, s.items[i]));
        }
        return qr_vecb_finish(&vb, QR_T_VEC);
    }
    int nc = argc - 1;
    lx_seq *ss = seq_array(lx, nc);
    size_t n = multi_items(lx, fname, argv + 1, nc, 2, ss);
    qr_val *args = qr_arena_alloc(lx->a, sizeof(qr_val) * (size_t)nc);
    qr_vecb_init(&vb, lx->a, n);
    for (size_t i = 0; i < n; i++) {
        for (int c = 0; c < nc; c++)
            args[c] = ss[c].items[i];
        qr_vecb_push(&vb, lx_apply(lx, f, nc, args));
    }
    return qr_vecb_finish(&vb, QR_T_VEC);
}

static qr_val bi_seq_map(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc == 1)
        return lx_transducer(lx, "map", argv[0]);
    return map_impl(lx, argc, argv, "map");
}

static qr_val bi_seq_mapv(qr_lx *lx, int argc, const qr_val *argv)
{
    return map_impl(lx, argc, argv, "mapv");
}

/* filter (keep = true) and remove (keep = false). Marks first, then copies the kept
 * items once; when everything is kept a vector is returned as it is. */
static qr_val filter_impl(qr_lx *lx, const qr_val *argv, bool keep, const char *fname)
{
    qr_val f = argv[0], coll = argv[1];
    seq_need_fn(lx, fname, 1, f);
    lx_seq s = lx_items(lx, coll, fname, 2);
    if (s.n == 0)
        return qr_vec_empty(QR_T_VEC);
    uint8_t *mark = qr_arena_alloc(lx->a, s.n);
    size_t kept = 0;
    const seq_pf pf = seq_pf_for(lx, f);
    for (size_t i = 0; i < s.n; i++) {
        seq_prefetch(s.items, s.n, i, &pf);
        bool t = qr_truthy(seq_call1(lx, f, s.items[i])) == keep;
        mark[i] = t;
        kept += t;
    }
    if (kept == s.n)
        return vec_of(lx, coll, s);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, kept);
    for (size_t i = 0; i < s.n; i++)
        if (mark[i])
            qr_vecb_push(&vb, s.items[i]);
    return qr_vecb_finish(&vb, QR_T_VEC);
}

static qr_val bi_seq_filter(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc == 1)
        return lx_transducer(lx, "filter", argv[0]);
    (void)argc;
    return filter_impl(lx, argv, true, "filter");
}

static qr_val bi_seq_filterv(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return filter_impl(lx, argv, true, "filterv");
}

static qr_val bi_seq_remove(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc == 1)
        return lx_transducer(lx, "remove", argv[0]);
    (void)argc;
    return filter_impl(lx, argv, false, "remove");
}

static qr_val bi_seq_keep(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc == 1)
        return lx_transducer(lx, "keep", argv[0]);
    (void)argc;
    qr_val f = argv[0];
    seq_need_fn(lx, "keep", 1, f);
    lx_seq s = lx_items(lx, argv[1], "keep", 2);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, s.n < 64 ? s.n : 64);
    const seq_pf pf = seq_pf_for(lx, f);
    for (size_t i = 0; i < s.n; i++) {
        seq_prefetch(s.items, s.n, i, &pf);
        qr_val r = seq_call1(lx, f, s.items[i]);
        if (r.t != QR_T_NIL)
            qr_vecb_push(&vb, r);
    }
    return qr_vecb_finish(&vb, QR_T_VEC);
}

static qr_val bi_seq_map_indexed(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val f = argv[0];
    seq_need_fn(lx, "map-indexed", 1, f);
    lx_seq s = lx_items(lx, argv[1], "map-indexed", 2);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, s.n);
    const seq_pf pf = seq_pf_for(lx, f);
    for (size_t i = 0; i < s.n; i++) {
        seq_prefetch(s.items, s.n, i, &pf);
        qr_vecb_push(&vb, lx_call2(lx, f, qr_int((int64_t)i), s.items[i]));
    }
    return qr_vecb_finish(&vb, QR_T_VEC);
}

static qr_val bi_seq_keep_indexed(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val f = argv[0];
    seq_need_fn(lx, "keep-indexed", 1, f);
    lx_seq s = lx_items(lx, argv[1], "keep-indexed", 2);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, s.n < 64 ? s.n : 64);
    const seq_pf pf = seq_pf_for(lx, f);
    for (size_t i = 0; i < s.n; i++) {
        seq_prefetch(s.items, s.n, i, &pf);
        qr_val r = lx_call2(lx, f, qr_int((int64_t)i), s.items[i]);
        if (r.t != QR_T_NIL)
            qr_vecb_push(&vb, r);
    }
    return qr_vecb_finish(&vb, QR_T_VEC);
}

static qr_val bi_seq_mapcat(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc == 1)
        return lx_transducer(lx, "mapcat", argv[0]);
    qr_val parts = map_impl(lx, argc, argv, "mapcat");
    size_t n = parts.c->len;
    const qr_val *p = qr_vec_items(parts);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, n * 2);
    for (size_t i = 0; i < n; i++) {
        if (!lx_seqable(p[i]))
            lx_type_error(lx, "mapcat", 0, "f to return collections", p[i]);
        lx_seq s = lx_items(lx, p[i], "mapcat", 0);
        for (size_t k = 0; k < s.n; k++)
            qr_vecb_push(&vb, s.items[k]);
        lx_tick_n(lx, s.n);
    }
    return qr_vecb_finish(&vb, QR_T_VEC);
}

/* ---- reduce ---- */

static qr_val bi_seq_reduce(qr_lx *lx, int argc, const qr_val *argv)
{
    qr_val f = argv[0];
    seq_need_fn(lx, "reduce", 1, f);
    if (qr_is_range(argv[argc - 1])) { /* item by item, never built */
        qr_val r = argv[argc - 1];
        uint64_t i = 0, n = qr_range_len(r);
        qr_val acc = argc == 3 ? lx_realize(lx, argv[1]) : qr_int(qr_range_at(r, i++));
        for (; i < n; i++) {
            acc = lx_call2(lx, f, acc, qr_int(qr_range_at(r, i)));
            if (lx_is_reduced(acc))
                return lx_unreduced(acc);
        }
        return acc;
    }
    lx_seq s = lx_items(lx, argv[argc - 1], "reduce", argc);
    size_t i = 0;
    qr_val acc;
    if (argc == 3) {
        acc = argv[1];
    } else {
        if (s.n == 0)
            return lx_apply(lx, f, 0, argv);
        acc = s.items[0];
        i = 1;
    }
    const seq_pf pf = seq_pf_for(lx, f);
    for (; i < s.n; i++) {
        seq_prefetch(s.items, s.n, i, &pf);
        acc = lx_call2(lx, f, acc, s.items[i]);
        if (lx_is_reduced(acc))
            return lx_unreduced(acc);
    }
    return acc;
}

static qr_val bi_seq_reduce_kv(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val f = argv[0], acc = argv[1], coll = argv[2];
    seq_need_fn(lx, "reduce-kv", 1, f);
    qr_val a[3];
    if (coll.t == QR_T_NIL)
        return acc;
    if (coll.t != QR_T_MAP && coll.t != QR_T_VEC)
        lx_type_error(lx, "reduce-kv", 3, "a map or vector", coll);
    for (size_t i = 0; i < coll.c->len; i++) {
        a[0] = acc;
        if (coll.t == QR_T_MAP) {
            a[1] = qr_map_key_at(coll, i);
            a[2] = qr_map_val_at(coll, i);
        } else {
            a[1] = qr_int((int64_t)i);
            a[2] = qr_vec_at(coll, i);
        }
        acc = lx_apply(lx, f, 3, a);
        if (lx_is_reduced(acc))
            return lx_unreduced(acc);
    }
    return acc;
}

static qr_val bi_seq_reductions(qr_lx *lx, int argc, const qr_val *argv)
{
    qr_val f = argv[0];
    seq_need_fn(lx, "reductions", 1, f);
    lx_seq s = lx_items(lx, argv[argc - 1], "reductions", argc);
    size_t i = 0;
    qr_val acc;
    if (argc == 3) {
        acc = argv[1];
    } else if (s.n == 0) {
        acc = lx_apply(lx, f, 0, argv);
    } else {
        acc = s.items[0];
        i = 1;
    }
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, s.n + 1);
    if (lx_is_reduced(acc)) {
        qr_vecb_push(&vb, lx_unreduced(acc));
        return qr_vecb_finish(&vb, QR_T_VEC);
    }
    qr_vecb_push(&vb, acc);
    for (; i < s.n; i++) {
        acc = lx_call2(lx, f, acc, s.items[i]);
        if (lx_is_reduced(acc)) {
            qr_vecb_push(&vb, lx_unreduced(acc));
            break;
        }
        qr_vecb_push(&vb, acc);
    }
    return qr_vecb_finish(&vb, QR_T_VEC);
}

/* ---- take and drop ---- */

static qr_val bi_seq_take(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc == 1)
        return lx_transducer(lx, "take", argv[0]);
    (void)argc;
    int64_t n = seq_count_arg(lx, "take", 1, argv[0]);
    qr_val coll = argv[1];
    if (n <= 0) {
        if (coll.t != QR_T_LAZY)
            lx_items(lx, coll, "take", 2); /* type check */
        return qr_vec_empty(QR_T_VEC);
    }
    if (coll.t == QR_T_LAZY)
        return lx_take(lx, coll, (size_t)n, "take");
    lx_seq s = lx_items(lx, coll, "take", 2);
    return sub_vec(lx, coll, s, 0, (size_t)n);
}

static qr_val bi_seq_drop(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc == 1)
        return lx_transducer(lx, "drop", argv[0]);
    (void)argc;
    int64_t n = seq_count_arg(lx, "drop", 1, argv[0]);
    return drop_n(lx, argv[1], clamp_count(n), "drop", 2);
}

static qr_val bi_seq_take_while(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc == 1)
        return lx_transducer(lx, "take-while", argv[0]);
    (void)argc;
    qr_val f = argv[0], coll = argv[1];
    seq_need_fn(lx, "take-while", 1, f);
    if (coll.t == QR_T_LAZY) {
        lz_iter it = {lx_lazy(coll), 0, qr_nil()};
        qr_vecb vb;
        qr_vecb_init(&vb, lx->a, 16);
        for (;;) {
            if (it.z->h.bounded && it.i >= it.z->h.count)
                break;
            qr_val x = lz_next(lx, &it);
            if (!qr_truthy(seq_call1(lx, f, x)))
                break;
            qr_vecb_push(&vb, x);
        }
        return qr_vecb_finish(&vb, QR_T_VEC);
    }
    lx_seq s = lx_items(lx, coll, "take-while", 2);
    size_t k = 0;
    while (k < s.n && qr_truthy(seq_call1(lx, f, s.items[k])))
        k++;
    return sub_vec(lx, coll, s, 0, k);
}

static qr_val bi_seq_drop_while(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc == 1)
        return lx_transducer(lx, "drop-while", argv[0]);
    (void)argc;
    qr_val f = argv[0], coll = argv[1];
    seq_need_fn(lx, "drop-while", 1, f);
    if (coll.t == QR_T_LAZY) {
        lz_iter it = {lx_lazy(coll), 0, qr_nil()};
        size_t k = 0;
        while (!(it.z->h.bounded && it.i >= it.z->h.count) &&
               qr_truthy(seq_call1(lx, f, lz_next(lx, &it))))
            k++;
        return lazy_drop(lx, coll, k);
    }
    lx_seq s = lx_items(lx, coll, "drop-while", 2);
    size_t k = 0;
    while (k < s.n && qr_truthy(seq_call1(lx, f, s.items[k])))
        k++;
    return sub_vec(lx, coll, s, k, s.n);
}

static qr_val bi_seq_take_last(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    int64_t n = seq_count_arg(lx, "take-last", 1, argv[0]);
    lx_seq s = lx_items(lx, argv[1], "take-last", 2);
    size_t k = clamp_count(n);
    if (k == 0 || s.n == 0)
        return qr_nil(); /* as Clojure: (take-last 0 xs) is nil */
    return sub_vec(lx, argv[1], s, k >= s.n ? 0 : s.n - k, s.n);
}

static qr_val bi_seq_drop_last(qr_lx *lx, int argc, const qr_val *argv)
{
    int64_t n = 1;
    if (argc == 2)
        n = seq_count_arg(lx, "drop-last", 1, argv[0]);
    qr_val coll = argv[argc - 1];
    lx_seq s = lx_items(lx, coll, "drop-last", argc);
    size_t k = clamp_count(n);
    return sub_vec(lx, coll, s, 0, k >= s.n ? 0 : s.n - k);
}

static qr_val bi_seq_butlast(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    lx_seq s = lx_items(lx, argv[0], "butlast", 1);
    if (s.n <= 1)
        return qr_nil();
    return sub_vec(lx, argv[0], s, 0, s.n - 1);
}

static qr_val pair(qr_lx *lx, qr_val a, qr_val b)
{
    qr_val v[2] = {a, b};
    return qr_vec_from(lx->a, QR_T_VEC, v, 2);
}

static qr_val bi_seq_split_at(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    size_t n = clamp_count(seq_count_arg(lx, "split-at", 1, argv[0]));
    lx_seq s = lx_items(lx, argv[1], "split-at", 2);
    return pair(lx, sub_vec(lx, argv[1], s, 0, n), sub_vec(lx, argv[1], s, n, s.n));
}

static qr_val bi_seq_split_with(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val f = argv[0];
    seq_need_fn(lx, "split-with", 1, f);
    lx_seq s = lx_items(lx, argv[1], "split-with", 2);
    size_t k = 0;
    while (k < s.n && qr_truthy(seq_call1(lx, f, s.items[k])))
        k++;
    return pair(lx, sub_vec(lx, argv[1], s, 0, k), sub_vec(lx, argv[1], s, k, s.n));
}

static qr_val bi_seq_take_nth(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    int64_t n = seq_count_arg(lx, "take-nth", 1, argv[0]);
    lx_seq s = lx_items(lx, argv[1], "take-nth", 2);
    if (s.n == 0)
        return qr_vec_empty(QR_T_VEC);
    if (n <= 0) /* Clojure repeats the first item forever */
        return lazy_new(lx, LAZY_REPEAT, s.items[0], qr_nil());
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, (s.n + (size_t)n - 1) / (size_t)n);
    for (size_t i = 0; i < s.n; i += (size_t)n)
        qr_vecb_push(&vb, s.items[i]);
    lx_tick_n(lx, s.n);
    return qr_vecb_finish(&vb, QR_T_VEC);
}

/* ---- interleave, interpose, zipmap ---- */

static qr_val bi_seq_interleave(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc == 0)
        return qr_vec_empty(QR_T_VEC);
    if (argc == 1) {
        lx_seq s = lx_items(lx, argv[0], "interleave", 1);
        return vec_of(lx, argv[0], s);
    }
    lx_seq *ss = seq_array(lx, argc);
    size_t n = multi_items(lx, "interleave", argv, argc, 1, ss);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, n * (size_t)argc);
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < argc; c++)
            qr_vecb_push(&vb, ss[c].items[i]);
    lx_tick_n(lx, n * (size_t)argc);
    return qr_vecb_finish(&vb, QR_T_VEC);
}

static qr_val bi_seq_interpose(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    lx_seq s = lx_items(lx, argv[1], "interpose", 2);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, s.n ? 2 * s.n - 1 : 0);
    for (size_t i = 0; i < s.n; i++) {
        if (i)
            qr_vecb_push(&vb, argv[0]);
        qr_vecb_push(&vb, s.items[i]);
    }
    lx_tick_n(lx, s.n);
    return qr_vecb_finish(&vb, QR_T_VEC);
}

static qr_val bi_seq_zipmap(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    lx_seq ss[2];
    size_t n = multi_items(lx, "zipmap", argv, 2, 1, ss);
    qr_mapb mb;
    qr_mapb_init(&mb, lx->a, n);
    for (size_t i = 0; i < n; i++)
        qr_mapb_put(&mb, ss[0].items[i], ss[1].items[i]);
    lx_tick_n(lx, n);
    return qr_mapb_finish(&mb, QR_T_MAP);
}

/* ---- generators ---- */

/* x + step for range: integers stay integers (overflow is an error), else doubles. */
static qr_val num_add(qr_lx *lx, qr_val x, qr_val step)
{
    if (x.t == QR_T_INT && step.t == QR_T_INT) {
        int64_t r;
        if (__builtin_add_overflow(x.i, step.i, &r))
            lx_throw(lx, QR_LE_ARITH, "integer overflow in range");
        return qr_int(r);
    }
    return qr_double(qr_to_double(x) + qr_to_double(step));
}

static int num_cmp(qr_val a, qr_val b)
{
    int c = 0;
    if (a.t == QR_T_INT && b.t == QR_T_INT)
        return (a.i > b.i) - (a.i < b.i);
    double x = qr_to_double(a), y = qr_to_double(b);
    if (x < y)
        c = -1;
    else if (x > y)
        c = 1;
    else if (x == y)
        c = 0;
    else
        c = 2; /* NaN: neither */
    return c;
}

/* A range of integers longer than this is a bounded range realised on demand (see
 * lx_range_new); a shorter one is built at once, as cheap as the value that stands for it
 * and what a tool argument or a host expects. */
#define RANGE_EAGER 1024

static qr_val bi_seq_range(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc == 0)
        return lazy_new(lx, LAZY_RANGE, qr_int(0), qr_int(1));
    qr_val start = qr_int(0), end, step = qr_int(1);
    if (argc == 1) {
        end = argv[0];
    } else {
        start = argv[0];
        end = argv[1];
        if (argc == 3)
            step = argv[2];
    }
    for (int i = 0; i < argc; i++)
        lx_arg_num(lx, "range", i + 1, argv[i]);
    int dir = num_cmp(step, qr_int(0));
    int span = num_cmp(start, end);
    if (span == 0 || span == 2 || dir == 2)
        return qr_vec_empty(QR_T_VEC);
    if (dir == 0) /* Clojure: step 0 repeats start forever */
        return lazy_new(lx, LAZY_REPEAT, start, qr_nil());
    if ((dir > 0) != (span < 0))
        return qr_vec_empty(QR_T_VEC);
    qr_vecb vb;
    if (start.t == QR_T_INT && end.t == QR_T_INT && step.t == QR_T_INT) {
        uint64_t diff = dir > 0 ? (uint64_t)end.i - (uint64_t)start.i
                                : (uint64_t)start.i - (uint64_t)end.i;
        uint64_t st = dir > 0 ? (uint64_t)step.i : (uint64_t)(-(step.i + 1)) + 1;
        uint64_t count = diff / st + (diff % st != 0);
        if (count > RANGE_EAGER)
            return lx_range_new(lx, start.i, step.i, count);
        qr_vecb_init(&vb, lx->a, (size_t)count);
        int64_t x = start.i;
        for (uint64_t i = 0; i < count; i++) {
            qr_vecb_push(&vb, qr_int(x));
            x = (int64_t)((uint64_t)x + (uint64_t)step.i); /* wraps only past the end */
            if ((i & 65535) == 65535)
                lx_tick_n(lx, 65536);
        }
        return qr_vecb_finish(&vb, QR_T_VEC);
    }
    /* doubles: repeated addition, as Clojure's Range does */
    qr_vecb_init(&vb, lx->a, 16);
    size_t i = 0;
    for (qr_val x = start; num_cmp(x, end) == (dir > 0 ? -1 : 1); x = num_add(lx, x, step)) {
        qr_vecb_push(&vb, x);
        if ((++i & 4095) == 0)
            lx_tick_n(lx, 4096);
    }
    return qr_vecb_finish(&vb, QR_T_VEC);
}

static qr_val bi_seq_repeat(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc == 1)
        return lazy_new(lx, LAZY_REPEAT, argv[0], qr_nil());
    size_t n = clamp_count(seq_count_arg(lx, "repeat", 1, argv[0]));
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, n);
    for (size_t i = 0; i < n; i++) {
        qr_vecb_push(&vb, argv[1]);
        if ((i & 65535) == 65535)
            lx_tick_n(lx, 65536);
    }
    return qr_vecb_finish(&vb, QR_T_VEC);
}

static qr_val bi_seq_repeatedly(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    size_t n = clamp_count(seq_count_arg(lx, "repeatedly", 1, argv[0]));
    qr_val f = argv[1];
    seq_need_fn(lx, "repeatedly", 2, f);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, n < 4096 ? n : 4096);
    for (size_t i = 0; i < n; i++) {
        lx_tick(lx);
        qr_vecb_push(&vb, lx_apply(lx, f, 0, argv));
    }
    return qr_vecb_finish(&vb, QR_T_VEC);
}

static qr_val bi_seq_iterate(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    seq_need_fn(lx, "iterate", 1, argv[0]);
    return lazy_new(lx, LAZY_ITERATE, argv[0], argv[1]);
}

static qr_val bi_seq_cycle(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val c = argv[0];
    if (c.t == QR_T_LAZY)
        return c;
    lx_seq s = lx_items(lx, c, "cycle", 1);
    if (s.n == 0)
        return qr_vec_empty(QR_T_VEC);
    return lazy_new(lx, LAZY_CYCLE, vec_of(lx, c, s), qr_nil());
}

/* ---- forcing and side effects ---- */

static qr_val bi_seq_doall(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)lx;
    return argv[argc - 1];
}

static qr_val bi_seq_dorun(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)lx;
    (void)argc;
    (void)argv;
    return qr_nil();
}

static qr_val bi_seq_run(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val f = argv[0];
    seq_need_fn(lx, "run!", 1, f);
    lx_seq s = lx_items(lx, argv[1], "run!", 2);
    const seq_pf pf = seq_pf_for(lx, f);
    for (size_t i = 0; i < s.n; i++) {
        seq_prefetch(s.items, s.n, i, &pf);
        if (lx_is_reduced(seq_call1(lx, f, s.items[i])))
            break;
    }
    return qr_nil();
}

/* ---- some-fn ---- */

static qr_val combo_some_fn(qr_lx *lx, int argc, const qr_val *argv)
{
    const lx_combo *c = (const lx_combo *)lx->cur_combo;
    qr_val r = qr_nil();
    for (int i = 0; i < c->n; i++)
        for (int j = 0; j < argc; j++) {
            r = seq_call1(lx, c->fns[i], argv[j]);
            if (qr_truthy(r))
                return r;
        }
    return r;
}

static qr_val bi_seq_some_fn(qr_lx *lx, int argc, const qr_val *argv)
{
    for (int i = 0; i < argc; i++)
        seq_need_fn(lx, "some-fn", i + 1, argv[i]);
    return lx_make_combo(lx, "some-fn", combo_some_fn, argc, argv);
}

const qr_builtin qr_lib_seq[] = {
    QR_BUILTIN_LAZY("first", bi_seq_first, 1, 1, "[coll]", "the first item of coll, or nil"),
    QR_BUILTIN_LAZY("second", bi_seq_second, 1, 1, "[coll]", "the second item of coll, or nil"),
    QR_BUILTIN("ffirst", bi_seq_ffirst, 1, 1, "[coll]", "(first (first coll))"),
    QR_BUILTIN("fnext", bi_seq_second, 1, 1, "[coll]", "(first (next coll))"),
    QR_BUILTIN("nfirst", bi_seq_nfirst, 1, 1, "[coll]", "(next (first coll))"),
    QR_BUILTIN("nnext", bi_seq_nnext, 1, 1, "[coll]", "(next (next coll))"),
    QR_BUILTIN_LAZY("last", bi_seq_last, 1, 1, "[coll]", "the last item of coll, or nil"),
    QR_BUILTIN_LAZY("rest", bi_seq_rest, 1, 1, "[coll]", "the items after the first, as a vector ([] when none)"),
    QR_BUILTIN_LAZY("next", bi_seq_next, 1, 1, "[coll]", "the items after the first, or nil when none"),
    QR_BUILTIN_LAZY("nthrest", bi_seq_nthrest, 2, 2, "[coll n]", "the items from index n on"),
    QR_BUILTIN_LAZY("nthnext", bi_seq_nthnext, 2, 2, "[coll n]", "the items from index n on, or nil when none"),
    QR_BUILTIN_LAZY("nth", bi_seq_nth, 2, 3, "[coll index] or [coll index not-found]", "the item at index; nil (or not-found) out of range"),
    QR_BUILTIN("peek", bi_seq_peek, 1, 1, "[coll]", "the last item of a vector, the first of a list"),
    QR_BUILTIN("pop", bi_seq_pop, 1, 1, "[coll]", "a vector without its last item, a list without its first; nil when empty"),
    QR_BUILTIN("subvec", bi_seq_subvec, 2, 3, "[v start] or [v start end]", "the items of vector v from start to end (exclusive)"),
    QR_BUILTIN_LAZY("count", bi_seq_count, 1, 1, "[coll]", "the number of items (characters of a string)"),
    QR_BUILTIN_LAZY("empty?", bi_seq_empty_p, 1, 1, "[coll]", "true when coll has no items"),
    QR_BUILTIN_LAZY("not-empty", bi_seq_not_empty, 1, 1, "[coll]", "coll, or nil when it is empty"),
    QR_BUILTIN_LAZY("seq", bi_seq_seq, 1, 1, "[coll]", "the items of coll, or nil when empty"),
    QR_BUILTIN("vec", bi_seq_vec, 1, 1, "[coll]", "a vector of the items of coll"),
    QR_BUILTIN_LAZY("sequence", bi_seq_sequence, 1, 2, "[coll]", "a vector of the items of coll"),
    QR_BUILTIN("set", bi_seq_set, 1, 1, "[coll]", "a set of the items of coll"),
    QR_BUILTIN("empty", bi_seq_empty, 1, 1, "[coll]", "an empty collection of the same type, or nil"),
    QR_BUILTIN("cons", bi_seq_cons, 2, 2, "[x coll]", "a vector of x followed by the items of coll"),
    QR_BUILTIN("conj", bi_seq_conj, 0, -1, "[coll & xs]", "coll with xs added: at the end of a vector, the front of a list, into a map or set"),
    QR_BUILTIN_LAZY("into", bi_seq_into, 0, 3, "[to from]", "to with every item of from added as conj adds"),
    QR_BUILTIN("concat", bi_seq_concat, 0, -1, "[& colls]", "a vector of the items of every coll in turn"),
    QR_BUILTIN("list*", bi_seq_list_star, 1, -1, "[& args coll]", "a list of args followed by the items of coll"),
    QR_BUILTIN("reverse", bi_seq_reverse, 1, 1, "[coll]", "the items of coll in reverse order"),
    QR_BUILTIN("map", bi_seq_map, 1, -1, "[f coll & colls]", "a vector of (f x) for each item; with several colls, f takes one item of each and stops at the shortest"),
    QR_BUILTIN("mapv", bi_seq_mapv, 2, -1, "[f coll & colls]", "same as map"),
    QR_BUILTIN("filter", bi_seq_filter, 1, 2, "[pred coll]", "the items for which (pred x) is truthy"),
    QR_BUILTIN("filterv", bi_seq_filterv, 2, 2, "[pred coll]", "same as filter"),
    QR_BUILTIN("remove", bi_seq_remove, 1, 2, "[pred coll]", "the items for which (pred x) is falsy"),
    QR_BUILTIN("keep", bi_seq_keep, 1, 2, "[f coll]", "the non-nil results of (f x)"),
    QR_BUILTIN("map-indexed", bi_seq_map_indexed, 2, 2, "[f coll]", "a vector of (f index x)"),
    QR_BUILTIN("keep-indexed", bi_seq_keep_indexed, 2, 2, "[f coll]", "the non-nil results of (f index x)"),
    QR_BUILTIN("mapcat", bi_seq_mapcat, 1, -1, "[f coll & colls]", "the concatenation of the collections map returns"),
    QR_BUILTIN_LAZY("reduce", bi_seq_reduce, 2, 3, "[f coll] or [f init coll]", "combines the items with (f acc x); stops early at (reduced v)"),
    QR_BUILTIN("reduce-kv", bi_seq_reduce_kv, 3, 3, "[f init coll]", "(f acc k v) over a map's entries or a vector's indexes and items"),
    QR_BUILTIN("reductions", bi_seq_reductions, 2, 3, "[f coll] or [f init coll]", "the intermediate values of reduce"),
    QR_BUILTIN_LAZY("take", bi_seq_take, 1, 2, "[n coll]", "the first n items"),
    QR_BUILTIN_LAZY("drop", bi_seq_drop, 1, 2, "[n coll]", "the items after the first n"),
    QR_BUILTIN_LAZY("take-while", bi_seq_take_while, 1, 2, "[pred coll]", "the leading items for which pred is truthy"),
    QR_BUILTIN_LAZY("drop-while", bi_seq_drop_while, 1, 2, "[pred coll]", "the items from the first for which pred is falsy"),
    QR_BUILTIN("take-last", bi_seq_take_last, 2, 2, "[n coll]", "the last n items, or nil when none"),
    QR_BUILTIN("drop-last", bi_seq_drop_last, 1, 2, "[coll] or [n coll]", "the items without the last n (default 1)"),
    QR_BUILTIN("butlast", bi_seq_butlast, 1, 1, "[coll]", "the items without the last, or nil when none remain"),
    QR_BUILTIN("split-at", bi_seq_split_at, 2, 2, "[n coll]", "[(take n coll) (drop n coll)]"),
    QR_BUILTIN("split-with", bi_seq_split_with, 2, 2, "[pred coll]", "[(take-while pred coll) (drop-while pred coll)]"),
    QR_BUILTIN("take-nth", bi_seq_take_nth, 2, 2, "[n coll]", "every nth item, starting with the first"),
    QR_BUILTIN("interleave", bi_seq_interleave, 0, -1, "[& colls]", "the first item of each coll, then the second, ... up to the shortest"),
    QR_BUILTIN("interpose", bi_seq_interpose, 2, 2, "[sep coll]", "the items with sep between each two"),
    QR_BUILTIN("zipmap", bi_seq_zipmap, 2, 2, "[keys vals]", "a map pairing keys with vals, up to the shorter"),
    QR_BUILTIN("range", bi_seq_range, 0, 3, "[] or [end] or [start end] or [start end step]", "numbers from start (0) to end (exclusive) by step (1); (range) is unbounded"),
    QR_BUILTIN("repeat", bi_seq_repeat, 1, 2, "[x] or [n x]", "n copies of x; (repeat x) is unbounded"),
    QR_BUILTIN("repeatedly", bi_seq_repeatedly, 2, 2, "[n f]", "a vector of n results of calling f with no arguments"),
    QR_BUILTIN("iterate", bi_seq_iterate, 2, 2, "[f x]", "the unbounded sequence x, (f x), (f (f x)), ..."),
    QR_BUILTIN("cycle", bi_seq_cycle, 1, 1, "[coll]", "the items of coll repeated without end"),
    QR_BUILTIN("doall", bi_seq_doall, 1, 2, "[coll] or [n coll]", "coll (sequences are already realized)"),
    QR_BUILTIN("dorun", bi_seq_dorun, 1, 2, "[coll] or [n coll]", "nil (sequences are already realized)"),
    QR_BUILTIN("run!", bi_seq_run, 2, 2, "[f coll]", "calls f on each item for its effects; returns nil"),
    QR_BUILTIN("some-fn", bi_seq_some_fn, 1, -1, "[& preds]", "a function returning the first truthy (pred x) over its arguments"),
    {.hdr = {.name = NULL}},
};
