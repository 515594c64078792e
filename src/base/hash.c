/*
 * hash.c: 64-bit hashing of byte strings and a finalizer for combining hashes.
 *
 * The byte hash reads eight bytes at a time and mixes with multiply-xorshift rounds;
 * it is quarry's own, chosen for short keys (keywords, field names, author emails).
 * Hash values are not stable across versions and must never be persisted.
 */
#include "quarry/base.h"

#include <string.h>

uint64_t qr_hash_mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

uint64_t qr_hash_bytes(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = 0x6a09e667f3bcc908ULL ^ (n * 0x9e3779b97f4a7c15ULL);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ (w * 0x87c37b91114253d5ULL)) * 0x4cf5ad432745937fULL;
        h ^= h >> 29;
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++)
        w |= (uint64_t)s[i] << (8 * i);
    h = (h ^ (w * 0x87c37b91114253d5ULL)) * 0x4cf5ad432745937fULL;
    return qr_hash_mix(h);
}
