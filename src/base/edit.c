/*
 * edit.c: the edit distance behind every "did you mean" (unknown builtins, tools,
 * parameters, query ops, pipeline stages, config keys, agent-file keys). One function
 * with two options, case folding and transpositions, so that each caller keeps only its
 * own rule for how close is close enough.
 *
 * Rejected: a suggestion function here too (callers differ in thresholds and in what a
 * prefix counts for, and those rules are part of each language's errors).
 */
#include "quarry/base.h"

#include <stdint.h>

static char fold(char c, int flags)
{
    if (!(flags & QR_EDIT_FOLD))
        return c;
    if (c >= 'A' && c <= 'Z')
        return (char)(c - 'A' + 'a');
    return c == '-' ? '_' : c;
}

size_t qr_edit_distance(const char *a, size_t an, const char *b, size_t bn, int flags)
{
    if (an > QR_EDIT_MAX || bn > QR_EDIT_MAX)
        return SIZE_MAX;
    size_t rows[3][QR_EDIT_MAX + 1];
    size_t *pp = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= bn; j++)
        prev[j] = j;
    for (size_t i = 1; i <= an; i++) {
        cur[0] = i;
        char ca = fold(a[i - 1], flags);
        for (size_t j = 1; j <= bn; j++) {
            char cb = fold(b[j - 1], flags);
            size_t d = prev[j] + 1;
            if (cur[j - 1] + 1 < d)
                d = cur[j - 1] + 1;
            if (prev[j - 1] + (ca != cb) < d)
                d = prev[j - 1] + (ca != cb);
            if ((flags & QR_EDIT_TRANSPOSE) && i > 1 && j > 1 && ca == fold(b[j - 2], flags) &&
                fold(a[i - 2], flags) == cb && pp[j - 2] + 1 < d)
                d = pp[j - 2] + 1;
            cur[j] = d;
        }
        size_t *t = pp;
        pp = prev;
        prev = cur;
        cur = t;
    }
    return prev[bn];
}
