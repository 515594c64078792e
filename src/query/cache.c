/*
 * cache.c: an in-process cache of compiled query programs (the seed's open question on
 * caching). The key is the normalized query with the shape of the context it was checked
 * against (emission depends on what the context's records hold); entries are found by
 * its 64-bit hash and confirmed by comparing the whole key, so a hash collision cannot
 * return another query's program. When full, the least recently used entry goes.
 *
 * Validation still runs on every call: it is what finds problems, and its result depends
 * on the registry and the context, which are not part of the entry. What the cache saves
 * is emission and its allocations; a session that asks the same question in a loop (an
 * agent retrying, the MCP server) gets the identical program text.
 *
 * Rejected: a cache on disk (compiling takes microseconds; a stale file after an upgrade
 * would be worse than none); keying on the raw text (the EDN and JSON forms of one query,
 * or one with its keys in another order, would be compiled twice).
 */
#include "query_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct entry {
    uint64_t hash;
    uint64_t used; /* tick of the last use */
    char *key;
    char *program;
    size_t len;
    qr_query_step *steps;
    size_t nsteps;
} entry;

struct qr_query_cache {
    entry *e;
    size_t n, cap;
    uint64_t tick, hits, misses;
};

qr_query_cache *qr_query_cache_new(size_t capacity)
{
    qr_query_cache *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->cap = capacity ? capacity : 1;
    k->e = calloc(k->cap, sizeof *k->e);
    if (!k->e) {
        free(k);
        return NULL;
    }
    return k;
}

void qq_steps_free(qr_query_step *s, size_t n)
{
    for (size_t i = 0; s && i < n; i++) {
        free(s[i].path);
        free(s[i].binding);
    }
    free(s);
}

qr_query_step *qq_steps_dup(const qr_query_step *s, size_t n, bool *ok)
{
    *ok = true;
    qr_query_step *d = calloc(n ? n : 1, sizeof *d);
    if (!d) {
        *ok = false;
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        d[i].line = s[i].line;
        d[i].path = strdup(s[i].path ? s[i].path : "");
        d[i].binding = strdup(s[i].binding ? s[i].binding : "");
        if (!d[i].path || !d[i].binding) {
            qq_steps_free(d, n);
            *ok = false;
            return NULL;
        }
    }
    return d;
}

static void entry_clear(entry *e)
{
    free(e->key);
    free(e->program);
    qq_steps_free(e->steps, e->nsteps);
    memset(e, 0, sizeof *e);
}

void qr_query_cache_free(qr_query_cache *k)
{
    if (!k)
        return;
    for (size_t i = 0; i < k->n; i++)
        entry_clear(&k->e[i]);
    free(k->e);
    free(k);
}

void qr_query_cache_stats(const qr_query_cache *k, uint64_t *hits, uint64_t *misses)
{
    *hits = k->hits;
    *misses = k->misses;
}

bool qq_cache_get(qr_query_cache *k, uint64_t h, const char *key, qr_query_compiled *out)
{
    for (size_t i = 0; i < k->n; i++) {
        entry *e = &k->e[i];
        if (e->hash != h || !e->key || !e->program || strcmp(e->key, key))
            continue;
        bool ok;
        qr_query_step *steps = qq_steps_dup(e->steps, e->nsteps, &ok);
        char *prog = ok ? malloc(e->len + 1) : NULL;
        if (!prog) {
            qq_steps_free(steps, e->nsteps);
            break; /* out of memory: compile it again */
        }
        memcpy(prog, e->program, e->len + 1);
        out->program = prog;
        out->program_len = e->len;
        out->steps = steps;
        out->nsteps = e->nsteps;
        e->used = ++k->tick;
        k->hits++;
        return true;
    }
    k->misses++;
    return false;
}

void qq_cache_put(qr_query_cache *k, uint64_t h, const char *key, const qr_query_compiled *out)
{
    entry *slot;
    if (k->n < k->cap) {
        slot = &k->e[k->n++];
    } else {
        slot = &k->e[0];
        for (size_t i = 1; i < k->n; i++)
            if (k->e[i].used < slot->used)
                slot = &k->e[i];
        entry_clear(slot);
    }
    bool ok;
    slot->steps = qq_steps_dup(out->steps, out->nsteps, &ok);
    slot->key = strdup(key);
    slot->program = malloc(out->program_len + 1);
    if (!ok || !slot->key || !slot->program) { /* out of memory: leave the slot empty */
        entry_clear(slot);
        slot->key = strdup(""); /* never matches a real key (those end in a newline) */
        slot->hash = ~h;
        return;
    }
    memcpy(slot->program, out->program, out->program_len + 1);
    slot->len = out->program_len;
    slot->hash = h;
    slot->nsteps = out->nsteps;
    slot->used = ++k->tick;
}
