/*
 * store.c: the memory store's SQLite file: opening and schema, transactions, the change
 * counter, and the node, tag, edge, visit, search and statistics operations (memory.h).
 * Import/export is in store_io.c, the in-memory snapshot in store_snapshot.c.
 *
 * Design. One file the caller names; WAL, synchronous=NORMAL, foreign keys on, a 5 s busy
 * timeout. Opening reads what the file is (application_id, user_version, its schema)
 * before setting anything: WAL is written into the file's header, so only a quarry store
 * or an empty file about to become one gets it, and a foreign database keeps its journal
 * mode. Every write runs in BEGIN IMMEDIATE (so two writers queue on the lock instead of
 * failing on upgrade) and ends by bumping meta.generation in the same transaction: the
 * snapshot compares it to know when to reload, whichever process wrote. Inside a caller's
 * transaction (qr_mem_begin) each write is a savepoint, and each operation first checks
 * that SQLite has not rolled that transaction back by itself. Schema version in PRAGMA
 * user_version, file type in PRAGMA application_id "QRMM":
 *
 *   meta(key TEXT PRIMARY KEY, value)           schema_version, quarry_version, created,
 *                                               generation, write_id (random, new at each
 *                                               write: ties STORE.snapshot to this store)
 *   nodes(id INTEGER PRIMARY KEY, key TEXT UNIQUE, type, weight CHECK 0..1, provenance,
 *         created, modified, retrievals, uses, wrongs, deleted NULL, content_len, content)
 *   tags(node, tag) PRIMARY KEY(node, tag)      WITHOUT ROWID
 *   edges(source, target, type, strength CHECK (0, 1]) PRIMARY KEY(source, target, type)
 *   visits(id, node, agent, time, outcome)      index (agent, node, time)
 *   nodes_fts                                   FTS5 over key and content, external content
 *                                               (nodes), 'porter unicode61', kept in sync by
 *                                               triggers on insert/update of key, content
 *
 * content is the last column and its byte length is stored beside it, so the snapshot's
 * scan of every node never reads content pages (length() of TEXT would decode it).
 * Soft delete sets nodes.deleted; rows are never removed, so edges, tags and visits stay
 * and reappear on restore. Search filters deleted nodes when it joins back to nodes.
 *
 * Rejected: setting WAL first and checking the file after (it switched foreign databases
 * to WAL, then refused them); moving a damaged or foreign file aside and starting afresh,
 * as the git index does (that index is a cache; this file is the user's data: we refuse
 * and say why);
 * contentless FTS (search could not rank by key text after an update without the old
 * values); deleting FTS rows on soft delete (a restore would have to re-index, and
 * filtering at query time is one join).
 */
#include "memory_int.h"

#include "quarry/date.h"
#include "quarry/store.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MEM_APPLICATION_ID 0x51524d4d /* "QRMM" */
#define MEM_BUSY_TIMEOUT_MS 5000

static const char *const stmt_sql[ST_N] = {
    [ST_BEGIN] = "BEGIN",
    [ST_BEGIN_WRITE] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    /* the generation, and a fresh write id (see qr__mem_version): one statement, as the
     * write_id row is missing in stores created before it existed */
    [ST_BUMP] = ("INSERT INTO meta(key, value) VALUES ('generation', 1), ('write_id', random())"
                 " ON CONFLICT(key) DO UPDATE SET value = CASE excluded.key"
                 " WHEN 'generation' THEN value + 1 ELSE excluded.value END"),
    [ST_GENERATION] = "SELECT value FROM meta WHERE key = 'generation'",
    [ST_VERSION] = ("SELECT (SELECT value FROM meta WHERE key = 'generation'),"
                    " (SELECT value FROM meta WHERE key = 'write_id')"),
    [ST_NODE_ID] = "SELECT id, deleted FROM nodes WHERE key = ?1",
    [ST_NODE_GET] = ("SELECT id, key, type, weight, provenance, created, modified, retrievals,"
                     " uses, wrongs, deleted, content_len, content FROM nodes WHERE key = ?1"),
    [ST_NODE_ADD] = ("INSERT INTO nodes(key, type, weight, provenance, created, modified,"
                     " retrievals, uses, wrongs, deleted, content_len, content)"
                     " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"),
    [ST_NODE_TAGS] = "SELECT tag FROM tags WHERE node = ?1 ORDER BY tag",
    [ST_TAG_ADD] = "INSERT OR IGNORE INTO tags(node, tag) VALUES (?1, ?2)",
    [ST_TAG_DEL] = "DELETE FROM tags WHERE node = ?1 AND tag = ?2",
    [ST_TOUCH] = "UPDATE nodes SET modified = ?2 WHERE id = ?1",
    [ST_EDGE_PUT] = ("INSERT INTO edges(source, target, type, strength) VALUES (?1, ?2, ?3, ?4)"
                     " ON CONFLICT(source, target, type) DO UPDATE SET strength = excluded.strength"),
    [ST_EDGE_HAS] = "SELECT 1 FROM edges WHERE source = ?1 AND target = ?2 AND type = ?3",
    [ST_VISIT_ADD] = "INSERT INTO visits(node, agent, time, outcome) VALUES (?1, ?2, ?3, ?4)",
};

static const char schema_sql[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE nodes(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE,"
    " type TEXT NOT NULL, weight REAL NOT NULL CHECK (weight >= 0 AND weight <= 1),"
    " provenance TEXT NOT NULL, created INTEGER NOT NULL, modified INTEGER NOT NULL,"
    " retrievals INTEGER NOT NULL DEFAULT 0, uses INTEGER NOT NULL DEFAULT 0,"
    " wrongs INTEGER NOT NULL DEFAULT 0, deleted INTEGER,"
    " content_len INTEGER NOT NULL, content TEXT NOT NULL);"
    "CREATE TABLE tags(node INTEGER NOT NULL REFERENCES nodes(id), tag TEXT NOT NULL,"
    " PRIMARY KEY(node, tag)) WITHOUT ROWID;"
    "CREATE TABLE edges(source INTEGER NOT NULL REFERENCES nodes(id),"
    " target INTEGER NOT NULL REFERENCES nodes(id), type TEXT NOT NULL,"
    " strength REAL NOT NULL CHECK (strength > 0 AND strength <= 1),"
    " PRIMARY KEY(source, target, type)) WITHOUT ROWID;"
    "CREATE INDEX edges_target ON edges(target);"
    "CREATE TABLE visits(id INTEGER PRIMARY KEY, node INTEGER NOT NULL REFERENCES nodes(id),"
    " agent TEXT NOT NULL, time INTEGER NOT NULL, outcome TEXT NOT NULL);"
    "CREATE INDEX visits_agent ON visits(agent, node, time);"
    "CREATE VIRTUAL TABLE nodes_fts USING fts5(key, content, content='nodes',"
    " content_rowid='id', tokenize='porter unicode61');"
    "CREATE TRIGGER nodes_fts_ai AFTER INSERT ON nodes BEGIN"
    " INSERT INTO nodes_fts(rowid, key, content) VALUES (new.id, new.key, new.content); END;"
    "CREATE TRIGGER nodes_fts_ad AFTER DELETE ON nodes BEGIN"
    " INSERT INTO nodes_fts(nodes_fts, rowid, key, content)"
    " VALUES ('delete', old.id, old.key, old.content); END;"
    "CREATE TRIGGER nodes_fts_au AFTER UPDATE OF key, content ON nodes BEGIN"
    " INSERT INTO nodes_fts(nodes_fts, rowid, key, content)"
    " VALUES ('delete', old.id, old.key, old.content);"
    " INSERT INTO nodes_fts(rowid, key, content) VALUES (new.id, new.key, new.content); END;"
    "INSERT INTO meta(key, value) VALUES"
    " ('quarry_version', '" QR_VERSION "'),"
    " ('schema_version', 1),"
    " ('generation', 0),"
    " ('write_id', random()),"
    " ('created', '');"
    "PRAGMA application_id = 1364348237;" /* MEM_APPLICATION_ID */
    "PRAGMA user_version = 1;";           /* QR_MEM_SCHEMA_VERSION */

_Static_assert(MEM_APPLICATION_ID == 1364348237, "schema_sql spells the application id");
_Static_assert(QR_MEM_SCHEMA_VERSION == 1, "schema_sql spells the schema version");

/* ---- errors, time, statements, transactions ---- */

int qr__mem_fail(qr_mem *m, int rc, const char *what, qr_buf *err)
{
    int prim = rc & 0xff;
    if (prim == SQLITE_NOMEM) {
        qr_buf_printf(err, "out of memory: cannot %s memory store '%s'", what, m->path);
        return QR_ENOMEM;
    }
    if (prim == SQLITE_BUSY || prim == SQLITE_LOCKED) {
        qr_buf_printf(err,
                      "memory store '%s' is busy: another process held its lock for more "
                      "than %d s; try again",
                      m->path, MEM_BUSY_TIMEOUT_MS / 1000);
        return QR_EIO;
    }
    const char *msg =
        m->db && sqlite3_errcode(m->db) == rc ? sqlite3_errmsg(m->db) : sqlite3_errstr(rc);
    if (prim == SQLITE_NOTADB)
        qr_buf_printf(err,
                      "cannot %s memory store '%s': the file is not a SQLite database, so not "
                      "a memory store; it was left untouched: name another file (a new one "
                      "creates a store), or if it was a store, restore it from an export or a "
                      "backup",
                      what, m->path);
    else if (prim == SQLITE_CORRUPT)
        qr_buf_printf(err,
                      "cannot %s memory store '%s': %s; the file is damaged: save what can "
                      "still be read with 'quarry mem export --salvage' and import that into "
                      "a new store (docs/memory.md), or restore a backup",
                      what, m->path, msg);
    else
        qr_buf_printf(err, "cannot %s memory store '%s': %s", what, m->path, msg);
    return QR_EIO;
}

int64_t qr__mem_now(const qr_mem *m)
{
    return m->fixed_now ? m->fixed_now : qr_clock_now();
}

void qr_mem_set_now(qr_mem *m, int64_t now)
{
    m->fixed_now = now;
}

const char *qr_mem_path(const qr_mem *m)
{
    return m->path;
}

bool qr_mem_on_server(const qr_mem *m)
{
    return m->pg != NULL;
}

bool qr_mem_is_at(const qr_mem *m, const char *location)
{
    return m->location && location && !strcmp(m->location, location);
}

sqlite3_stmt *qr__mem_stmt(qr_mem *m, int id, qr_buf *err)
{
    if (m->pg) { /* a caller that forgot the seam (store_sql.c): a bug, never a crash */
        if (err)
            qr_buf_printf(err, "internal error: a SQLite statement on the memory store at %s",
                          m->path);
        return NULL;
    }
    if (!m->st[id]) {
        int rc = sqlite3_prepare_v3(m->db, stmt_sql[id], -1, SQLITE_PREPARE_PERSISTENT,
                                    &m->st[id], NULL);
        if (rc != SQLITE_OK) {
            qr__mem_fail(m, rc, "prepare a statement on", err);
            return NULL;
        }
    }
    return m->st[id];
}

/* Runs a statement that returns no rows (or whose rows are ignored). */
static int run_stmt(qr_mem *m, int id, const char *what, qr_buf *err)
{
    sqlite3_stmt *st = qr__mem_stmt(m, id, err);
    if (!st)
        return QR_EIO;
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return qr__mem_fail(m, rc, what, err);
    return QR_OK;
}

/* Inside a caller's transaction (qr_mem_begin), each operation is a savepoint: one that
 * fails is undone alone, and the caller decides about the whole. Reads need nothing. */
static int exec_sql(qr_mem *m, const char *sql, const char *what, qr_buf *err)
{
    int rc = sqlite3_exec(m->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? QR_OK : qr__mem_fail(m, rc, what, err);
}

/* SQLite rolls a whole transaction back by itself after some errors (I/O, disk full, out
 * of memory): then the handle is in autocommit while the caller's transaction is still
 * open here. A savepoint then would start and commit a transaction of its own (a write
 * kept without the rest and without a generation bump), so every operation inside the
 * caller's transaction checks first, and fails until the caller ends it (qr_mem_commit
 * says so too; qr_mem_rollback ends it quietly). False, with the message, when lost. */
static bool user_tx_alive(qr_mem *m, qr_buf *err)
{
    if (m->pg || !sqlite3_get_autocommit(m->db)) /* PostgreSQL: a savepoint undoes a failure */
        return true;
    if (err)
        qr_buf_printf(err,
                      "the transaction on memory store '%s' was rolled back by SQLite after an "
                      "earlier error (I/O, disk full or out of memory): none of its writes were "
                      "kept; roll it back (qr_mem_rollback) and do them again",
                      m->path);
    return false;
}

int qr__mem_begin_write(qr_mem *m, qr_buf *err)
{
    if (m->pg)
        return qr__mem_pg_begin_write(m, err);
    int crc = m->user_tx ? QR_OK : qr__mem_check_before_write(m, err);
    if (crc)
        return crc;
    if (m->user_tx)
        return user_tx_alive(m, err) ? exec_sql(m, "SAVEPOINT qr_op", "write", err) : QR_EIO;
    return run_stmt(m, ST_BEGIN_WRITE, "write", err);
}

int qr__mem_begin_read(qr_mem *m, qr_buf *err)
{
    if (m->pg)
        return qr__mem_pg_begin_read(m, err);
    if (m->user_tx)
        return user_tx_alive(m, err) ? QR_OK : QR_EIO;
    return run_stmt(m, ST_BEGIN, "read", err);
}

void qr__mem_rollback(qr_mem *m)
{
    if (m->pg) {
        qr__mem_pg_rollback(m);
        return;
    }
    if (m->user_tx) {
        /* in a transaction SQLite already rolled back there is no savepoint to undo */
        if (!sqlite3_get_autocommit(m->db))
            sqlite3_exec(m->db, "ROLLBACK TO qr_op; RELEASE qr_op", NULL, NULL, NULL);
        return;
    }
    if (!sqlite3_get_autocommit(m->db)) {
        sqlite3_stmt *st = qr__mem_stmt(m, ST_ROLLBACK, NULL);
        if (st) {
            sqlite3_step(st);
            sqlite3_reset(st);
        } else {
            sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL);
        }
    }
}

int qr__mem_commit_write(qr_mem *m, qr_buf *err)
{
    if (m->pg)
        return qr__mem_pg_commit_write(m, err);
    if (m->user_tx) {
        if (!user_tx_alive(m, err))
            return QR_EIO;
        int rc = exec_sql(m, "RELEASE qr_op", "write", err);
        if (rc != QR_OK)
            qr__mem_rollback(m);
        return rc;
    }
    int rc = run_stmt(m, ST_BUMP, "write", err);
    if (rc == QR_OK)
        rc = run_stmt(m, ST_COMMIT, "write", err);
    if (rc != QR_OK)
        qr__mem_rollback(m);
    else
        qr__mem_after_commit(m);
    return rc;
}

int qr__mem_commit_read(qr_mem *m, qr_buf *err)
{
    if (m->user_tx)
        return QR_OK;
    if (m->pg)
        return qr__mem_pg_commit_read(m, err);
    int rc = run_stmt(m, ST_COMMIT, "read", err);
    if (rc != QR_OK)
        qr__mem_rollback(m);
    return rc;
}

int qr_mem_begin(qr_mem *m, qr_buf *err)
{
    if (m->user_tx) {
        if (err)
            qr_buf_puts(err, "a transaction is already open on this store handle");
        return QR_EINVAL;
    }
    int rc = m->pg ? qr__mem_pg_begin_user(m, err) : qr__mem_check_before_write(m, err);
    if (m->pg) {
        m->user_tx = rc == QR_OK;
        return rc;
    }
    if (rc == QR_OK)
        rc = run_stmt(m, ST_BEGIN_WRITE, "write", err);
    if (rc == QR_OK)
        m->user_tx = true;
    return rc;
}

int qr_mem_commit(qr_mem *m, qr_buf *err)
{
    if (!m->user_tx) {
        if (err)
            qr_buf_puts(err, "no transaction is open on this store handle");
        return QR_EINVAL;
    }
    if (!user_tx_alive(m, err)) {
        m->user_tx = false;
        return QR_EIO;
    }
    m->user_tx = false;
    return qr__mem_commit_write(m, err);
}

void qr_mem_rollback(qr_mem *m)
{
    if (!m->user_tx)
        return;
    m->user_tx = false;
    qr__mem_rollback(m);
}

/* Ends a write: commit on success, roll back on failure; returns the first error. */
static int end_write(qr_mem *m, int rc, qr_buf *err)
{
    if (rc == QR_OK)
        return qr__mem_commit_write(m, err);
    qr__mem_rollback(m);
    return rc;
}

void qr__mem_format_time(int64_t t, char *buf, size_t len)
{
    qr_date_format_iso(t, 0, buf, len);
    size_t n = strlen(buf);
    if (n >= 6 && !strcmp(buf + n - 6, "+00:00") && len >= n - 4) {
        buf[n - 6] = 'Z';
        buf[n - 5] = '\0';
    }
}

/* ---- validation ---- */

static bool has_control(const char *s, bool allow_lines)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p < 0x20 && !(allow_lines && (*p == '\n' || *p == '\t' || *p == '\r'))) ||
            *p == 0x7f)
            return true;
    return false;
}

bool qr_mem_text_valid(const char *s, size_t n, bool lines)
{
    if (memchr(s, 0, n) || !qr_utf8_valid(s, n))
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && !(lines && (c == '\n' || c == '\t' || c == '\r'))) || c == 0x7f)
            return false;
    }
    return true;
}

bool qr__mem_check_key(const char *key, qr_buf *err)
{
    size_t n = key ? strlen(key) : 0;
    if (n == 0) {
        qr_buf_puts(err, "empty key: a node needs a key such as 'journal#2026-11-20'");
        return false;
    }
    if (n > QR_MEM_KEY_MAX) {
        qr_buf_printf(err, "key '%.40s...' is %zu bytes: at most %d", key, n, QR_MEM_KEY_MAX);
        return false;
    }
    if (!qr_utf8_valid(key, n) || has_control(key, false)) {
        qr_buf_puts(err, "key ");
        qr_buf_json_string(err, key, n < 80 ? n : 80);
        qr_buf_puts(err, " is not valid: keys are UTF-8 text without control characters");
        return false;
    }
    return true;
}

bool qr_mem_word_valid(const char *s)
{
    size_t n = 0;
    for (; s && s[n]; n++) {
        char c = s[n];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
            return false;
    }
    return n > 0 && n <= QR_MEM_WORD_MAX;
}

bool qr__mem_check_word(const char *what, const char *w, qr_buf *err)
{
    if (qr_mem_word_valid(w))
        return true;
    qr_buf_printf(err, "%s ", what);
    qr_buf_json_string(err, w ? w : "", w ? strnlen(w, 80) : 0);
    qr_buf_printf(err, " is not valid: use lowercase letters, digits and '-' (1 to %d), e.g. %s",
                  QR_MEM_WORD_MAX,
                  !strcmp(what, "type") ? "'semantic' or 'episodic-daily'" : "'related'");
    return false;
}

bool qr__mem_check_tag(const char *tag, qr_buf *err)
{
    size_t n = tag ? strlen(tag) : 0;
    bool ok = n > 0 && n <= QR_MEM_WORD_MAX && qr_utf8_valid(tag, n) && !has_control(tag, false);
    for (size_t i = 0; ok && i < n; i++)
        if (tag[i] == ' ')
            ok = false;
    if (!ok) {
        qr_buf_puts(err, "tag ");
        qr_buf_json_string(err, tag ? tag : "", n < 80 ? n : 80);
        qr_buf_printf(err, " is not valid: tags are 1 to %d bytes of UTF-8 without spaces or "
                           "control characters",
                      QR_MEM_WORD_MAX);
    }
    return ok;
}

bool qr__mem_check_weight(double w, qr_buf *err)
{
    if (isfinite(w) && w >= 0 && w <= 1)
        return true;
    qr_buf_printf(err, "weight %g is out of range: a weight is a number from 0 to 1", w);
    return false;
}

bool qr__mem_check_strength(double s, qr_buf *err)
{
    if (isfinite(s) && s > 0 && s <= 1)
        return true;
    qr_buf_printf(err,
                  "strength %g is out of range: a strength is a number above 0 and at most 1 "
                  "(to remove a link, unlink it)",
                  s);
    return false;
}

bool qr__mem_check_text(const char *what, const char *s, size_t max, bool lines, qr_buf *err)
{
    size_t n = strlen(s);
    if (n > max) {
        qr_buf_printf(err, "%s is %zu bytes: at most %zu", what, n, max);
        return false;
    }
    if (!qr_utf8_valid(s, n)) {
        qr_buf_printf(err, "%s is not valid UTF-8", what);
        return false;
    }
    if (!qr_mem_text_valid(s, n, lines)) {
        qr_buf_printf(err, "%s holds control characters%s", what,
                      lines ? " (only tab and line breaks are allowed)" : "");
        return false;
    }
    return true;
}

/* ---- opening ---- */

static int query_int(qr_mem *m, const char *sql, int64_t *out, qr_buf *err)
{
    int rc = qr_store_query_int(m->db, sql, out);
    return rc == SQLITE_OK ? QR_OK : qr__mem_fail(m, rc, "read", err);
}

int qr_mem_open(qr_mem **out, const char *path, int flags, qr_buf *err)
{
    *out = NULL;
    bool create = flags & QR_MEM_CREATE;
    bool memory = !strcmp(path, ":memory:");
    /* a PostgreSQL URL: store_pg.c (messages name the server, never the URL) */
    if (qr_store_backend_of(path) == QR_STORE_POSTGRES) {
        qr_mem *m = calloc(1, sizeof *m);
        if (!m) {
            qr_buf_puts(err, "out of memory opening the memory store");
            return QR_ENOMEM;
        }
        m->flags = flags;
        int rc = (m->location = strdup(path)) ? qr__mem_pg_open(m, path, create, err) : QR_ENOMEM;
        if (rc != QR_OK) {
            qr_mem_close(m);
            return rc;
        }
        *out = m;
        return QR_OK;
    }
    if (!memory && !create) {
        struct stat sb;
        if (stat(path, &sb) != 0) {
            if (errno == ENOENT) {
                qr_buf_printf(err,
                              "no memory store at '%s': create it with 'quarry mem add' or "
                              "'quarry mem import'",
                              path);
                return QR_ERUNTIME;
            }
            qr_buf_printf(err, "cannot open memory store '%s': %s", path, strerror(errno));
            return QR_EIO;
        }
    }
    qr_mem *m = calloc(1, sizeof *m);
    if (!m || !(m->path = strdup(path)) || !(m->location = strdup(path))) {
        if (m)
            free(m->path);
        free(m);
        qr_buf_printf(err, "out of memory opening memory store '%s'", path);
        return QR_ENOMEM;
    }
    m->flags = flags;
    /* what the file is, before anything is set on it (quarry/store.h): WAL is written
     * into the file's header, so only a quarry store or a file about to become one gets it */
    qr_store_spec spec = {.what = "memory store",
                          .location = path,
                          .application_id = MEM_APPLICATION_ID,
                          .schema_version = QR_MEM_SCHEMA_VERSION,
                          .schema_sql = schema_sql,
                          .after_create = qr_store_stamp_created,
                          .flags = QR_STORE_FOREIGN_KEYS | (create ? QR_STORE_CREATE : 0),
                          .busy_timeout_ms = MEM_BUSY_TIMEOUT_MS};
    qr_store st;
    int rc = qr_store_open(&st, &spec, err);
    m->db = st.db;
    if (rc != QR_OK) {
        if (st.sqlite_rc)
            rc = qr__mem_fail(m, st.sqlite_rc, st.failed_op, err);
        goto fail;
    }
    if (st.kind == QR_STORE_OTHER) {
        qr_buf_printf(err,
                      "'%s' is not a quarry memory store: it is another SQLite database; name "
                      "a new file to create a store",
                      m->path);
        rc = QR_EIO;
        goto fail;
    }
    if (st.kind == QR_STORE_EMPTY) {
        qr_buf_printf(err, "memory store '%s' is empty: add a note or import one first",
                      m->path);
        rc = QR_ERUNTIME;
        goto fail;
    }
    if (st.created)
        qr__mem_after_commit(m);
    *out = m;
    return QR_OK;
fail:
    qr_mem_close(m);
    return rc;
}

void qr_mem_close(qr_mem *m)
{
    if (!m)
        return;
    if (m->snap)
        qr_mem_snapshot_release(m->snap);
    qr__mem_pg_close(m);
    for (int i = 0; i < ST_N; i++)
        sqlite3_finalize(m->st[i]);
    qr__mem_close_files(m);
    free(m->real);
    free(m->path);
    free(m->location);
    free(m);
}

/* Every statement below runs through the seam (store_sql.c): SQLite's text, then
 * PostgreSQL's (the team database's mem_* tables, $N parameters, COLLATE "C" where an
 * order must be SQLite's bytes). */

int qr_mem_generation(qr_mem *m, uint64_t *out, qr_buf *err)
{
    qr__mem_q q;
    bool row = false;
    int rc = qr__mem_q_open(&q, m, ST_GENERATION, NULL, "SELECT generation FROM mem_state", err);
    if (rc == QR_OK)
        rc = qr__mem_q_step(&q, &row, "read", err);
    *out = row ? (uint64_t)qr__mem_q_col_int(&q, 0) : 0;
    qr__mem_q_close(&q);
    return rc;
}

int qr__mem_version(qr_mem *m, uint64_t *generation, uint64_t *write_id, qr_buf *err)
{
    qr__mem_q q;
    bool row = false;
    int rc = qr__mem_q_open(&q, m, ST_VERSION, NULL,
                            "SELECT generation, write_id FROM mem_state", err);
    if (rc == QR_OK)
        rc = qr__mem_q_step(&q, &row, "read", err);
    *generation = row ? (uint64_t)qr__mem_q_col_int(&q, 0) : 0;
    *write_id = row ? (uint64_t)qr__mem_q_col_int(&q, 1) : 0;
    qr__mem_q_close(&q);
    return rc;
}

/* ---- nodes ---- */

int qr__mem_node_id(qr_mem *m, const char *key, bool include_deleted, bool quiet, int64_t *id,
                    int64_t *deleted, qr_buf *err)
{
    int64_t del = 0;
    qr__mem_q q;
    bool found = false;
    int rc = qr__mem_q_open(&q, m, ST_NODE_ID, NULL,
                            "SELECT id, deleted FROM mem_nodes WHERE key = $1", err);
    if (rc == QR_OK) {
        qr__mem_q_text(&q, 1, key);
        rc = qr__mem_q_step(&q, &found, "read", err);
    }
    if (found) {
        *id = qr__mem_q_col_int(&q, 0);
        del = qr__mem_q_col_int(&q, 1);
    }
    qr__mem_q_close(&q);
    if (rc)
        return rc;
    if (deleted)
        *deleted = del;
    if (!found) {
        if (!quiet)
            qr_buf_printf(err, "no node '%s' in the memory store: keys are exact and "
                               "case-sensitive",
                          key);
        return QR_ERUNTIME;
    }
    if (del && !include_deleted) {
        if (!quiet)
            qr_buf_printf(err, "node '%s' is deleted: restore it with 'quarry mem restore %s'",
                          key, key);
        return QR_ERUNTIME;
    }
    return QR_OK;
}

/* Adds (ST_TAG_ADD) or removes (ST_TAG_DEL) one tag; *changes gets the rows changed. */
static int put_tag(qr_mem *m, int id, int64_t node, const char *tag, int *changes, qr_buf *err)
{
    qr__mem_q q;
    int rc = qr__mem_q_open(&q, m, id, NULL,
                            id == ST_TAG_ADD
                                ? "INSERT INTO mem_tags(node, tag) VALUES ($1::bigint, $2)"
                                  " ON CONFLICT DO NOTHING"
                                : "DELETE FROM mem_tags WHERE node = $1::bigint AND tag = $2",
                            err);
    if (rc == QR_OK) {
        qr__mem_q_int(&q, 1, node);
        qr__mem_q_text(&q, 2, tag);
        rc = qr__mem_q_run(&q, "write", err);
    }
    if (rc == QR_OK && changes)
        *changes = (int)qr__mem_q_changes(&q);
    qr__mem_q_close(&q);
    return rc;
}

int qr__mem_node_insert(qr_mem *m, const qr_mem_node *n, int64_t *id_out, qr_buf *err)
{
    const char *content = n->content ? n->content : "";
    const char *type = n->type ? n->type : "semantic";
    const char *prov = n->provenance ? n->provenance : "";
    if (!qr__mem_check_key(n->key, err) || !qr__mem_check_word("type", type, err) ||
        !qr__mem_check_weight(n->weight, err) ||
        !qr__mem_check_text("content", content, QR_MEM_CONTENT_MAX, true, err) ||
        !qr__mem_check_text("provenance", prov, QR_MEM_PROVENANCE_MAX, false, err))
        return QR_EINVAL;
    for (size_t i = 0; i < n->ntags; i++)
        if (!qr__mem_check_tag(n->tags[i], err))
            return QR_EINVAL;
    if (n->retrievals < 0 || n->uses < 0 || n->wrongs < 0 || n->deleted < 0) {
        qr_buf_printf(err, "node '%s': counters and times cannot be negative", n->key);
        return QR_EINVAL;
    }
    int64_t old, odel = 0;
    int rc = qr__mem_node_id(m, n->key, true, true, &old, &odel, err);
    if (rc == QR_OK) {
        if (odel)
            qr_buf_printf(err,
                          "node '%s' already exists (deleted): restore it with 'quarry mem "
                          "restore %s'",
                          n->key, n->key);
        else
            qr_buf_printf(err, "node '%s' already exists: change it with 'quarry mem update'",
                          n->key);
        return QR_ERUNTIME;
    }
    if (rc != QR_ERUNTIME)
        return rc;
    int64_t now = qr__mem_now(m);
    int64_t created = n->created ? n->created : now;
    int64_t modified = n->modified ? n->modified : created;
    qr__mem_q q;
    size_t clen = strlen(content);
    if ((rc = qr__mem_q_open(&q, m, ST_NODE_ADD, NULL,
                             "INSERT INTO mem_nodes(key, type, weight, provenance, created,"
                             " modified, retrievals, uses, wrongs, deleted, content_len, content)"
                             " VALUES ($1, $2, $3::double precision, $4, $5::bigint, $6::bigint,"
                             " $7::bigint, $8::bigint, $9::bigint, $10::bigint, $11::bigint, $12)"
                             " RETURNING id",
                             err)))
        return rc;
    qr__mem_q_text(&q, 1, n->key);
    qr__mem_q_text(&q, 2, type);
    qr__mem_q_double(&q, 3, n->weight);
    qr__mem_q_text(&q, 4, prov);
    qr__mem_q_int(&q, 5, created);
    qr__mem_q_int(&q, 6, modified);
    qr__mem_q_int(&q, 7, n->retrievals);
    qr__mem_q_int(&q, 8, n->uses);
    qr__mem_q_int(&q, 9, n->wrongs);
    if (n->deleted)
        qr__mem_q_int(&q, 10, n->deleted);
    else
        qr__mem_q_text(&q, 10, NULL);
    qr__mem_q_int(&q, 11, (int64_t)clen);
    qr__mem_q_text(&q, 12, content);
    bool row = false;
    rc = qr__mem_q_step(&q, &row, "write", err);
    /* PostgreSQL hands the id back as a row, SQLite as the last rowid */
    int64_t id = m->pg ? (row ? qr__mem_q_col_int(&q, 0) : 0) : sqlite3_last_insert_rowid(m->db);
    bool dup = rc && !strcmp(q.state, "23505");
    qr__mem_q_close(&q);
    if (dup) { /* another agent added the key between the look-up and the insert */
        err->len = 0;
        qr_buf_printf(err, "node '%s' already exists: change it with 'quarry mem update'",
                      n->key);
        return QR_ERUNTIME;
    }
    if (rc)
        return rc;
    for (size_t i = 0; i < n->ntags; i++)
        if ((rc = put_tag(m, ST_TAG_ADD, id, n->tags[i], NULL, err)))
            return rc;
    if (id_out)
        *id_out = id;
    return QR_OK;
}

int qr_mem_node_add(qr_mem *m, const qr_mem_node *n, int64_t *id_out, qr_buf *err)
{
    int rc = qr__mem_begin_write(m, err);
    if (rc)
        return rc;
    return end_write(m, qr__mem_node_insert(m, n, id_out, err), err);
}

static const char *col_str(const qr__mem_q *q, int c, qr_arena *a)
{
    size_t n;
    const char *p = qr__mem_q_col_text(q, c, &n);
    return qr_arena_strndup(a, p, n);
}

int qr_mem_node_get(qr_mem *m, const char *key, bool include_deleted, qr_arena *a,
                    qr_mem_node *out, qr_buf *err)
{
    memset(out, 0, sizeof *out);
    int rc = qr__mem_begin_read(m, err);
    if (rc)
        return rc;
    qr__mem_q q;
    bool row = false;
    if ((rc = qr__mem_q_open(&q, m, ST_NODE_GET, NULL,
                             "SELECT id, key, type, weight, provenance, created, modified,"
                             " retrievals, uses, wrongs, deleted, content_len, content"
                             " FROM mem_nodes WHERE key = $1",
                             err)))
        goto done;
    qr__mem_q_text(&q, 1, key);
    rc = qr__mem_q_step(&q, &row, "read", err);
    if (row) {
        out->id = qr__mem_q_col_int(&q, 0);
        out->key = col_str(&q, 1, a);
        out->type = col_str(&q, 2, a);
        out->weight = qr__mem_q_col_double(&q, 3);
        out->provenance = col_str(&q, 4, a);
        out->created = qr__mem_q_col_int(&q, 5);
        out->modified = qr__mem_q_col_int(&q, 6);
        out->retrievals = qr__mem_q_col_int(&q, 7);
        out->uses = qr__mem_q_col_int(&q, 8);
        out->wrongs = qr__mem_q_col_int(&q, 9);
        out->deleted = qr__mem_q_col_int(&q, 10);
        out->content = col_str(&q, 12, a);
        qr__mem_q_col_text(&q, 12, &out->content_len);
    }
    qr__mem_q_close(&q);
    if (rc)
        goto done;
    if (!row || (out->deleted && !include_deleted)) {
        int64_t id;
        rc = qr__mem_node_id(m, key, include_deleted, false, &id, NULL, err);
        if (rc == QR_OK)
            rc = QR_ERUNTIME;
        goto done;
    }
    if ((rc = qr__mem_q_open(&q, m, ST_NODE_TAGS, NULL,
                             "SELECT tag FROM mem_tags WHERE node = $1::bigint"
                             " ORDER BY tag COLLATE \"C\"",
                             err)))
        goto done;
    qr__mem_q_int(&q, 1, out->id);
    const char **tags = NULL;
    size_t ntags = 0, cap = 0;
    while ((rc = qr__mem_q_step(&q, &row, "read", err)) == QR_OK && row) {
        if (ntags == cap) {
            size_t ncap = cap ? cap * 2 : 8;
            const char **nt = qr_arena_realloc(a, tags, cap * sizeof *tags, ncap * sizeof *tags);
            if (!nt)
                break;
            tags = nt;
            cap = ncap;
        }
        tags[ntags++] = col_str(&q, 0, a);
    }
    qr__mem_q_close(&q);
    if (rc)
        goto done;
    out->tags = tags;
    out->ntags = ntags;
    if (a->exhausted) {
        qr_buf_printf(err, "out of memory reading node '%s'", key);
        rc = QR_ENOMEM;
    }
done:
    if (rc == QR_OK)
        rc = qr__mem_commit_read(m, err);
    else
        qr__mem_rollback(m);
    return rc;
}

/* Runs one write on node id ($1 / ?1) with one more value: text t2 (?2) when set, an
 * integer i3 (?3), or a double d4 (?4) with use_d4. PostgreSQL's text numbers its
 * parameters the same way. */
static int exec_bound(qr_mem *m, const char *sql, const char *pg_sql, int64_t i1,
                      const char *t2, int64_t i3, double d4, bool use_d4, qr_buf *err)
{
    qr__mem_q q;
    int rc = qr__mem_q_open(&q, m, -1, sql, pg_sql, err);
    if (rc == QR_OK) {
        qr__mem_q_int(&q, 1, i1);
        if (t2 || m->pg) /* PostgreSQL: parameters are positional, $2 must be given */
            qr__mem_q_text(&q, 2, t2);
        qr__mem_q_int(&q, 3, i3);
        if (use_d4)
            qr__mem_q_double(&q, 4, d4);
        rc = qr__mem_q_run(&q, "write", err);
    }
    qr__mem_q_close(&q);
    return rc;
}

static int touch(qr_mem *m, int64_t id, qr_buf *err)
{
    qr__mem_q q;
    int rc = qr__mem_q_open(&q, m, ST_TOUCH, NULL,
                            "UPDATE mem_nodes SET modified = $2::bigint WHERE id = $1::bigint",
                            err);
    if (rc == QR_OK) {
        qr__mem_q_int(&q, 1, id);
        qr__mem_q_int(&q, 2, qr__mem_now(m));
        rc = qr__mem_q_run(&q, "write", err);
    }
    qr__mem_q_close(&q);
    return rc;
}

static int update_in_tx(qr_mem *m, const char *key, const qr_mem_update *u, qr_buf *err)
{
    int64_t id;
    int rc = qr__mem_node_id(m, key, false, false, &id, NULL, err);
    if (rc)
        return rc;
    if (u->content &&
        !qr__mem_check_text("content", u->content, QR_MEM_CONTENT_MAX, true, err))
        return QR_EINVAL;
    if ((u->type && !qr__mem_check_word("type", u->type, err)) ||
        (u->provenance &&
         !qr__mem_check_text("provenance", u->provenance, QR_MEM_PROVENANCE_MAX, false, err)) ||
        (u->has_weight && !qr__mem_check_weight(u->weight, err)))
        return QR_EINVAL;
    for (size_t i = 0; i < u->nadd_tags; i++)
        if (!qr__mem_check_tag(u->add_tags[i], err))
            return QR_EINVAL;
    if (u->content &&
        (rc = exec_bound(m, "UPDATE nodes SET content = ?2, content_len = ?3 WHERE id = ?1",
                         "UPDATE mem_nodes SET content = $2, content_len = $3::bigint"
                         " WHERE id = $1::bigint",
                         id, u->content, (int64_t)strlen(u->content), 0, false, err)))
        return rc;
    /* PostgreSQL's texts name every parameter up to the last they use: ?3 is passed (0)
     * and ignored where it is not named */
    if (u->type &&
        (rc = exec_bound(m, "UPDATE nodes SET type = ?2 WHERE id = ?1",
                         "UPDATE mem_nodes SET type = $2 WHERE id = $1::bigint AND $3::bigint IS NOT NULL",
                         id, u->type, 0, 0, false, err)))
        return rc;
    if (u->provenance &&
        (rc = exec_bound(m, "UPDATE nodes SET provenance = ?2 WHERE id = ?1",
                         "UPDATE mem_nodes SET provenance = $2 WHERE id = $1::bigint"
                         " AND $3::bigint IS NOT NULL",
                         id, u->provenance, 0, 0, false, err)))
        return rc;
    /* the new weight is set in SQL, never computed in the client from a read */
    if (u->has_weight &&
        (rc = exec_bound(m, "UPDATE nodes SET weight = ?4 WHERE id = ?1",
                         "UPDATE mem_nodes SET weight = $4::double precision"
                         " WHERE id = $1::bigint AND $2::text IS NULL AND $3::bigint IS NOT NULL",
                         id, NULL, 0, u->weight, true, err)))
        return rc;
    for (size_t i = 0; i < u->nadd_tags; i++)
        if ((rc = put_tag(m, ST_TAG_ADD, id, u->add_tags[i], NULL, err)))
            return rc;
    for (size_t i = 0; i < u->nremove_tags; i++) {
        int changes = 0;
        if ((rc = put_tag(m, ST_TAG_DEL, id, u->remove_tags[i], &changes, err)))
            return rc;
        if (!changes) {
            qr_buf_printf(err, "node '%s' has no tag '%s': see its tags with 'quarry mem get %s'",
                          key, u->remove_tags[i], key);
            return QR_ERUNTIME;
        }
    }
    return touch(m, id, err);
}

int qr_mem_node_update(qr_mem *m, const char *key, const qr_mem_update *u, qr_buf *err)
{
    int rc = qr__mem_begin_write(m, err);
    if (rc)
        return rc;
    return end_write(m, update_in_tx(m, key, u, err), err);
}

int qr_mem_tag_add(qr_mem *m, const char *key, const char *tag, qr_buf *err)
{
    qr_mem_update u = {.add_tags = &tag, .nadd_tags = 1};
    return qr_mem_node_update(m, key, &u, err);
}

int qr_mem_tag_remove(qr_mem *m, const char *key, const char *tag, qr_buf *err)
{
    qr_mem_update u = {.remove_tags = &tag, .nremove_tags = 1};
    return qr_mem_node_update(m, key, &u, err);
}

static int set_deleted(qr_mem *m, const char *key, bool del, qr_buf *err)
{
    int rc = qr__mem_begin_write(m, err);
    if (rc)
        return rc;
    int64_t id, was = 0;
    rc = qr__mem_node_id(m, key, true, false, &id, &was, err);
    if (rc == QR_OK && del && was) {
        qr_buf_printf(err, "node '%s' is already deleted: restore it with 'quarry mem restore %s'",
                      key, key);
        rc = QR_ERUNTIME;
    } else if (rc == QR_OK && !del && !was) {
        qr_buf_printf(err, "node '%s' is not deleted: nothing to restore", key);
        rc = QR_ERUNTIME;
    }
    if (rc == QR_OK) {
        if (del)
            rc = exec_bound(m, "UPDATE nodes SET deleted = ?3 WHERE id = ?1",
                            "UPDATE mem_nodes SET deleted = $3::bigint WHERE id = $1::bigint"
                            " AND $2::text IS NULL",
                            id, NULL, qr__mem_now(m), 0, false, err);
        else
            rc = exec_bound(m, "UPDATE nodes SET deleted = NULL WHERE id = ?1",
                            "UPDATE mem_nodes SET deleted = NULL WHERE id = $1::bigint"
                            " AND $2::text IS NULL AND $3::bigint IS NOT NULL",
                            id, NULL, 0, 0, false, err);
    }
    return end_write(m, rc, err);
}

int qr_mem_node_delete(qr_mem *m, const char *key, qr_buf *err)
{
    return set_deleted(m, key, true, err);
}

int qr_mem_node_restore(qr_mem *m, const char *key, qr_buf *err)
{
    return set_deleted(m, key, false, err);
}

int qr_mem_node_count(qr_mem *m, const char *key, qr_mem_counter which, int64_t delta,
                      qr_buf *err)
{
    /* one UPDATE adds to the stored count: concurrent counters never lose an increment */
    static const char *const sql[] = {
        [QR_MEM_RETRIEVALS] = "UPDATE nodes SET retrievals = max(0, retrievals + ?3) WHERE id = ?1",
        [QR_MEM_USES] = "UPDATE nodes SET uses = max(0, uses + ?3) WHERE id = ?1",
        [QR_MEM_WRONGS] = "UPDATE nodes SET wrongs = max(0, wrongs + ?3) WHERE id = ?1",
    };
    static const char *const pg_sql[] = {
        [QR_MEM_RETRIEVALS] = "UPDATE mem_nodes SET retrievals = greatest(0, retrievals +"
                              " $3::bigint) WHERE id = $1::bigint AND $2::text IS NULL",
        [QR_MEM_USES] = "UPDATE mem_nodes SET uses = greatest(0, uses + $3::bigint)"
                        " WHERE id = $1::bigint AND $2::text IS NULL",
        [QR_MEM_WRONGS] = "UPDATE mem_nodes SET wrongs = greatest(0, wrongs + $3::bigint)"
                          " WHERE id = $1::bigint AND $2::text IS NULL",
    };
    if ((unsigned)which > QR_MEM_WRONGS) {
        qr_buf_printf(err, "unknown counter %d: expected retrievals, uses or wrongs", (int)which);
        return QR_EINVAL;
    }
    int rc = qr__mem_begin_write(m, err);
    if (rc)
        return rc;
    int64_t id;
    rc = qr__mem_node_id(m, key, false, false, &id, NULL, err);
    if (rc == QR_OK)
        rc = exec_bound(m, sql[which], pg_sql[which], id, NULL, delta, 0, false, err);
    return end_write(m, rc, err);
}

/* ---- edges ---- */

int qr__mem_edge_put(qr_mem *m, int64_t src, int64_t dst, double strength, const char *type,
                     bool *created, qr_buf *err)
{
    if (!qr__mem_check_strength(strength, err) || !qr__mem_check_word("link type", type, err))
        return QR_EINVAL;
    if (m->pg)
        return qr__mem_pg_edge_put(m, src, dst, strength, type, created, err);
    bool fresh = true;
    int rc = SQLITE_DONE;
    if (created) {
        sqlite3_stmt *has = qr__mem_stmt(m, ST_EDGE_HAS, err);
        if (!has)
            return QR_EIO;
        sqlite3_bind_int64(has, 1, src);
        sqlite3_bind_int64(has, 2, dst);
        sqlite3_bind_text(has, 3, type, -1, SQLITE_STATIC);
        rc = sqlite3_step(has);
        fresh = rc == SQLITE_DONE;
        sqlite3_reset(has);
        sqlite3_clear_bindings(has);
        if (rc != SQLITE_DONE && rc != SQLITE_ROW)
            return qr__mem_fail(m, rc, "read", err);
    }
    sqlite3_stmt *st = qr__mem_stmt(m, ST_EDGE_PUT, err);
    if (!st)
        return QR_EIO;
    sqlite3_bind_int64(st, 1, src);
    sqlite3_bind_int64(st, 2, dst);
    sqlite3_bind_text(st, 3, type, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 4, strength);
    rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE)
        return qr__mem_fail(m, rc, "write", err);
    if (created)
        *created = fresh;
    return QR_OK;
}

int qr_mem_link(qr_mem *m, const char *source, const char *target, double strength,
                const char *type, bool *created, qr_buf *err)
{
    if (!type)
        type = "related";
    if (!strcmp(source, target)) {
        qr_buf_printf(err, "cannot link '%s' to itself: a link joins two different nodes",
                      source);
        return QR_EINVAL;
    }
    int rc = qr__mem_begin_write(m, err);
    if (rc)
        return rc;
    int64_t s, t;
    if ((rc = qr__mem_node_id(m, source, false, false, &s, NULL, err)) == QR_OK &&
        (rc = qr__mem_node_id(m, target, false, false, &t, NULL, err)) == QR_OK)
        rc = qr__mem_edge_put(m, s, t, strength, type, created, err);
    return end_write(m, rc, err);
}

int qr_mem_unlink(qr_mem *m, const char *source, const char *target, const char *type,
                  int64_t *removed, qr_buf *err)
{
    if (type && !qr__mem_check_word("link type", type, err))
        return QR_EINVAL;
    int rc = qr__mem_begin_write(m, err);
    if (rc)
        return rc;
    int64_t s, t;
    if ((rc = qr__mem_node_id(m, source, false, false, &s, NULL, err)) == QR_OK &&
        (rc = qr__mem_node_id(m, target, false, false, &t, NULL, err)) == QR_OK) {
        qr__mem_q q;
        rc = qr__mem_q_open(
            &q, m, -1,
            type ? "DELETE FROM edges WHERE source = ?1 AND target = ?2 AND type = ?3"
                 : "DELETE FROM edges WHERE source = ?1 AND target = ?2",
            type ? "DELETE FROM mem_edges WHERE source = $1::bigint AND target = $2::bigint"
                   " AND type = $3"
                 : "DELETE FROM mem_edges WHERE source = $1::bigint AND target = $2::bigint",
            err);
        if (rc == QR_OK) {
            qr__mem_q_int(&q, 1, s);
            qr__mem_q_int(&q, 2, t);
            if (type)
                qr__mem_q_text(&q, 3, type);
            rc = qr__mem_q_run(&q, "write", err);
        }
        int64_t n = rc == QR_OK ? qr__mem_q_changes(&q) : 0;
        qr__mem_q_close(&q);
        if (rc == QR_OK) {
            if (removed)
                *removed = n;
            if (n == 0) {
                if (type)
                    qr_buf_printf(err, "no '%s' link from '%s' to '%s': see the links with "
                                       "'quarry mem get %s'",
                                  type, source, target, source);
                else
                    qr_buf_printf(err, "no link from '%s' to '%s': see the links with "
                                       "'quarry mem get %s'",
                                  source, target, source);
                rc = QR_ERUNTIME;
            }
        }
    }
    return end_write(m, rc, err);
}

int qr_mem_edges(qr_mem *m, const char *key, bool include_deleted, qr_arena *a,
                 qr_mem_edge **out, size_t *n, qr_buf *err)
{
    *out = NULL;
    *n = 0;
    int rc = qr__mem_begin_read(m, err);
    if (rc)
        return rc;
    int64_t id;
    if ((rc = qr__mem_node_id(m, key, include_deleted, false, &id, NULL, err))) {
        qr__mem_rollback(m);
        return rc;
    }
    qr__mem_q q;
    rc = qr__mem_q_open(
        &q, m, -1,
        "SELECT 0, o.key, e.type, e.strength FROM edges e JOIN nodes o ON o.id = e.target"
        " WHERE e.source = ?1 AND o.deleted IS NULL"
        " UNION ALL "
        "SELECT 1, o.key, e.type, e.strength FROM edges e JOIN nodes o ON o.id = e.source"
        " WHERE e.target = ?1 AND o.deleted IS NULL"
        " ORDER BY 1, 2, 3",
        "SELECT 0, o.key COLLATE \"C\", e.type COLLATE \"C\", e.strength FROM mem_edges e"
        " JOIN mem_nodes o ON o.id = e.target WHERE e.source = $1::bigint AND o.deleted IS NULL"
        " UNION ALL "
        "SELECT 1, o.key COLLATE \"C\", e.type COLLATE \"C\", e.strength FROM mem_edges e"
        " JOIN mem_nodes o ON o.id = e.source WHERE e.target = $1::bigint AND o.deleted IS NULL"
        " ORDER BY 1, 2, 3",
        err);
    size_t cap = 0;
    qr_mem_edge *v = NULL;
    const char *self = qr_arena_strndup(a, key, strlen(key));
    bool row = false;
    if (rc == QR_OK) {
        qr__mem_q_int(&q, 1, id);
        while ((rc = qr__mem_q_step(&q, &row, "read", err)) == QR_OK && row) {
            if (*n == cap) {
                size_t ncap = cap ? cap * 2 : 8;
                qr_mem_edge *nv = qr_arena_realloc(a, v, cap * sizeof *v, ncap * sizeof *v);
                if (!nv)
                    break;
                v = nv;
                cap = ncap;
            }
            qr_mem_edge *e = &v[(*n)++];
            const char *other = col_str(&q, 1, a);
            bool incoming = qr__mem_q_col_int(&q, 0) == 1;
            e->source = incoming ? other : self;
            e->target = incoming ? self : other;
            e->type = col_str(&q, 2, a);
            e->strength = qr__mem_q_col_double(&q, 3);
        }
    }
    qr__mem_q_close(&q);
    if (rc == QR_OK && a->exhausted) {
        qr_buf_printf(err, "out of memory reading the links of '%s'", key);
        rc = QR_ENOMEM;
    }
    if (rc) {
        qr__mem_rollback(m);
        return rc;
    }
    *out = v;
    return qr__mem_commit_read(m, err);
}

/* ---- visits ---- */

int qr__mem_visit_insert(qr_mem *m, int64_t node, const char *agent, int64_t time,
                         const char *outcome, qr_buf *err)
{
    if (!qr__mem_check_word("agent", agent, err) ||
        !qr__mem_check_text("outcome", outcome, QR_MEM_PROVENANCE_MAX, true, err))
        return QR_EINVAL;
    qr__mem_q q;
    int rc = qr__mem_q_open(&q, m, ST_VISIT_ADD, NULL,
                            "INSERT INTO mem_visits(node, agent, time, outcome)"
                            " VALUES ($1::bigint, $2, $3::bigint, $4)",
                            err);
    if (rc == QR_OK) {
        qr__mem_q_int(&q, 1, node);
        qr__mem_q_text(&q, 2, agent);
        qr__mem_q_int(&q, 3, time);
        qr__mem_q_text(&q, 4, outcome);
        rc = qr__mem_q_run(&q, "write", err);
    }
    qr__mem_q_close(&q);
    return rc;
}

int qr_mem_visit(qr_mem *m, const char *key, const char *agent, int64_t time,
                 const char *outcome, qr_buf *err)
{
    int rc = qr__mem_begin_write(m, err);
    if (rc)
        return rc;
    int64_t id;
    rc = qr__mem_node_id(m, key, false, false, &id, NULL, err);
    if (rc == QR_OK)
        rc = qr__mem_visit_insert(m, id, agent, time ? time : qr__mem_now(m),
                                  outcome ? outcome : "", err);
    return end_write(m, rc, err);
}
/* ---- search ---- */

/* Appends term as one FTS5 string (a phrase after tokenizing); false when it holds no
 * letters or digits (nothing the tokenizer would keep). */
static bool fts_phrase(qr_buf *q, const char *term)
{
    bool word = false;
    for (const unsigned char *p = (const unsigned char *)term; *p; p++)
        if (*p >= 0x80 || (*p >= '0' && *p <= '9') || ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z'))
            word = true;
    if (!word)
        return false;
    qr_buf_putc(q, '"');
    for (const char *p = term; *p; p++) {
        if (*p == '"')
            qr_buf_putc(q, '"');
        qr_buf_putc(q, *p);
    }
    qr_buf_putc(q, '"');
    return true;
}

/* Appends term to a PostgreSQL text[] literal: "..." with " and \ escaped. */
static void pg_array_item(qr_buf *q, const char *term)
{
    qr_buf_putc(q, q->len ? ',' : '{');
    qr_buf_putc(q, '"');
    for (const char *p = term; *p; p++) {
        if (*p == '"' || *p == '\\')
            qr_buf_putc(q, '\\');
        qr_buf_putc(q, *p);
    }
    qr_buf_putc(q, '"');
}

int qr_mem_search(qr_mem *m, const char *const *terms, size_t nterms, int mode, size_t limit,
                  qr_arena *a, qr_mem_hit **hits, size_t *n, qr_buf *err)
{
    *hits = NULL;
    *n = 0;
    qr_buf q;
    qr_buf_init(&q);
    size_t used = 0;
    /* PostgreSQL: the terms as a text[] literal; the phrases are made and joined in SQL */
    for (size_t i = 0; i < nterms; i++) {
        if (!qr_utf8_valid(terms[i], strlen(terms[i])))
            continue;
        size_t before = q.len;
        if (used && !m->pg)
            qr_buf_puts(&q, mode == QR_MEM_MATCH_ALL ? " AND " : " OR ");
        if (fts_phrase(&q, terms[i])) {
            used++;
            if (m->pg) {
                q.len = before;
                pg_array_item(&q, terms[i]);
            }
        } else {
            q.len = before;
        }
    }
    if (m->pg)
        qr_buf_putc(&q, '}');
    if (q.failed) {
        qr_buf_release(&q);
        qr_buf_puts(err, "out of memory building a search");
        return QR_ENOMEM;
    }
    if (!used) {
        qr_buf_release(&q);
        qr_buf_puts(err, "nothing to search for: give at least one term with a letter or digit");
        return QR_EINVAL;
    }
    if (q.p)
        q.p[q.len] = '\0';
    int rc = qr__mem_begin_read(m, err);
    if (rc) {
        qr_buf_release(&q);
        return rc;
    }
    /* PostgreSQL: each term a phrase (phraseto_tsquery, the english stemmer of the stored
     * tsvector), joined by & or |, ranked by ts_rank instead of bm25 */
    qr__mem_q st;
    rc = qr__mem_q_open(
        &st, m, -1,
        "SELECT f.rowid, -bm25(nodes_fts) AS score FROM nodes_fts f"
        " JOIN nodes n ON n.id = f.rowid"
        " WHERE nodes_fts MATCH ?1 AND n.deleted IS NULL"
        " ORDER BY score DESC, f.rowid LIMIT ?2",
        "SELECT n.id, ts_rank(n.search, w.q) AS score FROM mem_nodes n, (SELECT"
        " string_agg('(' || phraseto_tsquery('english', t)::text || ')', $3)::tsquery AS q"
        " FROM unnest($1::text[]) AS t WHERE numnode(phraseto_tsquery('english', t)) > 0) w"
        " WHERE n.search @@ w.q AND n.deleted IS NULL ORDER BY score DESC, n.id"
        " LIMIT nullif($2::bigint, -1)",
        err);
    size_t cap = 0;
    qr_mem_hit *v = NULL;
    bool row = false;
    if (rc == QR_OK) {
        qr__mem_q_text(&st, 1, q.p);
        qr__mem_q_int(&st, 2, limit ? (int64_t)limit : -1);
        if (m->pg)
            qr__mem_q_text(&st, 3, mode == QR_MEM_MATCH_ALL ? " & " : " | ");
        while ((rc = qr__mem_q_step(&st, &row, "search", err)) == QR_OK && row) {
            if (*n == cap) {
                size_t ncap = cap ? cap * 2 : 16;
                qr_mem_hit *nv = qr_arena_realloc(a, v, cap * sizeof *v, ncap * sizeof *v);
                if (!nv)
                    break;
                v = nv;
                cap = ncap;
            }
            v[*n].id = qr__mem_q_col_int(&st, 0);
            v[*n].score = qr__mem_q_col_double(&st, 1);
            (*n)++;
        }
    }
    qr__mem_q_close(&st);
    qr_buf_release(&q);
    if (rc == QR_OK && a->exhausted) {
        qr_buf_puts(err, "out of memory collecting search results");
        rc = QR_ENOMEM;
    }
    if (rc) {
        qr__mem_rollback(m);
        *n = 0;
        return rc;
    }
    *hits = v;
    return qr__mem_commit_read(m, err);
}

/* ---- statistics ---- */

int qr_mem_stats_get(qr_mem *m, qr_arena *a, qr_mem_stats *out, qr_buf *err)
{
    memset(out, 0, sizeof *out);
    int rc = qr__mem_begin_read(m, err);
    if (rc)
        return rc;
    if (m->pg) { /* the counts in one query of its own, the types below */
        if ((rc = qr__mem_pg_stats(m, out, err)))
            goto done;
        goto types;
    }
    int64_t gen = 0, pages = 0, psize = 0;
    if ((rc = query_int(m, "SELECT count(*) FROM nodes WHERE deleted IS NULL", &out->nodes,
                        err)) ||
        (rc = query_int(m, "SELECT count(*) FROM nodes WHERE deleted IS NOT NULL",
                        &out->deleted, err)) ||
        /* the edges touching a deleted node, found from the (few) deleted nodes through
         * the two edge indexes: joining every edge to both ends took 0.45 s for 1M */
        (rc = query_int(m,
                        "SELECT count(*) FROM edges"
                        " WHERE source IN (SELECT id FROM nodes WHERE deleted IS NOT NULL)"
                        " OR target IN (SELECT id FROM nodes WHERE deleted IS NOT NULL)",
                        &out->hidden_edges, err)) ||
        (rc = query_int(m, "SELECT count(*) FROM visits", &out->visits, err)) ||
        (rc = query_int(m,
                        "SELECT count(*) FROM tags g JOIN nodes n ON n.id = g.node"
                        " WHERE n.deleted IS NULL",
                        &out->tags, err)) ||
        (rc = query_int(m, "SELECT coalesce(sum(length(block)), 0) FROM nodes_fts_data",
                        &out->fts_bytes, err)) ||
        (rc = query_int(m, "SELECT value FROM meta WHERE key = 'generation'", &gen, err)) ||
        (rc = query_int(m, "PRAGMA page_count", &pages, err)) ||
        (rc = query_int(m, "PRAGMA page_size", &psize, err)))
        goto done;
    {
        int64_t all = 0;
        if ((rc = query_int(m, "SELECT count(*) FROM edges", &all, err)))
            goto done;
        out->edges = all - out->hidden_edges;
    }
    out->generation = (uint64_t)gen;
    out->file_bytes = pages * psize;
types:;
    qr__mem_q q;
    bool row = false;
    rc = qr__mem_q_open(&q, m, -1,
                        "SELECT type, count(*) FROM nodes WHERE deleted IS NULL"
                        " GROUP BY type ORDER BY type",
                        "SELECT type, count(*) FROM mem_nodes WHERE deleted IS NULL"
                        " GROUP BY type ORDER BY type COLLATE \"C\"",
                        err);
    size_t cap = 0;
    while (rc == QR_OK && (rc = qr__mem_q_step(&q, &row, "read", err)) == QR_OK && row) {
        if (out->ntypes == cap) {
            size_t ncap = cap ? cap * 2 : 8;
            qr_mem_type_count *nv =
                qr_arena_realloc(a, out->types, cap * sizeof *nv, ncap * sizeof *nv);
            if (!nv)
                break;
            out->types = nv;
            cap = ncap;
        }
        out->types[out->ntypes].type = col_str(&q, 0, a);
        out->types[out->ntypes].count = qr__mem_q_col_int(&q, 1);
        out->ntypes++;
    }
    qr__mem_q_close(&q);
    if (rc == QR_OK && a->exhausted) {
        qr_buf_puts(err, "out of memory reading the store's statistics");
        rc = QR_ENOMEM;
    }
done:
    if (rc) {
        qr__mem_rollback(m);
        return rc;
    }
    return qr__mem_commit_read(m, err);
}
