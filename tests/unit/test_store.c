/*
 * test_store.c: the store seam (quarry/store.h) on real SQLite files: a new file gets
 * its schema, ids and WAL once; a store of ours reopens as it is; a foreign database, an
 * older schema and an empty file without permission to create are reported and left
 * untouched (journal mode included); a newer schema is refused with the message that
 * says to upgrade; SQLite's own failures come back as codes with the step that failed;
 * a PostgreSQL URL is refused until that backend exists.
 */
#include "check.h"
#include "quarry/store.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define APP 0x71746573 /* "qtes" */

static const char schema[] = "CREATE TABLE meta(key TEXT PRIMARY KEY, value);"
                             "INSERT INTO meta VALUES ('created', NULL);"
                             "CREATE TABLE things(x INTEGER REFERENCES meta(key));";

static int creations;

static int count_creation(sqlite3 *db, void *ud)
{
    (void)ud;
    creations++;
    return qr_store_stamp_created(db, NULL);
}

static qr_store_spec spec_for(const char *path, int flags)
{
    qr_store_spec s = {.what = "test store",
                       .location = path,
                       .application_id = APP,
                       .schema_version = 4,
                       .schema_sql = schema,
                       .after_create = count_creation,
                       .flags = flags};
    return s;
}

static char *text_of(sqlite3 *db, const char *sql)
{
    static char out[128];
    out[0] = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
        sqlite3_column_text(st, 0))
        snprintf(out, sizeof out, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return out;
}

/* Opens path with plain SQLite and runs sql. */
static void raw(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
}

static char *raw_text(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    char *t = text_of(db, sql);
    sqlite3_close(db);
    return t;
}

static void test_create_and_reopen(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/new.db", dir);
    setenv("QUARRY_NOW", "2026-03-10T12:00:00Z", 1);
    qr_store_spec spec = spec_for(path, QR_STORE_CREATE | QR_STORE_FOREIGN_KEYS);
    qr_store st;
    qr_buf err;
    qr_buf_init(&err);
    creations = 0;
    CHECK(qr_store_open(&st, &spec, &err) == QR_OK);
    CHECK(st.kind == QR_STORE_OURS && st.created && creations == 1);
    CHECK(st.app_id == 0 && st.version == 0); /* what the file said before */
    CHECK_STR(text_of(st.db, "PRAGMA journal_mode"), "wal");
    CHECK_STR(text_of(st.db, "PRAGMA application_id"), "1903453555");
    CHECK_STR(text_of(st.db, "PRAGMA user_version"), "4");
    CHECK_STR(text_of(st.db, "PRAGMA foreign_keys"), "1");
    CHECK_STR(text_of(st.db, "SELECT value FROM meta WHERE key = 'created'"),
              "2026-03-10T12:00:00Z");
    qr_store_close(&st);
    CHECK(st.db == NULL);

    spec.flags = QR_STORE_CREATE;
    CHECK(qr_store_open(&st, &spec, &err) == QR_OK);
    CHECK(st.kind == QR_STORE_OURS && !st.created && creations == 1);
    CHECK(st.app_id == 1903453555 && st.version == 4);
    CHECK_STR(text_of(st.db, "PRAGMA foreign_keys"), "0");
    qr_store_close(&st);
    CHECK(err.len == 0);
    qr_buf_release(&err);
    unsetenv("QUARRY_NOW");
}

static void test_not_ours(const char *dir)
{
    char path[512];
    qr_store st;
    qr_buf err;
    qr_buf_init(&err);
    creations = 0;

    /* another application's database: reported, untouched (its journal mode too) */
    snprintf(path, sizeof path, "%s/foreign.db", dir);
    raw(path, "CREATE TABLE notes(x); INSERT INTO notes VALUES (1)");
    qr_store_spec spec = spec_for(path, QR_STORE_CREATE);
    CHECK(qr_store_open(&st, &spec, &err) == QR_OK);
    CHECK(st.kind == QR_STORE_OTHER && !st.created);
    qr_store_close(&st);
    CHECK_STR(raw_text(path, "PRAGMA journal_mode"), "delete");
    CHECK_STR(raw_text(path, "PRAGMA user_version"), "0");

    /* an older schema of ours: reported for the caller to rebuild or refuse */
    snprintf(path, sizeof path, "%s/older.db", dir);
    raw(path, "PRAGMA application_id = 1903453555; PRAGMA user_version = 3; CREATE TABLE t(x)");
    spec = spec_for(path, QR_STORE_CREATE);
    CHECK(qr_store_open(&st, &spec, &err) == QR_OK);
    CHECK(st.kind == QR_STORE_OTHER && st.version == 3);
    qr_store_close(&st);
    CHECK_STR(raw_text(path, "PRAGMA journal_mode"), "delete");

    /* a newer one: refused with a message, untouched */
    snprintf(path, sizeof path, "%s/newer.db", dir);
    raw(path, "PRAGMA application_id = 1903453555; PRAGMA user_version = 9; CREATE TABLE t(x)");
    spec = spec_for(path, QR_STORE_CREATE);
    CHECK(qr_store_open(&st, &spec, &err) == QR_EIO);
    char want[700];
    snprintf(want, sizeof want,
             "test store '%s' has schema version 9, newer than this quarry reads (4): upgrade "
             "quarry",
             path);
    CHECK_STR(err.p, want);
    CHECK(st.sqlite_rc == 0);
    qr_store_close(&st);
    CHECK_STR(raw_text(path, "PRAGMA journal_mode"), "delete");

    /* an empty file without permission to create: empty, and still empty */
    snprintf(path, sizeof path, "%s/empty.db", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    spec = spec_for(path, 0);
    CHECK(qr_store_open(&st, &spec, &err) == QR_OK || (fprintf(stderr, "%s\n", err.p), 0));
    CHECK(st.kind == QR_STORE_EMPTY);
    qr_store_close(&st);
    CHECK_STR(raw_text(path, "SELECT count(*) FROM sqlite_schema"), "0");
    CHECK(creations == 0);
    qr_buf_release(&err);
}

static void test_failures(const char *dir)
{
    char path[512];
    qr_store st;
    qr_buf err;
    qr_buf_init(&err);

    /* a missing file without QR_STORE_CREATE: SQLite's code, the step, the plain message */
    snprintf(path, sizeof path, "%s/missing.db", dir);
    qr_store_spec spec = spec_for(path, 0);
    CHECK(qr_store_open(&st, &spec, &err) == QR_EIO);
    CHECK((st.sqlite_rc & 0xff) == SQLITE_CANTOPEN);
    CHECK_STR(st.failed_op, "open");
    CHECK(err.len == 0);
    qr_store_describe(&st, &spec, &err);
    char want[700];
    snprintf(want, sizeof want, "cannot open test store '%s': unable to open database file",
             path);
    CHECK_STR(err.p, want);
    qr_store_close(&st);
    CHECK(access(path, F_OK) != 0);

    /* a file that is not a database: found when it is first read */
    snprintf(path, sizeof path, "%s/text.db", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("this is not a database, only some words that fill a page of text\n", f);
        fclose(f);
    }
    qr_buf_reset(&err);
    spec = spec_for(path, QR_STORE_CREATE);
    CHECK(qr_store_open(&st, &spec, &err) == QR_EIO);
    CHECK((st.sqlite_rc & 0xff) == SQLITE_NOTADB);
    CHECK_STR(st.failed_op, "read");
    qr_store_close(&st);

    /* PostgreSQL: the seam knows it, the backend is not built */
    qr_buf_reset(&err);
    spec = spec_for("postgresql://db.example/quarry", QR_STORE_CREATE);
    CHECK(qr_store_backend_of(spec.location) == QR_STORE_POSTGRES);
    CHECK(qr_store_backend_of("postgres://x") == QR_STORE_POSTGRES);
    CHECK(qr_store_backend_of("/tmp/postgres.db") == QR_STORE_SQLITE);
    CHECK(qr_store_open(&st, &spec, &err) == QR_EINVAL);
    CHECK_STR(err.p, "cannot open test store 'postgresql://db.example/quarry': PostgreSQL "
                     "stores are not built yet; name a SQLite file");
    CHECK(st.db == NULL);
    qr_buf_release(&err);
}

static void test_memory_db(void)
{
    qr_store_spec spec = spec_for(":memory:", QR_STORE_CREATE);
    qr_store st;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_store_open(&st, &spec, &err) == QR_OK);
    CHECK(st.kind == QR_STORE_OURS && st.created);
    CHECK_STR(text_of(st.db, "PRAGMA journal_mode"), "memory");
    CHECK_STR(text_of(st.db, "SELECT count(*) FROM things"), "0");
    qr_store_close(&st);
    qr_buf_release(&err);
}

int main(void)
{
    char dir[] = "/tmp/quarry-test-store-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_create_and_reopen(dir);
    test_not_ours(dir);
    test_failures(dir);
    test_memory_db();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    CHECK_DONE();
}
