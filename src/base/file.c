/*
 * file.c: reading a whole file or stdin into memory, with a size bound.
 */
#include "quarry/base.h"

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
