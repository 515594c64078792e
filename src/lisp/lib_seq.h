/*
 * lib_seq.h: what the two files of the sequence library (lib_seq.c and lib_seq_sort.c)
 * share: calling a function on one item with keywords looked up directly, prefetching
 * records ahead of a loop, and argument checks.
 */
#ifndef QUARRY_LIB_SEQ_H
#define QUARRY_LIB_SEQ_H

#include "lisp_int.h"

/* (f x). A keyword is looked up directly, as lx_apply would, without its dispatch: the
 * common (map :k xs), (sort-by :k xs), (sum-by :k xs) cost one map lookup per item. */
static inline qr_val seq_call1(qr_lx *lx, qr_val f, qr_val x)
{
    if (f.t == QR_T_KW) {
        qr_val out;
        lx_tick(lx);
        return lx_get_kw(lx, x, f, &out) ? out : qr_nil();
    }
    return lx_call1(lx, f, x);
}

/* Walking a vector of maps (records) is bound by memory latency, not by work: records
 * parsed from JSON are spread over far more memory than the caches hold, and a lookup's
 * loads (the map's view, its entries, perhaps its index) depend on one another. A loop
 * calls seq_prefetch at item i to start those loads for the items ahead, in two levels
 * d items apart: first the view, then (once it is in cache) the entries, so that the
 * loop, or the function it calls, finds its item in cache. A map made by a builder is
 * one block (view, buffer header, entries, index; see qr_mapb_finish), whose entries
 * are found without loading the header. A hint only: if the layout changes, only speed
 * does.
 *
 * Always inlined: as a function of its own, GCC finds it has no side effects and
 * drops the calls. */
typedef struct seq_pf {
    size_t d;      /* distance between levels, in items */
    qr_val key;    /* keyword looked up in each item, or nil */
    uint64_t hash; /* qr_hash(key) */
    const uint32_t *hint; /* where key was last found (lx_kw_hint), or NULL */
} seq_pf;

/* For a loop calling f on each item: a keyword lookup is quick, so it looks further
 * ahead than a call into Lisp. */
static inline seq_pf seq_pf_for(qr_lx *lx, qr_val f)
{
    seq_pf pf = {6, qr_nil(), 0, NULL};
    if (f.t == QR_T_KW) {
        pf.d = 16;
        pf.key = f;
        pf.hash = qr_hash(f);
        pf.hint = lx_kw_hint(lx, f);
    }
    return pf;
}

__attribute__((always_inline)) static inline void seq_prefetch(const qr_val *items, size_t n,
                                                                size_t i, const seq_pf *pf)
{
    size_t j = i + 2 * pf->d;
    if (j < n && items[j].t == QR_T_MAP) {
        __builtin_prefetch(items[j].c);
        __builtin_prefetch((const char *)items[j].c + 64);
    }
    j = i + pf->d;
    if (j < n && items[j].t == QR_T_MAP) {
        const qr_coll *c = items[j].c;
        const qr_mbuf *mb = c->mbuf;
        const char *kv;
        if (!mb)
            return;
        if ((const void *)mb == (const void *)(c + 1)) {
            kv = (const char *)(mb + 1); /* one block: the entries follow the header */
        } else {
            __builtin_prefetch(mb);
            kv = (const char *)mb->kv;
        }
        if (pf->hint && *pf->hint < c->len) {
            /* records of one shape: the key is where it was in the last record */
            __builtin_prefetch(kv + (size_t)*pf->hint * 2 * sizeof(qr_val));
            return;
        }
        size_t bytes = (size_t)c->len * 2 * sizeof(qr_val);
        if (bytes > 512)
            bytes = 512;
        for (size_t off = 0; off < bytes; off += 64)
            __builtin_prefetch(kv + off);
        if (mb->index && pf->key.t == QR_T_KW)
            __builtin_prefetch(&mb->index[pf->hash & mb->mask]);
    }
}

/* A count argument (take, drop, partition...): an integer, or a double rounded up, as
 * Clojure's (take 2.5 xs) takes 3 (`/` always returns a double here). */
int64_t seq_count_arg(qr_lx *lx, const char *fname, int argn, qr_val v);

/* Checked before walking a collection, so (map 5 xs) names map's argument rather than
 * failing inside with "cannot call". */
static inline void seq_need_fn(qr_lx *lx, const char *fname, int argn, qr_val f)
{
    if (!lx_is_callable(f))
        lx_type_error(lx, fname, argn, "a function", f);
}

#endif
