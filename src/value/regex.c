/*
 * regex.c: compiling regexes with PCRE2 into values.
 *
 * PCRE2's memory comes from the arena (through a general context whose free does
 * nothing), so a compiled pattern lives and dies with the values that use it and counts
 * against the sandbox's memory cap. Patterns are UTF and accept invalid UTF-8 subjects.
 * Matching, with its backtracking limits, is in the Lisp's regex library.
 */
#include "quarry/value.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <string.h>

static void *arena_malloc(size_t n, void *ud)
{
    return qr_arena_alloc(ud, n);
}

static void arena_free(void *p, void *ud)
{
    (void)p;
    (void)ud;
}

int qr_regex_compile(qr_arena *a, const char *pat, size_t n, qr_val *out, qr_read_error *err)
{
    pcre2_general_context *gc = pcre2_general_context_create(arena_malloc, arena_free, a);
    if (!gc)
        return QR_ENOMEM;
    pcre2_compile_context *cc = pcre2_compile_context_create(gc);
    if (!cc)
        return QR_ENOMEM;
    pcre2_set_max_pattern_length(cc, 1 << 16);
    pcre2_set_parens_nest_limit(cc, 200);
    int code;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, n, PCRE2_UTF | PCRE2_MATCH_INVALID_UTF,
                                   &code, &off, cc);
    if (!re) {
        if (a->exhausted)
            return QR_ENOMEM;
        if (err) {
            PCRE2_UCHAR msg[160];
            pcre2_get_error_message(code, msg, sizeof msg);
            snprintf(err->msg, sizeof err->msg, "%s at offset %zu of '%.*s'", (char *)msg,
                     (size_t)off, (int)(n > 80 ? 80 : n), pat);
            err->line = err->col = 0;
        }
        return QR_EINVAL;
    }
    qr_regex *rx = qr_arena_alloc(a, sizeof *rx);
    if (!rx)
        return QR_ENOMEM;
    qr_val src = qr_str_new(a, pat, n);
    if (a->exhausted)
        return QR_ENOMEM;
    rx->source = src.s;
    rx->code = re;
    out->t = QR_T_REGEX;
    out->re = rx;
    return QR_OK;
}
