/*
 * eval.c: the evaluator. Walks analyzed nodes with frames on a value stack, calls
 * builtins and closures, enforces the step, time, depth and stack limits, and raises
 * typed errors.
 *
 * Tail positions of if/do/let/case loop inside one C call instead of recursing; recur
 * returns a marker value that its loop or fn turns into the next iteration, so loops
 * use no stack. Arguments are evaluated straight into the stack slots that become the
 * callee's frame. Rejected: compiling to bytecode (more code for a modest gain: the
 * records benchmark spends its time in builtins and closure calls, both direct here).
 */
#include "lisp_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>


void lx_throw(qr_lx *lx, qr_lisp_errkind kind, const char *fmt, ...)
{
    qr_lisp_result *res = lx->res;
    qr_buf b;
    qr_buf_init(&b);
    va_list ap;
    va_start(ap, fmt);
    qr_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    const node *at = lx->cur;
    if (at && !qr_is_nil(at->form) && kind != QR_LE_TIMEOUT && kind != QR_LE_STEPS &&
        kind != QR_LE_MEMORY && kind != QR_LE_INTERRUPT) {
        qr_buf_puts(&b, " in ");
        qr_print_short(&b, at->form, 70);
    }
    snprintf(res->message, sizeof res->message, "%s", b.p ? b.p : "error");
    qr_buf_release(&b);
    res->kind = kind;
    res->line = at ? at->line : 0;
    res->col = at ? at->col : 0;
    longjmp(lx->jb, 1);
}

void lx_type_error(qr_lx *lx, const char *fname, int argn, const char *expected, qr_val got)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_describe(&b, got);
    char found[200];
    snprintf(found, sizeof found, "%s", b.p ? b.p : "?");
    qr_buf_release(&b);
    if (argn > 0)
        lx_throw(lx, QR_LE_TYPE, "'%s' expects %s as argument %d, got %s", fname, expected, argn,
                 found);
    lx_throw(lx, QR_LE_TYPE, "'%s' expects %s, got %s", fname, expected, found);
}

/* The limit the run has reached, or QR_LE_NONE. */
static qr_lisp_errkind limit_reached(qr_lx *lx)
{
    if (lx->steps > lx->max_steps)
        return QR_LE_STEPS;
    if (qr_req_stopped(lx->req))
        switch (qr_req_why(lx->req)) {
        case QR_REQ_TIME: return QR_LE_TIMEOUT;
        case QR_REQ_STEPS: return QR_LE_STEPS;
        default: return QR_LE_INTERRUPT;
        }
    return QR_LE_NONE;
}

void lx_check_time(qr_lx *lx)
{
    switch (limit_reached(lx)) {
    case QR_LE_INTERRUPT:
        if (qr_req_why(lx->req) > QR_REQ_STEPS) {
            qr_buf b;
            qr_buf_init(&b);
            qr_req_describe(lx->req, &b);
            char msg[160];
            snprintf(msg, sizeof msg, "%s", b.p ? b.p : "stopped");
            qr_buf_release(&b);
            lx_throw(lx, QR_LE_INTERRUPT, "the run was stopped: %s", msg);
        }
        lx_throw(lx, QR_LE_INTERRUPT, "the run was interrupted by its host");
    case QR_LE_STEPS:
        if (qr_req_why(lx->req) == QR_REQ_STEPS || lx->steps <= lx->s->limits.max_steps)
            lx_throw(lx, QR_LE_STEPS, "step budget of the request (%llu steps) spent",
                     (unsigned long long)lx->req->budget.steps);
        lx_throw(lx, QR_LE_STEPS, "step limit of %llu evaluation steps reached",
                 (unsigned long long)lx->max_steps);
    case QR_LE_TIMEOUT:
        lx_throw(lx, QR_LE_TIMEOUT, "time limit of %llu ms reached",
                 (unsigned long long)lx->req->stop.limit_ms);
    default: return;
    }
}

/* Every QR_LX_METER_PERIOD units of printing, equality, hashing or ordering: 16 units count
 * as one step (as lx_tick_n does), then the limits are checked. Outside a printer the
 * error is raised right here (equality and hashing allocate nothing to leak); inside one,
 * the printer is told to stop and its caller raises the error (lx_print). */
static bool meter_check(qr_meter *m)
{
    qr_lx *lx = m->ud;
    int64_t used = QR_LX_METER_PERIOD - m->left;
    m->left = QR_LX_METER_PERIOD;
    lx->steps += (uint64_t)used / 16 + 1;
    if (limit_reached(lx) == QR_LE_NONE)
        return false;
    if (!m->soft)
        lx_check_time(lx);
    return true;
}

void lx_meter_init(qr_lx *lx)
{
    lx->meter.left = QR_LX_METER_PERIOD;
    lx->meter.check = meter_check;
    lx->meter.ud = lx;
    lx->meter.soft = 0;
}

void lx_tick_n(qr_lx *lx, size_t n)
{
    uint64_t before = lx->steps;
    lx->steps += n / 16 + 1;
    if ((before >> 10) != (lx->steps >> 10))
        lx_check_time(lx);
}

static inline void check_depth(qr_lx *lx)
{
    char probe;
    if (lx->depth < lx->max_depth &&
        (size_t)(lx->stack_base - &probe) <= lx->stack_bytes)
        return;
    if (lx->depth >= lx->s->limits.max_depth)
        lx_throw(lx, QR_LE_DEPTH, "call depth limit of %u reached (runaway recursion?)",
                 lx->s->limits.max_depth);
    if ((size_t)(lx->stack_base - &probe) > lx->s->limits.stack_bytes)
        lx_throw(lx, QR_LE_DEPTH, "call depth limit reached at depth %u (stack exhausted; "
                                  "runaway recursion?)",
                 lx->depth);
}

static _Noreturn __attribute__((noinline)) void arity_error(qr_lx *lx, const lambda *lam,
                                                             int argc)
{
    qr_buf b;
    qr_buf_init(&b);
    for (int i = 0; i < lam->narities; i++)
        qr_buf_printf(&b, "%s%d%s", i ? ", " : "", lam->arities[i].nparams,
                      lam->arities[i].variadic ? " or more" : "");
    char exp[120];
    snprintf(exp, sizeof exp, "%s", b.p ? b.p : "");
    qr_buf_release(&b);
    lx_throw(lx, QR_LE_ARITY, "wrong number of arguments (%d) to %s%s%s; expects %s", argc,
             lam->name ? "'" : "", lam->name ? lam->name : "anonymous fn", lam->name ? "'" : "",
             exp);
}

static const arity *pick_arity(const lambda *lam, int argc)
{
    for (int i = 0; i < lam->narities; i++) {
        const arity *a = &lam->arities[i];
        if (!a->variadic && a->nparams == argc)
            return a;
    }
    for (int i = 0; i < lam->narities; i++) {
        const arity *a = &lam->arities[i];
        if (a->variadic && argc >= a->nparams)
            return a;
    }
    return NULL;
}

static qr_val call_closure(qr_lx *lx, const closure *cl, int argc, const qr_val *argv)
{
    const lambda *lam = cl->lam;
    const arity *ar = &lam->arities[0];
    if (lam->narities != 1 || ar->variadic || ar->nparams != argc) {
        ar = pick_arity(lam, argc);
        if (!ar)
            arity_error(lx, lam, argc);
    }
    check_depth(lx);
    size_t base = lx->sp;
    if (base + (size_t)ar->nslots + 1 > lx->stack_cap)
        lx_throw(lx, QR_LE_DEPTH, "call depth limit reached (value stack full)");
    qr_val *frame = lx->stack + base;
    if (argv != frame)
        memmove(frame, argv, sizeof(qr_val) * (size_t)(argc < ar->nparams ? argc : ar->nparams));
    if (ar->variadic) {
        int extra = argc - ar->nparams;
        frame[ar->nparams] =
            extra > 0 ? qr_vec_from(lx->a, QR_T_VEC, argv + ar->nparams, (size_t)extra)
                      : qr_nil();
    }
    if (ar->self_slot >= 0) {
        qr_val self = {.t = QR_T_FN};
        self.fn = &cl->hdr;
        frame[ar->self_slot] = self;
    }
    size_t saved_fp = lx->fp, saved_sp = lx->sp;
    const closure *saved_cl = lx->cur_closure;
    lx->fp = base;
    lx->sp = base + (size_t)ar->nslots;
    lx->cur_closure = cl;
    lx->depth++;
    qr_val r;
    for (;;) {
        lx_tick(lx);
        r = lx_eval(lx, ar->body);
        if (r.t != QR_T_RECUR)
            break;
        if (ar->variadic) {
            /* recur passes the rest argument as one collection: normalize empty to nil */
            qr_val rest = frame[ar->nparams];
            if ((rest.t == QR_T_VEC || rest.t == QR_T_LIST) && rest.c->len == 0)
                frame[ar->nparams] = qr_nil();
        }
    }
    lx->depth--;
    lx->fp = saved_fp;
    lx->sp = saved_sp;
    lx->cur_closure = saved_cl;
    return r;
}

bool lx_is_callable(qr_val f)
{
    return f.t == QR_T_FN || f.t == QR_T_KW || f.t == QR_T_MAP || f.t == QR_T_SET ||
           f.t == QR_T_VEC || f.t == QR_T_VAR || f.t == QR_T_SYM;
}

qr_val lx_apply(qr_lx *lx, qr_val f, int argc, const qr_val *argv)
{
    switch (f.t) {
    case QR_T_FN: {
        if (f.fn->kind == FN_COMBO || f.fn->kind == FN_BUILTIN) {
            /* C calling C that may call back into Lisp (comp of comp of ..., juxt, partial):
             * the same step, depth and stack checks as a closure call, so a chain of
             * combinators built at run time cannot recurse past the limits */
            const qr_builtin *b = (const qr_builtin *)f.fn;
            if (f.fn->kind == FN_COMBO) {
                lx->cur_combo = f.fn;
                lx_tick(lx); /* a call of a function the program made, like a closure's */
            } else if (argc < b->min_args || (b->max_args >= 0 && argc > b->max_args))
                lx_throw(lx, QR_LE_ARITY, "wrong number of arguments (%d) to '%s'; usage: (%s %s)",
                         argc, b->hdr.name, b->hdr.name, b->args);
            check_depth(lx);
            if (!b->lazy_ok)
                argv = lx_realize_args(lx, argc, argv);
            lx->depth++;
            qr_val r = b->fn(lx, argc, argv);
            lx->depth--;
            return r;
        }
        const closure *cl = (const closure *)f.fn;
        /* put the arguments at the top of the stack so they become the frame */
        if (argv < lx->stack || argv >= lx->stack + lx->stack_cap) {
            size_t base = lx->sp;
            if (base + (size_t)argc + 1 > lx->stack_cap)
                lx_throw(lx, QR_LE_DEPTH, "call depth limit reached (value stack full)");
            memcpy(lx->stack + base, argv, sizeof(qr_val) * (size_t)argc);
            argv = lx->stack + base;
        } else if (argv != lx->stack + lx->sp) {
            size_t base = lx->sp;
            if (base + (size_t)argc + 1 > lx->stack_cap)
                lx_throw(lx, QR_LE_DEPTH, "call depth limit reached (value stack full)");
            memmove(lx->stack + base, argv, sizeof(qr_val) * (size_t)argc);
            argv = lx->stack + base;
        }
        return call_closure(lx, cl, argc, argv);
    }
    case QR_T_KW:
    case QR_T_SYM:
    case QR_T_MAP:
    case QR_T_SET: {
        if (argc < 1 || argc > 2)
            lx_throw(lx, QR_LE_ARITY, "a %s called as a function takes 1 or 2 arguments, got %d",
                     qr_type_name((qr_type)f.t), argc);
        qr_val out;
        bool found = (f.t == QR_T_KW || f.t == QR_T_SYM) ? lx_get(argv[0], f, &out)
                                                          : lx_get(f, argv[0], &out);
        return found ? out : argc == 2 ? argv[1] : qr_nil();
    }
    case QR_T_VEC: {
        if (argc != 1)
            lx_throw(lx, QR_LE_ARITY, "a vector called as a function takes 1 argument, got %d",
                     argc);
        if (argv[0].t != QR_T_INT)
            lx_type_error(lx, "vector", 1, "an integer index", argv[0]);
        if (argv[0].i < 0 || (uint64_t)argv[0].i >= f.c->len)
            lx_throw(lx, QR_LE_INDEX, "index %lld is out of bounds for a vector of %u items",
                     (long long)argv[0].i, f.c->len);
        return qr_vec_at(f, (size_t)argv[0].i);
    }
    case QR_T_VAR: {
        global *g = (global *)((char *)f.var - offsetof(global, var));
        if (!g->bound)
            lx_throw(lx, QR_LE_UNBOUND, "var '%s' is not bound", g->sym->text);
        check_depth(lx); /* (def f #'f) then (f) */
        lx->depth++;
        qr_val r = lx_apply(lx, g->value, argc, argv);
        lx->depth--;
        return r;
    }
    default: {
        qr_buf b;
        qr_buf_init(&b);
        qr_describe(&b, f);
        char what[200];
        snprintf(what, sizeof what, "%s", b.p ? b.p : "?");
        qr_buf_release(&b);
        lx_throw(lx, QR_LE_TYPE, "cannot call %s as a function", what);
    }
    }
}

static qr_val make_closure(qr_lx *lx, const lambda *lam)
{
    closure *cl = qr_arena_alloc(lx->a, sizeof(closure) + sizeof(qr_val) * (size_t)lam->ncaptures);
    cl->hdr.name = lam->name;
    cl->hdr.kind = FN_CLOSURE;
    cl->lam = lam;
    for (int i = 0; i < lam->ncaptures; i++) {
        const capture_src *c = &lam->captures[i];
        cl->caps[i] = c->from_capture ? lx->cur_closure->caps[c->index]
                                      : lx->stack[lx->fp + (size_t)c->index];
    }
    qr_val v = {.t = QR_T_FN};
    v.fn = &cl->hdr;
    return v;
}

static __attribute__((noinline)) qr_val eval_recur(qr_lx *lx, const node *n)
{
    qr_val tmp[64];
    for (int i = 0; i < n->recur.n; i++)
        tmp[i] = lx_eval(lx, n->recur.args[i]);
    for (int i = 0; i < n->recur.n; i++)
        lx->stack[lx->fp + (size_t)n->recur.slots[i]] = tmp[i];
    qr_val r = {.t = QR_T_RECUR};
    return r;
}

static __attribute__((noinline)) qr_val eval_tool(qr_lx *lx, const node *n)
{
    qr_val arg = n->tool.arg ? lx_eval(lx, n->tool.arg) : qr_nil();
    lx->cur = n;
    if (!qr_is_nil(arg) && arg.t != QR_T_MAP)
        lx_type_error(lx, n->tool.name, 1, "a map of parameters", arg);
    qr_lisp_session *s = lx->s;
    if (!s->tool_fn)
        lx_throw(lx, QR_LE_TOOL, "unknown tool '%s': no tools are registered in this session",
                 n->tool.name);
    qr_buf err;
    qr_buf_init(&err);
    qr_val out = qr_nil();
    /* time spent inside a tool counts against the program's limit, as the caller waits for
     * it all the same: the limits are checked as soon as the tool returns (the host bounds
     * the tool's own loops by the same deadline, see qr_stop) */
    /* the host walks the arguments (schema checks, JSON): bound that work by their
     * printed size, then let the host run unmetered (its code is not ours to jump out of) */
    lx_check_size(lx, arg, "the tool's argument map");
    arg = lx_realize_deep(lx, arg); /* the host sees lists, never a range */
    qr_meter *meter = qr_meter_install(NULL);
    /* nor may an arena refusal unwind through the host's frames (its statements, files,
     * buffers): while it runs, a refusal only sets the arena's sticky flag, checked after */
    void (*on_fail)(void *, int) = lx->a->on_fail;
    lx->a->on_fail = NULL;
    int rc = s->tool_fn(s->tool_ud, lx->req, n->tool.name, arg, lx->a, &out, &err);
    lx->a->on_fail = on_fail;
    qr_meter_install(meter);
    if (lx->a->exhausted || lx->a->too_deep) {
        qr_buf_release(&err);
        on_fail(lx->a->ud, lx->a->too_deep ? QR_ELIMIT : QR_ENOMEM);
    }
    if (rc != QR_OK) {
        char msg[500];
        snprintf(msg, sizeof msg, "%s", err.p ? err.p : "failed");
        qr_buf_release(&err);
        /* a tool stopped by the program's deadline or an interrupt: that is the error */
        if (rc == QR_ESTOPPED)
            lx_check_time(lx);
        /* the hook's message names the tool itself ("tool 'x': ...", "unknown tool 'x'") */
        if (strstr(msg, n->tool.name))
            lx_throw(lx, QR_LE_TOOL, "%s", msg);
        lx_throw(lx, QR_LE_TOOL, "tool '%s': %s", n->tool.name, msg);
    }
    qr_buf_release(&err);
    lx_tick(lx);
    lx_check_time(lx);
    return out;
}

static __attribute__((noinline)) qr_val eval_data(qr_lx *lx, const node *n)
{
    qr_val out;
    if (lx->s->data.t == QR_T_MAP && qr_map_lookup(lx->s->data, n->data.key, &out))
        return out;
    qr_buf b;
    qr_buf_init(&b);
    if (lx->s->data.t == QR_T_MAP && qr_map_len(lx->s->data)) {
        qr_buf_puts(&b, "; available: ");
        for (size_t i = 0; i < qr_map_len(lx->s->data) && i < 20; i++) {
            qr_val k = qr_map_key_at(lx->s->data, i);
            qr_buf_printf(&b, "%sdata/", i ? ", " : "");
            if (k.t == QR_T_KW)
                qr_buf_append(&b, k.sym->text, k.sym->len);
            else
                qr_print(&b, k, QR_PRINT_DISPLAY);
        }
    } else {
        qr_buf_puts(&b, "; no request context was given (--data FILE)");
    }
    char hint[300];
    snprintf(hint, sizeof hint, "%s", b.p ? b.p : "");
    qr_buf_release(&b);
    lx_throw(lx, QR_LE_UNBOUND, "no context value 'data/%s'%s", n->data.key.sym->text, hint);
}

static __attribute__((noinline)) qr_val eval_coll(qr_lx *lx, const node *n)
{
    int k = n->seq.n;
    if (n->kind == N_VEC) {
        qr_vecb vb;
        qr_vecb_init(&vb, lx->a, (size_t)k);
        for (int i = 0; i < k; i++)
            qr_vecb_push(&vb, lx_eval(lx, n->seq.items[i]));
        return qr_vecb_finish(&vb, QR_T_VEC);
    }
    qr_mapb mb;
    qr_mapb_init(&mb, lx->a, (size_t)k);
    if (n->kind == N_MAP) {
        for (int i = 0; i < k; i += 2) {
            qr_val key = lx_eval(lx, n->seq.items[i]);
            qr_val val = lx_eval(lx, n->seq.items[i + 1]);
            if (qr_mapb_slot(&mb, key)) {
                lx->cur = n;
                lx_throw(lx, QR_LE_TYPE, "duplicate key in map literal");
            }
            qr_mapb_put(&mb, key, val);
        }
        return qr_mapb_finish(&mb, QR_T_MAP);
    }
    for (int i = 0; i < k; i++) {
        qr_val x = lx_eval(lx, n->seq.items[i]);
        if (qr_mapb_slot(&mb, x)) {
            lx->cur = n;
            lx_throw(lx, QR_LE_TYPE, "duplicate item in set literal");
        }
        qr_mapb_put(&mb, x, x);
    }
    return qr_mapb_finish(&mb, QR_T_SET);
}

static __attribute__((noinline)) qr_val eval_def(qr_lx *lx, const node *n)
{
    qr_lisp_session *s = lx->s;
    global *g = n->def.g;
    if (s->undo_len == s->undo_cap) {
        size_t ncap = s->undo_cap ? s->undo_cap * 2 : 16;
        undo_entry *u = qr_arena_alloc(lx->a, ncap * sizeof *u);
        if (s->undo_len)
            memcpy(u, s->undo, s->undo_len * sizeof *u);
        s->undo = u;
        s->undo_cap = ncap;
    }
    s->undo[s->undo_len].g = g;
    s->undo[s->undo_len].value = g->value;
    s->undo[s->undo_len].bound = g->bound;
    s->undo_len++;
    if (n->def.init) {
        qr_val v = lx_eval(lx, n->def.init);
        if (v.t == QR_T_FN && v.fn->kind == FN_CLOSURE && !v.fn->name) {
            /* name anonymous functions after their var, for printing and errors */
            ((closure *)v.fn)->hdr.name = g->sym->text;
        }
        g->value = v;
        g->bound = true;
    }
    qr_val var = {.t = QR_T_VAR};
    var.var = &g->var;
    return var;
}

static __attribute__((noinline)) qr_val eval_letfn(qr_lx *lx, const node *n)
{
    qr_val *frame = lx->stack + lx->fp;
    for (int i = 0; i < n->let.n; i++)
        frame[n->let.slots[i]] = qr_nil();
    for (int i = 0; i < n->let.n; i++)
        frame[n->let.slots[i]] = lx_eval(lx, n->let.inits[i]);
    /* patch captures of the letfn names now that every closure exists */
    for (int i = 0; i < n->let.n; i++) {
        closure *cl = (closure *)frame[n->let.slots[i]].fn;
        const lambda *lam = cl->lam;
        for (int c = 0; c < lam->ncaptures; c++) {
            if (lam->captures[c].from_capture)
                continue;
            for (int j = 0; j < n->let.n; j++)
                if (lam->captures[c].index == n->let.slots[j])
                    cl->caps[c] = frame[n->let.slots[j]];
        }
    }
    return qr_nil();
}

/* (op a b) for the common arithmetic and comparisons: integers directly, anything else
 * (doubles, overflow, type errors) through the builtin itself. */
static qr_val eval_op2(qr_lx *lx, const node *n)
{
    qr_val args[2];
    args[0] = lx_eval(lx, n->call.args[0]);
    args[1] = lx_eval(lx, n->call.args[1]);
    if (args[0].t == QR_T_INT && args[1].t == QR_T_INT) {
        int64_t a = args[0].i, b = args[1].i, r;
        switch (n->call.op) {
        case OP_ADD:
            if (!__builtin_add_overflow(a, b, &r))
                return qr_int(r);
            break;
        case OP_SUB:
            if (!__builtin_sub_overflow(a, b, &r))
                return qr_int(r);
            break;
        case OP_LT: return qr_bool(a < b);
        case OP_GT: return qr_bool(a > b);
        case OP_LE: return qr_bool(a <= b);
        case OP_GE: return qr_bool(a >= b);
        case OP_EQ: return qr_bool(a == b);
        }
    } else if (n->call.op == OP_EQ) {
        return qr_bool(qr_equal(args[0], args[1]));
    }
    const node *saved = lx->cur;
    lx->cur = n;
    const qr_builtin *b = (const qr_builtin *)n->call.fn->k.fn;
    qr_val r = b->fn(lx, 2, args);
    lx->cur = saved;
    return r;
}

static __attribute__((noinline)) qr_val eval_call(qr_lx *lx, const node *n)
{
    qr_val f = lx_eval(lx, n->call.fn);
    size_t base = lx->sp;
    int argc = n->call.argc;
    if (base + (size_t)argc + 1 > lx->stack_cap)
        lx_throw(lx, QR_LE_DEPTH, "call depth limit reached (value stack full)");
    for (int i = 0; i < argc; i++) {
        qr_val v = lx_eval(lx, n->call.args[i]);
        lx->stack[base + (size_t)i] = v;
        lx->sp = base + (size_t)i + 1;
    }
    const node *saved = lx->cur;
    lx->cur = n;
    qr_val r;
    if (f.t == QR_T_FN && f.fn->kind == FN_CLOSURE)
        r = call_closure(lx, (const closure *)f.fn, argc, lx->stack + base);
    else if (n->call.fn->kind == N_CONST && f.t == QR_T_FN && f.fn->kind == FN_BUILTIN) {
        const qr_builtin *b = (const qr_builtin *)f.fn;
        const qr_val *args = lx->stack + base;
        if (!b->lazy_ok)
            args = lx_realize_args(lx, argc, args);
        r = b->fn(lx, argc, args); /* arity checked */
    }
    else
        r = lx_apply(lx, f, argc, lx->stack + base);
    lx->cur = saved;
    lx->sp = base;
    return r;
}

/* (fail v): kept out of lx_eval, whose hot loop it would only crowd */
static _Noreturn __attribute__((noinline)) void eval_fail(qr_lx *lx, const node *n)
{
    qr_val v = lx_eval(lx, n->arg);
    lx->cur = n;
    qr_buf *b = lx_scratch(lx);
    char msg[500];
    if (lx_print(lx, b, v, v.t == QR_T_STR ? QR_PRINT_DISPLAY : QR_PRINT_READABLY,
                 sizeof msg - 4) == QR_PRINT_CUT)
        qr_buf_puts(b, "...");
    snprintf(msg, sizeof msg, "%s", b->p ? b->p : "");
    lx->res->fail_value = v;
    lx->cur = NULL;
    lx_throw(lx, QR_LE_FAIL, "%s", msg);
}

qr_val lx_eval(qr_lx *lx, const node *n)
{
    for (;;) {
        switch ((node_kind)n->kind) {
        case N_CONST: return n->k;
        case N_LOCAL: return lx->stack[lx->fp + (size_t)n->slot];
        case N_CAPTURE: return lx->cur_closure->caps[n->slot];
        case N_GLOBAL:
            if (!n->g->bound) {
                lx->cur = n;
                lx_throw(lx, QR_LE_UNBOUND, "'%s' is used before it is defined", n->g->sym->text);
            }
            return n->g->value;
        case N_IF:
            n = qr_truthy(lx_eval(lx, n->if_.test)) ? n->if_.then : n->if_.els;
            continue;
        case N_DO:
            for (int i = 0; i < n->seq.n - 1; i++)
                lx_eval(lx, n->seq.items[i]);
            n = n->seq.items[n->seq.n - 1];
            continue;
        case N_LET:
            for (int i = 0; i < n->let.n; i++)
                lx->stack[lx->fp + (size_t)n->let.slots[i]] = lx_eval(lx, n->let.inits[i]);
            n = n->let.body;
            continue;
        case N_LOOP: {
            for (int i = 0; i < n->let.n; i++)
                lx->stack[lx->fp + (size_t)n->let.slots[i]] = lx_eval(lx, n->let.inits[i]);
            for (;;) {
                qr_val r = lx_eval(lx, n->let.body);
                if (r.t != QR_T_RECUR)
                    return r;
                lx_tick(lx);
            }
        }
        case N_RECUR: return eval_recur(lx, n);
        case N_FN: return make_closure(lx, n->fn);
        case N_CALL: return eval_call(lx, n);
        case N_OP2: return eval_op2(lx, n);
        case N_KWGET: {
            qr_val m = lx_eval(lx, n->kwget.args[0]), out;
            if (lx_get_kw(lx, m, n->kwget.kw, &out))
                return out;
            if (n->kwget.argc == 2)
                return lx_eval(lx, n->kwget.args[1]);
            return qr_nil();
        }
        case N_DEF: return eval_def(lx, n);
        case N_AND: {
            qr_val v = qr_bool(true);
            for (int i = 0; i < n->seq.n; i++) {
                v = lx_eval(lx, n->seq.items[i]);
                if (!qr_truthy(v))
                    return v;
            }
            return v;
        }
        case N_OR: {
            qr_val v = qr_nil();
            for (int i = 0; i < n->seq.n; i++) {
                v = lx_eval(lx, n->seq.items[i]);
                if (qr_truthy(v))
                    return v;
            }
            return v;
        }
        case N_CASE: {
            qr_val v = lx_eval(lx, n->case_.test), idx;
            if (qr_map_get(n->case_.table, v, &idx)) {
                n = n->case_.branches[idx.i];
                continue;
            }
            if (!n->case_.dflt) {
                lx->cur = n;
                qr_buf b;
                qr_buf_init(&b);
                qr_describe(&b, v);
                char what[200];
                snprintf(what, sizeof what, "%s", b.p ? b.p : "?");
                qr_buf_release(&b);
                lx_throw(lx, QR_LE_FAIL, "no case clause matches %s and there is no default",
                         what);
            }
            n = n->case_.dflt;
            continue;
        }
        case N_TOOL: return eval_tool(lx, n);
        case N_DATA: return eval_data(lx, n);
        case N_VEC:
        case N_MAP:
        case N_SET: return eval_coll(lx, n);
        case N_LETFN:
            eval_letfn(lx, n);
            n = n->let.body;
            continue;
        case N_RETURN:
            lx->return_value = lx_eval(lx, n->arg);
            longjmp(lx->jb, 2);
        case N_FAIL: eval_fail(lx, n);
        }
        return qr_nil();
    }
}
