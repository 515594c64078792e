/*
 * date.c: parsing git-style --since/--until dates into epoch seconds, and ISO-8601 output.
 *
 * Design: the input is trimmed, lowercased into a small buffer and tried as, in order,
 * epoch seconds, ISO-8601 (it starts with four digits and '-') and finally a relative
 * form, which is lexed into word and number tokens and read by a tiny grammar
 * ("N unit ... [ago]", "now", "this week", ...). All arithmetic happens on "local
 * seconds" (epoch + the caller's fixed offset) with Howard Hinnant's days-from-civil
 * algorithms, so the result depends on nothing but the arguments. Every reading is
 * strict: unknown words, trailing text and out-of-range fields are QR_EINVAL with a
 * message that lists the accepted forms, since the caller is often an LLM that will
 * retry with one of them.
 * Time zones are the caller's: either a fixed offset, or a function that gives the offset
 * in force at an instant (qr_date_parse_zone; the clock in clock.c passes the process's
 * TZ through it), so a wall-clock time on a date across a daylight-saving change is read
 * with that date's offset, as git and mktime do, not with today's.
 * Rejected: git's approxidate itself (it skips words it does not know and returns `now`
 * for "next tuesday", so a typo silently widens a query); timegm/mktime/strptime here (TZ
 * and locale dependent, not in C11, and mktime normalises Feb 30 instead of failing).
 */
#include "quarry/date.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define DAY 86400
#define INPUT_MAX 128 /* longer inputs are not dates anyone writes */
#define TOKENS_MAX 32
#define NUM_MAX 1000000000000LL /* cap while reading N; any N this big is out of range */

/* 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z */
#define T_MIN (-62167219200LL)
#define T_MAX 253402300799LL

static const char FORMS[] =
    "expected ISO-8601 (2024-03-01, 2024-03-01T12:00:00Z, 2024-03-01 12:00:00 +0100), "
    "a relative time (3 days ago, 2 weeks ago, 1 month ago, today, yesterday, last week, "
    "this month) or epoch seconds (@1700000000)";

/* ---- calendar ---- */

/* Floor division and modulo for b > 0; neither overflows for any a. */
static int64_t floor_div(int64_t a, int64_t b)
{
    return a / b - (a % b < 0);
}

static int64_t floor_mod(int64_t a, int64_t b)
{
    int64_t r = a % b;
    return r < 0 ? r + b : r;
}

static bool is_leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int64_t y, int m)
{
    static const int dm[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : dm[m - 1];
}

int64_t qr_days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = floor_div(y, 400);
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void qr_civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = floor_div(z, 146097);
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

/* Moves local seconds *l back by `months` calendar months, keeping the time of day and
 * clamping the day to the target month's length. */
static void sub_months(int64_t *l, int64_t months)
{
    int64_t days = floor_div(*l, DAY), sod = floor_mod(*l, DAY), y;
    int m, d;
    qr_civil_from_days(days, &y, &m, &d);
    int64_t idx = y * 12 + (m - 1) - months;
    y = floor_div(idx, 12);
    m = (int)(idx - y * 12) + 1;
    if (d > days_in_month(y, m))
        d = days_in_month(y, m);
    *l = qr_days_from_civil(y, m, d) * DAY + sod;
}

/* ---- parse context ---- */

typedef struct {
    const char *src; /* trimmed original, for quoting */
    size_t n;
    char low[INPUT_MAX + 1]; /* lowercased copy of src, NUL-terminated */
    int64_t now_l;           /* now in local seconds */
    int64_t off;             /* offset in seconds (in force at `now` when zone is set) */
    qr_date_zone_fn zone;    /* NULL: the fixed offset `off` applies at every instant */
    void *zone_ud;
    char why[192];           /* reason for the failure, "" when none is known */
} pctx;

/* Forms with a reason make their message specific; returning QR_EINVAL with why empty
 * gives the generic one. */
#define FAIL(c, ...) (snprintf((c)->why, sizeof(c)->why, __VA_ARGS__), QR_EINVAL)

/* For "%.*s": up to 32 bytes of the original input from p, a position in c->low. The
 * input is not NUL-terminated, so the length is always bounded by what remains. */
static int frag_len(const pctx *c, const char *p)
{
    size_t r = c->n - (size_t)(p - c->low);
    return r > 32 ? 32 : (int)r;
}
#define FRAG(c, p) frag_len((c), (p)), (c)->src + ((p) - (c)->low)

static bool is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}
static bool is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}
static bool is_alpha(char ch)
{
    return ch >= 'a' && ch <= 'z';
}

/* Reads min..max digits at *p into *v; fails if fewer than min or more than max follow. */
static bool digits(const char **p, int min, int max, int64_t *v)
{
    const char *q = *p;
    int64_t x = 0;
    int k = 0;
    while (is_digit(*q) && k < max) {
        x = x * 10 + (*q++ - '0');
        k++;
    }
    if (k < min || is_digit(*q))
        return false;
    *p = q;
    *v = x;
    return true;
}

/* Exactly two digits, whatever follows (zones run "+0100" together). */
static bool two_digits(const char **p, int64_t *v)
{
    const char *q = *p;
    if (!is_digit(q[0]) || !is_digit(q[1]))
        return false;
    *v = (q[0] - '0') * 10 + (q[1] - '0');
    *p = q + 2;
    return true;
}

static int check_range(pctx *c, int64_t t, int64_t *out)
{
    if (t < T_MIN || t > T_MAX)
        return FAIL(c, "the result is outside years 0000-9999");
    *out = t;
    return QR_OK;
}

/* The zone's offset in seconds at instant t, clamped to the supported range. */
static int64_t zone_off(const pctx *c, int64_t t)
{
    int m = c->zone(t, c->zone_ud);
    return (int64_t)(m < -1439 ? -1439 : m > 1439 ? 1439 : m) * 60;
}

/* Converts local wall-clock seconds l to an instant, with the offset in force at that
 * instant (not at `now`): guess with now's offset, then take the offset at the guess,
 * and again, until one reads back as itself. A wall time that a
 * spring-forward skips lands after the gap (02:30 that does not exist is read with the
 * offset before it, as 03:30), one that a fall-back repeats is one of its two instants. */
static int64_t to_utc(const pctx *c, int64_t l)
{
    if (!c->zone)
        return l - c->off;
    int64_t o1 = zone_off(c, l - c->off);
    if (zone_off(c, l - o1) == o1)
        return l - o1;
    int64_t o2 = zone_off(c, l - o1);
    if (zone_off(c, l - o2) == o2)
        return l - o2;
    return l - (o1 < o2 ? o1 : o2); /* in a gap: the earlier offset, so after the gap */
}

/* ---- epoch seconds ---- */

static int parse_epoch(pctx *c, const char *p, int64_t *out)
{
    int64_t v = 0;
    if (!*p)
        return FAIL(c, "'@' must be followed by digits");
    for (; *p; p++) {
        if (!is_digit(*p))
            return FAIL(c, "epoch seconds must be digits only");
        if (v > T_MAX)
            return FAIL(c, "the result is outside years 0000-9999");
        v = v * 10 + (*p - '0');
    }
    return check_range(c, v, out);
}

/* ---- ISO-8601 ---- */

static int parse_zone(pctx *c, const char *p, int64_t *off, const char **end)
{
    if (*p == 'z') {
        *off = 0;
        *end = p + 1;
        return QR_OK;
    }
    if (!strncmp(p, "utc", 3) || !strncmp(p, "gmt", 3)) {
        *off = 0;
        *end = p + 3;
        return QR_OK;
    }
    if (*p != '+' && *p != '-')
        return FAIL(c, "unexpected '%.*s' after the time (expected a zone: Z, +01:00, -0500)",
                    FRAG(c, p));
    int sign = *p++ == '-' ? -1 : 1;
    int64_t hh, mm = 0;
    if (!two_digits(&p, &hh))
        return FAIL(c, "bad zone (expected Z, +01, +0100 or +01:00)");
    if (*p == ':' || is_digit(*p)) {
        if (*p == ':')
            p++;
        if (!two_digits(&p, &mm))
            return FAIL(c, "bad zone (expected Z, +01, +0100 or +01:00)");
    }
    if (hh > 23 || mm > 59)
        return FAIL(c, "zone offset out of range (expected -23:59..+23:59)");
    *off = sign * (hh * 3600 + mm * 60);
    *end = p;
    return QR_OK;
}

static int parse_iso(pctx *c, int64_t *out)
{
    const char *p = c->low;
    int64_t y, mo, d, h = 0, mi = 0, s = 0, off = 0;
    bool zoned = false;
    if (!digits(&p, 4, 4, &y) || *p++ != '-' || !digits(&p, 1, 2, &mo) || *p++ != '-' ||
        !digits(&p, 1, 2, &d))
        return FAIL(c, "a date is YYYY-MM-DD");
    if (mo < 1 || mo > 12)
        return FAIL(c, "month %d is out of range (01-12)", (int)mo);
    if (d < 1 || d > days_in_month(y, (int)mo))
        return FAIL(c, "day %d is out of range for %04d-%02d (01-%02d)", (int)d, (int)y, (int)mo,
                    days_in_month(y, (int)mo));
    if (*p) {
        if (*p == 't')
            p++;
        else if (is_space(*p))
            while (is_space(*p))
                p++;
        else
            return FAIL(c, "unexpected '%.*s' after the date", FRAG(c, p));
        if (!digits(&p, 1, 2, &h) || *p++ != ':' || !digits(&p, 2, 2, &mi))
            return FAIL(c, "a time is HH:MM or HH:MM:SS after 'T' or a space");
        if (*p == ':') {
            p++;
            if (!digits(&p, 2, 2, &s))
                return FAIL(c, "seconds must be two digits");
            if (*p == '.' || *p == ',') {
                p++;
                if (!is_digit(*p))
                    return FAIL(c, "a fraction of a second needs digits");
                while (is_digit(*p))
                    p++;
            }
        }
        if (h > 23 || mi > 59 || s > 59)
            return FAIL(c, "time %02d:%02d:%02d is out of range (00:00:00-23:59:59)", (int)h,
                        (int)mi, (int)s);
        while (is_space(*p))
            p++;
        if (*p) {
            zoned = true;
            int rc = parse_zone(c, p, &off, &p);
            if (rc)
                return rc;
            while (is_space(*p))
                p++;
            if (*p)
                return FAIL(c, "unexpected '%.*s' after the zone", FRAG(c, p));
        }
    }
    int64_t l = qr_days_from_civil(y, (int)mo, (int)d) * DAY + h * 3600 + mi * 60 + s;
    return check_range(c, zoned ? l - off : to_utc(c, l), out);
}

/* ---- relative forms ---- */

typedef struct {
    const char *p;
    size_t n;
} tok;

enum { U_SEC, U_MONTH, U_YEAR };
typedef struct {
    const char *name;
    int kind;
    int64_t secs;
} unit;

static const unit UNITS[] = {
    {"s", U_SEC, 1},           {"sec", U_SEC, 1},       {"secs", U_SEC, 1},
    {"second", U_SEC, 1},      {"seconds", U_SEC, 1},   {"min", U_SEC, 60},
    {"mins", U_SEC, 60},       {"minute", U_SEC, 60},   {"minutes", U_SEC, 60},
    {"h", U_SEC, 3600},        {"hr", U_SEC, 3600},     {"hrs", U_SEC, 3600},
    {"hour", U_SEC, 3600},     {"hours", U_SEC, 3600},  {"d", U_SEC, DAY},
    {"day", U_SEC, DAY},       {"days", U_SEC, DAY},    {"w", U_SEC, 7 * DAY},
    {"wk", U_SEC, 7 * DAY},    {"wks", U_SEC, 7 * DAY}, {"week", U_SEC, 7 * DAY},
    {"weeks", U_SEC, 7 * DAY}, {"mo", U_MONTH, 0},      {"mos", U_MONTH, 0},
    {"month", U_MONTH, 0},     {"months", U_MONTH, 0},  {"y", U_YEAR, 0},
    {"yr", U_YEAR, 0},         {"yrs", U_YEAR, 0},      {"year", U_YEAR, 0},
    {"years", U_YEAR, 0},
};

static const char *const NUMBER_WORDS[] = {"zero", "one",    "two",   "three", "four",
                                           "five", "six",    "seven", "eight", "nine",
                                           "ten",  "eleven", "twelve"};

static bool tok_is(tok t, const char *w)
{
    return t.n == strlen(w) && memcmp(t.p, w, t.n) == 0;
}

/* For "%.*s": token t as the caller wrote it (original case), at most 32 bytes. */
#define TOK(c, t) (int)((t).n > 32 ? 32 : (t).n), (c)->src + ((t).p - (c)->low)

static const unit *find_unit(tok t)
{
    for (size_t i = 0; i < sizeof UNITS / sizeof UNITS[0]; i++)
        if (tok_is(t, UNITS[i].name))
            return &UNITS[i];
    return NULL;
}

/* A number token, "a"/"an", or a number word; -1 when t is none of these. */
static int64_t tok_number(tok t)
{
    if (is_digit(t.p[0])) {
        int64_t v = 0;
        for (size_t i = 0; i < t.n; i++) {
            if (v > NUM_MAX)
                return NUM_MAX + 1;
            v = v * 10 + (t.p[i] - '0');
        }
        return v;
    }
    if (tok_is(t, "a") || tok_is(t, "an"))
        return 1;
    for (int i = 0; i < (int)(sizeof NUMBER_WORDS / sizeof NUMBER_WORDS[0]); i++)
        if (tok_is(t, NUMBER_WORDS[i]))
            return i;
    return -1;
}

/* Splits low into runs of digits and runs of letters; spaces, '.' and ',' separate.
 * Returns the token count, or -1 on any other character or too many tokens. */
static int lex(const char *s, tok *t)
{
    int nt = 0;
    while (*s) {
        if (is_space(*s) || *s == '.' || *s == ',') {
            s++;
            continue;
        }
        bool (*cls)(char) = is_digit(*s) ? is_digit : is_alpha(*s) ? is_alpha : NULL;
        if (!cls || nt == TOKENS_MAX)
            return -1;
        const char *b = s;
        while (*s && cls(*s))
            s++;
        t[nt].p = b;
        t[nt].n = (size_t)(s - b);
        nt++;
    }
    return nt;
}

/* Moves local seconds *l back by n units, refusing to leave the supported range, which
 * also keeps every product and intermediate well inside int64. */
static int shift(pctx *c, int64_t *l, int64_t n, const unit *u)
{
    int64_t span = T_MAX - T_MIN; /* any larger step leaves the range */
    if ((u->kind == U_SEC && n > span / u->secs) || (u->kind == U_MONTH && n > 120000) ||
        (u->kind == U_YEAR && n > 10000))
        return FAIL(c, "the result is outside years 0000-9999");
    if (u->kind == U_SEC)
        *l -= n * u->secs;
    else
        sub_months(l, u->kind == U_MONTH ? n : n * 12);
    if (*l < T_MIN - DAY) /* terms only go back in time, so this is final */
        return FAIL(c, "the result is outside years 0000-9999");
    return QR_OK;
}

static const char UNIT_LIST[] = "seconds, minutes, hours, days, weeks, months or years";

static int parse_relative(pctx *c, int64_t *out)
{
    tok t[TOKENS_MAX];
    int nt = lex(c->low, t);
    int64_t l = c->now_l, day0 = floor_div(l, DAY) * DAY;
    if (nt <= 0)
        return QR_EINVAL;
    if (nt == 1 && tok_is(t[0], "now"))
        return check_range(c, l - c->off, out);
    if (nt == 1 && tok_is(t[0], "today"))
        return check_range(c, to_utc(c, day0), out);
    if (nt == 1 && tok_is(t[0], "yesterday"))
        return check_range(c, to_utc(c, day0 - DAY), out);
    if (nt == 2 && tok_is(t[0], "this")) {
        int64_t days = day0 / DAY, y;
        int m, d;
        qr_civil_from_days(days, &y, &m, &d);
        if (tok_is(t[1], "week")) /* 1970-01-01 was a Thursday; weeks start on Monday */
            l = (days - floor_mod(days + 3, 7)) * DAY;
        else if (tok_is(t[1], "month"))
            l = qr_days_from_civil(y, m, 1) * DAY;
        else if (tok_is(t[1], "year"))
            l = qr_days_from_civil(y, 1, 1) * DAY;
        else
            return FAIL(c, "'this' takes week, month or year");
        return check_range(c, to_utc(c, l), out);
    }
    if (nt == 2 && tok_is(t[0], "last")) {
        const unit *u = find_unit(t[1]);
        if (!u)
            return FAIL(c, "'last' takes a unit: %s", UNIT_LIST);
        int rc = shift(c, &l, 1, u);
        return rc ? rc : check_range(c, u->kind == U_SEC ? l - c->off : to_utc(c, l), out);
    }
    int i = 0, all = nt;
    bool calendar = false; /* a month or year term: the result is a wall-clock time */
    if (nt > 1 && tok_is(t[nt - 1], "ago"))
        nt--;
    while (i < nt) {
        int64_t num = tok_number(t[i]);
        if (num < 0 && i == 0)
            return QR_EINVAL; /* "next tuesday": not a relative time at all */
        if (num < 0 && tok_is(t[i], "ago"))
            return FAIL(c, "unexpected '%.*s' after 'ago'", TOK(c, t[i + 1 < all ? i + 1 : i]));
        if (num < 0)
            return FAIL(c, "unexpected '%.*s' (expected a number, or 'ago' at the end)",
                        TOK(c, t[i]));
        if (++i == nt)
            return FAIL(c, "expected a unit (%s) after the number", UNIT_LIST);
        const unit *u = find_unit(t[i]);
        if (!u)
            return FAIL(c, "unknown unit '%.*s' (expected %s)", TOK(c, t[i]), UNIT_LIST);
        i++;
        calendar |= u->kind != U_SEC;
        int rc = shift(c, &l, num, u);
        if (rc)
            return rc;
    }
    return check_range(c, calendar ? to_utc(c, l) : l - c->off, out);
}

/* ---- entry points ---- */

/* Writes the message: the input quoted (cut at 60 bytes on a UTF-8 boundary), the reason
 * if known, then the accepted forms; control bytes anywhere in it become '?'. */
static void write_error(const char *s, size_t n, const char *why, char *err, size_t errlen)
{
    if (!err || errlen == 0)
        return;
    char q[64];
    size_t k = n > 60 ? 60 : n;
    while (k < n && k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
        k--;
    for (size_t i = 0; i < k; i++)
        q[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
    q[k] = 0;
    snprintf(err, errlen, "cannot parse date '%s%s': %s%s%s", q, k < n ? "..." : "", why,
             *why ? "; " : "", FORMS);
    /* the reason may quote a fragment of the input: the message stays one line */
    for (char *e = err; *e; e++)
        if ((unsigned char)*e < 0x20 || *e == 0x7f)
            *e = '?';
}

static int parse(pctx *c, int64_t now, int tz_offset_min, int64_t *out)
{
    if (!out)
        return FAIL(c, "no output pointer (out is NULL)");
    if (now < T_MIN || now > T_MAX)
        return FAIL(c, "the reference time is outside years 0000-9999");
    if (c->zone)
        tz_offset_min = (int)(zone_off(c, now) / 60);
    if (tz_offset_min < -1439 || tz_offset_min > 1439)
        return FAIL(c, "tz offset %d minutes is out of range (-1439..1439)", tz_offset_min);
    if (c->n == 0)
        return FAIL(c, "the date is empty");
    if (c->n > INPUT_MAX)
        return FAIL(c, "longer than %d bytes", INPUT_MAX);
    if (memchr(c->src, 0, c->n))
        return FAIL(c, "contains a NUL byte");
    c->off = (int64_t)tz_offset_min * 60;
    c->now_l = now + c->off;
    for (size_t i = 0; i < c->n; i++) {
        char ch = c->src[i];
        c->low[i] = ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
    }
    size_t nd = 0;
    while (nd < c->n && is_digit(c->low[nd]))
        nd++;
    if (c->low[0] == '@')
        return parse_epoch(c, c->low + 1, out);
    if (nd == c->n && nd >= 9)
        return parse_epoch(c, c->low, out);
    if (nd == c->n)
        return FAIL(c, "a bare number is epoch seconds only with 9 or more digits");
    if (nd == 4 && c->low[4] == '-')
        return parse_iso(c, out);
    return parse_relative(c, out);
}

static int parse_entry(const char *s, size_t n, int64_t now, int tz_offset_min, qr_date_zone_fn zone,
                       void *zone_ud, int64_t *out, char *err, size_t errlen)
{
    pctx c;
    memset(&c, 0, sizeof c);
    c.zone = zone;
    c.zone_ud = zone_ud;
    int rc;
    if (!s && n > 0) {
        s = "";
        n = 0;
        rc = FAIL(&c, "no input (s is NULL)");
    } else {
        if (!s)
            s = "";
        while (n > 0 && is_space(s[0]))
            s++, n--;
        while (n > 0 && is_space(s[n - 1]))
            n--;
        c.src = s;
        c.n = n;
        rc = parse(&c, now, tz_offset_min, out);
    }
    if (rc != QR_OK)
        write_error(s, n, c.why, err, errlen);
    return rc;
}

int qr_date_parse(const char *s, size_t n, int64_t now, int tz_offset_min, int64_t *out, char *err,
                  size_t errlen)
{
    return parse_entry(s, n, now, tz_offset_min, NULL, NULL, out, err, errlen);
}

int qr_date_parse_zone(const char *s, size_t n, int64_t now, qr_date_zone_fn zone, void *zone_ud,
                       int64_t *out, char *err, size_t errlen)
{
    return parse_entry(s, n, now, 0, zone, zone_ud, out, err, errlen);
}

void qr_date_format_iso(int64_t t, int tz_offset_min, char *buf, size_t len)
{
    if (!buf || len == 0)
        return;
    if (tz_offset_min < -1439 || tz_offset_min > 1439)
        tz_offset_min = 0;
    int64_t days = floor_div(t, DAY), sod = floor_mod(t, DAY) + tz_offset_min * 60, y;
    days += floor_div(sod, DAY);
    sod = floor_mod(sod, DAY);
    int m, d, a = tz_offset_min < 0 ? -tz_offset_min : tz_offset_min;
    qr_civil_from_days(days, &y, &m, &d);
    snprintf(buf, len, "%04lld-%02d-%02dT%02d:%02d:%02d%c%02d:%02d", (long long)y, m, d,
             (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60),
             tz_offset_min < 0 ? '-' : '+', a / 60, a % 60);
}
