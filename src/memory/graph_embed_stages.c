/*
 * graph_embed_stages.c: the pipeline stages that read a spectral embedding: nearest
 * neighbours of the seeds (spectral,k=N), geodesic (short graph paths between seeds that
 * stay straight in the embedding), manifold (extrapolation along the seeds' principal
 * direction), and the community-centroid distance behind the consolidation priority.
 *
 * Design: all of them work on row-normalized vectors (each node on the unit sphere), so
 * similarity is the cosine and distances lie in [0, 2]; before normalizing, each column
 * is divided by sqrt(lambda) (commute-time scaling), because with dim 8 on a graph with
 * two or three clear communities most columns are near-bulk eigenvectors whose entries,
 * unweighted, drown the Fiedler direction (measured on two joined cliques: the nearest
 * neighbours of a node came from the other clique). Zero rows (isolated nodes) have no
 * direction and are skipped. The candidates are
 * every node (O(n * dim) per seed, a few ms at 100k nodes), then a bounded heap keeps
 * the best. Geodesic takes hop distances from a breadth-first search per seed bounded by
 * max_hops, stored as bytes. Rejected: an index for nearest-neighbour search (k-d trees
 * degrade at dim 8+, and one linear scan per query is already cheap); raw (unnormalized)
 * coordinates, whose length mostly encodes degree.
 */
#include "graph_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void qr_graph_knn_params_init(qr_graph_knn_params *p)
{
    p->k = 20;
}

void qr_graph_geodesic_params_init(qr_graph_geodesic_params *p)
{
    p->max_hops = 4;
    p->slack = 0;
    p->min_alignment = 0.5;
}

void qr_graph_manifold_params_init(qr_graph_manifold_params *p)
{
    p->limit = 20;
    p->perp_weight = 1.0;
}

static int finish(qr_graph_item *items, size_t n, size_t limit, qr_graph_hits *out)
{
    n = qr__mg_top(items, n, limit);
    if (n == 0) {
        free(items);
        items = NULL;
    }
    out->items = items;
    out->n = n;
    return QR_OK;
}

int qr_graph_spectral_knn(const qr_graph_embedding *e, const qr_graph_item *seeds,
                          size_t nseeds, const qr_graph_knn_params *p, qr_graph_hits *out,
                          qr_buf *err)
{
    qr_graph_knn_params def;
    if (!p) {
        qr_graph_knn_params_init(&def);
        p = &def;
    }
    int rc = qr__mg_embedding_ok(e, "spectral", err);
    if (!rc)
        rc = qr__mg_seeds(e->n, seeds, nseeds, 1, "spectral", err);
    if (!rc && p->k < 1)
        rc = qr__mg_fail(err, QR_EINVAL, "'spectral' k is 0: expected k >= 1 (default 20)");
    if (rc)
        return rc;
    uint32_t dim = e->dim;
    uint8_t *isseed = qr__mg_zalloc(e->n, 1);
    double *sv = qr__mg_alloc(nseeds * (size_t)(dim ? dim : 1), sizeof *sv);
    double *x = qr__mg_alloc(dim ? dim : 1, sizeof *x);
    qr_graph_item *items = qr__mg_alloc(e->n, sizeof *items);
    if (!isseed || !sv || !x || !items) {
        free(items);
        rc = qr__mg_nomem(err, "spectral");
        goto done;
    }
    size_t ns = 0, nitems = 0;
    for (size_t s = 0; s < nseeds; s++) {
        if (isseed[seeds[s].node])
            continue;
        isseed[seeds[s].node] = 1;
        if (qr__mg_unit_row(e, seeds[s].node, sv + ns * dim))
            ns++;
    }
    for (uint32_t v = 0; v < e->n && ns > 0; v++) {
        if (isseed[v] || !qr__mg_unit_row(e, v, x))
            continue;
        double best = -2;
        for (size_t s = 0; s < ns; s++) {
            double c = 0;
            for (uint32_t j = 0; j < dim; j++)
                c += x[j] * sv[s * dim + j];
            if (c > best)
                best = c;
        }
        items[nitems].node = v;
        items[nitems++].score = best;
    }
    rc = finish(items, nitems, p->k, out);
done:
    free(isseed);
    free(sv);
    free(x);
    return rc;
}

/* Breadth-first hop distances from s up to hops into d (255 = beyond). */
static int bfs(const qr_graph *g, uint32_t s, uint32_t hops, uint8_t *d, uint32_t *queue,
               qr_buf *err)
{
    memset(d, 255, g->n);
    uint32_t end = g->off[g->n];
    size_t qh = 0, qt = 0;
    d[s] = 0;
    queue[qt++] = s;
    while (qh < qt) {
        uint32_t u = queue[qh++];
        if (d[u] >= hops)
            continue;
        uint32_t b = g->off[u], e = g->off[u + 1];
        if (e < b || e > end)
            return qr__mg_bad_edge(err, u, e < b ? b : e);
        for (uint32_t j = b; j < e; j++) {
            uint32_t v = g->adj[j];
            if (v >= g->n || v == u)
                return qr__mg_bad_edge(err, u, j - b);
            if (d[v] == 255) {
                d[v] = (uint8_t)(d[u] + 1);
                queue[qt++] = v;
            }
        }
    }
    return QR_OK;
}

int qr_graph_geodesic(const qr_graph *g, const qr_graph_embedding *e, const qr_graph_item *seeds,
                      size_t nseeds, const qr_graph_geodesic_params *p, qr_graph_hits *out,
                      qr_buf *err)
{
    qr_graph_geodesic_params def;
    if (!p) {
        qr_graph_geodesic_params_init(&def);
        p = &def;
    }
    int rc = qr__mg_shape(g, err);
    if (!rc)
        rc = qr__mg_embedding_ok(e, "geodesic", err);
    if (!rc && e->n != g->n)
        rc = qr__mg_fail(err, QR_EINVAL,
                         "'geodesic' embedding has %u rows but the graph %u nodes: recompute "
                         "the embedding for this graph",
                         e->n, g->n);
    if (!rc)
        rc = qr__mg_seeds(g->n, seeds, nseeds, 2, "geodesic", err);
    if (!rc && nseeds > QR_GRAPH_MAX_PAIR_SEEDS)
        rc = qr__mg_fail(err, QR_EINVAL,
                         "'geodesic' got %zu seeds: at most %d (it looks at every pair); "
                         "add limit:%d before it",
                         nseeds, QR_GRAPH_MAX_PAIR_SEEDS, QR_GRAPH_MAX_PAIR_SEEDS);
    if (!rc && (p->max_hops < 1 || p->max_hops > QR_GRAPH_MAX_HOPS))
        rc = qr__mg_fail(err, QR_EINVAL, "'geodesic' max_hops is %u: expected 1..%d",
                         p->max_hops, QR_GRAPH_MAX_HOPS);
    if (!rc && p->slack > p->max_hops)
        rc = qr__mg_fail(err, QR_EINVAL, "'geodesic' slack is %u: expected 0..max_hops (%u)",
                         p->slack, p->max_hops);
    if (!rc && !(p->min_alignment >= 0.0 && p->min_alignment <= 1.0))
        rc = qr__mg_fail(err, QR_EINVAL, "'geodesic' min_alignment is %g: expected 0..1",
                         p->min_alignment);
    if (rc)
        return rc;

    size_t n = g->n, dim = e->dim ? e->dim : 1;
    uint32_t su[QR_GRAPH_MAX_PAIR_SEEDS];
    size_t ns = 0;
    uint8_t *isseed = qr__mg_zalloc(n, 1);
    uint8_t *dist = qr__mg_alloc(nseeds, n);
    uint32_t *queue = qr__mg_alloc(n, sizeof *queue);
    double *best = qr__mg_alloc(n, sizeof *best);
    double *xs = qr__mg_alloc(3 * dim, sizeof *xs);
    bool ok[QR_GRAPH_MAX_PAIR_SEEDS];
    qr_graph_item *items = NULL;
    size_t nitems = 0;
    if (!isseed || !dist || !queue || !best || !xs) {
        rc = qr__mg_nomem(err, "geodesic");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        best[i] = -1;
    for (size_t s = 0; s < nseeds; s++) {
        if (!isseed[seeds[s].node]) {
            isseed[seeds[s].node] = 1;
            su[ns++] = seeds[s].node;
        }
    }
    for (size_t s = 0; s < ns; s++) {
        /* a node on a path within slack of the shortest can lie max_hops + slack away */
        rc = bfs(g, su[s], p->max_hops + p->slack, dist + s * n, queue, err);
        if (rc)
            goto done;
        ok[s] = e->dim > 0 && qr__mg_unit_row(e, su[s], xs);
    }
    double *xa = xs, *xb = xs + dim, *xv = xs + 2 * dim;
    for (size_t s = 0; s < ns; s++) {
        if (!ok[s])
            continue;
        const uint8_t *ds = dist + s * n;
        for (size_t t = s + 1; t < ns; t++) {
            const uint8_t *dt = dist + t * n;
            uint32_t dst = ds[su[t]];
            if (!ok[t] || dst > p->max_hops)
                continue;
            qr__mg_unit_row(e, su[s], xa);
            qr__mg_unit_row(e, su[t], xb);
            double l2 = 0;
            for (size_t j = 0; j < e->dim; j++)
                l2 += (xb[j] - xa[j]) * (xb[j] - xa[j]);
            double ref = sqrt(l2) > 0.1 ? sqrt(l2) : 0.1;
            uint32_t bound = dst + p->slack;
            for (uint32_t v = 0; v < n; v++) {
                if (ds[v] == 255 || dt[v] == 255 || (uint32_t)ds[v] + dt[v] > bound ||
                    isseed[v])
                    continue;
                if (!qr__mg_unit_row(e, v, xv))
                    continue;
                double tt = 0;
                if (l2 > 0) {
                    for (size_t j = 0; j < e->dim; j++)
                        tt += (xv[j] - xa[j]) * (xb[j] - xa[j]);
                    tt /= l2;
                    tt = tt < 0 ? 0 : tt > 1 ? 1 : tt;
                }
                double d2 = 0;
                for (size_t j = 0; j < e->dim; j++) {
                    double c = xa[j] + tt * (xb[j] - xa[j]) - xv[j];
                    d2 += c * c;
                }
                double al = 1.0 / (1.0 + sqrt(d2) / ref);
                if (al > best[v])
                    best[v] = al;
            }
        }
    }
    items = qr__mg_alloc(n, sizeof *items);
    if (!items) {
        rc = qr__mg_nomem(err, "geodesic");
        goto done;
    }
    for (uint32_t v = 0; v < n; v++) {
        if (best[v] >= 0 && best[v] >= p->min_alignment) {
            items[nitems].node = v;
            items[nitems++].score = best[v];
        }
    }
    rc = finish(items, nitems, nitems, out);
    items = NULL;
done:
    free(items);
    free(isseed);
    free(dist);
    free(queue);
    free(best);
    free(xs);
    return rc;
}

int qr_graph_manifold(const qr_graph_embedding *e, const qr_graph_item *seeds, size_t nseeds,
                      const qr_graph_manifold_params *p, qr_graph_hits *out, qr_buf *err)
{
    qr_graph_manifold_params def;
    if (!p) {
        qr_graph_manifold_params_init(&def);
        p = &def;
    }
    int rc = qr__mg_embedding_ok(e, "manifold", err);
    if (!rc)
        rc = qr__mg_seeds(e->n, seeds, nseeds, 2, "manifold", err);
    if (!rc && p->limit < 1)
        rc = qr__mg_fail(err, QR_EINVAL, "'manifold' limit is 0: expected >= 1 (default 20)");
    if (!rc && (!(p->perp_weight >= 0) || isinf(p->perp_weight)))
        rc = qr__mg_fail(err, QR_EINVAL,
                         "'manifold' perp_weight is %g: expected a finite value >= 0",
                         p->perp_weight);
    if (rc)
        return rc;
    size_t n = e->n, dim = e->dim ? e->dim : 1;
    uint8_t *isseed = qr__mg_zalloc(n, 1);
    double *sv = qr__mg_alloc(nseeds * dim, sizeof *sv);
    double *mu = qr__mg_zalloc(dim, sizeof *mu);
    double *cov = qr__mg_zalloc(dim * dim, sizeof *cov);
    double *ev = qr__mg_alloc(dim, sizeof *ev);
    double *x = qr__mg_alloc(dim, sizeof *x);
    qr_graph_item *items = NULL;
    size_t ns = 0, nitems = 0;
    if (!isseed || !sv || !mu || !cov || !ev || !x) {
        rc = qr__mg_nomem(err, "manifold");
        goto done;
    }
    for (size_t s = 0; s < nseeds; s++) {
        if (isseed[seeds[s].node])
            continue;
        isseed[seeds[s].node] = 1;
        if (e->dim && qr__mg_unit_row(e, seeds[s].node, sv + ns * dim))
            ns++;
    }
    if (ns < 2) {
        rc = qr__mg_fail(err, QR_EINVAL,
                         "'manifold' needs at least 2 distinct seeds with a position in the "
                         "embedding, got %zu: isolated nodes have none",
                         ns);
        goto done;
    }
    size_t d = e->dim;
    for (size_t s = 0; s < ns; s++)
        for (size_t j = 0; j < d; j++)
            mu[j] += sv[s * dim + j] / (double)ns;
    for (size_t s = 0; s < ns; s++)
        for (size_t i = 0; i < d; i++)
            for (size_t j = i; j < d; j++)
                cov[i * d + j] += (sv[s * dim + i] - mu[i]) * (sv[s * dim + j] - mu[j]);
    rc = qr__mg_symeig(d, cov, ev);
    if (rc) {
        rc = rc == QR_ENOMEM ? qr__mg_nomem(err, "manifold")
                             : qr__mg_fail(err, rc, "'manifold' covariance did not converge");
        goto done;
    }
    if (!(ev[d - 1] > 1e-12)) {
        out->items = NULL; /* the seeds coincide: no direction */
        out->n = 0;
        goto done;
    }
    /* u = column d-1 of cov; made deterministic in sign (largest entry positive) */
    double *u = ev; /* ev no longer needed: reuse for u */
    size_t big = 0;
    for (size_t j = 0; j < d; j++) {
        u[j] = cov[j * d + d - 1];
        if (fabs(u[j]) > fabs(u[big]))
            big = j;
    }
    if (u[big] < 0)
        for (size_t j = 0; j < d; j++)
            u[j] = -u[j];
    double pmax = -INFINITY, pmin = INFINITY;
    for (size_t s = 0; s < ns; s++) {
        double pr = 0;
        for (size_t j = 0; j < d; j++)
            pr += (sv[s * dim + j] - mu[j]) * u[j];
        pmax = pr > pmax ? pr : pmax;
        pmin = pr < pmin ? pr : pmin;
    }
    items = qr__mg_alloc(n, sizeof *items);
    if (!items) {
        rc = qr__mg_nomem(err, "manifold");
        goto done;
    }
    for (uint32_t v = 0; v < n; v++) {
        if (isseed[v] || !qr__mg_unit_row(e, v, x))
            continue;
        double pr = 0, l2 = 0;
        for (size_t j = 0; j < d; j++) {
            double c = x[j] - mu[j];
            pr += c * u[j];
            l2 += c * c;
        }
        double perp = sqrt(l2 - pr * pr > 0 ? l2 - pr * pr : 0);
        double beyond = pr - pmax > pmin - pr ? pr - pmax : pmin - pr;
        if (!(beyond > 0))
            continue;
        double score = beyond - p->perp_weight * perp;
        if (score > 0) {
            items[nitems].node = v;
            items[nitems++].score = score;
        }
    }
    rc = finish(items, nitems, p->limit, out);
    items = NULL;
done:
    free(items);
    free(isseed);
    free(sv);
    free(mu);
    free(cov);
    free(ev);
    free(x);
    return rc;
}

int qr_graph_centroid_distance(const qr_graph_embedding *e, const qr_graph_communities *c,
                               double *dist, qr_buf *err)
{
    int rc = qr__mg_embedding_ok(e, "priority", err);
    if (rc)
        return rc;
    if (!c || !c->of || c->n != e->n || (c->count && !c->size))
        return qr__mg_fail(err, QR_EINVAL,
                           "'priority' communities do not match the embedding (%u rows): "
                           "compute both from the same graph",
                           e->n);
    if (!dist)
        return qr__mg_fail(err, QR_EINVAL, "'priority' needs an output array of %u values",
                           e->n);
    size_t n = e->n, dim = e->dim ? e->dim : 1;
    for (size_t i = 0; i < n; i++)
        if (c->of[i] >= c->count)
            return qr__mg_fail(err, QR_EINVAL,
                               "'priority' node %zu has community %u: expected < %u", i,
                               c->of[i], c->count);
    double *cen = qr__mg_zalloc((size_t)c->count * dim, sizeof *cen);
    uint32_t *cnt = qr__mg_zalloc(c->count, sizeof *cnt);
    double *x = qr__mg_alloc(dim, sizeof *x);
    if (!cen || !cnt || !x) {
        rc = qr__mg_nomem(err, "priority");
        goto done;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = c->of[i];
        qr__mg_unit_row(e, i, x);
        for (size_t j = 0; j < e->dim; j++)
            cen[k * dim + j] += x[j];
        cnt[k]++;
    }
    for (uint32_t k = 0; k < c->count; k++)
        for (size_t j = 0; j < e->dim && cnt[k]; j++)
            cen[k * dim + j] /= cnt[k];
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = c->of[i];
        qr__mg_unit_row(e, i, x);
        double s = 0;
        for (size_t j = 0; j < e->dim; j++)
            s += (x[j] - cen[k * dim + j]) * (x[j] - cen[k * dim + j]);
        dist[i] = sqrt(s);
    }
done:
    free(cen);
    free(cnt);
    free(x);
    return rc;
}
