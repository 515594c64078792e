/*
 * clock.c: the program's one clock. Every reading of "now" (git windows, pipeline ages,
 * agent schedules, the memory store's timestamps, dates people write) and of the local
 * time zone goes through here, so that QUARRY_NOW pins all of them at once and a test
 * can pick the instant it runs at (a Monday at 00:30, the 1st, 1 January) instead of
 * depending on when it happens to run.
 *
 * Design: QUARRY_NOW is read from the environment on each call (a getenv and a short
 * parse, far cheaper than anything that asks for the time) rather than cached, so there
 * is no global state to initialise or guard across threads. A pinned clock does not
 * tick: every call returns the same instant, which is what makes a run that crosses
 * midnight agree with itself. The zone is the C library's (TZ, through localtime_r), the
 * one place quarry consults it; date.c stays a pure function of its arguments.
 * Rejected: a settable global (hosts and tests would race on it, and a child process
 * would not inherit it); ticking from QUARRY_NOW by elapsed time (a run crossing
 * midnight would again see two dates).
 */
#define _POSIX_C_SOURCE 200809L /* localtime_r, gmtime_r, clock_gettime */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "quarry/date.h"

#define EPOCH_MAX 253402300799LL /* 9999-12-31T23:59:59Z, the parser's last instant */

static const char CLOCK_FORMS[] = "expected ISO-8601 (2026-11-24T01:30:00Z, 2026-11-24 01:30:00 "
                                  "+0100, 2026-11-24T01:30:00 in TZ) or epoch seconds "
                                  "(1700000000 or @1700000000)";

int qr_clock_offset_at(int64_t t)
{
    time_t tt = (time_t)t;
    struct tm lt, gt;
    if ((int64_t)tt != t || !localtime_r(&tt, &lt) || !gmtime_r(&tt, &gt))
        return 0;
    int days = lt.tm_year != gt.tm_year ? (lt.tm_year > gt.tm_year ? 1 : -1)
                                        : lt.tm_yday - gt.tm_yday;
    int m = (days * 24 + lt.tm_hour - gt.tm_hour) * 60 + lt.tm_min - gt.tm_min;
    return m < -1439 ? -1439 : m > 1439 ? 1439 : m;
}

static int zone_of_process(int64_t t, void *ud)
{
    (void)ud;
    return qr_clock_offset_at(t);
}

/* Reads QUARRY_NOW into *out: 1 when set and readable, 0 when unset or empty, -1 (with a
 * message) when set but unreadable. */
static int pinned(int64_t *out, char *err, size_t errlen)
{
    const char *s = getenv(QR_CLOCK_ENV);
    if (!s || !*s)
        return 0;
    size_t n = strlen(s), i = s[0] == '@';
    bool epoch = i < n;
    for (size_t k = i; k < n; k++)
        epoch &= s[k] >= '0' && s[k] <= '9';
    bool iso = n >= 5 && s[4] == '-';
    for (size_t k = 0; k < 4 && k < n; k++)
        iso &= s[k] >= '0' && s[k] <= '9';
    char msg[QR_DATE_ERR_LEN];
    msg[0] = 0;
    if (epoch) {
        int64_t v = 0;
        for (size_t k = i; k < n && v <= EPOCH_MAX; k++)
            v = v * 10 + (s[k] - '0');
        if (v <= EPOCH_MAX) {
            *out = v;
            return 1;
        }
        snprintf(msg, sizeof msg, "epoch seconds beyond 9999-12-31T23:59:59Z");
    } else if (iso) {
        /* the reference time does not matter: ISO-8601 names its own date */
        if (qr_date_parse_zone(s, n, 0, zone_of_process, NULL, out, msg, sizeof msg) == QR_OK)
            return 1;
        /* the parser's list of forms names relative ones, which are refused here */
        char *forms = strstr(msg, "; expected ");
        if (forms)
            snprintf(forms, sizeof msg - (size_t)(forms - msg), "; %s", CLOCK_FORMS);
    } else {
        snprintf(msg, sizeof msg, "%s", CLOCK_FORMS);
    }
    if (err && errlen) {
        char q[64];
        size_t k = 0;
        for (; k < n && k < 60; k++)
            q[k] = ((unsigned char)s[k] < 0x20 || s[k] == 0x7f) ? '?' : s[k];
        q[k] = 0;
        snprintf(err, errlen, "%s '%s%s' is not a time: %s", QR_CLOCK_ENV, q, k < n ? "..." : "",
                 msg);
    }
    return -1;
}

int qr_clock_check(char *err, size_t errlen)
{
    int64_t t;
    return pinned(&t, err, errlen) < 0 ? QR_EINVAL : QR_OK;
}

int64_t qr_clock_now(void)
{
    int64_t t;
    int p = pinned(&t, NULL, 0);
    if (p > 0)
        return t;
    if (p < 0)
        return 0;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec;
}

int qr_clock_parse(const char *s, size_t n, int64_t *out, char *err, size_t errlen)
{
    return qr_date_parse_zone(s, n, qr_clock_now(), zone_of_process, NULL, out, err, errlen);
}
