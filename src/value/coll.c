/*
 * coll.c: vectors, lists, maps and sets, and their builders.
 *
 * A collection value is a view (qr_coll) onto a buffer: vectors see items off..off+len,
 * maps and sets see entries 0..len. A view that ends where its buffer's used part ends
 * may extend the buffer in place; every other change copies. Values thus stay immutable
 * while `(reduce conj [] xs)` and `(assoc m new-key v)` in a loop are amortized O(1).
 * Maps keep insertion order: entries are an array; past 8 entries an open-addressing
 * index (entry numbers) is added. An index slot naming an entry at or past a view's
 * length belongs to a longer view of the same buffer and is skipped.
 * Rejected: hash array mapped tries (O(log n) everywhere, no insertion order, far more
 * code); replacing an existing key copies, which is O(n) but rare in query programs.
 */
#include "quarry/value.h"

#include <string.h>

static qr_coll empty_vec, empty_list, empty_map, empty_set;

#define INDEX_AFTER 16

static inline uint32_t elem_depth(qr_val x)
{
    return (x.t == QR_T_VEC || x.t == QR_T_LIST || x.t == QR_T_MAP || x.t == QR_T_SET)
               ? x.dep
               : 0;
}

static bool depth_ok(qr_arena *a, uint32_t d)
{
    if (d > QR_MAX_DEPTH) {
        qr_arena_fail(a, QR_ELIMIT);
        return false;
    }
    return true;
}

static qr_val make_view(qr_arena *a, qr_type t, const qr_coll *proto)
{
    qr_coll *c = qr_arena_alloc(a, sizeof *c);
    if (!c)
        return qr_nil();
    *c = *proto;
    qr_val v = {.t = (uint8_t)t};
    v.dep = (uint16_t)c->depth;
    v.c = c;
    return v;
}

/* ---------------- vectors ---------------- */

qr_val qr_vec_empty(qr_type t)
{
    qr_val v = {.t = (uint8_t)t};
    v.c = t == QR_T_LIST ? &empty_list : &empty_vec;
    return v;
}

static qr_vbuf *vbuf_new(qr_arena *a, size_t cap)
{
    size_t bytes;
    if (cap < 4)
        cap = 4;
    if (cap > UINT32_MAX || !qr_size_mul(cap, sizeof(qr_val), &bytes)) {
        qr_arena_fail(a, QR_ENOMEM);
        return NULL;
    }
    qr_vbuf *b = qr_arena_alloc(a, sizeof *b);
    if (!b)
        return NULL;
    b->items = qr_arena_alloc(a, bytes);
    if (!b->items)
        return NULL;
    b->used = 0;
    b->cap = (uint32_t)cap;
    return b;
}

qr_val qr_vec_from(qr_arena *a, qr_type t, const qr_val *items, size_t n)
{
    if (n == 0)
        return qr_vec_empty(t);
    uint32_t d = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t e = elem_depth(items[i]);
        if (e > d)
            d = e;
    }
    if (!depth_ok(a, d + 1))
        return qr_nil();
    qr_vbuf *b = vbuf_new(a, n);
    if (!b)
        return qr_nil();
    memcpy(b->items, items, n * sizeof(qr_val));
    b->used = (uint32_t)n;
    qr_coll proto = {.len = (uint32_t)n, .depth = d + 1, .off = 0};
    proto.vbuf = b;
    return make_view(a, t, &proto);
}

qr_val qr_vec_conj(qr_arena *a, qr_val v, qr_val x)
{
    const qr_coll *c = v.c;
    uint32_t d = elem_depth(x) + 1;
    if (d < c->depth)
        d = c->depth;
    if (!depth_ok(a, d))
        return qr_nil();
    if (c->len >= UINT32_MAX - 1) {
        qr_arena_fail(a, QR_ENOMEM);
        return qr_nil();
    }
    qr_coll proto = *c;
    proto.line = proto.col = 0;
    qr_vbuf *b = c->vbuf;
    if (b && c->len > 0 && c->off + c->len == b->used && b->used < b->cap) {
        b->items[b->used++] = x;
    } else {
        b = vbuf_new(a, (size_t)c->len * 2);
        if (!b)
            return qr_nil();
        if (c->len)
            memcpy(b->items, c->vbuf->items + c->off, c->len * sizeof(qr_val));
        b->items[c->len] = x;
        b->used = c->len + 1;
        proto.off = 0;
        proto.vbuf = b;
    }
    proto.len = c->len + 1;
    proto.depth = d;
    return make_view(a, (qr_type)v.t, &proto);
}

qr_val qr_vec_slice(qr_arena *a, qr_val v, size_t from, size_t to)
{
    const qr_coll *c = v.c;
    if (to > c->len)
        to = c->len;
    if (from >= to)
        return qr_vec_empty((qr_type)v.t);
    if (from == 0 && to == c->len)
        return v;
    qr_coll proto = *c;
    proto.line = proto.col = 0;
    proto.off = c->off + (uint32_t)from;
    proto.len = (uint32_t)(to - from);
    return make_view(a, (qr_type)v.t, &proto);
}

qr_val qr_vec_assoc(qr_arena *a, qr_val v, size_t i, qr_val x)
{
    size_t n = v.c->len;
    qr_vbuf *b = vbuf_new(a, n);
    if (!b)
        return qr_nil();
    memcpy(b->items, qr_vec_items(v), n * sizeof(qr_val));
    b->items[i] = x;
    b->used = (uint32_t)n;
    uint32_t d = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t e = elem_depth(b->items[k]);
        if (e > d)
            d = e;
    }
    if (!depth_ok(a, d + 1))
        return qr_nil();
    qr_coll proto = {.len = (uint32_t)n, .depth = d + 1, .off = 0};
    proto.vbuf = b;
    return make_view(a, (qr_type)v.t, &proto);
}

void qr_vecb_init(qr_vecb *b, qr_arena *a, size_t hint)
{
    b->a = a;
    b->buf = NULL;
    b->depth = 0;
    if (hint)
        b->buf = vbuf_new(a, hint);
}

void qr_vecb_push(qr_vecb *b, qr_val x)
{
    qr_vbuf *vb = b->buf;
    if (!vb) {
        vb = b->buf = vbuf_new(b->a, 8);
        if (!vb)
            return;
    }
    if (vb->used == vb->cap) {
        size_t ncap = (size_t)vb->cap * 2, bytes;
        if (ncap > UINT32_MAX || !qr_size_mul(ncap, sizeof(qr_val), &bytes)) {
            qr_arena_fail(b->a, QR_ENOMEM);
            return;
        }
        qr_val *items = qr_arena_realloc(b->a, vb->items, vb->cap * sizeof(qr_val), bytes);
        if (!items)
            return;
        vb->items = items;
        vb->cap = (uint32_t)ncap;
    }
    vb->items[vb->used++] = x;
    uint32_t e = elem_depth(x);
    if (e > b->depth)
        b->depth = e;
}

qr_val qr_vecb_finish(qr_vecb *b, qr_type t)
{
    if (!b->buf || b->buf->used == 0)
        return qr_vec_empty(t);
    if (!depth_ok(b->a, b->depth + 1))
        return qr_nil();
    qr_coll proto = {.len = b->buf->used, .depth = b->depth + 1, .off = 0};
    proto.vbuf = b->buf;
    b->buf = NULL;
    return make_view(b->a, t, &proto);
}

/* ---------------- maps and sets ---------------- */

qr_val qr_map_empty(void)
{
    qr_val v = {.t = QR_T_MAP};
    v.c = &empty_map;
    return v;
}

qr_val qr_set_empty(void)
{
    qr_val v = {.t = QR_T_SET};
    v.c = &empty_set;
    return v;
}

static const qr_coll empty_sorted_map = {.sorted = true};
static const qr_coll empty_sorted_set = {.sorted = true};

qr_val qr_sorted_empty(qr_type t)
{
    qr_val v = {.t = (uint8_t)(t == QR_T_SET ? QR_T_SET : QR_T_MAP)};
    v.c = t == QR_T_SET ? &empty_sorted_set : &empty_sorted_map;
    return v;
}

static inline bool key_eq(qr_val a, qr_val b)
{
    if (a.t == QR_T_KW && b.t == QR_T_KW)
        return qr_sym_eq(a.sym, b.sym);
    return qr_equal(a, b);
}

static long find_in(const qr_mbuf *mb, uint32_t len, qr_val key)
{
    if (!mb || len == 0)
        return -1;
    if (mb->mask == 0) {
        if (key.t == QR_T_KW) {
            for (uint32_t i = 0; i < len; i++) {
                qr_val k = mb->kv[2 * i];
                if (k.t == QR_T_KW &&
                    (k.sym == key.sym ||
                     ((!k.sym->interned || !key.sym->interned) && qr_sym_eq(k.sym, key.sym))))
                    return (long)i;
            }
            return -1;
        }
        for (uint32_t i = 0; i < len; i++)
            if (key_eq(mb->kv[2 * i], key))
                return (long)i;
        return -1;
    }
    uint64_t h = qr_hash(key);
    for (size_t j = h & mb->mask;; j = (j + 1) & mb->mask) {
        uint32_t e = mb->index[j];
        if (e == 0)
            return -1;
        if (e - 1 < len && key_eq(mb->kv[2 * (e - 1)], key))
            return (long)(e - 1);
    }
}

long qr_map_find(qr_val m, qr_val key)
{
    if (m.t != QR_T_MAP && m.t != QR_T_SET)
        return -1;
    return find_in(m.c->mbuf, m.c->len, key);
}

bool qr_map_get(qr_val m, qr_val key, qr_val *out)
{
    long i = qr_map_find(m, key);
    if (i < 0)
        return false;
    *out = m.c->mbuf->kv[2 * i + 1];
    return true;
}

/* Finds a key of type `want` whose text equals text[0..n) (hash h = hash of the bytes). */
static long find_text(qr_val m, qr_type want, const char *text, size_t n, uint64_t h)
{
    const qr_mbuf *mb = m.c->mbuf;
    uint32_t len = m.c->len;
    if (!mb || len == 0)
        return -1;
    if (mb->mask == 0) {
        for (uint32_t i = 0; i < len; i++) {
            qr_val k = mb->kv[2 * i];
            if (k.t != want)
                continue;
            if (want == QR_T_STR ? (k.s->len == n && memcmp(k.s->data, text, n) == 0)
                                 : (k.sym->len == n && memcmp(k.sym->text, text, n) == 0))
                return (long)i;
        }
        return -1;
    }
    /* qr_hash of a string is its byte hash; of a keyword, the byte hash mixed */
    uint64_t ph = want == QR_T_STR ? h : qr_hash_mix(h ^ 0x4b57ULL);
    for (size_t j = ph & mb->mask;; j = (j + 1) & mb->mask) {
        uint32_t e = mb->index[j];
        if (e == 0)
            return -1;
        if (e - 1 >= len)
            continue;
        qr_val k = mb->kv[2 * (e - 1)];
        if (k.t != want)
            continue;
        if (want == QR_T_STR ? (k.s->len == n && memcmp(k.s->data, text, n) == 0)
                             : (k.sym->len == n && memcmp(k.sym->text, text, n) == 0))
            return (long)(e - 1);
    }
}

/* Index of key in m with the keyword/string fallback, or -1. */
static long lookup_index(qr_val m, qr_val key)
{
    long i = find_in(m.c->mbuf, m.c->len, key);
    if (i < 0) {
        if (key.t == QR_T_KW)
            i = find_text(m, QR_T_STR, key.sym->text, key.sym->len, key.sym->hash);
        else if (key.t == QR_T_STR)
            i = find_text(m, QR_T_KW, key.s->data, key.s->len, qr_str_hash(key.s));
    }
    return i;
}

bool qr_map_lookup(qr_val m, qr_val key, qr_val *out)
{
    if (m.t != QR_T_MAP && m.t != QR_T_SET)
        return false;
    long i = lookup_index(m, key);
    if (i < 0)
        return false;
    *out = m.c->mbuf->kv[2 * i + 1];
    return true;
}

bool qr_map_lookup_hint(qr_val m, qr_val key, uint32_t *hint, qr_val *out)
{
    if (m.t != QR_T_MAP && m.t != QR_T_SET)
        return false;
    const qr_coll *c = m.c;
    uint32_t h = *hint;
    if (h < c->len) {
        qr_val k = c->mbuf->kv[2 * h];
        if (k.t == key.t && k.p == key.p) {
            *out = c->mbuf->kv[2 * h + 1];
            return true;
        }
    }
    long i = lookup_index(m, key);
    if (i < 0)
        return false;
    *hint = (uint32_t)i;
    *out = c->mbuf->kv[2 * i + 1];
    return true;
}

static qr_mbuf *mbuf_new(qr_arena *a, size_t cap)
{
    size_t bytes;
    if (cap < 4)
        cap = 4;
    if (cap > UINT32_MAX / 4 || !qr_size_mul(cap, 2 * sizeof(qr_val), &bytes)) {
        qr_arena_fail(a, QR_ENOMEM);
        return NULL;
    }
    qr_mbuf *b = qr_arena_alloc(a, sizeof *b);
    if (!b)
        return NULL;
    b->kv = qr_arena_alloc(a, bytes);
    if (!b->kv)
        return NULL;
    b->used = 0;
    b->cap = (uint32_t)cap;
    b->mask = 0;
    b->index = NULL;
    return b;
}

static void index_insert(qr_mbuf *b, uint32_t entry)
{
    uint64_t h = qr_hash(b->kv[2 * entry]);
    size_t j = h & b->mask;
    while (b->index[j])
        j = (j + 1) & b->mask;
    b->index[j] = entry + 1;
}

/* (Re)builds the index for entries 0..used, sized for cap. */
static bool index_build(qr_arena *a, qr_mbuf *b)
{
    size_t size = 16;
    while (size < (size_t)b->cap * 2)
        size *= 2;
    b->index = qr_arena_zalloc(a, size * sizeof(uint32_t));
    if (!b->index) {
        b->mask = 0;
        return false;
    }
    b->mask = (uint32_t)(size - 1);
    for (uint32_t i = 0; i < b->used; i++)
        index_insert(b, i);
    return true;
}

/* Appends an entry to b, which has room. */
static bool mbuf_append(qr_arena *a, qr_mbuf *b, qr_val k, qr_val v)
{
    b->kv[2 * b->used] = k;
    b->kv[2 * b->used + 1] = v;
    b->used++;
    if (b->mask)
        index_insert(b, b->used - 1);
    else if (b->used > INDEX_AFTER)
        return index_build(a, b);
    return true;
}

/* Copies entries 0..len of src (skipping `skip`, -1 for none) into a new buffer. */
static qr_mbuf *mbuf_copy(qr_arena *a, const qr_mbuf *src, uint32_t len, long skip,
                          size_t cap)
{
    qr_mbuf *b = mbuf_new(a, cap);
    if (!b)
        return NULL;
    for (uint32_t i = 0; i < len; i++) {
        if ((long)i == skip)
            continue;
        b->kv[2 * b->used] = src->kv[2 * i];
        b->kv[2 * b->used + 1] = src->kv[2 * i + 1];
        b->used++;
    }
    if (b->used > INDEX_AFTER && !index_build(a, b))
        return NULL;
    return b;
}

static uint32_t entries_depth(const qr_mbuf *b, uint32_t len)
{
    uint32_t d = 0;
    for (uint32_t i = 0; i < 2 * len; i++) {
        uint32_t e = elem_depth(b->kv[i]);
        if (e > d)
            d = e;
    }
    return d + 1;
}

/* Where key goes among the sorted entries of c: after every key that is not greater
 * (the end when keys do not compare). */
static uint32_t sorted_pos(const qr_coll *c, qr_val key)
{
    uint32_t lo = 0, hi = c->len;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int r;
        if (!qr_compare(c->mbuf->kv[2 * mid], key, &r))
            return c->len;
        if (r <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A sorted map or set with a new key put in its place (d: the new depth). */
static qr_val sorted_insert(qr_arena *a, qr_val m, qr_val key, qr_val val, uint32_t d)
{
    const qr_coll *c = m.c;
    uint32_t pos = sorted_pos(c, key);
    qr_mbuf *b = mbuf_new(a, (size_t)c->len + 1);
    if (!b)
        return qr_nil();
    for (uint32_t i = 0; i <= c->len; i++) {
        if (i == pos) {
            b->kv[2 * b->used] = key;
            b->kv[2 * b->used + 1] = val;
            b->used++;
        }
        if (i < c->len) {
            b->kv[2 * b->used] = c->mbuf->kv[2 * i];
            b->kv[2 * b->used + 1] = c->mbuf->kv[2 * i + 1];
            b->used++;
        }
    }
    if (b->used > INDEX_AFTER && !index_build(a, b))
        return qr_nil();
    qr_coll proto = *c;
    proto.line = proto.col = 0;
    proto.mbuf = b;
    proto.len = b->used;
    proto.depth = d;
    return make_view(a, (qr_type)m.t, &proto);
}

static qr_val map_put(qr_arena *a, qr_val m, qr_val key, qr_val val)
{
    const qr_coll *c = m.c;
    long i = find_in(c->mbuf, c->len, key);
    qr_coll proto = *c;
    proto.line = proto.col = 0;
    uint32_t d = elem_depth(key);
    if (elem_depth(val) > d)
        d = elem_depth(val);
    d += 1;
    if (i >= 0) {
        qr_val old = c->mbuf->kv[2 * i + 1];
        if (old.t == val.t && old.i == val.i)
            return m;
        qr_mbuf *b = mbuf_copy(a, c->mbuf, c->len, -1, c->len);
        if (!b)
            return qr_nil();
        b->kv[2 * i + 1] = val;
        proto.mbuf = b;
        proto.depth = entries_depth(b, b->used);
        if (!depth_ok(a, proto.depth))
            return qr_nil();
        return make_view(a, (qr_type)m.t, &proto);
    }
    if (d < c->depth)
        d = c->depth;
    if (!depth_ok(a, d))
        return qr_nil();
    if (c->sorted)
        return sorted_insert(a, m, key, val, d);
    qr_mbuf *b = c->mbuf;
    if (!(b && c->len > 0 && c->len == b->used && b->used < b->cap)) {
        b = mbuf_copy(a, c->mbuf, c->len, -1, (size_t)c->len * 2);
        if (!b)
            return qr_nil();
    }
    if (!mbuf_append(a, b, key, val))
        return qr_nil();
    proto.mbuf = b;
    proto.len = c->len + 1;
    proto.depth = d;
    return make_view(a, (qr_type)m.t, &proto);
}

qr_val qr_map_assoc(qr_arena *a, qr_val m, qr_val key, qr_val val)
{
    return map_put(a, m, key, val);
}

qr_val qr_set_conj(qr_arena *a, qr_val s, qr_val x)
{
    if (qr_map_find(s, x) >= 0)
        return s;
    return map_put(a, s, x, x);
}

static qr_val map_remove(qr_arena *a, qr_val m, qr_val key)
{
    const qr_coll *c = m.c;
    long i = find_in(c->mbuf, c->len, key);
    if (i < 0)
        return m;
    if (c->len == 1)
        return c->sorted ? qr_sorted_empty((qr_type)m.t)
                         : m.t == QR_T_SET ? qr_set_empty() : qr_map_empty();
    qr_mbuf *b = mbuf_copy(a, c->mbuf, c->len, i, c->len);
    if (!b)
        return qr_nil();
    qr_coll proto = *c;
    proto.mbuf = b;
    proto.len = b->used;
    proto.depth = entries_depth(b, b->used);
    return make_view(a, (qr_type)m.t, &proto);
}

qr_val qr_map_dissoc(qr_arena *a, qr_val m, qr_val key)
{
    return map_remove(a, m, key);
}

qr_val qr_set_disj(qr_arena *a, qr_val s, qr_val x)
{
    return map_remove(a, s, x);
}

void qr_mapb_init(qr_mapb *b, qr_arena *a, size_t hint)
{
    b->a = a;
    b->depth = 0;
    b->buf = mbuf_new(a, hint ? hint : 8);
}

qr_val *qr_mapb_slot(qr_mapb *b, qr_val key)
{
    if (!b->buf)
        return NULL;
    long i = find_in(b->buf, b->buf->used, key);
    return i < 0 ? NULL : &b->buf->kv[2 * i + 1];
}

size_t qr_mapb_put(qr_mapb *b, qr_val key, qr_val val)
{
    qr_mbuf *mb = b->buf;
    if (!mb)
        return 0;
    uint32_t e = elem_depth(key);
    if (elem_depth(val) > e)
        e = elem_depth(val);
    if (e > b->depth)
        b->depth = e;
    long i = find_in(mb, mb->used, key);
    if (i >= 0) {
        mb->kv[2 * i + 1] = val;
        return (size_t)i;
    }
    if (mb->used == mb->cap) {
        qr_mbuf *nb = mbuf_copy(b->a, mb, mb->used, -1, (size_t)mb->cap * 2);
        if (!nb)
            return 0;
        mb = b->buf = nb;
    }
    mbuf_append(b->a, mb, key, val);
    return mb->used - 1;
}

void qr_mapb_reuse(qr_mapb *b)
{
    b->depth = 0;
    if (!b->buf)
        return;
    b->buf->used = 0;
    b->buf->mask = 0;
    b->buf->index = NULL;
}

qr_val qr_mapb_finish(qr_mapb *b, qr_type t)
{
    if (!b->buf || b->buf->used == 0)
        return t == QR_T_SET ? qr_set_empty() : qr_map_empty();
    if (!depth_ok(b->a, b->depth + 1))
        return qr_nil();
    /* Copy into one block (view, buffer header, entries, index), sized exactly: a map read
     * from JSON is then a few adjacent cache lines instead of five scattered blocks, which
     * is most of the cost of scanning 100,000 records. */
    qr_mbuf *src = b->buf;
    uint32_t n = src->used;
    size_t isize = 0;
    if (n > INDEX_AFTER) {
        isize = 16;
        while (isize < (size_t)n * 2)
            isize *= 2;
    }
    size_t bytes = sizeof(qr_coll) + sizeof(qr_mbuf) + 2 * (size_t)n * sizeof(qr_val) +
                   isize * sizeof(uint32_t);
    unsigned char *blk = qr_arena_alloc(b->a, bytes);
    if (!blk)
        return qr_nil();
    qr_coll *c = (qr_coll *)blk;
    qr_mbuf *mb = (qr_mbuf *)(blk + sizeof(qr_coll));
    mb->kv = (qr_val *)(blk + sizeof(qr_coll) + sizeof(qr_mbuf));
    memcpy(mb->kv, src->kv, 2 * (size_t)n * sizeof(qr_val));
    mb->used = mb->cap = n;
    mb->mask = 0;
    mb->index = NULL;
    if (isize) {
        mb->index = (uint32_t *)(mb->kv + 2 * (size_t)n);
        memset(mb->index, 0, isize * sizeof(uint32_t));
        mb->mask = (uint32_t)(isize - 1);
        for (uint32_t i = 0; i < n; i++)
            index_insert(mb, i);
    }
    memset(c, 0, sizeof *c);
    c->len = n;
    c->depth = b->depth + 1;
    c->mbuf = mb;
    /* the builder's buffer stays with the builder: qr_mapb_reuse starts the next map in it */
    qr_val v = {.t = (uint8_t)t};
    v.dep = (uint16_t)c->depth;
    v.c = c;
    return v;
}
