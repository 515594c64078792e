/*
 * fuzz_ask.c: libFuzzer harness for reading model replies in `quarry ask`: any text is
 * located (fences, balanced forms), read as JSON or EDN, told apart by mode, and a query
 * payload is validated and compiled; or it is refused with a message. The Compiler's
 * code extraction runs too. Never a crash, never a hang, never an empty error.
 */
#include "agents/ask_int.h"
#include "quarry/host.h"
#include "quarry/query.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static qr_tools *tools;
    if (!tools && !(tools = qr_tools_default()))
        abort();
    qr_arena a;
    qr_arena_init(&a, 32u << 20);
    qr_buf err, code;
    qr_buf_init(&err);
    qr_buf_init(&code);
    const char *text = (const char *)data;
    qr_val v, payload;
    bool json = false;
    int rc = qr_ask_parse_reply(&a, text, size, &v, &json, &err);
    if (rc == QR_EINVAL && err.len == 0)
        abort();
    if (rc == QR_OK) {
        ask_mode mode;
        qr_buf_reset(&err);
        rc = ask_reply_mode(&a, v, &mode, &payload, &err);
        if (rc == QR_EINVAL && err.len == 0)
            abort();
        if (rc == QR_OK && mode == ASK_MODE_QUERY) {
            qr_query_opts o;
            qr_query_opts_init(&o, tools);
            qr_query_compiled q = {0};
            int crc = qr_query_compile_value(&o, payload, json, &q);
            if (crc == QR_EINVAL && q.nproblems == 0)
                abort();
            qr_query_compiled_clear(&q);
        }
    }
    qr_ask_extract_code(text, size, &code);
    if (code.len > size)
        abort();
    qr_buf_release(&code);
    qr_buf_release(&err);
    qr_arena_release(&a);
    return 0;
}
