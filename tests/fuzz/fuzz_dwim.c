/*
 * fuzz_dwim.c: libFuzzer harness for the DWIM intent parser: any bytes parse without a
 * crash or hang, the confidence stays in [0, 1], the alternatives are at most three and
 * no better than the reading chosen, and the JSON printed for it reads back as JSON.
 */
#include "quarry/dwim.h"
#include "quarry/host.h"
#include "quarry/value.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool some_path(void *ud, const char *p)
{
    (void)ud;
    return !strcmp(p, "src/x.c") || !strcmp(p, "src");
}

static bool some_symbol(void *ud, const char *s)
{
    (void)ud;
    return !strcmp(s, "lx_eval");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static qr_tools *tools;
    if (!tools && !(tools = qr_tools_default()))
        abort();
    qr_dwim_lookup lk = {.tools = tools, .path_exists = some_path, .symbol_known = some_symbol};
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_dwim_intent in;
    int rc = qr_dwim_parse(&lk, (const char *)data, size, &a, &in);
    if (rc != QR_OK)
        abort();
    if (!(in.confidence >= 0 && in.confidence <= 1) || in.nalts > 3)
        abort();
    for (size_t i = 0; i < in.nalts; i++)
        if (in.alts[i].confidence > in.confidence)
            abort();
    qr_buf b;
    qr_buf_init(&b);
    qr_dwim_intent_json(&in, &b);
    qr_val v;
    qr_read_error e;
    /* the JSON must read back whenever the input was valid UTF-8 (strings are copied) */
    if (qr_utf8_valid((const char *)data, size) && !memchr(data, 0, size) &&
        qr_json_read(&a, b.p, b.len, &v, &e) != QR_OK)
        abort();
    qr_buf_release(&b);
    qr_arena_release(&a);
    return 0;
}
