/*
 * dwim_int.h: what the files of src/dwim share: running a child process, resolving a
 * path inside the working tree, the code graph of the working tree, validate and fix.
 */
#ifndef QUARRY_DWIM_INT_H
#define QUARRY_DWIM_INT_H

#include "quarry/dwim.h"

/* Runs argv with qr_proc_run (no shell, a scrubbed environment) in dir (NULL: here),
 * stdout and stderr into out (err_out NULL: both into out); *status is the exit code
 * (128+signal when killed). stop (NULL: none) kills the process group. QR_EIO when it
 * cannot start or was stopped. */
int qr__dwim_spawn(const char *const *argv, const char *dir, const qr_stop *stop, qr_buf *out,
                   qr_buf *err_out, int *status);
/* path (relative to the root, or absolute) resolved with symlinks; refused outside the
 * root. must_exist false: a new file whose directory exists. *abs_out is malloc'd;
 * *rel_out points into it. */
int qr__dwim_resolve(const qr_dwim_ctx *c, const char *path, bool must_exist, char **abs_out,
                     const char **rel_out, qr_buf *err);
int qr__dwim_graph(qr_dwim_ctx *c, qr_code_graph **g, qr_buf *err);
/* Runs the check (named: the command a line names, or NULL for the configured or
 * discovered one); sets c->failed when it failed. */
int qr__dwim_validate(qr_dwim_ctx *c, const char *named, qr_arena *a, qr_buf *out,
                      qr_buf *err);
/* One C identifier (parse.c); s[0..n) all digits, n > 0 (parse.c). */
bool qr__dwim_is_ident(const char *s);
bool qr__dwim_all_digits(const char *s, size_t n);
/* A line written as another tool's command or an editor's action (`cscope -L3 f`,
 * `head -50 x.c`, `git log -n 5`, "find usages of f", `:wq`) as the DWIM line that does the
 * same, in `a`; NULL when the line is not one (cmdline.c). */
const char *qr__dwim_cmdline(const qr_dwim_lookup *lk, const char *line, size_t n, qr_arena *a);
/* Whether the line runs a program that changes things or reaches elsewhere (rm, ssh, docker,
 * git push ...): it names no verb, whatever words follow (cmdline.c). */
bool qr__dwim_foreign(const char *line, size_t n, qr_arena *a);
int qr__dwim_fix(qr_dwim_ctx *c, const qr_dwim_intent *in, qr_arena *a, qr_buf *out,
                 qr_buf *err);

/* ---- the working tree as fix touches it (tree.c) ---- */

struct stat;

/* Opens the directory holding rel (relative to root, no "." or ".." components) by
 * walking from root with openat(O_NOFOLLOW|O_DIRECTORY) per component: *dfd (close it)
 * and *leaf (into rel). QR_EINVAL with a message when a component is a symbolic link or
 * not a directory; QR_EIO when it cannot be opened. */
int qr__dwim_open_parent(const char *root, const char *rel, int *dfd, const char **leaf,
                         qr_buf *err);
/* Reads leaf in dfd (not followed when a symbolic link; a regular file only, at most max
 * bytes) into *data (malloc'd, NUL-terminated), its stat into *st. QR_EIO (errno: ENOENT
 * when missing, ENXIO when not a regular file), QR_EINVAL when larger than max. */
int qr__dwim_read_at(int dfd, const char *leaf, size_t max, char **data, size_t *n,
                     struct stat *st);
/* Replaces leaf in dfd with data (a temporary file in dfd with mode, fsync'd, renamed over
 * it). QR_OK or QR_EIO (errno kept; nothing left behind). */
int qr__dwim_write_at(int dfd, const char *leaf, const void *data, size_t n, unsigned mode);

/* The git directories of the tree, which fix never edits. */
typedef struct qr_dwim_gitdirs {
    char *dirs[3]; /* real paths: the worktree's gitdir, the common dir, $GIT_DIR */
    size_t n;
    const char *own; /* the worktree's gitdir (dirs[0]): where the undo log lives */
} qr_dwim_gitdirs;

int qr__dwim_gitdirs_init(qr_dwim_gitdirs *g, const qr_dwim_ctx *c, qr_buf *err);
void qr__dwim_gitdirs_release(qr_dwim_gitdirs *g);
/* Whether abs (a real path) is in one of them, or rel has a component named .git. */
bool qr__dwim_gitdirs_hold(const qr_dwim_gitdirs *g, const char *abs, const char *rel);

/* ---- what was read (fix.c): the loop's memory ---- */

typedef struct qr_dwim_seen {
    char *rel;      /* the file, relative to the root */
    char *what;     /* "lines 1-40", "expand add (lines 3-9)", "skeleton" */
    char *key;      /* the line that read it: a repeat is answered from the cache (NULL:
                       not any more, the file was edited since) */
    uint64_t hash;  /* of the whole file when it was read, or when fix last wrote it */
    size_t size;
    int id;         /* the result that holds it (0: not known yet) */
} qr_dwim_seen;

struct qr_dwim_reads {
    qr_dwim_seen *v;
    size_t n, cap;
    char *current; /* the file read or edited last: where a headerless hunk applies */
};

/* Records that rel was read (no-op when c->reads is NULL). */
void qr__dwim_seen_add(qr_dwim_ctx *c, const char *rel, const char *what);
/* The newest record of rel, or NULL. */
const qr_dwim_seen *qr__dwim_seen_last(const qr_dwim_ctx *c, const char *rel);
/* The hash and size of a file of the tree now; false when it cannot be read. */
bool qr__dwim_file_hash(const qr_dwim_ctx *c, const char *rel, uint64_t *h, size_t *n);
void qr__dwim_reads_release(struct qr_dwim_reads *r);

/* ---- unified diffs (diff.c) ---- */

/* How far (in lines) a hunk is looked for from where its header (and the offset of the
 * hunk before) says. */
#define QR__DWIM_DIFF_MAX_OFFSET 100

typedef struct qr_dwim_hline {
    char kind;       /* ' ' context, '-' removed, '+' added */
    bool nonl;       /* followed by '\ No newline at end of file' */
    const char *s;   /* the text after the kind, without its end of line */
    size_t n;
} qr_dwim_hline;

typedef struct qr_dwim_hunk {
    uint32_t old_start, old_count, new_start, new_count;
    size_t first, nlines; /* its lines in qr_dwim_diff.lines */
    unsigned line;        /* of its header in the diff, for messages */
} qr_dwim_hunk;

typedef struct qr_dwim_fdiff {
    const char *old_path, *new_path; /* NULL: /dev/null (both NULL when headerless) */
    bool headerless;                 /* hunks without ---/+++: the fix line's file */
    qr_dwim_hunk *hunks;
    size_t nhunks;
    unsigned line; /* of its --- header */
} qr_dwim_fdiff;

typedef struct qr_dwim_diff {
    qr_dwim_fdiff *files;
    size_t nfiles;
    qr_dwim_hline *lines;
} qr_dwim_diff;

/* Does text hold a unified diff (a ---/+++ pair, a hunk header or diff --git)? */
bool qr__dwim_diff_like(const char *text, size_t n);
/* Parses a unified diff strictly (see diff.c); everything lives in `a`. QR_EINVAL with
 * one line naming the diff's line number on a malformed or refused diff. */
int qr__dwim_diff_parse(const char *text, size_t n, qr_arena *a, qr_dwim_diff *out,
                        qr_buf *err);
/* Applies the hunks of f to text (the file `name`), appending the new content to out;
 * *first_line: the first line it changes (1-based, in the old file). QR_EINVAL when a hunk does not
 * apply or applies ambiguously. */
int qr__dwim_diff_apply(const qr_dwim_diff *d, const qr_dwim_fdiff *f, const char *name,
                        const char *text, size_t n, qr_buf *out, uint32_t *first_line,
                        qr_buf *err);

#endif
