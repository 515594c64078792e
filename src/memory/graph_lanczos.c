/*
 * graph_lanczos.c: the spectral embedding: the smallest nontrivial eigenpairs of the
 * normalized Laplacian L = I - M, M = D^-1/2 A D^-1/2, found as the largest of M.
 *
 * Design: thick-restart Lanczos with full reorthogonalisation. The basis is extended one
 * product with M at a time; each new vector is orthogonalised twice (classical
 * Gram-Schmidt, a second pass when the first cancelled most of the vector) against a deflation set and the basis, and the
 * coefficients fill the Rayleigh-Ritz matrix T = V^T M V directly (upper triangle), so the
 * arrowhead that a restart leaves needs no special case. When the basis is full, the
 * Ritz pairs come from T (graph_eigen.c); the residual of a pair is |beta * y_last|,
 * exact for the Krylov relation M V = V T + beta v e^T that every step preserves. Unless
 * all wanted pairs have converged, the best half of the basis is kept as Ritz vectors and
 * the last residual vector continues it (Wu & Simon's thick restart).
 *
 * The deflation set holds the trivial vectors, D^1/2 1 on each component with an edge
 * (normalized; they are disjoint, so projecting costs O(n)), and in later passes the
 * vectors already found. A single Krylov sequence sees one vector per eigenvalue, so a
 * repeated eigenvalue (a cycle's pairs, symmetric graphs) would be missed: after the main
 * pass, a check pass starts from a fresh vector orthogonal to everything found and looks
 * for one pair above the smallest one kept; while it finds one, it is swapped in. A
 * breakdown (the basis spans an invariant subspace) continues from a fresh random vector,
 * and when none is left the whole space has been seen and the pairs are exact: small
 * graphs are solved exactly this way, with a basis as large as the space.
 *
 * Rejected: dense LAPACK (20 s at 4,000 nodes, O(n^2) memory); power/subspace iteration
 * (converges with the ratio of eigenvalues, which crowd near 1 in a graph with
 * communities); shift-and-invert (a sparse factorisation of L is far costlier than the
 * few hundred products with M that Lanczos needs); selective reorthogonalisation (saves
 * little at basis sizes of 40-100 and is harder to get right).
 */
#include "graph_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define RBLOCK 256 /* rows per block when a restart rotates the basis */

typedef struct lz {
    const qr_graph *g;
    size_t n;
    double *dinv;     /* n: 1/sqrt(degree), 0 for isolated nodes */
    double *dsq;      /* n: sqrt(degree) */
    uint32_t *comp;   /* n: component id, NONE for isolated nodes */
    double *zs;       /* ncomp: 1/sqrt(volume) */
    double *zacc;     /* ncomp: scratch */
    uint32_t ncomp, nisolated;
    double *lock;     /* nlock vectors of n: pairs already found, deflated */
    size_t nlock, lockcap;
    double *tmp;      /* n scratch */
    uint64_t rng;
    uint32_t matvecs, maxmv, restarts;
} lz;

static void matvec(lz *L, const double *x, double *y)
{
    const qr_graph *g = L->g;
    double *t = L->tmp;
    for (size_t i = 0; i < L->n; i++)
        t[i] = L->dinv[i] * x[i];
    for (size_t i = 0; i < L->n; i++) {
        double s = 0;
        for (uint32_t j = g->off[i]; j < g->off[i + 1]; j++)
            s += (double)g->w[j] * t[g->adj[j]];
        y[i] = L->dinv[i] * s;
    }
    L->matvecs++;
}

static double dot(const double *a, const double *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

static double norm(const double *a, size_t n)
{
    return sqrt(dot(a, a, n));
}

/* x -= its components along the trivial vectors and the locked vectors. */
static void deflate(lz *L, double *x)
{
    size_t n = L->n;
    memset(L->zacc, 0, L->ncomp * sizeof *L->zacc);
    for (size_t i = 0; i < n; i++) {
        if (L->comp[i] == NONE)
            x[i] = 0; /* isolated nodes stay zero */
        else
            L->zacc[L->comp[i]] += L->dsq[i] * x[i];
    }
    for (uint32_t c = 0; c < L->ncomp; c++)
        L->zacc[c] *= L->zs[c] * L->zs[c];
    for (size_t i = 0; i < n; i++)
        if (L->comp[i] != NONE)
            x[i] -= L->zacc[L->comp[i]] * L->dsq[i];
    for (size_t k = 0; k < L->nlock; k++) {
        const double *q = L->lock + k * n;
        double h = dot(q, x, n);
        for (size_t i = 0; i < n; i++)
            x[i] -= h * q[i];
    }
}

/* Orthogonalises w against the deflation set and V[0..cols); h[0..cols) gets the
 * coefficients along V. A second pass runs only when the first removed most of w (the
 * DGKS criterion: the norm fell below 1/sqrt(2) of what it was), which is when
 * cancellation can leave components behind. */
static void orthogonalize(lz *L, const double *V, size_t cols, double *w, double *h)
{
    size_t n = L->n;
    for (size_t c = 0; c < cols; c++)
        h[c] = 0;
    double before = norm(w, n);
    for (int pass = 0; pass < 2; pass++) {
        deflate(L, w);
        for (size_t c = 0; c < cols; c++) {
            const double *v = V + c * n;
            double x = dot(v, w, n);
            h[c] += x;
            for (size_t i = 0; i < n; i++)
                w[i] -= x * v[i];
        }
        double after = norm(w, n);
        if (after > 0.7071 * before)
            break;
        before = after;
    }
}

/* A random unit vector orthogonal to the deflation set and V[0..cols) into w; false when
 * nothing is left of it (the space is exhausted). */
static bool fresh_vector(lz *L, const double *V, size_t cols, double *w, double *h)
{
    size_t n = L->n;
    for (size_t i = 0; i < n; i++)
        w[i] = qr__mg_rng_sym(&L->rng);
    deflate(L, w);
    double before = norm(w, n);
    if (!(before > 0))
        return false;
    orthogonalize(L, V, cols, w, h);
    double after = norm(w, n);
    if (after <= 1e-8 * before)
        return false;
    for (size_t i = 0; i < n; i++)
        w[i] /= after;
    return true;
}

typedef struct pass_out {
    size_t found;   /* pairs returned, largest theta first */
    bool exhausted; /* the whole deflated space was spanned: pairs are exact */
    bool converged; /* every returned pair met tol (or the space was exhausted) */
} pass_out;

/*
 * One Lanczos pass: the k largest eigenpairs of M on the complement of the deflation
 * set, basis size m (>= k + 2 unless the space is smaller). theta[0..k) and X (k vectors
 * of n) get the pairs, largest first.
 */
static int lanczos_pass(lz *L, size_t k, size_t m, double tol, double *theta, double *X,
                        pass_out *po)
{
    size_t n = L->n;
    int rc = QR_OK;
    double *V = qr__mg_alloc((m + 1) * n, sizeof *V);
    double *T = qr__mg_zalloc(m * m, sizeof *T);
    double *S = qr__mg_alloc(m * m, sizeof *S);
    double *ev = qr__mg_alloc(m, sizeof *ev);
    double *h = qr__mg_alloc(m + 1, sizeof *h);
    double *row = qr__mg_alloc(m * RBLOCK, sizeof *row);
    po->found = 0;
    po->exhausted = false;
    po->converged = true;
    if (!V || !T || !S || !ev || !h || !row) {
        rc = QR_ENOMEM;
        goto done;
    }
    if (!fresh_vector(L, V, 0, V, h)) {
        po->exhausted = true;
        goto done;
    }
    size_t nk = 0;
    for (;;) {
        size_t mcur = m;
        double beta = 0;
        bool exhausted = false;
        for (size_t j = nk; j < m; j++) {
            double *w = V + (j + 1) * n;
            matvec(L, V + j * n, w);
            orthogonalize(L, V, j + 1, w, h);
            for (size_t i = 0; i <= j; i++)
                T[i * m + j] = h[i];
            beta = norm(w, n);
            if (beta > 1e-10) {
                for (size_t i = 0; i < n; i++)
                    w[i] /= beta;
            } else {
                beta = 0;
                if (!fresh_vector(L, V, j + 1, w, h)) {
                    exhausted = true;
                    mcur = j + 1;
                    break;
                }
            }
        }
        /* Rayleigh-Ritz on V[0..mcur) */
        for (size_t i = 0; i < mcur; i++)
            for (size_t j = i; j < mcur; j++)
                S[i * mcur + j] = T[i * m + j];
        rc = qr__mg_symeig(mcur, S, ev);
        if (rc)
            goto done;
        size_t want = k < mcur ? k : mcur;
        bool conv = true;
        for (size_t c = 0; c < want; c++) {
            size_t idx = mcur - 1 - c;
            if (fabs(beta * S[(mcur - 1) * mcur + idx]) > tol)
                conv = false;
        }
        if (conv || exhausted || L->matvecs >= L->maxmv || mcur < m) {
            /* Ritz vectors of the wanted pairs */
            for (size_t c = 0; c < want; c++) {
                size_t idx = mcur - 1 - c;
                double *x = X + c * n;
                memset(x, 0, n * sizeof *x);
                for (size_t i = 0; i < mcur; i++) {
                    double y = S[i * mcur + idx];
                    const double *v = V + i * n;
                    for (size_t r = 0; r < n; r++)
                        x[r] += y * v[r];
                }
                theta[c] = ev[idx];
            }
            po->found = want;
            po->exhausted = exhausted;
            po->converged = conv || exhausted;
            goto done;
        }
        /* thick restart: keep the best nk Ritz vectors, continue from the residual */
        nk = k + (mcur - k) / 2;
        if (nk >= mcur)
            nk = mcur - 1;
        for (size_t r0 = 0; r0 < n; r0 += RBLOCK) {
            size_t rn = n - r0 < RBLOCK ? n - r0 : RBLOCK;
            memset(row, 0, nk * RBLOCK * sizeof *row);
            for (size_t c = 0; c < nk; c++) {
                double *acc = row + c * RBLOCK;
                for (size_t i = 0; i < mcur; i++) {
                    double y = S[i * mcur + mcur - 1 - c];
                    const double *v = V + i * n + r0;
                    for (size_t r = 0; r < rn; r++)
                        acc[r] += y * v[r];
                }
            }
            for (size_t c = 0; c < nk; c++)
                memcpy(V + c * n + r0, row + c * RBLOCK, rn * sizeof *row);
        }
        memmove(V + nk * n, V + mcur * n, n * sizeof *V);
        memset(T, 0, m * m * sizeof *T);
        for (size_t c = 0; c < nk; c++)
            T[c * m + c] = ev[mcur - 1 - c];
        L->restarts++;
    }
done:
    free(V);
    free(T);
    free(S);
    free(ev);
    free(h);
    free(row);
    return rc;
}

static int add_lock(lz *L, const double *x)
{
    if (L->nlock == L->lockcap) {
        size_t cap = L->lockcap ? 2 * L->lockcap : 16;
        size_t bytes;
        if (!qr_size_mul(cap, L->n * sizeof(double), &bytes))
            return QR_ENOMEM;
        double *p = qr__mg_alloc(cap, L->n * sizeof(double));
        if (!p)
            return QR_ENOMEM;
        if (L->nlock)
            memcpy(p, L->lock, L->nlock * L->n * sizeof(double));
        free(L->lock);
        L->lock = p;
        L->lockcap = cap;
    }
    memcpy(L->lock + L->nlock * L->n, x, L->n * sizeof(double));
    L->nlock++;
    return QR_OK;
}

/* Degrees and components (BFS over nodes with edges). */
static int setup(lz *L, qr_buf *err)
{
    const qr_graph *g = L->g;
    size_t n = L->n;
    L->dinv = qr__mg_alloc(n, sizeof *L->dinv);
    L->dsq = qr__mg_alloc(n, sizeof *L->dsq);
    L->comp = qr__mg_alloc(n, sizeof *L->comp);
    L->tmp = qr__mg_alloc(n, sizeof *L->tmp);
    uint32_t *queue = qr__mg_alloc(n, sizeof *queue);
    double *vol = NULL;
    if (!L->dinv || !L->dsq || !L->comp || !L->tmp || !queue) {
        free(queue);
        return qr__mg_nomem(err, "spectral");
    }
    for (size_t i = 0; i < n; i++) {
        double d = 0;
        for (uint32_t j = g->off[i]; j < g->off[i + 1]; j++)
            d += g->w[j];
        L->dsq[i] = sqrt(d);
        L->dinv[i] = d > 0 ? 1.0 / L->dsq[i] : 0.0;
        L->comp[i] = NONE;
        if (d == 0)
            L->nisolated++;
    }
    for (size_t s = 0; s < n; s++) {
        if (L->comp[s] != NONE || L->dinv[s] == 0)
            continue;
        uint32_t c = L->ncomp++;
        size_t qh = 0, qt = 0;
        queue[qt++] = (uint32_t)s;
        L->comp[s] = c;
        while (qh < qt) {
            uint32_t u = queue[qh++];
            for (uint32_t j = g->off[u]; j < g->off[u + 1]; j++) {
                uint32_t v = g->adj[j];
                if (L->comp[v] == NONE) {
                    L->comp[v] = c;
                    queue[qt++] = v;
                }
            }
        }
    }
    free(queue);
    vol = qr__mg_zalloc(L->ncomp, sizeof *vol);
    L->zacc = qr__mg_alloc(L->ncomp, sizeof *L->zacc);
    if (!vol || !L->zacc) {
        free(vol);
        return qr__mg_nomem(err, "spectral");
    }
    for (size_t i = 0; i < n; i++)
        if (L->comp[i] != NONE)
            vol[L->comp[i]] += L->dsq[i] * L->dsq[i];
    for (uint32_t c = 0; c < L->ncomp; c++)
        vol[c] = 1.0 / sqrt(vol[c]);
    L->zs = vol;
    return QR_OK;
}

static void lz_release(lz *L)
{
    free(L->dinv);
    free(L->dsq);
    free(L->comp);
    free(L->zs);
    free(L->zacc);
    free(L->lock);
    free(L->tmp);
}

void qr_graph_spectral_params_init(qr_graph_spectral_params *p)
{
    p->dim = 8;
    p->tol = 1e-6;
    p->max_matvecs = 20000;
    p->basis = 0;
    p->seed = 0x5eed;
}

void qr_graph_embedding_free(qr_graph_embedding *e)
{
    if (!e)
        return;
    free(e->coords);
    free(e->eigenvalues);
    free(e->residuals);
    free(e);
}

/* Makes the largest-magnitude entry positive (first such index on ties). */
static void fix_sign(double *x, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (fabs(x[i]) > fabs(x[best]))
            best = i;
    if (n && x[best] < 0)
        for (size_t i = 0; i < n; i++)
            x[i] = -x[i];
}

int qr_graph_spectral(const qr_graph *g, const qr_graph_spectral_params *p,
                      qr_graph_embedding **out, qr_buf *err)
{
    qr_graph_spectral_params def;
    if (!p) {
        qr_graph_spectral_params_init(&def);
        p = &def;
    }
    int rc = qr_graph_check(g, err);
    if (rc)
        return rc;
    if (p->dim < 1 || p->dim > QR_GRAPH_MAX_DIM)
        return qr__mg_fail(err, QR_EINVAL, "'spectral' dim is %u: expected 1..%d", p->dim,
                           QR_GRAPH_MAX_DIM);
    if (!(p->tol >= 1e-12 && p->tol <= 0.1))
        return qr__mg_fail(err, QR_EINVAL, "'spectral' tol is %g: expected 1e-12..0.1", p->tol);
    if (p->max_matvecs < 1)
        return qr__mg_fail(err, QR_EINVAL, "'spectral' max_matvecs is 0: expected >= 1");
    if (p->basis && (p->basis < p->dim + 2 || p->basis > 1024))
        return qr__mg_fail(err, QR_EINVAL,
                           "'spectral' basis is %u: expected 0 (auto) or dim+2..1024 (%u..1024)",
                           p->basis, p->dim + 2);

    lz L;
    memset(&L, 0, sizeof L);
    L.g = g;
    L.n = g->n;
    L.rng = p->seed ^ 0x6a09e667f3bcc909ULL;
    L.maxmv = p->max_matvecs;
    qr_graph_embedding *e = NULL;
    double *theta = NULL, *X = NULL, *th1 = NULL, *x1 = NULL, *y = NULL;
    rc = setup(&L, err);
    if (rc)
        goto done;
    size_t n = L.n;
    size_t neff = n - L.nisolated - L.ncomp;
    size_t k = p->dim < neff ? p->dim : neff;
    size_t m = p->basis ? p->basis : (2 * (size_t)p->dim + 24 < 40 ? 40 : 2 * (size_t)p->dim + 24);
    if (m > neff)
        m = neff;
    e = qr__mg_zalloc(1, sizeof *e);
    if (!e)
        goto nomem;
    e->n = g->n;
    e->fingerprint = qr_graph_fingerprint(g);
    e->report.components = L.ncomp;
    e->report.isolated = L.nisolated;
    e->report.converged = true;
    if (k == 0) {
        *out = e;
        e = NULL;
        goto done;
    }
    theta = qr__mg_alloc(k + 1, sizeof *theta);
    X = qr__mg_alloc((k + 1) * n, sizeof *X);
    th1 = qr__mg_alloc(1, sizeof *th1);
    x1 = qr__mg_alloc(n, sizeof *x1);
    y = qr__mg_alloc(n, sizeof *y);
    e->coords = qr__mg_alloc((size_t)n * k, sizeof *e->coords);
    e->eigenvalues = qr__mg_alloc(k, sizeof *e->eigenvalues);
    e->residuals = qr__mg_alloc(k, sizeof *e->residuals);
    if (!theta || !X || !th1 || !x1 || !y || !e->coords || !e->eigenvalues || !e->residuals)
        goto nomem;

    pass_out po;
    rc = lanczos_pass(&L, k, m, p->tol, theta, X, &po);
    if (rc)
        goto fail;
    size_t found = po.found;
    /* check passes: a pair above the smallest found that the Krylov sequence missed */
    for (size_t round = 0; !po.exhausted && found == k && round < 2 * k + 2; round++) {
        if (L.matvecs >= L.maxmv)
            break;
        L.nlock = 0;
        for (size_t c = 0; c < found; c++)
            if ((rc = add_lock(&L, X + c * n)))
                goto fail;
        pass_out pc;
        size_t mc = m;
        if (mc > neff - found)
            mc = neff - found;
        if (mc < 1)
            break;
        rc = lanczos_pass(&L, 1, mc, p->tol, th1, x1, &pc);
        if (rc)
            goto fail;
        if (!pc.converged)
            po.converged = false;
        if (pc.found == 0 || !(th1[0] > theta[found - 1] + p->tol))
            break;
        /* insert, keeping theta descending, dropping the smallest */
        size_t at = found - 1;
        while (at > 0 && theta[at - 1] < th1[0])
            at--;
        memmove(theta + at + 1, theta + at, (found - 1 - at) * sizeof *theta);
        memmove(X + (at + 1) * n, X + at * n, (found - 1 - at) * n * sizeof *X);
        theta[at] = th1[0];
        memcpy(X + at * n, x1, n * sizeof *X);
    }
    e->dim = (uint32_t)found;
    e->report.matvecs = L.matvecs;
    e->report.restarts = L.restarts;
    L.nlock = 0;
    /* store as floats; eigenvalue from the Rayleigh quotient and the residual of the
     * stored (rounded, renormalized) vector */
    for (size_t c = 0; c < found; c++) {
        double *x = X + c * n;
        fix_sign(x, n);
        double nx = norm(x, n);
        for (size_t i = 0; i < n; i++) {
            float f = (float)(x[i] / nx);
            e->coords[i * found + c] = f;
            x[i] = f;
        }
        nx = norm(x, n);
        for (size_t i = 0; i < n; i++)
            x[i] /= nx;
        matvec(&L, x, y);
        double rq = dot(x, y, n);
        for (size_t i = 0; i < n; i++)
            y[i] -= rq * x[i];
        e->eigenvalues[c] = 1.0 - rq;
        e->residuals[c] = norm(y, n);
        if (e->residuals[c] > e->report.max_residual)
            e->report.max_residual = e->residuals[c];
    }
    e->report.converged = po.converged;
    *out = e;
    e = NULL;
    goto done;
nomem:
    rc = qr__mg_nomem(err, "spectral");
    goto done;
fail:
    if (rc == QR_ENOMEM)
        rc = qr__mg_nomem(err, "spectral");
    else
        qr__mg_fail(err, rc, "'spectral' projected eigenproblem did not converge");
done:
    qr_graph_embedding_free(e);
    free(theta);
    free(X);
    free(th1);
    free(x1);
    free(y);
    lz_release(&L);
    return rc;
}
