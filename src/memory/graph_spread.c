/*
 * graph_spread.c: spreading activation and confluence (multi-source reachability).
 *
 * Design: one walker computes, for a single seed, the best activation a * prod(decay *
 * strength) over paths of at most max_hops edges. It advances a frontier hop by hop; each
 * frontier entry carries the value its node had when it was queued, so a value found in
 * hop h never travels in the same hop (which would let paths exceed the bound), and a node
 * improved twice in one hop is queued once with the better value. Since every factor is
 * <= 1, values only fall along a path, so dropping a contribution below min_activation
 * loses nothing that could recover. Per-seed values are then summed into the totals, and
 * only the touched entries are reset, so a query costs the edges of the nodes it reaches
 * (5 seeds x 3 hops on a 100k-node graph touch a few thousand nodes).
 * Rejected: a dense sweep over all edges per hop (2M adjacencies x 3 hops for a handful of
 * nodes reached); summing over all walks instead of taking the best path per seed (a walk
 * that bounces on an edge would count again, so dense neighbourhoods inflate);
 * taking the maximum across seeds (the seed language asks for the sum, which is what
 * makes a node near several seeds rank above a node near one).
 */
#include "graph_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

typedef struct walker {
    const qr_graph *g;
    uint32_t hops;
    double decay, min_act;
    double *best;      /* per node, valid when stamp == current */
    uint32_t *stamp;   /* walk number + 1 that last touched the node */
    uint32_t *touched; /* nodes touched by the current walk */
    size_t ntouched;
    uint32_t *fa, *fb; /* frontier nodes (current, next) */
    double *va, *vb;   /* their values */
    uint32_t *pos;     /* node's index in the next frontier or NONE */
    uint64_t work, max_work; /* adjacencies looked at, over all walks, and the bound */
    uint64_t next_check;     /* work at which to check stop next */
    const qr_stop *stop;     /* the request's (NULL: none) */
    const char *what;        /* the stage, for the message when the bound is reached */
} walker;

static void walker_release(walker *w)
{
    free(w->best);
    free(w->stamp);
    free(w->touched);
    free(w->fa);
    free(w->fb);
    free(w->va);
    free(w->vb);
    free(w->pos);
}

static int walker_init(walker *w, const qr_graph *g, uint32_t hops, double decay, double min_act)
{
    memset(w, 0, sizeof *w);
    w->g = g;
    w->hops = hops;
    w->decay = decay;
    w->min_act = min_act;
    size_t n = g->n;
    w->best = qr__mg_alloc(n, sizeof *w->best);
    w->stamp = qr__mg_zalloc(n, sizeof *w->stamp);
    w->touched = qr__mg_alloc(n, sizeof *w->touched);
    w->fa = qr__mg_alloc(n, sizeof *w->fa);
    w->fb = qr__mg_alloc(n, sizeof *w->fb);
    w->va = qr__mg_alloc(n, sizeof *w->va);
    w->vb = qr__mg_alloc(n, sizeof *w->vb);
    w->pos = qr__mg_alloc(n, sizeof *w->pos);
    if (!w->best || !w->stamp || !w->touched || !w->fa || !w->fb || !w->va || !w->vb ||
        !w->pos) {
        walker_release(w);
        return QR_ENOMEM;
    }
    memset(w->pos, 0xff, n * sizeof *w->pos);
    return QR_OK;
}

/* Walk number k (0-based) from seed s with activation a; leaves best[] for touched[]. */
static int walk(walker *w, uint32_t k, uint32_t s, double a, qr_buf *err)
{
    const qr_graph *g = w->g;
    uint32_t mark = k + 1;
    uint32_t end = g->off[g->n];
    w->ntouched = 0;
    w->stamp[s] = mark;
    w->best[s] = a;
    w->touched[w->ntouched++] = s;
    uint32_t *cur = w->fa, *next = w->fb;
    double *cv = w->va, *nv = w->vb;
    size_t ncur = 1;
    cur[0] = s;
    cv[0] = a;
    for (uint32_t hop = 1; hop <= w->hops && ncur > 0; hop++) {
        size_t nnext = 0;
        for (size_t i = 0; i < ncur; i++) {
            uint32_t u = cur[i];
            uint32_t b = g->off[u], e = g->off[u + 1];
            if (e < b || e > end)
                return qr__mg_bad_edge(err, u, e < b ? b : e);
            double base = cv[i] * w->decay;
            if (base < w->min_act)
                continue;
            w->work += e - b;
            if (w->work >= w->next_check) {
                /* every 65,536 links: a cancel or deadline ends the walk */
                w->next_check = w->work + 65536;
                if (qr_stop_check(w->stop)) {
                    qr_buf_printf(err, "'%s' stopped: ", w->what);
                    qr_stop_describe(w->stop, err);
                    return QR_ESTOPPED;
                }
            }
            if (w->work > w->max_work)
                return qr__mg_fail(err, QR_ELIMIT,
                                   "'%s' stopped after looking at %llu links (its max_work): "
                                   "start from fewer seeds (sort, then limit:) or lower max_hops",
                                   w->what, (unsigned long long)w->max_work);
            for (uint32_t j = b; j < e; j++) {
                uint32_t v = g->adj[j];
                float st = g->w[j];
                if (v >= g->n || v == u || !(st > 0.0f && st <= 1.0f))
                    return qr__mg_bad_edge(err, u, j - b);
                double x = base * st;
                if (x < w->min_act)
                    continue;
                if (w->stamp[v] != mark) {
                    w->stamp[v] = mark;
                    w->touched[w->ntouched++] = v;
                } else if (!(x > w->best[v])) {
                    continue;
                }
                w->best[v] = x;
                if (w->pos[v] == NONE) {
                    w->pos[v] = (uint32_t)nnext;
                    next[nnext] = v;
                    nv[nnext++] = x;
                } else {
                    nv[w->pos[v]] = x;
                }
            }
        }
        for (size_t i = 0; i < nnext; i++)
            w->pos[next[i]] = NONE;
        uint32_t *tn = cur;
        cur = next;
        next = tn;
        double *tv = cv;
        cv = nv;
        nv = tv;
        ncur = nnext;
    }
    return QR_OK;
}

void qr_graph_spread_params_init(qr_graph_spread_params *p)
{
    p->max_hops = 3;
    p->edge_decay = 0.5;
    p->min_activation = 0.01;
    p->max_work = QR_GRAPH_DEFAULT_MAX_WORK;
    p->stop = NULL;
}

void qr_graph_confluence_params_init(qr_graph_confluence_params *p)
{
    p->max_hops = 3;
    p->edge_decay = 0.5;
    p->min_seeds = 2;
    p->max_work = QR_GRAPH_DEFAULT_MAX_WORK;
    p->stop = NULL;
}

static int check_decay(double decay, const char *what, qr_buf *err)
{
    if (!(decay > 0.0 && decay <= 1.0))
        return qr__mg_fail(err, QR_EINVAL, "'%s' edge_decay is %g: expected a value in (0, 1]",
                           what, decay);
    return QR_OK;
}

static int check_hops(uint32_t hops, uint32_t min, const char *what, qr_buf *err)
{
    if (hops < min || hops > QR_GRAPH_MAX_HOPS)
        return qr__mg_fail(err, QR_EINVAL, "'%s' max_hops is %u: expected %u..%d", what, hops,
                           min, QR_GRAPH_MAX_HOPS);
    return QR_OK;
}

int qr_graph_spread(const qr_graph *g, const qr_graph_item *seeds, size_t nseeds,
                    const qr_graph_spread_params *p, qr_graph_hits *out, qr_buf *err)
{
    qr_graph_spread_params def;
    if (!p) {
        qr_graph_spread_params_init(&def);
        p = &def;
    }
    int rc = qr__mg_shape(g, err);
    if (!rc)
        rc = qr__mg_seeds(g->n, seeds, nseeds, 0, "spread", err);
    if (!rc)
        rc = check_hops(p->max_hops, 0, "spread", err);
    if (!rc)
        rc = check_decay(p->edge_decay, "spread", err);
    if (!rc && (!(p->min_activation >= 0.0) || isinf(p->min_activation)))
        rc = qr__mg_fail(err, QR_EINVAL,
                         "'spread' min_activation is %g: expected a finite value >= 0",
                         p->min_activation);
    if (rc)
        return rc;
    if (nseeds > UINT32_MAX - 1)
        return qr__mg_fail(err, QR_EINVAL, "'spread' got %zu seeds: at most %u", nseeds,
                           UINT32_MAX - 1);

    walker w;
    double *total = NULL;
    uint32_t *res = NULL;
    uint8_t *in = NULL;
    qr_graph_item *items = NULL;
    size_t nres = 0;
    if (walker_init(&w, g, p->max_hops, p->edge_decay, p->min_activation))
        return qr__mg_nomem(err, "spread");
    w.max_work = p->max_work ? p->max_work : QR_GRAPH_DEFAULT_MAX_WORK;
    w.stop = p->stop;
    w.what = "spread";
    total = qr__mg_zalloc(g->n, sizeof *total);
    res = qr__mg_alloc(g->n, sizeof *res);
    in = qr__mg_zalloc(g->n, sizeof *in);
    if (!total || !res || !in) {
        rc = qr__mg_nomem(err, "spread");
        goto done;
    }
    for (size_t k = 0; k < nseeds; k++) {
        rc = walk(&w, (uint32_t)k, seeds[k].node, seeds[k].score, err);
        if (rc)
            goto done;
        for (size_t i = 0; i < w.ntouched; i++) {
            uint32_t v = w.touched[i];
            total[v] += w.best[v];
            if (!in[v]) {
                in[v] = 1;
                res[nres++] = v;
            }
        }
    }
    items = qr__mg_alloc(nres, sizeof *items);
    if (!items) {
        rc = qr__mg_nomem(err, "spread");
        goto done;
    }
    for (size_t i = 0; i < nres; i++) {
        items[i].node = res[i];
        items[i].score = total[res[i]];
    }
    qr__mg_sort(items, nres);
    out->items = nres ? items : NULL;
    out->n = nres;
    if (nres)
        items = NULL;
done:
    free(items);
    free(total);
    free(res);
    free(in);
    walker_release(&w);
    return rc;
}

static int cmp_seed_node(const void *pa, const void *pb)
{
    const qr_graph_item *a = pa, *b = pb;
    return a->node < b->node ? -1 : a->node > b->node;
}

int qr_graph_confluence(const qr_graph *g, const qr_graph_item *seeds, size_t nseeds,
                        const qr_graph_confluence_params *p, qr_graph_hits *out, qr_buf *err)
{
    qr_graph_confluence_params def;
    if (!p) {
        qr_graph_confluence_params_init(&def);
        p = &def;
    }
    int rc = qr__mg_shape(g, err);
    if (!rc)
        rc = qr__mg_seeds(g->n, seeds, nseeds, 0, "confluence", err);
    if (!rc)
        rc = check_hops(p->max_hops, 1, "confluence", err);
    if (!rc)
        rc = check_decay(p->edge_decay, "confluence", err);
    if (!rc && p->min_seeds < 1)
        rc = qr__mg_fail(err, QR_EINVAL, "'confluence' min_seeds is 0: expected >= 1");
    if (rc)
        return rc;

    walker w;
    qr_graph_item *uniq = NULL, *items = NULL;
    double *act = NULL;
    uint32_t *cnt = NULL, *res = NULL;
    size_t nu = 0, nres = 0, nitems = 0;
    if (walker_init(&w, g, p->max_hops, p->edge_decay, 0.0))
        return qr__mg_nomem(err, "confluence");
    w.max_work = p->max_work ? p->max_work : QR_GRAPH_DEFAULT_MAX_WORK;
    w.stop = p->stop;
    w.what = "confluence";
    uniq = qr__mg_alloc(nseeds, sizeof *uniq);
    act = qr__mg_zalloc(g->n, sizeof *act);
    cnt = qr__mg_zalloc(g->n, sizeof *cnt);
    res = qr__mg_alloc(g->n, sizeof *res);
    if (!uniq || !act || !cnt || !res) {
        rc = qr__mg_nomem(err, "confluence");
        goto done;
    }
    /* distinct seed nodes, each with its largest score */
    if (nseeds)
        memcpy(uniq, seeds, nseeds * sizeof *uniq);
    qsort(uniq, nseeds, sizeof *uniq, cmp_seed_node);
    for (size_t i = 0; i < nseeds; i++) {
        if (nu && uniq[nu - 1].node == uniq[i].node) {
            if (uniq[i].score > uniq[nu - 1].score)
                uniq[nu - 1].score = uniq[i].score;
        } else {
            uniq[nu++] = uniq[i];
        }
    }
    for (size_t k = 0; k < nu; k++) {
        rc = walk(&w, (uint32_t)k, uniq[k].node, uniq[k].score, err);
        if (rc)
            goto done;
        for (size_t i = 0; i < w.ntouched; i++) {
            uint32_t v = w.touched[i];
            if (cnt[v]++ == 0)
                res[nres++] = v;
            act[v] += w.best[v];
        }
    }
    /* seeds are not reported: their count is cleared */
    for (size_t k = 0; k < nu; k++)
        cnt[uniq[k].node] = 0;
    items = qr__mg_alloc(nres, sizeof *items);
    if (!items) {
        rc = qr__mg_nomem(err, "confluence");
        goto done;
    }
    for (size_t i = 0; i < nres; i++) {
        uint32_t v = res[i];
        if (cnt[v] < p->min_seeds || cnt[v] == 0)
            continue;
        items[nitems].node = v;
        /* act/(1+act) < 1 keeps floor(score) == count; the clamp guards rounding */
        items[nitems++].score = (double)cnt[v] + fmin(act[v] / (1.0 + act[v]), 0.999999);
    }
    qr__mg_sort(items, nitems);
    out->items = nitems ? items : NULL;
    out->n = nitems;
    if (nitems)
        items = NULL;
done:
    free(items);
    free(uniq);
    free(act);
    free(cnt);
    free(res);
    walker_release(&w);
    return rc;
}
