/*
 * compile.c: the query compiler's top level: reading a query (JSON, else EDN; a
 * {:query Q} wrapper unwrapped), checking :fetch against the tool registry, each
 * :transform step against the op table (ops.c) and :return (templates, bindings), then,
 * when nothing is wrong, emitting the program: one `(def q-NAME ...)` per step, in the
 * query's order, and a final `(return {...})`.
 *
 * Bindings. A binding :x is defined as q-x: a query may call its bindings rest, count or
 * filter, and the program still calls the builtins of those names (no builtin or special
 * form starts with "q-", which the unit tests check). Names the context provides are read
 * as data/NAME where they are used; a query binding of the same name hides the context's
 * from that step on. A name is visible from the step after the one defining it: steps
 * run in order, so using a later binding is an error that says where it is defined.
 *
 * Normalization: every check returns canonical values (keywords for names and fields,
 * aliases resolved, params in the tool record's declared order, sort keys as
 * [field order] pairs), printed as EDN; the EDN and JSON forms of a query normalize to the
 * same text and compile to the same program. The cache key is the hash of that text and
 * of the context's shape (emission depends on what the context's records hold).
 *
 * Rejected: a map of bindings (`(get b :rest)` everywhere would make the program harder
 * to read than the seed's); mangling only names that collide with builtins (the program
 * would change when a builtin is added, and a mangled name could collide with another
 * binding); compiling as we check (a problem found late would leave a half-written
 * program, and the model needs every problem at once).
 */
#include "query_int.h"

#include <stdlib.h>
#include <string.h>

#define WIDTH 100 /* columns a def may take on one line */
#define ARENA_CAP (256u << 20)

/* ---- bindings ---- */

int qq_lookup(qq_ctx *c, const char *s, size_t n)
{
    for (size_t i = c->visible; i-- > 0;)
        if (strlen(c->binds[i].name) == n && !memcmp(c->binds[i].name, s, n))
            return (int)i;
    return -1;
}

const char *qq_sym(qq_ctx *c, int binding)
{
    return binding >= 0 && (size_t)binding < c->nbinds ? c->binds[binding].sym : "nil";
}

void qq_shape_copy(qq_ctx *c, qq_shape *dst, const qq_shape *src)
{
    *dst = *src;
    dst->fields = NULL;
    dst->nfields = 0;
    for (size_t i = 0; i < src->nfields; i++)
        qq_shape_add(c, dst, src->fields[i].name, strlen(src->fields[i].name), src->fields[i].type,
                     src->fields[i].always);
}

static int add_binding(qq_ctx *c, const char *name, size_t n, bool context, const char *at,
                       const qq_shape *shape)
{
    if (c->nbinds == c->capbinds) {
        size_t cap = c->capbinds ? 2 * c->capbinds : 16;
        qq_binding *b = qr_arena_alloc(c->a, cap * sizeof *b);
        if (!b) {
            c->oom = true;
            return -1;
        }
        if (c->nbinds)
            memcpy(b, c->binds, c->nbinds * sizeof *b);
        c->binds = b;
        c->capbinds = cap;
    }
    qq_binding *b = &c->binds[c->nbinds];
    b->name = qr_arena_strndup(c->a, name, n);
    b->sym = qq_fmt(c, "%s%.*s", context ? "data/" : QQ_PREFIX, (int)n, name);
    b->at = at;
    b->context = context;
    b->shape = *shape;
    if (!b->name) {
        c->oom = true;
        return -1;
    }
    c->visible = ++c->nbinds;
    return (int)(c->nbinds - 1);
}

static const char *binding_names(qq_ctx *c, bool context)
{
    qr_buf b;
    qr_buf_init(&b);
    for (size_t i = 0; i < c->visible; i++)
        if (c->binds[i].context == context)
            qr_buf_printf(&b, "%s:%s", b.len ? " " : "", c->binds[i].name);
    char *r = qq_fmt(c, "%s", b.p ? b.p : "");
    qr_buf_release(&b);
    return r;
}

int qq_need_binding(qq_ctx *c, qr_val v, const char *what)
{
    const char *s;
    size_t n;
    if (!qq_name_of(v, &s, &n)) {
        qq_problem(c, &v, NULL, qq_fmt(c, "%s: a keyword such as :commits", what),
                   "name the :as of an earlier step", "bad binding name %s", qq_show(c, v));
        return -1;
    }
    int bi = qq_lookup(c, s, n);
    if (bi >= 0)
        return bi;
    for (size_t i = 0; i < c->nall; i++)
        if (strlen(c->all_names[i]) == n && !memcmp(c->all_names[i], s, n)) {
            qq_problem(c, NULL, qq_fmt(c, ":%.*s", (int)n, s),
                       "a binding defined by an earlier step",
                       "steps run in order: move this step after the one defining it",
                       ":%.*s is defined later, at %s", (int)n, s, c->all_at[i]);
            return -1;
        }
    const char **cands = qr_arena_alloc(c->a, (c->visible + 1) * sizeof *cands);
    if (!cands) {
        c->oom = true;
        return -1;
    }
    for (size_t i = 0; i < c->visible; i++)
        cands[i] = c->binds[i].name;
    const char *q = binding_names(c, false), *ctx = binding_names(c, true);
    const char *expected = qq_fmt(c, "%s: %s%s%s", what, q[0] ? q : "(no bindings yet)",
                                  ctx[0] ? "; from the context: " : "", ctx);
    const char *otherwise =
        c->nctx ? "bindings are the :as names of :fetch and :transform steps, or names of "
                  "the context"
                : "fetch it first, e.g. {:tool :get_commits :as :commits}, or pass it in the "
                  "context (--data FILE)";
    qq_problem(c, NULL, qq_fmt(c, ":%.*s", (int)n, s), expected,
               qq_did_you_mean(c, s, n, cands, c->visible, ":", otherwise), "unknown binding :%.*s",
               (int)n, s);
    return -1;
}

/* Checks an :as name: valid and not already defined by the query. */
static const char *check_as(qq_ctx *c, qr_val v)
{
    qq_push_key(c, "as");
    const char *s;
    size_t n;
    const char *r = NULL;
    if (!qq_name_of(v, &s, &n) || !qq_valid_binding(s, n)) {
        qq_problem(c, &v, NULL, "a name: a letter or _, then letters, digits, _ or -",
                   "e.g. :as :large_commits", "bad binding name %s", qq_show(c, v));
    } else {
        int prev = -1;
        for (size_t i = c->nctx; i < c->nbinds; i++)
            if (strlen(c->binds[i].name) == n && !memcmp(c->binds[i].name, s, n))
                prev = (int)i;
        if (prev >= 0)
            qq_problem(c, NULL, qq_fmt(c, ":%.*s", (int)n, s), "a name not used before",
                       "give each step its own :as name", "binding :%.*s is already defined at %s",
                       (int)n, s, c->binds[prev].at);
        else
            r = qr_arena_strndup(c->a, s, n);
    }
    qq_pop(c);
    return r;
}

/* Reports keys of map m not in allowed (a space-separated list of names). */
static bool known_keys(qq_ctx *c, qr_val m, const char *const *allowed, size_t nallowed,
                       const char *what)
{
    bool ok = true;
    for (size_t i = 0; i < qr_map_len(m); i++) {
        qr_val k = qr_map_key_at(m, i);
        const char *s;
        size_t n;
        bool found = false;
        if (qq_name_of(k, &s, &n))
            for (size_t j = 0; j < nallowed; j++)
                found = found || (strlen(allowed[j]) == n && !memcmp(allowed[j], s, n));
        if (found)
            continue;
        qr_buf list;
        qr_buf_init(&list);
        for (size_t j = 0; j < nallowed; j++)
            qr_buf_printf(&list, "%s:%s", j ? " " : "", allowed[j]);
        qq_problem(c, &k, NULL, qq_fmt(c, "one of %s", list.p ? list.p : ""),
                   qq_name_of(k, &s, &n)
                       ? qq_did_you_mean(c, s, n, allowed, nallowed, ":", "remove it")
                       : "keys are keywords",
                   "unknown key %s in %s", qq_show(c, k), what);
        qr_buf_release(&list);
        ok = false;
    }
    return ok;
}

static qq_step *new_step(qq_ctx *c)
{
    qq_step *st = &c->steps[c->nsteps++];
    memset(st, 0, sizeof *st);
    for (int k = 0; k < QK_COUNT; k++)
        st->keys[k] = qr_nil();
    st->params = qr_nil();
    st->in = st->in2 = -1;
    st->note = "";
    st->path = qq_path_text(c);
    return st;
}

static void take_note(qq_ctx *c, qq_step *st)
{
    if (c->note.len)
        st->note = qq_fmt(c, "%s", c->note.p);
    qr_buf_reset(&c->note);
}

/* ---- :fetch ---- */

static const char *param_type_text(qq_ctx *c, const qr_tool_param *p)
{
    if (p->type == QR_TOOL_ARRAY && p->items != QR_TOOL_ANY)
        return qq_fmt(c, "an array of %ss", qr_tool_type_name(p->items));
    const char *t = qr_tool_type_name(p->type);
    return qq_fmt(c, "%s %s", (t[0] == 'a' || t[0] == 'i' || t[0] == 'o') ? "an" : "a", t);
}

static bool check_param_value(qq_ctx *c, const qr_tool_param *p, qr_tool_type type, qr_val v,
                              qr_val *out, int depth)
{
    *out = v;
    if (v.t == QR_T_STR && qq_has_template(v.s)) {
        bool whole;
        if (!qq_check_template(c, v.s, out, &whole))
            return false;
        if (type != QR_TOOL_STRING && !whole) {
            qq_problem(c, &v, NULL, qq_fmt(c, "%s, or exactly one template", param_type_text(c, p)),
                       "text around a template makes a string; write only \"{{...}}\"",
                       "parameter '%s' is not text", p->name);
            return false;
        }
        return true;
    }
    const char *expected = type == p->type ? param_type_text(c, p)
                                           : qq_fmt(c, "items of type %s", qr_tool_type_name(type));
    bool ok = false;
    switch (type) {
    case QR_TOOL_STRING:
        if (v.t == QR_T_KW) {
            size_t n;
            const char *s = qr_sym_name(v.sym, &n);
            *out = qr_str_new(c->a, s, n);
            ok = true;
        } else {
            ok = v.t == QR_T_STR;
        }
        if (ok && p->enum_values) {
            size_t ne = 0;
            bool in = false;
            for (; p->enum_values[ne]; ne++)
                in = in || (strlen(p->enum_values[ne]) == out->s->len &&
                            !memcmp(p->enum_values[ne], out->s->data, out->s->len));
            if (!in) {
                qr_buf list;
                qr_buf_init(&list);
                for (size_t i = 0; i < ne; i++)
                    qr_buf_printf(&list, "%s\"%s\"", i ? ", " : "", p->enum_values[i]);
                qq_problem(c, &v, NULL, qq_fmt(c, "one of %s", list.p ? list.p : ""),
                           qq_did_you_mean(c, out->s->data, out->s->len, p->enum_values, ne, "\"",
                                           p->desc ? p->desc : ""),
                           "parameter '%s' cannot be %s", p->name, qq_show(c, v));
                qr_buf_release(&list);
                return false;
            }
        }
        if (ok && p->check && type == QR_TOOL_STRING) {
            qr_buf msg;
            qr_buf_init(&msg);
            bool good = p->check(out->s->data, out->s->len, &msg) == QR_OK;
            if (!good)
                qq_problem(c, &v, NULL, qq_fmt(c, "a value '%s' accepts", p->name), "",
                           "parameter '%s': %s", p->name, msg.p ? msg.p : "invalid");
            qr_buf_release(&msg);
            if (!good)
                return false;
        }
        break;
    case QR_TOOL_INTEGER:
        if (v.t == QR_T_DOUBLE && v.d == (double)(int64_t)v.d && v.d > -9e15 && v.d < 9e15)
            *out = qr_int((int64_t)v.d);
        ok = out->t == QR_T_INT;
        break;
    case QR_TOOL_NUMBER: ok = v.t == QR_T_INT || v.t == QR_T_DOUBLE; break;
    case QR_TOOL_BOOLEAN: ok = v.t == QR_T_BOOL; break;
    case QR_TOOL_OBJECT:
        if (v.t == QR_T_MAP)
            return qq_check_literal(c, v, out, depth);
        break;
    case QR_TOOL_ARRAY:
        if (v.t == QR_T_VEC || v.t == QR_T_LIST || v.t == QR_T_SET) {
            size_t n = v.t == QR_T_SET ? qr_map_len(v) : qr_vec_len(v);
            qr_vecb vb;
            qr_vecb_init(&vb, c->a, n);
            bool all = true;
            for (size_t i = 0; i < n; i++) {
                qr_val it = v.t == QR_T_SET ? qr_map_key_at(v, i) : qr_vec_at(v, i), co;
                qq_push_index(c, (long)i);
                bool good = p->items == QR_TOOL_ANY
                                ? qq_check_literal(c, it, &co, depth + 1)
                                : check_param_value(c, p, p->items, it, &co, depth + 1);
                qq_pop(c);
                if (good)
                    qr_vecb_push(&vb, co);
                all = all && good;
            }
            *out = qr_vecb_finish(&vb, QR_T_VEC);
            return all;
        }
        break;
    default: return qq_check_literal(c, v, out, depth);
    }
    if (!ok) {
        qq_problem(c, &v, NULL, expected, p->desc ? qq_fmt(c, "'%s': %s", p->name, p->desc) : "",
                   "parameter '%s' expects %s, got %s", p->name, expected, qq_describe(c, v));
        return false;
    }
    if ((type == QR_TOOL_INTEGER || type == QR_TOOL_NUMBER) && (p->has_min || p->has_max)) {
        double d = qr_to_double(*out);
        if ((p->has_min && d < p->min) || (p->has_max && d > p->max)) {
            const char *range = p->has_min && p->has_max
                                    ? qq_fmt(c, "from %g to %g", p->min, p->max)
                                : p->has_min ? qq_fmt(c, "at least %g", p->min)
                                             : qq_fmt(c, "at most %g", p->max);
            qq_problem(c, &v, NULL, qq_fmt(c, "a number %s", range),
                       p->desc ? qq_fmt(c, "'%s': %s", p->name, p->desc) : "",
                       "parameter '%s' must be %s, got %s", p->name, range, qq_show(c, v));
            return false;
        }
    }
    return true;
}

static bool check_params(qq_ctx *c, const qr_tool *t, qr_val v, qr_val *out)
{
    size_t np = 0;
    while (t->params && t->params[np].name)
        np++;
    const char **names = qr_arena_alloc(c->a, (np + 1) * sizeof *names);
    qr_val *vals = qr_arena_alloc(c->a, (np + 1) * sizeof *vals);
    bool *given = qr_arena_zalloc(c->a, np + 1);
    if (!names || !vals || !given) {
        c->oom = true;
        return false;
    }
    qr_buf list;
    qr_buf_init(&list);
    for (size_t i = 0; i < np; i++) {
        names[i] = t->params[i].name;
        qr_buf_printf(&list, "%s:%s", i ? " " : "", names[i]);
    }
    const char *plist = qq_fmt(c, "%s", list.p ? list.p : "(none)");
    qr_buf_release(&list);
    bool ok = true;
    qq_push_key(c, "params");
    if (v.t != QR_T_MAP && v.t != QR_T_NIL) {
        qq_problem(c, &v, NULL, qq_fmt(c, "a map of parameters: %s", plist),
                   "e.g. :params {:since \"1 week ago\"}", "bad :params %s", qq_show(c, v));
        qq_pop(c);
        return false;
    }
    for (size_t i = 0; v.t == QR_T_MAP && i < qr_map_len(v); i++) {
        qr_val k = qr_map_key_at(v, i);
        const char *s;
        size_t n;
        size_t pi = np;
        if (qq_name_of(k, &s, &n))
            for (size_t j = 0; j < np; j++)
                if (strlen(names[j]) == n && !memcmp(names[j], s, n))
                    pi = j;
        if (pi == np) {
            qq_problem(c, &k, NULL, qq_fmt(c, "a parameter of %s: %s", t->name, plist),
                       qq_name_of(k, &s, &n)
                           ? qq_did_you_mean(c, s, n, names, np, ":",
                                             qq_fmt(c, "'quarry tools %s' describes them", t->name))
                           : "parameter names are keywords",
                       "unknown parameter %s for tool %s", qq_show(c, k), t->name);
            ok = false;
            continue;
        }
        qq_push_key(c, names[pi]);
        if (given[pi]) {
            qq_problem(c, &k, NULL, "each parameter once", "remove the repeated parameter",
                       "parameter '%s' is given twice", names[pi]);
            ok = false;
        } else if (check_param_value(c, &t->params[pi], t->params[pi].type, qr_map_val_at(v, i),
                                     &vals[pi], 0)) {
            given[pi] = vals[pi].t != QR_T_NIL;
        } else {
            ok = false;
            given[pi] = true; /* not missing: wrong */
        }
        qq_pop(c);
    }
    for (size_t i = 0; i < np; i++)
        if (t->params[i].required && !given[i]) {
            qq_problem(c, NULL, "nothing", qq_fmt(c, "%s", param_type_text(c, &t->params[i])),
                       t->params[i].desc ? qq_fmt(c, "'%s': %s", names[i], t->params[i].desc) : "",
                       "missing required parameter '%s' of tool %s", names[i], t->name);
            ok = false;
        }
    qq_pop(c);
    qr_mapb mb;
    qr_mapb_init(&mb, c->a, np);
    for (size_t i = 0; i < np; i++)
        if (given[i] && vals[i].t != QR_T_NIL)
            qr_mapb_put(&mb, qq_kw(c, names[i], strlen(names[i])), vals[i]);
    *out = qr_mapb_finish(&mb, QR_T_MAP);
    return ok;
}

static void check_fetch_one(qq_ctx *c, qr_val v)
{
    static const char *const keys[] = {"tool", "as", "params"};
    if (v.t != QR_T_MAP) {
        qq_problem(c, &v, NULL, "a map {:tool :NAME :as :BINDING :params {...}}",
                   "e.g. {:tool :get_commits :as :commits :params {:since \"1 week ago\"}}",
                   "bad fetch %s", qq_show(c, v));
        return;
    }
    known_keys(c, v, keys, 3, "a fetch");
    qr_val tv, av, pv = qr_nil();
    const qr_tool *t = NULL;
    if (!qq_get(v, "tool", &tv)) {
        qq_problem(c, NULL, "nothing", "a tool name, e.g. :tool :get_commits",
                   "'quarry tools' lists the tools", "missing :tool");
    } else {
        const char *s;
        size_t n;
        qq_push_key(c, "tool");
        if (!qq_name_of(tv, &s, &n)) {
            qq_problem(c, &tv, NULL, "a tool name (keyword)", "e.g. :tool :get_commits",
                       "bad tool %s", qq_show(c, tv));
        } else {
            t = qr_tools_find(c->o->tools, s, n);
            if (!t || !qr_tools_usable(c->o->tools, t)) {
                size_t nt = qr_tools_count(c->o->tools), k = 0;
                const char **names = qr_arena_alloc(c->a, (nt + 1) * sizeof *names);
                qr_buf list;
                qr_buf_init(&list);
                for (size_t i = 0; names && i < nt; i++) {
                    const qr_tool *u = qr_tools_at(c->o->tools, i);
                    if (!qr_tools_usable(c->o->tools, u))
                        continue;
                    names[k++] = u->name;
                    qr_buf_printf(&list, "%s:%s", list.len ? " " : "", u->name);
                }
                qq_problem(c, &tv, NULL,
                           qq_fmt(c, "one of %s", list.p ? list.p : "(no tools are available)"),
                           t ? "this tool needs a capability this session does not allow"
                             : (names ? qq_did_you_mean(c, s, n, names, k, ":",
                                                        "'quarry tools' lists the tools")
                                      : ""),
                           t ? "tool :%.*s is not available here" : "unknown tool :%.*s", (int)n,
                           s);
                qr_buf_release(&list);
                t = NULL;
            }
        }
        qq_pop(c);
    }
    const char *as = NULL;
    if (!qq_get(v, "as", &av))
        qq_problem(c, NULL, "nothing", "a binding name for the result, e.g. :as :commits",
                   "later steps and :return refer to the result by this name", "missing :as");
    else
        as = check_as(c, av);
    qq_get(v, "params", &pv);
    qq_step *st = new_step(c);
    st->tool = t;
    st->as = as;
    if (t)
        check_params(c, t, pv, &st->params); /* problems or not, the result has the tool's shape */
    take_note(c, st);
    qq_shape shape;
    if (t)
        qq_shape_from_tool(c, t, &shape);
    else
        qq_shape_unknown(&shape, "a fetch with problems");
    if (as)
        add_binding(c, as, strlen(as), false, st->path, &shape);
}

static void check_fetch(qq_ctx *c, qr_val v)
{
    qq_push_key(c, "fetch");
    if (v.t == QR_T_MAP) { /* one fetch without its vector */
        qq_push_index(c, 0);
        check_fetch_one(c, v);
        qq_pop(c);
    } else if (v.t == QR_T_VEC || v.t == QR_T_LIST) {
        for (size_t i = 0; i < qr_vec_len(v); i++) {
            qq_push_index(c, (long)i);
            check_fetch_one(c, qr_vec_at(v, i));
            qq_pop(c);
        }
    } else if (v.t != QR_T_NIL) {
        qq_problem(c, &v, NULL, "a vector of fetches [{:tool ... :as ... :params {...}}]",
                   "e.g. :fetch [{:tool :get_commits :as :commits}]", "bad :fetch %s",
                   qq_show(c, v));
    }
    qq_pop(c);
}

/* ---- :transform ---- */

static bool key_in(const char *list, const char *s, size_t n)
{
    for (const char *p = list; (p = strchr(p, ':')); p++) {
        const char *e = p + 1;
        while (*e && *e != ' ')
            e++;
        if ((size_t)(e - p - 1) == n && !memcmp(p + 1, s, n))
            return true;
    }
    return false;
}

static void check_step(qq_ctx *c, qr_val v)
{
    if (v.t != QR_T_MAP) {
        qq_problem(c, &v, NULL, "a map {:op :OP :on :BINDING :as :NAME ...}",
                   "e.g. {:op :filter :on :commits :as :large :where [:> :files 5]}", "bad step %s",
                   qq_show(c, v));
        return;
    }
    qr_val opv, asv;
    const qq_op *op = NULL;
    qr_buf list;
    qr_buf_init(&list);
    const char *opnames[32];
    size_t nops = qq_op_count();
    for (size_t i = 0; i < nops && i < 32; i++) {
        opnames[i] = qq_op_at(i)->name;
        qr_buf_printf(&list, "%s:%s", i ? " " : "", opnames[i]);
    }
    const char *expected_ops = qq_fmt(c, "one of %s", list.p ? list.p : "");
    qr_buf_release(&list);
    if (!qq_get(v, "op", &opv)) {
        qq_problem(c, NULL, "nothing", expected_ops,
                   "e.g. {:op :filter :on :commits :as :large :where [:> :files 5]}",
                   "missing :op");
    } else {
        const char *s;
        size_t n;
        qq_push_key(c, "op");
        if (qq_name_of(opv, &s, &n))
            op = qq_op_find(s, n);
        if (!op) {
            const char *hint = "";
            if (qq_name_of(opv, &s, &n)) {
                hint = qq_did_you_mean(c, s, n, opnames, nops, ":", "");
                if (!hint[0] && (n == 5 && !memcmp(s, "fetch", 5)))
                    hint = "fetching is done in :fetch, before the transforms";
                else if (!hint[0] &&
                         ((n == 5 && !memcmp(s, "limit", 5)) || (n == 4 && !memcmp(s, "head", 4))))
                    hint = "write :take";
                else if (!hint[0] && ((n == 5 && !memcmp(s, "where", 5)) ||
                                      (n == 6 && !memcmp(s, "select", 6))))
                    hint = n == 5 ? "write :filter" : "write :map with :select";
                else if (!hint[0] && ((n == 8 && !memcmp(s, "group-by", 8)) ||
                                      (n == 8 && !memcmp(s, "group_by", 8))))
                    hint = "write :group";
                else if (!hint[0] && ((n == 7 && !memcmp(s, "sort-by", 7)) ||
                                      (n == 8 && !memcmp(s, "order-by", 8)) ||
                                      (n == 7 && !memcmp(s, "orderby", 7))))
                    hint = "write :sort";
                else if (!hint[0])
                    hint = "the ops are the ones listed";
            }
            qq_problem(c, &opv, NULL, expected_ops, hint, "unknown op %s", qq_show(c, opv));
        }
        qq_pop(c);
    }
    /* the keys the op's record allows */
    qr_val raw[QK_COUNT];
    bool has[QK_COUNT] = {false};
    bool keys_ok = op != NULL; /* all required keys there (unknown ones are only reported) */
    for (size_t i = 0; i < qr_map_len(v); i++) {
        qr_val k = qr_map_key_at(v, i);
        const char *s;
        size_t n;
        if (!qq_name_of(k, &s, &n)) {
            qq_problem(c, &k, NULL, "keyword keys", "write keys as keywords, e.g. :on",
                       "bad key %s", qq_show(c, k));
            keys_ok = false;
            continue;
        }
        if ((n == 2 && !memcmp(s, "op", 2)) || (n == 2 && !memcmp(s, "as", 2)))
            continue;
        int ki = qq_key_index(s, n);
        if (!op)
            continue;
        if (ki < 0 || !(key_in(op->required, s, n) || key_in(op->optional, s, n))) {
            const char *owner = NULL;
            for (size_t j = 0; j < nops && ki >= 0 && !owner; j++)
                if (key_in(qq_op_at(j)->required, s, n) || key_in(qq_op_at(j)->optional, s, n))
                    owner = qq_op_at(j)->name;
            const char *allowed[QK_COUNT + 2];
            size_t na = 0;
            for (int j = 0; j < QK_COUNT; j++)
                if (key_in(op->required, qq_key_names[j], strlen(qq_key_names[j])) ||
                    key_in(op->optional, qq_key_names[j], strlen(qq_key_names[j])))
                    allowed[na++] = qq_key_names[j];
            allowed[na++] = "op";
            allowed[na++] = "as";
            qq_problem(c, &k, NULL,
                       qq_fmt(c, "the keys of :%s: :op :as %s%s%s", op->name, op->required,
                              op->optional[0] ? " " : "", op->optional),
                       owner ? qq_fmt(c, "%s belongs to :%s steps; e.g. %s", qq_show(c, k), owner,
                                      qq_op_find(owner, strlen(owner))->example)
                             : qq_did_you_mean(c, s, n, allowed, na, ":",
                                               qq_fmt(c, "e.g. %s", op->example)),
                       "unknown key %s for :%s", qq_show(c, k), op->name);
            continue;
        }
        raw[ki] = qr_map_val_at(v, i);
        has[ki] = true;
    }
    if (op)
        for (int k = 0; k < QK_COUNT; k++)
            if (!has[k] && key_in(op->required, qq_key_names[k], strlen(qq_key_names[k]))) {
                qq_problem(c, NULL, "nothing",
                           qq_fmt(c, "the keys of :%s: :op :as %s", op->name, op->required),
                           qq_fmt(c, "e.g. %s", op->example), "missing :%s for :%s",
                           qq_key_names[k], op->name);
                keys_ok = false;
            }
    const char *as = NULL;
    if (!qq_get(v, "as", &asv))
        qq_problem(c, NULL, "nothing", "a binding name for the result, e.g. :as :large",
                   op ? qq_fmt(c, "e.g. %s", op->example) : "", "missing :as");
    else
        as = check_as(c, asv);
    qq_step *st = new_step(c);
    st->op = op;
    st->as = as ? as : "";
    qq_shape shape;
    qq_shape_unknown(&shape, "a step with problems");
    bool ok = false;
    size_t before = c->nprobs;
    if (keys_ok)
        ok = op->check(c, st, raw, has, &shape) && c->nprobs == before;
    if (!ok)
        qq_shape_unknown(&shape, "a step with problems");
    take_note(c, st);
    if (as)
        add_binding(c, as, strlen(as), false, st->path, &shape);
}

static void check_transform(qq_ctx *c, qr_val v)
{
    qq_push_key(c, "transform");
    if (v.t == QR_T_MAP) {
        qq_push_index(c, 0);
        check_step(c, v);
        qq_pop(c);
    } else if (v.t == QR_T_VEC || v.t == QR_T_LIST) {
        for (size_t i = 0; i < qr_vec_len(v); i++) {
            qq_push_index(c, (long)i);
            check_step(c, qr_vec_at(v, i));
            qq_pop(c);
        }
    } else if (v.t != QR_T_NIL) {
        qq_problem(c, &v, NULL, "a vector of steps [{:op ... :on ... :as ...}]",
                   "e.g. :transform [{:op :filter :on :commits :as :large :where [:> :files 5]}]",
                   "bad :transform %s", qq_show(c, v));
    }
    qq_pop(c);
}

/* ---- :return ---- */

static bool check_return_value(qq_ctx *c, qr_val v, qr_val *out, int depth)
{
    if (depth > QR_QUERY_MAX_NESTING) {
        qq_problem(c, NULL, "deeper nesting", "values nested at most 32 levels deep",
                   "flatten the :return map", "value nested too deeply");
        return false;
    }
    const char *s;
    size_t n;
    switch (v.t) {
    case QR_T_MAP: {
        qr_mapb mb;
        qr_mapb_init(&mb, c->a, qr_map_len(v));
        bool ok = true;
        for (size_t i = 0; i < qr_map_len(v); i++) {
            qr_val k = qr_map_key_at(v, i), co;
            if (!qq_name_of(k, &s, &n)) {
                qq_problem(c, &k, NULL, "keyword keys", "e.g. :findings", "bad key %s",
                           qq_show(c, k));
                ok = false;
                continue;
            }
            if (k.t == QR_T_STR && qr_kw_valid(s, n) && n)
                k = qq_kw(c, s, n);
            qq_push_key(c, qr_arena_strndup(c->a, s, n));
            if (check_return_value(c, qr_map_val_at(v, i), &co, depth + 1))
                qr_mapb_put(&mb, k, co);
            else
                ok = false;
            qq_pop(c);
        }
        *out = qr_mapb_finish(&mb, QR_T_MAP);
        return ok;
    }
    case QR_T_VEC:
    case QR_T_LIST:
    case QR_T_SET: {
        size_t m = v.t == QR_T_SET ? qr_map_len(v) : qr_vec_len(v);
        qr_vecb vb;
        qr_vecb_init(&vb, c->a, m);
        bool ok = true;
        for (size_t i = 0; i < m; i++) {
            qr_val it = v.t == QR_T_SET ? qr_map_key_at(v, i) : qr_vec_at(v, i), co;
            qq_push_index(c, (long)i);
            if (check_return_value(c, it, &co, depth + 1))
                qr_vecb_push(&vb, co);
            else
                ok = false;
            qq_pop(c);
        }
        *out = qr_vecb_finish(&vb, QR_T_VEC);
        return ok;
    }
    case QR_T_KW: {
        qq_name_of(v, &s, &n);
        *out = v;
        if (qq_lookup(c, s, n) >= 0)
            return true;
        const char **cands = qr_arena_alloc(c->a, (c->visible + 1) * sizeof *cands);
        if (!cands) {
            c->oom = true;
            return false;
        }
        for (size_t i = 0; i < c->visible; i++)
            cands[i] = c->binds[i].name;
        const char *sug = n >= 4 ? qq_suggest(s, n, cands, c->visible) : NULL;
        if (sug) { /* a keyword one typo away from a binding: surely meant to be it */
            qq_problem(c, &v, NULL, qq_fmt(c, "a binding: %s", binding_names(c, false)),
                       qq_fmt(c,
                              "did you mean :%s? (a keyword that names no binding is "
                              "returned as itself)",
                              sug),
                       ":%.*s names no binding", (int)n, s);
            return false;
        }
        return true; /* a keyword value, e.g. :action :done */
    }
    case QR_T_STR:
        if (c->json && qq_lookup(c, v.s->data, v.s->len) >= 0) {
            *out = qq_kw(c, v.s->data, v.s->len);
            return true;
        }
        return qq_check_literal(c, v, out, depth);
    case QR_T_NIL:
    case QR_T_BOOL:
    case QR_T_INT:
    case QR_T_DOUBLE: *out = v; return true;
    default: return qq_check_literal(c, v, out, depth);
    }
}

static void check_return(qq_ctx *c, qr_val v)
{
    qq_push_key(c, "return");
    if (v.t != QR_T_MAP) {
        qq_problem(c, &v, NULL, "a map {:findings :BINDING :summary \"...\"}",
                   "e.g. :return {:findings :ranked :summary \"{{count:ranked}} commits\"}",
                   "bad :return %s", qq_show(c, v));
    } else {
        c->has_ret = check_return_value(c, v, &c->ret, 0);
    }
    qq_pop(c);
}

/* ---- emission ---- */

static void emit_return_value(qq_ctx *c, qr_val v, qr_buf *b)
{
    const char *s;
    size_t n;
    switch (v.t) {
    case QR_T_KW: {
        qq_name_of(v, &s, &n);
        int bi = qq_lookup(c, s, n);
        if (bi >= 0)
            qr_buf_puts(b, qq_sym(c, bi));
        else
            qr_print(b, v, QR_PRINT_READABLY);
        return;
    }
    case QR_T_MAP:
        qr_buf_putc(b, '{');
        for (size_t i = 0; i < qr_map_len(v); i++) {
            if (i)
                qr_buf_putc(b, ' ');
            qr_print(b, qr_map_key_at(v, i), QR_PRINT_READABLY);
            qr_buf_putc(b, ' ');
            emit_return_value(c, qr_map_val_at(v, i), b);
        }
        qr_buf_putc(b, '}');
        return;
    case QR_T_VEC:
        qr_buf_putc(b, '[');
        for (size_t i = 0; i < qr_vec_len(v); i++) {
            if (i)
                qr_buf_putc(b, ' ');
            emit_return_value(c, qr_vec_at(v, i), b);
        }
        qr_buf_putc(b, ']');
        return;
    default: qq_emit_literal(c, v, b); return;
    }
}

static uint32_t count_lines(const qr_buf *b)
{
    uint32_t n = 1;
    for (size_t i = 0; i < b->len; i++)
        n += b->p[i] == '\n';
    return n;
}

static void emit_step_expr(qq_ctx *c, const qq_step *st, qr_buf *e)
{
    c->tmp = 0;
    if (st->op) {
        st->op->emit(c, st, e);
        return;
    }
    qr_buf_printf(e, "(tool/%s ", st->tool->name);
    qq_emit_literal(c, st->params, e);
    qr_buf_putc(e, ')');
}

static void emit_program(qq_ctx *c, qr_buf *b, qr_query_step *steps)
{
    for (size_t i = 0; i < c->nsteps; i++) {
        const qq_step *st = &c->steps[i];
        c->visible = c->nctx + i; /* what this step can see: the context, earlier steps */
        qr_buf_puts(b, st->note);
        steps[i].line = b->len ? count_lines(b) : 1;
        qr_buf e;
        qr_buf_init(&e);
        c->wrap = false;
        emit_step_expr(c, st, &e);
        const char *sym = c->binds[c->nctx + i].sym;
        if (strlen(sym) + e.len + 7 <= WIDTH && !memchr(e.p ? e.p : "", '\n', e.len)) {
            qr_buf_printf(b, "(def %s %s)\n", sym, e.p ? e.p : "");
        } else {
            qr_buf_reset(&e);
            c->wrap = true;
            emit_step_expr(c, st, &e);
            qr_buf_printf(b, "(def %s\n  %s)\n", sym, e.p ? e.p : "");
        }
        qr_buf_release(&e);
    }
    c->visible = c->nbinds;
    c->wrap = false;
    c->tmp = 0;
    steps[c->nsteps].line = b->len ? count_lines(b) : 1;
    qr_buf_puts(b, "(return {");
    if (c->has_ret) {
        for (size_t i = 0; i < qr_map_len(c->ret); i++) {
            if (i)
                qr_buf_puts(b, "\n         ");
            qr_print(b, qr_map_key_at(c->ret, i), QR_PRINT_READABLY);
            qr_buf_putc(b, ' ');
            emit_return_value(c, qr_map_val_at(c->ret, i), b);
        }
    } else { /* no :return: every binding of the query, by name */
        for (size_t i = c->nctx, k = 0; i < c->nbinds; i++, k++) {
            if (k)
                qr_buf_puts(b, "\n         ");
            qr_buf_printf(b, ":%s %s", c->binds[i].name, c->binds[i].sym);
        }
    }
    qr_buf_puts(b, "})\n");
}

/* The normalized query as EDN: the cache key, and what `quarry compile --format json`
 * shows. */
static void print_normalized(qq_ctx *c, qr_buf *b)
{
    qr_buf_puts(b, "{:fetch [");
    size_t nf = 0;
    for (size_t i = 0; i < c->nsteps; i++) {
        const qq_step *st = &c->steps[i];
        if (st->op)
            continue;
        qr_buf_printf(b, "%s{:tool :%s :as :%s :params ", nf++ ? " " : "", st->tool->name, st->as);
        qr_print(b, st->params, QR_PRINT_READABLY);
        qr_buf_putc(b, '}');
    }
    qr_buf_puts(b, "] :transform [");
    size_t nt = 0;
    for (size_t i = 0; i < c->nsteps; i++) {
        const qq_step *st = &c->steps[i];
        if (!st->op)
            continue;
        qr_buf_printf(b, "%s{:op :%s", nt++ ? " " : "", st->op->name);
        if (st->in2 >= 0)
            qr_buf_printf(b, " :left :%s :right :%s", c->binds[st->in].name,
                          c->binds[st->in2].name);
        else
            qr_buf_printf(b, " :on :%s", c->binds[st->in].name);
        qr_buf_printf(b, " :as :%s", st->as);
        for (int k = 0; k < QK_COUNT; k++) {
            if (st->keys[k].t == QR_T_NIL)
                continue;
            qr_buf_printf(b, " :%s ", qq_key_names[k]);
            qr_print(b, st->keys[k], QR_PRINT_READABLY);
        }
        qr_buf_putc(b, '}');
    }
    qr_buf_puts(b, "]");
    if (c->has_ret) {
        qr_buf_puts(b, " :return ");
        qr_print(b, c->ret, QR_PRINT_READABLY);
    }
    qr_buf_putc(b, '}');
}

/* What emission depends on in the context: its names and the shapes of their values. */
static void print_context_shape(qq_ctx *c, qr_buf *b)
{
    for (size_t i = 0; i < c->nctx; i++) {
        const qq_shape *s = &c->binds[i].shape;
        qr_buf_printf(b, "%s %d%d%d", c->binds[i].name, s->kind, s->records, s->closed);
        for (size_t k = 0; k < s->nfields; k++)
            qr_buf_printf(b, " %s:%d%d", s->fields[k].name, s->fields[k].type, s->fields[k].always);
        qr_buf_putc(b, '\n');
    }
    qr_buf_printf(b, "resolved %d\n", c->has_resolved);
}

/* ---- reading and the top level ---- */

static void prescan_names(qq_ctx *c, qr_val fetch, qr_val transform)
{
    qr_val lists[2] = {fetch, transform};
    const char *keys[2] = {"fetch", "transform"};
    size_t cap = 0;
    for (int l = 0; l < 2; l++)
        cap += (lists[l].t == QR_T_VEC || lists[l].t == QR_T_LIST) ? qr_vec_len(lists[l]) : 1;
    c->all_names = qr_arena_alloc(c->a, (cap + 1) * sizeof *c->all_names);
    c->all_at = qr_arena_alloc(c->a, (cap + 1) * sizeof *c->all_at);
    if (!c->all_names || !c->all_at) {
        c->oom = true;
        c->all_names = c->all_at = NULL;
        return;
    }
    for (int l = 0; l < 2; l++) {
        qr_val v = lists[l];
        size_t n = (v.t == QR_T_VEC || v.t == QR_T_LIST) ? qr_vec_len(v) : v.t == QR_T_MAP;
        for (size_t i = 0; i < n; i++) {
            qr_val it = v.t == QR_T_MAP ? v : qr_vec_at(v, i), as;
            const char *s;
            size_t sn;
            if (qq_get(it, "as", &as) && qq_name_of(as, &s, &sn)) {
                c->all_names[c->nall] = qr_arena_strndup(c->a, s, sn);
                c->all_at[c->nall] = qq_fmt(c, ":%s[%zu]", keys[l], i);
                if (c->all_names[c->nall])
                    c->nall++;
            }
        }
    }
}

static void add_context(qq_ctx *c)
{
    qr_val ctx = c->o->context;
    if (ctx.t != QR_T_MAP)
        return;
    for (size_t i = 0; i < qr_map_len(ctx); i++) {
        const char *s;
        size_t n;
        if (!qq_name_of(qr_map_key_at(ctx, i), &s, &n) || !qq_valid_binding(s, n))
            continue;
        qr_val v = qr_map_val_at(ctx, i);
        if (n == 8 && !memcmp(s, "resolved", 8) && v.t == QR_T_MAP) {
            c->has_resolved = true;
            c->resolved = v;
        }
        qq_shape shape;
        qq_shape_from_value(c, v, qq_fmt(c, "context data/%.*s", (int)n, s), &shape);
        add_binding(c, s, n, true, "the context", &shape);
    }
    c->nctx = c->nbinds;
}

static int check_query(qq_ctx *c, qr_val q)
{
    /* {:query Q} and {:mode :query :query Q}, as the seed's agents emit them */
    qr_val inner, mode;
    bool has_parts =
        qq_get(q, "fetch", &inner) || qq_get(q, "transform", &inner) || qq_get(q, "return", &inner);
    if (q.t == QR_T_MAP && !has_parts) {
        if (qq_get(q, "mode", &mode)) {
            const char *s;
            size_t n;
            if (!qq_name_of(mode, &s, &n) || !(n == 5 && !memcmp(s, "query", 5))) {
                qq_push_key(c, "mode");
                qq_problem(c, &mode, NULL, ":query",
                           "an :intent or a :plan is answered by the agents (quarry ask), not "
                           "compiled here",
                           "this is not a query but %s", qq_show(c, mode));
                qq_pop(c);
                return QR_EINVAL;
            }
        }
        if (qq_get(q, "query", &inner)) {
            q = inner;
            qq_push_key(c, "query");
        }
    }
    if (q.t != QR_T_MAP) {
        qq_problem(c, &q, NULL, "a map {:fetch [...] :transform [...] :return {...}}",
                   "e.g. {:fetch [{:tool :get_commits :as :commits}] :return {:findings "
                   ":commits}}",
                   "the query is not a map");
        return QR_EINVAL;
    }
    static const char *const top[] = {"fetch", "transform", "return"};
    known_keys(c, q, top, 3, "a query");
    qr_val fetch = qr_nil(), transform = qr_nil(), ret = qr_nil();
    bool hf = qq_get(q, "fetch", &fetch), ht = qq_get(q, "transform", &transform),
         hr = qq_get(q, "return", &ret);
    if (!hf && !ht && !hr)
        qq_problem(c, NULL, "an empty query", "at least one of :fetch :transform :return",
                   "e.g. {:fetch [{:tool :get_commits :as :commits}] :return {:findings "
                   ":commits}}",
                   "the query does nothing");
    size_t nsteps =
        ((fetch.t == QR_T_VEC || fetch.t == QR_T_LIST) ? qr_vec_len(fetch) : 1) +
        ((transform.t == QR_T_VEC || transform.t == QR_T_LIST) ? qr_vec_len(transform) : 1);
    if (nsteps > QR_QUERY_MAX_STEPS) {
        qq_problem(c, NULL, qq_fmt(c, "%zu steps", nsteps),
                   qq_fmt(c, "at most %d fetches and transforms", QR_QUERY_MAX_STEPS),
                   "split the question into several queries", "the query is too long");
        return QR_EINVAL;
    }
    c->steps = qr_arena_alloc(c->a, (nsteps + 1) * sizeof *c->steps);
    if (!c->steps) {
        c->oom = true;
        return QR_ENOMEM;
    }
    prescan_names(c, fetch, transform);
    add_context(c);
    if (hf)
        check_fetch(c, fetch);
    if (ht)
        check_transform(c, transform);
    if (hr)
        check_return(c, ret);
    if (c->oom)
        return QR_ENOMEM;
    return c->nprobs ? QR_EINVAL : QR_OK;
}

static int finish(qq_ctx *c, int rc, qr_query_compiled *out)
{
    if (c->oom && rc == QR_OK)
        rc = QR_ENOMEM;
    if (rc == QR_ENOMEM) {
        c->depth = 0;
        c->oom = false;
        qq_problem(c, NULL, "", "", "", "out of memory while compiling the query");
        rc = QR_ENOMEM;
    }
    if (rc != QR_OK) {
        free(out->program);
        out->program = NULL;
        out->program_len = 0;
    }
    out->problems = c->probs;
    out->nproblems = c->nprobs;
    c->probs = NULL;
    qr_buf_release(&c->note);
    qr_arena_release(c->a);
    return rc;
}

static int compile_in(qq_ctx *c, qr_val q, qr_query_compiled *out)
{
    int rc = check_query(c, q);
    if (rc != QR_OK)
        return rc;
    qr_buf norm, key;
    qr_buf_init(&norm);
    qr_buf_init(&key);
    print_normalized(c, &norm);
    qr_buf_append(&key, norm.p ? norm.p : "", norm.len);
    qr_buf_putc(&key, '\n');
    print_context_shape(c, &key);
    out->normalized = strdup(norm.p ? norm.p : "");
    out->hash = qr_hash_bytes(key.p ? key.p : "", key.len);
    qr_buf_release(&norm);
    if (!out->normalized || key.failed) {
        qr_buf_release(&key);
        return QR_ENOMEM;
    }
    if (c->o->cache && qq_cache_get(c->o->cache, out->hash, key.p, out)) {
        out->from_cache = true;
        qr_buf_release(&key);
        return QR_OK;
    }
    out->nsteps = c->nsteps + 1;
    out->steps = calloc(out->nsteps, sizeof *out->steps);
    if (!out->steps) {
        qr_buf_release(&key);
        return QR_ENOMEM;
    }
    qr_buf prog;
    qr_buf_init(&prog);
    emit_program(c, &prog, out->steps);
    bool oom = prog.failed || c->oom;
    for (size_t i = 0; i < out->nsteps && !oom; i++) {
        bool ret = i == c->nsteps;
        out->steps[i].path = strdup(ret ? ":return" : c->steps[i].path);
        out->steps[i].binding = strdup(ret ? "" : c->steps[i].as);
        oom = !out->steps[i].path || !out->steps[i].binding;
    }
    if (oom) {
        qr_buf_release(&prog);
        qr_buf_release(&key);
        return QR_ENOMEM;
    }
    out->program = qr_buf_detach(&prog, &out->program_len);
    if (c->o->cache)
        qq_cache_put(c->o->cache, out->hash, key.p, out);
    qr_buf_release(&key);
    return QR_OK;
}

static void ctx_init(qq_ctx *c, qr_arena *a, const qr_query_opts *o, bool json)
{
    memset(c, 0, sizeof *c);
    qr_arena_init(a, ARENA_CAP);
    c->a = a;
    c->o = o;
    c->json = json;
    c->ret = qr_nil();
    c->resolved = qr_nil();
    qr_buf_init(&c->note);
}

void qr_query_opts_init(qr_query_opts *o, const qr_tools *tools)
{
    memset(o, 0, sizeof *o);
    o->tools = tools;
    o->context = qr_nil();
}

int qr_query_compile_value(const qr_query_opts *o, qr_val query, bool json, qr_query_compiled *out)
{
    memset(out, 0, sizeof *out);
    qr_arena a;
    qq_ctx c;
    ctx_init(&c, &a, o, json);
    return finish(&c, compile_in(&c, query, out), out);
}

/* The first character that is not white space. */
static char first_char(const char *s, size_t n, size_t *at)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == ','))
        i++;
    *at = i;
    return i < n ? s[i] : 0;
}

int qr_query_compile(const qr_query_opts *o, const char *src, size_t n, qr_query_compiled *out)
{
    memset(out, 0, sizeof *out);
    qr_arena a;
    qq_ctx c;
    ctx_init(&c, &a, o, false);
    if (n > QR_QUERY_MAX_TEXT) {
        qq_problem(&c, NULL, qq_fmt(&c, "%zu bytes", n), "at most 1 MiB of query text",
                   "a query is a few lines; pass data in the context", "the query is too long");
        return finish(&c, QR_EINVAL, out);
    }
    qr_val q, forms;
    qr_read_error jerr, eerr;
    if (qr_json_read(&a, src, n, &q, &jerr) == QR_OK) {
        c.json = true;
        return finish(&c, compile_in(&c, q, out), out);
    }
    if (a.exhausted)
        return finish(&c, QR_ENOMEM, out);
    int rc = qr_read_all(&a, src, n, QR_READ_EDN, &forms, &eerr);
    if (rc == QR_OK && qr_vec_len(forms) == 1)
        return finish(&c, compile_in(&c, qr_vec_at(forms, 0), out), out);
    if (rc == QR_ENOMEM || a.exhausted)
        return finish(&c, QR_ENOMEM, out);
    const char *expected = "one EDN map {:fetch [...] :transform [...] :return {...}}, or the "
                           "same as a JSON object";
    if (rc == QR_OK) {
        qq_problem(&c, NULL, qq_fmt(&c, "%zu forms", qr_vec_len(forms)), expected,
                   "give one query; wrap several values in one map",
                   "the text holds %zu values, not one query", qr_vec_len(forms));
        return finish(&c, QR_EINVAL, out);
    }
    /* report the error of the form it looks like */
    size_t at;
    char ch = first_char(src, n, &at);
    size_t at2;
    char ch2 = at + 1 < n ? first_char(src + at + 1, n - at - 1, &at2) : 0;
    bool looks_json = ch == '[' || (ch == '{' && (ch2 == '"' || ch2 == '}'));
    const qr_read_error *e = looks_json ? &jerr : &eerr;
    qq_problem(&c, NULL, looks_json ? "text that is not valid JSON" : "text that is not valid EDN",
               expected,
               looks_json ? "check quotes, commas and brackets"
                          : "check brackets and quotes; keywords start with ':'",
               "the query cannot be read as %s: at %u:%u: %s", looks_json ? "JSON" : "EDN", e->line,
               e->col, e->msg);
    return finish(&c, QR_EINVAL, out);
}

void qr_query_compiled_clear(qr_query_compiled *c)
{
    free(c->program);
    free(c->normalized);
    qq_problems_free(c->problems, c->nproblems);
    qq_steps_free(c->steps, c->nsteps);
    memset(c, 0, sizeof *c);
}

const qr_query_step *qr_query_step_at(const qr_query_compiled *c, uint32_t line)
{
    const qr_query_step *best = NULL;
    for (size_t i = 0; i < c->nsteps; i++)
        if (c->steps[i].line <= line && (!best || c->steps[i].line >= best->line))
            best = &c->steps[i];
    return best;
}
