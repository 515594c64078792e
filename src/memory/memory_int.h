/*
 * memory_int.h: what the memory store's files share (store.c, store_io.c,
 * store_snapshot.c, store_snapfile.c): the handle, its prepared statements, transactions
 * and error helpers, the snapshot's private part and the snapshot file's codec.
 */
#ifndef QUARRY_MEMORY_INT_H
#define QUARRY_MEMORY_INT_H

#include "quarry/memory.h"
#include "quarry/store.h"

#include <sqlite3.h>

enum {
    ST_BEGIN,
    ST_BEGIN_WRITE,
    ST_COMMIT,
    ST_ROLLBACK,
    ST_BUMP,
    ST_GENERATION,
    ST_VERSION,
    ST_NODE_ID,
    ST_NODE_GET,
    ST_NODE_ADD,
    ST_NODE_TAGS,
    ST_TAG_ADD,
    ST_TAG_DEL,
    ST_TOUCH,
    ST_EDGE_PUT,
    ST_EDGE_HAS,
    ST_VISIT_ADD,
    ST_N
};

#define QR__MEM_STAMP_LEN (2 * QR_FILE_STAMP_LEN + 2)

struct qr_store;

struct qr_mem {
    sqlite3 *db;           /* SQLite; NULL on PostgreSQL */
    struct qr_store *pg;   /* PostgreSQL (store_pg.c): the connection; NULL on SQLite */
    char *path;
    char *location;        /* as given to qr_mem_open (a URL may hold a password: never
                            * printed; only compared, by qr_mem_is_at) */
    int64_t fixed_now;
    sqlite3_stmt *st[ST_N];
    int flags;             /* QR_MEM_* given to qr_mem_open */
    qr_mem_snapshot *snap; /* the latest loaded, one reference held by the handle */
    qr_mem_snapshot_stats snapstats;
    bool user_tx; /* qr_mem_begin is in force: each write is a savepoint inside it */
    /* the damaged-store check (store_check.c): done before the handle's first write */
    qr_mem_check check;
    bool vouch;  /* every change to the files since the check was this handle's */
    bool wrote;  /* this handle committed a write */
    char *real;  /* the store's real path (malloc'd), NULL until needed */
    char stamp[QR__MEM_STAMP_LEN]; /* the files after the check or this handle's last commit */
};

/* ---- store_check.c ---- */
/* Before a write: the first time on the handle, PRAGMA quick_check unless the files are
 * as quarry last vouched for them; QR_EIO with a message when the store is damaged. */
int qr__mem_check_before_write(qr_mem *m, qr_buf *err);
/* After each commit of this handle: stamps the files as its own state. */
void qr__mem_after_commit(qr_mem *m);
/* Closes the connection, and records the files' state when the handle can vouch for it. */
void qr__mem_close_files(qr_mem *m);

/* ---- store_pg.c: what differs on PostgreSQL (the team database's mem_* tables) ----
 * Opening, transactions (a caller's one too: BEGIN, a savepoint per write), putting a link
 * (one INSERT ... ON CONFLICT that says whether it was new) and the statistics; everything
 * else is store.c's code through the seam below. */
int qr__mem_pg_open(qr_mem *m, const char *url, bool create, qr_buf *err);
void qr__mem_pg_close(qr_mem *m);
int qr__mem_pg_begin_write(qr_mem *m, qr_buf *err);
int qr__mem_pg_begin_user(qr_mem *m, qr_buf *err);
int qr__mem_pg_begin_read(qr_mem *m, qr_buf *err);
int qr__mem_pg_commit_read(qr_mem *m, qr_buf *err);
int qr__mem_pg_commit_write(qr_mem *m, qr_buf *err);
void qr__mem_pg_rollback(qr_mem *m);
int qr__mem_pg_edge_put(qr_mem *m, int64_t src, int64_t dst, double strength, const char *type,
                        bool *created, qr_buf *err);
/* the counts of qr_mem_stats (not the types), inside the caller's read transaction */
int qr__mem_pg_stats(qr_mem *m, qr_mem_stats *out, qr_buf *err);

/* ---- store_sql.c: one statement on either backend (the seam) ----
 * The logic around a statement is written once against this cursor; only the SQL text
 * differs by backend (SQLite's ?N and tables nodes/tags/edges/visits, PostgreSQL's $N and
 * mem_*). On SQLite it is a prepared statement (a handle's cached one when lite_id is not
 * -1: reset, never finalized), stepped row by row; on PostgreSQL the statement runs at the
 * first step with its text parameters and its rows are read from the result. Binds are
 * 1-based, columns 0-based, as in SQLite. Strings bound are not copied: they must outlive
 * the first step. */
#define QR__MEM_Q_PARAMS 12
typedef struct qr__mem_q {
    qr_mem *m;
    sqlite3_stmt *st; /* SQLite */
    bool cached;      /* st is m->st[...]: reset, not finalized */
    int lite_rc;      /* SQLite: the last result */
    const char *pg_sql; /* PostgreSQL */
    int np;
    const char *pv[QR__MEM_Q_PARAMS];
    char num[QR__MEM_Q_PARAMS][32];
    qr_store_rows rows; /* PostgreSQL: the statement's result (owned) */
    int row;            /* the current row; -1 before the first step */
    bool ran;
    char state[6]; /* PostgreSQL: the SQLSTATE of a failure ("23505": unique violation) */
} qr__mem_q;
/* Prepares (SQLite) or records (PostgreSQL) one statement: lite_sql (or the handle's
 * statement lite_id when lite_sql is NULL) or pg_sql. QR_OK, or QR_EIO with a message. */
int qr__mem_q_open(qr__mem_q *q, qr_mem *m, int lite_id, const char *lite_sql,
                   const char *pg_sql, qr_buf *err);
void qr__mem_q_int(qr__mem_q *q, int i, int64_t v);
void qr__mem_q_double(qr__mem_q *q, int i, double v);
void qr__mem_q_text(qr__mem_q *q, int i, const char *s); /* NULL: SQL NULL */
/* Steps: QR_OK with *row set (false: no more rows, or a statement without rows), or the
 * failure (what: "read" / "write") with its message. */
int qr__mem_q_step(qr__mem_q *q, bool *row, const char *what, qr_buf *err);
/* Runs a statement without rows to its end. */
int qr__mem_q_run(qr__mem_q *q, const char *what, qr_buf *err);
/* PostgreSQL's side of the column readers below (store_sql.c) */
int64_t qr__mem_q_pg_int(const qr__mem_q *q, int c);
double qr__mem_q_pg_double(const qr__mem_q *q, int c);
const char *qr__mem_q_pg_text(const qr__mem_q *q, int c, size_t *len);
bool qr__mem_q_pg_null(const qr__mem_q *q, int c);
/* The columns of the current row; inline, so that SQLite's snapshot scan of every node
 * and link pays one branch per column, not a call. */
static inline int64_t qr__mem_q_col_int(const qr__mem_q *q, int c)
{
    return q->st ? sqlite3_column_int64(q->st, c) : qr__mem_q_pg_int(q, c);
}
static inline double qr__mem_q_col_double(const qr__mem_q *q, int c)
{
    return q->st ? sqlite3_column_double(q->st, c) : qr__mem_q_pg_double(q, c);
}
/* the text (never NULL: "" for SQL NULL) and its length in bytes */
static inline const char *qr__mem_q_col_text(const qr__mem_q *q, int c, size_t *len)
{
    if (!q->st)
        return qr__mem_q_pg_text(q, c, len);
    const char *v = (const char *)sqlite3_column_text(q->st, c);
    *len = v ? (size_t)sqlite3_column_bytes(q->st, c) : 0;
    return v ? v : "";
}
static inline bool qr__mem_q_col_null(const qr__mem_q *q, int c)
{
    return q->st ? sqlite3_column_type(q->st, c) == SQLITE_NULL : qr__mem_q_pg_null(q, c);
}
/* Rows the last INSERT, UPDATE or DELETE changed. */
int64_t qr__mem_q_changes(const qr__mem_q *q);
void qr__mem_q_close(qr__mem_q *q);

/* ---- store.c ---- */
int64_t qr__mem_now(const qr_mem *m);
sqlite3_stmt *qr__mem_stmt(qr_mem *m, int id, qr_buf *err);
/* Turns a failed SQLite result into a message and QR_EIO (busy, I/O) or QR_ENOMEM;
 * constraint violations on input are QR_EINVAL. `what` is a verb phrase ("read", "write"). */
int qr__mem_fail(qr_mem *m, int rc, const char *what, qr_buf *err);
/* BEGIN IMMEDIATE (the write lock, waiting up to the busy timeout) / a read transaction. */
int qr__mem_begin_write(qr_mem *m, qr_buf *err);
int qr__mem_begin_read(qr_mem *m, qr_buf *err);
/* Bumps the generation and commits; on failure rolls back. */
int qr__mem_commit_write(qr_mem *m, qr_buf *err);
int qr__mem_commit_read(qr_mem *m, qr_buf *err);
void qr__mem_rollback(qr_mem *m);
/* Looks a key up: *id, and *deleted (time, 0 when live). Not found is QR_ERUNTIME with a
 * message unless quiet (then QR_ERUNTIME and nothing written). A deleted node is found
 * only with include_deleted; otherwise it is QR_ERUNTIME with a hint to restore it. */
int qr__mem_node_id(qr_mem *m, const char *key, bool include_deleted, bool quiet, int64_t *id,
                    int64_t *deleted, qr_buf *err);
/* Adds a node inside an open write transaction (validates everything). */
int qr__mem_node_insert(qr_mem *m, const qr_mem_node *n, int64_t *id_out, qr_buf *err);
/* Puts an edge inside an open write transaction (validates strength and type). */
int qr__mem_edge_put(qr_mem *m, int64_t src, int64_t dst, double strength, const char *type,
                     bool *created, qr_buf *err);
int qr__mem_visit_insert(qr_mem *m, int64_t node, const char *agent, int64_t time,
                         const char *outcome, qr_buf *err);

/* Validation; each appends a message naming the subject and returns false. */
bool qr__mem_check_key(const char *key, qr_buf *err);
bool qr__mem_check_word(const char *what, const char *w, qr_buf *err);
bool qr__mem_check_tag(const char *tag, qr_buf *err);
bool qr__mem_check_weight(double w, qr_buf *err);
bool qr__mem_check_strength(double s, qr_buf *err);
bool qr__mem_check_text(const char *what, const char *s, size_t max, bool lines, qr_buf *err);

/* ISO-8601 UTC with a Z ("2026-11-20T10:00:00Z"); buf of QR_DATE_ISO_LEN bytes. */
void qr__mem_format_time(int64_t t, char *buf, size_t len);

/* The generation and the write id (a random token each write changes; 0 in a store no
 * write of this version has touched), read together. */
int qr__mem_version(qr_mem *m, uint64_t *generation, uint64_t *write_id, qr_buf *err);

/* ---- store_snapshot.c ---- */
struct qr_mem_visit_map {
    uint32_t mask;  /* slots - 1; slots a power of two, at least twice the entries */
    uint32_t *node; /* dense index + 1, 0 = empty */
    int64_t *time;
};

/* The snapshot's private part (s->priv). */
typedef struct qr__snap_priv {
    qr_arena strings;
    void *blocks[32]; /* malloc'd arrays, freed with the snapshot */
    int nblocks;
    uint32_t *key_slots; /* key -> index + 1 */
    uint32_t key_mask;
    uint32_t *id_slots;  /* id -> index + 1 (when dense is NULL) */
    uint32_t id_mask;
    int32_t *dense;      /* id -> index, -1 absent; when ids are dense enough (else NULL) */
    int64_t dense_n;     /* entries in dense */
    qr_mem_visit_map *maps;
    bool maps_borrowed;  /* maps[i].node and .time point into a block: not freed apart */
    void *map;           /* the mapped STORE.snapshot the arrays point into, or NULL */
    size_t map_len;
    bool from_file;      /* loaded from STORE.snapshot */
    uint64_t write_id;   /* of the store when loaded */
} qr__snap_priv;

/* An empty snapshot (refs 1) with its private part, or NULL when out of memory. */
qr_mem_snapshot *qr__mem_snapshot_new(void);
void qr__mem_snapshot_free(qr_mem_snapshot *s);
/* n * size bytes (zeroed when zero) freed with s; NULL when out of memory. */
void *qr__mem_snapshot_block(qr_mem_snapshot *s, size_t n, size_t size, bool zero);
/* Makes p (malloc'd) freed with s; false, and p freed, when there is no room. */
bool qr__mem_snapshot_adopt(qr_mem_snapshot *s, void *p);
/* Builds the key and id lookups from s->n, id (ascending), key and key_len: QR_OK or
 * QR_ENOMEM. */
int qr__mem_snapshot_index(qr_mem_snapshot *s);

/* ---- store_snapfile.c: STORE.snapshot ----
 * The layout is documented at the top of store_snapfile.c. These never write messages:
 * the file is a cache, and a problem with it means rebuilding from SQL. */
#define QR__SNAPFILE_HEADER 128
enum { /* byte offsets in the header, for tests and the fuzz harness */
    QR__SNAPFILE_OFF_VERSION = 12,
    QR__SNAPFILE_OFF_SCHEMA = 16,
    QR__SNAPFILE_OFF_GENERATION = 24,
    QR__SNAPFILE_OFF_WRITE_ID = 32,
    QR__SNAPFILE_OFF_LENGTH = 40,
    QR__SNAPFILE_OFF_SUM = 48,
    QR__SNAPFILE_OFF_COUNTS = 56, /* u32 n, types, provenances, tag names, tag entries,
                                   * adjacencies, agents, visit slots; u64 string bytes */
};
/* path + ".snapshot" into buf; false when the handle has no side file (":memory:", an
 * empty path, QR_MEM_NO_SNAPSHOT_FILE) or the name does not fit. */
bool qr__mem_snapfile_path(const qr_mem *m, char *buf, size_t cap);
/* Writes s to path (through a fresh path.tmp.XXXXXX from mkstemp, then rename), with the
 * mode bits of the store file: QR_OK, or QR_EIO / QR_ENOMEM (nothing left behind). */
int qr__mem_snapfile_write(const qr_mem_snapshot *s, const char *path, const char *store_path);
/* Loads path when it is the snapshot of (generation, write_id) and valid: QR_OK and *out,
 * or QR_ERUNTIME with *why (a static string; NULL when there is no file), or QR_ENOMEM. */
int qr__mem_snapfile_read(const char *path, uint64_t generation, uint64_t write_id,
                          qr_mem_snapshot **out, const char **why);
/* The same on bytes in memory: buf (malloc'd, len bytes) is always taken over. */
int qr__mem_snapfile_parse(char *buf, size_t len, uint64_t generation, uint64_t write_id,
                           qr_mem_snapshot **out, const char **why);
/* Recomputes the checksum of a file image in place (tests and fuzzing make hostile files
 * that get past it). No-op when len is below the header size. */
void qr__mem_snapfile_seal(char *buf, size_t len);

/* Ends one line of a JSONL export in b and writes it to out (store_io.c; both backends'
 * exports): QR_ENOMEM when b failed, QR_EIO when the write did; b is reset for the next. */
int qr__mem_export_line(qr_buf *b, FILE *out, qr_buf *err);

#endif
