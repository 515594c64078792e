/*
 * lib_seq_sort.c: the sequence builtins that order, group or summarize: sort, sort-by,
 * group-by, frequencies, distinct, distinct-by, dedupe, min-key, max-key, PTC's sum-by,
 * avg-by, min-by and max-by, the partitions (partition, partition-all, partition-by),
 * flatten and tree-seq, and the predicates over items (some, every?, not-every?,
 * not-any?). The rest of the sequence library is lib_seq.c; its second table,
 * qr_lib_seq_sort, is registered next to qr_lib_seq.
 *
 * These are what query programs spend their time in (filter, sort-by, group-by and
 * sum-by over every record), so each computes its keys once, in one pass, with keyword
 * keys looked up directly (seq_call1) and the records ahead prefetched (seq_prefetch),
 * and allocates per result rather than per item.
 *
 * Sorting is stable, as Clojure's is (qsort is not): all-integer keys in natural order
 * (sort-by :timestamp) are radix sorted with their positions; anything else is merge
 * sorted as {key, item} pairs, comparing with qr_compare or with a comparator function
 * as Clojure calls it: a number is its sign, a boolean means "less than" and is asked
 * both ways. Grouping keeps first-seen order: a map builder
 * assigns each distinct key its entry number, a counting pass lays the groups out in one
 * array, and each group's vector is a slice of it.
 */
#include "lib_seq.h"

#include <string.h>

/* ---- comparing ---- */

static _Noreturn void incomparable(qr_lx *lx, const char *fname, qr_val a, qr_val b)
{
    lx_throw(lx, QR_LE_TYPE, "'%s' cannot compare %s with %s", fname,
             qr_type_name((qr_type)a.t), qr_type_name((qr_type)b.t));
}

static inline int natural_cmp(qr_lx *lx, const char *fname, qr_val a, qr_val b)
{
    int c;
    if (a.t == QR_T_INT && b.t == QR_T_INT)
        return (a.i > b.i) - (a.i < b.i);
    if (!qr_compare(a, b, &c))
        incomparable(lx, fname, a, b);
    return c;
}

typedef struct sorter {
    qr_lx *lx;
    const char *fname;
    qr_val fn;  /* comparator, or nil for natural order */
    bool desc;
} sorter;

/* Clojure's AFunction.compare: a number gives its sign (truncated toward zero, as
 * intValue does), a boolean means a < b, and when false the order is asked backwards. */
static int fn_cmp(const sorter *st, qr_val a, qr_val b)
{
    qr_val r = lx_call2(st->lx, st->fn, a, b);
    switch (r.t) {
    case QR_T_INT: return (r.i > 0) - (r.i < 0);
    case QR_T_DOUBLE: return r.d >= 1.0 ? 1 : r.d <= -1.0 ? -1 : 0;
    case QR_T_BOOL:
        if (r.b)
            return -1;
        return qr_truthy(lx_call2(st->lx, st->fn, b, a)) ? 1 : 0;
    default:
        lx_type_error(st->lx, st->fname, 0, "a comparator returning a number or a boolean; "
                                            "it returned",
                      r);
    }
}

static inline int sort_cmp(const sorter *st, qr_val a, qr_val b)
{
    int c = st->fn.t == QR_T_NIL ? natural_cmp(st->lx, st->fname, a, b) : fn_cmp(st, a, b);
    return st->desc ? -c : c;
}

typedef struct sort_ent {
    qr_val key;
    qr_val item;
} sort_ent;

/* Stable: an item moves before an earlier one only when its key is strictly smaller. */
static void merge_sort(const sorter *st, sort_ent *a, sort_ent *tmp, size_t n)
{
    if (n <= 10) {
        for (size_t i = 1; i < n; i++) {
            sort_ent x = a[i];
            size_t j = i;
            while (j > 0 && sort_cmp(st, a[j - 1].key, x.key) > 0) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = x;
        }
        return;
    }
    size_t h = n / 2;
    merge_sort(st, a, tmp, h);
    merge_sort(st, a + h, tmp, n - h);
    if (sort_cmp(st, a[h - 1].key, a[h].key) <= 0)
        return; /* already in order */
    memcpy(tmp, a, h * sizeof *a);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        if (sort_cmp(st, tmp[i].key, a[j].key) > 0)
            a[k++] = a[j++];
        else
            a[k++] = tmp[i++];
    }
    while (i < h)
        a[k++] = tmp[i++];
    lx_tick_n(st->lx, n);
}

/* All-integer keys in natural order (sort-by :timestamp and the like): sorted as plain
 * int64 with the item's position, half the size of sort_ent and no type dispatch.
 * Descending sorts ~k ascending (monotonic, and unlike -k it cannot overflow), which
 * keeps equal keys in input order as the stable descending sort must. */
typedef struct int_ent {
    int64_t key;
    size_t pos;
} int_ent;

static void merge_sort_int(int_ent *a, int_ent *tmp, size_t n)
{
    if (n <= 16) {
        for (size_t i = 1; i < n; i++) {
            int_ent x = a[i];
            size_t j = i;
            while (j > 0 && a[j - 1].key > x.key) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = x;
        }
        return;
    }
    size_t h = n / 2;
    merge_sort_int(a, tmp, h);
    merge_sort_int(a + h, tmp, n - h);
    if (a[h - 1].key <= a[h].key)
        return;
    memcpy(tmp, a, h * sizeof *a);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        a[k++] = a[j].key < tmp[i].key ? a[j++] : tmp[i++];
    while (i < h)
        a[k++] = tmp[i++];
}

/* Larger arrays: LSD radix sort on the key bytes (stable by construction, no
 * comparisons to mispredict), skipping the bytes all keys share, as the high bytes of
 * timestamps or small counts do. */
static void radix_sort_int(int_ent *a, int_ent *tmp, size_t n)
{
    uint32_t hist[8][256];
    memset(hist, 0, sizeof hist);
    for (size_t i = 0; i < n; i++) {
        uint64_t k = (uint64_t)a[i].key ^ (UINT64_C(1) << 63); /* signed order as unsigned */
        for (int b = 0; b < 8; b++)
            hist[b][(k >> (8 * b)) & 255]++;
    }
    int_ent *src = a, *dst = tmp;
    for (int b = 0; b < 8; b++) {
        uint32_t *h = hist[b];
        uint64_t first = (((uint64_t)src[0].key ^ (UINT64_C(1) << 63)) >> (8 * b)) & 255;
        if (h[first] == n)
            continue; /* every key has the same byte here */
        uint32_t sum = 0;
        for (int d = 0; d < 256; d++) {
            uint32_t c = h[d];
            h[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) {
            uint64_t k = (uint64_t)src[i].key ^ (UINT64_C(1) << 63);
            dst[h[(k >> (8 * b)) & 255]++] = src[i];
        }
        int_ent *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

/* Sorts ents and returns their items as a vector. */
static qr_val sorted_items(const sorter *st, sort_ent *ents, size_t n)
{
    qr_lx *lx = st->lx;
    if (n > 1) {
        sort_ent *tmp = qr_arena_alloc(lx->a, (n / 2 + 1) * sizeof *tmp);
        merge_sort(st, ents, tmp, n);
    }
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, n);
    for (size_t i = 0; i < n; i++)
        qr_vecb_push(&vb, ents[i].item);
    return qr_vecb_finish(&vb, QR_T_VEC);
}

static qr_val items_in_order(qr_lx *lx, const qr_val *items, const int_ent *a, size_t n)
{
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, n);
    for (size_t i = 0; i < n; i++)
        qr_vecb_push(&vb, items[a[i].pos]);
    return qr_vecb_finish(&vb, QR_T_VEC);
}

/* sort (kf nil: the items are the keys) and sort-by. Keys are computed once each, in
 * order. While they are all integers and the order is natural they go straight into an
 * int_ent array; the first other key moves everything to the general sort. */
static qr_val sort_impl(const sorter *st, qr_val kf, lx_seq s)
{
    qr_lx *lx = st->lx;
    size_t n = s.n, i = 0;
    if (n == 0)
        return qr_vec_empty(QR_T_VEC);
    const seq_pf pf = seq_pf_for(lx, kf);
    sort_ent *ents;
    if (st->fn.t == QR_T_NIL) {
        int_ent *a = qr_arena_alloc(lx->a, n * sizeof *a);
        qr_val k = qr_nil();
        for (; i < n; i++) {
            if (kf.t != QR_T_NIL)
                seq_prefetch(s.items, n, i, &pf);
            k = kf.t == QR_T_NIL ? s.items[i] : seq_call1(lx, kf, s.items[i]);
            if (k.t != QR_T_INT)
                break;
            a[i] = (int_ent){st->desc ? ~k.i : k.i, i};
        }
        if (i == n) {
            if (n < 512)
                merge_sort_int(a, qr_arena_alloc(lx->a, (n / 2 + 1) * sizeof *a), n);
            else
                radix_sort_int(a, qr_arena_alloc(lx->a, n * sizeof *a), n);
            lx_tick_n(lx, n * 4);
            return items_in_order(lx, s.items, a, n);
        }
        /* key i is not an integer: the keys so far join the general sort */
        ents = qr_arena_alloc(lx->a, n * sizeof *ents);
        for (size_t j = 0; j < i; j++)
            ents[j] = (sort_ent){qr_int(st->desc ? ~a[j].key : a[j].key), s.items[j]};
        ents[i] = (sort_ent){k, s.items[i]};
        i++;
    } else {
        ents = qr_arena_alloc(lx->a, n * sizeof *ents);
    }
    for (; i < n; i++) {
        if (kf.t != QR_T_NIL)
            seq_prefetch(s.items, n, i, &pf);
        qr_val x = s.items[i];
        ents[i] = (sort_ent){kf.t == QR_T_NIL ? x : seq_call1(lx, kf, x), x};
    }
    return sorted_items(st, ents, n);
}

static bool is_kw(qr_val v, const char *name)
{
    return v.t == QR_T_KW && !v.sym->ns_len && strcmp(v.sym->text, name) == 0;
}

/* A comparator argument: :asc, :desc (PTC), or a function. */
static void set_order(sorter *st, qr_val c, int argn)
{
    if (is_kw(c, "asc"))
        return;
    if (is_kw(c, "desc")) {
        st->desc = true;
        return;
    }
    if (c.t != QR_T_FN && c.t != QR_T_VAR)
        lx_type_error(st->lx, st->fname, argn, "a comparator function, :asc or :desc", c);
    st->fn = c;
}

static qr_val bi_seq_sort(qr_lx *lx, int argc, const qr_val *argv)
{
    sorter st = {lx, "sort", qr_nil(), false};
    if (argc == 2)
        set_order(&st, argv[0], 1);
    return sort_impl(&st, qr_nil(), lx_items(lx, argv[argc - 1], "sort", argc));
}

static qr_val bi_seq_sort_by(qr_lx *lx, int argc, const qr_val *argv)
{
    sorter st = {lx, "sort-by", qr_nil(), false};
    qr_val kf = argv[0];
    seq_need_fn(lx, "sort-by", 1, kf);
    if (argc == 3)
        set_order(&st, argv[1], 2);
    return sort_impl(&st, kf, lx_items(lx, argv[argc - 1], "sort-by", argc));
}

/* ---- grouping and counting ---- */

/* Per-group counters, grown by doubling (groups are usually few). */
static uint32_t *grow_u32(qr_lx *lx, uint32_t *p, size_t *cap)
{
    uint32_t *q = qr_arena_realloc(lx->a, p, *cap * sizeof *p, 2 * *cap * sizeof *p);
    *cap *= 2;
    return q;
}

static qr_val bi_seq_group_by(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val f = argv[0];
    seq_need_fn(lx, "group-by", 1, f);
    lx_seq s = lx_items(lx, argv[1], "group-by", 2);
    size_t n = s.n;
    if (n == 0)
        return qr_map_empty();
    /* pass 1: the keys (records prefetched ahead) */
    qr_val *keys = qr_arena_alloc(lx->a, n * sizeof *keys);
    const seq_pf pf = seq_pf_for(lx, f);
    for (size_t i = 0; i < n; i++) {
        seq_prefetch(s.items, n, i, &pf);
        keys[i] = seq_call1(lx, f, s.items[i]);
    }
    /* pass 2: each item's group, numbered in first-seen order (the map builder's entry
     * numbers), each group's size and first item */
    uint32_t *group = qr_arena_alloc(lx->a, n * sizeof *group);
    size_t cap = 64, ngroups = 0;
    uint32_t *count = qr_arena_alloc(lx->a, cap * sizeof *count);
    uint32_t *first = qr_arena_alloc(lx->a, cap * sizeof *first);
    qr_mapb mb;
    qr_mapb_init(&mb, lx->a, 16);
    for (size_t i = 0; i < n; i++) {
        if (i + 8 < n && keys[i + 8].t == QR_T_STR)
            __builtin_prefetch(keys[i + 8].s);
        size_t g = qr_mapb_put(&mb, keys[i], qr_nil());
        if (g == ngroups) {
            if (ngroups == cap) {
                size_t c2 = cap;
                count = grow_u32(lx, count, &c2);
                first = grow_u32(lx, first, &cap);
            }
            count[ngroups] = 0;
            first[ngroups++] = (uint32_t)i;
        }
        group[i] = (uint32_t)g;
        count[g]++;
    }
    /* pass 3: the items group after group in one vector (a counting sort: `group`
     * becomes each item's position), each group's vector a slice of it */
    uint32_t off = 0;
    for (size_t g = 0; g < ngroups; g++) {
        uint32_t c = count[g];
        count[g] = off;
        off += c;
    }
    uint32_t *order = qr_arena_alloc(lx->a, n * sizeof *order);
    for (size_t i = 0; i < n; i++)
        order[count[group[i]]++] = (uint32_t)i;
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, n);
    for (size_t i = 0; i < n; i++)
        qr_vecb_push(&vb, s.items[order[i]]);
    qr_val all = qr_vecb_finish(&vb, QR_T_VEC);
    for (size_t g = 0, start = 0; g < ngroups; g++) {
        size_t end = count[g]; /* now the end of group g */
        qr_mapb_put(&mb, keys[first[g]], qr_vec_slice(lx->a, all, start, end));
        start = end;
    }
    lx_tick_n(lx, n);
    return qr_mapb_finish(&mb, QR_T_MAP);
}

static qr_val bi_seq_frequencies(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    lx_seq s = lx_items(lx, argv[0], "frequencies", 1);
    qr_mapb mb;
    qr_mapb_init(&mb, lx->a, 16);
    for (size_t i = 0; i < s.n; i++) {
        qr_val *slot = qr_mapb_slot(&mb, s.items[i]);
        if (slot)
            slot->i++;
        else
            qr_mapb_put(&mb, s.items[i], qr_int(1));
    }
    lx_tick_n(lx, s.n);
    return qr_mapb_finish(&mb, QR_T_MAP);
}

/* distinct (f nil: the items themselves) and distinct-by: the first item of each key. */
static qr_val distinct_impl(qr_lx *lx, qr_val f, qr_val coll, const char *fname, int argn)
{
    lx_seq s = lx_items(lx, coll, fname, argn);
    qr_mapb mb;
    qr_mapb_init(&mb, lx->a, s.n < 64 ? s.n : 64);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, s.n < 64 ? s.n : 64);
    size_t seen = 0;
    const seq_pf pf = seq_pf_for(lx, f);
    for (size_t i = 0; i < s.n; i++) {
        qr_val x = s.items[i];
        if (f.t != QR_T_NIL)
            seq_prefetch(s.items, s.n, i, &pf);
        qr_val k = f.t == QR_T_NIL ? x : seq_call1(lx, f, x);
        if (qr_mapb_put(&mb, k, qr_nil()) == seen) {
            seen++;
            qr_vecb_push(&vb, x);
        }
    }
    lx_tick_n(lx, s.n);
    if (seen == s.n && coll.t == QR_T_VEC)
        return coll;
    return qr_vecb_finish(&vb, QR_T_VEC);
}

static qr_val bi_seq_distinct(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return distinct_impl(lx, qr_nil(), argv[0], "distinct", 1);
}

static qr_val bi_seq_distinct_by(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    seq_need_fn(lx, "distinct-by", 1, argv[0]);
    return distinct_impl(lx, argv[0], argv[1], "distinct-by", 2);
}

static qr_val bi_seq_dedupe(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    lx_seq s = lx_items(lx, argv[0], "dedupe", 1);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, s.n);
    for (size_t i = 0; i < s.n; i++)
        if (i == 0 || !qr_equal(s.items[i], s.items[i - 1]))
            qr_vecb_push(&vb, s.items[i]);
    lx_tick_n(lx, s.n);
    return qr_vecb_finish(&vb, QR_T_VEC);
}

/* ---- min-key, max-key ---- */

/* Clojure's semantics: keys must be numbers, and among equal keys the LAST item wins
 * ((max-key k x y) is (if (> (k x) (k y)) x y), then >= for the rest). */
static qr_val extreme_key(qr_lx *lx, int argc, const qr_val *argv, int want, const char *fname)
{
    qr_val k = argv[0];
    seq_need_fn(lx, fname, 1, k);
    if (argc == 2)
        return argv[1];
    qr_val best = argv[1], bk = seq_call1(lx, k, best);
    if (!qr_is_number(bk))
        lx_type_error(lx, fname, 0, "k to return numbers", bk);
    for (int i = 2; i < argc; i++) {
        qr_val xk = seq_call1(lx, k, argv[i]);
        if (!qr_is_number(xk))
            lx_type_error(lx, fname, 0, "k to return numbers", xk);
        int c;
        qr_compare(xk, bk, &c);
        if (c == want || c == 0) {
            best = argv[i];
            bk = xk;
        }
    }
    return best;
}

static qr_val bi_seq_max_key(qr_lx *lx, int argc, const qr_val *argv)
{
    return extreme_key(lx, argc, argv, 1, "max-key");
}

static qr_val bi_seq_min_key(qr_lx *lx, int argc, const qr_val *argv)
{
    return extreme_key(lx, argc, argv, -1, "min-key");
}

/* ---- PTC aggregates ---- */

typedef struct num_sum {
    int64_t i;
    double d;
    bool is_double;
    size_t n; /* non-nil values */
} num_sum;

/* Sums (f x) over coll, skipping nils. Integers stay exact until a double appears; on
 * overflow, sum-by (exact) raises and avg-by (approximate anyway) continues in doubles. */
static num_sum sum_values(qr_lx *lx, const qr_val *argv, const char *fname, bool exact)
{
    qr_val f = argv[0];
    seq_need_fn(lx, fname, 1, f);
    lx_seq s = lx_items(lx, argv[1], fname, 2);
    num_sum r = {0, 0.0, false, 0};
    const seq_pf pf = seq_pf_for(lx, f);
    for (size_t i = 0; i < s.n; i++) {
        seq_prefetch(s.items, s.n, i, &pf);
        qr_val v = seq_call1(lx, f, s.items[i]);
        if (v.t == QR_T_INT) {
            if (r.is_double) {
                r.d += (double)v.i;
            } else {
                int64_t t;
                if (__builtin_add_overflow(r.i, v.i, &t)) {
                    if (exact)
                        lx_throw(lx, QR_LE_ARITH, "integer overflow in '%s' (integers are "
                                                  "64-bit; return doubles from f for larger "
                                                  "sums)",
                                 fname);
                    r.is_double = true;
                    r.d = (double)r.i + (double)v.i;
                } else {
                    r.i = t;
                }
            }
        } else if (v.t == QR_T_DOUBLE) {
            if (!r.is_double) {
                r.is_double = true;
                r.d = (double)r.i;
            }
            r.d += v.d;
        } else if (v.t != QR_T_NIL) {
            lx_type_error(lx, fname, 0, "f to return numbers (or nil)", v);
        } else {
            continue;
        }
        r.n++;
    }
    return r;
}

static qr_val bi_seq_sum_by(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    num_sum r = sum_values(lx, argv, "sum-by", true);
    return r.is_double ? qr_double(r.d) : qr_int(r.i);
}

static qr_val bi_seq_avg_by(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    num_sum r = sum_values(lx, argv, "avg-by", false);
    if (r.n == 0)
        return qr_nil();
    return qr_double((r.is_double ? r.d : (double)r.i) / (double)r.n);
}

/* min-by (want -1) and max-by (want 1): the item whose (f x) is smallest or largest,
 * skipping nil keys; the first of equal keys wins. */
static qr_val extreme_by(qr_lx *lx, const qr_val *argv, int want, const char *fname)
{
    qr_val f = argv[0];
    seq_need_fn(lx, fname, 1, f);
    lx_seq s = lx_items(lx, argv[1], fname, 2);
    qr_val best = qr_nil(), bk = qr_nil();
    bool found = false;
    const seq_pf pf = seq_pf_for(lx, f);
    for (size_t i = 0; i < s.n; i++) {
        seq_prefetch(s.items, s.n, i, &pf);
        qr_val k = seq_call1(lx, f, s.items[i]);
        if (k.t == QR_T_NIL)
            continue;
        if (!found || natural_cmp(lx, fname, k, bk) == want) {
            best = s.items[i];
            bk = k;
            found = true;
        }
    }
    return best;
}

static qr_val bi_seq_min_by(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return extreme_by(lx, argv, -1, "min-by");
}

static qr_val bi_seq_max_by(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return extreme_by(lx, argv, 1, "max-by");
}

/* ---- partitions ---- */

/* A vector whose slices can share its storage: coll itself when it is a vector. */
static qr_val sliceable(qr_lx *lx, qr_val coll, lx_seq s)
{
    if (coll.t == QR_T_VEC)
        return coll;
    return qr_vec_from(lx->a, QR_T_VEC, s.items, s.n);
}

static size_t positive_arg(qr_lx *lx, const char *fname, int argn, qr_val v)
{
    int64_t n = seq_count_arg(lx, fname, argn, v);
    if (n <= 0)
        lx_type_error(lx, fname, argn, "a positive integer", v);
    return (size_t)n;
}

/* partition (all = false) and partition-all (all = true), with optional step and pad. */
static qr_val partition_impl(qr_lx *lx, int argc, const qr_val *argv, bool all,
                             const char *fname)
{
    size_t n = positive_arg(lx, fname, 1, argv[0]);
    size_t step = argc >= 3 ? positive_arg(lx, fname, 2, argv[1]) : n;
    bool has_pad = !all && argc == 4;
    qr_val coll = argv[argc - 1];
    lx_seq s = lx_items(lx, coll, fname, argc);
    lx_seq pad = {NULL, 0};
    if (has_pad)
        pad = lx_items(lx, argv[2], fname, 3);
    qr_val v = sliceable(lx, coll, s);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, s.n / step + 1);
    for (size_t i = 0; i < s.n; i += step) {
        if (s.n - i >= n) {
            qr_vecb_push(&vb, qr_vec_slice(lx->a, v, i, i + n));
            continue;
        }
        if (all) {
            qr_vecb_push(&vb, qr_vec_slice(lx->a, v, i, s.n));
            continue;
        }
        if (has_pad) { /* one last chunk, filled up from pad */
            qr_vecb cb;
            qr_vecb_init(&cb, lx->a, n);
            for (size_t k = i; k < s.n; k++)
                qr_vecb_push(&cb, s.items[k]);
            for (size_t k = 0; k < pad.n && s.n - i + k < n; k++)
                qr_vecb_push(&cb, pad.items[k]);
            qr_vecb_push(&vb, qr_vecb_finish(&cb, QR_T_VEC));
        }
        break;
    }
    lx_tick_n(lx, s.n);
    return qr_vecb_finish(&vb, QR_T_VEC);
}

static qr_val bi_seq_partition(qr_lx *lx, int argc, const qr_val *argv)
{
    return partition_impl(lx, argc, argv, false, "partition");
}

static qr_val bi_seq_partition_all(qr_lx *lx, int argc, const qr_val *argv)
{
    return partition_impl(lx, argc, argv, true, "partition-all");
}

static qr_val bi_seq_partition_by(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val f = argv[0], coll = argv[1];
    seq_need_fn(lx, "partition-by", 1, f);
    lx_seq s = lx_items(lx, coll, "partition-by", 2);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, 8);
    if (s.n == 0)
        return qr_vecb_finish(&vb, QR_T_VEC);
    qr_val v = sliceable(lx, coll, s);
    size_t start = 0;
    qr_val prev = seq_call1(lx, f, s.items[0]);
    for (size_t i = 1; i < s.n; i++) {
        qr_val k = seq_call1(lx, f, s.items[i]);
        if (!qr_equal(k, prev)) {
            qr_vecb_push(&vb, qr_vec_slice(lx->a, v, start, i));
            start = i;
            prev = k;
        }
    }
    qr_vecb_push(&vb, qr_vec_slice(lx->a, v, start, s.n));
    return qr_vecb_finish(&vb, QR_T_VEC);
}

/* ---- flatten, tree-seq ---- */

static void flatten_into(qr_lx *lx, qr_vecb *vb, qr_val x)
{
    const qr_val *it = qr_vec_items(x);
    size_t n = x.c->len;
    for (size_t i = 0; i < n; i++) {
        if (it[i].t == QR_T_VEC || it[i].t == QR_T_LIST)
            flatten_into(lx, vb, it[i]);
        else
            qr_vecb_push(vb, it[i]);
    }
    lx_tick_n(lx, n);
}

static qr_val bi_seq_flatten(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, 0);
    if (argv[0].t == QR_T_VEC || argv[0].t == QR_T_LIST) /* else (): only sequential nests */
        flatten_into(lx, &vb, argv[0]);
    return qr_vecb_finish(&vb, QR_T_VEC);
}

static qr_val bi_seq_tree_seq(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val branch = argv[0], children = argv[1];
    seq_need_fn(lx, "tree-seq", 1, branch);
    seq_need_fn(lx, "tree-seq", 2, children);
    /* depth-first, pre-order, with an explicit stack of child arrays (no C recursion:
     * children may build an arbitrarily deep tree) */
    typedef struct frame {
        const qr_val *items;
        size_t n, i;
    } frame;
    size_t cap = 16, depth = 0;
    frame *st = qr_arena_alloc(lx->a, cap * sizeof *st);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, 16);
    qr_val cur = argv[2];
    for (;;) {
        qr_vecb_push(&vb, cur);
        lx_tick(lx);
        if (qr_truthy(seq_call1(lx, branch, cur))) {
            qr_val kids = seq_call1(lx, children, cur);
            lx_seq s = lx_items(lx, kids, "tree-seq", 0);
            if (s.n) {
                if (depth == cap) {
                    st = qr_arena_realloc(lx->a, st, cap * sizeof *st, 2 * cap * sizeof *st);
                    cap *= 2;
                }
                st[depth++] = (frame){s.items, s.n, 0};
            }
        }
        while (depth && st[depth - 1].i == st[depth - 1].n)
            depth--;
        if (!depth)
            break;
        frame *fr = &st[depth - 1];
        cur = fr->items[fr->i++];
    }
    return qr_vecb_finish(&vb, QR_T_VEC);
}

/* ---- predicates over items ---- */

/* The first truthy (f x), or nil. */
static qr_val some_impl(qr_lx *lx, const qr_val *argv, const char *fname)
{
    qr_val f = argv[0];
    seq_need_fn(lx, fname, 1, f);
    lx_seq s = lx_items(lx, argv[1], fname, 2);
    const seq_pf pf = seq_pf_for(lx, f);
    for (size_t i = 0; i < s.n; i++) {
        seq_prefetch(s.items, s.n, i, &pf);
        qr_val r = seq_call1(lx, f, s.items[i]);
        if (qr_truthy(r))
            return r;
    }
    return qr_nil();
}

static qr_val bi_seq_some(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return some_impl(lx, argv, "some");
}

/* Index of the first item whose (f x) is falsy, or n. */
static size_t first_failing(qr_lx *lx, const qr_val *argv, const char *fname)
{
    qr_val f = argv[0];
    seq_need_fn(lx, fname, 1, f);
    lx_seq s = lx_items(lx, argv[1], fname, 2);
    const seq_pf pf = seq_pf_for(lx, f);
    for (size_t i = 0; i < s.n; i++) {
        seq_prefetch(s.items, s.n, i, &pf);
        if (!qr_truthy(seq_call1(lx, f, s.items[i])))
            return i;
    }
    return SIZE_MAX;
}

static qr_val bi_seq_every_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return qr_bool(first_failing(lx, argv, "every?") == SIZE_MAX);
}

static qr_val bi_seq_not_every_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return qr_bool(first_failing(lx, argv, "not-every?") != SIZE_MAX);
}

static qr_val bi_seq_not_any_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return qr_bool(!qr_truthy(some_impl(lx, argv, "not-any?")));
}

const qr_builtin qr_lib_seq_sort[] = {
    QR_BUILTIN("sort", bi_seq_sort, 1, 2, "[coll] or [comparator coll]", "the items in order (stable); comparator: a function returning a number or boolean (as <), or :asc / :desc"),
    QR_BUILTIN("sort-by", bi_seq_sort_by, 2, 3, "[keyfn coll] or [keyfn comparator coll]", "the items ordered by (keyfn x) (stable); comparator as for sort, e.g. (sort-by :k :desc xs)"),
    QR_BUILTIN("group-by", bi_seq_group_by, 2, 2, "[f coll]", "a map from each (f x) to the vector of items with it, in first-seen order"),
    QR_BUILTIN("frequencies", bi_seq_frequencies, 1, 1, "[coll]", "a map from each distinct item to how many times it occurs"),
    QR_BUILTIN("distinct", bi_seq_distinct, 1, 1, "[coll]", "the items without repeats, first occurrences in order"),
    QR_BUILTIN("distinct-by", bi_seq_distinct_by, 2, 2, "[f coll]", "the first item for each distinct (f x)"),
    QR_BUILTIN("dedupe", bi_seq_dedupe, 1, 1, "[coll]", "the items without consecutive repeats"),
    QR_BUILTIN("max-key", bi_seq_max_key, 2, -1, "[k x & xs]", "the x with the largest (k x), a number; the last of equals"),
    QR_BUILTIN("min-key", bi_seq_min_key, 2, -1, "[k x & xs]", "the x with the smallest (k x), a number; the last of equals"),
    QR_BUILTIN("sum-by", bi_seq_sum_by, 2, 2, "[f coll]", "the sum of (f x), nils skipped; 0 when none"),
    QR_BUILTIN("avg-by", bi_seq_avg_by, 2, 2, "[f coll]", "the mean of (f x) as a double, nils skipped; nil when none"),
    QR_BUILTIN("min-by", bi_seq_min_by, 2, 2, "[f coll]", "the item with the smallest (f x), nils skipped; nil when none"),
    QR_BUILTIN("max-by", bi_seq_max_by, 2, 2, "[f coll]", "the item with the largest (f x), nils skipped; nil when none"),
    QR_BUILTIN("partition", bi_seq_partition, 2, 4, "[n coll] or [n step coll] or [n step pad coll]", "chunks of n items, step apart; an incomplete last chunk is dropped unless padded from pad"),
    QR_BUILTIN("partition-all", bi_seq_partition_all, 2, 3, "[n coll] or [n step coll]", "chunks of n items, step apart, the last possibly shorter"),
    QR_BUILTIN("partition-by", bi_seq_partition_by, 2, 2, "[f coll]", "runs of consecutive items with equal (f x)"),
    QR_BUILTIN("flatten", bi_seq_flatten, 1, 1, "[x]", "the non-sequential items of nested vectors and lists"),
    QR_BUILTIN("some", bi_seq_some, 2, 2, "[pred coll]", "the first truthy (pred x), or nil"),
    QR_BUILTIN("every?", bi_seq_every_p, 2, 2, "[pred coll]", "true when (pred x) is truthy for every item"),
    QR_BUILTIN("not-every?", bi_seq_not_every_p, 2, 2, "[pred coll]", "true when (pred x) is falsy for some item"),
    QR_BUILTIN("not-any?", bi_seq_not_any_p, 2, 2, "[pred coll]", "true when (pred x) is falsy for every item"),
    QR_BUILTIN("tree-seq", bi_seq_tree_seq, 3, 3, "[branch? children root]", "the nodes of a tree, depth first"),
    {.hdr = {.name = NULL}},
};
