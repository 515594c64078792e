/*
 * export.c: descriptions generated from the tool records: the text that `quarry tools`
 * prints, quarry's own JSON listing, and the tool lists the model APIs take:
 *   openai     Chat Completions `tools`: [{"type":"function","function":{"name",
 *              "description","parameters"}}]
 *   anthropic  Messages API `tools`: [{"name","description","input_schema"}]
 *   mcp        MCP 2025-11-25 `tools/list` entries: [{"name","description","inputSchema",
 *              "outputSchema"?,"annotations"}]
 * Every input schema is a JSON Schema object: {"type":"object","properties":{...},
 * "required":[...],"additionalProperties":false} ("required" only when non-empty, which
 * every JSON Schema draft accepts; draft 4 rejects an empty one).
 *
 * Design: each listing is built as a value and printed with the JSON printer, so output
 * is valid JSON by construction, and key order (insertion-ordered maps) is stable. The
 * description a model sees is the summary followed by "Returns: " and the result's
 * description, since OpenAI and Anthropic have no field for the result; it ends a
 * sentence, and is at most 1,024 characters (what the OpenAI API takes): a longer one is
 * cut after its last whole sentence that fits (qr_tools_fit_description), so a record
 * should keep what a model must know first and move detail into its parameters'
 * descriptions. MCP gets the
 * result schema as outputSchema only when its root is an object, which is all that the
 * 2025-11-25 schema allows; MCP annotations come from the capability bits through
 * qr_tool_hints_of (registry.c), the one place that maps bits to the four hints, and all
 * four are always given (a client's defaults, destructiveHint true and openWorldHint true,
 * would be wrong for most tools).
 *
 * Rejected: OpenAI's `strict: true` (it requires every property to be listed as required
 * and optional ones written as nullable unions; quarry's optional parameters with defaults
 * would read worse to every other consumer); printing JSON by hand per format (three
 * formats would drift); a "$schema" key (MCP and the model APIs default to 2020-12 and
 * some clients reject unknown dialect URIs).
 */
#include "tools_int.h"

#include <math.h>
#include <string.h>

int qr_tools_format_parse(const char *s)
{
    static const char *const names[] = {"text", "json", "openai", "anthropic", "mcp"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

/* ---- values ---- */

static void put(qr_mapb *m, const char *key, qr_val v)
{
    qr_mapb_put(m, qr_kw_cstr(m->a, key), v);
}

static void put_str(qr_mapb *m, const char *key, const char *s)
{
    put(m, key, qr_str_cstr(m->a, s));
}

static qr_val number(double d)
{
    if (d == floor(d) && fabs(d) < 9e15)
        return qr_int((int64_t)d);
    return qr_double(d);
}

static qr_val enum_values(qr_arena *a, const char *const *e)
{
    qr_vecb vb;
    qr_vecb_init(&vb, a, 4);
    for (; *e; e++)
        qr_vecb_push(&vb, qr_str_cstr(a, *e));
    return qr_vecb_finish(&vb, QR_T_VEC);
}

static qr_val param_schema(const qr_tool_param *p, qr_arena *a)
{
    qr_mapb m;
    qr_mapb_init(&m, a, 8);
    put_str(&m, "type", qr_tool_type_name(p->type));
    if (p->desc)
        put_str(&m, "description", p->desc);
    if (p->type == QR_TOOL_ARRAY && (p->items != QR_TOOL_ANY || p->enum_values)) {
        qr_mapb im;
        qr_mapb_init(&im, a, 2);
        if (p->items != QR_TOOL_ANY)
            put_str(&im, "type", qr_tool_type_name(p->items));
        if (p->enum_values)
            put(&im, "enum", enum_values(a, p->enum_values));
        put(&m, "items", qr_mapb_finish(&im, QR_T_MAP));
    } else if (p->enum_values) {
        put(&m, "enum", enum_values(a, p->enum_values));
    }
    if (p->has_min)
        put(&m, "minimum", number(p->min));
    if (p->has_max)
        put(&m, "maximum", number(p->max));
    qr_val def;
    if (p->def && qr__param_default(p, a, &def) == QR_OK)
        put(&m, "default", def);
    return qr_mapb_finish(&m, QR_T_MAP);
}

qr_val qr_tool_input_schema(const qr_tool *t, qr_arena *a)
{
    size_t np = qr__tool_nparams(t);
    qr_mapb props, m;
    qr_mapb_init(&props, a, np);
    qr_vecb req;
    qr_vecb_init(&req, a, np);
    bool any_required = false;
    for (size_t i = 0; i < np; i++) {
        const qr_tool_param *p = &t->params[i];
        put(&props, p->name, param_schema(p, a));
        if (p->required) {
            qr_vecb_push(&req, qr_str_cstr(a, p->name));
            any_required = true;
        }
    }
    qr_mapb_init(&m, a, 4);
    put_str(&m, "type", "object");
    put(&m, "properties", qr_mapb_finish(&props, QR_T_MAP));
    qr_val required = qr_vecb_finish(&req, QR_T_VEC);
    if (any_required)
        put(&m, "required", required);
    put(&m, "additionalProperties", qr_bool(false));
    qr_val v = qr_mapb_finish(&m, QR_T_MAP);
    return a->exhausted ? qr_nil() : v;
}

void qr_tool_title(const qr_tool *t, qr_buf *out)
{
    if (t->title) {
        qr_buf_puts(out, t->title);
        return;
    }
    for (const char *p = t->name; *p; p++) {
        char c = *p == '_' || *p == '-' ? ' ' : *p;
        if (p == t->name && c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        qr_buf_putc(out, c);
    }
}

/* Whether s[0..n) ends a sentence: a period, ! or ? (before closing brackets or quotes),
 * or a closing bracket (a result written as a shape, "{result: ...}"). */
static bool ends_sentence(const char *s, size_t n)
{
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\n'))
        n--;
    if (n && strchr(")}]", s[n - 1]))
        return true;
    while (n && strchr("\"'`", s[n - 1]))
        n--;
    return n && strchr(".!?", s[n - 1]);
}

void qr_tools_fit_description(qr_buf *b, size_t from, size_t max)
{
    if (b->failed || from > b->len)
        return;
    const char *s = b->p + from;
    size_t n = b->len - from;
    if (qr_utf8_count(s, n) <= max)
        return;
    size_t limit = qr_utf8_offset(s, n, max); /* bytes of the first max characters */
    /* the last sentence's end that fits: ". " or ".\n" (or ! ?), whose period stays */
    size_t cut = 0;
    for (size_t i = 1; i < limit; i++)
        if (strchr(".!?", s[i - 1]) && (s[i] == ' ' || s[i] == '\n'))
            cut = i;
    bool dots = false;
    if (!cut) { /* no sentence ends in time: the last space, and "..." */
        size_t room = qr_utf8_offset(s, n, max > 3 ? max - 3 : 0);
        for (size_t i = room; i > 0 && !cut; i--)
            if (s[i] == ' ' || s[i] == '\n')
                cut = i;
        if (!cut)
            cut = room;
        dots = true;
    }
    b->len = from + cut;
    b->p[b->len] = '\0';
    if (dots)
        qr_buf_puts(b, "...");
}

void qr_tool_description(const qr_tool *t, qr_buf *out)
{
    size_t from = out->len;
    qr_buf_puts(out, t->summary);
    if (t->result && t->result[0]) {
        qr_buf_puts(out, "\n\nReturns: ");
        qr_buf_puts(out, t->result);
        if (!ends_sentence(t->result, strlen(t->result)))
            qr_buf_putc(out, '.');
    }
    qr_tools_fit_description(out, from, QR_TOOLS_DESCRIPTION_MAX);
}

static qr_val description(const qr_tool *t, qr_arena *a)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_tool_description(t, &b);
    qr_val v = qr_str_new(a, b.p ? b.p : "", b.len);
    qr_buf_release(&b);
    return v;
}

/* The result schema as a value, or nil when there is none. */
static qr_val result_schema(const qr_tool *t, qr_arena *a)
{
    qr_val v;
    qr_read_error e;
    if (!t->result_schema ||
        qr_json_read(a, t->result_schema, strlen(t->result_schema), &v, &e) != QR_OK)
        return qr_nil();
    return v;
}

static qr_val entry(const qr_tool *t, qr_tools_format f, qr_arena *a)
{
    qr_mapb m;
    qr_mapb_init(&m, a, 6);
    switch (f) {
    case QR_TOOLS_JSON: {
        put_str(&m, "name", t->name);
        put_str(&m, "summary", t->summary);
        put(&m, "parameters", qr_tool_input_schema(t, a));
        qr_mapb res;
        qr_mapb_init(&res, a, 2);
        if (t->result)
            put_str(&res, "description", t->result);
        qr_val schema = result_schema(t, a);
        if (!qr_is_nil(schema))
            put(&res, "schema", schema);
        put(&m, "result", qr_mapb_finish(&res, QR_T_MAP));
        qr_vecb caps;
        qr_vecb_init(&caps, a, 4);
        for (uint32_t bit = 1; bit & QR_TOOL_ALL_CAPS; bit <<= 1)
            if (t->caps & bit)
                qr_vecb_push(&caps, qr_str_cstr(a, qr_tool_cap_name(bit)));
        put(&m, "capabilities", qr_vecb_finish(&caps, QR_T_VEC));
        break;
    }
    case QR_TOOLS_OPENAI: {
        qr_mapb fn;
        qr_mapb_init(&fn, a, 3);
        put_str(&fn, "name", t->name);
        put(&fn, "description", description(t, a));
        put(&fn, "parameters", qr_tool_input_schema(t, a));
        put_str(&m, "type", "function");
        put(&m, "function", qr_mapb_finish(&fn, QR_T_MAP));
        break;
    }
    case QR_TOOLS_ANTHROPIC:
        put_str(&m, "name", t->name);
        put(&m, "description", description(t, a));
        put(&m, "input_schema", qr_tool_input_schema(t, a));
        break;
    case QR_TOOLS_MCP: {
        put_str(&m, "name", t->name);
        qr_buf title;
        qr_buf_init(&title);
        qr_tool_title(t, &title);
        put(&m, "title", qr_str_new(a, title.p ? title.p : "", title.len));
        qr_buf_release(&title);
        put(&m, "description", description(t, a));
        put(&m, "inputSchema", qr_tool_input_schema(t, a));
        qr_val schema = result_schema(t, a), type;
        if (schema.t == QR_T_MAP && qr_map_lookup(schema, qr_kw_cstr(a, "type"), &type) &&
            type.t == QR_T_STR && !strcmp(type.s->data, "object"))
            put(&m, "outputSchema", schema);
        qr_mapb ann;
        qr_mapb_init(&ann, a, 4);
        qr_tool_hints h = qr_tool_hints_of(t->caps);
        put(&ann, "readOnlyHint", qr_bool(h.read_only));
        put(&ann, "destructiveHint", qr_bool(h.destructive));
        put(&ann, "idempotentHint", qr_bool(h.idempotent));
        put(&ann, "openWorldHint", qr_bool(h.open_world));
        put(&m, "annotations", qr_mapb_finish(&ann, QR_T_MAP));
        break;
    }
    case QR_TOOLS_TEXT: break;
    }
    return qr_mapb_finish(&m, QR_T_MAP);
}

/* ---- text ---- */

/* "integer 1..10, default 5", "fast|exact, required", "array of string" */
static void param_spec(qr_buf *b, const qr_tool_param *p)
{
    if (p->type == QR_TOOL_ARRAY) {
        qr_buf_puts(b, "array");
        if (p->items != QR_TOOL_ANY || p->enum_values)
            qr_buf_puts(b, " of ");
    }
    if (p->enum_values) {
        for (const char *const *e = p->enum_values; *e; e++)
            qr_buf_printf(b, "%s%s", e == p->enum_values ? "" : "|", *e);
    } else if (p->type != QR_TOOL_ARRAY) {
        qr_buf_puts(b, qr_tool_type_name(p->type));
    } else if (p->items != QR_TOOL_ANY) {
        qr_buf_puts(b, qr_tool_type_name(p->items));
    }
    if (p->has_min || p->has_max) {
        qr_buf tmp;
        qr_buf_init(&tmp);
        if (p->has_min && p->has_max) {
            qr_print_json(&tmp, number(p->min), false);
            qr_buf_puts(&tmp, "..");
            qr_print_json(&tmp, number(p->max), false);
        } else {
            qr_buf_puts(&tmp, p->has_min ? ">= " : "<= ");
            qr_print_json(&tmp, number(p->has_min ? p->min : p->max), false);
        }
        qr_buf_printf(b, " %s", tmp.p ? tmp.p : "");
        qr_buf_release(&tmp);
    }
    if (p->required)
        qr_buf_puts(b, ", required");
    else if (p->def)
        qr_buf_printf(b, ", default %s", p->def);
}

static size_t width(const char *s, size_t n)
{
    return qr_utf8_count(s, n);
}

void qr_tool_describe(const qr_tool *t, qr_buf *out)
{
    qr_buf_printf(out, "%s  %s\n", t->name, t->summary);
    size_t np = qr__tool_nparams(t), wname = 0, wspec = 0;
    qr_buf specs[QR_TOOL_MAX_PARAMS];
    if (np > QR_TOOL_MAX_PARAMS)
        np = QR_TOOL_MAX_PARAMS; /* such a record is refused by qr_tools_add */
    for (size_t i = 0; i < np; i++) {
        qr_buf_init(&specs[i]);
        param_spec(&specs[i], &t->params[i]);
        size_t wn = strlen(t->params[i].name),
               ws = width(specs[i].p ? specs[i].p : "", specs[i].len);
        wname = wn > wname ? wn : wname;
        wspec = ws > wspec ? ws : wspec;
    }
    for (size_t i = 0; i < np; i++) {
        const qr_tool_param *p = &t->params[i];
        const char *spec = specs[i].p ? specs[i].p : "";
        qr_buf_printf(out, "    %-*s  %s", (int)wname, p->name, spec);
        if (p->desc && p->desc[0]) {
            for (size_t k = width(spec, specs[i].len); k < wspec; k++)
                qr_buf_putc(out, ' ');
            qr_buf_printf(out, "  %s", p->desc);
        }
        qr_buf_putc(out, '\n');
        qr_buf_release(&specs[i]);
    }
    if (t->result && t->result[0])
        qr_buf_printf(out, "    returns: %s\n", t->result);
}

int qr_tools_export(const qr_tools *r, qr_tools_format f, bool pretty, qr_buf *out)
{
    size_t n = qr_tools_count(r), shown = 0;
    if (f == QR_TOOLS_TEXT) {
        for (size_t i = 0; i < n; i++) {
            const qr_tool *t = qr_tools_at(r, i);
            if (!qr_tools_usable(r, t))
                continue;
            if (shown++)
                qr_buf_putc(out, '\n');
            qr_tool_describe(t, out);
        }
        if (!shown)
            qr_buf_puts(out, n ? "no tools are available in this session\n"
                               : "no tools are registered\n");
        return out->failed ? QR_ENOMEM : QR_OK;
    }
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_vecb vb;
    qr_vecb_init(&vb, &a, n);
    for (size_t i = 0; i < n; i++) {
        const qr_tool *t = qr_tools_at(r, i);
        if (qr_tools_usable(r, t))
            qr_vecb_push(&vb, entry(t, f, &a));
    }
    qr_val all = qr_vecb_finish(&vb, QR_T_VEC);
    int rc = a.exhausted ? QR_ENOMEM : QR_OK;
    if (rc == QR_OK) {
        qr_print_json(out, all, pretty);
        qr_buf_putc(out, '\n');
    }
    qr_arena_release(&a);
    return rc == QR_OK && out->failed ? QR_ENOMEM : rc;
}
