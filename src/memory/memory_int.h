/*
 * memory_int.h: what the memory store's files share (store.c, store_io.c,
 * store_snapshot.c): the handle, its prepared statements, transactions and error helpers.
 */
#ifndef QUARRY_MEMORY_INT_H
#define QUARRY_MEMORY_INT_H

#include "quarry/memory.h"

#include <sqlite3.h>

enum {
    ST_BEGIN,
    ST_BEGIN_WRITE,
    ST_COMMIT,
    ST_ROLLBACK,
    ST_BUMP,
    ST_GENERATION,
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

struct qr_mem {
    sqlite3 *db;
    char *path;
    int64_t fixed_now;
    sqlite3_stmt *st[ST_N];
    qr_mem_snapshot *snap; /* the latest loaded, one reference held by the handle */
};

/* Steps st while the last result (*rc, SQLITE_OK after prepare) allows: true on a row. */
static inline bool qr__mem_next_row(int *rc, sqlite3_stmt *st)
{
    if (*rc != SQLITE_OK && *rc != SQLITE_ROW)
        return false;
    return (*rc = sqlite3_step(st)) == SQLITE_ROW;
}

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

/* ---- store_snapshot.c ---- */
void qr__mem_snapshot_free(qr_mem_snapshot *s);

#endif
