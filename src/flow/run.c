/*
 * run.c: `quarry flow run`: the interpreter of flows. It walks the syntax tree with one
 * flat context of variables (seed 001), evaluates expressions into quarry's values
 * (quarry/value.h: strings, numbers, lists, objects as maps), and hands prompts, model
 * calls and agents to run_model.c.
 *
 * Entry point: the flow `main`, else the only flow, else the agent `main`, else the only
 * agent (or the flow or agent named by opts.flow).
 *
 * Functions (`len(x)`...) are the records of builtins.c, which call the Lisp sandbox's
 * builtins. A run has one budget (qr_flow_budget, library defaults for every 0): model
 * calls and tokens, time, steps and memory, all counted in the run and shared by its
 * frames. Every statement and loop turn ticks (flow_tick): the stop, the clock every 64
 * ticks, the steps, and the frame's arena published to the run's memory count, with the
 * arena's cap set to the room left, so no statement allocates past the budget.
 *
 * `parallel do` runs its statements on worker threads (at most budget.workers at once).
 * Each worker has its own frame: its own arena, its own model clients, and a table of the
 * variables it sets over a read-only view of the parent's. After all finish, each
 * worker's variables are copied into the parent in statement order (so results land as if
 * the statements ran one after the other); if any failed, the block fails with every
 * error. Shared state (budgets, trace, the tool registry, MCP servers) is behind the
 * run's mutex; values are immutable and keywords are interned thread-safely.
 *
 * Rejected: a process per parallel statement (the context would have to be serialized
 * both ways); running agents' tools concurrently (quarry's sources are not thread-safe;
 * the model calls, which are the slow part, do run at the same time).
 */
#define _GNU_SOURCE /* memmem */
#include "run_int.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Largest flow call depth (run FLOW, agents using agents). */
#define FLOW_MAX_DEPTH 32
/* Deepest evaluation, counted across the flows an expression runs: the parser bounds one
 * expression at QR_FLOW_MAX_EXPR_HEIGHT; this bounds the C stack of a whole run. */
#define FLOW_MAX_EXPR_DEPTH 2000
/* C stack an evaluation may use below its thread's first frame (workers get
 * FLOW_WORKER_STACK): a second bound, for builds whose frames are large (sanitizers). */
#define FLOW_STACK_BYTES ((size_t)5 << 20)
#define FLOW_WORKER_STACK ((size_t)16 << 20)

double flow_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* ---- variables ---- */
static uint64_t var_hash(const char *s, size_t n)
{
    return qr_hash_text(s, n);
}

static flow_var *var_slot(const flow_vars *t, const char *s, size_t n)
{
    if (!t->cap)
        return NULL;
    size_t h = (size_t)var_hash(s, n) & (t->cap - 1);
    while (t->v[h].name) {
        if (t->v[h].n == n && !memcmp(t->v[h].name, s, n))
            return &t->v[h];
        h = (h + 1) & (t->cap - 1);
    }
    return NULL;
}

static void var_put(flow_frame *fr, const char *s, size_t n, qr_val v, bool written);

bool flow_var_get(flow_frame *fr, const char *s, size_t n, qr_val *out)
{
    flow_var *e = var_slot(&fr->vars, s, n);
    if (e) {
        *out = e->v;
        return true;
    }
    for (const flow_frame *f = fr->parent; f; f = f->parent) {
        e = var_slot(&f->vars, s, n);
        if (e) {
            /* a worker's own copy: collections can grow in place in their buffers, which
             * must not be shared between threads; not merged back unless written */
            *out = flow_copy(fr->a, e->v);
            var_put(fr, s, n, *out, false);
            return true;
        }
    }
    return false;
}

void flow_var_set(flow_frame *fr, const char *s, size_t n, qr_val v)
{
    var_put(fr, s, n, v, true);
}

static void var_put(flow_frame *fr, const char *s, size_t n, qr_val v, bool written)
{
    flow_vars *t = &fr->vars;
    flow_var *e = var_slot(t, s, n);
    if (e) {
        e->v = v;
        e->written |= written;
        return;
    }
    if ((t->n + 1) * 2 > t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 32;
        flow_var *nv = calloc(nc, sizeof *nv);
        if (!nv)
            return;
        for (size_t i = 0; i < t->cap; i++)
            if (t->v[i].name) {
                size_t h = (size_t)var_hash(t->v[i].name, t->v[i].n) & (nc - 1);
                while (nv[h].name)
                    h = (h + 1) & (nc - 1);
                nv[h] = t->v[i];
            }
        free(t->v);
        t->v = nv;
        t->cap = nc;
    }
    char *name = qr_arena_strndup(fr->a, s, n);
    if (!name)
        return;
    size_t h = (size_t)var_hash(s, n) & (t->cap - 1);
    while (t->v[h].name)
        h = (h + 1) & (t->cap - 1);
    t->v[h].name = name;
    t->v[h].n = n;
    t->v[h].v = v;
    t->v[h].written = written;
    t->n++;
}

int flow_fail(flow_frame *fr, uint32_t line, const char *fmt, ...)
{
    if (fr->err.len)
        return QR_ERUNTIME;
    if (line)
        qr_buf_printf(&fr->err, "line %u: ", line);
    va_list ap;
    va_start(ap, fmt);
    qr_buf_vprintf(&fr->err, fmt, ap);
    va_end(ap);
    return QR_ERUNTIME;
}

/* ---- values ---- */
void flow_stringify(qr_buf *out, qr_val v)
{
    switch (v.t) {
    case QR_T_NIL: break;
    case QR_T_STR: qr_buf_append(out, v.s->data, v.s->len); break;
    case QR_T_BOOL: qr_buf_puts(out, v.b ? "true" : "false"); break;
    case QR_T_INT: qr_buf_printf(out, "%lld", (long long)v.i); break;
    case QR_T_DOUBLE:
        if (v.d == floor(v.d) && fabs(v.d) < 1e15)
            qr_buf_printf(out, "%.1f", v.d);
        else
            qr_buf_printf(out, "%.17g", v.d);
        break;
    case QR_T_KW:
    case QR_T_SYM: {
        size_t n;
        const char *s = qr_sym_name(v.sym, &n);
        qr_buf_append(out, s, n);
        break;
    }
    default: qr_print_json(out, v, false); break;
    }
}

/* ---- printing a value of any size ----
 * A value may share its parts (`x = [x, x]` forty times is a few hundred bytes holding
 * 2^40 leaves), so printing it is not bounded by its size. flow_print is what print-like
 * places use (log, json(), str(), a prompt's $x, the run's result...): its output is
 * bounded by the room the run's memory budget has left (the frame arena's cap, less what
 * `out` already holds), measured before it is built when past FLOW_PRINT_DIRECT bytes (as
 * the Lisp's str does), and its work by the run's clock and stop through a value meter. */
#define FLOW_PRINT_DIRECT (64u << 10)

static void size_text(char *out, size_t cap, size_t n);

static bool print_meter_check(qr_meter *m)
{
    flow_frame *fr = m->ud;
    flow_run *r = fr->run;
    m->left = 1 << 16;
    return (r->b.stop && qr_stop_check(r->b.stop)) || flow_now_ms() - r->t0 >= r->b.max_ms;
}

int flow_print(flow_frame *fr, uint32_t line, qr_buf *out, qr_val v, bool json)
{
    bool composite = v.t == QR_T_VEC || v.t == QR_T_LIST || v.t == QR_T_MAP || v.t == QR_T_SET;
    if (!json && !composite) {
        flow_stringify(out, v);
        return QR_OK;
    }
    int rc = flow_mem_sync(fr, line);
    if (rc)
        return rc;
    size_t room = fr->a->cap > fr->a->used ? fr->a->cap - fr->a->used : 0;
    room = room > out->len ? room - out->len : 0;
    size_t start = out->len;
    size_t direct = room < FLOW_PRINT_DIRECT ? room : FLOW_PRINT_DIRECT;
    qr_meter m = {.left = 1 << 16, .check = print_meter_check, .ud = fr};
    qr_meter *old = qr_meter_install(&m);
    int st = qr_print_json_max(out, v, false, direct);
    if (st == QR_PRINT_CUT && direct < room) {
        out->len = start;
        if (out->p)
            out->p[start] = 0;
        st = qr_print_json_max(NULL, v, false, room);
        if (st == QR_PRINT_DONE)
            st = qr_print_json_max(out, v, false, room);
    }
    qr_meter_install(old);
    if (st == QR_PRINT_DONE && !out->failed)
        return QR_OK;
    out->len = start;
    if (out->p)
        out->p[start] = 0;
    flow_run *r = fr->run;
    if (st == QR_PRINT_STOPPED && r->b.stop && qr_stop_check(r->b.stop)) {
        qr_buf why;
        qr_buf_init(&why);
        qr_stop_describe(r->b.stop, &why);
        flow_fail(fr, line, "the run was stopped: %s", why.p ? why.p : "cancelled");
        qr_buf_release(&why);
        return QR_ESTOPPED;
    }
    if (st == QR_PRINT_STOPPED) {
        flow_fail(fr, line, "the time budget of %u ms is spent (printing a value)", r->b.max_ms);
        return QR_ELIMIT;
    }
    char lim[40];
    size_text(lim, sizeof lim, r->b.max_memory);
    flow_fail(fr, line,
              "memory limit of %s reached: a value printed here is longer than the room left "
              "(%zu bytes); print a part of it",
              lim, room);
    return QR_ELIMIT;
}

qr_val flow_field(qr_arena *a, qr_val obj, const char *s, size_t n)
{
    if (obj.t != QR_T_MAP)
        return qr_nil();
    qr_val out;
    if (qr_map_lookup(obj, qr_kw(a, s, n), &out))
        return out;
    if (qr_map_lookup(obj, qr_str_new(a, s, n), &out))
        return out;
    return qr_nil();
}

qr_val flow_copy(qr_arena *a, qr_val v)
{
    /* a value that shares its parts copies to far more than its size: once the arena (its
     * cap is the run's memory left) refuses, nothing more is walked (values nest at most
     * QR_MAX_DEPTH deep, so the recursion itself is bounded) */
    if (a->exhausted || a->too_deep)
        return qr_nil();
    switch (v.t) {
    case QR_T_STR: return qr_str_new(a, v.s->data, v.s->len);
    case QR_T_KW: {
        size_t n;
        const char *s = qr_sym_name(v.sym, &n);
        return qr_kw(a, s, n);
    }
    case QR_T_VEC:
    case QR_T_LIST: {
        qr_vecb b;
        qr_vecb_init(&b, a, qr_vec_len(v));
        for (size_t i = 0; i < qr_vec_len(v); i++)
            qr_vecb_push(&b, flow_copy(a, qr_vec_at(v, i)));
        return qr_vecb_finish(&b, (qr_type)v.t);
    }
    case QR_T_MAP: {
        qr_mapb b;
        qr_mapb_init(&b, a, qr_map_len(v));
        for (size_t i = 0; i < qr_map_len(v); i++)
            qr_mapb_put(&b, flow_copy(a, qr_map_key_at(v, i)), flow_copy(a, qr_map_val_at(v, i)));
        return qr_mapb_finish(&b, QR_T_MAP);
    }
    default: return v;
    }
}

static bool truthy(qr_val v)
{
    switch (v.t) {
    case QR_T_NIL: return false;
    case QR_T_BOOL: return v.b;
    case QR_T_INT: return v.i != 0;
    case QR_T_DOUBLE: return v.d != 0;
    case QR_T_STR: return v.s->len != 0;
    case QR_T_VEC:
    case QR_T_LIST: return qr_vec_len(v) != 0;
    case QR_T_MAP: return qr_map_len(v) != 0;
    default: return true;
    }
}

const char *flow_type_of(qr_val v)
{
    switch (v.t) {
    case QR_T_NIL: return "null";
    case QR_T_BOOL: return "a boolean";
    case QR_T_INT:
    case QR_T_DOUBLE: return "a number";
    case QR_T_STR: return "a string";
    case QR_T_VEC:
    case QR_T_LIST: return "a list";
    case QR_T_MAP: return "an object";
    default: return "a value";
    }
}

/* ---- trace and budgets ---- */
static void discard_line(void *ud, const char *line, size_t len)
{
    (void)ud;
    (void)line;
    (void)len;
}

void flow_secret(flow_run *r, const char *s)
{
    qr_trace_add_secret(r->trace, s);
    qr_trace_add_secret(r->secrets, s);
}

void flow_scrub(flow_run *r, qr_buf *b)
{
    qr_trace_scrub(r->secrets, b);
}

void flow_trace(flow_run *r, const qr_buf *obj)
{
    /* the shared writer adds source and t_ms, scrubs secrets and serialises the lines */
    if (r->trace && obj->p)
        qr_trace_emit_object(r->trace, "flow", obj->p, obj->len);
}

int flow_budget_check(flow_frame *fr, uint32_t line)
{
    flow_run *r = fr->run;
    int rc = QR_OK;
    pthread_mutex_lock(&r->lock);
    if (r->b.max_calls && r->calls >= r->b.max_calls) {
        flow_fail(fr, line, "the budget of %u model calls is spent", r->b.max_calls);
        rc = QR_ELIMIT;
    } else if (r->b.max_tokens && r->tokens_in + r->tokens_out >= r->b.max_tokens) {
        flow_fail(fr, line, "the budget of %llu tokens is spent",
                  (unsigned long long)r->b.max_tokens);
        rc = QR_ELIMIT;
    } else if (r->b.max_ms && flow_now_ms() - r->t0 >= r->b.max_ms) {
        flow_fail(fr, line, "the time budget of %u ms is spent", r->b.max_ms);
        rc = QR_ELIMIT;
    } else {
        r->calls++; /* reserved now, so parallel workers cannot overspend */
    }
    pthread_mutex_unlock(&r->lock);
    return rc;
}

void flow_budget_add(flow_run *r, const qr_llm_usage *u)
{
    pthread_mutex_lock(&r->lock);
    r->tokens_in += qr_llm_usage_prompt(u);
    r->tokens_out += u->output;
    pthread_mutex_unlock(&r->lock);
}

void qr_flow_budget_default(qr_flow_budget *b)
{
    memset(b, 0, sizeof *b);
    qr_flow_budget_fill(b);
}

void qr_flow_budget_fill(qr_flow_budget *b)
{
    if (!b->max_calls)
        b->max_calls = QR_FLOW_DEFAULT_CALLS;
    if (!b->max_tokens)
        b->max_tokens = QR_FLOW_DEFAULT_TOKENS;
    if (!b->max_ms)
        b->max_ms = QR_FLOW_DEFAULT_MS;
    if (!b->max_steps)
        b->max_steps = QR_FLOW_DEFAULT_STEPS;
    if (!b->max_memory)
        b->max_memory = QR_FLOW_DEFAULT_MEMORY;
    if (!b->max_turns)
        b->max_turns = QR_FLOW_DEFAULT_TURNS;
    if (!b->workers)
        b->workers = QR_FLOW_DEFAULT_WORKERS;
}

/* "256 MiB", "1.5 GiB" or "1000 bytes", for messages */
static void size_text(char *out, size_t cap, size_t n)
{
    if (n >= ((size_t)1 << 30) && n % ((size_t)1 << 30) == 0)
        snprintf(out, cap, "%zu GiB", n >> 30);
    else if (n >= ((size_t)1 << 20) && n % ((size_t)1 << 20) == 0)
        snprintf(out, cap, "%zu MiB", n >> 20);
    else if (n >= ((size_t)1 << 10) && n % ((size_t)1 << 10) == 0)
        snprintf(out, cap, "%zu KiB", n >> 10);
    else
        snprintf(out, cap, "%zu bytes", n);
}

static int memory_fail(flow_frame *fr, uint32_t line)
{
    char lim[40];
    size_text(lim, sizeof lim, fr->run->b.max_memory);
    flow_fail(fr, line, "memory limit of %s reached: the values this run builds need more "
                        "(a loop that never ends? the budget's max_memory raises it)",
              lim);
    return QR_ELIMIT;
}

static int steps_fail(flow_frame *fr, uint32_t line)
{
    flow_fail(fr, line,
              "step limit of %llu steps reached (statements, loop turns and the work of "
              "functions; the budget's max_steps raises it)",
              (unsigned long long)fr->run->b.max_steps);
    return QR_ELIMIT;
}

int flow_mem_sync(flow_frame *fr, uint32_t line)
{
    flow_run *r = fr->run;
    qr_arena *a = fr->a;
    size_t used = a->used;
    if (used > fr->mem_published)
        atomic_fetch_add(&r->mem_used, used - fr->mem_published);
    else if (used < fr->mem_published)
        atomic_fetch_sub(&r->mem_used, fr->mem_published - used);
    fr->mem_published = used;
    size_t total = atomic_load(&r->mem_used);
    if (a->exhausted || total >= r->b.max_memory)
        return memory_fail(fr, line);
    /* the room left, shared among the frames running at once, is this arena's cap until
     * the next check: a statement cannot allocate past the run's budget between checks */
    size_t room = r->b.max_memory - total;
    int active = atomic_load(&r->active);
    if (active > 1)
        room /= (size_t)active;
    a->cap = used + (room ? room : 1);
    return QR_OK;
}

int flow_tick(flow_frame *fr, uint32_t line, uint64_t n)
{
    flow_run *r = fr->run;
    /* the clock (and a stop's deadline) every 64 ticks of this frame: a statement is a few
     * hundred nanoseconds, reading the clock a tenth of that */
    bool clock = (fr->ticks++ & 63) == 0;
    if (clock && r->b.stop && qr_stop_check(r->b.stop)) {
        qr_buf why;
        qr_buf_init(&why);
        qr_stop_describe(r->b.stop, &why);
        flow_fail(fr, line, "the run was stopped: %s", why.p ? why.p : "cancelled");
        qr_buf_release(&why);
        return QR_ESTOPPED;
    }
    uint64_t steps = atomic_fetch_add(&r->steps, n) + n;
    if (steps > r->b.max_steps) {
        return steps_fail(fr, line);
    }
    if (clock && flow_now_ms() - r->t0 >= r->b.max_ms) {
        flow_fail(fr, line, "the time budget of %u ms is spent", r->b.max_ms);
        return QR_ELIMIT;
    }
    return flow_mem_sync(fr, line);
}

int flow_lisp_call(flow_frame *fr, uint32_t line, const char *fname, const char *lisp,
                   int argc, const qr_val *argv, qr_val *out)
{
    flow_run *r = fr->run;
    if (!fr->lisp) {
        fr->lisp = qr_lisp_session_new(NULL);
        if (!fr->lisp)
            return flow_fail(fr, line, "out of memory");
    }
    /* what is left of the run's budget is the call's limit */
    qr_lisp_limits *l = qr_lisp_session_limits(fr->lisp);
    double left_ms = (double)r->b.max_ms - (flow_now_ms() - r->t0);
    l->timeout_ms = left_ms > 1 ? (uint64_t)left_ms : 1;
    uint64_t steps = atomic_load(&r->steps);
    l->max_steps = steps < r->b.max_steps ? r->b.max_steps - steps : 1;
    l->max_memory = r->b.max_memory; /* the arena's cap holds the room left */
    l->stack_bytes = (size_t)1 << 20;  /* on top of the flow's FLOW_STACK_BYTES at most */
    qr_lisp_result res;
    int rc = qr_lisp_call(fr->lisp, fr->a, lisp, argc, argv, &res);
    atomic_fetch_add(&r->steps, res.steps);
    if (rc == QR_OK) {
        *out = res.value;
        qr_lisp_result_clear(&res);
        return QR_OK;
    }
    switch (res.kind) {
    case QR_LE_MEMORY:
        rc = memory_fail(fr, line);
        break;
    case QR_LE_TIMEOUT:
        flow_fail(fr, line, "the time budget of %u ms is spent", r->b.max_ms);
        rc = QR_ELIMIT;
        break;
    case QR_LE_STEPS:
        rc = steps_fail(fr, line);
        break;
    case QR_LE_DEPTH:
        flow_fail(fr, line, "%s(): %s", fname, res.message);
        rc = QR_ELIMIT;
        break;
    default: {
        /* the Lisp names its function ("'count' expects ..."): a flow's user wrote fname */
        const char *m = res.message;
        const char *q = m[0] == '\'' ? strstr(m + 1, "' ") : NULL;
        if (q)
            flow_fail(fr, line, "%s()%s", fname, q + 1);
        else
            flow_fail(fr, line, "%s(): %s", fname, m);
        rc = QR_ERUNTIME;
    }
    }
    qr_lisp_result_clear(&res);
    return rc;
}

/* ---- expressions ---- */
static int eval(flow_frame *fr, const qr_flow_expr *e, qr_val *out);

static int num_binary(flow_frame *fr, const qr_flow_expr *e, qr_val a, qr_val b, qr_val *out)
{
    if (!qr_is_number(a) || !qr_is_number(b))
        return flow_fail(fr, e->pos.line, "'%s' needs numbers, got %s and %s",
                         qr_flow_op_text(e->op), flow_type_of(a), flow_type_of(b));
    bool ints = a.t == QR_T_INT && b.t == QR_T_INT;
    double x = qr_to_double(a), y = qr_to_double(b);
    switch (e->op) {
    case QR_FOP_SUB:
        *out = ints ? qr_int(a.i - b.i) : qr_double(x - y);
        return QR_OK;
    case QR_FOP_MUL:
        *out = ints ? qr_int(a.i * b.i) : qr_double(x * y);
        return QR_OK;
    case QR_FOP_DIV:
        if (y == 0)
            return flow_fail(fr, e->pos.line, "division by zero");
        *out = ints && a.i % b.i == 0 ? qr_int(a.i / b.i) : qr_double(x / y);
        return QR_OK;
    case QR_FOP_MOD:
        if (y == 0)
            return flow_fail(fr, e->pos.line, "division by zero");
        *out = ints ? qr_int(a.i % b.i) : qr_double(fmod(x, y));
        return QR_OK;
    default: return flow_fail(fr, e->pos.line, "unknown operator");
    }
}

/* `~`: equal once case, surrounding punctuation, markdown emphasis and runs of blanks
 * are ignored. */
static int normalize(flow_frame *fr, uint32_t line, qr_buf *out, qr_val v)
{
    qr_buf raw;
    qr_buf_init(&raw);
    int rc = flow_print(fr, line, &raw, v, false);
    if (rc) {
        qr_buf_release(&raw);
        return rc;
    }
    const char *s = raw.p ? raw.p : "";
    size_t n = raw.len, i = 0;
    while (i < n && strchr(" \t\r\n.,;:!?\"'`*_()[]", s[i]))
        i++;
    while (n > i && strchr(" \t\r\n.,;:!?\"'`*_()[]", s[n - 1]))
        n--;
    bool blank = false;
    for (; i < n; i++) {
        char c = s[i];
        if (c == '*' || c == '_' || c == '`')
            continue;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            blank = true;
            continue;
        }
        if (blank && out->len)
            qr_buf_putc(out, ' ');
        blank = false;
        qr_buf_putc(out, c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c);
    }
    qr_buf_release(&raw);
    return QR_OK;
}

bool flow_values_equal(qr_val a, qr_val b)
{
    if (qr_is_number(a) && qr_is_number(b))
        return qr_num_equal(a, b);
    if ((a.t == QR_T_KW || a.t == QR_T_STR) && (b.t == QR_T_KW || b.t == QR_T_STR)) {
        qr_buf x, y;
        qr_buf_init(&x);
        qr_buf_init(&y);
        flow_stringify(&x, a);
        flow_stringify(&y, b);
        bool eq = x.len == y.len && (!x.len || !memcmp(x.p, y.p, x.len));
        qr_buf_release(&x);
        qr_buf_release(&y);
        return eq;
    }
    return qr_equal(a, b);
}

static int compare(flow_frame *fr, const qr_flow_expr *e, qr_val a, qr_val b, int *c)
{
    if (qr_is_number(a) && qr_is_number(b)) {
        double x = qr_to_double(a), y = qr_to_double(b);
        *c = x < y ? -1 : x > y;
        return QR_OK;
    }
    if (a.t == QR_T_STR && b.t == QR_T_STR) {
        size_t n = a.s->len < b.s->len ? a.s->len : b.s->len;
        int r = memcmp(a.s->data, b.s->data, n);
        *c = r ? (r < 0 ? -1 : 1) : (a.s->len < b.s->len ? -1 : a.s->len > b.s->len);
        return QR_OK;
    }
    return flow_fail(fr, e->pos.line, "cannot compare %s with %s", flow_type_of(a), flow_type_of(b));
}

static int binary_apply(flow_frame *fr, const qr_flow_expr *e, qr_val a, qr_val b,
                        qr_val *out);

static int binary(flow_frame *fr, const qr_flow_expr *e, qr_val *out)
{
    qr_val a, b;
    int rc = eval(fr, e->a, &a);
    if (rc)
        return rc;
    if (e->op == QR_FOP_AND || e->op == QR_FOP_OR) {
        bool ta = truthy(a);
        if ((e->op == QR_FOP_AND && !ta) || (e->op == QR_FOP_OR && ta)) {
            *out = qr_bool(ta);
            return QR_OK;
        }
        rc = eval(fr, e->b, &b);
        if (rc)
            return rc;
        *out = qr_bool(truthy(b));
        return QR_OK;
    }
    rc = eval(fr, e->b, &b);
    if (rc)
        return rc;
    return binary_apply(fr, e, a, b, out);
}

/* a op b once both are known (its own function: see eval_node) */
static __attribute__((noinline)) int binary_apply(flow_frame *fr, const qr_flow_expr *e,
                                                  qr_val a, qr_val b, qr_val *out)
{
    int rc, c = 0;
    switch (e->op) {
    case QR_FOP_EQ: *out = qr_bool(flow_values_equal(a, b)); return QR_OK;
    case QR_FOP_NE: *out = qr_bool(!flow_values_equal(a, b)); return QR_OK;
    case QR_FOP_LT:
    case QR_FOP_LE:
    case QR_FOP_GT:
    case QR_FOP_GE:
        if ((rc = compare(fr, e, a, b, &c)))
            return rc;
        *out = qr_bool(e->op == QR_FOP_LT ? c < 0 : e->op == QR_FOP_LE ? c <= 0
                       : e->op == QR_FOP_GT ? c > 0 : c >= 0);
        return QR_OK;
    case QR_FOP_CONTAINS:
        if (a.t == QR_T_STR) {
            qr_buf nb;
            qr_buf_init(&nb);
            if ((rc = flow_print(fr, e->pos.line, &nb, b, false))) {
                qr_buf_release(&nb);
                return rc;
            }
            bool found = !nb.len || (nb.len <= a.s->len &&
                                     memmem(a.s->data, a.s->len, nb.p, nb.len) != NULL);
            qr_buf_release(&nb);
            *out = qr_bool(found);
        } else if (a.t == QR_T_VEC || a.t == QR_T_LIST) {
            bool found = false;
            for (size_t i = 0; i < qr_vec_len(a) && !found; i++)
                found = flow_values_equal(qr_vec_at(a, i), b);
            *out = qr_bool(found);
        } else if (a.t == QR_T_MAP) {
            qr_buf kb;
            qr_buf_init(&kb);
            if ((rc = flow_print(fr, e->pos.line, &kb, b, false))) {
                qr_buf_release(&kb);
                return rc;
            }
            *out = qr_bool(!qr_is_nil(flow_field(fr->a, a, kb.p ? kb.p : "", kb.len)));
            qr_buf_release(&kb);
        } else {
            *out = qr_bool(false);
        }
        return QR_OK;
    case QR_FOP_NORM_EQ: {
        qr_buf x, y;
        qr_buf_init(&x);
        qr_buf_init(&y);
        if ((rc = normalize(fr, e->pos.line, &x, a)) ||
            (rc = normalize(fr, e->pos.line, &y, b))) {
            qr_buf_release(&x);
            qr_buf_release(&y);
            return rc;
        }
        *out = qr_bool(x.len == y.len && (!x.len || !memcmp(x.p, y.p, x.len)));
        qr_buf_release(&x);
        qr_buf_release(&y);
        return QR_OK;
    }
    case QR_FOP_ADD:
        if ((a.t == QR_T_VEC || a.t == QR_T_LIST || qr_is_nil(a)) &&
            (b.t == QR_T_VEC || b.t == QR_T_LIST || qr_is_nil(b))) {
            qr_vecb vb;
            qr_vecb_init(&vb, fr->a, 8);
            if (!qr_is_nil(a))
                for (size_t i = 0; i < qr_vec_len(a); i++)
                    qr_vecb_push(&vb, qr_vec_at(a, i));
            if (!qr_is_nil(b))
                for (size_t i = 0; i < qr_vec_len(b); i++)
                    qr_vecb_push(&vb, qr_vec_at(b, i));
            *out = qr_vecb_finish(&vb, QR_T_VEC);
            return QR_OK;
        }
        if (a.t == QR_T_VEC || a.t == QR_T_LIST) {
            *out = qr_vec_conj(fr->a, a.t == QR_T_LIST ? qr_vec_from(fr->a, QR_T_VEC,
                                                                    qr_vec_items(a),
                                                                    qr_vec_len(a))
                                                       : a,
                               b);
            return QR_OK;
        }
        if (a.t == QR_T_STR || b.t == QR_T_STR) {
            qr_buf s;
            qr_buf_init(&s);
            if ((rc = flow_print(fr, e->pos.line, &s, a, false)) ||
                (rc = flow_print(fr, e->pos.line, &s, b, false))) {
                qr_buf_release(&s);
                return rc;
            }
            *out = qr_str_new(fr->a, s.p ? s.p : "", s.len);
            qr_buf_release(&s);
            return QR_OK;
        }
        if (qr_is_number(a) && qr_is_number(b)) {
            *out = a.t == QR_T_INT && b.t == QR_T_INT ? qr_int(a.i + b.i)
                                                     : qr_double(qr_to_double(a) + qr_to_double(b));
            return QR_OK;
        }
        return flow_fail(fr, e->pos.line, "cannot add %s and %s", flow_type_of(a), flow_type_of(b));
    default: return num_binary(fr, e, a, b, out);
    }
}

static int builtin(flow_frame *fr, const qr_flow_expr *e, qr_val *out);

static int eval_node(flow_frame *fr, const qr_flow_expr *e, qr_val *out);

/* Every evaluation goes through here: evaluations nested deeper than FLOW_MAX_EXPR_DEPTH
 * (through `run FLOW` inside expressions, or a tree built by hand rather than by the
 * parser) are an error, never a C stack overflow. */
static int eval(flow_frame *fr, const qr_flow_expr *e, qr_val *out)
{
    char probe;
    if (fr->expr_depth >= FLOW_MAX_EXPR_DEPTH ||
        (fr->stack_base && (size_t)(fr->stack_base - &probe) > FLOW_STACK_BYTES))
        return flow_fail(fr, e->pos.line,
                         "expression nested deeper than %d levels: split it into statements",
                         fr->expr_depth >= FLOW_MAX_EXPR_DEPTH ? FLOW_MAX_EXPR_DEPTH
                                                               : fr->expr_depth);
    fr->expr_depth++;
    int rc = eval_node(fr, e, out);
    fr->expr_depth--;
    return rc;
}

/* The cases with locals of their own are functions of their own (noinline): the frames
 * of the recursive path eval -> eval_node -> binary stay small, which is what bounds
 * how deep an expression can go on a thread's stack (more so with sanitizers). */
static __attribute__((noinline)) int eval_name(flow_frame *fr, const qr_flow_expr *e, qr_val *out)
{
    qr_arena *a = fr->a;
    int rc;
    if (flow_var_get(fr, e->name.s, e->name.n, out))
        return QR_OK;
    const qr_flow_decl *p = qr_flow_find(fr->run->f, QR_FD_PROMPT, e->name.s, e->name.n);
    if (p) {
        qr_buf b;
        qr_buf_init(&b);
        rc = flow_render_prompt(fr, p, e->pos.line, &b);
        if (rc == QR_OK)
            *out = qr_str_new(a, b.p ? b.p : "", b.len);
        qr_buf_release(&b);
        return rc;
    }
    return flow_fail(fr, e->pos.line, "variable '%.*s' is not set yet", (int)e->name.n,
                     e->name.s);
}

static __attribute__((noinline)) int eval_field(flow_frame *fr, const qr_flow_expr *e, qr_val *out)
{
    qr_arena *a = fr->a;
    if (!fr->has_item)
        return flow_fail(fr, e->pos.line, "'.%.*s' outside 'filter ... where'",
                         (int)e->name.n, e->name.s);
    qr_val v = fr->item;
    const char *s = e->name.s, *end = e->name.s + e->name.n;
    while (s < end) {
        const char *dot = memchr(s, '.', (size_t)(end - s));
        size_t k = dot ? (size_t)(dot - s) : (size_t)(end - s);
        v = flow_field(a, v, s, k);
        s += k + (dot ? 1 : 0);
    }
    *out = v;
    return QR_OK;
}

static __attribute__((noinline)) int eval_number(const qr_flow_expr *e, qr_val *out)
{
    char buf[64];
    size_t n = e->rawn < sizeof buf - 1 ? e->rawn : sizeof buf - 1;
    memcpy(buf, e->raw, n);
    buf[n] = 0;
    if (memchr(buf, '.', n)) {
        *out = qr_double(strtod(buf, NULL));
    } else {
        errno = 0;
        long long v = strtoll(buf, NULL, 10);
        *out = errno ? qr_double(strtod(buf, NULL)) : qr_int(v);
    }
    return QR_OK;
}

static __attribute__((noinline)) int eval_list(flow_frame *fr, const qr_flow_expr *e, qr_val *out)
{
    qr_arena *a = fr->a;
    int rc;
    qr_vecb b;
    qr_vecb_init(&b, a, e->nitems);
    for (size_t i = 0; i < e->nitems; i++) {
        qr_val x;
        if ((rc = eval(fr, e->items[i], &x)))
            return rc;
        qr_vecb_push(&b, x);
    }
    *out = qr_vecb_finish(&b, QR_T_VEC);
    return QR_OK;
}

static __attribute__((noinline)) int eval_object(flow_frame *fr, const qr_flow_expr *e, qr_val *out)
{
    qr_arena *a = fr->a;
    int rc;
    qr_mapb b;
    qr_mapb_init(&b, a, e->nitems);
    for (size_t i = 0; i < e->nitems; i++) {
        qr_val x;
        if ((rc = eval(fr, e->items[i], &x)))
            return rc;
        const char *k = e->keys[i].s;
        size_t kn = e->keys[i].n;
        if (kn >= 2 && (k[0] == '"' || k[0] == '\'')) {
            k++;
            kn -= 2;
        }
        qr_mapb_put(&b, qr_kw(a, k, kn), x);
    }
    *out = qr_mapb_finish(&b, QR_T_MAP);
    return QR_OK;
}

static __attribute__((noinline)) int eval_get(flow_frame *fr, const qr_flow_expr *e, qr_val *out)
{
    qr_arena *a = fr->a;
    int rc;
    qr_val obj;
    if ((rc = eval(fr, e->a, &obj)))
        return rc;
    *out = flow_field(a, obj, e->name.s, e->name.n);
    return QR_OK;
}

static __attribute__((noinline)) int eval_unary(flow_frame *fr, const qr_flow_expr *e, qr_val *out)
{
    int rc;
    qr_val x;
    if ((rc = eval(fr, e->a, &x)))
        return rc;
    if (e->op == 'n') {
        *out = qr_bool(!truthy(x));
        return QR_OK;
    }
    if (x.t == QR_T_INT)
        *out = qr_int(-x.i);
    else if (x.t == QR_T_DOUBLE)
        *out = qr_double(-x.d);
    else
        return flow_fail(fr, e->pos.line, "'-' needs a number, got %s", flow_type_of(x));
    return QR_OK;
}

static __attribute__((noinline)) int eval_filter(flow_frame *fr, const qr_flow_expr *e, qr_val *out)
{
    qr_arena *a = fr->a;
    int rc;
    qr_val list;
    if ((rc = eval(fr, e->a, &list)))
        return rc;
    if (qr_is_nil(list)) {
        *out = qr_vec_empty(QR_T_VEC);
        return QR_OK;
    }
    if (list.t != QR_T_VEC && list.t != QR_T_LIST)
        return flow_fail(fr, e->pos.line, "filter needs a list, got %s", flow_type_of(list));
    bool had = fr->has_item;
    qr_val saved = fr->item;
    qr_vecb b;
    qr_vecb_init(&b, a, qr_vec_len(list));
    for (size_t i = 0; i < qr_vec_len(list); i++) {
        if ((i & 255) == 255 && (rc = flow_tick(fr, e->pos.line, 256))) {
            fr->has_item = had;
            fr->item = saved;
            return rc;
        }
        fr->has_item = true;
        fr->item = qr_vec_at(list, i);
        qr_val keep;
        if ((rc = eval(fr, e->b, &keep))) {
            fr->has_item = had;
            fr->item = saved;
            return rc;
        }
        if (truthy(keep))
            qr_vecb_push(&b, qr_vec_at(list, i));
    }
    fr->has_item = had;
    fr->item = saved;
    *out = qr_vecb_finish(&b, QR_T_VEC);
    return QR_OK;
}

static __attribute__((noinline)) int eval_run_agent(flow_frame *fr, const qr_flow_expr *e, qr_val *out)
{
    const qr_flow_decl *ag = qr_flow_find(fr->run->f, QR_FD_AGENT, e->name.s, e->name.n);
    if (!ag)
        return flow_fail(fr, e->pos.line, "undefined agent '%.*s'", (int)e->name.n,
                         e->name.s);
    return flow_run_agent(fr, ag, e->a, NULL, 0, e->pos.line, out);
}

static __attribute__((noinline)) int eval_run_flow(flow_frame *fr, const qr_flow_expr *e, qr_val *out)
{
    int rc;
    const qr_flow_decl *fl = qr_flow_find(fr->run->f, QR_FD_FLOW, e->name.s, e->name.n);
    if (!fl)
        return flow_fail(fr, e->pos.line, "undefined flow '%.*s'", (int)e->name.n,
                         e->name.s);
    if (fr->depth >= FLOW_MAX_DEPTH)
        return flow_fail(fr, e->pos.line, "flows nested more than %d deep", FLOW_MAX_DEPTH);
    qr_val saved_input;
    bool had_input = flow_var_get(fr, "input_prompt", 12, &saved_input);
    if (e->a) {
        qr_val in;
        if ((rc = eval(fr, e->a, &in)))
            return rc;
        flow_var_set(fr, "input_prompt", 12, in);
    }
    fr->depth++;
    rc = flow_run_flow(fr, fl, out);
    fr->depth--;
    if (e->a && had_input)
        flow_var_set(fr, "input_prompt", 12, saved_input);
    return rc;
}

static int eval_node(flow_frame *fr, const qr_flow_expr *e, qr_val *out)
{
    qr_arena *a = fr->a;
    switch (e->kind) {
    case QR_FX_NAME: return eval_name(fr, e, out);
    case QR_FX_FIELD: return eval_field(fr, e, out);
    case QR_FX_STRING: *out = qr_str_new(a, e->s, e->n); return QR_OK;
    case QR_FX_NUMBER: return eval_number(e, out);
    case QR_FX_BOOL: *out = qr_bool(e->op); return QR_OK;
    case QR_FX_NULL: *out = qr_nil(); return QR_OK;
    case QR_FX_LIST: return eval_list(fr, e, out);
    case QR_FX_OBJECT: return eval_object(fr, e, out);
    case QR_FX_GET: return eval_get(fr, e, out);
    case QR_FX_CALL: return builtin(fr, e, out);
    case QR_FX_UNARY: return eval_unary(fr, e, out);
    case QR_FX_BINARY: return binary(fr, e, out);
    case QR_FX_PAREN: return eval(fr, e->a, out);
    case QR_FX_FILTER: return eval_filter(fr, e, out);
    case QR_FX_RUN_AGENT: return eval_run_agent(fr, e, out);
    case QR_FX_CALL_LLM: return flow_call_llm(fr, e, out);
    case QR_FX_RUN_FLOW: return eval_run_flow(fr, e, out);
    }
    return flow_fail(fr, e->pos.line, "cannot evaluate this expression");
}

int flow_eval_expr(flow_frame *fr, const qr_flow_expr *e, qr_val *out)
{
    return eval(fr, e, out);
}

/* ---- builtin functions ---- */
bool flow_is_list(qr_val v)
{
    return v.t == QR_T_VEC || v.t == QR_T_LIST;
}

/* name(args): the record's function (builtins.c) on the evaluated arguments. */
static int builtin(flow_frame *fr, const qr_flow_expr *e, qr_val *out)
{
    qr_val args[3] = {qr_nil(), qr_nil(), qr_nil()};
    const qr_flow_builtin *bi = qr_flow_builtin_find(e->name.s, e->name.n);
    if (!bi)
        return flow_fail(fr, e->pos.line, "undefined function '%.*s'", (int)e->name.n,
                         e->name.s);
    if ((int)e->nitems < bi->min_args || (int)e->nitems > bi->max_args || e->nitems > 3)
        return flow_fail(fr, e->pos.line, "%s() takes %d to %d arguments, not %zu; usage: %s",
                         bi->name, bi->min_args, bi->max_args, e->nitems, bi->usage);
    for (size_t i = 0; i < e->nitems; i++) {
        int rc = eval(fr, e->items[i], &args[i]);
        if (rc)
            return rc;
    }
    int rc = flow_tick(fr, e->pos.line, 1);
    if (rc)
        return rc;
    struct qr_flow_call c = {.fr = fr, .line = e->pos.line, .b = bi};
    rc = qr_flow_builtin_call(bi, &c, (int)e->nitems, args, out);
    if (!rc && fr->a->exhausted)
        rc = flow_mem_sync(fr, e->pos.line);
    return rc;
}

/* ---- statements ---- */
static int exec_block(flow_frame *fr, qr_flow_stmt **v, size_t n);

/* x.a.b = v: a copy of the object at x with the path set (objects made as needed). */
static qr_val assoc_path(qr_arena *a, qr_val obj, const qr_flow_name *path, size_t n, qr_val v)
{
    if (!n)
        return v;
    if (obj.t != QR_T_MAP)
        obj = qr_map_empty();
    qr_val key = qr_kw(a, path[0].s, path[0].n);
    qr_val inner = flow_field(a, obj, path[0].s, path[0].n);
    /* a string key of the same name is replaced too */
    qr_val skey = qr_str_new(a, path[0].s, path[0].n);
    qr_val tmp;
    if (qr_map_lookup(obj, skey, &tmp) && !qr_map_lookup(obj, key, &tmp))
        key = skey;
    return qr_map_assoc(a, obj, key, assoc_path(a, inner, path + 1, n - 1, v));
}

static int parallel(flow_frame *fr, const qr_flow_stmt *s);

static int invoke_stmt(flow_frame *fr, const qr_flow_stmt *s)
{
    qr_val v;
    int rc = eval(fr, s->e, &v);
    if (rc)
        return rc;
    if (s->e->kind == QR_FX_RUN_AGENT) {
        const qr_flow_decl *ag = qr_flow_find(fr->run->f, QR_FD_AGENT, s->e->name.s,
                                              s->e->name.n);
        for (size_t i = 0; ag && i < ag->nprops; i++)
            if (flow_name_eq(ag->props[i].key, "produces", 8) && ag->props[i].nnames)
                flow_var_set(fr, ag->props[i].names[0].s, ag->props[i].names[0].n, v);
    }
    return QR_OK;
}

static int exec(flow_frame *fr, const qr_flow_stmt *s)
{
    int rc = flow_tick(fr, s->pos.line, 1);
    if (rc)
        return rc;
    qr_val v;
    switch (s->kind) {
    case QR_FS_ASSIGN:
        if ((rc = eval(fr, s->e, &v)))
            return rc;
        if (s->ntarget > 1) {
            qr_val base = qr_nil();
            flow_var_get(fr, s->target[0].s, s->target[0].n, &base);
            v = assoc_path(fr->a, base, s->target + 1, s->ntarget - 1, v);
        }
        flow_var_set(fr, s->target[0].s, s->target[0].n, v);
        return QR_OK;
    case QR_FS_EXPR: return invoke_stmt(fr, s);
    case QR_FS_PUSH: {
        if ((rc = eval(fr, s->e, &v)))
            return rc;
        qr_val list = qr_nil();
        flow_var_get(fr, s->target[0].s, s->target[0].n, &list);
        if (s->ntarget > 1) {
            qr_val inner = list;
            for (size_t i = 1; i < s->ntarget; i++)
                inner = flow_field(fr->a, inner, s->target[i].s, s->target[i].n);
            if (!qr_is_nil(inner) && !flow_is_list(inner))
                return flow_fail(fr, s->pos.line, "push needs a list, and '%.*s' holds %s",
                                 (int)s->target[s->ntarget - 1].n, s->target[s->ntarget - 1].s,
                                 flow_type_of(inner));
            qr_val nl = qr_vec_conj(fr->a, qr_is_nil(inner) ? qr_vec_empty(QR_T_VEC) : inner, v);
            list = assoc_path(fr->a, list, s->target + 1, s->ntarget - 1, nl);
        } else {
            if (!qr_is_nil(list) && !flow_is_list(list))
                return flow_fail(fr, s->pos.line, "push needs a list, and '%.*s' holds %s",
                                 (int)s->target[0].n, s->target[0].s, flow_type_of(list));
            if (list.t == QR_T_LIST)
                list = qr_vec_from(fr->a, QR_T_VEC, qr_vec_items(list), qr_vec_len(list));
            list = qr_vec_conj(fr->a, qr_is_nil(list) ? qr_vec_empty(QR_T_VEC) : list, v);
        }
        flow_var_set(fr, s->target[0].s, s->target[0].n, list);
        return QR_OK;
    }
    case QR_FS_FOR: {
        qr_val list;
        if ((rc = eval(fr, s->e, &list)))
            return rc;
        if (qr_is_nil(list))
            return QR_OK;
        if (list.t == QR_T_MAP) {
            qr_vecb vb;
            qr_vecb_init(&vb, fr->a, qr_map_len(list));
            for (size_t i = 0; i < qr_map_len(list); i++)
                qr_vecb_push(&vb, qr_map_key_at(list, i));
            list = qr_vecb_finish(&vb, QR_T_VEC);
        }
        if (!flow_is_list(list))
            return flow_fail(fr, s->pos.line, "for needs a list, got %s", flow_type_of(list));
        for (size_t i = 0; i < qr_vec_len(list); i++) {
            if (i && (rc = flow_tick(fr, s->pos.line, 1)))
                return rc;
            flow_var_set(fr, s->target[0].s, s->target[0].n, qr_vec_at(list, i));
            if ((rc = exec_block(fr, s->body, s->nbody)) || fr->returned)
                return rc;
        }
        return QR_OK;
    }
    case QR_FS_IF:
        if ((rc = eval(fr, s->e, &v)))
            return rc;
        return truthy(v) ? exec_block(fr, s->body, s->nbody)
                         : exec_block(fr, s->orelse, s->norelse);
    case QR_FS_PARALLEL: return parallel(fr, s);
    case QR_FS_RETURN:
        v = qr_nil();
        if (s->e && (rc = eval(fr, s->e, &v)))
            return rc;
        fr->returned = true;
        fr->ret_value = s->e != NULL;
        fr->ret = v;
        return QR_OK;
    case QR_FS_LOG: {
        if ((rc = eval(fr, s->e, &v)))
            return rc;
        qr_buf b;
        qr_buf_init(&b);
        if ((rc = flow_print(fr, s->pos.line, &b, v, false))) {
            qr_buf_release(&b);
            return rc;
        }
        flow_run *r = fr->run;
        flow_scrub(r, &b);
        pthread_mutex_lock(&r->lock);
        if (r->o->log)
            r->o->log(r->o->log_ud, b.p ? b.p : "");
        pthread_mutex_unlock(&r->lock);
        qr_buf t;
        qr_buf_init(&t);
        qr_buf_printf(&t, "{\"event\":\"log\",\"line\":%u,\"value\":", s->pos.line);
        qr_buf_json_string(&t, b.p ? b.p : "", b.len);
        qr_buf_putc(&t, '}');
        flow_trace(r, &t);
        qr_buf_release(&t);
        qr_buf_release(&b);
        return QR_OK;
    }
    }
    return QR_OK;
}

static int exec_block(flow_frame *fr, qr_flow_stmt **v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int rc = exec(fr, v[i]);
        if (rc || fr->returned)
            return rc;
        if (fr->a->exhausted)
            return flow_mem_sync(fr, v[i]->pos.line);
    }
    return QR_OK;
}

int flow_run_flow(flow_frame *fr, const qr_flow_decl *flow, qr_val *out)
{
    flow_run *r = fr->run;
    qr_buf t;
    qr_buf_init(&t);
    qr_buf_puts(&t, "{\"event\":\"flow\",\"name\":");
    qr_buf_json_string(&t, flow->name.s, flow->name.n);
    qr_buf_putc(&t, '}');
    flow_trace(r, &t);
    qr_buf_release(&t);
    bool saved = fr->returned;
    qr_val saved_ret = fr->ret;
    fr->returned = false;
    fr->ret_value = false;
    fr->ret = qr_nil();
    int rc = exec_block(fr, flow->stmts, flow->nstmts);
    *out = fr->ret;
    fr->flow_valued = fr->returned && fr->ret_value;
    fr->returned = saved;
    fr->ret = saved_ret;
    return rc;
}

/* ---- parallel do ---- */
typedef struct worker_job {
    flow_frame *parent;
    const qr_flow_stmt *const *stmts;
    size_t n;
    flow_frame *frames; /* one per statement */
    qr_arena *arenas;
    int *rcs;
    _Atomic size_t next;
} worker_job;

static void *worker(void *arg)
{
    worker_job *j = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&j->next, 1);
        if (i >= j->n)
            break;
        flow_frame *w = &j->frames[i];
        char base;
        if (!w->stack_base) /* NULL: a thread of its own */
            w->stack_base = &base;
        j->rcs[i] = exec(w, j->stmts[i]);
    }
    return NULL;
}

static int parallel(flow_frame *fr, const qr_flow_stmt *s)
{
    size_t n = s->nbody;
    if (!n)
        return QR_OK;
    flow_run *r = fr->run;
    worker_job j;
    memset(&j, 0, sizeof j);
    j.parent = fr;
    j.stmts = (const qr_flow_stmt *const *)s->body;
    j.n = n;
    j.frames = calloc(n, sizeof *j.frames);
    j.arenas = calloc(n, sizeof *j.arenas);
    j.rcs = calloc(n, sizeof *j.rcs);
    size_t nthreads = r->b.workers ? r->b.workers : 4;
    if (nthreads > n)
        nthreads = n;
    pthread_t *th = calloc(nthreads, sizeof *th);
    if (!j.frames || !j.arenas || !j.rcs || !th) {
        free(j.frames), free(j.arenas), free(j.rcs), free(th);
        return flow_fail(fr, s->pos.line, "out of memory");
    }
    if (!r->curl_ready && r->o->llm) {
        /* workers make their own model clients; the first client of the process loads
         * and initializes libcurl, which must not happen on two threads at once */
        qr_llm_free(qr_llm_new(r->o->llm));
        r->curl_ready = true;
    }
    for (size_t i = 0; i < n; i++) {
        qr_arena_init(&j.arenas[i], 1); /* its first statement's check sets the room */
        flow_frame *w = &j.frames[i];
        w->run = r;
        w->a = &j.arenas[i];
        w->parent = fr;
        w->depth = fr->depth + 1;
        qr_buf_init(&w->err);
    }
    atomic_store(&j.next, 0);
    /* this frame waits while its workers run: they share the memory room it had */
    atomic_fetch_add(&r->active, (int)nthreads - 1);
    size_t started = 0;
    pthread_attr_t attr;
    bool have_attr = pthread_attr_init(&attr) == 0;
    if (have_attr)
        pthread_attr_setstacksize(&attr, FLOW_WORKER_STACK);
    for (size_t t = 0; t < nthreads; t++) {
        if (pthread_create(&th[t], have_attr ? &attr : NULL, worker, &j) != 0)
            break;
        started++;
    }
    if (have_attr)
        pthread_attr_destroy(&attr);
    if (!started) {
        /* no threads to be had: run them here, one after the other, on this stack */
        for (size_t i = 0; i < n; i++)
            j.frames[i].stack_base = fr->stack_base;
        worker(&j);
    }
    for (size_t t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    atomic_fetch_sub(&r->active, (int)nthreads - 1);
    free(th);
    /* all errors, or every worker's variables in statement order */
    int rc = QR_OK;
    qr_buf errs;
    qr_buf_init(&errs);
    size_t nerr = 0;
    for (size_t i = 0; i < n; i++)
        if (j.rcs[i]) {
            if (nerr++)
                qr_buf_puts(&errs, "; ");
            qr_buf_append(&errs, j.frames[i].err.p ? j.frames[i].err.p : "failed",
                          j.frames[i].err.p ? j.frames[i].err.len : 6);
            if (j.rcs[i] == QR_ELIMIT || rc != QR_ELIMIT)
                rc = j.rcs[i];
        }
    if (nerr) {
        flow_fail(fr, s->pos.line, "parallel block failed (%zu of %zu statements): %s", nerr, n,
                  errs.p);
    } else if ((rc = flow_mem_sync(fr, s->pos.line)) == QR_OK) {
        /* the copies below fit in the room the workers' values leave (still counted) */
        for (size_t i = 0; i < n; i++) {
            flow_vars *t = &j.frames[i].vars;
            /* the order within one statement does not matter: the values are final */
            for (size_t k = 0; k < t->cap; k++)
                if (t->v[k].name && t->v[k].written)
                    flow_var_set(fr, t->v[k].name, t->v[k].n, flow_copy(fr->a, t->v[k].v));
        }
    }
    qr_buf_release(&errs);
    for (size_t i = 0; i < n; i++) {
        atomic_fetch_sub(&r->mem_used, j.frames[i].mem_published);
        flow_frame_release(&j.frames[i]);
        qr_arena_release(&j.arenas[i]);
    }
    free(j.frames);
    free(j.arenas);
    free(j.rcs);
    return rc;
}

/* ---- the entry point ---- */
static const qr_flow_decl *only(const qr_flow_file *f, qr_flow_decl_kind k, size_t *count)
{
    const qr_flow_decl *d = NULL;
    *count = 0;
    for (size_t i = 0; i < f->ndecls; i++)
        if (f->decls[i]->kind == k) {
            d = f->decls[i];
            (*count)++;
        }
    return *count == 1 ? d : NULL;
}

void qr_flow_result_clear(qr_flow_result *r)
{
    free(r->value);
    memset(r, 0, sizeof *r);
}

int qr_flow_run(const qr_flow_file *f, const qr_flow_run_opts *o, qr_flow_result *out)
{
    memset(out, 0, sizeof *out);
    flow_run r;
    memset(&r, 0, sizeof r);
    r.f = f;
    r.o = o;
    r.b = o->budget;
    qr_flow_budget_fill(&r.b);
    if (o->req) {
        r.req = o->req;
    } else {
        qr_req_init(&r.own_req, NULL);
        r.req = &r.own_req;
    }
    /* the run's time budget is the request's deadline while it runs: its tools and model
     * calls stop there too */
    qr_req_saved saved_deadline = qr_req_narrow(r.req, r.b.max_ms);
    /* the budget's stop checks see the request's cancel */
    if (!r.b.stop)
        r.b.stop = &r.req->stop;
    r.trace = o->trace ? qr_trace_new(o->trace, o->trace_ud) : NULL;
    r.secrets = qr_trace_new(discard_line, NULL);
    if (o->llm && o->llm->api_key)
        flow_secret(&r, o->llm->api_key);
    r.t0 = flow_now_ms();
    atomic_store(&r.active, 1);
    pthread_mutex_init(&r.lock, NULL);
    qr_arena a;
    qr_arena_init(&a, r.b.max_memory);
    flow_frame fr;
    memset(&fr, 0, sizeof fr);
    char stack_base;
    fr.stack_base = &stack_base;
    fr.run = &r;
    fr.a = &a;
    qr_buf_init(&fr.err);
    flow_var_set(&fr, "input_prompt", 12, qr_str_new(&a, o->input ? o->input : "",
                                                      o->input ? o->inputn : 0));
    /* the entry point */
    const qr_flow_decl *entry = NULL;
    size_t count = 0;
    int rc = QR_OK;
    if (o->flow) {
        entry = qr_flow_find(f, QR_FD_FLOW, o->flow, strlen(o->flow));
        if (!entry)
            entry = qr_flow_find(f, QR_FD_AGENT, o->flow, strlen(o->flow));
        if (!entry)
            rc = flow_fail(&fr, 0, "no flow or agent named '%s' in the file", o->flow);
    } else {
        entry = qr_flow_find(f, QR_FD_FLOW, "main", 4);
        if (!entry)
            entry = only(f, QR_FD_FLOW, &count);
        if (!entry && !count)
            entry = qr_flow_find(f, QR_FD_AGENT, "main", 4);
        size_t agents = 0;
        if (!entry && !count)
            entry = only(f, QR_FD_AGENT, &agents);
        if (!entry)
            rc = flow_fail(&fr, 0, count > 1 ? "several flows and none called 'main': name one "
                                               "with --flow"
                                             : agents > 1 ? "no flow, and several agents none "
                                                            "called 'main': name one with --flow"
                                                          : "the file has no flow and no agent "
                                                            "to run");
    }
    qr_val result = qr_nil();
    if (!rc) {
        if (entry->kind == QR_FD_FLOW)
            rc = flow_run_flow(&fr, entry, &result);
        else
            rc = flow_run_agent(&fr, entry, NULL, o->input ? o->input : "",
                                o->input ? o->inputn : 0, entry->pos.line, &result);
    }
    if (!rc && a.exhausted)
        rc = memory_fail(&fr, 0);
    qr_buf v;
    qr_buf_init(&v);
    if (!rc && result.t == QR_T_NIL && entry->kind == QR_FD_FLOW && fr.flow_valued)
        qr_buf_puts(&v, "null"); /* `return null` says so; a flow without return prints nothing */
    else if (!rc)
        rc = flow_print(&fr, entry->pos.line, &v, result, false);
    out->calls = r.calls;
    out->tokens_in = r.tokens_in;
    out->tokens_out = r.tokens_out;
    qr_buf t;
    qr_buf_init(&t);
    flow_scrub(&r, &fr.err);
    flow_scrub(&r, &v);
    if (rc) {
        qr_buf_release(&v);
        snprintf(out->error, sizeof out->error, "%s", fr.err.p ? fr.err.p : "the run failed");
        qr_utf8_clean(out->error, sizeof out->error);
        qr_buf_puts(&t, "{\"event\":\"error\",\"message\":");
        qr_buf_json_string(&t, out->error, strlen(out->error));
    } else {
        out->value = qr_buf_detach(&v, &out->len);
        if (!out->value)
            out->value = calloc(1, 1);
        qr_buf_puts(&t, "{\"event\":\"done\",\"value\":");
        qr_buf_json_string(&t, out->value ? out->value : "", out->len);
    }
    qr_buf_printf(&t, ",\"calls\":%u,\"tokens\":{\"input\":%llu,\"output\":%llu}}", r.calls,
                  (unsigned long long)r.tokens_in, (unsigned long long)r.tokens_out);
    flow_trace(&r, &t);
    qr_buf_release(&t);
    flow_frame_release(&fr);
    for (size_t i = 0; i < r.nmcp; i++)
        flow_mcp_stop(r.mcp[i]);
    free(r.mcp);
    free(r.mcp_decl);
    qr_arena_release(&a);
    pthread_mutex_destroy(&r.lock);
    qr_trace_free(r.trace);
    qr_trace_free(r.secrets);
    qr_req_restore(r.req, saved_deadline);
    if (rc == QR_ENOMEM || rc == QR_ELIMIT || rc == QR_ESTOPPED)
        return rc;
    return rc ? QR_ERUNTIME : QR_OK;
}
