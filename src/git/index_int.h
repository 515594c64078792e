/*
 * index_int.h: what the two files of the statistics index share and nothing else sees:
 * the handle, its prepared statements, and the helpers for errors, transactions, ids and
 * hash tables. index.c holds the database (schema, opening, checking, rebuilding) and the
 * statistics; index_graph.c the commit graph.
 *
 * Errors: the helpers return QR_OK, a negative QR_E* code with a message in err, or
 * IX_BROKEN, which never leaves the index's files: the caller rebuilds the database
 * (qr__ix_rebuild) and tries once more.
 */
#ifndef QUARRY_INDEX_INT_H
#define QUARRY_INDEX_INT_H

#include "git_int.h"

#include <sqlite3.h>
#include <sys/types.h>

/* Internal only, never returned by a public function: the database file is corrupt or is
 * not one of ours, and must be rebuilt. */
#define IX_BROKEN (-100)

enum {
    ST_BEGIN,
    ST_BEGIN_WRITE,
    ST_COMMIT,
    ST_ROLLBACK,
    ST_GET,
    ST_SCAN,
    ST_COUNT,
    ST_HAS,
    ST_PUT,
    ST_PATH_FIND,
    ST_PATH_ADD,
    ST_PATH_GET,
    ST_PATH_ALL,
    ST_PATH_MAX,
    ST_PAGE_COUNT,
    ST_PAGE_SIZE,
    ST_SCAN_OIDS,
    ST_GRAPH_GET,
    ST_GRAPH_SCAN,
    ST_GRAPH_PUT,
    ST_IDENT_FIND,
    ST_IDENT_ADD,
    ST_IDENT_ALL,
    ST_N
};

struct qr_git_index {
    sqlite3 *db;
    sqlite3_stmt *st[ST_N];
    char *dir;  /* <gitdir>/quarry */
    char *path; /* <dir>/index.db */
    bool rebuilt;
    int64_t attrs; /* the attributes fingerprint rows are read and written under */
    bool have_file_id; /* dev and ino identify the file db was opened on */
    dev_t dev;
    ino_t ino;
};

/* A failed SQLite call as IX_BROKEN (a corrupt file) or a message in err and QR_EIO or
 * QR_ENOMEM. `what` is a verb: open, read, write. */
int qr__ix_fail(qr_git_index *ix, int rc, const char *what, qr_buf *err);
/* QR_ENOMEM with "out of memory reading statistics index '<path>'". */
int qr__ix_arena_full(qr_git_index *ix, qr_buf *err);
/* QR_EIO: the database is corrupt even after it was rebuilt. */
int qr__ix_still_broken(qr_git_index *ix, qr_buf *err);
/* Moves a broken database aside and creates a fresh one (ix->rebuilt set). */
int qr__ix_rebuild(qr_git_index *ix, qr_buf *err);
/* Reopens a handle whose rebuild failed before; QR_OK when it is open. */
int qr__ix_ensure_open(qr_git_index *ix, qr_buf *err);

/* Steps statement id (no rows of interest) and resets it. */
int qr__ix_run(qr_git_index *ix, int id, const char *what, qr_buf *err);
/* Resets a statement and drops its bindings. */
void qr__ix_done_with(sqlite3_stmt *st);
/* Rolls back the open transaction, if any. */
void qr__ix_rollback(qr_git_index *ix);

/* A hash of all 20 bytes of a raw id; its 40 hexadecimal digits. */
uint64_t qr__ix_oid_hash(const unsigned char *oid);
void qr__ix_format_oid(const unsigned char *b, char out[41]);
/* The power-of-two size of an open-addressing table for n entries (half full at most);
 * 0 when that does not fit in a size_t. */
size_t qr__ix_table_size(size_t n);

#endif
