/*
 * session.c: sessions (definitions that persist across programs, the request context,
 * the tool hook) and qr_lisp_run, the one entry point that reads, analyzes and runs a
 * program under the sandbox's limits.
 *
 * A run takes an arena mark and a cap (memory already used + the run's limit). If it
 * fails, every def it made is undone from a log and the arena goes back to the mark, so
 * the session is exactly as it was. Top-level `do` forms are split so that a `def` is
 * visible to the forms after it, as in Clojure.
 */
#include "lisp_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#define STACK_VALUES (1u << 18)

void qr_lisp_limits_default(qr_lisp_limits *l)
{
    l->timeout_ms = 10000; /* it bounds the tools a program calls too */
    l->max_memory = 64u << 20;
    l->max_steps = 100000000ull;
    l->max_depth = 10000;
    l->stack_bytes = 4u << 20;
    l->max_output = 64u << 10;
    l->regex_match_limit = QR_REGEX_MATCH_LIMIT;
}

const char *qr_lisp_errkind_name(qr_lisp_errkind k)
{
    static const char *const names[] = {
        "none",       "parse-error",     "type-error", "arity-error", "unbound-symbol",
        "arithmetic-error", "index-error", "tool-error", "fail",      "timeout",
        "memory-exceeded",  "step-limit",  "depth-limit", "regex-limit", "interrupted",
        "exception"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "error";
}

void qr_lisp_result_clear(qr_lisp_result *r)
{
    free(r->output);
    memset(r, 0, sizeof *r);
}

qr_lisp_session *qr_lisp_session_new(const qr_lisp_limits *limits)
{
    qr_lisp_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (limits)
        s->limits = *limits;
    else
        qr_lisp_limits_default(&s->limits);
    s->rand_state = 1;
    qr_req_init(&s->own_req, NULL);
    qr_arena_init(&s->arena, 0);
    qr_arena_init(&s->text, 0);
    s->stack_cap = STACK_VALUES;
    s->stack = malloc(sizeof(qr_val) * s->stack_cap);
    pcre2_match_context *mc = pcre2_match_context_create(NULL);
    if (!s->stack || !mc) {
        free(s->stack);
        pcre2_match_context_free(mc);
        free(s);
        return NULL;
    }
    s->regex_match_ctx = mc;
    s->data = qr_map_empty();
    s->pending_defs = qr_nil();
    return s;
}

void qr_lisp_session_free(qr_lisp_session *s)
{
    if (!s)
        return;
    for (size_t i = 0; s->globals.slots && i <= s->globals.mask; i++)
        free(s->globals.slots[i]);
    free(s->globals.slots);
    pcre2_match_context_free(s->regex_match_ctx);
    qr_arena_release(&s->arena);
    qr_arena_release(&s->text);
    free(s->stack);
    free(s);
}

void qr_lisp_interrupt(qr_lisp_session *s)
{
    /* one way to stop a run: its request is cancelled */
    qr_req_cancel(s->req ? s->req : &s->own_req);
}

qr_lisp_limits *qr_lisp_session_limits(qr_lisp_session *s)
{
    return &s->limits;
}

qr_arena *qr_lisp_session_arena(qr_lisp_session *s)
{
    return &s->arena;
}

qr_arena *qr_lisp_session_text_arena(qr_lisp_session *s)
{
    return &s->text;
}

void qr_lisp_set_data(qr_lisp_session *s, qr_val data)
{
    s->data = data;
}

qr_req_saved lx_begin(qr_lx *lx, qr_lisp_session *s, qr_arena *a, qr_lisp_result *res,
                      char *stack_base)
{
    memset(lx, 0, sizeof *lx);
    lx->s = s;
    lx->a = a;
    lx->stack = s->stack;
    lx->stack_cap = s->stack_cap;
    lx->res = res;
    lx->stack_base = stack_base;
    qr_buf_init(&lx->out);
    lx->req = s->req ? s->req : &s->own_req;
    lx->max_steps = s->limits.max_steps;
    uint64_t steps_left = qr_req_steps_left(lx->req);
    if (steps_left < lx->max_steps)
        lx->max_steps = steps_left;
    lx->max_depth = s->limits.max_depth;
    lx->stack_bytes = s->limits.stack_bytes;
    /* the program's time limit narrows the request's deadline while it runs, so the tools
     * it calls stop at the program's deadline too (time inside a tool counts); its memory
     * limit narrows the request's memory budget, which the tools' scratch memory keeps to */
    lx->saved_memory = lx->req->budget.memory;
    lx->req->budget.memory = qr_req_memory_cap(lx->req, s->limits.max_memory);
    return qr_req_narrow(lx->req, s->limits.timeout_ms);
}

void lx_end_limits(qr_lx *lx, qr_req_saved saved)
{
    qr_req_restore(lx->req, saved);
    lx->req->budget.memory = lx->saved_memory;
    if (lx->req == lx->s->req)
        qr_req_spend_steps(lx->req, lx->steps);
    else /* the session's own request serves one run: a cancel of it ends with the run */
        qr_req_rearm(&lx->s->own_req);
}

void qr_lisp_set_req(qr_lisp_session *s, qr_req *req)
{
    s->req = req;
}

void qr_lisp_set_tools(qr_lisp_session *s, qr_lisp_tool_fn fn, void *ud)
{
    s->tool_fn = fn;
    s->tool_ud = ud;
}

void qr_lisp_set_seed(qr_lisp_session *s, uint64_t seed)
{
    s->rand_state = seed;
}

/* ---- globals ---- */

global *lx_global_find(qr_lisp_session *s, const qr_sym *sym)
{
    global_table *t = &s->globals;
    if (!t->slots)
        return NULL;
    for (size_t j = sym->hash & t->mask;; j = (j + 1) & t->mask) {
        global *g = t->slots[j];
        if (!g)
            return NULL;
        if (qr_sym_eq(g->sym, sym))
            return g;
    }
}

static bool globals_grow(global_table *t)
{
    size_t ncap = t->slots ? (t->mask + 1) * 2 : 64;
    global **ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return false;
    for (size_t i = 0; t->slots && i <= t->mask; i++) {
        global *g = t->slots[i];
        if (!g)
            continue;
        size_t j = g->sym->hash & (ncap - 1);
        while (ns[j])
            j = (j + 1) & (ncap - 1);
        ns[j] = g;
    }
    free(t->slots);
    t->slots = ns;
    t->mask = ncap - 1;
    return true;
}

global *lx_global_intern(qr_lisp_session *s, const qr_sym *sym)
{
    global *g = lx_global_find(s, sym);
    if (g)
        return g;
    global_table *t = &s->globals;
    if ((!t->slots || t->count + 1 > (t->mask + 1) / 2) && !globals_grow(t)) {
        qr_arena_fail(&s->arena, QR_ENOMEM);
        return NULL;
    }
    /* globals outlive any one run: their symbol must too */
    if (!sym->interned)
        sym = NULL;
    g = calloc(1, sizeof *g + (sym ? 0 : 0));
    if (!g || !sym) {
        free(g);
        qr_arena_fail(&s->arena, QR_ENOMEM);
        return NULL;
    }
    g->sym = sym;
    g->var.sym = sym;
    g->value = qr_nil();
    size_t j = sym->hash & t->mask;
    while (t->slots[j])
        j = (j + 1) & t->mask;
    t->slots[j] = g;
    t->count++;
    return g;
}

/* ---- running ---- */

static void on_arena_fail(void *ud, int code)
{
    qr_lx *lx = ud;
    lx->s->arena.on_fail = NULL; /* formatting the error must not re-enter */
    if (code == QR_ELIMIT)
        lx_throw(lx, QR_LE_DEPTH, "value nested deeper than %d levels", QR_MAX_DEPTH);
    lx->cur = NULL;
    lx_throw(lx, QR_LE_MEMORY, "memory limit of %zu bytes reached", lx->s->limits.max_memory);
}

static bool head_is(qr_val form, const char *name)
{
    if (form.t != QR_T_LIST || form.c->len == 0)
        return false;
    qr_val h = qr_vec_at(form, 0);
    return h.t == QR_T_SYM && !h.sym->ns_len && strcmp(h.sym->text, name) == 0;
}

/* Collects the names a program defines anywhere ((def x ...), (defn x ...)). */
static void collect_defs(qr_arena *a, qr_val form, qr_mapb *names, int depth)
{
    if (depth > 400)
        return;
    if (form.t == QR_T_LIST || form.t == QR_T_VEC) {
        if ((head_is(form, "def") || head_is(form, "defn") || head_is(form, "defn-") ||
             head_is(form, "defonce") || head_is(form, "declare")) &&
            form.c->len >= 2) {
            for (size_t i = 1; i < (head_is(form, "declare") ? form.c->len : 2); i++) {
                qr_val nm = qr_vec_at(form, i);
                if (nm.t == QR_T_SYM)
                    qr_mapb_put(names, nm, nm);
            }
        }
        for (size_t i = 0; i < form.c->len; i++)
            collect_defs(a, qr_vec_at(form, i), names, depth + 1);
    } else if (form.t == QR_T_MAP) {
        for (size_t i = 0; i < qr_map_len(form); i++) {
            collect_defs(a, qr_map_key_at(form, i), names, depth + 1);
            collect_defs(a, qr_map_val_at(form, i), names, depth + 1);
        }
    }
}

static double ms_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

typedef struct toplevel {
    node *n;
    int nslots;
} toplevel;

/* Analyzes every top-level form (splitting top-level do) before any runs, so a program
 * with a mistake anywhere fails before it calls a single tool. */
static void analyze_forms(qr_lx *lx, const qr_val *forms, size_t n, int depth, toplevel **out,
                          size_t *count, size_t *cap)
{
    for (size_t i = 0; i < n; i++) {
        qr_val f = forms[i];
        if (head_is(f, "do") && depth < 50) {
            analyze_forms(lx, qr_vec_items(f) + 1, f.c->len - 1, depth + 1, out, count, cap);
            continue;
        }
        lx_analyze_error aerr;
        int nslots = 0;
        node *nd = lx_analyze(lx->s, f, &nslots, &aerr);
        if (!nd) {
            lx->res->kind = aerr.kind;
            snprintf(lx->res->message, sizeof lx->res->message, "%s", aerr.msg);
            lx->res->line = aerr.line;
            lx->res->col = aerr.col;
            longjmp(lx->jb, 3);
        }
        if ((size_t)nslots + 1 > lx->stack_cap)
            lx_throw(lx, QR_LE_DEPTH, "too many local bindings");
        if (*count == *cap) {
            size_t ncap = *cap ? *cap * 2 : 16;
            toplevel *nt = qr_arena_alloc(lx->a, ncap * sizeof *nt);
            if (*count)
                memcpy(nt, *out, *count * sizeof *nt);
            *out = nt;
            *cap = ncap;
        }
        (*out)[*count].n = nd;
        (*out)[*count].nslots = nslots;
        (*count)++;
    }
}

static qr_val run_forms(qr_lx *lx, const qr_val *forms, size_t n)
{
    toplevel *tops = NULL;
    size_t count = 0, cap = 0;
    analyze_forms(lx, forms, n, 0, &tops, &count, &cap);
    qr_val last = qr_nil();
    for (size_t i = 0; i < count; i++) {
        lx->fp = 0;
        lx->sp = (size_t)tops[i].nslots;
        lx->cur_closure = NULL;
        lx->cur = NULL;
        last = lx_eval(lx, tops[i].n);
    }
    return last;
}

int qr_lisp_run(qr_lisp_session *s, const char *src, size_t n, qr_lisp_result *res)
{
    memset(res, 0, sizeof *res);
    char stack_probe = 0;
    qr_lx lx_storage;
    qr_lx *volatile lxp = &lx_storage;
    qr_lx *lx = lxp;
    qr_req_saved saved_deadline = lx_begin(lx, s, &s->arena, res, &stack_probe);
    s->undo_len = 0;
    s->undo_cap = 0;
    s->undo = NULL;

    qr_arena_mark mark = qr_arena_get_mark(&s->arena);
    s->runs++;
    size_t cap_before = s->arena.cap;
    s->arena.cap = s->arena.used + qr_req_memory_cap(lx->req, s->limits.max_memory);
    s->arena.exhausted = false;
    s->arena.too_deep = false;
    s->arena.on_fail = NULL; /* the reader reports a refusal itself; then it unwinds */
    s->arena.ud = lx;
    qr_buf_init(&lx->scratch);

    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);

    lx_meter_init(lx);
    qr_meter *outer_meter = qr_meter_install(&lx->meter);

    volatile int rc = QR_OK;
    int jumped = setjmp(lx->jb);
    if (jumped == 0) {
        qr_val forms;
        qr_read_error rerr;
        int r = qr_read_all(&s->arena, src, n, QR_READ_LISP, &forms, &rerr);
        res->read_ms = ms_since(&t0);
        s->arena.on_fail = on_arena_fail;
        if (r != QR_OK) {
            res->kind = r == QR_ENOMEM ? QR_LE_MEMORY : QR_LE_PARSE;
            snprintf(res->message, sizeof res->message, "%s", rerr.msg);
            res->line = rerr.line;
            res->col = rerr.col;
            rc = r == QR_ENOMEM ? QR_ERUNTIME : QR_EINVAL;
        } else {
            qr_mapb names;
            qr_mapb_init(&names, &s->arena, 8);
            for (size_t i = 0; i < forms.c->len; i++)
                collect_defs(&s->arena, qr_vec_at(forms, i), &names, 0);
            s->pending_defs = qr_mapb_finish(&names, QR_T_SET);
            res->value = run_forms(lx, qr_vec_items(forms), forms.c->len);
        }
    } else if (jumped == 2) {
        res->value = lx->return_value;
    } else {
        rc = jumped == 3 ? QR_EINVAL : QR_ERUNTIME;
    }
    /* the host prints the value: it must print within the memory limit (a value that
     * shares its parts can print to far more than its size) */
    if (rc == QR_OK && !lx_unbounded(res->value)) {
        lx->cur = NULL;
        if (setjmp(lx->jb) == 0) {
            lx_check_size(lx, res->value, "the program's value");
            /* a host sees lists, never a range */
            res->value = lx_realize_deep(lx, res->value);
        } else
            rc = QR_ERUNTIME;
    }
    qr_meter_install(outer_meter);
    lx_end_limits(lx, saved_deadline);
    qr_buf_release(&lx->scratch);
    /* a value containing an unbounded sequence cannot be printed or kept */
    if (rc == QR_OK && lx_unbounded(res->value)) {
        res->kind = QR_LE_TYPE;
        snprintf(res->message, sizeof res->message,
                 "the program's value is an unbounded sequence; bound it with (take n ...)");
        rc = QR_ERUNTIME;
    }
    if (rc == QR_OK && res->kind != QR_LE_NONE)
        rc = QR_ERUNTIME;
    if (rc != QR_OK && res->kind == QR_LE_NONE)
        res->kind = QR_LE_TYPE;

    res->eval_ms = ms_since(&t0) - res->read_ms;
    res->steps = lx->steps;
    res->memory = s->arena.used - mark.used;
    res->output_truncated = lx->out_truncated;
    res->output = qr_buf_detach(&lx->out, &res->output_len);
    s->arena.on_fail = NULL;
    s->arena.ud = NULL;
    s->pending_defs = qr_nil();
    if (rc != QR_OK) {
        for (size_t i = s->undo_len; i > 0; i--) {
            undo_entry *u = &s->undo[i - 1];
            u->g->value = u->value;
            u->g->bound = u->bound;
        }
        res->value = qr_nil();
        if (res->kind != QR_LE_FAIL) {
            res->fail_value = qr_nil();
            qr_arena_rewind(&s->arena, mark);
        }
    }
    s->undo = NULL;
    s->undo_len = s->undo_cap = 0;
    s->arena.cap = cap_before;
    s->arena.exhausted = false;
    s->arena.too_deep = false;
    return rc;
}
