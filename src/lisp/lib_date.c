/*
 * lib_date.c: (date-part PART DATE), the parts of a date a question groups by: the year,
 * quarter, month, ISO week, day, weekday and hour. The query DSL's [:weekday :date] and
 * its siblings compile to it (src/query/expr.c), and a program may call it directly.
 *
 * DATE is an ISO-8601 string as the git tools return it ("2024-03-04T10:00:00+01:00"):
 * its parts are read as written, in the date's own offset (the author's clock for
 * get_commits' :date), never converted to another zone, so a commit made at 23:30 in
 * Tokyo is on the day and at the hour its author saw. A number is read as seconds since
 * the epoch, in UTC (:timestamp). Anything else, nil included, gives nil, so a query
 * over records where the field is sometimes missing groups those under nil instead of
 * failing.
 *
 * The parts that name a period are text that sorts in time order and reads in a table:
 * :month "2024-03", :quarter "2024-Q1", :week "2024-W09" (ISO 8601: weeks start on
 * Monday, week 1 holds the year's first Thursday, so 2024-12-30 is in "2025-W01"), :day
 * "2024-03-04"; :weekday is the English name ("Monday"), :weekday-num its ISO number
 * (Monday 1 to Sunday 7) for sorting; :year and :hour are integers.
 *
 * Rejected: a general date library (formatting patterns, arithmetic on dates): the DSL
 * needs these parts only, and a pattern language is one more thing a model gets wrong;
 * converting to the user's zone (what since/until count days in): the question "at what
 * hour do people commit" is about each author's own clock.
 */
#include "lisp_int.h"
#include "quarry/date.h"

#include <stdio.h>
#include <string.h>

static const char *const weekdays[7] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                        "Friday", "Saturday", "Sunday"};


/* ISO weekday, Monday 1 .. Sunday 7, of a day number. */
static int iso_weekday(int64_t days)
{
    int64_t w = (days + 3) % 7; /* 1970-01-01 was a Thursday (3 from Monday) */
    if (w < 0)
        w += 7;
    return (int)w + 1;
}

typedef struct civil {
    int64_t y;
    int m, d, hour;
} civil;

static bool digits(const char *s, size_t n, int64_t *out)
{
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

static int month_days(int64_t y, int m)
{
    static const int len[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return len[m - 1] + (m == 2 && leap);
}

/* "YYYY-MM-DD", optionally followed by "THH..." or " HH...": the wall clock as written. */
static bool read_date(qr_val v, civil *c)
{
    if (v.t == QR_T_INT) {
        int64_t t = v.i, days = t / 86400, rem = t % 86400;
        if (rem < 0) {
            rem += 86400;
            days--;
        }
        qr_civil_from_days(days, &c->y, &c->m, &c->d);
        c->hour = (int)(rem / 3600);
        return true;
    }
    if (v.t != QR_T_STR)
        return false;
    const char *s = v.s->data;
    size_t n = v.s->len;
    int64_t y, m, d, h = 0;
    if (n < 10 || s[4] != '-' || s[7] != '-' || !digits(s, 4, &y) || !digits(s + 5, 2, &m) ||
        !digits(s + 8, 2, &d) || m < 1 || m > 12 || d < 1 || d > month_days(y, (int)m))
        return false;
    if (n >= 13 && (s[10] == 'T' || s[10] == ' ')) {
        if (!digits(s + 11, 2, &h) || h > 23)
            return false;
    } else if (n != 10) {
        return false;
    }
    c->y = y;
    c->m = (int)m;
    c->d = (int)d;
    c->hour = (int)h;
    return true;
}

static qr_val fmt(qr_lx *lx, const char *f, int64_t a, int b)
{
    char buf[48];
    int k = snprintf(buf, sizeof buf, f, (long long)a, b);
    return qr_str_new(lx->a, buf, (size_t)k);
}

static const char parts_expected[] =
    "one of :year :quarter :month :week :day :weekday :weekday-num :hour";

static qr_val bi_date_part(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val p = argv[0];
    if (p.t != QR_T_KW)
        lx_type_error(lx, "date-part", 1, parts_expected, p);
    size_t pn;
    const char *ps = qr_sym_name(p.sym, &pn);
#define IS(lit) (pn == sizeof lit - 1 && !memcmp(ps, lit, pn))
    bool known = IS("year") || IS("quarter") || IS("month") || IS("week") || IS("day") ||
                 IS("weekday") || IS("weekday-num") || IS("hour");
    if (!known)
        lx_throw(lx, QR_LE_TYPE, "date-part: unknown part :%.*s; expected %s", (int)pn, ps,
                 parts_expected);
    civil c;
    if (!read_date(argv[1], &c))
        return qr_nil();
    int64_t days = qr_days_from_civil(c.y, c.m, c.d);
    int wd = iso_weekday(days);
    if (IS("year"))
        return qr_int(c.y);
    if (IS("hour"))
        return qr_int(c.hour);
    if (IS("weekday-num"))
        return qr_int(wd);
    if (IS("weekday"))
        return qr_str_cstr(lx->a, weekdays[wd - 1]);
    if (IS("quarter"))
        return fmt(lx, "%04lld-Q%d", c.y, (c.m - 1) / 3 + 1);
    if (IS("month"))
        return fmt(lx, "%04lld-%02d", c.y, c.m);
    if (IS("day")) {
        char buf[32];
        int k = snprintf(buf, sizeof buf, "%04lld-%02d-%02d", (long long)c.y, c.m, c.d);
        return qr_str_new(lx->a, buf, (size_t)k);
    }
    /* ISO week: the week's Thursday decides its year */
    int64_t thursday = days - wd + 4, ty;
    int tm, td;
    qr_civil_from_days(thursday, &ty, &tm, &td);
    int64_t week = (thursday - qr_days_from_civil(ty, 1, 1)) / 7 + 1;
    return fmt(lx, "%04lld-W%02d", ty, (int)week);
#undef IS
}

const qr_builtin qr_lib_date[] = {
    QR_BUILTIN("date-part", bi_date_part, 2, 2, "[part date]",
               "a part of an ISO-8601 date as written (its own offset) or of epoch seconds "
               "(UTC): :year and :hour integers, :quarter \"2024-Q1\", :month \"2024-03\", "
               ":week \"2024-W09\" (ISO), :day \"2024-03-04\", :weekday \"Monday\", "
               ":weekday-num 1 (Monday) to 7; nil for what is no date"),
    {.hdr = {.name = NULL}},
};
