/*
 * fuzz_eval.c: libFuzzer harness for the whole interpreter under tight limits: any
 * program reads, analyzes and runs to a value or a typed error within the limits, and
 * the session stays usable afterwards. Then it runs again with one arena allocation
 * refused (the k-th, k from the input's size): that run either succeeds or fails with
 * memory-exceeded, and the session is still usable.
 */
#include "quarry/lisp.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    qr_lisp_limits lim;
    qr_lisp_limits_default(&lim);
    lim.timeout_ms = 100;
    lim.max_memory = 16u << 20;
    lim.max_steps = 200000;
    lim.max_output = 4096;
    lim.regex_match_limit = 10000;
    qr_lisp_session *s = qr_lisp_session_new(&lim);
    if (!s)
        return 0;
    qr_lisp_result res;
    int rc = qr_lisp_run(s, (const char *)data, size, &res);
    if (rc != QR_OK && res.kind == QR_LE_NONE)
        abort(); /* every failure has a kind */
    if (rc == QR_OK) {
        qr_buf b;
        qr_buf_init(&b);
        qr_print(&b, res.value, QR_PRINT_READABLY);
        qr_print_json(&b, res.value, false);
        qr_buf_release(&b);
    }
    qr_lisp_result_clear(&res);
    rc = qr_lisp_run(s, "(+ 1 2)", 7, &res);
    if (rc != QR_OK || res.value.t != QR_T_INT || res.value.i != 3)
        abort();
    qr_lisp_result_clear(&res);

    qr_arena *a = qr_lisp_session_arena(s);
    a->fail_countdown = size % 251 + 1;
    rc = qr_lisp_run(s, (const char *)data, size, &res);
    bool injected = a->fail_countdown == 0;
    a->fail_countdown = 0;
    if (injected && rc == QR_OK)
        abort(); /* a refused allocation went unnoticed */
    if (injected && res.kind != QR_LE_MEMORY)
        abort();
    qr_lisp_result_clear(&res);
    rc = qr_lisp_run(s, "(+ 1 2)", 7, &res);
    if (rc != QR_OK || res.value.t != QR_T_INT || res.value.i != 3)
        abort();
    qr_lisp_result_clear(&res);
    qr_lisp_session_free(s);
    return 0;
}
