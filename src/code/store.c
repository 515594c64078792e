/*
 * store.c: the code index on disk, an SQLite database (WAL) at <gitdir>/quarry/code.db
 * beside the statistics index. It maps a git blob id to what the extractor found in that
 * blob, so a file is parsed once for every commit (and working tree) that holds it:
 *
 *   blobs(oid PRIMARY KEY, lang, status, bytes, lines, errors)   status: STORE_* below
 *   items(oid, seq, kind, name, parent, type, signature, cond, line, end_line,
 *         start_byte, end_byte, flags)                           qr_code_item
 *   refs(oid, seq, kind, from_name, name, cond, line)            qr_code_ref (calls,
 *                                                                includes, type uses)
 *   names(oid PRIMARY KEY, data)     the other identifier uses, packed one a line
 *                                    "LINE\tFROM\tCOND\tNAME" (three quarters of all
 *                                    references; read only by find_references)
 *
 * Rows are never updated: a blob's content never changes. PRAGMA user_version carries
 * the schema and extractor version together (what a blob yields depends on both); a
 * database of another version, or one that does not read as ours, is a cache and is
 * dropped and built afresh; one of a newer version is refused (quarry/store.h opens it).
 * Several processes may share it (WAL, 5 s busy timeout).
 *
 * The other backend: with QUARRY_DATABASE_URL set (the setting the shared statistics
 * index reads), every function here passes to store_pg.c, the same rows on the team
 * database shared by many repositories; the graph assembly above cannot tell them apart.
 *
 * Rejected: one serialized record per blob (faster to load, but the SPARQL views and
 * people with sqlite3 want rows); keying by path (a rename or a branch switch would
 * parse again).
 */
#include "store_int.h"

#include "quarry/store.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* bump when the schema or what the extractor yields for a blob changes */
#define CODE_STORE_VERSION 34
#define CODE_APPLICATION_ID 0x71636f64 /* "qcod" */

enum {
    ST_GET_BLOB,
    ST_GET_ITEMS,
    ST_GET_REFS,
    ST_GET_NAMES,
    ST_PUT_BLOB,
    ST_PUT_ITEM,
    ST_PUT_REF,
    ST_PUT_NAMES,
    ST_N
};

static const char *const stmt_sql[ST_N] = {
    "SELECT lang, status, bytes, lines, errors, error_lines FROM blobs WHERE oid = ?1",
    "SELECT kind, name, parent, type, signature, cond, line, end_line, start_byte, end_byte, "
    "flags FROM items WHERE oid = ?1 ORDER BY seq",
    "SELECT kind, from_name, name, cond, line FROM refs WHERE oid = ?1 ORDER BY seq",
    "SELECT data FROM names WHERE oid = ?1",
    "INSERT OR IGNORE INTO blobs(oid, lang, status, bytes, lines, errors, error_lines) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    "INSERT OR IGNORE INTO items VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    "INSERT OR IGNORE INTO refs VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    "INSERT OR IGNORE INTO names VALUES (?1, ?2)",
};

static const char schema_sql[] =
    "DROP TABLE IF EXISTS blobs; DROP TABLE IF EXISTS items; DROP TABLE IF EXISTS refs;"
    "DROP TABLE IF EXISTS names;"
    "CREATE TABLE blobs(oid TEXT PRIMARY KEY, lang INTEGER, status INTEGER, bytes INTEGER,"
    " lines INTEGER, errors INTEGER, error_lines TEXT) WITHOUT ROWID;"
    "CREATE TABLE items(oid TEXT, seq INTEGER, kind INTEGER, name TEXT, parent TEXT, type TEXT,"
    " signature TEXT, cond TEXT, line INTEGER, end_line INTEGER, start_byte INTEGER,"
    " end_byte INTEGER, flags INTEGER, PRIMARY KEY(oid, seq)) WITHOUT ROWID;"
    "CREATE TABLE refs(oid TEXT, seq INTEGER, kind INTEGER, from_name TEXT, name TEXT,"
    " cond TEXT, line INTEGER, PRIMARY KEY(oid, seq)) WITHOUT ROWID;"
    "CREATE TABLE names(oid TEXT PRIMARY KEY, data TEXT) WITHOUT ROWID;";

struct qr_code_store {
    qr_code_pg *pg; /* the team database; NULL: SQLite */
    sqlite3 *db;
    sqlite3_stmt *st[ST_N];
    char *path;
    bool in_tx;
};

int qr__code_store_version(void)
{
    return CODE_STORE_VERSION;
}

static int fail(qr_code_store *s, const char *what, qr_buf *err)
{
    qr_buf_printf(err, "code index '%s': %s failed: %s", s->path, what,
                  s->db ? sqlite3_errmsg(s->db) : "cannot open");
    return QR_EIO;
}

static void close_db(qr_code_store *s)
{
    for (int i = 0; i < ST_N; i++) {
        sqlite3_finalize(s->st[i]);
        s->st[i] = NULL;
    }
    if (s->db)
        sqlite3_close(s->db);
    s->db = NULL;
}

static int64_t pragma_int(sqlite3 *db, const char *sql, bool *ok)
{
    int64_t v = 0;
    *ok = qr_store_query_int(db, sql, &v) == SQLITE_OK;
    return v;
}

/* QR_OK, 1 when the file is not usable as ours (drop it and retry), or an error. */
static int open_db(qr_code_store *s, qr_buf *err)
{
    qr_store_spec spec = {.what = "code index",
                          .location = s->path,
                          .application_id = CODE_APPLICATION_ID,
                          .schema_version = CODE_STORE_VERSION,
                          .schema_sql = schema_sql,
                          .flags = QR_STORE_CREATE};
    qr_store st;
    int rc = qr_store_open(&st, &spec, err);
    s->db = st.db;
    if (rc != QR_OK) {
        int prim = st.sqlite_rc & 0xff;
        if (prim == SQLITE_NOTADB || prim == SQLITE_CORRUPT)
            return 1; /* damaged: a cache, rebuilt */
        if (st.sqlite_rc)
            qr_store_describe(&st, &spec, err);
        return rc;
    }
    if (st.kind != QR_STORE_OURS)
        return 1; /* another database, or an older schema */
    for (int i = 0; i < ST_N; i++)
        if (sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->st[i],
                               NULL) != SQLITE_OK)
            return 1;
    return QR_OK;
}

/* The team database's URL when one is configured, else NULL. */
static const char *shared_url(void)
{
    const char *url = getenv("QUARRY_DATABASE_URL");
    return url && *url ? url : NULL;
}

void qr__code_store_key(qr_buf *k)
{
    const char *url = shared_url();
    if (url)
        qr_store_server_name(url, k);
}

static int open_shared(const char *gitdir, const char *url, qr_code_store **out, qr_buf *err)
{
    if (qr_store_backend_of(url) != QR_STORE_POSTGRES) {
        qr_buf_puts(err, "QUARRY_DATABASE_URL is not a postgres:// or postgresql:// URL (it "
                         "is not shown: it may hold a password)");
        return QR_EINVAL;
    }
    qr_code_store *s = calloc(1, sizeof *s);
    if (!s)
        return QR_ENOMEM;
    /* the assembled graphs are still kept on this machine (gcache.c, keyed by the server) */
    if (gitdir) { /* NULL: a handle with no repository (qr_code_open_shared) */
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/quarry", gitdir);
        (void)mkdir(dir, 0755);
    }
    int rc = qr__code_pg_open(url, &s->pg, err);
    if (rc == QR_OK && !(s->path = strdup(qr__code_pg_server(s->pg))))
        rc = QR_ENOMEM;
    if (rc != QR_OK) {
        qr__code_store_close(s);
        return rc;
    }
    *out = s;
    return QR_OK;
}

int qr__code_store_open(const char *gitdir, qr_code_store **out, qr_buf *err)
{
    *out = NULL;
    if (shared_url())
        return open_shared(gitdir, shared_url(), out, err);
    if (!gitdir) {
        qr_buf_puts(err, "'repos' reads the shared code index, and none is configured: set "
                         "QUARRY_DATABASE_URL to the team database (docs/team.md), or leave "
                         "'repos' out to ask this repository");
        return QR_EINVAL;
    }
    qr_code_store *s = calloc(1, sizeof *s);
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_printf(&b, "%s/quarry", gitdir);
    if (!s || b.failed) {
        free(s);
        qr_buf_release(&b);
        return QR_ENOMEM;
    }
    if (mkdir(b.p, 0755) != 0 && errno != EEXIST) {
        qr_buf_printf(err, "cannot create directory '%s' for the code index: %s", b.p,
                      strerror(errno));
        qr_buf_release(&b);
        free(s);
        return QR_EIO;
    }
    qr_buf_puts(&b, "/code.db");
    s->path = qr_buf_detach(&b, NULL);
    if (!s->path) {
        free(s);
        return QR_ENOMEM;
    }
    int rc = open_db(s, err);
    if (rc == 1) {
        /* not ours, damaged or from another version: it is a cache, start afresh */
        close_db(s);
        char side[4096];
        unlink(s->path);
        snprintf(side, sizeof side, "%s-wal", s->path);
        unlink(side);
        snprintf(side, sizeof side, "%s-shm", s->path);
        unlink(side);
        qr__code_gcache_clear(gitdir, NULL);
        rc = open_db(s, err);
        if (rc == 1)
            rc = fail(s, "rebuilding", err);
    }
    if (rc != QR_OK) {
        qr__code_store_close(s);
        return rc;
    }
    *out = s;
    return QR_OK;
}

void qr__code_store_close(qr_code_store *s)
{
    if (!s)
        return;
    if (s->pg) {
        qr_buf e;
        qr_buf_init(&e);
        (void)qr__code_pg_commit(s->pg, &e);
        qr_buf_release(&e);
        qr__code_pg_close(s->pg);
    }
    if (s->in_tx && s->db)
        sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
    close_db(s);
    free(s->path);
    free(s);
}

const char *qr__code_store_path(const qr_code_store *s)
{
    return s->path;
}

bool qr__code_store_shared(const qr_code_store *s)
{
    return s->pg != NULL;
}

int qr__code_store_begin(qr_code_store *s, qr_buf *err)
{
    if (s->pg || s->in_tx)
        return QR_OK;
    if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return fail(s, "begin", err);
    s->in_tx = true;
    return QR_OK;
}

int qr__code_store_commit(qr_code_store *s, qr_buf *err)
{
    if (s->pg)
        return qr__code_pg_commit(s->pg, err);
    if (!s->in_tx)
        return QR_OK;
    s->in_tx = false;
    if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        /* the commit's message is the real error (a full disk, an I/O error): report it
         * before the rollback, whose own message (none active when SQLite already rolled
         * back by itself) would replace it */
        int rc = fail(s, "commit", err);
        if (!sqlite3_get_autocommit(s->db))
            sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return rc;
    }
    return QR_OK;
}

static const char *col_str(sqlite3_stmt *st, int i, qr_arena *a)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    if (!t)
        return NULL;
    return qr_arena_strndup(a, (const char *)t, (size_t)sqlite3_column_bytes(st, i));
}


size_t qr__code_error_lines_text(const qr_code_file *f, char out[QR_CODE_ERROR_LINES_TEXT])
{
    size_t n = 0;
    out[0] = 0;
    for (uint32_t k = 0; k < f->nerror_lines && k < QR_CODE_ERROR_LINES; k++)
        n += (size_t)snprintf(out + n, QR_CODE_ERROR_LINES_TEXT - n, "%s%u", k ? " " : "",
                              (unsigned)f->error_line[k]);
    return n;
}

void qr__code_error_lines(const char *el, qr_code_file *f)
{
    while (el && *el && f->nerror_lines < QR_CODE_ERROR_LINES) {
        char *end;
        unsigned long v = strtoul(el, &end, 10);
        if (end == el || v > UINT32_MAX)
            break;
        f->error_line[f->nerror_lines++] = (uint32_t)v;
        el = end;
        while (*el == ' ')
            el++;
    }
}

int qr__code_store_get(qr_code_store *s, const char *oid, qr_arena *a, qr_code_blob *out,
                       qr_buf *err)
{
    if (s->pg)
        return qr__code_pg_get(s->pg, oid, a, out, err);
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st = s->st[ST_GET_BLOB];
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, oid, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        sqlite3_reset(st);
        return 1; /* absent */
    }
    if (rc != SQLITE_ROW) {
        sqlite3_reset(st);
        return fail(s, "read", err);
    }
    out->file.lang = (qr_code_lang)sqlite3_column_int(st, 0);
    out->status = sqlite3_column_int(st, 1);
    out->bytes = (size_t)sqlite3_column_int64(st, 2);
    out->file.lines = (uint32_t)sqlite3_column_int64(st, 3);
    out->file.errors = (uint32_t)sqlite3_column_int64(st, 4);
    /* error_lines: "12 40 77", the first lines with a syntax error */
    out->file.nerror_lines = 0;
    qr__code_error_lines((const char *)sqlite3_column_text(st, 5), &out->file);
    sqlite3_reset(st);
    if (out->status != QR_CODE_BLOB_OK)
        return QR_OK;

    size_t cap = 0;
    st = s->st[ST_GET_ITEMS];
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, oid, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (out->file.nitems == cap) {
            size_t nc = cap ? cap * 2 : 32;
            void *np = qr_arena_realloc(a, out->file.items, cap * sizeof(qr_code_item),
                                        nc * sizeof(qr_code_item));
            if (!np) {
                sqlite3_reset(st);
                return QR_ENOMEM;
            }
            out->file.items = np;
            cap = nc;
        }
        qr_code_item *it = &out->file.items[out->file.nitems++];
        it->kind = (qr_code_kind)sqlite3_column_int(st, 0);
        it->name = col_str(st, 1, a);
        it->parent = col_str(st, 2, a);
        it->type = col_str(st, 3, a);
        it->signature = col_str(st, 4, a);
        it->cond = col_str(st, 5, a);
        it->line = (uint32_t)sqlite3_column_int64(st, 6);
        it->end_line = (uint32_t)sqlite3_column_int64(st, 7);
        it->start_byte = (uint32_t)sqlite3_column_int64(st, 8);
        it->end_byte = (uint32_t)sqlite3_column_int64(st, 9);
        it->flags = (uint32_t)sqlite3_column_int64(st, 10);
        if (!it->name)
            it->name = "";
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return fail(s, "read", err);

    cap = 0;
    st = s->st[ST_GET_REFS];
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, oid, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (out->file.nrefs == cap) {
            size_t nc = cap ? cap * 2 : 64;
            void *np = qr_arena_realloc(a, out->file.refs, cap * sizeof(qr_code_ref),
                                        nc * sizeof(qr_code_ref));
            if (!np) {
                sqlite3_reset(st);
                return QR_ENOMEM;
            }
            out->file.refs = np;
            cap = nc;
        }
        qr_code_ref *r = &out->file.refs[out->file.nrefs++];
        r->kind = (qr_code_ref_kind)sqlite3_column_int(st, 0);
        r->from = col_str(st, 1, a);
        r->name = col_str(st, 2, a);
        r->cond = col_str(st, 3, a);
        r->line = (uint32_t)sqlite3_column_int64(st, 4);
        if (!r->name)
            r->name = "";
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return fail(s, "read", err);
    return a->exhausted ? QR_ENOMEM : QR_OK;
}

static void bind_opt(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}

static int step_done(qr_code_store *s, sqlite3_stmt *st, qr_buf *err)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc == SQLITE_DONE)
        return QR_OK;
    int r = fail(s, "write", err);
    /* after a full disk or an I/O error SQLite may have rolled the whole transaction
     * back: the next write begins a new one instead of running outside any */
    if (sqlite3_get_autocommit(s->db))
        s->in_tx = false;
    return r;
}

int qr__code_store_put(qr_code_store *s, const char *oid, const qr_code_blob *b, qr_buf *err)
{
    if (s->pg)
        return qr__code_pg_put(s->pg, oid, b, err);
    int rc = qr__code_store_begin(s, err);
    if (rc)
        return rc;
    sqlite3_stmt *st = s->st[ST_PUT_BLOB];
    sqlite3_bind_text(st, 1, oid, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, (int)b->file.lang);
    sqlite3_bind_int(st, 3, b->status);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)b->bytes);
    sqlite3_bind_int64(st, 5, b->file.lines);
    sqlite3_bind_int64(st, 6, b->file.errors);
    char el[QR_CODE_ERROR_LINES_TEXT];
    size_t eln = qr__code_error_lines_text(&b->file, el);
    sqlite3_bind_text(st, 7, el, (int)eln, SQLITE_TRANSIENT);
    if ((rc = step_done(s, st, err)))
        return rc;
    st = s->st[ST_PUT_ITEM];
    for (size_t i = 0; i < b->file.nitems; i++) {
        const qr_code_item *it = &b->file.items[i];
        sqlite3_bind_text(st, 1, oid, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
        sqlite3_bind_int(st, 3, (int)it->kind);
        bind_opt(st, 4, it->name);
        bind_opt(st, 5, it->parent);
        bind_opt(st, 6, it->type);
        bind_opt(st, 7, it->signature);
        bind_opt(st, 8, it->cond);
        sqlite3_bind_int64(st, 9, it->line);
        sqlite3_bind_int64(st, 10, it->end_line);
        sqlite3_bind_int64(st, 11, it->start_byte);
        sqlite3_bind_int64(st, 12, it->end_byte);
        sqlite3_bind_int64(st, 13, it->flags);
        if ((rc = step_done(s, st, err)))
            return rc;
    }
    qr_buf packed;
    qr_buf_init(&packed);
    for (size_t i = 0; i < b->file.nrefs; i++) {
        const qr_code_ref *r = &b->file.refs[i];
        if (r->kind == QR_CODE_REF_NAME)
            qr_buf_printf(&packed, "%u\t%s\t%s\t%s\n", r->line, r->from ? r->from : "",
                          r->cond ? r->cond : "", r->name);
    }
    if (packed.failed) {
        qr_buf_release(&packed);
        return QR_ENOMEM;
    }
    if (packed.len) {
        st = s->st[ST_PUT_NAMES];
        sqlite3_bind_text(st, 1, oid, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, packed.p, (int)packed.len, SQLITE_STATIC);
        rc = step_done(s, st, err);
    }
    qr_buf_release(&packed);
    if (rc)
        return rc;
    st = s->st[ST_PUT_REF];
    for (size_t i = 0; i < b->file.nrefs; i++) {
        const qr_code_ref *r = &b->file.refs[i];
        if (r->kind == QR_CODE_REF_NAME)
            continue;
        sqlite3_bind_text(st, 1, oid, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
        sqlite3_bind_int(st, 3, (int)r->kind);
        bind_opt(st, 4, r->from);
        bind_opt(st, 5, r->name);
        bind_opt(st, 6, r->cond);
        sqlite3_bind_int64(st, 7, r->line);
        if ((rc = step_done(s, st, err)))
            return rc;
    }
    return QR_OK;
}

int qr__code_store_prune(qr_code_store *s, const char *const *keep, size_t n, int64_t *removed,
                         qr_buf *err)
{
    *removed = 0;
    if (s->pg)
        return QR_OK; /* shared rows: qr__code_store_prune_shared prunes by every listing */
    if (s->in_tx && qr__code_store_commit(s, err) != QR_OK)
        return QR_EIO;
    if (sqlite3_exec(s->db,
                     "BEGIN IMMEDIATE; DROP TABLE IF EXISTS temp.keep;"
                     " CREATE TEMP TABLE keep(oid TEXT PRIMARY KEY) WITHOUT ROWID;",
                     NULL, NULL, NULL) != SQLITE_OK)
        return fail(s, "pruning", err);
    sqlite3_stmt *ins = NULL;
    int rc = QR_OK;
    if (sqlite3_prepare_v2(s->db, "INSERT OR IGNORE INTO temp.keep VALUES (?1)", -1, &ins, NULL) !=
        SQLITE_OK)
        rc = fail(s, "pruning", err);
    for (size_t i = 0; i < n && rc == QR_OK; i++) {
        sqlite3_reset(ins);
        sqlite3_bind_text(ins, 1, keep[i], -1, SQLITE_STATIC);
        if (sqlite3_step(ins) != SQLITE_DONE)
            rc = fail(s, "pruning", err);
    }
    sqlite3_finalize(ins);
    static const char *const del[] = {
        "DELETE FROM blobs WHERE oid NOT IN (SELECT oid FROM temp.keep)",
        "DELETE FROM items WHERE oid NOT IN (SELECT oid FROM temp.keep)",
        "DELETE FROM refs WHERE oid NOT IN (SELECT oid FROM temp.keep)",
        "DELETE FROM names WHERE oid NOT IN (SELECT oid FROM temp.keep)"};
    for (size_t i = 0; i < sizeof del / sizeof *del && rc == QR_OK; i++) {
        if (sqlite3_exec(s->db, del[i], NULL, NULL, NULL) != SQLITE_OK)
            rc = fail(s, "pruning", err);
        else if (i == 0)
            *removed = sqlite3_changes64(s->db);
    }
    if (rc != QR_OK) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return rc;
    }
    if (sqlite3_exec(s->db, "COMMIT; DROP TABLE temp.keep;", NULL, NULL, NULL) != SQLITE_OK)
        return fail(s, "pruning", err);
    /* give the space back: the file shrinks to what is left */
    if (*removed && (sqlite3_exec(s->db, "VACUUM", NULL, NULL, NULL) != SQLITE_OK ||
                     sqlite3_exec(s->db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL) !=
                         SQLITE_OK))
        return fail(s, "compacting", err);
    return QR_OK;
}

int qr__code_store_count(qr_code_store *s, int64_t *blobs, int64_t *items, int64_t *refs)
{
    if (s->pg)
        return qr__code_pg_count(s->pg, blobs, items, refs);
    bool ok1, ok2, ok3;
    *blobs = pragma_int(s->db, "SELECT count(*) FROM blobs", &ok1);
    *items = pragma_int(s->db, "SELECT count(*) FROM items", &ok2);
    *refs = pragma_int(s->db, "SELECT count(*) FROM refs", &ok3);
    return ok1 && ok2 && ok3 ? QR_OK : QR_EIO;
}

/* Parses the packed identifier uses of a blob ("LINE\tFROM\tCOND\tNAME" a line, in copy,
 * which it cuts in place) into refs from a. */
static int parse_names(char *copy, size_t len, qr_arena *a, qr_code_ref **out, size_t *n)
{
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += copy[i] == '\n';
    qr_code_ref *refs = qr_arena_zalloc(a, (lines ? lines : 1) * sizeof *refs);
    if (!refs)
        return QR_ENOMEM;
    size_t k = 0;
    for (char *p = copy; *p && k < lines;) {
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = 0;
        char *f[4] = {p, NULL, NULL, NULL};
        for (int j = 1; j < 4; j++) {
            char *t = f[j - 1] ? strchr(f[j - 1], '\t') : NULL;
            if (t) {
                *t = 0;
                f[j] = t + 1;
            }
        }
        if (f[3]) {
            qr_code_ref *r = &refs[k++];
            r->kind = QR_CODE_REF_NAME;
            r->line = (uint32_t)strtoul(f[0], NULL, 10);
            r->from = *f[1] ? f[1] : NULL;
            r->cond = *f[2] ? f[2] : NULL;
            r->name = f[3];
        }
        p = nl + 1;
    }
    *out = refs;
    *n = k;
    return QR_OK;
}

int qr__code_store_names(qr_code_store *s, const char *oid, qr_arena *a, qr_code_ref **out,
                         size_t *n, qr_buf *err)
{
    *out = NULL;
    *n = 0;
    if (s->pg) {
        char *data;
        size_t len;
        int rc = qr__code_pg_names(s->pg, oid, a, &data, &len, err);
        return rc != QR_OK || !data ? rc : parse_names(data, len, a, out, n);
    }
    sqlite3_stmt *st = s->st[ST_GET_NAMES];
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, oid, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        sqlite3_reset(st);
        return QR_OK;
    }
    if (rc != SQLITE_ROW) {
        sqlite3_reset(st);
        return fail(s, "read", err);
    }
    const char *data = (const char *)sqlite3_column_text(st, 0);
    size_t len = (size_t)sqlite3_column_bytes(st, 0);
    char *copy = data ? qr_arena_strndup(a, data, len) : NULL;
    sqlite3_reset(st);
    if (!copy)
        return data ? QR_ENOMEM : QR_OK;
    return parse_names(copy, len, a, out, n);
}

int qr__code_store_record(qr_code_store *s, const char *name, const char *location,
                          const char *commit, bool worktree, const char *const *paths,
                          const char *const *oids, const int *langs, size_t n, qr_buf *err)
{
    if (!s->pg)
        return QR_OK;
    return qr__code_pg_record(s->pg, name, location, commit, worktree, paths, oids, langs, n,
                              err);
}

static int not_shared(qr_buf *err)
{
    qr_buf_puts(err, "the code index is this repository's SQLite file: other repositories "
                     "are on the team database (set QUARRY_DATABASE_URL)");
    return QR_EINVAL;
}

int qr__code_store_prune_shared(qr_code_store *s, const qr_stop *stop, int wait_ms,
                                qr_code_gc_stats *out, qr_buf *err)
{
    return s->pg ? qr__code_pg_prune(s->pg, stop, wait_ms, out, err) : not_shared(err);
}

int qr__code_store_want(qr_code_store *s, const char *name, const char *location, qr_buf *err)
{
    return s->pg ? qr__code_pg_want(s->pg, name, location, err) : not_shared(err);
}

int qr__code_store_repos(qr_code_store *s, qr_arena *a, const char ***names, size_t *n,
                         qr_buf *err)
{
    return s->pg ? qr__code_pg_repos(s->pg, a, names, n, err) : not_shared(err);
}

int qr__code_store_listing(qr_code_store *s, const char *name, qr_arena *a,
                           qr_code_listing *out, qr_buf *err)
{
    return s->pg ? qr__code_pg_listing(s->pg, name, a, out, err) : not_shared(err);
}

void qr__code_store_prefetch(qr_code_store *s, const char *const *oids, size_t n)
{
    if (!s->pg)
        return;
    qr_buf e;
    qr_buf_init(&e);
    (void)qr__code_pg_prefetch(s->pg, oids, n, &e);
    qr_buf_release(&e);
}
