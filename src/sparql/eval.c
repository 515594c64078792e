/*
 * eval.c: evaluation of the SPARQL algebra over the store.
 *
 * Solutions are rows of term ids, one column per variable of the whole query (0 =
 * unbound), kept in tables allocated from one arena whose cap is the memory limit. Every
 * node is evaluated with an input table and returns Join(input, node): basic graph
 * patterns, property paths, unions and graphs take the input rows directly (each row's
 * bindings are pushed into index lookups, an index nested-loop join); every other node
 * (FILTER, OPTIONAL, MINUS, BIND, subqueries) is evaluated on its own and then joined,
 * which keeps the scoping of section 18 (a FILTER never sees bindings from outside its
 * group). Within a basic graph pattern the triple patterns are ordered greedily by the
 * exact range sizes the indexes give, preferring patterns connected to bound variables.
 *
 * Limits: every produced row and every path step ticks a counter; the clock and the
 * request's stop are read every 1024 ticks; the arena's cap is the memory limit. A limit
 * unwinds with longjmp to qr_sparql_exec, which frees everything (all memory is in the
 * arena or in the context's list).
 */
#include "sparql_int.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct table {
    size_t n, cap;
    sq_id *r;
} table;

struct sq_ctx {
    qr_sparql_store *st;
    const qr_sparql_query *q;
    const qr_sparql_limits *lim;
    qr_sparql_error *err;
    jmp_buf jb;
    int rc;
    qr_arena mem;
    size_t w;
    uint64_t steps;
    struct timespec t0;
    sq_id *active;
    size_t nactive;
    sq_id *named;
    size_t nnamed;
    const sq_id *outer;
    sq_term *aggv; /* the current group's aggregate values */
    uint64_t bnode_serial;
    void *regex_cache;
    uint64_t row_serial; /* which solution BIND/SELECT expressions run on (for BNODE(str)) */
    size_t interned; /* bytes of new terms this evaluation put into the store's dictionary:
                      * counted with the arena against the memory cap */
    sq_id zero_ok; /* a path end given as a constant: its zero-length match stands even
                    * when the graph lacks it */
};

void sq_regex_cache_free(void *cache);

static void fail(sq_ctx *c, qr_sparql_error_kind kind, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noreturn));
static void fail(sq_ctx *c, qr_sparql_error_kind kind, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err->msg, sizeof c->err->msg, fmt, ap);
    va_end(ap);
    c->err->kind = kind;
    c->rc = rc;
    longjmp(c->jb, 1);
}

void sq_ctx_fail(sq_ctx *c, qr_sparql_error_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err->msg, sizeof c->err->msg, fmt, ap);
    va_end(ap);
    c->err->kind = kind;
    c->rc = kind == QR_SPARQL_LIMIT ? QR_ELIMIT : kind == QR_SPARQL_SYNTAX ? QR_EINVAL
                                                                          : QR_ERUNTIME;
    longjmp(c->jb, 1);
}

static void on_arena_fail(void *ud, int code)
{
    sq_ctx *c = ud;
    (void)code;
    if (c->lim && c->lim->max_memory)
        fail(c, QR_SPARQL_LIMIT, QR_ELIMIT,
             "memory limit reached (%zu bytes): narrow the query or add LIMIT",
             c->lim->max_memory);
    fail(c, QR_SPARQL_RUNTIME, QR_ENOMEM, "out of memory while evaluating the query");
}

static void *ca(sq_ctx *c, size_t n)
{
    return qr_arena_alloc(&c->mem, n ? n : 1); /* failure longjmps via on_fail */
}

int sq_ctx_tick(sq_ctx *c)
{
    if ((++c->steps & 1023) == 0) {
        if (c->lim && qr_stop_check(c->lim->stop)) {
            qr_buf why;
            qr_buf_init(&why);
            qr_stop_describe(c->lim->stop, &why);
            char msg[160];
            snprintf(msg, sizeof msg, "%s", why.p ? why.p : "stopped");
            qr_buf_release(&why);
            fail(c, QR_SPARQL_LIMIT, QR_ESTOPPED, "the query was stopped: %s", msg);
        }
        if (c->lim && c->lim->timeout_ms) {
            struct timespec t;
            clock_gettime(CLOCK_MONOTONIC, &t);
            uint64_t ms = (uint64_t)(t.tv_sec - c->t0.tv_sec) * 1000 +
                          (uint64_t)((t.tv_nsec - c->t0.tv_nsec) / 1000000);
            if (ms > c->lim->timeout_ms)
                fail(c, QR_SPARQL_LIMIT, QR_ELIMIT,
                     "time limit reached (%llu ms): narrow the query (bind the start of "
                     "property paths, add selective patterns) or add LIMIT",
                     (unsigned long long)c->lim->timeout_ms);
        }
    }
    return 0;
}

qr_arena *sq_ctx_arena(sq_ctx *c)
{
    return &c->mem;
}
qr_sparql_store *sq_ctx_store(sq_ctx *c)
{
    return c->st;
}
int64_t sq_ctx_now(sq_ctx *c)
{
    return c->lim ? c->lim->now : 0;
}
uint64_t sq_ctx_row_serial(sq_ctx *c);
uint64_t sq_ctx_row_serial(sq_ctx *c)
{
    return c->row_serial;
}
const char *sq_ctx_base(sq_ctx *c)
{
    return c->q->base;
}
uint64_t sq_ctx_bnode_serial(sq_ctx *c)
{
    return ++c->bnode_serial;
}
const sq_id *sq_ctx_outer(sq_ctx *c)
{
    return c->outer;
}
void **sq_ctx_regex_cache(sq_ctx *c);
void **sq_ctx_regex_cache(sq_ctx *c)
{
    return &c->regex_cache;
}

bool sq_ctx_over(sq_ctx *c, size_t n)
{
    if (!c->lim || !c->lim->max_memory)
        return false;
    size_t cap = c->lim->max_memory, held = c->mem.used + c->interned;
    return n > cap || held > cap - n;
}

void sq_ctx_reserve(sq_ctx *c, size_t n)
{
    if (sq_ctx_over(c, n))
        on_arena_fail(c, QR_ENOMEM);
}

sq_id sq_ctx_intern(sq_ctx *c, const sq_term *t)
{
    size_t before = c->st->nterms;
    size_t cost = (size_t)t->len + 1 + sizeof(sq_term) + 2 * sizeof(uint32_t);
    sq_ctx_reserve(c, cost);
    sq_id id = sq_dict_intern(c->st, t);
    if (!id)
        fail(c, QR_SPARQL_RUNTIME, QR_ENOMEM, "out of memory while evaluating the query");
    if (c->st->nterms != before)
        c->interned += cost;
    return id;
}

const sq_term *sq_ctx_term(sq_ctx *c, sq_id id)
{
    return &c->st->terms[id];
}

int sq_ctx_agg_value(sq_ctx *c, int agg, sq_term *out)
{
    if (!c->aggv || !c->aggv[agg].kind)
        return -1;
    *out = c->aggv[agg];
    return 0;
}

/* ---- tables ---- */
static table *tab_new(sq_ctx *c)
{
    table *t = ca(c, sizeof *t);
    memset(t, 0, sizeof *t);
    return t;
}

static sq_id *tab_push(sq_ctx *c, table *t, const sq_id *row)
{
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 16, bytes;
        if (!qr_size_mul(nc, c->w * sizeof(sq_id), &bytes))
            on_arena_fail(c, QR_ENOMEM);
        sq_id *nr = qr_arena_realloc(&c->mem, t->r, t->cap * c->w * sizeof(sq_id), bytes);
        t->r = nr;
        t->cap = nc;
    }
    sq_id *dst = t->r + t->n * c->w;
    if (row)
        memcpy(dst, row, c->w * sizeof(sq_id));
    else
        memset(dst, 0, c->w * sizeof(sq_id));
    t->n++;
    sq_ctx_tick(c);
    return dst;
}

static inline sq_id *tab_row(sq_ctx *c, const table *t, size_t i)
{
    return t->r + i * c->w;
}

static table *unit_table(sq_ctx *c)
{
    table *t = tab_new(c);
    tab_push(c, t, NULL);
    return t;
}

static bool is_unit(sq_ctx *c, const table *t)
{
    if (t->n != 1)
        return false;
    for (size_t i = 0; i < c->w; i++)
        if (t->r[i])
            return false;
    return true;
}

static bool compatible(sq_ctx *c, const sq_id *a, const sq_id *b)
{
    for (size_t i = 0; i < c->w; i++)
        if (a[i] && b[i] && a[i] != b[i])
            return false;
    return true;
}

static void merge_into(sq_ctx *c, sq_id *dst, const sq_id *a, const sq_id *b)
{
    for (size_t i = 0; i < c->w; i++)
        dst[i] = a[i] ? a[i] : b[i];
}

/* variables bound in every row of t */
static void certain_vars(sq_ctx *c, const table *t, bool *out)
{
    for (size_t v = 0; v < c->w; v++)
        out[v] = t->n > 0;
    for (size_t i = 0; i < t->n; i++) {
        const sq_id *r = tab_row(c, t, i);
        for (size_t v = 0; v < c->w; v++)
            if (!r[v])
                out[v] = false;
    }
}

/* An index of table b on the variables certain in both a and b. */
typedef struct hindex {
    int *keys;
    size_t nkeys;
    size_t nb;
    uint32_t *head, *next;
    size_t mask;
} hindex;

static uint64_t row_key(const sq_id *r, const int *keys, size_t nk)
{
    uint64_t h = 0x12345;
    for (size_t i = 0; i < nk; i++)
        h = qr_hash_combine(h, r[keys[i]]);
    return h;
}

static void hindex_build(sq_ctx *c, hindex *h, const table *a, const table *b)
{
    bool *ca_ = ca(c, c->w + 1), *cb = ca(c, c->w + 1);
    certain_vars(c, a, ca_);
    certain_vars(c, b, cb);
    h->keys = ca(c, (c->w + 1) * sizeof(int));
    h->nkeys = 0;
    for (size_t v = 0; v < c->w; v++)
        if (ca_[v] && cb[v])
            h->keys[h->nkeys++] = (int)v;
    h->nb = b->n;
    if (!h->nkeys)
        return;
    size_t cap = 16;
    while (cap < b->n * 2)
        cap *= 2;
    h->mask = cap - 1;
    h->head = ca(c, cap * sizeof(uint32_t));
    memset(h->head, 0xff, cap * sizeof(uint32_t));
    h->next = ca(c, (b->n + 1) * sizeof(uint32_t));
    for (size_t i = 0; i < b->n; i++) {
        uint64_t k = row_key(tab_row(c, b, i), h->keys, h->nkeys) & h->mask;
        h->next[i] = h->head[k];
        h->head[k] = (uint32_t)i;
    }
}

/* iterate candidates of b for row r: first, then next */
static size_t hindex_first(const hindex *h, const sq_id *r)
{
    if (!h->nkeys)
        return h->nb ? 0 : (size_t)-1;
    uint32_t i = h->head[row_key(r, h->keys, h->nkeys) & h->mask];
    return i == 0xffffffffu ? (size_t)-1 : i;
}

static size_t hindex_next(const hindex *h, size_t i)
{
    if (!h->nkeys)
        return i + 1 < h->nb ? i + 1 : (size_t)-1;
    uint32_t n = h->next[i];
    return n == 0xffffffffu ? (size_t)-1 : n;
}

static table *join_tables(sq_ctx *c, const table *a, const table *b)
{
    if (is_unit(c, a))
        return (table *)b;
    if (is_unit(c, b))
        return (table *)a;
    table *out = tab_new(c);
    if (!a->n || !b->n)
        return out;
    hindex h;
    hindex_build(c, &h, a, b);
    sq_id *tmp = ca(c, c->w * sizeof(sq_id));
    for (size_t i = 0; i < a->n; i++) {
        const sq_id *ra = tab_row(c, a, i);
        for (size_t j = hindex_first(&h, ra); j != (size_t)-1; j = hindex_next(&h, j)) {
            const sq_id *rb = tab_row(c, b, j);
            sq_ctx_tick(c);
            if (compatible(c, ra, rb)) {
                merge_into(c, tmp, ra, rb);
                tab_push(c, out, tmp);
            }
        }
    }
    return out;
}

/* ---- expressions over rows ---- */
static bool filter_ok(sq_ctx *c, sq_expr *const *ex, size_t n, const sq_id *row)
{
    for (size_t i = 0; i < n; i++) {
        qr_arena_mark m = qr_arena_get_mark(&c->mem);
        sq_term v;
        int rc = sq_expr_eval(c, ex[i], row, &v);
        int b = rc ? -1 : sq_ebv(&v);
        qr_arena_rewind(&c->mem, m);
        if (b != 1)
            return false;
    }
    return true;
}

/* ---- basic graph patterns ---- */
static table *ev(sq_ctx *c, const sq_node *n, table *in);

typedef struct bgp_run {
    const sq_triple *tp;
    size_t ntp;
    sq_id *cid; /* constant ids: 3 per pattern (s, p, o); 0 for a variable slot */
    size_t *order;
    table *out;
} bgp_run;

static sq_id slot_val(const sq_slot *s, sq_id cid, const sq_id *row)
{
    return s->var >= 0 ? row[s->var] : cid;
}

static bool bind(sq_id *row, const sq_slot *s, sq_id v, int *set)
{
    if (s->var < 0)
        return true;
    if (row[s->var])
        return row[s->var] == v;
    row[s->var] = v;
    *set = s->var;
    return true;
}

typedef struct pairs {
    sq_id *v; /* 2 per pair */
    size_t n, cap;
} pairs;

static void pairs_add(sq_ctx *c, pairs *p, sq_id a, sq_id b)
{
    if (p->n == p->cap) {
        size_t nc = p->cap ? p->cap * 2 : 16;
        p->v = qr_arena_realloc(&c->mem, p->v, p->cap * 2 * sizeof(sq_id), nc * 2 * sizeof(sq_id));
        p->cap = nc;
    }
    p->v[2 * p->n] = a;
    p->v[2 * p->n + 1] = b;
    p->n++;
    sq_ctx_tick(c);
}

static void path_pairs(sq_ctx *c, const sq_path *x, sq_id g, sq_id s, sq_id o, pairs *out,
                       int depth);

static sq_id iri_id(sq_ctx *c, const sq_term *t)
{
    return sq_dict_find(c->st, t);
}

/* a small set of ids */
typedef struct idset {
    sq_id *v;
    size_t cap, n;
} idset;

static bool idset_add(sq_ctx *c, idset *s, sq_id x)
{
    if ((s->n + 1) * 2 > s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 64;
        sq_id *nv = ca(c, nc * sizeof(sq_id));
        memset(nv, 0, nc * sizeof(sq_id));
        for (size_t i = 0; i < s->cap; i++)
            if (s->v[i]) {
                size_t k = qr_hash_mix(s->v[i]) & (nc - 1);
                while (nv[k])
                    k = (k + 1) & (nc - 1);
                nv[k] = s->v[i];
            }
        s->v = nv;
        s->cap = nc;
    }
    size_t k = qr_hash_mix(x) & (s->cap - 1);
    while (s->v[k]) {
        if (s->v[k] == x)
            return false;
        k = (k + 1) & (s->cap - 1);
    }
    s->v[k] = x;
    s->n++;
    return true;
}

/* all nodes (subjects and objects) of graph g */
static void graph_nodes(sq_ctx *c, sq_id g, idset *set, sq_id **list, size_t *n)
{
    size_t m;
    const sq_quad *q = sq_store_match(c->st, g, 0, 0, 0, &m);
    size_t cap = 16;
    *list = ca(c, cap * sizeof(sq_id));
    *n = 0;
    for (size_t i = 0; i < m; i++) {
        sq_id two[2] = {q[i].s, q[i].o};
        for (int k = 0; k < 2; k++)
            if (idset_add(c, set, two[k])) {
                if (*n == cap) {
                    *list = qr_arena_realloc(&c->mem, *list, cap * sizeof(sq_id),
                                             cap * 2 * sizeof(sq_id));
                    cap *= 2;
                }
                (*list)[(*n)++] = two[k];
            }
        sq_ctx_tick(c);
    }
}

/* zero-length paths match the graph's nodes, and a constant written in the query */
static bool zero_allowed(sq_ctx *c, sq_id g, sq_id n)
{
    if (n == c->zero_ok)
        return true;
    size_t m;
    sq_store_match(c->st, g, n, 0, 0, &m);
    if (m)
        return true;
    sq_store_match(c->st, g, 0, 0, n, &m);
    return m > 0;
}

/* closure from start along x (forward when fwd, else backward) */
static void closure(sq_ctx *c, const sq_path *x, sq_id g, sq_id start, bool zero, bool fwd,
                    sq_id want, pairs *out, int depth)
{
    idset seen = {0};
    sq_id *queue = ca(c, 16 * sizeof(sq_id));
    size_t qcap = 16, qh = 0, qt = 0;
    if (zero && zero_allowed(c, g, start)) {
        idset_add(c, &seen, start);
        if (!want || want == start)
            pairs_add(c, out, fwd ? start : start, start);
    }
    queue[qt++] = start;
    idset expanded = {0};
    while (qh < qt) {
        sq_id node = queue[qh++];
        if (!idset_add(c, &expanded, node))
            continue;
        pairs step = {0};
        if (fwd)
            path_pairs(c, x, g, node, 0, &step, depth + 1);
        else
            path_pairs(c, x, g, 0, node, &step, depth + 1);
        for (size_t i = 0; i < step.n; i++) {
            sq_id nx = fwd ? step.v[2 * i + 1] : step.v[2 * i];
            if (idset_add(c, &seen, nx)) {
                if (!want || want == nx) {
                    if (fwd)
                        pairs_add(c, out, start, nx);
                    else
                        pairs_add(c, out, nx, start);
                }
            }
            if (qt == qcap) {
                queue = qr_arena_realloc(&c->mem, queue, qcap * sizeof(sq_id),
                                         qcap * 2 * sizeof(sq_id));
                qcap *= 2;
            }
            queue[qt++] = nx;
        }
    }
}

static bool neg_has(const sq_path *x, sq_id p, bool inv, sq_ctx *c)
{
    for (size_t i = 0; i < x->nneg; i++)
        if (x->neg_inv[i] == inv && iri_id(c, &x->neg[i]) == p)
            return true;
    return false;
}

static void path_pairs(sq_ctx *c, const sq_path *x, sq_id g, sq_id s, sq_id o, pairs *out,
                       int depth)
{
    if (depth > 100)
        fail(c, QR_SPARQL_LIMIT, QR_ELIMIT, "property path nests too deep");
    switch (x->kind) {
    case P_LINK: {
        sq_id p = iri_id(c, &x->iri);
        if (!p)
            return;
        size_t m;
        const sq_quad *q = sq_store_match(c->st, g, s, p, o, &m);
        for (size_t i = 0; i < m; i++)
            pairs_add(c, out, q[i].s, q[i].o);
        return;
    }
    case P_INV: {
        pairs tmp = {0};
        path_pairs(c, x->a, g, o, s, &tmp, depth + 1);
        for (size_t i = 0; i < tmp.n; i++)
            pairs_add(c, out, tmp.v[2 * i + 1], tmp.v[2 * i]);
        return;
    }
    case P_ALT:
        path_pairs(c, x->a, g, s, o, out, depth + 1);
        path_pairs(c, x->b, g, s, o, out, depth + 1);
        return;
    case P_SEQ: {
        pairs first = {0};
        if (s || !o) {
            path_pairs(c, x->a, g, s, 0, &first, depth + 1);
            for (size_t i = 0; i < first.n; i++) {
                pairs second = {0};
                path_pairs(c, x->b, g, first.v[2 * i + 1], o, &second, depth + 1);
                for (size_t j = 0; j < second.n; j++)
                    pairs_add(c, out, first.v[2 * i], second.v[2 * j + 1]);
            }
        } else {
            path_pairs(c, x->b, g, 0, o, &first, depth + 1);
            for (size_t i = 0; i < first.n; i++) {
                pairs second = {0};
                path_pairs(c, x->a, g, 0, first.v[2 * i], &second, depth + 1);
                for (size_t j = 0; j < second.n; j++)
                    pairs_add(c, out, second.v[2 * j], first.v[2 * i + 1]);
            }
        }
        return;
    }
    case P_NEG: {
        bool any_fwd = false, any_inv = false;
        for (size_t i = 0; i < x->nneg; i++) {
            if (x->neg_inv[i])
                any_inv = true;
            else
                any_fwd = true;
        }
        if (any_fwd || !any_inv) {
            size_t m;
            const sq_quad *q = sq_store_match(c->st, g, s, 0, o, &m);
            for (size_t i = 0; i < m; i++)
                if (!neg_has(x, q[i].p, false, c))
                    pairs_add(c, out, q[i].s, q[i].o);
        }
        if (any_inv) {
            size_t m;
            const sq_quad *q = sq_store_match(c->st, g, o, 0, s, &m);
            for (size_t i = 0; i < m; i++)
                if (!neg_has(x, q[i].p, true, c))
                    pairs_add(c, out, q[i].o, q[i].s);
        }
        return;
    }
    case P_OPT:
    case P_STAR:
    case P_PLUS: {
        bool zero = x->kind != P_PLUS;
        if (x->kind == P_OPT) {
            idset seen = {0};
            if (s && o) {
                if (s == o) {
                    if (zero_allowed(c, g, s))
                        pairs_add(c, out, s, o);
                    return;
                }
                pairs one = {0};
                path_pairs(c, x->a, g, s, o, &one, depth + 1);
                if (one.n)
                    pairs_add(c, out, s, o);
                return;
            }
            sq_id *nodes;
            size_t nn;
            if (s || o) {
                sq_id b = s ? s : o;
                if (zero_allowed(c, g, b))
                    pairs_add(c, out, b, b);
                idset_add(c, &seen, b);
                pairs one = {0};
                path_pairs(c, x->a, g, s, o, &one, depth + 1);
                for (size_t i = 0; i < one.n; i++) {
                    sq_id other = s ? one.v[2 * i + 1] : one.v[2 * i];
                    if (idset_add(c, &seen, other))
                        pairs_add(c, out, one.v[2 * i], one.v[2 * i + 1]);
                }
                return;
            }
            idset all = {0};
            graph_nodes(c, g, &all, &nodes, &nn);
            for (size_t k = 0; k < nn; k++) {
                idset s2 = {0};
                idset_add(c, &s2, nodes[k]);
                pairs_add(c, out, nodes[k], nodes[k]);
                pairs one = {0};
                path_pairs(c, x->a, g, nodes[k], 0, &one, depth + 1);
                for (size_t i = 0; i < one.n; i++)
                    if (idset_add(c, &s2, one.v[2 * i + 1]))
                        pairs_add(c, out, nodes[k], one.v[2 * i + 1]);
            }
            return;
        }
        if (s) {
            closure(c, x->a, g, s, zero, true, o, out, depth);
        } else if (o) {
            closure(c, x->a, g, o, zero, false, 0, out, depth);
        } else {
            idset all = {0};
            sq_id *nodes;
            size_t nn;
            graph_nodes(c, g, &all, &nodes, &nn);
            for (size_t k = 0; k < nn; k++)
                closure(c, x->a, g, nodes[k], zero, true, 0, out, depth);
        }
        return;
    }
    default:
        return;
    }
}

static void bgp_match(sq_ctx *c, bgp_run *b, size_t k, sq_id *row)
{
    if (k == b->ntp) {
        tab_push(c, b->out, row);
        return;
    }
    size_t ti = b->order[k];
    const sq_triple *t = &b->tp[ti];
    sq_id s = slot_val(&t->s, b->cid[3 * ti], row);
    sq_id o = slot_val(&t->o, b->cid[3 * ti + 2], row);
    if (t->path) {
        for (size_t gi = 0; gi < c->nactive; gi++) {
            pairs pp = {0};
            c->zero_ok = t->s.var < 0 ? s : t->o.var < 0 ? o : 0;
            path_pairs(c, t->path, c->active[gi], s, o, &pp, 0);
            for (size_t i = 0; i < pp.n; i++) {
                int set1 = -1, set2 = -1;
                if (bind(row, &t->s, pp.v[2 * i], &set1) && bind(row, &t->o, pp.v[2 * i + 1], &set2))
                    bgp_match(c, b, k + 1, row);
                if (set1 >= 0)
                    row[set1] = 0;
                if (set2 >= 0)
                    row[set2] = 0;
            }
        }
        return;
    }
    sq_id p = slot_val(&t->p, b->cid[3 * ti + 1], row);
    for (size_t gi = 0; gi < c->nactive; gi++) {
        size_t m;
        const sq_quad *q = sq_store_match(c->st, c->active[gi], s, p, o, &m);
        for (size_t i = 0; i < m; i++) {
            int set[3] = {-1, -1, -1};
            sq_ctx_tick(c);
            if (bind(row, &t->s, q[i].s, &set[0]) && bind(row, &t->p, q[i].p, &set[1]) &&
                bind(row, &t->o, q[i].o, &set[2]))
                bgp_match(c, b, k + 1, row);
            for (int j = 0; j < 3; j++)
                if (set[j] >= 0)
                    row[set[j]] = 0;
        }
    }
}

static size_t estimate(sq_ctx *c, const bgp_run *b, size_t ti, const bool *bound)
{
    const sq_triple *t = &b->tp[ti];
    bool sb = t->s.var < 0 || bound[t->s.var];
    bool ob = t->o.var < 0 || bound[t->o.var];
    bool connected = (t->s.var >= 0 && bound[t->s.var]) || (t->o.var >= 0 && bound[t->o.var]) ||
                     (!t->path && t->p.var >= 0 && bound[t->p.var]);
    size_t est;
    if (t->path) {
        est = sb || ob ? 1000 : (size_t)1 << 40;
    } else {
        size_t total = 0;
        for (size_t gi = 0; gi < c->nactive; gi++) {
            size_t m;
            sq_store_match(c->st, c->active[gi], b->cid[3 * ti], b->cid[3 * ti + 1],
                           b->cid[3 * ti + 2], &m);
            total += m;
        }
        est = total;
        const sq_slot *sl[3] = {&t->s, &t->p, &t->o};
        for (int k = 0; k < 3; k++)
            if (sl[k]->var >= 0 && bound[sl[k]->var])
                est = est / 16 + 1;
        /* ?f :calls ?f: the same free variable twice keeps few of the range */
        if (t->s.var >= 0 && t->s.var == t->o.var && !bound[t->s.var])
            est = est / 16 + 1;
    }
    if (!connected && !(t->s.var < 0 && t->o.var < 0))
        est = est > ((size_t)1 << 50) ? est : est * 64 + 64;
    return est;
}

static table *eval_bgp(sq_ctx *c, const sq_node *n, table *in)
{
    bgp_run b = {0};
    b.tp = n->tp;
    b.ntp = n->ntp;
    b.cid = ca(c, 3 * n->ntp * sizeof(sq_id));
    b.out = tab_new(c);
    for (size_t i = 0; i < n->ntp; i++) {
        const sq_slot *sl[3] = {&n->tp[i].s, &n->tp[i].p, &n->tp[i].o};
        for (int k = 0; k < 3; k++) {
            b.cid[3 * i + k] = 0;
            if (k == 1 && n->tp[i].path)
                continue;
            if (sl[k]->var < 0) {
                /* a constant the data lacks has no match, except as the end of a path,
                 * which it can match with zero length */
                sq_id id = n->tp[i].path ? sq_ctx_intern(c, &sl[k]->t)
                                         : sq_dict_find(c->st, &sl[k]->t);
                if (!id)
                    return b.out;
                b.cid[3 * i + k] = id;
            }
        }
    }
    if (!in->n)
        return b.out;
    /* order the patterns greedily with the first input row's bindings */
    bool *bound = ca(c, c->w + 1);
    const sq_id *r0 = tab_row(c, in, 0);
    for (size_t v = 0; v < c->w; v++)
        bound[v] = r0[v] != 0;
    bool *used = ca(c, n->ntp);
    memset(used, 0, n->ntp);
    b.order = ca(c, n->ntp * sizeof(size_t));
    for (size_t k = 0; k < n->ntp; k++) {
        size_t best = (size_t)-1, best_est = 0;
        for (size_t i = 0; i < n->ntp; i++) {
            if (used[i])
                continue;
            size_t e = estimate(c, &b, i, bound);
            if (best == (size_t)-1 || e < best_est) {
                best = i;
                best_est = e;
            }
        }
        used[best] = true;
        b.order[k] = best;
        const sq_triple *t = &n->tp[best];
        if (t->s.var >= 0)
            bound[t->s.var] = true;
        if (!t->path && t->p.var >= 0)
            bound[t->p.var] = true;
        if (t->o.var >= 0)
            bound[t->o.var] = true;
    }
    sq_id *row = ca(c, c->w * sizeof(sq_id));
    for (size_t i = 0; i < in->n; i++) {
        memcpy(row, tab_row(c, in, i), c->w * sizeof(sq_id));
        bgp_match(c, &b, 0, row);
    }
    return b.out;
}

/* ---- the other nodes ---- */
static bool pushable(const sq_node *n)
{
    switch (n->kind) {
    case N_BGP:
    case N_UNIT:
        return true;
    case N_JOIN:
    case N_UNION:
        return pushable(n->a) && pushable(n->b);
    case N_GRAPH:
        return pushable(n->a);
    default:
        return false;
    }
}

static table *eval_leftjoin(sq_ctx *c, const sq_node *n, table *in)
{
    table *left = ev(c, n->a, in);
    table *out = tab_new(c);
    if (pushable(n->b)) {
        table *one = tab_new(c);
        tab_push(c, one, NULL);
        for (size_t i = 0; i < left->n; i++) {
            const sq_id *r = tab_row(c, left, i);
            memcpy(one->r, r, c->w * sizeof(sq_id));
            table *ext = ev(c, n->b, one);
            bool any = false;
            for (size_t j = 0; j < ext->n; j++) {
                const sq_id *e = tab_row(c, ext, j);
                if (filter_ok(c, n->exprs, n->nexprs, e)) {
                    tab_push(c, out, e);
                    any = true;
                }
            }
            if (!any)
                tab_push(c, out, tab_row(c, left, i));
        }
        return out;
    }
    table *right = ev(c, n->b, unit_table(c));
    hindex h;
    hindex_build(c, &h, left, right);
    sq_id *tmp = ca(c, c->w * sizeof(sq_id));
    for (size_t i = 0; i < left->n; i++) {
        const sq_id *ra = tab_row(c, left, i);
        bool any = false;
        for (size_t j = hindex_first(&h, ra); j != (size_t)-1; j = hindex_next(&h, j)) {
            const sq_id *rb = tab_row(c, right, j);
            sq_ctx_tick(c);
            if (!compatible(c, ra, rb))
                continue;
            merge_into(c, tmp, ra, rb);
            if (filter_ok(c, n->exprs, n->nexprs, tmp)) {
                tab_push(c, out, tmp);
                any = true;
            }
        }
        if (!any)
            tab_push(c, out, ra);
    }
    return out;
}

static table *eval_minus(sq_ctx *c, const sq_node *n, table *in)
{
    table *left = ev(c, n->a, in);
    table *right = ev(c, n->b, unit_table(c));
    table *out = tab_new(c);
    if (!right->n)
        return left;
    /* the right rows indexed on the variables bound on both sides: a left row meets only
     * the right rows that agree there (linear instead of left x right); without such a
     * variable every pair is tried */
    hindex h;
    hindex_build(c, &h, left, right);
    for (size_t i = 0; i < left->n; i++) {
        const sq_id *ra = tab_row(c, left, i);
        bool drop = false;
        for (size_t j = hindex_first(&h, ra); j != (size_t)-1 && !drop; j = hindex_next(&h, j)) {
            const sq_id *rb = tab_row(c, right, j);
            sq_ctx_tick(c);
            bool shared = false;
            for (size_t v = 0; v < c->w; v++)
                if (ra[v] && rb[v]) {
                    shared = true;
                    break;
                }
            if (shared && compatible(c, ra, rb))
                drop = true;
        }
        if (!drop)
            tab_push(c, out, ra);
    }
    return out;
}

static table *values_table(sq_ctx *c, const sq_node *n)
{
    table *t = tab_new(c);
    for (size_t i = 0; i < n->nvrows; i++) {
        sq_id *r = tab_push(c, t, NULL);
        for (size_t k = 0; k < n->nvvars; k++) {
            const sq_term *v = &n->vals[i * n->nvvars + k];
            if (v->kind)
                r[n->vvars[k]] = sq_ctx_intern(c, v);
        }
    }
    return t;
}

static table *run_select(sq_ctx *c, const sq_select *s, size_t **proj, size_t *nproj);

static table *eval_graph(sq_ctx *c, const sq_node *n, table *in)
{
    sq_id *save = c->active;
    size_t nsave = c->nactive;
    table *out;
    if (n->graph.var < 0) {
        sq_id g = sq_dict_find(c->st, &n->graph.t);
        bool known = false;
        for (size_t i = 0; i < c->nnamed; i++)
            if (c->named[i] == g)
                known = true;
        if (!g || !known)
            return tab_new(c);
        c->active = &c->named[0];
        sq_id *one = ca(c, sizeof(sq_id));
        *one = g;
        c->active = one;
        c->nactive = 1;
        out = ev(c, n->a, in);
    } else {
        out = tab_new(c);
        int v = n->graph.var;
        for (size_t gi = 0; gi < c->nnamed; gi++) {
            sq_id g = c->named[gi];
            table *sub = tab_new(c);
            for (size_t i = 0; i < in->n; i++) {
                const sq_id *r = tab_row(c, in, i);
                if (r[v] && r[v] != g)
                    continue;
                sq_id *nr = tab_push(c, sub, r);
                nr[v] = g;
            }
            if (!sub->n)
                continue;
            c->active = &c->named[gi];
            c->nactive = 1;
            table *res = ev(c, n->a, sub);
            for (size_t i = 0; i < res->n; i++) {
                const sq_id *r = tab_row(c, res, i);
                if (r[v] == g)
                    tab_push(c, out, r);
            }
        }
    }
    c->active = save;
    c->nactive = nsave;
    return out;
}

static table *ev(sq_ctx *c, const sq_node *n, table *in)
{
    switch (n->kind) {
    case N_UNIT:
        return in;
    case N_BGP:
        return eval_bgp(c, n, in);
    case N_JOIN: {
        table *a = ev(c, n->a, in);
        return ev(c, n->b, a);
    }
    case N_UNION: {
        table *a = ev(c, n->a, in);
        table *b = ev(c, n->b, in);
        table *out = tab_new(c);
        for (size_t i = 0; i < a->n; i++)
            tab_push(c, out, tab_row(c, a, i));
        for (size_t i = 0; i < b->n; i++)
            tab_push(c, out, tab_row(c, b, i));
        return out;
    }
    case N_GRAPH:
        return eval_graph(c, n, in);
    case N_VALUES:
        return join_tables(c, in, values_table(c, n));
    case N_SERVICE:
        fail(c, QR_SPARQL_REFUSED, QR_EINVAL, "SERVICE is not supported");
    default:
        break;
    }
    /* evaluated on their own, then joined with the input. Inside EXISTS the outer
     * solution is substituted into the pattern (18.6, substitute(pattern, mu)): a FILTER,
     * OPTIONAL or MINUS group starts from the outer row instead of the empty one, so an
     * inner FILTER that reads an outer variable joins on it by index instead of
     * evaluating its whole group once per outer row (issue 28: quadratic before). */
    table *unit;
    bool subst = c->outer && (n->kind == N_FILTER || n->kind == N_LEFTJOIN || n->kind == N_MINUS);
    if (subst) {
        unit = tab_new(c);
        tab_push(c, unit, c->outer);
    } else {
        unit = is_unit(c, in) ? in : unit_table(c);
    }
    table *r;
    switch (n->kind) {
    case N_LEFTJOIN:
        r = eval_leftjoin(c, n, unit);
        break;
    case N_MINUS:
        r = eval_minus(c, n, unit);
        break;
    case N_FILTER: {
        table *a = ev(c, n->a, unit);
        r = tab_new(c);
        for (size_t i = 0; i < a->n; i++)
            if (filter_ok(c, n->exprs, n->nexprs, tab_row(c, a, i)))
                tab_push(c, r, tab_row(c, a, i));
        break;
    }
    case N_EXTEND: {
        table *a = ev(c, n->a, unit);
        r = tab_new(c);
        for (size_t i = 0; i < a->n; i++) {
            sq_id *row = tab_push(c, r, tab_row(c, a, i));
            c->row_serial++;
            qr_arena_mark m = qr_arena_get_mark(&c->mem);
            sq_term v;
            int rc = sq_expr_eval(c, n->expr, row, &v);
            sq_id id = rc ? 0 : sq_ctx_intern(c, &v);
            qr_arena_rewind(&c->mem, m);
            row[n->var] = id;
        }
        break;
    }
    case N_SUB: {
        size_t *proj, np;
        table *a = run_select(c, n->sub, &proj, &np);
        r = tab_new(c);
        for (size_t i = 0; i < a->n; i++) {
            const sq_id *src = tab_row(c, a, i);
            sq_id *dst = tab_push(c, r, NULL);
            for (size_t k = 0; k < n->sub->nproj; k++)
                dst[n->sub->proj_outer[k]] = src[n->sub->proj_var[k]];
        }
        break;
    }
    default:
        fail(c, QR_SPARQL_RUNTIME, QR_ERUNTIME, "unknown algebra node %d", n->kind);
    }
    if (unit == in)
        return r;
    /* inside EXISTS the group started from the outer row: when that row is the whole
     * input, every result already extends it */
    if (subst && in->n == 1 && !memcmp(in->r, c->outer, c->w * sizeof(sq_id)))
        return r;
    return join_tables(c, in, r);
}

int sq_ctx_exists(sq_ctx *c, const sq_node *pat, const sq_id *row, bool *found)
{
    const sq_id *save = c->outer;
    sq_term *save_agg = c->aggv;
    c->outer = row;
    table *in = tab_new(c);
    tab_push(c, in, row);
    table *r = ev(c, pat, in);
    *found = r->n > 0;
    c->outer = save;
    c->aggv = save_agg;
    return 0;
}

/* ---- grouping and aggregates ---- */
int sq_aggregate(sq_ctx *c, const sq_agg *g, const void *t, const uint32_t *rows, size_t n,
                 sq_term *out);
size_t sq_ctx_width(sq_ctx *c);
size_t sq_ctx_width(sq_ctx *c)
{
    return c->w;
}

typedef struct group {
    uint32_t *rows;
    size_t n, cap;
    sq_id *key;
} group;

static table *run_group(sq_ctx *c, const sq_select *s, table *in, sq_term **aggvals)
{
    size_t ng = s->ngroup;
    group *groups = NULL;
    size_t ngroups = 0, capg = 0;
    size_t hcap = 64;
    while (hcap < in->n * 2)
        hcap *= 2;
    uint32_t *head = ca(c, hcap * sizeof(uint32_t));
    memset(head, 0xff, hcap * sizeof(uint32_t));
    uint32_t *chain = NULL;
    sq_id *key = ca(c, (ng + 1) * sizeof(sq_id));
    for (size_t i = 0; i < in->n; i++) {
        const sq_id *r = tab_row(c, in, i);
        for (size_t k = 0; k < ng; k++) {
            qr_arena_mark m = qr_arena_get_mark(&c->mem);
            sq_term v;
            int rc = sq_expr_eval(c, s->group[k], r, &v);
            key[k] = rc ? 0 : sq_ctx_intern(c, &v);
            qr_arena_rewind(&c->mem, m);
        }
        uint64_t h = 7;
        for (size_t k = 0; k < ng; k++)
            h = qr_hash_combine(h, key[k]);
        size_t b = h & (hcap - 1);
        uint32_t gi = head[b];
        while (gi != 0xffffffffu && memcmp(groups[gi].key, key, ng * sizeof(sq_id)))
            gi = chain[gi];
        if (gi == 0xffffffffu) {
            if (ngroups == capg) {
                size_t nc = capg ? capg * 2 : 16;
                groups = qr_arena_realloc(&c->mem, groups, capg * sizeof(group), nc * sizeof(group));
                chain = qr_arena_realloc(&c->mem, chain, capg * sizeof(uint32_t),
                                         nc * sizeof(uint32_t));
                capg = nc;
            }
            gi = (uint32_t)ngroups++;
            memset(&groups[gi], 0, sizeof(group));
            groups[gi].key = ca(c, (ng + 1) * sizeof(sq_id));
            memcpy(groups[gi].key, key, ng * sizeof(sq_id));
            chain[gi] = head[b];
            head[b] = gi;
        }
        group *g = &groups[gi];
        if (g->n == g->cap) {
            size_t nc = g->cap ? g->cap * 2 : 8;
            g->rows = qr_arena_realloc(&c->mem, g->rows, g->cap * sizeof(uint32_t),
                                       nc * sizeof(uint32_t));
            g->cap = nc;
        }
        g->rows[g->n++] = (uint32_t)i;
        sq_ctx_tick(c);
    }
    if (!ngroups && !ng) {
        /* aggregates over nothing: one empty group */
        groups = ca(c, sizeof(group));
        memset(groups, 0, sizeof(group));
        groups[0].key = key;
        ngroups = 1;
    }
    table *out = tab_new(c);
    *aggvals = ca(c, (ngroups * s->naggs + 1) * sizeof(sq_term));
    for (size_t gi = 0; gi < ngroups; gi++) {
        group *g = &groups[gi];
        sq_id *row = tab_push(c, out, NULL);
        /* the group's variables: plain group variables and AS aliases */
        const sq_id *first = g->n ? tab_row(c, in, g->rows[0]) : NULL;
        for (size_t k = 0; k < ng; k++) {
            if (s->group_as[k] >= 0)
                row[s->group_as[k]] = g->key[k];
            else if (s->group[k]->op == E_VAR)
                row[s->group[k]->var] = g->key[k];
        }
        (void)first;
        for (size_t a = 0; a < s->naggs; a++) {
            sq_term v;
            if (sq_aggregate(c, &s->aggs[a], in, g->rows, g->n, &v))
                v.kind = 0;
            else if (v.kind) {
                /* keep the value past this group's scratch */
                sq_id id = sq_ctx_intern(c, &v);
                v = *sq_ctx_term(c, id);
            }
            (*aggvals)[gi * s->naggs + a] = v;
        }
    }
    return out;
}


static int order_cmp_ctx(sq_ctx *c, const sq_select *s, const sq_term *ka, const sq_term *kb)
{
    for (size_t k = 0; k < s->norder; k++) {
        int r = sq_term_order(&ka[k], &kb[k]);
        if (r)
            return s->desc[k] ? -r : r;
    }
    return 0;
    (void)c;
}

typedef struct sort_item {
    size_t row;
    sq_term *keys;
} sort_item;

static bool item_before(sq_ctx *c, const sq_select *s, const sort_item *a, const sort_item *b);

/* a stable merge sort (qsort has no context argument, and ORDER BY must be stable): ties
 * keep the order of the rows, also after topk_items shuffled them */
static void sort_items(sq_ctx *c, const sq_select *s, sort_item *v, sort_item *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_items(c, s, v, tmp, h);
    sort_items(c, s, v + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = item_before(c, s, &v[j], &v[i]) ? v[j++] : v[i++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

/* a before b in ORDER BY's order, ties by original row (what the stable sort gives) */
static bool item_before(sq_ctx *c, const sq_select *s, const sort_item *a, const sort_item *b)
{
    (void)c;
    int r = order_cmp_ctx(c, s, a->keys, b->keys);
    return r < 0 || (r == 0 && a->row < b->row);
}

static void heap_down(sq_ctx *c, const sq_select *s, sort_item *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        /* a max-heap: the last of the k kept at the top */
        if (l < n && item_before(c, s, &h[m], &h[l]))
            m = l;
        if (r < n && item_before(c, s, &h[m], &h[r]))
            m = r;
        if (m == i)
            return;
        sort_item x = h[i];
        h[i] = h[m];
        h[m] = x;
        i = m;
    }
}

/* moves the first k items in order to v[0..k) (unsorted); returns k */
static size_t topk_items(sq_ctx *c, const sq_select *s, sort_item *v, size_t n, size_t k)
{
    if (!k)
        return 0;
    for (size_t i = k / 2; i-- > 0;)
        heap_down(c, s, v, k, i);
    for (size_t i = k; i < n; i++) {
        sq_ctx_tick(c);
        if (item_before(c, s, &v[i], &v[0])) {
            v[0] = v[i];
            heap_down(c, s, v, k, 0);
        }
    }
    return k;
}

static table *run_select(sq_ctx *c, const sq_select *s, size_t **projp, size_t *nprojp)
{
    table *t = ev(c, s->where, unit_table(c));
    if (s->values)
        t = join_tables(c, t, values_table(c, s->values));
    sq_term *aggvals = NULL;
    if (s->grouped)
        t = run_group(c, s, t, &aggvals);
    /* HAVING, projection expressions and order keys see the group's aggregates */
    table *kept = tab_new(c);
    size_t *kept_group = ca(c, (t->n + 1) * sizeof(size_t));
    for (size_t i = 0; i < t->n; i++) {
        c->aggv = aggvals ? aggvals + i * s->naggs : NULL;
        sq_id *r = tab_row(c, t, i);
        if (s->nhaving && !filter_ok(c, s->having, s->nhaving, r))
            continue;
        sq_id *nr = tab_push(c, kept, r);
        kept_group[kept->n - 1] = i;
        c->row_serial++;
        for (size_t k = 0; k < s->nproj; k++) {
            if (!s->proj_expr[k])
                continue;
            qr_arena_mark m = qr_arena_get_mark(&c->mem);
            sq_term v;
            int rc = sq_expr_eval(c, s->proj_expr[k], nr, &v);
            sq_id id = rc ? 0 : sq_ctx_intern(c, &v);
            qr_arena_rewind(&c->mem, m);
            nr[s->proj_var[k]] = id;
        }
    }
    t = kept;
    if (s->norder && t->n > 1) {
        sort_item *items = ca(c, t->n * sizeof(sort_item));
        for (size_t i = 0; i < t->n; i++) {
            c->aggv = aggvals ? aggvals + kept_group[i] * s->naggs : NULL;
            items[i].row = i;
            items[i].keys = ca(c, s->norder * sizeof(sq_term));
            for (size_t k = 0; k < s->norder; k++) {
                sq_term v;
                if (s->order[k]->op == E_VAR) {
                    sq_id id = tab_row(c, t, i)[s->order[k]->var];
                    if (id)
                        v = *sq_ctx_term(c, id);
                    else
                        memset(&v, 0, sizeof v);
                } else if (sq_expr_eval(c, s->order[k], tab_row(c, t, i), &v))
                    memset(&v, 0, sizeof v);
                else if (v.kind)
                    v = *sq_ctx_term(c, sq_ctx_intern(c, &v));
                items[i].keys[k] = v;
            }
            sq_ctx_tick(c);
        }
        size_t n = t->n;
        if (s->limit >= 0 && !s->distinct && !s->reduced) {
            /* top-k: only the first OFFSET + LIMIT rows in order are needed; a heap keeps
             * them (n log k instead of n log n), ties broken by row as the stable sort */
            uint64_t k = (uint64_t)s->limit + (uint64_t)(s->offset > 0 ? s->offset : 0);
            if (k < n / 2)
                n = topk_items(c, s, items, n, (size_t)k); /* the slice below cuts OFFSET */
        }
        sort_items(c, s, items, ca(c, (n ? n : 1) * sizeof(sort_item)), n);
        table *sorted = tab_new(c);
        for (size_t i = 0; i < n; i++)
            tab_push(c, sorted, tab_row(c, t, items[i].row));
        t = sorted;
    }
    c->aggv = NULL;
    /* projection */
    size_t np = s->star ? s->nscope : s->nproj;
    size_t *proj = ca(c, (np + 1) * sizeof(size_t));
    for (size_t k = 0; k < np; k++)
        proj[k] = (size_t)(s->star ? s->scope_vars[k] : s->proj_var[k]);
    if (s->form == QR_SPARQL_SELECT) {
        bool *keep = ca(c, c->w + 1);
        memset(keep, 0, c->w);
        for (size_t k = 0; k < np; k++)
            keep[proj[k]] = true;
        for (size_t i = 0; i < t->n; i++) {
            sq_id *r = tab_row(c, t, i);
            for (size_t v = 0; v < c->w; v++)
                if (!keep[v])
                    r[v] = 0;
        }
    }
    if (s->distinct && t->n > 1) {
        table *d = tab_new(c);
        size_t hcap = 64;
        while (hcap < t->n * 2)
            hcap *= 2;
        uint32_t *head = ca(c, hcap * sizeof(uint32_t));
        memset(head, 0xff, hcap * sizeof(uint32_t));
        uint32_t *chain = ca(c, t->n * sizeof(uint32_t));
        for (size_t i = 0; i < t->n; i++) {
            const sq_id *r = tab_row(c, t, i);
            uint64_t h = 3;
            for (size_t k = 0; k < np; k++)
                h = qr_hash_combine(h, r[proj[k]]);
            size_t b = h & (hcap - 1);
            uint32_t j = head[b];
            while (j != 0xffffffffu && memcmp(tab_row(c, d, j), r, c->w * sizeof(sq_id)))
                j = chain[j];
            if (j == 0xffffffffu) {
                tab_push(c, d, r);
                chain[d->n - 1] = head[b];
                head[b] = (uint32_t)(d->n - 1);
            }
        }
        t = d;
    }
    if (s->offset > 0 || s->limit >= 0) {
        size_t off = (size_t)(s->offset > 0 ? s->offset : 0);
        size_t end = t->n;
        if (off > end)
            off = end;
        if (s->limit >= 0 && off + (size_t)s->limit < end)
            end = off + (size_t)s->limit;
        table *sl = tab_new(c);
        sl->r = t->r ? t->r + off * c->w : NULL; /* an empty table has no rows */
        sl->n = sl->cap = end - off;
        t = sl;
    }
    *projp = proj;
    *nprojp = np;
    return t;
}

static void setup_dataset(sq_ctx *c)
{
    const qr_sparql_query *q = c->q;
    if (q->nfrom) {
        c->active = ca(c, q->nfrom * sizeof(sq_id));
        c->nactive = 0;
        for (size_t i = 0; i < q->nfrom; i++) {
            sq_id g = sq_dict_find(c->st, &q->from[i]);
            if (g)
                c->active[c->nactive++] = g;
        }
    } else {
        c->active = ca(c, sizeof(sq_id));
        c->active[0] = SQ_DEFAULT_G;
        c->nactive = 1;
    }
    if (q->nfrom_named) {
        c->named = ca(c, q->nfrom_named * sizeof(sq_id));
        for (size_t i = 0; i < q->nfrom_named; i++) {
            sq_id g = sq_dict_find(c->st, &q->from_named[i]);
            if (g)
                c->named[c->nnamed++] = g;
        }
    } else if (!q->nfrom) {
        c->named = c->st->graphs;
        c->nnamed = c->st->ngraphs;
    }
}

int qr_sparql_exec(qr_sparql_store *st, const qr_sparql_query *q, const qr_sparql_limits *lim,
                   qr_sparql_result **out, qr_sparql_error *err)
{
    memset(err, 0, sizeof *err);
    *out = NULL;
    if (qr_sparql_check_readonly(q, err))
        return QR_EINVAL;
    int rc = sq_store_index(st);
    if (rc) {
        err->kind = QR_SPARQL_RUNTIME;
        snprintf(err->msg, sizeof err->msg, "out of memory while indexing the store");
        return rc;
    }
    sq_ctx *c = calloc(1, sizeof *c);
    qr_sparql_result *res = calloc(1, sizeof *res);
    if (!c || !res) {
        free(c);
        free(res);
        return QR_ENOMEM;
    }
    c->st = st;
    c->q = q;
    c->lim = lim;
    c->err = err;
    c->w = q->nvars ? q->nvars : 1;
    qr_arena_init(&c->mem, lim && lim->max_memory ? lim->max_memory : 0);
    c->mem.on_fail = on_arena_fail;
    c->mem.ud = c;
    clock_gettime(CLOCK_MONOTONIC, &c->t0);
    if (setjmp(c->jb)) {
        rc = c->rc;
        sq_regex_cache_free(c->regex_cache);
        qr_arena_release(&c->mem);
        free(c);
        qr_sparql_result_free(res);
        return rc;
    }
    setup_dataset(c);
    size_t *proj, np;
    const sq_select *s = q->top;
    table *t = run_select(c, s, &proj, &np);
    res->st = st;
    if (q->form == QR_SPARQL_ASK) {
        res->ask = true;
        res->boolean = t->n > 0;
    } else {
        if (lim && lim->max_rows && t->n > lim->max_rows)
            fail(c, QR_SPARQL_LIMIT, QR_ELIMIT,
                 "row limit reached: the result has more than %llu rows; add LIMIT, or page "
                 "with LIMIT and OFFSET",
                 (unsigned long long)lim->max_rows);
        res->nvars = np;
        res->vars = calloc(np + 1, sizeof(char *));
        res->rows = malloc((t->n * np + 1) * sizeof(sq_id));
        if (!res->vars || !res->rows)
            fail(c, QR_SPARQL_RUNTIME, QR_ENOMEM, "out of memory while building the result");
        for (size_t k = 0; k < np; k++) {
            res->vars[k] = strdup(q->var_names[proj[k]]);
            if (!res->vars[k])
                fail(c, QR_SPARQL_RUNTIME, QR_ENOMEM, "out of memory while building the result");
        }
        for (size_t i = 0; i < t->n; i++) {
            const sq_id *r = tab_row(c, t, i);
            for (size_t k = 0; k < np; k++)
                res->rows[i * np + k] = r[proj[k]];
        }
        res->nrows = t->n;
    }
    sq_regex_cache_free(c->regex_cache);
    qr_arena_release(&c->mem);
    free(c);
    *out = res;
    return QR_OK;
}

void qr_sparql_result_free(qr_sparql_result *r)
{
    if (!r)
        return;
    if (r->vars)
        for (size_t i = 0; i < r->nvars; i++)
            free(r->vars[i]);
    free(r->vars);
    free(r->rows);
    free(r);
}
