/*
 * check.h: the few macros the unit tests use. A failed check prints where and what, and
 * the test exits non-zero at the end; no test framework is needed.
 */
#ifndef QUARRY_CHECK_H
#define QUARRY_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);         \
            check_failures++;                                                                \
        }                                                                                    \
    } while (0)

#define CHECK_STR(got, want)                                                                 \
    do {                                                                                     \
        const char *g_ = (got), *w_ = (want);                                                \
        if (!g_ || strcmp(g_, w_) != 0) {                                                    \
            fprintf(stderr, "%s:%d: expected \"%s\", got \"%s\"\n", __FILE__, __LINE__, w_,  \
                    g_ ? g_ : "(null)");                                                     \
            check_failures++;                                                                \
        }                                                                                    \
    } while (0)

#define CHECK_DONE()                                                                         \
    do {                                                                                     \
        if (check_failures)                                                                  \
            fprintf(stderr, "%d check(s) failed\n", check_failures);                         \
        return check_failures ? 1 : 0;                                                       \
    } while (0)

#endif
