/*
 * graph_common.c: the parts of the memory-graph algorithms that are not one algorithm:
 * allocation (with a per-thread failure countdown so tests can force every out-of-memory
 * path), error messages, the seeded generator (splitmix64), the structural check and
 * fingerprint of a CSR graph, seed validation, result ordering and top-k selection.
 *
 * Design: results are plain malloc'd arrays, not arena blocks, because a pipeline keeps
 * them across stages and an embedding across queries; an arena would tie their lifetime
 * to one evaluation. Rejected: checking the whole graph on every spread call (O(m) per
 * query on a graph that the store built once); walkers check what they touch instead.
 * Symmetry is checked through a commutative hash of the edge triples (u<v side against
 * v>u side) rather than by sorting a copy, to stay O(n + m) with no extra memory.
 */
#include "graph_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local long fail_countdown = -1;

void qr__mg_fail_after(long k)
{
    fail_countdown = k;
}

static bool should_fail(void)
{
    if (fail_countdown < 0)
        return false;
    if (fail_countdown == 0)
        return true;
    fail_countdown--;
    return false;
}

void *qr__mg_alloc(size_t count, size_t size)
{
    size_t bytes;
    if (!qr_size_mul(count, size, &bytes) || should_fail())
        return NULL;
    return malloc(bytes ? bytes : 1);
}

void *qr__mg_zalloc(size_t count, size_t size)
{
    size_t bytes;
    if (!qr_size_mul(count, size, &bytes) || should_fail())
        return NULL;
    return calloc(count ? count : 1, size ? size : 1);
}

int qr__mg_fail(qr_buf *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        qr_buf_vprintf(err, fmt, ap);
        va_end(ap);
    }
    return code;
}

int qr__mg_nomem(qr_buf *err, const char *what)
{
    return qr__mg_fail(err, QR_ENOMEM, "out of memory in graph '%s'", what);
}

uint64_t qr__mg_rng(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double qr__mg_rng_sym(uint64_t *state)
{
    return (double)(qr__mg_rng(state) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

void qr_graph_hits_release(qr_graph_hits *h)
{
    if (!h)
        return;
    free(h->items);
    h->items = NULL;
    h->n = 0;
}

int qr__mg_shape(const qr_graph *g, qr_buf *err)
{
    if (!g)
        return qr__mg_fail(err, QR_EINVAL, "graph is missing: pass a qr_graph");
    if (!g->off || (g->off[g->n] > 0 && (!g->adj || !g->w)))
        return qr__mg_fail(err, QR_EINVAL,
                           "graph arrays are missing: off needs n+1 entries, adj and w off[n]");
    if (g->off[0] != 0)
        return qr__mg_fail(err, QR_EINVAL, "graph offsets start at %u: off[0] must be 0",
                           g->off[0]);
    return QR_OK;
}

int qr__mg_bad_edge(qr_buf *err, uint32_t u, size_t j)
{
    return qr__mg_fail(err, QR_EINVAL,
                       "graph adjacency %zu of node %u is malformed: neighbours must be < n and "
                       "not the node itself, strengths in (0, 1], offsets non-decreasing "
                       "(qr_graph_check names the problem)",
                       j, u);
}

static uint64_t triple_hash(uint32_t a, uint32_t b, float w)
{
    uint32_t wb;
    memcpy(&wb, &w, sizeof wb);
    uint64_t h = qr_hash_mix(((uint64_t)a << 32 | b) ^ 0x51ed270b27e6a3f1ULL);
    return qr_hash_mix(h ^ ((uint64_t)wb * 0x9e3779b97f4a7c15ULL));
}

int qr_graph_check(const qr_graph *g, qr_buf *err)
{
    int rc = qr__mg_shape(g, err);
    if (rc)
        return rc;
    uint64_t lo = 0, hi = 0;
    for (uint32_t u = 0; u < g->n; u++) {
        if (g->off[u + 1] < g->off[u])
            return qr__mg_fail(err, QR_EINVAL,
                               "graph offsets decrease at node %u (%u then %u): off must be "
                               "non-decreasing",
                               u, g->off[u], g->off[u + 1]);
        for (uint32_t j = g->off[u]; j < g->off[u + 1]; j++) {
            uint32_t v = g->adj[j];
            float w = g->w[j];
            if (v >= g->n)
                return qr__mg_fail(err, QR_EINVAL,
                                   "graph node %u has neighbour %u: expected an index < %u", u,
                                   v, g->n);
            if (v == u)
                return qr__mg_fail(err, QR_EINVAL,
                                   "graph node %u has an edge to itself: drop self-loops", u);
            if (!(w > 0.0f && w <= 1.0f))
                return qr__mg_fail(err, QR_EINVAL,
                                   "graph edge %u-%u has strength %g: expected a value in (0, 1]",
                                   u, v, (double)w);
            if (u < v)
                lo += triple_hash(u, v, w);
            else
                hi += triple_hash(v, u, w);
        }
    }
    if (lo != hi)
        return qr__mg_fail(err, QR_EINVAL,
                           "graph is not symmetric: every edge u-v must appear in both u's and "
                           "v's lists with the same strength");
    return QR_OK;
}

uint64_t qr_graph_fingerprint(const qr_graph *g)
{
    if (!g || !g->off)
        return 0;
    uint64_t h = qr_hash_mix(g->n + 0x1234567ULL);
    size_t m = g->off[g->n];
    h = qr_hash_combine(h, qr_hash_bytes(g->off, ((size_t)g->n + 1) * sizeof *g->off));
    if (m) {
        h = qr_hash_combine(h, qr_hash_bytes(g->adj, m * sizeof *g->adj));
        h = qr_hash_combine(h, qr_hash_bytes(g->w, m * sizeof *g->w));
    }
    return h;
}

int qr__mg_seeds(uint32_t n, const qr_graph_item *seeds, size_t nseeds, size_t min,
                 const char *what, qr_buf *err)
{
    if (nseeds < min)
        return qr__mg_fail(err, QR_EINVAL, "'%s' needs at least %zu seed%s, got %zu", what, min,
                           min == 1 ? "" : "s", nseeds);
    if (nseeds && !seeds)
        return qr__mg_fail(err, QR_EINVAL, "'%s' seeds are missing: pass %zu items", what,
                           nseeds);
    for (size_t i = 0; i < nseeds; i++) {
        if (seeds[i].node >= n)
            return qr__mg_fail(err, QR_EINVAL,
                               "'%s' seed %zu is node %u: the graph has nodes 0..%u", what, i,
                               seeds[i].node, n ? n - 1 : 0);
        if (!(seeds[i].score >= 0.0) || isinf(seeds[i].score))
            return qr__mg_fail(err, QR_EINVAL,
                               "'%s' seed %zu (node %u) has score %g: expected a finite "
                               "score >= 0",
                               what, i, seeds[i].node, seeds[i].score);
    }
    return QR_OK;
}

static bool better(const qr_graph_item *a, const qr_graph_item *b)
{
    return a->score > b->score || (a->score == b->score && a->node < b->node);
}

static int cmp_items(const void *pa, const void *pb)
{
    const qr_graph_item *a = pa, *b = pb;
    if (better(a, b))
        return -1;
    if (better(b, a))
        return 1;
    return 0;
}

void qr__mg_sort(qr_graph_item *it, size_t n)
{
    if (n > 1)
        qsort(it, n, sizeof *it, cmp_items);
}

/* Min-heap on "better": the root is the worst item kept. */
static void sift_down(qr_graph_item *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, w = i;
        if (l < n && better(&h[w], &h[l]))
            w = l;
        if (r < n && better(&h[w], &h[r]))
            w = r;
        if (w == i)
            return;
        qr_graph_item t = h[i];
        h[i] = h[w];
        h[w] = t;
        i = w;
    }
}

size_t qr__mg_top(qr_graph_item *it, size_t n, size_t limit)
{
    if (n > limit && limit > 0) {
        for (size_t i = limit / 2; i-- > 0;)
            sift_down(it, limit, i);
        for (size_t i = limit; i < n; i++) {
            if (better(&it[i], &it[0])) {
                it[0] = it[i];
                sift_down(it, limit, 0);
            }
        }
        n = limit;
    } else if (limit == 0) {
        n = 0;
    }
    qr__mg_sort(it, n);
    return n;
}

bool qr__mg_unit_row(const qr_graph_embedding *e, uint32_t i, double *out)
{
    if (e->dim == 0)
        return false;
    const float *r = e->coords + (size_t)i * e->dim;
    double s = 0;
    for (uint32_t j = 0; j < e->dim; j++) {
        double lam = e->eigenvalues[j] > 1e-6 ? e->eigenvalues[j] : 1e-6;
        out[j] = r[j] / sqrt(lam);
        s += out[j] * out[j];
    }
    if (!(s > 0)) {
        for (uint32_t j = 0; j < e->dim; j++)
            out[j] = 0;
        return false;
    }
    double inv = 1.0 / sqrt(s);
    for (uint32_t j = 0; j < e->dim; j++)
        out[j] *= inv;
    return true;
}

int qr__mg_embedding_ok(const qr_graph_embedding *e, const char *what, qr_buf *err)
{
    if (!e)
        return qr__mg_fail(err, QR_EINVAL,
                           "'%s' needs a spectral embedding: compute one with qr_graph_spectral",
                           what);
    if (e->dim > QR_GRAPH_MAX_DIM || (e->dim && e->n && !e->coords) ||
        (e->dim && !e->eigenvalues))
        return qr__mg_fail(err, QR_EINVAL, "'%s' got a malformed embedding (dim %u)", what,
                           e->dim);
    return QR_OK;
}
