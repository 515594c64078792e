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

/* Removes every assembled graph kept on disk of the repository at gitdir (gcache.c):
 * done whenever rows leave the store. *removed (may be NULL): how many. */
int qr__code_gcache_clear(const char *gitdir, size_t *removed);
/* CODE_STORE_VERSION: what a blob's rows depend on */
int qr__code_store_version(void);

#endif
