/*
 * value.c: construction of strings, keywords and symbols, and the process-wide intern
 * table; type names.
 *
 * Keywords and symbols are interned (one block per distinct text, compared by pointer)
 * until the table holds QR_INTERN_MAX entries; past that they are built in the caller's
 * arena and compared by hash and bytes. Untrusted input (JSON keys) therefore cannot
 * grow process memory without bound. The table is safe to use from several threads (see
 * below); everything else about a value lives in its arena, one arena per thread.
 */
#include "quarry/value.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define QR_INTERN_MAX (1u << 20)

const char *qr_type_name(qr_type t)
{
    switch (t) {
    case QR_T_NIL: return "nil";
    case QR_T_BOOL: return "boolean";
    case QR_T_INT: return "integer";
    case QR_T_DOUBLE: return "double";
    case QR_T_STR: return "string";
    case QR_T_KW: return "keyword";
    case QR_T_SYM: return "symbol";
    case QR_T_LIST: return "list";
    case QR_T_VEC: return "vector";
    case QR_T_MAP: return "map";
    case QR_T_SET: return "set";
    case QR_T_FN: return "function";
    case QR_T_REGEX: return "regex";
    case QR_T_VAR: return "var";
    case QR_T_LAZY: return "unbounded sequence";
    }
    return "unknown";
}

qr_str *qr_str_alloc(qr_arena *a, size_t n)
{
    size_t sz;
    if (n > UINT32_MAX - 1 || !qr_size_add(sizeof(qr_str) + 1, n, &sz)) {
        qr_arena_fail(a, QR_ENOMEM);
        return NULL;
    }
    qr_str *s = qr_arena_alloc(a, sz);
    if (!s)
        return NULL;
    s->len = (uint32_t)n;
    s->nchars = 0;
    s->hash = 0;
    s->data[n] = 0;
    return s;
}

qr_val qr_str_seal(qr_str *s)
{
    qr_val v = {.t = QR_T_STR};
    if (!s)
        return qr_nil();
    s->data[s->len] = 0;
    s->nchars = (uint32_t)qr_utf8_count(s->data, s->len);
    v.s = s;
    return v;
}

qr_val qr_str_new(qr_arena *a, const char *p, size_t n)
{
    qr_str *s = qr_str_alloc(a, n);
    if (!s)
        return qr_nil();
    if (n)
        memcpy(s->data, p, n);
    return qr_str_seal(s);
}

uint64_t qr_str_hash(const qr_str *s)
{
    if (s->hash)
        return s->hash;
    uint64_t h = qr_hash_text(s->data, s->len) | 1;
    ((qr_str *)s)->hash = h;
    return h;
}

/* ---- interning ----
 * Lookups are lock-free: the slot array is published with a release store and read with
 * acquire loads, and a slot, once filled, never changes. Insertions take the table's
 * mutex and look again first. Growing publishes a new array; the old one is kept (never
 * freed: at most the size of the new one in all), since a reader may still probe it and
 * at worst misses, then finds the name under the mutex. So `flow run`'s parallel workers
 * (and any embedder's threads) may read JSON and build keywords at the same time. */
typedef struct intern_slots {
    struct intern_slots *older; /* the arrays this one replaced, kept for readers */
    size_t mask;
    qr_sym *_Atomic slot[];
} intern_slots;

typedef struct intern_table {
    intern_slots *_Atomic cur;
    size_t count;
    pthread_mutex_t lock;
} intern_table;

static intern_table kw_table = {NULL, 0, PTHREAD_MUTEX_INITIALIZER};
static intern_table sym_table = {NULL, 0, PTHREAD_MUTEX_INITIALIZER};

static qr_sym *make_sym(qr_arena *a, const char *s, size_t n, uint64_t h, bool interned)
{
    size_t sz = sizeof(qr_sym) + n + 1;
    qr_sym *sym = interned ? malloc(sz) : qr_arena_alloc(a, sz);
    if (!sym)
        return NULL;
    sym->hash = h;
    sym->len = (uint32_t)n;
    sym->ns_len = 0;
    sym->interned = interned;
    memcpy(sym->text, s, n);
    sym->text[n] = 0;
    /* "/" alone is a name; "a/b" has namespace "a"; a leading '/' is not a separator */
    if (n > 1) {
        const char *slash = memchr(s + 1, '/', n - 1);
        if (slash && (size_t)(slash - s) < n - 1)
            sym->ns_len = (uint32_t)(slash - s);
    }
    return sym;
}

/* Under the lock. */
static bool table_grow(intern_table *t)
{
    intern_slots *old = atomic_load_explicit(&t->cur, memory_order_relaxed);
    size_t ncap = old ? (old->mask + 1) * 2 : 1024;
    intern_slots *ns = calloc(1, sizeof *ns + ncap * sizeof(qr_sym *));
    if (!ns)
        return false;
    ns->mask = ncap - 1;
    ns->older = old;
    for (size_t i = 0; old && i <= old->mask; i++) {
        qr_sym *s = atomic_load_explicit(&old->slot[i], memory_order_relaxed);
        if (!s)
            continue;
        size_t j = s->hash & (ncap - 1);
        while (atomic_load_explicit(&ns->slot[j], memory_order_relaxed))
            j = (j + 1) & (ncap - 1);
        atomic_store_explicit(&ns->slot[j], s, memory_order_relaxed);
    }
    atomic_store_explicit(&t->cur, ns, memory_order_release);
    return true;
}

static qr_sym *lookup(intern_table *t, const char *s, size_t n, uint64_t h)
{
    intern_slots *sl = atomic_load_explicit(&t->cur, memory_order_acquire);
    if (!sl)
        return NULL;
    for (size_t j = h & sl->mask;; j = (j + 1) & sl->mask) {
        qr_sym *e = atomic_load_explicit(&sl->slot[j], memory_order_acquire);
        if (!e)
            return NULL;
        if (e->hash == h && e->len == n && memcmp(e->text, s, n) == 0)
            return e;
    }
}

static const qr_sym *intern(intern_table *t, qr_arena *a, const char *s, size_t n)
{
    if (n > UINT32_MAX - 1)
        n = UINT32_MAX - 1;
    uint64_t h = qr_hash_text(s, n) | 1;
    qr_sym *e = lookup(t, s, n, h);
    if (e)
        return e;
    pthread_mutex_lock(&t->lock);
    e = lookup(t, s, n, h);
    if (!e && t->count < QR_INTERN_MAX) {
        intern_slots *sl = atomic_load_explicit(&t->cur, memory_order_relaxed);
        if ((sl && t->count + 1 <= (sl->mask + 1) / 2) || table_grow(t)) {
            sl = atomic_load_explicit(&t->cur, memory_order_relaxed);
            e = make_sym(a, s, n, h, true);
            if (e) {
                size_t j = h & sl->mask;
                while (atomic_load_explicit(&sl->slot[j], memory_order_relaxed))
                    j = (j + 1) & sl->mask;
                atomic_store_explicit(&sl->slot[j], e, memory_order_release);
                t->count++;
            }
        }
    }
    pthread_mutex_unlock(&t->lock);
    if (e)
        return e;
    return make_sym(a, s, n, h, false);
}

qr_val qr_kw(qr_arena *a, const char *s, size_t n)
{
    const qr_sym *sym = intern(&kw_table, a, s, n);
    if (!sym)
        return qr_nil();
    qr_val v = {.t = QR_T_KW};
    v.sym = sym;
    return v;
}

qr_val qr_symbol(qr_arena *a, const char *s, size_t n)
{
    const qr_sym *sym = intern(&sym_table, a, s, n);
    if (!sym)
        return qr_nil();
    qr_val v = {.t = QR_T_SYM};
    v.sym = sym;
    return v;
}

bool qr_sym_eq(const qr_sym *a, const qr_sym *b)
{
    if (a == b)
        return true;
    if (a->interned && b->interned)
        return false;
    return a->hash == b->hash && a->len == b->len && memcmp(a->text, b->text, a->len) == 0;
}

bool qr_kw_valid(const char *s, size_t n)
{
    if (n == 0 || n > 200)
        return false;
    if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_' ||
          s[0] == '*' || s[0] == '!' || s[0] == '?' || s[0] == '<' || s[0] == '>' ||
          s[0] == '=' || s[0] == '-' || s[0] == '+'))
        return false;
    if ((s[0] == '-' || s[0] == '+') && n > 1 && s[1] >= '0' && s[1] <= '9')
        return false;
    size_t slashes = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
            continue;
        if (c == '/') {
            if (++slashes > 1 || i == 0 || i == n - 1)
                return false;
            continue;
        }
        if (!strchr("_-*!?<>=+.'", c))
            return false;
    }
    return true;
}
