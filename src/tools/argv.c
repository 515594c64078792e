/*
 * argv.c: a tool's parameters from command-line words (`quarry tool NAME --since "1 week
 * ago" --limit 5`), parsed by each parameter's declared type into the same argument map
 * the Lisp and a model's JSON produce, so one validation path checks all three.
 *
 * Syntax: `--name value` or `--name=value`; '-' and '_' are interchangeable in names
 * (`--max-count` finds `max_count`). Integers and numbers are parsed as such; booleans
 * take true or false, and a bare `--flag` (last, or followed by another flag) means true.
 * Arrays take comma-separated items, repeated flags (which append), or one JSON/EDN
 * array ("[...]"); objects take JSON or EDN text. A flag that names no parameter is kept
 * as a string value so validation reports it with its "did you mean".
 *
 * Rejected: short options and positional parameters (tools have many optional
 * parameters, and names are what models and docs use); guessing types from the text
 * (the record says what each parameter is, so "007" stays a string where a string is
 * expected); trimming spaces around string items (paths may contain them).
 */
#include "tools_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const qr_tool_param *find_param(const qr_tool *t, const char *s, size_t n, size_t *idx)
{
    size_t np = qr__tool_nparams(t);
    for (size_t i = 0; i < np; i++)
        if (strlen(t->params[i].name) == n && !memcmp(t->params[i].name, s, n)) {
            *idx = i;
            return &t->params[i];
        }
    for (size_t i = 0; i < np; i++)
        if (qr__name_matches_loose(s, n, t->params[i].name)) {
            *idx = i;
            return &t->params[i];
        }
    return NULL;
}

/* JSON, else one EDN form. */
static int parse_structured(const char *s, size_t n, qr_arena *a, qr_val *out, qr_read_error *e)
{
    if (qr_json_read(a, s, n, out, e) == QR_OK)
        return QR_OK;
    qr_read_error e2;
    qr_val forms;
    if (qr_read_all(a, s, n, QR_READ_EDN, &forms, &e2) == QR_OK && qr_vec_len(forms) == 1) {
        *out = qr_vec_at(forms, 0);
        return QR_OK;
    }
    return QR_EINVAL;
}

static void trim(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t')) {
        (*s)++;
        (*n)--;
    }
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
        (*n)--;
}

/* Parses s[0..n) as one value of type `type`; false when it does not parse. */
static bool parse_scalar(qr_tool_type type, const char *s, size_t n, qr_arena *a, qr_val *out)
{
    char tmp[128];
    switch (type) {
    case QR_TOOL_ANY:
    case QR_TOOL_STRING: *out = qr_str_new(a, s, n); return true;
    case QR_TOOL_INTEGER:
    case QR_TOOL_NUMBER: {
        trim(&s, &n);
        if (n == 0 || n >= sizeof tmp)
            return false;
        memcpy(tmp, s, n);
        tmp[n] = '\0';
        char *end;
        errno = 0;
        long long i = strtoll(tmp, &end, 10);
        if (!errno && *end == '\0' && end != tmp) {
            *out = qr_int(i);
            return true;
        }
        if (type == QR_TOOL_INTEGER)
            return false;
        errno = 0;
        double d = strtod(tmp, &end);
        if (errno || *end || end == tmp || !isfinite(d))
            return false;
        *out = qr_double(d);
        return true;
    }
    case QR_TOOL_BOOLEAN:
        trim(&s, &n);
        if (n == 4 && !memcmp(s, "true", 4))
            *out = qr_bool(true);
        else if (n == 5 && !memcmp(s, "false", 5))
            *out = qr_bool(false);
        else
            return false;
        return true;
    case QR_TOOL_ARRAY:
    case QR_TOOL_OBJECT: {
        qr_read_error e;
        return parse_structured(s, n, a, out, &e) == QR_OK;
    }
    }
    return false;
}

static int bad_value(const qr_tool *t, const qr_tool_param *p, const char *text, qr_buf *err)
{
    qr_buf_printf(err, "tool '%s': parameter '%s' expects ", t->name, p->name);
    if (p->type == QR_TOOL_ARRAY) {
        qr_buf_puts(err, "comma-separated ");
        qr_buf_puts(err, p->items == QR_TOOL_ANY ? "values" : qr_tool_type_name(p->items));
        qr_buf_puts(err, " items or a JSON array");
    } else {
        qr_buf_puts(err, qr__type_expectation(p->type));
        if (p->type == QR_TOOL_OBJECT)
            qr_buf_puts(err, " as JSON or EDN, such as {\"key\": 1}");
    }
    qr_buf_printf(err, ", got '%s'", text);
    return QR_EINVAL;
}

/* Appends the items of one array flag's text to vb. */
static int parse_array(const qr_tool *t, const qr_tool_param *p, const char *text, qr_arena *a,
                       qr_vecb *vb, qr_buf *err)
{
    size_t n = strlen(text);
    const char *s = text;
    size_t tn = n;
    trim(&s, &tn);
    if (tn && s[0] == '[') {
        qr_val v;
        qr_read_error e;
        if (parse_structured(s, tn, a, &v, &e) != QR_OK || !qr_is_seqcoll(v))
            return bad_value(t, p, text, err);
        for (size_t i = 0; i < qr_vec_len(v); i++)
            qr_vecb_push(vb, qr_vec_at(v, i));
        return QR_OK;
    }
    if (n == 0)
        return QR_OK;
    for (const char *item = text;;) {
        const char *comma = strchr(item, ',');
        size_t len = comma ? (size_t)(comma - item) : strlen(item);
        qr_val v;
        qr_tool_type it = p->items == QR_TOOL_ARRAY || p->items == QR_TOOL_OBJECT
                              ? QR_TOOL_STRING /* structured items need the [...] form */
                              : p->items;
        if (!parse_scalar(it, item, len, a, &v))
            return bad_value(t, p, text, err);
        qr_vecb_push(vb, v);
        if (!comma)
            break;
        item = comma + 1;
    }
    return QR_OK;
}

static qr_val key_for(qr_arena *a, const char *s, size_t n)
{
    return qr_kw_valid(s, n) ? qr_kw(a, s, n) : qr_str_new(a, s, n);
}

int qr_tool_parse_argv(const qr_tool *t, int argc, char *const *argv, qr_val base, qr_arena *a,
                       qr_val *args, qr_buf *err)
{
    if (qr__tool_nparams(t) > QR_TOOL_MAX_PARAMS) {
        qr_buf_printf(err, "tool '%s': the tool declares more than 64 parameters", t->name);
        return QR_EINVAL;
    }
    qr_mapb mb;
    qr_mapb_init(&mb, a, 8);
    if (base.t == QR_T_MAP) {
        for (size_t i = 0; i < qr_map_len(base); i++) {
            qr_val k = qr_map_key_at(base, i);
            if (k.t == QR_T_STR && qr_kw_valid(k.s->data, k.s->len))
                k = qr_kw(a, k.s->data, k.s->len);
            qr_mapb_put(&mb, k, qr_map_val_at(base, i));
        }
    }
    /* array flags seen so far, collected until the end so that repeats append */
    qr_vecb arrays[QR_TOOL_MAX_PARAMS];
    bool seen[QR_TOOL_MAX_PARAMS] = {false};
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0' || arg[2] == '=') {
            qr_buf_printf(err,
                          "tool '%s': expected a parameter flag such as --name VALUE, got '%s'",
                          t->name, arg);
            return QR_EINVAL;
        }
        const char *name = arg + 2, *eq = strchr(name, '=');
        size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
        const char *value = eq ? eq + 1 : NULL;
        bool next_is_value = i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0;
        size_t idx;
        const qr_tool_param *p = find_param(t, name, nlen, &idx);
        if (!p) {
            /* kept for validation, which names it and suggests the right one */
            if (!value && next_is_value)
                value = argv[++i];
            qr_mapb_put(&mb, key_for(a, name, nlen), value ? qr_str_cstr(a, value) : qr_bool(true));
            continue;
        }
        if (p->type == QR_TOOL_BOOLEAN && !value) {
            if (next_is_value && (!strcmp(argv[i + 1], "true") || !strcmp(argv[i + 1], "false")))
                value = argv[++i];
            else
                value = "true";
        }
        if (!value) {
            if (!next_is_value) {
                qr_buf_printf(err, "tool '%s': flag '--%.*s' needs a value (", t->name, (int)nlen,
                              name);
                qr_buf_puts(err, p->type == QR_TOOL_ARRAY ? "comma-separated items"
                                                          : qr__type_expectation(p->type));
                qr_buf_putc(err, ')');
                return QR_EINVAL;
            }
            value = argv[++i];
        }
        if (p->type == QR_TOOL_ARRAY) {
            if (!seen[idx])
                qr_vecb_init(&arrays[idx], a, 4);
            seen[idx] = true;
            int rc = parse_array(t, p, value, a, &arrays[idx], err);
            if (rc != QR_OK)
                return rc;
            continue;
        }
        qr_val v;
        if (!parse_scalar(p->type, value, strlen(value), a, &v))
            return bad_value(t, p, value, err);
        qr_mapb_put(&mb, qr_kw_cstr(a, p->name), v);
    }
    for (size_t i = 0; i < QR_TOOL_MAX_PARAMS; i++)
        if (seen[i])
            qr_mapb_put(&mb, qr_kw_cstr(a, t->params[i].name),
                        qr_vecb_finish(&arrays[i], QR_T_VEC));
    *args = qr_mapb_finish(&mb, QR_T_MAP);
    if (a->exhausted || a->too_deep) {
        qr_buf_printf(err, "tool '%s': out of memory while reading parameters", t->name);
        return QR_ENOMEM;
    }
    return QR_OK;
}
