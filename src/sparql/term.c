/*
 * term.c: RDF term semantics the evaluator needs: numeric types and values (the XSD
 * integer family, decimal, float, double), lexical validity, the '=' and '<' operators of
 * SPARQL (17.3, with RDFterm-equal's type error between unequal literals it cannot
 * compare), the total order ORDER BY uses (15.1), and canonical forms for computed
 * numbers. Integers that fit in 64 bits compare as int64; other integers and decimals
 * compare exactly (num.c); floats and doubles as doubles.
 */
#include "num.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const int_types[] = {
    "integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
    "negativeInteger", "nonPositiveInteger", "unsignedLong", "unsignedInt", "unsignedShort",
    "unsignedByte"};

static int dt_rank(const char *dt)
{
    if (!dt || strncmp(dt, XSD, sizeof XSD - 1))
        return 0;
    const char *l = dt + sizeof XSD - 1;
    /* the common names first, without walking the list (this runs per comparison) */
    switch (l[0]) {
    case 'd':
        return !strcmp(l, "decimal") ? 2 : !strcmp(l, "double") ? 4 : 0;
    case 'f':
        return !strcmp(l, "float") ? 3 : 0;
    case 'i':
        return !strcmp(l, "integer") || !strcmp(l, "int") ? 1 : 0;
    case 'l': case 's': case 'b': case 'n': case 'p': case 'u':
        break;
    default:
        return 0;
    }
    for (size_t i = 0; i < sizeof int_types / sizeof int_types[0]; i++)
        if (!strcmp(l, int_types[i]))
            return 1;
    if (!strcmp(l, "decimal"))
        return 2;
    if (!strcmp(l, "float"))
        return 3;
    if (!strcmp(l, "double"))
        return 4;
    return 0;
}

int sq_numeric_rank(const sq_term *t)
{
    return t->kind == SQ_LIT ? dt_rank(t->dt) : 0;
}

static bool lex_integer(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    if (i == n)
        return false;
    for (; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

static bool lex_decimal(const char *s, size_t n)
{
    size_t i = 0, digits = 0;
    bool dot = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    for (; i < n; i++) {
        if (isdigit((unsigned char)s[i]))
            digits++;
        else if (s[i] == '.' && !dot)
            dot = true;
        else
            return false;
    }
    return digits > 0;
}

static bool lex_double(const char *s, size_t n)
{
    if ((n == 3 && (!memcmp(s, "INF", 3) || !memcmp(s, "NaN", 3))) || (n == 4 && !memcmp(s, "-INF", 4)) ||
        (n == 4 && !memcmp(s, "+INF", 4)))
        return true;
    size_t e = 0;
    while (e < n && s[e] != 'e' && s[e] != 'E')
        e++;
    if (!lex_decimal(s, e))
        return false;
    if (e == n)
        return true;
    return lex_integer(s + e + 1, n - e - 1);
}

bool sq_numeric_value(const sq_term *t, double *d, int64_t *i, int *rank)
{
    int r = sq_numeric_rank(t);
    if (!r)
        return false;
    const char *s = t->lex;
    size_t n = t->len;
    if (r == 2 && n && n <= 17) {
        /* a short decimal without blanks: mantissa and scale, exact as doubles below 2^53
         * (one correctly rounded division, as strtod gives); strtod was most of a FILTER */
        int64_t m = 0;
        int digits = 0, frac = 0;
        bool dot = false, neg = false, ok = true;
        size_t k = 0;
        if (s[0] == '-' || s[0] == '+')
            neg = s[k++] == '-';
        for (; k < n && ok; k++) {
            if (s[k] >= '0' && s[k] <= '9') {
                m = m * 10 + (s[k] - '0');
                digits++;
                frac += dot;
            } else if (s[k] == '.' && !dot) {
                dot = true;
            } else {
                ok = false;
            }
        }
        if (ok && digits > 0 && digits <= 15) {
            static const double p10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
                                         1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
            double v = (double)m / p10[frac];
            *d = neg ? -v : v;
            *i = 0;
            *rank = 2;
            return true;
        }
    }
    while (n && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    char buf[128];
    if (n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    if (r == 1) {
        if (!lex_integer(buf, n))
            return false;
        errno = 0;
        long long v = strtoll(buf, NULL, 10);
        if (errno) {
            *d = strtod(buf, NULL);
            *i = 0;
            *rank = 2;
            return true;
        }
        *i = v;
        *d = (double)v;
    } else if (r == 2) {
        if (!lex_decimal(buf, n))
            return false;
        *d = strtod(buf, NULL);
        *i = 0;
    } else {
        if (!lex_double(buf, n))
            return false;
        if (!strcmp(buf, "INF") || !strcmp(buf, "+INF"))
            *d = INFINITY;
        else if (!strcmp(buf, "-INF"))
            *d = -INFINITY;
        else if (!strcmp(buf, "NaN"))
            *d = NAN;
        else
            *d = strtod(buf, NULL);
        if (r == 3)
            *d = (float)*d;
        *i = 0;
    }
    *rank = r;
    return true;
}

bool sq_is_string_lit(const sq_term *t)
{
    return t->kind == SQ_LIT && !t->dt;
}

static bool is_simple(const sq_term *t)
{
    return t->kind == SQ_LIT && !t->dt && !t->lang;
}

static bool is_dt(const sq_term *t, const char *local)
{
    return t->kind == SQ_LIT && t->dt && !strncmp(t->dt, XSD, sizeof XSD - 1) &&
           !strcmp(t->dt + sizeof XSD - 1, local);
}

static int bool_value(const sq_term *t)
{
    if (!is_dt(t, "boolean"))
        return -1;
    if ((t->len == 4 && !memcmp(t->lex, "true", 4)) || (t->len == 1 && t->lex[0] == '1'))
        return 1;
    if ((t->len == 5 && !memcmp(t->lex, "false", 5)) || (t->len == 1 && t->lex[0] == '0'))
        return 0;
    return -1;
}

/* n decimal digits at s into *v; false unless all are digits */
static bool digits_at(const char *s, int n, int *v)
{
    int x = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        x = x * 10 + (s[i] - '0');
    }
    *v = x;
    return true;
}

/* xsd:dateTime and xsd:date as seconds since the epoch (UTC when a zone is given, else
 * taken as UTC), parsed by hand to XML Schema's lexical form ([-]YYYY-MM-DD, then
 * Thh:mm:ss[.fff] for a dateTime, then Z or +hh:mm / -hh:mm): sscanf was most of the time
 * of a date FILTER, and accepted "2024-3-1". */
bool sq_datetime_value(const sq_term *t, double *secs, int *tz_min, bool *has_tz);
bool sq_datetime_value(const sq_term *t, double *secs, int *tz_min, bool *has_tz)
{
    if (t->kind != SQ_LIT || !t->dt || strncmp(t->dt, XSD, sizeof XSD - 1))
        return false;
    const char *local = t->dt + sizeof XSD - 1;
    bool date_only = !strcmp(local, "date");
    if (!date_only && strcmp(local, "dateTime"))
        return false;
    const char *s = t->lex, *e = t->lex + t->len;
    int y = 0, mo, d, h = 0, mi = 0;
    double sec = 0;
    bool neg = false;
    if (s < e && *s == '-') {
        neg = true;
        s++;
    }
    const char *ys = s;
    while (s < e && *s >= '0' && *s <= '9' && s - ys < 9)
        y = y * 10 + (*s++ - '0');
    if (s - ys < 4 || (s - ys > 4 && *ys == '0'))
        return false;
    if (e - s < 6 || s[0] != '-' || !digits_at(s + 1, 2, &mo) || s[3] != '-' ||
        !digits_at(s + 4, 2, &d))
        return false;
    s += 6;
    if (!date_only) {
        if (e - s < 9 || s[0] != 'T' || !digits_at(s + 1, 2, &h) || s[3] != ':' ||
            !digits_at(s + 4, 2, &mi) || s[6] != ':')
            return false;
        int whole;
        if (!digits_at(s + 7, 2, &whole))
            return false;
        sec = whole;
        s += 9;
        if (s < e && *s == '.') {
            double scale = 0.1;
            s++;
            if (s == e || *s < '0' || *s > '9')
                return false;
            while (s < e && *s >= '0' && *s <= '9') {
                sec += (*s++ - '0') * scale;
                scale /= 10;
            }
        }
    }
    if (mo < 1 || mo > 12 || d < 1 || h > 24 || mi > 59 || sec >= 60)
        return false;
    /* an impossible date is no date (2024-02-30, 2023-02-29, 1900-02-29); 24:00:00 is
     * the end of the day and nothing later */
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int yv = neg ? -y : y;
    bool leap = (yv % 4 == 0 && yv % 100 != 0) || yv % 400 == 0;
    if (d > mdays[mo - 1] + (mo == 2 && leap))
        return false;
    if (h == 24 && (mi || sec > 0))
        return false;
    *has_tz = false;
    *tz_min = 0;
    if (s < e && *s == 'Z') {
        *has_tz = true;
        s++;
    } else if (s < e && (*s == '+' || *s == '-')) {
        int th, tm;
        if (e - s < 6 || !digits_at(s + 1, 2, &th) || s[3] != ':' || !digits_at(s + 4, 2, &tm) ||
            tm > 59 || th * 60 + tm > 14 * 60)
            return false;
        *tz_min = (th * 60 + tm) * (*s == '-' ? -1 : 1);
        *has_tz = true;
        s += 6;
    }
    if (s != e)
        return false;
    y = yv;
    /* days from civil (proleptic Gregorian) */
    int64_t yy = y - (mo <= 2);
    int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
    int64_t yoe = yy - era * 400;
    int64_t doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = era * 146097 + doe - 719468;
    *secs = (double)days * 86400.0 + h * 3600.0 + mi * 60.0 + sec - *tz_min * 60.0;
    return true;
}

static size_t digit_count(const sq_term *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->len; i++)
        n += isdigit((unsigned char)t->lex[i]) != 0;
    return n;
}

/* Exact comparison of two integer or decimal literals: true with *c set, false when
 * either is not one (or is invalid). */
static bool exact_cmp(const sq_term *a, const sq_term *b, int *c)
{
    int ta = sq_numeric_rank(a), tb = sq_numeric_rank(b);
    if (ta < 1 || ta > 2 || tb < 1 || tb > 2)
        return false;
    /* up to 15 significant digits each, doubles order them exactly (the conversion is
     * correctly rounded and monotonic, and keeps distinct ones distinct): no GMP */
    if (digit_count(a) <= 15 && digit_count(b) <= 15)
        return false;
    sq_dec x, y;
    sq_dec_init(&x);
    sq_dec_init(&y);
    bool ok = sq_dec_set_term(&x, a) && sq_dec_set_term(&y, b);
    if (ok)
        *c = sq_dec_cmp(&x, &y);
    sq_dec_clear(&x);
    sq_dec_clear(&y);
    return ok;
}

bool sq_term_same(const sq_term *a, const sq_term *b)
{
    if (a->kind != b->kind || a->len != b->len || memcmp(a->lex, b->lex, a->len))
        return false;
    if ((a->dt == NULL) != (b->dt == NULL) || (a->dt && strcmp(a->dt, b->dt)))
        return false;
    if ((a->lang == NULL) != (b->lang == NULL) || (a->lang && strcmp(a->lang, b->lang)))
        return false;
    return true;
}

int sq_term_equal(const sq_term *a, const sq_term *b)
{
    if (!a->kind || !b->kind)
        return -1;
    double x, y;
    int64_t i, j;
    int ra, rb;
    bool na = sq_numeric_value(a, &x, &i, &ra), nb = sq_numeric_value(b, &y, &j, &rb);
    if (na && nb) {
        if (ra == 1 && rb == 1)
            return i == j;
        int c;
        if (exact_cmp(a, b, &c))
            return c == 0;
        return x == y;
    }
    if (sq_term_same(a, b))
        return 1;
    if (a->kind != SQ_LIT || b->kind != SQ_LIT)
        return 0;
    if (is_simple(a) && is_simple(b))
        return 0;
    if (a->lang && b->lang)
        return 0;
    int ba = bool_value(a), bb = bool_value(b);
    if (ba >= 0 && bb >= 0)
        return ba == bb;
    double da, db;
    int tza, tzb;
    bool ha, hb;
    if (sq_datetime_value(a, &da, &tza, &ha) && sq_datetime_value(b, &db, &tzb, &hb)) {
        if (is_dt(a, "date") != is_dt(b, "date"))
            return -1; /* xsd:date and xsd:dateTime are not comparable (XPath op:date-equal) */
        if (ha != hb)
            return -1;
        return da == db;
    }
    /* both literals, different terms: equal only if we knew the values */
    if ((na && rb) || (nb && ra))
        return -1;
    int known_a = na || is_simple(a) || a->lang || ba >= 0;
    int known_b = nb || is_simple(b) || b->lang || bb >= 0;
    if (known_a && known_b)
        return 0;
    return -1;
}

int sq_term_less(const sq_term *a, const sq_term *b, int *lt)
{
    double x, y;
    int64_t i, j;
    int ra, rb;
    if (sq_numeric_value(a, &x, &i, &ra) && sq_numeric_value(b, &y, &j, &rb)) {
        int c;
        if (ra == 1 && rb == 1)
            *lt = i < j;
        else if (exact_cmp(a, b, &c))
            *lt = c < 0;
        else
            *lt = x < y;
        return 0;
    }
    if (is_simple(a) && is_simple(b)) {
        size_t n = a->len < b->len ? a->len : b->len;
        int c = memcmp(a->lex, b->lex, n);
        *lt = c < 0 || (c == 0 && a->len < b->len);
        return 0;
    }
    if (a->lang && b->lang && !strcmp(a->lang, b->lang)) {
        size_t n = a->len < b->len ? a->len : b->len;
        int c = memcmp(a->lex, b->lex, n);
        *lt = c < 0 || (c == 0 && a->len < b->len);
        return 0;
    }
    int ba = bool_value(a), bb = bool_value(b);
    if (ba >= 0 && bb >= 0) {
        *lt = ba < bb;
        return 0;
    }
    double da, db;
    int tza, tzb;
    bool ha, hb;
    if (sq_datetime_value(a, &da, &tza, &ha) && sq_datetime_value(b, &db, &tzb, &hb)) {
        if (is_dt(a, "date") != is_dt(b, "date"))
            return -1;
        if (ha != hb && fabs(da - db) < 14 * 3600)
            return -1;
        *lt = da < db;
        return 0;
    }
    return -1;
}

static int kind_rank(const sq_term *t)
{
    switch (t->kind) {
    case SQ_BLANK: return 1;
    case SQ_IRI: return 2;
    case SQ_LIT: return 3;
    default: return 0;
    }
}

static int cmp_str(const char *a, size_t an, const char *b, size_t bn)
{
    size_t n = an < bn ? an : bn;
    int c = memcmp(a, b, n);
    if (c)
        return c < 0 ? -1 : 1;
    return an < bn ? -1 : an > bn;
}

int sq_term_order(const sq_term *a, const sq_term *b)
{
    int ka = kind_rank(a), kb = kind_rank(b);
    if (ka != kb)
        return ka < kb ? -1 : 1;
    if (ka == 0)
        return 0;
    if (ka != 3)
        return cmp_str(a->lex, a->len, b->lex, b->len);
    int lt;
    if (sq_term_less(a, b, &lt) == 0) {
        if (lt)
            return -1;
        int gt;
        if (sq_term_less(b, a, &gt) == 0 && gt)
            return 1;
    } else {
        /* simple literals before typed ones, then by datatype */
        bool sa = is_simple(a), sb = is_simple(b);
        if (sa != sb)
            return sa ? -1 : 1;
    }
    const char *da = a->dt ? a->dt : "", *db = b->dt ? b->dt : "";
    int c = strcmp(da, db);
    if (c)
        return c < 0 ? -1 : 1;
    c = cmp_str(a->lex, a->len, b->lex, b->len);
    if (c)
        return c;
    return strcmp(a->lang ? a->lang : "", b->lang ? b->lang : "");
}

bool sq_lex_valid(const sq_term *t)
{
    double d;
    int64_t i;
    int r;
    if (sq_numeric_rank(t))
        return sq_numeric_value(t, &d, &i, &r);
    if (is_dt(t, "boolean"))
        return bool_value(t) >= 0;
    if (is_dt(t, "dateTime") || is_dt(t, "date")) {
        int tz;
        bool h;
        return sq_datetime_value(t, &d, &tz, &h);
    }
    return true;
}

int sq_ebv(const sq_term *t)
{
    if (t->kind != SQ_LIT)
        return -1;
    int b = bool_value(t);
    if (b >= 0)
        return b;
    if (is_dt(t, "boolean"))
        return 0;
    if (sq_numeric_rank(t)) {
        double d;
        int64_t i;
        int r;
        if (!sq_numeric_value(t, &d, &i, &r))
            return 0;
        return !(d == 0 || isnan(d));
    }
    if (sq_is_string_lit(t) && !t->lang)
        return t->len > 0;
    return -1;
}

sq_term sq_make_int(qr_arena *a, int64_t v)
{
    sq_term t = {0};
    t.kind = SQ_LIT;
    t.dt = XSD "integer";
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%lld", (long long)v);
    t.lex = qr_arena_strndup(a, buf, (size_t)n);
    t.len = t.lex ? (uint32_t)n : 0;
    if (!t.lex)
        t.kind = 0;
    return t;
}

sq_term sq_make_double(qr_arena *a, double v, const char *dt)
{
    sq_term t = {0};
    t.kind = SQ_LIT;
    t.dt = dt;
    char buf[64];
    if (isnan(v)) {
        snprintf(buf, sizeof buf, "NaN");
    } else if (isinf(v)) {
        snprintf(buf, sizeof buf, v < 0 ? "-INF" : "INF");
    } else if (!strcmp(dt, XSD "decimal")) {
        snprintf(buf, sizeof buf, "%.15g", v);
        if (strchr(buf, 'e'))
            snprintf(buf, sizeof buf, "%.15f", v);
        if (!strchr(buf, '.') && strlen(buf) < sizeof buf - 3)
            strcat(buf, ".0");
        size_t n = strlen(buf);
        while (n > 2 && buf[n - 1] == '0' && buf[n - 2] != '.')
            buf[--n] = 0;
        if (!strcmp(buf, "-0.0"))
            strcpy(buf, "0.0");
    } else {
        char m[48];
        bool is_float = !strcmp(dt, XSD "float");
        int prec = is_float ? 5 : 14;
        for (; prec < 17; prec++) {
            snprintf(m, sizeof m, "%.*E", prec, v);
            double back = strtod(m, NULL);
            if (is_float ? (float)back == (float)v : back == v)
                break;
        }
        char *e = strchr(m, 'E');
        int ex = atoi(e + 1);
        *e = 0;
        size_t n = strlen(m);
        while (n > 2 && m[n - 1] == '0' && m[n - 2] != '.')
            m[--n] = 0;
        snprintf(buf, sizeof buf, "%sE%d", m, ex);
    }
    size_t n = strlen(buf);
    t.lex = qr_arena_strndup(a, buf, n);
    t.len = (uint32_t)n;
    if (!t.lex)
        t.kind = 0;
    return t;
}

sq_term sq_make_bool(bool v)
{
    sq_term t = {0};
    t.kind = SQ_LIT;
    t.dt = XSD "boolean";
    t.lex = v ? "true" : "false";
    t.len = v ? 4 : 5;
    return t;
}

sq_term sq_make_str(qr_arena *a, const char *s, size_t n, const char *dt, const char *lang)
{
    sq_term t = {0};
    t.kind = SQ_LIT;
    t.dt = dt;
    t.lang = lang;
    t.lex = qr_arena_strndup(a, s, n);
    t.len = (uint32_t)n;
    if (!t.lex)
        t.kind = 0;
    return t;
}
