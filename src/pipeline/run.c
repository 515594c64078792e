/*
 * run.c: running a parsed pipeline on a store's snapshot: the scored set (dense node
 * indexes with scores, in result order), the loop over the stages with their timings,
 * filters through one loop (the table gives the predicate, '!' flips it), sorting with
 * ties broken by key, and the consolidation priority behind sort:priority.
 *
 * Priority (docs/pipeline.md): with ref the last visit by the agent of the latest
 * not-visited stage before the sort (the creation time for nodes it never visited), or
 * the last modification when there is no such stage, and horizon that stage's duration
 * (7 days when none):
 *     overdue   = log2(1 + max(0, now - ref) / horizon)
 *     isolation = distance of the node from its community's centroid in the spectral
 *                 embedding (qr_graph_centroid_distance, 0..2); 2 for a node with no links
 *     priority  = overdue * (0.5 + isolation) * (0.5 + weight)
 * so overdue, poorly integrated, heavy notes come first. The embedding is always used
 * (computed once, then cached in memory and in STORE.spectral), so the order depends only
 * on the store.
 *
 * Rejected: a degree-based stand-in for isolation when no embedding is cached (results
 * would change with the state of a cache file); sorting the whole set by key up front
 * (keys are compared only between equal sort keys).
 */
#include "pipeline_int.h"
#include "quarry/date.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PRIORITY_HORIZON (7 * 86400)

int pl_reserve(pl_run *r, size_t n)
{
    if (n <= r->cap)
        return QR_OK;
    size_t bytes;
    if (!qr_size_mul(n, sizeof *r->hits, &bytes))
        return QR_ENOMEM;
    qr_pipeline_hit *h = realloc(r->hits, bytes ? bytes : 1);
    if (!h)
        return QR_ENOMEM;
    r->hits = h;
    r->cap = n;
    return QR_OK;
}

typedef struct sitem {
    double k;
    double score;
    const char *key;
    uint32_t node;
} sitem;

static int cmp_k(const void *a, const void *b)
{
    const sitem *x = a, *y = b;
    if (x->k < y->k)
        return -1;
    if (x->k > y->k)
        return 1;
    return strcmp(x->key, y->key);
}

static int cmp_key_desc(const void *a, const void *b)
{
    const sitem *x = a, *y = b;
    return strcmp(y->key, x->key);
}

static void swap_items(sitem *a, sitem *b)
{
    sitem t = *a;
    *a = *b;
    *b = t;
}

/* Moves the `keep` first items in cmp order to the front (in any order), by quickselect;
 * false when it gave up (too many bad pivots), leaving a permutation. */
static bool select_front(sitem *it, size_t n, size_t keep, int (*cmp)(const void *, const void *))
{
    size_t lo = 0, hi = n; /* the boundary keep lies in [lo, hi) */
    int budget = 64;
    while (hi - lo > 1 && budget-- > 0) {
        /* median of three as the pivot, moved to hi - 1 */
        size_t mid = lo + (hi - lo) / 2;
        if (cmp(&it[mid], &it[lo]) < 0)
            swap_items(&it[mid], &it[lo]);
        if (cmp(&it[hi - 1], &it[lo]) < 0)
            swap_items(&it[hi - 1], &it[lo]);
        if (cmp(&it[mid], &it[hi - 1]) < 0)
            swap_items(&it[mid], &it[hi - 1]);
        size_t store = lo;
        for (size_t i = lo; i < hi - 1; i++)
            if (cmp(&it[i], &it[hi - 1]) < 0)
                swap_items(&it[i], &it[store++]);
        swap_items(&it[store], &it[hi - 1]);
        if (store == keep || store + 1 == keep)
            return true;
        if (store < keep)
            lo = store + 1;
        else
            hi = store;
    }
    return hi - lo <= 1;
}

/* Sorts items (k ascending, then key) and writes them back as the set. With keep < n
 * (a limit:keep follows), only the first keep are put in order, the rest follow in any
 * order: the limit drops them. */
static void write_sorted(pl_run *r, sitem *it, int (*cmp)(const void *, const void *), size_t keep)
{
    if (keep < r->n / 4 && select_front(it, r->n, keep, cmp))
        qsort(it, keep, sizeof *it, cmp);
    else
        qsort(it, r->n, sizeof *it, cmp);
    for (size_t i = 0; i < r->n; i++) {
        r->hits[i].node = it[i].node;
        r->hits[i].score = it[i].score;
    }
}

void pl_sort_by_score(pl_run *r)
{
    if (r->n < 2)
        return;
    sitem *it = malloc(r->n * sizeof *it);
    if (!it) {
        /* keep the order given (score, then id): still deterministic */
        return;
    }
    for (size_t i = 0; i < r->n; i++) {
        double s = r->hits[i].score;
        it[i] = (sitem){s == s ? -s : INFINITY, s, r->s->key[r->hits[i].node], r->hits[i].node};
    }
    write_sorted(r, it, cmp_k, r->n);
    free(it);
}

static double priority_of(const pl_run *r, const double *dist, int64_t agent, double horizon,
                          uint32_t i)
{
    const qr_mem_snapshot *s = r->s;
    int64_t ref = s->modified[i];
    if (r->not_visited) {
        int64_t last = agent >= 0 ? qr_mem_snapshot_last_visit(s, agent, i) : 0;
        ref = last > 0 ? last : s->created[i];
    }
    double elapsed = (double)(r->now - ref);
    if (elapsed < 0)
        elapsed = 0;
    double overdue = log2(1.0 + elapsed / horizon);
    const qr_graph *g = &s->graph;
    double isolation = g->off[i + 1] == g->off[i] ? 2.0 : dist[i];
    return overdue * (0.5 + isolation) * (0.5 + (double)s->weight[i]);
}

int pl_sort(pl_run *r, int field, bool asc, size_t keep)
{
    if (r->n < 2 && field != SF_PRIORITY)
        return QR_OK;
    const qr_mem_snapshot *s = r->s;
    const double *dist = NULL;
    int64_t agent = -1;
    double horizon = PRIORITY_HORIZON;
    if (field == SF_PRIORITY) {
        if (!r->n)
            return QR_OK;
        int rc = pl_cache_centroid_dist(r, &dist);
        if (rc)
            return rc;
        if (r->not_visited) {
            agent = qr_mem_snapshot_agent(s, r->not_visited->str);
            if (r->not_visited->dur)
                horizon = (double)r->not_visited->dur;
        }
    }
    sitem *it = malloc(r->n * sizeof *it);
    if (!it)
        return QR_ENOMEM;
    for (size_t j = 0; j < r->n; j++) {
        uint32_t i = r->hits[j].node;
        double k = 0, score = r->hits[j].score;
        switch (field) {
        case SF_PRIORITY: k = score = priority_of(r, dist, agent, horizon, i); break;
        case SF_SCORE: k = score; break;
        case SF_TIMESTAMP: k = (double)s->modified[i]; break;
        case SF_CREATED: k = (double)s->created[i]; break;
        case SF_WEIGHT: k = (double)s->weight[i]; break;
        case SF_DEGREE: k = (double)(s->graph.off[i + 1] - s->graph.off[i]); break;
        case SF_CONTENT_LEN: k = (double)s->content_len[i]; break;
        case SF_KEY_LEN: k = (double)s->key_len[i]; break;
        default: break;
        }
        if (k != k)
            k = -INFINITY;
        it[j] = (sitem){asc ? k : -k, score, s->key[i], i};
    }
    write_sorted(r, it, field == SF_KEY && !asc ? cmp_key_desc : cmp_k, keep);
    free(it);
    return QR_OK;
}

int pl_seeds(pl_run *r, qr_graph_item **out)
{
    qr_graph_item *it = malloc((r->n ? r->n : 1) * sizeof *it);
    if (!it)
        return QR_ENOMEM;
    for (size_t i = 0; i < r->n; i++) {
        double sc = r->hits[i].score;
        it[i].node = r->hits[i].node;
        it[i].score = sc == sc && sc > 0 ? (sc > 1e300 ? 1e300 : sc) : 0;
    }
    *out = it;
    return QR_OK;
}

int pl_take_hits(pl_run *r, qr_graph_hits *h)
{
    int rc = pl_reserve(r, h->n);
    if (!rc) {
        for (size_t i = 0; i < h->n; i++) {
            r->hits[i].node = h->items[i].node;
            r->hits[i].score = h->items[i].score;
        }
        r->n = h->n;
        pl_sort_by_score(r);
    }
    qr_graph_hits_release(h);
    return rc;
}

/* ---- the loop ---- */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int run_filter(pl_run *r, const pl_stage *st)
{
    const pl_def *d = st->def;
    pl_fctx c = {0, NULL, NULL};
    int rc = d->prep ? d->prep(r, st, &c) : QR_OK;
    if (!rc) {
        size_t k = 0;
        for (size_t i = 0; i < r->n; i++)
            if (d->pred(r, st, &c, r->hits[i].node) != st->negate)
                r->hits[k++] = r->hits[i];
        r->n = k;
    }
    free(c.mask);
    return rc;
}

int qr_pipeline_run_ex(const qr_pipeline *p, qr_mem *m, const qr_pipeline_run_opts *opts,
                       qr_pipeline_result *out, qr_buf *err)
{
    qr_pipeline_run_opts def = {0};
    if (!opts)
        opts = &def;
    const qr_mem_snapshot *s = NULL;
    int rc = qr_mem_snapshot_get(m, &s, err);
    if (rc)
        return rc;
    qr_buf serr;
    qr_buf_init(&serr);
    pl_run r = {0};
    r.m = m;
    r.s = s;
    r.now = opts->now ? opts->now : qr_clock_now();
    r.err = &serr;
    r.no_file_cache = opts->no_file_cache;
    r.cache = opts->cache;
    r.stop = opts->stop;
    qr_pipeline_cache *own = NULL;
    if (!r.cache && !(r.cache = own = qr_pipeline_cache_new())) {
        rc = QR_ENOMEM;
        goto done;
    }
    qr_pipeline_stat *stats = NULL;
    if (opts->stats) {
        opts->stats->stats = NULL;
        opts->stats->nstats = 0;
        if (!(stats = calloc(p->n ? p->n : 1, sizeof *stats))) {
            rc = QR_ENOMEM;
            goto done;
        }
    }
    for (size_t i = 0; i < p->n; i++) {
        const pl_stage *st = &p->stages[i];
        double t0 = now_ms();
        r.note[0] = 0;
        if (qr_stop_check(r.stop)) {
            qr_stop_fail(r.stop, &serr);
            rc = QR_ESTOPPED;
        } else if (st->def->pred)
            rc = run_filter(&r, st);
        else if (st->def->info.kind == QR_STAGE_GRAPH && r.n == 0)
            snprintf(r.note, sizeof r.note, "no seeds: the set stays empty");
        else if (st->def->run == pl_run_sort && i + 1 < p->n &&
                 p->stages[i + 1].def->run == pl_run_limit)
            rc = pl_sort(&r, st->field, st->asc, (size_t)p->stages[i + 1].count);
        else
            rc = st->def->run(&r, st);
        if (rc) {
            if (rc == QR_ENOMEM && !serr.len)
                qr_buf_puts(&serr, "out of memory");
            qr_buf_printf(err, "stage %zu '%s': %s", i + 1 - (p->stages[0].implicit ? 1 : 0),
                          st->text, serr.len ? serr.p : "failed");
            if (rc == QR_EINVAL)
                rc = QR_ERUNTIME; /* the pipeline was valid; the data did not suit it */
            free(stats);
            goto done;
        }
        if (st->def->pred && !strcmp(st->def->info.name, "not-visited") && !st->negate)
            r.not_visited = st;
        if (stats) {
            snprintf(stats[i].stage, sizeof stats[i].stage, "%s%s", st->text,
                     st->implicit ? " (implicit)" : "");
            stats[i].count = r.n;
            stats[i].ms = now_ms() - t0;
            snprintf(stats[i].note, sizeof stats[i].note, "%s", r.note);
        }
    }
    if (stats) {
        opts->stats->stats = stats;
        opts->stats->nstats = p->n;
    }
    out->snap = s;
    out->hits = r.hits;
    out->n = r.n;
    s = NULL;
    r.hits = NULL;
done:
    qr_pipeline_cache_free(own);
    free(r.hits);
    if (s)
        qr_mem_snapshot_release(s);
    qr_buf_release(&serr);
    return rc;
}

int qr_pipeline_run(const qr_pipeline *p, qr_mem *m, int64_t now, qr_pipeline_result *out,
                    qr_buf *err)
{
    qr_pipeline_run_opts o = {0};
    o.now = now;
    return qr_pipeline_run_ex(p, m, &o, out, err);
}

void qr_pipeline_result_clear(qr_pipeline_result *r)
{
    if (!r)
        return;
    if (r->snap)
        qr_mem_snapshot_release(r->snap);
    free(r->hits);
    memset(r, 0, sizeof *r);
}

void qr_pipeline_stats_clear(qr_pipeline_result_stats *s)
{
    if (!s)
        return;
    free(s->stats);
    s->stats = NULL;
    s->nstats = 0;
}

double qr_pipeline_score_shown(double score)
{
    if (!isfinite(score) || fabs(score) > 3.4e38)
        return score;
    float f = (float)score;
    char buf[32];
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, (double)f);
        if (strtof(buf, NULL) == f)
            return strtod(buf, NULL);
    }
    return (double)f;
}
