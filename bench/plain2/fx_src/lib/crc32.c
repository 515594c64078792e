#include "crc32.h"
#include "crc32_tab.c"

unsigned crc32_update(unsigned crc, const void *p, size_t n)
{
    const unsigned char *s = p;

    crc = ~crc;
    while (n--)
        crc = crc32_tab[(crc ^ *s++) & 0xff] ^ (crc >> 8);
    return ~crc;
}
