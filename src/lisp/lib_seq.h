/*
 * lib_seq.h: what the two files of the sequence library (lib_seq.c: access, building,
 * transforming, partitioning and generating; lib_seq_sort.c: sorting, grouping,
 * de-duplicating and aggregating) share: calling a function on one item, with keywords
 * looked up directly, and the function argument check.
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
        return lx_get(x, f, &out) ? out : qr_nil();
    }
    return lx_call1(lx, f, x);
}

/* Walking a vector of maps (records) is bound by memory latency, not by work: each
 * lookup follows the view, its entry buffer, its index and its entries, four dependent
 * loads that mostly miss the cache for data parsed from JSON. Called at item i of a
 * loop, this starts those loads for the items a few places ahead, one level per
 * distance, so that by the time the loop (or the function it calls) reaches them they
 * are in cache. A hint only. Always inlined: as a function of its own, GCC finds it has no
 * side effects and drops the calls. */
#define SEQ_PF_DIST 4
__attribute__((always_inline)) static inline void seq_prefetch(const qr_val *items, size_t n,
                                                                size_t i)
{
    size_t j = i + 3 * SEQ_PF_DIST;
    if (j < n && items[j].t == QR_T_MAP)
        __builtin_prefetch(items[j].c);
    j = i + 2 * SEQ_PF_DIST;
    if (j < n && items[j].t == QR_T_MAP)
        __builtin_prefetch(items[j].c->mbuf);
    j = i + SEQ_PF_DIST;
    if (j < n && items[j].t == QR_T_MAP) {
        const qr_coll *c = items[j].c;
        const qr_mbuf *mb = c->mbuf;
        if (mb) {
            const char *kv = (const char *)mb->kv;
            size_t bytes = (size_t)c->len * 2 * sizeof(qr_val);
            if (bytes > 512)
                bytes = 512;
            for (size_t off = 0; off < bytes; off += 64)
                __builtin_prefetch(kv + off);
            if (mb->index)
                __builtin_prefetch(mb->index);
        }
    }
}

/* Checked before walking a collection, so (map 5 xs) names map's argument rather than
 * failing inside with "cannot call". */
static inline void seq_need_fn(qr_lx *lx, const char *fname, int argn, qr_val f)
{
    if (!lx_is_callable(f))
        lx_type_error(lx, fname, argn, "a function", f);
}

#endif
