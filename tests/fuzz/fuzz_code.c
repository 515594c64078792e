/*
 * fuzz_code.c: libFuzzer harness for the C/C++ extractor (src/code/extract.c): any bytes
 * (the first one picks C or C++) extract into items and references within a capped arena,
 * or fail only with QR_ENOMEM; every item has a name, a line range inside the input and a
 * byte range inside it, every reference a name and a line inside it; the JSON of each item
 * prints.
 */
#include "quarry/code.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    qr_code_lang lang = data[0] & 1 ? QR_CODE_LANG_CPP : QR_CODE_LANG_C;
    const char *src = (const char *)data + 1;
    size_t n = size - 1;
    qr_arena a;
    qr_arena_init(&a, 64u << 20);
    qr_code_file f;
    int rc = qr_code_extract(lang, src, n, &a, &f);
    if (rc != QR_OK && rc != QR_ENOMEM)
        abort();
    if (rc == QR_OK) {
        uint32_t lines = 1;
        for (size_t i = 0; i < n; i++)
            lines += src[i] == '\n';
        for (size_t i = 0; i < f.nitems; i++) {
            const qr_code_item *it = &f.items[i];
            if (!it->name || it->line < 1 || it->line > lines || it->end_line < it->line ||
                it->end_line > lines || it->start_byte > it->end_byte || it->end_byte > n ||
                (unsigned)it->kind >= QR_CODE_KIND_COUNT)
                abort();
        }
        for (size_t i = 0; i < f.nrefs; i++) {
            const qr_code_ref *r = &f.refs[i];
            if (!r->name || r->line < 1 || r->line > lines ||
                (unsigned)r->kind >= QR_CODE_REF_KIND_COUNT)
                abort();
        }
    }
    qr_arena_release(&a);
    return 0;
}
