/*
 * fuzz_date.c: libFuzzer harness for the date parser and the clock's QUARRY_NOW reader.
 * The first 8 bytes choose the reference time and the fixed offset; the rest is the
 * text. Each call must either fail with a NUL-terminated one-line message or give an
 * instant inside years 0000..9999; with a daylight-saving zone, a text that carries its
 * own zone (or is epoch seconds) must give the same instant as with a fixed offset, and
 * a zone-less one must differ from some fixed-offset reading by no more than the zone's
 * two offsets allow. QUARRY_NOW set to the text must be accepted exactly when the clock
 * can read it, and then read as a time in range.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "quarry/date.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define T_MIN (-62167219200LL)
#define T_MAX 253402300799LL

/* a zone that is -08:00, or -07:00 in the middle third of every year-long cycle */
static int dst_zone(int64_t t, void *ud)
{
    (void)ud;
    int64_t r = t % 31556952;
    if (r < 0)
        r += 31556952;
    return r > 10000000 && r < 20000000 ? -420 : -480;
}

static void check_message(const char *err, size_t len)
{
    if (!memchr(err, 0, len) || !err[0] || strchr(err, '\n'))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    uint32_t a, b;
    memcpy(&a, data, 4);
    memcpy(&b, data + 4, 4);
    int64_t now = (int64_t)(a % 4000000000u) - 500000000; /* 1954..2111 */
    int off = (int)(b % 2879) - 1439;
    const char *s = (const char *)data + 8;
    size_t n = size - 8;

    char err[QR_DATE_ERR_LEN];
    int64_t fixed = 0, zoned = 0, pst = 0, pdt = 0;
    int rc = qr_date_parse(s, n, now, off, &fixed, err, sizeof err);
    if (rc != QR_OK && rc != QR_EINVAL)
        abort();
    if (rc == QR_OK && (fixed < T_MIN || fixed > T_MAX))
        abort();
    if (rc != QR_OK)
        check_message(err, sizeof err);

    int zrc = qr_date_parse_zone(s, n, now, dst_zone, NULL, &zoned, err, sizeof err);
    int prc = qr_date_parse(s, n, now, -480, &pst, NULL, 0);
    int drc = qr_date_parse(s, n, now, -420, &pdt, NULL, 0);
    if (zrc != QR_OK && zrc != QR_EINVAL)
        abort();
    if (zrc != QR_OK)
        check_message(err, sizeof err);
    else if (zoned < T_MIN || zoned > T_MAX)
        abort();
    /* either fixed offset reads it when the zone does (results near the ends of the
     * range aside, where one offset can push a reading out of it) */
    if (zrc == QR_OK && prc != QR_OK && drc != QR_OK && zoned > T_MIN + 86400 &&
        zoned < T_MAX - 86400)
        abort();
    /* the zone's reading lies within the two fixed readings, give or take the hour */
    if (zrc == QR_OK && prc == QR_OK && drc == QR_OK) {
        int64_t lo = pst < pdt ? pst : pdt, hi = pst < pdt ? pdt : pst;
        if (zoned < lo - 3600 || zoned > hi + 3600)
            abort();
    }

    /* QUARRY_NOW: no NUL inside (the environment cannot hold one) */
    if (n > 0 && n < 200 && !memchr(s, 0, n)) {
        char v[200];
        memcpy(v, s, n);
        v[n] = 0;
        setenv(QR_CLOCK_ENV, v, 1);
        int crc = qr_clock_check(err, sizeof err);
        int64_t t = qr_clock_now();
        if (crc == QR_OK && v[0] && (t < T_MIN || t > T_MAX))
            abort();
        if (crc != QR_OK && (crc != QR_EINVAL || t != 0))
            abort();
        if (crc != QR_OK)
            check_message(err, sizeof err);
        unsetenv(QR_CLOCK_ENV);
    }
    return 0;
}
