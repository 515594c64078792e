/*
 * fuzz_jsonrpc.c: libFuzzer harness for the shared JSON-RPC framing (quarry/jsonrpc.h).
 * The first byte picks the framing (lines, Content-Length headers, automatic) and a
 * message cap (small, so the over-the-cap paths are reached); the rest is the stream.
 * Every message read must be within the cap, every result one of the documented codes,
 * and reading must end (at the end of input) without a crash or a hang. The poll that
 * shows messages without consuming them runs between reads.
 */
#include "quarry/jsonrpc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_peek(void *ud, const char *msg, size_t len)
{
    size_t max = *(const size_t *)ud;
    (void)msg;
    if (len > max)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 << 20)
        return 0;
    qr_jsonrpc_framing fr = (qr_jsonrpc_framing)(data[0] % 3);
    static const size_t caps[] = {0, 1, 16, 100, 4096};
    size_t max = caps[(data[0] / 3) % 5];
    FILE *in = tmpfile();
    if (!in)
        return 0;
    if (size > 1 && fwrite(data + 1, 1, size - 1, in) != size - 1) {
        fclose(in);
        return 0;
    }
    fflush(in);
    lseek(fileno(in), 0, SEEK_SET);
    qr_jsonrpc_reader r;
    if (qr_jsonrpc_reader_init(&r, fileno(in), fr, max) != QR_OK) {
        fclose(in);
        return 0;
    }
    size_t cap = r.max;
    for (size_t i = 0; i < size + 2; i++) { /* every result consumes input */
        const char *m;
        size_t n;
        int rc = qr_jsonrpc_read(&r, 1000, NULL, &m, &n);
        if (rc == QR_OK && (n > cap || !m))
            abort();
        if (rc == QR_ELIMIT && r.bad_len <= cap)
            abort();
        if (rc != QR_OK && rc != QR_ELIMIT && rc != QR_EINVAL && rc != QR_EIO)
            abort();
        if (rc == QR_EIO)
            break;
        if (i % 2)
            qr_jsonrpc_poll(&r, on_peek, &cap);
    }
    qr_jsonrpc_reader_release(&r);
    fclose(in);
    return 0;
}
