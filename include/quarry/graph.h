/*
 * quarry/graph.h: graph algorithms over an undirected, weighted graph in compressed
 * adjacency form (CSR), for the memory graph's pipeline stages (seed 002): spreading
 * activation, the spectral embedding, confluence, geodesic, manifold, and communities.
 *
 * The graph is borrowed: algorithms never change it and keep no pointer into it after
 * they return (a cached embedding copies what it needs).
 *
 * Conventions shared by every function below:
 * - Each is a pure function of its inputs: same graph, seeds and parameters give the same
 *   output, bit for bit (fixed-seed randomness only).
 * - Parameters come in a struct with an _init function that sets the defaults; passing
 *   NULL means the defaults. Out-of-range parameters, unknown node indices, NaN or
 *   negative seed scores and malformed graphs give QR_EINVAL with a message in err (err
 *   may be NULL). Allocation failure gives QR_ENOMEM. Outputs are untouched on error.
 * - Every result is malloc-owned by the caller and released with the matching
 *   _release/_free function. No function prints, exits or keeps global state.
 * - Work is bounded: hop bounds, iteration caps and matrix-vector caps are parameters
 *   with finite maxima.
 * - Scored node lists (qr_graph_hits) are ordered by score descending, ties by node index
 *   ascending.
 */
#ifndef QUARRY_GRAPH_H
#define QUARRY_GRAPH_H

#include "quarry/base.h"

typedef struct qr_graph {
    uint32_t n;          /* nodes are 0..n-1 */
    const uint32_t *off; /* n+1 offsets into adj and w */
    const uint32_t *adj; /* neighbours; an undirected edge appears in both nodes' lists */
    const float *w;      /* strength of each adjacency, in (0, 1] */
} qr_graph;

/* Hard bounds on parameters. */
#define QR_GRAPH_MAX_HOPS 16     /* spread, confluence, geodesic */
#define QR_GRAPH_MAX_DIM 64      /* spectral embedding dimension */
#define QR_GRAPH_MAX_PAIR_SEEDS 64 /* geodesic looks at every pair of seeds */

/* A node with a score: seeds going in, results coming out. */
typedef struct qr_graph_item {
    uint32_t node;
    double score;
} qr_graph_item;

/* A scored node list (malloc-owned; items is NULL when n is 0). */
typedef struct qr_graph_hits {
    qr_graph_item *items;
    size_t n;
} qr_graph_hits;

void qr_graph_hits_release(qr_graph_hits *h);

/* Full structural check, O(n + m): offsets start at 0 and never decrease, neighbours are
 * < n, no node lists itself, strengths are in (0, 1], and every adjacency u->v has a
 * matching v->u of the same strength (checked as multisets through a commutative hash).
 * QR_OK or QR_EINVAL with the first problem in err. The spectral embedding and community
 * detection run it; spread-like functions check only what they touch. */
int qr_graph_check(const qr_graph *g, qr_buf *err);

/* A 64-bit fingerprint of the graph's structure and strengths, for cache keys: a
 * pipeline keeps an embedding while the fingerprint of its graph is unchanged. */
uint64_t qr_graph_fingerprint(const qr_graph *g);

/* ---- spread: spreading activation ----
 * Each seed s with activation a_s (>= 0) sends a_s * prod(edge_decay * strength) along
 * every path of at most max_hops edges; a node takes, from each seed, the best (largest)
 * such value, and contributions below min_activation neither count nor travel further.
 * A node's activation is the SUM over seeds of those per-seed values; a seed's own
 * activation counts (hop 0). Seeds listing the same node twice count twice.
 * Output: every node with a counted contribution (seeds always included), scored by its
 * summed activation. Cost: proportional to the edges of the nodes reached (a frontier per
 * hop; no sweep over the whole graph). */
/* Bound on the links spread and confluence look at, summed over every seed's walk (a
 * walk per seed: all seeds times a large radius is the whole graph many times over).
 * Reaching it is QR_ELIMIT, with a message saying how to narrow the call. 0: default. */
#define QR_GRAPH_DEFAULT_MAX_WORK 50000000ull

typedef struct qr_graph_spread_params {
    uint32_t max_hops;     /* default 3; 0..QR_GRAPH_MAX_HOPS */
    double edge_decay;     /* default 0.5; in (0, 1] */
    double min_activation; /* default 0.01; >= 0 */
    uint64_t max_work;     /* default QR_GRAPH_DEFAULT_MAX_WORK */
    const qr_stop *stop;   /* the request's; checked every 65,536 links (QR_ESTOPPED) */
} qr_graph_spread_params;

void qr_graph_spread_params_init(qr_graph_spread_params *p);
int qr_graph_spread(const qr_graph *g, const qr_graph_item *seeds, size_t nseeds,
                    const qr_graph_spread_params *p, qr_graph_hits *out, qr_buf *err);

/* ---- confluence: multi-source reachability ----
 * Nodes within max_hops of at least min_seeds different seeds (distinct seed nodes).
 * Reach is by hops alone; each reaching seed adds its best-path activation as in spread
 * (with no min_activation cutoff). Seeds themselves are not reported.
 * score = count + act / (1 + act), where count is the number of seeds reaching the node
 * and act their summed activation: floor(score) is the count, and within a count more
 * activation ranks higher. */
typedef struct qr_graph_confluence_params {
    uint32_t max_hops; /* default 3; 1..QR_GRAPH_MAX_HOPS */
    double edge_decay; /* default 0.5; in (0, 1] */
    uint32_t min_seeds; /* default 2; >= 1 */
    uint64_t max_work;  /* default QR_GRAPH_DEFAULT_MAX_WORK */
    const qr_stop *stop; /* the request's; checked every 65,536 links (QR_ESTOPPED) */
} qr_graph_confluence_params;

void qr_graph_confluence_params_init(qr_graph_confluence_params *p);
int qr_graph_confluence(const qr_graph *g, const qr_graph_item *seeds, size_t nseeds,
                        const qr_graph_confluence_params *p, qr_graph_hits *out, qr_buf *err);

/* ---- spectral embedding ----
 * The dim eigenvectors of the normalized Laplacian L = I - D^-1/2 A D^-1/2 (A weighted
 * by strength) with the smallest nontrivial eigenvalues. Trivial means eigenvalue 0 in a
 * connected component: the vector D^1/2 1 restricted to each component is deflated, so a
 * disconnected graph embeds each component's internal structure (components are not told
 * apart by the embedding; community detection does that). Isolated nodes get a zero row.
 *
 * Solver: thick-restart Lanczos on M = D^-1/2 A D^-1/2 (whose largest eigenvalues are
 * L's smallest) with full reorthogonalisation, a fixed-seed start vector, and a final
 * check that a fresh start vector orthogonal to the found vectors finds nothing above
 * them (repeated eigenvalues, which a single Krylov sequence misses). The small projected
 * problems are solved by Householder reduction and implicit QR (own code). The reported
 * residuals are recomputed from the returned vectors: ||L v - lambda v|| with ||v|| = 1.
 *
 * The embedding holds fewer than the requested dim columns when the graph has fewer
 * nontrivial eigenpairs (sum over components of size - 1). Not converging within
 * max_matvecs is not an error: converged is false and the residuals say how far off. */
typedef struct qr_graph_spectral_params {
    uint32_t dim;         /* default 8; 1..QR_GRAPH_MAX_DIM */
    double tol;           /* default 1e-6; residual target per pair, in [1e-12, 0.1] */
    uint32_t max_matvecs; /* default 20000; >= 1; bounds the work: checked after each
                             restart cycle, so a run may do up to basis + dim more */
    uint32_t basis;       /* Lanczos basis size; default 0 = auto (2*dim + 24, >= 40);
                             memory is (basis + 1) * n doubles */
    uint64_t seed;        /* start vector; default 0x5eed */
} qr_graph_spectral_params;

typedef struct qr_graph_spectral_report {
    bool converged;      /* the solver's residual estimate met tol for every pair */
    double max_residual; /* largest ||L v - lambda v|| of the stored float vectors (float
                          * rounding alone contributes about 1e-7) */
    uint32_t matvecs;    /* products with M */
    uint32_t restarts;
    uint32_t components; /* connected components with at least one edge */
    uint32_t isolated;   /* nodes without edges (zero rows) */
} qr_graph_spectral_report;

typedef struct qr_graph_embedding {
    uint32_t n;           /* rows (the graph's n) */
    uint32_t dim;         /* columns actually computed, <= requested */
    float *coords;        /* n*dim, row-major: node i's vector at coords[i*dim] */
    double *eigenvalues;  /* dim eigenvalues of L, ascending */
    double *residuals;    /* dim residual norms, matching eigenvalues */
    uint64_t fingerprint; /* qr_graph_fingerprint of the source graph */
    qr_graph_spectral_report report;
} qr_graph_embedding;

void qr_graph_spectral_params_init(qr_graph_spectral_params *p);
/* *out is set on QR_OK (free with qr_graph_embedding_free). */
int qr_graph_spectral(const qr_graph *g, const qr_graph_spectral_params *p,
                      qr_graph_embedding **out, qr_buf *err);
void qr_graph_embedding_free(qr_graph_embedding *e);

/*
 * The embedding stages below work on the scaled, row-normalized embedding: column c is
 * divided by sqrt(lambda_c) (lambda clamped at 1e-6; the commute-time scaling, so the
 * smooth directions that separate communities weigh more than near-bulk ones), then each
 * node's vector is scaled to unit length (as in Ng-Jordan-Weiss). Nodes whose row is zero
 * (isolated nodes) have no direction and are never reported. Seed scores are ignored
 * (only the seed nodes matter); seeds are never reported.
 */

/* ---- spectral,k=N: nearest neighbours of the seeds ----
 * score(v) = max over seeds s of cos(x_v, x_s), in [-1, 1]; the k best non-seed nodes. */
typedef struct qr_graph_knn_params {
    uint32_t k; /* default 20; >= 1 */
} qr_graph_knn_params;

void qr_graph_knn_params_init(qr_graph_knn_params *p);
int qr_graph_spectral_knn(const qr_graph_embedding *e, const qr_graph_item *seeds,
                          size_t nseeds, const qr_graph_knn_params *p, qr_graph_hits *out,
                          qr_buf *err);

/* ---- geodesic: short paths between seeds that stay straight in the embedding ----
 * For each pair of seeds s, t at hop distance d(s,t) <= max_hops, the nodes v with
 * d(s,v) + d(v,t) <= d(s,t) + slack (slack 0: exactly the nodes on shortest paths).
 * alignment(v) = 1 / (1 + dist(x_v, segment[x_s, x_t]) / max(|x_s - x_t|, 0.1)): 1 on
 * the segment, 1/2 at a distance equal to the segment's length. A node keeps its best
 * alignment over pairs; nodes with alignment >= min_alignment are reported. */
typedef struct qr_graph_geodesic_params {
    uint32_t max_hops;    /* default 4; 1..QR_GRAPH_MAX_HOPS */
    uint32_t slack;       /* default 0; <= max_hops */
    double min_alignment; /* default 0.5; in [0, 1] */
} qr_graph_geodesic_params;

void qr_graph_geodesic_params_init(qr_graph_geodesic_params *p);
/* At most QR_GRAPH_MAX_PAIR_SEEDS seeds. e must come from g (same n). */
int qr_graph_geodesic(const qr_graph *g, const qr_graph_embedding *e, const qr_graph_item *seeds,
                      size_t nseeds, const qr_graph_geodesic_params *p, qr_graph_hits *out,
                      qr_buf *err);

/* ---- manifold: extrapolation along the seeds' principal direction ----
 * With mu the mean of the seed vectors and u their first principal component, a node's
 * projection is p(v) = (x_v - mu).u and its distance from the line perp(v). Nodes beyond
 * the seeds' span on either end score beyond(v) - perp_weight * perp(v), where
 * beyond(v) = max(p(v) - max_s p(s), min_s p(s) - p(v)); the limit best with a positive
 * score are reported. Needs at least 2 seeds with nonzero vectors (else QR_EINVAL); seeds
 * that all coincide have no direction and give an empty result. */
typedef struct qr_graph_manifold_params {
    uint32_t limit;     /* default 20; >= 1 */
    double perp_weight; /* default 1.0; >= 0 */
} qr_graph_manifold_params;

void qr_graph_manifold_params_init(qr_graph_manifold_params *p);
int qr_graph_manifold(const qr_graph_embedding *e, const qr_graph_item *seeds, size_t nseeds,
                      const qr_graph_manifold_params *p, qr_graph_hits *out, qr_buf *err);

/* ---- community: weighted label propagation ----
 * Every node starts with its own label. Each round visits the nodes in a fixed
 * pseudo-random order (a shuffle seeded by seed) and gives each the label with the largest
 * summed edge strength among its neighbours, ties to the smallest label, updating in
 * place. Stops when a round changes nothing or after max_iter rounds. Ids are then made
 * dense, 0..count-1, by community size descending (ties: smallest member first). Isolated
 * nodes are singleton communities. */
typedef struct qr_graph_community_params {
    uint32_t max_iter; /* default 50; 1..10000 */
    uint64_t seed;     /* default 0x5eed */
} qr_graph_community_params;

typedef struct qr_graph_communities {
    uint32_t n;         /* nodes */
    uint32_t count;     /* communities */
    uint32_t *of;       /* n: community id of each node */
    uint32_t *size;     /* count: members of each community (descending) */
    uint32_t rounds;    /* label propagation rounds run */
    bool converged;     /* the last round changed nothing */
} qr_graph_communities;

void qr_graph_community_params_init(qr_graph_community_params *p);
int qr_graph_community(const qr_graph *g, const qr_graph_community_params *p,
                       qr_graph_communities *out, qr_buf *err);
void qr_graph_communities_release(qr_graph_communities *c);

/* ---- priority support ----
 * dist[i] = Euclidean distance from node i's row-normalized vector to the mean of the
 * row-normalized vectors of its community (zero rows count as zero vectors). dist is
 * caller-owned with room for e->n values. The pipeline combines it with overdue-ness and
 * weight into the consolidation priority. QR_EINVAL when c and e disagree on n. */
int qr_graph_centroid_distance(const qr_graph_embedding *e, const qr_graph_communities *c,
                               double *dist, qr_buf *err);

#endif
