/*
 * fuzz_pipeline.c: libFuzzer harness for the pipeline parser (and runner). The first
 * byte picks the mode: even, the rest is one pipeline text; odd, it is cut at newlines
 * into separate stages (the CLI's -p). A parse either fails with a well-formed error (a
 * lowercase UTF-8 message, a stage index in range, an offset inside the input) or gives
 * a pipeline whose normalized text parses again to the same text. Parsed pipelines then
 * run on a small in-memory store (ten linked notes, visits), which must succeed or fail
 * with a message, never crash.
 */
#include "quarry/pipeline.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static qr_mem *store;

static void build(void)
{
    qr_buf err;
    qr_buf_init(&err);
    if (qr_mem_open(&store, ":memory:", QR_MEM_CREATE, &err) != QR_OK)
        abort();
    static const char *const keys[] = {"btree", "lsm-tree", "fts5", "journal#1", "journal#2",
                                       "a1",    "b1",       "b2",   "odd",       "lonely"};
    static const char *const types[] = {
        "semantic", "semantic", "semantic", "episodic-daily", "episodic-session",
        "semantic", "semantic", "semantic", "episodicx",      "semantic"};
    for (int i = 0; i < 10; i++) {
        qr_mem_node n = {0};
        n.key = keys[i];
        n.type = types[i];
        n.content = i % 2 ? "linking pages of a btree" : "spreading activation journal";
        n.weight = 0.1 * i;
        n.created = n.modified = 1773100800 - 86400 * i;
        const char *tag = "todo";
        n.tags = &tag;
        n.ntags = i % 3 == 0;
        if (qr_mem_node_add(store, &n, NULL, &err) != QR_OK)
            abort();
    }
    static const int links[][2] = {{0, 1}, {0, 3}, {0, 5}, {1, 5}, {2, 4},
                                   {2, 6}, {2, 7}, {6, 7}, {5, 6}, {8, 7}};
    for (int i = 0; i < 10; i++)
        if (qr_mem_link(store, keys[links[i][0]], keys[links[i][1]], 0.5 + 0.04 * i, NULL, NULL,
                        &err) != QR_OK)
            abort();
    if (qr_mem_visit(store, "btree", "linker", 1773100800 - 3 * 86400, NULL, &err) != QR_OK)
        abort();
    qr_buf_release(&err);
}

static void check_error(int rc, const qr_pipeline_error *e, size_t size)
{
    size_t len = strlen(e->message);
    if (rc != QR_EINVAL && rc != QR_ENOMEM)
        abort();
    if (len == 0 || !(e->message[0] >= 'a' && e->message[0] <= 'z') ||
        !qr_utf8_valid(e->message, len))
        abort();
    if (e->stage < -1 || e->stage > QR_PIPELINE_MAX_STAGES)
        abort();
    if (e->offset > size + 3 * (QR_PIPELINE_MAX_STAGES + 1))
        abort();
}

static void run(const qr_pipeline *p)
{
    if (!store)
        build();
    qr_pipeline_result r = {0};
    qr_buf err;
    qr_buf_init(&err);
    qr_pipeline_run_opts o = {0};
    o.now = 1773100800;
    o.no_file_cache = true;
    int rc = qr_pipeline_run_ex(p, store, &o, &r, &err);
    if (rc == QR_OK) {
        for (size_t i = 0; i < r.n; i++)
            if (r.hits[i].node >= r.snap->n)
                abort();
    } else if (!err.len) {
        abort();
    }
    qr_pipeline_result_clear(&r);
    qr_buf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > 4096)
        return 0;
    const char *text = (const char *)data + 1;
    size_t n = size - 1;
    qr_pipeline *p = NULL;
    qr_pipeline_error e;
    int rc;
    if (data[0] % 2 == 0) {
        rc = qr_pipeline_parse(text, n, &p, &e);
    } else {
        char *copy = malloc(n + 1);
        const char *stages[QR_PIPELINE_MAX_STAGES + 1];
        size_t ns = 0;
        if (!copy)
            return 0;
        memcpy(copy, text, n);
        copy[n] = 0;
        if (strlen(copy) != n) { /* a NUL inside: C strings cannot hold it */
            free(copy);
            return 0;
        }
        char *s = copy;
        while (ns <= QR_PIPELINE_MAX_STAGES) {
            stages[ns++] = s;
            char *nl = strchr(s, '\n');
            if (!nl)
                break;
            *nl = 0;
            s = nl + 1;
        }
        rc = qr_pipeline_parse_stages(stages, ns, &p, &e);
        if (rc == QR_OK)
            run(p);
        else
            check_error(rc, &e, n);
        qr_pipeline_free(p);
        free(copy);
        return 0;
    }
    if (rc != QR_OK) {
        check_error(rc, &e, n);
        return 0;
    }
    /* the normalized text is a fixed point */
    qr_buf t1, t2;
    qr_buf_init(&t1);
    qr_buf_init(&t2);
    qr_pipeline_text(p, &t1);
    qr_pipeline *q = NULL;
    if (qr_pipeline_parse(t1.p, t1.len, &q, &e) != QR_OK)
        abort();
    qr_pipeline_text(q, &t2);
    if (t1.len != t2.len || memcmp(t1.p, t2.p, t1.len) ||
        qr_pipeline_count(p) != qr_pipeline_count(q))
        abort();
    run(p);
    qr_pipeline_free(q);
    qr_pipeline_free(p);
    qr_buf_release(&t1);
    qr_buf_release(&t2);
    return 0;
}
