/*
 * fuzz_git.c: libFuzzer harness for the two parsers of the git source that read text
 * quarry does not write: .mailmap files (repository content) and git's `--raw --numstat
 * -z` output (paths are repository content). The first byte picks the parser; any input
 * must parse or fail cleanly, and what parses must be usable (lookups, consistent sums).
 */
#include "../../src/git/git_int.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const char *text = (const char *)data + 1;
    size_t n = size - 1;
    if (data[0] % 3 == 0) {
        qr_mailmap *m = NULL;
        if (qr__mailmap_parse(text, n, &m) == QR_OK) {
            const char *name = "A U Thor", *email = "author@example.com";
            qr__mailmap_map(m, &name, &email);
            /* every email the input mentions, looked up */
            for (const char *p = memchr(text, '<', n); p;
                 p = memchr(p + 1, '<', n - (size_t)(p + 1 - text))) {
                const char *q = memchr(p, '>', n - (size_t)(p - text));
                if (!q)
                    break;
                char buf[256];
                size_t len =
                    (size_t)(q - p - 1) < sizeof buf - 1 ? (size_t)(q - p - 1) : sizeof buf - 1;
                memcpy(buf, p + 1, len);
                buf[len] = '\0';
                name = "x", email = buf;
                qr__mailmap_map(m, &name, &email);
                if (!name || !email)
                    abort();
                if (p + 1 >= text + n)
                    break;
            }
            qr__mailmap_free(m);
        }
        return 0;
    }
    qr_arena a;
    qr_arena_init(&a, 64u << 20);
    qr_commit_stats *st;
    size_t nst;
    if (qr__numstat_parse(text, n, data[0] % 3 == 1, &a, &st, &nst) == QR_OK) {
        for (size_t i = 0; i < nst; i++) {
            int64_t adds = 0;
            for (uint32_t j = 0; j < st[i].nfiles; j++) {
                if (!st[i].files[j].path || !strchr("ADMT", st[i].files[j].status))
                    abort();
                adds += st[i].files[j].additions;
            }
            if (adds != st[i].additions)
                abort();
        }
    }
    qr_arena_release(&a);
    return 0;
}
