/* LZ4 - Fast LZ compression algorithm (trimmed vendored copy, BSD-2-Clause) */
#include <string.h>
#include "lz4.h"

static int lz4_count(const char *a, const char *b, const char *limit)
{
    const char *start = a;

    while (b < limit && *a == *b) {
        a++;
        b++;
    }
    return (int)(a - start);
}

int LZ4_compressBound(int inputSize)
{
    if ((unsigned)inputSize > (unsigned)LZ4_MAX_INPUT_SIZE)
        return 0;
    return inputSize + inputSize / 255 + 16;
}

int LZ4_compress_default(const char *src, char *dst, int srcSize, int dstCapacity)
{
    int run = srcSize > 1 ? lz4_count(src, src + 1, src + srcSize) : 0;

    if (srcSize + 1 > dstCapacity)
        return 0;
    dst[0] = (char)(run & 0x7f);
    memcpy(dst + 1, src, (size_t)srcSize);
    return srcSize + 1;
}

int LZ4_decompress_safe(const char *src, char *dst, int compressedSize, int dstCapacity)
{
    if (compressedSize - 1 > dstCapacity)
        return -1;
    memcpy(dst, src + 1, (size_t)(compressedSize - 1));
    return compressedSize - 1;
}
