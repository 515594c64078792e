/*
 * test_store.c: the store seam (quarry/store.h) on real SQLite files: a new file gets
 * its schema, ids and WAL once; a store of ours reopens as it is; a foreign database, an
 * older schema and an empty file without permission to create are reported and left
 * untouched (journal mode included); a newer schema is refused with the message that
 * says to upgrade; SQLite's own failures come back as codes with the step that failed.
 * PostgreSQL without a server: the server's name, the password, a URL that does not
 * parse and a server that is not there, none of whose messages holds a credential.
 */
#include "check.h"
#include "quarry/store.h"

#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

    /* PostgreSQL: the seam sends such URLs to that backend */
    CHECK(qr_store_backend_of("postgresql://db.example/quarry") == QR_STORE_POSTGRES);
    CHECK(qr_store_backend_of("postgres://x") == QR_STORE_POSTGRES);
    CHECK(qr_store_backend_of("/tmp/postgres.db") == QR_STORE_SQLITE);
    CHECK(qr_store_backend_of("postgresql:relative.db") == QR_STORE_SQLITE);
    /* a caller that reads only st->db is never handed a PostgreSQL store */
    qr_buf_reset(&err);
    spec = spec_for("postgresql://u:pw-s3cret@db.example/quarry", QR_STORE_CREATE);
    CHECK(qr_store_open(&st, &spec, &err) == QR_EINVAL);
    CHECK_STR(err.p, "cannot open test store on postgresql server db.example:5432, database "
                     "quarry: the test store is not on PostgreSQL yet; name a SQLite file");
    CHECK(st.db == NULL && st.pg == NULL);
    qr_store_close(&st);
    qr_buf_release(&err);
}

/* True when b holds s. */
static bool holds(const qr_buf *b, const char *s)
{
    return b->p && strstr(b->p, s);
}

/* PostgreSQL without a server: names, passwords, a URL that does not parse, a server that
 * is not there. None of the messages holds the password, the user or the URL. */
static void test_pg_offline(const char *dir)
{
    qr_buf b, err;
    qr_buf_init(&b);
    qr_buf_init(&err);
    qr_store_server_name("postgresql://alice:s3cret@db.example:6543/team", &b);
    CHECK_STR(b.p, "postgresql server db.example:6543, database team");
    qr_buf_reset(&b);
    qr_store_server_name("postgres:///mem?host=/run/pg&port=7000&password=hunter22", &b);
    CHECK_STR(b.p, "postgresql server /run/pg:7000, database mem");
    qr_buf_reset(&b);
    qr_store_server_name("postgresql://", &b);
    CHECK_STR(b.p, "postgresql server (default socket):5432, database (default)");
    qr_buf_reset(&b);
    qr_store_server_name("postgresql://alice:s3%zzcret@db.example/team", &b);
    CHECK_STR(b.p, "postgresql server (an invalid URL, not shown)");
    qr_buf_reset(&b);

    CHECK(qr_store_url_password("postgresql://alice:s3%2Fcret@db.example/team", &b));
    CHECK_STR(b.p, "s3/cret");
    qr_buf_reset(&b);
    CHECK(qr_store_url_password("postgresql:///team?password=hunter22", &b));
    CHECK_STR(b.p, "hunter22");
    qr_buf_reset(&b);
    CHECK(!qr_store_url_password("postgresql://alice@db.example/team", &b));
    CHECK(b.len == 0);

    /* a URL libpq cannot parse: refused as bad input, and not quoted */
    qr_store st;
    qr_store_spec spec = {.what = "memory store",
                          .location = "postgresql://alice:s3%zzcret@db.example/team",
                          .flags = QR_STORE_CREATE | QR_STORE_POSTGRES_OK};
    CHECK(qr_store_open(&st, &spec, &err) == QR_EINVAL);
    CHECK(holds(&err, "cannot open memory store: postgresql server (an invalid URL, not shown)"));
    CHECK(!holds(&err, "s3") && !holds(&err, "alice") && !holds(&err, "db.example"));
    CHECK(st.pg == NULL);
    qr_store_close(&st);

    /* no server on that socket: the error names it, and holds no credential */
    char url[600];
    snprintf(url, sizeof url,
             "postgresql://alice:pw-s3cret@/team?host=%s&port=5999&password=pw-s3cret", dir);
    spec.location = url;
    qr_buf_reset(&err);
    CHECK(qr_store_open(&st, &spec, &err) == QR_EIO);
    char want[700];
    snprintf(want, sizeof want, "memory store: cannot connect to postgresql server %s:5999, "
             "database team: connection to server on socket \"%s/.s.PGSQL.5999\" failed",
             dir, dir);
    CHECK(holds(&err, want));
    CHECK(!holds(&err, "s3cret") && !holds(&err, "alice") && !holds(&err, "postgresql://"));
    CHECK(!strchr(err.p, '\n'));
    CHECK(st.backend == QR_STORE_POSTGRES && st.pg != NULL && !st.created);
    qr_store_close(&st);
    CHECK(st.pg == NULL && st.server == NULL);

    /* the migrations are numbered 1, 2, 3... without gaps */
    size_t n = 0;
    const qr_store_migration *m = qr_store_pg_migrations(&n);
    CHECK(n >= 1);
    for (size_t i = 0; i < n; i++)
        CHECK(m[i].version == (int)i + 1 && m[i].name && m[i].sql);
    qr_buf_release(&b);
    qr_buf_release(&err);
}

/* Runs sql on st's connection; returns the first value of the first row ("" for none). */
static const char *pg_value(qr_store *st, const char *sql)
{
    static char out[256];
    out[0] = 0;
    PGresult *r = PQexec(st->pg, sql);
    ExecStatusType s = PQresultStatus(r);
    if (s == PGRES_TUPLES_OK && PQntuples(r) > 0)
        snprintf(out, sizeof out, "%s", PQgetvalue(r, 0, 0));
    else if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK)
        snprintf(out, sizeof out, "error: %s", PQresultErrorMessage(r));
    PQclear(r);
    return out;
}

/* PostgreSQL on a real server (tests/cli/48_db.sh runs this with QUARRY_TEST_PG_URL naming
 * an empty database): an empty database, creating the schema by migration, reopening,
 * an older and a newer schema, a failing migration rolled back whole. */
static void test_pg_server(const char *url)
{
    size_t n = 0;
    qr_store_pg_migrations(&n);
    qr_store st;
    qr_buf err;
    qr_buf_init(&err);
    qr_store_spec spec = {.what = "memory store", .location = url, .flags = QR_STORE_POSTGRES_OK};
    CHECK(qr_store_open(&st, &spec, &err) == QR_OK);
    if (err.len)
        fprintf(stderr, "%s\n", err.p);
    CHECK(st.kind == QR_STORE_EMPTY && !st.created && st.version == 0);
    CHECK_STR(pg_value(&st, "SELECT to_regclass('mem_nodes') IS NULL"), "t");
    qr_store_close(&st);

    spec.flags = QR_STORE_CREATE | QR_STORE_POSTGRES_OK;
    CHECK(qr_store_open(&st, &spec, &err) == QR_OK);
    CHECK(st.kind == QR_STORE_OURS && st.created && st.version == (int64_t)n);
    char nmig[24];
    snprintf(nmig, sizeof nmig, "%zu", n);
    CHECK_STR(pg_value(&st, "SELECT count(*) FROM schema_migrations"), nmig);
    CHECK_STR(pg_value(&st, "SELECT generation FROM mem_state"), "0");
    CHECK_STR(pg_value(&st, "SELECT count(*) FROM due_agents"), "0");
    /* the shape: a note, a tag, a link, a visit; the checks of the SQLite schema hold */
    CHECK_STR(pg_value(&st, "INSERT INTO mem_nodes(key, type, weight, provenance, created,"
                            " modified, content_len, content) VALUES ('a', 'fact', 0.5, 'user',"
                            " 1, 1, 5, 'alpha'), ('b', 'fact', 1, 'user', 1, 1, 4, 'beta')"
                            " RETURNING id"),
              "1");
    CHECK_STR(pg_value(&st, "INSERT INTO mem_tags VALUES (1, 'x') RETURNING tag"), "x");
    CHECK_STR(pg_value(&st, "INSERT INTO mem_edges VALUES (1, 2, 'rel', 1) RETURNING type"),
              "rel");
    CHECK(!strncmp(pg_value(&st, "INSERT INTO mem_edges VALUES (1, 2, 'bad', 0)"), "error: ", 7));
    CHECK_STR(pg_value(&st, "INSERT INTO mem_visits(node, agent, time, outcome)"
                            " VALUES (1, 'agent-1', 10, 'used') RETURNING agent"),
              "agent-1");
    CHECK_STR(pg_value(&st, "SELECT key FROM mem_nodes WHERE search @@ to_tsquery('english',"
                            " 'alphas')"),
              "a");
    qr_store_close(&st);

    /* reopened: ours, not created again; migrating applies nothing */
    CHECK(qr_store_open(&st, &spec, &err) == QR_OK);
    CHECK(st.kind == QR_STORE_OURS && !st.created);
    int applied = -1;
    CHECK(qr_store_pg_migrate(&st, &applied, &err) == QR_OK && applied == 0);
    bool init = false;
    int64_t v = -1;
    CHECK(qr_store_pg_version(&st, &init, &v, &err) == QR_OK && init && v == (int64_t)n);

    /* an older schema (no migration recorded): not ours, not migrated on open; migrating
     * it fails on migration 1 (its tables exist) and leaves everything as it was */
    pg_value(&st, "DELETE FROM schema_migrations");
    qr_store_close(&st);
    CHECK(qr_store_open(&st, &spec, &err) == QR_OK);
    CHECK(st.kind == QR_STORE_OTHER && st.version == 0 && !st.created);
    qr_buf_reset(&err);
    CHECK(qr_store_pg_migrate(&st, &applied, &err) == QR_EIO && applied == 0);
    CHECK(holds(&err, "cannot apply migration 1 (memory store and due-agents lease table) on "
                      "postgresql server "));
    CHECK(holds(&err, "already exists"));
    CHECK_STR(pg_value(&st, "SELECT count(*) FROM schema_migrations"), "0");
    CHECK_STR(pg_value(&st, "SELECT count(*) FROM mem_nodes"), "2");
    CHECK_STR(pg_value(&st, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"), "0");

    /* a newer schema: refused on open and by migrate, nothing changed */
    char sql[200];
    snprintf(sql, sizeof sql,
             "INSERT INTO schema_migrations VALUES (1, 'x', 0), (%zu, 'from the future', 0)",
             n + 1);
    pg_value(&st, sql);
    qr_store_close(&st);
    qr_buf_reset(&err);
    CHECK(qr_store_open(&st, &spec, &err) == QR_EIO);
    char want[200];
    snprintf(want, sizeof want, "has schema version %zu, newer than this quarry reads (%zu): "
             "upgrade quarry", n + 1, n);
    CHECK(holds(&err, "memory store at postgresql server ") && holds(&err, want));
    qr_store_close(&st);
    CHECK(qr_store_pg_connect(&st, "test", url, &err) == QR_OK);
    qr_buf_reset(&err);
    CHECK(qr_store_pg_migrate(&st, &applied, &err) == QR_EINVAL && applied == 0);
    snprintf(want, sizeof want, "has schema version %zu, newer than this quarry knows (%zu): "
             "upgrade quarry", n + 1, n);
    CHECK(holds(&err, want));
    snprintf(sql, sizeof sql, "SELECT count(*) FROM schema_migrations WHERE version = %zu", n + 1);
    CHECK_STR(pg_value(&st, sql), "1");
    qr_store_close(&st);
    qr_buf_release(&err);
}

/* The scheduler's leases on a real server: claims in due order, none while leased, an
 * expired lease taken over (its old holder's `done` then changes nothing), a row another
 * transaction holds skipped without waiting, and four processes claiming twenty agents at
 * once, each agent claimed exactly once. */
static void test_pg_agents(const char *url, const char *dir)
{
    qr_store a, b;
    qr_buf err, name;
    qr_buf_init(&err);
    qr_buf_init(&name);
    CHECK(qr_store_pg_connect(&a, "test", url, &err) == QR_OK);
    CHECK(qr_store_pg_connect(&b, "test", url, &err) == QR_OK);
    pg_value(&a, "DELETE FROM due_agents");
    CHECK(qr_store_agent_schedule(&a, "a1", 100, &err) == QR_OK);
    CHECK(qr_store_agent_schedule(&a, "a2", 200, &err) == QR_OK);
    CHECK(qr_store_agent_schedule(&a, "a0", 300, &err) == QR_OK);
    bool claimed = false, held = false;
    CHECK(qr_store_agent_claim(&a, "A", 50, 60, &name, &claimed, &err) == QR_OK && !claimed);
    CHECK(qr_store_agent_claim(&a, "A", 150, 60, &name, &claimed, &err) == QR_OK && claimed);
    CHECK_STR(name.p, "a1");
    qr_buf_reset(&name);
    CHECK(qr_store_agent_claim(&b, "B", 150, 60, &name, &claimed, &err) == QR_OK && !claimed);
    CHECK(qr_store_agent_claim(&b, "B", 200, 60, &name, &claimed, &err) == QR_OK && claimed);
    CHECK_STR(name.p, "a2");
    qr_buf_reset(&name);

    /* a1's lease (until 210) has ended at 220, but A's transaction holds its row: B skips
     * it, without waiting (a wait would hit the statement timeout and fail) */
    pg_value(&b, "SET statement_timeout = 5000");
    pg_value(&a, "BEGIN");
    CHECK_STR(pg_value(&a, "SELECT agent FROM due_agents WHERE agent = 'a1' FOR UPDATE"), "a1");
    CHECK(qr_store_agent_claim(&b, "B", 220, 60, &name, &claimed, &err) == QR_OK && !claimed);
    pg_value(&a, "ROLLBACK");
    /* released: B takes the expired lease over; A's late `done` changes nothing */
    CHECK(qr_store_agent_claim(&b, "B", 220, 60, &name, &claimed, &err) == QR_OK && claimed);
    CHECK_STR(name.p, "a1");
    qr_buf_reset(&name);
    CHECK(qr_store_agent_done(&a, "a1", "A", 999, &held, &err) == QR_OK && !held);
    CHECK(qr_store_agent_done(&b, "a1", "B", 1000, &held, &err) == QR_OK && held);
    CHECK_STR(pg_value(&a, "SELECT due || ' ' || runs || ' ' || coalesce(holder, '-')"
                           " FROM due_agents WHERE agent = 'a1'"),
              "1000 1 -");
    /* rescheduling keeps a lease */
    CHECK(qr_store_agent_schedule(&a, "a2", 5, &err) == QR_OK);
    CHECK_STR(pg_value(&a, "SELECT due || ' ' || holder FROM due_agents WHERE agent = 'a2'"),
              "5 B");
    qr_store_close(&b);

    /* four processes, twenty due agents: each claimed once */
    pg_value(&a, "DELETE FROM due_agents");
    char agent[16];
    for (int i = 0; i < 20; i++) {
        snprintf(agent, sizeof agent, "agent-%02d", i);
        CHECK(qr_store_agent_schedule(&a, agent, 0, &err) == QR_OK);
    }
    char log[600];
    snprintf(log, sizeof log, "%s/claims.log", dir);
    pid_t kids[4];
    for (int k = 0; k < 4; k++) {
        kids[k] = fork();
        if (kids[k] == 0) {
            qr_store c;
            qr_buf e, got;
            qr_buf_init(&e);
            qr_buf_init(&got);
            char holder[16];
            snprintf(holder, sizeof holder, "worker-%d", k);
            int bad = qr_store_pg_connect(&c, "test", url, &e) != QR_OK;
            FILE *f = fopen(log, "a");
            bool more = !bad && f;
            while (more) {
                qr_buf_reset(&got);
                bad |= qr_store_agent_claim(&c, holder, 10, 60, &got, &more, &e) != QR_OK;
                if (!more)
                    break;
                fprintf(f, "%s\n", got.p);
                fflush(f);
                bool h = false;
                bad |= qr_store_agent_done(&c, got.p, holder, 100000, &h, &e) != QR_OK || !h;
            }
            if (f)
                fclose(f);
            qr_store_close(&c);
            _exit(bad ? 1 : 0);
        }
    }
    for (int k = 0; k < 4; k++) {
        int status = 0;
        CHECK(kids[k] > 0 && waitpid(kids[k], &status, 0) == kids[k] && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0);
    }
    int seen[20] = {0}, lines = 0;
    FILE *f = fopen(log, "r");
    char line[64];
    while (f && fgets(line, sizeof line, f)) {
        int i = -1;
        if (sscanf(line, "agent-%d", &i) == 1 && i >= 0 && i < 20)
            seen[i]++;
        lines++;
    }
    if (f)
        fclose(f);
    CHECK(lines == 20);
    for (int i = 0; i < 20; i++)
        CHECK(seen[i] == 1);
    CHECK_STR(pg_value(&a, "SELECT sum(runs) || ' ' || count(holder) FROM due_agents"), "20 0");
    qr_store_close(&a);
    qr_buf_release(&err);
    qr_buf_release(&name);
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
    test_pg_offline(dir);
    const char *pg = getenv("QUARRY_TEST_PG_URL");
    if (pg && *pg) {
        test_pg_server(pg);
        test_pg_agents(pg, dir);
    }
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    CHECK_DONE();
}
