/*
 * quarry/git.h: the git source: an open repository, per-commit file statistics (what
 * `git log --numstat --no-renames` reports), and the persistent statistics index.
 *
 * Ownership: qr_git and qr_git_index are owned by the caller (_open/_free). Strings in
 * results are allocated from the arena the caller passes and live as long as it.
 * Errors: functions return QR_OK or a negative QR_E* code and write a one-line message
 * (lowercase, subject quoted) into the qr_buf given: QR_EINVAL for bad input (not a git
 * repository, unknown ref), QR_EIO for a failing git or database, QR_ENOMEM.
 */
#ifndef QUARRY_GIT_H
#define QUARRY_GIT_H

#include "quarry/value.h"

typedef struct qr_git qr_git;

/* Opens the repository containing `path` (searching upwards, as git does). */
int qr_git_open(const char *path, qr_git **out, qr_buf *err);
void qr_git_free(qr_git *g);
/* The repository's git directory (".git", or the repository itself when bare). */
const char *qr_git_dir(const qr_git *g);
/* The working directory, or NULL when bare. */
const char *qr_git_workdir(const qr_git *g);

/* One file changed by a commit, against its first parent (or the empty tree). */
typedef struct qr_file_stat {
    const char *path;  /* as git prints it with core.quotePath=false */
    int64_t additions; /* 0 for binary files */
    int64_t deletions;
    bool binary;
    char status;       /* 'A' added, 'D' deleted, 'M' modified, 'T' type change */
} qr_file_stat;

/* A commit's statistics. Merge commits carry none (nfiles 0), as git log shows them. */
typedef struct qr_commit_stats {
    char oid[41];
    uint32_t nfiles;
    int64_t additions, deletions;
    qr_file_stat *files; /* nfiles entries */
} qr_commit_stats;

/* ---- the statistics index: SQLite (WAL) at <gitdir>/quarry/index.db ----
 * Keyed by commit id; stats of a commit never change, so entries are never updated.
 * Safe with several processes (WAL, busy timeout). A database that is corrupt or from
 * another schema version is moved aside and rebuilt (warn is set). */
typedef struct qr_git_index qr_git_index;

int qr_git_index_open(const char *gitdir, qr_git_index **out, bool *rebuilt, qr_buf *err);
void qr_git_index_close(qr_git_index *ix);
/* QR_OK and *out filled (strings from a) when the commit is indexed; 1 when it is not. */
int qr_git_index_get(qr_git_index *ix, const char *oid, qr_arena *a, qr_commit_stats *out,
                     qr_buf *err);
/* Stores stats for n commits in one transaction (existing entries are left alone). */
int qr_git_index_put(qr_git_index *ix, const qr_commit_stats *stats, size_t n, qr_buf *err);
/* Number of commits indexed, and the database size in bytes. */
int qr_git_index_count(qr_git_index *ix, int64_t *commits, int64_t *bytes, qr_buf *err);

#endif
