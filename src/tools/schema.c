/*
 * schema.c: checking a tool's arguments against its record before the handler runs, and
 * checking records themselves once, when they are registered.
 *
 * Design: arguments arrive as a map from the Lisp (keyword keys), from JSON (a model's
 * tool call: keyword keys where possible, else strings) or from the command line. Keys
 * may be keywords or strings; nil for the whole map means {} and nil for one parameter
 * means "not given" (Clojure's habit of {:author nil}, JSON's null). The handler gets a
 * new map with keyword keys in declaration order, defaults filled in, and values made
 * canonical: a keyword given for a string becomes the string, an integral double given
 * for an integer becomes the integer (JSON Schema counts 1.0 as an integer), lists and
 * sets given for arrays become vectors. Checks stop at the first problem, in the order a
 * model can best repair: unknown names (with a suggestion), then missing required
 * parameters (all of them at once), then each value in declaration order.
 *
 * Rejected: a general JSON Schema validator (the records use a small subset, and their
 * messages can name the parameter and the fix); accepting '-' for '_' in names silently
 * (one spelling per parameter keeps schemas, logs and caches consistent; the suggestion
 * gives the right one); coercing strings to numbers ("5" for 5) here, which would hide
 * mistakes in programs; the command line does its own typed parsing instead.
 */
#include "tools_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

size_t qr__tool_nparams(const qr_tool *t)
{
    size_t n = 0;
    while (t->params && t->params[n].name)
        n++;
    return n;
}

bool qr__tool_name_valid(const char *s, size_t n)
{
    if (n == 0 || n > QR_TOOL_MAX_NAME)
        return false;
    if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return false;
    for (size_t i = 1; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return false;
    }
    return true;
}

const char *qr__type_expectation(qr_tool_type t)
{
    switch (t) {
    case QR_TOOL_ANY: return "any value";
    case QR_TOOL_STRING: return "a string";
    case QR_TOOL_INTEGER: return "an integer";
    case QR_TOOL_NUMBER: return "a number";
    case QR_TOOL_BOOLEAN: return "true or false";
    case QR_TOOL_ARRAY: return "an array (vector)";
    case QR_TOOL_OBJECT: return "an object (map)";
    }
    return "a value";
}

static const char *plural(qr_tool_type t)
{
    switch (t) {
    case QR_TOOL_STRING: return "strings";
    case QR_TOOL_INTEGER: return "integers";
    case QR_TOOL_NUMBER: return "numbers";
    case QR_TOOL_BOOLEAN: return "booleans";
    case QR_TOOL_ARRAY: return "arrays";
    case QR_TOOL_OBJECT: return "objects";
    default: return "values";
    }
}

/* "an array of integers" for arrays with an item type, else the type's expectation. */
static void param_expectation(qr_buf *b, const qr_tool_param *p)
{
    if (p->type == QR_TOOL_ARRAY && p->items != QR_TOOL_ANY)
        qr_buf_printf(b, "an array of %s", plural(p->items));
    else
        qr_buf_puts(b, qr__type_expectation(p->type));
}


int qr__param_default(const qr_tool_param *p, qr_arena *a, qr_val *out)
{
    size_t n = strlen(p->def);
    qr_read_error e;
    if (qr_json_read(a, p->def, n, out, &e) == QR_OK)
        return QR_OK;
    qr_val forms;
    int rc = qr_read_all(a, p->def, n, QR_READ_EDN, &forms, &e);
    if (rc != QR_OK)
        return rc;
    if (qr_vec_len(forms) != 1)
        return QR_EINVAL;
    *out = qr_vec_at(forms, 0);
    return QR_OK;
}

/* ---- values ---- */

static bool in_enum(const qr_tool_param *p, const char *s, size_t n)
{
    for (const char *const *e = p->enum_values; *e; e++)
        if (strlen(*e) == n && memcmp(*e, s, n) == 0)
            return true;
    return false;
}

static void enum_error(qr_buf *err, const qr_tool_param *p, const char *where, qr_val got)
{
    qr_buf_printf(err, "parameter '%s'%s must be one of ", p->name, where);
    size_t n = 0;
    for (const char *const *e = p->enum_values; *e; e++, n++) {
        if (n)
            qr_buf_puts(err, ", ");
        qr_buf_json_string(err, *e, strlen(*e));
    }
    qr_buf_puts(err, ", got ");
    qr_describe(err, got);
    if (got.t == QR_T_STR) {
        const char *s =
            qr__suggest(got.s->data, got.s->len, (const char *const *)p->enum_values, n);
        if (s) {
            qr_buf_puts(err, "; did you mean ");
            qr_buf_json_string(err, s, strlen(s));
            qr_buf_putc(err, '?');
        }
    }
}

static void print_bound(qr_buf *b, double d)
{
    if (d == floor(d) && fabs(d) < 9e15)
        qr_buf_printf(b, "%lld", (long long)d);
    else
        qr_print_double(b, d);
}

/* Checks one scalar or collection against type `type`; where is "" or " item at index N"
 * (for messages). */
static int check_typed(const qr_tool_param *p, qr_tool_type type, const char *where, qr_val v,
                       qr_arena *a, qr_val *out, qr_buf *err)
{
    *out = v;
    switch (type) {
    case QR_TOOL_ANY: return QR_OK;
    case QR_TOOL_STRING:
        if (v.t == QR_T_KW) {
            *out = qr_str_new(a, v.sym->text, v.sym->len);
            if (qr_is_nil(*out)) {
                qr_buf_puts(err, "out of memory while checking parameters");
                return QR_ENOMEM;
            }
            return QR_OK;
        }
        if (v.t == QR_T_STR) {
            /* refused, not cut: the handlers pass strings on as C strings */
            if (memchr(v.s->data, 0, v.s->len)) {
                qr_buf_printf(err,
                              "parameter '%s'%s holds a NUL character (\\u0000); strings "
                              "with NUL are refused rather than cut: remove it",
                              p->name, where);
                return QR_EINVAL;
            }
            return QR_OK;
        }
        break;
    case QR_TOOL_INTEGER:
        if (v.t == QR_T_INT)
            return QR_OK;
        /* 2^63 is exact as a double; anything below it in magnitude converts exactly */
        if (v.t == QR_T_DOUBLE && v.d == floor(v.d) && v.d >= -9223372036854775808.0 &&
            v.d < 9223372036854775808.0) {
            *out = qr_int((int64_t)v.d);
            return QR_OK;
        }
        break;
    case QR_TOOL_NUMBER:
        if (v.t == QR_T_INT || (v.t == QR_T_DOUBLE && isfinite(v.d)))
            return QR_OK;
        break;
    case QR_TOOL_BOOLEAN:
        if (v.t == QR_T_BOOL)
            return QR_OK;
        break;
    case QR_TOOL_ARRAY:
        if (v.t == QR_T_VEC || v.t == QR_T_LIST || v.t == QR_T_SET)
            return QR_OK; /* items are checked by the caller */
        break;
    case QR_TOOL_OBJECT:
        if (v.t == QR_T_MAP)
            return QR_OK;
        break;
    }
    qr_buf_printf(err, "parameter '%s'%s expects ", p->name, where);
    if (*where)
        qr_buf_puts(err, qr__type_expectation(type));
    else
        param_expectation(err, p);
    qr_buf_puts(err, ", got ");
    qr_describe(err, v);
    return QR_EINVAL;
}

static int check_bounds(const qr_tool_param *p, qr_val v, qr_buf *err)
{
    if (!qr_is_number(v))
        return QR_OK;
    double d = qr_to_double(v);
    bool low = p->has_min && d < p->min, high = p->has_max && d > p->max;
    if (!low && !high)
        return QR_OK;
    qr_buf_printf(err, "parameter '%s' must be at %s ", p->name, low ? "least" : "most");
    print_bound(err, low ? p->min : p->max);
    qr_buf_puts(err, ", got ");
    if (v.t == QR_T_INT)
        qr_buf_printf(err, "%lld", (long long)v.i);
    else
        qr_print_double(err, v.d);
    return QR_EINVAL;
}

static int check_value(const qr_tool_param *p, qr_val v, qr_arena *a, qr_val *out, qr_buf *err)
{
    int rc = check_typed(p, p->type, "", v, a, out, err);
    if (rc != QR_OK)
        return rc;
    if (p->type == QR_TOOL_STRING && p->enum_values && !in_enum(p, out->s->data, out->s->len)) {
        enum_error(err, p, "", *out);
        return QR_EINVAL;
    }
    if (p->type == QR_TOOL_STRING && p->check) {
        qr_buf msg;
        qr_buf_init(&msg);
        rc = p->check(out->s->data, out->s->len, &msg);
        if (rc != QR_OK)
            qr_buf_printf(err, "parameter '%s': %.*s", p->name, (int)msg.len, msg.p ? msg.p : "");
        qr_buf_release(&msg);
        return rc;
    }
    if (p->type == QR_TOOL_INTEGER || p->type == QR_TOOL_NUMBER)
        return check_bounds(p, *out, err);
    if (p->type != QR_TOOL_ARRAY)
        return QR_OK;
    size_t n = v.c->len;
    qr_vecb vb;
    qr_vecb_init(&vb, a, n);
    for (size_t i = 0; i < n; i++) {
        qr_val item = v.t == QR_T_SET ? qr_map_key_at(v, i) : qr_vec_at(v, i), norm;
        char where[48];
        snprintf(where, sizeof where, " item at index %zu", i);
        rc = check_typed(p, p->items, where, item, a, &norm, err);
        if (rc != QR_OK)
            return rc;
        if (p->enum_values && norm.t == QR_T_STR && !in_enum(p, norm.s->data, norm.s->len)) {
            enum_error(err, p, where, norm);
            return QR_EINVAL;
        }
        qr_vecb_push(&vb, norm);
    }
    *out = qr_vecb_finish(&vb, QR_T_VEC);
    return QR_OK;
}

/* ---- the argument map ---- */

static void list_params(qr_buf *err, const qr_tool *t, size_t np)
{
    if (np == 0) {
        qr_buf_puts(err, "this tool takes no parameters");
        return;
    }
    qr_buf_puts(err, "parameters: ");
    for (size_t i = 0; i < np; i++)
        qr_buf_printf(err, "%s%s", i ? ", " : "", t->params[i].name);
}

static void unknown_param(qr_buf *err, const qr_tool *t, size_t np, const char *s, size_t n)
{
    const char *cands[QR_TOOL_MAX_PARAMS];
    for (size_t i = 0; i < np; i++)
        cands[i] = t->params[i].name;
    qr_buf_puts(err, "unknown parameter '");
    qr_buf_append(err, s, n);
    qr_buf_puts(err, "'; ");
    const char *sug = qr__suggest(s, n, cands, np);
    if (sug)
        qr_buf_printf(err, "did you mean '%s'? ", sug);
    list_params(err, t, np);
}

int qr__tool_check(const qr_tool *t, qr_val args, qr_arena *a, qr_val *norm, qr_buf *err)
{
    size_t np = qr__tool_nparams(t);
    qr_val given[QR_TOOL_MAX_PARAMS];
    if (np > QR_TOOL_MAX_PARAMS) {
        qr_buf_puts(err, "the tool declares more than 64 parameters");
        return QR_EINVAL;
    }
    uint8_t have[QR_TOOL_MAX_PARAMS] = {0}; /* 0 absent, 1 keyword key, 2 string key */
    if (qr_is_nil(args))
        args = qr_map_empty();
    if (args.t != QR_T_MAP) {
        qr_buf_puts(err, "parameters must be a map, got ");
        qr_describe(err, args);
        return QR_EINVAL;
    }
    for (size_t k = 0; k < qr_map_len(args); k++) {
        qr_val key = qr_map_key_at(args, k), val = qr_map_val_at(args, k);
        const char *s;
        size_t n;
        if (key.t == QR_T_KW) {
            s = key.sym->text;
            n = key.sym->len;
        } else if (key.t == QR_T_STR) {
            s = key.s->data;
            n = key.s->len;
        } else {
            qr_buf_puts(err, "parameter names must be keywords or strings, got ");
            qr_describe(err, key);
            return QR_EINVAL;
        }
        size_t i = 0;
        while (i < np && !(strlen(t->params[i].name) == n && !memcmp(t->params[i].name, s, n)))
            i++;
        if (i == np) {
            unknown_param(err, t, np, s, n);
            return QR_EINVAL;
        }
        if (have[i]) {
            qr_buf_printf(err, "parameter '%s' is given twice, as a keyword and as a string",
                          t->params[i].name);
            return QR_EINVAL;
        }
        if (qr_is_nil(val))
            continue; /* nil means not given */
        have[i] = key.t == QR_T_KW ? 1 : 2;
        given[i] = val;
    }
    size_t missing = 0;
    for (size_t i = 0; i < np; i++)
        missing += t->params[i].required && !have[i];
    if (missing) {
        qr_buf_printf(err, "missing required parameter%s ", missing > 1 ? "s" : "");
        size_t m = 0;
        for (size_t i = 0; i < np; i++) {
            if (!t->params[i].required || have[i])
                continue;
            qr_buf_printf(err, "%s'%s' (", m++ ? ", " : "", t->params[i].name);
            param_expectation(err, &t->params[i]);
            qr_buf_putc(err, ')');
        }
        return QR_EINVAL;
    }
    qr_mapb mb;
    qr_mapb_init(&mb, a, np);
    for (size_t i = 0; i < np; i++) {
        const qr_tool_param *p = &t->params[i];
        qr_val v;
        if (have[i]) {
            v = given[i];
        } else if (p->def) {
            if (qr__param_default(p, a, &v) != QR_OK)
                goto nomem; /* defaults were checked at registration */
        } else {
            continue;
        }
        qr_val nv;
        int rc = check_value(p, v, a, &nv, err);
        if (rc != QR_OK)
            return rc;
        qr_mapb_put(&mb, qr_kw_cstr(a, p->name), nv);
    }
    *norm = qr_mapb_finish(&mb, QR_T_MAP);
    if (a->exhausted || a->too_deep)
        goto nomem;
    return QR_OK;
nomem:
    qr_buf_puts(err, "out of memory while checking parameters");
    return QR_ENOMEM;
}

/* ---- records ---- */

static bool fail(char *msg, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(char *msg, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, size, fmt, ap);
    va_end(ap);
    return false;
}

static bool param_ok(const qr_tool *t, const qr_tool_param *p, size_t idx, qr_arena *scratch,
                     char *msg, size_t size)
{
    if (!qr__tool_name_valid(p->name, strlen(p->name)))
        return fail(msg, size,
                    "tool '%s': parameter name '%s' is not valid: expected a letter, then "
                    "letters, digits, '_' or '-', at most 64 in all",
                    t->name, p->name);
    for (size_t j = 0; j < idx; j++)
        if (!strcmp(t->params[j].name, p->name))
            return fail(msg, size, "tool '%s': parameter '%s' is declared twice", t->name, p->name);
    if (p->type < QR_TOOL_STRING || p->type > QR_TOOL_OBJECT)
        return fail(msg, size, "tool '%s': parameter '%s' has no valid type", t->name, p->name);
    if (p->type == QR_TOOL_ARRAY ? (p->items < QR_TOOL_ANY || p->items > QR_TOOL_OBJECT)
                                 : p->items != QR_TOOL_ANY)
        return fail(msg, size, "tool '%s': parameter '%s' has an item type but is not an array",
                    t->name, p->name);
    if (p->enum_values) {
        bool strings =
            p->type == QR_TOOL_STRING || (p->type == QR_TOOL_ARRAY && p->items == QR_TOOL_STRING);
        if (!strings || !p->enum_values[0])
            return fail(msg, size,
                        "tool '%s': parameter '%s' has an enum, which needs a string (or "
                        "array of strings) parameter and at least one value",
                        t->name, p->name);
    }
    bool numeric = p->type == QR_TOOL_INTEGER || p->type == QR_TOOL_NUMBER;
    if ((p->has_min || p->has_max) && !numeric)
        return fail(msg, size, "tool '%s': parameter '%s' has bounds but is not a number", t->name,
                    p->name);
    if (p->has_min && p->has_max && p->min > p->max)
        return fail(msg, size, "tool '%s': parameter '%s' has min > max", t->name, p->name);
    if (p->required && p->def)
        return fail(msg, size, "tool '%s': parameter '%s' is required and has a default", t->name,
                    p->name);
    if (p->def) {
        qr_val v, nv;
        if (qr__param_default(p, scratch, &v) != QR_OK)
            return fail(msg, size, "tool '%s': the default of parameter '%s' does not parse",
                        t->name, p->name);
        qr_buf e;
        qr_buf_init(&e);
        int rc = check_value(p, v, scratch, &nv, &e);
        if (rc != QR_OK) {
            snprintf(msg, size, "tool '%s': bad default: %s", t->name, e.p ? e.p : "?");
            qr_buf_release(&e);
            return false;
        }
        qr_buf_release(&e);
    }
    return true;
}

bool qr__tool_record_ok(const qr_tool *t, char *msg, size_t size)
{
    if (!t->name || !qr__tool_name_valid(t->name, strlen(t->name)))
        return fail(msg, size,
                    "tool name '%s' is not valid: expected a letter, then letters, digits, "
                    "'_' or '-', at most 64 in all",
                    t->name ? t->name : "(null)");
    if (!t->summary || !t->summary[0])
        return fail(msg, size, "tool '%s': no summary", t->name);
    if (!t->handler)
        return fail(msg, size, "tool '%s': no handler", t->name);
    if (t->caps & ~(uint32_t)QR_TOOL_ALL_CAPS)
        return fail(msg, size, "tool '%s': unknown capability bits", t->name);
    if ((t->caps & (QR_TOOL_DESTROYS | QR_TOOL_CUMULATIVE)) && !(t->caps & QR_TOOL_WRITES))
        return fail(msg, size,
                    "tool '%s': capability '%s' qualifies a write: add QR_TOOL_WRITES",
                    t->name,
                    qr_tool_cap_name(t->caps & QR_TOOL_DESTROYS ? QR_TOOL_DESTROYS
                                                                : QR_TOOL_CUMULATIVE));
    size_t np = qr__tool_nparams(t);
    if (np > QR_TOOL_MAX_PARAMS)
        return fail(msg, size, "tool '%s': more than 64 parameters", t->name);
    qr_arena scratch;
    qr_arena_init(&scratch, 1u << 20);
    bool ok = true;
    for (size_t i = 0; ok && i < np; i++)
        ok = param_ok(t, &t->params[i], i, &scratch, msg, size);
    if (ok && t->result_schema) {
        qr_val v;
        qr_read_error e;
        if (qr_json_read(&scratch, t->result_schema, strlen(t->result_schema), &v, &e) != QR_OK ||
            v.t != QR_T_MAP)
            ok = fail(msg, size, "tool '%s': the result schema is not a JSON object", t->name);
    }
    qr_arena_release(&scratch);
    return ok;
}
