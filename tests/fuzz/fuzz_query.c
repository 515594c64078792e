/*
 * fuzz_query.c: libFuzzer harness for the query DSL compiler: any text is either a valid
 * query, whose program the interpreter reads, analyzes and runs (with tools that return
 * nothing, so it stays in the sandbox) without a parse or analysis error, or an invalid
 * one with problems that each say where, what and what was expected. Never a crash.
 * Odd-length inputs are compiled against a context (data and resolved values), so the
 * context paths are fuzzed too.
 */
#include "quarry/lisp.h"
#include "quarry/query.h"
#include "quarry/host.h"
#include "quarry/tools.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char context_text[] =
    "{:authors [{:author \"ann\" :count 3 :files 2} {:author \"bob\" :count 5}]"
    " :commits [{:hash \"a1\" :files 7 :message \"fix it\"}] :resolved {:top_contributor "
    "\"ann\" :n 2}}";

static int no_data(void *ud, qr_req *req, const char *name, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    (void)req;
    (void)ud;
    (void)name;
    (void)args;
    (void)a;
    (void)err;
    *out = qr_vec_empty(QR_T_VEC);
    return QR_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static qr_tools *tools;
    if (!tools && !(tools = qr_tools_default()))
        abort();
    qr_lisp_limits lim;
    qr_lisp_limits_default(&lim);
    lim.timeout_ms = 100;
    lim.max_memory = 16u << 20;
    lim.max_steps = 200000;
    qr_lisp_session *s = qr_lisp_session_new(&lim);
    if (!s)
        return 0;
    qr_val ctx = qr_nil(), forms;
    qr_read_error e;
    if ((size & 1) && qr_read_all(qr_lisp_session_arena(s), context_text, strlen(context_text),
                                  QR_READ_EDN, &forms, &e) == QR_OK) {
        ctx = qr_vec_at(forms, 0);
        qr_lisp_set_data(s, ctx);
    }
    qr_query_opts o;
    qr_query_opts_init(&o, tools);
    o.context = ctx;
    qr_query_compiled q;
    int rc = qr_query_compile(&o, (const char *)data, size, &q);
    qr_buf b;
    qr_buf_init(&b);
    if (rc == QR_OK) {
        if (!q.program || q.nproblems || !q.normalized)
            abort();
        qr_lisp_set_tools(s, no_data, NULL);
        qr_lisp_result res;
        int r = qr_lisp_run(s, q.program, q.program_len, &res);
        if (r == QR_EINVAL) /* the compiler wrote a program the interpreter cannot read */
            abort();
        if (r == QR_OK)
            qr_print_json(&b, res.value, false);
        else if (res.line && !qr_query_step_at(&q, res.line))
            abort();
        qr_lisp_result_clear(&res);
    } else {
        if (q.program || q.nproblems == 0)
            abort();
        for (size_t i = 0; i < q.nproblems; i++)
            if (!q.problems[i].message[0] || !q.problems[i].expected[0] ||
                !q.problems[i].path_json[0])
                abort();
        qr_query_problems_text(&q, &b);
        qr_query_problems_json(&q, &b);
    }
    qr_buf_release(&b);
    qr_query_compiled_clear(&q);
    qr_lisp_session_free(s);
    return 0;
}
