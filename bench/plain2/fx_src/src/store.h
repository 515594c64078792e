#ifndef STORE_H
#define STORE_H

#include "kv.h"
#include "wal.h"

#define STORE_MAX_KEY 255
#define STORE_LOAD_NUM 3
#define STORE_LOAD_DEN 4

struct kv_entry {
    char *key;
    void *val;
    size_t len;
    unsigned hash;
    int live;
};

struct kv_store {
    struct kv_entry *slots;
    size_t cap;
    size_t used;
    struct wal *wal;
    char path[256];
};

int store_rehash(struct kv_store *db, size_t newcap);

#endif
