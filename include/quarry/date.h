/*
 * quarry/date.h: parsing the points in time people and LLMs write for git's --since and
 * --until (ISO-8601, "3 days ago", "yesterday", "@1700000000") into epoch seconds,
 * formatting epoch seconds as ISO-8601, and the program's one clock.
 *
 * The parser has no global state: no locale, no TZ environment, no timegm/mktime. The
 * caller passes the reference time and the zone (a fixed offset, or a function giving
 * the offset in force at an instant), so results are reproducible and testable.
 * Supported instants lie in years 0000..9999 (UTC); anything outside is QR_EINVAL.
 *
 * The clock (qr_clock_*) is the only place quarry reads "now" or the process's time
 * zone: every window, age, schedule and date reads it, so QUARRY_NOW pins all of them
 * at once. Timeouts and rate limits measure elapsed time on CLOCK_MONOTONIC instead;
 * they are not "now".
 */
#ifndef QUARRY_DATE_H
#define QUARRY_DATE_H

#include <stddef.h>
#include <stdint.h>

#include "quarry/base.h"

/* A buffer of this size holds any qr_date_format_iso output (any int64_t, any offset). */
#define QR_DATE_ISO_LEN 40
/* A buffer of this size holds any qr_date_parse error message untruncated. */
#define QR_DATE_ERR_LEN 512

/*
 * Parses s[0..n) (not NUL-terminated; case-insensitive; surrounding whitespace ignored).
 * `now` is the reference time in epoch seconds; tz_offset_min is the local UTC offset in
 * minutes (east positive, -1439..1439; pass 0 for UTC). Local means now shifted by that
 * offset: "today", month arithmetic and dates without a zone are computed in it.
 *
 * Accepted forms:
 *   ISO-8601   2024-03-01 (00:00 local), 2024-03-01T12:30, 2024-03-01T12:30:45,
 *              2024-03-01 12:30:45, optional fraction (.5 or ,5; dropped), optional zone
 *              after the time: Z, UTC, GMT, +01, +0100, +01:00, -05:00, also after a
 *              space as git prints it ("2024-03-01 12:30:45 +0100"). No zone: local.
 *   epoch      @1700000000, or a bare integer of 9 or more digits.
 *   keywords   now; today (00:00 local today); yesterday (00:00 local yesterday);
 *              this week (Monday 00:00), this month (day 1 00:00), this year (Jan 1 00:00);
 *              last <unit> = 1 <unit> ago ("last week" is now - 7 days, as in git).
 *   relative   one or more "N unit" terms, optionally followed by "ago" (with or without
 *              it the time is in the past, as in git): "3 days ago", "2.weeks",
 *              "1 day 2 hours ago", "3d". N is digits, a, an, or zero..twelve. Units:
 *              s sec secs second(s), min mins minute(s), h hr hrs hour(s), d day(s),
 *              w wk wks week(s), mo mos month(s), y yr yrs year(s). Tokens may be
 *              separated by spaces, '.' or ','. Seconds-based units subtract exact
 *              seconds; months and years subtract calendar months in local time, keep
 *              the time of day and clamp the day to the month's end (Mar 31 - 1 month =
 *              Feb 29 in 2024; 2024-02-29 - 1 year = 2023-02-28). Terms apply left to
 *              right.
 *
 * Differences from git's approxidate (which silently returns `now` for what it cannot
 * read): "today"/"yesterday" are midnights here, not now / now - 24h; a date without a
 * time is 00:00, not the current time of day on that date; month/year arithmetic clamps
 * instead of overflowing (git: Mar 31 - 1 month = Mar 2); "a", "an", "eleven", "twelve"
 * and the unit abbreviations are extensions; everything else git half-reads (weekday
 * names, "noon", "next tuesday", RFC 2822) is rejected rather than guessed.
 *
 * Returns QR_OK and stores the result in *out, or QR_EINVAL (bad input, a result or `now`
 * outside years 0000..9999, an offset out of range, s NULL with n > 0, out NULL) and
 * writes a one-line, NUL-terminated message to err (when err and errlen are non-zero; see
 * QR_DATE_ERR_LEN) that names the input and lists the accepted forms. *out is untouched
 * on failure.
 */
int qr_date_parse(const char *s, size_t n, int64_t now, int tz_offset_min, int64_t *out, char *err,
                  size_t errlen);

/* The UTC offset in minutes (east positive, -1439..1439) in force at instant t. */
typedef int (*qr_date_zone_fn)(int64_t t, void *ud);

/*
 * qr_date_parse in a zone whose offset changes over time (daylight saving): a wall-clock
 * time without a zone ("2026-10-15 00:00:00", "today", "this month", "1 month ago") is
 * read with the offset in force on that date, not the one in force at `now`. Forms that
 * are plain seconds from now ("now", "3 hours ago", "2 weeks ago") stay exact seconds.
 * A wall-clock time that a spring-forward skips is read as if the clock had not moved
 * (02:30 becomes 03:30 after the change); one repeated by a fall-back is one of the two.
 */
int qr_date_parse_zone(const char *s, size_t n, int64_t now, qr_date_zone_fn zone, void *zone_ud,
                       int64_t *out, char *err, size_t errlen);

/*
 * Formats t as "2024-03-01T12:00:00+01:00" in the zone tz_offset_min (UTC is "+00:00")
 * into buf, NUL-terminated and truncated to len (26 bytes fit years 0000..9999;
 * QR_DATE_ISO_LEN fits any t). An offset outside -1439..1439 is ignored: the instant is
 * written in UTC. Years outside 0000..9999 are written with more digits or a sign. Does
 * nothing when buf is NULL or len is 0.
 */
void qr_date_format_iso(int64_t t, int tz_offset_min, char *buf, size_t len);

/* Days since 1970-01-01 of the proleptic Gregorian date y-m-d (m 1..12, d 1..31; any
 * year), and back: the one calendar arithmetic every module uses. */
int64_t qr_days_from_civil(int64_t y, int m, int d);
void qr_civil_from_days(int64_t days, int64_t *y, int *m, int *d);

/* ---- the clock ---- */

/* The environment variable that pins "now" for the whole process. */
#define QR_CLOCK_ENV "QUARRY_NOW"

/*
 * Checks QUARRY_NOW: QR_OK when it is unset, empty or readable; QR_EINVAL with a one-line
 * message in err (QR_DATE_ERR_LEN fits it) otherwise. Accepted: ISO-8601 with or without
 * a zone (2026-11-24T01:30:00Z, 2026-11-24 01:30:00 +0100, 2026-11-24T01:30:00 in the
 * process's TZ, 2026-11-24), or epoch seconds (1700000000, @1700000000). Relative forms
 * ("yesterday") are refused: they would need a clock to read. A host calls this once at
 * start and refuses to run when it fails (the CLI exits 2), since qr_clock_now cannot
 * report an error.
 */
int qr_clock_check(char *err, size_t errlen);

/*
 * Now, in epoch seconds: QUARRY_NOW when it is set and readable (the same instant on
 * every call: a pinned clock does not tick), else the system's real-time clock. When
 * QUARRY_NOW is set but unreadable (a host that skipped qr_clock_check) it returns 0
 * (1970-01-01), which no window or schedule mistakes for today.
 */
int64_t qr_clock_now(void);

/* The process's UTC offset in minutes (east positive, -1439..1439) in force at instant
 * t, from TZ (localtime_r); 0 when the C library cannot tell. */
int qr_clock_offset_at(int64_t t);

/* qr_date_parse_zone in the process's time zone (TZ), with now = qr_clock_now(). */
int qr_clock_parse(const char *s, size_t n, int64_t *out, char *err, size_t errlen);

#endif
