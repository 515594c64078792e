/*
 * store_int.h: the on-disk code index (store.c), keyed by git blob id; used by the
 * graph assembly (graph.c) only.
 */
#ifndef QUARRY_CODE_STORE_INT_H
#define QUARRY_CODE_STORE_INT_H

#include "quarry/code.h"

/* what became of a blob */
enum {
    QR_CODE_BLOB_OK = 0,     /* extracted (items and refs stored) */
    QR_CODE_BLOB_BINARY = 1, /* holds NUL bytes in its first 8 KiB: not parsed */
    QR_CODE_BLOB_LARGE = 2,  /* over the size cap when it was indexed: not parsed */
    QR_CODE_BLOB_FAILED = 3, /* the extractor (or ctags) gave nothing */
};

typedef struct qr_code_blob {
    int status;
    size_t bytes;
    qr_code_file file;
} qr_code_blob;

typedef struct qr_code_store qr_code_store;

int qr__code_store_open(const char *gitdir, qr_code_store **out, qr_buf *err);
void qr__code_store_close(qr_code_store *s);
const char *qr__code_store_path(const qr_code_store *s);
/* QR_OK with *out filled (strings from a), 1 when the blob is not indexed, or an error */
int qr__code_store_get(qr_code_store *s, const char *oid, qr_arena *a, qr_code_blob *out,
                       qr_buf *err);
/* Stores a blob's result inside the current transaction (begun when none is open). */
int qr__code_store_put(qr_code_store *s, const char *oid, const qr_code_blob *b, qr_buf *err);
/* The other identifier uses of a blob (QR_CODE_REF_NAME; not part of qr__code_store_get's
 * result), strings from a; *n is 0 when there are none. */
int qr__code_store_names(qr_code_store *s, const char *oid, qr_arena *a, qr_code_ref **out,
                         size_t *n, qr_buf *err);
int qr__code_store_begin(qr_code_store *s, qr_buf *err);
int qr__code_store_commit(qr_code_store *s, qr_buf *err);
/* Removes every blob whose id is not in keep (n hex ids), and compacts the file.
 * *removed: how many blobs went. */
int qr__code_store_prune(qr_code_store *s, const char *const *keep, size_t n, int64_t *removed,
                         qr_buf *err);
int qr__code_store_count(qr_code_store *s, int64_t *blobs, int64_t *items, int64_t *refs);

/* The backend: store.c opens the team database when QUARRY_DATABASE_URL is set, else the
 * SQLite file under the git directory. On the team database prune removes nothing (the
 * rows are shared by every repository), count covers the whole database, and
 * qr__code_store_path names the server (never the URL). */
bool qr__code_store_shared(const qr_code_store *s);
/* Appends to k what names the backend in the key of a kept graph (gcache.c): nothing for
 * SQLite, the server and database for the team database (so a graph assembled from one
 * never answers for the other). */
void qr__code_store_key(qr_buf *k);
/* qr__code_store_record: a `quarry code gc` pruned rows of the listed blobs while they
 * were loaded; nothing was recorded (load again, the kept graphs cleared, and record) */
#define QR_CODE_PRUNED 2

/* Records on the team database what the repository `name` (at location, the commit
 * indexed: hex, or NULL; worktree: its working tree's files) holds: n files by path, blob
 * id and language. SQLite: nothing to do, QR_OK. QR_EIO with the server's reason. */
int qr__code_store_record(qr_code_store *s, const char *name, const char *location,
                          const char *commit, bool worktree, const char *const *paths,
                          const char *const *oids, const int *langs, size_t n, qr_buf *err);
/* `quarry code gc` on the team database (qr__code_pg_prune); QR_EINVAL on SQLite. */
int qr__code_store_prune_shared(qr_code_store *s, const qr_stop *stop, int wait_ms,
                                qr_code_gc_stats *out, qr_buf *err);
/* The queue's mark (`quarry index --enqueue --code`): the repository `name` at location
 * joins code_repos, never indexed (no commit, no files), unless it is there already; then
 * every worker run on it brings its graph to HEAD. SQLite: QR_EINVAL. */
int qr__code_store_want(qr_code_store *s, const char *name, const char *location, qr_buf *err);
/* Reads ahead the rows of the n blobs a graph is about to get one by one, and with n 0
 * drops them (the team database: one statement instead of one per blob; SQLite: nothing
 * to do). A failure only means no read-ahead: each get then asks for its blob. */
void qr__code_store_prefetch(qr_code_store *s, const char *const *oids, size_t n);

/* The repositories recorded, and one's files (qr_code_shared_repos, _listing in
 * quarry/code.h); QR_EINVAL on the SQLite index. */
int qr__code_store_repos(qr_code_store *s, qr_arena *a, const char ***names, size_t *n,
                         qr_buf *err);
int qr__code_store_listing(qr_code_store *s, const char *name, qr_arena *a,
                           qr_code_listing *out, qr_buf *err);

/* ---- the team database (store_pg.c), called by store.c only ----
 * Errors as the functions above; messages name the server, never the URL. */
typedef struct qr_code_pg qr_code_pg;
/* QR_EINVAL when the database has no schema or an older one ('quarry db init|migrate') */
int qr__code_pg_open(const char *url, qr_code_pg **out, qr_buf *err);
void qr__code_pg_close(qr_code_pg *p);
const char *qr__code_pg_server(const qr_code_pg *p);
int qr__code_pg_get(qr_code_pg *p, const char *oid, qr_arena *a, qr_code_blob *out,
                    qr_buf *err);
/* buffers the rows; qr__code_pg_commit sends the buffered blobs in one transaction */
int qr__code_pg_put(qr_code_pg *p, const char *oid, const qr_code_blob *b, qr_buf *err);
int qr__code_pg_commit(qr_code_pg *p, qr_buf *err);
/* the packed identifier uses (store.c parses them), from a; *data NULL when none */
int qr__code_pg_names(qr_code_pg *p, const char *oid, qr_arena *a, char **data, size_t *len,
                      qr_buf *err);
/* Reads the rows of n blobs at once; qr__code_pg_get serves them from there until the
 * next prefetch (n 0: drops them). A blob not among them is asked for alone. */
int qr__code_pg_prefetch(qr_code_pg *p, const char *const *oids, size_t n, qr_buf *err);
int qr__code_pg_count(qr_code_pg *p, int64_t *blobs, int64_t *items, int64_t *refs);
/* `quarry code gc` on the team database: the rows of every blob no repository's recorded
 * files hold at the version that recorded them, once no session holds rows it has not
 * recorded (waiting up to wait_ms); out's blobs and bytes (the code tables' size). */
int qr__code_pg_prune(qr_code_pg *p, const qr_stop *stop, int wait_ms, qr_code_gc_stats *out,
                      qr_buf *err);
int qr__code_pg_want(qr_code_pg *p, const char *name, const char *location, qr_buf *err);
int qr__code_pg_repos(qr_code_pg *p, qr_arena *a, const char ***names, size_t *n, qr_buf *err);
/* 1 when no repository of that name was recorded */
int qr__code_pg_listing(qr_code_pg *p, const char *name, qr_arena *a, qr_code_listing *out,
                        qr_buf *err);
int qr__code_pg_record(qr_code_pg *p, const char *name, const char *location, const char *commit,
                       bool worktree, const char *const *paths, const char *const *oids,
                       const int *langs, size_t n, qr_buf *err);

/* Removes every assembled graph kept on disk of the repository at gitdir (gcache.c):
 * done whenever rows leave the store. *removed (may be NULL): how many. */
int qr__code_gcache_clear(const char *gitdir, size_t *removed);
/* CODE_STORE_VERSION: what a blob's rows depend on */
int qr__code_store_version(void);

/* f's error lines as stored: "12 40 77" written to out, its length returned */
#define QR_CODE_ERROR_LINES_TEXT (QR_CODE_ERROR_LINES * 11 + 1)
size_t qr__code_error_lines_text(const qr_code_file *f, char out[QR_CODE_ERROR_LINES_TEXT]);
/* error_lines as stored ("12 40 77", the first lines with a syntax error) read into f's
 * error_line, after those it holds; a number that is not one ends the list. */
void qr__code_error_lines(const char *el, qr_code_file *f);

#endif
