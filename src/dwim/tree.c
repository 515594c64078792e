/*
 * tree.c: the working tree as fix touches it. A file to edit is reached from the root's
 * opened directory one component at a time (openat with O_NOFOLLOW|O_DIRECTORY), so the
 * directory that was checked is the directory written in: a parent swapped for a
 * symbolic link between the check and the write makes the walk fail (ELOOP/ENOTDIR)
 * instead of redirecting the write; the file is read, replaced (a temporary file in the
 * same opened directory, then renameat) or removed relative to that directory fd.
 *
 * It also knows the git directories, which fix never edits: the worktree's own gitdir
 * (git rev-parse --absolute-git-dir: .git, or .git/worktrees/NAME in a linked worktree,
 * where .git is a file), the common one, and $GIT_DIR; and any path component named
 * .git (a nested repository, or a linked worktree's .git file). The undo log lives in
 * the worktree's own gitdir.
 *
 * Rejected: openat2 with RESOLVE_BENEATH (Linux 5.6 and later only, and glibc has no
 * wrapper on every target); the component walk gives the same guarantee everywhere.
 */
#define _GNU_SOURCE
#include "dwim_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

int qr__dwim_open_parent(const char *root, const char *rel, int *dfd_out, const char **leaf,
                         qr_buf *err)
{
    *dfd_out = -1;
    int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        qr_buf_printf(err, "cannot open the working tree '%s': %s", root, strerror(errno));
        return QR_EIO;
    }
    const char *p = rel;
    for (;;) {
        const char *slash = strchr(p, '/');
        if (!slash)
            break;
        size_t n = (size_t)(slash - p);
        char comp[256];
        if (n == 0 || n >= sizeof comp || (n == 1 && p[0] == '.') ||
            (n == 2 && p[0] == '.' && p[1] == '.')) {
            qr_buf_printf(err, "path '%s' is not a plain path inside the working tree", rel);
            close(dfd);
            return QR_EINVAL;
        }
        memcpy(comp, p, n);
        comp[n] = '\0';
        int next = openat(dfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e = errno;
        close(dfd);
        if (next < 0) {
            if (e == ELOOP || e == ENOTDIR)
                qr_buf_printf(err, "a directory of '%s' ('%s') is a symbolic link or not a "
                                   "directory now; fix writes only inside the working tree",
                              rel, comp);
            else
                qr_buf_printf(err, "cannot open the directory of '%s': %s", rel, strerror(e));
            return e == ELOOP || e == ENOTDIR ? QR_EINVAL : QR_EIO;
        }
        dfd = next;
        p = slash + 1;
    }
    if (!*p || !strcmp(p, ".") || !strcmp(p, "..")) {
        qr_buf_printf(err, "path '%s' names no file", rel);
        close(dfd);
        return QR_EINVAL;
    }
    *dfd_out = dfd;
    *leaf = p;
    return QR_OK;
}

int qr__dwim_read_at(int dfd, const char *leaf, size_t max, char **data, size_t *n,
                     struct stat *st)
{
    *data = NULL;
    *n = 0;
    int fd = openat(dfd, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return QR_EIO;
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        close(fd);
        errno = ENXIO;
        return QR_EIO;
    }
    int rc = qr_read_fd(fd, max, data, n);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

/* Writes data to fd whole with mode, and flushes it. */
static int fill(int fd, const void *data, size_t n, unsigned mode)
{
    int rc = qr_write_all(fd, data, n);
    if (rc == QR_OK && fchmod(fd, (mode_t)mode) != 0)
        rc = QR_EIO;
    if (rc == QR_OK && fsync(fd) != 0)
        rc = QR_EIO;
    return rc;
}

static void tmp_name(char *buf, size_t cap)
{
    static _Atomic unsigned seq;
    snprintf(buf, cap, ".quarry-fix.%ld.%u.tmp", (long)getpid(), seq++);
}

/* The new content goes to an unnamed file of the directory (O_TMPFILE) and gets a name
 * only once it is whole, for the rename: a kill during the write leaves nothing in the
 * tree. Where the file system has no O_TMPFILE (or /proc is missing), a named temporary
 * file. */
int qr__dwim_write_at(int dfd, const char *leaf, const void *data, size_t n, unsigned mode)
{
    char tmp[96];
    int rc, fd = -1;
#ifdef O_TMPFILE
    fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd >= 0) {
        rc = fill(fd, data, n, mode);
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        bool named = false;
        for (int tries = 0; rc == QR_OK && !named && tries < 100; tries++) {
            tmp_name(tmp, sizeof tmp);
            if (linkat(AT_FDCWD, proc, dfd, tmp, AT_SYMLINK_FOLLOW) == 0)
                named = true;
            else if (errno != EEXIST)
                break;
        }
        close(fd);
        if (rc != QR_OK)
            return rc;
        if (named) {
            if (renameat(dfd, tmp, dfd, leaf) != 0) {
                int saved = errno;
                unlinkat(dfd, tmp, 0);
                errno = saved;
                return QR_EIO;
            }
            fsync(dfd);
            return QR_OK;
        }
        /* no /proc: a named temporary file below */
    }
#endif
    fd = -1;
    for (int tries = 0; fd < 0 && tries < 100; tries++) {
        tmp_name(tmp, sizeof tmp);
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            return QR_EIO;
    }
    if (fd < 0)
        return QR_EIO;
    rc = fill(fd, data, n, mode);
    if (close(fd) != 0)
        rc = QR_EIO;
    if (rc == QR_OK && renameat(dfd, tmp, dfd, leaf) != 0)
        rc = QR_EIO;
    if (rc != QR_OK) {
        int saved = errno;
        unlinkat(dfd, tmp, 0);
        errno = saved;
        return rc;
    }
    fsync(dfd);
    return QR_OK;
}

/* ---- the git directories ---- */

static char *absolute(const char *root, const char *p, size_t n)
{
    qr_buf b;
    qr_buf_init(&b);
    if (p[0] == '/')
        qr_buf_append(&b, p, n);
    else if (root)
        qr_buf_printf(&b, "%s/%.*s", root, (int)n, p);
    else {
        char cwd[4096];
        if (!getcwd(cwd, sizeof cwd)) {
            qr_buf_release(&b);
            return NULL;
        }
        qr_buf_printf(&b, "%s/%.*s", cwd, (int)n, p);
    }
    char *r = b.p && !b.failed ? realpath(b.p, NULL) : NULL;
    qr_buf_release(&b);
    return r;
}

int qr__dwim_gitdirs_init(qr_dwim_gitdirs *g, const qr_dwim_ctx *c, qr_buf *err)
{
    memset(g, 0, sizeof *g);
    const char *argv[] = {"git", "-C", c->root, "rev-parse", "--absolute-git-dir",
                          "--git-common-dir", NULL};
    qr_buf out, eout;
    qr_buf_init(&out);
    qr_buf_init(&eout);
    int status = 0;
    int rc = qr__dwim_spawn(argv, NULL, c->req ? &c->req->stop : NULL, &out, &eout, &status);
    qr_buf_release(&eout);
    if (rc != QR_OK || status != 0 || !out.p) {
        qr_buf_release(&out);
        qr_buf_printf(err, "cannot find the git directory of '%s'", c->root);
        return QR_EIO;
    }
    const char *p = out.p;
    for (int k = 0; k < 2 && *p; k++) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char *d = n ? absolute(c->root, p, n) : NULL;
        if (d)
            g->dirs[g->n++] = d;
        p += n + (nl ? 1 : 0);
    }
    const char *env = getenv("GIT_DIR");
    if (env && *env) {
        char *d = absolute(NULL, env, strlen(env));
        if (d)
            g->dirs[g->n++] = d;
    }
    qr_buf_release(&out);
    if (!g->n) {
        qr_buf_printf(err, "cannot find the git directory of '%s'", c->root);
        return QR_EIO;
    }
    g->own = g->dirs[0];
    return QR_OK;
}

void qr__dwim_gitdirs_release(qr_dwim_gitdirs *g)
{
    for (size_t i = 0; i < g->n; i++)
        free(g->dirs[i]);
    memset(g, 0, sizeof *g);
}

bool qr__dwim_gitdirs_hold(const qr_dwim_gitdirs *g, const char *abs, const char *rel)
{
    for (size_t i = 0; i < g->n; i++) {
        size_t dl = strlen(g->dirs[i]);
        if (!strncmp(abs, g->dirs[i], dl) && (abs[dl] == '/' || abs[dl] == '\0'))
            return true;
    }
    /* any component named .git (compared without case: a case-folding file system) */
    for (const char *p = rel; p && *p;) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        if (n == 4 && !strncasecmp(p, ".git", 4))
            return true;
        p = slash ? slash + 1 : NULL;
    }
    return false;
}
