/*
 * quarry/graph.h: graph algorithms over an undirected, weighted graph in compressed
 * adjacency form (CSR), for the memory graph's pipeline stages (seed 002): spreading
 * activation, the spectral embedding, confluence, geodesic, manifold, and communities.
 *
 * The graph is borrowed: algorithms never change it and keep no pointer into it after
 * they return (a cached embedding copies what it needs).
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

#endif
