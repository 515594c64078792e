/*
 * hash.c: 64-bit hashing of byte strings and a finalizer for combining hashes.
 *
 * The byte hash reads eight bytes at a time and mixes with multiply-xorshift rounds;
 * it is quarry's own, chosen for short keys (keywords, field names, author emails).
 * qr_hash_bytes is the same in every process (checksums and fingerprints in quarry's own
 * cache files use it; they are rebuilt when a version changes it). qr_hash_text starts
 * from a random per-process seed: the tables whose keys untrusted input picks (maps read
 * from JSON, TOML or EDN; interned keywords) use it, so colliding keys cannot be
 * prepared in advance to make them quadratic.
 */
#define _XOPEN_SOURCE 700 /* clock_gettime */
#include "quarry/base.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

uint64_t qr_hash_mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

static uint64_t hash_from(uint64_t h, const unsigned char *s, size_t n)
{
    h ^= n * 0x9e3779b97f4a7c15ULL;
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

uint64_t qr_hash_bytes(const void *p, size_t n)
{
    return hash_from(0x6a09e667f3bcc908ULL, p, n);
}

/* The per-process seed of qr_hash_text: random bytes from the kernel, else the clock, the
 * process id and an address. Set once; a race between threads only picks one of two
 * random seeds. */
static _Atomic uint64_t text_seed;

static uint64_t seed_now(void)
{
    uint64_t s = atomic_load_explicit(&text_seed, memory_order_relaxed);
    if (s)
        return s;
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        r = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 12) ^
            (uint64_t)(uintptr_t)&r;
    }
    r = qr_hash_mix(r) | 1;
    uint64_t expected = 0;
    if (!atomic_compare_exchange_strong(&text_seed, &expected, r))
        r = expected;
    return r;
}

uint64_t qr_hash_text(const void *p, size_t n)
{
    return hash_from(seed_now(), p, n);
}
