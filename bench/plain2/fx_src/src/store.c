#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "hash.h"
#include "log.h"
#include "util.h"
#include "compress.h"

static size_t store_find_slot(struct kv_store *db, const char *key, unsigned h)
{
    size_t i = h % db->cap;
    while (db->slots[i].key && strcmp(db->slots[i].key, key) != 0)
        i = (i + 1) % db->cap;
    return i;
}

static int store_grow(struct kv_store *db)
{
    if (db->used * STORE_LOAD_DEN < db->cap * STORE_LOAD_NUM)
        return 0;
    KV_LOG(LOG_DEBUG, "growing table to %zu", db->cap * 2);
    return store_rehash(db, db->cap * 2);
}

int store_rehash(struct kv_store *db, size_t newcap)
{
    struct kv_entry *old = db->slots;
    size_t oldcap = db->cap, i;

    db->slots = calloc(newcap, sizeof *db->slots);
    if (!db->slots) {
        db->slots = old;
        return -1;
    }
    db->cap = newcap;
    for (i = 0; i < oldcap; i++) {
        if (old[i].key && old[i].live) {
            size_t j = store_find_slot(db, old[i].key, old[i].hash);
            db->slots[j] = old[i];
        }
    }
    free(old);
    return 0;
}

kv_store *kv_open(const char *path, int flags)
{
    struct kv_store *db = calloc(1, sizeof *db);

    KV_CHECK(db != NULL);
    db->cap = 64;
    db->slots = calloc(db->cap, sizeof *db->slots);
    strncpy(db->path, path, sizeof db->path - 1);
    db->wal = wal_open(path, flags);
    if (db->wal)
        wal_replay(db->wal, db);
    return db;
}

void kv_close(kv_store *db)
{
    size_t i;

    if (!db)
        return;
    wal_close(db->wal);
    for (i = 0; i < db->cap; i++) {
        free(db->slots[i].key);
        free(db->slots[i].val);
    }
    free(db->slots);
    free(db);
}

int kv_put(kv_store *db, const char *key, const void *val, size_t len)
{
    unsigned h = hash_bytes(key, strlen(key));
    struct kv_entry *e;
    size_t i;

    KV_CHECK(strlen(key) <= STORE_MAX_KEY);
    if (store_grow(db) < 0)
        return -1;
    i = store_find_slot(db, key, h);
    e = &db->slots[i];
    if (!e->key) {
        e->key = xstrdup(key);
        db->used++;
    }
    free(e->val);
    e->val = malloc(len);
    e->len = len;
    if (len > 512)
        e->len = compress_block(val, len, e->val, len);
    else
        memcpy(e->val, val, len);
    e->hash = h;
    e->live = 1;
    return wal_append(db->wal, WAL_PUT, key, val, len);
}

int kv_get(kv_store *db, const char *key, void *buf, size_t cap)
{
    unsigned h = hash_bytes(key, strlen(key));
    size_t i = store_find_slot(db, key, h);
    struct kv_entry *e = &db->slots[i];

    if (!e->key || !e->live)
        return -1;
    if (e->len > 512)
        return decompress_block(e->val, e->len, buf, cap);
    if (e->len > cap)
        return -1;
    memcpy(buf, e->val, e->len);
    return (int)e->len;
}

int kv_del(kv_store *db, const char *key)
{
    unsigned h = hash_bytes(key, strlen(key));
    size_t i = store_find_slot(db, key, h);

    if (!db->slots[i].key)
        return -1;
    db->slots[i].live = 0;
    return wal_append(db->wal, WAL_DEL, key, NULL, 0);
}

void kv_dump_debug(kv_store *db)
{
    size_t i;

    for (i = 0; i < db->cap; i++)
        if (db->slots[i].key)
            log_write(LOG_DEBUG, __FILE__, __LINE__, "%s live=%d", db->slots[i].key, db->slots[i].live);
}
