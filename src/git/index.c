/*
 * index.c: the persistent per-commit statistics index, an SQLite database (WAL) at
 * <gitdir>/quarry/index.db that maps a commit id to what `git log --numstat --no-renames`
 * reports for that commit.
 *
 * Design. A commit's stats never change under the same attributes (.gitattributes can make
 * git count a file as binary: attrs.c), so each row carries the fingerprint of the
 * attributes it was computed under; reads see only rows of the handle's fingerprint
 * (qr_git_index_set_attrs), and a put replaces a row of another fingerprint but leaves one
 * of the same alone. The index is a cache: a database that is corrupt or has an older
 * schema is moved aside (index.db.broken-<UTC time>) and created afresh; one with a newer
 * schema is refused (quarry/store.h: a newer quarry's index is not ours to drop). The schema
 * (version in PRAGMA user_version, file type in PRAGMA application_id "QRRY"):
 *
 *   meta(key TEXT PRIMARY KEY, value TEXT)            quarry_version, schema_version, created
 *   paths(id INTEGER PRIMARY KEY, path BLOB UNIQUE)   each path stored once
 *   commits(oid BLOB PRIMARY KEY,                     the 20 raw bytes of the id
 *           nfiles, additions, deletions INTEGER,
 *           files BLOB,                               the packed file list
 *           attrs INTEGER) WITHOUT ROWID              the attributes fingerprint
 *   idents(id INTEGER PRIMARY KEY, name BLOB,         each author identity stored once,
 *          email BLOB, UNIQUE(name, email))           before .mailmap, in UTF-8 (from
 *                                                     the commit's declared encoding)
 *   graph(oid BLOB PRIMARY KEY, ctime, atime,         each commit's header fields: the
 *         aoffset, ident INTEGER,                     commit graph a walk needs, so that
 *         parents BLOB) WITHOUT ROWID                 a warm query reads no commit objects
 *
 * `graph` has a row for every commit a walk read (merges and shallow boundaries too, which
 * `commits` never holds); `parents` is their raw ids concatenated, as recorded (a shallow
 * boundary is applied by the walk, so deepening a clone changes nothing here). The author
 * is kept as recorded because .mailmap can change at any time; it is applied per identity
 * at query time. Its reader and writer are in index_graph.c.
 *
 * `files` packs each file as three unsigned LEB128 varints (path id, additions,
 * deletions) and one byte: the status letter, | 0x80 when binary. Paths are BLOBs, so
 * names that are not UTF-8 come back byte for byte. Every read runs in one read
 * transaction. A bulk get that asks for a large part of the index scans the table once
 * and matches ids in a hash table rather than doing one B-tree descent per commit; each
 * path id is resolved once per call, so equal paths in one result are one string.
 *
 * Measured on 20,000 commits x 5 files (3,000 distinct paths), 2 cores, loading every
 * commit with plain SQLite calls: a normalized files(oid, seq, path_id, ...) table:
 * 4.8 MB, 73 ms by lookups; packed with the paths inline: 4.9 MB, 25 ms by lookups, 4 ms
 * by scan; packed with path ids (this schema): 1.5 MB, 3 ms by scan. Through this API
 * (ids parsed and hashed, results built in an arena): qr_git_index_get_many of all 20,000
 * takes 7 to 10 ms, opening 2 to 4 ms, putting all 20,000 in one call 40 ms. The graph
 * of 20,000 commits (schema 2) adds about 1.3 MB and loads in about 5 ms, where reading
 * the same commits from the pack with libgit2 takes 100 to 130 ms. Rejected:
 * the normalized table (3x larger, 20x slower to load), inline paths (3x larger), a hex
 * TEXT key (twice the key bytes), mmap I/O (no measurable gain; I/O errors become
 * SIGBUS).
 *
 * Concurrency: WAL, synchronous=NORMAL and a 5 s busy timeout; writers take the write
 * lock at BEGIN (BEGIN IMMEDIATE) so two writers queue instead of failing with BUSY. A
 * broken file is moved aside under an fcntl lock on quarry/index.lock; a process that
 * gets the lock and finds another file at the path (another inode: someone rebuilt it)
 * checks that file instead, so two processes that find the index broken rebuild it once.
 * Corruption is looked for at open (PRAGMA quick_check, on databases up to 16 MiB, which
 * costs about 2 ms per 1.5 MB, skipped while the file is as it was when a check last
 * passed: see "the check at open") and in every query (SQLITE_CORRUPT, SQLITE_NOTADB, or
 * a packed list that does not decode): a query that finds it rebuilds and runs again.
 * What this file and index_graph.c share is in index_int.h.
 */
#include "index_int.h"

#include "quarry/date.h"
#include "quarry/store.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define INDEX_SCHEMA_VERSION QR_GIT_INDEX_SCHEMA_VERSION
#define INDEX_APPLICATION_ID 0x51525259 /* "QRRY" */
/* The same string `quarry version` prints (src/cli/main.c); informative only. */
#define INDEX_QUARRY_VERSION QR_VERSION
#define INDEX_BUSY_TIMEOUT_MS 5000
#define INDEX_QUICK_CHECK_MAX ((int64_t)16 << 20)
/* A bulk get of at least SCAN_MIN ids scans the whole table when the table holds at most
 * SCAN_RATIO times as many commits (a scanned row costs ~0.2 us, a lookup ~1.5 us). */
#define SCAN_MIN 256
#define SCAN_RATIO 4

static const char *const stmt_sql[ST_N] = {
    [ST_BEGIN] = "BEGIN",
    [ST_BEGIN_WRITE] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_GET] = "SELECT nfiles, additions, deletions, files FROM commits WHERE oid = ?1 AND attrs = ?2",
    [ST_SCAN] = "SELECT oid, nfiles, additions, deletions, files FROM commits WHERE attrs = ?1",
    [ST_COUNT] = "SELECT count(*) FROM commits WHERE attrs = ?1",
    [ST_HAS] = "SELECT 1 FROM commits WHERE oid = ?1 AND attrs = ?2",
    /* a row computed under other attributes is replaced */
    [ST_PUT] = ("INSERT INTO commits(oid, nfiles, additions, deletions, files, attrs) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(oid) DO UPDATE SET "
                "nfiles = excluded.nfiles, additions = excluded.additions, "
                "deletions = excluded.deletions, files = excluded.files, attrs = excluded.attrs "
                "WHERE attrs != excluded.attrs"),
    [ST_PATH_FIND] = "SELECT id FROM paths WHERE path = ?1",
    [ST_PATH_ADD] = "INSERT INTO paths(path) VALUES (?1)",
    [ST_PATH_GET] = "SELECT path FROM paths WHERE id = ?1",
    [ST_PATH_ALL] = "SELECT id, path FROM paths",
    [ST_PATH_MAX] = "SELECT max(id) FROM paths",
    [ST_PAGE_COUNT] = "PRAGMA page_count",
    [ST_PAGE_SIZE] = "PRAGMA page_size",
    [ST_SCAN_OIDS] = "SELECT oid FROM commits WHERE attrs = ?1",
    [ST_GRAPH_GET] = "SELECT ctime, atime, aoffset, ident, parents FROM graph WHERE oid = ?1",
    [ST_GRAPH_SCAN] = "SELECT oid, ctime, atime, aoffset, ident, parents FROM graph",
    [ST_GRAPH_PUT] = ("INSERT OR IGNORE INTO graph(oid, ctime, atime, aoffset, ident, parents) "
                      "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"),
    [ST_IDENT_FIND] = "SELECT id FROM idents WHERE name = ?1 AND email = ?2",
    [ST_IDENT_ADD] = "INSERT INTO idents(name, email) VALUES (?1, ?2)",
    [ST_IDENT_ALL] = "SELECT id, name, email FROM idents",
};

static const char schema_sql[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE paths(id INTEGER PRIMARY KEY, path BLOB NOT NULL UNIQUE);"
    "CREATE TABLE commits(oid BLOB PRIMARY KEY, nfiles INTEGER NOT NULL,"
    " additions INTEGER NOT NULL, deletions INTEGER NOT NULL, files BLOB,"
    " attrs INTEGER NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE idents(id INTEGER PRIMARY KEY, name BLOB NOT NULL, email BLOB NOT NULL,"
    " UNIQUE(name, email));"
    "CREATE TABLE graph(oid BLOB PRIMARY KEY, ctime INTEGER NOT NULL, atime INTEGER NOT NULL,"
    " aoffset INTEGER NOT NULL, ident INTEGER NOT NULL, parents BLOB) WITHOUT ROWID;"
    "INSERT INTO meta(key, value) VALUES"
    " ('quarry_version', '" INDEX_QUARRY_VERSION "'),"
    " ('schema_version', '3'),"
    " ('created', '');"
    "PRAGMA application_id = 1364349529;" /* INDEX_APPLICATION_ID */
    "PRAGMA user_version = 3;";           /* INDEX_SCHEMA_VERSION */

_Static_assert(INDEX_APPLICATION_ID == 1364349529, "schema_sql spells the application id");
_Static_assert(INDEX_SCHEMA_VERSION == 3, "schema_sql spells the schema version");

/* ---- errors ---- */

static bool is_broken_code(int rc)
{
    rc &= 0xff;
    return rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB;
}

/* Turns a failed SQLite call into IX_BROKEN (a corrupt file, rebuilt by the caller) or a
 * message in err and QR_EIO / QR_ENOMEM. `what` is a verb: open, read, write. */
int qr__ix_fail(qr_git_index *ix, int rc, const char *what, qr_buf *err)
{
    if (is_broken_code(rc))
        return IX_BROKEN;
    if ((rc & 0xff) == SQLITE_NOMEM) {
        qr_buf_printf(err, "out of memory: cannot %s statistics index '%s'", what, ix->path);
        return QR_ENOMEM;
    }
    const char *msg =
        ix->db && sqlite3_errcode(ix->db) == rc ? sqlite3_errmsg(ix->db) : sqlite3_errstr(rc);
    qr_buf_printf(err, "cannot %s statistics index '%s': %s", what, ix->path, msg);
    return QR_EIO;
}

int qr__ix_arena_full(qr_git_index *ix, qr_buf *err)
{
    qr_buf_printf(err, "out of memory reading statistics index '%s'", ix->path);
    return QR_ENOMEM;
}

int qr__ix_still_broken(qr_git_index *ix, qr_buf *err)
{
    qr_buf_printf(err, "statistics index '%s' is corrupt even after it was rebuilt", ix->path);
    return QR_EIO;
}

/* ---- commit ids and varints ---- */

/* hex digit value + 1; 0 for anything else (NUL included, so parsing stops there) */
static const unsigned char hex1[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,  ['7'] = 8,
    ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static bool parse_oid(const char *s, unsigned char out[20])
{
    if (!s)
        return false;
    const unsigned char *u = (const unsigned char *)s;
    for (int i = 0; i < 20; i++) {
        unsigned hi = hex1[u[2 * i]];
        if (!hi)
            return false;
        unsigned lo = hex1[u[2 * i + 1]];
        if (!lo)
            return false;
        out[i] = (unsigned char)((hi - 1) << 4 | (lo - 1));
    }
    return s[40] == '\0';
}

/* A hash of all 20 bytes (ids made up in tests share their leading bytes). */
uint64_t qr__ix_oid_hash(const unsigned char *oid)
{
    uint64_t w[2];
    uint32_t x;
    memcpy(w, oid, 16);
    memcpy(&x, oid + 16, 4);
    return qr_hash_mix(w[0] ^ qr_hash_mix(w[1] ^ x));
}

static int bad_oid(const char *s, qr_buf *err)
{
    qr_buf_printf(err, "invalid commit id '%.60s': expected 40 hexadecimal digits",
                  s ? s : "(null)");
    return QR_EINVAL;
}

void qr__ix_format_oid(const unsigned char *b, char out[41])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 20; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[40] = '\0';
}

static void put_varint(qr_buf *b, uint64_t v)
{
    char tmp[10];
    size_t n = 0;
    while (v >= 0x80) {
        tmp[n++] = (char)((v & 0x7f) | 0x80);
        v >>= 7;
    }
    tmp[n++] = (char)v;
    qr_buf_append(b, tmp, n);
}

static bool get_varint(const unsigned char *p, size_t len, size_t *k, uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64 && *k < len; shift += 7) {
        unsigned char c = p[(*k)++];
        if (shift == 63 && c > 1)
            return false;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *out = v;
            return true;
        }
    }
    return false;
}

static bool valid_status(int c)
{
    return c == 'A' || c == 'D' || c == 'M' || c == 'T';
}

/* ---- small hash tables (open addressing, power-of-two sizes) ---- */

size_t qr__ix_table_size(size_t n)
{
    size_t cap = 16;
    while (cap / 2 < n) {
        if (cap > SIZE_MAX / 4)
            return 0;
        cap *= 2;
    }
    return cap;
}

/* path id -> string in the caller's arena, for one read call: a hash table, or (when
 * every path is loaded up front) an array indexed by id, ids being dense from 1. */
typedef struct path_map {
    int64_t *ids; /* 0 = empty slot */
    const char **strs;
    size_t cap, len;
    const char **dense; /* when non-NULL, dense[id] for id < ndense; ids and strs unused */
    size_t ndense;
} path_map;

static void pm_free(path_map *m)
{
    free(m->ids);
    free(m->strs);
    free(m->dense);
    memset(m, 0, sizeof *m);
}

static size_t pm_slot(const path_map *m, int64_t id)
{
    size_t i = (size_t)qr_hash_mix((uint64_t)id) & (m->cap - 1);
    while (m->ids[i] && m->ids[i] != id)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static const char *pm_get(const path_map *m, int64_t id)
{
    if (m->dense)
        return (uint64_t)id < m->ndense ? m->dense[id] : NULL;
    if (!m->cap)
        return NULL;
    size_t i = pm_slot(m, id);
    return m->ids[i] ? m->strs[i] : NULL;
}

static bool pm_put(path_map *m, int64_t id, const char *s)
{
    if ((m->len + 1) * 2 > m->cap) {
        size_t cap = qr__ix_table_size(m->len + 1);
        path_map g = {.ids = calloc(cap ? cap : 1, sizeof *g.ids),
                      .strs = calloc(cap ? cap : 1, sizeof *g.strs),
                      .cap = cap};
        if (!cap || !g.ids || !g.strs) {
            pm_free(&g);
            return false;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (m->ids[i]) {
                size_t j = pm_slot(&g, m->ids[i]);
                g.ids[j] = m->ids[i];
                g.strs[j] = m->strs[i];
                g.len++;
            }
        }
        pm_free(m);
        *m = g;
    }
    size_t i = pm_slot(m, id);
    if (!m->ids[i])
        m->len++;
    m->ids[i] = id;
    m->strs[i] = s;
    return true;
}

/* path string -> id, for one put call (keys point into the caller's stats) */
typedef struct path_ids {
    const char **keys; /* NULL = empty slot */
    uint64_t *hashes;
    int64_t *ids;
    size_t cap, len;
} path_ids;

static void pi_free(path_ids *m)
{
    free(m->keys);
    free(m->hashes);
    free(m->ids);
    memset(m, 0, sizeof *m);
}

static size_t pi_slot(const path_ids *m, const char *s, uint64_t h)
{
    size_t i = (size_t)h & (m->cap - 1);
    while (m->keys[i] && (m->hashes[i] != h || strcmp(m->keys[i], s) != 0))
        i = (i + 1) & (m->cap - 1);
    return i;
}

static bool pi_put(path_ids *m, const char *s, uint64_t h, int64_t id)
{
    if ((m->len + 1) * 2 > m->cap) {
        size_t cap = qr__ix_table_size(m->len + 1);
        path_ids g = {calloc(cap ? cap : 1, sizeof *g.keys),
                      calloc(cap ? cap : 1, sizeof *g.hashes), calloc(cap ? cap : 1, sizeof *g.ids),
                      cap, 0};
        if (!cap || !g.keys || !g.hashes || !g.ids) {
            pi_free(&g);
            return false;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (m->keys[i]) {
                size_t j = pi_slot(&g, m->keys[i], m->hashes[i]);
                g.keys[j] = m->keys[i];
                g.hashes[j] = m->hashes[i];
                g.ids[j] = m->ids[i];
                g.len++;
            }
        }
        pi_free(m);
        *m = g;
    }
    size_t i = pi_slot(m, s, h);
    if (!m->keys[i])
        m->len++;
    m->keys[i] = s;
    m->hashes[i] = h;
    m->ids[i] = id;
    return true;
}

/* ---- opening, checking, rebuilding ---- */

static void close_db(qr_git_index *ix)
{
    for (int i = 0; i < ST_N; i++) {
        sqlite3_finalize(ix->st[i]);
        ix->st[i] = NULL;
    }
    sqlite3_close(ix->db);
    ix->db = NULL;
}

/* Runs one statement that needs no bindings and reads one integer (or none). */
static int query_int(qr_git_index *ix, const char *sql, int64_t *out, qr_buf *err)
{
    int rc = qr_store_query_int(ix->db, sql, out);
    return rc == SQLITE_OK ? QR_OK : qr__ix_fail(ix, rc, "open", err);
}

/* ---- the check at open ----
 * PRAGMA quick_check reads the whole file (opening 2.7 MB takes 7 ms with it, 0.6 ms
 * without). It is skipped when the database and its WAL are exactly as they were when a
 * check last passed: device, inode, size, modification and change time of both (an
 * empty WAL as none; qr_file_stamp), kept in quarry/index.checked. Any write (ours at a
 * checkpoint, or damage from outside, even with the modification time set back) changes
 * the change time, so the next open checks again; damage within one tick of the file
 * system's clock is still found by the query that reads it. */

#define STAMP_LEN (2 * QR_FILE_STAMP_LEN + 32)

/* The stamp of the database and its WAL as they are now; false when it cannot be made. */
static bool file_stamp(qr_git_index *ix, char out[STAMP_LEN])
{
    char db[QR_FILE_STAMP_LEN], wal[QR_FILE_STAMP_LEN];
    qr_buf p;
    qr_buf_init(&p);
    qr_buf_printf(&p, "%s-wal", ix->path);
    if (p.failed) {
        qr_buf_release(&p);
        return false;
    }
    qr_file_stamp(ix->path, db);
    qr_file_stamp(p.p, wal);
    qr_buf_release(&p);
    return snprintf(out, STAMP_LEN, "quarry-index-check 2 %s %s\n", db, wal) < STAMP_LEN;
}

static bool stamp_path(qr_git_index *ix, qr_buf *p)
{
    qr_buf_init(p);
    qr_buf_printf(p, "%s/index.checked", ix->dir);
    return !p->failed;
}

static bool stamp_matches(qr_git_index *ix, const char *stamp)
{
    qr_buf p;
    bool same = false;
    if (stamp_path(ix, &p)) {
        char buf[STAMP_LEN];
        int fd = open(p.p, O_RDONLY | O_CLOEXEC);
        ssize_t r = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
        if (fd >= 0)
            close(fd);
        same = r > 0 && (size_t)r == strlen(stamp) && !memcmp(buf, stamp, (size_t)r);
    }
    qr_buf_release(&p);
    return same;
}

/* Records that the check passed (best effort: without the file, the next open checks). */
static void stamp_save(qr_git_index *ix, const char *stamp)
{
    qr_buf p;
    if (stamp_path(ix, &p)) {
        int fd = open(p.p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0) {
            size_t n = strlen(stamp);
            if (write(fd, stamp, n) != (ssize_t)n)
                (void)ftruncate(fd, 0);
            close(fd);
        }
    }
    qr_buf_release(&p);
}

/* Opens ix->path, creating it when missing (quarry/store.h). QR_OK, IX_BROKEN (not ours,
 * damaged, or an older schema: moved aside and rebuilt), or an error in err (a newer
 * schema is refused). */
static int open_db(qr_git_index *ix, qr_buf *err)
{
    ix->have_file_id = false;
    qr_store_spec spec = {.what = "statistics index",
                          .location = ix->path,
                          .application_id = INDEX_APPLICATION_ID,
                          .schema_version = INDEX_SCHEMA_VERSION,
                          .schema_sql = schema_sql,
                          .after_create = qr_store_stamp_created,
                          .flags = QR_STORE_CREATE,
                          .busy_timeout_ms = INDEX_BUSY_TIMEOUT_MS};
    qr_store store;
    int rc = qr_store_open(&store, &spec, err);
    ix->db = store.db;
    if (rc != QR_OK) {
        if (store.sqlite_rc)
            rc = qr__ix_fail(ix, store.sqlite_rc, "open", err);
        goto done;
    }
    if (store.kind != QR_STORE_OURS) {
        rc = IX_BROKEN; /* tables without our marks, or an older schema */
        goto done;
    }
    struct stat sb;
    ix->have_file_id = stat(ix->path, &sb) == 0;
    ix->dev = ix->have_file_id ? sb.st_dev : 0;
    ix->ino = ix->have_file_id ? sb.st_ino : 0;
    sqlite3_stmt *st = NULL;
    if (!store.created) {
        int64_t pages = 0, page_size = 0;
        if ((rc = query_int(ix, "PRAGMA page_count", &pages, err)) ||
            (rc = query_int(ix, "PRAGMA page_size", &page_size, err)))
            goto done;
        char stamp[STAMP_LEN];
        bool have_stamp = file_stamp(ix, stamp);
        if (pages * page_size <= INDEX_QUICK_CHECK_MAX &&
            !(have_stamp && stamp_matches(ix, stamp))) {
            rc = sqlite3_prepare_v2(ix->db, "PRAGMA quick_check", -1, &st, NULL);
            if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
                const unsigned char *res = sqlite3_column_text(st, 0);
                rc = res && !strcmp((const char *)res, "ok") ? SQLITE_OK : SQLITE_CORRUPT;
            }
            rc = rc == SQLITE_OK ? QR_OK : qr__ix_fail(ix, rc, "open", err);
            sqlite3_finalize(st);
            if (rc)
                goto done;
            if (have_stamp)
                stamp_save(ix, stamp);
        }
    }
    for (int i = 0; i < ST_N; i++) {
        rc = sqlite3_prepare_v3(ix->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &ix->st[i],
                                NULL);
        if (rc != SQLITE_OK) {
            /* marked as ours but not shaped like ours (a missing table or column) */
            rc = (rc & 0xff) == SQLITE_ERROR ? IX_BROKEN : qr__ix_fail(ix, rc, "open", err);
            goto done;
        }
    }
    rc = QR_OK;
done:
    if (rc != QR_OK)
        close_db(ix);
    return rc;
}

static int path_with(const char *base, const char *suffix, qr_buf *out)
{
    qr_buf_reset(out);
    qr_buf_puts(out, base);
    qr_buf_puts(out, suffix);
    return out->failed ? QR_ENOMEM : QR_OK;
}

/* Moves index.db (and its WAL) to index.db.broken-<UTC time>, dropping the shared-memory
 * file. The WAL goes first so that no process can open the old WAL with a new file. */
static int move_aside(qr_git_index *ix, qr_buf *err)
{
    char stamp[32];
    time_t now = (time_t)qr_clock_now();
    struct tm tm;
    if (!gmtime_r(&now, &tm) || !strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm))
        snprintf(stamp, sizeof stamp, "%lld", (long long)now);
    qr_buf to, from, tmp;
    qr_buf_init(&to);
    qr_buf_init(&from);
    qr_buf_init(&tmp);
    int rc = QR_OK;
    for (int n = 0;; n++) {
        qr_buf_reset(&to);
        qr_buf_printf(&to, n ? "%s.broken-%s.%d" : "%s.broken-%s", ix->path, stamp, n);
        if (to.failed) {
            rc = QR_ENOMEM;
            goto done;
        }
        struct stat sb;
        if (lstat(to.p, &sb) != 0 && errno == ENOENT)
            break;
    }
    static const char *const sidecars[] = {"-wal", "-journal"};
    for (size_t i = 0; i < sizeof sidecars / sizeof *sidecars; i++) {
        if ((rc = path_with(ix->path, sidecars[i], &from)) ||
            (rc = path_with(to.p, sidecars[i], &tmp)))
            goto done;
        if (rename(from.p, tmp.p) != 0 && errno != ENOENT)
            goto fail_from;
    }
    if ((rc = path_with(ix->path, "-shm", &from)))
        goto done;
    if (unlink(from.p) != 0 && errno != ENOENT)
        goto fail_from;
    if (rename(ix->path, to.p) != 0 && errno != ENOENT) {
        qr_buf_reset(&from);
        qr_buf_puts(&from, ix->path);
        goto fail_from;
    }
    goto done;
fail_from:
    qr_buf_printf(err, "cannot move broken statistics index '%s' aside: %s",
                  from.failed ? ix->path : from.p, strerror(errno));
    rc = QR_EIO;
done:
    if (rc == QR_ENOMEM)
        qr_buf_printf(err, "out of memory moving statistics index '%s' aside", ix->path);
    qr_buf_release(&to);
    qr_buf_release(&from);
    qr_buf_release(&tmp);
    return rc;
}

/* Holds an exclusive fcntl lock on quarry/index.lock while it moves the broken file aside
 * and creates a fresh one. When another process has replaced the file meanwhile (another
 * inode at the path), the new file is checked instead, and kept when it is sound. The
 * file this handle found broken is moved without checking it again: damage that only a
 * query sees (a list that does not decode) passes PRAGMA quick_check. */
int qr__ix_rebuild(qr_git_index *ix, qr_buf *err)
{
    bool known = ix->have_file_id;
    dev_t bad_dev = ix->dev;
    ino_t bad_ino = ix->ino;
    close_db(ix);
    qr_buf lock;
    qr_buf_init(&lock);
    int rc = path_with(ix->dir, "/index.lock", &lock);
    if (rc) {
        qr_buf_release(&lock);
        qr_buf_printf(err, "out of memory rebuilding statistics index '%s'", ix->path);
        return QR_ENOMEM;
    }
    int fd = open(lock.p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    int lrc = fd < 0 ? -1 : 0;
    while (lrc == 0 && (lrc = fcntl(fd, F_SETLKW, &fl)) != 0 && errno == EINTR)
        lrc = 0;
    if (lrc != 0) {
        qr_buf_printf(err, "cannot lock '%s' to rebuild the statistics index: %s", lock.p,
                      strerror(errno));
        rc = QR_EIO;
        goto done;
    }
    struct stat sb;
    if (known && stat(ix->path, &sb) == 0 && sb.st_dev == bad_dev && sb.st_ino == bad_ino)
        rc = IX_BROKEN;
    else
        rc = open_db(ix, err);
    if (rc == IX_BROKEN) {
        rc = move_aside(ix, err);
        if (rc == QR_OK) {
            rc = open_db(ix, err);
            if (rc == IX_BROKEN)
                rc = qr__ix_still_broken(ix, err);
            if (rc == QR_OK)
                ix->rebuilt = true;
        }
    }
done:
    if (fd >= 0)
        close(fd); /* releases the lock */
    qr_buf_release(&lock);
    return rc;
}

bool qr_git_index_exists(const char *gitdir, qr_buf *path)
{
    size_t len = strlen(gitdir);
    while (len > 1 && gitdir[len - 1] == '/')
        len--;
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_append(&b, gitdir, len);
    qr_buf_puts(&b, "/quarry/index.db");
    struct stat sb;
    bool there = !b.failed && stat(b.p, &sb) == 0;
    if (path && !b.failed) {
        qr_buf_reset(path);
        qr_buf_append(path, b.p, b.len);
    }
    qr_buf_release(&b);
    return there;
}

int qr_git_index_open(const char *gitdir, qr_git_index **out, bool *rebuilt, qr_buf *err)
{
    *out = NULL;
    if (rebuilt)
        *rebuilt = false;
    size_t len = strlen(gitdir);
    while (len > 1 && gitdir[len - 1] == '/')
        len--;
    qr_git_index *ix = calloc(1, sizeof *ix);
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_append(&b, gitdir, len);
    qr_buf_puts(&b, "/quarry");
    if (!ix || b.failed || !(ix->dir = qr_buf_detach(&b, NULL))) {
        qr_buf_printf(err, "out of memory opening the statistics index in '%s'", gitdir);
        qr_buf_release(&b);
        free(ix);
        return QR_ENOMEM;
    }
    qr_buf_puts(&b, ix->dir);
    qr_buf_puts(&b, "/index.db");
    if (b.failed || !(ix->path = qr_buf_detach(&b, NULL))) {
        qr_buf_printf(err, "out of memory opening the statistics index in '%s'", gitdir);
        qr_buf_release(&b);
        qr_git_index_close(ix);
        return QR_ENOMEM;
    }
    if (mkdir(ix->dir, 0755) != 0 && errno != EEXIST) {
        qr_buf_printf(err, "cannot create directory '%s' for the statistics index: %s", ix->dir,
                      strerror(errno));
        qr_git_index_close(ix);
        return QR_EIO;
    }
    int rc = open_db(ix, err);
    if (rc == IX_BROKEN)
        rc = qr__ix_rebuild(ix, err);
    if (rc != QR_OK) {
        qr_git_index_close(ix);
        return rc;
    }
    if (rebuilt)
        *rebuilt = ix->rebuilt;
    *out = ix;
    return QR_OK;
}

void qr_git_index_close(qr_git_index *ix)
{
    if (!ix)
        return;
    close_db(ix);
    free(ix->dir);
    free(ix->path);
    free(ix);
}

/* A handle whose rebuild failed (a full disk, say) has no database; try again. */
int qr__ix_ensure_open(qr_git_index *ix, qr_buf *err)
{
    if (ix->db)
        return QR_OK;
    int rc = open_db(ix, err);
    if (rc == IX_BROKEN)
        rc = qr__ix_rebuild(ix, err);
    return rc;
}

bool qr_git_index_rebuilt(const qr_git_index *ix)
{
    return ix->rebuilt;
}

void qr_git_index_set_attrs(qr_git_index *ix, uint64_t fingerprint)
{
    ix->attrs = (int64_t)fingerprint;
}

const char *qr_git_index_path(const qr_git_index *ix)
{
    return ix->path;
}

/* ---- statements ---- */

/* Resets a statement and drops its bindings, which may point into the caller's memory. */
void qr__ix_done_with(sqlite3_stmt *st)
{
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

/* Steps a cached statement that returns no rows of interest, then resets it. */
int qr__ix_run(qr_git_index *ix, int id, const char *what, qr_buf *err)
{
    sqlite3_stmt *st = ix->st[id];
    int rc = sqlite3_step(st);
    rc = rc == SQLITE_DONE || rc == SQLITE_ROW ? QR_OK : qr__ix_fail(ix, rc, what, err);
    sqlite3_reset(st);
    return rc;
}

void qr__ix_rollback(qr_git_index *ix)
{
    if (!sqlite3_get_autocommit(ix->db)) {
        sqlite3_step(ix->st[ST_ROLLBACK]);
        sqlite3_reset(ix->st[ST_ROLLBACK]);
    }
}

/* ---- reading ---- */

static int resolve_path(qr_git_index *ix, path_map *m, int64_t id, qr_arena *a, const char **out,
                        qr_buf *err)
{
    if ((*out = pm_get(m, id)))
        return QR_OK;
    if (m->dense)
        return IX_BROKEN; /* every path was loaded: the id names none */
    sqlite3_stmt *st = ix->st[ST_PATH_GET];
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *p = sqlite3_column_blob(st, 0);
        size_t n = (size_t)sqlite3_column_bytes(st, 0);
        if (!p || !n || memchr(p, 0, n)) {
            rc = IX_BROKEN;
        } else if (!(*out = qr_arena_strndup(a, p, n)) || !pm_put(m, id, *out)) {
            rc = qr__ix_arena_full(ix, err);
        } else {
            rc = QR_OK;
        }
    } else {
        /* a path id that names no path: the file is damaged */
        rc = rc == SQLITE_DONE ? IX_BROKEN : qr__ix_fail(ix, rc, "read", err);
    }
    sqlite3_reset(st);
    return rc;
}

/* Fills everything but out->oid from columns c..c+3 (nfiles, additions, deletions, files)
 * of the current row of st. */
static int decode_row(qr_git_index *ix, sqlite3_stmt *st, int c, path_map *m, qr_arena *a,
                      qr_commit_stats *out, qr_buf *err)
{
    int64_t nfiles = sqlite3_column_int64(st, c);
    out->additions = sqlite3_column_int64(st, c + 1);
    out->deletions = sqlite3_column_int64(st, c + 2);
    out->files = NULL;
    const unsigned char *p = sqlite3_column_blob(st, c + 3);
    size_t len = (size_t)sqlite3_column_bytes(st, c + 3);
    /* an entry is at least 4 bytes: a bad count cannot make us allocate much */
    if (nfiles < 0 || (uint64_t)nfiles > len / 4 || (nfiles == 0) != (len == 0))
        return IX_BROKEN;
    out->nfiles = (uint32_t)nfiles;
    if (nfiles == 0)
        return QR_OK;
    qr_file_stat *f = qr_arena_alloc(a, (size_t)nfiles * sizeof *f);
    if (!f)
        return qr__ix_arena_full(ix, err);
    size_t k = 0;
    for (int64_t i = 0; i < nfiles; i++) {
        uint64_t id, add, del;
        if (!get_varint(p, len, &k, &id) || !get_varint(p, len, &k, &add) ||
            !get_varint(p, len, &k, &del) || k >= len || id == 0 || id > INT64_MAX ||
            add > INT64_MAX || del > INT64_MAX)
            return IX_BROKEN;
        unsigned char flags = p[k++];
        if (!valid_status(flags & 0x7f))
            return IX_BROKEN;
        int rc = resolve_path(ix, m, (int64_t)id, a, &f[i].path, err);
        if (rc)
            return rc;
        f[i].additions = (int64_t)add;
        f[i].deletions = (int64_t)del;
        f[i].binary = (flags & 0x80) != 0;
        f[i].status = (char)(flags & 0x7f);
    }
    if (k != len)
        return IX_BROKEN;
    out->files = f;
    return QR_OK;
}

static int get_by_lookup(qr_git_index *ix, const unsigned char *keys, size_t n, path_map *m,
                         qr_arena *a, qr_commit_stats *out, bool *found, qr_buf *err)
{
    sqlite3_stmt *st = ix->st[ST_GET];
    for (size_t i = 0; i < n; i++) {
        sqlite3_bind_blob(st, 1, keys + 20 * i, 20, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, ix->attrs);
        int rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            qr__ix_format_oid(keys + 20 * i, out[i].oid);
            rc = decode_row(ix, st, 0, m, a, &out[i], err);
            found[i] = rc == QR_OK;
        } else {
            rc = rc == SQLITE_DONE ? QR_OK : qr__ix_fail(ix, rc, "read", err);
        }
        qr__ix_done_with(st);
        if (rc)
            return rc;
    }
    return QR_OK;
}

/* Loads every path into a dense array (ids are assigned from 1 up and never deleted, so
 * max(id) bounds the array; a larger id in a row means damage). */
static int load_paths(qr_git_index *ix, path_map *m, qr_arena *a, qr_buf *err)
{
    sqlite3_stmt *st = ix->st[ST_PATH_MAX];
    int rc = sqlite3_step(st);
    int64_t max = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    rc = rc == SQLITE_ROW ? QR_OK : qr__ix_fail(ix, rc, "read", err);
    sqlite3_reset(st);
    if (rc)
        return rc;
    if (max < 0 || (uint64_t)max >= SIZE_MAX / sizeof *m->dense)
        return IX_BROKEN;
    if (!(m->dense = calloc((size_t)max + 1, sizeof *m->dense)))
        return qr__ix_arena_full(ix, err);
    m->ndense = (size_t)max + 1;
    st = ix->st[ST_PATH_ALL];
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        const char *p = sqlite3_column_blob(st, 1);
        size_t n = (size_t)sqlite3_column_bytes(st, 1);
        if (id <= 0 || id > max || !p || !n || memchr(p, 0, n)) {
            sqlite3_reset(st);
            return IX_BROKEN;
        }
        if (!(m->dense[id] = qr_arena_strndup(a, p, n))) {
            sqlite3_reset(st);
            return qr__ix_arena_full(ix, err);
        }
    }
    rc = rc == SQLITE_DONE ? QR_OK : qr__ix_fail(ix, rc, "read", err);
    sqlite3_reset(st);
    return rc;
}

/* One pass over the table. The requested ids sit in a hash table of (hash, index + 1)
 * slots, so a probe touches the id itself only when the hashes match; `next` chains
 * repeated ids. */
typedef struct want_slot {
    uint64_t hash;
    size_t idx; /* index + 1; 0 = empty */
} want_slot;

static size_t want_find(const want_slot *t, size_t cap, const unsigned char *keys,
                        const unsigned char *oid, uint64_t h)
{
    size_t s = (size_t)h & (cap - 1);
    while (t[s].idx && (t[s].hash != h || memcmp(keys + 20 * (t[s].idx - 1), oid, 20) != 0))
        s = (s + 1) & (cap - 1);
    return s;
}

/* The table of requested ids: t[cap] slots, next[] chaining repeated ids. */
typedef struct want_table {
    want_slot *t;
    size_t cap;
    size_t *next;
} want_table;

static void want_free(want_table *w)
{
    free(w->t);
    free(w->next);
}

static bool want_build(want_table *w, const unsigned char *keys, size_t n)
{
    w->cap = qr__ix_table_size(n);
    w->t = w->cap ? calloc(w->cap, sizeof *w->t) : NULL;
    w->next = malloc((n ? n : 1) * sizeof *w->next);
    if (!w->t || !w->next)
        return false;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = qr__ix_oid_hash(keys + 20 * i);
        size_t s = want_find(w->t, w->cap, keys, keys + 20 * i, h);
        w->next[i] = w->t[s].idx; /* 0, or the same id asked for earlier */
        w->t[s].hash = h;
        w->t[s].idx = i + 1;
    }
    return true;
}

/* The index of the first request for oid + 1, or 0 when it was not asked for. */
static size_t want_lookup(const want_table *w, const unsigned char *keys, const unsigned char *oid)
{
    return w->t[want_find(w->t, w->cap, keys, oid, qr__ix_oid_hash(oid))].idx;
}

static int get_by_scan(qr_git_index *ix, const unsigned char *keys, size_t n, path_map *m,
                       qr_arena *a, qr_commit_stats *out, bool *found, qr_buf *err)
{
    want_table w = {0};
    int rc = QR_OK;
    if (!want_build(&w, keys, n)) {
        rc = qr__ix_arena_full(ix, err);
        goto done;
    }
    if ((rc = load_paths(ix, m, a, err)))
        goto done;
    sqlite3_stmt *st = ix->st[ST_SCAN];
    sqlite3_bind_int64(st, 1, ix->attrs);
    int src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *oid = sqlite3_column_blob(st, 0);
        if (!oid || sqlite3_column_bytes(st, 0) != 20) {
            rc = IX_BROKEN;
            break;
        }
        size_t idx = want_lookup(&w, keys, oid);
        if (!idx)
            continue;
        size_t first = idx - 1;
        qr__ix_format_oid(oid, out[first].oid);
        if ((rc = decode_row(ix, st, 1, m, a, &out[first], err)))
            break;
        found[first] = true;
        for (size_t j = w.next[first]; j; j = w.next[j - 1]) {
            out[j - 1] = out[first];
            found[j - 1] = true;
        }
    }
    if (rc == QR_OK && src != SQLITE_DONE)
        rc = qr__ix_fail(ix, src, "read", err);
    sqlite3_reset(st);
done:
    want_free(&w);
    return rc;
}

/* Whether n requested ids are better found by one scan of the table than by lookups. */
static int scan_pays(qr_git_index *ix, size_t n, bool *scan, qr_buf *err)
{
    *scan = false;
    if (n < SCAN_MIN)
        return QR_OK;
    sqlite3_stmt *st = ix->st[ST_COUNT];
    sqlite3_bind_int64(st, 1, ix->attrs);
    int src = sqlite3_step(st);
    int rc = QR_OK;
    if (src == SQLITE_ROW) {
        int64_t count = sqlite3_column_int64(st, 0);
        *scan = n >= (size_t)INT64_MAX / SCAN_RATIO || count <= (int64_t)n * SCAN_RATIO;
    } else {
        rc = qr__ix_fail(ix, src, "read", err);
    }
    sqlite3_reset(st);
    return rc;
}

static int do_get_many(qr_git_index *ix, const unsigned char *keys, size_t n, qr_arena *a,
                       qr_commit_stats *out, bool *found, qr_buf *err)
{
    for (size_t i = 0; i < n; i++)
        found[i] = false;
    path_map m = {0};
    int rc = qr__ix_run(ix, ST_BEGIN, "read", err);
    if (rc)
        return rc;
    bool scan = false;
    rc = scan_pays(ix, n, &scan, err);
    if (rc == QR_OK)
        rc = scan ? get_by_scan(ix, keys, n, &m, a, out, found, err)
                  : get_by_lookup(ix, keys, n, &m, a, out, found, err);
    if (rc == QR_OK)
        rc = qr__ix_run(ix, ST_COMMIT, "read", err);
    if (rc != QR_OK)
        qr__ix_rollback(ix);
    pm_free(&m);
    return rc;
}

/* The arena's on_fail hook may unwind (the Lisp longjmps out of an evaluation); that must
 * not happen with a transaction open and tables allocated, so it is off during a read and
 * an exhausted arena comes back as QR_ENOMEM. On failure the arena is rewound. */
static int get_keys(qr_git_index *ix, const unsigned char *keys, size_t n, qr_arena *a,
                    qr_commit_stats *out, bool *found, qr_buf *err)
{
    int rc = qr__ix_ensure_open(ix, err);
    if (rc)
        return rc;
    void (*on_fail)(void *, int) = a->on_fail;
    a->on_fail = NULL;
    qr_arena_mark mark = qr_arena_get_mark(a);
    rc = do_get_many(ix, keys, n, a, out, found, err);
    if (rc == IX_BROKEN) {
        qr_arena_rewind(a, mark);
        rc = qr__ix_rebuild(ix, err);
        if (rc == QR_OK)
            rc = do_get_many(ix, keys, n, a, out, found, err);
        if (rc == IX_BROKEN)
            rc = qr__ix_still_broken(ix, err);
    }
    if (rc != QR_OK) {
        qr_arena_rewind(a, mark);
        for (size_t i = 0; i < n; i++)
            found[i] = false;
    }
    a->on_fail = on_fail;
    return rc;
}

int qr_git_index_get(qr_git_index *ix, const char *oid, qr_arena *a, qr_commit_stats *out,
                     qr_buf *err)
{
    unsigned char key[20];
    if (!parse_oid(oid, key))
        return bad_oid(oid, err);
    qr_commit_stats tmp;
    bool found = false;
    int rc = get_keys(ix, key, 1, a, &tmp, &found, err);
    if (rc != QR_OK)
        return rc;
    if (!found)
        return 1;
    *out = tmp;
    return QR_OK;
}

int qr_git_index_get_many(qr_git_index *ix, const char *const *oids, size_t n, qr_arena *a,
                          qr_commit_stats *out, bool *found, qr_buf *err)
{
    if (n == 0)
        return QR_OK;
    size_t bytes;
    if (!qr_size_mul(n, 20, &bytes)) {
        qr_buf_printf(err, "out of memory reading statistics index '%s'", ix->path);
        return QR_ENOMEM;
    }
    unsigned char *keys = malloc(bytes);
    if (!keys)
        return qr__ix_arena_full(ix, err);
    int rc = QR_OK;
    for (size_t i = 0; i < n && rc == QR_OK; i++)
        if (!parse_oid(oids[i], keys + 20 * i))
            rc = bad_oid(oids[i], err);
    if (rc == QR_OK)
        rc = get_keys(ix, keys, n, a, out, found, err);
    free(keys);
    return rc;
}

/* ---- which commits are indexed ---- */

static int do_has_many(qr_git_index *ix, const unsigned char *keys, size_t n, bool *found,
                       qr_buf *err)
{
    for (size_t i = 0; i < n; i++)
        found[i] = false;
    int rc = qr__ix_run(ix, ST_BEGIN, "read", err);
    if (rc)
        return rc;
    bool scan = false;
    want_table w = {0};
    rc = scan_pays(ix, n, &scan, err);
    if (rc == QR_OK && scan && !want_build(&w, keys, n))
        rc = qr__ix_arena_full(ix, err);
    if (rc == QR_OK && scan) {
        sqlite3_stmt *st = ix->st[ST_SCAN_OIDS];
        sqlite3_bind_int64(st, 1, ix->attrs);
        int src;
        while ((src = sqlite3_step(st)) == SQLITE_ROW) {
            const unsigned char *oid = sqlite3_column_blob(st, 0);
            if (!oid || sqlite3_column_bytes(st, 0) != 20) {
                rc = IX_BROKEN;
                break;
            }
            for (size_t j = want_lookup(&w, keys, oid); j; j = w.next[j - 1])
                found[j - 1] = true;
        }
        if (rc == QR_OK && src != SQLITE_DONE)
            rc = qr__ix_fail(ix, src, "read", err);
        sqlite3_reset(st);
    }
    for (size_t i = 0; rc == QR_OK && !scan && i < n; i++) {
        sqlite3_stmt *st = ix->st[ST_HAS];
        sqlite3_bind_blob(st, 1, keys + 20 * i, 20, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, ix->attrs);
        int src = sqlite3_step(st);
        if (src == SQLITE_ROW)
            found[i] = true;
        else if (src != SQLITE_DONE)
            rc = qr__ix_fail(ix, src, "read", err);
        qr__ix_done_with(st);
    }
    want_free(&w);
    if (rc == QR_OK)
        rc = qr__ix_run(ix, ST_COMMIT, "read", err);
    if (rc != QR_OK)
        qr__ix_rollback(ix);
    return rc;
}

_Static_assert(sizeof(git_oid) == 20, "a git_oid is the 20 raw bytes of a SHA-1 id");

int qr__index_has_many(qr_git_index *ix, const git_oid *oids, size_t n, bool *found, qr_buf *err)
{
    if (n == 0)
        return QR_OK;
    const unsigned char *keys = (const unsigned char *)oids;
    int rc = qr__ix_ensure_open(ix, err);
    if (rc == QR_OK)
        rc = do_has_many(ix, keys, n, found, err);
    if (rc == IX_BROKEN) {
        rc = qr__ix_rebuild(ix, err);
        if (rc == QR_OK)
            rc = do_has_many(ix, keys, n, found, err);
        if (rc == IX_BROKEN)
            rc = qr__ix_still_broken(ix, err);
    }
    if (rc != QR_OK)
        for (size_t i = 0; i < n; i++)
            found[i] = false;
    return rc;
}

/* ---- writing ---- */

static int bad_stats(const qr_commit_stats *s, const char *what, qr_buf *err)
{
    qr_buf_printf(err, "invalid statistics for commit '%s': %s", s->oid, what);
    return QR_EINVAL;
}

static int check_stats(const qr_commit_stats *s, qr_buf *err)
{
    unsigned char key[20];
    if (!parse_oid(s->oid, key))
        return bad_oid(s->oid, err);
    if (s->additions < 0 || s->deletions < 0)
        return bad_stats(s, "negative line count", err);
    if (s->nfiles && !s->files)
        return bad_stats(s, "nfiles is not 0 but files is NULL", err);
    for (uint32_t i = 0; i < s->nfiles; i++) {
        const qr_file_stat *f = &s->files[i];
        if (!f->path || !f->path[0])
            return bad_stats(s, "a file has an empty path", err);
        if (f->additions < 0 || f->deletions < 0)
            return bad_stats(s, "a file has a negative line count", err);
        if (!valid_status((unsigned char)f->status))
            return bad_stats(s, "a file's status is not one of A, D, M, T", err);
    }
    return QR_OK;
}

static int path_id(qr_git_index *ix, path_ids *m, const char *path, int64_t *id, qr_buf *err)
{
    size_t len = strlen(path);
    uint64_t h = qr_hash_bytes(path, len);
    if (m->cap) {
        size_t i = pi_slot(m, path, h);
        if (m->keys[i]) {
            *id = m->ids[i];
            return QR_OK;
        }
    }
    sqlite3_stmt *st = ix->st[ST_PATH_FIND];
    sqlite3_bind_blob(st, 1, path, (int)len, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
        rc = QR_OK;
    } else if (rc == SQLITE_DONE) {
        sqlite3_stmt *add = ix->st[ST_PATH_ADD];
        sqlite3_bind_blob(add, 1, path, (int)len, SQLITE_STATIC);
        rc = sqlite3_step(add);
        rc = rc == SQLITE_DONE ? QR_OK : qr__ix_fail(ix, rc, "write", err);
        qr__ix_done_with(add);
        *id = sqlite3_last_insert_rowid(ix->db);
    } else {
        rc = qr__ix_fail(ix, rc, "write", err);
    }
    qr__ix_done_with(st);
    if (rc == QR_OK && !pi_put(m, path, h, *id)) {
        qr_buf_printf(err, "out of memory writing statistics index '%s'", ix->path);
        rc = QR_ENOMEM;
    }
    return rc;
}

static int put_one(qr_git_index *ix, const qr_commit_stats *s, path_ids *m, qr_buf *blob,
                   qr_buf *err)
{
    unsigned char key[20];
    parse_oid(s->oid, key); /* checked before */
    sqlite3_stmt *st = ix->st[ST_HAS];
    sqlite3_bind_blob(st, 1, key, 20, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, ix->attrs);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        rc = qr__ix_fail(ix, rc, "write", err);
    qr__ix_done_with(st);
    if (rc == SQLITE_ROW)
        return QR_OK; /* stats never change under the same attributes */
    if (rc != SQLITE_DONE)
        return rc;
    qr_buf_reset(blob);
    for (uint32_t i = 0; i < s->nfiles; i++) {
        const qr_file_stat *f = &s->files[i];
        int64_t id;
        if ((rc = path_id(ix, m, f->path, &id, err)))
            return rc;
        put_varint(blob, (uint64_t)id);
        put_varint(blob, (uint64_t)f->additions);
        put_varint(blob, (uint64_t)f->deletions);
        qr_buf_putc(blob, (char)((unsigned char)f->status | (f->binary ? 0x80 : 0)));
    }
    if (blob->failed || blob->len > INT32_MAX) {
        qr_buf_printf(err, "out of memory writing statistics index '%s'", ix->path);
        return QR_ENOMEM;
    }
    st = ix->st[ST_PUT];
    sqlite3_bind_blob(st, 1, key, 20, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, s->nfiles);
    sqlite3_bind_int64(st, 3, s->additions);
    sqlite3_bind_int64(st, 4, s->deletions);
    if (blob->len)
        sqlite3_bind_blob(st, 5, blob->p, (int)blob->len, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 5);
    sqlite3_bind_int64(st, 6, ix->attrs);
    rc = sqlite3_step(st);
    rc = rc == SQLITE_DONE ? QR_OK : qr__ix_fail(ix, rc, "write", err);
    qr__ix_done_with(st);
    return rc;
}

static int do_put(qr_git_index *ix, const qr_commit_stats *stats, size_t n, qr_buf *err)
{
    path_ids m = {0};
    qr_buf blob;
    qr_buf_init(&blob);
    int rc = qr__ix_run(ix, ST_BEGIN_WRITE, "write", err);
    for (size_t i = 0; i < n && rc == QR_OK; i++)
        rc = put_one(ix, &stats[i], &m, &blob, err);
    if (rc == QR_OK)
        rc = qr__ix_run(ix, ST_COMMIT, "write", err);
    if (rc != QR_OK)
        qr__ix_rollback(ix);
    qr_buf_release(&blob);
    pi_free(&m);
    return rc;
}

int qr_git_index_put(qr_git_index *ix, const qr_commit_stats *stats, size_t n, qr_buf *err)
{
    for (size_t i = 0; i < n; i++) {
        int rc = check_stats(&stats[i], err);
        if (rc)
            return rc;
    }
    if (n == 0)
        return QR_OK;
    int rc = qr__ix_ensure_open(ix, err);
    if (rc == QR_OK)
        rc = do_put(ix, stats, n, err);
    if (rc == IX_BROKEN) {
        rc = qr__ix_rebuild(ix, err);
        if (rc == QR_OK)
            rc = do_put(ix, stats, n, err);
        if (rc == IX_BROKEN)
            rc = qr__ix_still_broken(ix, err);
    }
    return rc;
}

/* ---- status ---- */

static int do_count(qr_git_index *ix, int64_t *commits, int64_t *bytes, qr_buf *err)
{
    static const int ids[3] = {ST_COUNT, ST_PAGE_COUNT, ST_PAGE_SIZE};
    int64_t v[3] = {0, 0, 0};
    int rc = qr__ix_run(ix, ST_BEGIN, "read", err);
    for (int i = 0; i < 3 && rc == QR_OK; i++) {
        sqlite3_stmt *st = ix->st[ids[i]];
        if (ids[i] == ST_COUNT)
            sqlite3_bind_int64(st, 1, ix->attrs);
        int src = sqlite3_step(st);
        if (src == SQLITE_ROW)
            v[i] = sqlite3_column_int64(st, 0);
        else
            rc = qr__ix_fail(ix, src, "read", err);
        sqlite3_reset(st);
    }
    if (rc == QR_OK)
        rc = qr__ix_run(ix, ST_COMMIT, "read", err);
    if (rc != QR_OK) {
        qr__ix_rollback(ix);
        return rc;
    }
    if (commits)
        *commits = v[0];
    if (bytes)
        *bytes = v[1] * v[2];
    return QR_OK;
}

int qr_git_index_count(qr_git_index *ix, int64_t *commits, int64_t *bytes, qr_buf *err)
{
    int rc = qr__ix_ensure_open(ix, err);
    if (rc == QR_OK)
        rc = do_count(ix, commits, bytes, err);
    if (rc == IX_BROKEN) {
        rc = qr__ix_rebuild(ix, err);
        if (rc == QR_OK)
            rc = do_count(ix, commits, bytes, err);
        if (rc == IX_BROKEN)
            rc = qr__ix_still_broken(ix, err);
    }
    return rc;
}
