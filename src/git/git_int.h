/*
 * git_int.h: what the files of the git source share and nothing else sees: the open
 * repository (repo.c), the revision walk and its filters (repo.c), per-commit statistics
 * from git's own numstat (numstat.c), and pathspec matching.
 *
 * Strings in results come from the arena the caller passes. Errors follow git.h: a
 * negative QR_E* code and a one-line message in err.
 */
#ifndef QUARRY_GIT_INT_H
#define QUARRY_GIT_INT_H

#include "quarry/git.h"

#include "git_dl.h" /* libgit2, loaded on first use */

typedef struct qr_mailmap qr_mailmap;

struct qr_git {
    git_repository *repo;
    char *gitdir;  /* the common git directory, absolute, without a trailing '/' */
    char *workdir; /* absolute, without a trailing '/'; NULL when bare */
    qr_mailmap *mailmap;
    bool mailmap_loaded;
    git_oid *shallow; /* sorted: commits whose parents git treats as absent */
    size_t nshallow;
    bool shallow_loaded;
};

/* ---- pathspecs (pathspec.c) ----
 * git's pathspec of one path from the repository's root: an exact path, a leading
 * directory, or a wildcard pattern; magic icase, exclude, glob, literal and top. */
typedef struct qr_pathspec {
    const char *pat; /* normalised; NULL or empty: everything */
    size_t len;      /* without trailing '/' */
    bool dir_only;   /* the pattern ended with '/' */
    bool glob;       /* has *, ? or [ (and no literal magic) */
    size_t lit;      /* length of the part before the first glob character */
    bool icase;      /* :(icase): ASCII case folded */
    bool exclude;    /* :(exclude), :!, :^: every path the pattern does not match */
    bool wild;       /* :(glob): '*' stops at '/', "**" crosses directories */
    bool literal;    /* :(literal): no wildcards */
} qr_pathspec;

/* Parses a pathspec as git reads one given at the top of the work tree: a quoted path
 * (qr__path_unquote) unquoted, the magic signature, the path normalised ("./", "//",
 * "dir/.." resolved). QR_EINVAL with a message for unknown or unsupported magic, or a
 * path outside the repository (".." above the root, an absolute path outside workdir,
 * which may be NULL). Strings from a. */
int qr__pathspec_parse(qr_pathspec *ps, const char *spec, const char *workdir, qr_arena *a,
                       qr_buf *err);
/* A plain path or glob without magic or normalisation beyond "./" (tests). */
void qr__pathspec_init(qr_pathspec *ps, const char *pat);
bool qr__pathspec_all(const qr_pathspec *ps);
/* True when the pathspec may match more than one file (a wildcard, icase or exclude). */
bool qr__pathspec_has_magic(const qr_pathspec *ps);
bool qr__pathspec_match(const qr_pathspec *ps, const char *path, size_t n);
/* Could it match a path under directory dir[0..n)? Does it match every such path? */
bool qr__pathspec_reaches(const qr_pathspec *ps, const char *dir, size_t n);
bool qr__pathspec_covers(const qr_pathspec *ps, const char *dir, size_t n);
/* The same pathspec as git's own argument (":(top,...)path"), from a. */
int qr__pathspec_to_git(const qr_pathspec *ps, qr_arena *a, const char **out);
/* git's wildmatch: pathname makes '*', '?' and brackets stop at '/' and "**" cross
 * directories; icase folds ASCII case. */
bool qr__wildmatch(const char *pat, size_t plen, const char *text, size_t tlen, bool pathname,
                   bool icase);

/* A path as results show it: itself when it is UTF-8, else (or when it starts and ends
 * with '"') git's C-quoted form in double quotes, invalid bytes as \NNN. NULL: no memory. */
const char *qr__path_shown(qr_arena *a, const char *s, size_t n);
/* The inverse, for a path given back: s itself unless it starts and ends with '"'. */
int qr__path_unquote(qr_arena *a, const char *s, const char **out, qr_buf *err);

/* ---- .mailmap (mailmap.c) ---- */
int qr__mailmap_load(git_repository *repo, qr_mailmap **out);

/* When a tag was made (tags_tool.c, the one rule get_tags and the release lookups share):
 * obj is what refs/tags/NAME names, c the commit it peels to; the tagger's time and offset
 * when annotated (the commit's time and offset 0 when it has no tagger), else the
 * commit's. */
void qr__git_tag_when(const git_object *obj, const git_commit *c, int64_t *time, int *offset);
/* A map of the lines of text[0..n) alone (tests and fuzzing). */
int qr__mailmap_parse(const char *text, size_t n, qr_mailmap **out);
void qr__mailmap_free(qr_mailmap *m);
/* Maps *name and *email as git does; returns true when the map changed either. The
 * strings it stores live as long as the map. */
bool qr__mailmap_map(const qr_mailmap *m, const char **name, const char **email);

/* ---- the repository ---- */
/* The commit a ref names (a branch, tag, oid, or any revision git understands), peeled.
 * *unborn is set (and QR_OK returned) when ref is HEAD on a branch with no commits yet. */
int qr__git_resolve(qr_git *g, const char *ref, git_oid *out, bool *unborn, qr_buf *err);
/* What a `ref` parameter names: one revision, or a range as git reads one: "A..B"
 * (reachable from B, not from A), "A...B" (from either, not from both: their merge bases
 * hidden), or several revisions separated by spaces, "^A" hiding what A reaches ("^A B
 * C"). An empty side of ".." or "..." is HEAD. */
#define QR_REVS_MAX 32
typedef struct qr_revs {
    git_oid pos[QR_REVS_MAX]; /* where the walk starts */
    size_t npos;
    git_oid neg[QR_REVS_MAX]; /* what they reach is hidden */
    size_t nneg;
    bool range;  /* written as a range or a list, not one revision */
    bool unborn; /* one revision, HEAD on a branch with no commits yet (npos is 0) */
} qr_revs;
int qr__git_resolve_revs(qr_git *g, const char *ref, qr_revs *out, qr_buf *err);
/* True when git treats oid's parents as absent (the boundary of a shallow clone). */
bool qr__git_is_shallow(qr_git *g, const git_oid *oid);
/* The directory to run git in (the working tree, or the git directory when bare). */
const char *qr__git_rundir(const qr_git *g);

/* What a commit says about itself, as `git log` shows it (author through .mailmap). */
typedef struct qr_commit_info {
    git_oid oid;
    const char *author, *email, *message; /* NUL-terminated, from the arena */
    const char *raw_author, *raw_email;   /* as recorded (the same pointers when unmapped) */
    size_t subject_len;                   /* the first paragraph, joined as %s joins it */
    const char *subject;
    int64_t atime; /* author date */
    int aoffset;   /* its UTC offset in minutes */
    int64_t ctime; /* committer date: the walk order and since/until */
    uint32_t nparents;
    git_oid *parents; /* as git shows them: none at a shallow boundary */
} qr_commit_info;

/* Reads one commit's information into *out (strings in a). */
int qr__git_commit_info(qr_git *g, const git_oid *oid, qr_arena *a, qr_commit_info *out,
                        qr_buf *err);

enum { QR_MERGES_INCLUDE = 0, QR_MERGES_EXCLUDE, QR_MERGES_ONLY };

typedef struct qr_walk_opts {
    const char *ref; /* NULL: HEAD */
    bool has_since, has_until;
    int64_t since, until;    /* committer dates, as git log --since/--until */
    const char *author;      /* case-insensitive substring of name or email, or NULL */
    const qr_pathspec *path; /* NULL: no path limit */
    void *grep;              /* a pcre2_code_8 matched against the message, or NULL */
    int merges;              /* QR_MERGES_* */
    bool first_parent;
    int64_t limit; /* < 0: no limit */
    bool all_refs; /* start from HEAD and every ref, as `git log --all` (ref is not used) */
    /* An index whose commit graph the walk may read instead of commit objects, or NULL.
     * Used only when the walk needs no trees or messages (no path, no grep); the results
     * then carry "" as message and subject. Commits the graph lacks are read from the
     * pack and, with graph_write, added to it. When the graph fails, the walk reads
     * every commit from the pack instead. */
    qr_git_index *graph;
    bool graph_write;
    const qr_stop *stop; /* checked every few hundred commits: QR_ESTOPPED (NULL: none) */
} qr_walk_opts;

/* Walks the history as `git log` does (date order, history simplification for a path,
 * since cutting the walk, until, author, grep and merges filtering) and returns the
 * commits shown, newest first, in *out (an array of *n from a). */
int qr__git_walk(qr_git *g, const qr_walk_opts *o, qr_arena *a, qr_commit_info **out, size_t *n,
                 qr_buf *err);
/* Calls each with every file (blob, link or submodule entry, by its path from the root)
 * whose entry differs between the trees of commits from and to, in git's tree order: the
 * files in which history simplification (qr__git_walk with a path) finds the two trees
 * different, so that a pathspec matching one of them is exactly one that makes them
 * differ. QR_EIO (a commit or tree cannot be read), QR_ENOMEM. */
int qr__git_tree_changes(qr_git *g, const git_oid *from, const git_oid *to,
                         void (*each)(void *ud, const char *path, size_t n), void *ud, qr_buf *err);
/* True when the commit's author (name or email, mapped or as recorded) contains needle,
 * ignoring ASCII case. */
bool qr__git_author_matches(const qr_commit_info *c, const char *needle);
/* True when the pcre2_code_8 pattern matches the message (with the walk's backtracking
 * limits; a pattern that hits them does not match). */
bool qr__git_message_matches(void *code, const char *msg);

/* ---- who an author is, and which commit is first: one rule for both backends ----
 * The local tools aggregate in C (tools_git.c), the shared index in SQL (shared_tools.c);
 * these are the two spellings of each rule, side by side, so both give the same rows.
 * - An author is an email whatever its ASCII case (Bob@X.org is bob@x.org); other letters
 *   are not folded, as the mailmap and the author filter fold only ASCII. In SQL, lower()
 *   under COLLATE "C", which folds only ASCII whatever the database's locale.
 * - Commits are ordered by author date, then committer date, then UTC offset, then id:
 *   the first and last commits of an author or a file are the least and greatest in that
 *   order, and an author's name and email are shown as in their last commit. */
#define QR_GIT_FOLD_SQL(x) "lower(" x " COLLATE \"C\")"
#define QR_GIT_LAST_FIRST_SQL "atime DESC, ctime DESC, aoffset DESC, oid COLLATE \"C\" DESC"
/* The author key of email: email itself when it has no ASCII capital, else a lowercased
 * copy in a; NULL when a is out of memory. */
const char *qr__git_author_key(const char *email, qr_arena *a);
/* < 0, 0 or > 0 as commit x comes before, is, or comes after y in that order. */
int qr__git_commit_order(const qr_commit_info *x, const qr_commit_info *y);

/* ---- the commit graph and other internals of the index (index.c) ----
 * Each commit's header fields, as libgit2 parses them, keyed by commit id: what a walk
 * needs without reading commit objects from the pack. A row never changes (an id names
 * one content); parents are as recorded (the walk applies a shallow boundary). */
typedef struct qr_graph_commit {
    git_oid oid;
    int64_t ctime;            /* committer date */
    int64_t atime;            /* author date */
    int aoffset;              /* its UTC offset in minutes */
    const char *name, *email; /* the author as recorded (before .mailmap) */
    uint32_t nparents;
    const git_oid *parents;
    /* a reader that loaded the whole graph numbers its rows 0..qr__graph_loaded() - 1, so
     * that a walk can mark them in an array; UINT32_MAX for any other row */
    uint32_t slot;
} qr_graph_commit;

typedef struct qr_graph_reader qr_graph_reader;

/* Starts reading the graph of ix. whole: the caller will visit most of it (a walk of the
 * whole history), so it is loaded at once; else rows are looked up one by one, until so
 * many were that loading the rest at once is cheaper. On failure (QR_EIO, QR_ENOMEM) a
 * damaged database has been rebuilt empty for the next use. */
int qr__graph_open(qr_git_index *ix, bool whole, qr_graph_reader **out, qr_buf *err);
/* The graph's row for oid: QR_OK and *out (valid until the reader is closed), 1 when the
 * graph lacks it, or an error as for qr__graph_open (the reader answers nothing after). */
int qr__graph_get(qr_graph_reader *r, const git_oid *oid, const qr_graph_commit **out, qr_buf *err);
/* How many rows the reader has loaded (all of them once it loaded the whole graph). */
size_t qr__graph_loaded(const qr_graph_reader *r);
void qr__graph_close(qr_graph_reader *r);
/* Adds rows in one transaction (existing ones are left alone). QR_EINVAL for a row
 * without name or email. */
int qr__graph_put(qr_git_index *ix, const qr_graph_commit *cs, size_t n, qr_buf *err);
/* found[i]: whether the index holds statistics for oids[i] (one read transaction). */
int qr__index_has_many(qr_git_index *ix, const git_oid *oids, size_t n, bool *found, qr_buf *err);

/* ---- attributes (attrs.c) ---- */
/* The fingerprint of what decides which files git counts as binary now: the lines of the
 * attributes files in force that name diff, binary or a macro, the diff.*.binary settings
 * and core.bigFileThreshold. Never 0. QR_ENOMEM (with a fingerprint of what was read). */
int qr__git_attrs_fingerprint(qr_git *g, uint64_t *out);
/* The fingerprint of one attributes file's text alone (tests and fuzzing). */
uint64_t qr__attrs_hash_text(const char *text, size_t n);
/* Sets ix to read and write under g's attributes now (QR_ENOMEM leaves it as it was). */
int qr__git_index_bind(qr_git *g, qr_git_index *ix);

/* ---- statistics (numstat.c) ---- */
/* Progress of computing many commits' statistics (see qr_host.progress). */
typedef struct qr_progress {
    void (*fn)(void *ud, const char *what, size_t done, size_t total);
    void *ud;
    const qr_stop *stop; /* the git processes are killed when it says stop (NULL: none) */
} qr_progress;
/* Fewest commits to compute for which progress is reported. */
#define QR_PROGRESS_MIN 1000

/* Statistics of commits cs[0..n) into out[0..n) (strings from a), as `git log --numstat
 * --no-renames` shows them: merges carry none unless first_parent, when they carry their
 * diff against the first parent (as `git log --first-parent` shows it). Uses the index
 * when ix is not NULL (reading, and storing what it computes); *ix is closed and set to
 * NULL when it fails, and the stats are computed without it. */
int qr__git_stats(qr_git *g, qr_git_index **ix, const qr_commit_info *cs, size_t n,
                  bool first_parent, const qr_progress *progress, qr_arena *a, qr_commit_stats *out,
                  qr_buf *err);
/* True when the index may store the statistics of c: not a merge (git log shows none) and
 * not the boundary of a shallow clone (a root here, but not once it is deepened). */
bool qr__git_stats_storable(qr_git *g, const qr_commit_info *c);
/* Computes and stores the statistics of the commits of cs[0..n) that the index may store
 * and lacks, in batches each stored when computed (an interrupted run keeps what it did).
 * *added: how many were stored. Progress as for qr__git_stats. A failing index is an
 * error here (QR_EIO), not a reason to go on without it. */
int qr__git_stats_ensure(qr_git *g, qr_git_index *ix, const qr_commit_info *cs, size_t n,
                         const qr_progress *progress, size_t *added, qr_buf *err);
/* Parses git's `--raw --numstat -z` output (with a "<hex id>\0" header before each commit
 * when headers is set, as git log prints it; else one diff) into *out (from a). QR_EIO
 * when it is not in that form. Exposed for tests and fuzzing. */
int qr__numstat_parse(const char *buf, size_t len, bool headers, qr_arena *a, qr_commit_stats **out,
                      size_t *n);
/* The diff between two commits' trees (`git diff-tree --numstat --no-renames`). */
int qr__git_diff_stats(qr_git *g, const git_oid *from, const git_oid *to, qr_arena *a,
                       qr_commit_stats *out, qr_buf *err);

/* One commit of `git log --follow`: the file's name there and its numstat. */
typedef struct qr_follow_entry {
    git_oid oid;
    const char *path, *old_path; /* old_path: the name before a rename, or NULL */
    char status;
    bool binary;
    int64_t additions, deletions;
} qr_follow_entry;

typedef struct qr_follow_opts {
    const qr_revs *revs;
    const char *spec; /* the pathspec as git's argument (qr__pathspec_to_git) */
    const char *path; /* the file's name for a commit git shows without one, or NULL */
    bool per_file;    /* one entry per file and commit (a pathspec for many files) */
    bool follow;      /* --follow (one path); else -M (git's default rename detection) */
    bool has_since, has_until;
    int64_t since, until;
    int merges;
    bool first_parent;
    const qr_stop *stop; /* the git process is killed when it says stop (NULL: none) */
    size_t max_output;   /* git's output kept at most, else QR_ELIMIT (0: no limit) */
    int64_t max_count;   /* at most this many commits (git log -n), when no filter of
                            the caller's comes after; -1: all */
} qr_follow_opts;

/* Runs `git log --follow` for one file and returns its commits, newest first (with
 * per_file, one entry per file of each commit, in git's order). */
int qr__git_follow(qr_git *g, const qr_follow_opts *o, qr_arena *a, qr_follow_entry **out,
                   size_t *n, qr_buf *err);

/* The git tools' shared pieces (tools_git.c): the repository of a tool context (opened on
 * first use; QR_EINVAL with a message when there is no context), and a string parameter
 * (a string, or a keyword's name; NULL when absent, nil or another type). */
int qr__git_host(void *ctx, qr_git **g, qr_buf *err);
const char *qr__git_arg_str(qr_val args, qr_arena *a, const char *name);

/* ---- the tools across repositories (shared_tools.c) ----
 * get_commits, get_author_stats or get_file_stats (kind) answered from the shared
 * statistics index for the repositories `repos` names, with h->shared_url's database
 * (opened on first use, closed by qr__git_shared_close). */
enum { QR_SHARED_COMMITS, QR_SHARED_AUTHORS, QR_SHARED_FILES };
int qr__git_shared_tool(qr_git_ctx *h, int kind, qr_val args, qr_val repos, qr_arena *a,
                        qr_val *out, qr_buf *err);
void qr__git_shared_close(qr_git_ctx *h);

#endif
