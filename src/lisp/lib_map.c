/*
 * lib_map.c: maps and sets. get, get-in, assoc, assoc-in, dissoc, update, update-in,
 * merge, merge-with, select-keys, keys, vals, contains?, find, update-vals,
 * update-keys, disj, key, val, and clojure.set (union, intersection, difference,
 * subset?, superset?, rename-keys; also reachable as set/NAME).
 *
 * Semantics are Clojure's, with PTC-Lisp's differences:
 * - sequence results are vectors ((keys m) is a vector, nil for an empty map);
 * - maps and sets keep insertion order: a key that is already present keeps its place
 *   when assoc'd again, a new key goes last, and set operations keep the order of their
 *   first argument;
 * - a keyword key that is absent falls back to the string of the same name, and back
 *   (tool results arrive as JSON). Lookups (get, get-in, contains?, find, select-keys)
 *   use the fallback, and so do the functions that write a key (assoc, dissoc, update,
 *   merge, ...): they update the entry that is there, so (assoc {"a" 1} :a 2) is
 *   {"a" 2}, never a map holding both "a" and :a;
 * - map entries are [k v] vectors, so key and val (and keys and vals) accept those.
 */
#include "lisp_int.h"

#include <string.h>

/* ---- keys with the keyword <-> string fallback ---- */

/* The key of the same name in the other spelling (string for a keyword and back), or nil
 * when k is neither. Allocates: callers check that a fallback can succeed first. */
static qr_val twin_key(qr_lx *lx, qr_val k)
{
    if (k.t == QR_T_KW)
        return qr_str_new(lx->a, k.sym->text, k.sym->len);
    if (k.t == QR_T_STR)
        return qr_kw(lx->a, k.s->data, k.s->len);
    return qr_nil();
}

/* Entry index of k in map m with the fallback, or -1. */
static long map_index(qr_lx *lx, qr_val m, qr_val k)
{
    long i = qr_map_find(m, k);
    if (i >= 0)
        return i;
    qr_val tmp;
    if (m.t != QR_T_MAP || (k.t != QR_T_KW && k.t != QR_T_STR) || !qr_map_lookup(m, k, &tmp))
        return -1;
    return qr_map_find(m, twin_key(lx, k));
}

/* The key under which assoc/dissoc of k acts on m: k, or its twin when only that is in m. */
static qr_val stored_key(qr_lx *lx, qr_val m, qr_val k)
{
    long i = map_index(lx, m, k);
    return i >= 0 ? qr_map_key_at(m, (size_t)i) : k;
}

/* A map builder whose puts use the fallback: putting :a where "a" is updates "a". */
typedef struct mbx {
    qr_lx *lx;
    qr_mapb b;
    size_t nstr, nkw; /* string and keyword keys put so far (a fallback needs the other) */
} mbx;

static void mbx_init(mbx *x, qr_lx *lx, size_t hint)
{
    x->lx = lx;
    qr_mapb_init(&x->b, lx->a, hint);
    x->nstr = x->nkw = 0;
}

/* Finds k (with the fallback): returns its value slot and sets *key to the stored key,
 * or returns NULL. The slot is valid until the next put. */
static qr_val *mbx_slot(mbx *x, qr_val k, qr_val *key)
{
    *key = k;
    qr_val *slot = qr_mapb_slot(&x->b, k);
    if (slot)
        return slot;
    /* (a string that cannot be a keyword has no keyword twin; do not intern it) */
    if ((k.t == QR_T_KW && x->nstr) ||
        (k.t == QR_T_STR && x->nkw && qr_kw_valid(k.s->data, k.s->len))) {
        qr_val t = twin_key(x->lx, k);
        slot = qr_mapb_slot(&x->b, t);
        if (slot)
            *key = t;
    }
    return slot;
}

static void mbx_put_exact(mbx *x, qr_val k, qr_val v)
{
    if (!qr_mapb_slot(&x->b, k)) {
        x->nstr += k.t == QR_T_STR;
        x->nkw += k.t == QR_T_KW;
    }
    qr_mapb_put(&x->b, k, v);
}

static void mbx_put(mbx *x, qr_val k, qr_val v)
{
    qr_val key;
    qr_val *slot = mbx_slot(x, k, &key);
    if (slot)
        *slot = v;
    else
        mbx_put_exact(x, k, v);
}

/* Starts the builder with every entry of map m. */
static void mbx_from(mbx *x, qr_lx *lx, qr_val m, size_t extra)
{
    size_t n = qr_map_len(m);
    mbx_init(x, lx, n + extra);
    for (size_t i = 0; i < n; i++)
        mbx_put_exact(x, qr_map_key_at(m, i), qr_map_val_at(m, i));
    lx_tick_n(lx, n);
}

static qr_val mbx_finish(mbx *x)
{
    return qr_mapb_finish(&x->b, QR_T_MAP);
}

/* ---- shared lookups and updates ---- */

/* (get coll k): lx_get plus strings by index. */
static bool get1(qr_lx *lx, qr_val coll, qr_val k, qr_val *out)
{
    if (coll.t == QR_T_STR) {
        const qr_str *s = coll.s;
        if (k.t != QR_T_INT || k.i < 0 || (uint64_t)k.i >= s->nchars)
            return false;
        size_t off = qr_utf8_offset(s->data, s->len, (size_t)k.i);
        uint32_t cp;
        size_t len = qr_utf8_decode(s->data + off, s->len - off, &cp);
        *out = qr_str_new(lx->a, s->data + off, len);
        return true;
    }
    return lx_get(coll, k, out);
}

static qr_val get_or(qr_lx *lx, qr_val coll, qr_val k, qr_val dflt)
{
    qr_val v;
    return get1(lx, coll, k, &v) ? v : dflt;
}

/* (assoc coll k v) on a map, a vector or nil. fname and argn name the culprit. */
static qr_val assoc1(qr_lx *lx, qr_val coll, qr_val k, qr_val v, const char *fname, int argn)
{
    switch (coll.t) {
    case QR_T_NIL: return qr_map_assoc(lx->a, qr_map_empty(), k, v);
    case QR_T_MAP: return qr_map_assoc(lx->a, coll, stored_key(lx, coll, k), v);
    case QR_T_VEC: {
        if (k.t != QR_T_INT)
            lx_type_error(lx, fname, 0, "an integer index for a vector", k);
        size_t n = qr_vec_len(coll);
        if (k.i < 0 || (uint64_t)k.i > n)
            lx_throw(lx, QR_LE_INDEX,
                     "'%s': index %lld is out of bounds for a vector of %zu items (0..%zu "
                     "replaces or appends)",
                     fname, (long long)k.i, n, n);
        if ((uint64_t)k.i == n)
            return qr_vec_conj(lx->a, coll, v);
        return qr_vec_assoc(lx->a, coll, (size_t)k.i, v);
    }
    default:
        if (argn > 0)
            lx_type_error(lx, fname, argn, "a map, vector or nil", coll);
        lx_type_error(lx, fname, 0, "maps, vectors or nil along the path", coll);
    }
}

/* The containers along path ks (all but the last key), from the root; with the last key
 * they tell assoc-in and update-in what to rebuild. An empty path acts as [nil], as in
 * Clojure. Returns the number of keys and sets *keys and *conts. */
static size_t walk_path(qr_lx *lx, qr_val root, qr_val path, const char *fname,
                        const qr_val **keys, qr_val **conts)
{
    static const qr_val nil_key[1] = {{.t = QR_T_NIL}};
    lx_seq ks = lx_items(lx, path, fname, 2);
    if (ks.n == 0) {
        ks.items = nil_key;
        ks.n = 1;
    }
    qr_val *c = qr_arena_alloc(lx->a, sizeof(qr_val) * ks.n);
    c[0] = root;
    for (size_t i = 1; i < ks.n; i++)
        c[i] = get_or(lx, c[i - 1], ks.items[i - 1], qr_nil());
    lx_tick_n(lx, ks.n);
    *keys = ks.items;
    *conts = c;
    return ks.n;
}

/* Rebuilds the containers of a path bottom-up after the innermost value became v. */
static qr_val rebuild_path(qr_lx *lx, size_t n, const qr_val *keys, const qr_val *conts,
                           qr_val v, const char *fname)
{
    for (size_t i = n; i-- > 0;)
        v = assoc1(lx, conts[i], keys[i], v, fname, i == 0 ? 1 : 0);
    return v;
}

/* ---- get, get-in, assoc, dissoc, update ---- */

static qr_val bi_map_get(qr_lx *lx, int argc, const qr_val *argv)
{
    return get_or(lx, argv[0], argv[1], argc == 3 ? argv[2] : qr_nil());
}

static qr_val bi_map_get_in(qr_lx *lx, int argc, const qr_val *argv)
{
    lx_seq ks = lx_items(lx, argv[1], "get-in", 2);
    qr_val m = argv[0];
    for (size_t i = 0; i < ks.n; i++) {
        qr_val v;
        if (!get1(lx, m, ks.items[i], &v))
            return argc == 3 ? argv[2] : qr_nil();
        m = v;
    }
    lx_tick_n(lx, ks.n);
    return m;
}

static qr_val bi_map_assoc(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc % 2 == 0)
        lx_throw(lx, QR_LE_ARITY,
                 "'assoc' expects a collection and key/value pairs, got %d arguments after the "
                 "collection (an odd number)",
                 argc - 1);
    qr_val m = argv[0];
    if (m.t != QR_T_NIL && m.t != QR_T_MAP && m.t != QR_T_VEC)
        lx_type_error(lx, "assoc", 1, "a map, vector or nil", m);
    for (int i = 1; i < argc; i += 2)
        m = assoc1(lx, m, argv[i], argv[i + 1], "assoc", 1);
    return m;
}

static qr_val bi_map_assoc_in(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    const qr_val *keys;
    qr_val *conts;
    size_t n = walk_path(lx, argv[0], argv[1], "assoc-in", &keys, &conts);
    return rebuild_path(lx, n, keys, conts, argv[2], "assoc-in");
}

static qr_val bi_map_dissoc(qr_lx *lx, int argc, const qr_val *argv)
{
    qr_val m = argv[0];
    if (m.t == QR_T_NIL)
        return m;
    if (m.t != QR_T_MAP)
        lx_type_error(lx, "dissoc", 1, "a map or nil", m);
    for (int i = 1; i < argc; i++) {
        long at = map_index(lx, m, argv[i]);
        if (at >= 0)
            m = qr_map_dissoc(lx->a, m, qr_map_key_at(m, (size_t)at));
    }
    lx_tick_n(lx, (size_t)argc * (qr_map_len(m) + 1));
    return m;
}

/* (f old extra...) for update and update-in */
static qr_val call_with_extra(qr_lx *lx, qr_val f, qr_val old, int nextra, const qr_val *extra)
{
    if (nextra == 0)
        return lx_call1(lx, f, old);
    qr_val *args = qr_arena_alloc(lx->a, sizeof(qr_val) * (size_t)(nextra + 1));
    args[0] = old;
    memcpy(args + 1, extra, sizeof(qr_val) * (size_t)nextra);
    return lx_apply(lx, f, nextra + 1, args);
}

static qr_val bi_map_update(qr_lx *lx, int argc, const qr_val *argv)
{
    qr_val m = argv[0], k = argv[1];
    if (m.t != QR_T_NIL && m.t != QR_T_MAP && m.t != QR_T_VEC)
        lx_type_error(lx, "update", 1, "a map, vector or nil", m);
    qr_val nv = call_with_extra(lx, argv[2], get_or(lx, m, k, qr_nil()), argc - 3, argv + 3);
    return assoc1(lx, m, k, nv, "update", 1);
}

static qr_val bi_map_update_in(qr_lx *lx, int argc, const qr_val *argv)
{
    const qr_val *keys;
    qr_val *conts;
    size_t n = walk_path(lx, argv[0], argv[1], "update-in", &keys, &conts);
    qr_val old = get_or(lx, conts[n - 1], keys[n - 1], qr_nil());
    qr_val nv = call_with_extra(lx, argv[2], old, argc - 3, argv + 3);
    return rebuild_path(lx, n, keys, conts, nv, "update-in");
}

/* ---- merge ---- */

/* Adds the entries of x (a map, a [k v] vector or nil) to the builder; with f, a key that
 * is already there gets (f old new). */
static void merge_into(qr_lx *lx, mbx *acc, qr_val x, qr_val f, const char *fname, int argn)
{
    if (x.t == QR_T_NIL)
        return;
    if (x.t == QR_T_VEC && qr_vec_len(x) == 2 && f.t == QR_T_NIL) {
        mbx_put(acc, qr_vec_at(x, 0), qr_vec_at(x, 1));
        return;
    }
    if (x.t != QR_T_MAP)
        lx_type_error(lx, fname, argn, "a map or nil", x);
    size_t n = qr_map_len(x);
    for (size_t i = 0; i < n; i++) {
        qr_val k = qr_map_key_at(x, i), v = qr_map_val_at(x, i);
        if (f.t != QR_T_NIL) {
            qr_val key;
            qr_val *slot = mbx_slot(acc, k, &key);
            if (slot) {
                qr_val r = lx_call2(lx, f, *slot, v);
                mbx_put_exact(acc, key, r); /* the slot may have moved during the call */
                continue;
            }
        }
        mbx_put(acc, k, v);
    }
    lx_tick_n(lx, n);
}

static qr_val merge_maps(qr_lx *lx, int argc, const qr_val *argv, qr_val f, const char *fname,
                         int argn0)
{
    int first = 0;
    while (first < argc && argv[first].t == QR_T_NIL)
        first++;
    if (first == argc)
        return qr_nil();
    qr_val m = argv[first];
    if (m.t != QR_T_MAP)
        lx_type_error(lx, fname, argn0 + first, "a map or nil", m);
    int rest = 0;
    for (int i = first + 1; i < argc; i++)
        rest += argv[i].t != QR_T_NIL;
    if (rest == 0)
        return m;
    mbx acc;
    mbx_from(&acc, lx, m, 8);
    for (int i = first + 1; i < argc; i++)
        merge_into(lx, &acc, argv[i], f, fname, argn0 + i);
    qr_val r = mbx_finish(&acc);
    if (qr_is_sorted(m) && !qr_is_sorted(r)) { /* a sorted map stays sorted */
        qr_val sm = qr_sorted_empty(QR_T_MAP);
        for (size_t i = 0; i < r.c->len; i++)
            sm = qr_map_assoc(lx->a, sm, qr_map_key_at(r, i), qr_map_val_at(r, i));
        r = sm;
    }
    return r;
}

static qr_val bi_map_merge(qr_lx *lx, int argc, const qr_val *argv)
{
    return merge_maps(lx, argc, argv, qr_nil(), "merge", 1);
}

static qr_val bi_map_merge_with(qr_lx *lx, int argc, const qr_val *argv)
{
    return merge_maps(lx, argc - 1, argv + 1, argv[0], "merge-with", 2);
}

/* ---- select-keys, keys, vals, contains?, find ---- */

static qr_val bi_map_select_keys(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val m = argv[0];
    if (m.t != QR_T_NIL && m.t != QR_T_MAP && m.t != QR_T_VEC)
        lx_type_error(lx, "select-keys", 1, "a map, vector or nil", m);
    lx_seq ks = lx_items(lx, argv[1], "select-keys", 2);
    qr_mapb mb;
    qr_mapb_init(&mb, lx->a, ks.n);
    for (size_t i = 0; i < ks.n; i++) {
        qr_val k = ks.items[i];
        if (m.t == QR_T_MAP) {
            long at = map_index(lx, m, k);
            if (at >= 0)
                qr_mapb_put(&mb, qr_map_key_at(m, (size_t)at), qr_map_val_at(m, (size_t)at));
        } else {
            qr_val v;
            if (lx_get(m, k, &v))
                qr_mapb_put(&mb, k, v);
        }
    }
    lx_tick_n(lx, ks.n);
    return qr_mapb_finish(&mb, QR_T_MAP);
}

static bool is_pair(qr_val x)
{
    return (x.t == QR_T_VEC || x.t == QR_T_LIST) && x.c->len == 2;
}

/* keys (which 0) or vals (which 1) of a map, or of a sequence of [k v] entries */
static qr_val keys_or_vals(qr_lx *lx, qr_val m, int which, const char *fname)
{
    if (m.t == QR_T_NIL)
        return m;
    qr_vecb vb;
    if (m.t == QR_T_MAP) {
        size_t n = qr_map_len(m);
        if (n == 0)
            return qr_nil();
        qr_vecb_init(&vb, lx->a, n);
        for (size_t i = 0; i < n; i++)
            qr_vecb_push(&vb, which ? qr_map_val_at(m, i) : qr_map_key_at(m, i));
        lx_tick_n(lx, n);
        return qr_vecb_finish(&vb, QR_T_VEC);
    }
    if (m.t == QR_T_VEC || m.t == QR_T_LIST) {
        size_t n = m.c->len;
        for (size_t i = 0; i < n; i++)
            if (!is_pair(qr_vec_at(m, i)))
                lx_type_error(lx, fname, 1, "a map (or a sequence of [k v] entries)", m);
        if (n == 0)
            return qr_nil();
        qr_vecb_init(&vb, lx->a, n);
        for (size_t i = 0; i < n; i++)
            qr_vecb_push(&vb, qr_vec_at(qr_vec_at(m, i), (size_t)which));
        lx_tick_n(lx, n);
        return qr_vecb_finish(&vb, QR_T_VEC);
    }
    lx_type_error(lx, fname, 1, "a map", m);
}

static qr_val bi_map_keys(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return keys_or_vals(lx, argv[0], 0, "keys");
}

static qr_val bi_map_vals(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return keys_or_vals(lx, argv[0], 1, "vals");
}

static qr_val bi_map_contains_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val c = argv[0], k = argv[1];
    qr_val v;
    switch (c.t) {
    case QR_T_NIL: return qr_bool(false);
    case QR_T_MAP: return qr_bool(qr_map_lookup(c, k, &v));
    case QR_T_SET: return qr_bool(qr_map_find(c, k) >= 0);
    case QR_T_VEC:
        return qr_bool(k.t == QR_T_INT && k.i >= 0 && (uint64_t)k.i < qr_vec_len(c));
    case QR_T_STR: return qr_bool(k.t == QR_T_INT && k.i >= 0 && (uint64_t)k.i < c.s->nchars);
    default:
        lx_type_error(lx, "contains?", 1,
                      "a map, set, vector, string or nil (to test for a value in a sequence, use "
                      "(some #{x} coll))",
                      c);
    }
}

static qr_val pair(qr_lx *lx, qr_val a, qr_val b)
{
    qr_val kv[2] = {a, b};
    return qr_vec_from(lx->a, QR_T_VEC, kv, 2);
}

static qr_val bi_map_find(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val c = argv[0], k = argv[1];
    switch (c.t) {
    case QR_T_NIL: return c;
    case QR_T_MAP: {
        long at = map_index(lx, c, k);
        if (at < 0)
            return qr_nil();
        return pair(lx, qr_map_key_at(c, (size_t)at), qr_map_val_at(c, (size_t)at));
    }
    case QR_T_VEC:
        if (k.t == QR_T_INT && k.i >= 0 && (uint64_t)k.i < qr_vec_len(c))
            return pair(lx, k, qr_vec_at(c, (size_t)k.i));
        return qr_nil();
    default: lx_type_error(lx, "find", 1, "a map, vector or nil", c);
    }
}

/* ---- update-vals, update-keys ---- */

static qr_val bi_map_update_vals(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val m = argv[0], f = argv[1];
    if (m.t == QR_T_NIL)
        return qr_map_empty();
    if (m.t != QR_T_MAP)
        lx_type_error(lx, "update-vals", 1, "a map or nil", m);
    size_t n = qr_map_len(m);
    qr_mapb mb;
    qr_mapb_init(&mb, lx->a, n);
    for (size_t i = 0; i < n; i++) {
        qr_val v = lx_call1(lx, f, qr_map_val_at(m, i));
        qr_mapb_put(&mb, qr_map_key_at(m, i), v);
    }
    return qr_mapb_finish(&mb, QR_T_MAP);
}

static qr_val bi_map_update_keys(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val m = argv[0], f = argv[1];
    if (m.t == QR_T_NIL)
        return qr_map_empty();
    if (m.t != QR_T_MAP)
        lx_type_error(lx, "update-keys", 1, "a map or nil", m);
    size_t n = qr_map_len(m);
    qr_mapb mb;
    qr_mapb_init(&mb, lx->a, n);
    for (size_t i = 0; i < n; i++) {
        qr_val k = lx_call1(lx, f, qr_map_key_at(m, i));
        qr_mapb_put(&mb, k, qr_map_val_at(m, i));
    }
    return qr_mapb_finish(&mb, QR_T_MAP);
}

/* ---- entries ---- */

static qr_val entry_part(qr_lx *lx, qr_val e, size_t which, const char *fname)
{
    if (!is_pair(e))
        lx_type_error(lx, fname, 1, "a map entry ([k v])", e);
    return qr_vec_at(e, which);
}

static qr_val bi_map_key(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return entry_part(lx, argv[0], 0, "key");
}

static qr_val bi_map_val(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return entry_part(lx, argv[0], 1, "val");
}

/* ---- sets ---- */

static qr_val bi_map_disj(qr_lx *lx, int argc, const qr_val *argv)
{
    qr_val s = argv[0];
    if (s.t == QR_T_NIL)
        return s;
    if (s.t != QR_T_SET)
        lx_type_error(lx, "disj", 1, "a set or nil", s);
    for (int i = 1; i < argc; i++)
        s = qr_set_disj(lx->a, s, argv[i]);
    lx_tick_n(lx, (size_t)argc * (qr_map_len(s) + 1));
    return s;
}

static void need_set(qr_lx *lx, const char *fname, int argn, qr_val v)
{
    if (v.t != QR_T_SET && v.t != QR_T_NIL)
        lx_type_error(lx, fname, argn, "a set or nil (make one with (set coll))", v);
}

static size_t set_len(qr_val s)
{
    return s.t == QR_T_SET ? qr_map_len(s) : 0;
}

static bool set_has(qr_val s, qr_val x)
{
    return s.t == QR_T_SET && qr_map_find(s, x) >= 0;
}

static qr_val bi_map_union(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc == 0)
        return qr_set_empty();
    for (int i = 0; i < argc; i++)
        need_set(lx, "clojure.set/union", i + 1, argv[i]);
    qr_val acc = qr_nil();
    for (int i = 0; i < argc; i++) {
        qr_val s = argv[i];
        if (s.t == QR_T_NIL)
            continue;
        if (acc.t == QR_T_NIL) {
            acc = s;
            continue;
        }
        size_t n = qr_map_len(s);
        for (size_t j = 0; j < n; j++)
            acc = qr_set_conj(lx->a, acc, qr_map_key_at(s, j));
        lx_tick_n(lx, n);
    }
    return acc;
}

/* The items of s (a set) that are (keep) or are not (!keep) in other; order of s. */
static qr_val set_filter(qr_lx *lx, qr_val s, qr_val other, bool keep)
{
    size_t n = qr_map_len(s);
    qr_mapb mb;
    qr_mapb_init(&mb, lx->a, n);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        qr_val x = qr_map_key_at(s, i);
        if (set_has(other, x) == keep) {
            qr_mapb_put(&mb, x, x);
            kept++;
        }
    }
    lx_tick_n(lx, n);
    if (kept == n)
        return s;
    return qr_mapb_finish(&mb, QR_T_SET);
}

static qr_val bi_map_intersection(qr_lx *lx, int argc, const qr_val *argv)
{
    for (int i = 0; i < argc; i++)
        need_set(lx, "clojure.set/intersection", i + 1, argv[i]);
    qr_val acc = argv[0];
    for (int i = 1; i < argc; i++) {
        qr_val s = argv[i];
        /* Clojure keeps the smaller argument, so nil wins over a non-empty set */
        if (acc.t == QR_T_NIL || s.t == QR_T_NIL) {
            if (acc.t != QR_T_NIL && set_len(acc) > 0)
                acc = qr_nil();
            continue;
        }
        acc = set_filter(lx, acc, s, true);
    }
    return acc;
}

static qr_val bi_map_difference(qr_lx *lx, int argc, const qr_val *argv)
{
    for (int i = 0; i < argc; i++)
        need_set(lx, "clojure.set/difference", i + 1, argv[i]);
    qr_val acc = argv[0];
    for (int i = 1; i < argc && acc.t != QR_T_NIL; i++)
        if (argv[i].t != QR_T_NIL)
            acc = set_filter(lx, acc, argv[i], false);
    return acc;
}

static bool subset(qr_val a, qr_val b)
{
    size_t n = set_len(a);
    if (n > set_len(b))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!set_has(b, qr_map_key_at(a, i)))
            return false;
    return true;
}

static qr_val bi_map_subset_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    need_set(lx, "clojure.set/subset?", 1, argv[0]);
    need_set(lx, "clojure.set/subset?", 2, argv[1]);
    lx_tick_n(lx, set_len(argv[0]));
    return qr_bool(subset(argv[0], argv[1]));
}

static qr_val bi_map_superset_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    need_set(lx, "clojure.set/superset?", 1, argv[0]);
    need_set(lx, "clojure.set/superset?", 2, argv[1]);
    lx_tick_n(lx, set_len(argv[1]));
    return qr_bool(subset(argv[1], argv[0]));
}

static qr_val bi_map_rename_keys(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val m = argv[0], kmap = argv[1];
    if (m.t != QR_T_NIL && m.t != QR_T_MAP)
        lx_type_error(lx, "clojure.set/rename-keys", 1, "a map or nil", m);
    if (kmap.t != QR_T_NIL && kmap.t != QR_T_MAP)
        lx_type_error(lx, "clojure.set/rename-keys", 2, "a map of old key to new key", kmap);
    if (m.t == QR_T_NIL)
        return m;
    size_t n = kmap.t == QR_T_MAP ? qr_map_len(kmap) : 0;
    qr_val r = m;
    for (size_t i = 0; i < n; i++) {
        long at = map_index(lx, r, qr_map_key_at(kmap, i));
        if (at >= 0)
            r = qr_map_dissoc(lx->a, r, qr_map_key_at(r, (size_t)at));
    }
    for (size_t i = 0; i < n; i++) {
        long at = map_index(lx, m, qr_map_key_at(kmap, i));
        if (at >= 0)
            r = assoc1(lx, r, qr_map_val_at(kmap, i), qr_map_val_at(m, (size_t)at),
                       "clojure.set/rename-keys", 1);
    }
    lx_tick_n(lx, n * (qr_map_len(m) + 1));
    return r;
}

const qr_builtin qr_lib_map[] = {
    QR_BUILTIN("get", bi_map_get, 2, 3, "[coll k] or [coll k default]", "the value at k in a map, set, vector (index) or string (index); default (or nil) when absent"),
    QR_BUILTIN("get-in", bi_map_get_in, 2, 3, "[m ks] or [m ks default]", "the value at path ks in nested collections; default (or nil) when absent"),
    QR_BUILTIN("assoc", bi_map_assoc, 3, -1, "[coll k v & kvs]", "coll with k set to v: maps (nil is {}), and vectors at an index up to the count"),
    QR_BUILTIN("assoc-in", bi_map_assoc_in, 3, 3, "[m ks v]", "m with the value at path ks set to v, creating maps as needed"),
    QR_BUILTIN("dissoc", bi_map_dissoc, 1, -1, "[m & ks]", "m without the keys ks"),
    QR_BUILTIN("update", bi_map_update, 3, -1, "[m k f & args]", "m with the value at k replaced by (f old args...)"),
    QR_BUILTIN("update-in", bi_map_update_in, 3, -1, "[m ks f & args]", "m with the value at path ks replaced by (f old args...)"),
    QR_BUILTIN("merge", bi_map_merge, 0, -1, "[& maps]", "the maps merged left to right (later values win); nil arguments are skipped"),
    QR_BUILTIN("merge-with", bi_map_merge_with, 1, -1, "[f & maps]", "merge, combining the values of a key present in both with (f old new)"),
    QR_BUILTIN("select-keys", bi_map_select_keys, 2, 2, "[m ks]", "the map of the entries of m whose keys are in ks"),
    QR_BUILTIN("keys", bi_map_keys, 1, 1, "[m]", "a vector of the keys of m (nil when empty)"),
    QR_BUILTIN("vals", bi_map_vals, 1, 1, "[m]", "a vector of the values of m (nil when empty)"),
    QR_BUILTIN("contains?", bi_map_contains_p, 2, 2, "[coll k]", "true when map or set coll has key k, or vector or string coll has index k"),
    QR_BUILTIN("find", bi_map_find, 2, 2, "[m k]", "the entry [k v] for k in m, or nil"),
    QR_BUILTIN("update-vals", bi_map_update_vals, 2, 2, "[m f]", "m with every value v replaced by (f v)"),
    QR_BUILTIN("update-keys", bi_map_update_keys, 2, 2, "[m f]", "m with every key k replaced by (f k)"),
    QR_BUILTIN("key", bi_map_key, 1, 1, "[e]", "the key of a map entry [k v]"),
    QR_BUILTIN("val", bi_map_val, 1, 1, "[e]", "the value of a map entry [k v]"),
    QR_BUILTIN("disj", bi_map_disj, 1, -1, "[s & xs]", "set s without xs"),
    QR_BUILTIN("clojure.set/union", bi_map_union, 0, -1, "[& sets]", "the set of the items of all sets"),
    QR_BUILTIN("clojure.set/intersection", bi_map_intersection, 1, -1, "[s & sets]", "the items of s that are in every other set"),
    QR_BUILTIN("clojure.set/difference", bi_map_difference, 1, -1, "[s & sets]", "the items of s that are in none of the other sets"),
    QR_BUILTIN("clojure.set/subset?", bi_map_subset_p, 2, 2, "[a b]", "true when every item of set a is in set b"),
    QR_BUILTIN("clojure.set/superset?", bi_map_superset_p, 2, 2, "[a b]", "true when every item of set b is in set a"),
    QR_BUILTIN("clojure.set/rename-keys", bi_map_rename_keys, 2, 2, "[m kmap]", "m with each key in kmap renamed to its value in kmap"),
    QR_BUILTIN("set/union", bi_map_union, 0, -1, "[& sets]", "the set of the items of all sets"),
    QR_BUILTIN("set/intersection", bi_map_intersection, 1, -1, "[s & sets]", "the items of s that are in every other set"),
    QR_BUILTIN("set/difference", bi_map_difference, 1, -1, "[s & sets]", "the items of s that are in none of the other sets"),
    QR_BUILTIN("set/subset?", bi_map_subset_p, 2, 2, "[a b]", "true when every item of set a is in set b"),
    QR_BUILTIN("set/superset?", bi_map_superset_p, 2, 2, "[a b]", "true when every item of set b is in set a"),
    QR_BUILTIN("set/rename-keys", bi_map_rename_keys, 2, 2, "[m kmap]", "m with each key in kmap renamed to its value in kmap"),
    {.hdr = {.name = NULL}},
};
