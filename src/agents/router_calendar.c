/*
 * router_calendar.c: the calendar the router reads windows against: month names,
 * quarters, weekdays, weekends and days of the month ("in october", "Q3 2025", "since
 * monday", "over the weekend", "since the 1st") resolved to calendar days in the local
 * time zone, from the one clock (qr_clock_now, so QUARRY_NOW pins them).
 *
 * A month or quarter said without a year is the most recent one that has begun by today
 * ("in december" said in March is last December); a weekday is the most recent such day,
 * today included ("since monday" on a Monday is since this morning), unless asked as
 * "last monday", which is before today. Windows are whole days: from the first day's
 * midnight to the last day's 23:59:59 (the router's inclusive "until").
 *
 * Rejected: relative strings for the tools ("this month" is one, but "october" has no
 * form the date parser reads); reading "last october" (the most recent, or the one of
 * last year?), which stays unmatched so a model decides.
 */
#include "router_int.h"
#include "quarry/date.h"

#include <stdio.h>
#include <string.h>

/* The one calendar arithmetic (quarry/date.h), with the int years this file keeps. */
static void civil_from_days(int64_t z, int *y, int *m, int *d)
{
    int64_t yy;
    qr_civil_from_days(z, &yy, m, d);
    *y = (int)yy;
}

void rt_today_of(int64_t now, int tz_offset_min, rt_today *t)
{
    int64_t local = now + (int64_t)tz_offset_min * 60;
    int64_t days = local >= 0 ? local / 86400 : -((-local + 86399) / 86400);
    t->days = days;
    civil_from_days(days, &t->y, &t->m, &t->d);
    /* 1970-01-01 was a Thursday (4) */
    t->wday = (int)(((days % 7) + 7 + 3) % 7) + 1;
}

static void day_str(char *out, int64_t days)
{
    int y, m, d;
    civil_from_days(days, &y, &m, &d);
    snprintf(out, RT_STR, "%04d-%02d-%02d", y, m, d);
}

int rt_month_word(const char *w)
{
    static const char *const NAMES[][2] = {
        {"january", "jan"}, {"february", "feb"}, {"march", "mar"},     {"april", "apr"},
        {"may", "may"},     {"june", "jun"},     {"july", "jul"},      {"august", "aug"},
        {"september", "sep"}, {"october", "oct"}, {"november", "nov"}, {"december", "dec"}};
    for (int i = 0; i < 12; i++)
        if (!strcmp(w, NAMES[i][0]) || !strcmp(w, NAMES[i][1]) || (i == 8 && !strcmp(w, "sept")))
            return i + 1;
    return 0;
}

int rt_weekday_word(const char *w)
{
    static const char *const NAMES[][3] = {
        {"monday", "mon", "mondays"},       {"tuesday", "tue", "tues"},
        {"wednesday", "wed", "wednesdays"}, {"thursday", "thu", "thurs"},
        {"friday", "fri", "fridays"},       {"saturday", "sat", "saturdays"},
        {"sunday", "sun", "sundays"}};
    for (int i = 0; i < 7; i++)
        for (int k = 0; k < 3; k++)
            if (!strcmp(w, NAMES[i][k]))
                return i + 1;
    /* every plural ("tuesdays", "thursdays"), not only those the table spells */
    size_t n = strlen(w);
    if (n > 6 && n < 16 && w[n - 1] == 's') {
        char one[16];
        memcpy(one, w, n - 1);
        one[n - 1] = '\0';
        for (int i = 0; i < 7; i++)
            if (!strcmp(one, NAMES[i][0]))
                return i + 1;
    }
    return 0;
}

bool rt_month_window(const rt_today *t, int m, int y, char *since, char *last_day)
{
    if (m < 1 || m > 12)
        return false;
    if (!y)
        y = m <= t->m ? t->y : t->y - 1;
    if (y < 1970 || y > 9999)
        return false;
    int64_t first = qr_days_from_civil(y, m, 1);
    int64_t next = m == 12 ? qr_days_from_civil(y + 1, 1, 1) : qr_days_from_civil(y, m + 1, 1);
    day_str(since, first);
    day_str(last_day, next - 1);
    return true;
}

bool rt_span_window(const rt_today *t, int m1, int y1, int m2, int y2, char *since,
                    char *last_day)
{
    char a[RT_STR], b[RT_STR];
    if (!y2)
        y2 = m2 <= t->m ? t->y : t->y - 1;
    if (!y1)
        y1 = m1 <= m2 ? y2 : y2 - 1;
    if (y1 > y2 || (y1 == y2 && m1 > m2))
        return false;
    if (!rt_month_window(t, m1, y1, since, a) || !rt_month_window(t, m2, y2, b, last_day))
        return false;
    return true;
}

bool rt_quarter_window(const rt_today *t, int q, int y, char *since, char *last_day)
{
    if (q < 1 || q > 4)
        return false;
    int first_month = 3 * (q - 1) + 1;
    if (!y)
        y = first_month <= t->m ? t->y : t->y - 1;
    return rt_span_window(t, first_month, y, first_month + 2, y, since, last_day);
}

int rt_quarter_of(const rt_today *t)
{
    return (t->m - 1) / 3 + 1;
}

void rt_weekday_day(const rt_today *t, int wday, bool before_today, char *out)
{
    int back = (t->wday - wday + 7) % 7;
    if (back == 0 && before_today)
        back = 7;
    day_str(out, t->days - back);
}

void rt_weekend(const rt_today *t, char *since, char *last_day)
{
    /* the Saturday of the most recent weekend that has begun (today's, on a weekend) */
    int back = (t->wday - 6 + 7) % 7;
    day_str(since, t->days - back);
    day_str(last_day, t->days - back + 1);
}

bool rt_day_of_month(const rt_today *t, int d, char *out)
{
    if (d < 1 || d > 31)
        return false;
    int y = t->y, m = t->m;
    if (d > t->d) { /* not yet this month: last month's */
        m--;
        if (m == 0)
            m = 12, y--;
    }
    int64_t first = qr_days_from_civil(y, m, 1);
    int64_t next = m == 12 ? qr_days_from_civil(y + 1, 1, 1) : qr_days_from_civil(y, m + 1, 1);
    if (d > next - first)
        return false; /* "since the 31st" of a 30-day month */
    day_str(out, first + d - 1);
    return true;
}
