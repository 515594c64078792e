/*
 * store.c: opening a persistent store (quarry/store.h): the SQLite backend of the one
 * seam the statistics index, the code index and the memory store open through.
 *
 * Design: what a file is gets read first (application_id, user_version, whether it holds
 * any table) and nothing is set on a file that is not ours: WAL is written into the
 * file's header, so setting it first switched foreign databases to WAL before refusing
 * them. An empty file is given its schema under BEGIN IMMEDIATE and looked at again
 * there, so two processes creating a store at once create it once. A newer schema than
 * this binary knows is refused rather than rebuilt: two quarry versions sharing a
 * repository must not take turns moving each other's index aside. SQLite's own failures
 * are handed back as their result code, because each store answers a damaged file its
 * own way (the caches rebuild, the memory store points at salvage).
 *
 * A postgres:// or postgresql:// location goes to the PostgreSQL backend (pg.c).
 *
 * Rejected: a generic key-value API over both backends (each store's queries are its
 * own; the seam is where a connection is made and its schema checked); creating tables
 * lazily on first write (a reader would meet a half-made file).
 */
#include "store_int.h"

#include "quarry/date.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

qr_store_backend qr_store_backend_of(const char *location)
{
    if (!strncmp(location, "postgres://", 11) || !strncmp(location, "postgresql://", 13))
        return QR_STORE_POSTGRES;
    return QR_STORE_SQLITE;
}

int qr_store_stamp_created(sqlite3 *db, void *ud)
{
    (void)ud;
    char sql[128];
    snprintf(sql, sizeof sql,
             "UPDATE meta SET value = strftime('%%Y-%%m-%%dT%%H:%%M:%%SZ', %lld, 'unixepoch') "
             "WHERE key = 'created'",
             (long long)qr_clock_now());
    return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

int qr_store_query_int(sqlite3 *db, const char *sql, int64_t *out)
{
    sqlite3_stmt *st = NULL;
    int64_t v = 0;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
        if (rc == SQLITE_ROW || rc == SQLITE_DONE)
            rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    if (out && rc == SQLITE_OK)
        *out = v;
    return rc;
}

/* What the file holds: its application id, schema version and number of objects. */
static int identify(qr_store *st, int64_t *objects)
{
    int rc;
    if ((rc = qr_store_query_int(st->db, "PRAGMA application_id", &st->app_id)) ||
        (rc = qr_store_query_int(st->db, "PRAGMA user_version", &st->version)) ||
        (rc = qr_store_query_int(st->db, "SELECT count(*) FROM sqlite_schema", objects)))
        return rc;
    return SQLITE_OK;
}

static qr_store_kind kind_of(const qr_store *st, const qr_store_spec *spec, int64_t objects)
{
    int64_t app = (int32_t)spec->application_id;
    if (st->app_id == app && st->version == spec->schema_version)
        return QR_STORE_OURS;
    if (st->app_id == 0 && st->version == 0 && objects == 0)
        return QR_STORE_EMPTY;
    return QR_STORE_OTHER;
}

static int sqlite_failed(qr_store *st, int rc, const char *op)
{
    st->sqlite_rc = rc;
    st->failed_op = op;
    return (rc & 0xff) == SQLITE_NOMEM ? QR_ENOMEM : QR_EIO;
}

/* Creates the schema in an empty file, or finds that another process just did. */
static int create_schema(qr_store *st, const qr_store_spec *spec)
{
    int rc = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return sqlite_failed(st, rc, "create");
    int64_t objects = 0;
    if ((rc = identify(st, &objects)) != SQLITE_OK)
        goto fail;
    st->kind = kind_of(st, spec, objects);
    if (st->kind == QR_STORE_EMPTY) {
        char ids[128];
        snprintf(ids, sizeof ids, "PRAGMA application_id = %d; PRAGMA user_version = %d;",
                 (int32_t)spec->application_id, spec->schema_version);
        if ((rc = sqlite3_exec(st->db, spec->schema_sql, NULL, NULL, NULL)) != SQLITE_OK ||
            (rc = sqlite3_exec(st->db, ids, NULL, NULL, NULL)) != SQLITE_OK ||
            (spec->after_create && (rc = spec->after_create(st->db, spec->ud)) != SQLITE_OK))
            goto fail;
        st->kind = QR_STORE_OURS;
        st->created = true;
    }
    if ((rc = sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
        goto fail;
    return QR_OK;
fail:
    sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    return sqlite_failed(st, rc, "create");
}

int qr_store_open(qr_store *st, const qr_store_spec *spec, qr_buf *err)
{
    memset(st, 0, sizeof *st);
    st->backend = qr_store_backend_of(spec->location);
    if (st->backend == QR_STORE_POSTGRES && !(spec->flags & QR_STORE_POSTGRES_OK)) {
        qr_buf_puts(err, "cannot open ");
        qr_buf_puts(err, spec->what);
        qr_buf_puts(err, " on ");
        qr_store_server_name(spec->location, err);
        qr_buf_printf(err, ": the %s is not on PostgreSQL yet; name a SQLite file", spec->what);
        return QR_EINVAL;
    }
    if (st->backend == QR_STORE_POSTGRES)
        return qr__store_pg_open(st, spec, err);
    bool memory = !strcmp(spec->location, ":memory:");
    bool create = spec->flags & QR_STORE_CREATE;
    int rc = sqlite3_open_v2(spec->location, &st->db,
                             SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) |
                                 SQLITE_OPEN_NOMUTEX,
                             NULL);
    if (rc != SQLITE_OK)
        return sqlite_failed(st, rc, "open");
    sqlite3_busy_timeout(st->db, spec->busy_timeout_ms ? spec->busy_timeout_ms
                                                       : QR_STORE_BUSY_TIMEOUT_MS);
    sqlite3_extended_result_codes(st->db, 1);
    int64_t objects = 0;
    if ((rc = identify(st, &objects)) != SQLITE_OK)
        return sqlite_failed(st, rc, "read");
    if (st->app_id == (int32_t)spec->application_id && st->version > spec->schema_version) {
        qr_buf_printf(err,
                      "%s '%s' has schema version %lld, newer than this quarry reads (%d): "
                      "upgrade quarry",
                      spec->what, spec->location, (long long)st->version, spec->schema_version);
        return QR_EIO;
    }
    st->kind = kind_of(st, spec, objects);
    bool creating = st->kind == QR_STORE_EMPTY && create && spec->schema_sql;
    if (st->kind == QR_STORE_OTHER || (st->kind == QR_STORE_EMPTY && !creating))
        return QR_OK; /* not ours: left as it is */
    if (!memory) {
        sqlite3_stmt *q = NULL;
        rc = sqlite3_prepare_v2(st->db, "PRAGMA journal_mode = WAL", -1, &q, NULL);
        if (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
            const char *mode = (const char *)sqlite3_column_text(q, 0);
            if (!mode || strcmp(mode, "wal")) {
                qr_buf_printf(err, "cannot open %s '%s': journal mode '%s' instead of wal",
                              spec->what, spec->location, mode ? mode : "");
                sqlite3_finalize(q);
                return QR_EIO;
            }
            rc = SQLITE_OK;
        }
        sqlite3_finalize(q);
        if (rc != SQLITE_OK)
            return sqlite_failed(st, rc, "set up");
    }
    rc = sqlite3_exec(st->db,
                      spec->flags & QR_STORE_FOREIGN_KEYS
                          ? "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON"
                          : "PRAGMA synchronous = NORMAL",
                      NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return sqlite_failed(st, rc, "set up");
    return creating ? create_schema(st, spec) : QR_OK;
}

void qr_store_describe(const qr_store *st, const qr_store_spec *spec, qr_buf *err)
{
    const char *op = st->failed_op ? st->failed_op : "open";
    int rc = st->sqlite_rc;
    const char *msg =
        st->db && sqlite3_extended_errcode(st->db) == rc ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc);
    qr_buf_printf(err, "cannot %s %s '%s': %s", op, spec->what, spec->location, msg);
}

void qr_store_close(qr_store *st)
{
    qr__store_pg_close(st);
    if (st->db)
        sqlite3_close(st->db);
    st->db = NULL;
}
