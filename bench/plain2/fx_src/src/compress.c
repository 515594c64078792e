#include "compress.h"
#include "../vendor/lz4/lz4.h"

size_t compress_block(const void *src, size_t n, void *dst, size_t cap)
{
    int bound = LZ4_compressBound((int)n);
    int r;

    if ((size_t)bound > cap)
        return 0;
    r = LZ4_compress_default(src, dst, (int)n, (int)cap);
    return r > 0 ? (size_t)r : 0;
}

int decompress_block(const void *src, size_t n, void *dst, size_t cap)
{
    return LZ4_decompress_safe(src, dst, (int)n, (int)cap);
}
