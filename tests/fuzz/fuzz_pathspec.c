/*
 * fuzz_pathspec.c: libFuzzer harness for what the git source reads from a `path`
 * parameter and from attributes files: pathspecs (magic, normalisation, quoted paths),
 * git's wildcard matching, the quoted form of a path, and the lines of a .gitattributes
 * file. The input is a pathspec, a newline, and a path. Whatever parses must match
 * without crashing, a shown path must read back to the same bytes, and the attributes
 * fingerprint must not depend on lines that cannot change a diff.
 */
#include "../../src/git/git_int.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *nl = memchr(buf, '\n', size);
    const char *spec = buf, *path = "";
    if (nl) {
        *nl = '\0';
        path = nl + 1;
    }
    size_t plen = strlen(path);
    qr_arena a;
    qr_arena_init(&a, 16u << 20);
    qr_buf err;
    qr_buf_init(&err);
    qr_pathspec ps;
    if (qr__pathspec_parse(&ps, spec, "/repo", &a, &err) == QR_OK) {
        (void)qr__pathspec_match(&ps, path, plen);
        for (size_t i = 1; i < plen; i++)
            if (path[i] == '/') {
                bool reach = qr__pathspec_reaches(&ps, path, i);
                bool cover = qr__pathspec_covers(&ps, path, i);
                /* a directory all of whose paths match can hold a match */
                if (cover && !reach)
                    abort();
            }
        const char *g = NULL;
        if (qr__pathspec_to_git(&ps, &a, &g) != QR_OK && !a.exhausted)
            abort();
    } else if (!err.len) {
        abort();
    }
    (void)qr__wildmatch(spec, strlen(spec), path, plen, true, false);
    (void)qr__wildmatch(spec, strlen(spec), path, plen, false, true);
    /* the shown form of a path reads back to its bytes */
    const char *shown = qr__path_shown(&a, path, plen), *back = NULL;
    if (shown && shown != path) {
        qr_buf_reset(&err);
        if (qr__path_unquote(&a, shown, &back, &err) != QR_OK || strcmp(back, path))
            abort();
    }
    /* a comment added to an attributes file changes nothing */
    uint64_t h1 = qr__attrs_hash_text((const char *)data, size);
    char *more = malloc(size + 16);
    if (more) {
        memcpy(more, data, size);
        size_t m = size;
        if (m && more[m - 1] != '\n')
            more[m++] = '\n';
        memcpy(more + m, "# a comment\n", 12);
        uint64_t h2 = qr__attrs_hash_text(more, m + 12);
        if (size && data[size - 1] == '\n' && h1 != h2)
            abort();
        free(more);
    }
    qr_buf_release(&err);
    qr_arena_release(&a);
    free(buf);
    return 0;
}
