/*
 * export_mcp.c: the tools as the MCP server serves them, exported for other agent hosts:
 * `quarry tools --format mcp|openai|anthropic|openai-strict` prints the server's own tool
 * list (every registry tool, run_lisp, run_query and dwim, with `repo` and `offset` where the
 * server adds them, titles and output schemas), converted to each API's tool format.
 *
 * Design: one list, the one tools/list serves, so an agent that is given the export calls
 * the tools exactly as an MCP client would (and `quarry tool NAME --args -` replays such
 * a call). The strict variant follows OpenAI's strict mode for function calling: every
 * object schema lists all its properties as required and has additionalProperties false;
 * a parameter that was optional becomes nullable (its type a union with "null"; quarry
 * takes null as "not given"); keywords strict mode does not take (default, minimum,
 * maximum) move into the description; a parameter that takes any JSON object (run_lisp's
 * data, run_query's query) cannot be described strictly and is left out, since each has
 * an alternative (no data; run_query's `text`). The alternative a record names (a
 * parameter's `alt`) becomes required and not nullable when the other is left out: a
 * nullable `text` beside no `query` would let a strict model send a call that cannot
 * work, and nothing in the schema would say that it needs one.
 *
 * Rejected: a separate hand-written list for the export (it would drift from what the
 * server serves); strict mode for every OpenAI export (optional parameters written as
 * nullable unions read worse to every other consumer).
 */
#include "mcp_int.h"

#include <string.h>

static qr_val kw(qr_arena *a, const char *k)
{
    return qr_kw_cstr(a, k);
}

static bool is_str(qr_val v, const char *s)
{
    return v.t == QR_T_STR && !strcmp(v.s->data, s);
}

static bool in_vec(qr_val vec, const char *s)
{
    for (size_t i = 0; qr_is_seqcoll(vec) && i < qr_vec_len(vec); i++)
        if (is_str(qr_vec_at(vec, i), s))
            return true;
    return false;
}

/* An object schema that says nothing of its keys: any JSON object. */
static bool free_object(qr_arena *a, qr_val p)
{
    return is_str(mcp_get(a, p, "type"), "object") && !mcp_has(a, p, "properties");
}

static qr_val strict_object(qr_arena *a, qr_val schema, const qr_tool *t);

/* One property for strict mode: the keywords strict mode lacks go into the description,
 * nested objects and array items are made strict too, and an optional one is nullable. */
static qr_val strict_prop(qr_arena *a, qr_val p, bool optional)
{
    qr_buf note;
    qr_buf_init(&note);
    qr_val def = mcp_get(a, p, "default"), min = mcp_get(a, p, "minimum"),
           max = mcp_get(a, p, "maximum");
    if (!qr_is_nil(min)) {
        qr_buf_puts(&note, "at least ");
        qr_print_json(&note, min, false);
    }
    if (!qr_is_nil(max)) {
        qr_buf_puts(&note, note.len ? ", at most " : "at most ");
        qr_print_json(&note, max, false);
    }
    if (mcp_has(a, p, "default")) {
        qr_buf_puts(&note, note.len ? "; default " : "default ");
        qr_print_json(&note, def, false);
        qr_buf_puts(&note, "; null gives the default");
    } else if (optional) {
        qr_buf_puts(&note, note.len ? "; null when not wanted" : "null when not wanted");
    }
    qr_val type = mcp_get(a, p, "type");
    qr_mapb m;
    qr_mapb_init(&m, a, 6);
    if (optional && type.t == QR_T_STR) {
        qr_val both[2] = {type, qr_str_cstr(a, "null")};
        qr_mapb_put(&m, kw(a, "type"), qr_vec_from(a, QR_T_VEC, both, 2));
    } else if (!qr_is_nil(type)) {
        qr_mapb_put(&m, kw(a, "type"), type);
    }
    qr_val desc = mcp_get(a, p, "description");
    if (desc.t == QR_T_STR || note.len) {
        qr_buf d;
        qr_buf_init(&d);
        if (desc.t == QR_T_STR)
            qr_buf_append(&d, desc.s->data, desc.s->len);
        if (note.len) {
            qr_buf_puts(&d, desc.t == QR_T_STR ? " (" : "(");
            qr_buf_append(&d, note.p, note.len);
            qr_buf_putc(&d, ')');
        }
        qr_mapb_put(&m, kw(a, "description"), qr_str_new(a, d.p ? d.p : "", d.len));
        qr_buf_release(&d);
    }
    qr_val e = mcp_get(a, p, "enum");
    if (qr_is_seqcoll(e)) /* a nullable enum lists null among its values */
        qr_mapb_put(&m, kw(a, "enum"),
                    optional ? qr_vec_conj(a, e, qr_nil()) : e);
    qr_val items = mcp_get(a, p, "items");
    if (items.t == QR_T_MAP) {
        qr_val it = is_str(mcp_get(a, items, "type"), "object") ? strict_object(a, items, NULL)
                                                               : strict_prop(a, items, false);
        qr_mapb_put(&m, kw(a, "items"), it);
    }
    qr_buf_release(&note);
    qr_val out = qr_mapb_finish(&m, QR_T_MAP);
    if (is_str(type, "object") && mcp_has(a, p, "properties")) {
        qr_val o = strict_object(a, p, NULL);
        if (optional) {
            qr_val both[2] = {qr_str_cstr(a, "object"), qr_str_cstr(a, "null")};
            o = qr_map_assoc(a, o, kw(a, "type"), qr_vec_from(a, QR_T_VEC, both, 2));
        }
        return o;
    }
    return out;
}

/* The parameter `name` of t's record, or NULL. */
static const qr_tool_param *param_of(const qr_tool *t, const char *name)
{
    for (const qr_tool_param *p = t ? t->params : NULL; p && p->name; p++)
        if (!strcmp(p->name, name))
            return p;
    return NULL;
}

/* Whether the strict export keeps a parameter: not one that takes any JSON object. */
static bool strict_keeps(qr_arena *a, qr_val props, const char *name)
{
    qr_val p = mcp_get(a, props, name);
    return !qr_is_nil(p) && !free_object(a, p);
}

/* An object schema in strict mode: every property required, none other allowed. t: the
 * tool whose parameters these are (the root), whose records say which parameter takes
 * the place of one left out (`alt`): that one is needed, so it is not nullable. */
static qr_val strict_object(qr_arena *a, qr_val schema, const qr_tool *t)
{
    qr_val props = mcp_get(a, schema, "properties"), req = mcp_get(a, schema, "required");
    size_t n = props.t == QR_T_MAP ? qr_map_len(props) : 0;
    qr_mapb pm;
    qr_mapb_init(&pm, a, n);
    qr_vecb names;
    qr_vecb_init(&names, a, n);
    for (size_t i = 0; i < n; i++) {
        qr_val k = qr_map_key_at(props, i), p = qr_map_val_at(props, i);
        const char *name = k.t == QR_T_STR ? k.s->data : k.sym->text;
        if (free_object(a, p))
            continue;
        const qr_tool_param *rec = param_of(t, name);
        bool needed = in_vec(req, name) ||
                      (rec && rec->alt && !strict_keeps(a, props, rec->alt));
        qr_mapb_put(&pm, k, strict_prop(a, p, !needed));
        qr_vecb_push(&names, qr_str_cstr(a, name));
    }
    qr_mapb m;
    qr_mapb_init(&m, a, 5);
    qr_mapb_put(&m, kw(a, "type"), qr_str_cstr(a, "object"));
    qr_val desc = mcp_get(a, schema, "description");
    if (desc.t == QR_T_STR)
        qr_mapb_put(&m, kw(a, "description"), desc);
    qr_mapb_put(&m, kw(a, "properties"), qr_mapb_finish(&pm, QR_T_MAP));
    qr_mapb_put(&m, kw(a, "required"), qr_vecb_finish(&names, QR_T_VEC));
    qr_mapb_put(&m, kw(a, "additionalProperties"), qr_bool(false));
    return qr_mapb_finish(&m, QR_T_MAP);
}

static qr_val convert(qr_arena *a, qr_val d, const qr_tool *t, const char *format)
{
    if (!strcmp(format, "mcp"))
        return d;
    qr_val name = mcp_get(a, d, "name"), desc = mcp_get(a, d, "description"),
           in = mcp_get(a, d, "inputSchema");
    qr_mapb m;
    qr_mapb_init(&m, a, 4);
    if (!strcmp(format, "anthropic")) {
        qr_mapb_put(&m, kw(a, "name"), name);
        qr_mapb_put(&m, kw(a, "description"), desc);
        qr_mapb_put(&m, kw(a, "input_schema"), in);
        return qr_mapb_finish(&m, QR_T_MAP);
    }
    bool strict = !strcmp(format, "openai-strict");
    qr_mapb fn;
    qr_mapb_init(&fn, a, 4);
    qr_mapb_put(&fn, kw(a, "name"), name);
    qr_mapb_put(&fn, kw(a, "description"), desc);
    qr_mapb_put(&fn, kw(a, "parameters"), strict ? strict_object(a, in, t) : in);
    if (strict)
        qr_mapb_put(&fn, kw(a, "strict"), qr_bool(true));
    qr_mapb_put(&m, kw(a, "type"), qr_str_cstr(a, "function"));
    qr_mapb_put(&m, kw(a, "function"), qr_mapb_finish(&fn, QR_T_MAP));
    return qr_mapb_finish(&m, QR_T_MAP);
}

const char *const qr_mcp_export_formats[] = {"mcp", "openai", "openai-strict", "anthropic", NULL};

int qr_mcp_export(qr_mcp_server *s, const char *format, const char *const *names, size_t nnames,
                  bool pretty, qr_buf *out, qr_buf *err)
{
    bool known = false;
    for (const char *const *f = qr_mcp_export_formats; *f; f++)
        known = known || !strcmp(*f, format);
    if (!known) {
        qr_buf_printf(err, "unknown format '%.100s': expected mcp, openai, openai-strict or "
                           "anthropic",
                      format);
        return QR_EINVAL;
    }
    for (size_t k = 0; k < nnames; k++) {
        bool found = false;
        for (size_t i = 0; i < s->nlist && !found; i++)
            found = !strcmp(s->list[i].tool->name, names[k]);
        if (!found) {
            qr_tools_explain_unknown(s->workers[0].tools, names[k], err);
            for (size_t i = 0; i < s->nlist; i++)
                if (s->list[i].own)
                    qr_buf_printf(err, ", %s", s->list[i].tool->name);
            return QR_EINVAL;
        }
    }
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_vecb vb;
    qr_vecb_init(&vb, &a, s->nlist);
    for (size_t i = 0; i < s->nlist; i++) {
        bool wanted = nnames == 0;
        for (size_t k = 0; k < nnames && !wanted; k++)
            wanted = !strcmp(s->list[i].tool->name, names[k]);
        if (wanted)
            qr_vecb_push(&vb, convert(&a, s->list[i].desc, s->list[i].tool, format));
    }
    qr_val all = qr_vecb_finish(&vb, QR_T_VEC);
    int rc = a.exhausted ? QR_ENOMEM : QR_OK;
    if (rc == QR_OK) {
        qr_print_json(out, all, pretty);
        qr_buf_putc(out, '\n');
        if (out->failed)
            rc = QR_ENOMEM;
    }
    qr_arena_release(&a);
    return rc;
}

int qr_mcp_served_names(const qr_mcp_config *cfg, qr_buf *out, qr_buf *err)
{
    qr_mcp_config c = *cfg;
    c.workers = 1;
    qr_mcp_server *s;
    int rc = qr_mcp_server_new(&c, &s, err);
    if (rc != QR_OK)
        return rc;
    for (size_t i = 0; i < s->nlist; i++)
        qr_buf_printf(out, "%s%s", i ? " " : "", s->list[i].tool->name);
    qr_mcp_server_free(s);
    return out->failed ? QR_ENOMEM : QR_OK;
}
