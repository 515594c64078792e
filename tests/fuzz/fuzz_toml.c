/*
 * fuzz_toml.c: libFuzzer harness for the TOML reader: any input reads into a map or fails
 * with a well-formed error (a position inside the input, a non-empty lowercase UTF-8
 * message), within a capped arena, never crashing or running away. With QR_TOML_NO_TEXT
 * the same input gives the same result and position, and a well-formed message (that it
 * quotes no text is checked by the unit tests, case by case).
 */
#include "quarry/toml.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    qr_arena a;
    qr_arena_init(&a, 16u << 20);
    qr_val v;
    qr_read_error err;
    int rc = qr_toml_read(&a, (const char *)data, size, &v, &err);
    if (rc == QR_OK) {
        if (v.t != QR_T_MAP || v.dep > QR_TOML_MAX_DEPTH)
            abort();
        qr_buf b;
        qr_buf_init(&b);
        qr_print_json(&b, v, false);
        qr_buf_release(&b);
    } else {
        size_t len = strlen(err.msg);
        if (rc != QR_EINVAL && rc != QR_ELIMIT && rc != QR_ENOMEM)
            abort();
        if (!qr_is_nil(v) || len == 0 || !(err.msg[0] >= 'a' && err.msg[0] <= 'z') ||
            !qr_utf8_valid(err.msg, len))
            abort();
        if (rc != QR_ENOMEM) {
            size_t lines = 1;
            for (size_t k = 0; k < size; k++)
                lines += data[k] == '\n';
            if (err.line < 1 || err.line > lines || err.col < 1 || err.col > size + 1)
                abort();
        }
    }
    qr_arena b;
    qr_arena_init(&b, 16u << 20);
    qr_val w;
    qr_read_error q;
    int rq = qr_toml_read_ex(&b, (const char *)data, size, QR_TOML_NO_TEXT, &w, &q);
    if (rq != rc || (rc == QR_EINVAL && (q.line != err.line || q.col != err.col)))
        abort();
    if (rq != QR_OK && (!q.msg[0] || !qr_utf8_valid(q.msg, strlen(q.msg))))
        abort();
    qr_arena_release(&b);
    qr_arena_release(&a);
    return 0;
}
