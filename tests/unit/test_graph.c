/*
 * test_graph.c: unit tests for the memory-graph algorithms (graph.h): spreading
 * activation and confluence on hand-checked graphs; the spectral embedding against closed
 * forms (cycle, path, star), structure (two cliques, a disconnected graph) and a dense
 * Jacobi solver written here for random graphs; label propagation on planted partitions;
 * the embedding stages on hand-made embeddings; parameter validation; and every
 * allocation failure point of every function.
 */
#include "check.h"
#include "memory/graph_int.h"
#include "quarry/graph.h"

#include <math.h>
#define PI 3.14159265358979323846
#include <stdlib.h>

/* ---- graph builder: symmetric CSR from an edge list ---- */
typedef struct tg {
    qr_graph g;
    uint32_t *off, *adj;
    float *w;
} tg;

typedef struct edge {
    uint32_t a, b;
    float w;
} edge;

static void tg_build(tg *t, uint32_t n, const edge *e, size_t ne)
{
    t->off = calloc((size_t)n + 1, sizeof *t->off);
    t->adj = malloc((2 * ne + 1) * sizeof *t->adj);
    t->w = malloc((2 * ne + 1) * sizeof *t->w);
    uint32_t *fill = calloc((size_t)n + 1, sizeof *fill);
    for (size_t i = 0; i < ne; i++) {
        t->off[e[i].a + 1]++;
        t->off[e[i].b + 1]++;
    }
    for (uint32_t i = 0; i < n; i++)
        t->off[i + 1] += t->off[i];
    for (size_t i = 0; i < ne; i++) {
        uint32_t a = e[i].a, b = e[i].b;
        t->adj[t->off[a] + fill[a]] = b;
        t->w[t->off[a] + fill[a]++] = e[i].w;
        t->adj[t->off[b] + fill[b]] = a;
        t->w[t->off[b] + fill[b]++] = e[i].w;
    }
    free(fill);
    t->g.n = n;
    t->g.off = t->off;
    t->g.adj = t->adj;
    t->g.w = t->w;
}

static void tg_free(tg *t)
{
    free(t->off);
    free(t->adj);
    free(t->w);
}

/* growable edge list */
typedef struct elist {
    edge *e;
    size_t n, cap;
} elist;

static void el_add(elist *l, uint32_t a, uint32_t b, float w)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->e = realloc(l->e, l->cap * sizeof *l->e);
    }
    l->e[l->n].a = a;
    l->e[l->n].b = b;
    l->e[l->n++].w = w;
}

static void path(elist *l, uint32_t from, uint32_t n, float w)
{
    for (uint32_t i = 0; i + 1 < n; i++)
        el_add(l, from + i, from + i + 1, w);
}

static void cycle(elist *l, uint32_t from, uint32_t n)
{
    path(l, from, n, 1.0f);
    el_add(l, from + n - 1, from, 1.0f);
}

static bool near(double a, double b, double eps)
{
    return fabs(a - b) <= eps;
}

static double score_of(const qr_graph_hits *h, uint32_t node)
{
    for (size_t i = 0; i < h->n; i++)
        if (h->items[i].node == node)
            return h->items[i].score;
    return -1;
}

/* ---- spread ---- */
static void test_spread(void)
{
    elist l = {0};
    path(&l, 0, 5, 1.0f);
    tg t;
    tg_build(&t, 5, l.e, l.n);
    qr_graph_hits h = {0};
    qr_graph_item s0[] = {{0, 1.0}};
    CHECK(qr_graph_spread(&t.g, s0, 1, NULL, &h, NULL) == QR_OK);
    CHECK(h.n == 4); /* node 4 is 4 hops away */
    CHECK(h.items[0].node == 0 && near(h.items[0].score, 1.0, 1e-12));
    CHECK(near(score_of(&h, 1), 0.5, 1e-12));
    CHECK(near(score_of(&h, 2), 0.25, 1e-12));
    CHECK(near(score_of(&h, 3), 0.125, 1e-12));
    CHECK(score_of(&h, 4) < 0);
    qr_graph_hits_release(&h);

    /* two seeds: contributions add up; a seed's own activation counts */
    qr_graph_item s2[] = {{0, 1.0}, {4, 1.0}};
    CHECK(qr_graph_spread(&t.g, s2, 2, NULL, &h, NULL) == QR_OK);
    CHECK(h.n == 5);
    CHECK(near(score_of(&h, 0), 1.0, 1e-12));
    CHECK(near(score_of(&h, 1), 0.625, 1e-12));
    CHECK(near(score_of(&h, 2), 0.5, 1e-12));
    CHECK(near(score_of(&h, 3), 0.625, 1e-12));
    CHECK(h.items[0].node == 0 && h.items[1].node == 4); /* ties by node */
    CHECK(h.items[2].node == 1 && h.items[3].node == 3 && h.items[4].node == 2);
    qr_graph_hits_release(&h);

    /* decay and min_activation cutoff and the hop bound */
    qr_graph_spread_params p;
    qr_graph_spread_params_init(&p);
    CHECK(p.max_hops == 3 && p.edge_decay == 0.5 && p.min_activation == 0.01);
    p.edge_decay = 0.8;
    p.min_activation = 0.6;
    CHECK(qr_graph_spread(&t.g, s0, 1, &p, &h, NULL) == QR_OK);
    CHECK(h.n == 3 && near(score_of(&h, 1), 0.8, 1e-12) && near(score_of(&h, 2), 0.64, 1e-12));
    qr_graph_hits_release(&h);
    p.min_activation = 0;
    p.max_hops = 0;
    CHECK(qr_graph_spread(&t.g, s2, 2, &p, &h, NULL) == QR_OK);
    CHECK(h.n == 2);
    qr_graph_hits_release(&h);
    p.max_hops = 4;
    p.edge_decay = 1.0;
    CHECK(qr_graph_spread(&t.g, s0, 1, &p, &h, NULL) == QR_OK);
    CHECK(h.n == 5 && near(score_of(&h, 4), 1.0, 1e-12));
    qr_graph_hits_release(&h);
    tg_free(&t);

    /* a diamond: the best path counts, parallel paths do not add; strengths multiply */
    l.n = 0;
    el_add(&l, 0, 1, 1.0f);
    el_add(&l, 0, 2, 0.5f);
    el_add(&l, 1, 3, 0.5f);
    el_add(&l, 2, 3, 1.0f);
    el_add(&l, 3, 4, 1.0f);
    tg_build(&t, 5, l.e, l.n);
    CHECK(qr_graph_spread(&t.g, s0, 1, NULL, &h, NULL) == QR_OK);
    CHECK(near(score_of(&h, 1), 0.5, 1e-12));
    CHECK(near(score_of(&h, 2), 0.25, 1e-12));
    CHECK(near(score_of(&h, 3), 0.125, 1e-12)); /* 0-1-3 and 0-2-3 both give 1/8 */
    CHECK(near(score_of(&h, 4), 0.0625, 1e-12));
    qr_graph_hits_release(&h);
    /* a value found in hop h does not travel again in hop h: seed at 1, node 4 is at
     * 2 hops via 3 */
    qr_graph_item s1[] = {{1, 1.0}};
    qr_graph_spread_params_init(&p);
    p.max_hops = 2;
    p.min_activation = 0;
    CHECK(qr_graph_spread(&t.g, s1, 1, &p, &h, NULL) == QR_OK);
    CHECK(near(score_of(&h, 4), 0.125, 1e-12));
    CHECK(near(score_of(&h, 2), 0.125, 1e-12)); /* 1-0-2: 0.5 * 0.5*0.5 */
    CHECK(score_of(&h, 5) < 0); /* beyond 2 hops */
    qr_graph_hits_release(&h);

    /* validation */
    qr_buf err;
    qr_buf_init(&err);
    qr_graph_item bad[] = {{9, 1.0}};
    CHECK(qr_graph_spread(&t.g, bad, 1, NULL, &h, &err) == QR_EINVAL);
    CHECK(err.p && strstr(err.p, "'spread' seed 0 is node 9"));
    qr_buf_reset(&err);
    qr_graph_item nan_seed[] = {{1, NAN}};
    CHECK(qr_graph_spread(&t.g, nan_seed, 1, NULL, &h, &err) == QR_EINVAL);
    qr_graph_spread_params_init(&p);
    p.edge_decay = 0;
    CHECK(qr_graph_spread(&t.g, s0, 1, &p, &h, &err) == QR_EINVAL);
    qr_graph_spread_params_init(&p);
    p.max_hops = QR_GRAPH_MAX_HOPS + 1;
    CHECK(qr_graph_spread(&t.g, s0, 1, &p, &h, &err) == QR_EINVAL);
    qr_buf_reset(&err);
    t.adj[0] = 77; /* malformed */
    CHECK(qr_graph_spread(&t.g, s0, 1, NULL, &h, &err) == QR_EINVAL);
    CHECK(err.p && strstr(err.p, "malformed"));
    CHECK(qr_graph_check(&t.g, NULL) == QR_EINVAL);
    CHECK(h.n == 0 && h.items == NULL);
    qr_buf_release(&err);
    tg_free(&t);
    free(l.e);
}

static void test_check(void)
{
    elist l = {0};
    path(&l, 0, 4, 0.5f);
    tg t;
    tg_build(&t, 4, l.e, l.n);
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_graph_check(&t.g, &err) == QR_OK);
    uint64_t fp = qr_graph_fingerprint(&t.g);
    t.w[0] = 0.25f; /* one direction of 0-1 only: asymmetric */
    CHECK(qr_graph_check(&t.g, &err) == QR_EINVAL);
    CHECK(err.p && strstr(err.p, "not symmetric"));
    CHECK(qr_graph_fingerprint(&t.g) != fp);
    t.w[0] = 1.5f;
    qr_buf_reset(&err);
    CHECK(qr_graph_check(&t.g, &err) == QR_EINVAL && strstr(err.p, "strength"));
    t.w[0] = 0.5f;
    t.adj[0] = 0;
    qr_buf_reset(&err);
    CHECK(qr_graph_check(&t.g, &err) == QR_EINVAL && strstr(err.p, "itself"));
    qr_buf_release(&err);
    tg_free(&t);
    free(l.e);
}

static void test_confluence(void)
{
    /* path 0..4 with a tail 5-6 off node 2 */
    elist l = {0};
    path(&l, 0, 5, 1.0f);
    el_add(&l, 2, 5, 1.0f);
    el_add(&l, 5, 6, 1.0f);
    tg t;
    tg_build(&t, 7, l.e, l.n);
    qr_graph_item s[] = {{0, 1.0}, {4, 1.0}};
    qr_graph_hits h = {0};
    CHECK(qr_graph_confluence(&t.g, s, 2, NULL, &h, NULL) == QR_OK);
    /* 1, 2, 3 within 3 hops of both; 5 at hops 3 and 3; 6 at 4 */
    CHECK(h.n == 4);
    CHECK(near(score_of(&h, 2), 2 + 0.5 / 1.5, 1e-12));
    CHECK(near(score_of(&h, 1), 2 + 0.625 / 1.625, 1e-12));
    CHECK(near(score_of(&h, 5), 2 + 0.25 / 1.25, 1e-12));
    CHECK(score_of(&h, 6) < 0 && score_of(&h, 0) < 0);
    CHECK(h.items[0].node == 1 && h.items[1].node == 3 && h.items[2].node == 2);
    qr_graph_hits_release(&h);
    /* three seeds: node 2 is reached by all three; duplicates count once */
    qr_graph_item s3[] = {{0, 1.0}, {4, 1.0}, {6, 1.0}, {6, 0.5}};
    CHECK(qr_graph_confluence(&t.g, s3, 4, NULL, &h, NULL) == QR_OK);
    /* 1, 2, 3 and 5 are reached by all three with 0.75 in all: ties by node */
    CHECK(h.n == 4 && h.items[0].node == 1 && h.items[1].node == 2 && h.items[2].node == 3 &&
          h.items[3].node == 5);
    CHECK(near(score_of(&h, 2), 3 + 0.75 / 1.75, 1e-12));
    qr_graph_hits_release(&h);
    qr_graph_confluence_params p;
    qr_graph_confluence_params_init(&p);
    p.min_seeds = 3;
    p.max_hops = 2;
    CHECK(qr_graph_confluence(&t.g, s3, 4, &p, &h, NULL) == QR_OK);
    CHECK(h.n == 1 && h.items[0].node == 2);
    qr_graph_hits_release(&h);
    p.min_seeds = 0;
    CHECK(qr_graph_confluence(&t.g, s3, 4, &p, &h, NULL) == QR_EINVAL);
    tg_free(&t);
    free(l.e);
}

/* ---- spectral ---- */

/* ||L v - lambda v|| and |v|, in double from the stored floats, column c */
static double residual(const qr_graph *g, const qr_graph_embedding *e, uint32_t c)
{
    double *v = calloc(g->n, sizeof *v), *deg = calloc(g->n, sizeof *deg);
    double nv = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        v[i] = e->coords[(size_t)i * e->dim + c];
        nv += v[i] * v[i];
        for (uint32_t j = g->off[i]; j < g->off[i + 1]; j++)
            deg[i] += g->w[j];
    }
    nv = sqrt(nv);
    double r = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        double s = 0;
        for (uint32_t j = g->off[i]; j < g->off[i + 1]; j++)
            s += g->w[j] * v[g->adj[j]] / sqrt(deg[g->adj[j]]);
        double lv = deg[i] > 0 ? v[i] - s / sqrt(deg[i]) : 0;
        double d = lv / nv - e->eigenvalues[c] * v[i] / nv;
        r += d * d;
    }
    free(v);
    free(deg);
    return sqrt(r);
}

/* pairs are eigenpairs, orthonormal, orthogonal to D^1/2 1 per component (connected
 * graphs only: pass connected) */
static void check_pairs(const qr_graph *g, const qr_graph_embedding *e, bool connected)
{
    CHECK(e->n == g->n);
    for (uint32_t c = 0; c < e->dim; c++) {
        double r = residual(g, e, c);
        CHECK(r < 1e-5);
        CHECK(near(r, e->residuals[c], 1e-6));
        if (c)
            CHECK(e->eigenvalues[c] >= e->eigenvalues[c - 1] - 1e-9);
        for (uint32_t d = 0; d <= c; d++) {
            double s = 0;
            for (uint32_t i = 0; i < g->n; i++)
                s += (double)e->coords[(size_t)i * e->dim + c] * e->coords[(size_t)i * e->dim + d];
            CHECK(near(s, c == d ? 1.0 : 0.0, 1e-5));
        }
        if (connected) {
            double s = 0;
            for (uint32_t i = 0; i < g->n; i++) {
                double deg = 0;
                for (uint32_t j = g->off[i]; j < g->off[i + 1]; j++)
                    deg += g->w[j];
                s += sqrt(deg) * e->coords[(size_t)i * e->dim + c];
            }
            CHECK(fabs(s) < 1e-4);
        }
    }
    CHECK(e->report.max_residual < 1e-5);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void spectral_closed_form(const char *what, tg *t, uint32_t dim, uint32_t basis,
                                 double *want /* sorted, nontrivial */)
{
    qr_graph_spectral_params p;
    qr_graph_spectral_params_init(&p);
    p.dim = dim;
    p.basis = basis;
    qr_graph_embedding *e = NULL;
    CHECK(qr_graph_spectral(&t->g, &p, &e, NULL) == QR_OK);
    if (!e)
        return;
    CHECK(e->dim == dim);
    CHECK(e->report.converged);
    for (uint32_t c = 0; c < e->dim; c++) {
        if (!near(e->eigenvalues[c], want[c], 1e-7)) {
            fprintf(stderr, "%s: eigenvalue %u is %.12f, want %.12f\n", what, c,
                    e->eigenvalues[c], want[c]);
            check_failures++;
        }
    }
    check_pairs(&t->g, e, true);
    qr_graph_embedding_free(e);
}

static void test_spectral_closed_forms(void)
{
    double want[64];
    elist l = {0};
    tg t;
    /* cycles: 1 - cos(2 pi k / n), each twice (k and n-k); small (exact, basis covers
     * the space) and large (restarts and the repeated-eigenvalue check) */
    uint32_t ns[] = {12, 150};
    for (int r = 0; r < 2; r++) {
        uint32_t n = ns[r];
        l.n = 0;
        cycle(&l, 0, n);
        tg_build(&t, n, l.e, l.n);
        double all[200];
        for (uint32_t k = 1; k < n; k++)
            all[k - 1] = 1 - cos(2 * PI * k / n);
        qsort(all, n - 1, sizeof *all, cmp_double);
        spectral_closed_form(r ? "C150" : "C12", &t, r ? 5 : 8, 0, all);
        tg_free(&t);
    }
    /* path P_n: 1 - cos(pi k / (n-1)) */
    l.n = 0;
    path(&l, 0, 60, 1.0f);
    tg_build(&t, 60, l.e, l.n);
    for (uint32_t k = 1; k < 60; k++)
        want[k - 1] = 1 - cos(PI * k / 59);
    spectral_closed_form("P60", &t, 6, 20, want);
    tg_free(&t);
    /* star with 80 leaves: 1 (79 times), then 2 */
    l.n = 0;
    for (uint32_t i = 1; i <= 80; i++)
        el_add(&l, 0, i, 1.0f);
    tg_build(&t, 81, l.e, l.n);
    for (int i = 0; i < 8; i++)
        want[i] = 1;
    spectral_closed_form("star", &t, 8, 0, want);
    tg_free(&t);
    free(l.e);
}

static void test_spectral_structure(void)
{
    /* two cliques of 10 joined by one edge: the Fiedler vector splits them by sign */
    elist l = {0};
    for (uint32_t c = 0; c < 2; c++)
        for (uint32_t i = 0; i < 10; i++)
            for (uint32_t j = i + 1; j < 10; j++)
                el_add(&l, c * 10 + i, c * 10 + j, 1.0f);
    el_add(&l, 9, 10, 1.0f);
    tg t;
    tg_build(&t, 20, l.e, l.n);
    qr_graph_embedding *e = NULL;
    CHECK(qr_graph_spectral(&t.g, NULL, &e, NULL) == QR_OK);
    CHECK(e && e->dim == 8);
    if (e) {
        check_pairs(&t.g, e, true);
        CHECK(e->eigenvalues[0] < 0.1 && e->eigenvalues[1] > 0.5);
        float s0 = e->coords[0];
        for (uint32_t i = 0; i < 20; i++) {
            float f = e->coords[(size_t)i * e->dim];
            CHECK(i < 10 ? f * s0 > 0 : f * s0 < 0);
        }
        CHECK(e->fingerprint == qr_graph_fingerprint(&t.g));
        /* knn of a node in the first clique: the rest of its clique first */
        qr_graph_item s[] = {{3, 1.0}};
        qr_graph_knn_params kp = {9};
        qr_graph_hits h = {0};
        CHECK(qr_graph_spectral_knn(e, s, 1, &kp, &h, NULL) == QR_OK);
        CHECK(h.n == 9);
        for (size_t i = 0; i < h.n; i++)
            CHECK(h.items[i].node < 10 && h.items[i].node != 3);
        qr_graph_hits_release(&h);
        /* communities + centroid distance */
        qr_graph_communities cm = {0};
        CHECK(qr_graph_community(&t.g, NULL, &cm, NULL) == QR_OK);
        CHECK(cm.count == 2 && cm.size[0] == 10 && cm.size[1] == 10);
        double dist[20];
        CHECK(qr_graph_centroid_distance(e, &cm, dist, NULL) == QR_OK);
        for (int i = 0; i < 20; i++)
            CHECK(dist[i] >= 0 && dist[i] < 2);
        /* the bridge nodes sit farthest from their clique's centroid */
        for (int i = 0; i < 9; i++)
            CHECK(dist[9] > dist[i] - 1e-6);
        qr_graph_communities_release(&cm);
        qr_graph_embedding_free(e);
    }
    tg_free(&t);

    /* disconnected: C6 + C8 + an isolated node: the nontrivial spectra merged */
    l.n = 0;
    cycle(&l, 0, 6);
    cycle(&l, 6, 8);
    tg_build(&t, 15, l.e, l.n);
    qr_graph_spectral_params p;
    qr_graph_spectral_params_init(&p);
    p.dim = 12;
    e = NULL;
    CHECK(qr_graph_spectral(&t.g, &p, &e, NULL) == QR_OK);
    if (e) {
        CHECK(e->report.components == 2 && e->report.isolated == 1);
        CHECK(e->dim == 12); /* 5 + 7 nontrivial pairs */
        double want[12];
        int k = 0;
        for (int i = 1; i < 6; i++)
            want[k++] = 1 - cos(2 * PI * i / 6);
        for (int i = 1; i < 8; i++)
            want[k++] = 1 - cos(2 * PI * i / 8);
        qsort(want, 12, sizeof *want, cmp_double);
        for (int i = 0; i < 12; i++)
            CHECK(near(e->eigenvalues[i], want[i], 1e-7));
        for (uint32_t c = 0; c < e->dim; c++)
            CHECK(e->coords[14 * e->dim + c] == 0.0f);
        check_pairs(&t.g, e, false);
        qr_graph_embedding_free(e);
    }
    /* asking for more than there is gives what there is */
    p.dim = 20;
    e = NULL;
    CHECK(qr_graph_spectral(&t.g, &p, &e, NULL) == QR_OK);
    CHECK(e && e->dim == 12);
    qr_graph_embedding_free(e);
    tg_free(&t);
    free(l.e);
}

/* eigenvalues of a dense symmetric matrix by cyclic Jacobi rotations (test oracle) */
static void jacobi_eigenvalues(int n, double *a, double *out)
{
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = 0;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                off += a[i * n + j] * a[i * n + j];
        if (off < 1e-26)
            break;
        for (int p = 0; p < n; p++) {
            for (int q = p + 1; q < n; q++) {
                double apq = a[p * n + q];
                if (fabs(apq) < 1e-300)
                    continue;
                double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
                double tt = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(tt * tt + 1), s = tt * c;
                for (int k = 0; k < n; k++) {
                    double akp = a[k * n + p], akq = a[k * n + q];
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for (int k = 0; k < n; k++) {
                    double apk = a[p * n + k], aqk = a[q * n + k];
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
            }
        }
    }
    for (int i = 0; i < n; i++)
        out[i] = a[i * n + i];
    qsort(out, (size_t)n, sizeof *out, cmp_double);
}

static void test_spectral_random(void)
{
    uint64_t rng = 42;
    for (int round = 0; round < 6; round++) {
        int n = 30 + round * 6;
        elist l = {0};
        /* a ring keeps it connected; random chords with random strengths */
        for (int i = 0; i < n; i++)
            el_add(&l, (uint32_t)i, (uint32_t)((i + 1) % n), 0.3f);
        for (int k = 0; k < 2 * n; k++) {
            uint32_t a = (uint32_t)(qr__mg_rng(&rng) % (uint64_t)n);
            uint32_t b = (uint32_t)(qr__mg_rng(&rng) % (uint64_t)n);
            if (a != b)
                el_add(&l, a, b, (float)(0.05 + 0.95 * ((qr__mg_rng(&rng) >> 11) / 9007199254740992.0)));
        }
        tg t;
        tg_build(&t, (uint32_t)n, l.e, l.n);
        double *a = calloc((size_t)n * n, sizeof *a), *deg = calloc((size_t)n, sizeof *deg);
        double ev[64];
        for (int i = 0; i < n; i++)
            for (uint32_t j = t.off[i]; j < t.off[i + 1]; j++)
                deg[i] += t.w[j];
        for (int i = 0; i < n; i++) {
            a[i * n + i] = 1;
            for (uint32_t j = t.off[i]; j < t.off[i + 1]; j++)
                a[i * n + t.adj[j]] -= t.w[j] / sqrt(deg[i] * deg[t.adj[j]]);
        }
        jacobi_eigenvalues(n, a, ev);
        CHECK(fabs(ev[0]) < 1e-9);
        qr_graph_spectral_params p;
        qr_graph_spectral_params_init(&p);
        p.dim = 8;
        p.basis = round % 2 ? 12 : 0; /* small basis: many restarts */
        p.tol = 1e-9;
        qr_graph_embedding *e = NULL;
        CHECK(qr_graph_spectral(&t.g, &p, &e, NULL) == QR_OK);
        if (e) {
            CHECK(e->dim == 8 && e->report.converged);
            for (int c = 0; c < 8; c++)
                if (!near(e->eigenvalues[c], ev[c + 1], 1e-7)) {
                    fprintf(stderr, "random n=%d: eigenvalue %d is %.12f, jacobi %.12f\n", n,
                            c, e->eigenvalues[c], ev[c + 1]);
                    check_failures++;
                }
            if (round % 2)
                CHECK(e->report.restarts > 0);
            check_pairs(&t.g, e, true);
            qr_graph_embedding_free(e);
        }
        free(a);
        free(deg);
        tg_free(&t);
        free(l.e);
    }
}

static void test_spectral_validation(void)
{
    elist l = {0};
    cycle(&l, 0, 10);
    tg t;
    tg_build(&t, 10, l.e, l.n);
    qr_graph_spectral_params p;
    qr_graph_spectral_params_init(&p);
    qr_buf err;
    qr_buf_init(&err);
    qr_graph_embedding *e = NULL;
    p.dim = 0;
    CHECK(qr_graph_spectral(&t.g, &p, &e, &err) == QR_EINVAL && e == NULL);
    p.dim = QR_GRAPH_MAX_DIM + 1;
    CHECK(qr_graph_spectral(&t.g, &p, &e, &err) == QR_EINVAL);
    qr_graph_spectral_params_init(&p);
    p.basis = 3;
    qr_buf_reset(&err);
    CHECK(qr_graph_spectral(&t.g, &p, &e, &err) == QR_EINVAL && strstr(err.p, "basis"));
    qr_graph_spectral_params_init(&p);
    p.tol = 0;
    CHECK(qr_graph_spectral(&t.g, &p, &e, &err) == QR_EINVAL);
    /* a graph with no edges embeds in zero dimensions */
    qr_graph_spectral_params_init(&p);
    tg t0;
    tg_build(&t0, 3, NULL, 0);
    CHECK(qr_graph_spectral(&t0.g, &p, &e, &err) == QR_OK && e && e->dim == 0);
    CHECK(e && e->report.isolated == 3);
    qr_graph_item s[] = {{0, 1}};
    qr_graph_hits h = {0};
    CHECK(qr_graph_spectral_knn(e, s, 1, NULL, &h, NULL) == QR_OK && h.n == 0);
    qr_graph_embedding_free(e);
    tg_free(&t0);
    /* a max_matvecs cap that cannot be met is reported, not an error */
    tg t2;
    l.n = 0;
    cycle(&l, 0, 400);
    tg_build(&t2, 400, l.e, l.n);
    p.max_matvecs = 50;
    e = NULL;
    CHECK(qr_graph_spectral(&t2.g, &p, &e, &err) == QR_OK);
    CHECK(e && !e->report.converged && e->report.matvecs < 200);
    qr_graph_embedding_free(e);
    tg_free(&t2);
    qr_buf_release(&err);
    tg_free(&t);
    free(l.e);
}

/* ---- community ---- */
static void test_community(void)
{
    uint64_t rng = 7;
    elist l = {0};
    for (uint32_t g = 0; g < 4; g++)
        for (uint32_t i = 0; i < 25; i++)
            for (uint32_t j = i + 1; j < 25; j++)
                if (qr__mg_rng(&rng) % 100 < 40)
                    el_add(&l, g * 25 + i, g * 25 + j, 1.0f);
    for (int k = 0; k < 12; k++) { /* sparse links between groups */
        uint32_t a = (uint32_t)(qr__mg_rng(&rng) % 100), b = (uint32_t)(qr__mg_rng(&rng) % 100);
        if (a / 25 != b / 25)
            el_add(&l, a, b, 0.5f);
    }
    tg t;
    tg_build(&t, 102, l.e, l.n); /* 100, 101 isolated */
    qr_graph_communities c = {0};
    CHECK(qr_graph_community(&t.g, NULL, &c, NULL) == QR_OK);
    CHECK(c.count == 6 && c.converged);
    for (uint32_t g = 0; g < 4; g++)
        for (uint32_t i = 0; i < 25; i++)
            CHECK(c.of[g * 25 + i] == c.of[g * 25]);
    for (uint32_t g = 0; g < 4; g++) {
        CHECK(c.size[g] == 25);
        for (uint32_t h = g + 1; h < 4; h++)
            CHECK(c.of[g * 25] != c.of[h * 25]);
    }
    CHECK(c.of[100] == 4 && c.of[101] == 5 && c.size[4] == 1);
    /* deterministic */
    qr_graph_communities c2 = {0};
    CHECK(qr_graph_community(&t.g, NULL, &c2, NULL) == QR_OK);
    CHECK(memcmp(c.of, c2.of, 102 * sizeof *c.of) == 0);
    qr_graph_communities_release(&c2);
    qr_graph_community_params p;
    qr_graph_community_params_init(&p);
    p.max_iter = 0;
    CHECK(qr_graph_community(&t.g, &p, &c2, NULL) == QR_EINVAL);
    p.max_iter = 1;
    CHECK(qr_graph_community(&t.g, &p, &c2, NULL) == QR_OK && c2.rounds == 1);
    qr_graph_communities_release(&c2);
    qr_graph_communities_release(&c);
    tg_free(&t);
    free(l.e);
}

/* ---- stages on hand-made embeddings ---- */
static qr_graph_embedding *hand_embedding(uint32_t n, uint32_t dim, const float *coords)
{
    qr_graph_embedding *e = calloc(1, sizeof *e);
    e->n = n;
    e->dim = dim;
    e->coords = malloc((size_t)n * dim * sizeof *e->coords);
    memcpy(e->coords, coords, (size_t)n * dim * sizeof *e->coords);
    e->eigenvalues = calloc(dim, sizeof *e->eigenvalues);
    e->residuals = calloc(dim, sizeof *e->residuals);
    return e;
}

static void test_knn(void)
{
    /* angles 0, 20, 50, 90, 180 degrees, a zero row, and 10 degrees scaled by 5 */
    float c[] = {1, 0, 0.9397f, 0.3420f, 0.6428f, 0.7660f, 0, 1, -1, 0, 0, 0, 4.924f, 0.868f};
    qr_graph_embedding *e = hand_embedding(7, 2, c);
    qr_graph_item s[] = {{0, 1.0}};
    qr_graph_hits h = {0};
    qr_graph_knn_params p = {3};
    CHECK(qr_graph_spectral_knn(e, s, 1, &p, &h, NULL) == QR_OK);
    CHECK(h.n == 3 && h.items[0].node == 6 && h.items[1].node == 1 && h.items[2].node == 2);
    CHECK(near(h.items[0].score, cos(10 * PI / 180), 1e-4));
    qr_graph_hits_release(&h);
    p.k = 100; /* everything but the seed and the zero row */
    qr_graph_item s2[] = {{0, 1.0}, {3, 0.0}};
    CHECK(qr_graph_spectral_knn(e, s2, 2, &p, &h, NULL) == QR_OK);
    CHECK(h.n == 4 && h.items[3].node == 4 && near(h.items[3].score, 0, 1e-6));
    CHECK(near(score_of(&h, 2), cos(40 * PI / 180), 1e-4)); /* nearer to 90 */
    qr_graph_hits_release(&h);
    p.k = 0;
    CHECK(qr_graph_spectral_knn(e, s, 1, &p, &h, NULL) == QR_EINVAL);
    qr_graph_item bad[] = {{7, 1.0}};
    CHECK(qr_graph_spectral_knn(e, bad, 1, NULL, &h, NULL) == QR_EINVAL);
    CHECK(qr_graph_spectral_knn(e, s, 0, NULL, &h, NULL) == QR_EINVAL);
    qr_graph_embedding_free(e);
}

/* slack reaches past max_hops: a node on a path within slack of the shortest may lie
 * max_hops + slack hops from a seed (found by review) */
static void test_geodesic_slack(void)
{
    elist l = {0};
    el_add(&l, 0, 1, 1.0f);
    el_add(&l, 1, 2, 1.0f);
    el_add(&l, 2, 3, 1.0f);
    el_add(&l, 0, 4, 1.0f);
    el_add(&l, 4, 5, 1.0f);
    el_add(&l, 5, 6, 1.0f);
    el_add(&l, 6, 7, 1.0f);
    el_add(&l, 7, 3, 1.0f);
    tg t;
    tg_build(&t, 8, l.e, l.n);
    qr_graph_embedding *e = NULL;
    qr_graph_spectral_params sp;
    qr_graph_spectral_params_init(&sp);
    sp.dim = 4;
    CHECK(qr_graph_spectral(&t.g, &sp, &e, NULL) == QR_OK);
    qr_graph_item seeds[2] = {{0, 1}, {3, 1}};
    qr_graph_geodesic_params gp;
    qr_graph_geodesic_params_init(&gp);
    gp.max_hops = 3;
    gp.slack = 2;
    gp.min_alignment = 0;
    qr_graph_hits h = {0};
    CHECK(qr_graph_geodesic(&t.g, e, seeds, 2, &gp, &h, NULL) == QR_OK);
    /* d(0,v) + d(v,3) <= 3 + 2 for every node but the seeds */
    CHECK(h.n == 6);
    for (uint32_t v = 1; v < 8; v++)
        if (v != 3)
            CHECK(score_of(&h, v) >= 0);
    qr_graph_hits_release(&h);
    qr_graph_embedding_free(e);
    tg_free(&t);
    free(l.e);
}

static void test_geodesic(void)
{
    /* 0-1-2 and 0-3-2 (two shortest paths), 2-4-5, 0-6 (off the paths) */
    elist l = {0};
    el_add(&l, 0, 1, 1.0f);
    el_add(&l, 1, 2, 1.0f);
    el_add(&l, 0, 3, 1.0f);
    el_add(&l, 3, 2, 1.0f);
    el_add(&l, 2, 4, 1.0f);
    el_add(&l, 4, 5, 1.0f);
    el_add(&l, 0, 6, 1.0f);
    tg t;
    tg_build(&t, 7, l.e, l.n);
    float c[] = {1, 0, 1, 1, 0, 1, -1, -0.2f, 0, 1, 0.5f, 1, 1, 0.1f};
    qr_graph_embedding *e = hand_embedding(7, 2, c);
    qr_graph_item s[] = {{0, 1.0}, {2, 1.0}};
    qr_graph_hits h = {0};
    CHECK(qr_graph_geodesic(&t.g, e, s, 2, NULL, &h, NULL) == QR_OK);
    /* node 1 at (1,1)/sqrt2: 1 - 1/sqrt2 from the chord of length sqrt2 */
    double d1 = 1 - 1 / sqrt(2.0), want1 = 1 / (1 + d1 / sqrt(2.0));
    CHECK(h.n == 1 && h.items[0].node == 1 && near(h.items[0].score, want1, 1e-6));
    qr_graph_hits_release(&h);
    /* with min_alignment 0 node 3 (far side) is reported too; 4, 5, 6 are off the paths */
    qr_graph_geodesic_params p;
    qr_graph_geodesic_params_init(&p);
    p.min_alignment = 0;
    CHECK(qr_graph_geodesic(&t.g, e, s, 2, &p, &h, NULL) == QR_OK);
    CHECK(h.n == 2 && h.items[1].node == 3 && h.items[1].score < 0.5);
    qr_graph_hits_release(&h);
    /* slack 1 lets a 3-hop detour in... none exists here; slack 2: 0-6-0? no, 4 via 2 */
    p.slack = 2;
    CHECK(qr_graph_geodesic(&t.g, e, s, 2, &p, &h, NULL) == QR_OK);
    CHECK(score_of(&h, 4) > 0 && score_of(&h, 6) > 0 && score_of(&h, 5) < 0);
    qr_graph_hits_release(&h);
    /* seeds too far apart for max_hops */
    qr_graph_item far[] = {{5, 1.0}, {6, 1.0}};
    qr_graph_geodesic_params_init(&p);
    p.max_hops = 3;
    CHECK(qr_graph_geodesic(&t.g, e, far, 2, &p, &h, NULL) == QR_OK && h.n == 0);
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_graph_geodesic(&t.g, e, s, 1, NULL, &h, &err) == QR_EINVAL);
    CHECK(strstr(err.p, "at least 2 seeds"));
    p.slack = 9;
    CHECK(qr_graph_geodesic(&t.g, e, s, 2, &p, &h, NULL) == QR_EINVAL);
    qr_buf_release(&err);
    qr_graph_embedding_free(e);
    tg_free(&t);
    free(l.e);
}

static void test_manifold(void)
{
    /* points on the great circle (sin a, 0, cos a); seeds at a = 0, .05, .10 */
    double ang[] = {0, 0.05, 0.10, 0.20, 0.30, -0.15, 0.05, 0.25};
    float c[8 * 3];
    for (int i = 0; i < 8; i++) {
        c[i * 3] = (float)sin(ang[i]);
        c[i * 3 + 1] = 0;
        c[i * 3 + 2] = (float)cos(ang[i]);
    }
    c[6 * 3 + 1] = 0.05f; /* between the seeds, off the line */
    c[7 * 3 + 1] = 0.30f; /* beyond, far off the line */
    qr_graph_embedding *e = hand_embedding(8, 3, c);
    qr_graph_item s[] = {{0, 1}, {1, 1}, {2, 1}};
    qr_graph_hits h = {0};
    CHECK(qr_graph_manifold(e, s, 3, NULL, &h, NULL) == QR_OK);
    CHECK(h.n == 3);
    if (h.n == 3) {
        CHECK(h.items[0].node == 4 && h.items[1].node == 5 && h.items[2].node == 3);
        CHECK(near(h.items[0].score, 0.2, 0.05) && near(h.items[2].score, 0.1, 0.03));
    }
    qr_graph_hits_release(&h);
    qr_graph_manifold_params p;
    qr_graph_manifold_params_init(&p);
    p.limit = 1;
    p.perp_weight = 0;
    CHECK(qr_graph_manifold(e, s, 3, &p, &h, NULL) == QR_OK && h.n == 1 && h.items[0].node == 4);
    qr_graph_hits_release(&h);
    CHECK(qr_graph_manifold(e, s, 1, NULL, &h, NULL) == QR_EINVAL);
    qr_graph_item same[] = {{0, 1}, {0, 2}};
    CHECK(qr_graph_manifold(e, same, 2, NULL, &h, NULL) == QR_EINVAL);
    qr_graph_embedding_free(e);
}

static void test_centroid(void)
{
    float c[] = {1, 0, 0, 1, 3, 0, 0, 0};
    qr_graph_embedding *e = hand_embedding(4, 2, c);
    uint32_t of[] = {0, 0, 1, 1}, size[] = {2, 2};
    qr_graph_communities cm = {4, 2, of, size, 1, true};
    double d[4];
    CHECK(qr_graph_centroid_distance(e, &cm, d, NULL) == QR_OK);
    CHECK(near(d[0], sqrt(0.5), 1e-6) && near(d[1], sqrt(0.5), 1e-6));
    CHECK(near(d[2], 0.5, 1e-6) && near(d[3], 0.5, 1e-6));
    of[3] = 2;
    CHECK(qr_graph_centroid_distance(e, &cm, d, NULL) == QR_EINVAL);
    qr_graph_embedding_free(e);
}

/* every allocation in every function, made to fail in turn: ENOMEM and no leak */
static void test_alloc_failures(void)
{
    elist l = {0};
    for (uint32_t c = 0; c < 2; c++)
        for (uint32_t i = 0; i < 12; i++)
            for (uint32_t j = i + 1; j < 12; j++)
                el_add(&l, c * 12 + i, c * 12 + j, 1.0f);
    el_add(&l, 11, 12, 0.5f);
    cycle(&l, 24, 30);
    tg t;
    tg_build(&t, 54, l.e, l.n);
    qr_graph_item s[] = {{0, 1.0}, {13, 1.0}, {20, 0.5}};
    qr_graph_spectral_params sp;
    qr_graph_spectral_params_init(&sp);
    sp.basis = 12;
    qr_graph_embedding *full = NULL;
    CHECK(qr_graph_spectral(&t.g, &sp, &full, NULL) == QR_OK);
    for (int fn = 0; fn < 8 && full; fn++) {
        int ok = 0;
        for (long k = 0; k < 10000 && !ok; k++) {
            qr__mg_fail_after(k);
            qr_graph_hits h = {0};
            qr_graph_embedding *e = NULL;
            qr_graph_communities cm = {0};
            double dist[54];
            int rc;
            switch (fn) {
            case 0: rc = qr_graph_spread(&t.g, s, 3, NULL, &h, NULL); break;
            case 1: rc = qr_graph_confluence(&t.g, s, 3, NULL, &h, NULL); break;
            case 2: rc = qr_graph_spectral(&t.g, &sp, &e, NULL); break;
            case 3: rc = qr_graph_spectral_knn(full, s, 3, NULL, &h, NULL); break;
            case 4: rc = qr_graph_geodesic(&t.g, full, s, 3, NULL, &h, NULL); break;
            case 5: rc = qr_graph_manifold(full, s, 3, NULL, &h, NULL); break;
            case 6: rc = qr_graph_community(&t.g, NULL, &cm, NULL); break;
            default: {
                qr__mg_fail_after(-1);
                qr_graph_community(&t.g, NULL, &cm, NULL);
                qr__mg_fail_after(k);
                rc = qr_graph_centroid_distance(full, &cm, dist, NULL);
            }
            }
            qr__mg_fail_after(-1);
            CHECK(rc == QR_OK || rc == QR_ENOMEM);
            if (rc == QR_OK)
                ok = 1;
            else
                CHECK(h.items == NULL && e == NULL && (fn == 7 || cm.of == NULL));
            qr_graph_hits_release(&h);
            qr_graph_embedding_free(e);
            qr_graph_communities_release(&cm);
        }
        CHECK(ok);
    }
    qr_graph_embedding_free(full);
    tg_free(&t);
    free(l.e);
}

/* every seed walks on its own: the work over all walks is bounded, and reaching the
 * bound is an error that says how to narrow the call */
static void test_work_bound(void)
{
    elist l = {0};
    path(&l, 0, 50, 1.0f);
    tg t;
    tg_build(&t, 50, l.e, l.n);
    qr_graph_item seeds[50];
    for (uint32_t i = 0; i < 50; i++) {
        seeds[i].node = i;
        seeds[i].score = 1.0;
    }
    qr_graph_hits h = {0};
    qr_graph_spread_params p;
    qr_graph_spread_params_init(&p);
    CHECK(p.max_work == QR_GRAPH_DEFAULT_MAX_WORK);
    p.max_hops = 10;
    p.edge_decay = 1.0;
    p.max_work = 100;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_graph_spread(&t.g, seeds, 50, &p, &h, &err) == QR_ELIMIT);
    CHECK(err.p && strstr(err.p, "stopped after looking at 100 links") &&
          strstr(err.p, "fewer seeds"));
    CHECK(h.n == 0 && h.items == NULL);
    p.max_work = 0; /* the default: plenty for this graph */
    CHECK(qr_graph_spread(&t.g, seeds, 50, &p, &h, NULL) == QR_OK && h.n == 50);
    qr_graph_hits_release(&h);
    qr_graph_confluence_params c;
    qr_graph_confluence_params_init(&c);
    c.max_hops = 10;
    c.max_work = 100;
    qr_buf_reset(&err);
    CHECK(qr_graph_confluence(&t.g, seeds, 50, &c, &h, &err) == QR_ELIMIT);
    CHECK(err.p && strstr(err.p, "'confluence' stopped"));
    qr_buf_release(&err);
    tg_free(&t);
    free(l.e);
}

int main(void)
{
    test_check();
    test_work_bound();
    test_geodesic_slack();
    test_spread();
    test_confluence();
    test_spectral_closed_forms();
    test_spectral_structure();
    test_spectral_random();
    test_spectral_validation();
    test_community();
    test_knn();
    test_geodesic();
    test_manifold();
    test_centroid();
    test_alloc_failures();
    CHECK_DONE();
}
