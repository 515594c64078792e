/*
 * template.c: {{...}} templates in the strings of a query (:return values, :params,
 * :where values). A template names a binding, or a function of one:
 *
 *   {{name}}                the binding's value
 *   {{name:field}}          a field of a one-record binding (:first, :last)
 *   {{count:name}}          (count name)
 *   {{any:name}}            "yes" when the collection has an item, else "no" (a yes/no
 *                           question's answer)
 *   {{first:name}}          (first name); {{first:name:field}} its field; same for last
 *   {{sum:name:field}}      (sum-by :field name); also avg, min, max (min and max give the
 *                           field's smallest and largest value)
 *   {{resolved:key}}        a value resolved by an earlier plan step (data/resolved)
 *
 * A string that is exactly one template is that value (a number stays a number, as the
 * seed's {:total "{{count:commits}}"} compiles to (count commits)); otherwise the parts
 * are joined with str. The function names win over a binding of the same name: a binding
 * called `count` is still {{count}}, and its field is reached through :return directly.
 *
 * Checking resolves every name and field (with the aliases of shape.c) and returns the
 * canonical string, so emission only reads names that are known to exist.
 * Rejected: the seed's regex replacement on the text (it cannot report an unknown name,
 * and it rewrote {{count:x}} and {{x:y}} in an order that made {{count:x}} ambiguous).
 */
#include "query_int.h"

#include <stdlib.h>
#include <string.h>

enum { TF_COUNT, TF_FIRST, TF_LAST, TF_RESOLVED, TF_SUM, TF_AVG, TF_MIN, TF_MAX, TF_ANY, TF_N };
static const char *const tfuncs[TF_N] = {"count", "first", "last", "resolved",
                                         "sum",   "avg",   "min",  "max", "any"};

#define MAX_TEMPLATES 64
#define MAX_SEGS (2 * MAX_TEMPLATES + 2)

typedef struct tseg {
    bool tmpl;
    const char *p; /* literal text, or the text between the braces */
    size_t n;
    const char *part[3];
    size_t plen[3];
    int nparts;
} tseg;

bool qq_has_template(const qr_str *s)
{
    for (uint32_t i = 0; i + 1 < s->len; i++)
        if (s->data[i] == '{' && s->data[i + 1] == '{')
            return true;
    return false;
}

static bool is_space(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* Splits s into literal and template segments. Returns false with *why set on a
 * malformed template. */
static bool parse(const char *s, size_t n, tseg *segs, size_t *nsegs, const char **why)
{
    size_t k = 0, i = 0, lit = 0;
    while (i < n) {
        if (!(s[i] == '{' && i + 1 < n && s[i + 1] == '{')) {
            i++;
            continue;
        }
        if (k + 3 > MAX_SEGS) {
            *why = "more than 64 templates in one string";
            return false;
        }
        if (i > lit)
            segs[k++] = (tseg){.tmpl = false, .p = s + lit, .n = i - lit};
        size_t j = i + 2;
        while (j + 1 < n && !(s[j] == '}' && s[j + 1] == '}')) {
            if (s[j] == '{') {
                *why = "'{' inside a template";
                return false;
            }
            j++;
        }
        if (j + 1 >= n) {
            *why = "a template opened with {{ is not closed with }}";
            return false;
        }
        tseg t = {.tmpl = true, .p = s + i + 2, .n = j - i - 2};
        /* trim, then split at ':' */
        const char *a = t.p, *e = t.p + t.n;
        while (a < e && is_space(*a))
            a++;
        while (e > a && is_space(e[-1]))
            e--;
        const char *q = a;
        while (q <= e) {
            const char *colon = q;
            while (colon < e && *colon != ':')
                colon++;
            if (t.nparts == 3) {
                *why = "a template has at most 3 parts (function:name:field)";
                return false;
            }
            t.part[t.nparts] = q;
            t.plen[t.nparts] = (size_t)(colon - q);
            for (const char *z = q; z < colon; z++)
                if (is_space(*z)) {
                    *why = "spaces inside a template name";
                    return false;
                }
            if (t.plen[t.nparts] == 0) {
                *why = "an empty part in a template";
                return false;
            }
            t.nparts++;
            q = colon + 1;
            if (colon == e)
                break;
        }
        segs[k++] = t;
        i = lit = j + 2;
    }
    if (n > lit)
        segs[k++] = (tseg){.tmpl = false, .p = s + lit, .n = n - lit};
    *nsegs = k;
    return true;
}

static int tfunc(const char *s, size_t n)
{
    for (int i = 0; i < TF_N; i++)
        if (strlen(tfuncs[i]) == n && !memcmp(tfuncs[i], s, n))
            return i;
    return -1;
}

static const char forms[] = "{{name}}, {{name:field}}, {{count:name}}, {{any:name}}, {{first:name:field}}, "
                            "{{last:name:field}}, {{sum:name:field}} (avg, min, max), "
                            "{{resolved:key}}";

/* Resolves a binding named in a template; -1 (with a problem) when there is none. */
static int template_binding(qq_ctx *c, const char *s, size_t n, const char *tmpl)
{
    int bi = qq_lookup(c, s, n);
    if (bi >= 0)
        return bi;
    for (size_t i = 0; i < c->nall; i++)
        if (strlen(c->all_names[i]) == n && !memcmp(c->all_names[i], s, n)) {
            bool fetch_on_transform = c->depth > 0 && c->path[0].key &&
                                      !strcmp(c->path[0].key, "fetch") &&
                                      !strncmp(c->all_at[i], ":transform", 10);
            qq_problem(c, NULL, qq_fmt(c, "{{%s}}", tmpl), "a binding defined before this point",
                       fetch_on_transform
                           ? "every :fetch runs before the :transform steps, so a fetch "
                             "cannot use a transform's result; a tool's own order often "
                             "serves: get_author_stats ranks by commits, so "
                             "{{first:stats:email}} is the most active author and "
                             "{{last:stats:email}} the least active"
                           : "move the template after that step, or the step before this one",
                       "template {{%s}} uses :%.*s, which is defined later (at %s)", tmpl, (int)n,
                       s, c->all_at[i]);
            return -1;
        }
    const char **cands = qr_arena_alloc(c->a, (c->nbinds + TF_N) * sizeof *cands);
    if (!cands) {
        c->oom = true;
        return -1;
    }
    size_t nc = 0;
    for (size_t i = 0; i < c->nbinds; i++)
        cands[nc++] = c->binds[i].name;
    for (int i = 0; i < TF_N; i++)
        cands[nc++] = tfuncs[i];
    qr_buf names;
    qr_buf_init(&names);
    for (size_t i = 0; i < c->nbinds; i++)
        qr_buf_printf(&names, "%s:%s", i ? " " : "", c->binds[i].name);
    qq_problem(c, NULL, qq_fmt(c, "{{%s}}", tmpl),
               qq_fmt(c, "a binding (%s) or one of %s", names.p ? names.p : "none yet", forms),
               qq_did_you_mean(c, s, n, cands, nc, "", "bindings are the :as names of steps"),
               "template {{%s}} names no binding '%.*s'", tmpl, (int)n, s);
    qr_buf_release(&names);
    return -1;
}

/* Resolves field f of the records of binding bi; appends the canonical name to out. */
static bool template_field(qq_ctx *c, int bi, const char *f, size_t fn, const char *tmpl,
                           qr_buf *out)
{
    qr_val name = qr_str_new(c->a, f, fn), kw;
    const qq_field *fld;
    size_t before = c->nprobs;
    if (!qq_resolve_field(c, &c->binds[bi].shape, name, &kw, &fld)) {
        if (c->nprobs > before) { /* say which template */
            char *m = c->probs[c->nprobs - 1].message;
            qr_buf b;
            qr_buf_init(&b);
            qr_buf_printf(&b, "%s in {{%s}} (:%s)", m, tmpl, c->binds[bi].name);
            char *nm = b.p ? strdup(b.p) : NULL;
            if (nm) {
                free(m);
                c->probs[c->nprobs - 1].message = nm;
            }
            qr_buf_release(&b);
        }
        return false;
    }
    size_t kn;
    const char *k = qr_sym_name(kw.sym, &kn);
    qr_buf_append(out, k, kn);
    return true;
}

static bool check_one(qq_ctx *c, const tseg *t, qr_buf *canon)
{
    char *tmpl = qr_arena_strndup(c->a, t->p, t->n);
    if (!tmpl) {
        c->oom = true;
        return false;
    }
    /* a lone name is a binding, even one called count */
    int fn = t->nparts >= 2 ? tfunc(t->part[0], t->plen[0]) : -1;
    qr_buf_puts(canon, "{{");
    if (fn == TF_RESOLVED) {
        if (t->nparts != 2) {
            qq_problem(c, NULL, qq_fmt(c, "{{%s}}", tmpl), "{{resolved:key}}",
                       "name one resolved value", "bad template {{%s}}", tmpl);
            return false;
        }
        qr_val got;
        const char *k = t->part[1];
        size_t kn = t->plen[1];
        if (!c->has_resolved) {
            qq_problem(c, NULL, qq_fmt(c, "{{%s}}", tmpl),
                       "a context whose :resolved map holds the values of earlier steps",
                       "pass the context with --data FILE holding {\"resolved\": {...}}",
                       "template {{%s}} reads a resolved value, but the context has none", tmpl);
            return false;
        }
        if (!qr_kw_valid(k, kn) ||
            (c->resolved.t == QR_T_MAP && !qr_map_lookup(c->resolved, qq_kw(c, k, kn), &got))) {
            qr_buf keys;
            qr_buf_init(&keys);
            const char **cands =
                qr_arena_alloc(c->a, (qr_map_len(c->resolved) + 1) * sizeof *cands);
            size_t nc = 0;
            for (size_t i = 0; cands && i < qr_map_len(c->resolved); i++) {
                const char *s;
                size_t sn;
                if (!qq_name_of(qr_map_key_at(c->resolved, i), &s, &sn))
                    continue;
                qr_buf_printf(&keys, "%s:%.*s", keys.len ? " " : "", (int)sn, s);
                cands[nc++] = qr_arena_strndup(c->a, s, sn);
            }
            qq_problem(
                c, NULL, qq_fmt(c, "{{%s}}", tmpl),
                qq_fmt(c, "a key of the resolved values: %s", keys.p ? keys.p : "(there are none)"),
                cands ? qq_did_you_mean(c, k, kn, cands, nc,
                                        "resolved:", "resolved values come from earlier plan steps")
                      : "",
                "no resolved value '%.*s'", (int)kn, k);
            qr_buf_release(&keys);
            return false;
        }
        qr_buf_printf(canon, "resolved:%.*s}}", (int)kn, k);
        return true;
    }
    if (fn >= 0) {
        bool needs_field = fn == TF_SUM || fn == TF_AVG || fn == TF_MIN || fn == TF_MAX;
        int maxparts = fn == TF_COUNT || fn == TF_ANY ? 2 : 3;
        if (t->nparts < (needs_field ? 3 : 2) || t->nparts > maxparts) {
            qq_problem(c, NULL, qq_fmt(c, "{{%s}}", tmpl),
                       fn == TF_COUNT ? "{{count:name}}"
                       : needs_field
                           ? qq_fmt(c, "{{%s:name:field}}", tfuncs[fn])
                           : qq_fmt(c, "{{%s:name}} or {{%s:name:field}}", tfuncs[fn], tfuncs[fn]),
                       qq_fmt(c, "templates: %s", forms), "bad template {{%s}}", tmpl);
            return false;
        }
        int bi = template_binding(c, t->part[1], t->plen[1], tmpl);
        if (bi < 0)
            return false;
        const qq_binding *b = &c->binds[bi];
        uint8_t k = b->shape.kind;
        if (fn != TF_COUNT && fn != TF_ANY && k != SK_UNKNOWN && k != SK_SEQ) {
            qq_problem(c, NULL, qq_fmt(c, "{{%s}}", tmpl), "a vector binding",
                       k == SK_RECORD
                           ? qq_fmt(c, "write {{%s:field}} for a field of one record", b->name)
                           : "aggregate a group before reading its items",
                       "{{%s:...}} needs a vector, and :%s is not one", tfuncs[fn], b->name);
            return false;
        }
        if ((fn == TF_COUNT || fn == TF_ANY) && k == SK_SCALAR) {
            qq_problem(c, NULL, qq_fmt(c, "{{%s}}", tmpl), "a collection binding",
                       qq_fmt(c, "write {{%s}} for its value", b->name),
                       "{{count:...}} counts a collection, and :%s is a single value", b->name);
            return false;
        }
        qr_buf_printf(canon, "%s:%s", tfuncs[fn], b->name);
        if (t->nparts == 3) {
            qr_buf_putc(canon, ':');
            if (!template_field(c, bi, t->part[2], t->plen[2], tmpl, canon))
                return false;
        }
        qr_buf_puts(canon, "}}");
        return true;
    }
    if (t->nparts > 2) {
        qq_problem(c, NULL, qq_fmt(c, "{{%s}}", tmpl), qq_fmt(c, "one of %s", forms),
                   qq_did_you_mean(c, t->part[0], t->plen[0], tfuncs, TF_N, "",
                                   "three parts are function:name:field"),
                   "bad template {{%s}}: '%.*s' is not a template function", tmpl, (int)t->plen[0],
                   t->part[0]);
        return false;
    }
    int bi = template_binding(c, t->part[0], t->plen[0], tmpl);
    if (bi < 0)
        return false;
    const qq_binding *b = &c->binds[bi];
    qr_buf_puts(canon, b->name);
    if (t->nparts == 2) {
        if (b->shape.kind == SK_SEQ || b->shape.kind == SK_GROUP || b->shape.kind == SK_SCALAR) {
            qq_problem(c, NULL, qq_fmt(c, "{{%s}}", tmpl), "a binding holding one record",
                       b->shape.kind == SK_SEQ
                           ? qq_fmt(c, "write {{first:%s:%.*s}} for the first record's field",
                                    b->name, (int)t->plen[1], t->part[1])
                           : "fields are read from one record",
                       "{{%s}} reads a field, but :%s is %s", tmpl, b->name,
                       b->shape.kind == SK_SEQ     ? "a vector"
                       : b->shape.kind == SK_GROUP ? "a group"
                                                   : "a single value");
            return false;
        }
        qr_buf_putc(canon, ':');
        if (!template_field(c, bi, t->part[1], t->plen[1], tmpl, canon))
            return false;
    }
    qr_buf_puts(canon, "}}");
    return true;
}

bool qq_check_template(qq_ctx *c, const qr_str *s, qr_val *out, bool *whole_value)
{
    tseg segs[MAX_SEGS];
    size_t n = 0;
    const char *why = NULL;
    qr_val sv = {.t = QR_T_STR, .s = s};
    *whole_value = false;
    if (!parse(s->data, s->len, segs, &n, &why)) {
        qq_problem(c, &sv, NULL, qq_fmt(c, "text with templates: %s", forms),
                   "write {{name}} with no spaces, and nothing but names inside the braces",
                   "bad template: %s", why);
        return false;
    }
    qr_buf canon;
    qr_buf_init(&canon);
    bool ok = true;
    for (size_t i = 0; i < n; i++) {
        if (!segs[i].tmpl)
            qr_buf_append(&canon, segs[i].p, segs[i].n);
        else if (!check_one(c, &segs[i], &canon))
            ok = false;
    }
    if (ok) {
        *out = qr_str_new(c->a, canon.p ? canon.p : "", canon.len);
        *whole_value = n == 1 && segs[0].tmpl;
    }
    qr_buf_release(&canon);
    return ok;
}

static void emit_one(qq_ctx *c, const tseg *t, qr_buf *b)
{
    int fn = t->nparts >= 2 ? tfunc(t->part[0], t->plen[0]) : -1;
    if (fn == TF_RESOLVED) {
        qr_buf_printf(b, "(:%.*s data/resolved)", (int)t->plen[1], t->part[1]);
        return;
    }
    int bi = qq_lookup(c, t->part[fn >= 0 ? 1 : 0], t->plen[fn >= 0 ? 1 : 0]);
    const char *sym = bi >= 0 ? qq_sym(c, bi) : "nil";
    const char *f = t->nparts == 3 ? t->part[2] : t->part[1];
    int fl = (int)(t->nparts == 3 ? t->plen[2] : t->plen[1]);
    switch (fn) {
    case TF_COUNT: qr_buf_printf(b, "(count %s)", sym); return;
    case TF_ANY: qr_buf_printf(b, "(if (> (count %s) 0) \"yes\" \"no\")", sym); return;
    case TF_FIRST:
    case TF_LAST:
        if (t->nparts == 3)
            qr_buf_printf(b, "(:%.*s (%s %s))", fl, f, tfuncs[fn], sym);
        else
            qr_buf_printf(b, "(%s %s)", tfuncs[fn], sym);
        return;
    case TF_SUM:
    case TF_AVG: qr_buf_printf(b, "(%s-by :%.*s %s)", tfuncs[fn], fl, f, sym); return;
    case TF_MIN:
    case TF_MAX:
        qr_buf_printf(b, "(:%.*s (%s-by :%.*s %s))", fl, f, tfuncs[fn], fl, f, sym);
        return;
    default:
        if (t->nparts == 2)
            qr_buf_printf(b, "(:%.*s %s)", fl, f, sym);
        else
            qr_buf_puts(b, sym);
        return;
    }
}

void qq_emit_template(qq_ctx *c, const qr_str *s, qr_buf *b)
{
    tseg segs[MAX_SEGS];
    size_t n = 0;
    const char *why;
    if (!parse(s->data, s->len, segs, &n, &why)) { /* checked before: cannot happen */
        qr_print(b, (qr_val){.t = QR_T_STR, .s = s}, QR_PRINT_READABLY);
        return;
    }
    if (n == 1 && segs[0].tmpl) {
        emit_one(c, &segs[0], b);
        return;
    }
    qr_buf_puts(b, "(str");
    for (size_t i = 0; i < n; i++) {
        qr_buf_putc(b, ' ');
        if (segs[i].tmpl) {
            emit_one(c, &segs[i], b);
        } else {
            qr_val lit = qr_str_new(c->a, segs[i].p, segs[i].n);
            if (lit.t != QR_T_STR)
                c->oom = true;
            qr_print(b, lit, QR_PRINT_READABLY);
        }
    }
    qr_buf_putc(b, ')');
}
