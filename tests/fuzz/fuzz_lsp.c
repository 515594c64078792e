/*
 * fuzz_lsp.c: libFuzzer harness for `quarry lsp`'s input: the bytes are what a client
 * writes on the server's stdin (Content-Length frames, JSON-RPC messages, documents whose
 * text goes through the parser, the checker, completion, hover, definition, symbols and
 * formatting). The server must read it all and return 0 or 1, never crash or hang. The
 * corpus holds whole sessions (initialize, didOpen, requests at many positions, exit).
 */
#include "quarry/lsp.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 20)
        return 0;
    FILE *in = tmpfile();
    if (!in)
        return 0;
    if (size && fwrite(data, 1, size, in) != size) {
        fclose(in);
        return 0;
    }
    fflush(in);
    lseek(fileno(in), 0, SEEK_SET);
    int out = open("/dev/null", O_WRONLY);
    if (out < 0) {
        fclose(in);
        return 0;
    }
    int rc = qr_lsp_serve(fileno(in), out);
    if (rc != 0 && rc != 1)
        abort();
    close(out);
    fclose(in);
    return 0;
}
