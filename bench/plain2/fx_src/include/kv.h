#ifndef KV_H
#define KV_H

#include <stddef.h>

typedef struct kv_store kv_store;

kv_store *kv_open(const char *path, int flags);
void kv_close(kv_store *db);
int kv_put(kv_store *db, const char *key, const void *val, size_t len);
int kv_get(kv_store *db, const char *key, void *buf, size_t cap);
int kv_del(kv_store *db, const char *key);
int kv_compact(kv_store *db);
void kv_dump_debug(kv_store *db);

#endif
