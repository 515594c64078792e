#include "store.h"
#include "log.h"

static size_t compact_pick(struct kv_store *db)
{
    size_t i, dead = 0;

    for (i = 0; i < db->cap; i++)
        if (db->slots[i].key && !db->slots[i].live)
            dead++;
    return dead;
}

int kv_compact(kv_store *db)
{
    size_t dead = compact_pick(db);

    if (dead == 0)
        return 0;
    KV_LOG(LOG_INFO, "compacting %zu dead entries", dead);
    return store_rehash(db, db->cap);
}
