#ifndef CRC32_H
#define CRC32_H

#include <stddef.h>

unsigned crc32_update(unsigned crc, const void *p, size_t n);

#endif
