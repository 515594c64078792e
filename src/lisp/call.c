/*
 * call.c: qr_lisp_call, one builtin called by name on values a host already holds, under
 * the session's limits. It is how a language above the Lisp (the workflow runtime) gets
 * the sandbox's builtins, their semantics, their error messages and their limits without
 * printing its values into a program and reading the result back.
 *
 * The call is a run of one form: the same run context (qr_lx) as qr_lisp_run, the same
 * unwinding on errors, the same step, time, depth and interrupt checks, and the memory
 * limit counted from the arena's use when the call starts. It allocates in the caller's
 * arena (values then need no copy), whose own cap still holds, so a host can share one
 * budget among many calls. A failed call gives back what it allocated.
 *
 * Rejected: compiling the host's expression to Lisp source and running it with
 * qr_lisp_run (each value would be printed and read again, and the host's own operators
 * would need Lisp spellings with the same semantics).
 */
#include "lisp_int.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static void call_on_fail(void *ud, int code)
{
    qr_lx *lx = ud;
    lx->a->on_fail = NULL; /* formatting the error must not re-enter */
    lx->cur = NULL;
    if (code == QR_ELIMIT)
        lx_throw(lx, QR_LE_DEPTH, "value nested deeper than %d levels", QR_MAX_DEPTH);
    lx_throw(lx, QR_LE_MEMORY, "memory limit of %zu bytes reached", lx->s->limits.max_memory);
}

/* The part that unwinds: on its own so the caller's locals are never live across the
 * longjmp. */
static int call_body(qr_lx *lx, const qr_builtin *b, int argc, const qr_val *argv)
{
    if (setjmp(lx->jb) != 0)
        return QR_ERUNTIME;
    qr_val f = {.t = QR_T_FN};
    f.fn = &b->hdr;
    qr_val v = lx_apply(lx, f, argc, argv);
    if (lx_unbounded(v))
        lx_throw(lx, QR_LE_TYPE, "'%s' gave an unbounded sequence", b->hdr.name);
    if (v.t == QR_T_LAZY) {
        /* a bounded range: its list of integers, which the arena's cap bounds */
        lx->res->value = lx_realize(lx, v);
        return QR_OK;
    }
    /* anything else may hold ranges, and may share its parts: realised once it is known
     * to print within the limit, as a program's value is */
    lx_check_size(lx, v, "the value");
    lx->res->value = lx_realize_deep(lx, v);
    return QR_OK;
}

int qr_lisp_call(qr_lisp_session *s, qr_arena *a, const char *name, int argc, const qr_val *argv,
                 qr_lisp_result *res)
{
    memset(res, 0, sizeof *res);
    if (!a)
        a = &s->arena;
    const qr_builtin *b = lx_builtin_find(name, strlen(name));
    if (!b) {
        res->kind = QR_LE_UNBOUND;
        snprintf(res->message, sizeof res->message, "unknown builtin '%s'", name);
        return QR_EINVAL;
    }
    if (argc < 0 || argc < b->min_args || (b->max_args >= 0 && argc > b->max_args)) {
        res->kind = QR_LE_ARITY;
        snprintf(res->message, sizeof res->message,
                 "wrong number of arguments (%d) to '%s'; usage: (%s %s)", argc, b->hdr.name,
                 b->hdr.name, b->args);
        return QR_EINVAL;
    }
    char stack_probe = 0;
    qr_lx lx_storage;
    qr_lx *lx = &lx_storage;
    qr_req_saved saved_deadline = lx_begin(lx, s, a, res, &stack_probe);
    qr_buf_init(&lx->scratch);

    qr_arena_mark mark = qr_arena_get_mark(a);
    size_t cap_before = a->cap;
    void (*fail_before)(void *, int) = a->on_fail;
    void *ud_before = a->ud;
    bool exhausted_before = a->exhausted, too_deep_before = a->too_deep;
    size_t lim;
    if (!qr_size_add(a->used, qr_req_memory_cap(lx->req, s->limits.max_memory), &lim))
        lim = SIZE_MAX;
    if (!a->cap || lim < a->cap)
        a->cap = lim;
    a->exhausted = false;
    a->too_deep = false;
    a->on_fail = call_on_fail;
    a->ud = lx;

    lx_meter_init(lx);
    qr_meter *outer_meter = qr_meter_install(&lx->meter);

    int rc = call_body(lx, b, argc, argv);
    qr_meter_install(outer_meter);
    lx_end_limits(lx, saved_deadline);
    qr_buf_release(&lx->scratch);
    res->steps = lx->steps;
    res->memory = a->used - mark.used;
    res->output_truncated = lx->out_truncated;
    res->output = qr_buf_detach(&lx->out, &res->output_len);
    a->on_fail = fail_before;
    a->ud = ud_before;
    a->cap = cap_before;
    if (rc != QR_OK) {
        if (res->kind == QR_LE_NONE)
            res->kind = QR_LE_TYPE;
        res->value = qr_nil();
        qr_arena_rewind(a, mark);
    }
    a->exhausted = exhausted_before;
    a->too_deep = too_deep_before;
    return rc;
}
