/* LZ4 - Fast LZ compression algorithm (trimmed vendored copy, BSD-2-Clause) */
#ifndef LZ4_H_2983827168210
#define LZ4_H_2983827168210

#define LZ4_MAX_INPUT_SIZE 0x7E000000

int LZ4_compressBound(int inputSize);
int LZ4_compress_default(const char *src, char *dst, int srcSize, int dstCapacity);
int LZ4_decompress_safe(const char *src, char *dst, int compressedSize, int dstCapacity);

#endif
