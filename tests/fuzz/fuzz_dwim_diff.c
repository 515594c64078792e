/*
 * fuzz_dwim_diff.c: libFuzzer harness for the unified-diff parser and applier of the fix
 * verb (src/dwim/diff.c). The input is a diff, optionally followed by a NUL byte and the
 * content of the file it applies to. Any bytes parse without a crash or hang; a diff that
 * parses applies or is refused cleanly (one message); an applied hunk set leaves exactly
 * the file's lines, less the removed, plus the added.
 */
#include "dwim/dwim_int.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t count_lines(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += s[i] == '\n';
    return k + (n && s[n - 1] != '\n');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *t = (const char *)data;
    const char *nul = memchr(t, '\0', size);
    size_t dn = nul ? (size_t)(nul - t) : size;
    const char *file = nul ? nul + 1 : "";
    size_t fn = nul ? size - dn - 1 : 0;
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_buf err;
    qr_buf_init(&err);
    (void)qr__dwim_diff_like(t, dn);
    qr_dwim_diff d;
    int rc = qr__dwim_diff_parse(t, dn, &a, &d, &err);
    if (rc != QR_OK && (rc != QR_EINVAL || !err.len))
        abort(); /* refused with a message, never out of memory on small input */
    for (size_t f = 0; rc == QR_OK && f < d.nfiles; f++) {
        const qr_dwim_fdiff *fd = &d.files[f];
        qr_buf out;
        qr_buf_init(&out);
        qr_buf_reset(&err);
        uint32_t first = 0;
        int arc = qr__dwim_diff_apply(&d, fd, "x", file, fn, &out, &first, &err);
        if (arc == QR_OK) {
            size_t minus = 0, plus = 0;
            for (size_t h = 0; h < fd->nhunks; h++)
                for (size_t j = 0; j < fd->hunks[h].nlines; j++) {
                    char k = d.lines[fd->hunks[h].first + j].kind;
                    minus += k == '-';
                    plus += k == '+';
                }
            if (count_lines(out.p ? out.p : "", out.len) + minus !=
                count_lines(file, fn) + plus)
                abort();
        } else if (arc != QR_EINVAL || !err.len) {
            abort();
        }
        qr_buf_release(&out);
    }
    qr_buf_release(&err);
    qr_arena_release(&a);
    return 0;
}
