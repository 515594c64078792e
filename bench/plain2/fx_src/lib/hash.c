#include "hash.h"

static unsigned hash_mix(unsigned h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    return h;
}

unsigned hash_bytes(const void *p, size_t n)
{
    const unsigned char *s = p;
    unsigned h = 2166136261u;

    while (n--)
        h = (h ^ *s++) * 16777619u;
    return hash_mix(h);
}
