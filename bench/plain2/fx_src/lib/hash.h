#ifndef HASH_H
#define HASH_H

#include <stddef.h>

unsigned hash_bytes(const void *p, size_t n);

#endif
