/*
 * lib_except.c: exceptions the way Clojure programs write them: ex-info, ex-message,
 * ex-data, throw, and --try, the builtin that the try expansion (expand.c) calls.
 *
 * An exception is a map {:kind :exception :message "..." :data {...}} (:cause when
 * given); an error the interpreter raised arrives in a catch as {:kind :type-error
 * :message "..."}. --try catches by setting lx->jb around a call of the body thunk
 * (through lx_apply, so depth and steps are checked as for any call), and on an error
 * restores the run context the body left half-way. What it never catches: the limits
 * (timeout, memory-exceeded, step-limit, depth-limit, regex-limit, interrupted), (fail v)
 * and (return v): they end the run as before, and no finally runs for them.
 */
#include "lisp_int.h"

#include <stdio.h>
#include <string.h>

static bool catchable(qr_lisp_errkind k)
{
    switch (k) {
    case QR_LE_TYPE:
    case QR_LE_ARITY:
    case QR_LE_UNBOUND:
    case QR_LE_ARITH:
    case QR_LE_INDEX:
    case QR_LE_TOOL:
    case QR_LE_THROW: return true;
    default: return false;
    }
}

/* Does a catch of class cname (one of expand.c's catch_classes) take an error of kind k? */
static bool class_catches(const char *cname, qr_lisp_errkind k)
{
    const char *dot = strrchr(cname, '.');
    const char *c = dot ? dot + 1 : cname;
    if (!strcmp(c, "ExceptionInfo"))
        return k == QR_LE_THROW;
    if (!strcmp(c, "ArithmeticException"))
        return k == QR_LE_ARITH;
    if (!strcmp(c, "IndexOutOfBoundsException"))
        return k == QR_LE_INDEX;
    if (!strcmp(c, "IllegalArgumentException") || !strcmp(c, "ClassCastException") ||
        !strcmp(c, "NumberFormatException"))
        return k == QR_LE_TYPE || k == QR_LE_ARITY;
    return true; /* Exception, Throwable, RuntimeException, Error, Object, :default */
}

static qr_val exception(qr_lx *lx, const char *kind, qr_val msg, qr_val data, qr_val cause)
{
    qr_mapb mb;
    qr_mapb_init(&mb, lx->a, 4);
    qr_mapb_put(&mb, qr_kw_cstr(lx->a, "kind"), qr_kw_cstr(lx->a, kind));
    qr_mapb_put(&mb, qr_kw_cstr(lx->a, "message"), msg);
    if (!qr_is_nil(data))
        qr_mapb_put(&mb, qr_kw_cstr(lx->a, "data"), data);
    if (!qr_is_nil(cause))
        qr_mapb_put(&mb, qr_kw_cstr(lx->a, "cause"), cause);
    return qr_mapb_finish(&mb, QR_T_MAP);
}

static bool is_exception(qr_lx *lx, qr_val e)
{
    qr_val k, m;
    return e.t == QR_T_MAP && qr_map_get(e, qr_kw_cstr(lx->a, "kind"), &k) &&
           k.t == QR_T_KW && qr_map_get(e, qr_kw_cstr(lx->a, "message"), &m);
}

static qr_val bi_except_ex_info(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argv[0].t != QR_T_STR && !qr_is_nil(argv[0]))
        lx_type_error(lx, "ex-info", 1, "a message string", argv[0]);
    if (argv[1].t != QR_T_MAP && !qr_is_nil(argv[1]))
        lx_type_error(lx, "ex-info", 2, "a map of data", argv[1]);
    return exception(lx, "exception", argv[0], argv[1].t == QR_T_MAP ? argv[1] : qr_map_empty(),
                     argc > 2 ? argv[2] : qr_nil());
}

static qr_val field(qr_lx *lx, qr_val e, const char *name)
{
    qr_val v;
    if (is_exception(lx, e) && qr_map_get(e, qr_kw_cstr(lx->a, name), &v))
        return v;
    return qr_nil();
}

static qr_val bi_except_ex_message(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return field(lx, argv[0], "message");
}

static qr_val bi_except_ex_data(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return field(lx, argv[0], "data");
}

static qr_val bi_except_ex_cause(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    return field(lx, argv[0], "cause");
}

static qr_val bi_except_throw(qr_lx *lx, int argc, const qr_val *argv)
{
    (void)argc;
    qr_val e = argv[0];
    if (!is_exception(lx, e))
        lx_type_error(lx, "throw", 1, "an exception made with (ex-info msg data)", e);
    qr_val msg = field(lx, e, "message"), data = field(lx, e, "data");
    qr_buf *b = lx_scratch(lx);
    if (msg.t == QR_T_STR)
        qr_buf_append(b, msg.s->data, msg.s->len);
    if (data.t == QR_T_MAP && qr_map_len(data)) {
        qr_buf_puts(b, " ");
        lx_print(lx, b, data, QR_PRINT_READABLY, 300);
    }
    char text[400];
    snprintf(text, sizeof text, "%s", b->p ? b->p : "");
    lx->thrown = e;
    lx_throw(lx, QR_LE_THROW, "%s", text);
}

/* Calls the body thunk with lx->jb catching: 0 when it returned (*out its value), else
 * what longjmp carried. Its own function so that no local lives across the setjmp. */
static int call_catching(qr_lx *lx, qr_val body, qr_val *out)
{
    int j = setjmp(lx->jb);
    if (j == 0) {
        qr_val none[1] = {qr_nil()};
        *out = lx_apply(lx, body, 0, none);
    }
    return j;
}

static void call0(qr_lx *lx, qr_val f)
{
    qr_val none[1] = {qr_nil()};
    lx_apply(lx, f, 0, none);
}

/* (--try body-thunk finally-thunk-or-nil "Class" handler ...): the expansion of try */
static qr_val bi_except_try(qr_lx *lx, int argc, const qr_val *argv)
{
    if (argc % 2)
        lx_throw(lx, QR_LE_ARITY, "'--try' expects a body, a finally and class/handler pairs");
    jmp_buf saved;
    memcpy(saved, lx->jb, sizeof saved);
    const size_t sp = lx->sp, fp = lx->fp;
    const uint32_t depth = lx->depth;
    const closure *const cc = lx->cur_closure;
    const void *const cb = lx->cur_combo;
    const node *const cur = lx->cur;
    qr_val v = qr_nil();
    int j = call_catching(lx, argv[0], &v);
    memcpy(lx->jb, saved, sizeof saved);
    if (j != 0) {
        qr_lisp_result *res = lx->res;
        if (j != 1 || !catchable(res->kind))
            longjmp(lx->jb, j);
        lx->sp = sp;
        lx->fp = fp;
        lx->depth = depth;
        lx->cur_closure = cc;
        lx->cur_combo = cb;
        lx->cur = cur;
        qr_lisp_errkind kind = res->kind;
        int h = -1;
        for (int i = 2; i < argc && h < 0; i += 2)
            if (argv[i].t == QR_T_STR && class_catches(argv[i].s->data, kind))
                h = i + 1;
        if (h < 0 && qr_is_nil(argv[1]))
            longjmp(lx->jb, 1); /* no catch takes it: on outwards, untouched */
        /* a finally without a catch: run it, then raise the same error again */
        qr_lisp_result keep = *res;
        qr_val thrown = lx->thrown;
        res->kind = QR_LE_NONE;
        res->message[0] = 0;
        res->line = res->col = 0;
        if (h < 0) {
            call0(lx, argv[1]);
            res->kind = keep.kind;
            memcpy(res->message, keep.message, sizeof res->message);
            res->line = keep.line;
            res->col = keep.col;
            lx->thrown = thrown;
            longjmp(lx->jb, 1);
        }
        qr_val e = kind == QR_LE_THROW
                       ? thrown
                       : exception(lx, qr_lisp_errkind_name(kind),
                                   qr_str_cstr(lx->a, keep.message), qr_nil(), qr_nil());
        lx->thrown = qr_nil();
        v = lx_apply(lx, argv[h], 1, &e);
    }
    if (!qr_is_nil(argv[1]))
        call0(lx, argv[1]);
    return v;
}

/* clang-format off */
const qr_builtin qr_lib_except[] = {
    QR_BUILTIN("ex-info", bi_except_ex_info, 2, 3, "[msg data] or [msg data cause]", "an exception carrying msg and the map data, for throw"),
    QR_BUILTIN("ex-message", bi_except_ex_message, 1, 1, "[e]", "the message of an exception (nil for anything else)"),
    QR_BUILTIN("ex-data", bi_except_ex_data, 1, 1, "[e]", "the data map of an ex-info exception (nil for anything else)"),
    QR_BUILTIN("ex-cause", bi_except_ex_cause, 1, 1, "[e]", "the cause given to ex-info, or nil"),
    QR_BUILTIN("throw", bi_except_throw, 1, 1, "[e]", "raises the exception e (made with ex-info); try/catch can catch it"),
    QR_BUILTIN("--try", bi_except_try, 2, -1, "[body finally class handler ...]", "internal"),
    {.hdr = {.name = NULL}},
};
/* clang-format on */
