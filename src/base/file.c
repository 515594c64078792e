/*
 * file.c: reading a whole file or stdin into memory, with a size bound; and replacing a
 * file whole (a temporary file beside it, then rename), so a reader sees the old file or
 * the new one, never half of one; and writing a buffer whole to a descriptor
 * (qr_write_all: MSG_NOSIGNAL on a socket, so a closed peer is EPIPE, not SIGPIPE); and
 * a repository's name as its directory says it (qr_repo_dir_name), for the shared index
 * and the shared code graph alike.
 *
 * The temporary name comes from mkstemp (O_EXCL): a name guessed in advance, such as
 * PATH.tmp.PID, could be a symlink someone planted, and writing through it would clobber
 * its target.
 *
 * Settings files (configuration, agent files) are read with qr_read_regular_file: a
 * repository can hold a FIFO (opening it would block until someone writes) or a symbolic
 * link to a file outside it (/etc/shadow: its first line would come back in a parse
 * error), so the file is opened with O_NOFOLLOW|O_NONBLOCK and must fstat as a regular
 * file. Rejected: stat() then open() (the file can be swapped between the two calls).
 *
 * A file's stamp (qr_file_stamp) is how the git index and the memory store know that a
 * database is exactly as it was when its check last passed; quarry's state directory
 * (qr_state_dir) holds what must not sit beside files a program could write.
 */
#define _XOPEN_SOURCE 700 /* mkstemp, fchmod */
#include "quarry/base.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int qr_read_file(const char *path, size_t max, char **out, size_t *len)
{
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return QR_EIO;
    qr_buf b;
    qr_buf_init(&b);
    char chunk[65536];
    size_t n;
    int rc = QR_OK;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (max && b.len + n > max) {
            rc = QR_EINVAL;
            break;
        }
        qr_buf_append(&b, chunk, n);
    }
    if (rc == QR_OK && ferror(f))
        rc = QR_EIO;
    int saved = errno;
    if (!is_stdin)
        fclose(f);
    if (rc == QR_OK && b.failed)
        rc = QR_ENOMEM;
    if (rc != QR_OK) {
        qr_buf_release(&b);
        errno = saved;
        return rc;
    }
    *out = qr_buf_detach(&b, len);
    return *out ? QR_OK : QR_ENOMEM;
}

int qr_write_file_atomic(const char *path, const void *data, size_t n, unsigned mode)
{
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 16);
    if (!tmp)
        return QR_ENOMEM;
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp.XXXXXX", 12);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        free(tmp);
        return QR_EIO;
    }
    int rc = QR_OK;
    if (fchmod(fd, (mode_t)mode) != 0)
        rc = QR_EIO;
    const char *p = data;
    for (size_t done = 0; rc == QR_OK && done < n;) {
        ssize_t w = write(fd, p + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            rc = QR_EIO;
        else
            done += (size_t)w;
    }
    if (close(fd) != 0)
        rc = QR_EIO;
    if (rc == QR_OK && rename(tmp, path) != 0)
        rc = QR_EIO;
    if (rc != QR_OK) {
        int saved = errno;
        unlink(tmp);
        errno = saved;
    }
    free(tmp);
    return rc;
}

int qr_read_regular_file(const char *path, size_t max, char **out, size_t *len,
                         const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    *why = NULL;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        *why = e == ELOOP ? "is a symbolic link, which is not followed" : strerror(e);
        errno = e;
        return QR_EIO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        *why = "is not a regular file";
        errno = ENXIO;
        return QR_EIO;
    }
    if (max && st.st_size > (off_t)max) {
        close(fd);
        *why = "is too large";
        return QR_EINVAL;
    }
    /* a regular file opened with O_NONBLOCK reads as usual; the size may change while we
     * read, so read to the end with the bound */
    int rc = qr_read_fd(fd, max, out, len);
    int saved = errno;
    close(fd);
    if (rc == QR_EINVAL)
        *why = "is too large";
    else if (rc == QR_EIO)
        *why = strerror(saved);
    errno = saved;
    return rc;
}

int qr_read_fd(int fd, size_t max, char **out, size_t *len)
{
    *out = NULL;
    qr_buf b;
    qr_buf_init(&b);
    char chunk[65536];
    int rc = QR_OK;
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = QR_EIO;
            break;
        }
        if (n == 0)
            break;
        if (max && b.len + (size_t)n > max) {
            rc = QR_EINVAL;
            break;
        }
        qr_buf_append(&b, chunk, (size_t)n);
    }
    int saved = errno;
    if (rc == QR_OK && b.failed)
        rc = QR_ENOMEM;
    if (rc != QR_OK) {
        qr_buf_release(&b);
        errno = saved;
        return rc;
    }
    if (!b.p)
        qr_buf_puts(&b, "");
    *out = qr_buf_detach(&b, len);
    return *out ? QR_OK : QR_ENOMEM;
}

void qr_file_stamp(const char *path, char out[QR_FILE_STAMP_LEN])
{
    struct stat sb;
    if (stat(path, &sb) != 0 || sb.st_size == 0)
        snprintf(out, QR_FILE_STAMP_LEN, "-");
    else
        snprintf(out, QR_FILE_STAMP_LEN, "%llu:%llu:%lld:%lld.%09ld:%lld.%09ld",
                 (unsigned long long)sb.st_dev, (unsigned long long)sb.st_ino,
                 (long long)sb.st_size, (long long)sb.st_mtim.tv_sec, (long)sb.st_mtim.tv_nsec,
                 (long long)sb.st_ctim.tv_sec, (long)sb.st_ctim.tv_nsec);
}

/* mkdir -p for the part of `path` from byte `from` on, each new directory mode 0700 */
static int make_dirs(char *path, size_t from)
{
    for (char *p = path + from;; p++) {
        if (*p != '/' && *p != 0)
            continue;
        char c = *p;
        *p = 0;
        int ok = mkdir(path, 0700) == 0 || errno == EEXIST;
        *p = c;
        if (!ok)
            return QR_EIO;
        if (!c)
            return QR_OK;
    }
}

int qr_state_dir(const char *sub, qr_buf *out)
{
    const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    qr_buf_reset(out);
    /* the XDG rule: a relative XDG_STATE_HOME is ignored */
    if (xdg && xdg[0] == '/')
        qr_buf_puts(out, xdg);
    else if (home && home[0] == '/')
        qr_buf_printf(out, "%s/.local/state", home);
    else
        return QR_EIO;
    qr_buf_puts(out, "/quarry");
    if (sub)
        qr_buf_printf(out, "/%s", sub);
    if (out->failed)
        return QR_ENOMEM;
    struct stat sb;
    if (stat(out->p, &sb) == 0)
        return S_ISDIR(sb.st_mode) ? QR_OK : QR_EIO;
    /* ~/.local/state may be missing too: made like the rest */
    return make_dirs(out->p, 1);
}

int qr_write_all(int fd, const void *data, size_t n)
{
    const char *p = data;
    bool sock = true; /* until send(2) says otherwise */
    while (n) {
        ssize_t k;
        if (sock) {
            k = send(fd, p, n, MSG_NOSIGNAL);
            if (k < 0 && errno == ENOTSOCK) {
                sock = false;
                continue;
            }
        } else {
            k = write(fd, p, n);
        }
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return QR_EIO;
        p += k;
        n -= (size_t)k;
    }
    return QR_OK;
}

void qr_repo_dir_name(const char *d, bool bare, qr_buf *out)
{
    size_t n = strlen(d);
    while (n > 1 && d[n - 1] == '/')
        n--;
    if (bare && n > 4 && !memcmp(d + n - 4, ".git", 4)) {
        n -= 4;
        while (n > 1 && d[n - 1] == '/')
            n--;
    }
    size_t b = n;
    while (b > 0 && d[b - 1] != '/')
        b--;
    if (b == n)
        qr_buf_puts(out, "repository");
    else
        qr_buf_append(out, d + b, n - b);
}
