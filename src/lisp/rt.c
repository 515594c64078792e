/*
 * rt.c: the runtime helpers builtins share: viewing any seqable value as an array,
 * lookups with Clojure's `get` semantics, argument checks, output capture, unbounded
 * sequences, and the builtin name table with "did you mean" suggestions.
 *
 * Sequences are materialized (there are no lazy sequences in PTC-Lisp): a vector is
 * its own array, a map becomes [k v] pairs, a string one-character strings. Unbounded
 * generators ((range), (repeat x), ...) are values of their own that only the functions
 * which bound them (take, first, nth, map with a bounded partner, ...) accept.
 */
#include "lisp_int.h"

#include <pthread.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool lx_seqable(qr_val v)
{
    return v.t == QR_T_NIL || v.t == QR_T_VEC || v.t == QR_T_LIST || v.t == QR_T_MAP ||
           v.t == QR_T_SET || v.t == QR_T_STR;
}

static _Noreturn void unbounded_error(qr_lx *lx, const char *fname)
{
    lx_throw(lx, QR_LE_TYPE,
             "'%s' cannot consume an unbounded sequence ((range), (repeat x), (iterate f x) or "
             "(cycle xs)); bound it first, as in (take 10 (range))",
             fname);
}

qr_val lx_str_chars(qr_lx *lx, const qr_str *s)
{
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, s->nchars);
    size_t i = 0;
    while (i < s->len) {
        uint32_t cp;
        size_t k = (unsigned char)s->data[i] < 0x80 ? 1 : qr_utf8_decode(s->data + i, s->len - i, &cp);
        qr_vecb_push(&vb, qr_str_new(lx->a, s->data + i, k));
        i += k;
    }
    return qr_vecb_finish(&vb, QR_T_VEC);
}

lx_seq lx_items(qr_lx *lx, qr_val coll, const char *fname, int argn)
{
    lx_seq r = {NULL, 0};
    switch (coll.t) {
    case QR_T_NIL: return r;
    case QR_T_VEC:
    case QR_T_LIST:
        r.items = qr_vec_items(coll);
        r.n = coll.c->len;
        return r;
    case QR_T_MAP: {
        size_t n = qr_map_len(coll);
        qr_val *items = qr_arena_alloc(lx->a, sizeof(qr_val) * (n ? n : 1));
        for (size_t i = 0; i < n; i++) {
            qr_val kv[2] = {qr_map_key_at(coll, i), qr_map_val_at(coll, i)};
            items[i] = qr_vec_from(lx->a, QR_T_VEC, kv, 2);
        }
        r.items = items;
        r.n = n;
        return r;
    }
    case QR_T_SET: {
        size_t n = qr_map_len(coll);
        qr_val *items = qr_arena_alloc(lx->a, sizeof(qr_val) * (n ? n : 1));
        for (size_t i = 0; i < n; i++)
            items[i] = qr_map_key_at(coll, i);
        r.items = items;
        r.n = n;
        return r;
    }
    case QR_T_STR: {
        qr_val v = lx_str_chars(lx, coll.s);
        r.items = qr_vec_items(v);
        r.n = v.c->len;
        return r;
    }
    case QR_T_LAZY:
        if (lx_lazy(coll)->h.bounded) {
            qr_val v = lx_realize(lx, coll);
            r.items = qr_vec_items(v);
            r.n = v.c->len;
            return r;
        }
        unbounded_error(lx, fname);
    default: lx_type_error(lx, fname, argn, "a collection", coll);
    }
}

bool lx_get(qr_val coll, qr_val k, qr_val *out)
{
    switch (coll.t) {
    case QR_T_MAP: return qr_map_lookup(coll, k, out);
    case QR_T_SET: {
        long i = qr_map_find(coll, k);
        if (i < 0)
            return false;
        *out = qr_map_key_at(coll, (size_t)i);
        return true;
    }
    case QR_T_VEC:
        if (k.t == QR_T_INT && k.i >= 0 && (uint64_t)k.i < coll.c->len) {
            *out = qr_vec_at(coll, (size_t)k.i);
            return true;
        }
        return false;
    default: return false;
    }
}

int64_t lx_arg_int(qr_lx *lx, const char *fname, int argn, qr_val v)
{
    if (v.t == QR_T_INT)
        return v.i;
    lx_type_error(lx, fname, argn, "an integer", v);
}

double lx_arg_num(qr_lx *lx, const char *fname, int argn, qr_val v)
{
    if (v.t == QR_T_INT)
        return (double)v.i;
    if (v.t == QR_T_DOUBLE)
        return v.d;
    lx_type_error(lx, fname, argn, "a number", v);
}

const qr_str *lx_arg_str(qr_lx *lx, const char *fname, int argn, qr_val v)
{
    if (v.t == QR_T_STR)
        return v.s;
    lx_type_error(lx, fname, argn, "a string", v);
}

qr_val lx_str(qr_lx *lx, const char *s, size_t n)
{
    return qr_str_new(lx->a, s, n);
}

size_t lx_room(qr_lx *lx)
{
    const qr_arena *a = lx->a;
    if (!a->cap)
        return lx->s->limits.max_memory;
    return a->used >= a->cap ? 0 : a->cap - a->used;
}

int lx_print(qr_lx *lx, qr_buf *b, qr_val v, int mode, size_t max)
{
    int st = qr_print_max(b, v, mode, max);
    if (st == QR_PRINT_STOPPED) {
        lx_check_time(lx); /* the meter stopped the printer: a limit was reached */
        lx_throw(lx, QR_LE_TIMEOUT, "printing was stopped by a limit");
    }
    return st;
}

qr_val lx_buf_to_str(qr_lx *lx, qr_buf *b, int st)
{
    /* the copy needs a string header too: 64 bytes spare */
    if (b->failed || st == QR_PRINT_CUT || b->len + 64 > lx_room(lx)) {
        lx->cur = NULL;
        lx_throw(lx, QR_LE_MEMORY, "memory limit of %zu bytes reached (printing a value)",
                 lx->s->limits.max_memory);
    }
    return qr_str_new(lx->a, b->p ? b->p : "", b->len);
}

/* ---- printing into a string: built in place ----
 * A short result (the usual one) is printed into the scratch buffer and copied into the
 * arena. A long one would then be held twice, once on the heap outside the memory limit
 * and once in the arena, so a string near --max-memory took about twice the limit: past
 * LX_PRINT_DIRECT bytes the pieces are measured first (bounded by the room left, the
 * measure holds nothing), the string is allocated at its final size in the arena (the
 * limit counts it) and printed once straight into it (qr_buf_init_fixed). The cost is a
 * second printing pass for long results only. */
#define LX_PRINT_DIRECT (64u << 10)

/* What a piece prints as: str shows a regex as its source, as Clojure does. */
static qr_val piece_value(int how, qr_val x)
{
    if (how == LX_PRINT_STR && x.t == QR_T_REGEX)
        return (qr_val){.t = QR_T_STR, .s = x.re->source};
    return x;
}

static int piece_mode(int how, qr_val x)
{
    if (how != LX_PRINT_STR)
        return how;
    return x.t == QR_T_STR ? QR_PRINT_DISPLAY : QR_PRINT_READABLY;
}

/* False for what str leaves out (nil); raises for what nothing may print. */
static bool piece_shown(qr_lx *lx, int how, qr_val x)
{
    if (how == LX_PRINT_STR && lx_unbounded(x))
        lx_throw(lx, QR_LE_TYPE, "'str' cannot print an unbounded sequence");
    return !(how == LX_PRINT_STR && x.t == QR_T_NIL);
}

int lx_print_pieces(qr_lx *lx, qr_buf *b, int argc, const qr_val *argv, int how, size_t max)
{
    size_t start = b->len;
    int st = QR_PRINT_DONE;
    bool first = true;
    for (int i = 0; i < argc && st == QR_PRINT_DONE; i++) {
        if (!piece_shown(lx, how, argv[i]))
            continue;
        if (!first && how != LX_PRINT_STR)
            qr_buf_putc(b, ' ');
        first = false;
        size_t used = b->len - start;
        qr_val x = piece_value(how, argv[i]);
        st = lx_print(lx, b, x, piece_mode(how, x), used >= max ? 0 : max - used);
    }
    if (b->len - start > max) { /* a separator past the end: cut at a character start */
        size_t cut = start + max;
        while (cut > start && ((unsigned char)b->p[cut] & 0xc0) == 0x80)
            cut--;
        b->len = cut;
        b->p[cut] = 0;
        st = QR_PRINT_CUT;
    }
    return b->failed ? QR_PRINT_CUT : st;
}

/* The length lx_print_pieces would print, counted without keeping any of it. */
static int measure_pieces(qr_lx *lx, int argc, const qr_val *argv, int how, size_t max,
                          size_t *len)
{
    size_t n = 0;
    bool first = true;
    for (int i = 0; i < argc; i++) {
        if (!piece_shown(lx, how, argv[i]))
            continue;
        n += !first && how != LX_PRINT_STR;
        first = false;
        size_t k = 0;
        qr_val x = piece_value(how, argv[i]);
        int st = qr_print_measure(x, piece_mode(how, x), n >= max ? 0 : max - n, &k);
        if (st == QR_PRINT_STOPPED) {
            lx_check_time(lx);
            lx_throw(lx, QR_LE_TIMEOUT, "printing was stopped by a limit");
        }
        n += k;
        if (st != QR_PRINT_DONE || n > max)
            return QR_PRINT_CUT;
    }
    *len = n;
    return QR_PRINT_DONE;
}

static _Noreturn void print_too_big(qr_lx *lx)
{
    lx->cur = NULL;
    lx_throw(lx, QR_LE_MEMORY, "memory limit of %zu bytes reached (printing a value)",
             lx->s->limits.max_memory);
}

qr_val lx_print_str(qr_lx *lx, int argc, const qr_val *argv, int how)
{
    size_t room = lx_room(lx);
    size_t direct = room < LX_PRINT_DIRECT ? room : LX_PRINT_DIRECT;
    qr_buf *b = lx_scratch(lx);
    int st = lx_print_pieces(lx, b, argc, argv, how, direct);
    if (st == QR_PRINT_DONE || direct == room)
        return lx_buf_to_str(lx, b, st);
    /* long: measure, allocate once, print into it (the string header needs 64 bytes) */
    size_t n = 0;
    if (room < 64 || measure_pieces(lx, argc, argv, how, room - 64, &n) != QR_PRINT_DONE)
        print_too_big(lx);
    qr_str *s = qr_str_alloc(lx->a, n);
    if (!s)
        print_too_big(lx);
    qr_buf in;
    qr_buf_init_fixed(&in, s->data, n + 1);
    if (lx_print_pieces(lx, &in, argc, argv, how, n) != QR_PRINT_DONE || in.len != n)
        print_too_big(lx); /* cannot happen: printing is a pure function of the values */
    return qr_str_seal(s);
}

qr_val lx_pr_str(qr_lx *lx, qr_val v, int mode)
{
    return lx_print_str(lx, 1, &v, mode);
}

void lx_check_size(qr_lx *lx, qr_val v, const char *what)
{
    size_t max = lx->s->limits.max_memory;
    int st = qr_print_max(NULL, v, QR_PRINT_READABLY, max);
    if (st == QR_PRINT_STOPPED)
        lx_check_time(lx);
    if (st != QR_PRINT_DONE) {
        lx->cur = NULL;
        lx_throw(lx, QR_LE_MEMORY,
                 "%s prints to more than %zu bytes (the memory limit); it shares its parts "
                 "or is too large: return or pass less, e.g. (take 100 xs)",
                 what, max);
    }
}

void lx_write(qr_lx *lx, const char *s, size_t n)
{
    size_t max = lx->s->limits.max_output;
    if (lx->out.len >= max) {
        if (n)
            lx->out_truncated = true;
        return;
    }
    if (lx->out.len + n > max) {
        /* cut at a character boundary */
        size_t keep = max - lx->out.len;
        while (keep > 0 && ((unsigned char)s[keep] & 0xc0) == 0x80)
            keep--;
        n = keep;
        lx->out_truncated = true;
    }
    qr_buf_append(&lx->out, s, n);
}

/* ---- generators ---- */

qr_val lx_range_new(qr_lx *lx, int64_t start, int64_t step, uint64_t count)
{
    lazy_seq *z = qr_arena_alloc(lx->a, sizeof *z);
    memset(z, 0, sizeof *z);
    z->h.bounded = true;
    z->h.count = count;
    z->h.start = start;
    z->h.step = step;
    z->kind = LAZY_RANGE;
    z->a = qr_int(start);
    z->b = qr_int(step);
    qr_val v = {.t = QR_T_LAZY};
    v.p = z;
    return v;
}

qr_val lx_realize(qr_lx *lx, qr_val v)
{
    if (!qr_is_range(v))
        return v;
    uint64_t n = qr_range_len(v);
    if (n > lx_room(lx) / sizeof(qr_val))
        lx_throw(lx, QR_LE_MEMORY, "memory limit reached realising a range of %llu integers",
                 (unsigned long long)n);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, (size_t)n);
    for (uint64_t i = 0; i < n; i++) {
        qr_vecb_push(&vb, qr_int(qr_range_at(v, i)));
        if ((i & 65535) == 65535)
            lx_tick_n(lx, 65536);
    }
    return qr_vecb_finish(&vb, QR_T_LIST);
}

/* v with every bounded range inside it realised; *changed tells whether any was */
static qr_val realize_deep(qr_lx *lx, qr_val v, bool *changed)
{
    switch (v.t) {
    case QR_T_LAZY:
        if (!qr_is_range(v))
            return v;
        *changed = true;
        return lx_realize(lx, v);
    case QR_T_VEC:
    case QR_T_LIST: {
        size_t n = v.c->len;
        qr_val *items = NULL;
        for (size_t i = 0; i < n; i++) {
            bool ch = false;
            qr_val x = realize_deep(lx, qr_vec_at(v, i), &ch);
            if (ch && !items) {
                items = qr_arena_alloc(lx->a, sizeof(qr_val) * n);
                for (size_t k = 0; k < i; k++)
                    items[k] = qr_vec_at(v, k);
            }
            if (items)
                items[i] = x;
        }
        lx_tick_n(lx, n);
        if (!items)
            return v;
        *changed = true;
        return qr_vec_from(lx->a, (qr_type)v.t, items, n);
    }
    case QR_T_MAP:
    case QR_T_SET: {
        size_t n = v.c->len;
        bool any = false;
        for (size_t i = 0; i < n && !any; i++) {
            bool ch = false;
            realize_deep(lx, qr_map_key_at(v, i), &ch);
            if (v.t == QR_T_MAP)
                realize_deep(lx, qr_map_val_at(v, i), &ch);
            any = ch;
        }
        lx_tick_n(lx, n);
        if (!any)
            return v;
        *changed = true;
        qr_val r = qr_is_sorted(v) ? qr_sorted_empty((qr_type)v.t)
                   : v.t == QR_T_MAP ? qr_map_empty() : qr_set_empty();
        for (size_t i = 0; i < n; i++) {
            bool ch = false;
            qr_val k = realize_deep(lx, qr_map_key_at(v, i), &ch);
            r = v.t == QR_T_MAP
                    ? qr_map_assoc(lx->a, r, k, realize_deep(lx, qr_map_val_at(v, i), &ch))
                    : qr_set_conj(lx->a, r, k);
        }
        return r;
    }
    default: return v;
    }
}

qr_val lx_realize_deep(qr_lx *lx, qr_val v)
{
    bool changed = false;
    return realize_deep(lx, v, &changed);
}

const qr_val *lx_realize_args(qr_lx *lx, int argc, const qr_val *argv)
{
    int i = 0;
    while (i < argc && argv[i].t != QR_T_LAZY)
        i++;
    if (i == argc)
        return argv;
    qr_val *copy = qr_arena_alloc(lx->a, sizeof(qr_val) * (size_t)argc);
    for (int k = 0; k < argc; k++)
        copy[k] = lx_realize(lx, argv[k]);
    return copy;
}

qr_val lx_lazy_nth(qr_lx *lx, const lazy_seq *z, size_t i)
{
    switch (z->kind) {
    case LAZY_RANGE: {
        qr_val start = z->a, step = z->b;
        if (start.t == QR_T_INT && step.t == QR_T_INT) {
            int64_t off, v;
            if (__builtin_mul_overflow(step.i, (int64_t)i, &off) ||
                __builtin_add_overflow(start.i, off, &v))
                lx_throw(lx, QR_LE_ARITH, "integer overflow in range");
            return qr_int(v);
        }
        return qr_double(qr_to_double(start) + qr_to_double(step) * (double)i);
    }
    case LAZY_REPEAT: return z->a;
    case LAZY_CYCLE: {
        size_t n = z->a.c->len;
        return qr_vec_at(z->a, i % n);
    }
    case LAZY_ITERATE: {
        qr_val x = z->b;
        for (size_t k = 0; k < i; k++)
            x = lx_call1(lx, z->a, x);
        return x;
    }
    }
    return qr_nil();
}

qr_val lx_take(qr_lx *lx, qr_val coll, size_t n, const char *fname)
{
    if (coll.t == QR_T_LAZY) {
        const lazy_seq *z = lx_lazy(coll);
        if (z->h.bounded && n > z->h.count)
            n = (size_t)z->h.count;
        qr_vecb vb;
        qr_vecb_init(&vb, lx->a, n < 1024 ? n : 1024);
        qr_val x = z->b;
        for (size_t i = 0; i < n; i++) {
            if (z->kind == LAZY_ITERATE) {
                if (i)
                    x = lx_call1(lx, z->a, x);
                qr_vecb_push(&vb, x);
            } else {
                qr_vecb_push(&vb, lx_lazy_nth(lx, z, i));
            }
            if ((i & 4095) == 4095)
                lx_tick_n(lx, 4096);
        }
        return qr_vecb_finish(&vb, QR_T_VEC);
    }
    lx_seq s = lx_items(lx, coll, fname, 2);
    if (n > s.n)
        n = s.n;
    if (coll.t == QR_T_VEC)
        return qr_vec_slice(lx->a, coll, 0, n);
    return qr_vec_from(lx->a, QR_T_VEC, s.items, n);
}

/* ---- the builtin name table ---- */

typedef struct name_table {
    const qr_builtin **slots;
    size_t mask;
    bool ready;
} name_table;

static name_table names;
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static const qr_builtin *const libs_list[] = {qr_lib_core,   qr_lib_seq,    qr_lib_map,
                                              qr_lib_num,    qr_lib_string, qr_lib_regex,
                                              qr_lib_seq_sort, qr_lib_compat,
                                              qr_lib_except, qr_lib_xf, qr_lib_ptc,
                                              qr_lib_date};

static void names_init(void)
{
    size_t count = 0;
    for (size_t l = 0; l < sizeof libs_list / sizeof libs_list[0]; l++)
        for (const qr_builtin *b = libs_list[l]; b->hdr.name; b++)
            count++;
    size_t cap = 64;
    while (cap < count * 2)
        cap *= 2;
    names.slots = calloc(cap, sizeof *names.slots);
    if (!names.slots)
        abort();
    names.mask = cap - 1;
    for (size_t l = 0; l < sizeof libs_list / sizeof libs_list[0]; l++) {
        for (const qr_builtin *b = libs_list[l]; b->hdr.name; b++) {
            size_t j = qr_hash_bytes(b->hdr.name, strlen(b->hdr.name)) & names.mask;
            while (names.slots[j])
                j = (j + 1) & names.mask;
            names.slots[j] = b;
        }
    }
    names.ready = true;
}

static const qr_builtin *find_exact(const char *name, size_t n)
{
    pthread_once(&names_once, names_init); /* threads may run programs at once */
    for (size_t j = qr_hash_bytes(name, n) & names.mask;; j = (j + 1) & names.mask) {
        const qr_builtin *b = names.slots[j];
        if (!b)
            return NULL;
        if (strncmp(b->hdr.name, name, n) == 0 && b->hdr.name[n] == 0)
            return b;
    }
}

const qr_builtin *lx_builtin_find(const char *name, size_t n)
{
    static const char cs[] = "clojure.string/";
    const char *slash = memchr(name, '/', n);
    if (slash && slash != name && (size_t)(slash - name) < n - 1) {
        size_t nsl = (size_t)(slash - name);
        if ((nsl == 3 && !memcmp(name, "str", 3)) || (nsl == 6 && !memcmp(name, "string", 6)) ||
            (nsl == 14 && !memcmp(name, "clojure.string", 14))) {
            char buf[128];
            size_t rest = n - nsl - 1;
            if (rest + sizeof cs > sizeof buf)
                return NULL;
            memcpy(buf, cs, sizeof cs - 1);
            memcpy(buf + sizeof cs - 1, slash + 1, rest);
            return find_exact(buf, sizeof cs - 1 + rest);
        }
        if (nsl == 12 && !memcmp(name, "clojure.core", 12))
            return find_exact(slash + 1, n - nsl - 1);
        if (nsl == 3 && !memcmp(name, "set", 3)) { /* (:require [clojure.set :as set]) */
            char buf[128];
            size_t rest = n - nsl - 1;
            if (rest + 13 > sizeof buf)
                return NULL;
            memcpy(buf, "clojure.set/", 12);
            memcpy(buf + 12, slash + 1, rest);
            const qr_builtin *b = find_exact(buf, 12 + rest);
            if (b)
                return b;
        }
        if (nsl == 4 && !memcmp(name, "walk", 4)) { /* (:require [clojure.walk :as walk]) */
            char buf[128];
            size_t rest = n - nsl - 1;
            if (rest + 14 > sizeof buf)
                return NULL;
            memcpy(buf, "clojure.walk/", 13);
            memcpy(buf + 13, slash + 1, rest);
            return find_exact(buf, 13 + rest);
        }
        return find_exact(name, n); /* Math/sqrt and friends */
    }
    return find_exact(name, n);
}

typedef struct cand {
    const char *name;
    size_t d;
} cand;

static void consider(cand *best, int max, int *nbest, const char *name, size_t d)
{
    for (int i = 0; i < *nbest; i++)
        if (strcmp(best[i].name, name) == 0)
            return;
    int pos = *nbest;
    while (pos > 0 && best[pos - 1].d > d)
        pos--;
    if (pos >= max)
        return;
    int last = *nbest < max ? *nbest : max - 1;
    for (int i = last; i > pos; i--)
        best[i] = best[i - 1];
    best[pos].name = name;
    best[pos].d = d;
    if (*nbest < max)
        (*nbest)++;
}

int lx_suggest(qr_lisp_session *s, const char *name, size_t n, const char **out, int max)
{
    pthread_once(&names_once, names_init);
    cand best[8];
    int nbest = 0;
    if (max > 8)
        max = 8;
    size_t limit = n <= 3 ? 1 : n <= 6 ? 2 : 3;
    /* compare short names against the part after a namespace too */
    const char *slash = memchr(name, '/', n);
    const char *bare = slash ? slash + 1 : name;
    size_t bare_n = slash ? n - (size_t)(slash + 1 - name) : n;
    for (size_t j = 0; j <= names.mask; j++) {
        const qr_builtin *b = names.slots[j];
        if (!b || b->hdr.name[0] == '-')
            continue;
        const char *cand_name = b->hdr.name;
        size_t d = qr_edit_distance(name, n, cand_name, strlen(cand_name), 0);
        const char *cs = strchr(cand_name, '/');
        if (cs) {
            size_t d2 = qr_edit_distance(bare, bare_n, cs + 1, strlen(cs + 1), 0);
            if (d2 < d)
                d = d2;
        }
        if (d <= limit)
            consider(best, max, &nbest, cand_name, d);
    }
    for (size_t j = 0; s && s->globals.slots && j <= s->globals.mask; j++) {
        global *g = s->globals.slots[j];
        if (!g || !g->bound)
            continue;
        size_t d = qr_edit_distance(name, n, g->sym->text, g->sym->len, 0);
        if (d <= limit)
            consider(best, max, &nbest, g->sym->text, d);
    }
    static const char *const forms[] = {"defn", "let", "loop", "when", "cond", "if-let",
                                        "when-let", "for", "doseq", "fn", "case", "condp"};
    for (size_t j = 0; j < sizeof forms / sizeof forms[0]; j++) {
        size_t d = qr_edit_distance(name, n, forms[j], strlen(forms[j]), 0);
        if (d <= limit)
            consider(best, max, &nbest, forms[j], d);
    }
    for (int i = 0; i < nbest; i++)
        out[i] = best[i].name;
    return nbest;
}

void qr_lisp_each_builtin(void (*fn)(void *ud, const char *name, const char *args,
                                     const char *doc),
                          void *ud)
{
    for (size_t l = 0; l < sizeof libs_list / sizeof libs_list[0]; l++)
        for (const qr_builtin *b = libs_list[l]; b->hdr.name; b++)
            if (b->hdr.name[0] != '-')
                fn(ud, b->hdr.name, b->args, b->doc);
}
