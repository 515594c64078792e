/*
 * fix.c: the fix verb, its undo log, and the memory of what was read. An edit is a
 * unified diff (diff.c: several files, several hunks, new and deleted files), a
 * search/replace block
 *     <<<<<<< SEARCH / old text / ======= / new text / >>>>>>> REPLACE
 * on the file the line names, or a new text for a named symbol (its whole definition,
 * replaced by its byte range in the code graph). Edits happen only with write permission
 * (quarry dwim --write, quarry do --write). Every file an edit touches is resolved under
 * the working tree (no .., no symlink out, no symbolic link edited through), is not in a
 * git directory (tree.c: .git, the worktree's gitdir, the common dir, $GIT_DIR), is
 * reached through directories opened one component at a time (tree.c: a parent swapped
 * for a symbolic link after the check cannot redirect the write), must be a regular text
 * file its owner may write (a read-only file is refused), and must hold what was read:
 * when the loop read it (c->reads), the content it read then (or fix last wrote); in
 * every case the content the edit was made on, checked again just before writing. The
 * whole edit is made in memory first; one hunk that does not apply refuses it all and
 * nothing is written. Then, under the undo log's lock (so two fix runs never take one
 * number), each old file is saved into the undo log (<gitdir>/quarry/dwim-undo/
 * NNNNNN.{path,orig}, the files of one edit forming one group; the record keeps the
 * file's mode and the size and hash of what the edit wrote) and each file is replaced
 * atomically, keeping its mode; a failed write puts back the files already written.
 *
 * qr_dwim_undo restores the newest group, each file with its recorded mode, only when
 * every file of it still holds what the edit wrote: a file changed since is never
 * overwritten and a created file edited since is never deleted (the undo refuses and says
 * which). A file that still holds its old content (the edit was killed before it wrote)
 * needs nothing; so a kill -9 during an edit or an undo leaves a log that the next undo
 * finishes.
 */
#define _GNU_SOURCE
#include "dwim_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static void undo_dir(const qr_dwim_gitdirs *g, qr_buf *p)
{
    qr_buf_printf(p, "%s/quarry/dwim-undo", g->own);
}

/* Takes the undo log's lock (blocking): numbering, logging and writing an edit, and
 * undoing one, happen one at a time. -1 when it cannot be taken. */
static int lock_log(const char *dir)
{
    qr_buf p;
    qr_buf_init(&p);
    qr_buf_printf(&p, "%s/lock", dir);
    int fd = p.failed ? -1 : open(p.p, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    qr_buf_release(&p);
    if (fd < 0)
        return -1;
    while (flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            close(fd);
            return -1;
        }
    return fd;
}

static void unlock_log(int fd)
{
    if (fd >= 0)
        close(fd);
}

static int mkdirs(const char *path)
{
    char tmp[4096];
    size_t n = strlen(path);
    if (n >= sizeof tmp)
        return QR_EIO;
    memcpy(tmp, path, n + 1);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
                return QR_EIO;
            *p = '/';
        }
    return mkdir(tmp, 0777) == 0 || errno == EEXIST ? QR_OK : QR_EIO;
}

/* The number of the newest entry (0: none). */
static unsigned newest_entry(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    unsigned best = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        unsigned k;
        char ext[8];
        if (sscanf(e->d_name, "%6u.%7s", &k, ext) == 2 && !strcmp(ext, "path") && k > best)
            best = k;
    }
    closedir(d);
    return best;
}

/* ---- the memory of reads ---- */

bool qr__dwim_file_hash(const qr_dwim_ctx *c, const char *rel, uint64_t *h, size_t *n)
{
    qr_buf p;
    qr_buf_init(&p);
    qr_buf_printf(&p, "%s/%s", c->root, rel);
    char *text = NULL;
    int rc = qr_read_file(p.p, 64u << 20, &text, n);
    qr_buf_release(&p);
    if (rc != QR_OK)
        return false;
    *h = qr_hash_bytes(text, *n);
    free(text);
    return true;
}

static qr_dwim_seen *seen_push(struct qr_dwim_reads *r)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        qr_dwim_seen *v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return NULL;
        r->v = v;
        r->cap = cap;
    }
    qr_dwim_seen *e = &r->v[r->n++];
    memset(e, 0, sizeof *e);
    return e;
}

static void set_current(struct qr_dwim_reads *r, const char *rel)
{
    char *d = strdup(rel);
    if (d) {
        free(r->current);
        r->current = d;
    }
}

void qr__dwim_seen_add(qr_dwim_ctx *c, const char *rel, const char *what)
{
    struct qr_dwim_reads *r = c->reads;
    uint64_t h;
    size_t n;
    if (!r || !qr__dwim_file_hash(c, rel, &h, &n))
        return;
    qr_dwim_seen *e = seen_push(r);
    if (!e)
        return;
    e->rel = strdup(rel);
    e->what = strdup(what);
    e->hash = h;
    e->size = n;
    set_current(r, rel);
}

const qr_dwim_seen *qr__dwim_seen_last(const qr_dwim_ctx *c, const char *rel)
{
    if (!c->reads)
        return NULL;
    for (size_t i = c->reads->n; i-- > 0;)
        if (c->reads->v[i].rel && !strcmp(c->reads->v[i].rel, rel))
            return &c->reads->v[i];
    return NULL;
}

/* fix wrote rel: later fixes check against what it wrote; earlier reads of it are no
 * longer answered from the cache. */
static void seen_wrote(qr_dwim_ctx *c, const char *rel, const char *data, size_t n)
{
    struct qr_dwim_reads *r = c->reads;
    if (!r)
        return;
    bool any = false;
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i].rel && !strcmp(r->v[i].rel, rel)) {
            free(r->v[i].key);
            r->v[i].key = NULL;
            r->v[i].hash = qr_hash_bytes(data, n);
            r->v[i].size = n;
            any = true;
        }
    if (!any) {
        qr_dwim_seen *e = seen_push(r);
        if (e) {
            e->rel = strdup(rel);
            e->what = strdup("edited");
            e->hash = qr_hash_bytes(data, n);
            e->size = n;
        }
    }
    set_current(r, rel);
}

void qr__dwim_reads_release(struct qr_dwim_reads *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].rel);
        free(r->v[i].what);
        free(r->v[i].key);
    }
    free(r->v);
    free(r->current);
    memset(r, 0, sizeof *r);
}

/* ---- an edit: its files, checked, logged, written ---- */

typedef struct efile {
    char *abs;
    const char *rel;  /* into abs */
    int dfd;          /* its directory, opened from the root (-1: not yet) */
    const char *leaf; /* its name in dfd (into abs) */
    char *old;        /* what the edit was made on (malloc'd; NULL for a new file) */
    size_t on;
    bool existed, remove;
    unsigned mode;
    qr_buf neu;       /* the new content */
    uint32_t line;    /* where the edit starts */
    size_t minus, plus;
} efile;

static void efiles_free(efile *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i].dfd >= 0)
            close(v[i].dfd);
        free(v[i].abs);
        free(v[i].old);
        qr_buf_release(&v[i].neu);
    }
    free(v);
}

/* Opens path for an edit: resolved inside the tree, not in a git directory, not a
 * symbolic link, its directory opened from the root one component at a time, a regular
 * text file its owner may write (create: one that does not exist yet), holding what the
 * loop read of it. */
static int load(qr_dwim_ctx *c, const qr_dwim_gitdirs *gd, const char *path, bool create,
                efile *f, qr_buf *err)
{
    int rc = qr__dwim_resolve(c, path, !create, &f->abs, &f->rel, err);
    if (rc != QR_OK) {
        if (create && !strstr(err->p ? err->p : "", "outside")) {
            qr_buf_reset(err);
            qr_buf_printf(err, "cannot create '%s': its directory does not exist", path);
        }
        return rc;
    }
    if (qr__dwim_gitdirs_hold(gd, f->abs, f->rel)) {
        qr_buf_printf(err, "'%s' is in the git directory; fix edits the working tree only",
                      path);
        return QR_EINVAL;
    }
    struct stat st;
    qr_buf lp;
    qr_buf_init(&lp);
    if (path[0] == '/')
        qr_buf_puts(&lp, path);
    else
        qr_buf_printf(&lp, "%s/%s", c->root, path);
    bool link = lstat(lp.p, &st) == 0 && S_ISLNK(st.st_mode);
    qr_buf_release(&lp);
    if (link) {
        qr_buf_printf(err, "'%s' is a symbolic link; fix edits regular files only", path);
        return QR_EINVAL;
    }
    if ((rc = qr__dwim_open_parent(c->root, f->rel, &f->dfd, &f->leaf, err)) != QR_OK)
        return rc;
    f->mode = 0644;
    if (create) {
        if (fstatat(f->dfd, f->leaf, &st, AT_SYMLINK_NOFOLLOW) == 0) {
            qr_buf_printf(err, "'%s' already exists; the diff creates it", f->rel);
            return QR_EINVAL;
        }
        return QR_OK;
    }
    f->existed = true;
    rc = qr__dwim_read_at(f->dfd, f->leaf, 64u << 20, &f->old, &f->on, &st);
    if (rc != QR_OK) {
        if (rc == QR_EIO && (errno == ENXIO || errno == ELOOP))
            qr_buf_printf(err, "'%s' is not a regular file", f->rel);
        else
            qr_buf_printf(err, "cannot read '%s'", f->rel);
        return QR_EINVAL;
    }
    f->mode = st.st_mode & 07777;
    if (!(st.st_mode & S_IWUSR)) {
        qr_buf_printf(err, "'%s' is read-only (mode %04o); fix does not edit read-only files",
                      f->rel, (unsigned)(st.st_mode & 07777));
        return QR_EINVAL;
    }
    if (memchr(f->old, '\0', f->on)) {
        qr_buf_printf(err, "'%s' is a binary file; fix edits text", f->rel);
        return QR_EINVAL;
    }
    const qr_dwim_seen *s = qr__dwim_seen_last(c, f->rel);
    if (s && (s->size != f->on || s->hash != qr_hash_bytes(f->old, f->on))) {
        if (s->id)
            qr_buf_printf(err, "'%s' changed since it was read (#%04d); read it again",
                          f->rel, s->id);
        else
            qr_buf_printf(err, "'%s' changed since it was read; read it again", f->rel);
        return QR_EINVAL;
    }
    return QR_OK;
}

static int undo_entry(qr_buf *p, const char *dir, unsigned k, const char *ext)
{
    qr_buf_reset(p);
    qr_buf_printf(p, "%s/%06u.%s", dir, k, ext);
    return p->failed ? QR_ENOMEM : QR_OK;
}

/* Writes (or removes) f's new content in its opened directory. */
static int put_file(efile *f)
{
    if (f->remove)
        return unlinkat(f->dfd, f->leaf, 0) == 0 ? QR_OK : QR_EIO;
    return qr__dwim_write_at(f->dfd, f->leaf, f->neu.p ? f->neu.p : "", f->neu.len, f->mode);
}

/* Under the undo log's lock: checks every file again, logs the old ones as one undo
 * group, writes them all. */
static int commit(qr_dwim_ctx *c, const qr_dwim_gitdirs *gd, efile *v, size_t n, qr_buf *err)
{
    qr_buf dir, p, line;
    qr_buf_init(&dir);
    qr_buf_init(&p);
    qr_buf_init(&line);
    undo_dir(gd, &dir);
    int rc = mkdirs(dir.p);
    int lk = rc == QR_OK ? lock_log(dir.p) : -1;
    if (lk < 0) {
        qr_buf_printf(err, "cannot lock the undo log in '%s'", dir.p);
        rc = QR_EIO;
        goto out;
    }
    for (size_t i = 0; i < n && rc == QR_OK; i++) {
        efile *f = &v[i];
        struct stat st;
        if (!f->existed) {
            if (fstatat(f->dfd, f->leaf, &st, AT_SYMLINK_NOFOLLOW) == 0) {
                qr_buf_printf(err, "'%s' appeared since it was read; read it again", f->rel);
                rc = QR_EINVAL;
            }
            continue;
        }
        char *now = NULL;
        size_t nn = 0;
        bool same = qr__dwim_read_at(f->dfd, f->leaf, 64u << 20, &now, &nn, &st) == QR_OK &&
                    nn == f->on && !memcmp(now, f->old, nn);
        free(now);
        if (!same) {
            qr_buf_printf(err, "'%s' changed since it was read; read it again", f->rel);
            rc = QR_EINVAL;
        }
    }
    if (rc != QR_OK)
        goto out;
    unsigned g = newest_entry(dir.p) + 1;
    size_t logged = 0;
    for (size_t i = 0; i < n && rc == QR_OK; i++) {
        efile *f = &v[i];
        rc = undo_entry(&p, dir.p, g + (unsigned)i, "orig");
        if (rc == QR_OK && f->existed)
            rc = qr_write_file_atomic(p.p, f->old, f->on, 0600);
        if (rc == QR_OK) {
            qr_buf_reset(&line);
            qr_buf_printf(&line, "%s\n%s\nedit %06u\nmode %04o\n", f->existed ? "existed" : "new",
                          f->rel, g, f->mode);
            if (f->remove)
                qr_buf_puts(&line, "after absent\n");
            else
                qr_buf_printf(&line, "after %zu %016llx\n", f->neu.len,
                              (unsigned long long)qr_hash_bytes(f->neu.p ? f->neu.p : "",
                                                                f->neu.len));
            rc = undo_entry(&p, dir.p, g + (unsigned)i, "path");
            if (rc == QR_OK)
                rc = qr_write_file_atomic(p.p, line.p, line.len, 0600);
        }
        if (rc == QR_OK)
            logged++;
    }
    if (rc != QR_OK)
        qr_buf_puts(err, "cannot write the undo log");
    size_t written = 0;
    for (size_t i = 0; i < n && rc == QR_OK; i++) {
        efile *f = &v[i];
        rc = put_file(f);
        if (rc != QR_OK)
            qr_buf_printf(err, "cannot write '%s': %s", f->rel, strerror(errno));
        else
            written++;
    }
    if (rc != QR_OK) {
        /* put back what was written and drop the group from the log */
        for (size_t i = 0; i < written; i++) {
            if (v[i].existed)
                qr__dwim_write_at(v[i].dfd, v[i].leaf, v[i].old, v[i].on, v[i].mode);
            else
                unlinkat(v[i].dfd, v[i].leaf, 0);
        }
        for (size_t i = 0; i < logged; i++) {
            if (undo_entry(&p, dir.p, g + (unsigned)i, "path") == QR_OK)
                unlink(p.p);
            if (undo_entry(&p, dir.p, g + (unsigned)i, "orig") == QR_OK)
                unlink(p.p);
        }
    } else {
        for (size_t i = 0; i < n; i++)
            seen_wrote(c, v[i].rel, v[i].neu.p ? v[i].neu.p : "", v[i].neu.len);
        /* the graph of the working tree is stale now */
        qr_code_graph_free(c->host->code.graph);
        c->host->code.graph = NULL;
    }
out:
    unlock_log(lk);
    qr_buf_release(&dir);
    qr_buf_release(&p);
    qr_buf_release(&line);
    return rc;
}

/* Finds the SEARCH/REPLACE markers in content. */
static bool split_block(const char *s, const char **old, size_t *on, const char **neu, size_t *nn)
{
    const char *a = strstr(s, "<<<<<<< SEARCH\n");
    if (!a)
        return false;
    a += strlen("<<<<<<< SEARCH\n");
    const char *m = strstr(a, "=======\n");
    if (!m)
        return false;
    const char *b = m + strlen("=======\n");
    const char *e = strstr(b, ">>>>>>> REPLACE");
    if (!e)
        return false;
    *old = a;
    *on = (size_t)(m - a);
    *neu = b;
    *nn = (size_t)(e - b);
    return true;
}

/* A unified diff: every file loaded and every hunk applied in memory before anything is
 * written. */
static int fix_diff(qr_dwim_ctx *c, const qr_dwim_gitdirs *gd, const qr_dwim_intent *in,
                    qr_arena *a, qr_buf *out, qr_buf *err)
{
    qr_dwim_diff d;
    int rc = qr__dwim_diff_parse(in->content, strlen(in->content), a, &d, err);
    if (rc != QR_OK)
        return rc;
    efile *v = calloc(d.nfiles, sizeof *v);
    if (!v)
        return QR_ENOMEM;
    for (size_t i = 0; i < d.nfiles; i++)
        v[i].dfd = -1;
    for (size_t i = 0; i < d.nfiles && rc == QR_OK; i++) {
        const qr_dwim_fdiff *fd = &d.files[i];
        efile *f = &v[i];
        qr_buf_init(&f->neu);
        const char *path = fd->new_path ? fd->new_path : fd->old_path;
        if (fd->headerless) {
            path = in->target ? in->target : c->reads ? c->reads->current : NULL;
            if (!path) {
                qr_buf_puts(err, "a hunk without ---/+++ headers needs a file: `fix FILE` "
                                 "on the line before it");
                rc = QR_EINVAL;
                break;
            }
        }
        bool create = !fd->headerless && !fd->old_path;
        if ((rc = load(c, gd, path, create, f, err)) != QR_OK)
            break;
        f->remove = !fd->headerless && !fd->new_path;
        rc = qr__dwim_diff_apply(&d, fd, f->rel, f->old ? f->old : "", f->on, &f->neu,
                                 &f->line, err);
        if (rc == QR_OK && f->remove && f->neu.len) {
            qr_buf_printf(err, "the diff deletes '%s' but leaves %zu bytes of it", f->rel,
                          f->neu.len);
            rc = QR_EINVAL;
        }
        for (size_t h = 0; h < fd->nhunks; h++)
            for (size_t j = 0; j < fd->hunks[h].nlines; j++) {
                char k = d.lines[fd->hunks[h].first + j].kind;
                f->minus += k == '-';
                f->plus += k == '+';
            }
    }
    if (rc == QR_OK)
        rc = commit(c, gd, v, d.nfiles, err);
    if (rc == QR_OK) {
        for (size_t i = 0; i < d.nfiles; i++) {
            const efile *f = &v[i];
            if (!f->existed)
                qr_buf_printf(out, "created %s: +%zu lines\n", f->rel, f->plus);
            else if (f->remove)
                qr_buf_printf(out, "deleted %s: -%zu lines\n", f->rel, f->minus);
            else
                qr_buf_printf(out, "edited %s at line %u: -%zu +%zu lines\n", f->rel, f->line,
                              f->minus, f->plus);
        }
        qr_buf_printf(out, "(quarry dwim undo restores %s)\n", d.nfiles > 1 ? "them" : "it");
    }
    efiles_free(v, d.nfiles);
    return rc;
}

int qr__dwim_fix(qr_dwim_ctx *c, const qr_dwim_intent *in, qr_arena *a, qr_buf *out, qr_buf *err)
{
    if (!c->write) {
        qr_buf_puts(err, "fix changes files: run with --write");
        return QR_EINVAL;
    }
    if (!in->content) {
        qr_buf_puts(err, "fix needs an edit: a unified diff, a SEARCH/REPLACE block on the "
                         "lines after `fix FILE`, or the new text of a symbol after `fix "
                         "SYMBOL`");
        return QR_EINVAL;
    }
    const char *old = NULL, *neu = NULL;
    size_t on = 0, nn = 0;
    bool block = split_block(in->content, &old, &on, &neu, &nn);
    bool diff = !block && qr__dwim_diff_like(in->content, strlen(in->content));
    if (!diff && !in->target) {
        qr_buf_puts(err, "fix needs a file (with a SEARCH/REPLACE block) or a symbol");
        return QR_EINVAL;
    }
    qr_dwim_gitdirs gd;
    int rc = qr__dwim_gitdirs_init(&gd, c, err);
    if (rc != QR_OK)
        return rc;
    if (diff) {
        rc = fix_diff(c, &gd, in, a, out, err);
        qr__dwim_gitdirs_release(&gd);
        return rc;
    }
    efile *f = calloc(1, sizeof *f);
    if (!f) {
        qr__dwim_gitdirs_release(&gd);
        return QR_ENOMEM;
    }
    f->dfd = -1;
    qr_buf_init(&f->neu);
    size_t from = 0, to = 0; /* the bytes replaced */
    const char *repl = NULL;
    size_t rn = 0;
    if (block) {
        if ((rc = load(c, &gd, in->target, false, f, err)) != QR_OK)
            goto done;
        const char *hit = on ? memmem(f->old, f->on, old, on) : NULL;
        if (!hit && on > 1 && old[on - 1] == '\n') {
            /* a unique piece inside a line: the block's last line break is only the
             * marker's (`return x;` matches in `    return x;  // y`) */
            on--;
            if (nn && neu[nn - 1] == '\n')
                nn--;
            hit = memmem(f->old, f->on, old, on);
        }
        if (!hit) {
            qr_buf_printf(err, "the SEARCH text is not in '%s' (compared byte for byte, "
                               "spaces included, as whole lines or a piece of one): read "
                               "the lines and copy them", f->rel);
            rc = QR_EINVAL;
            goto done;
        }
        if (memmem(hit + 1, f->on - (size_t)(hit - f->old) - 1, old, on)) {
            qr_buf_printf(err, "the SEARCH text occurs more than once in '%s'; give more of it",
                          f->rel);
            rc = QR_EINVAL;
            goto done;
        }
        from = (size_t)(hit - f->old);
        to = from + on;
        repl = neu;
        rn = nn;
    } else {
        /* a new text for a symbol: its definition's bytes */
        qr_code_graph *g;
        if ((rc = qr__dwim_graph(c, &g, err)) != QR_OK)
            goto done;
        const qr_code_node *best = NULL;
        for (size_t i = 0; i < qr_code_graph_nnodes(g); i++) {
            const qr_code_node *nd = qr_code_graph_node(g, i);
            if (strcmp(nd->it.name, in->target) != 0 || nd->it.kind == QR_CODE_DECLARATION ||
                nd->it.kind == QR_CODE_MEMBER)
                continue;
            if (best) {
                qr_buf_printf(err, "symbol '%s' is defined more than once; give FILE:NAME "
                                   "or a SEARCH/REPLACE block", in->target);
                rc = QR_EINVAL;
                goto done;
            }
            best = nd;
        }
        if (!best) {
            qr_buf_printf(err, "no symbol '%s' in the code index", in->target);
            rc = QR_EINVAL;
            goto done;
        }
        if ((rc = load(c, &gd, best->file, false, f, err)) != QR_OK)
            goto done;
        if (best->it.end_byte > f->on || best->it.start_byte > best->it.end_byte) {
            qr_buf_printf(err, "'%s' changed since it was indexed; read it again", best->file);
            rc = QR_EINVAL;
            goto done;
        }
        from = best->it.start_byte;
        to = best->it.end_byte;
        repl = in->content;
        rn = strlen(in->content);
        while (rn && repl[rn - 1] == '\n')
            rn--;
    }
    qr_buf_append(&f->neu, f->old, from);
    qr_buf_append(&f->neu, repl, rn);
    qr_buf_append(&f->neu, f->old + to, f->on - to);
    if (f->neu.failed) {
        rc = QR_ENOMEM;
        goto done;
    }
    /* the line the edit starts at */
    unsigned line = 1;
    for (size_t i = 0; i < from; i++)
        line += f->old[i] == '\n';
    rc = commit(c, &gd, f, 1, err);
    if (rc == QR_OK)
        qr_buf_printf(out, "edited %s at line %u: -%zu +%zu bytes (quarry dwim undo "
                           "restores it)\n", f->rel, line, to - from, rn);
done:
    efiles_free(f, 1);
    qr__dwim_gitdirs_release(&gd);
    return rc;
}

/* One entry of the undo log, read and checked against the tree. */
typedef struct uent {
    unsigned k, group;
    bool existed, has_mode, has_after, after_absent;
    unsigned mode;
    size_t after_size;
    uint64_t after_hash;
    char *rec, *abs, *orig;
    const char *rel, *leaf;
    size_t on;
    int dfd;
    bool skip; /* the file is as it was before the edit already */
} uent;

static void uent_clear(uent *u)
{
    free(u->rec);
    free(u->abs);
    free(u->orig);
    if (u->dfd >= 0)
        close(u->dfd);
}

/* Reads entry k: "existed|new\nPATH\nedit GROUP\nmode MODE\nafter SIZE HASH|absent\n"
 * (the last three lines are absent in logs written before they were added). */
static int uent_read(const char *dir, unsigned k, uent *u, qr_buf *err)
{
    memset(u, 0, sizeof *u);
    u->dfd = -1;
    u->k = u->group = k;
    qr_buf p;
    qr_buf_init(&p);
    size_t rn = 0;
    int rc = undo_entry(&p, dir, k, "path");
    if (rc == QR_OK && qr_read_file(p.p, 1u << 16, &u->rec, &rn) != QR_OK) {
        qr_buf_puts(err, "the undo log is unreadable");
        rc = QR_EIO;
    }
    qr_buf_release(&p);
    if (rc != QR_OK)
        return rc;
    char *nl = strchr(u->rec, '\n');
    if (!nl || nl == u->rec) {
        qr_buf_puts(err, "the undo log is damaged");
        return QR_EIO;
    }
    *nl = '\0';
    u->existed = !strcmp(u->rec, "existed");
    u->rel = nl + 1;
    char *line = strchr(nl + 1, '\n');
    if (line)
        *line++ = '\0';
    while (line && *line) {
        char *e = strchr(line, '\n');
        if (e)
            *e = '\0';
        unsigned g, m;
        size_t sz;
        unsigned long long h;
        if (sscanf(line, "edit %u", &g) == 1 && g <= k)
            u->group = g;
        else if (sscanf(line, "mode %o", &m) == 1) {
            u->has_mode = true;
            u->mode = m & 07777;
        } else if (!strcmp(line, "after absent"))
            u->has_after = u->after_absent = true;
        else if (sscanf(line, "after %zu %llx", &sz, &h) == 2) {
            u->has_after = true;
            u->after_size = sz;
            u->after_hash = (uint64_t)h;
        }
        line = e ? e + 1 : NULL;
    }
    return QR_OK;
}

/* Whether the tree's file is what the edit left (u's "after"), as it was before the edit
 * (u->skip), or neither (QR_EINVAL with the message). */
static int uent_check(qr_dwim_ctx *c, const qr_dwim_gitdirs *gd, const char *dir, uent *u,
                      qr_buf *err)
{
    const char *r;
    int rc = qr__dwim_resolve(c, u->rel, false, &u->abs, &r, err);
    if (rc != QR_OK)
        return rc;
    if (qr__dwim_gitdirs_hold(gd, u->abs, r)) {
        qr_buf_printf(err, "the undo log names '%s', in the git directory; undo restores "
                           "files of the working tree only (remove %s/%06u.path)",
                      u->rel, dir, u->k);
        return QR_EINVAL;
    }
    if ((rc = qr__dwim_open_parent(c->root, r, &u->dfd, &u->leaf, err)) != QR_OK)
        return rc;
    if (u->existed) {
        qr_buf o;
        qr_buf_init(&o);
        undo_entry(&o, dir, u->k, "orig");
        rc = qr_read_file(o.p, 64u << 20, &u->orig, &u->on);
        qr_buf_release(&o);
        if (rc != QR_OK) {
            qr_buf_printf(err, "the undo log is damaged: no old content of '%s'", u->rel);
            return QR_EIO;
        }
    }
    char *now = NULL;
    size_t nn = 0;
    struct stat st;
    int rr = qr__dwim_read_at(u->dfd, u->leaf, 64u << 20, &now, &nn, &st);
    bool exists = rr == QR_OK;
    if (rr != QR_OK && !(rr == QR_EIO && errno == ENOENT)) {
        qr_buf_printf(err, "cannot read '%s' to undo its edit", u->rel);
        return QR_EIO;
    }
    bool as_after = !u->has_after ||
                    (u->after_absent ? !exists
                                     : exists && nn == u->after_size &&
                                           qr_hash_bytes(now, nn) == u->after_hash);
    bool as_before = u->existed ? exists && nn == u->on && !memcmp(now, u->orig, nn) : !exists;
    free(now);
    if (u->has_after && as_after)
        return QR_OK;
    if (as_before) { /* the edit never wrote it (killed), or an undo did already */
        u->skip = true;
        return QR_OK;
    }
    if (!u->has_after) /* a record of an older log: restored as it always was */
        return QR_OK;
    if (u->existed)
        qr_buf_printf(err, "'%s' changed since the edit; undo would overwrite those changes "
                           "(its content before the edit is in %s/%06u.orig)",
                      u->rel, dir, u->k);
    else
        qr_buf_printf(err, "'%s' was created by the edit and changed since; undo does not "
                           "delete it", u->rel);
    return QR_EINVAL;
}

static int uent_apply(uent *u, const char *dir, qr_buf *out, qr_buf *err)
{
    int rc = QR_OK;
    if (!u->skip) {
        if (u->existed)
            rc = qr__dwim_write_at(u->dfd, u->leaf, u->orig, u->on,
                                   u->has_mode ? u->mode : 0644);
        else
            rc = unlinkat(u->dfd, u->leaf, 0) == 0 || errno == ENOENT ? QR_OK : QR_EIO;
        if (rc != QR_OK) {
            qr_buf_printf(err, "cannot restore '%s': %s", u->rel, strerror(errno));
            return rc;
        }
    }
    /* the record first: a kill between the two leaves an .orig no record names, which
     * the next edit of that number overwrites */
    qr_buf p;
    qr_buf_init(&p);
    if (undo_entry(&p, dir, u->k, "path") == QR_OK)
        unlink(p.p);
    if (undo_entry(&p, dir, u->k, "orig") == QR_OK)
        unlink(p.p);
    qr_buf_release(&p);
    qr_buf_printf(out, "restored %s\n", u->rel);
    return QR_OK;
}

int qr_dwim_undo(qr_dwim_ctx *c, qr_buf *out, qr_buf *err)
{
    qr_dwim_gitdirs gd;
    int rc = qr__dwim_gitdirs_init(&gd, c, err);
    if (rc != QR_OK)
        return rc;
    qr_buf dir;
    qr_buf_init(&dir);
    undo_dir(&gd, &dir);
    uent *v = NULL;
    size_t n = 0;
    int lk = -1;
    unsigned k = newest_entry(dir.p);
    if (!k) {
        qr_buf_puts(err, "nothing to undo");
        rc = QR_EINVAL;
        goto done;
    }
    if ((lk = lock_log(dir.p)) < 0) {
        qr_buf_printf(err, "cannot lock the undo log in '%s'", dir.p);
        rc = QR_EIO;
        goto done;
    }
    k = newest_entry(dir.p); /* another run may have undone it meanwhile */
    if (!k) {
        qr_buf_puts(err, "nothing to undo");
        rc = QR_EINVAL;
        goto done;
    }
    /* the newest entry and the others of its edit, newest first; each checked before any
     * is restored */
    uent first;
    if ((rc = uent_read(dir.p, k, &first, err)) != QR_OK) {
        uent_clear(&first);
        goto done;
    }
    unsigned group = first.group;
    v = calloc(k - group + 1, sizeof *v);
    if (!v) {
        uent_clear(&first);
        rc = QR_ENOMEM;
        goto done;
    }
    v[n++] = first;
    for (unsigned i = k; i-- > group && rc == QR_OK;) {
        qr_buf p;
        qr_buf_init(&p);
        undo_entry(&p, dir.p, i, "path");
        bool there = access(p.p, F_OK) == 0;
        qr_buf_release(&p);
        if (!there)
            continue;
        rc = uent_read(dir.p, i, &v[n++], err);
    }
    for (size_t i = 0; i < n && rc == QR_OK; i++)
        rc = uent_check(c, &gd, dir.p, &v[i], err);
    for (size_t i = 0; i < n && rc == QR_OK; i++)
        rc = uent_apply(&v[i], dir.p, out, err);
done:
    for (size_t i = 0; i < n; i++)
        uent_clear(&v[i]);
    free(v);
    unlock_log(lk);
    qr_buf_release(&dir);
    qr__dwim_gitdirs_release(&gd);
    return rc;
}
