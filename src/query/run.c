/*
 * run.c: from a query to its result, the one path that `quarry query`, MCP's run_query
 * and `quarry ask` share: compile (validating against the tools' records), run the
 * program in the caller's sandboxed session, and name a failure by the step of the query
 * whose code failed ("runtime-error in :transform[1] (:rows): ..."), so a model can
 * repair the part that failed.
 *
 * Rejected: owning the session here (each caller keeps its own: the CLI one per command,
 * MCP one per call with its limits, ask one per question with its trace hooks).
 */
#include "query_int.h"

#include <string.h>

void qr_query_describe_failure(const qr_query_compiled *q, const qr_lisp_result *res,
                               qr_buf *out)
{
    const qr_query_step *st = q && res->line ? qr_query_step_at(q, res->line) : NULL;
    qr_buf_puts(out, qr_lisp_errkind_name(res->kind));
    if (st)
        qr_buf_printf(out, " in %s%s%s%s", st->path, st->binding[0] ? " (:" : "", st->binding,
                      st->binding[0] ? ")" : "");
    else if (res->line)
        qr_buf_printf(out, " at line %u", res->line);
    qr_buf_printf(out, ": %s", res->message);
}

int qr_query_run(qr_lisp_session *s, const qr_query_opts *o, const char *src, size_t n,
                 qr_val query, bool json, qr_query_compiled *c, qr_lisp_result *res, bool *ran,
                 qr_buf *err)
{
    *ran = false;
    int rc = src ? qr_query_compile(o, src, n, c) : qr_query_compile_value(o, query, json, c);
    if (rc != QR_OK)
        return rc;
    rc = qr_lisp_run(s, c->program, c->program_len, res);
    *ran = true;
    if (rc != QR_OK)
        qr_query_describe_failure(c, res, err);
    return rc;
}
