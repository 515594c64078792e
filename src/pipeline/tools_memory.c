/*
 * tools_memory.c: the memory tools: memory_query, which runs a pipeline (docs/pipeline.md)
 * on a memory store and returns the nodes it selects with their content, for agents and
 * Lisp programs (`(tool/memory_query {:pipeline "..."})`).
 *
 * Design: the store is the context's memory_path (--store, $QUARRY_MEMORY). A call's `store`
 * may name another file only when the context allows it (any_store: `quarry tool`, a person
 * at the terminal); for a program it must name the configured store, and any other name
 * gets one fixed message: answering "no such file", "is a directory" or "not a SQLite
 * database" would let a program probe the file system, and opening any store would let it
 * read (and write STORE.snapshot beside) every store on the machine.
 * The store is opened on the first call and kept in the context (qr_memory_ctx, which
 * the host embeds) with the pipeline cache (the
 * spectral embedding and communities), so a session pays for them once. A call naming
 * another store closes the kept one. Content is read per returned node (the snapshot has
 * only lengths) and cut at about 500 bytes on a character boundary, with "..." appended,
 * so a model sees what each note is about without a full dump; `quarry mem get` gives
 * the whole note.
 *
 * Rejected: returning every field of a node (the pipeline already filtered on them; the
 * result is for reading); a default limit above 50 (a model's context is the budget).
 */
#include "pipeline_int.h"

#include "quarry/date.h"
#include "quarry/memory.h"
#include "quarry/pipeline.h"
#include "quarry/tools.h"

#include <sys/stat.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CONTENT_CUT 500

static bool arg_get(qr_val args, qr_arena *a, const char *name, qr_val *out)
{
    return args.t == QR_T_MAP && qr_map_get(args, qr_kw_cstr(a, name), out) && !qr_is_nil(*out);
}

static qr_val kv_str(qr_arena *a, const char *s, size_t n)
{
    return qr_str_new(a, s, n);
}

qr_val pl_iso_time(qr_arena *a, int64_t t)
{
    char buf[QR_DATE_ISO_LEN];
    qr_date_format_iso(t, 0, buf, sizeof buf);
    size_t n = strlen(buf);
    if (n >= 6 && !strcmp(buf + n - 6, "+00:00")) {
        buf[n - 6] = 'Z';
        buf[n - 5] = 0;
    }
    return qr_str_new(a, buf, strlen(buf));
}

/* A program names no file: one message for every refused name, so the answer says
 * nothing about the path (missing, a directory, another store, not SQLite). */
#define STORE_REFUSED                                                                     \
    "'store' may only name the memory store this session was given (--store or "          \
    "QUARRY_MEMORY); leave 'store' out to use it"

/* Whether the name a program gave is the configured store: the same text, or the same
 * file (device and inode) when both exist. A NUL inside the name never matches. */
static bool same_store(const char *name, size_t n, const char *configured)
{
    if (strlen(name) != n)
        return false;
    if (!strcmp(name, configured))
        return true;
    struct stat a, b;
    return stat(name, &a) == 0 && stat(configured, &b) == 0 && S_ISREG(a.st_mode) &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int pl_memory_path(qr_memory_ctx *h, qr_val args, qr_arena *a, const char **out, qr_buf *err)
{
    qr_val v;
    const char *path = h ? h->memory_path : NULL;
    if (!path) {
        const char *env = getenv("QUARRY_MEMORY");
        path = env && *env ? env : NULL;
    }
    if (arg_get(args, a, "store", &v) && v.t == QR_T_STR) {
        if (h && h->any_store)
            path = v.s->data;
        else if (!path || !same_store(v.s->data, v.s->len, path)) {
            qr_buf_puts(err, STORE_REFUSED);
            return QR_EINVAL;
        }
    }
    *out = path;
    return QR_OK;
}

/* The store to use: opened (or kept) in the context, or a fresh handle in *own. */
int pl_memory_open(qr_memory_ctx *h, const char *path, int flags, qr_mem **m, qr_mem **own,
                   qr_buf *err)
{
    *own = NULL;
    if (h && h->mem && qr_mem_is_at(h->mem, path)) {
        *m = h->mem;
        return QR_OK;
    }
    qr_mem *x;
    int rc = qr_mem_open(&x, path, flags, err);
    if (rc)
        return rc;
    if (h) {
        if (h->mem)
            qr_mem_close(h->mem);
        qr_pipeline_cache_free(h->pipeline_cache);
        h->pipeline_cache = NULL;
        h->mem = x;
    } else {
        *own = x;
    }
    *m = x;
    return QR_OK;
}

void qr_memory_ctx_release(qr_memory_ctx *c)
{
    if (c->mem)
        qr_mem_close(c->mem);
    qr_pipeline_cache_free(c->pipeline_cache);
    c->mem = NULL;
    c->pipeline_cache = NULL;
}

static int memory_query_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out,
                  qr_buf *err)
{
    qr_memory_ctx *h = ctx;
    qr_val v;
    const char *text = NULL;
    size_t tn = 0;
    if (arg_get(args, a, "pipeline", &v) && v.t == QR_T_STR) {
        text = v.s->data;
        tn = v.s->len;
    }
    const char *path;
    int rc = pl_memory_path(h, args, a, &path, err);
    if (rc)
        return rc;
    int64_t limit = 50;
    if (arg_get(args, a, "limit", &v) && v.t == QR_T_INT)
        limit = v.i;
    if (!text) {
        qr_buf_puts(err, "parameter 'pipeline' is required");
        return QR_EINVAL;
    }
    if (!path || !*path) {
        qr_buf_puts(err, "no memory store: give 'store' or set QUARRY_MEMORY");
        return QR_EINVAL;
    }
    qr_pipeline *p;
    qr_pipeline_error perr;
    rc = qr_pipeline_parse(text, tn, &p, &perr);
    if (rc) {
        qr_buf_printf(err, "pipeline: %s", perr.message);
        return rc;
    }
    qr_mem *m, *own;
    if ((rc = pl_memory_open(h, path, 0, &m, &own, err))) {
        qr_pipeline_free(p);
        return rc;
    }
    qr_pipeline_cache *cache = NULL;
    if (h) {
        if (!h->pipeline_cache)
            h->pipeline_cache = qr_pipeline_cache_new();
        cache = h->pipeline_cache;
    }
    qr_pipeline_run_opts o = {0};
    o.cache = cache;
    o.stop = &req->stop;
    qr_pipeline_result res = {0};
    rc = qr_pipeline_run_ex(p, m, &o, &res, err);
    qr_pipeline_free(p);
    if (rc)
        goto done;
    size_t n = res.n < (size_t)limit ? res.n : (size_t)limit;
    qr_arena scratch;
    qr_arena_init(&scratch, 0);
    qr_vecb vb;
    qr_vecb_init(&vb, a, n);
    qr_val k_key = qr_kw_cstr(a, "key"), k_type = qr_kw_cstr(a, "type"),
           k_weight = qr_kw_cstr(a, "weight"), k_score = qr_kw_cstr(a, "score"),
           k_mod = qr_kw_cstr(a, "modified"), k_content = qr_kw_cstr(a, "content");
    const qr_mem_snapshot *s = res.snap;
    for (size_t i = 0; i < n && !rc; i++) {
        uint32_t node = res.hits[i].node;
        qr_arena_mark mk = qr_arena_get_mark(&scratch);
        qr_mem_node nd;
        rc = qr_mem_node_get(m, s->key[node], false, &scratch, &nd, err);
        if (rc == QR_ERUNTIME) {
            /* deleted since the snapshot was taken */
            qr_buf_reset(err);
            rc = QR_OK;
            continue;
        }
        if (rc)
            break;
        size_t cn = nd.content_len;
        bool cut = cn > CONTENT_CUT;
        if (cut) {
            cn = CONTENT_CUT;
            while (cn > 0 && ((unsigned char)nd.content[cn] & 0xc0) == 0x80)
                cn--;
        }
        qr_val content = kv_str(a, nd.content, cn);
        if (cut && content.t == QR_T_STR) {
            qr_str *cs = qr_str_alloc(a, cn + 3);
            if (cs) {
                memcpy(cs->data, nd.content, cn);
                memcpy(cs->data + cn, "...", 3);
                content = qr_str_seal(cs);
            }
        }
        qr_mapb mb;
        qr_mapb_init(&mb, a, 6);
        qr_mapb_put(&mb, k_key, kv_str(a, s->key[node], s->key_len[node]));
        qr_mapb_put(&mb, k_type, kv_str(a, nd.type, strlen(nd.type)));
        qr_mapb_put(&mb, k_weight, qr_double(nd.weight));
        qr_mapb_put(&mb, k_score, qr_double(qr_pipeline_score_shown(res.hits[i].score)));
        qr_mapb_put(&mb, k_mod, pl_iso_time(a, nd.modified));
        qr_mapb_put(&mb, k_content, content);
        qr_vecb_push(&vb, qr_mapb_finish(&mb, QR_T_MAP));
        qr_arena_rewind(&scratch, mk);
    }
    qr_arena_release(&scratch);
    if (!rc) {
        *out = qr_vecb_finish(&vb, QR_T_VEC);
        if (a->exhausted) {
            qr_buf_puts(err, "out of memory building the result");
            rc = QR_ENOMEM;
        }
    }
done:
    qr_pipeline_result_clear(&res);
    if (own)
        qr_mem_close(own);
    return rc;
}

static const qr_tool_param memory_query_params[] = {
    {.name = "pipeline",
     .type = QR_TOOL_STRING,
     .required = true,
     .desc = "stages separated by '|', e.g. \"all | type:episodic | not-visited:linker,7d | "
             "sort:priority | limit:20\" or \"match:btree journal | spread,max_hops=2\" (see "
             "docs/pipeline.md)"},
    {.name = "store",
     .type = QR_TOOL_STRING,
     .desc = "the memory store file (default: the session's store, from --store or "
             "$QUARRY_MEMORY); a program may name only that store"},
    {.name = "limit",
     .type = QR_TOOL_INTEGER,
     .def = "50",
     .desc = "at most this many nodes are returned",
     .has_min = true,
     .min = 0,
     .has_max = true,
     .max = 10000},
    {.name = NULL},
};

/* the columns a table of its rows keeps when the terminal is narrow (issue 24) */
static const char *const memory_query_columns[] = {"key", "score", "content", "type", NULL};

static const qr_tool memory_query_tool = {
    .name = "memory_query",
    .summary = "Select notes from the memory store with a pipeline of stages: generators "
               "(all, match:TERMS), filters (type:, key:, tag:, weight:, age:, "
               "not-visited:AGENT,7d...), sort:FIELD, limit:N and graph stages (spread, "
               "spectral, confluence, geodesic, manifold).",
    .params = memory_query_params,
    .result = "a vector of {:key :type :weight :score :modified :content} in pipeline order; "
              ":content is cut at about 500 bytes (\"...\" marks a cut)",
    .result_schema = "{\"type\": \"array\", \"items\": {\"type\": \"object\", \"properties\": {"
                     "\"key\": {\"type\": \"string\"}, \"type\": {\"type\": \"string\"}, "
                     "\"weight\": {\"type\": \"number\"}, \"score\": {\"type\": \"number\"}, "
                     "\"modified\": {\"type\": \"string\"}, "
                     "\"content\": {\"type\": \"string\"}}}}",
    .handler = memory_query_fn,
    .caps = QR_TOOL_READS_MEMORY,
    .columns = memory_query_columns,
};

/* memory_query, then the tools of tools_memory_write.c (which read or change one note) */
const qr_tool *const qr_memory_tools[] = {
    &memory_query_tool,
    &pl_memory_get_tool,
    &pl_memory_add_tool,
    &pl_memory_update_tool,
    &pl_memory_delete_tool,
    &pl_memory_restore_tool,
    &pl_memory_link_tool,
    &pl_memory_unlink_tool,
    &pl_memory_visit_tool,
    NULL,
};
