/*
 * fuzz_codeframe.c: libFuzzer harness for search_codebase's frame reader
 * (src/agents/codeframe.c): any bytes either make no frame (and leave it zeroed) or one
 * whose relation is in range, whose subject, place and "only" name are NUL-terminated,
 * within their buffers, made only of the characters a query may quote (identifier or path
 * characters, and a name pattern's '*'), whose depth is 0..8 and whose limit 0..100;
 * reading twice gives the same frame.
 */
#include "agents/codeframe.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MUST(c)                                                                                    \
    do {                                                                                           \
        if (!(c))                                                                                  \
            abort();                                                                               \
    } while (0)

static bool safe(const char *s)
{
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("_./-+", *s))
            return false;
    return true;
}

/* every other word is a name the index holds: the typo rule must not depend on luck */
static bool known(void *ud, const char *w)
{
    (void)ud;
    return strlen(w) % 2 == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 2048)
        return 0;
    char q[2049];
    memcpy(q, data, size);
    q[size] = '\0';
    cf_frame a, b;
    bool ra = qr__codeframe_read(q, &a, known, NULL);
    bool rb = qr__codeframe_read(q, &b, known, NULL);
    MUST(ra == rb && memcmp(&a, &b, sizeof a) == 0);
    if (!ra) {
        MUST(a.rel == CF_NONE && !a.subject[0] && !a.in[0]);
        return 0;
    }
    MUST(a.rel > CF_NONE && a.rel <= CF_MOST_INCLUDED);
    MUST(memchr(a.subject, 0, sizeof a.subject) && memchr(a.in, 0, sizeof a.in) &&
         memchr(a.only, 0, sizeof a.only));
    /* a name pattern's '*' is written into the query as ".*", nothing else of it */
    char subj[sizeof a.subject];
    size_t k = 0;
    for (const char *c = a.subject; *c; c++)
        if (!(a.pattern && *c == '*'))
            subj[k++] = *c;
    subj[k] = '\0';
    MUST(safe(subj) && safe(a.in) && safe(a.only));
    MUST(a.depth >= 0 && a.depth <= 8);
    MUST(a.limit >= 0 && a.limit <= 100);
    return 0;
}
