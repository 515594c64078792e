#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "log.h"

long parse_size(const char *s)
{
    char *end;
    long v = strtol(s, &end, 0);

    switch (*end) {
    case 'g': case 'G': v <<= 10; /* fall through */
    case 'm': case 'M': v <<= 10; /* fall through */
    case 'k': case 'K': v <<= 10; break;
    default: break;
    }
    return v;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);

    KV_CHECK(p != NULL);
    memcpy(p, s, n);
    return p;
}
