/*
 * store_sql.c: the memory store's statement seam (memory_int.h, qr__mem_q): one cursor
 * over a statement of either backend, so that the code around a statement (binding, the
 * row loop, errors, what a row becomes) is written once in store.c, store_io.c and
 * store_snapshot.c, and only the SQL text differs between SQLite and PostgreSQL.
 *
 * Design. SQLite: a prepared statement (a handle's cached one, or one prepared here and
 * finalized at close), stepped row by row, failures through qr__mem_fail. PostgreSQL:
 * parameters are kept as text (integers and doubles printed here, %.17g so a double
 * round-trips), the statement runs at the first step through the store layer's
 * qr_store_pg_exec (libpq stays there) and its rows are read from the result; a failure
 * names the server (never the URL) and keeps the SQLSTATE in q->state.
 *
 * Rejected: translating SQLite's SQL into PostgreSQL's at run time (table names, ?N, max()
 * and INSERT OR IGNORE differ; two literal texts are easier to read and to check); a
 * virtual-table of functions per backend (one cursor with a branch per call costs nothing
 * next to a step, and the SQLite path stays a plain sqlite3_step loop).
 */
#include "memory_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int qr__mem_q_open(qr__mem_q *q, qr_mem *m, int lite_id, const char *lite_sql,
                   const char *pg_sql, qr_buf *err)
{
    memset(q, 0, sizeof *q);
    q->m = m;
    q->row = -1;
    if (m->pg) {
        q->pg_sql = pg_sql;
        return QR_OK;
    }
    if (!lite_sql) {
        q->st = qr__mem_stmt(m, lite_id, err);
        q->cached = true;
        return q->st ? QR_OK : QR_EIO;
    }
    int rc = sqlite3_prepare_v2(m->db, lite_sql, -1, &q->st, NULL);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(q->st);
        q->st = NULL;
        return qr__mem_fail(m, rc, "prepare a statement on", err);
    }
    return QR_OK;
}

static void pg_param(qr__mem_q *q, int i, const char *v)
{
    if (i < 1 || i > QR__MEM_Q_PARAMS)
        return;
    q->pv[i - 1] = v;
    if (i > q->np)
        q->np = i;
}

void qr__mem_q_int(qr__mem_q *q, int i, int64_t v)
{
    if (q->st) {
        sqlite3_bind_int64(q->st, i, v);
    } else if (i >= 1 && i <= QR__MEM_Q_PARAMS) {
        snprintf(q->num[i - 1], sizeof q->num[0], "%" PRId64, v);
        pg_param(q, i, q->num[i - 1]);
    }
}

void qr__mem_q_double(qr__mem_q *q, int i, double v)
{
    if (q->st) {
        sqlite3_bind_double(q->st, i, v);
    } else if (i >= 1 && i <= QR__MEM_Q_PARAMS) {
        snprintf(q->num[i - 1], sizeof q->num[0], "%.17g", v);
        pg_param(q, i, q->num[i - 1]);
    }
}

void qr__mem_q_text(qr__mem_q *q, int i, const char *s)
{
    if (q->st) {
        if (s)
            sqlite3_bind_text(q->st, i, s, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(q->st, i);
    } else {
        pg_param(q, i, s);
    }
}

int qr__mem_q_step(qr__mem_q *q, bool *row, const char *what, qr_buf *err)
{
    *row = false;
    if (q->st) {
        int rc = sqlite3_step(q->st);
        q->lite_rc = rc;
        if (rc == SQLITE_ROW) {
            *row = true;
            return QR_OK;
        }
        if (rc == SQLITE_DONE)
            return QR_OK;
        return qr__mem_fail(q->m, rc, what, err);
    }
    if (!q->m->pg) /* a failed open */
        return QR_EIO;
    if (!q->ran) {
        q->ran = true;
        int rc = qr_store_pg_exec(q->m->pg, q->pg_sql, q->np, q->pv, &q->rows,
                                  !strcmp(what, "write") ? "write the memory store"
                                                         : "read the memory store",
                                  q->state, err);
        if (rc)
            return rc;
    }
    if (q->row + 1 < q->rows.n) {
        q->row++;
        *row = true;
    } else {
        q->row = q->rows.n;
    }
    return QR_OK;
}

int qr__mem_q_run(qr__mem_q *q, const char *what, qr_buf *err)
{
    bool row = true;
    int rc = QR_OK;
    while (rc == QR_OK && row)
        rc = qr__mem_q_step(q, &row, what, err);
    return rc;
}

int64_t qr__mem_q_pg_int(const qr__mem_q *q, int c)
{
    const char *v = qr_store_rows_get(&q->rows, q->row, c);
    if (!v)
        return 0;
    if (v[0] == 't' && !v[1]) /* a boolean */
        return 1;
    return strtoll(v, NULL, 10);
}

double qr__mem_q_pg_double(const qr__mem_q *q, int c)
{
    const char *v = qr_store_rows_get(&q->rows, q->row, c);
    return v ? strtod(v, NULL) : 0;
}

const char *qr__mem_q_pg_text(const qr__mem_q *q, int c, size_t *len)
{
    const char *v = qr_store_rows_get(&q->rows, q->row, c);
    *len = v ? strlen(v) : 0;
    return v ? v : "";
}

bool qr__mem_q_pg_null(const qr__mem_q *q, int c)
{
    return qr_store_rows_get(&q->rows, q->row, c) == NULL;
}

int64_t qr__mem_q_changes(const qr__mem_q *q)
{
    if (q->st)
        return sqlite3_changes(q->m->db);
    return q->rows.changed;
}

void qr__mem_q_close(qr__mem_q *q)
{
    if (q->st) {
        if (q->cached) {
            sqlite3_reset(q->st);
            sqlite3_clear_bindings(q->st);
        } else {
            sqlite3_finalize(q->st);
        }
        q->st = NULL;
    }
    if (q->rows.res)
        qr_store_rows_free(&q->rows);
}
