#ifndef COMPRESS_H
#define COMPRESS_H

#include <stddef.h>

size_t compress_block(const void *src, size_t n, void *dst, size_t cap);
int decompress_block(const void *src, size_t n, void *dst, size_t cap);

#endif
