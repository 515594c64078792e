/*
 * fuzz_mem_snapshot.c: libFuzzer harness for the reader of STORE.snapshot, the memory
 * store's snapshot file (src/memory/store_snapfile.c). Any bytes are parsed as the file
 * twice: as they are (the header and checksum checks), and with the checksum recomputed
 * (every check behind it, as a hostile file that forges the checksum would reach them).
 * The generation and write id expected are the ones the bytes name, so the header never
 * stops a mutated file early. A file the reader accepts must give a snapshot whose graph
 * passes qr_graph_check, whose weights are in [0, 1] and whose lookups stay in bounds;
 * never a crash. Seeds: files written by quarry (format 2), one cut short, one with a
 * huge name count, and two that walked the tag loop past the image before the offset
 * arrays were checked whole (crash-overread, in format 1 as a review found it, now
 * refused by its version; crash-overread-v2, the same shape in format 2).
 */
#include "memory/memory_int.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t peek64(const uint8_t *data, size_t size, size_t off)
{
    uint64_t v = 0;
    if (size >= off + 8)
        memcpy(&v, data + off, 8);
    return v;
}

static void use(const qr_mem_snapshot *s)
{
    qr_buf err;
    qr_buf_init(&err);
    if (qr_graph_check(&s->graph, &err) != QR_OK)
        abort();
    qr_buf_release(&err);
    if (s->tag_off[0] != 0)
        abort();
    for (uint32_t i = 0; i < s->n; i++) {
        if (qr_mem_snapshot_find(s, s->key[i], s->key_len[i]) < 0 ||
            qr_mem_snapshot_find_id(s, s->id[i]) != (int64_t)i || s->type[i] >= s->ntypes ||
            s->provenance[i] >= s->nprovenances || s->tag_off[i + 1] < s->tag_off[i] ||
            !(s->weight[i] >= 0.0 && s->weight[i] <= 1.0))
            abort();
        for (uint32_t k = s->tag_off[i]; k < s->tag_off[i + 1]; k++)
            if (s->tag_ids[k] >= s->ntag_names)
                abort();
        (void)strlen(s->types[s->type[i]]);
        (void)strlen(s->provenances[s->provenance[i]]);
    }
    for (uint32_t a = 0; a < s->nagents; a++) {
        if (qr_mem_snapshot_agent(s, s->agents[a]) != (int64_t)a)
            abort();
        for (uint32_t i = 0; i < s->n && i < 64; i++)
            (void)qr_mem_snapshot_last_visit(s, a, i);
    }
    (void)qr_mem_snapshot_find(s, "absent", 6);
    (void)qr_mem_snapshot_find_id(s, -5);
}

static void run(const uint8_t *data, size_t size, bool seal)
{
    char *buf = malloc(size ? size : 1);
    if (!buf)
        return;
    if (size)
        memcpy(buf, data, size);
    if (seal)
        qr__mem_snapfile_seal(buf, size);
    qr_mem_snapshot *s = NULL;
    const char *why = NULL;
    int rc = qr__mem_snapfile_parse(buf, size, peek64(data, size, QR__SNAPFILE_OFF_GENERATION),
                                    peek64(data, size, QR__SNAPFILE_OFF_WRITE_ID), &s, &why);
    if (rc == QR_OK) {
        if (!s || why)
            abort();
        use(s);
        qr_mem_snapshot_release(s);
    } else if (s || !why) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run(data, size, false);
    run(data, size, true);
    return 0;
}
