/*
 * lib_compat.c: the Clojure and Java spellings models write out of habit, as builtins:
 * Java interop on numbers and strings (Integer/parseInt, Double/parseDouble, .indexOf,
 * .substring, .toUpperCase ...), clojure.walk's key and tree functions, the predicates and
 * bit operations of clojure.core the other libraries lack, and the extensions of the
 * PTC-Lisp specification (sum, avg, zip, entries, re-split, extract-int ...). Where a
 * spelling means what an existing builtin does, it forwards to it, so the two cannot
 * drift apart. The constants a program names as values (Math/PI, Double/NaN ...) are
 * resolved by the analyzer through lx_constant_find.
 *
 * Semantics follow Clojure and the JVM where they are defined: Integer/parseInt of text
 * that is not an integer is an error (Java throws), not nil as parse-long gives; string
 * methods index by character, as .substring does by UTF-16 unit (they agree on the text
 * models handle, and quarry has no UTF-16).
 *
 * Rejected: rewriting these forms in the reader (error messages would name forms the
 * program does not contain); a Java object model (only these static methods exist).
 */
#include "lisp_int.h"

#include <math.h>
#include <string.h>
#include <strings.h>

/* ---- forwarding: one spelling, one implementation ---- */

static qr_val fwd(qr_lx *lx, const char *name, int argc, const qr_val *argv)
{
    const qr_builtin *b = lx_builtin_find(name, strlen(name));
    return b->fn(lx, argc, argv);
}

#define FWD(cname, target)                                                                   \
    static qr_val cname(qr_lx *lx, int argc, const qr_val *argv)                             \
    {                                                                                        \
        return fwd(lx, target, argc, argv);                                                  \
    }

FWD(bi_compat_substring, "subs")
FWD(bi_compat_length, "count")
FWD(bi_compat_upper, "clojure.string/upper-case")
FWD(bi_compat_lower, "clojure.string/lower-case")
FWD(bi_compat_trim, "clojure.string/trim")
FWD(bi_compat_starts, "clojure.string/starts-with?")
FWD(bi_compat_ends, "clojure.string/ends-with?")
FWD(bi_compat_contains, "clojure.string/includes?")
FWD(bi_compat_replace, "clojure.string/replace")
FWD(bi_compat_max, "max")
FWD(bi_compat_min, "min")
FWD(bi_compat_map, "map")
FWD(bi_compat_round, "Math/round")
FWD(bi_compat_sqrt, "Math/sqrt")

/* (.split s regex): Java's String.split takes the regex as text */
static qr_val bi_compat_split(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    const qr_str *re = lx_arg_str(lx, ".split", 2, argv[1]);
    qr_val args[2] = {argv[0], qr_nil()};
    qr_val pat = lx_str(lx, re->data, re->len);
    args[1] = fwd(lx, "re-pattern", 1, &pat);
    return fwd(lx, "clojure.string/split", 2, args);
}

/* (re-split re s): the specification's argument order */
static qr_val bi_compat_re_split(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val args[2] = {argv[1], argv[0]};
    return fwd(lx, "clojure.string/split", 2, args);
}

/* ---- parsing, as Java does it: bad text is an error ---- */

static qr_val parse_strict(qr_lx *lx, const char *fname, const char *via, qr_val s)
{
    lx_arg_str(lx, fname, 1, s);
    qr_val v = fwd(lx, via, 1, &s);
    if (v.t == QR_T_NIL)
        lx_throw(lx, QR_LE_TYPE, "'%s': %s is not a number (NumberFormatException)", fname,
                 lx_pr_str(lx, s, QR_PRINT_READABLY).s->data);
    return v;
}

static qr_val bi_compat_parse_int(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return parse_strict(lx, "Integer/parseInt", "parse-long", argv[0]);
}

static qr_val bi_compat_parse_double(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return parse_strict(lx, "Double/parseDouble", "parse-double", argv[0]);
}

/* parse-boolean: "true" and "false" only, else nil (Clojure 1.11) */
static qr_val bi_compat_parse_boolean(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    const qr_str *s = lx_arg_str(lx, "parse-boolean", 1, argv[0]);
    if (s->len == 4 && !memcmp(s->data, "true", 4))
        return qr_bool(true);
    if (s->len == 5 && !memcmp(s->data, "false", 5))
        return qr_bool(false);
    return qr_nil();
}

/* Boolean/parseBoolean: true for "true" in any case, false for anything else */
static qr_val bi_compat_java_parse_boolean(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    (void)lx;
    const qr_val s = argv[0];
    return qr_bool(s.t == QR_T_STR && s.s->len == 4 && !strncasecmp(s.s->data, "true", 4));
}

/* ---- clojure.core predicates and bits ---- */

static qr_val bi_compat_boolean(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)lx, (void)argc;
    return qr_bool(qr_truthy(argv[0]));
}

static qr_val bi_compat_pos_int_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)lx, (void)argc;
    return qr_bool(argv[0].t == QR_T_INT && argv[0].i > 0);
}

static qr_val bi_compat_nat_int_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)lx, (void)argc;
    return qr_bool(argv[0].t == QR_T_INT && argv[0].i >= 0);
}

static qr_val bi_compat_neg_int_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)lx, (void)argc;
    return qr_bool(argv[0].t == QR_T_INT && argv[0].i < 0);
}

static qr_val bits(qr_lx *lx, const char *fname, int op, int argc, const qr_val *argv)
{
    int64_t acc = lx_arg_int(lx, fname, 0, argv[0]);
    for (int i = 1; i < argc; i++) {
        int64_t x = lx_arg_int(lx, fname, i, argv[i]);
        acc = op == 0 ? (acc & x) : op == 1 ? (acc | x) : (acc ^ x);
    }
    return qr_int(acc);
}

static qr_val bi_compat_bit_and(qr_lx *lx, int argc, const qr_val *argv)
{
    return bits(lx, "bit-and", 0, argc, argv);
}

static qr_val bi_compat_bit_or(qr_lx *lx, int argc, const qr_val *argv)
{
    return bits(lx, "bit-or", 1, argc, argv);
}

static qr_val bi_compat_bit_xor(qr_lx *lx, int argc, const qr_val *argv)
{
    return bits(lx, "bit-xor", 2, argc, argv);
}

/* (bit-and-not x y & more): x and the complement of each further argument */
static qr_val bi_compat_bit_and_not(qr_lx *lx, int argc, const qr_val *argv)
{
    int64_t acc = lx_arg_int(lx, "bit-and-not", 0, argv[0]);
    for (int i = 1; i < argc; i++)
        acc &= ~lx_arg_int(lx, "bit-and-not", i, argv[i]);
    return qr_int(acc);
}

/* The single-bit operations: n is a bit index from 0 to 63 (Clojure masks it to 6 bits;
 * the specification wants a non-negative integer, so a negative one is an error). */
static uint64_t bit_of(qr_lx *lx, const char *fname, qr_val n)
{
    int64_t k = lx_arg_int(lx, fname, 1, n);
    if (k < 0)
        lx_type_error(lx, fname, 2, "a bit index >= 0", n);
    return (uint64_t)1 << (k & 63);
}

static qr_val bi_compat_bit_set(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    uint64_t x = (uint64_t)lx_arg_int(lx, "bit-set", 0, argv[0]);
    return qr_int((int64_t)(x | bit_of(lx, "bit-set", argv[1])));
}

static qr_val bi_compat_bit_clear(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    uint64_t x = (uint64_t)lx_arg_int(lx, "bit-clear", 0, argv[0]);
    return qr_int((int64_t)(x & ~bit_of(lx, "bit-clear", argv[1])));
}

static qr_val bi_compat_bit_flip(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    uint64_t x = (uint64_t)lx_arg_int(lx, "bit-flip", 0, argv[0]);
    return qr_int((int64_t)(x ^ bit_of(lx, "bit-flip", argv[1])));
}

static qr_val bi_compat_bit_test(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    uint64_t x = (uint64_t)lx_arg_int(lx, "bit-test", 0, argv[0]);
    return qr_bool((x & bit_of(lx, "bit-test", argv[1])) != 0);
}

static qr_val bi_compat_bit_not(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return qr_int(~lx_arg_int(lx, "bit-not", 0, argv[0]));
}

static qr_val shift(qr_lx *lx, const char *fname, bool left, const qr_val *argv)
{
    int64_t x = lx_arg_int(lx, fname, 0, argv[0]), n = lx_arg_int(lx, fname, 1, argv[1]) & 63;
    return qr_int(left ? (int64_t)((uint64_t)x << n) : x >> n);
}

static qr_val bi_compat_shl(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return shift(lx, "bit-shift-left", true, argv);
}

static qr_val bi_compat_shr(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return shift(lx, "bit-shift-right", false, argv);
}

/* ---- the specification's extensions ---- */

static qr_val bi_compat_sum(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    lx_seq s = lx_items(lx, argv[0], "sum", 1);
    qr_val acc = qr_int(0);
    for (size_t i = 0; i < s.n; i++) {
        qr_val two[2] = {acc, s.items[i]};
        acc = fwd(lx, "+", 2, two);
    }
    return acc;
}

static qr_val bi_compat_avg(qr_lx *lx, int argc, const qr_val *argv)
{
    lx_seq s = lx_items(lx, argv[0], "avg", 1);
    if (s.n == 0)
        return qr_nil();
    qr_val total = bi_compat_sum(lx, argc, argv);
    return qr_double(qr_to_double(total) / (double)s.n);
}

/* (zip xs ys ...): vectors of the items at each position, as long as the shortest */
static qr_val bi_compat_zip(qr_lx *lx, int argc, const qr_val *argv)
{
    lx_seq s[8];
    size_t n = SIZE_MAX;
    for (int k = 0; k < argc; k++) {
        s[k] = lx_items(lx, argv[k], "zip", k + 1);
        if (s[k].n < n)
            n = s[k].n;
    }
    lx_tick_n(lx, n);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, n);
    for (size_t i = 0; i < n; i++) {
        qr_val row[8];
        for (int k = 0; k < argc; k++)
            row[k] = s[k].items[i];
        qr_vecb_push(&vb, qr_vec_from(lx->a, QR_T_VEC, row, (size_t)argc));
    }
    return qr_vecb_finish(&vb, QR_T_VEC);
}

/* (entries m): the [k v] pairs of a map, in its order */
static qr_val bi_compat_entries(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    if (argv[0].t != QR_T_MAP && argv[0].t != QR_T_NIL)
        lx_type_error(lx, "entries", 1, "a map", argv[0]);
    return fwd(lx, "vec", 1, argv);
}

/* (extract pattern s [group]): group (default 1) of the first match of pattern (a
 * regex, or a string read as one) in s; nil when nothing matches or the group took no
 * part. Group 0 is the whole match. */
static qr_val extract(qr_lx *lx, const char *fname, int argc, const qr_val *argv)
{
    qr_val re = argv[0];
    if (re.t == QR_T_STR)
        re = fwd(lx, "re-pattern", 1, &re);
    else if (re.t != QR_T_REGEX)
        lx_type_error(lx, fname, 1, "a regex or a pattern string", re);
    if (argv[1].t == QR_T_NIL)
        return qr_nil();
    lx_arg_str(lx, fname, 2, argv[1]);
    int64_t group = argc > 2 ? lx_arg_int(lx, fname, 2, argv[2]) : 1;
    if (group < 0)
        lx_type_error(lx, fname, 3, "a group number >= 0", argv[2]);
    qr_val args[2] = {re, argv[1]};
    qr_val m = fwd(lx, "re-find", 2, args);
    if (m.t == QR_T_STR) /* a pattern without groups */
        return group == 0 ? m : qr_nil();
    if (m.t != QR_T_VEC || (size_t)group >= qr_vec_len(m))
        return qr_nil();
    return qr_vec_at(m, (size_t)group);
}

static qr_val bi_compat_extract(qr_lx *lx, int argc, const qr_val *argv)
{
    return extract(lx, "extract", argc, argv);
}

/* (extract-int s): the first integer written in s, or nil. (extract-int pattern s [group
 * [default]]): the group, read as an integer, or default (nil) when there is none. */
static qr_val bi_compat_extract_int(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc > 1) {
        qr_val g = extract(lx, "extract-int", argc > 3 ? 3 : argc, argv);
        qr_val n = g.t == QR_T_STR ? fwd(lx, "parse-long", 1, &g) : qr_nil();
        return n.t == QR_T_NIL && argc > 3 ? argv[3] : n;
    }
    const qr_str *s = lx_arg_str(lx, "extract-int", 1, argv[0]);
    for (size_t i = 0; i < s->len; i++) {
        bool neg = s->data[i] == '-' && i + 1 < s->len && s->data[i + 1] >= '0' &&
                   s->data[i + 1] <= '9';
        if (!neg && !(s->data[i] >= '0' && s->data[i] <= '9'))
            continue;
        size_t j = i + neg;
        while (j < s->len && s->data[j] >= '0' && s->data[j] <= '9')
            j++;
        qr_val txt = lx_str(lx, s->data + i, j - i);
        return fwd(lx, "parse-long", 1, &txt);
    }
    return qr_nil();
}

/* ---- clojure.walk ---- */

static qr_val walk_keys(qr_lx *lx, qr_val v, bool to_kw, int depth)
{
    lx_tick_n(lx, 1);
    if (depth > 200)
        lx_throw(lx, QR_LE_DEPTH, "'clojure.walk': data nested more than 200 levels deep");
    if (v.t == QR_T_MAP) {
        qr_mapb mb;
        qr_mapb_init(&mb, lx->a, qr_map_len(v));
        for (size_t i = 0; i < qr_map_len(v); i++) {
            qr_val k = qr_map_key_at(v, i);
            if (to_kw && k.t == QR_T_STR)
                k = qr_kw(lx->a, k.s->data, k.s->len);
            else if (!to_kw && k.t == QR_T_KW)
                k = lx_str(lx, k.sym->text, k.sym->len);
            qr_mapb_put(&mb, k, walk_keys(lx, qr_map_val_at(v, i), to_kw, depth + 1));
        }
        return qr_mapb_finish(&mb, QR_T_MAP);
    }
    if (v.t == QR_T_VEC || v.t == QR_T_LIST) {
        size_t n = qr_vec_len(v);
        qr_vecb vb;
        qr_vecb_init(&vb, lx->a, n);
        for (size_t i = 0; i < n; i++)
            qr_vecb_push(&vb, walk_keys(lx, qr_vec_at(v, i), to_kw, depth + 1));
        return qr_vecb_finish(&vb, v.t);
    }
    return v;
}

static qr_val bi_compat_keywordize(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return walk_keys(lx, argv[0], true, 0);
}

static qr_val bi_compat_stringify(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return walk_keys(lx, argv[0], false, 0);
}

/* postwalk: f applied to every child first, then to the rebuilt parent; prewalk: to the
 * parent first, then into what f returned. */
static qr_val walk_tree(qr_lx *lx, qr_val f, qr_val v, bool post, int depth)
{
    if (depth > 200)
        lx_throw(lx, QR_LE_DEPTH, "'clojure.walk': data nested more than 200 levels deep");
    if (!post)
        v = lx_apply(lx, f, 1, &v);
    if (v.t == QR_T_MAP) {
        qr_mapb mb;
        qr_mapb_init(&mb, lx->a, qr_map_len(v));
        for (size_t i = 0; i < qr_map_len(v); i++) {
            qr_val pair[2] = {qr_map_key_at(v, i), qr_map_val_at(v, i)};
            qr_val e = walk_tree(lx, f, qr_vec_from(lx->a, QR_T_VEC, pair, 2), post, depth + 1);
            if ((e.t == QR_T_VEC || e.t == QR_T_LIST) && qr_vec_len(e) == 2)
                qr_mapb_put(&mb, qr_vec_at(e, 0), qr_vec_at(e, 1));
            else
                lx_type_error(lx, "clojure.walk", 1, "a [key value] pair for a map entry", e);
        }
        v = qr_mapb_finish(&mb, QR_T_MAP);
    } else if (v.t == QR_T_VEC || v.t == QR_T_LIST || v.t == QR_T_SET) {
        lx_seq s = lx_items(lx, v, "clojure.walk", 2);
        qr_vecb vb;
        qr_vecb_init(&vb, lx->a, s.n);
        for (size_t i = 0; i < s.n; i++)
            qr_vecb_push(&vb, walk_tree(lx, f, s.items[i], post, depth + 1));
        qr_val out = qr_vecb_finish(&vb, v.t == QR_T_LIST ? QR_T_LIST : QR_T_VEC);
        v = v.t == QR_T_SET ? fwd(lx, "set", 1, &out) : out;
    }
    return post ? lx_apply(lx, f, 1, &v) : v;
}

/* (walk inner outer form): inner applied to each item of form (each [key value] entry of
 * a map), the collection rebuilt as its own type, then outer applied to it; outer alone
 * to anything else. */
static qr_val bi_compat_walk(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val inner = argv[0], outer = argv[1], v = argv[2];
    if (v.t == QR_T_MAP) {
        qr_mapb mb;
        qr_mapb_init(&mb, lx->a, qr_map_len(v));
        for (size_t i = 0; i < qr_map_len(v); i++) {
            qr_val pair[2] = {qr_map_key_at(v, i), qr_map_val_at(v, i)};
            qr_val e = qr_vec_from(lx->a, QR_T_VEC, pair, 2);
            e = lx_apply(lx, inner, 1, &e);
            if ((e.t == QR_T_VEC || e.t == QR_T_LIST) && qr_vec_len(e) == 2)
                qr_mapb_put(&mb, qr_vec_at(e, 0), qr_vec_at(e, 1));
            else
                lx_type_error(lx, "walk", 1, "a [key value] pair for a map entry", e);
        }
        v = qr_mapb_finish(&mb, QR_T_MAP);
    } else if (v.t == QR_T_VEC || v.t == QR_T_LIST || v.t == QR_T_SET) {
        lx_seq s = lx_items(lx, v, "walk", 3);
        qr_vecb vb;
        qr_vecb_init(&vb, lx->a, s.n);
        for (size_t i = 0; i < s.n; i++)
            qr_vecb_push(&vb, lx_apply(lx, inner, 1, &s.items[i]));
        qr_val out = qr_vecb_finish(&vb, v.t == QR_T_LIST ? QR_T_LIST : QR_T_VEC);
        v = v.t == QR_T_SET ? fwd(lx, "set", 1, &out) : out;
    }
    return lx_apply(lx, outer, 1, &v);
}

static qr_val bi_compat_postwalk(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return walk_tree(lx, argv[0], argv[1], true, 0);
}

static qr_val bi_compat_prewalk(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return walk_tree(lx, argv[0], argv[1], false, 0);
}

/* ---- constants named as values ---- */

bool lx_constant_find(const char *name, size_t n, qr_val *out)
{
    static const struct {
        const char *name;
        double d;
        int64_t i;
        bool is_int;
    } K[] = {
        {"Math/PI", 3.14159265358979323846, 0, false},
        {"Math/E", 2.71828182845904523536, 0, false},
        {"Double/NaN", NAN, 0, false},
        {"Double/POSITIVE_INFINITY", INFINITY, 0, false},
        {"Double/NEGATIVE_INFINITY", -INFINITY, 0, false},
        {"Double/MAX_VALUE", 1.7976931348623157e308, 0, false},
        {"Double/MIN_VALUE", 4.9e-324, 0, false},
        {"Long/MAX_VALUE", 0, INT64_MAX, true},
        {"Long/MIN_VALUE", 0, INT64_MIN, true},
        {"Integer/MAX_VALUE", 0, 2147483647, true},
        {"Integer/MIN_VALUE", 0, -2147483647 - 1, true},
    };
    for (size_t k = 0; k < sizeof K / sizeof K[0]; k++)
        if (strlen(K[k].name) == n && !memcmp(K[k].name, name, n)) {
            *out = K[k].is_int ? qr_int(K[k].i) : qr_double(K[k].d);
            return true;
        }
    return false;
}

/* ---- characters (one-character strings here), rseq, printf ---- */

static qr_val bi_compat_char(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val x = argv[0];
    if (x.t == QR_T_STR && x.s->nchars == 1)
        return x;
    if (x.t != QR_T_INT || x.i < 0 || x.i > 0x10ffff || (x.i >= 0xd800 && x.i <= 0xdfff))
        lx_type_error(lx, "char", 1, "a Unicode code point (an integer) or a character", x);
    char buf[4];
    size_t n = qr_utf8_encode((uint32_t)x.i, buf);
    return qr_str_new(lx->a, buf, n);
}

static qr_val bi_compat_char_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)lx;
    (void)argc;
    return qr_bool(argv[0].t == QR_T_STR && argv[0].s->nchars == 1);
}

static qr_val bi_compat_rseq(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argv[0].t != QR_T_VEC)
        lx_type_error(lx, "rseq", 1, "a vector", argv[0]);
    if (argv[0].c->len == 0)
        return qr_nil();
    return fwd(lx, "reverse", argc, argv);
}

static qr_val bi_compat_printf(qr_lx *lx, int argc, const qr_val *argv)
{
    qr_val s = fwd(lx, "format", argc, argv);
    lx_write(lx, s.s->data, s.s->len);
    return qr_nil();
}

const qr_builtin qr_lib_compat[] = {
    QR_BUILTIN(".substring", bi_compat_substring, 2, 3, "[s start] or [s start end]", "the characters of s from start (to end)"),
    QR_BUILTIN(".length", bi_compat_length, 1, 1, "[s]", "the number of characters of s"),
    QR_BUILTIN(".toUpperCase", bi_compat_upper, 1, 1, "[s]", "s in upper case"),
    QR_BUILTIN(".toLowerCase", bi_compat_lower, 1, 1, "[s]", "s in lower case"),
    QR_BUILTIN(".trim", bi_compat_trim, 1, 1, "[s]", "s without surrounding whitespace"),
    QR_BUILTIN(".startsWith", bi_compat_starts, 2, 2, "[s prefix]", "true when s starts with prefix"),
    QR_BUILTIN(".endsWith", bi_compat_ends, 2, 2, "[s suffix]", "true when s ends with suffix"),
    QR_BUILTIN(".contains", bi_compat_contains, 2, 2, "[s substr]", "true when s contains substr"),
    QR_BUILTIN(".replace", bi_compat_replace, 3, 3, "[s target replacement]", "s with every target replaced"),
    QR_BUILTIN(".split", bi_compat_split, 2, 2, "[s regex-text]", "the parts of s between matches of the regex"),
    QR_BUILTIN("Integer/parseInt", bi_compat_parse_int, 1, 1, "[s]", "the integer in s; an error when s is not one"),
    QR_BUILTIN("Long/parseLong", bi_compat_parse_int, 1, 1, "[s]", "the integer in s; an error when s is not one"),
    QR_BUILTIN("Double/parseDouble", bi_compat_parse_double, 1, 1, "[s]", "the number in s; an error when s is not one"),
    QR_BUILTIN("Boolean/parseBoolean", bi_compat_java_parse_boolean, 1, 1, "[s]", "true for \"true\" in any case, else false"),
    QR_BUILTIN("parse-boolean", bi_compat_parse_boolean, 1, 1, "[s]", "true or false for \"true\" or \"false\", else nil"),
    QR_BUILTIN("Math/max", bi_compat_max, 2, 2, "[x y]", "the larger number"),
    QR_BUILTIN("Math/min", bi_compat_min, 2, 2, "[x y]", "the smaller number"),
    QR_BUILTIN("boolean", bi_compat_boolean, 1, 1, "[x]", "false for nil and false, else true"),
    QR_BUILTIN("pos-int?", bi_compat_pos_int_p, 1, 1, "[x]", "true for an integer > 0"),
    QR_BUILTIN("nat-int?", bi_compat_nat_int_p, 1, 1, "[x]", "true for an integer >= 0"),
    QR_BUILTIN("neg-int?", bi_compat_neg_int_p, 1, 1, "[x]", "true for an integer < 0"),
    QR_BUILTIN("char", bi_compat_char, 1, 1, "[n]", "the character (a one-character string) of code point n"),
    QR_BUILTIN("char?", bi_compat_char_p, 1, 1, "[x]", "true for a one-character string (characters are strings here)"),
    QR_BUILTIN("rseq", bi_compat_rseq, 1, 1, "[v]", "the items of vector v in reverse order, nil when empty"),
    QR_BUILTIN("printf", bi_compat_printf, 1, -1, "[fmt & args]", "writes (format fmt args) to the captured output"),
    QR_BUILTIN("bit-and", bi_compat_bit_and, 2, -1, "[x y & more]", "bitwise and"),
    QR_BUILTIN("bit-or", bi_compat_bit_or, 2, -1, "[x y & more]", "bitwise or"),
    QR_BUILTIN("bit-xor", bi_compat_bit_xor, 2, -1, "[x y & more]", "bitwise exclusive or"),
    QR_BUILTIN("bit-not", bi_compat_bit_not, 1, 1, "[x]", "bitwise complement"),
    QR_BUILTIN("bit-and-not", bi_compat_bit_and_not, 2, -1, "[x y & more]", "x and the complement of each further argument"),
    QR_BUILTIN("bit-set", bi_compat_bit_set, 2, 2, "[x n]", "x with bit n (from 0) set"),
    QR_BUILTIN("bit-clear", bi_compat_bit_clear, 2, 2, "[x n]", "x with bit n (from 0) cleared"),
    QR_BUILTIN("bit-flip", bi_compat_bit_flip, 2, 2, "[x n]", "x with bit n (from 0) flipped"),
    QR_BUILTIN("bit-test", bi_compat_bit_test, 2, 2, "[x n]", "true when bit n (from 0) of x is set"),
    QR_BUILTIN("bit-shift-left", bi_compat_shl, 2, 2, "[x n]", "x shifted left by n bits (64-bit, wrapping)"),
    QR_BUILTIN("bit-shift-right", bi_compat_shr, 2, 2, "[x n]", "x shifted right by n bits, sign kept"),
    QR_BUILTIN("pmap", bi_compat_map, 2, -1, "[f coll & colls]", "map (run in order: the sandbox has one thread)"),
    QR_BUILTIN("sum", bi_compat_sum, 1, 1, "[coll]", "the sum of the numbers of coll (0 when empty)"),
    QR_BUILTIN("avg", bi_compat_avg, 1, 1, "[coll]", "the mean of the numbers of coll, a double; nil when empty"),
    QR_BUILTIN("round", bi_compat_round, 1, 1, "[x]", "nearest integer (halves round up)"),
    QR_BUILTIN("sqrt", bi_compat_sqrt, 1, 1, "[x]", "square root"),
    QR_BUILTIN("zip", bi_compat_zip, 1, 8, "[xs ys & more]", "vectors of the items at each position, as long as the shortest"),
    QR_BUILTIN("entries", bi_compat_entries, 1, 1, "[m]", "the [key value] pairs of a map"),
    QR_BUILTIN("re-split", bi_compat_re_split, 2, 2, "[re s]", "the parts of s between matches of re"),
    QR_BUILTIN("extract", bi_compat_extract, 2, 3, "[pattern s] or [pattern s group]", "group 1 (or group; 0 is the whole match) of the first match of pattern (a regex or a string) in s, or nil"),
    QR_BUILTIN("extract-int", bi_compat_extract_int, 1, 4, "[s] or [pattern s] or [pattern s group] or [pattern s group default]", "the first integer written in s; with a pattern, its group (default 1) read as an integer, or default (nil)"),
    QR_BUILTIN("clojure.walk/keywordize-keys", bi_compat_keywordize, 1, 1, "[x]", "string keys of every map in x made keywords"),
    QR_BUILTIN("clojure.walk/stringify-keys", bi_compat_stringify, 1, 1, "[x]", "keyword keys of every map in x made strings"),
    QR_BUILTIN("walk", bi_compat_walk, 3, 3, "[inner outer form]", "inner applied to each item of form (kept its type), then outer to the result"),
    QR_BUILTIN("clojure.walk/walk", bi_compat_walk, 3, 3, "[inner outer form]", "inner applied to each item of form (kept its type), then outer to the result"),
    QR_BUILTIN("clojure.walk/postwalk", bi_compat_postwalk, 2, 2, "[f x]", "f applied to every node of x, children first"),
    QR_BUILTIN("clojure.walk/prewalk", bi_compat_prewalk, 2, 2, "[f x]", "f applied to every node of x, parents first"),
    {.hdr = {.name = NULL}},
};
