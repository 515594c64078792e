/*
 * store_pg.c: what the memory store does differently on PostgreSQL (issue 26): opening the
 * team database's mem_* tables (migration 1, src/store/pg_schema.c), transactions, putting
 * a link, and the statistics. Every other operation (notes, tags, re-weights, counters,
 * unlink, soft delete and restore, visits, search, import, export, the snapshot) is the
 * one code of store.c, store_io.c and store_snapshot.c, whose statements go through the
 * seam of store_sql.c with PostgreSQL's text beside SQLite's.
 *
 * Design. Many processes on many machines write one store: every write is one transaction
 * that ends by bumping mem_state.generation with UPDATE ... SET generation = generation +
 * 1 (a row lock, so concurrent writers queue and no count is lost) and a new write_id:
 * the snapshot compares the generation before a read and reloads when another process
 * wrote. Weights, counters and link strengths change by one UPDATE or INSERT ... ON
 * CONFLICT DO UPDATE each, never by a read then a write in the client; a key added by two
 * agents at once is refused for the second by the unique index, with the message the
 * SQLite store gives. Reads (a note, links, search, export, the snapshot's four scans) run
 * in one REPEATABLE READ READ ONLY transaction: a consistent view while others write. A
 * caller's transaction (qr_mem_begin) is a BEGIN whose writes are each a savepoint, as on
 * SQLite. Messages name the store by its server (m->path holds qr_store_server_name's
 * text), never by its URL.
 *
 * Rejected: a second implementation of each operation for PostgreSQL (the first version
 * of this file duplicated import, export and lookups: now one code, two SQL texts);
 * SERIALIZABLE for writes (the unique key, the row-locked counter and in-SQL updates
 * already give each write its effect, without retries).
 */
#include "memory_int.h"

#include "quarry/store.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int qr__mem_pg_open(qr_mem *m, const char *url, bool create, qr_buf *err)
{
    qr_store *st = calloc(1, sizeof *st);
    if (!st) {
        qr_buf_puts(err, "out of memory opening the memory store");
        return QR_ENOMEM;
    }
    qr_store_spec spec = {.what = "memory store",
                          .location = url,
                          .flags = QR_STORE_POSTGRES_OK | (create ? QR_STORE_CREATE : 0)};
    int rc = qr_store_open(st, &spec, err);
    m->pg = st;
    free(m->path);
    m->path = st->server ? strdup(st->server) : strdup("postgresql server");
    if (!m->path)
        rc = rc ? rc : QR_ENOMEM;
    if (rc != QR_OK)
        return rc == QR_EINVAL ? QR_EINVAL : rc;
    size_t latest;
    qr_store_pg_migrations(&latest);
    if (st->kind == QR_STORE_EMPTY) {
        qr_buf_printf(err,
                      "the memory store at %s has no schema yet: run 'quarry db init', or "
                      "add a note or import one to create it",
                      m->path);
        return QR_ERUNTIME;
    }
    if (st->kind == QR_STORE_OTHER) {
        qr_buf_printf(err,
                      "the database at %s has schema version %lld, older than this quarry's "
                      "(%zu): run 'quarry db migrate'",
                      m->path, (long long)st->version, latest);
        return QR_EIO;
    }
    return QR_OK;
}

void qr__mem_pg_close(qr_mem *m)
{
    if (!m->pg)
        return;
    qr_store_close(m->pg);
    free(m->pg);
    m->pg = NULL;
}

static int exec(qr_mem *m, const char *sql, int n, const char *const *params,
                qr_store_rows *rows, const char *doing, char state[6], qr_buf *err)
{
    return qr_store_pg_exec(m->pg, sql, n, params, rows, doing, state, err);
}

int qr__mem_pg_begin_write(qr_mem *m, qr_buf *err)
{
    return exec(m, m->user_tx ? "SAVEPOINT qr_op" : "BEGIN", 0, NULL, NULL,
                "write the memory store", NULL, err);
}

int qr__mem_pg_begin_user(qr_mem *m, qr_buf *err)
{
    return exec(m, "BEGIN", 0, NULL, NULL, "write the memory store", NULL, err);
}

int qr__mem_pg_begin_read(qr_mem *m, qr_buf *err)
{
    if (m->user_tx) /* reads inside it see its writes */
        return QR_OK;
    return exec(m, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", 0, NULL, NULL,
                "read the memory store", NULL, err);
}

int qr__mem_pg_commit_read(qr_mem *m, qr_buf *err)
{
    int rc = exec(m, "COMMIT", 0, NULL, NULL, "read the memory store", NULL, err);
    if (rc != QR_OK)
        qr__mem_pg_rollback(m);
    return rc;
}

int qr__mem_pg_commit_write(qr_mem *m, qr_buf *err)
{
    if (m->user_tx) {
        int rc = exec(m, "RELEASE qr_op", 0, NULL, NULL, "write the memory store", NULL, err);
        if (rc != QR_OK)
            qr__mem_pg_rollback(m);
        return rc;
    }
    int rc = exec(m,
                  "UPDATE mem_state SET generation = generation + 1,"
                  " write_id = floor(random() * 9.2e18)::bigint",
                  0, NULL, NULL, "write the memory store", NULL, err);
    if (rc == QR_OK)
        rc = exec(m, "COMMIT", 0, NULL, NULL, "commit to the memory store", NULL, err);
    if (rc != QR_OK)
        qr__mem_pg_rollback(m);
    return rc;
}

void qr__mem_pg_rollback(qr_mem *m)
{
    qr_buf ignored;
    qr_buf_init(&ignored);
    exec(m, m->user_tx ? "ROLLBACK TO qr_op; RELEASE qr_op" : "ROLLBACK", 0, NULL, NULL,
         "roll back", NULL, &ignored);
    qr_buf_release(&ignored);
}

static int64_t num(const qr_store_rows *r, int row, int col)
{
    const char *v = qr_store_rows_get(r, row, col);
    return v ? strtoll(v, NULL, 10) : 0;
}

int qr__mem_pg_edge_put(qr_mem *m, int64_t src, int64_t dst, double strength, const char *type,
                        bool *created, qr_buf *err)
{
    char s[24], d[24], w[40];
    snprintf(s, sizeof s, "%" PRId64, src);
    snprintf(d, sizeof d, "%" PRId64, dst);
    snprintf(w, sizeof w, "%.17g", strength);
    const char *p[] = {s, d, type, w};
    qr_store_rows r;
    /* one statement: a new link, or the new strength of one that exists (xmax is 0 on a
     * row this statement inserted) */
    int rc = exec(m,
                  "INSERT INTO mem_edges(source, target, type, strength)"
                  " VALUES ($1::bigint, $2::bigint, $3, $4::double precision)"
                  " ON CONFLICT (source, target, type) DO UPDATE SET strength = excluded.strength"
                  " RETURNING xmax = 0",
                  4, p, &r, "write the memory store", NULL, err);
    if (rc)
        return rc;
    const char *v = qr_store_rows_get(&r, 0, 0);
    if (created)
        *created = v && !strcmp(v, "t");
    qr_store_rows_free(&r);
    return QR_OK;
}

int qr__mem_pg_stats(qr_mem *m, qr_mem_stats *out, qr_buf *err)
{
    qr_store_rows r;
    int rc = exec(m,
                  "SELECT (SELECT count(*) FROM mem_nodes WHERE deleted IS NULL),"
                  " (SELECT count(*) FROM mem_nodes WHERE deleted IS NOT NULL),"
                  " (SELECT count(*) FROM mem_edges e JOIN mem_nodes s ON s.id = e.source"
                  "  JOIN mem_nodes t ON t.id = e.target"
                  "  WHERE s.deleted IS NULL AND t.deleted IS NULL),"
                  " (SELECT count(*) FROM mem_edges),"
                  " (SELECT count(*) FROM mem_visits),"
                  " (SELECT count(*) FROM mem_tags g JOIN mem_nodes n ON n.id = g.node"
                  "  WHERE n.deleted IS NULL),"
                  " (SELECT generation FROM mem_state),"
                  " pg_total_relation_size('mem_nodes') + pg_total_relation_size('mem_edges')"
                  " + pg_total_relation_size('mem_tags') + pg_total_relation_size('mem_visits')",
                  0, NULL, &r, "read the memory store", NULL, err);
    if (rc)
        return rc;
    out->nodes = num(&r, 0, 0);
    out->deleted = num(&r, 0, 1);
    out->edges = num(&r, 0, 2);
    out->hidden_edges = num(&r, 0, 3) - out->edges;
    out->visits = num(&r, 0, 4);
    out->tags = num(&r, 0, 5);
    out->generation = (uint64_t)num(&r, 0, 6);
    out->file_bytes = num(&r, 0, 7);
    qr_store_rows_free(&r);
    return QR_OK;
}

/* ---- scheduled agents' run state and leases (quarry/memory.h, qr_mem_sched_*) ---- */

static int sched_server(qr_mem *m, qr_buf *err)
{
    if (m->pg)
        return QR_OK;
    if (err)
        qr_buf_puts(err, "the agents' run state is in the database only on a PostgreSQL store");
    return QR_EINVAL;
}

/* last_ok, last_attempt, runs, lease_left, error, holder, with $NOW the caller's time */
#define SCHED_COLS(NOW)                                                                        \
    "last_ok, last_attempt, runs,"                                                             \
    " CASE WHEN lease_until > " NOW " THEN lease_until - " NOW " ELSE 0 END,"                  \
    " coalesce(error, ''), CASE WHEN lease_until > " NOW " THEN coalesce(holder, '') ELSE ''"  \
    " END"

static void sched_fill(const qr_store_rows *r, qr_mem_sched *out)
{
    out->last_ok = num(r, 0, 0);
    out->last_attempt = num(r, 0, 1);
    out->runs = num(r, 0, 2);
    out->lease_left = num(r, 0, 3);
    const char *e = qr_store_rows_get(r, 0, 4), *h = qr_store_rows_get(r, 0, 5);
    snprintf(out->error, sizeof out->error, "%s", e ? e : "");
    snprintf(out->holder, sizeof out->holder, "%s", h ? h : "");
}

int qr_mem_sched_get(qr_mem *m, const char *agent, int64_t now, qr_mem_sched *out, qr_buf *err)
{
    memset(out, 0, sizeof *out);
    int rc = sched_server(m, err);
    if (rc)
        return rc;
    char n[24];
    snprintf(n, sizeof n, "%" PRId64, now);
    const char *p[] = {agent, n};
    qr_store_rows r;
    rc = exec(m, "SELECT " SCHED_COLS("$2::bigint") " FROM due_agents WHERE agent = $1", 2, p, &r,
              "read the agents' run state", NULL, err);
    if (rc)
        return rc;
    if (r.n == 1)
        sched_fill(&r, out);
    qr_store_rows_free(&r);
    return QR_OK;
}

int qr_mem_sched_claim(qr_mem *m, const char *agent, const char *holder, int64_t now,
                       int64_t lease_s, qr_mem_sched *out, bool *claimed, qr_buf *err)
{
    *claimed = false;
    memset(out, 0, sizeof *out);
    int rc = sched_server(m, err);
    if (rc)
        return rc;
    char n[24], u[24];
    snprintf(n, sizeof n, "%" PRId64, now);
    snprintf(u, sizeof u, "%" PRId64, now + lease_s);
    const char *p[] = {agent, holder, n, u};
    /* the row first (due 0: an agent never run is due; its own rule decides, from the run
     * state): then one statement locks it, skipping a row another claimer is locking,
     * and leases it before any other claimer can see it free */
    rc = exec(m, "INSERT INTO due_agents(agent, due) VALUES ($1, 0) ON CONFLICT DO NOTHING", 1, p,
              NULL, "claim an agent", NULL, err);
    qr_store_rows r;
    if (rc == QR_OK)
        rc = exec(m,
                  "UPDATE due_agents SET holder = $2, lease_until = $4::bigint"
                  " WHERE agent = (SELECT agent FROM due_agents WHERE agent = $1"
                  "  AND (lease_until IS NULL OR lease_until <= $3::bigint)"
                  "  FOR UPDATE SKIP LOCKED)"
                  " RETURNING " SCHED_COLS("$3::bigint"),
                  4, p, &r, "claim an agent", NULL, err);
    if (rc)
        return rc;
    if (r.n == 1) {
        sched_fill(&r, out);
        *claimed = true;
        qr_store_rows_free(&r);
        return QR_OK;
    }
    qr_store_rows_free(&r);
    return qr_mem_sched_get(m, agent, now, out, err); /* who holds it, for the message */
}

int qr_mem_sched_record(qr_mem *m, const char *agent, const char *holder, int64_t when, bool ok,
                        const char *error, int64_t next_due, bool *held, qr_buf *err)
{
    *held = false;
    int rc = sched_server(m, err);
    if (rc)
        return rc;
    char w[24], d[24];
    snprintf(w, sizeof w, "%" PRId64, when);
    snprintf(d, sizeof d, "%" PRId64, next_due);
    const char *why = ok ? NULL : error && *error ? error : "failed";
    const char *p[] = {agent, holder, w, ok ? "t" : "f", why, d};
    qr_store_rows r;
    rc = exec(m,
              "UPDATE due_agents SET last_attempt = $3::bigint,"
              " last_ok = CASE WHEN $4::boolean THEN $3::bigint ELSE last_ok END,"
              " error = $5, due = $6::bigint, runs = runs + 1, holder = NULL, lease_until = NULL"
              " WHERE agent = $1 AND holder = $2",
              6, p, &r, "record an agent's run", NULL, err);
    if (rc)
        return rc;
    *held = r.changed == 1;
    qr_store_rows_free(&r);
    return QR_OK;
}

int qr_mem_sched_release(qr_mem *m, const char *agent, const char *holder, qr_buf *err)
{
    int rc = sched_server(m, err);
    if (rc)
        return rc;
    const char *p[] = {agent, holder};
    return exec(m,
                "UPDATE due_agents SET holder = NULL, lease_until = NULL"
                " WHERE agent = $1 AND holder = $2",
                2, p, NULL, "release an agent", NULL, err);
}
