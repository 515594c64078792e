/*
 * fuzz_json.c: libFuzzer harness for the JSON reader: any input reads or fails with a
 * message; what reads prints as JSON that reads back to an equal value.
 */
#include "quarry/value.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    qr_arena a;
    qr_arena_init(&a, 64u << 20);
    qr_val v;
    qr_read_error err;
    if (qr_json_read(&a, (const char *)data, size, &v, &err) == QR_OK) {
        qr_buf b;
        qr_buf_init(&b);
        qr_print_json(&b, v, false);
        qr_val again;
        if (!b.failed && qr_json_read(&a, b.p, b.len, &again, &err) != QR_OK)
            abort(); /* our own output must always read back */
        qr_buf_release(&b);
    }
    qr_arena_release(&a);
    return 0;
}
