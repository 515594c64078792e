/*
 * cache.c: what the graph stages derive from the whole graph — the spectral embedding
 * (QR_PIPELINE_SPECTRAL_DIM columns), the communities and the centroid distances of
 * sort:priority — kept in a qr_pipeline_cache for the life of a process and in a file
 * next to the store, STORE.spectral, so that repeated CLI runs do not recompute them
 * (the embedding of 100k nodes and 1M edges takes seconds).
 *
 * Both are keyed by the graph's fingerprint (qr_graph_fingerprint) and node count: a
 * change to the links or the set of nodes makes them stale; a change to content or
 * weights does not. The in-memory cache skips even the fingerprint while the store's
 * generation is unchanged.
 *
 * The file (native byte order, all fields little or big endian as the machine is):
 *   "QRSPEC01", u32 0x01020304, u32 n, u64 fingerprint, u32 dim (0: no embedding),
 *   u32 ncomm (0: no communities), u32 converged, u32 matvecs, u32 restarts,
 *   u32 components, u32 isolated, u32 rounds, u32 comm_converged, u32 0,
 *   f64 max_residual, f64 eigenvalues[dim], f64 residuals[dim], f32 coords[n*dim],
 *   u32 of[n] and u32 size[ncomm] (when ncomm), u64 hash of everything before.
 * It is read only when its size, byte order, hash, node count and fingerprint all match
 * and every value is in range; anything else is ignored and the file rewritten after the
 * next computation (to STORE.spectral.tmp.PID, then rename(2), so readers see the old
 * file or the new one). Failure to write is not an error: the run goes on, the note says.
 *
 * Rejected: keeping the cache inside the SQLite store (a write transaction per run, and
 * the store would change generation because of a read); a global per-process cache
 * (library code keeps no global state: the caller owns the cache, the tools' host keeps
 * one for its session).
 */
#include "pipeline_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAGIC "QRSPEC01"
#define HEADER 72

struct qr_pipeline_cache {
    char *path; /* of the store the entries belong to */
    bool has_gen;
    uint64_t generation;
    uint64_t fp;
    uint32_t n;
    qr_graph_embedding *emb;
    bool has_comm;
    qr_graph_communities comm;
    double *dist;
};

qr_pipeline_cache *qr_pipeline_cache_new(void)
{
    return calloc(1, sizeof(qr_pipeline_cache));
}

static void drop(qr_pipeline_cache *c)
{
    qr_graph_embedding_free(c->emb);
    c->emb = NULL;
    if (c->has_comm)
        qr_graph_communities_release(&c->comm);
    c->has_comm = false;
    free(c->dist);
    c->dist = NULL;
}

void qr_pipeline_cache_free(qr_pipeline_cache *c)
{
    if (!c)
        return;
    drop(c);
    free(c->path);
    free(c);
}

static double secs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void note_add(pl_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_add(pl_run *r, const char *fmt, ...)
{
    size_t used = strlen(r->note);
    if (used + 1 >= sizeof r->note)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->note + used, sizeof r->note - used, fmt, ap);
    va_end(ap);
}

/* Makes the cache describe r->s's graph (dropping what belonged to another). */
static int sync(pl_run *r)
{
    qr_pipeline_cache *c = r->cache;
    const char *path = qr_mem_path(r->m);
    bool same_store = c->path && !strcmp(c->path, path);
    if (same_store && c->has_gen && c->generation == r->s->generation && c->n == r->s->n)
        return QR_OK;
    uint64_t fp = qr_graph_fingerprint(&r->s->graph);
    if (!same_store || c->fp != fp || c->n != r->s->n || !c->has_gen)
        drop(c);
    if (!same_store) {
        free(c->path);
        if (!(c->path = strdup(path)))
            return QR_ENOMEM;
    }
    c->has_gen = true;
    c->generation = r->s->generation;
    c->fp = fp;
    c->n = r->s->n;
    return QR_OK;
}

static bool file_path(const pl_run *r, char *buf, size_t cap)
{
    const char *p = qr_mem_path(r->m);
    if (r->no_file_cache || !p || !*p || !strcmp(p, ":memory:") || qr_mem_on_server(r->m))
        return false;
    return (size_t)snprintf(buf, cap, "%s.spectral", p) < cap;
}

/* ---- the file ---- */

static void put32(qr_buf *b, uint32_t v)
{
    qr_buf_append(b, (const char *)&v, 4);
}

static int save(pl_run *r)
{
    qr_pipeline_cache *c = r->cache;
    char path[4096];
    if (!file_path(r, path, sizeof path))
        return QR_OK;
    const qr_graph_embedding *e = c->emb;
    uint32_t dim = e ? e->dim : 0;
    uint32_t ncomm = c->has_comm ? c->comm.count : 0;
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_append(&b, MAGIC, 8);
    put32(&b, 0x01020304u);
    put32(&b, c->n);
    qr_buf_append(&b, (const char *)&c->fp, 8);
    put32(&b, dim);
    put32(&b, ncomm);
    put32(&b, e ? e->report.converged : 0);
    put32(&b, e ? e->report.matvecs : 0);
    put32(&b, e ? e->report.restarts : 0);
    put32(&b, e ? e->report.components : 0);
    put32(&b, e ? e->report.isolated : 0);
    put32(&b, ncomm ? c->comm.rounds : 0);
    put32(&b, ncomm ? c->comm.converged : 0);
    put32(&b, 0);
    double mr = e ? e->report.max_residual : 0;
    qr_buf_append(&b, (const char *)&mr, 8);
    if (e) {
        qr_buf_append(&b, (const char *)e->eigenvalues, dim * sizeof(double));
        qr_buf_append(&b, (const char *)e->residuals, dim * sizeof(double));
        qr_buf_append(&b, (const char *)e->coords, (size_t)c->n * dim * sizeof(float));
    }
    if (ncomm) {
        qr_buf_append(&b, (const char *)c->comm.of, (size_t)c->n * 4);
        qr_buf_append(&b, (const char *)c->comm.size, (size_t)ncomm * 4);
    }
    if (b.failed) {
        qr_buf_release(&b);
        note_add(r, "; not saved: out of memory");
        return QR_OK;
    }
    uint64_t h = qr_hash_bytes(b.p, b.len);
    qr_buf_append(&b, (const char *)&h, 8);
    bool ok = !b.failed && qr_write_file_atomic(path, b.p, b.len, 0600) == QR_OK;
    if (!ok) {
        note_add(r, "; not saved to '%s'", path);
    } else {
        note_add(r, "; saved to '%s'", path);
    }
    qr_buf_release(&b);
    return QR_OK;
}

static uint32_t get32(const char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Loads whatever a valid file holds (embedding, communities) that the cache lacks. */
static bool load(pl_run *r)
{
    qr_pipeline_cache *c = r->cache;
    char path[4096];
    if (!file_path(r, path, sizeof path))
        return false;
    uint64_t maxlen =
        HEADER + 16 * QR_GRAPH_MAX_DIM + (uint64_t)c->n * (4 * QR_GRAPH_MAX_DIM + 8) + 8;
    char *buf = NULL;
    size_t len = 0;
    if (qr_read_file(path, (size_t)maxlen, &buf, &len) != QR_OK)
        return false;
    bool ok = false;
    qr_graph_embedding *e = NULL;
    uint32_t *of = NULL, *size = NULL;
    if (len < HEADER + 8 || memcmp(buf, MAGIC, 8) || get32(buf + 8) != 0x01020304u ||
        get32(buf + 12) != c->n)
        goto done;
    uint64_t fp, h;
    memcpy(&fp, buf + 16, 8);
    memcpy(&h, buf + len - 8, 8);
    uint32_t dim = get32(buf + 24), ncomm = get32(buf + 28);
    if (fp != c->fp || dim > QR_GRAPH_MAX_DIM || ncomm > c->n)
        goto done;
    uint64_t want =
        HEADER + 16ull * dim + 4ull * c->n * dim + (ncomm ? 4ull * c->n + 4ull * ncomm : 0) + 8;
    if (want != len || qr_hash_bytes(buf, len - 8) != h)
        goto done;
    const char *p = buf + HEADER;
    if (dim && !c->emb) {
        e = calloc(1, sizeof *e);
        if (!e)
            goto done;
        e->n = c->n;
        e->dim = dim;
        e->fingerprint = fp;
        e->eigenvalues = malloc(dim * sizeof(double));
        e->residuals = malloc(dim * sizeof(double));
        size_t ncoords = (size_t)c->n * dim;
        e->coords = malloc((ncoords ? ncoords : 1) * sizeof(float));
        if (!e->eigenvalues || !e->residuals || !e->coords)
            goto done;
        memcpy(e->eigenvalues, p, dim * 8);
        memcpy(e->residuals, p + dim * 8, dim * 8);
        memcpy(e->coords, p + dim * 16, (size_t)c->n * dim * 4);
        for (uint32_t k = 0; k < dim; k++)
            if (!isfinite(e->eigenvalues[k]) || !isfinite(e->residuals[k]))
                goto done;
        for (size_t k = 0; k < (size_t)c->n * dim; k++)
            if (!isfinite(e->coords[k]))
                goto done;
        e->report.converged = get32(buf + 32) != 0;
        e->report.matvecs = get32(buf + 36);
        e->report.restarts = get32(buf + 40);
        e->report.components = get32(buf + 44);
        e->report.isolated = get32(buf + 48);
        memcpy(&e->report.max_residual, buf + 64, 8);
    }
    p += 16ull * dim + 4ull * c->n * dim;
    if (ncomm && !c->has_comm) {
        of = malloc(((size_t)c->n ? c->n : 1) * 4);
        size = malloc((size_t)ncomm * 4);
        if (!of || !size)
            goto done;
        memcpy(of, p, (size_t)c->n * 4);
        memcpy(size, p + (size_t)c->n * 4, (size_t)ncomm * 4);
        uint64_t sum = 0;
        for (uint32_t k = 0; k < ncomm; k++)
            sum += size[k];
        if (sum != c->n)
            goto done;
        for (uint32_t k = 0; k < c->n; k++)
            if (of[k] >= ncomm)
                goto done;
    }
    ok = (dim && e) || (ncomm && of);
    if (e) {
        c->emb = e;
        e = NULL;
    }
    if (of) {
        c->comm.n = c->n;
        c->comm.count = ncomm;
        c->comm.of = of;
        c->comm.size = size;
        c->comm.rounds = get32(buf + 52);
        c->comm.converged = get32(buf + 56) != 0;
        c->has_comm = true;
        of = size = NULL;
    }
done:
    qr_graph_embedding_free(e);
    free(of);
    free(size);
    free(buf);
    return ok;
}

/* ---- the entries ---- */

int pl_cache_embedding(pl_run *r, const qr_graph_embedding **out)
{
    int rc = sync(r);
    if (rc)
        return rc;
    qr_pipeline_cache *c = r->cache;
    if (c->emb) {
        note_add(r, "%sembedding: in memory", *r->note ? "; " : "");
        *out = c->emb;
        return QR_OK;
    }
    char path[4096];
    if (load(r) && c->emb) {
        file_path(r, path, sizeof path);
        note_add(r, "%sembedding: loaded from '%s'", *r->note ? "; " : "", path);
        *out = c->emb;
        return QR_OK;
    }
    qr_graph_spectral_params p;
    qr_graph_spectral_params_init(&p);
    p.dim = QR_PIPELINE_SPECTRAL_DIM;
    double t0 = secs();
    rc = qr_graph_spectral(&r->s->graph, &p, &c->emb, r->err);
    if (rc)
        return rc;
    note_add(r, "%sembedding: computed in %.2f s", *r->note ? "; " : "", secs() - t0);
    save(r);
    *out = c->emb;
    return QR_OK;
}

int pl_cache_communities(pl_run *r, const qr_graph_communities **out)
{
    int rc = sync(r);
    if (rc)
        return rc;
    qr_pipeline_cache *c = r->cache;
    if (c->has_comm) {
        note_add(r, "%scommunities: in memory", *r->note ? "; " : "");
        *out = &c->comm;
        return QR_OK;
    }
    char path[4096];
    if (load(r) && c->has_comm) {
        file_path(r, path, sizeof path);
        note_add(r, "%scommunities: loaded from '%s'", *r->note ? "; " : "", path);
        *out = &c->comm;
        return QR_OK;
    }
    double t0 = secs();
    rc = qr_graph_community(&r->s->graph, NULL, &c->comm, r->err);
    if (rc)
        return rc;
    c->has_comm = true;
    note_add(r, "%scommunities: %u computed in %.2f s", *r->note ? "; " : "", c->comm.count,
             secs() - t0);
    save(r);
    *out = &c->comm;
    return QR_OK;
}

int pl_cache_centroid_dist(pl_run *r, const double **out)
{
    const qr_graph_embedding *e;
    const qr_graph_communities *cm;
    int rc = pl_cache_embedding(r, &e);
    if (!rc)
        rc = pl_cache_communities(r, &cm);
    if (rc)
        return rc;
    qr_pipeline_cache *c = r->cache;
    if (!c->dist) {
        double *d = malloc(((size_t)c->n ? c->n : 1) * sizeof *d);
        if (!d)
            return QR_ENOMEM;
        if ((rc = qr_graph_centroid_distance(e, cm, d, r->err))) {
            free(d);
            return rc;
        }
        c->dist = d;
    }
    *out = c->dist;
    return QR_OK;
}
