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

/* The committer times (epoch seconds) of the oldest and the newest commit reachable from
 * HEAD, walking at most 300,000 commits (beyond that *first is 0: unknown). QR_EINVAL when
 * HEAD has no commits. */
int qr_git_span(qr_git *g, int64_t *first, int64_t *last, qr_buf *err);

/* The authors of the commits reachable from HEAD (at most the 300,000 first walked),
 * after .mailmap: one entry per email, in the order first met, with their commit counts.
 * *out is malloc'd (free it with qr_git_people_free). QR_EINVAL when HEAD has no commits,
 * QR_ENOMEM. */
typedef struct qr_git_person {
    char *name, *email;
    size_t commits;
    /* every other name and email this person's commits were written with, before and
     * after .mailmap ("rmenon", "praman@oldcorp.com", the second name of one address),
     * one a line, "" when none */
    char *aliases;
} qr_git_person;
int qr_git_people(qr_git *g, qr_git_person **out, size_t *n, qr_buf *err);
void qr_git_people_free(qr_git_person *v, size_t n);

/* The release a version number names ("2.1", "2.1.0", "v2.1"): the one tag whose name,
 * without a leading "v", is the number, or the number with ".0" / ".0.0" added, written to
 * tag; and the release before it: the tag of the greatest lower version that is an
 * ancestor of it, written to prev ("" when none). False when no tag, or several, match;
 * then *ambiguous says whether several did, and when none did prev holds the nearest
 * release (the greatest version below, else the least above; "" when no tag is one).
 * When found, the releases just before and just after it go to before and next (each may
 * be NULL): the nearest version on that side when the tags' dates agree that no other
 * release came between, else "" (none, or version and date disagree). A tag's version may
 * follow
 * a project's prefix ("jq-1.7.1" is 1.7.1), use '_' between numbers ("curl-8_1_0") and end
 * in one letter ("3.6a", after 3.6). */
bool qr_git_release(qr_git *g, const char *version, char *tag, size_t tag_cap, char *prev,
                    size_t prev_cap, char *before, size_t before_cap, char *next,
                    size_t next_cap, bool *ambiguous);

/* The repository's configuration value of `key` ("remote.origin.url"), as git config
 * --get reads it (one snapshot of the files): true with it in out. */
bool qr_git_config_string(qr_git *g, const char *key, char *out, size_t cap);

/* The tag named `name`, compared without case (the exact spelling wins when tags differ
 * only in case): true with the tag's name in out. Two names no tag can have (':' is not
 * allowed in one) ask for releases by date: ":latest" the newest release tag (one whose
 * name holds a number), ":previous" the one before it; each false unless HEAD's history
 * holds it and the newest. */
bool qr_git_tag_named(qr_git *g, const char *name, char *out, size_t cap);

/* The file of HEAD's tree that `name` names. One path component (no '/'): the file at
 * the root of that name, else the one file of that name in any folder, and when none is
 * spelt so, the same in another case ("STATUS.C": status.c); a path: the file there; a
 * path ending in '/' ("src/"): the directory there. Returns 1 with its path in out; 0 when no file has that name (or path); 2 when
 * several do (out lists up to four, ", " between); -1 on error (no HEAD, a bad name). */
int qr_git_find_file(qr_git *g, const char *name, char *out, size_t cap);

/* One file changed by a commit, against its first parent (or the empty tree). */
typedef struct qr_file_stat {
    const char *path;  /* as git prints it with core.quotePath=false */
    int64_t additions; /* 0 for binary files */
    int64_t deletions;
    bool binary;
    char status; /* 'A' added, 'D' deleted, 'M' modified, 'T' type change */
} qr_file_stat;

/* A commit's statistics. Merge commits carry none (nfiles 0), as git log shows them. */
typedef struct qr_commit_stats {
    char oid[41];
    uint32_t nfiles;
    int64_t additions, deletions;
    qr_file_stat *files; /* nfiles entries */
} qr_commit_stats;

/* ---- the statistics index: SQLite (WAL) at <gitdir>/quarry/index.db ----
 * Keyed by commit id and the attributes fingerprint (qr_git_index_set_attrs): a commit's
 * stats never change under the same attributes.
 * Safe with several processes and several handles at once (WAL, 5 s busy timeout); one
 * handle is used by one thread at a time. A database that is corrupt or from another
 * schema version is moved aside (index.db.broken-<UTC time>) and created afresh: at open
 * (*rebuilt is set) or when a later call finds the damage (the call then runs on the fresh
 * database, finds nothing, and qr_git_index_rebuilt turns true). The index is a cache:
 * when a call fails with QR_EIO, the caller computes the stats without it.
 * Commit ids are 40 hexadecimal digits (either case); a malformed id is QR_EINVAL.
 * Reads allocate from the arena given; its on_fail hook is not called during a read (an
 * exhausted arena gives QR_ENOMEM), and on any error what the call allocated is freed. */
typedef struct qr_git_index qr_git_index;

/* The schema version (PRAGMA user_version) this build reads and writes. 2: each commit's
 * header fields (the commit graph) are kept too, so a warm query reads no commit
 * objects. 3: statistics are keyed by the attributes fingerprint too, and author names
 * are stored in UTF-8, converted from a commit's declared encoding. */
#define QR_GIT_INDEX_SCHEMA_VERSION 3

/* Whether <gitdir>/quarry/index.db exists, without opening or creating anything; *path
 * (may be NULL) is set to that file's name. */
bool qr_git_index_exists(const char *gitdir, qr_buf *path);
/* Opens (creating <gitdir>/quarry, mode 0755, and the database as needed). */
int qr_git_index_open(const char *gitdir, qr_git_index **out, bool *rebuilt, qr_buf *err);
void qr_git_index_close(qr_git_index *ix);
/* True once the database was found broken and rebuilt, at open or since. */
bool qr_git_index_rebuilt(const qr_git_index *ix);
/* The fingerprint of the attributes in force (what makes git count a file as binary:
 * .gitattributes and the diff.*.binary settings), under which statistics are read and
 * stored: a row stored under another fingerprint is not found, and a put replaces it.
 * 0 until set; the git tools set it from the repository before every use. */
void qr_git_index_set_attrs(qr_git_index *ix, uint64_t fingerprint);
/* The database file, for messages ("<gitdir>/quarry/index.db"). */
const char *qr_git_index_path(const qr_git_index *ix);
/* QR_OK and *out filled (strings from a) when the commit is indexed; 1 when it is not. */
int qr_git_index_get(qr_git_index *ix, const char *oid, qr_arena *a, qr_commit_stats *out,
                     qr_buf *err);
/* Bulk get, in one read transaction: for each oids[i], found[i] tells whether it is
 * indexed and, when it is, out[i] holds its stats (strings from a; equal paths are one
 * string). Repeated ids are allowed. When the ids cover a large part of the index (the
 * history walk of get_author_stats), the table is read once in storage order instead of
 * looked up id by id: 20,000 commits of 5 files each load in a few ms. */
int qr_git_index_get_many(qr_git_index *ix, const char *const *oids, size_t n, qr_arena *a,
                          qr_commit_stats *out, bool *found, qr_buf *err);
/* Stores stats for n commits in one transaction (existing entries are left alone). Each
 * status must be A, D, M or T, counts not negative, paths not empty (QR_EINVAL). */
int qr_git_index_put(qr_git_index *ix, const qr_commit_stats *stats, size_t n, qr_buf *err);
/* Number of commits indexed, and the database size in bytes (either pointer may be NULL). */
int qr_git_index_count(qr_git_index *ix, int64_t *commits, int64_t *bytes, qr_buf *err);

/* ---- indexing a whole repository (`quarry index`; src/git/index_build.c) ----
 * "Reachable" is what `git rev-list --all` lists: every commit reachable from HEAD or any
 * ref (branches, tags, remote-tracking branches, notes, stash); refs to objects that are
 * not commits are skipped, and so are the HEADs of other worktrees (which git counts). The index
 * never stores statistics for merges (git log shows none) or for the boundary commits of a shallow
 * clone (they change once it is deepened): those are counted apart. */
typedef struct qr_git_index_state {
    int64_t indexed;   /* commits whose statistics the index holds under the attributes
                        * in force (qr_git_index_set_attrs), reachable or not */
    int64_t reachable; /* commits reachable from HEAD and every ref */
    int64_t unstored;  /* of those, merges and shallow boundaries (never stored) */
    int64_t missing;   /* of those, commits whose statistics the index lacks */
    int64_t bytes;     /* the database's size */
} qr_git_index_state;

/* Reports the index of g. ix may be NULL for an index not built yet (indexed and bytes
 * are then 0, and every storable reachable commit is missing); nothing is written. */
int qr_git_index_status(qr_git *g, qr_git_index *ix, qr_git_index_state *st, qr_buf *err);

/* Progress of long work: called now and then with done < total, and once with done ==
 * total at the end (see qr_host.progress). */
typedef void (*qr_git_progress_fn)(void *ud, const char *what, size_t done, size_t total);

/* Computes and stores what ix lacks for every reachable commit: the commit graph and the
 * statistics (with git, one process per core), in batches (growing from 512 commits) each
 * stored as soon as it is computed, so an interrupted run keeps what it did. stop (NULL:
 * none): a cancel ends the run with QR_ESTOPPED, keeping the batches stored before it.
 * *added (may be NULL): how many commits' statistics were stored by this call, a stopped
 * run included. progress may be NULL. A failing index is an error (QR_EIO), as building
 * it is the point. */
int qr_git_index_update(qr_git *g, qr_git_index *ix, qr_git_progress_fn progress, void *ud,
                        const qr_stop *stop, int64_t *added, qr_buf *err);

/* ---- the statistics index shared on PostgreSQL (src/git/shared_index.c) ----
 * One team database (quarry/store.h, migration 3) holds the statistics of many
 * repositories: git_repos (one row per repository, and the indexing queue), git_commits
 * (one row per repository and commit reachable from its HEAD, merges included: what a
 * walk and the statistics give) and git_files (one row per file a commit changed), read
 * through the views git_commits_live and git_files_live, which show only what a finished
 * run published. A repository is named by a stable id, "<root commit>/<name>": the oldest
 * parentless commit reachable from HEAD (the smallest id among equally old ones; a shallow
 * clone's boundary when it has no root), and a name (by default the last component of the
 * working tree, or of the git directory without ".git"). Clones of one repository given
 * the same name are one repository; forks given other names are others.
 * Errors as elsewhere in this header; a database failure is QR_EIO with a message naming
 * the server (never the URL). st is a connected store (qr_store_open with
 * QR_STORE_POSTGRES_OK), used by one thread at a time. */
struct qr_store;

/* Connects st (caller's storage) to the shared index at url, a postgresql:// URL whose
 * schema must be this binary's: QR_EINVAL for another kind of URL or a schema to create
 * or migrate (the message says which `quarry db` command), QR_EIO when the server cannot
 * be reached; on failure st is closed. The URL is never in a message. */
int qr_git_shared_open(struct qr_store *st, const char *url, qr_buf *err);

/* Appends the id of g's repository under name (NULL: the default name) to id. QR_EINVAL
 * when HEAD has no commits. */
int qr_git_shared_id(qr_git *g, const char *name, qr_buf *id, qr_buf *err);
/* Adds g's repository to the queue (creating its row, or asking for a new run of a
 * known one; its location, the absolute directory workers open, is updated). id gets
 * its id. */
int qr_git_shared_enqueue(struct qr_store *st, qr_git *g, const char *name, qr_buf *id,
                          qr_buf *err);

typedef struct qr_git_worker_opts {
    const char *holder; /* who holds the lease, for people reading git_repos */
    int64_t lease_s;    /* the lease: renewed by every batch and during the statistics; > 0 */
    size_t batch;       /* commits per transaction; 0: 500 */
    qr_git_progress_fn progress;
    void *progress_ud;
    const qr_stop *stop;
    /* a step on the claimed repository after its commits are written and before the run
     * is published (NULL: none; the CLI's code-graph step): location is its directory;
     * calling keep(keep_ud, what, done, total) passes progress on and renews the lease.
     * An error fails the run as a failed batch does (nothing published; the next run,
     * after the lease, does it again). */
    int (*step)(void *ud, const char *location, qr_git_progress_fn keep, void *keep_ud,
                qr_buf *err);
    void *step_ud;
} qr_git_worker_opts;

typedef struct qr_git_worker_run {
    bool claimed;          /* a repository was claimed (false: the queue was empty) */
    char id[256];          /* its id (cut to fit) */
    int64_t added, removed; /* commits written and commits no longer reachable dropped */
    int64_t commits;        /* commits of the repository once published */
    /* after a failed run: the failure was recorded in the repository's row (error) and it
     * is left for one lease period, so a worker may go on to the next; false when the
     * database could not be reached to record it */
    bool released;
} qr_git_worker_run;

/* Claims the first queued repository whose lease is free or ended (SELECT ... FOR UPDATE
 * SKIP LOCKED: concurrent workers never claim the same one), opens it at its location,
 * walks its HEAD, computes the statistics of the commits the database lacks with the
 * local SQLite index (the same code as `quarry index`; its progress renews the lease),
 * writes them in transactions of
 * o->batch commits (each renews the lease, and is refused when the lease is no longer
 * this worker's), then in one transaction drops the rows of commits HEAD no longer
 * reaches, publishes the run and releases the repository (o->step, when set, runs just
 * before that transaction, inside the lease). A run that fails or is killed
 * publishes nothing: its rows stay invisible, and the next run (after the lease ends)
 * reuses them. QR_OK with run->claimed false when nothing was claimable. */
int qr_git_shared_work(struct qr_store *st, const qr_git_worker_opts *o, qr_git_worker_run *run,
                       qr_buf *err);

/* ---- the git tools (src/git/tools_git.c) ----
 * get_commits, get_author_stats, get_file_stats, get_file_history, get_diff_stats.
 * Their handlers take a qr_git_ctx as ctx (the host above the sources embeds one and
 * registers these tools at its offset: qr_tools_add_part), open its repository on the
 * first call and keep it there. NULL-terminated, for the product registry. */
struct qr_tool;
extern const struct qr_tool *const qr_git_tools[];

/* What the git tools work on, and what they open on first use and keep for the life of
 * the context (one command, one Lisp session, one MCP connection). The caller owns the
 * context and the strings it sets; qr_git_ctx_release closes what the tools opened (the
 * context can be used again: they reopen). Handlers never print: warnings go through
 * `warn` (NULL: none). */
typedef struct qr_git_ctx {
    /* the repository: a directory in it (--repo DIR), or NULL for the working directory */
    const char *repo_dir;
    /* compute statistics without reading or writing the index (--no-index) */
    bool no_index;
    /* one line, without a trailing newline, for the person at the terminal */
    void (*warn)(void *ud, const char *msg);
    void *warn_ud;
    /* progress of long work (see qr_git_progress_fn); NULL: none */
    qr_git_progress_fn progress;
    void *progress_ud;
    /* long work (history walks, git processes) stops when it says so, failing with
     * QR_ESTOPPED and its reason (cancelled, or the calling program's time limit); NULL:
     * never */
    const qr_stop *stop;
    /* the team database holding the shared statistics index (a postgresql:// URL:
     * QUARRY_DATABASE_URL), which the tools' `repos` parameter reads; NULL: none */
    const char *shared_url;

    /* ---- opened on first use ---- */
    qr_git *git;
    struct qr_store *shared; /* the connection to shared_url */
    qr_git_index *git_index;
    bool git_index_tried;  /* opening the index was attempted (it may have failed) */
    bool git_index_warned; /* the warning that it was rebuilt was given */
} qr_git_ctx;

/* Closes the repository and the index the tools opened; keeps the settings. */
void qr_git_ctx_release(qr_git_ctx *c);

#endif
