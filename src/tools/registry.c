/*
 * registry.c: the tool registry (records, lookup, capabilities) and the one call path
 * (find, check capabilities, validate, run the handler) shared by the Lisp hook, the CLI
 * and later the MCP server; also the "did you mean" suggestions used by every message.
 *
 * Design: a registry holds pointers to static records in registration order plus an
 * open-addressing index by name, so iteration is stable (exports and help are
 * deterministic) and lookup is O(1) for programs that call tools in loops. Capabilities
 * are a mask the registry allows; qr_tools_restrict only clears bits, as in Janet's
 * sandbox, so code that receives a restricted registry cannot widen it. A tool that needs
 * a cleared bit stays findable (so the message can say why it cannot run) but is left out
 * of every export. A surface may say per bit what allows it (qr_tools_set_cap_hint: "start
 * the server with --allow-exec"), which the refusal then ends with. The MCP hints are
 * derived from the bits here (qr_tool_hints_of) and nowhere else.
 *
 * Rejected: copying records into the registry (they are static data, and copying the
 * nested parameter arrays buys nothing); a global registry (sessions with different
 * capabilities must be able to coexist); returning "unknown tool" for a tool that is
 * only disallowed (a model would then look for another spelling instead of another way).
 */
#include "tools_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct qr_tools {
    const qr_tool **items;
    size_t *parts; /* per item: the offset of its part of ctx (qr_tools_add_part) */
    size_t n, cap;
    uint32_t *index; /* entry number + 1, 0 = empty; size mask + 1 */
    size_t mask;
    uint32_t allowed;
    /* per capability bit: what allows it on this surface (static text), or NULL */
    const char *hints[32];
    void *ctx;
    char err[400];
};

const char *qr_tool_type_name(qr_tool_type t)
{
    switch (t) {
    case QR_TOOL_ANY: return "any";
    case QR_TOOL_STRING: return "string";
    case QR_TOOL_INTEGER: return "integer";
    case QR_TOOL_NUMBER: return "number";
    case QR_TOOL_BOOLEAN: return "boolean";
    case QR_TOOL_ARRAY: return "array";
    case QR_TOOL_OBJECT: return "object";
    }
    return "unknown";
}

const char *qr_tool_cap_name(uint32_t bit)
{
    switch (bit) {
    case QR_TOOL_READS_REPO: return "reads-repo";
    case QR_TOOL_READS_MEMORY: return "reads-memory";
    case QR_TOOL_WRITES: return "writes";
    case QR_TOOL_NETWORK: return "network";
    case QR_TOOL_MODEL: return "model";
    case QR_TOOL_EXEC: return "exec";
    case QR_TOOL_DESTROYS: return "destroys";
    case QR_TOOL_CUMULATIVE: return "cumulative";
    default: return NULL;
    }
}

qr_tools *qr_tools_new(void)
{
    qr_tools *r = calloc(1, sizeof *r);
    if (r)
        r->allowed = QR_TOOL_ALL_CAPS;
    return r;
}

void qr_tools_free(qr_tools *r)
{
    if (!r)
        return;
    free(r->items);
    free(r->parts);
    free(r->index);
    free(r);
}

const char *qr_tools_error(const qr_tools *r)
{
    return r->err;
}

static size_t slot_of(const qr_tools *r, const char *name, size_t len)
{
    return (size_t)qr_hash_bytes(name, len) & r->mask;
}

static int reindex(qr_tools *r, size_t size)
{
    uint32_t *index = calloc(size, sizeof *index);
    if (!index)
        return QR_ENOMEM;
    free(r->index);
    r->index = index;
    r->mask = size - 1;
    for (size_t i = 0; i < r->n; i++) {
        const char *name = r->items[i]->name;
        size_t j = slot_of(r, name, strlen(name));
        while (r->index[j])
            j = (j + 1) & r->mask;
        r->index[j] = (uint32_t)(i + 1);
    }
    return QR_OK;
}

const qr_tool *qr_tools_find(const qr_tools *r, const char *name, size_t len)
{
    if (!r->index)
        return NULL;
    for (size_t j = slot_of(r, name, len); r->index[j]; j = (j + 1) & r->mask) {
        const qr_tool *t = r->items[r->index[j] - 1];
        if (strlen(t->name) == len && memcmp(t->name, name, len) == 0)
            return t;
    }
    return NULL;
}

int qr_tools_add_part(qr_tools *r, const qr_tool *t, size_t ctx_offset)
{
    r->err[0] = '\0';
    if (!t) {
        snprintf(r->err, sizeof r->err, "a tool record is NULL");
        return QR_EINVAL;
    }
    if (!qr__tool_record_ok(t, r->err, sizeof r->err))
        return QR_EINVAL;
    if (qr_tools_find(r, t->name, strlen(t->name))) {
        snprintf(r->err, sizeof r->err, "tool '%s' is registered twice", t->name);
        return QR_EINVAL;
    }
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        const qr_tool **items = realloc(r->items, cap * sizeof *items);
        if (!items)
            return QR_ENOMEM;
        r->items = items;
        size_t *parts = realloc(r->parts, cap * sizeof *parts);
        if (!parts)
            return QR_ENOMEM;
        r->parts = parts;
        r->cap = cap;
    }
    r->parts[r->n] = ctx_offset;
    r->items[r->n++] = t;
    /* keep the index at most half full */
    if (2 * r->n > r->mask + 1 || !r->index) {
        size_t size = r->index ? 2 * (r->mask + 1) : 32;
        while (2 * r->n > size)
            size *= 2;
        if (reindex(r, size) != QR_OK) {
            r->n--;
            return QR_ENOMEM;
        }
    } else {
        size_t j = slot_of(r, t->name, strlen(t->name));
        while (r->index[j])
            j = (j + 1) & r->mask;
        r->index[j] = (uint32_t)r->n;
    }
    return QR_OK;
}

int qr_tools_add(qr_tools *r, const qr_tool *t)
{
    return qr_tools_add_part(r, t, 0);
}

/* The context t's handler receives: its part of the registry's context. */
static void *ctx_of(const qr_tools *r, const qr_tool *t)
{
    if (!r->ctx)
        return NULL;
    for (size_t i = 0; i < r->n; i++)
        if (r->items[i] == t)
            return (char *)r->ctx + r->parts[i];
    return r->ctx;
}

size_t qr_tools_count(const qr_tools *r)
{
    return r->n;
}

const qr_tool *qr_tools_at(const qr_tools *r, size_t i)
{
    return i < r->n ? r->items[i] : NULL;
}

bool qr_tools_usable(const qr_tools *r, const qr_tool *t)
{
    return (t->caps & ~r->allowed) == 0;
}

void qr_tools_restrict(qr_tools *r, uint32_t keep)
{
    r->allowed &= keep;
}

qr_tool_hints qr_tool_hints_of(uint32_t caps)
{
    qr_tool_hints h;
    bool exec = (caps & QR_TOOL_EXEC) != 0;
    h.read_only = !(caps & (QR_TOOL_WRITES | QR_TOOL_EXEC));
    h.destructive = exec || (caps & QR_TOOL_DESTROYS);
    h.idempotent = !exec && !(caps & QR_TOOL_CUMULATIVE);
    h.open_world = exec || (caps & (QR_TOOL_NETWORK | QR_TOOL_MODEL));
    return h;
}

static int bit_index(uint32_t bit)
{
    if (!bit || (bit & (bit - 1)) || !(bit & QR_TOOL_ALL_CAPS))
        return -1;
    int i = 0;
    while (!(bit & 1u)) {
        bit >>= 1;
        i++;
    }
    return i;
}

void qr_tools_set_cap_hint(qr_tools *r, uint32_t bit, const char *hint)
{
    int i = bit_index(bit);
    if (i >= 0)
        r->hints[i] = hint;
}

void qr_tools_explain_refused(const qr_tools *r, const qr_tool *t, qr_buf *err)
{
    uint32_t missing = t->caps & ~r->allowed;
    if (!missing)
        return;
    qr_buf_puts(err, "not available in this session (it needs");
    const char *sep = " ";
    for (uint32_t bit = 1; bit && bit <= missing; bit <<= 1)
        if (missing & bit) {
            qr_buf_printf(err, "%scapability '%s'", sep, qr_tool_cap_name(bit));
            sep = " and ";
        }
    qr_buf_puts(err, ", which is not allowed)");
    /* each distinct hint once: WRITES and DESTROYS are often allowed by one flag */
    const char *said[32];
    size_t nsaid = 0;
    for (uint32_t bit = 1; bit && bit <= missing; bit <<= 1) {
        int i = bit_index(bit);
        if (!(missing & bit) || i < 0 || !r->hints[i])
            continue;
        bool dup = false;
        for (size_t k = 0; k < nsaid; k++)
            dup = dup || !strcmp(said[k], r->hints[i]);
        if (dup)
            continue;
        said[nsaid++] = r->hints[i];
        qr_buf_printf(err, "; %s", r->hints[i]);
    }
}

uint32_t qr_tools_allowed(const qr_tools *r)
{
    return r->allowed;
}

void qr_tools_set_ctx(qr_tools *r, void *ctx)
{
    r->ctx = ctx;
}

/* ---- suggestions ---- */

bool qr__name_matches_loose(const char *a, size_t an, const char *b)
{
    size_t bn = strlen(b);
    if (an != bn)
        return false;
    for (size_t i = 0; i < an; i++) {
        char x = a[i] == '-' ? '_' : a[i], y = b[i] == '-' ? '_' : b[i];
        if (x != y)
            return false;
    }
    return true;
}

const char *qr__suggest(const char *s, size_t n, const char *const *cands, size_t ncands)
{
    if (n == 0 || n > QR_TOOL_MAX_NAME)
        return NULL;
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < ncands; i++) {
        const char *c = cands[i];
        size_t cn = strlen(c);
        if (cn > QR_TOOL_MAX_NAME)
            continue;
        size_t d = qr_edit_distance(s, n, c, cn, QR_EDIT_FOLD | QR_EDIT_TRANSPOSE);
        size_t longer = n > cn ? n : cn;
        size_t limit = longer <= 3 ? 1 : longer <= 7 ? 2 : 3;
        /* a prefix of three characters or more ("lim" for "limit") also counts */
        bool prefix =
            n >= 3 && n < cn && qr_edit_distance(s, n, c, n, QR_EDIT_FOLD | QR_EDIT_TRANSPOSE) == 0;
        if (prefix && d > limit)
            d = limit;
        if (d <= limit && d < best_d) {
            best = c;
            best_d = d;
        }
    }
    return best;
}

/* ---- calling ---- */

void qr_tools_explain_unknown(const qr_tools *r, const char *name, qr_buf *err)
{
    const char *cands[256];
    size_t nc = 0;
    for (size_t i = 0; i < r->n && nc < 256; i++)
        if (qr_tools_usable(r, r->items[i]))
            cands[nc++] = r->items[i]->name;
    size_t nlen = strlen(name);
    qr_buf_printf(err, "unknown tool '%.100s%s'", name, nlen > 100 ? "..." : "");
    if (nc == 0) {
        qr_buf_puts(err, "; no tools are registered");
        return;
    }
    const char *s = qr__suggest(name, nlen, cands, nc);
    if (s)
        qr_buf_printf(err, "; did you mean '%s'?", s);
    qr_buf_puts(err, s ? " tools: " : "; tools: ");
    for (size_t i = 0; i < nc; i++)
        qr_buf_printf(err, "%s%s", i ? ", " : "", cands[i]);
}

static void truncate_to(qr_buf *b, size_t n)
{
    if (b->p && b->len > n) {
        b->len = n;
        b->p[n] = '\0';
    }
}

/* Cuts a failure's message (from start) to QR_TOOLS_ERROR_MAX bytes, at a character
 * boundary: a message quotes what it was given (a ref, a path, a pattern), and a 10 MB
 * argument must not come back as a 10 MB error. */
static void cap_message(qr_buf *b, size_t start)
{
    if (!b->p || b->len - start <= QR_TOOLS_ERROR_MAX)
        return;
    size_t n = start + QR_TOOLS_ERROR_MAX - 40;
    while (n > start && ((unsigned char)b->p[n] & 0xc0) == 0x80)
        n--;
    size_t cut = b->len - n;
    truncate_to(b, n);
    qr_buf_printf(b, "... (%zu more bytes)", cut);
}

/* On failure err holds the message; on success it is as it was. */
static int prepare(const qr_tools *r, const char *name, qr_val args, qr_arena *a,
                   const qr_tool **tool, qr_val *norm, qr_buf *err, bool prefix)
{
    size_t start = err->len;
    const qr_tool *t = qr_tools_find(r, name, strlen(name));
    if (!t) {
        qr_tools_explain_unknown(r, name, err);
        cap_message(err, start);
        return QR_EINVAL;
    }
    if (prefix)
        qr_buf_printf(err, "tool '%s': ", t->name);
    if (!qr_tools_usable(r, t)) {
        qr_tools_explain_refused(r, t, err);
        return QR_EINVAL;
    }
    int rc = qr__tool_check(t, args, a, norm, err);
    if (rc == QR_OK) {
        truncate_to(err, start);
        *tool = t;
    } else {
        cap_message(err, start);
    }
    return rc;
}

int qr_tools_prepare(const qr_tools *r, const char *name, qr_val args, qr_arena *a,
                     const qr_tool **tool, qr_val *norm, qr_buf *err)
{
    return prepare(r, name, args, a, tool, norm, err, true);
}

static int invoke(const qr_tools *r, const qr_tool *t, qr_req *req, qr_val norm, qr_arena *a,
                  qr_val *out, qr_buf *err, bool prefix)
{
    size_t start = err->len;
    if (prefix)
        qr_buf_printf(err, "tool '%s': ", t->name);
    size_t body = err->len;
    *out = qr_nil();
    /* a call without a request of its own runs under one with no limits, so a handler
     * always has one to pass down */
    qr_req none;
    if (!req) {
        qr_req_init(&none, NULL);
        req = &none;
    }
    /* a stopped request starts no tool: the caller hears why at once */
    if (qr_req_stopped(req))
        return qr_req_fail(req, err);
    int rc = t->handler(ctx_of(r, t), req, norm, a, out, err);
    if (rc == QR_OK && (a->exhausted || a->too_deep))
        rc = a->too_deep ? QR_ELIMIT : QR_ENOMEM;
    if (rc == QR_OK) {
        truncate_to(err, start);
        return QR_OK;
    }
    if (err->len == body)
        qr_buf_puts(err, rc == QR_ENOMEM   ? "out of memory"
                         : rc == QR_ELIMIT ? "result nests too deeply"
                                           : "failed");
    cap_message(err, start);
    *out = qr_nil();
    return rc;
}

int qr_tools_invoke(const qr_tools *r, const qr_tool *t, qr_req *req, qr_val norm, qr_arena *a,
                    qr_val *out, qr_buf *err)
{
    return invoke(r, t, req, norm, a, out, err, true);
}

int qr_tools_call(const qr_tools *r, const char *name, qr_req *req, qr_val args, qr_arena *a,
                  qr_val *out, qr_buf *err)
{
    const qr_tool *t;
    qr_val norm;
    *out = qr_nil();
    int rc = prepare(r, name, args, a, &t, &norm, err, true);
    return rc == QR_OK ? invoke(r, t, req, norm, a, out, err, true) : rc;
}

int qr_tools_lisp_dispatch(void *ud, qr_req *req, const char *name, qr_val args, qr_arena *a,
                           qr_val *out, qr_buf *err)
{
    const qr_tools *r = ud;
    const qr_tool *t;
    qr_val norm;
    *out = qr_nil();
    int rc = prepare(r, name, args, a, &t, &norm, err, false);
    return rc == QR_OK ? invoke(r, t, req, norm, a, out, err, false) : rc;
}

int qr_tool_validate(const qr_tool *t, qr_val args, qr_arena *a, qr_val *norm, qr_buf *err)
{
    size_t start = err->len;
    qr_buf_printf(err, "tool '%s': ", t->name);
    int rc = qr__tool_check(t, args, a, norm, err);
    if (rc == QR_OK)
        truncate_to(err, start);
    return rc;
}
