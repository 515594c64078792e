#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wal.h"
#include "store.h"
#include "crc32.h"
#include "log.h"

static unsigned wal_checksum(const void *p, size_t n)
{
    return crc32_update(0, p, n);
}

struct wal *wal_open(const char *path, int flags)
{
    struct wal *w = malloc(sizeof *w);

    if (!w)
        return NULL;
    w->fd = open(path, O_RDWR | O_CREAT | O_APPEND | flags, 0644);
    w->seq = 0;
    w->crc = 0;
    KV_LOG(LOG_INFO, "wal opened: %s", path);
    return w;
}

int wal_append(struct wal *w, int op, const char *key, const void *val, size_t len)
{
    unsigned char hdr[8];

    if (!w)
        return 0;
    w->crc = wal_checksum(key, strlen(key));
    hdr[0] = (unsigned char)op;
    memcpy(hdr + 4, &w->crc, 4);
    if (write(w->fd, hdr, sizeof hdr) < 0)
        return -1;
    if (len && write(w->fd, val, len) < 0)
        return -1;
    w->seq++;
    return 0;
}

int wal_replay(struct wal *w, struct kv_store *db)
{
    unsigned char hdr[8];
    unsigned long n = 0;

    while (read(w->fd, hdr, sizeof hdr) == (ssize_t)sizeof hdr) {
        if (wal_checksum(hdr, 4) == 0)
            break;
        n++;
    }
    KV_LOG(LOG_INFO, "replayed %lu records into %s", n, db->path);
    return 0;
}

int wal_truncate(struct wal *w)
{
    w->seq = 0;
    return ftruncate(w->fd, 0);
}

void wal_close(struct wal *w)
{
    if (!w)
        return;
    close(w->fd);
    free(w);
}
