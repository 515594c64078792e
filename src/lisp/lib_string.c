/*
 * lib_string.c: strings. The clojure.string functions (join, split, split-lines, trim,
 * triml, trimr, trim-newline, upper-case, lower-case, capitalize, replace,
 * replace-first, re-quote-replacement, starts-with?, ends-with?, includes?, blank?,
 * index-of, last-index-of, reverse, escape), which str/NAME and string/NAME reach too,
 * and the bare subs, format, includes? and str-contains?.
 *
 * Strings are UTF-8 and every index counts code points (Clojure counts UTF-16 units; a
 * model means characters). Characters are one-character strings, so where Clojure takes
 * a char (escape's map keys, index-of) a one-character string goes. Otherwise the
 * behaviour is Clojure's, down to the corners models meet: split drops trailing empty
 * strings and follows Java's rules for empty matches, replace takes $1 and ${name} in a
 * regex replacement, whitespace is Java's Character.isWhitespace, and format rounds
 * half-up as Java does ((format "%.2f" 0.125) is "0.13").
 *
 * Results are built in the arena (sbuf), never in malloc'd buffers: a callback (replace
 * with a function, escape with a function) may unwind at any point.
 *
 * Case mapping is locale-independent (C's towupper depends on setlocale, which a library
 * must not call) and covers ASCII, Latin-1, Latin Extended-A and Additional, the regular
 * parts of Extended-B, Greek, Cyrillic, Armenian and fullwidth Latin, with Java's special
 * cases ß -> SS, İ -> i̇ and a final Σ -> ς.
 */
#include "regex_match.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building strings in the arena ---- */

typedef struct sbuf {
    qr_lx *lx;
    qr_str *s; /* data has room for cap bytes and a NUL */
    size_t len, cap;
} sbuf;

static _Noreturn void too_big(qr_lx *lx)
{
    lx_throw(lx, QR_LE_MEMORY, "memory limit of %zu bytes reached (string too long)",
             lx->s->limits.max_memory);
}

static void sb_init(sbuf *b, qr_lx *lx, size_t hint)
{
    if (hint > lx->s->limits.max_memory || hint > UINT32_MAX - 1)
        too_big(lx);
    b->lx = lx;
    b->len = 0;
    b->cap = hint < 16 ? 16 : hint;
    b->s = qr_arena_alloc(lx->a, sizeof(qr_str) + b->cap + 1);
    if (!b->s)
        too_big(lx);
}

static void sb_reserve(sbuf *b, size_t n)
{
    if (n <= b->cap - b->len)
        return;
    qr_lx *lx = b->lx;
    size_t want = b->len + n;
    if (want < b->len || want > lx->s->limits.max_memory || want > UINT32_MAX - 1)
        too_big(lx);
    size_t ncap = b->cap * 2;
    if (ncap < want)
        ncap = want;
    if (ncap > UINT32_MAX - 1)
        ncap = want;
    qr_str *ns = qr_arena_realloc(lx->a, b->s, sizeof(qr_str) + b->cap + 1,
                                  sizeof(qr_str) + ncap + 1);
    if (!ns)
        too_big(lx);
    b->s = ns;
    b->cap = ncap;
}

static void sb_add(sbuf *b, const char *p, size_t n)
{
    if (n == 0)
        return;
    sb_reserve(b, n);
    memcpy(b->s->data + b->len, p, n);
    b->len += n;
}

static void sb_addc(sbuf *b, char c)
{
    sb_reserve(b, 1);
    b->s->data[b->len++] = c;
}

static void sb_add_cp(sbuf *b, uint32_t cp)
{
    char t[4];
    sb_add(b, t, qr_utf8_encode(cp, t));
}

static void sb_fill(sbuf *b, char c, size_t n)
{
    sb_reserve(b, n);
    memset(b->s->data + b->len, c, n);
    b->len += n;
}

static qr_val sb_finish(sbuf *b)
{
    b->s->len = (uint32_t)b->len;
    b->s->hash = 0;
    return qr_str_seal(b->s);
}

/* Appends x as str prints it: strings raw, nil as nothing, anything else readably. */
static void sb_add_str_of(sbuf *b, qr_val x, const char *fname)
{
    if (x.t == QR_T_STR) {
        sb_add(b, x.s->data, x.s->len);
    } else if (lx_unbounded(x)) {
        lx_throw(b->lx, QR_LE_TYPE, "'%s' cannot print an unbounded sequence", fname);
    } else if (x.t != QR_T_NIL) {
        qr_val p = lx_pr_str(b->lx, x, QR_PRINT_READABLY);
        sb_add(b, p.s->data, p.s->len);
    }
}

static qr_val substr(qr_lx *lx, qr_val whole, size_t from, size_t to)
{
    if (from == 0 && to == whole.s->len)
        return whole;
    return qr_str_new(lx->a, whole.s->data + from, to - from);
}

/* ---- code points ---- */

static size_t cp_at(const char *s, size_t n, size_t i, uint32_t *cp)
{
    unsigned char c = (unsigned char)s[i];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    return qr_utf8_decode(s + i, n - i, cp);
}

/* Start of the code point that ends at i (i > 0); a stray byte stands alone. */
static size_t cp_before(const char *s, size_t i)
{
    size_t j = i - 1;
    int k = 0;
    while (j > 0 && k < 3 && ((unsigned char)s[j] & 0xc0) == 0x80) {
        j--;
        k++;
    }
    uint32_t cp;
    return qr_utf8_decode(s + j, i - j, &cp) == i - j ? j : i - 1;
}

/* Java's Character.isWhitespace */
static bool is_ws(uint32_t c)
{
    if (c <= 0x20)
        return c == ' ' || (c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x1f);
    return c == 0x1680 || (c >= 0x2000 && c <= 0x2006) || (c >= 0x2008 && c <= 0x200a) ||
           c == 0x2028 || c == 0x2029 || c == 0x205f || c == 0x3000;
}

static size_t ws_lead(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        size_t k = cp_at(s, n, i, &cp);
        if (!is_ws(cp))
            break;
        i += k;
    }
    return i;
}

static size_t ws_trail(const char *s, size_t lo, size_t n)
{
    size_t i = n;
    while (i > lo) {
        size_t j = cp_before(s, i);
        uint32_t cp;
        cp_at(s, i, j, &cp);
        if (!is_ws(cp))
            break;
        i = j;
    }
    return i;
}

/* ---- case mapping ---- */

typedef struct case_range {
    uint32_t lo, hi;
    int32_t delta;
    bool alternate; /* only lo, lo + 2, lo + 4, ... map */
} case_range;

static const case_range to_lower_tab[] = {
    {0x41, 0x5a, 32, false},      {0xc0, 0xd6, 32, false},      {0xd8, 0xde, 32, false},
    {0x100, 0x12e, 1, true},      {0x132, 0x136, 1, true},      {0x139, 0x147, 1, true},
    {0x14a, 0x176, 1, true},      {0x178, 0x178, -121, false},  {0x179, 0x17d, 1, true},
    {0x1c4, 0x1c4, 2, false},     {0x1c5, 0x1c5, 1, false},     {0x1c7, 0x1c7, 2, false},
    {0x1c8, 0x1c8, 1, false},     {0x1ca, 0x1ca, 2, false},     {0x1cb, 0x1db, 1, true},
    {0x1de, 0x1ee, 1, true},      {0x1f1, 0x1f1, 2, false},     {0x1f2, 0x1f2, 1, false},
    {0x1f4, 0x1f4, 1, false},     {0x1f8, 0x21e, 1, true},      {0x222, 0x232, 1, true},
    {0x246, 0x24e, 1, true},      {0x386, 0x386, 38, false},    {0x388, 0x38a, 37, false},
    {0x38c, 0x38c, 64, false},    {0x38e, 0x38f, 63, false},    {0x391, 0x3a1, 32, false},
    {0x3a3, 0x3ab, 32, false},    {0x3d8, 0x3ee, 1, true},      {0x400, 0x40f, 80, false},
    {0x410, 0x42f, 32, false},    {0x460, 0x480, 1, true},      {0x48a, 0x4be, 1, true},
    {0x4c0, 0x4c0, 15, false},    {0x4c1, 0x4cd, 1, true},      {0x4d0, 0x52e, 1, true},
    {0x531, 0x556, 48, false},    {0x1e00, 0x1e94, 1, true},    {0x1e9e, 0x1e9e, -7615, false},
    {0x1ea0, 0x1efe, 1, true},    {0x2160, 0x216f, 16, false},  {0x24b6, 0x24cf, 26, false},
    {0xff21, 0xff3a, 32, false},
};

static const case_range to_upper_tab[] = {
    {0x61, 0x7a, -32, false},     {0xb5, 0xb5, 743, false},     {0xe0, 0xf6, -32, false},
    {0xf8, 0xfe, -32, false},     {0xff, 0xff, 121, false},     {0x101, 0x12f, -1, true},
    {0x131, 0x131, -232, false},  {0x133, 0x137, -1, true},     {0x13a, 0x148, -1, true},
    {0x14b, 0x177, -1, true},     {0x17a, 0x17e, -1, true},     {0x17f, 0x17f, -300, false},
    {0x1c5, 0x1c5, -1, false},    {0x1c6, 0x1c6, -2, false},    {0x1c8, 0x1c8, -1, false},
    {0x1c9, 0x1c9, -2, false},    {0x1cb, 0x1cb, -1, false},    {0x1cc, 0x1cc, -2, false},
    {0x1ce, 0x1dc, -1, true},     {0x1df, 0x1ef, -1, true},     {0x1f2, 0x1f2, -1, false},
    {0x1f3, 0x1f3, -2, false},    {0x1f5, 0x1f5, -1, false},    {0x1f9, 0x21f, -1, true},
    {0x223, 0x233, -1, true},     {0x247, 0x24f, -1, true},     {0x3ac, 0x3ac, -38, false},
    {0x3ad, 0x3af, -37, false},   {0x3b1, 0x3c1, -32, false},   {0x3c2, 0x3c2, -31, false},
    {0x3c3, 0x3cb, -32, false},   {0x3cc, 0x3cc, -64, false},   {0x3cd, 0x3ce, -63, false},
    {0x3d9, 0x3ef, -1, true},     {0x430, 0x44f, -32, false},   {0x450, 0x45f, -80, false},
    {0x461, 0x481, -1, true},     {0x48b, 0x4bf, -1, true},     {0x4c2, 0x4ce, -1, true},
    {0x4cf, 0x4cf, -15, false},   {0x4d1, 0x52f, -1, true},     {0x561, 0x586, -48, false},
    {0x1e01, 0x1e95, -1, true},   {0x1ea1, 0x1eff, -1, true},   {0x2170, 0x217f, -16, false},
    {0x24d0, 0x24e9, -26, false}, {0xff41, 0xff5a, -32, false},
};

static uint32_t map_case(const case_range *tab, size_t n, uint32_t c)
{
    for (size_t i = 0; i < n; i++) {
        if (c < tab[i].lo || c > tab[i].hi)
            continue;
        if (tab[i].alternate && (c - tab[i].lo) % 2)
            return c;
        return (uint32_t)((int32_t)c + tab[i].delta);
    }
    return c;
}

static uint32_t cp_lower(uint32_t c)
{
    if (c < 0x80)
        return c >= 'A' && c <= 'Z' ? c + 32 : c;
    return map_case(to_lower_tab, sizeof to_lower_tab / sizeof to_lower_tab[0], c);
}

static uint32_t cp_upper(uint32_t c)
{
    if (c < 0x80)
        return c >= 'a' && c <= 'z' ? c - 32 : c;
    return map_case(to_upper_tab, sizeof to_upper_tab / sizeof to_upper_tab[0], c);
}

static bool is_cased(uint32_t c)
{
    return cp_lower(c) != c || cp_upper(c) != c || c == 0xdf || c == 0x130;
}

/* Appends s[0..n) upper- or lower-cased. */
static void sb_add_case(sbuf *b, const char *s, size_t n, bool upper)
{
    sb_reserve(b, n);
    bool prev_cased = false;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            sb_addc(b, (char)(upper ? cp_upper(c) : cp_lower(c)));
            prev_cased = (c | 32) >= 'a' && (c | 32) <= 'z';
            i++;
            continue;
        }
        uint32_t cp;
        size_t k = qr_utf8_decode(s + i, n - i, &cp);
        if (upper && cp == 0xdf) {
            sb_add(b, "SS", 2);
        } else if (!upper && cp == 0x130) {
            sb_add(b, "i\xcc\x87", 3);
        } else if (!upper && cp == 0x3a3) {
            /* final sigma: after a cased letter and not before one */
            uint32_t next = 0;
            if (i + k < n)
                cp_at(s, n, i + k, &next);
            sb_add_cp(b, prev_cased && !(i + k < n && is_cased(next)) ? 0x3c2 : 0x3c3);
        } else {
            uint32_t m = upper ? cp_upper(cp) : cp_lower(cp);
            if (m == cp)
                sb_add(b, s + i, k); /* also keeps invalid bytes as they are */
            else
                sb_add_cp(b, m);
        }
        prev_cased = is_cased(cp);
        i += k;
    }
}

static qr_val change_case(qr_lx *lx, qr_val sv, bool upper)
{
    const qr_str *s = sv.s;
    size_t i = 0;
    /* nothing to change: return s itself */
    while (i < s->len && (unsigned char)s->data[i] < 0x80 &&
           (upper ? !(s->data[i] >= 'a' && s->data[i] <= 'z')
                  : !(s->data[i] >= 'A' && s->data[i] <= 'Z')))
        i++;
    if (i == s->len)
        return sv;
    sbuf b;
    sb_init(&b, lx, s->len + 8);
    sb_add(&b, s->data, i);
    sb_add_case(&b, s->data + i, s->len - i, upper);
    lx_tick_n(lx, s->len);
    return sb_finish(&b);
}

/* ---- substring search ---- */

/* A literal to search for: naive for short needles, KMP (linear) for long ones. */
typedef struct needle {
    const char *p;
    size_t n;
    uint32_t *fail; /* KMP failure table, or NULL */
} needle;

#define NAIVE_MAX 16

static void needle_init(qr_lx *lx, needle *nd, const char *p, size_t n)
{
    nd->p = p;
    nd->n = n;
    nd->fail = NULL;
    if (n <= NAIVE_MAX)
        return;
    uint32_t *f = qr_arena_alloc(lx->a, sizeof(uint32_t) * n);
    f[0] = 0;
    for (size_t i = 1; i < n; i++) {
        uint32_t k = f[i - 1];
        while (k > 0 && p[i] != p[k])
            k = f[k - 1];
        if (p[i] == p[k])
            k++;
        f[i] = k;
    }
    nd->fail = f;
}

/* First occurrence at or after byte `from`. */
static bool needle_find(const needle *nd, const char *s, size_t n, size_t from, size_t *at)
{
    size_t m = nd->n;
    if (from > n || m > n - from)
        return false;
    if (m == 0) {
        *at = from;
        return true;
    }
    if (!nd->fail) {
        const char *p = s + from, *end = s + n - m + 1;
        while (p < end) {
            const char *q = memchr(p, nd->p[0], (size_t)(end - p));
            if (!q)
                return false;
            if (memcmp(q, nd->p, m) == 0) {
                *at = (size_t)(q - s);
                return true;
            }
            p = q + 1;
        }
        return false;
    }
    size_t k = 0;
    for (size_t i = from; i < n; i++) {
        while (k > 0 && s[i] != nd->p[k])
            k = nd->fail[k - 1];
        if (s[i] == nd->p[k])
            k++;
        if (k == m) {
            *at = i + 1 - m;
            return true;
        }
    }
    return false;
}

/* Last occurrence starting at or before byte `limit`. */
static bool needle_find_last(const needle *nd, const char *s, size_t n, size_t limit,
                             size_t *at)
{
    size_t m = nd->n;
    if (m > n)
        return false;
    if (limit > n - m)
        limit = n - m;
    if (!nd->fail) {
        for (size_t i = limit + 1; i-- > 0;)
            if (memcmp(s + i, nd->p, m) == 0) {
                *at = i;
                return true;
            }
        return false;
    }
    bool found = false;
    size_t k = 0;
    for (size_t i = 0; i < n && i < limit + m; i++) {
        while (k > 0 && s[i] != nd->p[k])
            k = nd->fail[k - 1];
        if (s[i] == nd->p[k])
            k++;
        if (k == m) {
            *at = i + 1 - m;
            found = true;
            k = nd->fail[m - 1];
        }
    }
    return found;
}

/* Successive matches of a regex or a literal, advancing as Java's Matcher.find does. */
typedef struct finder {
    bool is_re;
    lx_rx rx;
    needle lit;
    size_t ms, me; /* the last match */
} finder;

static void finder_init(qr_lx *lx, finder *f, qr_val pat)
{
    f->is_re = pat.t == QR_T_REGEX;
    if (f->is_re)
        lx_rx_init(lx, &f->rx, pat.re);
    else
        needle_init(lx, &f->lit, pat.s->data, pat.s->len);
    f->ms = f->me = 0;
}

static bool finder_next(finder *f, const char *s, size_t n, size_t from)
{
    if (f->is_re) {
        if (!lx_rx_exec(&f->rx, s, n, from, false))
            return false;
        f->ms = f->rx.ov[0];
        f->me = f->rx.ov[1];
        return true;
    }
    size_t at;
    if (!needle_find(&f->lit, s, n, from, &at))
        return false;
    f->ms = at;
    f->me = at + f->lit.n;
    return true;
}

/* Where the next search starts; n + 1 when there is nothing left. */
static size_t finder_after(const finder *f, const char *s, size_t n)
{
    if (f->me > f->ms)
        return f->me;
    if (f->me >= n)
        return n + 1;
    uint32_t cp;
    return f->me + cp_at(s, n, f->me, &cp);
}

/* ---- argument helpers ---- */

static const qr_str *arg_s(qr_lx *lx, const char *fname, int argn, qr_val v)
{
    return lx_arg_str(lx, fname, argn, v);
}

static void need_pattern(qr_lx *lx, const char *fname, int argn, qr_val v)
{
    if (v.t != QR_T_STR && v.t != QR_T_REGEX)
        lx_type_error(lx, fname, argn, "a string or a regex", v);
}

/* ---- join, split ---- */

static qr_val bi_string_join(qr_lx *lx, int argc, const qr_val *argv)
{
    static const char fname[] = "clojure.string/join";
    lx_seq items = lx_items(lx, argv[argc - 1], fname, argc);
    qr_val sepv = argc == 2 ? argv[0] : qr_nil();
    if (items.n == 1 && items.items[0].t == QR_T_STR)
        return items.items[0];
    sbuf sep;
    sb_init(&sep, lx, 16);
    sb_add_str_of(&sep, sepv, fname);
    sbuf b;
    sb_init(&b, lx, 64);
    for (size_t i = 0; i < items.n; i++) {
        if (i)
            sb_add(&b, sep.s->data, sep.len);
        sb_add_str_of(&b, items.items[i], fname);
    }
    lx_tick_n(lx, items.n + b.len);
    return sb_finish(&b);
}

/* Java's Pattern.split: limit > 0 keeps at most limit parts (the last holds the rest),
 * 0 drops trailing empty strings, < 0 keeps everything. A zero-width match at the very
 * start does not make an empty first part. */
static qr_val split_impl(qr_lx *lx, qr_val sv, finder *f, int64_t limit)
{
    const char *s = sv.s->data;
    size_t n = sv.s->len;
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, 8);
    size_t index = 0, count = 0;
    for (size_t pos = 0; pos <= n && finder_next(f, s, n, pos); pos = finder_after(f, s, n)) {
        lx_tick(lx);
        if (limit <= 0 || count + 1 < (uint64_t)limit) {
            if (index == 0 && f->ms == 0 && f->me == 0)
                continue;
            qr_vecb_push(&vb, substr(lx, sv, index, f->ms));
            index = f->me;
            count++;
        } else {
            qr_vecb_push(&vb, substr(lx, sv, index, n));
            index = f->me;
            count++;
            break;
        }
    }
    if (index == 0) {
        qr_val one[1] = {sv};
        return qr_vec_from(lx->a, QR_T_VEC, one, 1);
    }
    if (limit <= 0 || count < (uint64_t)limit) {
        qr_vecb_push(&vb, substr(lx, sv, index, n));
        count++;
    }
    qr_val r = qr_vecb_finish(&vb, QR_T_VEC);
    if (limit == 0) {
        size_t keep = count;
        while (keep > 0 && qr_vec_at(r, keep - 1).s->len == 0)
            keep--;
        if (keep < count)
            r = qr_vec_slice(lx->a, r, 0, keep);
    }
    return r;
}

static qr_val bi_string_split(qr_lx *lx, int argc, const qr_val *argv)
{
    static const char fname[] = "clojure.string/split";
    arg_s(lx, fname, 1, argv[0]);
    need_pattern(lx, fname, 2, argv[1]);
    int64_t limit = argc == 3 ? lx_arg_int(lx, fname, 3, argv[2]) : 0;
    finder f;
    finder_init(lx, &f, argv[1]);
    return split_impl(lx, argv[0], &f, limit);
}

static qr_val bi_string_split_lines(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val sv = argv[0];
    const qr_str *s = arg_s(lx, "clojure.string/split-lines", 1, sv);
    qr_vecb vb;
    qr_vecb_init(&vb, lx->a, 8);
    size_t start = 0, count = 0, nonempty_end = 0;
    bool any = false;
    for (size_t i = 0; i < s->len; i++) {
        if (s->data[i] != '\n')
            continue;
        size_t end = i > start && s->data[i - 1] == '\r' ? i - 1 : i;
        qr_vecb_push(&vb, substr(lx, sv, start, end));
        count++;
        if (end > start)
            nonempty_end = count;
        start = i + 1;
        any = true;
    }
    if (!any) {
        qr_val one[1] = {sv};
        return qr_vec_from(lx->a, QR_T_VEC, one, 1);
    }
    qr_vecb_push(&vb, substr(lx, sv, start, s->len));
    count++;
    if (start < s->len)
        nonempty_end = count;
    lx_tick_n(lx, s->len);
    qr_val r = qr_vecb_finish(&vb, QR_T_VEC);
    return nonempty_end < count ? qr_vec_slice(lx->a, r, 0, nonempty_end) : r;
}

/* ---- trimming ---- */

static qr_val trim_impl(qr_lx *lx, qr_val sv, const char *fname, bool left, bool right)
{
    const qr_str *s = arg_s(lx, fname, 1, sv);
    size_t a = left ? ws_lead(s->data, s->len) : 0;
    size_t b = right ? ws_trail(s->data, a, s->len) : s->len;
    return substr(lx, sv, a, b);
}

static qr_val bi_string_trim(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return trim_impl(lx, argv[0], "clojure.string/trim", true, true);
}

static qr_val bi_string_triml(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return trim_impl(lx, argv[0], "clojure.string/triml", true, false);
}

static qr_val bi_string_trimr(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return trim_impl(lx, argv[0], "clojure.string/trimr", false, true);
}

static qr_val bi_string_trim_newline(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    const qr_str *s = arg_s(lx, "clojure.string/trim-newline", 1, argv[0]);
    size_t n = s->len;
    while (n > 0 && (s->data[n - 1] == '\n' || s->data[n - 1] == '\r'))
        n--;
    return substr(lx, argv[0], 0, n);
}

static qr_val bi_string_blank_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    if (argv[0].t == QR_T_NIL)
        return qr_bool(true);
    const qr_str *s = arg_s(lx, "clojure.string/blank?", 1, argv[0]);
    return qr_bool(ws_lead(s->data, s->len) == s->len);
}

/* ---- case ---- */

static qr_val bi_string_upper_case(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    arg_s(lx, "clojure.string/upper-case", 1, argv[0]);
    return change_case(lx, argv[0], true);
}

static qr_val bi_string_lower_case(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    arg_s(lx, "clojure.string/lower-case", 1, argv[0]);
    return change_case(lx, argv[0], false);
}

static qr_val bi_string_capitalize(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    const qr_str *s = arg_s(lx, "clojure.string/capitalize", 1, argv[0]);
    if (s->nchars < 2)
        return change_case(lx, argv[0], true);
    uint32_t cp;
    size_t k = cp_at(s->data, s->len, 0, &cp);
    sbuf b;
    sb_init(&b, lx, s->len + 8);
    sb_add_case(&b, s->data, k, true);
    sb_add_case(&b, s->data + k, s->len - k, false);
    lx_tick_n(lx, s->len);
    return sb_finish(&b);
}

/* ---- replace ---- */

/* Appends the replacement for the current regex match, reading $n, ${name} and \x as
 * Java's Matcher.appendReplacement does. */
static void add_replacement(sbuf *b, const lx_rx *m, const char *subj, const qr_str *rep,
                            const char *fname)
{
    qr_lx *lx = b->lx;
    const char *r = rep->data;
    size_t n = rep->len;
    for (size_t i = 0; i < n;) {
        char c = r[i];
        if (c == '\\') {
            if (++i == n)
                lx_throw(lx, QR_LE_TYPE,
                         "'%s': the replacement ends with a lone \\ (write \\\\ for a backslash)",
                         fname);
            uint32_t cp;
            size_t k = cp_at(r, n, i, &cp);
            sb_add(b, r + i, k);
            i += k;
            continue;
        }
        if (c != '$') {
            const char *q = memchr(r + i, '$', n - i);
            const char *bs = memchr(r + i, '\\', n - i);
            size_t stop = n;
            if (q && (size_t)(q - r) < stop)
                stop = (size_t)(q - r);
            if (bs && (size_t)(bs - r) < stop)
                stop = (size_t)(bs - r);
            sb_add(b, r + i, stop - i);
            i = stop;
            continue;
        }
        if (++i == n)
            lx_throw(lx, QR_LE_TYPE,
                     "'%s': the replacement ends with a lone $ (write \\$ for a dollar sign)",
                     fname);
        long g;
        if (r[i] == '{') {
            size_t j = ++i;
            while (j < n && ((r[j] >= 'a' && r[j] <= 'z') || (r[j] >= 'A' && r[j] <= 'Z') ||
                             (r[j] >= '0' && r[j] <= '9')))
                j++;
            if (j == i || j == n || r[j] != '}')
                lx_throw(lx, QR_LE_TYPE, "'%s': bad group reference ${...} in the replacement",
                         fname);
            g = lx_rx_group_number(m, r + i, j - i);
            if (g < 0)
                lx_throw(lx, QR_LE_INDEX, "'%s': the regex has no group named %.*s", fname,
                         (int)(j - i), r + i);
            i = j + 1;
        } else {
            if (r[i] < '0' || r[i] > '9')
                lx_throw(lx, QR_LE_TYPE,
                         "'%s': $ in the replacement must be followed by a group number or "
                         "{name} (write \\$ for a dollar sign)",
                         fname);
            g = r[i++] - '0';
            /* more digits while they still name a group */
            while (i < n && r[i] >= '0' && r[i] <= '9' &&
                   g * 10 + (r[i] - '0') <= (long)m->ngroups) {
                g = g * 10 + (r[i] - '0');
                i++;
            }
            if (g > (long)m->ngroups)
                lx_throw(lx, QR_LE_INDEX, "'%s': the replacement refers to group %ld, but the "
                                          "regex has %u group%s",
                         fname, g, m->ngroups, m->ngroups == 1 ? "" : "s");
        }
        size_t a = m->ov[2 * g], e = m->ov[2 * g + 1];
        if (a != LX_RX_UNSET)
            sb_add(b, subj + a, e - a);
    }
}

static qr_val replace_impl(qr_lx *lx, int argc, const qr_val *argv, bool all,
                           const char *fname)
{
    (void)argc;
    qr_val sv = argv[0], match = argv[1], rep = argv[2];
    const qr_str *s = arg_s(lx, fname, 1, sv);
    need_pattern(lx, fname, 2, match);
    bool use_fn = false;
    if (match.t == QR_T_STR) {
        if (rep.t != QR_T_STR)
            lx_type_error(lx, fname, 3, "a string (the match is a string)", rep);
    } else if (rep.t != QR_T_STR) {
        if (!lx_is_callable(rep))
            lx_type_error(lx, fname, 3, "a string or a function of the match", rep);
        use_fn = true;
    }
    finder f;
    finder_init(lx, &f, match);
    sbuf b = {0};
    bool started = false;
    size_t last = 0, steps = 0;
    for (size_t pos = 0; pos <= s->len && finder_next(&f, s->data, s->len, pos);
         pos = finder_after(&f, s->data, s->len)) {
        if (!started) {
            sb_init(&b, lx, s->len + 16);
            started = true;
        }
        sb_add(&b, s->data + last, f.ms - last);
        if (!f.is_re) {
            sb_add(&b, rep.s->data, rep.s->len);
        } else if (use_fn) {
            qr_val r = lx_call1(lx, rep, lx_rx_groups(&f.rx, s->data));
            sb_add_str_of(&b, r, fname);
        } else {
            add_replacement(&b, &f.rx, s->data, rep.s, fname);
        }
        last = f.me;
        if ((++steps & 63) == 0)
            lx_tick_n(lx, 64 * 16);
        if (!all)
            break;
    }
    if (!started)
        return sv;
    sb_add(&b, s->data + last, s->len - last);
    lx_tick_n(lx, s->len);
    return sb_finish(&b);
}

static qr_val bi_string_replace(qr_lx *lx, int argc, const qr_val *argv)
{
    return replace_impl(lx, argc, argv, true, "clojure.string/replace");
}

static qr_val bi_string_replace_first(qr_lx *lx, int argc, const qr_val *argv)
{
    return replace_impl(lx, argc, argv, false, "clojure.string/replace-first");
}

static qr_val bi_string_re_quote_replacement(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    const qr_str *s = arg_s(lx, "clojure.string/re-quote-replacement", 1, argv[0]);
    if (!memchr(s->data, '\\', s->len) && !memchr(s->data, '$', s->len))
        return argv[0];
    sbuf b;
    sb_init(&b, lx, s->len + 8);
    for (size_t i = 0; i < s->len; i++) {
        if (s->data[i] == '\\' || s->data[i] == '$')
            sb_addc(&b, '\\');
        sb_addc(&b, s->data[i]);
    }
    return sb_finish(&b);
}

/* ---- predicates and search ---- */

static qr_val bi_string_starts_with_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    const qr_str *s = arg_s(lx, "clojure.string/starts-with?", 1, argv[0]);
    const qr_str *p = arg_s(lx, "clojure.string/starts-with?", 2, argv[1]);
    return qr_bool(p->len <= s->len && memcmp(s->data, p->data, p->len) == 0);
}

static qr_val bi_string_ends_with_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    const qr_str *s = arg_s(lx, "clojure.string/ends-with?", 1, argv[0]);
    const qr_str *p = arg_s(lx, "clojure.string/ends-with?", 2, argv[1]);
    return qr_bool(p->len <= s->len && memcmp(s->data + s->len - p->len, p->data, p->len) == 0);
}

static qr_val includes_impl(qr_lx *lx, const qr_val *argv, const char *fname)
{
    const qr_str *s = arg_s(lx, fname, 1, argv[0]);
    const qr_str *p = arg_s(lx, fname, 2, argv[1]);
    needle nd;
    needle_init(lx, &nd, p->data, p->len);
    size_t at;
    lx_tick_n(lx, s->len);
    return qr_bool(needle_find(&nd, s->data, s->len, 0, &at));
}

static qr_val bi_string_includes_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return includes_impl(lx, argv, "clojure.string/includes?");
}

static qr_val bi_string_bare_includes_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return includes_impl(lx, argv, "includes?");
}

static qr_val bi_string_str_contains_p(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return includes_impl(lx, argv, "str-contains?");
}

static qr_val bi_string_index_of(qr_lx *lx, int argc, const qr_val *argv)
{
    static const char fname[] = "clojure.string/index-of";
    const qr_str *s = arg_s(lx, fname, 1, argv[0]);
    const qr_str *p = arg_s(lx, fname, 2, argv[1]);
    int64_t from = argc == 3 ? lx_arg_int(lx, fname, 3, argv[2]) : 0;
    if (from < 0)
        from = 0;
    if ((uint64_t)from > s->nchars)
        from = s->nchars;
    size_t off = qr_utf8_offset(s->data, s->len, (size_t)from);
    needle nd;
    needle_init(lx, &nd, p->data, p->len);
    size_t at;
    lx_tick_n(lx, s->len);
    if (!needle_find(&nd, s->data, s->len, off, &at))
        return qr_nil();
    return qr_int((int64_t)((size_t)from + qr_utf8_count(s->data + off, at - off)));
}

static qr_val bi_string_last_index_of(qr_lx *lx, int argc, const qr_val *argv)
{
    static const char fname[] = "clojure.string/last-index-of";
    const qr_str *s = arg_s(lx, fname, 1, argv[0]);
    const qr_str *p = arg_s(lx, fname, 2, argv[1]);
    int64_t from = argc == 3 ? lx_arg_int(lx, fname, 3, argv[2]) : (int64_t)s->nchars;
    if (from < 0)
        return qr_nil();
    if ((uint64_t)from > s->nchars)
        from = s->nchars;
    size_t limit = qr_utf8_offset(s->data, s->len, (size_t)from);
    needle nd;
    needle_init(lx, &nd, p->data, p->len);
    size_t at;
    lx_tick_n(lx, s->len);
    if (!needle_find_last(&nd, s->data, s->len, limit, &at))
        return qr_nil();
    return qr_int((int64_t)qr_utf8_count(s->data, at));
}

/* ---- reverse, escape, subs ---- */

static qr_val bi_string_reverse(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    const qr_str *s = arg_s(lx, "clojure.string/reverse", 1, argv[0]);
    qr_str *r = qr_str_alloc(lx->a, s->len);
    if (!r)
        too_big(lx);
    for (size_t i = 0; i < s->len;) {
        uint32_t cp;
        size_t k = cp_at(s->data, s->len, i, &cp);
        memcpy(r->data + s->len - i - k, s->data + i, k);
        i += k;
    }
    lx_tick_n(lx, s->len);
    return qr_str_seal(r);
}

static qr_val bi_string_escape(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    static const char fname[] = "clojure.string/escape";
    qr_val sv = argv[0], cmap = argv[1];
    const qr_str *s = arg_s(lx, fname, 1, sv);
    if (!lx_is_callable(cmap))
        lx_type_error(lx, fname, 2, "a map (or function) from characters to replacements",
                      cmap);
    sbuf b;
    sb_init(&b, lx, s->len + 16);
    /* a map is looked up with a key on the stack: no garbage per character */
    _Alignas(qr_str) char keybuf[sizeof(qr_str) + 8];
    qr_str *key = (qr_str *)(void *)keybuf;
    for (size_t i = 0; i < s->len;) {
        uint32_t cp;
        size_t k = cp_at(s->data, s->len, i, &cp);
        qr_val r;
        if (cmap.t == QR_T_MAP) {
            memcpy(key->data, s->data + i, k);
            key->data[k] = 0;
            key->len = (uint32_t)k;
            key->nchars = 1;
            key->hash = 0;
            qr_val kv = {.t = QR_T_STR};
            kv.s = key;
            if (!lx_get(cmap, kv, &r))
                r = qr_nil();
        } else {
            r = lx_call1(lx, cmap, qr_str_new(lx->a, s->data + i, k));
        }
        if (qr_truthy(r))
            sb_add_str_of(&b, r, fname);
        else
            sb_add(&b, s->data + i, k);
        i += k;
    }
    lx_tick_n(lx, s->len);
    return sb_finish(&b);
}

static qr_val bi_string_subs(qr_lx *lx, int argc, const qr_val *argv)
{
    const qr_str *s = arg_s(lx, "subs", 1, argv[0]);
    int64_t start = lx_arg_int(lx, "subs", 2, argv[1]);
    int64_t end = argc == 3 ? lx_arg_int(lx, "subs", 3, argv[2]) : (int64_t)s->nchars;
    if (start < 0 || end < start || (uint64_t)end > s->nchars) {
        if (argc == 3)
            lx_throw(lx, QR_LE_INDEX,
                     "'subs' range %lld..%lld is out of bounds for a string of %u characters",
                     (long long)start, (long long)end, s->nchars);
        lx_throw(lx, QR_LE_INDEX,
                 "'subs' start %lld is out of bounds for a string of %u characters",
                 (long long)start, s->nchars);
    }
    size_t a = qr_utf8_offset(s->data, s->len, (size_t)start);
    size_t b = a + qr_utf8_offset(s->data + a, s->len - a, (size_t)(end - start));
    return substr(lx, argv[0], a, b);
}

/* ---- format ---- */

typedef struct fspec {
    bool left, plus, space, zero, comma, alt;
    long width; /* -1: none */
    long prec;  /* -1: none */
    char conv;
} fspec;

static _Noreturn void fmt_error(qr_lx *lx, const char *spec, size_t n, const char *why)
{
    lx_throw(lx, QR_LE_TYPE,
             "'format': %s in \"%.*s\" (supported: %%s %%d %%f %%e %%x %%o %%%% %%n, with flags - + "
             "space 0 , # and width/precision, as in \"%%-8s\" or \"%%.2f\")",
             why, (int)(n > 40 ? 40 : n), spec);
}

/* Pads the text already written from `start` to the spec's width (code points). zero_at:
 * where zeros go (after a sign or 0x), or SIZE_MAX to pad with spaces. */
static void fmt_pad(sbuf *b, size_t start, const fspec *f, size_t zero_at)
{
    if (f->width < 0)
        return;
    size_t have = qr_utf8_count(b->s->data + start, b->len - start);
    if (have >= (size_t)f->width)
        return;
    size_t pad = (size_t)f->width - have;
    if (f->left) {
        sb_fill(b, ' ', pad);
        return;
    }
    size_t at = f->zero && zero_at != SIZE_MAX ? zero_at : start;
    char c = f->zero && zero_at != SIZE_MAX ? '0' : ' ';
    sb_reserve(b, pad);
    memmove(b->s->data + at + pad, b->s->data + at, b->len - at);
    memset(b->s->data + at, c, pad);
    b->len += pad;
}

/* Appends digits[0..n) with a ',' between groups of three when asked. */
static void add_grouped(sbuf *b, const char *digits, size_t n, bool comma)
{
    for (size_t i = 0; i < n; i++) {
        if (comma && i > 0 && (n - i) % 3 == 0)
            sb_addc(b, ',');
        sb_addc(b, digits[i]);
    }
}

static void add_sign(sbuf *b, bool neg, const fspec *f)
{
    if (neg)
        sb_addc(b, '-');
    else if (f->plus)
        sb_addc(b, '+');
    else if (f->space)
        sb_addc(b, ' ');
}

/* The shortest decimal digits that read back as d (d > 0, finite), as Java prints them:
 * d = 0.DIGITS * 10^(*point). Returns the number of digits. */
static size_t shortest_digits(double d, char *dig, int *point)
{
    char buf[48];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    size_t nd = 0;
    const char *p = buf;
    for (; *p && *p != 'e' && *p != 'E'; p++)
        if (*p >= '0' && *p <= '9')
            dig[nd++] = *p;
    int e = (*p == 'e' || *p == 'E') ? atoi(p + 1) : 0;
    while (nd > 1 && dig[nd - 1] == '0')
        nd--;
    *point = e + 1;
    return nd;
}

static void fmt_double(sbuf *b, double d, const fspec *f)
{
    size_t start = b->len;
    if (isnan(d)) {
        sb_add(b, "NaN", 3);
        fmt_pad(b, start, f, SIZE_MAX);
        return;
    }
    bool neg = signbit(d);
    add_sign(b, neg, f);
    size_t after_sign = b->len;
    if (isinf(d)) {
        sb_add(b, "Infinity", 8);
        fmt_pad(b, start, f, SIZE_MAX);
        return;
    }
    long prec = f->prec < 0 ? 6 : f->prec;
    char dig[32];
    int point = 1;
    size_t nd = 1;
    d = fabs(d);
    if (d == 0)
        dig[0] = '0';
    else
        nd = shortest_digits(d, dig, &point);
    /* the integer part has ip digits; digit k of the output is dig[k - ip + point] */
    size_t ip = point > 0 ? (size_t)point : 1;
    size_t total = ip + (size_t)prec;
    sbuf num;
    sb_init(&num, b->lx, total + 2);
    num.s->data[0] = '0'; /* room for a carry */
    num.len = 1;
    for (size_t k = 0; k < total; k++) {
        long idx = (long)k - (long)ip + point;
        sb_addc(&num, idx >= 0 && (size_t)idx < nd ? dig[idx] : '0');
    }
    /* round half-up at the first dropped digit */
    long r = prec + point;
    if (r >= 0 && (size_t)r < nd && dig[r] >= '5') {
        size_t k = num.len;
        while (k-- > 0) {
            if (num.s->data[k] == '9') {
                num.s->data[k] = '0';
                continue;
            }
            num.s->data[k]++;
            break;
        }
    }
    const char *digits = num.s->data;
    size_t int_len = ip + 1;
    if (digits[0] == '0') {
        digits++;
        int_len--;
    }
    add_grouped(b, digits, int_len, f->comma);
    if (prec > 0 || f->alt) {
        sb_addc(b, '.');
        sb_add(b, digits + int_len, (size_t)prec);
    }
    fmt_pad(b, start, f, after_sign);
}

static void fmt_int(sbuf *b, int64_t v, const fspec *f)
{
    size_t start = b->len;
    char digits[32];
    size_t n = 0;
    if (f->conv == 'd') {
        uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
        do {
            digits[n++] = (char)('0' + mag % 10);
            mag /= 10;
        } while (mag);
        add_sign(b, v < 0, f);
    } else {
        /* %x %X %o: the two's complement of a negative number, as Java prints a long */
        const char *hex = f->conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
        unsigned bits = f->conv == 'o' ? 3 : 4;
        uint64_t u = (uint64_t)v;
        do {
            digits[n++] = hex[u & ((1u << bits) - 1)];
            u >>= bits;
        } while (u);
        if (f->alt)
            sb_add(b, f->conv == 'X' ? "0X" : f->conv == 'o' ? "0" : "0x",
                   f->conv == 'o' ? 1 : 2);
    }
    size_t after_sign = b->len;
    for (size_t i = 0; i < n / 2; i++) {
        char t = digits[i];
        digits[i] = digits[n - 1 - i];
        digits[n - 1 - i] = t;
    }
    add_grouped(b, digits, n, f->comma);
    fmt_pad(b, start, f, after_sign);
}

/* %e: d.dddddde+XX, the precision (default 6) digits after the point */
static void fmt_exp(sbuf *b, double d, const fspec *f)
{
    if (isnan(d) || isinf(d)) {
        fmt_double(b, d, f);
        return;
    }
    size_t start = b->len;
    add_sign(b, signbit(d), f);
    size_t after_sign = b->len;
    char num[400];
    int k = snprintf(num, sizeof num, "%.*e", (int)(f->prec < 0 ? 6 : f->prec > 300 ? 300 : f->prec),
                     fabs(d));
    sb_add(b, num, (size_t)k);
    fmt_pad(b, start, f, after_sign);
}

/* %s of nil is "" (the PTC-Lisp specification, like str; Java prints "null":
 * docs/decisions.md) */
static void fmt_str(sbuf *b, qr_val x, const fspec *f)
{
    size_t start = b->len;
    if (x.t == QR_T_NIL)
        ;
    else
        sb_add_str_of(b, x, "format");
    if (f->prec >= 0) {
        size_t cut = start + qr_utf8_offset(b->s->data + start, b->len - start, (size_t)f->prec);
        b->len = cut;
    }
    if (f->conv == 'S') {
        size_t n = b->len - start;
        sbuf t;
        sb_init(&t, b->lx, n + 8);
        sb_add_case(&t, b->s->data + start, n, true);
        b->len = start;
        sb_add(b, t.s->data, t.len);
    }
    fmt_pad(b, start, f, SIZE_MAX);
}

static qr_val bi_string_format(qr_lx *lx, int argc, const qr_val *argv)
{
    const qr_str *fmt = arg_s(lx, "format", 1, argv[0]);
    sbuf b;
    sb_init(&b, lx, fmt->len + 16);
    const char *p = fmt->data, *end = fmt->data + fmt->len;
    int next = 1;
    while (p < end) {
        const char *pct = memchr(p, '%', (size_t)(end - p));
        if (!pct) {
            sb_add(&b, p, (size_t)(end - p));
            break;
        }
        sb_add(&b, p, (size_t)(pct - p));
        const char *spec = pct;
        p = pct + 1;
        fspec f = {.width = -1, .prec = -1};
        int argi = 0; /* explicit argument index (1-based), 0 for the next one */
        /* argument index: digits followed by '$' */
        const char *q = p;
        long num = 0;
        while (q < end && *q >= '0' && *q <= '9' && q - p < 6)
            q++;
        if (q > p && *p != '0' && q < end && *q == '$') {
            for (const char *t = p; t < q; t++)
                num = num * 10 + (*t - '0');
            argi = (int)num;
            p = q + 1;
        }
        for (; p < end; p++) {
            if (*p == '-')
                f.left = true;
            else if (*p == '+')
                f.plus = true;
            else if (*p == ' ')
                f.space = true;
            else if (*p == '0')
                f.zero = true;
            else if (*p == ',')
                f.comma = true;
            else if (*p == '#')
                f.alt = true;
            else
                break;
        }
        if (p < end && *p >= '1' && *p <= '9') {
            f.width = 0;
            while (p < end && *p >= '0' && *p <= '9') {
                f.width = f.width * 10 + (*p++ - '0');
                if (f.width > 100000000)
                    fmt_error(lx, spec, (size_t)(end - spec), "width too large");
            }
        }
        if (p < end && *p == '.') {
            p++;
            if (p >= end || *p < '0' || *p > '9')
                fmt_error(lx, spec, (size_t)(end - spec), "a precision needs digits after '.'");
            f.prec = 0;
            while (p < end && *p >= '0' && *p <= '9') {
                f.prec = f.prec * 10 + (*p++ - '0');
                if (f.prec > 1000)
                    fmt_error(lx, spec, (size_t)(end - spec), "precision too large");
            }
        }
        if (p >= end)
            fmt_error(lx, spec, (size_t)(end - spec), "the format ends inside a % specifier");
        f.conv = *p++;
        size_t speclen = (size_t)(p - spec);
        bool numflags = f.plus || f.space || f.zero || f.comma;
        switch (f.conv) {
        case '%':
        case 'n':
            if (numflags || f.alt || f.prec >= 0 || (f.conv == 'n' && (f.left || f.width >= 0)))
                fmt_error(lx, spec, speclen, "flags or precision on %% or %n");
            if (f.conv == 'n') {
                sb_addc(&b, '\n');
            } else {
                size_t start = b.len;
                sb_addc(&b, '%');
                fmt_pad(&b, start, &f, SIZE_MAX);
            }
            continue;
        case 's':
        case 'S':
            if (numflags || f.alt)
                fmt_error(lx, spec, speclen, "numeric flags on %s");
            break;
        case 'd':
            if (f.alt || f.prec >= 0)
                fmt_error(lx, spec, speclen, "# or a precision on %d");
            break;
        case 'x':
        case 'X':
        case 'o':
            if (f.plus || f.space || f.comma || f.prec >= 0)
                fmt_error(lx, spec, speclen, "+, space, ',' or a precision on %x or %o");
            break;
        case 'e':
            if (f.comma)
                fmt_error(lx, spec, speclen, "',' on %e");
            break;
        case 'f':
            break;
        default: {
            char why[64];
            uint32_t cp;
            size_t k = cp_at(spec, (size_t)(end - spec), speclen - 1, &cp);
            snprintf(why, sizeof why, "unsupported conversion '%.*s'", (int)k, spec + speclen - 1);
            fmt_error(lx, spec, speclen - 1 + k, why);
        }
        }
        if (f.left && f.width < 0)
            fmt_error(lx, spec, speclen, "'-' needs a width");
        int ai = argi ? argi : next++;
        if (ai >= argc)
            lx_throw(lx, QR_LE_ARITY,
                     "'format': no argument for %.*s (the format needs at least %d argument%s "
                     "after the format string, got %d)",
                     (int)speclen, spec, ai, ai == 1 ? "" : "s", argc - 1);
        qr_val x = argv[ai];
        switch (f.conv) {
        case 's':
        case 'S': fmt_str(&b, x, &f); break;
        case 'd':
        case 'x':
        case 'X':
        case 'o':
            if (x.t != QR_T_INT) {
                char what[48];
                snprintf(what, sizeof what, "an integer for %.*s", (int)speclen, spec);
                lx_type_error(lx, "format", ai + 1, what, x);
            }
            fmt_int(&b, x.i, &f);
            break;
        default: /* 'f' */
            if (!qr_is_number(x)) {
                char what[48];
                snprintf(what, sizeof what, "a number for %.*s", (int)speclen, spec);
                lx_type_error(lx, "format", ai + 1, what, x);
            }
            if (f.conv == 'e')
                fmt_exp(&b, qr_to_double(x), &f);
            else
                fmt_double(&b, qr_to_double(x), &f);
            break;
        }
    }
    lx_tick_n(lx, b.len);
    return sb_finish(&b);
}

const qr_builtin qr_lib_string[] = {
    QR_BUILTIN("clojure.string/join", bi_string_join, 1, 2, "[coll] or [separator coll]", "the items of coll as str prints them, separated by separator"),
    QR_BUILTIN("clojure.string/split", bi_string_split, 2, 3, "[s re] or [s re limit]", "s split at matches of re (a regex or a literal string); trailing empty strings dropped"),
    QR_BUILTIN("clojure.string/split-lines", bi_string_split_lines, 1, 1, "[s]", "s split at \\n and \\r\\n; trailing empty lines dropped"),
    QR_BUILTIN("clojure.string/trim", bi_string_trim, 1, 1, "[s]", "s without leading and trailing whitespace"),
    QR_BUILTIN("clojure.string/triml", bi_string_triml, 1, 1, "[s]", "s without leading whitespace"),
    QR_BUILTIN("clojure.string/trimr", bi_string_trimr, 1, 1, "[s]", "s without trailing whitespace"),
    QR_BUILTIN("clojure.string/trim-newline", bi_string_trim_newline, 1, 1, "[s]", "s without trailing \\n and \\r characters"),
    QR_BUILTIN("clojure.string/blank?", bi_string_blank_p, 1, 1, "[s]", "true when s is nil, empty or only whitespace"),
    QR_BUILTIN("clojure.string/upper-case", bi_string_upper_case, 1, 1, "[s]", "s in upper case"),
    QR_BUILTIN("clojure.string/lower-case", bi_string_lower_case, 1, 1, "[s]", "s in lower case"),
    QR_BUILTIN("clojure.string/capitalize", bi_string_capitalize, 1, 1, "[s]", "s with its first character in upper case and the rest in lower case"),
    QR_BUILTIN("clojure.string/replace", bi_string_replace, 3, 3, "[s match replacement]", "s with every match replaced: string -> string, regex -> string ($1 for groups) or regex -> (fn [match] ...)"),
    QR_BUILTIN("clojure.string/replace-first", bi_string_replace_first, 3, 3, "[s match replacement]", "s with the first match replaced, as replace does"),
    QR_BUILTIN("clojure.string/re-quote-replacement", bi_string_re_quote_replacement, 1, 1, "[s]", "s with \\ and $ escaped, for a literal regex replacement"),
    QR_BUILTIN("clojure.string/starts-with?", bi_string_starts_with_p, 2, 2, "[s prefix]", "true when s starts with prefix"),
    QR_BUILTIN("clojure.string/ends-with?", bi_string_ends_with_p, 2, 2, "[s suffix]", "true when s ends with suffix"),
    QR_BUILTIN("clojure.string/includes?", bi_string_includes_p, 2, 2, "[s substr]", "true when s contains substr"),
    QR_BUILTIN("clojure.string/index-of", bi_string_index_of, 2, 3, "[s value] or [s value from]", "the character index of the first value in s (from index from), or nil"),
    QR_BUILTIN("clojure.string/last-index-of", bi_string_last_index_of, 2, 3, "[s value] or [s value from]", "the character index of the last value in s (at or before from), or nil"),
    QR_BUILTIN("clojure.string/reverse", bi_string_reverse, 1, 1, "[s]", "s with its characters in reverse order"),
    QR_BUILTIN("clojure.string/escape", bi_string_escape, 2, 2, "[s cmap]", "s with each character c replaced by (cmap c) when that is not nil"),
    QR_BUILTIN("includes?", bi_string_bare_includes_p, 2, 2, "[s substr]", "true when string s contains substr"),
    QR_BUILTIN("str-contains?", bi_string_str_contains_p, 2, 2, "[s substr]", "true when string s contains substr (same as includes?)"),
    QR_BUILTIN("subs", bi_string_subs, 2, 3, "[s start] or [s start end]", "the characters of s from index start to end (exclusive)"),
    QR_BUILTIN("format", bi_string_format, 1, -1, "[fmt & args]", "a string from a Java-style format: %s %d %f %.2f %e %x %o %% %n, with width and flags"),
    {.hdr = {.name = NULL}},
};
