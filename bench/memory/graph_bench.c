/*
 * graph_bench.c: timings of the memory-graph algorithms on a generated graph of 100,000
 * nodes and 1,000,000 edges with community structure (50 planted groups of 2,000; 90% of
 * a node's edges inside its group, strengths uniform in [0.1, 1]), from a fixed-seed
 * generator so every run sees the same graph. Prints spread (5 seeds, 3 hops), the
 * spectral embedding (dim 8) with its convergence report, and label propagation.
 * Not a test: built and run by graph_bench.sh. Usage: graph_bench [nodes [edges]]
 */
#include "quarry/graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t rng_state = 0x6e0de;

static uint64_t next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 100000;
    size_t m = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000000;
    uint32_t groups = n / 2000 ? n / 2000 : 1, gsize = n / groups;
    uint32_t *ea = malloc(m * sizeof *ea), *eb = malloc(m * sizeof *eb);
    float *ew = malloc(m * sizeof *ew);
    uint32_t *off = calloc((size_t)n + 1, sizeof *off), *fill = calloc(n, sizeof *fill);
    uint32_t *adj = malloc(2 * m * sizeof *adj);
    float *w = malloc(2 * m * sizeof *w);
    if (!ea || !eb || !ew || !off || !fill || !adj || !w)
        return 1;
    double t0 = now_ms();
    for (size_t i = 0; i < m;) {
        uint32_t a = (uint32_t)(next() % n), b;
        if (next() % 10 < 9) {
            uint32_t g = a / gsize < groups ? a / gsize : groups - 1;
            uint32_t lo = g * gsize, hi = g + 1 == groups ? n : lo + gsize;
            b = lo + (uint32_t)(next() % (hi - lo));
        } else {
            b = (uint32_t)(next() % n);
        }
        if (a == b)
            continue;
        ea[i] = a;
        eb[i] = b;
        ew[i++] = (float)(0.1 + 0.9 * (double)(next() >> 11) / 9007199254740992.0);
    }
    for (size_t i = 0; i < m; i++) {
        off[ea[i] + 1]++;
        off[eb[i] + 1]++;
    }
    for (uint32_t i = 0; i < n; i++)
        off[i + 1] += off[i];
    for (size_t i = 0; i < m; i++) {
        adj[off[ea[i]] + fill[ea[i]]] = eb[i];
        w[off[ea[i]] + fill[ea[i]]++] = ew[i];
        adj[off[eb[i]] + fill[eb[i]]] = ea[i];
        w[off[eb[i]] + fill[eb[i]]++] = ew[i];
    }
    qr_graph g = {n, off, adj, w};
    printf("graph: %u nodes, %zu edges, %u planted groups (generated in %.0f ms)\n", n, m,
           groups, now_ms() - t0);

    qr_buf err;
    qr_buf_init(&err);
    t0 = now_ms();
    int rc = qr_graph_check(&g, &err);
    printf("check: %.1f ms (%s)\n", now_ms() - t0, rc ? err.p : "ok");

    qr_graph_item seeds[5];
    for (int i = 0; i < 5; i++) {
        seeds[i].node = (uint32_t)(next() % n);
        seeds[i].score = 1.0;
    }
    qr_graph_hits h = {0};
    double best = 1e9;
    size_t reached = 0;
    for (int r = 0; r < 20; r++) {
        t0 = now_ms();
        rc = qr_graph_spread(&g, seeds, 5, NULL, &h, &err);
        double t = now_ms() - t0;
        best = t < best ? t : best;
        reached = h.n;
        qr_graph_hits_release(&h);
        if (rc)
            return fprintf(stderr, "spread: %s\n", err.p), 1;
    }
    printf("spread (5 seeds, 3 hops, decay 0.5, min 0.01): %.2f ms best of 20, %zu nodes "
           "reached\n",
           best, reached);
    qr_graph_spread_params sp;
    qr_graph_spread_params_init(&sp);
    sp.min_activation = 0;
    t0 = now_ms();
    rc = qr_graph_spread(&g, seeds, 5, &sp, &h, &err);
    printf("spread (same, no cutoff): %.2f ms, %zu nodes reached\n", now_ms() - t0, h.n);
    qr_graph_hits_release(&h);

    qr_graph_embedding *e = NULL;
    t0 = now_ms();
    rc = qr_graph_spectral(&g, NULL, &e, &err);
    double ts = now_ms() - t0;
    if (rc)
        return fprintf(stderr, "spectral: %s\n", err.p), 1;
    printf("spectral (dim 8, tol 1e-6): %.0f ms, %u matvecs, %u restarts, converged %s, max "
           "residual %.2e\n",
           ts, e->report.matvecs, e->report.restarts, e->report.converged ? "yes" : "no",
           e->report.max_residual);
    printf("  eigenvalues:");
    for (uint32_t c = 0; c < e->dim; c++)
        printf(" %.5f", e->eigenvalues[c]);
    printf("\n");

    t0 = now_ms();
    rc = qr_graph_spectral_knn(e, seeds, 5, NULL, &h, &err);
    printf("spectral knn (k 20): %.2f ms\n", now_ms() - t0);
    qr_graph_hits_release(&h);

    qr_graph_communities c = {0};
    t0 = now_ms();
    rc = qr_graph_community(&g, NULL, &c, &err);
    if (rc)
        return fprintf(stderr, "community: %s\n", err.p), 1;
    /* how many nodes share their planted group's majority community */
    printf("community: %.0f ms, %u communities, %u rounds, converged %s, largest %u\n",
           now_ms() - t0, c.count, c.rounds, c.converged ? "yes" : "no", c.size[0]);
    qr_graph_communities_release(&c);
    qr_graph_embedding_free(e);
    qr_buf_release(&err);
    free(ea);
    free(eb);
    free(ew);
    free(off);
    free(fill);
    free(adj);
    free(w);
    return 0;
}
