/*
 * fuzz_mem_import.c: libFuzzer harness for the memory store's JSON-lines import: any
 * bytes are imported into a private in-memory store in one transaction, or refused with a
 * "line N: ..." message and nothing imported; an accepted import then loads a snapshot
 * (its graph must pass qr_graph_check) and exports. Never a crash.
 */
#include "quarry/graph.h"
#include "quarry/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    qr_mem *m = NULL;
    qr_buf err;
    qr_buf_init(&err);
    if (qr_mem_open(&m, ":memory:", QR_MEM_CREATE, &err) != QR_OK)
        abort();
    qr_mem_set_now(m, 1700000000);
    qr_mem_counts counts;
    int rc = qr_mem_import(m, (const char *)data, size, &counts, &err);
    if (rc == QR_EINVAL && (err.len == 0 || strncmp(err.p, "line ", 5)))
        abort();
    if (rc == QR_OK) {
        const qr_mem_snapshot *s = NULL;
        qr_buf_reset(&err);
        if (qr_mem_snapshot_get(m, &s, &err) == QR_OK) {
            qr_buf gerr;
            qr_buf_init(&gerr);
            if (qr_graph_check(&s->graph, &gerr) != QR_OK)
                abort();
            qr_buf_release(&gerr);
            qr_mem_snapshot_release(s);
        }
        FILE *out = fopen("/dev/null", "w");
        if (out) {
            qr_mem_export(m, out, &counts, &err);
            fclose(out);
        }
    }
    qr_mem_close(m);
    qr_buf_release(&err);
    return 0;
}
