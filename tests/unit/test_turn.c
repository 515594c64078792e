/*
 * test_turn.c: the turn module (quarry/turn.h) against a real HTTP server on 127.0.0.1
 * (a thread of this test speaking the OpenAI wire format) and the real client: a budget
 * that refuses before any request is sent, a repair accepted on the second reply, repairs
 * exhausted, a turn's own cap of calls, a cancel during a call to a server that never
 * answers (QR_ESTOPPED, promptly), and the trace writer (fixed fields first, secrets
 * masked, totals in the end event, the request binding).
 */
#define _GNU_SOURCE /* strcasestr, usleep */
#include "check.h"

#include "quarry/turn.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* ---- a scripted server ---- */

enum { MAX_REPLIES = 8 };

typedef struct server {
    int fd, port;
    bool silent; /* accept, read, never answer */
    const char *replies[MAX_REPLIES];
    int nreplies, served;
    char *bodies[MAX_REPLIES]; /* the request bodies, in order */
    pthread_t th;
    volatile bool stop;
} server;

static void json_escape(const char *s, char *out, size_t cap)
{
    size_t k = 0;
    for (; *s && k + 3 < cap; s++) {
        if (*s == '"' || *s == '\\')
            out[k++] = '\\';
        out[k++] = *s;
    }
    out[k] = 0;
}

static void *serve(void *arg)
{
    server *S = arg;
    while (!S->stop) {
        int c = accept(S->fd, NULL, NULL);
        if (c < 0)
            break;
        char buf[65536];
        size_t n = 0;
        char *body = NULL;
        size_t want = 0;
        bool continued = false;
        for (;;) {
            ssize_t r = recv(c, buf + n, sizeof buf - 1 - n, 0);
            if (r <= 0)
                break;
            n += (size_t)r;
            buf[n] = 0;
            char *end = strstr(buf, "\r\n\r\n");
            if (!end)
                continue;
            char *cl = strcasestr(buf, "content-length:");
            want = cl ? strtoul(cl + 15, NULL, 10) : 0;
            if (!continued && strcasestr(buf, "expect: 100-continue")) {
                continued = true;
                send(c, "HTTP/1.1 100 Continue\r\n\r\n", 25, MSG_NOSIGNAL);
            }
            if (n - (size_t)(end + 4 - buf) >= want) {
                body = end + 4;
                break;
            }
        }
        if (body && S->served < MAX_REPLIES)
            S->bodies[S->served] = strdup(body);
        if (S->silent) {
            while (!S->stop)
                usleep(10000);
            close(c);
            break;
        }
        const char *text = S->served < S->nreplies ? S->replies[S->served] : "no more";
        S->served++;
        char esc[2048], out[4096], resp[5000];
        json_escape(text, esc, sizeof esc);
        int m = snprintf(out, sizeof out,
                         "{\"id\":\"x\",\"object\":\"chat.completion\",\"model\":\"m\","
                         "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                         "\"content\":\"%s\"},\"finish_reason\":\"stop\"}],"
                         "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5,"
                         "\"total_tokens\":15}}",
                         esc);
        int h = snprintf(resp, sizeof resp,
                         "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         "Content-Length: %d\r\nConnection: close\r\n\r\n%s",
                         m, out);
        send(c, resp, (size_t)h, MSG_NOSIGNAL);
        close(c);
    }
    return NULL;
}

static void server_start(server *S)
{
    S->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int one = 1;
    setsockopt(S->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    CHECK(bind(S->fd, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(listen(S->fd, 8) == 0);
    socklen_t len = sizeof a;
    getsockname(S->fd, (struct sockaddr *)&a, &len);
    S->port = ntohs(a.sin_port);
    pthread_create(&S->th, NULL, serve, S);
}

static void server_stop(server *S)
{
    S->stop = true;
    shutdown(S->fd, SHUT_RDWR);
    close(S->fd);
    pthread_join(S->th, NULL);
    for (int i = 0; i < MAX_REPLIES; i++)
        free(S->bodies[i]);
}

static qr_llm *client_for(const server *S)
{
    qr_llm_config c;
    qr_llm_config_init(&c);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/v1", S->port);
    c.url = strdup(url);
    c.model = strdup("m");
    c.api_key = strdup("sk-unit-secret-0123456789");
    c.provider = QR_LLM_OPENAI;
    c.max_retries = 0;
    c.timeout_ms = 60000;
    qr_llm *l = qr_llm_new(&c);
    qr_llm_config_clear(&c);
    return l;
}

/* ---- a trace that keeps its lines ---- */

typedef struct lines {
    char text[65536];
    int n;
} lines;

static void keep_line(void *ud, const char *line, size_t len)
{
    lines *L = ud;
    size_t have = strlen(L->text);
    if (have + len + 2 < sizeof L->text) {
        memcpy(L->text + have, line, len);
        L->text[have + len] = '\n';
        L->text[have + len + 1] = 0;
    }
    L->n++;
}

/* ---- the checker: accepts "good" ---- */

static int want_good(void *ud, const qr_llm_response *reply, qr_buf *complaint)
{
    int *seen = ud;
    (*seen)++;
    if (reply->text && !strcmp(reply->text, "good"))
        return QR_OK;
    qr_buf_puts(complaint, "say good, not that");
    return QR_EINVAL;
}

static qr_llm_message first = {.role = "user", .content = "hello", .len = 5};

static void test_budget_refuses_before_a_call(void)
{
    server S = {.replies = {"good"}, .nreplies = 1};
    server_start(&S);
    qr_llm *l = client_for(&S);
    qr_budget b = {.model_calls = 1};
    qr_req r;
    qr_req_init(&r, &b);
    qr_buf spent;
    qr_buf_init(&spent);
    CHECK(qr_req_may_call_model(&r, &spent) == QR_OK); /* the one call is spent */
    qr_buf_release(&spent);
    lines L = {{0}, 0};
    qr_trace *t = qr_trace_new(keep_line, &L);
    qr_turn_ctx c = {.llm = l, .req = &r, .trace = t, .source = "test"};
    int seen = 0;
    qr_turn turn = {.agent = "a", .messages = &first, .nmessages = 1, .check = want_good,
                    .check_ud = &seen};
    qr_turn_result res;
    CHECK(qr_turn_run(&c, &turn, &res) == QR_ESTOPPED);
    CHECK(res.calls == 0);
    CHECK(seen == 0);
    CHECK(S.served == 0 && S.bodies[0] == NULL); /* nothing reached the server */
    CHECK(strstr(res.error, "stopped: model-call budget of 1 calls spent") == res.error);
    CHECK(strstr(L.text, "{\"event\":\"model_refused\",\"source\":\"test\",\"t_ms\":") == L.text);
    CHECK(atomic_load(&r.model_calls) == 1);
    qr_turn_result_clear(&res);
    qr_trace_free(t);
    qr_llm_free(l);
    server_stop(&S);
}

static void test_repair_accepted(void)
{
    server S = {.replies = {"bad", "good"}, .nreplies = 2};
    server_start(&S);
    qr_llm *l = client_for(&S);
    qr_req r;
    qr_req_init(&r, NULL);
    lines L = {{0}, 0};
    qr_trace *t = qr_trace_new(keep_line, &L);
    qr_turn_ctx c = {.llm = l, .req = &r, .trace = t, .source = "test"};
    int seen = 0;
    qr_turn turn = {.agent = "a",
                    .system = "SYS",
                    .system_len = 3,
                    .messages = &first,
                    .nmessages = 1,
                    .max_repairs = 1,
                    .check = want_good,
                    .check_ud = &seen,
                    .repair_before = "FIX: ",
                    .repair_after = " (again)"};
    qr_turn_result res;
    CHECK(qr_turn_run(&c, &turn, &res) == QR_OK);
    CHECK_STR(res.text, "good");
    CHECK(res.calls == 2 && res.repairs == 1 && seen == 2);
    /* the repair request: the first message, the refused reply, the complaint */
    CHECK(S.bodies[1] && strstr(S.bodies[1], "\"content\":\"bad\""));
    CHECK(S.bodies[1] && strstr(S.bodies[1], "\"content\":\"FIX: say good, not that (again)\""));
    CHECK(S.bodies[1] && strstr(S.bodies[1], "\"content\":\"hello\""));
    /* counted in the request, with the one token formula */
    CHECK(atomic_load(&r.model_calls) == 2);
    CHECK(atomic_load(&r.tokens) == res.tokens && res.tokens == 30u);
    qr_trace_end(t, "test", true, NULL);
    CHECK(strstr(L.text, "\"event\":\"invalid_reply\"") != NULL);
    CHECK(strstr(L.text, "\"repair\":1") != NULL);
    CHECK(strstr(L.text, "\"calls\":2,\"repairs\":1") != NULL);
    CHECK(strstr(L.text, "\"tokens\":30}") != NULL);
    CHECK(strstr(L.text, "sk-unit") == NULL); /* never the key */
    qr_turn_result_clear(&res);
    qr_trace_free(t);
    qr_llm_free(l);
    server_stop(&S);
}

static void test_repairs_exhausted(void)
{
    server S = {.replies = {"bad", "worse", "worst", "good"}, .nreplies = 4};
    server_start(&S);
    qr_llm *l = client_for(&S);
    qr_turn_ctx c = {.llm = l, .source = "test"};
    int seen = 0;
    qr_turn turn = {.agent = "fixer", .messages = &first, .nmessages = 1, .max_repairs = 2,
                    .check = want_good, .check_ud = &seen};
    qr_turn_result res;
    CHECK(qr_turn_run(&c, &turn, &res) == QR_EINVAL);
    CHECK(res.calls == 3 && res.repairs == 2 && seen == 3);
    CHECK(S.served == 3); /* the fourth reply was never asked for */
    CHECK_STR(res.text, "worst");
    CHECK_STR(res.complaint.p, "say good, not that");
    CHECK(strstr(res.error, "the fixer's reply was still unusable after 2 repair turns") == res.error);
    qr_turn_result_clear(&res);

    /* a turn's own cap of calls stops it first */
    server T = {.replies = {"bad", "good"}, .nreplies = 2};
    server_start(&T);
    qr_llm *l2 = client_for(&T);
    c.llm = l2;
    turn.max_calls = 1;
    CHECK(qr_turn_run(&c, &turn, &res) == QR_ELIMIT);
    CHECK(res.calls == 1 && T.served == 1);
    CHECK(strstr(res.error, "the budget of 1 model calls is spent before the fixer could repair") ==
          res.error);
    qr_turn_result_clear(&res);
    qr_llm_free(l2);
    server_stop(&T);
    qr_llm_free(l);
    server_stop(&S);
}

static void *cancel_later(void *arg)
{
    usleep(300 * 1000);
    qr_req_cancel(arg);
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_cancel_during_a_call(void)
{
    server S = {.silent = true};
    server_start(&S);
    qr_llm *l = client_for(&S);
    qr_req r;
    qr_req_init(&r, NULL);
    qr_turn_ctx c = {.llm = l, .req = &r, .source = "test"};
    qr_llm_request q = {.messages = &first, .nmessages = 1};
    qr_llm_response out;
    pthread_t th;
    pthread_create(&th, NULL, cancel_later, &r);
    double t0 = now_s();
    int rc = qr_turn_call(&c, "a", 0, &q, &out);
    double took = now_s() - t0;
    pthread_join(th, NULL);
    CHECK(rc == QR_ESTOPPED);
    CHECK(took < 10.0); /* the server never answers: only the cancel ends the call */
    CHECK(S.bodies[0] != NULL); /* the request was sent */
    CHECK(atomic_load(&r.model_calls) == 1);
    qr_llm_response_clear(&out);
    /* and a turn on the cancelled request is refused before it calls */
    qr_turn turn = {.agent = "a", .messages = &first, .nmessages = 1};
    qr_turn_result res;
    CHECK(qr_turn_run(&c, &turn, &res) == QR_ESTOPPED);
    CHECK(res.calls == 0);
    CHECK(strstr(res.error, "cancelled") != NULL);
    qr_turn_result_clear(&res);
    qr_llm_free(l);
    server_stop(&S);
}

static void test_trace_writer(void)
{
    lines L = {{0}, 0};
    qr_trace *t = qr_trace_new(keep_line, &L);
    CHECK(qr_trace_add_secret(t, "sk-abcdefghijklmnop") == QR_OK);
    qr_buf b;
    qr_trace_begin(t, &b, "note", "test");
    qr_trace_cstr(&b, "whole", "key sk-abcdefghijklmnop here");
    qr_trace_cstr(&b, "piece", "cut ghijklmn off");
    qr_trace_cstr(&b, "short", "ghijk is fine");
    qr_trace_int(&b, "n", -3);
    qr_trace_emit(t, &b);
    CHECK(L.n == 1);
    CHECK(strstr(L.text, "{\"event\":\"note\",\"source\":\"test\",\"t_ms\":") == L.text);
    CHECK(strstr(L.text, "\"whole\":\"key [redacted] here\"") != NULL);
    CHECK(strstr(L.text, "\"piece\":\"cut [redacted] off\"") != NULL);
    CHECK(strstr(L.text, "\"short\":\"ghijk is fine\"") != NULL);
    CHECK(strstr(L.text, "\"n\":-3}\n") != NULL);
    /* an event built whole elsewhere (the flow runtime's) gets the fixed fields */
    const char *obj = "{\"event\":\"log\",\"line\":2,\"value\":\"sk-abcdefghijklmnop\"}";
    CHECK(qr_trace_emit_object(t, "flow", obj, strlen(obj)) == QR_OK);
    CHECK(strstr(L.text, "\n{\"event\":\"log\",\"source\":\"flow\",\"t_ms\":") != NULL);
    CHECK(strstr(L.text, ",\"line\":2,\"value\":\"[redacted]\"}\n") != NULL);
    CHECK(qr_trace_emit_object(t, "flow", "{\"line\":2}", 10) == QR_EINVAL);
    CHECK(L.n == 2);
    /* a NULL trace writes nothing and costs nothing */
    qr_trace_begin(NULL, &b, "x", "y");
    qr_trace_emit(NULL, &b);
    qr_trace_end(NULL, "x", true, NULL);
    /* the binding */
    qr_req r1, r2;
    qr_req_init(&r1, NULL);
    qr_req_init(&r2, NULL);
    CHECK(qr_trace_bind(&r1, t));
    CHECK(!qr_trace_bind(&r1, t)); /* already bound */
    CHECK(qr_trace_for(&r1) == t && qr_trace_for(&r2) == NULL);
    qr_turn_ctx c = {.req = &r1};
    CHECK(qr_turn_trace(&c) == t);
    qr_trace_unbind(&r1);
    CHECK(qr_trace_for(&r1) == NULL);
    qr_trace_free(t);
    /* a file that cannot be opened */
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_trace_open("/nonexistent/dir/t.jsonl", &err) == NULL);
    CHECK(err.p && strstr(err.p, "cannot write the trace file '/nonexistent/dir/t.jsonl'") == err.p);
    qr_buf_release(&err);
}

int main(void)
{
    test_budget_refuses_before_a_call();
    test_repair_accepted();
    test_repairs_exhausted();
    test_cancel_during_a_call();
    test_trace_writer();
    CHECK_DONE();
}
