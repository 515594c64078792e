/*
 * graph_community.c: community detection by weighted label propagation.
 *
 * Design: each node starts in its own community; rounds visit the nodes in one fixed
 * pseudo-random order (Fisher-Yates from a seed) and move each to the label with the
 * largest summed strength among its neighbours, ties to the smallest label, updating in
 * place so a label can cross several nodes in one round. Per node, the label sums live
 * in a dense array indexed by label and only the touched entries are reset, so a round is
 * O(m). The result is renumbered densely by size, so id 0 is the largest community and
 * the ids of a run do not depend on node numbering inside communities.
 * Rejected: synchronous updates (oscillate on bipartite structure); Louvain modularity
 * optimisation (better partitions on some graphs but several times the code and time,
 * and the pipeline only needs a stable grouping); random tie-breaking (results would
 * depend on more than the seed and the order).
 */
#include "graph_int.h"

#include <stdlib.h>
#include <string.h>

void qr_graph_community_params_init(qr_graph_community_params *p)
{
    p->max_iter = 50;
    p->seed = 0x5eed;
}

void qr_graph_communities_release(qr_graph_communities *c)
{
    if (!c)
        return;
    free(c->of);
    free(c->size);
    memset(c, 0, sizeof *c);
}

typedef struct label_rank {
    uint32_t label, size, first;
} label_rank;

static int cmp_rank(const void *pa, const void *pb)
{
    const label_rank *a = pa, *b = pb;
    if (a->size != b->size)
        return a->size > b->size ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

int qr_graph_community(const qr_graph *g, const qr_graph_community_params *p,
                       qr_graph_communities *out, qr_buf *err)
{
    qr_graph_community_params def;
    if (!p) {
        qr_graph_community_params_init(&def);
        p = &def;
    }
    int rc = qr_graph_check(g, err);
    if (rc)
        return rc;
    if (p->max_iter < 1 || p->max_iter > 10000)
        return qr__mg_fail(err, QR_EINVAL, "'community' max_iter is %u: expected 1..10000",
                           p->max_iter);
    size_t n = g->n;
    uint32_t *label = qr__mg_alloc(n, sizeof *label);
    uint32_t *order = qr__mg_alloc(n, sizeof *order);
    double *acc = qr__mg_zalloc(n, sizeof *acc);
    uint32_t *seen = qr__mg_alloc(n, sizeof *seen);
    label_rank *rank = qr__mg_zalloc(n, sizeof *rank);
    uint32_t *size = NULL;
    if (!label || !order || !acc || !seen || !rank) {
        rc = qr__mg_nomem(err, "community");
        goto done;
    }
    uint64_t rng = p->seed ^ 0xbb67ae8584caa73bULL;
    for (size_t i = 0; i < n; i++) {
        label[i] = (uint32_t)i;
        order[i] = (uint32_t)i;
    }
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(qr__mg_rng(&rng) % i);
        uint32_t t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    uint32_t rounds = 0;
    bool converged = false;
    while (rounds < p->max_iter) {
        rounds++;
        size_t changed = 0;
        for (size_t k = 0; k < n; k++) {
            uint32_t u = order[k];
            size_t ns = 0;
            for (uint32_t j = g->off[u]; j < g->off[u + 1]; j++) {
                uint32_t l = label[g->adj[j]];
                if (acc[l] == 0)
                    seen[ns++] = l;
                acc[l] += g->w[j];
            }
            if (ns == 0)
                continue;
            uint32_t bl = seen[0];
            double bw = acc[bl];
            for (size_t i = 1; i < ns; i++) {
                uint32_t l = seen[i];
                if (acc[l] > bw || (acc[l] == bw && l < bl)) {
                    bl = l;
                    bw = acc[l];
                }
            }
            for (size_t i = 0; i < ns; i++)
                acc[seen[i]] = 0;
            if (bl != label[u]) {
                label[u] = bl;
                changed++;
            }
        }
        if (changed == 0) {
            converged = true;
            break;
        }
    }
    /* dense ids by size descending, ties by smallest member */
    for (size_t i = 0; i < n; i++) {
        label_rank *r = &rank[label[i]];
        if (r->size++ == 0) {
            r->label = label[i];
            r->first = (uint32_t)i;
        }
    }
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (rank[i].size)
            rank[count++] = rank[i];
    qsort(rank, count, sizeof *rank, cmp_rank);
    size = qr__mg_alloc(count, sizeof *size);
    if (!size) {
        rc = qr__mg_nomem(err, "community");
        goto done;
    }
    /* order[] is free now: map label -> dense id */
    for (size_t c = 0; c < count; c++) {
        order[rank[c].label] = (uint32_t)c;
        size[c] = rank[c].size;
    }
    for (size_t i = 0; i < n; i++)
        label[i] = order[label[i]];
    out->n = (uint32_t)n;
    out->count = (uint32_t)count;
    out->of = label;
    out->size = count ? size : NULL;
    if (!count)
        free(size);
    out->rounds = rounds;
    out->converged = converged;
    label = NULL;
    size = NULL;
done:
    free(label);
    free(order);
    free(acc);
    free(seen);
    free(rank);
    free(size);
    return rc;
}
