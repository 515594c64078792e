/*
 * fuzz_llm.c: libFuzzer harness for what the model client reads from the network: whole
 * response bodies of both wire formats, HTTP error bodies, and streamed replies through
 * the SSE parser. Input: byte 0 picks the mode (0 OpenAI body, 1 Anthropic body, 2 OpenAI
 * stream, 3 Anthropic stream, others: error body), byte 1 seeds the split of a stream into
 * pieces, the rest is the data. A stream fed in pieces must give exactly what it gives fed
 * whole (text, usage, stop reason, outcome); anything else aborts.
 */
#include "../../src/llm/llm_int.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int stream(qr_llm_provider p, const char *s, size_t n, unsigned seed, llm_reply *r)
{
    llm_stream st;
    llm_stream_init(&st, p, r);
    int rc = QR_OK;
    size_t i = 0;
    uint32_t x = seed * 2654435761u + 1;
    while (i < n && rc == QR_OK) {
        size_t k = 1;
        if (seed) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            k = 1 + x % 37;
        } else {
            k = n;
        }
        if (k > n - i)
            k = n - i;
        rc = llm_stream_feed(&st, s + i, k);
        i += k;
    }
    if (rc == QR_OK)
        rc = llm_stream_finish(&st);
    llm_stream_release(&st);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    unsigned mode = data[0], seed = data[1];
    const char *s = (const char *)data + 2;
    size_t n = size - 2;
    llm_reply a, b;
    llm_reply_init(&a);
    llm_reply_init(&b);
    switch (mode) {
    case 0:
    case 1: {
        int rc = mode == 0 ? llm_openai_parse(s, n, &a) : llm_anthropic_parse(s, n, &a);
        if ((rc == QR_OK) == a.failed)
            abort();
        if (a.failed && (!a.error[0] || strchr(a.error, '\n')))
            abort(); /* a failure always says what, in one line */
        break;
    }
    case 2:
    case 3: {
        qr_llm_provider p = mode == 2 ? QR_LLM_OPENAI : QR_LLM_ANTHROPIC;
        int rc1 = stream(p, s, n, 0, &a);
        int rc2 = stream(p, s, n, seed | 1, &b);
        if (rc1 != rc2 || a.failed != b.failed || a.finished != b.finished ||
            a.text.len != b.text.len ||
            (a.text.len && memcmp(a.text.p, b.text.p, a.text.len) != 0) ||
            memcmp(&a.usage, &b.usage, sizeof a.usage) != 0 || strcmp(a.stop, b.stop) != 0)
            abort();
        break;
    }
    default: {
        char msg[200];
        llm_error_message(s, n, msg, sizeof msg);
        if (strchr(msg, '\n') || strchr(msg, '\r') || !qr_utf8_valid(msg, strlen(msg)))
            abort();
        break;
    }
    }
    llm_reply_release(&a);
    llm_reply_release(&b);
    return 0;
}
