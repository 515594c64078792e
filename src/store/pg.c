/*
 * pg.c: the PostgreSQL backend of the store seam (quarry/store.h): connecting on libpq,
 * naming the server safely, reading the schema version and applying the numbered
 * migrations (pg_schema.c) of the team database.
 *
 * Design. Messages are safe by construction: the server is always named by
 * qr_store_server_name (host or socket directory, port, database: never the user, the
 * password or the URL), a URL libpq cannot parse is reported without libpq's text (which
 * quotes the URL), and libpq's other text is masked for the password (decoded and as
 * written), the user:password part and the URL before it is appended. The migrations run
 * in one transaction under a transaction-scoped advisory lock: two processes migrating at
 * once apply each migration once, and a failure leaves the schema as it was (PostgreSQL's
 * DDL is transactional). NOTICEs (CREATE ... IF NOT EXISTS) are dropped rather than
 * printed on stderr by libpq's default processor.
 *
 * Rejected: a schema version in a settings row that migrations overwrite (one row per
 * migration says which ran, and when); upgrading an older schema on open (a binary
 * upgraded on one machine must not change the schema under the others: `quarry db
 * migrate` does it, on purpose; an empty database is given one, as a new file is); printing the URL with the password cut out (the query string may hold one as
 * well, and a cut that misses one form leaks it).
 */
#include "store_int.h"

#include "quarry/date.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the advisory lock migrations take: "QRDB" */
#define MIGRATE_LOCK 0x51524442

/* ---- masking ---- */

/* Replaces in b every occurrence of s (3 bytes or more) with "[redacted]". */
static void mask_one(qr_buf *b, const char *s, size_t n)
{
    if (n < 3 || !b->p)
        return;
    qr_buf out;
    qr_buf_init(&out);
    size_t i = 0;
    bool hit = false;
    while (i < b->len) {
        if (b->len - i >= n && !memcmp(b->p + i, s, n)) {
            qr_buf_puts(&out, "[redacted]");
            i += n;
            hit = true;
        } else {
            qr_buf_putc(&out, b->p[i++]);
        }
    }
    if (hit) {
        qr_buf_reset(b);
        qr_buf_append(b, out.p ? out.p : "", out.len);
    }
    qr_buf_release(&out);
}

/* Masks in b, from offset `from`, what url holds that must never be printed. */
static void mask_url(qr_buf *b, size_t from, const char *url)
{
    qr_buf tail;
    qr_buf_init(&tail);
    qr_buf_append(&tail, b->p ? b->p + from : "", b->len - from);
    mask_one(&tail, url, strlen(url));
    /* the user:password@ part as written (percent-encoded or not) */
    const char *s = strstr(url, "://");
    if (s) {
        s += 3;
        const char *at = strchr(s, '@'), *slash = strchr(s, '/');
        if (at && (!slash || at < slash)) {
            mask_one(&tail, s, (size_t)(at - s));
            const char *colon = memchr(s, ':', (size_t)(at - s));
            if (colon)
                mask_one(&tail, colon + 1, (size_t)(at - colon - 1));
        }
        const char *pw = strstr(s, "password=");
        if (pw) {
            pw += 9;
            mask_one(&tail, pw, strcspn(pw, "&"));
        }
    }
    qr_buf password;
    qr_buf_init(&password);
    if (qr_store_url_password(url, &password))
        mask_one(&tail, password.p, password.len);
    qr_buf_release(&password);
    b->len = from;
    qr_buf_append(b, tail.p ? tail.p : "", tail.len);
    qr_buf_release(&tail);
}

/* Appends libpq's message on one line ("; " between its lines), masked for url. */
static void put_reason(qr_buf *err, const char *msg, const char *url)
{
    size_t from = err->len;
    bool sep = false;
    for (const char *p = msg ? msg : ""; *p; p++) {
        if (*p == '\n' || *p == '\t' || *p == '\r') {
            sep = true;
            continue;
        }
        if (sep && err->len > from)
            qr_buf_puts(err, "; ");
        sep = false;
        qr_buf_putc(err, *p);
    }
    if (err->len == from)
        qr_buf_puts(err, "no reason given");
    mask_url(err, from, url);
}

/* ---- naming ---- */

static const char *opt(const PQconninfoOption *o, const char *key)
{
    for (; o && o->keyword; o++)
        if (!strcmp(o->keyword, key))
            return o->val && *o->val ? o->val : NULL;
    return NULL;
}

void qr_store_server_name(const char *url, qr_buf *out)
{
    char *e = NULL;
    PQconninfoOption *o = PQconninfoParse(url, &e);
    PQfreemem(e);
    if (!o) {
        qr_buf_puts(out, "postgresql server (an invalid URL, not shown)");
        return;
    }
    const char *host = opt(o, "host");
    if (!host)
        host = opt(o, "hostaddr");
    const char *port = opt(o, "port"), *db = opt(o, "dbname");
    qr_buf_printf(out, "postgresql server %s:%s, database %s", host ? host : "(default socket)",
                  port ? port : "5432", db ? db : "(default)");
    PQconninfoFree(o);
}

bool qr_store_url_password(const char *url, qr_buf *out)
{
    char *e = NULL;
    PQconninfoOption *o = PQconninfoParse(url, &e);
    PQfreemem(e);
    const char *pw = opt(o, "password");
    if (pw)
        qr_buf_puts(out, pw);
    PQconninfoFree(o);
    return pw != NULL;
}

/* ---- connecting and running ---- */

static void drop_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

int qr_store_pg_connect(qr_store *st, const char *what, const char *url, qr_buf *err)
{
    memset(st, 0, sizeof *st);
    st->backend = QR_STORE_POSTGRES;
    qr_buf name;
    qr_buf_init(&name);
    qr_store_server_name(url, &name);
    st->server = qr_buf_detach(&name, NULL);
    if (!st->server)
        return QR_ENOMEM;
    char *e = NULL;
    PQconninfoOption *o = PQconninfoParse(url, &e);
    PQfreemem(e);
    if (!o) {
        qr_buf_printf(err, "cannot open %s: %s: the URL does not parse (see the libpq manual, "
                      "'Connection URIs')", what, st->server);
        return QR_EINVAL;
    }
    PQconninfoFree(o);
    const char *keys[] = {"dbname", "fallback_application_name", NULL};
    const char *vals[] = {url, "quarry", NULL};
    st->pg = PQconnectdbParams(keys, vals, 1);
    if (!st->pg)
        return QR_ENOMEM;
    if (PQstatus(st->pg) != CONNECTION_OK) {
        qr_buf_printf(err, "%s: cannot connect to %s: ", what, st->server);
        put_reason(err, PQerrorMessage(st->pg), url);
        st->failed_op = "connect";
        return QR_EIO;
    }
    PQsetNoticeProcessor(st->pg, drop_notice, NULL);
    return QR_OK;
}

int qr_store_pg_exec(qr_store *st, const char *sql, int nparams, const char *const *params,
                     qr_store_rows *rows, const char *doing, char sqlstate[6], qr_buf *err)
{
    if (rows)
        memset(rows, 0, sizeof *rows);
    if (sqlstate)
        sqlstate[0] = 0;
    PGresult *r = nparams ? PQexecParams(st->pg, sql, nparams, NULL, params, NULL, NULL, 0)
                          : PQexec(st->pg, sql);
    ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
        qr_buf_printf(err, "cannot %s on %s: ", doing, st->server);
        /* the connection's messages never hold the URL: nothing to mask but the form */
        put_reason(err, r ? PQresultErrorMessage(r) : PQerrorMessage(st->pg), "");
        const char *code = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
        if (sqlstate && code)
            snprintf(sqlstate, 6, "%s", code);
        PQclear(r);
        return QR_EIO;
    }
    if (rows) {
        rows->res = r;
        rows->n = PQntuples(r);
        rows->cols = PQnfields(r);
        const char *t = PQcmdTuples(r);
        rows->changed = t && *t ? strtoll(t, NULL, 10) : 0;
    } else {
        PQclear(r);
    }
    return QR_OK;
}

const char *qr_store_rows_get(const qr_store_rows *r, int row, int col)
{
    if (!r->res || row < 0 || row >= r->n || col < 0 || col >= r->cols)
        return "";
    return PQgetisnull(r->res, row, col) ? NULL : PQgetvalue(r->res, row, col);
}

void qr_store_rows_free(qr_store_rows *r)
{
    PQclear(r->res);
    r->res = NULL;
}

/* Runs sql; *res kept when res is non-NULL (the migrations' own helper). */
static int run(qr_store *st, const char *sql, int n, const char *const *params,
               PGresult **res, const char *doing, qr_buf *err)
{
    qr_store_rows rows;
    int rc = qr_store_pg_exec(st, sql, n, params, res ? &rows : NULL, doing, NULL, err);
    if (rc == QR_OK && res)
        *res = rows.res;
    return rc;
}

static int64_t first_int(PGresult *r)
{
    if (PQntuples(r) < 1 || PQgetisnull(r, 0, 0))
        return 0;
    return strtoll(PQgetvalue(r, 0, 0), NULL, 10);
}

int qr_store_pg_version(qr_store *st, bool *initialized, int64_t *version, qr_buf *err)
{
    PGresult *r = NULL;
    int rc = run(st, "SELECT to_regclass('schema_migrations') IS NOT NULL", 0, NULL, &r,
                 "read the schema version", err);
    if (rc)
        return rc;
    *initialized = PQntuples(r) == 1 && !strcmp(PQgetvalue(r, 0, 0), "t");
    PQclear(r);
    *version = 0;
    if (!*initialized)
        return QR_OK;
    if ((rc = run(st, "SELECT coalesce(max(version), 0) FROM schema_migrations", 0, NULL, &r,
                  "read the schema version", err)))
        return rc;
    *version = first_int(r);
    PQclear(r);
    return QR_OK;
}

int qr_store_pg_migrate(qr_store *st, int *applied, qr_buf *err)
{
    *applied = 0;
    size_t n;
    const qr_store_migration *m = qr_store_pg_migrations(&n);
    PGresult *r = NULL;
    char lock[96];
    snprintf(lock, sizeof lock, "SELECT pg_advisory_xact_lock(%d)", MIGRATE_LOCK);
    int rc;
    if ((rc = run(st, "BEGIN", 0, NULL, NULL, "begin a transaction", err)) ||
        (rc = run(st, lock, 0, NULL, NULL, "lock the schema", err)) ||
        (rc = run(st,
                  "CREATE TABLE IF NOT EXISTS schema_migrations(version integer PRIMARY KEY,"
                  " name text NOT NULL, applied bigint NOT NULL)",
                  0, NULL, NULL, "create schema_migrations", err)) ||
        (rc = run(st, "SELECT coalesce(max(version), 0) FROM schema_migrations", 0, NULL, &r,
                  "read the schema version", err)))
        goto fail;
    int64_t have = first_int(r);
    PQclear(r);
    if (have > (int64_t)n) {
        qr_buf_printf(err,
                      "the database at %s has schema version %lld, newer than this quarry "
                      "knows (%zu): upgrade quarry",
                      st->server, (long long)have, n);
        rc = QR_EINVAL;
        goto fail;
    }
    for (size_t i = (size_t)have; i < n; i++) {
        char doing[200], ver[24], now[24];
        snprintf(doing, sizeof doing, "apply migration %d (%s)", m[i].version, m[i].name);
        snprintf(ver, sizeof ver, "%d", m[i].version);
        snprintf(now, sizeof now, "%lld", (long long)qr_clock_now());
        const char *params[] = {ver, m[i].name, now};
        if ((rc = run(st, m[i].sql, 0, NULL, NULL, doing, err)) ||
            (rc = run(st, "INSERT INTO schema_migrations(version, name, applied)"
                          " VALUES ($1::integer, $2, $3::bigint)",
                      3, params, NULL, doing, err)))
            goto fail;
        if (m[i].version == 1) {
            /* the memory store's creation time, as the SQLite store stamps meta.created */
            if ((rc = run(st, "UPDATE mem_state SET created = $1::bigint", 1, params + 2, NULL,
                          doing, err)))
                goto fail;
        }
        ++*applied;
    }
    if ((rc = run(st, "COMMIT", 0, NULL, NULL, "commit the migrations", err)))
        goto fail;
    return QR_OK;
fail:
    PQclear(PQexec(st->pg, "ROLLBACK"));
    *applied = 0;
    return rc;
}

int qr__store_pg_open(qr_store *st, const qr_store_spec *spec, qr_buf *err)
{
    int rc = qr_store_pg_connect(st, spec->what, spec->location, err);
    if (rc)
        return rc;
    bool initialized = false;
    int64_t version = 0;
    if ((rc = qr_store_pg_version(st, &initialized, &version, err)))
        return rc;
    size_t n;
    qr_store_pg_migrations(&n);
    st->version = version;
    if (version > (int64_t)n) {
        qr_buf_printf(err,
                      "%s at %s has schema version %lld, newer than this quarry reads (%zu): "
                      "upgrade quarry",
                      spec->what, st->server, (long long)version, n);
        return QR_EIO;
    }
    if (!initialized && (spec->flags & QR_STORE_CREATE)) {
        int applied = 0;
        if ((rc = qr_store_pg_migrate(st, &applied, err)))
            return rc == QR_EINVAL ? QR_EIO : rc;
        st->version = (int64_t)n;
        st->kind = QR_STORE_OURS;
        st->created = applied > 0;
        return QR_OK;
    }
    st->kind = !initialized ? QR_STORE_EMPTY
               : version == (int64_t)n ? QR_STORE_OURS
                                       : QR_STORE_OTHER;
    return QR_OK;
}

void qr__store_pg_close(qr_store *st)
{
    if (st->pg)
        PQfinish(st->pg);
    st->pg = NULL;
    free(st->server);
    st->server = NULL;
}

/* ---- due agents ---- */

int qr_store_agent_schedule(qr_store *st, const char *agent, int64_t due, qr_buf *err)
{
    char d[24];
    snprintf(d, sizeof d, "%lld", (long long)due);
    const char *p[] = {agent, d};
    return qr_store_pg_exec(st,
                            "INSERT INTO due_agents(agent, due) VALUES ($1, $2::bigint)"
                            " ON CONFLICT (agent) DO UPDATE SET due = excluded.due",
                            2, p, NULL, "schedule an agent", NULL, err);
}

int qr_store_agent_claim(qr_store *st, const char *holder, int64_t now, int64_t lease_s,
                         qr_buf *agent, bool *claimed, qr_buf *err)
{
    *claimed = false;
    char n[24], until[24];
    snprintf(n, sizeof n, "%lld", (long long)now);
    snprintf(until, sizeof until, "%lld", (long long)(now + lease_s));
    const char *p[] = {holder, n, until};
    qr_store_rows r;
    /* one statement: the row is locked by the subquery (others skip it) and leased by the
     * update before any other claimer can see it free */
    int rc = qr_store_pg_exec(st,
                              "UPDATE due_agents SET holder = $1, lease_until = $3::bigint"
                              " WHERE agent = (SELECT agent FROM due_agents"
                              "  WHERE due <= $2::bigint AND (lease_until IS NULL"
                              "   OR lease_until <= $2::bigint)"
                              "  ORDER BY due, agent COLLATE \"C\" LIMIT 1"
                              "  FOR UPDATE SKIP LOCKED)"
                              " RETURNING agent",
                              3, p, &r, "claim an agent", NULL, err);
    if (rc)
        return rc;
    if (r.n == 1) {
        qr_buf_puts(agent, qr_store_rows_get(&r, 0, 0));
        *claimed = true;
    }
    qr_store_rows_free(&r);
    return QR_OK;
}

int qr_store_agent_done(qr_store *st, const char *agent, const char *holder, int64_t next_due,
                        bool *held, qr_buf *err)
{
    *held = false;
    char d[24];
    snprintf(d, sizeof d, "%lld", (long long)next_due);
    const char *p[] = {agent, holder, d};
    qr_store_rows r;
    int rc = qr_store_pg_exec(st,
                              "UPDATE due_agents SET due = $3::bigint, holder = NULL,"
                              " lease_until = NULL, runs = runs + 1"
                              " WHERE agent = $1 AND holder = $2",
                              3, p, &r, "finish an agent's run", NULL, err);
    if (rc)
        return rc;
    *held = r.changed == 1;
    qr_store_rows_free(&r);
    return QR_OK;
}
