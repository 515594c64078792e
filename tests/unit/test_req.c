/*
 * test_req.c: one request, one budget, one stop (quarry/req.h), checked once per engine:
 * the request itself, the registry (a stopped request starts no tool), the Lisp (a cancel,
 * a step budget, the program's deadline reaching its tools), the graph walks, SPARQL and
 * the code index's walks. Nothing here depends on the machine's speed: deadlines are
 * waited for, never raced.
 */
#include "check.h"

#include "quarry/code.h"
#include "quarry/graph.h"
#include "quarry/lisp.h"
#include "quarry/llm.h"
#include "quarry/req.h"
#include "quarry/sparql.h"
#include "quarry/tools.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *describe(const qr_req *r)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_req_describe(r, &b);
    return qr_buf_detach(&b, NULL);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void test_request(void)
{
    qr_req r;
    qr_req_init(&r, NULL);
    CHECK(!qr_req_stopped(&r));
    CHECK(qr_req_why(&r) == QR_REQ_RUNNING);
    CHECK(qr_req_spend_steps(&r, 1000000) == QR_OK);
    CHECK(qr_req_steps_left(&r) == UINT64_MAX);
    CHECK(qr_req_ms_left(&r) == UINT64_MAX);
    CHECK(qr_req_memory_cap(&r, 0) == 0);
    CHECK(qr_req_memory_cap(&r, 5) == 5);
    qr_req_cancel(&r);
    CHECK(qr_req_stopped(&r));
    CHECK(qr_stop_check(&r.stop)); /* stop-only code sees it too */
    CHECK(qr_req_why(&r) == QR_REQ_CANCELLED);
    char *d = describe(&r);
    CHECK_STR(d, "cancelled");
    free(d);
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_req_fail(&r, &err) == QR_ESTOPPED);
    CHECK_STR(err.p, "stopped: cancelled");
    qr_buf_release(&err);
    /* NULL never stops */
    CHECK(!qr_req_stopped(NULL));
    CHECK(qr_req_spend_steps(NULL, 5) == QR_OK);

    /* a step budget: spent, the request stops, and stop-only code says why */
    qr_budget b = {.steps = 100, .memory = 1000};
    qr_req_init(&r, &b);
    CHECK(qr_req_memory_cap(&r, 0) == 1000);
    CHECK(qr_req_memory_cap(&r, 5000) == 1000);
    CHECK(qr_req_memory_cap(&r, 10) == 10);
    CHECK(qr_req_spend_steps(&r, 60) == QR_OK);
    CHECK(qr_req_steps_left(&r) == 40);
    CHECK(qr_req_spend_steps(&r, 60) == QR_ESTOPPED);
    CHECK(qr_req_steps_left(&r) == 0);
    CHECK(qr_req_why(&r) == QR_REQ_STEPS);
    d = describe(&r);
    CHECK_STR(d, "step budget of 100 steps spent");
    free(d);
    qr_buf_init(&err);
    qr_stop_describe(&r.stop, &err);
    CHECK_STR(err.p, "step budget spent");
    qr_buf_release(&err);
    /* a later cancel does not change the first reason */
    qr_req_cancel(&r);
    CHECK(qr_req_why(&r) == QR_REQ_STEPS);

    /* model calls and tokens */
    qr_budget mb = {.model_calls = 2, .tokens = 1000};
    qr_req_init(&r, &mb);
    qr_buf_init(&err);
    CHECK(qr_req_may_call_model(&r, &err) == QR_OK);
    qr_req_spend_model(&r, 100);
    CHECK(qr_req_may_call_model(&r, &err) == QR_OK);
    qr_req_spend_model(&r, 100);
    CHECK(atomic_load(&r.model_calls) == 2);
    CHECK(qr_req_may_call_model(&r, &err) == QR_ESTOPPED);
    CHECK_STR(err.p, "stopped: model-call budget of 2 calls spent");
    qr_buf_release(&err);
    qr_req_init(&r, &mb);
    CHECK(qr_req_may_call_model(&r, &err) == QR_OK);
    qr_req_spend_model(&r, 1000);
    qr_buf_init(&err);
    CHECK(qr_req_may_call_model(&r, &err) == QR_ESTOPPED);
    CHECK_STR(err.p, "stopped: token budget of 1000 tokens spent");
    qr_buf_release(&err);

    /* a deadline: narrowed for a while, then lifted again */
    qr_budget tb = {.time_ms = 3600000};
    qr_req_init(&r, &tb);
    CHECK(qr_req_ms_left(&r) > 3000000 && qr_req_ms_left(&r) <= 3600000);
    qr_req_saved sv = qr_req_narrow(&r, 1);
    while (!qr_req_stopped(&r))
        sleep_ms(1);
    CHECK(qr_req_why(&r) == QR_REQ_TIME);
    d = describe(&r);
    CHECK_STR(d, "time limit of 1 ms reached");
    free(d);
    qr_req_restore(&r, sv);
    CHECK(!qr_req_stopped(&r));
    CHECK(qr_req_why(&r) == QR_REQ_RUNNING);
    /* narrowing never widens */
    sv = qr_req_narrow(&r, 7200000);
    CHECK(qr_req_ms_left(&r) <= 3600000);
    qr_req_restore(&r, sv);
}

/* ---- the registry ---- */

static int calls;
static qr_req *seen_req;

static int count_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    (void)ctx, (void)args, (void)a, (void)err;
    calls++;
    seen_req = req;
    *out = qr_int(1);
    return QR_OK;
}

/* runs until its request stops, as a long walk does */
static int spin_fn(void *ctx, qr_req *req, qr_val args, qr_arena *a, qr_val *out, qr_buf *err)
{
    (void)ctx, (void)args, (void)a, (void)out;
    while (!qr_req_stopped(req))
        sleep_ms(1);
    return qr_req_fail(req, err);
}

static const qr_tool count_tool = {.name = "count", .summary = "x", .handler = count_fn};
static const qr_tool spin_tool = {.name = "spin", .summary = "x", .handler = spin_fn};

static void test_registry(void)
{
    qr_tools *t = qr_tools_new();
    CHECK(qr_tools_add(t, &count_tool) == QR_OK);
    CHECK(qr_tools_add(t, &spin_tool) == QR_OK);
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_buf err;
    qr_buf_init(&err);
    qr_val out;
    /* without a request the handler still gets one */
    calls = 0;
    seen_req = NULL;
    CHECK(qr_tools_call(t, "count", NULL, qr_nil(), &a, &out, &err) == QR_OK);
    CHECK(calls == 1 && seen_req != NULL);
    /* the caller's reaches it */
    qr_req r;
    qr_req_init(&r, NULL);
    CHECK(qr_tools_call(t, "count", &r, qr_nil(), &a, &out, &err) == QR_OK);
    CHECK(seen_req == &r);
    /* a stopped request starts nothing and says why */
    qr_req_cancel(&r);
    calls = 0;
    CHECK(qr_tools_call(t, "count", &r, qr_nil(), &a, &out, &err) == QR_ESTOPPED);
    CHECK(calls == 0);
    CHECK_STR(err.p, "tool 'count': stopped: cancelled");
    qr_buf_release(&err);
    qr_arena_release(&a);
    qr_tools_free(t);
}

/* ---- the Lisp ---- */

static void test_lisp(void)
{
    qr_tools *t = qr_tools_new();
    qr_tools_add(t, &count_tool);
    qr_tools_add(t, &spin_tool);
    qr_lisp_limits lim;
    qr_lisp_limits_default(&lim);
    qr_lisp_session *s = qr_lisp_session_new(&lim);
    qr_lisp_set_tools(s, qr_tools_lisp_dispatch, t);
    qr_lisp_result res;

    /* the session's request reaches the tools */
    qr_req r;
    qr_req_init(&r, NULL);
    qr_lisp_set_req(s, &r);
    seen_req = NULL;
    CHECK(qr_lisp_run(s, "(tool/count {})", 15, &res) == QR_OK);
    CHECK(seen_req == &r);
    qr_lisp_result_clear(&res);
    /* the run spends its steps from the request */
    CHECK(atomic_load(&r.steps) > 0);

    /* a cancelled request stops the run */
    qr_req_cancel(&r);
    const char *loop = "(loop [i 0] (if (< i 100000000) (recur (inc i)) i))";
    CHECK(qr_lisp_run(s, loop, strlen(loop), &res) == QR_ERUNTIME);
    CHECK(res.kind == QR_LE_INTERRUPT);
    qr_lisp_result_clear(&res);

    /* a step budget smaller than the program's own limit ends it */
    qr_budget b = {.steps = 50000};
    qr_req_init(&r, &b);
    CHECK(qr_lisp_run(s, loop, strlen(loop), &res) == QR_ERUNTIME);
    CHECK(res.kind == QR_LE_STEPS);
    CHECK(strstr(res.message, "step budget of the request (50000 steps) spent") != NULL);
    qr_lisp_result_clear(&res);

    /* the program's deadline reaches the tool it calls, and is lifted afterwards */
    qr_req_init(&r, NULL);
    qr_lisp_session_limits(s)->timeout_ms = 50;
    CHECK(qr_lisp_run(s, "(tool/spin {})", 14, &res) == QR_ERUNTIME);
    CHECK(res.kind == QR_LE_TIMEOUT);
    CHECK(strstr(res.message, "time limit of 50 ms reached") != NULL);
    qr_lisp_result_clear(&res);
    CHECK(!qr_req_stopped(&r));

    /* with no request of its own, a run makes one: tools still get a request */
    qr_lisp_set_req(s, NULL);
    seen_req = NULL;
    CHECK(qr_lisp_run(s, "(tool/count {})", 15, &res) == QR_OK);
    CHECK(seen_req != NULL);
    qr_lisp_result_clear(&res);
    qr_lisp_session_free(s);
    qr_tools_free(t);
}

/* ---- graph walks ---- */

static void test_graph(void)
{
    /* a ring of 1,000 nodes */
    enum { N = 1000 };
    uint32_t off[N + 1], adj[2 * N];
    float w[2 * N];
    for (uint32_t i = 0; i < N; i++) {
        off[i] = 2 * i;
        adj[2 * i] = (i + 1) % N;
        adj[2 * i + 1] = (i + N - 1) % N;
        w[2 * i] = w[2 * i + 1] = 1.0f;
    }
    off[N] = 2 * N;
    qr_graph g = {N, off, adj, w};
    qr_graph_item seed = {0, 1.0};
    qr_graph_spread_params p;
    qr_graph_spread_params_init(&p);
    qr_graph_hits h = {0};
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_graph_spread(&g, &seed, 1, &p, &h, &err) == QR_OK);
    CHECK(h.n > 0);
    free(h.items);
    qr_req r;
    qr_req_init(&r, NULL);
    qr_req_cancel(&r);
    p.stop = &r.stop;
    h = (qr_graph_hits){0};
    CHECK(qr_graph_spread(&g, &seed, 1, &p, &h, &err) == QR_ESTOPPED);
    CHECK_STR(err.p, "'spread' stopped: cancelled");
    qr_buf_reset(&err);
    qr_graph_confluence_params cp;
    qr_graph_confluence_params_init(&cp);
    cp.min_seeds = 1;
    cp.stop = &r.stop;
    CHECK(qr_graph_confluence(&g, &seed, 1, &cp, &h, &err) == QR_ESTOPPED);
    qr_buf_release(&err);
}

/* ---- SPARQL ---- */

static void test_sparql(void)
{
    qr_sparql_store *st = qr_sparql_store_new();
    qr_sparql_error e;
    /* 20 triples: the product below has 20^8 rows, far past the first check */
    qr_buf nt;
    qr_buf_init(&nt);
    for (int i = 0; i < 20; i++)
        qr_buf_printf(&nt, "<http://e/n%d> <http://e/p> <http://e/n%d> .\n", i, i + 1);
    CHECK(qr_sparql_store_load_text(st, nt.p, nt.len, "ntriples", NULL, NULL, &e) == QR_OK);
    qr_buf_release(&nt);
    qr_sparql_query *q;
    const char *text = "SELECT * { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n ?o . "
                       "?p ?q ?r . ?s ?t ?u . ?v ?w ?x }";
    CHECK(qr_sparql_prepare(text, strlen(text), NULL, &q, &e) == QR_OK);
    qr_req r;
    qr_req_init(&r, NULL);
    qr_req_cancel(&r);
    qr_sparql_limits lim = {0};
    lim.stop = &r.stop;
    qr_sparql_result *res = NULL;
    CHECK(qr_sparql_exec(st, q, &lim, &res, &e) == QR_ESTOPPED);
    CHECK(e.kind == QR_SPARQL_LIMIT);
    CHECK_STR(e.msg, "the query was stopped: cancelled");
    qr_sparql_result_free(res);
    qr_sparql_query_free(q);
    qr_sparql_store_free(st);
}

/* ---- a model transfer ---- */

static void *cancel_later(void *ud)
{
    sleep_ms(100);
    qr_req_cancel(ud);
    return NULL;
}

static void test_model_transfer(void)
{
    /* a server that takes the connection and never answers: only the cancel ends the call
     * (the model's own timeout is an hour) */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sa;
    CHECK(bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
    CHECK(listen(fd, 4) == 0);
    CHECK(getsockname(fd, (struct sockaddr *)&sa, &sl) == 0);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%u/v1", (unsigned)ntohs(sa.sin_port));
    qr_llm_config cfg;
    qr_llm_config_init(&cfg);
    cfg.url = url;
    cfg.model = "m";
    cfg.timeout_ms = 3600000;
    cfg.max_retries = 0;
    qr_llm *l = qr_llm_new(&cfg);
    CHECK(l != NULL);
    qr_req r;
    qr_req_init(&r, NULL);
    pthread_t th;
    pthread_create(&th, NULL, cancel_later, &r);
    qr_llm_message m = {.role = "user", .content = "hi", .len = 2};
    qr_llm_request rq = {.messages = &m, .nmessages = 1, .stop = &r.stop};
    qr_llm_response resp;
    int rc = qr_llm_complete(l, &rq, &resp);
    pthread_join(th, NULL);
    CHECK(rc == QR_ESTOPPED);
    CHECK_STR(resp.error, "stopped: cancelled");
    CHECK(resp.attempts == 1);
    qr_llm_response_clear(&resp);
    qr_llm_free(l);
    close(fd);
}

int main(void)
{
    test_request();
    test_registry();
    test_lisp();
    test_graph();
    test_sparql();
    test_model_transfer();
    CHECK_DONE();
}
