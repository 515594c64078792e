/*
 * value.c: construction of strings, keywords and symbols, and the process-wide intern
 * table; type names.
 *
 * Keywords and symbols are interned (one block per distinct text, compared by pointer)
 * until the table holds QR_INTERN_MAX entries; past that they are built in the caller's
 * arena and compared by hash and bytes. Untrusted input (JSON keys) therefore cannot
 * grow process memory without bound. The table is not thread-safe: one thread evaluates.
 */
#include "quarry/value.h"

#include <pthread.h>

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

/* ---- interning ---- */
typedef struct intern_table {
    qr_sym **slots;
    size_t mask, count;
} intern_table;

static intern_table kw_table, sym_table;

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

static bool table_grow(intern_table *t)
{
    size_t ncap = t->slots ? (t->mask + 1) * 2 : 1024;
    qr_sym **ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return false;
    for (size_t i = 0; t->slots && i <= t->mask; i++) {
        qr_sym *s = t->slots[i];
        if (!s)
            continue;
        size_t j = s->hash & (ncap - 1);
        while (ns[j])
            j = (j + 1) & (ncap - 1);
        ns[j] = s;
    }
    free(t->slots);
    t->slots = ns;
    t->mask = ncap - 1;
    return true;
}

/* The tables are shared by every thread (the MCP server runs calls at once): one lock,
 * held for a probe and, for a new name, an insertion. Interned names are never freed, so
 * a pointer returned stays valid after the lock is dropped. */
static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;

static const qr_sym *intern_locked(intern_table *t, qr_arena *a, const char *s, size_t n);

static const qr_sym *intern(intern_table *t, qr_arena *a, const char *s, size_t n)
{
    pthread_mutex_lock(&intern_lock);
    const qr_sym *sym = intern_locked(t, a, s, n);
    pthread_mutex_unlock(&intern_lock);
    return sym;
}

static const qr_sym *intern_locked(intern_table *t, qr_arena *a, const char *s, size_t n)
{
    if (n > UINT32_MAX - 1)
        n = UINT32_MAX - 1;
    uint64_t h = qr_hash_text(s, n) | 1;
    if (t->slots) {
        for (size_t j = h & t->mask;; j = (j + 1) & t->mask) {
            qr_sym *e = t->slots[j];
            if (!e)
                break;
            if (e->hash == h && e->len == n && memcmp(e->text, s, n) == 0)
                return e;
        }
    }
    if (t->count < QR_INTERN_MAX && (t->slots || table_grow(t)) &&
        (t->count + 1 <= (t->mask + 1) / 2 || table_grow(t))) {
        qr_sym *e = make_sym(a, s, n, h, true);
        if (e) {
            size_t j = h & t->mask;
            while (t->slots[j])
                j = (j + 1) & t->mask;
            t->slots[j] = e;
            t->count++;
            return e;
        }
    }
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
