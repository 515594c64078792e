/*
 * store.c: the term dictionary and the quad store. Every term is interned once (an open
 * addressing table of ids hashed on kind, lexical form, datatype and language); a quad is
 * four ids. Three copies of the quads are kept sorted as GSPO, GPOS and GOSP, so every
 * pattern with a bound graph and any bound positions is one binary-searched range (its
 * length is the exact cardinality the join planner orders by). Indexes are sorted lazily,
 * once after loading. RDF files are read by Debian's libserd (N-Triples and Turtle), with
 * prefixes and relative IRIs expanded through a serd environment; each loaded file gets
 * its own blank node scope.
 *
 * Rejected: a B-tree (the store is built once and read many times: sorted arrays are
 * smaller and faster to search); hashing terms with the per-process seed is kept (labels
 * come from untrusted files).
 */
#include "sparql_int.h"

#include <serd/serd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

qr_sparql_store *qr_sparql_store_new(void)
{
    qr_sparql_store *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    qr_arena_init(&st->strs, 0);
    st->capterms = 1024;
    st->terms = calloc(st->capterms, sizeof *st->terms);
    st->hcap = 2048;
    st->htab = calloc(st->hcap, sizeof *st->htab);
    if (!st->terms || !st->htab) {
        qr_sparql_store_free(st);
        return NULL;
    }
    st->nterms = 1;
    return st;
}

void qr_sparql_store_free(qr_sparql_store *st)
{
    if (!st)
        return;
    qr_arena_release(&st->strs);
    free(st->terms);
    free(st->htab);
    free(st->quads);
    for (int i = 0; i < SQ_NIX; i++)
        free(st->ix[i]);
    free(st->graphs);
    free(st);
}

static uint64_t term_hash(const sq_term *t)
{
    uint64_t h = qr_hash_text(t->lex, t->len) ^ t->kind;
    if (t->dt)
        h = qr_hash_combine(h, qr_hash_text(t->dt, strlen(t->dt)));
    if (t->lang)
        h = qr_hash_combine(h, qr_hash_text(t->lang, strlen(t->lang)) + 1);
    return h;
}

static bool str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return !strcmp(a, b);
}

static bool term_eq(const sq_term *a, const sq_term *b)
{
    return a->kind == b->kind && a->len == b->len && !memcmp(a->lex, b->lex, a->len) &&
           str_eq(a->dt, b->dt) && str_eq(a->lang, b->lang);
}

sq_id sq_dict_find(const qr_sparql_store *st, const sq_term *t)
{
    size_t mask = st->hcap - 1;
    for (size_t i = term_hash(t) & mask;; i = (i + 1) & mask) {
        uint32_t id = st->htab[i];
        if (!id)
            return 0;
        if (term_eq(&st->terms[id], t))
            return id;
    }
}

static int rehash(qr_sparql_store *st)
{
    size_t nc = st->hcap * 2;
    uint32_t *nt = calloc(nc, sizeof *nt);
    if (!nt)
        return QR_ENOMEM;
    for (size_t id = 1; id < st->nterms; id++) {
        size_t i = term_hash(&st->terms[id]) & (nc - 1);
        while (nt[i])
            i = (i + 1) & (nc - 1);
        nt[i] = (uint32_t)id;
    }
    free(st->htab);
    st->htab = nt;
    st->hcap = nc;
    return QR_OK;
}

/* datatype IRIs are interned as strings so terms share them */
static const char *intern_str(qr_sparql_store *st, const char *s)
{
    if (!s)
        return NULL;
    sq_term k = {0};
    k.kind = SQ_IRI;
    k.lex = s;
    k.len = (uint32_t)strlen(s);
    sq_id id = sq_dict_intern(st, &k);
    return id ? st->terms[id].lex : NULL;
}

sq_id sq_dict_intern(qr_sparql_store *st, const sq_term *t)
{
    sq_id found = sq_dict_find(st, t);
    if (found)
        return found;
    if ((st->nterms + 1) * 2 > st->hcap && rehash(st))
        return 0;
    if (st->nterms >= 0xfffffff0u)
        return 0;
    sq_term n = *t;
    n.lex = qr_arena_strndup(&st->strs, t->lex, t->len);
    if (!n.lex)
        return 0;
    if (t->dt) {
        n.dt = intern_str(st, t->dt);
        if (!n.dt)
            return 0;
    }
    if (t->lang) {
        n.lang = qr_arena_strndup(&st->strs, t->lang, strlen(t->lang));
        if (!n.lang)
            return 0;
    }
    if (st->nterms == st->capterms) {
        sq_term *nt = realloc(st->terms, st->capterms * 2 * sizeof *nt);
        if (!nt)
            return 0;
        st->terms = nt;
        st->capterms *= 2;
    }
    sq_id id = (sq_id)st->nterms++;
    st->terms[id] = n;
    size_t mask = st->hcap - 1;
    size_t i = term_hash(&n) & mask;
    while (st->htab[i])
        i = (i + 1) & mask;
    st->htab[i] = id;
    return id;
}

int sq_store_add_ids(qr_sparql_store *st, sq_id g, sq_id s, sq_id p, sq_id o)
{
    if (st->nquads == st->capquads) {
        size_t nc = st->capquads ? st->capquads * 2 : 1024;
        sq_quad *nq = realloc(st->quads, nc * sizeof *nq);
        if (!nq)
            return QR_ENOMEM;
        st->quads = nq;
        st->capquads = nc;
    }
    st->quads[st->nquads++] = (sq_quad){g, s, p, o};
    st->dirty = true;
    return QR_OK;
}

size_t qr_sparql_store_size(const qr_sparql_store *st)
{
    return st->nquads;
}

static int cmp_u32(uint32_t a, uint32_t b)
{
    return a < b ? -1 : a > b;
}
static int cmp_spo(const void *x, const void *y)
{
    const sq_quad *a = x, *b = y;
    int c;
    if ((c = cmp_u32(a->g, b->g)) || (c = cmp_u32(a->s, b->s)) || (c = cmp_u32(a->p, b->p)))
        return c;
    return cmp_u32(a->o, b->o);
}
static int cmp_pos(const void *x, const void *y)
{
    const sq_quad *a = x, *b = y;
    int c;
    if ((c = cmp_u32(a->g, b->g)) || (c = cmp_u32(a->p, b->p)) || (c = cmp_u32(a->o, b->o)))
        return c;
    return cmp_u32(a->s, b->s);
}
static int cmp_osp(const void *x, const void *y)
{
    const sq_quad *a = x, *b = y;
    int c;
    if ((c = cmp_u32(a->g, b->g)) || (c = cmp_u32(a->o, b->o)) || (c = cmp_u32(a->s, b->s)))
        return c;
    return cmp_u32(a->p, b->p);
}

static int cmp_u32p(const void *x, const void *y)
{
    return cmp_u32(*(const uint32_t *)x, *(const uint32_t *)y);
}

int sq_store_index(qr_sparql_store *st)
{
    if (!st->dirty)
        return QR_OK;
    /* a graph is a set of triples: sort, then drop duplicates */
    if (st->nquads)
        qsort(st->quads, st->nquads, sizeof *st->quads, cmp_spo);
    size_t w = 0;
    for (size_t i = 0; i < st->nquads; i++)
        if (!w || cmp_spo(&st->quads[w - 1], &st->quads[i]))
            st->quads[w++] = st->quads[i];
    st->nquads = w;
    int (*cmps[SQ_NIX])(const void *, const void *) = {cmp_spo, cmp_pos, cmp_osp};
    for (int k = 0; k < SQ_NIX; k++) {
        free(st->ix[k]);
        st->ix[k] = malloc((st->nquads ? st->nquads : 1) * sizeof(sq_quad));
        if (!st->ix[k])
            return QR_ENOMEM;
        if (st->nquads)
            memcpy(st->ix[k], st->quads, st->nquads * sizeof(sq_quad));
        if (k && st->nquads)
            qsort(st->ix[k], st->nquads, sizeof(sq_quad), cmps[k]);
    }
    free(st->graphs);
    st->graphs = malloc((st->nquads ? st->nquads : 1) * sizeof(sq_id));
    if (!st->graphs)
        return QR_ENOMEM;
    st->ngraphs = 0;
    for (size_t i = 0; i < st->nquads; i++) {
        sq_id g = st->ix[0][i].g;
        if (g != SQ_DEFAULT_G && (!st->ngraphs || st->graphs[st->ngraphs - 1] != g))
            st->graphs[st->ngraphs++] = g;
    }
    if (st->ngraphs)
        qsort(st->graphs, st->ngraphs, sizeof(sq_id), cmp_u32p);
    st->dirty = false;
    return QR_OK;
}

/* binary search for the range of quads in index k whose first m key fields equal key */
static size_t bound(const sq_quad *q, size_t n, int k, const uint32_t *key, int m, bool upper)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const sq_quad *x = &q[mid];
        uint32_t f[4];
        f[0] = x->g;
        if (k == SQ_IX_SPO) {
            f[1] = x->s; f[2] = x->p; f[3] = x->o;
        } else if (k == SQ_IX_POS) {
            f[1] = x->p; f[2] = x->o; f[3] = x->s;
        } else {
            f[1] = x->o; f[2] = x->s; f[3] = x->p;
        }
        int c = 0;
        for (int i = 0; i < m && !c; i++)
            c = cmp_u32(f[i], key[i]);
        if (c < 0 || (upper && c == 0))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const sq_quad *sq_store_match(const qr_sparql_store *st, sq_id g, sq_id s, sq_id p, sq_id o,
                              size_t *n)
{
    int k;
    uint32_t key[4] = {g, 0, 0, 0};
    int m = 1;
    if (s && o && !p) {
        k = SQ_IX_OSP;
        key[1] = o;
        key[2] = s;
        m = 3;
    } else if (s) {
        k = SQ_IX_SPO;
        key[1] = s;
        m = 2;
        if (p) {
            key[2] = p;
            m = 3;
            if (o) {
                key[3] = o;
                m = 4;
            }
        }
    } else if (p) {
        k = SQ_IX_POS;
        key[1] = p;
        m = 2;
        if (o) {
            key[2] = o;
            m = 3;
        }
    } else if (o) {
        k = SQ_IX_OSP;
        key[1] = o;
        m = 2;
    } else {
        k = SQ_IX_SPO;
    }
    const sq_quad *q = st->ix[k];
    if (!q || !st->nquads) {
        *n = 0;
        return q;
    }
    size_t lo = bound(q, st->nquads, k, key, m, false);
    size_t hi = bound(q, st->nquads, k, key, m, true);
    *n = hi - lo;
    return q + lo;
}

/* ---- adding terms from outside ---- */
static sq_id public_term(qr_sparql_store *st, const qr_sparql_term *t)
{
    sq_term x = {0};
    x.kind = (uint8_t)t->kind;
    x.lex = t->lex;
    x.len = (uint32_t)t->len;
    if (t->kind == QR_SPARQL_LITERAL) {
        if (t->lang && t->lang[0]) {
            size_t n = strlen(t->lang);
            char buf[64];
            if (n >= sizeof buf)
                n = sizeof buf - 1;
            for (size_t i = 0; i < n; i++)
                buf[i] = (char)((t->lang[i] >= 'A' && t->lang[i] <= 'Z') ? t->lang[i] + 32
                                                                          : t->lang[i]);
            buf[n] = 0;
            x.lang = buf;
            return sq_dict_intern(st, &x);
        }
        if (t->datatype && strcmp(t->datatype, XSD "string"))
            x.dt = t->datatype;
    }
    return sq_dict_intern(st, &x);
}

static sq_id graph_id(qr_sparql_store *st, const char *graph)
{
    if (!graph)
        return SQ_DEFAULT_G;
    qr_sparql_term g = {QR_SPARQL_IRI, graph, strlen(graph), NULL, NULL};
    return public_term(st, &g);
}

int qr_sparql_store_add(qr_sparql_store *st, const char *graph, const qr_sparql_term *s,
                        const qr_sparql_term *p, const qr_sparql_term *o)
{
    sq_id g = graph_id(st, graph);
    sq_id a = public_term(st, s), b = public_term(st, p), c = public_term(st, o);
    if (!g || !a || !b || !c)
        return QR_ENOMEM;
    return sq_store_add_ids(st, g, a, b, c);
}

/* ---- libserd ---- */
typedef struct load_ctx {
    qr_sparql_store *st;
    SerdEnv *env;
    sq_id g;
    int rc;
    qr_sparql_error *err;
    const char *name;
    char bprefix[32];
} load_ctx;

static SerdStatus on_base(void *h, const SerdNode *uri)
{
    load_ctx *c = h;
    return serd_env_set_base_uri(c->env, uri);
}

static SerdStatus on_prefix(void *h, const SerdNode *name, const SerdNode *uri)
{
    load_ctx *c = h;
    return serd_env_set_prefix(c->env, name, uri);
}

static sq_id node_id(load_ctx *c, const SerdNode *n, const SerdNode *dt, const SerdNode *lang)
{
    sq_term t = {0};
    SerdNode ex = SERD_NODE_NULL;
    const SerdNode *use = n;
    if (n->type == SERD_CURIE || n->type == SERD_URI) {
        ex = serd_env_expand_node(c->env, n);
        if (!ex.buf) {
            snprintf(c->err->msg, sizeof c->err->msg, "cannot expand '%.*s' in '%s'",
                     (int)(n->n_bytes > 100 ? 100 : n->n_bytes), (const char *)n->buf, c->name);
            c->rc = QR_EINVAL;
            return 0;
        }
        use = &ex;
        t.kind = SQ_IRI;
    } else if (n->type == SERD_BLANK) {
        t.kind = SQ_BLANK;
    } else {
        t.kind = SQ_LIT;
    }
    t.lex = (const char *)use->buf;
    t.len = (uint32_t)use->n_bytes;
    char langbuf[64];
    SerdNode dex = SERD_NODE_NULL;
    if (t.kind == SQ_LIT) {
        if (lang && lang->buf) {
            size_t m = lang->n_bytes < sizeof langbuf - 1 ? lang->n_bytes : sizeof langbuf - 1;
            for (size_t i = 0; i < m; i++) {
                char ch = (char)lang->buf[i];
                langbuf[i] = (ch >= 'A' && ch <= 'Z') ? (char)(ch + 32) : ch;
            }
            langbuf[m] = 0;
            t.lang = langbuf;
        } else if (dt && dt->buf) {
            dex = serd_env_expand_node(c->env, dt);
            const char *d = dex.buf ? (const char *)dex.buf : (const char *)dt->buf;
            if (strcmp(d, XSD "string"))
                t.dt = d;
        }
    }
    char *bn = NULL;
    if (t.kind == SQ_BLANK) {
        /* scope labels to this load */
        size_t m = strlen(c->bprefix) + t.len + 1;
        bn = malloc(m);
        if (!bn) {
            c->rc = QR_ENOMEM;
            return 0;
        }
        snprintf(bn, m, "%s%.*s", c->bprefix, (int)t.len, t.lex);
        t.lex = bn;
        t.len = (uint32_t)strlen(bn);
    }
    sq_id id = sq_dict_intern(c->st, &t);
    free(bn);
    serd_node_free(&ex);
    serd_node_free(&dex);
    if (!id)
        c->rc = QR_ENOMEM;
    return id;
}

static SerdStatus on_statement(void *h, SerdStatementFlags flags, const SerdNode *graph,
                               const SerdNode *s, const SerdNode *p, const SerdNode *o,
                               const SerdNode *dt, const SerdNode *lang)
{
    (void)flags;
    (void)graph;
    load_ctx *c = h;
    sq_id a = node_id(c, s, NULL, NULL);
    sq_id b = a ? node_id(c, p, NULL, NULL) : 0;
    sq_id d = b ? node_id(c, o, dt, lang) : 0;
    if (!d)
        return SERD_ERR_UNKNOWN;
    if (sq_store_add_ids(c->st, c->g, a, b, d)) {
        c->rc = QR_ENOMEM;
        return SERD_ERR_UNKNOWN;
    }
    return SERD_SUCCESS;
}

static SerdStatus on_error(void *h, const SerdError *e)
{
    load_ctx *c = h;
    if (c->rc)
        return SERD_SUCCESS;
    char msg[300];
    va_list ap;
    va_copy(ap, *e->args);
    vsnprintf(msg, sizeof msg, e->fmt, ap);
    va_end(ap);
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '.'))
        msg[--n] = 0;
    snprintf(c->err->msg, sizeof c->err->msg, "bad RDF in '%s' at line %u: %s", c->name, e->line,
             msg);
    qr_utf8_clean(c->err->msg, sizeof c->err->msg);
    c->err->line = e->line;
    c->err->col = e->col;
    c->rc = QR_EINVAL;
    return SERD_SUCCESS;
}

int qr_sparql_store_load_text(qr_sparql_store *st, const char *text, size_t len,
                              const char *syntax, const char *graph, const char *base,
                              qr_sparql_error *err)
{
    memset(err, 0, sizeof *err);
    err->kind = QR_SPARQL_INPUT;
    load_ctx c = {0};
    c.st = st;
    c.err = err;
    c.name = base ? base : "input";
    c.g = graph_id(st, graph);
    if (!c.g)
        return QR_ENOMEM;
    snprintf(c.bprefix, sizeof c.bprefix, "f%zu_", ++st->load_serial);
    if (!len)
        return QR_OK;
    if (strlen(text) != len) {
        snprintf(err->msg, sizeof err->msg, "bad RDF in '%s': it contains a NUL byte", c.name);
        return QR_EINVAL;
    }
    SerdNode bnode = serd_node_from_string(SERD_URI, (const uint8_t *)(base ? base : ""));
    c.env = serd_env_new(base ? &bnode : NULL);
    SerdSyntax syn = !strcmp(syntax, "ntriples") ? SERD_NTRIPLES : SERD_TURTLE;
    SerdReader *r = serd_reader_new(syn, &c, NULL, on_base, on_prefix, on_statement, NULL);
    if (!c.env || !r) {
        serd_env_free(c.env);
        serd_reader_free(r);
        return QR_ENOMEM;
    }
    serd_reader_set_strict(r, true);
    serd_reader_set_error_sink(r, on_error, &c);
    SerdStatus ss = serd_reader_read_string(r, (const uint8_t *)text);
    serd_reader_free(r);
    serd_env_free(c.env);
    if (c.rc)
        return c.rc;
    if (ss > SERD_FAILURE) {
        snprintf(err->msg, sizeof err->msg, "bad RDF in '%s': %s", c.name,
                 (const char *)serd_strerror(ss));
        return QR_EINVAL;
    }
    err->kind = QR_SPARQL_NONE;
    return QR_OK;
}

int qr_sparql_store_load_file(qr_sparql_store *st, const char *path, const char *graph,
                              const char *base, qr_sparql_error *err)
{
    memset(err, 0, sizeof *err);
    char *text;
    size_t len;
    int rc = qr_read_file(path, 0, &text, &len);
    if (rc) {
        err->kind = QR_SPARQL_INPUT;
        snprintf(err->msg, sizeof err->msg, "cannot read RDF file '%s'", path);
        return rc;
    }
    char *uri = NULL;
    if (!base) {
        SerdNode u = serd_node_new_file_uri((const uint8_t *)path, NULL, NULL, true);
        uri = u.buf ? strdup((const char *)u.buf) : NULL;
        serd_node_free(&u);
        base = uri;
    }
    size_t pl = strlen(path);
    const char *syntax = pl > 3 && !strcmp(path + pl - 3, ".nt") ? "ntriples" : "turtle";
    rc = qr_sparql_store_load_text(st, text, len, syntax, graph, base, err);
    free(text);
    free(uri);
    return rc;
}
