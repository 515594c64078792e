/*
 * mem_agent_reply.c: a memory agent's reply, read as data and checked action by
 * action (qr_mem_agent_parse_reply), and a checked plan applied to the store
 * (qr_mem_agent_apply).
 *
 * Design: the actions are found in the one fenced block labelled json, jsonl,
 * ndjson, edn or clojure, or unlabelled (blocks in other languages are prose),
 * else in the whole reply when it starts with '[' or '{'. The data is a JSON
 * array, JSON lines, or EDN (a vector of maps, or maps one after another), read
 * with the value layer's readers. Then every action is checked against one
 * table of fields per action (required or optional, string or number, range),
 * so a missing field, an extra field, a bad number or an action the agent may
 * not take is a problem with its index and field. With a store, the keys are
 * checked too: link-add, weight and refine name nodes that exist (or that an
 * earlier write in the same reply adds); write names one that does not (deleted
 * nodes included). Every problem is collected, none is dropped silently, and
 * one problem anywhere means nothing is applied: a model's reply is applied
 * whole or not at all, and the list tells it (or a person) exactly what to fix.
 * Rejected: applying the valid actions and skipping the others (a link to a
 * note that a rejected write would have added leaves the graph half-changed);
 * free-text "actions" (LINK a b) that the seed's first agents used (no schema
 * to check against); taking the last of several data blocks (a model that shows
 * an example and then answers would have its example applied when it forgets
 * the answer).
 */
#include "quarry/mem_agent.h"
#include "quarry/value.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { F_STR, F_NUM } field_type;

typedef struct field_spec {
    const char *name;
    field_type type;
    bool required;
    double lo, hi; /* numbers: lo < x <= hi when lo_open, else lo <= x <= hi */
    bool lo_open;
} field_spec;

typedef struct action_spec {
    unsigned kind;
    const char *name;
    field_spec fields[5];
    size_t nfields;
} action_spec;

static const action_spec specs[] = {
    {QR_MEM_AGENT_LINK_ADD,
     "link-add",
     {{"source", F_STR, true, 0, 0, false},
      {"target", F_STR, true, 0, 0, false},
      {"strength", F_NUM, true, 0, 1, true},
      {"type", F_STR, false, 0, 0, false}},
     4},
    {QR_MEM_AGENT_WEIGHT,
     "weight",
     {{"key", F_STR, true, 0, 0, false}, {"weight", F_NUM, true, 0, 1, false}},
     2},
    {QR_MEM_AGENT_WRITE,
     "write",
     {{"key", F_STR, true, 0, 0, false},
      {"content", F_STR, true, 0, 0, false},
      {"type", F_STR, true, 0, 0, false},
      {"weight", F_NUM, false, 0, 1, false}},
     4},
    {QR_MEM_AGENT_REFINE,
     "refine",
     {{"key", F_STR, true, 0, 0, false}, {"content", F_STR, true, 0, 0, false}},
     2},
};
#define NSPECS (sizeof specs / sizeof specs[0])

typedef struct pctx {
    qr_mem_agent_plan *plan;
    size_t cap_problems;
    bool oom;
} pctx;

/* Drops a character that truncation cut in two at the end of s. */
static void cut_utf8(char *s)
{
    size_t n = strlen(s), k = n;
    while (k > 0 && ((unsigned char)s[k - 1] & 0xC0) == 0x80)
        k--;
    if (k > 0 && (unsigned char)s[k - 1] >= 0xC0) {
        unsigned char c = (unsigned char)s[k - 1];
        size_t want = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        if (n - (k - 1) < want)
            s[k - 1] = 0;
    }
}

/* A problem is read by people and models, so it is always UTF-8: a character cut in two
 * by truncation is dropped, and bytes that are not UTF-8 (the JSON reader's messages quote
 * a lone byte) become '?'. */
static void tidy_utf8(char *s)
{
    cut_utf8(s);
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t k = qr_utf8_decode(s + i, n - i, &cp);
        if (k == 1 && cp == 0xFFFD)
            s[i] = '?';
        i += k;
    }
}

static void problem(pctx *c, long index, const char *action, const char *field, const char *fmt,
                    ...) __attribute__((format(printf, 5, 6)));
static void problem(pctx *c, long index, const char *action, const char *field, const char *fmt,
                    ...)
{
    qr_mem_agent_plan *p = c->plan;
    if (p->nproblems >= QR_MEM_AGENT_MAX_PROBLEMS) {
        p->nproblems_dropped++;
        return;
    }
    if (p->nproblems == c->cap_problems) {
        size_t nc = c->cap_problems ? c->cap_problems * 2 : 8;
        qr_mem_agent_problem *np = realloc(p->problems, nc * sizeof *np);
        if (!np) {
            c->oom = true;
            return;
        }
        p->problems = np;
        c->cap_problems = nc;
    }
    qr_mem_agent_problem *q = &p->problems[p->nproblems++];
    q->index = index;
    snprintf(q->action, sizeof q->action, "%s", action ? action : "");
    snprintf(q->field, sizeof q->field, "%s", field ? field : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(q->why, sizeof q->why, fmt, ap);
    va_end(ap);
    tidy_utf8(q->action);
    tidy_utf8(q->field);
    tidy_utf8(q->why);
}

void qr_mem_agent_problem_format(const qr_mem_agent_problem *p, qr_buf *out)
{
    if (p->index >= 0)
        qr_buf_printf(out, "action %ld", p->index + 1);
    else
        qr_buf_puts(out, "reply");
    if (p->action[0])
        qr_buf_printf(out, " (%s)", p->action);
    if (p->field[0])
        qr_buf_printf(out, " '%s'", p->field);
    qr_buf_printf(out, ": %s", p->why);
}

void qr_mem_agent_plan_clear(qr_mem_agent_plan *p)
{
    qr_arena_release(&p->arena);
    free(p->actions);
    free(p->problems);
    memset(p, 0, sizeof *p);
}

/* ---- finding the data ---- */

static bool data_label(const char *s, size_t n)
{
    static const char *const labels[] = {"json", "jsonl", "ndjson", "edn", "clojure", "JSON"};
    if (n == 0)
        return true;
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
        if (strlen(labels[i]) == n && !memcmp(labels[i], s, n))
            return true;
    return false;
}

/* Sets *d, *dn to the data of the reply; returns false (after a problem) when
 * there is none or more than one block. */
static bool find_data(pctx *c, const char *t, size_t n, const char **d, size_t *dn)
{
    size_t blocks = 0, pos = 0;
    const char *bd = NULL;
    size_t bdn = 0;
    bool any_fence = false;
    while (pos < n) {
        const char *eol = memchr(t + pos, '\n', n - pos);
        size_t le = eol ? (size_t)(eol - t) : n;
        size_t q = pos;
        while (q < le && (t[q] == ' ' || t[q] == '\t'))
            q++;
        if (le - q >= 3 && !memcmp(t + q, "```", 3)) {
            any_fence = true;
            size_t ls = q + 3, lend = le;
            while (ls < lend && (t[ls] == ' ' || t[ls] == '\t'))
                ls++;
            while (lend > ls && (t[lend - 1] == ' ' || t[lend - 1] == '\t' || t[lend - 1] == '\r'))
                lend--;
            bool data = data_label(t + ls, lend - ls);
            /* the body runs to the closing fence, or to the end of the reply */
            size_t bs = le < n ? le + 1 : n, p2 = bs, be = n, next = n;
            while (p2 < n) {
                const char *e2 = memchr(t + p2, '\n', n - p2);
                size_t l2 = e2 ? (size_t)(e2 - t) : n;
                size_t q2 = p2;
                while (q2 < l2 && (t[q2] == ' ' || t[q2] == '\t'))
                    q2++;
                if (l2 - q2 >= 3 && !memcmp(t + q2, "```", 3)) {
                    be = p2;
                    next = l2 < n ? l2 + 1 : n;
                    break;
                }
                p2 = l2 < n ? l2 + 1 : n;
            }
            if (data) {
                blocks++;
                if (blocks == 1) {
                    bd = t + bs;
                    bdn = be - bs;
                }
            }
            pos = next;
            continue;
        }
        pos = le < n ? le + 1 : n;
    }
    if (blocks > 1) {
        problem(c, -1, NULL, NULL,
                "the reply has %zu ```json blocks; put every action in one block", blocks);
        return false;
    }
    if (blocks == 1) {
        *d = bd;
        *dn = bdn;
        return true;
    }
    size_t s = 0;
    while (s < n && strchr(" \t\r\n", t[s]))
        s++;
    if (s < n && (t[s] == '[' || t[s] == '{')) {
        *d = t + s;
        *dn = n - s;
        return true;
    }
    problem(c, -1, NULL, NULL,
            "the reply holds no actions%s: expected a ```json block holding a "
            "JSON array of "
            "action objects ([] when there is nothing to do)",
            any_fence ? " (its code blocks are not labelled json or edn)" : "");
    return false;
}

/* Reads the data into a vector of items (any values; checked later). */
static bool read_data(pctx *c, qr_arena *a, const char *d, size_t n, qr_val *items)
{
    size_t s = 0;
    while (s < n && strchr(" \t\r\n", d[s]))
        s++;
    if (s == n) {
        problem(c, -1, NULL, NULL,
                "the actions block is empty: write [] when there is nothing to do");
        return false;
    }
    qr_read_error jerr, eerr;
    qr_val v;
    bool edn_like = false;
    for (size_t i = s; i + 1 < n && !edn_like; i++)
        edn_like = (d[i] == '{' || d[i] == ' ' || d[i] == '\n') && d[i + 1] == ':';
    if (d[s] == '[') {
        int rc = qr_json_read(a, d + s, n - s, &v, &jerr);
        if (rc == QR_OK) {
            if (v.t != QR_T_VEC) {
                problem(c, -1, NULL, NULL, "the actions are not a JSON array");
                return false;
            }
            *items = v;
            return true;
        }
        if (rc == QR_ENOMEM) {
            c->oom = true;
            return false;
        }
        rc = qr_read_all(a, d + s, n - s, QR_READ_EDN, &v, &eerr);
        if (rc == QR_OK && qr_vec_len(v) == 1 && qr_vec_at(v, 0).t == QR_T_VEC) {
            *items = qr_vec_at(v, 0);
            return true;
        }
        if (rc == QR_OK)
            problem(c, -1, NULL, NULL,
                    "the actions must be one array (JSON) or one vector (EDN), and "
                    "nothing "
                    "after it");
        else if (edn_like)
            problem(c, -1, NULL, NULL, "the actions are not valid EDN: %u:%u: %s", eerr.line,
                    eerr.col, eerr.msg);
        else
            problem(c, -1, NULL, NULL, "the actions are not valid JSON: %u:%u: %s", jerr.line,
                    jerr.col, jerr.msg);
        return false;
    }
    if (d[s] != '{') {
        problem(c, -1, NULL, NULL,
                "the actions block must start with '[' (an array) or '{' "
                "(JSON lines)");
        return false;
    }
    if (edn_like) { /* EDN maps one after another */
        int rc = qr_read_all(a, d + s, n - s, QR_READ_EDN, &v, &eerr);
        if (rc == QR_OK) {
            *items = v;
            return true;
        }
        if (rc == QR_ENOMEM)
            c->oom = true;
        else
            problem(c, -1, NULL, NULL, "the actions are not valid EDN: %u:%u: %s", eerr.line,
                    eerr.col, eerr.msg);
        return false;
    }
    /* JSON lines; a single object written over several lines is one action */
    if (qr_json_read(a, d + s, n - s, &v, &jerr) == QR_OK) {
        *items = qr_vec_from(a, QR_T_VEC, &v, 1);
        return !a->exhausted || (c->oom = true, false);
    }
    qr_vecb b;
    qr_vecb_init(&b, a, 8);
    size_t pos = s, lineno = 1;
    bool ok = true;
    while (pos < n) {
        const char *eol = memchr(d + pos, '\n', n - pos);
        size_t le = eol ? (size_t)(eol - d) : n;
        size_t q = pos;
        while (q < le && strchr(" \t\r", d[q]))
            q++;
        if (q < le) {
            if (qr_json_read(a, d + q, le - q, &v, &jerr) == QR_OK) {
                qr_vecb_push(&b, v);
            } else {
                problem(c, -1, NULL, NULL,
                        "line %zu of the actions is not a JSON object: %s (write a "
                        "JSON array, "
                        "or one object per line)",
                        lineno, jerr.msg);
                ok = false;
            }
        }
        pos = le < n ? le + 1 : n;
        lineno++;
    }
    *items = qr_vecb_finish(&b, QR_T_VEC);
    if (a->exhausted)
        c->oom = true;
    return ok && !c->oom;
}

/* ---- checking actions ---- */

static void name_of(qr_val k, char *buf, size_t cap)
{
    const char *s = "?";
    size_t n = 1;
    if (k.t == QR_T_STR) {
        s = k.s->data;
        n = k.s->len;
    } else if (k.t == QR_T_KW) {
        s = qr_sym_name(k.sym, &n);
    }
    size_t o = 0;
    for (size_t i = 0; i < n && o + 4 < cap; i++)
        buf[o++] = (unsigned char)s[i] < 0x20 ? '?' : s[i];
    if (o < n) { /* cut at a character boundary */
        while (o > 0 && ((unsigned char)s[o] & 0xC0) == 0x80)
            o--;
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = 0;
}

static void describe(qr_val v, char *buf, size_t cap)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_describe(&b, v);
    snprintf(buf, cap, "%s", b.p ? b.p : "a value");
    qr_buf_release(&b);
}

/* Is key written by an action before index i? */
static bool written_before(const qr_mem_agent_plan *p, const char *key)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->actions[i].kind == QR_MEM_AGENT_WRITE && !strcmp(p->actions[i].key, key))
            return true;
    return false;
}

static bool key_text_ok(pctx *c, long idx, const char *an, const char *field, const qr_str *s)
{
    if (s->len == 0 || s->len > QR_MEM_KEY_MAX) {
        problem(c, idx, an, field, "a key is 1 to %d bytes", QR_MEM_KEY_MAX);
        return false;
    }
    for (uint32_t i = 0; i < s->len; i++)
        if ((unsigned char)s->data[i] < 0x20 || s->data[i] == 0x7f) {
            problem(c, idx, an, field, "a key holds no control characters or newlines");
            return false;
        }
    return true;
}

/* 1: live node, 0: absent, -1: deleted, -2: store error. */
static int key_state(qr_mem *m, const char *key)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_mem_node nd;
    qr_buf err;
    qr_buf_init(&err);
    int rc = qr_mem_node_get(m, key, true, &a, &nd, &err);
    int st = rc == QR_OK ? (nd.deleted ? -1 : 1) : rc == QR_ERUNTIME ? 0 : -2;
    qr_buf_release(&err);
    qr_arena_release(&a);
    return st;
}

static int check_action(pctx *c, qr_arena *a, unsigned allowed, qr_mem *m, long idx, qr_val v,
                        qr_mem_agent_action *out)
{
    char shown[80];
    if (v.t != QR_T_MAP) {
        describe(v, shown, sizeof shown);
        problem(c, idx, NULL, NULL, "expected an object {\"action\": ..., ...}, found %s", shown);
        return 0;
    }
    /* the action's name */
    qr_val an = qr_nil();
    bool has_action = false;
    for (size_t i = 0; i < qr_map_len(v); i++) {
        char k[40];
        name_of(qr_map_key_at(v, i), k, sizeof k);
        if (!strcmp(k, "action")) {
            an = qr_map_val_at(v, i);
            has_action = true;
        }
    }
    if (!has_action) {
        problem(c, idx, NULL, "action",
                "missing: every object names its action (link-add, weight, write, "
                "refine)");
        return 0;
    }
    if (an.t != QR_T_STR && an.t != QR_T_KW) {
        describe(an, shown, sizeof shown);
        problem(c, idx, NULL, "action", "must be a string such as \"link-add\", not %s", shown);
        return 0;
    }
    name_of(an, shown, sizeof shown);
    const action_spec *sp = NULL;
    for (size_t i = 0; i < NSPECS; i++)
        if (!strcmp(shown, specs[i].name))
            sp = &specs[i];
    if (!sp) {
        problem(c, idx, NULL, "action",
                "unknown action '%s': expected link-add, weight, write or refine", shown);
        return 0;
    }
    bool ok = true;
    if (!(allowed & sp->kind)) {
        qr_buf al;
        qr_buf_init(&al);
        for (size_t i = 0; i < NSPECS; i++)
            if (allowed & specs[i].kind)
                qr_buf_printf(&al, "%s%s", al.len ? ", " : "", specs[i].name);
        problem(c, idx, sp->name, NULL, "this agent may not %s (its file allows: %s)", sp->name,
                al.len ? al.p : "no actions");
        qr_buf_release(&al);
        ok = false;
    }
    memset(out, 0, sizeof *out);
    out->kind = sp->kind;
    const qr_str *strs[5] = {NULL};
    double nums[5] = {0};
    bool have[5] = {false};
    for (size_t i = 0; i < qr_map_len(v); i++) {
        char k[40];
        qr_val key = qr_map_key_at(v, i), val = qr_map_val_at(v, i);
        name_of(key, k, sizeof k);
        if (!strcmp(k, "action"))
            continue;
        size_t f = 0;
        while (f < sp->nfields && strcmp(sp->fields[f].name, k))
            f++;
        if (f == sp->nfields) {
            qr_buf fl;
            qr_buf_init(&fl);
            for (size_t j = 0; j < sp->nfields; j++)
                qr_buf_printf(&fl, "%s%s", j ? ", " : "", sp->fields[j].name);
            problem(c, idx, sp->name, k, "unknown field: %s takes action, %s", sp->name,
                    fl.p ? fl.p : "");
            qr_buf_release(&fl);
            ok = false;
            continue;
        }
        const field_spec *fs = &sp->fields[f];
        have[f] = true;
        if (fs->type == F_STR) {
            bool kw_ok = !strcmp(fs->name, "type") && val.t == QR_T_KW;
            if (val.t != QR_T_STR && !kw_ok) {
                describe(val, shown, sizeof shown);
                problem(c, idx, sp->name, fs->name, "must be a string, not %s", shown);
                ok = false;
                continue;
            }
            if (kw_ok) {
                size_t nn;
                const char *nm = qr_sym_name(val.sym, &nn);
                val = qr_str_new(a, nm, nn);
                if (qr_is_nil(val)) {
                    c->oom = true;
                    return -1;
                }
            }
            strs[f] = val.s;
        } else {
            if (!qr_is_number(val)) {
                describe(val, shown, sizeof shown);
                problem(c, idx, sp->name, fs->name, "must be a number in %s%g, %g], not %s",
                        fs->lo_open ? "(" : "[", fs->lo, fs->hi, shown);
                ok = false;
                continue;
            }
            double x = qr_to_double(val);
            if (!isfinite(x) || x > fs->hi || x < fs->lo || (fs->lo_open && x <= fs->lo)) {
                problem(c, idx, sp->name, fs->name, "%g is out of range: expected %s%g, %g]", x,
                        fs->lo_open ? "(" : "[", fs->lo, fs->hi);
                ok = false;
                continue;
            }
            nums[f] = x;
        }
    }
    for (size_t f = 0; f < sp->nfields; f++)
        if (sp->fields[f].required && !have[f]) {
            problem(c, idx, sp->name, sp->fields[f].name, "missing: %s needs it", sp->name);
            ok = false;
        }
    /* values: keys, types, content */
    for (size_t f = 0; f < sp->nfields; f++) {
        const char *fn = sp->fields[f].name;
        if (!strs[f])
            continue;
        if (!strcmp(fn, "key") || !strcmp(fn, "source") || !strcmp(fn, "target")) {
            if (!key_text_ok(c, idx, sp->name, fn, strs[f])) {
                ok = false;
                strs[f] = NULL;
            }
        } else if (!strcmp(fn, "type")) {
            if (!qr_mem_word_valid(strs[f]->data)) {
                name_of(qr_str_new(a, strs[f]->data, strs[f]->len), shown, sizeof shown);
                problem(c, idx, sp->name, fn,
                        "\"%s\" is not a type: use 1 to %d characters of a-z, 0-9 and '-'", shown,
                        QR_MEM_WORD_MAX);
                ok = false;
            }
        } else if (!strcmp(fn, "content")) {
            if (strs[f]->len == 0 || strspn(strs[f]->data, " \t\r\n") == strs[f]->len) {
                problem(c, idx, sp->name, fn, "must not be empty");
                ok = false;
            } else if (strs[f]->len > QR_MEM_CONTENT_MAX) {
                problem(c, idx, sp->name, fn, "is larger than %u bytes", QR_MEM_CONTENT_MAX);
                ok = false;
            } else if (!qr_mem_text_valid(strs[f]->data, strs[f]->len, true)) {
                problem(c, idx, sp->name, fn,
                        "holds control characters or is not UTF-8 (only tab and line breaks "
                        "are allowed)");
                ok = false;
            }
        }
    }
    for (size_t f = 0; f < sp->nfields; f++) {
        const char *fn = sp->fields[f].name;
        const char *s = strs[f] ? strs[f]->data : NULL;
        if (!strcmp(fn, "key"))
            out->key = s;
        else if (!strcmp(fn, "source"))
            out->source = s;
        else if (!strcmp(fn, "target"))
            out->target = s;
        else if (!strcmp(fn, "type"))
            out->type = s;
        else if (!strcmp(fn, "content")) {
            out->content = s;
            out->content_len = strs[f] ? strs[f]->len : 0;
        } else if (have[f])
            out->value = nums[f];
    }
    if (sp->kind == QR_MEM_AGENT_LINK_ADD && !have[3])
        out->type = "related";
    if (sp->kind == QR_MEM_AGENT_WRITE && !have[3])
        out->value = 0.5;
    if (sp->kind == QR_MEM_AGENT_LINK_ADD && out->source && out->target &&
        !strcmp(out->source, out->target)) {
        problem(c, idx, sp->name, "target", "a node cannot be linked to itself");
        ok = false;
    }
    /* the keys against the store */
    if (m) {
        const char *const ks[2] = {sp->kind == QR_MEM_AGENT_LINK_ADD ? out->source : out->key,
                                   sp->kind == QR_MEM_AGENT_LINK_ADD ? out->target : NULL};
        const char *const kf[2] = {sp->kind == QR_MEM_AGENT_LINK_ADD ? "source" : "key", "target"};
        for (int j = 0; j < 2; j++) {
            if (!ks[j])
                continue;
            int st = key_state(m, ks[j]);
            if (st == -2)
                return -2;
            bool earlier = written_before(c->plan, ks[j]);
            char kshown[80];
            name_of(qr_str_new(a, ks[j], strlen(ks[j])), kshown, sizeof kshown);
            if (sp->kind == QR_MEM_AGENT_WRITE) {
                if (st != 0 || earlier) {
                    problem(c, idx, sp->name, "key",
                            "'%s' %s; choose a new key, or refine the existing node", kshown,
                            earlier  ? "is written twice in this reply"
                            : st < 0 ? "belongs to a deleted node"
                                     : "already exists");
                    ok = false;
                }
            } else if (st != 1 && !earlier) {
                problem(c, idx, sp->name, kf[j], "no node '%s' in the store%s", kshown,
                        st < 0 ? " (it was deleted)" : "; use a key from the prompt");
                ok = false;
            }
        }
    }
    return ok ? 1 : 0;
}

int qr_mem_agent_parse_reply(qr_mem_agent_plan *out, unsigned allowed, qr_mem *m, const char *text,
                             size_t len)
{
    memset(out, 0, sizeof *out);
    qr_arena_init(&out->arena, 256u << 20);
    pctx c = {.plan = out};
    const char *d = NULL;
    size_t dn = 0;
    qr_val items;
    if (!qr_utf8_valid(text, len)) {
        problem(&c, -1, NULL, NULL, "the reply is not UTF-8 text");
        goto done;
    }
    if (!find_data(&c, text, len, &d, &dn) || !read_data(&c, &out->arena, d, dn, &items))
        goto done;
    size_t n = qr_vec_len(items);
    if (n > QR_MEM_AGENT_MAX_ACTIONS) {
        problem(&c, -1, NULL, NULL, "%zu actions in one reply; at most %d", n,
                QR_MEM_AGENT_MAX_ACTIONS);
        goto done;
    }
    if (n && !(out->actions = calloc(n, sizeof *out->actions))) {
        c.oom = true;
        goto done;
    }
    for (size_t i = 0; i < n && !c.oom; i++) {
        qr_mem_agent_action act;
        int r = check_action(&c, &out->arena, allowed, m, (long)i, qr_vec_at(items, i), &act);
        if (r == -2) {
            qr_mem_agent_plan_clear(out);
            return QR_EIO;
        }
        if (r == 1)
            out->actions[out->n++] = act;
    }
done:
    if (c.oom || out->arena.exhausted)
        return QR_ENOMEM;
    if (out->nproblems || out->nproblems_dropped) {
        out->n = 0;
        return QR_EINVAL;
    }
    return QR_OK;
}

/* ---- applying ---- */

int qr_mem_agent_apply(qr_mem *m, const char *agent, const qr_mem_agent_plan *p, size_t *applied,
                       qr_buf *err)
{
    *applied = 0;
    char prov[QR_MEM_WORD_MAX + 8];
    snprintf(prov, sizeof prov, "agent:%s", agent);
    for (size_t i = 0; i < p->n; i++) {
        const qr_mem_agent_action *a = &p->actions[i];
        int rc = QR_OK;
        qr_buf e;
        qr_buf_init(&e);
        switch (a->kind) {
        case QR_MEM_AGENT_LINK_ADD:
            rc = qr_mem_link(m, a->source, a->target, a->value, a->type, NULL, &e);
            break;
        case QR_MEM_AGENT_WEIGHT: {
            qr_mem_update u = {.has_weight = true, .weight = a->value};
            rc = qr_mem_node_update(m, a->key, &u, &e);
            break;
        }
        case QR_MEM_AGENT_WRITE: {
            qr_mem_node nd;
            memset(&nd, 0, sizeof nd);
            nd.key = a->key;
            nd.content = a->content;
            nd.content_len = a->content_len;
            nd.type = a->type;
            nd.weight = a->value;
            nd.provenance = prov;
            rc = qr_mem_node_add(m, &nd, NULL, &e);
            break;
        }
        case QR_MEM_AGENT_REFINE: {
            qr_mem_update u = {.content = a->content};
            rc = qr_mem_node_update(m, a->key, &u, &e);
            break;
        }
        default: rc = QR_EINVAL;
        }
        if (rc != QR_OK) {
            if (err)
                qr_buf_printf(err, "action %zu of %zu (%s) failed: %s", i + 1, p->n,
                              qr_mem_agent_action_name(a->kind),
                              e.p ? e.p : "the store refused it");
            qr_buf_release(&e);
            return rc == QR_ENOMEM ? rc : QR_ERUNTIME;
        }
        qr_buf_release(&e);
        (*applied)++;
    }
    return QR_OK;
}
