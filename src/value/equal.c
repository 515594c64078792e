/*
 * equal.c: equality, hashing and ordering with Clojure's semantics.
 *
 * (= 1 1.0) is false and (== 1 1.0) true; lists equal vectors with equal items; maps
 * and sets compare by content whatever their insertion order, so their hash is an
 * order-independent sum. Recursion is bounded because collections cannot nest deeper
 * than QR_MAX_DEPTH (checked when they are built). Work is not bounded by a value's size
 * when it shares its parts, so every collection walked counts its items on the thread's
 * meter (qr_meter), which may stop the work by jumping out: nothing here allocates.
 */
#include "quarry/value.h"

#include <math.h>
#include <string.h>

_Thread_local qr_meter *qr_meter_current;

qr_meter *qr_meter_install(qr_meter *m)
{
    qr_meter *old = qr_meter_current;
    qr_meter_current = m;
    return old;
}

static bool is_seq(qr_val v)
{
    return v.t == QR_T_VEC || v.t == QR_T_LIST;
}

/* Length and item i of a vector, a list or a bounded range. */
static size_t seq_len(qr_val v)
{
    return v.t == QR_T_LAZY ? (size_t)qr_range_len(v) : v.c->len;
}
static qr_val seq_at(qr_val v, size_t i)
{
    return v.t == QR_T_LAZY ? qr_int(qr_range_at(v, i)) : qr_vec_at(v, i);
}

/* A bounded range against a vector, a list or another range. */
static bool range_equal(qr_val a, qr_val b)
{
    if (!(is_seq(a) || qr_is_range(a)) || !(is_seq(b) || qr_is_range(b)))
        return false;
    size_t n = seq_len(a);
    if (n != seq_len(b))
        return false;
    qr_meter_tick(n);
    for (size_t i = 0; i < n; i++)
        if (!qr_equal(seq_at(a, i), seq_at(b, i)))
            return false;
    return true;
}

bool qr_equal(qr_val a, qr_val b)
{
    if (qr_is_range(a) || qr_is_range(b))
        return range_equal(a, b);
    if (a.t != b.t) {
        if (is_seq(a) && is_seq(b))
            goto seq;
        return false;
    }
    switch ((qr_type)a.t) {
    case QR_T_NIL: return true;
    case QR_T_BOOL: return a.b == b.b;
    case QR_T_INT: return a.i == b.i;
    case QR_T_DOUBLE: return a.d == b.d;
    case QR_T_STR:
        return a.s == b.s || (a.s->len == b.s->len && memcmp(a.s->data, b.s->data, a.s->len) == 0);
    case QR_T_KW:
    case QR_T_SYM: return qr_sym_eq(a.sym, b.sym);
    case QR_T_VEC:
    case QR_T_LIST: goto seq;
    case QR_T_MAP: {
        if (a.c == b.c)
            return true;
        size_t n = a.c->len;
        if (n != b.c->len)
            return false;
        qr_meter_tick(n);
        for (size_t i = 0; i < n; i++) {
            qr_val bv;
            if (!qr_map_get(b, qr_map_key_at(a, i), &bv) || !qr_equal(qr_map_val_at(a, i), bv))
                return false;
        }
        return true;
    }
    case QR_T_SET: {
        if (a.c == b.c)
            return true;
        size_t n = a.c->len;
        if (n != b.c->len)
            return false;
        qr_meter_tick(n);
        for (size_t i = 0; i < n; i++)
            if (qr_map_find(b, qr_map_key_at(a, i)) < 0)
                return false;
        return true;
    }
    case QR_T_REGEX:
    case QR_T_FN:
    case QR_T_VAR:
    case QR_T_LAZY: return a.p == b.p;
    }
    return false;
seq : {
    size_t n = a.c->len;
    if (n != b.c->len)
        return false;
    if (a.c == b.c)
        return true;
    qr_meter_tick(n);
    const qr_val *x = qr_vec_items(a), *y = qr_vec_items(b);
    for (size_t i = 0; i < n; i++)
        if (!qr_equal(x[i], y[i]))
            return false;
    return true;
}
}

bool qr_num_equal(qr_val a, qr_val b)
{
    if (a.t == QR_T_INT && b.t == QR_T_INT)
        return a.i == b.i;
    return qr_to_double(a) == qr_to_double(b);
}

uint64_t qr_hash(qr_val v)
{
    switch ((qr_type)v.t) {
    case QR_T_NIL: return 0x6e696cULL;
    case QR_T_BOOL: return v.b ? 0x74727565ULL : 0x66616c73ULL;
    case QR_T_INT: return qr_hash_mix((uint64_t)v.i ^ 0x1234567ULL);
    case QR_T_DOUBLE: {
        double d = v.d == 0.0 ? 0.0 : v.d;
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        return qr_hash_mix(bits ^ 0xd0d0ULL);
    }
    case QR_T_STR: return qr_str_hash(v.s);
    case QR_T_KW: return qr_hash_mix(v.sym->hash ^ 0x4b57ULL);
    case QR_T_SYM: return qr_hash_mix(v.sym->hash ^ 0x5359ULL);
    case QR_T_VEC:
    case QR_T_LIST: {
        uint64_t h = 0x5eedULL;
        qr_meter_tick(v.c->len);
        const qr_val *x = qr_vec_items(v);
        for (size_t i = 0; i < v.c->len; i++)
            h = qr_hash_combine(h, qr_hash(x[i]));
        return h;
    }
    case QR_T_MAP: {
        uint64_t h = 0x3a9ULL;
        qr_meter_tick(v.c->len);
        for (size_t i = 0; i < v.c->len; i++)
            h += qr_hash_mix(qr_hash(qr_map_key_at(v, i)) ^ (qr_hash(qr_map_val_at(v, i)) * 31));
        return qr_hash_mix(h);
    }
    case QR_T_SET: {
        uint64_t h = 0x5e7ULL;
        qr_meter_tick(v.c->len);
        for (size_t i = 0; i < v.c->len; i++)
            h += qr_hash(qr_map_key_at(v, i));
        return qr_hash_mix(h);
    }
    case QR_T_REGEX:
    case QR_T_FN:
    case QR_T_VAR:
    case QR_T_LAZY:
        if (qr_is_range(v)) { /* as the list of its items */
            uint64_t h = 0x5eedULL;
            qr_meter_tick(qr_range_len(v));
            for (uint64_t i = 0; i < qr_range_len(v); i++)
                h = qr_hash_combine(h, qr_hash(qr_int(qr_range_at(v, i))));
            return h;
        }
        return qr_hash_mix((uint64_t)(uintptr_t)v.p);
    }
    return 0;
}

static int cmp_bytes(const char *a, size_t an, const char *b, size_t bn)
{
    int r = memcmp(a, b, an < bn ? an : bn);
    if (r)
        return r < 0 ? -1 : 1;
    return an < bn ? -1 : an > bn ? 1 : 0;
}

bool qr_compare(qr_val a, qr_val b, int *out)
{
    if (a.t == QR_T_NIL || b.t == QR_T_NIL) {
        *out = (a.t == QR_T_NIL) - (b.t == QR_T_NIL);
        *out = -*out;
        return true;
    }
    if (qr_is_number(a) && qr_is_number(b)) {
        if (a.t == QR_T_INT && b.t == QR_T_INT) {
            *out = a.i < b.i ? -1 : a.i > b.i;
            return true;
        }
        double x = qr_to_double(a), y = qr_to_double(b);
        if (isnan(x) || isnan(y))
            *out = isnan(x) ? (isnan(y) ? 0 : 1) : -1;
        else
            *out = x < y ? -1 : x > y;
        return true;
    }
    if ((is_seq(a) || qr_is_range(a)) && (is_seq(b) || qr_is_range(b))) {
        size_t n = seq_len(a), m = seq_len(b);
        if (n != m) {
            *out = n < m ? -1 : 1;
            return true;
        }
        qr_meter_tick(n);
        for (size_t i = 0; i < n; i++) {
            if (!qr_compare(seq_at(a, i), seq_at(b, i), out))
                return false;
            if (*out)
                return true;
        }
        *out = 0;
        return true;
    }
    if (a.t != b.t)
        return false;
    switch ((qr_type)a.t) {
    case QR_T_BOOL: *out = (int)a.b - (int)b.b; return true;
    case QR_T_STR: *out = cmp_bytes(a.s->data, a.s->len, b.s->data, b.s->len); return true;
    case QR_T_KW:
    case QR_T_SYM: {
        /* no namespace sorts first, then by namespace, then by name */
        const qr_sym *x = a.sym, *y = b.sym;
        if (!x->ns_len != !y->ns_len) {
            *out = x->ns_len ? 1 : -1;
            return true;
        }
        if (x->ns_len) {
            int r = cmp_bytes(x->text, x->ns_len, y->text, y->ns_len);
            if (r) {
                *out = r;
                return true;
            }
        }
        size_t xn, yn;
        const char *xs = qr_sym_name(x, &xn), *ys = qr_sym_name(y, &yn);
        *out = cmp_bytes(xs, xn, ys, yn);
        return true;
    }
    default: return false;
    }
}
