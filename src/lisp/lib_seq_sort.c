/*
 * lib_seq_sort.c: the sequence builtins that order, group or aggregate: sort, sort-by,
 * group-by, frequencies, distinct, distinct-by, dedupe, min-key, max-key, and PTC's
 * sum-by, avg-by, min-by and max-by. The rest of the sequence library is lib_seq.c.
 *
 * These are what query programs spend their time in (filter, sort-by, group-by and
 * sum-by over every record), so each computes its keys once, in one pass, with keyword
 * keys looked up directly (seq_call1), and allocates per result rather than per item.
 *
 * Sorting is a stable merge sort (Clojure's sort is stable; qsort is not) over
 * {key, item} pairs, comparing with qr_compare (an integer fast path first) or with a
 * comparator function as Clojure calls it: a number is its sign, a boolean means
 * "less than" and is asked both ways. Grouping keeps first-seen order: a map builder
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
    lx_seq s = lx_items(lx, argv[argc - 1], "sort", argc);
    sort_ent *ents = qr_arena_alloc(lx->a, (s.n ? s.n : 1) * sizeof *ents);
    for (size_t i = 0; i < s.n; i++)
        ents[i] = (sort_ent){s.items[i], s.items[i]};
    return sorted_items(&st, ents, s.n);
}

static qr_val bi_seq_sort_by(qr_lx *lx, int argc, const qr_val *argv)
{
    sorter st = {lx, "sort-by", qr_nil(), false};
    qr_val kf = argv[0];
    seq_need_fn(lx, "sort-by", 1, kf);
    if (argc == 3)
        set_order(&st, argv[1], 2);
    lx_seq s = lx_items(lx, argv[argc - 1], "sort-by", argc);
    sort_ent *ents = qr_arena_alloc(lx->a, (s.n ? s.n : 1) * sizeof *ents);
    for (size_t i = 0; i < s.n; i++)
        ents[i] = (sort_ent){seq_call1(lx, kf, s.items[i]), s.items[i]};
    return sorted_items(&st, ents, s.n);
}

/* ---- grouping and counting ---- */

static qr_val bi_seq_group_by(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val f = argv[0];
    seq_need_fn(lx, "group-by", 1, f);
    lx_seq s = lx_items(lx, argv[1], "group-by", 2);
    if (s.n == 0)
        return qr_map_empty();
    /* pass 1: each item's group (entry number in first-seen order) and group sizes */
    uint32_t *group = qr_arena_alloc(lx->a, s.n * sizeof *group);
    uint32_t *count = qr_arena_zalloc(lx->a, s.n * sizeof *count);
    qr_val *keys = qr_arena_alloc(lx->a, s.n * sizeof *keys);
    size_t ngroups = 0;
    qr_mapb mb;
    qr_mapb_init(&mb, lx->a, 16);
    for (size_t i = 0; i < s.n; i++) {
        qr_val k = seq_call1(lx, f, s.items[i]);
        size_t g = qr_mapb_put(&mb, k, qr_nil());
        if (g == ngroups)
            keys[ngroups++] = k;
        group[i] = (uint32_t)g;
        count[g]++;
    }
    /* pass 2: lay the groups out one after another in one vector */
    uint32_t *pos = qr_arena_alloc(lx->a, ngroups * sizeof *pos);
    uint32_t off = 0;
    for (size_t g = 0; g < ngroups; g++) {
        pos[g] = off;
        off += count[g];
    }
    qr_val *all = qr_arena_alloc(lx->a, s.n * sizeof *all);
    for (size_t i = 0; i < s.n; i++)
        all[pos[group[i]]++] = s.items[i];
    qr_val allv = qr_vec_from(lx->a, QR_T_VEC, all, s.n);
    for (size_t g = 0, start = 0; g < ngroups; g++) {
        qr_mapb_put(&mb, keys[g], qr_vec_slice(lx->a, allv, start, start + count[g]));
        start += count[g];
    }
    lx_tick_n(lx, s.n);
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
    for (size_t i = 0; i < s.n; i++) {
        qr_val x = s.items[i];
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
    for (size_t i = 0; i < s.n; i++) {
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
    for (size_t i = 0; i < s.n; i++) {
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
    {.hdr = {.name = NULL}},
};
