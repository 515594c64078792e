/*
 * arena.c: the capped region allocator every evaluation allocates from.
 *
 * A chain of malloc'd chunks, newest first. Allocation bumps a pointer; nothing is freed
 * singly. The cap counts bytes handed out, so it is the sandbox's memory limit: a
 * program that builds a 1 GiB string is refused before malloc is asked. Marks let a
 * session keep what successful programs built and drop what a failed one built.
 * Rejected: malloc per value with reference counting (slower, and a cap is then an
 * estimate rather than a bound).
 */
#include "quarry/base.h"

#include <stdlib.h>
#include <string.h>

struct qr_arena_chunk {
    qr_arena_chunk *prev;
    size_t size; /* usable bytes in data */
    size_t used;
    _Alignas(16) unsigned char data[];
};

#define CHUNK_MIN (64 * 1024)

void qr_arena_init(qr_arena *a, size_t cap)
{
    memset(a, 0, sizeof *a);
    a->cap = cap;
}

void qr_arena_fail(qr_arena *a, int code)
{
    if (code == QR_ELIMIT)
        a->too_deep = true;
    else
        a->exhausted = true;
    if (a->on_fail)
        a->on_fail(a->ud, code);
}

static void *refuse(qr_arena *a)
{
    qr_arena_fail(a, QR_ENOMEM);
    return NULL;
}

void *qr_arena_alloc(qr_arena *a, size_t n)
{
    size_t need, total;
    if (!qr_size_add(n, 15, &need))
        return refuse(a);
    need &= ~(size_t)15;
    if (need == 0)
        need = 16;
    if (!qr_size_add(a->used, need, &total) || (a->cap && total > a->cap))
        return refuse(a);
    if (a->fail_countdown && --a->fail_countdown == 0)
        return refuse(a);
    qr_arena_chunk *c = a->head;
    if (!c || c->size - c->used < need) {
        size_t size = need > CHUNK_MIN ? need : CHUNK_MIN;
        if (c && c->size * 2 > size && c->size < (64u << 20))
            size = c->size * 2;
        size_t bytes;
        if (!qr_size_add(sizeof(qr_arena_chunk), size, &bytes))
            return refuse(a);
        c = malloc(bytes);
        if (!c)
            return refuse(a);
        c->prev = a->head;
        c->size = size;
        c->used = 0;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += need;
    a->used = total;
    return p;
}

void *qr_arena_zalloc(qr_arena *a, size_t n)
{
    void *p = qr_arena_alloc(a, n);
    if (p)
        memset(p, 0, n);
    return p;
}

void *qr_arena_realloc(qr_arena *a, void *p, size_t old_n, size_t new_n)
{
    if (!p)
        return qr_arena_alloc(a, new_n);
    qr_arena_chunk *c = a->head;
    size_t old_r = (old_n + 15) & ~(size_t)15, new_r;
    if (old_r == 0)
        old_r = 16;
    if (!qr_size_add(new_n, 15, &new_r))
        return refuse(a);
    new_r &= ~(size_t)15;
    if (c && (unsigned char *)p + old_r == c->data + c->used && new_r >= old_r &&
        c->size - (c->used - old_r) >= new_r) {
        size_t total;
        if (!qr_size_add(a->used, new_r - old_r, &total) || (a->cap && total > a->cap))
            return refuse(a);
        if (a->fail_countdown && --a->fail_countdown == 0)
            return refuse(a);
        c->used += new_r - old_r;
        a->used = total;
        return p;
    }
    void *q = qr_arena_alloc(a, new_n);
    if (q)
        memcpy(q, p, old_n < new_n ? old_n : new_n);
    return q;
}

char *qr_arena_strndup(qr_arena *a, const char *s, size_t n)
{
    size_t m;
    if (!qr_size_add(n, 1, &m))
        return refuse(a);
    char *p = qr_arena_alloc(a, m);
    if (p) {
        memcpy(p, s, n);
        p[n] = 0;
    }
    return p;
}

qr_arena_mark qr_arena_get_mark(const qr_arena *a)
{
    qr_arena_mark m = {a->head, a->head ? a->head->used : 0, a->used};
    return m;
}

void qr_arena_rewind(qr_arena *a, qr_arena_mark m)
{
    while (a->head && a->head != m.head) {
        qr_arena_chunk *prev = a->head->prev;
        free(a->head);
        a->head = prev;
    }
    if (a->head)
        a->head->used = m.head_used;
    a->used = m.used;
    if (!a->cap || a->used < a->cap)
        a->exhausted = false;
    a->too_deep = false;
}

void qr_arena_release(qr_arena *a)
{
    qr_arena_mark zero = {NULL, 0, 0};
    qr_arena_rewind(a, zero);
    a->exhausted = false;
}
