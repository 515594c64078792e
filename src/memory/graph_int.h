/*
 * graph_int.h: what the memory-graph algorithm files (graph_*.c) share and nothing else
 * includes: the allocator with its test hook, a seeded generator, seed validation, the
 * result ordering, row normalization and the small dense symmetric eigensolver.
 */
#ifndef QUARRY_MEMORY_GRAPH_INT_H
#define QUARRY_MEMORY_GRAPH_INT_H

#include "quarry/graph.h"

/* malloc(count * size) with the product checked; NULL on overflow or failure. */
void *qr__mg_alloc(size_t count, size_t size);
/* calloc(count, size); NULL on failure. */
void *qr__mg_zalloc(size_t count, size_t size);
/* Test hook: the k-th allocation from now (0 = the next) fails, and every one after it
 * too, until called again; k < 0 turns failures off. Per thread. */
void qr__mg_fail_after(long k);

/* Sets err (when not NULL) and returns code. */
int qr__mg_fail(qr_buf *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int qr__mg_nomem(qr_buf *err, const char *what);

/* splitmix64 */
uint64_t qr__mg_rng(uint64_t *state);
/* uniform in [-1, 1) */
double qr__mg_rng_sym(uint64_t *state);

/* O(1) shape check: pointers present, off[0] == 0. */
int qr__mg_shape(const qr_graph *g, qr_buf *err);
/* Seeds: nseeds >= min, nodes < n, scores finite and >= 0. what names the stage. */
int qr__mg_seeds(uint32_t n, const qr_graph_item *seeds, size_t nseeds, size_t min,
                 const char *what, qr_buf *err);
/* Reports a malformed adjacency met while walking node u. */
int qr__mg_bad_edge(qr_buf *err, uint32_t u, size_t j);

/* Sorts by score descending, then node ascending. */
void qr__mg_sort(qr_graph_item *it, size_t n);
/* Keeps the best limit items (same order as qr__mg_sort) in it[0..), returns the count. */
size_t qr__mg_top(qr_graph_item *it, size_t n, size_t limit);

/* Row i of e, column c scaled by 1/sqrt(max(lambda_c, 1e-6)), then to unit length, into
 * out[0..dim); false when the row is zero. */
bool qr__mg_unit_row(const qr_graph_embedding *e, uint32_t i, double *out);
int qr__mg_embedding_ok(const qr_graph_embedding *e, const char *what, qr_buf *err);

/* Dense symmetric eigenproblem of order m. a (m*m, row-major) holds the matrix on entry
 * (only its upper triangle is read) and the eigenvectors as columns on exit; evals gets
 * the eigenvalues ascending. Householder reduction to tridiagonal form, then implicit QR
 * steps with the Wilkinson shift. QR_ENOMEM, or QR_ERUNTIME when the iteration cap is
 * hit (not seen in practice). */
int qr__mg_symeig(size_t m, double *a, double *evals);

#endif
