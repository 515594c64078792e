/*
 * shape.c: what a binding holds, as far as the compiler can know: a vector of records, a
 * group, one record or a scalar, and the fields of its records with their types. Shapes
 * come from the tool records (the result schema's properties, plus the keys the one-line
 * result description lists, since a schema may leave some out), from the context data
 * itself (the union of its records' keys), and from each op (a :map makes exactly its
 * :select and :compute fields).
 *
 * A field reference is checked against a closed shape: a field no record has is a
 * problem with the fields there are, and a common other name for one of them (:count for
 * :commits, :sha for :hash) is read as that field with a note in the program, so that a
 * query written for another tool set (seed 000's own examples) still gives the right
 * answer. Numeric fields of tool results are taken as always present (they are counts),
 * which lets comparisons and arithmetic on them compile without nil guards; nothing else
 * from a schema is trusted that far.
 *
 * Rejected: failing on every unknown field of an open shape (context records differ from
 * each other; an empty vector says nothing); silently reading any unknown field as nil
 * (a misspelt field would quietly match nothing).
 */
#include "query_int.h"

#include <string.h>

void qq_shape_unknown(qq_shape *s, const char *origin)
{
    memset(s, 0, sizeof *s);
    s->kind = SK_UNKNOWN;
    s->by = qr_nil();
    s->origin = origin;
}

const char *qq_ftype_name(uint8_t t)
{
    switch (t) {
    case FT_NUM: return "numbers";
    case FT_STR: return "text";
    case FT_BOOL: return "booleans";
    case FT_COLL: return "collections";
    case FT_NIL: return "nil";
    default: return "values of any type";
    }
}

const qq_field *qq_field_find(const qq_shape *s, const char *name, size_t n)
{
    for (size_t i = 0; i < s->nfields; i++)
        if (strlen(s->fields[i].name) == n && !memcmp(s->fields[i].name, name, n))
            return &s->fields[i];
    return NULL;
}

void qq_shape_add(qq_ctx *c, qq_shape *s, const char *name, size_t n, uint8_t type, bool always)
{
    for (size_t i = 0; i < s->nfields; i++)
        if (strlen(s->fields[i].name) == n && !memcmp(s->fields[i].name, name, n)) {
            s->fields[i].type = type;
            s->fields[i].always = always;
            return;
        }
    /* grows by doubling in the arena (shapes are small) */
    if ((s->nfields & (s->nfields - 1)) == 0) {
        size_t cap = s->nfields ? 2 * s->nfields : 8;
        qq_field *f = qr_arena_alloc(c->a, cap * sizeof *f);
        if (!f) {
            c->oom = true;
            return;
        }
        if (s->nfields)
            memcpy(f, s->fields, s->nfields * sizeof *f);
        s->fields = f;
    }
    char *nm = qr_arena_strndup(c->a, name, n);
    if (!nm) {
        c->oom = true;
        return;
    }
    s->fields[s->nfields++] = (qq_field){.name = nm, .type = type, .always = always};
}

static uint8_t schema_type(qr_val prop)
{
    qr_val t;
    const char *s;
    size_t n;
    if (!qq_get(prop, "type", &t) || !qq_name_of(t, &s, &n))
        return FT_ANY;
    if ((n == 7 && !memcmp(s, "integer", 7)) || (n == 6 && !memcmp(s, "number", 6)))
        return FT_NUM;
    if (n == 6 && !memcmp(s, "string", 6))
        return FT_STR;
    if (n == 7 && !memcmp(s, "boolean", 7))
        return FT_BOOL;
    if ((n == 5 && !memcmp(s, "array", 5)) || (n == 6 && !memcmp(s, "object", 6)))
        return FT_COLL;
    return FT_ANY;
}

/* The keys listed in the first {...} of a result description ("a vector of {:hash
 * :author ...} (+ :paths ...)"), at its top level. */
static void fields_from_text(qq_ctx *c, qq_shape *s, const char *text)
{
    const char *p = text ? strchr(text, '{') : NULL;
    if (!p)
        return;
    int depth = 0;
    for (; *p; p++) {
        if (*p == '{' || *p == '[' || *p == '(') {
            depth++;
        } else if (*p == '}' || *p == ']' || *p == ')') {
            if (--depth == 0)
                return;
        } else if (*p == ':' && depth == 1) {
            const char *q = p + 1;
            while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
                   (*q >= '0' && *q <= '9') || *q == '_' || *q == '-')
                q++;
            if (q > p + 1 && !qq_field_find(s, p + 1, (size_t)(q - p - 1)))
                qq_shape_add(c, s, p + 1, (size_t)(q - p - 1), FT_ANY, false);
            p = q - 1;
        }
    }
}

void qq_shape_from_tool(qq_ctx *c, const qr_tool *t, qq_shape *s)
{
    qq_shape_unknown(s, qq_fmt(c, "%s results", t->name));
    if (!t->result_schema)
        return;
    qr_val sch;
    qr_read_error err;
    if (qr_json_read(c->a, t->result_schema, strlen(t->result_schema), &sch, &err) != QR_OK)
        return;
    qr_val type, props, items;
    const char *ts;
    size_t tn;
    if (!qq_get(sch, "type", &type) || !qq_name_of(type, &ts, &tn))
        return;
    qr_val obj = sch;
    if (tn == 5 && !memcmp(ts, "array", 5)) {
        s->kind = SK_SEQ;
        if (!qq_get(sch, "items", &items) || !qq_get(items, "properties", &props))
            return;
        obj = items;
        s->records = true;
    } else if (tn == 6 && !memcmp(ts, "object", 6)) {
        s->kind = SK_RECORD;
        s->records = true;
        if (!qq_get(sch, "properties", &props))
            return;
    } else {
        return;
    }
    (void)obj;
    if (props.t != QR_T_MAP)
        return;
    for (size_t i = 0; i < qr_map_len(props); i++) {
        const char *nm;
        size_t nn;
        if (!qq_name_of(qr_map_key_at(props, i), &nm, &nn))
            continue;
        uint8_t ft = schema_type(qr_map_val_at(props, i));
        qq_shape_add(c, s, nm, nn, ft, ft == FT_NUM);
    }
    fields_from_text(c, s, t->result);
    s->closed = true;
}

static uint8_t value_type(qr_val v)
{
    switch (v.t) {
    case QR_T_INT:
    case QR_T_DOUBLE: return FT_NUM;
    case QR_T_STR: return FT_STR;
    case QR_T_BOOL: return FT_BOOL;
    case QR_T_NIL: return FT_NIL;
    case QR_T_VEC:
    case QR_T_LIST:
    case QR_T_MAP:
    case QR_T_SET: return FT_COLL;
    default: return FT_ANY;
    }
}

/* Merges the type seen in one more record into a field's type. */
static uint8_t merge_type(uint8_t have, uint8_t seen)
{
    if (have == FT_NIL)
        return seen;
    if (seen == FT_NIL || seen == have)
        return have;
    return FT_ANY;
}

static void fields_of_records(qq_ctx *c, qq_shape *s, const qr_val *items, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        qr_val m = items[i];
        for (size_t k = 0; k < qr_map_len(m); k++) {
            const char *nm;
            size_t nn;
            qr_val key = qr_map_key_at(m, k);
            if (!qq_name_of(key, &nm, &nn) || !qr_kw_valid(nm, nn))
                continue;
            uint8_t t = value_type(qr_map_val_at(m, k));
            const qq_field *f = qq_field_find(s, nm, nn);
            /* present in every record so far: only if seen in all earlier ones */
            bool always = t != FT_NIL && (f ? f->always : i == 0);
            qq_shape_add(c, s, nm, nn, f ? merge_type(f->type, t) : t, always);
        }
        /* a field missing from this record is not always present */
        for (size_t k = 0; k < s->nfields; k++) {
            if (!s->fields[k].always)
                continue;
            qr_val kw = qq_kw(c, s->fields[k].name, strlen(s->fields[k].name)), got;
            if (!qr_map_lookup(m, kw, &got) || got.t == QR_T_NIL)
                s->fields[k].always = false;
        }
    }
}

void qq_shape_from_value(qq_ctx *c, qr_val v, const char *origin, qq_shape *s)
{
    qq_shape_unknown(s, origin);
    if (v.t == QR_T_VEC || v.t == QR_T_LIST) {
        s->kind = SK_SEQ;
        size_t n = qr_vec_len(v);
        if (n == 0)
            return;
        const qr_val *items = qr_vec_items(v);
        size_t maps = 0;
        for (size_t i = 0; i < n; i++)
            maps += items[i].t == QR_T_MAP;
        if (maps == n) {
            s->records = true;
            s->closed = true;
            fields_of_records(c, s, items, n);
        } else if (maps == 0) {
            s->closed = true; /* known: not records */
        }
        return;
    }
    if (v.t == QR_T_MAP) {
        s->kind = SK_RECORD;
        s->records = true;
        s->closed = true;
        fields_of_records(c, s, &v, 1);
        return;
    }
    if (v.t == QR_T_NIL || v.t == QR_T_BOOL || v.t == QR_T_INT || v.t == QR_T_DOUBLE ||
        v.t == QR_T_STR || v.t == QR_T_KW)
        s->kind = SK_SCALAR;
}

const char *qq_field_list(qq_ctx *c, const qq_shape *s)
{
    if (!s->closed || !s->nfields)
        return "";
    qr_buf b;
    qr_buf_init(&b);
    for (size_t i = 0; i < s->nfields; i++)
        qr_buf_printf(&b, "%s:%s", i ? " " : "", s->fields[i].name);
    char *r = qq_fmt(c, "%s", b.p ? b.p : "");
    qr_buf_release(&b);
    return r;
}

/* Other names models and people use for the fields quarry's tools return. An alias is
 * used only when the records have the field it names and not the alias itself. */
static const struct {
    const char *alias, *field;
} aliases[] = {
    {"count", "commits"},
    {"commit_count", "commits"},
    {"num_commits", "commits"},
    {"sha", "hash"},
    {"commit", "hash"},
    {"id", "hash"},
    {"short_sha", "short_hash"},
    {"msg", "message"},
    {"title", "subject"},
    {"name", "author"},
    {"author_name", "author"},
    {"author_email", "email"},
    {"file", "path"},
    {"filename", "path"},
    {"file_path", "path"},
    {"insertions", "additions"},
    {"added", "additions"},
    {"lines_added", "additions"},
    {"removed", "deletions"},
    {"lines_removed", "deletions"},
    {"files_changed", "files"},
    {"changed_files", "files"},
    {"time", "timestamp"},
};

bool qq_resolve_field(qq_ctx *c, const qq_shape *s, qr_val v, qr_val *kw, const qq_field **f)
{
    const char *nm;
    size_t nn;
    *f = NULL;
    if (!qq_name_of(v, &nm, &nn)) {
        qq_problem(c, &v, NULL, "a field name: a keyword such as :files",
                   "refer to a field of the records with a keyword, e.g. :author", "not a field");
        return false;
    }
    if (!qr_kw_valid(nm, nn) || nn == 0) {
        qq_problem(c, &v, NULL, "a field name that can be a keyword",
                   "field names are letters, digits and _ - ? ! .", "bad field name %s",
                   qq_show(c, v));
        return false;
    }
    if (s->records && s->closed) {
        const qq_field *hit = qq_field_find(s, nm, nn);
        if (!hit) {
            for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
                if (strlen(aliases[i].alias) != nn || memcmp(aliases[i].alias, nm, nn))
                    continue;
                hit = qq_field_find(s, aliases[i].field, strlen(aliases[i].field));
                if (hit) {
                    qr_buf_printf(&c->note, ";; :%.*s is read as :%s (the field %s have)\n",
                                  (int)nn, nm, hit->name, s->origin ? s->origin : "the records");
                    break;
                }
            }
        }
        if (!hit) {
            const char **cands = qr_arena_alloc(c->a, (s->nfields + 1) * sizeof *cands);
            if (!cands) {
                c->oom = true;
                return false;
            }
            for (size_t i = 0; i < s->nfields; i++)
                cands[i] = s->fields[i].name;
            const char *hint = qq_did_you_mean(
                c, nm, nn, cands, s->nfields, ":",
                "use one of the fields listed, or add it with a :map step's :compute");
            qq_problem(c, NULL, qq_fmt(c, "field :%.*s", (int)nn, nm),
                       qq_fmt(c, "a field of %s: %s", s->origin ? s->origin : "the records",
                              qq_field_list(c, s)),
                       hint, "unknown field :%.*s", (int)nn, nm);
            return false;
        }
        *f = hit;
        *kw = qq_kw(c, hit->name, strlen(hit->name));
        return true;
    }
    *kw = qq_kw(c, nm, nn);
    return true;
}

static const char *kind_phrase(qq_ctx *c, const qq_binding *b)
{
    switch (b->shape.kind) {
    case SK_GROUP:
        return qq_fmt(
            c, "a group (a map from %s to its records, made at %s)",
            qq_show(c, qr_vec_len(b->shape.by) == 1 ? qr_vec_at(b->shape.by, 0) : b->shape.by),
            b->at);
    case SK_RECORD: return qq_fmt(c, "one record (%s)", b->shape.origin ? b->shape.origin : b->at);
    case SK_SCALAR: return "a single value";
    case SK_SEQ: return "a vector of values that are not records";
    default: return "a value";
    }
}

bool qq_need_seq(qq_ctx *c, const qq_binding *b, const char *op, bool records, bool allow_group)
{
    uint8_t k = b->shape.kind;
    if (k == SK_UNKNOWN || (k == SK_SEQ && (b->shape.records || !records || !b->shape.closed)))
        return true;
    if (k == SK_GROUP && allow_group)
        return true;
    const char *hint;
    if (k == SK_GROUP)
        hint = qq_fmt(c,
                      "aggregate the group first: {:op :aggregate :on :%s :as :stats "
                      ":compute {:count [:count]}}",
                      b->name);
    else if (k == SK_RECORD)
        hint = "take it from the vector before :first or :last, or read its fields with "
               "{{name:field}} in :return";
    else
        hint = "records are maps: this op reads their fields";
    qq_problem(c, NULL, qq_fmt(c, ":%s, %s", b->name, kind_phrase(c, b)),
               records ? "a vector of records (maps)" : "a vector", hint,
               ":%s cannot work on :%s, which is %s", op, b->name, kind_phrase(c, b));
    return false;
}
