#ifndef WAL_H
#define WAL_H

#include <stddef.h>

struct kv_store;

enum wal_op {
    WAL_PUT = 1,
    WAL_DEL = 2
};

struct wal {
    int fd;
    unsigned long seq;
    unsigned crc;
};

struct wal *wal_open(const char *path, int flags);
int wal_append(struct wal *w, int op, const char *key, const void *val, size_t len);
int wal_replay(struct wal *w, struct kv_store *db);
int wal_truncate(struct wal *w);
void wal_close(struct wal *w);

#endif
