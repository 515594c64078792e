/*
 * graph_eigen.c: the dense symmetric eigenproblem of small order (the Rayleigh-Ritz
 * matrices of the Lanczos solver, at most a few hundred rows, and the seeds' covariance
 * in the manifold stage).
 *
 * Design: Householder reflections reduce the matrix to tridiagonal form T = Q^T A Q
 * (accumulating Q), then implicit symmetric QR steps with the Wilkinson shift chase a
 * bulge down the unreduced block with Givens rotations, deflating from the bottom when an
 * off-diagonal entry falls below machine precision relative to its neighbours; each
 * rotation is applied to Q's columns. Written from the textbook formulation (Golub & Van
 * Loan, ch. 8). Rejected: Jacobi rotations (simpler but several times slower at order 100,
 * which matters on every Lanczos restart) and LAPACK (the project avoids the dependency
 * and dense LAPACK is not what the large problem needs anyway).
 */
#include "graph_int.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Reduces a (symmetric, full storage) to tridiagonal d/e, leaving Q in q. */
static void tridiagonalize(size_t m, double *a, double *q, double *d, double *e, double *v,
                           double *p)
{
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < m; j++)
            q[i * m + j] = i == j ? 1.0 : 0.0;
    for (size_t k = 0; k + 2 < m; k++) {
        /* x = a[k+1.., k]; reflect it onto alpha * e1 */
        double tail = 0;
        for (size_t i = k + 2; i < m; i++)
            tail += a[i * m + k] * a[i * m + k];
        if (tail == 0)
            continue; /* this column is already tridiagonal */
        double x0 = a[(k + 1) * m + k];
        double norm = sqrt(tail + x0 * x0);
        double alpha = x0 > 0 ? -norm : norm;
        memset(v, 0, m * sizeof *v);
        for (size_t i = k + 1; i < m; i++)
            v[i] = a[i * m + k];
        v[k + 1] -= alpha;
        double vn = 0;
        for (size_t i = k + 1; i < m; i++)
            vn += v[i] * v[i];
        if (vn == 0)
            continue;
        vn = 1.0 / sqrt(vn);
        for (size_t i = k + 1; i < m; i++)
            v[i] *= vn;
        /* A <- H A H with H = I - 2 v v^T: p = A v, K = v.p, q = p - K v,
         * A -= 2 (v q^T + q v^T); rows/columns < k are untouched except column/row k */
        double kk = 0;
        for (size_t i = k; i < m; i++) {
            double s = 0;
            for (size_t j = k + 1; j < m; j++)
                s += a[i * m + j] * v[j];
            p[i] = s;
            kk += v[i] * s;
        }
        for (size_t i = k; i < m; i++)
            p[i] -= kk * v[i];
        for (size_t i = k; i < m; i++)
            for (size_t j = k; j < m; j++)
                a[i * m + j] -= 2.0 * (v[i] * p[j] + p[i] * v[j]);
        /* Q <- Q H */
        for (size_t i = 0; i < m; i++) {
            double s = 0;
            for (size_t j = k + 1; j < m; j++)
                s += q[i * m + j] * v[j];
            s *= 2.0;
            for (size_t j = k + 1; j < m; j++)
                q[i * m + j] -= s * v[j];
        }
    }
    for (size_t i = 0; i < m; i++) {
        d[i] = a[i * m + i];
        if (i + 1 < m)
            e[i] = a[(i + 1) * m + i];
    }
}

/* One implicit QR step with Wilkinson shift on the unreduced block lo..hi. */
static void qr_step(size_t m, double *d, double *e, double *q, size_t lo, size_t hi)
{
    double b = e[hi - 1];
    double dd = (d[hi - 1] - d[hi]) / 2.0;
    double mu = d[hi] - b * b / (dd + (dd >= 0 ? 1.0 : -1.0) * hypot(dd, b));
    double x = d[lo] - mu, z = e[lo];
    for (size_t k = lo; k < hi; k++) {
        double r = hypot(x, z);
        double c = 1.0, s = 0.0;
        if (r != 0) {
            c = x / r;
            s = -z / r;
        }
        if (k > lo)
            e[k - 1] = r;
        double p = d[k], qq = d[k + 1], ek = e[k];
        d[k] = c * c * p - 2 * c * s * ek + s * s * qq;
        d[k + 1] = s * s * p + 2 * c * s * ek + c * c * qq;
        e[k] = c * s * p + (c * c - s * s) * ek - c * s * qq;
        if (k + 1 < hi) {
            double f = e[k + 1];
            z = -s * f;
            e[k + 1] = c * f;
            x = e[k];
        }
        for (size_t i = 0; i < m; i++) {
            double a0 = q[i * m + k], a1 = q[i * m + k + 1];
            q[i * m + k] = c * a0 - s * a1;
            q[i * m + k + 1] = s * a0 + c * a1;
        }
    }
}

int qr__mg_symeig(size_t m, double *a, double *evals)
{
    if (m == 0)
        return QR_OK;
    /* full symmetric storage from the upper triangle */
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < i; j++)
            a[i * m + j] = a[j * m + i];
    double *q = qr__mg_alloc(m * m + 4 * m, sizeof *q);
    if (!q)
        return QR_ENOMEM;
    double *d = q + m * m, *e = d + m, *v = e + m, *p = v + m;
    tridiagonalize(m, a, q, d, e, v, p);
    int rc = QR_OK;
    size_t steps = 0, cap = 60 * m + 60;
    size_t hi = m - 1;
    while (hi > 0) {
        if (fabs(e[hi - 1]) <= DBL_EPSILON * (fabs(d[hi - 1]) + fabs(d[hi]))) {
            e[hi - 1] = 0;
            hi--;
            continue;
        }
        size_t lo = hi - 1;
        while (lo > 0 && fabs(e[lo - 1]) > DBL_EPSILON * (fabs(d[lo - 1]) + fabs(d[lo])))
            lo--;
        if (lo > 0)
            e[lo - 1] = 0;
        if (++steps > cap) {
            rc = QR_ERUNTIME;
            break;
        }
        qr_step(m, d, e, q, lo, hi);
    }
    if (rc == QR_OK) {
        /* selection sort ascending (m is small), moving eigenvector columns along */
        for (size_t i = 0; i < m; i++) {
            size_t best = i;
            for (size_t j = i + 1; j < m; j++)
                if (d[j] < d[best])
                    best = j;
            if (best != i) {
                double t = d[i];
                d[i] = d[best];
                d[best] = t;
                for (size_t r = 0; r < m; r++) {
                    t = q[r * m + i];
                    q[r * m + i] = q[r * m + best];
                    q[r * m + best] = t;
                }
            }
        }
        memcpy(evals, d, m * sizeof *d);
        memcpy(a, q, m * m * sizeof *q);
    }
    free(q);
    return rc;
}
