/*
 * lib_xf.c: Clojure's transducers and the builtins that hold state between calls or come
 * from outside the sequence library: transducers ((map f), (filter p), (take n) ...,
 * composed with comp, run by transduce, into, sequence and eduction), completing and cat;
 * sorted maps and sets (sorted-map, sorted-set, subseq, rsubseq); memoize; the seeded
 * random functions (rand, rand-int, rand-nth, shuffle, random-sample); pcalls; the rest of
 * clojure.set (select, project, rename, index, map-invert, join); combinations; a few
 * more of Clojure's spellings (num, rational?, distinct?, associative?, counted?,
 * trampoline, prn-str, the unchecked- arithmetic); and the internals of defonce,
 * with-out-str and assert (expand.c).
 *
 * A transducer is a function of a reducing function rf that returns another reducing
 * function (arities 0, 1 and 2), as in Clojure, so comp composes them and user code can
 * call them directly. The stateful ones (take, drop, drop-while) keep their count in the
 * reducing function made for one reduction, so a transducer value can be reused.
 *
 * Random numbers come from the session's generator (splitmix64), which the host seeds
 * with qr_lisp_set_seed (quarry lisp --seed N; the default seed is 1): a session gives the
 * same numbers for the same programs, run after run.
 */
#include "lib_seq.h"

#include <math.h>
#include <string.h>

/* ---- transducers ---- */

enum { XF_MAP, XF_FILTER, XF_REMOVE, XF_KEEP, XF_TAKE, XF_DROP, XF_TAKE_WHILE, XF_DROP_WHILE,
       XF_MAPCAT, XF_CAT };

static const char *const xf_names[] = {"map",        "filter",     "remove", "keep", "take",
                                       "drop",       "take-while", "drop-while", "mapcat",
                                       "cat"};

static qr_val ensure_reduced(qr_lx *lx, qr_val v)
{
    return lx_is_reduced(v) ? v : lx_reduced(lx, v);
}

/* Adds the items of coll to acc with rf; a reduced result is returned still wrapped, so
 * the reduction around stops too. */
static qr_val xf_cat_into(qr_lx *lx, qr_val rf, qr_val acc, qr_val coll, const char *fname)
{
    lx_seq s = lx_items(lx, coll, fname, 0);
    for (size_t i = 0; i < s.n; i++) {
        acc = lx_call2(lx, rf, acc, s.items[i]);
        if (lx_is_reduced(acc))
            return acc;
    }
    return acc;
}

/* The reducing function a transducer made: fns = kind, argument, rf, state. */
static qr_val xf_step(qr_lx *lx, int argc, const qr_val *argv)
{
    lx_combo *c = (lx_combo *)lx->cur_combo; /* its state is its own to change */
    int kind = (int)c->fns[0].i;
    qr_val f = c->fns[1], rf = c->fns[2];
    if (argc == 0)
        return lx_apply(lx, rf, 0, argv);
    if (argc == 1)
        return lx_call1(lx, rf, argv[0]);
    if (argc != 2)
        lx_throw(lx, QR_LE_ARITY, "wrong number of arguments (%d) to a '%s' reducing function",
                 argc, xf_names[kind]);
    qr_val acc = argv[0], x = argv[1];
    switch (kind) {
    case XF_MAP: return lx_call2(lx, rf, acc, lx_call1(lx, f, x));
    case XF_FILTER: return qr_truthy(lx_call1(lx, f, x)) ? lx_call2(lx, rf, acc, x) : acc;
    case XF_REMOVE: return qr_truthy(lx_call1(lx, f, x)) ? acc : lx_call2(lx, rf, acc, x);
    case XF_KEEP: {
        qr_val v = lx_call1(lx, f, x);
        return v.t == QR_T_NIL ? acc : lx_call2(lx, rf, acc, v);
    }
    case XF_TAKE: {
        int64_t n = c->fns[3].i;
        c->fns[3].i = n - 1;
        if (n > 0)
            acc = lx_call2(lx, rf, acc, x);
        return n - 1 <= 0 ? ensure_reduced(lx, acc) : acc;
    }
    case XF_DROP:
        if (c->fns[3].i > 0) {
            c->fns[3].i--;
            return acc;
        }
        return lx_call2(lx, rf, acc, x);
    case XF_TAKE_WHILE:
        return qr_truthy(lx_call1(lx, f, x)) ? lx_call2(lx, rf, acc, x) : lx_reduced(lx, acc);
    case XF_DROP_WHILE:
        if (c->fns[3].i == 0 && qr_truthy(lx_call1(lx, f, x)))
            return acc;
        c->fns[3].i = 1;
        return lx_call2(lx, rf, acc, x);
    case XF_MAPCAT: return xf_cat_into(lx, rf, acc, lx_call1(lx, f, x), "mapcat");
    case XF_CAT: return xf_cat_into(lx, rf, acc, x, "cat");
    }
    return acc;
}

/* The transducer itself: fns = kind, argument. Called with rf, makes the step. */
static qr_val xf_apply(qr_lx *lx, int argc, const qr_val *argv)
{
    const lx_combo *c = (const lx_combo *)lx->cur_combo;
    if (argc != 1)
        lx_throw(lx, QR_LE_ARITY, "a transducer takes one reducing function, got %d arguments",
                 argc);
    int kind = (int)c->fns[0].i;
    qr_val st = qr_int(0);
    if (kind == XF_TAKE || kind == XF_DROP)
        st = c->fns[1];
    qr_val fns[4] = {c->fns[0], c->fns[1], argv[0], st};
    return lx_make_combo(lx, xf_names[kind], xf_step, 4, fns);
}

qr_val lx_transducer(qr_lx *lx, const char *fname, qr_val arg)
{
    int kind = -1;
    for (int i = 0; i < (int)(sizeof xf_names / sizeof xf_names[0]); i++)
        if (!strcmp(xf_names[i], fname))
            kind = i;
    if (kind == XF_TAKE || kind == XF_DROP) {
        arg = qr_int(seq_count_arg(lx, fname, 1, arg));
    } else if (kind != XF_CAT) {
        seq_need_fn(lx, fname, 1, arg);
    }
    qr_val fns[2] = {qr_int(kind), arg};
    return lx_make_combo(lx, fname, xf_apply, 2, fns);
}

static qr_val bi_xf_cat(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val fns[4] = {qr_int(XF_CAT), qr_nil(), argv[0], qr_int(0)};
    return lx_make_combo(lx, "cat", xf_step, 4, fns);
}

/* Reduces coll with the reducing function rf from init, then completes: (rf acc). */
static qr_val xf_run(qr_lx *lx, qr_val rf, qr_val init, qr_val coll, const char *fname,
                     int argn)
{
    qr_val acc = init;
    if (qr_is_range(coll)) {
        for (uint64_t i = 0; i < qr_range_len(coll); i++) {
            acc = lx_call2(lx, rf, acc, qr_int(qr_range_at(coll, i)));
            if (lx_is_reduced(acc))
                break;
        }
    } else {
        lx_seq s = lx_items(lx, coll, fname, argn);
        for (size_t i = 0; i < s.n; i++) {
            acc = lx_call2(lx, rf, acc, s.items[i]);
            if (lx_is_reduced(acc))
                break;
        }
    }
    if (lx_is_reduced(acc))
        acc = lx_unreduced(acc);
    return lx_call1(lx, rf, acc);
}

/* (transduce xf f coll) and (transduce xf f init coll) */
static qr_val bi_xf_transduce(qr_lx *lx, int argc, const qr_val *argv)
{
    seq_need_fn(lx, "transduce", 1, argv[0]);
    seq_need_fn(lx, "transduce", 2, argv[1]);
    qr_val rf = lx_call1(lx, argv[0], argv[1]);
    qr_val init = argc == 4 ? argv[2] : lx_apply(lx, argv[1], 0, argv);
    return xf_run(lx, rf, init, argv[argc - 1], "transduce", argc);
}

static qr_val builtin_val(const char *name)
{
    const qr_builtin *b = lx_builtin_find(name, strlen(name));
    qr_val v = {.t = QR_T_FN};
    v.fn = &b->hdr;
    return v;
}

qr_val lx_into_xf(qr_lx *lx, qr_val to, qr_val xf, qr_val from)
{
    seq_need_fn(lx, "into", 2, xf);
    if (to.t != QR_T_NIL && to.t != QR_T_VEC && to.t != QR_T_LIST && to.t != QR_T_MAP &&
        to.t != QR_T_SET)
        lx_type_error(lx, "into", 1, "a collection", to);
    qr_val rf = lx_call1(lx, xf, builtin_val("conj"));
    return xf_run(lx, rf, to, from, "into", 3);
}

/* (sequence xf coll), (eduction xf* coll): the items as a vector */
static qr_val bi_xf_eduction(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc == 1)
        return lx_apply(lx, builtin_val("sequence"), 1, argv);
    qr_val xf = argc == 2 ? argv[0] : lx_apply(lx, builtin_val("comp"), argc - 1, argv);
    return lx_into_xf(lx, qr_vec_empty(QR_T_VEC), xf, argv[argc - 1]);
}

static qr_val combo_completing(qr_lx *lx, int argc, const qr_val *argv)
{
    const lx_combo *c = (const lx_combo *)lx->cur_combo;
    if (argc == 1)
        return c->fns[1].t == QR_T_NIL ? argv[0] : lx_call1(lx, c->fns[1], argv[0]);
    return lx_apply(lx, c->fns[0], argc, argv);
}

static qr_val bi_xf_completing(qr_lx *lx, int argc, const qr_val *argv)
{
    seq_need_fn(lx, "completing", 1, argv[0]);
    qr_val fns[2] = {argv[0], argc == 2 ? argv[1] : qr_nil()};
    return lx_make_combo(lx, "completing", combo_completing, 2, fns);
}

/* ---- sorted maps and sets ---- */

static void need_comparable(qr_lx *lx, const char *fname, qr_val coll, qr_val k)
{
    int r;
    if (coll.c->len && !qr_compare(qr_map_key_at(coll, 0), k, &r))
        lx_throw(lx, QR_LE_TYPE, "'%s' cannot order %s %s with %s keys", fname,
                 qr_type_name((qr_type)k.t), lx_pr_str(lx, k, QR_PRINT_READABLY).s->data,
                 qr_type_name((qr_type)qr_map_key_at(coll, 0).t));
}

static qr_val bi_xf_sorted_map(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc % 2)
        lx_throw(lx, QR_LE_ARITY, "'sorted-map' expects keys and values in pairs, got %d "
                                  "arguments", argc);
    qr_val m = qr_sorted_empty(QR_T_MAP);
    for (int i = 0; i < argc; i += 2) {
        need_comparable(lx, "sorted-map", m, argv[i]);
        m = qr_map_assoc(lx->a, m, argv[i], argv[i + 1]);
    }
    return m;
}

static qr_val bi_xf_sorted_set(qr_lx *lx, int argc, const qr_val *argv)
{
    qr_val m = qr_sorted_empty(QR_T_SET);
    for (int i = 0; i < argc; i++) {
        need_comparable(lx, "sorted-set", m, argv[i]);
        m = qr_set_conj(lx->a, m, argv[i]);
    }
    return m;
}

static qr_val bi_xf_sorted_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)lx;
    (void)argc;
    return qr_bool(qr_is_sorted(argv[0]));
}

/* (subseq sc test key) and (subseq sc start-test start-key end-test end-key): the
 * entries (sets: items) whose key passes the tests, in order; rsubseq reversed. */
static qr_val subseq_impl(qr_lx *lx, int argc, const qr_val *argv, bool rev, const char *fname)
{
    qr_val sc = argv[0];
    if (!qr_is_sorted(sc))
        lx_type_error(lx, fname, 1, "a sorted map or set", sc);
    if (argc != 3 && argc != 5)
        lx_throw(lx, QR_LE_ARITY, "wrong number of arguments (%d) to '%s'; usage: (%s sc test "
                                  "key) or (%s sc start-test start-key end-test end-key)",
                 argc, fname, fname, fname);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, 16);
    size_t n = sc.c->len;
    for (size_t j = 0; j < n; j++) {
        size_t i = rev ? n - 1 - j : j;
        qr_val k = qr_map_key_at(sc, i);
        if (!qr_truthy(lx_call2(lx, argv[1], k, argv[2])))
            continue;
        if (argc == 5 && !qr_truthy(lx_call2(lx, argv[3], k, argv[4])))
            continue;
        if (sc.t == QR_T_SET) {
            qr_vecb_push(&vb, k);
        } else {
            qr_val kv[2] = {k, qr_map_val_at(sc, i)};
            qr_vecb_push(&vb, qr_vec_from(lx->a, QR_T_VEC, kv, 2));
        }
    }
    qr_val r = qr_vecb_finish(&vb, QR_T_VEC);
    return r.c->len ? r : qr_nil();
}

static qr_val bi_xf_subseq(qr_lx *lx, int argc, const qr_val *argv)
{
    return subseq_impl(lx, argc, argv, false, "subseq");
}

static qr_val bi_xf_rsubseq(qr_lx *lx, int argc, const qr_val *argv)
{
    return subseq_impl(lx, argc, argv, true, "rsubseq");
}

/* ---- memoize ----
 * fns = f, cache (a map from argument vectors to results), the run it belongs to. A run
 * that fails gives its memory back, so a cache is only ever used by the run that filled
 * it; a later run starts a new one. */
static qr_val combo_memo(qr_lx *lx, int argc, const qr_val *argv)
{
    lx_combo *c = (lx_combo *)lx->cur_combo;
    if (c->fns[2].i != (int64_t)lx->s->runs) {
        c->fns[1] = qr_map_empty();
        c->fns[2] = qr_int((int64_t)lx->s->runs);
    }
    qr_val key = qr_vec_from(lx->a, QR_T_VEC, argv, (size_t)argc), r;
    if (qr_map_lookup(c->fns[1], key, &r))
        return r;
    qr_val f = c->fns[0];
    r = lx_apply(lx, f, argc, argv);
    c->fns[1] = qr_map_assoc(lx->a, c->fns[1], key, r);
    return r;
}

static qr_val bi_xf_memoize(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    seq_need_fn(lx, "memoize", 1, argv[0]);
    qr_val fns[3] = {argv[0], qr_map_empty(), qr_int((int64_t)lx->s->runs)};
    return lx_make_combo(lx, "memoize", combo_memo, 3, fns);
}

/* ---- random numbers ---- */

static uint64_t rand_next(qr_lx *lx)
{
    uint64_t z = (lx->s->rand_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double rand_unit(qr_lx *lx)
{
    return (double)(rand_next(lx) >> 11) * 0x1.0p-53;
}

static size_t rand_below(qr_lx *lx, size_t n)
{
    return (size_t)(rand_unit(lx) * (double)n);
}

static qr_val bi_xf_rand(qr_lx *lx, int argc, const qr_val *argv)
{
    double scale = argc ? lx_arg_num(lx, "rand", 1, argv[0]) : 1.0;
    return qr_double(rand_unit(lx) * scale);
}

static qr_val bi_xf_rand_int(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    double n = lx_arg_num(lx, "rand-int", 1, argv[0]);
    return qr_int((int64_t)(rand_unit(lx) * n));
}

static qr_val bi_xf_rand_nth(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    lx_seq s = lx_items(lx, argv[0], "rand-nth", 1);
    if (s.n == 0)
        lx_throw(lx, QR_LE_INDEX, "'rand-nth' of an empty collection");
    return s.items[rand_below(lx, s.n)];
}

static qr_val bi_xf_shuffle(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    lx_seq s = lx_items(lx, argv[0], "shuffle", 1);
    qr_val *x = qr_arena_alloc(lx->a, sizeof(qr_val) * (s.n ? s.n : 1));
    memcpy(x, s.items, sizeof(qr_val) * s.n);
    for (size_t i = s.n; i > 1; i--) {
        size_t j = rand_below(lx, i);
        qr_val t = x[i - 1];
        x[i - 1] = x[j];
        x[j] = t;
    }
    lx_tick_n(lx, s.n);
    return qr_vec_from(lx->a, QR_T_VEC, x, s.n);
}

static qr_val bi_xf_random_sample(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    double p = lx_arg_num(lx, "random-sample", 1, argv[0]);
    lx_seq s = lx_items(lx, argv[1], "random-sample", 2);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, 16);
    for (size_t i = 0; i < s.n; i++)
        if (rand_unit(lx) < p)
            qr_vecb_push(&vb, s.items[i]);
    return qr_vecb_finish(&vb, QR_T_VEC);
}

/* ---- the rest ---- */

/* (pcalls f ...): the results of calling each f, in order (the sandbox runs one thing at
 * a time) */
static qr_val bi_xf_pcalls(qr_lx *lx, int argc, const qr_val *argv)
{
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, (size_t)argc);
    for (int i = 0; i < argc; i++) {
        seq_need_fn(lx, "pcalls", i + 1, argv[i]);
        qr_vecb_push(&vb, lx_apply(lx, argv[i], 0, argv));
    }
    return qr_vecb_finish(&vb, QR_T_VEC);
}

/* (combinations coll k): the k-item combinations of coll's items, in order (PTC-Lisp) */
static qr_val bi_xf_combinations(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    lx_seq s = lx_items(lx, argv[0], "combinations", 1);
    int64_t k = lx_arg_int(lx, "combinations", 2, argv[1]);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, 16);
    if (k < 0 || (uint64_t)k > s.n)
        return qr_vecb_finish(&vb, QR_T_VEC);
    size_t *idx = qr_arena_alloc(lx->a, sizeof(size_t) * (size_t)(k ? k : 1));
    qr_val *pick = qr_arena_alloc(lx->a, sizeof(qr_val) * (size_t)(k ? k : 1));
    for (int64_t i = 0; i < k; i++)
        idx[i] = (size_t)i;
    for (;;) {
        for (int64_t i = 0; i < k; i++)
            pick[i] = s.items[idx[i]];
        qr_vecb_push(&vb, qr_vec_from(lx->a, QR_T_VEC, pick, (size_t)k));
        lx_tick(lx);
        int64_t i = k - 1;
        while (i >= 0 && idx[i] == s.n - (size_t)(k - i))
            i--;
        if (i < 0)
            break;
        idx[i]++;
        for (int64_t j = i + 1; j < k; j++)
            idx[j] = idx[j - 1] + 1;
    }
    return qr_vecb_finish(&vb, QR_T_VEC);
}

static void need_rel(qr_lx *lx, const char *fname, int argn, qr_val v)
{
    if (v.t != QR_T_NIL && v.t != QR_T_SET && v.t != QR_T_VEC && v.t != QR_T_LIST)
        lx_type_error(lx, fname, argn, "a set of maps", v);
}

/* (clojure.set/select pred set) */
static qr_val bi_xf_set_select(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    seq_need_fn(lx, "clojure.set/select", 1, argv[0]);
    qr_val s = argv[1];
    if (s.t != QR_T_SET)
        lx_type_error(lx, "clojure.set/select", 2, "a set", s);
    qr_val r = s;
    for (size_t i = 0; i < s.c->len; i++) {
        qr_val x = qr_map_key_at(s, i);
        if (!qr_truthy(lx_call1(lx, argv[0], x)))
            r = qr_set_disj(lx->a, r, x);
    }
    return r;
}

static qr_val select_keys(qr_lx *lx, qr_val m, qr_val ks)
{
    lx_seq k = lx_items(lx, ks, "clojure.set/project", 2);
    qr_val r = qr_map_empty(), v;
    for (size_t i = 0; i < k.n; i++)
        if (m.t == QR_T_MAP && qr_map_lookup(m, k.items[i], &v))
            r = qr_map_assoc(lx->a, r, k.items[i], v);
    return r;
}

/* (clojure.set/project rel ks) */
static qr_val bi_xf_set_project(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    need_rel(lx, "clojure.set/project", 1, argv[0]);
    lx_seq s = lx_items(lx, argv[0], "clojure.set/project", 1);
    qr_val r = qr_set_empty();
    for (size_t i = 0; i < s.n; i++)
        r = qr_set_conj(lx->a, r, select_keys(lx, s.items[i], argv[1]));
    return r;
}

static qr_val rename_keys(qr_lx *lx, qr_val m, qr_val kmap)
{
    if (m.t != QR_T_MAP)
        lx_type_error(lx, "clojure.set/rename", 1, "a set of maps", m);
    qr_val r = m, v;
    for (size_t i = 0; i < kmap.c->len; i++)
        r = qr_map_dissoc(lx->a, r, qr_map_key_at(kmap, i));
    for (size_t i = 0; i < kmap.c->len; i++)
        if (qr_map_lookup(m, qr_map_key_at(kmap, i), &v))
            r = qr_map_assoc(lx->a, r, qr_map_val_at(kmap, i), v);
    return r;
}

/* (clojure.set/rename rel kmap) */
static qr_val bi_xf_set_rename(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    need_rel(lx, "clojure.set/rename", 1, argv[0]);
    if (argv[1].t != QR_T_MAP)
        lx_type_error(lx, "clojure.set/rename", 2, "a map", argv[1]);
    lx_seq s = lx_items(lx, argv[0], "clojure.set/rename", 1);
    qr_val r = qr_set_empty();
    for (size_t i = 0; i < s.n; i++)
        r = qr_set_conj(lx->a, r, rename_keys(lx, s.items[i], argv[1]));
    return r;
}

/* (clojure.set/index rel ks): {(select-keys x ks) #{x ...}} */
static qr_val bi_xf_set_index(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    need_rel(lx, "clojure.set/index", 1, argv[0]);
    lx_seq s = lx_items(lx, argv[0], "clojure.set/index", 1);
    qr_val r = qr_map_empty(), group;
    for (size_t i = 0; i < s.n; i++) {
        qr_val k = select_keys(lx, s.items[i], argv[1]);
        if (!qr_map_lookup(r, k, &group))
            group = qr_set_empty();
        r = qr_map_assoc(lx->a, r, k, qr_set_conj(lx->a, group, s.items[i]));
    }
    return r;
}

/* (clojure.set/map-invert m) */
static qr_val bi_xf_map_invert(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val m = argv[0], r = qr_map_empty();
    if (m.t == QR_T_NIL)
        return r;
    if (m.t != QR_T_MAP)
        lx_type_error(lx, "clojure.set/map-invert", 1, "a map", m);
    for (size_t i = 0; i < m.c->len; i++)
        r = qr_map_assoc(lx->a, r, qr_map_val_at(m, i), qr_map_key_at(m, i));
    return r;
}

static qr_val merge2(qr_lx *lx, qr_val a, qr_val b)
{
    for (size_t i = 0; i < b.c->len; i++)
        a = qr_map_assoc(lx->a, a, qr_map_key_at(b, i), qr_map_val_at(b, i));
    return a;
}

/* (clojure.set/join xrel yrel) on their shared keys, or (join xrel yrel km) with km
 * mapping xrel's keys to yrel's */
static qr_val bi_xf_set_join(qr_lx *lx, int argc, const qr_val *argv)
{
    need_rel(lx, "clojure.set/join", 1, argv[0]);
    need_rel(lx, "clojure.set/join", 2, argv[1]);
    lx_seq x = lx_items(lx, argv[0], "clojure.set/join", 1);
    lx_seq y = lx_items(lx, argv[1], "clojure.set/join", 2);
    qr_val r = qr_set_empty();
    for (size_t i = 0; i < x.n; i++) {
        if (x.items[i].t != QR_T_MAP)
            lx_type_error(lx, "clojure.set/join", 1, "a set of maps", x.items[i]);
        for (size_t j = 0; j < y.n; j++) {
            qr_val a = x.items[i], b = y.items[j], va, vb;
            if (b.t != QR_T_MAP)
                lx_type_error(lx, "clojure.set/join", 2, "a set of maps", b);
            bool match = true;
            if (argc == 3) {
                qr_val km = argv[2];
                if (km.t != QR_T_MAP)
                    lx_type_error(lx, "clojure.set/join", 3, "a map", km);
                for (size_t k = 0; k < km.c->len && match; k++) {
                    bool ha = qr_map_lookup(a, qr_map_key_at(km, k), &va);
                    bool hb = qr_map_lookup(b, qr_map_val_at(km, k), &vb);
                    match = ha == hb && (!ha || qr_equal(va, vb));
                }
            } else {
                for (size_t k = 0; k < a.c->len && match; k++)
                    if (qr_map_lookup(b, qr_map_key_at(a, k), &vb))
                        match = qr_equal(qr_map_val_at(a, k), vb);
            }
            if (match)
                r = qr_set_conj(lx->a, r, merge2(lx, a, b));
        }
        lx_tick_n(lx, y.n);
    }
    return r;
}

/* ---- more of Clojure's spellings ---- */

static qr_val bi_xf_num(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    if (!qr_is_number(argv[0]))
        lx_type_error(lx, "num", 1, "a number", argv[0]);
    return argv[0];
}

/* integers are the only rationals quarry has (no ratios) */
static qr_val bi_xf_rational_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    if (!qr_is_number(argv[0]))
        lx_type_error(lx, "rational?", 1, "a number", argv[0]);
    return qr_bool(argv[0].t == QR_T_INT);
}

static qr_val bi_xf_distinct_p(qr_lx *lx, int argc, const qr_val *argv)
{
    qr_val seen = qr_set_empty();
    for (int i = 0; i < argc; i++) {
        if (qr_map_find(seen, argv[i]) >= 0)
            return qr_bool(false);
        seen = qr_set_conj(lx->a, seen, argv[i]);
    }
    return qr_bool(true);
}

static qr_val bi_xf_associative_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)lx;
    (void)argc;
    return qr_bool(argv[0].t == QR_T_MAP || argv[0].t == QR_T_VEC);
}

static qr_val bi_xf_counted_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)lx;
    (void)argc;
    qr_type t = (qr_type)argv[0].t;
    return qr_bool(t == QR_T_MAP || t == QR_T_VEC || t == QR_T_LIST || t == QR_T_SET);
}

/* (trampoline f & args): calls f, then each function it returns, until a value that is
 * not a function */
static qr_val bi_xf_trampoline(qr_lx *lx, int argc, const qr_val *argv)
{
    seq_need_fn(lx, "trampoline", 1, argv[0]);
    qr_val r = lx_apply(lx, argv[0], argc - 1, argv + 1);
    while (r.t == QR_T_FN) {
        lx_tick(lx);
        r = lx_apply(lx, r, 0, argv);
    }
    return r;
}

static qr_val bi_xf_prn_str(qr_lx *lx, int argc, const qr_val *argv)
{
    qr_val s = lx_apply(lx, builtin_val("pr-str"), argc, argv);
    qr_val parts[2] = {s, lx_str(lx, "\n", 1)};
    return lx_apply(lx, builtin_val("str"), 2, parts);
}

/* the unchecked- operations wrap around on overflow, as Java's long arithmetic does */
static int64_t unchecked_arg(qr_lx *lx, const char *fname, int argn, qr_val v)
{
    if (v.t != QR_T_INT)
        lx_type_error(lx, fname, argn, "an integer", v);
    return v.i;
}

static qr_val bi_xf_unchecked_add(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    uint64_t a = (uint64_t)unchecked_arg(lx, "unchecked-add", 1, argv[0]);
    return qr_int((int64_t)(a + (uint64_t)unchecked_arg(lx, "unchecked-add", 2, argv[1])));
}

static qr_val bi_xf_unchecked_subtract(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    uint64_t a = (uint64_t)unchecked_arg(lx, "unchecked-subtract", 1, argv[0]);
    return qr_int((int64_t)(a - (uint64_t)unchecked_arg(lx, "unchecked-subtract", 2, argv[1])));
}

static qr_val bi_xf_unchecked_multiply(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    uint64_t a = (uint64_t)unchecked_arg(lx, "unchecked-multiply", 1, argv[0]);
    return qr_int((int64_t)(a * (uint64_t)unchecked_arg(lx, "unchecked-multiply", 2, argv[1])));
}

static qr_val bi_xf_unchecked_inc(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return qr_int((int64_t)((uint64_t)unchecked_arg(lx, "unchecked-inc", 1, argv[0]) + 1));
}

static qr_val bi_xf_unchecked_dec(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return qr_int((int64_t)((uint64_t)unchecked_arg(lx, "unchecked-dec", 1, argv[0]) - 1));
}

static qr_val bi_xf_unchecked_negate(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return qr_int((int64_t)(0 - (uint64_t)unchecked_arg(lx, "unchecked-negate", 1, argv[0])));
}

/* ---- internals of defonce, with-out-str and assert (expand.c) ---- */

static qr_val bi_xf_defined_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    if (argv[0].t != QR_T_SYM)
        return qr_bool(false);
    global *g = lx_global_find(lx->s, argv[0].sym);
    return qr_bool(g && g->bound);
}

static qr_val bi_xf_out_mark(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    (void)argv;
    return qr_int((int64_t)lx->out.len);
}

static qr_val bi_xf_out_take(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    size_t mark = (size_t)argv[0].i;
    if (argv[0].t != QR_T_INT || mark > lx->out.len)
        mark = lx->out.len;
    qr_val s = lx_str(lx, lx->out.p ? lx->out.p + mark : "", lx->out.len - mark);
    lx->out.len = mark;
    if (lx->out.p)
        lx->out.p[mark] = 0;
    return s;
}

const qr_builtin qr_lib_xf[] = {
    QR_BUILTIN_LAZY("transduce", bi_xf_transduce, 3, 4, "[xform f coll] or [xform f init coll]", "reduces coll with (xform f), then completes with its one-argument arity"),
    QR_BUILTIN_LAZY("eduction", bi_xf_eduction, 1, -1, "[xform* coll]", "the items of coll through the transducers, as a vector"),
    QR_BUILTIN("completing", bi_xf_completing, 1, 2, "[f] or [f cf]", "f with a completing arity (identity, or cf)"),
    QR_BUILTIN("cat", bi_xf_cat, 1, 1, "[rf]", "the transducer that concatenates the collections it receives"),
    QR_BUILTIN("sorted-map", bi_xf_sorted_map, 0, -1, "[& kvs]", "a map kept in key order"),
    QR_BUILTIN("sorted-set", bi_xf_sorted_set, 0, -1, "[& xs]", "a set kept in order"),
    QR_BUILTIN("sorted?", bi_xf_sorted_p, 1, 1, "[x]", "true for a sorted map or set"),
    QR_BUILTIN("subseq", bi_xf_subseq, 3, 5, "[sc test key] or [sc start-test start-key end-test end-key]", "the entries of a sorted collection whose keys pass the tests, in order"),
    QR_BUILTIN("rsubseq", bi_xf_rsubseq, 3, 5, "[sc test key] or [sc start-test start-key end-test end-key]", "subseq in reverse order"),
    QR_BUILTIN("memoize", bi_xf_memoize, 1, 1, "[f]", "f remembering its results by arguments (for the rest of the run)"),
    QR_BUILTIN("rand", bi_xf_rand, 0, 1, "[] or [n]", "a random double in [0, n) (n = 1) from the session's seeded generator"),
    QR_BUILTIN("rand-int", bi_xf_rand_int, 1, 1, "[n]", "a random integer in [0, n)"),
    QR_BUILTIN("rand-nth", bi_xf_rand_nth, 1, 1, "[coll]", "a random item of coll"),
    QR_BUILTIN("shuffle", bi_xf_shuffle, 1, 1, "[coll]", "the items of coll in a random order"),
    QR_BUILTIN("random-sample", bi_xf_random_sample, 2, 2, "[prob coll]", "each item kept with probability prob"),
    QR_BUILTIN("pcalls", bi_xf_pcalls, 0, -1, "[& fs]", "the results of calling each f (in order: the sandbox runs one thing at a time)"),
    QR_BUILTIN("combinations", bi_xf_combinations, 2, 2, "[coll k]", "the k-item combinations of coll, in order"),
    QR_BUILTIN("clojure.set/select", bi_xf_set_select, 2, 2, "[pred set]", "the items of set for which pred is true"),
    QR_BUILTIN("clojure.set/project", bi_xf_set_project, 2, 2, "[rel ks]", "each map of rel cut to the keys ks"),
    QR_BUILTIN("clojure.set/rename", bi_xf_set_rename, 2, 2, "[rel kmap]", "each map of rel with its keys renamed"),
    QR_BUILTIN("clojure.set/index", bi_xf_set_index, 2, 2, "[rel ks]", "the maps of rel grouped by their values of ks"),
    QR_BUILTIN("clojure.set/map-invert", bi_xf_map_invert, 1, 1, "[m]", "m with keys and values swapped"),
    QR_BUILTIN("clojure.set/join", bi_xf_set_join, 2, 3, "[xrel yrel] or [xrel yrel km]", "the natural join of two sets of maps"),
    QR_BUILTIN("num", bi_xf_num, 1, 1, "[x]", "x, which must be a number"),
    QR_BUILTIN("rational?", bi_xf_rational_p, 1, 1, "[x]", "true for an integer (there are no ratios)"),
    QR_BUILTIN("distinct?", bi_xf_distinct_p, 1, -1, "[x & more]", "true when no two arguments are equal"),
    QR_BUILTIN("associative?", bi_xf_associative_p, 1, 1, "[x]", "true for a map or vector"),
    QR_BUILTIN("counted?", bi_xf_counted_p, 1, 1, "[x]", "true for a collection"),
    QR_BUILTIN("trampoline", bi_xf_trampoline, 1, -1, "[f & args]", "calls f with args, then what it returns while that is a function"),
    QR_BUILTIN("prn-str", bi_xf_prn_str, 0, -1, "[& xs]", "pr-str followed by a newline"),
    QR_BUILTIN("unchecked-add", bi_xf_unchecked_add, 2, 2, "[x y]", "x + y, wrapping on overflow"),
    QR_BUILTIN("unchecked-subtract", bi_xf_unchecked_subtract, 2, 2, "[x y]", "x - y, wrapping on overflow"),
    QR_BUILTIN("unchecked-multiply", bi_xf_unchecked_multiply, 2, 2, "[x y]", "x * y, wrapping on overflow"),
    QR_BUILTIN("unchecked-inc", bi_xf_unchecked_inc, 1, 1, "[x]", "x + 1, wrapping on overflow"),
    QR_BUILTIN("unchecked-dec", bi_xf_unchecked_dec, 1, 1, "[x]", "x - 1, wrapping on overflow"),
    QR_BUILTIN("unchecked-negate", bi_xf_unchecked_negate, 1, 1, "[x]", "-x, wrapping on overflow"),
    QR_BUILTIN("--defined?", bi_xf_defined_p, 1, 1, "[sym]", "internal: defonce"),
    QR_BUILTIN("--out-mark", bi_xf_out_mark, 0, 0, "[]", "internal: with-out-str"),
    QR_BUILTIN("--out-take", bi_xf_out_take, 1, 1, "[mark]", "internal: with-out-str"),
    {.hdr = {.name = NULL}},
};
