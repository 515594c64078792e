/*
 * http.c: the Streamable HTTP transport of the MCP server (`quarry mcp --http ADDR`):
 * one endpoint, /mcp, on a loopback address. POST carries one JSON-RPC message; a
 * request is answered on the same connection, a notification or a response with 202.
 * initialize begins a session (its response carries Mcp-Session-Id, which every later
 * request must send back), DELETE ends it, GET is 405 (no server-initiated stream).
 *
 * Design: a session is a qr_mcp_server of its own (server.c), with its pool of workers,
 * its negotiated revision, log level and cancellations: the stdio transport's machinery
 * serves here unchanged. The server tells which request each message it sends belongs to
 * (qr_mcp_send_fn's req_id), so a message goes to the connection waiting for that
 * request: a tools/call is answered as a text/event-stream, whose events are its progress
 * notifications and then its response (written by the worker as they come), every other
 * request as application/json. A connection is one request (Connection: close): a thread
 * per connection reads the head and body with deadlines, checks Host and Origin (both
 * must be loopback ones: a web page the user visits must not reach the server through
 * DNS rebinding), hands the body to the session's server, and waits for its response.
 * A client that disconnects while its call runs stops nothing (the specification: a
 * disconnection is not a cancellation); notifications/cancelled does.
 *
 * Rejected: one pool shared by every session (session state lives in the server object;
 * a pool per session bounds what one client can hold up to its own calls, and sessions
 * are bounded); keep-alive and chunked request bodies (the SDKs send Content-Length, and
 * loopback connections are cheap); the optional GET stream and resumption (nothing is
 * sent outside a request: log messages not tied to a request are dropped over HTTP).
 */
#define _GNU_SOURCE /* POLLRDHUP, MSG_NOSIGNAL */
#include "mcp_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define HEAD_TIMEOUT_MS 10000u   /* to send the request head */
#define BODY_TIMEOUT_MS 30000u   /* to send the body, after the head */
#define SEND_TIMEOUT_MS 30000u   /* to write one message (a response, an event) */
#define MAX_CONNECTIONS 64       /* connections served at once; more get 503 */
#define SESSION_IDLE_MS (30u * 60u * 1000u) /* an idle session may give way to a new one */
/* bytes of request bodies held at once, from reading to answering, over all connections:
 * reading a message into values takes up to mcp_parse_cap (about 17 times its size for
 * dense JSON), so this bounds the server's memory; a body waits for room (up to
 * BODY_TIMEOUT_MS, then 503) before it is read. Never below the largest message. */
#define BODY_BUDGET ((size_t)32 << 20)

typedef struct pending {
    char key[160]; /* the request id's JSON text */
    int fd;
    bool sse;      /* events are written as they come; else the response is kept */
    bool done;     /* answered, or ended without an answer */
    bool gone;     /* a write to the client failed */
    qr_buf body;   /* the response (JSON mode), or the events not yet written (SSE): the
                    * connection's thread writes them, never the worker that sends them,
                    * so a client that reads slowly holds up only its own answer */
    struct pending *next;
} pending;

typedef struct session {
    char id[33];
    qr_mcp_server *srv;
    pthread_mutex_t mu; /* pending, done flags */
    pthread_cond_t cv;
    pending *pend;
    pthread_mutex_t handle_mu; /* one message handed to the server at a time */
    bool ended;                /* under handle_mu */
    int refs;                  /* under the server's table lock */
    uint64_t last_used;
    size_t in_flight; /* requests waiting for an answer (under mu) */
} session;

typedef struct http_server {
    const qr_mcp_config *cfg;
    int lfd, stop_fd;
    pthread_mutex_t mu; /* sessions, connections */
    pthread_cond_t cv;
    session *sessions[QR_MCP_HTTP_SESSIONS];
    int conns[MAX_CONNECTIONS]; /* -1: free */
    size_t nconns;
    size_t body_bytes; /* bodies held (BODY_BUDGET) */
    bool stopping;
} http_server;

typedef struct conn {
    http_server *h;
    int fd, slot;
} conn;

/* ---- addresses ---- */

static int parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *sl, qr_buf *err)
{
    const char *colon = strrchr(addr, ':');
    if (!colon || colon == addr || !colon[1]) {
        qr_buf_printf(err, "bad address '%.100s': expected HOST:PORT such as 127.0.0.1:8765",
                      addr);
        return QR_EINVAL;
    }
    unsigned long port = 0;
    for (const char *p = colon + 1; *p; p++) {
        if (*p < '0' || *p > '9' || port > 65535) {
            qr_buf_printf(err, "bad port in '%.100s': expected a number from 0 to 65535", addr);
            return QR_EINVAL;
        }
        port = port * 10 + (unsigned long)(*p - '0');
    }
    if (port > 65535) {
        qr_buf_printf(err, "bad port in '%.100s': expected a number from 0 to 65535", addr);
        return QR_EINVAL;
    }
    char host[64];
    size_t hl = (size_t)(colon - addr);
    if (hl >= sizeof host)
        hl = sizeof host - 1;
    memcpy(host, addr, hl);
    host[hl] = '\0';
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
    if (!strcmp(host, "localhost")) {
        a4->sin_family = AF_INET;
        a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    } else if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        if ((ntohl(a4->sin_addr.s_addr) >> 24) != 127)
            goto not_loopback;
    } else if (hl > 2 && host[0] == '[' && host[hl - 1] == ']') {
        host[hl - 1] = '\0';
        if (inet_pton(AF_INET6, host + 1, &a6->sin6_addr) != 1)
            goto not_loopback;
        a6->sin6_family = AF_INET6;
        if (!IN6_IS_ADDR_LOOPBACK(&a6->sin6_addr))
            goto not_loopback;
    } else {
        goto not_loopback;
    }
    if (ss->ss_family == AF_INET) {
        a4->sin_port = htons((uint16_t)port);
        *sl = sizeof *a4;
    } else {
        a6->sin6_port = htons((uint16_t)port);
        *sl = sizeof *a6;
    }
    return QR_OK;
not_loopback:
    qr_buf_printf(err,
                  "'%.100s' is not a loopback address: the HTTP transport binds only to "
                  "127.0.0.1, localhost or [::1] (any other address would serve the "
                  "repository to the network)",
                  addr);
    return QR_EINVAL;
}

int qr_mcp_http_check_addr(const char *addr, qr_buf *err)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    return parse_addr(addr, &ss, &sl, err);
}

/* ---- writing ---- */

/* Writes all of p[0..n) by the deadline: false when the client does not take it in time
 * (a slow reader gets SEND_TIMEOUT_MS for a whole message, not for each write), the
 * connection failed, or the server shut it down while stopping. */
static bool write_until(int fd, const char *p, size_t n, uint64_t deadline)
{
    while (n) {
        uint64_t now = mcp_now_ms();
        if (now >= deadline)
            return false;
        struct pollfd pf = {.fd = fd, .events = POLLOUT};
        int k = poll(&pf, 1, (int)(deadline - now));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0 || (pf.revents & (POLLERR | POLLHUP | POLLNVAL)))
            return false;
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

static bool write_all(int fd, const char *p, size_t n)
{
    return write_until(fd, p, n, mcp_now_ms() + SEND_TIMEOUT_MS);
}

static const char *reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 411: return "Length Required";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
    }
}

/* A whole response: status, extra header lines (each ending in \r\n, or NULL), a body. */
static void respond(int fd, int status, const char *extra, const char *ctype, const char *body,
                    size_t len)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_printf(&b, "HTTP/1.1 %d %s\r\nConnection: close\r\n", status, reason(status));
    if (extra)
        qr_buf_puts(&b, extra);
    if (ctype)
        qr_buf_printf(&b, "Content-Type: %s\r\n", ctype);
    if (status != 204)
        qr_buf_printf(&b, "Content-Length: %zu\r\n", len);
    qr_buf_puts(&b, "\r\n");
    if (len)
        qr_buf_append(&b, body, len);
    if (!b.failed)
        write_all(fd, b.p, b.len);
    qr_buf_release(&b);
}

/* An HTTP error with a JSON-RPC error body (id null), as the SDKs' servers send, so a
 * client shows the message. */
static void refuse(int fd, int status, const char *extra, const char *msg)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":%d,\"message\":",
                  RPC_INVALID_REQUEST);
    qr_buf_json_string(&b, msg, strlen(msg));
    qr_buf_puts(&b, "}}");
    if (!b.failed)
        respond(fd, status, extra, "application/json", b.p, b.len);
    qr_buf_release(&b);
}

static void sse_event(qr_buf *b, const char *msg, size_t len)
{
    qr_buf_puts(b, "event: message\ndata: ");
    qr_buf_append(b, msg, len);
    qr_buf_puts(b, "\n\n");
}

/* ---- sessions ---- */

static pending *find_pending(session *se, const char *key)
{
    for (pending *p = se->pend; p; p = p->next)
        if (!strcmp(p->key, key))
            return p;
    return NULL;
}

/* The send hook of a session's server: each message goes to the connection waiting for
 * its request, whose thread writes it. Called under the server's transport lock, so one
 * at a time; it never writes to a socket itself (a client that does not read would hold
 * the lock, and with it every answer of the session). Never fails: one client that went
 * away must not end the session. */
static int session_send(void *ud, const char *msg, size_t len, const char *req_id, bool final)
{
    session *se = ud;
    if (!req_id)
        return QR_OK; /* about no request: no stream would carry it */
    pthread_mutex_lock(&se->mu);
    pending *p = find_pending(se, req_id);
    if (p && !p->done) {
        if (msg && p->sse && !p->gone)
            sse_event(&p->body, msg, len);
        else if (msg && final)
            qr_buf_append(&p->body, msg, len);
        if (final)
            p->done = true;
        pthread_cond_broadcast(&se->cv);
    }
    pthread_mutex_unlock(&se->mu);
    return QR_OK;
}

static int session_new(const qr_mcp_config *cfg, session **out)
{
    *out = NULL;
    session *se = calloc(1, sizeof *se);
    if (!se)
        return QR_ENOMEM;
    unsigned char rnd[16];
    size_t got = 0;
    while (got < sizeof rnd) {
        ssize_t k = getrandom(rnd + got, sizeof rnd - got, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            free(se);
            return QR_EIO;
        }
        got += (size_t)k;
    }
    for (size_t i = 0; i < sizeof rnd; i++)
        snprintf(se->id + 2 * i, 3, "%02x", rnd[i]);
    qr_buf err;
    qr_buf_init(&err);
    int rc = qr_mcp_server_new(cfg, &se->srv, &err);
    if (rc == QR_OK && cfg->log && err.len)
        cfg->log(cfg->log_ud, err.p);
    qr_buf_release(&err);
    if (rc != QR_OK) {
        free(se);
        return rc;
    }
    pthread_mutex_init(&se->mu, NULL);
    pthread_cond_init(&se->cv, NULL);
    pthread_mutex_init(&se->handle_mu, NULL);
    se->refs = 1;
    se->last_used = mcp_now_ms();
    qr_mcp_set_io(se->srv, session_send, NULL, se);
    if (qr_mcp_start_workers(se->srv) != QR_OK && cfg->log)
        cfg->log(cfg->log_ud, "cannot start worker threads: calls run one at a time");
    *out = se;
    return QR_OK;
}

/* Ends a session: no message is handed to it any more, what runs is stopped and what
 * waits for an answer is released. */
static void session_end(session *se)
{
    pthread_mutex_lock(&se->handle_mu);
    bool was = se->ended;
    se->ended = true;
    pthread_mutex_unlock(&se->handle_mu);
    if (was)
        return;
    qr_mcp_stop_workers(se->srv, true);
    pthread_mutex_lock(&se->mu);
    for (pending *p = se->pend; p; p = p->next)
        p->done = true;
    pthread_cond_broadcast(&se->cv);
    pthread_mutex_unlock(&se->mu);
}

static void session_free(session *se)
{
    qr_mcp_server_free(se->srv);
    pthread_mutex_destroy(&se->mu);
    pthread_cond_destroy(&se->cv);
    pthread_mutex_destroy(&se->handle_mu);
    free(se);
}

static void session_unref(http_server *h, session *se)
{
    pthread_mutex_lock(&h->mu);
    bool last = --se->refs == 0;
    pthread_mutex_unlock(&h->mu);
    if (last) {
        session_end(se);
        session_free(se);
    }
}

/* The session with this id, with a reference, or NULL. */
static session *session_find(http_server *h, const char *id, size_t len)
{
    session *found = NULL;
    pthread_mutex_lock(&h->mu);
    for (size_t i = 0; i < QR_MCP_HTTP_SESSIONS; i++) {
        session *se = h->sessions[i];
        if (se && strlen(se->id) == len && !memcmp(se->id, id, len)) {
            found = se;
            se->refs++;
            se->last_used = mcp_now_ms();
            break;
        }
    }
    pthread_mutex_unlock(&h->mu);
    return found;
}

/* Takes the session out of the table (and drops the table's reference). */
static bool session_remove(http_server *h, session *se)
{
    bool removed = false;
    pthread_mutex_lock(&h->mu);
    for (size_t i = 0; i < QR_MCP_HTTP_SESSIONS; i++)
        if (h->sessions[i] == se) {
            h->sessions[i] = NULL;
            removed = true;
        }
    pthread_mutex_unlock(&h->mu);
    if (removed) {
        session_end(se);
        session_unref(h, se);
    }
    return removed;
}

/* Puts a new session in the table (the table takes a reference); when it is full, the
 * session idle longest gives way if it has been idle for SESSION_IDLE_MS. */
static bool session_insert(http_server *h, session *se)
{
    session *evicted = NULL;
    bool ok = false;
    uint64_t now = mcp_now_ms();
    pthread_mutex_lock(&h->mu);
    size_t slot = QR_MCP_HTTP_SESSIONS, oldest = QR_MCP_HTTP_SESSIONS;
    for (size_t i = 0; i < QR_MCP_HTTP_SESSIONS; i++) {
        session *o = h->sessions[i];
        if (!o) {
            if (slot == QR_MCP_HTTP_SESSIONS)
                slot = i;
        } else if (o->refs == 1 && now - o->last_used >= SESSION_IDLE_MS &&
                   (oldest == QR_MCP_HTTP_SESSIONS ||
                    o->last_used < h->sessions[oldest]->last_used)) {
            oldest = i;
        }
    }
    if (slot == QR_MCP_HTTP_SESSIONS && oldest < QR_MCP_HTTP_SESSIONS) {
        evicted = h->sessions[oldest];
        h->sessions[oldest] = NULL;
        slot = oldest;
    }
    if (slot < QR_MCP_HTTP_SESSIONS && !h->stopping) {
        h->sessions[slot] = se;
        se->refs++;
        ok = true;
    }
    pthread_mutex_unlock(&h->mu);
    if (evicted) {
        session_end(evicted);
        session_unref(h, evicted);
    }
    return ok;
}

/* ---- one connection ---- */

/* Reads into buf[*len..cap) until want bytes are there or the deadline passes: 1 when
 * they are, 0 at end of input, -1 on timeout or error. */
static int read_until(int fd, char *buf, size_t *len, size_t want, uint64_t deadline,
                      const qr_mcp_http_request *r)
{
    while (*len < want) {
        uint64_t now = mcp_now_ms();
        if (now >= deadline)
            return -1;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int k = poll(&p, 1, (int)(deadline - now));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        ssize_t n = recv(fd, buf + *len, want - *len, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            return 0;
        *len += (size_t)n;
        if (r) { /* reading a head: stop at its end */
            qr_mcp_http_request tmp;
            if (qr_mcp_http_parse_request(&tmp, buf, *len) != 0)
                return 1;
        }
    }
    return 1;
}

/* Whether the client closed its end (or reset the connection). */
static bool client_gone(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN | POLLRDHUP};
    if (poll(&p, 1, 0) <= 0)
        return false;
    if (p.revents & (POLLRDHUP | POLLHUP | POLLERR))
        return true;
    char c;
    ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0;
}

static bool str_is(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && !memcmp(s, lit, n);
}

enum { BODY_REQUEST, BODY_NOTE, BODY_BAD };

/* One message read once: the session's server takes it as read (mcp_handle_read). */
typedef struct message {
    qr_arena a;
    qr_val m;
    int rc;
    qr_read_error e;
    size_t len;
} message;

/* Reads the body and says what it is: a request (its id's JSON text in key, its method in
 * method), a notification or a response (answered 202), or something the server answers
 * with an error for id null. The values stay in msg for the server. */
static int classify(message *msg, const char *body, size_t len, char *key, size_t keycap,
                    char *method, size_t mcap)
{
    mcp_message_arena_init(&msg->a);
    msg->len = len;
    msg->m = qr_nil();
    qr_arena *a = &msg->a;
    int kind = BODY_BAD;
    snprintf(key, keycap, "null");
    method[0] = '\0';
    msg->rc = mcp_read_message(a, body, len, &msg->m, &msg->e);
    qr_val m = msg->m;
    if (msg->rc != QR_OK || m.t != QR_T_MAP)
        return kind;
    qr_val id = mcp_get(a, m, "id");
    qr_val meth = mcp_get(a, m, "method");
    if (meth.t == QR_T_STR)
        snprintf(method, mcap, "%s", meth.s->data);
    if (!mcp_has(a, m, "id"))
        return BODY_NOTE;
    if (!mcp_has(a, m, "method") && (mcp_has(a, m, "result") || mcp_has(a, m, "error")))
        return BODY_NOTE;
    if (id.t != QR_T_STR && id.t != QR_T_INT)
        return kind;
    qr_buf t;
    qr_buf_init(&t);
    qr_print_json(&t, id, false);
    if (!t.failed && t.len < keycap) {
        memcpy(key, t.p, t.len);
        key[t.len] = '\0';
        kind = BODY_REQUEST;
    }
    qr_buf_release(&t);
    return kind;
}

/* Hands the message to the session's server, unless the session ended: false then. */
static bool hand_over(session *se, message *msg)
{
    pthread_mutex_lock(&se->handle_mu);
    bool ended = se->ended;
    if (!ended)
        mcp_handle_read(se->srv, &msg->a, msg->rc, msg->m, &msg->e, msg->len);
    pthread_mutex_unlock(&se->handle_mu);
    return !ended;
}

/* Hands a POST's body to a session and answers it; with held (a JSON answer only), the
 * response is left there instead of written. */
static void serve_post(int fd, session *se, message *msg, int kind, const char *key, bool sse,
                       qr_buf *held)
{
    if (kind == BODY_NOTE) {
        bool ended = !hand_over(se, msg);
        if (ended)
            refuse(fd, 404, NULL, "the session has ended: send initialize to begin a new one");
        else
            respond(fd, 202, NULL, NULL, NULL, 0);
        return;
    }
    pending p = {.fd = fd, .sse = sse};
    snprintf(p.key, sizeof p.key, "%s", key);
    qr_buf_init(&p.body);
    pthread_mutex_lock(&se->mu);
    bool dup = find_pending(se, p.key) != NULL;
    if (!dup) {
        p.next = se->pend;
        se->pend = &p;
    }
    pthread_mutex_unlock(&se->mu);
    if (dup) {
        refuse(fd, 409, NULL,
               "a request with this id is still running in this session: give each request an "
               "id of its own");
        qr_buf_release(&p.body);
        return;
    }
    if (sse) {
        static const char head[] = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: "
                                   "text/event-stream\r\nCache-Control: no-cache\r\n\r\n";
        p.gone = !write_all(fd, head, sizeof head - 1);
    }
    bool ended = !hand_over(se, msg);
    pthread_mutex_lock(&se->mu);
    if (ended)
        p.done = true;
    for (;;) {
        if (p.sse && p.body.len && !p.gone) {
            /* the events so far, written without the session's locks */
            qr_buf out = p.body;
            qr_buf_init(&p.body);
            pthread_mutex_unlock(&se->mu);
            bool ok = !out.failed && write_all(fd, out.p, out.len);
            qr_buf_release(&out);
            pthread_mutex_lock(&se->mu);
            if (!ok)
                p.gone = true;
            continue;
        }
        if (p.done || p.gone)
            break;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 250 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&se->cv, &se->mu, &ts);
        if (!p.done && client_gone(fd))
            p.gone = true; /* its answer, when it comes, goes nowhere */
    }
    for (pending **pp = &se->pend; *pp; pp = &(*pp)->next)
        if (*pp == &p) {
            *pp = p.next;
            break;
        }
    pthread_mutex_unlock(&se->mu);
    if (held && !sse) {
        qr_buf_append(held, p.body.p ? p.body.p : "", p.body.len);
    } else if (!sse && !p.gone) {
        if (ended)
            refuse(fd, 404, NULL, "the session has ended: send initialize to begin a new one");
        else if (p.body.len)
            respond(fd, 200, NULL, "application/json", p.body.p, p.body.len);
        else
            respond(fd, 202, NULL, NULL, NULL, 0); /* cancelled: no answer */
    }
    qr_buf_release(&p.body);
}

/* Takes n bytes of the budget of bodies held, waiting for room up to BODY_TIMEOUT_MS:
 * false when none came in time or the server stops. */
static bool body_reserve(http_server *h, size_t n, size_t budget)
{
    uint64_t deadline = mcp_now_ms() + BODY_TIMEOUT_MS;
    bool ok = false;
    pthread_mutex_lock(&h->mu);
    for (;;) {
        if (h->stopping)
            break;
        if (h->body_bytes + n <= budget) {
            h->body_bytes += n;
            ok = true;
            break;
        }
        uint64_t now = mcp_now_ms();
        if (now >= deadline)
            break;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t wait = deadline - now < 250 ? deadline - now : 250;
        ts.tv_nsec += (long)(wait * 1000000u);
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&h->cv, &h->mu, &ts);
    }
    pthread_mutex_unlock(&h->mu);
    return ok;
}

static void body_release(http_server *h, size_t n)
{
    pthread_mutex_lock(&h->mu);
    h->body_bytes -= n;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
}

static bool supported_version(const char *v, size_t n)
{
    for (const char *const *p = qr_mcp_protocol_versions; *p; p++)
        if (str_is(v, n, *p))
            return true;
    return false;
}

static void serve_request(http_server *h, int fd)
{
    char head[QR_MCP_HTTP_MAX_HEAD];
    size_t len = 0;
    uint64_t start = mcp_now_ms();
    int rr = read_until(fd, head, &len, sizeof head, start + HEAD_TIMEOUT_MS,
                        (const qr_mcp_http_request *)1);
    qr_mcp_http_request r;
    int pr = qr_mcp_http_parse_request(&r, head, len);
    if (pr == 0) {
        if (rr < 0 && len)
            refuse(fd, 408, NULL, "the request head did not arrive in time");
        else if (len == sizeof head)
            refuse(fd, 431, NULL, "the request head is larger than 16 KiB");
        else if (len)
            refuse(fd, 400, NULL, "the request head is incomplete");
        return;
    }
    if (pr < 0) {
        refuse(fd, -pr, NULL,
               pr == -431   ? "the request head is larger than 16 KiB or has over 64 headers"
               : pr == -414 ? "the request target is longer than 2048 bytes"
               : pr == -505 ? "only HTTP/1.0 and HTTP/1.1 are served"
                            : "malformed HTTP request");
        return;
    }
    const char *v;
    size_t vl;
    /* the path, without a query */
    size_t pl = r.target_len;
    const char *q = memchr(r.target, '?', r.target_len);
    if (q)
        pl = (size_t)(q - r.target);
    size_t nhost = qr_mcp_http_header_get(&r, "host", &v, &vl);
    if (nhost > 1 || (nhost == 0 && r.minor == 1)) {
        refuse(fd, 400, NULL, "an HTTP/1.1 request needs one Host header");
        return;
    }
    if (nhost && !qr_mcp_http_loopback_host(v, vl)) {
        refuse(fd, 403, NULL,
               "the Host header does not name a loopback address: this server answers only "
               "requests addressed to 127.0.0.1, localhost or [::1]");
        return;
    }
    size_t norigin = qr_mcp_http_header_get(&r, "origin", &v, &vl);
    if (norigin > 1 || (norigin && !qr_mcp_http_loopback_origin(v, vl))) {
        refuse(fd, 403, NULL,
               "the request's Origin is not a loopback one: this server refuses requests "
               "from web pages of other origins");
        return;
    }
    if (!str_is(r.target, pl, "/mcp")) {
        refuse(fd, 404, NULL, "not found: the MCP endpoint is /mcp");
        return;
    }
    bool post = str_is(r.method, r.method_len, "POST");
    bool del = str_is(r.method, r.method_len, "DELETE");
    if (!post && !del) {
        refuse(fd, 405, "Allow: POST, DELETE\r\n",
               "method not allowed: POST sends a message, DELETE ends a session (this server "
               "offers no GET stream)");
        return;
    }
    if (qr_mcp_http_header_get(&r, "mcp-protocol-version", &v, &vl) &&
        !supported_version(v, vl)) {
        refuse(fd, 400, NULL,
               "unsupported MCP-Protocol-Version: this server speaks 2025-11-25, 2025-06-18, "
               "2025-03-26 and 2024-11-05");
        return;
    }
    const char *sid;
    size_t sidl;
    size_t nsid = qr_mcp_http_header_get(&r, "mcp-session-id", &sid, &sidl);
    if (nsid > 1) {
        refuse(fd, 400, NULL, "more than one Mcp-Session-Id header");
        return;
    }
    if (del) {
        if (!nsid) {
            refuse(fd, 400, NULL, "DELETE needs the Mcp-Session-Id header of the session to end");
            return;
        }
        session *se = session_find(h, sid, sidl);
        if (!se) {
            refuse(fd, 404, NULL, "no such session (it ended, or the server restarted)");
            return;
        }
        session_remove(h, se);
        session_unref(h, se);
        respond(fd, 204, NULL, NULL, NULL, 0);
        return;
    }
    /* POST */
    if (r.has_transfer_encoding || !r.has_length) {
        refuse(fd, 411, NULL, "send the body with a Content-Length (no chunked encoding)");
        return;
    }
    if (!qr_mcp_http_header_get(&r, "content-type", &v, &vl) ||
        !qr_mcp_http_header_has(v, vl, "application/json")) {
        refuse(fd, 415, NULL, "the body must be one JSON-RPC message: Content-Type: application/json");
        return;
    }
    bool sse_ok = true;
    if (qr_mcp_http_header_get(&r, "accept", &v, &vl)) {
        sse_ok = qr_mcp_http_header_has(v, vl, "text/event-stream") || qr_mcp_http_header_has(v, vl, "*/*");
        bool json_ok = qr_mcp_http_header_has(v, vl, "application/json") ||
                       qr_mcp_http_header_has(v, vl, "application/*") ||
                       qr_mcp_http_header_has(v, vl, "*/*");
        if (!sse_ok && !json_ok) {
            refuse(fd, 406, NULL, "Accept must allow application/json or text/event-stream");
            return;
        }
    }
    if (r.content_length > h->cfg->max_message) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "the message of %llu bytes is larger than the limit of %zu bytes (quarry mcp "
                 "--max-message)",
                 (unsigned long long)r.content_length, h->cfg->max_message);
        refuse(fd, 413, NULL, msg);
        return;
    }
    size_t blen = (size_t)r.content_length;
    /* the session first: a message for no session is refused before it is read */
    session *se = NULL;
    if (nsid) {
        se = session_find(h, sid, sidl);
        if (!se) {
            refuse(fd, 404, NULL,
                   "no such session (it ended, or the server restarted): send initialize "
                   "without Mcp-Session-Id to begin a new one");
            return;
        }
    }
    /* then room for it among the bodies held */
    size_t budget = BODY_BUDGET > h->cfg->max_message ? BODY_BUDGET : h->cfg->max_message;
    if (!body_reserve(h, blen, budget)) {
        refuse(fd, 503, NULL,
               "the server is reading too many large messages at once: retry when an answer "
               "has come");
        if (se)
            session_unref(h, se);
        return;
    }
    message msg = {0};
    qr_arena_init(&msg.a, 0);
    char *body = malloc(blen + 1);
    if (!body) {
        refuse(fd, 503, NULL, "out of memory");
        goto done;
    }
    size_t have = len - r.head_len;
    if (have > blen)
        have = blen; /* bytes after the body are ignored: one request per connection */
    memcpy(body, head + r.head_len, have);
    int br = read_until(fd, body, &have, blen, mcp_now_ms() + BODY_TIMEOUT_MS, NULL);
    if (br != 1) {
        if (br == 0)
            refuse(fd, 400, NULL, "the body ended before its Content-Length");
        else
            refuse(fd, 408, NULL, "the request body did not arrive in time");
        goto done;
    }
    char key[160], method[64];
    int kind = classify(&msg, body, blen, key, sizeof key, method, sizeof method);
    free(body); /* what the server needs is in msg */
    body = NULL;
    bool init = kind == BODY_REQUEST && !strcmp(method, "initialize");
    bool fresh = false;
    if (!nsid) {
        if (!init) {
            refuse(fd, 400, NULL,
                   "missing Mcp-Session-Id header: begin a session with initialize, then send "
                   "the id its response gave");
            goto done;
        }
        int rc = session_new(h->cfg, &se);
        if (rc != QR_OK) {
            refuse(fd, 503, NULL, "cannot begin a session: out of memory");
            goto done;
        }
        fresh = true;
    }
    if (fresh) {
        /* the session is kept (and its id given) only when initialize succeeded */
        qr_buf out;
        qr_buf_init(&out);
        serve_post(fd, se, &msg, kind, key, false, &out);
        pthread_mutex_lock(&se->handle_mu);
        bool ok = se->srv->initialized;
        pthread_mutex_unlock(&se->handle_mu);
        if (ok && !session_insert(h, se)) {
            refuse(fd, 503, NULL,
                   "too many sessions: end one (DELETE) before beginning another");
        } else if (out.failed || !out.len) {
            refuse(fd, 503, NULL, "out of memory");
        } else {
            char extra[96];
            snprintf(extra, sizeof extra, "Mcp-Session-Id: %s\r\n", se->id);
            respond(fd, 200, ok ? extra : NULL, "application/json", out.p, out.len);
        }
        qr_buf_release(&out);
    } else {
        serve_post(fd, se, &msg, kind, key, sse_ok && !strcmp(method, "tools/call"), NULL);
    }
done:
    if (se)
        session_unref(h, se);
    free(body);
    qr_arena_release(&msg.a);
    body_release(h, blen);
}

static void *conn_main(void *arg)
{
    conn *c = arg;
    http_server *h = c->h;
    serve_request(h, c->fd);
    /* a lingering close: the client may still be sending (a head that was too large, a
     * body never read); closing at once would reset the connection and lose the
     * answer, so what it sends is read and dropped for a moment first */
    shutdown(c->fd, SHUT_WR);
    char sink[4096];
    size_t drained = 0;
    uint64_t until = mcp_now_ms() + 1000;
    while (drained < (1u << 20)) {
        uint64_t now = mcp_now_ms();
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        if (now >= until || poll(&p, 1, (int)(until - now)) <= 0)
            break;
        ssize_t n = recv(c->fd, sink, sizeof sink, 0);
        if (n <= 0)
            break;
        drained += (size_t)n;
    }
    pthread_mutex_lock(&h->mu);
    h->conns[c->slot] = -1;
    h->nconns--;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    close(c->fd);
    free(c);
    return NULL;
}

/* ---- listening ---- */

static void accept_one(http_server *h)
{
    int fd = accept4(h->lfd, NULL, NULL, SOCK_CLOEXEC); /* never inherited by a child */
    if (fd < 0)
        return;
    pthread_mutex_lock(&h->mu);
    int slot = -1;
    if (h->nconns < MAX_CONNECTIONS && !h->stopping)
        for (int i = 0; i < MAX_CONNECTIONS; i++)
            if (h->conns[i] < 0) {
                slot = i;
                break;
            }
    if (slot >= 0) {
        h->conns[slot] = fd;
        h->nconns++;
    }
    pthread_mutex_unlock(&h->mu);
    if (slot < 0) {
        refuse(fd, 503, NULL, "too many connections at once");
        close(fd);
        return;
    }
    conn *c = malloc(sizeof *c);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (c) {
        *c = (conn){.h = h, .fd = fd, .slot = slot};
        if (pthread_create(&t, &attr, conn_main, c) == 0) {
            pthread_attr_destroy(&attr);
            return;
        }
        free(c);
    }
    pthread_attr_destroy(&attr);
    refuse(fd, 503, NULL, "cannot serve another connection now");
    pthread_mutex_lock(&h->mu);
    h->conns[slot] = -1;
    h->nconns--;
    pthread_mutex_unlock(&h->mu);
    close(fd);
}

int qr_mcp_serve_http(const qr_mcp_config *cfg, const char *addr, int stop_fd,
                      void (*ready)(void *ud, const char *url), void *ud, qr_buf *err)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    int rc = parse_addr(addr, &ss, &sl, err);
    if (rc != QR_OK)
        return rc;
    int lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0) {
        qr_buf_printf(err, "cannot open a socket: %s", strerror(errno));
        return QR_EIO;
    }
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(lfd, (struct sockaddr *)&ss, sl) != 0 || listen(lfd, 64) != 0) {
        qr_buf_printf(err, "cannot listen on '%.100s': %s", addr, strerror(errno));
        close(lfd);
        return QR_EIO;
    }
    /* the address bound (the port chosen when 0 was asked for) */
    struct sockaddr_storage got;
    socklen_t gl = sizeof got;
    getsockname(lfd, (struct sockaddr *)&got, &gl);
    char host[INET6_ADDRSTRLEN] = "", url[128];
    if (got.ss_family == AF_INET6) {
        struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&got;
        inet_ntop(AF_INET6, &a6->sin6_addr, host, sizeof host);
        snprintf(url, sizeof url, "http://[%s]:%u/mcp", host, ntohs(a6->sin6_port));
    } else {
        struct sockaddr_in *a4 = (struct sockaddr_in *)&got;
        inet_ntop(AF_INET, &a4->sin_addr, host, sizeof host);
        snprintf(url, sizeof url, "http://%s:%u/mcp", host, ntohs(a4->sin_port));
    }
    http_server *h = calloc(1, sizeof *h);
    if (!h) {
        close(lfd);
        return QR_ENOMEM;
    }
    h->cfg = cfg;
    h->lfd = lfd;
    h->stop_fd = stop_fd;
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    for (int i = 0; i < MAX_CONNECTIONS; i++)
        h->conns[i] = -1;
    if (ready)
        ready(ud, url);
    for (;;) {
        struct pollfd p[2] = {{.fd = lfd, .events = POLLIN}, {.fd = stop_fd, .events = POLLIN}};
        int k = poll(p, stop_fd >= 0 ? 2 : 1, -1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 || (stop_fd >= 0 && p[1].revents))
            break;
        if (p[0].revents & POLLIN)
            accept_one(h);
    }
    /* stop: no new connection or session; every session ends (what runs is stopped),
     * which releases the connections waiting for answers; the others are shut down */
    close(lfd);
    /* the connections first: a write to a client that does not read, a body that never
     * comes or a wait for room fails at once, so nothing below waits for a client */
    pthread_mutex_lock(&h->mu);
    h->stopping = true;
    for (int i = 0; i < MAX_CONNECTIONS; i++)
        if (h->conns[i] >= 0)
            shutdown(h->conns[i], SHUT_RDWR);
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    for (size_t i = 0; i < QR_MCP_HTTP_SESSIONS; i++) {
        pthread_mutex_lock(&h->mu);
        session *se = h->sessions[i];
        if (se)
            se->refs++;
        pthread_mutex_unlock(&h->mu);
        if (se) {
            session_remove(h, se);
            session_unref(h, se);
        }
    }
    pthread_mutex_lock(&h->mu);
    for (int i = 0; i < MAX_CONNECTIONS; i++)
        if (h->conns[i] >= 0)
            shutdown(h->conns[i], SHUT_RDWR);
    while (h->nconns)
        pthread_cond_wait(&h->cv, &h->mu);
    pthread_mutex_unlock(&h->mu);
    pthread_mutex_destroy(&h->mu);
    pthread_cond_destroy(&h->cv);
    free(h);
    return QR_OK;
}
