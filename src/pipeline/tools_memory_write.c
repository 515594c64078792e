/*
 * tools_memory_write.c: the tools that read or change one note of the memory store, so an
 * agent (over MCP, in a Lisp program, in a flow) keeps its memory with the same records
 * `quarry mem` is a shell for: memory_get (one note with its links), memory_add,
 * memory_update (fields, weight, tags), memory_delete and memory_restore (the store's soft
 * delete), memory_link and memory_unlink, memory_visit (an agent looked at a note).
 *
 * Design: each handler is a thin call of one memory.h function on the store the context
 * names (pl_memory_path / pl_memory_open, shared with memory_query, so a program may name
 * no other store), and returns a small object that says what happened. The capability
 * bits say what each call can do, and the surfaces decide what they allow from them:
 * writes carry QR_TOOL_WRITES, a delete or an unlink QR_TOOL_DESTROYS too, a visit
 * QR_TOOL_CUMULATIVE (each call adds a row); `quarry mcp` serves them only with
 * --allow-write memory (docs/capabilities.md). A note is named by its key, the store's
 * identity for a note (its rowid is not stable across an export and import).
 *
 * The set follows what a memory-using agent does and what the official MCP memory server
 * offers (create entities and relations, add observations, delete, open nodes), mapped
 * onto this store's model: a note has one content, a type, a weight and tags instead of a
 * list of observations, and links are typed with a strength. Reading many notes is
 * memory_query's job.
 *
 * Rejected: one `memory_write` tool with an action parameter (its schema could not say
 * which fields each action needs, and one capability set would cover deletes and adds
 * alike); a hard delete (the store's delete is soft and restorable, which is what an
 * agent's mistake needs); creating the store on any write but memory_add (a typo in
 * --store would then make an empty store on a link).
 */
#include "pipeline_int.h"

#include "quarry/date.h"
#include "quarry/memory.h"
#include "quarry/tools.h"

#include <string.h>

#define NO_STORE "no memory store: give 'store' or set QUARRY_MEMORY (quarry mcp: --store FILE)"

static bool arg(qr_val args, qr_arena *a, const char *name, qr_val *out)
{
    return args.t == QR_T_MAP && qr_map_get(args, qr_kw_cstr(a, name), out) && !qr_is_nil(*out);
}

/* A string argument as a C string; NULL when absent. A NUL inside is refused. */
static int str_arg(qr_val args, qr_arena *a, const char *name, const char **out, qr_buf *err)
{
    qr_val v;
    *out = NULL;
    if (!arg(args, a, name, &v) || v.t != QR_T_STR)
        return QR_OK;
    if (strlen(v.s->data) != v.s->len) {
        qr_buf_printf(err, "parameter '%s' holds a NUL byte: give text", name);
        return QR_EINVAL;
    }
    *out = v.s->data;
    return QR_OK;
}

static bool num_arg(qr_val args, qr_arena *a, const char *name, double *out)
{
    qr_val v;
    if (!arg(args, a, name, &v))
        return false;
    if (v.t == QR_T_INT)
        *out = (double)v.i;
    else if (v.t == QR_T_DOUBLE)
        *out = v.d;
    else
        return false;
    return true;
}

/* An array of strings as a C array from `a`; *n 0 when absent. */
static int strs_arg(qr_val args, qr_arena *a, const char *name, const char ***out, size_t *n,
                    qr_buf *err)
{
    qr_val v;
    *out = NULL;
    *n = 0;
    if (!arg(args, a, name, &v) || !qr_is_seqcoll(v))
        return QR_OK;
    size_t len = qr_vec_len(v);
    if (!len)
        return QR_OK;
    const char **list = qr_arena_alloc(a, len * sizeof *list);
    if (!list) {
        qr_buf_puts(err, "out of memory");
        return QR_ENOMEM;
    }
    for (size_t i = 0; i < len; i++) {
        qr_val s = qr_vec_at(v, i);
        if (s.t != QR_T_STR || strlen(s.s->data) != s.s->len) {
            qr_buf_printf(err, "parameter '%s': item %zu is not text", name, i);
            return QR_EINVAL;
        }
        list[i] = s.s->data;
    }
    *out = list;
    *n = len;
    return QR_OK;
}

/* The call's store, opened (flags: QR_MEM_CREATE for memory_add). */
static int store(qr_memory_ctx *h, qr_val args, qr_arena *a, int flags, qr_mem **m, qr_mem **own,
                 qr_buf *err)
{
    const char *path;
    int rc = pl_memory_path(h, args, a, &path, err);
    if (rc)
        return rc;
    if (!path || !*path) {
        qr_buf_puts(err, NO_STORE);
        return QR_EINVAL;
    }
    return pl_memory_open(h, path, flags, m, own, err);
}

static qr_val kw(qr_arena *a, const char *k)
{
    return qr_kw_cstr(a, k);
}

static qr_val str(qr_arena *a, const char *s)
{
    return qr_str_new(a, s, strlen(s));
}

/* {verb: key}, the result of a write to one note. */
static int done(qr_arena *a, qr_val *out, const char *verb, const char *key)
{
    qr_mapb m;
    qr_mapb_init(&m, a, 1);
    qr_mapb_put(&m, kw(a, verb), str(a, key));
    *out = qr_mapb_finish(&m, QR_T_MAP);
    return a->exhausted ? QR_ENOMEM : QR_OK;
}

/* ---- memory_get ---- */

static int get_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    (void)req; /* one quick statement: the registry refuses a stopped request */
    qr_mem *m, *own;
    const char *key;
    qr_val v;
    bool deleted = arg(args, a, "deleted", &v) && v.t == QR_T_BOOL && v.b;
    int rc = str_arg(args, a, "key", &key, err);
    if (rc || (rc = store(ctx, args, a, 0, &m, &own, err)))
        return rc;
    qr_mem_node n;
    qr_mem_edge *edges = NULL;
    size_t nedges = 0;
    rc = qr_mem_node_get(m, key, deleted, a, &n, err);
    if (!rc)
        rc = qr_mem_edges(m, key, deleted, a, &edges, &nedges, err);
    if (!rc) {
        qr_mapb b;
        qr_mapb_init(&b, a, 15);
        qr_mapb_put(&b, kw(a, "key"), str(a, n.key));
        qr_mapb_put(&b, kw(a, "type"), str(a, n.type));
        qr_mapb_put(&b, kw(a, "weight"), qr_double(n.weight));
        qr_mapb_put(&b, kw(a, "provenance"), str(a, n.provenance));
        qr_mapb_put(&b, kw(a, "created"), pl_iso_time(a, n.created));
        qr_mapb_put(&b, kw(a, "modified"), pl_iso_time(a, n.modified));
        qr_mapb_put(&b, kw(a, "retrievals"), qr_int(n.retrievals));
        qr_mapb_put(&b, kw(a, "uses"), qr_int(n.uses));
        qr_mapb_put(&b, kw(a, "wrongs"), qr_int(n.wrongs));
        qr_vecb tv;
        qr_vecb_init(&tv, a, n.ntags);
        for (size_t i = 0; i < n.ntags; i++)
            qr_vecb_push(&tv, str(a, n.tags[i]));
        qr_mapb_put(&b, kw(a, "tags"), qr_vecb_finish(&tv, QR_T_VEC));
        if (n.deleted)
            qr_mapb_put(&b, kw(a, "deleted"), pl_iso_time(a, n.deleted));
        qr_mapb_put(&b, kw(a, "content"), qr_str_new(a, n.content, n.content_len));
        qr_vecb ev;
        qr_vecb_init(&ev, a, nedges);
        for (size_t i = 0; i < nedges; i++) {
            qr_mapb eb;
            qr_mapb_init(&eb, a, 4);
            qr_mapb_put(&eb, kw(a, "source"), str(a, edges[i].source));
            qr_mapb_put(&eb, kw(a, "target"), str(a, edges[i].target));
            qr_mapb_put(&eb, kw(a, "type"), str(a, edges[i].type));
            qr_mapb_put(&eb, kw(a, "strength"), qr_double(edges[i].strength));
            qr_vecb_push(&ev, qr_mapb_finish(&eb, QR_T_MAP));
        }
        qr_mapb_put(&b, kw(a, "links"), qr_vecb_finish(&ev, QR_T_VEC));
        *out = qr_mapb_finish(&b, QR_T_MAP);
        if (a->exhausted) {
            qr_buf_puts(err, "out of memory building the result");
            rc = QR_ENOMEM;
        }
    }
    if (own)
        qr_mem_close(own);
    return rc;
}

/* ---- memory_add, memory_update ---- */

static int add_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    (void)req; /* one quick statement: the registry refuses a stopped request */
    qr_mem_node n = {0};
    n.weight = 0.5;
    num_arg(args, a, "weight", &n.weight);
    const char **tags;
    int rc = str_arg(args, a, "key", &n.key, err);
    if (!rc)
        rc = str_arg(args, a, "content", &n.content, err);
    if (!rc)
        rc = str_arg(args, a, "type", &n.type, err);
    if (!rc)
        rc = str_arg(args, a, "provenance", &n.provenance, err);
    if (!rc)
        rc = strs_arg(args, a, "tags", &tags, &n.ntags, err);
    if (rc)
        return rc;
    n.tags = tags;
    qr_mem *m, *own;
    if ((rc = store(ctx, args, a, QR_MEM_CREATE, &m, &own, err)))
        return rc;
    size_t start = err->len;
    rc = qr_mem_node_add(m, &n, NULL, err);
    qr_memory_ctx *h = ctx;
    if (rc == QR_ERUNTIME && !(h && h->any_store) &&
        qr_mem_node_get(m, n.key, true, a, &(qr_mem_node){0}, err) == QR_OK) {
        /* the store's message names `quarry mem update`, right for a person at the
         * terminal (any_store: `quarry tool`, `quarry mem`); a program has a tool */
        err->len = start;
        if (err->p)
            err->p[start] = '\0';
        qr_buf_printf(err, "note '%s' already exists: change it with memory_update", n.key);
    }
    if (own)
        qr_mem_close(own);
    return rc ? rc : done(a, out, "added", n.key);
}

static int update_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    (void)req; /* one quick statement: the registry refuses a stopped request */
    qr_mem_update u = {0};
    const char *key;
    const char **add, **remove;
    u.has_weight = num_arg(args, a, "weight", &u.weight);
    int rc = str_arg(args, a, "key", &key, err);
    if (!rc)
        rc = str_arg(args, a, "content", &u.content, err);
    if (!rc)
        rc = str_arg(args, a, "type", &u.type, err);
    if (!rc)
        rc = str_arg(args, a, "provenance", &u.provenance, err);
    if (!rc)
        rc = strs_arg(args, a, "add_tags", &add, &u.nadd_tags, err);
    if (!rc)
        rc = strs_arg(args, a, "remove_tags", &remove, &u.nremove_tags, err);
    if (rc)
        return rc;
    u.add_tags = add;
    u.remove_tags = remove;
    if (!u.content && !u.type && !u.provenance && !u.has_weight && !u.nadd_tags &&
        !u.nremove_tags) {
        qr_buf_puts(err, "nothing to change: give content, type, weight, provenance, add_tags "
                         "or remove_tags");
        return QR_EINVAL;
    }
    qr_mem *m, *own;
    if ((rc = store(ctx, args, a, 0, &m, &own, err)))
        return rc;
    rc = qr_mem_node_update(m, key, &u, err);
    if (own)
        qr_mem_close(own);
    return rc ? rc : done(a, out, "updated", key);
}

/* ---- memory_delete, memory_restore ---- */

static int delete_or_restore(void *ctx, qr_val args, qr_arena *a, qr_val *out, qr_buf *err,
                             bool del)
{
    const char *key;
    qr_mem *m, *own;
    int rc = str_arg(args, a, "key", &key, err);
    if (rc || (rc = store(ctx, args, a, 0, &m, &own, err)))
        return rc;
    rc = del ? qr_mem_node_delete(m, key, err) : qr_mem_node_restore(m, key, err);
    if (own)
        qr_mem_close(own);
    return rc ? rc : done(a, out, del ? "deleted" : "restored", key);
}

static int delete_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    (void)req; /* one quick statement: the registry refuses a stopped request */
    return delete_or_restore(ctx, args, a, out, err, true);
}

static int restore_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    (void)req; /* one quick statement: the registry refuses a stopped request */
    return delete_or_restore(ctx, args, a, out, err, false);
}

/* ---- memory_link, memory_unlink ---- */

static int link_or_unlink(void *ctx, qr_val args, qr_arena *a, qr_val *out, qr_buf *err,
                          bool link)
{
    const char *source, *target, *type;
    double strength = 0.5;
    num_arg(args, a, "strength", &strength);
    int rc = str_arg(args, a, "source", &source, err);
    if (!rc)
        rc = str_arg(args, a, "target", &target, err);
    if (!rc)
        rc = str_arg(args, a, "type", &type, err);
    qr_mem *m, *own;
    if (rc || (rc = store(ctx, args, a, 0, &m, &own, err)))
        return rc;
    bool created = false;
    int64_t removed = 0;
    rc = link ? qr_mem_link(m, source, target, strength, type, &created, err)
              : qr_mem_unlink(m, source, target, type, &removed, err);
    if (own)
        qr_mem_close(own);
    if (rc)
        return rc;
    qr_mapb b;
    qr_mapb_init(&b, a, 5);
    qr_mapb_put(&b, kw(a, "source"), str(a, source));
    qr_mapb_put(&b, kw(a, "target"), str(a, target));
    if (link) {
        qr_mapb_put(&b, kw(a, "type"), str(a, type ? type : "related"));
        qr_mapb_put(&b, kw(a, "strength"), qr_double(strength));
        qr_mapb_put(&b, kw(a, "created"), qr_bool(created));
    } else {
        qr_mapb_put(&b, kw(a, "removed"), qr_int(removed));
    }
    *out = qr_mapb_finish(&b, QR_T_MAP);
    return a->exhausted ? QR_ENOMEM : QR_OK;
}

static int link_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    (void)req; /* one quick statement: the registry refuses a stopped request */
    return link_or_unlink(ctx, args, a, out, err, true);
}

static int unlink_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    (void)req; /* one quick statement: the registry refuses a stopped request */
    return link_or_unlink(ctx, args, a, out, err, false);
}

/* ---- memory_visit ---- */

static int visit_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    (void)req; /* one quick statement: the registry refuses a stopped request */
    const char *key, *agent, *outcome;
    int rc = str_arg(args, a, "key", &key, err);
    if (!rc)
        rc = str_arg(args, a, "agent", &agent, err);
    if (!rc)
        rc = str_arg(args, a, "outcome", &outcome, err);
    qr_mem *m, *own;
    if (rc || (rc = store(ctx, args, a, 0, &m, &own, err)))
        return rc;
    rc = qr_mem_visit(m, key, agent, 0, outcome, err);
    if (own)
        qr_mem_close(own);
    if (rc)
        return rc;
    qr_mapb b;
    qr_mapb_init(&b, a, 2);
    qr_mapb_put(&b, kw(a, "visited"), str(a, key));
    qr_mapb_put(&b, kw(a, "agent"), str(a, agent));
    *out = qr_mapb_finish(&b, QR_T_MAP);
    return a->exhausted ? QR_ENOMEM : QR_OK;
}

/* ---- the records ---- */

#define P_STORE                                                                            \
    {.name = "store",                                                                      \
     .type = QR_TOOL_STRING,                                                               \
     .desc = "the memory store file (default: the session's store, from --store or "       \
             "$QUARRY_MEMORY); a program may name only that store"}
#define P_KEY(what)                                                                        \
    {.name = "key", .type = QR_TOOL_STRING, .required = true, .desc = what}
#define P_UNIT(nm, def_, what)                                                             \
    {.name = nm,                                                                           \
     .type = QR_TOOL_NUMBER,                                                               \
     .def = def_,                                                                          \
     .has_min = true,                                                                      \
     .min = 0,                                                                             \
     .has_max = true,                                                                      \
     .max = 1,                                                                             \
     .desc = what}

#define CAPS_WRITE (QR_TOOL_READS_MEMORY | QR_TOOL_WRITES)

static const qr_tool_param get_params[] = {
    P_KEY("the note's key, e.g. \"journal#2026-11-20\""),
    {.name = "deleted",
     .type = QR_TOOL_BOOLEAN,
     .def = "false",
     .desc = "also find a deleted note"},
    P_STORE,
    {.name = NULL},
};

const qr_tool pl_memory_get_tool = {
    .name = "memory_get",
    .summary = "Read one note of the memory store by its key: all its fields, its whole "
               "content and its links in both directions.",
    .params = get_params,
    .result = "{:key :type :weight :provenance :created :modified :retrievals :uses :wrongs "
              ":tags :deleted (when deleted) :content :links [{:source :target :type "
              ":strength}]}",
    .result_schema = "{\"type\": \"object\", \"properties\": {\"key\": {\"type\": \"string\"}, "
                     "\"type\": {\"type\": \"string\"}, \"weight\": {\"type\": \"number\"}, "
                     "\"content\": {\"type\": \"string\"}, \"tags\": {\"type\": \"array\"}, "
                     "\"links\": {\"type\": \"array\"}}, \"required\": [\"key\"]}",
    .handler = get_fn,
    .caps = QR_TOOL_READS_MEMORY,
    .title = "Read one note",
};

static const qr_tool_param add_params[] = {
    P_KEY("a new, unique key for the note, e.g. \"semantic#btree-journal\""),
    {.name = "content", .type = QR_TOOL_STRING, .def = "\"\"", .desc = "the note, in markdown"},
    {.name = "type",
     .type = QR_TOOL_STRING,
     .def = "\"semantic\"",
     .desc = "a word [a-z0-9-]+: semantic, episodic-session, episodic-daily, ..."},
    P_UNIT("weight", "0.5", "how much the note matters, 0 to 1"),
    {.name = "provenance",
     .type = QR_TOOL_STRING,
     .def = "\"agent\"",
     .desc = "where the note comes from (free text, one line)"},
    {.name = "tags",
     .type = QR_TOOL_ARRAY,
     .items = QR_TOOL_STRING,
     .def = "[]",
     .desc = "tags, each without spaces"},
    P_STORE,
    {.name = NULL},
};

const qr_tool pl_memory_add_tool = {
    .name = "memory_add",
    .summary = "Add a note to the memory store (creating the store when it does not exist). "
               "A key already present is refused: change a note with memory_update.",
    .params = add_params,
    .result = "{:added KEY}",
    .result_schema = "{\"type\": \"object\", \"properties\": {\"added\": {\"type\": "
                     "\"string\"}}, \"required\": [\"added\"]}",
    .handler = add_fn,
    .caps = CAPS_WRITE,
    .title = "Add a note",
};

static const qr_tool_param update_params[] = {
    P_KEY("the key of the note to change"),
    {.name = "content", .type = QR_TOOL_STRING, .desc = "the new content (replaces it)"},
    {.name = "type", .type = QR_TOOL_STRING, .desc = "the new type"},
    P_UNIT("weight", NULL, "the new weight, 0 to 1"),
    {.name = "provenance", .type = QR_TOOL_STRING, .desc = "the new provenance"},
    {.name = "add_tags", .type = QR_TOOL_ARRAY, .items = QR_TOOL_STRING, .desc = "tags to add"},
    {.name = "remove_tags",
     .type = QR_TOOL_ARRAY,
     .items = QR_TOOL_STRING,
     .desc = "tags to remove (each must be on the note)"},
    P_STORE,
    {.name = NULL},
};

const qr_tool pl_memory_update_tool = {
    .name = "memory_update",
    .summary = "Change fields of a note: its content, type, weight or provenance, and add or "
               "remove tags. Fields left out stay as they are.",
    .params = update_params,
    .result = "{:updated KEY}",
    .result_schema = "{\"type\": \"object\", \"properties\": {\"updated\": {\"type\": "
                     "\"string\"}}, \"required\": [\"updated\"]}",
    .handler = update_fn,
    .caps = CAPS_WRITE,
    .title = "Change a note",
};

static const qr_tool_param key_params[] = {
    P_KEY("the note's key"),
    P_STORE,
    {.name = NULL},
};

const qr_tool pl_memory_delete_tool = {
    .name = "memory_delete",
    .summary = "Delete a note: it and its links disappear from every query and read until "
               "memory_restore brings them back.",
    .params = key_params,
    .result = "{:deleted KEY}",
    .result_schema = "{\"type\": \"object\", \"properties\": {\"deleted\": {\"type\": "
                     "\"string\"}}, \"required\": [\"deleted\"]}",
    .handler = delete_fn,
    .caps = CAPS_WRITE | QR_TOOL_DESTROYS,
    .title = "Delete a note",
};

const qr_tool pl_memory_restore_tool = {
    .name = "memory_restore",
    .summary = "Bring back a deleted note with its links, tags and visits.",
    .params = key_params,
    .result = "{:restored KEY}",
    .result_schema = "{\"type\": \"object\", \"properties\": {\"restored\": {\"type\": "
                     "\"string\"}}, \"required\": [\"restored\"]}",
    .handler = restore_fn,
    .caps = CAPS_WRITE,
    .title = "Restore a note",
};

static const qr_tool_param link_params[] = {
    {.name = "source", .type = QR_TOOL_STRING, .required = true, .desc = "the key the link starts at"},
    {.name = "target", .type = QR_TOOL_STRING, .required = true, .desc = "the key it points to"},
    P_UNIT("strength", "0.5", "how strong the link is, above 0 and at most 1"),
    {.name = "type",
     .type = QR_TOOL_STRING,
     .def = "\"related\"",
     .desc = "a word [a-z0-9-]+ for the kind of link"},
    P_STORE,
    {.name = NULL},
};

const qr_tool pl_memory_link_tool = {
    .name = "memory_link",
    .summary = "Link two notes (both must exist). Linking them again with the same type sets "
               "the strength.",
    .params = link_params,
    .result = "{:source :target :type :strength :created (false when the link existed and got "
              "the new strength)}",
    .result_schema = "{\"type\": \"object\", \"properties\": {\"source\": {\"type\": "
                     "\"string\"}, \"target\": {\"type\": \"string\"}, \"type\": {\"type\": "
                     "\"string\"}, \"strength\": {\"type\": \"number\"}, \"created\": "
                     "{\"type\": \"boolean\"}}, \"required\": [\"source\", \"target\"]}",
    .handler = link_fn,
    .caps = CAPS_WRITE,
    .title = "Link two notes",
};

static const qr_tool_param unlink_params[] = {
    {.name = "source", .type = QR_TOOL_STRING, .required = true, .desc = "the key the link starts at"},
    {.name = "target", .type = QR_TOOL_STRING, .required = true, .desc = "the key it points to"},
    {.name = "type",
     .type = QR_TOOL_STRING,
     .desc = "remove only the link of this type (default: every link from source to target)"},
    P_STORE,
    {.name = NULL},
};

const qr_tool pl_memory_unlink_tool = {
    .name = "memory_unlink",
    .summary = "Remove the links from one note to another (of one type, or all of them).",
    .params = unlink_params,
    .result = "{:source :target :removed N}",
    .result_schema = "{\"type\": \"object\", \"properties\": {\"source\": {\"type\": "
                     "\"string\"}, \"target\": {\"type\": \"string\"}, \"removed\": {\"type\": "
                     "\"integer\"}}, \"required\": [\"source\", \"target\", \"removed\"]}",
    .handler = unlink_fn,
    .caps = CAPS_WRITE | QR_TOOL_DESTROYS,
    .title = "Unlink two notes",
};

static const qr_tool_param visit_params[] = {
    P_KEY("the key of the note that was looked at"),
    {.name = "agent",
     .type = QR_TOOL_STRING,
     .required = true,
     .desc = "who looked: a word [a-z0-9-]+ (pipelines select by it: not-visited:AGENT,7d)"},
    {.name = "outcome", .type = QR_TOOL_STRING, .desc = "what came of it (free text)"},
    P_STORE,
    {.name = NULL},
};

const qr_tool pl_memory_visit_tool = {
    .name = "memory_visit",
    .summary = "Record that an agent looked at a note now, so pipelines can pick the notes "
               "it has not seen lately (not-visited:AGENT,7d). Each call adds a visit.",
    .params = visit_params,
    .result = "{:visited KEY :agent AGENT}",
    .result_schema = "{\"type\": \"object\", \"properties\": {\"visited\": {\"type\": "
                     "\"string\"}, \"agent\": {\"type\": \"string\"}}, \"required\": "
                     "[\"visited\", \"agent\"]}",
    .handler = visit_fn,
    .caps = CAPS_WRITE | QR_TOOL_CUMULATIVE,
    .title = "Record a visit",
};
