/*
 * stdio.c: the stdio transport of the MCP server: newline-delimited JSON-RPC messages
 * read from one descriptor and written to another (the server's stdin and stdout), and
 * the scanner that finds the id of a message too large to read.
 *
 * Design: one reading thread and one growing buffer. Complete lines are handed to
 * qr_mcp_handle in order; a message is never split or merged. With the server's workers
 * running (the default), qr_mcp_handle returns as soon as a call is queued, so this
 * thread reads on: ping and notifications/cancelled take effect while calls run. With
 * one worker, calls run on this thread; then, while a request runs, the server calls the
 * poll hook before answering: it reads whatever input has already arrived, without
 * blocking, and shows each complete line to qr_mcp_peek, so a notifications/cancelled
 * for the running request (or for one queued behind it) takes effect. The buffer is
 * bounded by the message limit: a line longer than it is not kept but streamed through
 * the id scanner, and answered with an error that carries its id, so the client's
 * request fails at once instead of waiting for a timeout. A client that closes its end
 * ends the loop: at end of input after the last complete message (and a last line without
 * a newline) is answered, at EPIPE as soon as a write fails; either way the server exits
 * with status 0, as the lifecycle's stdio shutdown expects.
 *
 * Rejected: reading
 * with stdio's FILE (its buffering hides what poll(2) would report as available);
 * closing the connection on an oversized message (one bad message should cost one error).
 */
#include "mcp_int.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the id scanner ---- */

enum {
    SC_TOP = 0, /* before the top-level object */
    SC_KEY,     /* in the object, before a member's name */
    SC_KEYSTR,  /* in a member's name */
    SC_COLON,   /* after the name */
    SC_VALUE,   /* before the value */
    SC_VALSTR,  /* in a string value */
    SC_IDSTR,   /* in the string value of "id" (kept) */
    SC_IDNUM,   /* in the number value of "id" (kept) */
    SC_SCALAR,  /* in another scalar value */
    SC_NESTED,  /* inside an object or array value */
    SC_NEXT,    /* after a value */
};

void qr_mcp_idscan_init(qr_mcp_idscan *sc)
{
    memset(sc, 0, sizeof *sc);
}

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool id_key(const qr_mcp_idscan *sc)
{
    return sc->keylen == 2 && sc->key[0] == 'i' && sc->key[1] == 'd';
}

static void keep(qr_mcp_idscan *sc, char c)
{
    if (sc->idlen + 1u >= sizeof sc->id) {
        sc->done = true; /* an id this long is not one to answer with */
        return;
    }
    sc->id[sc->idlen++] = c;
}

static void after_value(qr_mcp_idscan *sc, char c)
{
    if (is_ws(c))
        sc->state = SC_NEXT;
    else if (c == ',')
        sc->state = SC_KEY;
    else
        sc->done = true; /* '}' ends the object; anything else is malformed */
}

static void scan_char(qr_mcp_idscan *sc, char c)
{
    switch (sc->state) {
    case SC_TOP:
        if (c == '{') {
            sc->depth = 1;
            sc->state = SC_KEY;
        } else if (!is_ws(c)) {
            sc->done = true;
        }
        break;
    case SC_KEY:
        if (c == '"') {
            sc->keylen = 0;
            sc->state = SC_KEYSTR;
        } else if (!is_ws(c) && c != ',') {
            sc->done = true;
        }
        break;
    case SC_KEYSTR:
        if (sc->esc) {
            sc->esc = false;
            sc->keylen = 3; /* an escaped name is not the plain "id" */
        } else if (c == '\\') {
            sc->esc = true;
        } else if (c == '"') {
            sc->state = SC_COLON;
        } else if (sc->keylen < 3) {
            sc->key[sc->keylen++] = c;
        } else {
            sc->keylen = 3;
        }
        break;
    case SC_COLON:
        if (c == ':')
            sc->state = SC_VALUE;
        else if (!is_ws(c))
            sc->done = true;
        break;
    case SC_VALUE:
        if (is_ws(c))
            break;
        if (id_key(sc) && c == '"') {
            sc->idlen = 0;
            keep(sc, c);
            sc->state = SC_IDSTR;
        } else if (id_key(sc) && (c == '-' || (c >= '0' && c <= '9'))) {
            sc->idlen = 0;
            keep(sc, c);
            sc->state = SC_IDNUM;
        } else if (c == '"') {
            sc->state = SC_VALSTR;
        } else if (c == '{' || c == '[') {
            sc->depth = 2;
            sc->in_str = false;
            sc->state = SC_NESTED;
        } else {
            sc->state = SC_SCALAR;
        }
        break;
    case SC_VALSTR:
    case SC_IDSTR:
        if (sc->state == SC_IDSTR)
            keep(sc, c);
        if (sc->esc) {
            sc->esc = false;
        } else if (c == '\\') {
            sc->esc = true;
        } else if (c == '"') {
            if (sc->state == SC_IDSTR) {
                sc->found = sc->done = true;
                return;
            }
            sc->state = SC_NEXT;
        }
        break;
    case SC_IDNUM:
        if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
            keep(sc, c);
        } else {
            sc->found = sc->done = true;
        }
        break;
    case SC_SCALAR:
        if (c == ',')
            sc->state = SC_KEY;
        else if (c == '}')
            sc->done = true;
        break;
    case SC_NESTED:
        if (sc->in_str) {
            if (sc->esc)
                sc->esc = false;
            else if (c == '\\')
                sc->esc = true;
            else if (c == '"')
                sc->in_str = false;
        } else if (c == '"') {
            sc->in_str = true;
        } else if (c == '{' || c == '[') {
            if (sc->depth == UINT32_MAX)
                sc->done = true;
            else
                sc->depth++;
        } else if (c == '}' || c == ']') {
            if (--sc->depth == 1)
                sc->state = SC_NEXT;
        }
        break;
    case SC_NEXT:
        if (!is_ws(c))
            after_value(sc, c);
        break;
    }
}

void qr_mcp_idscan_feed(qr_mcp_idscan *sc, const char *p, size_t n)
{
    for (size_t i = 0; i < n && !sc->done; i++)
        scan_char(sc, p[i]);
}

const char *qr_mcp_idscan_result(const qr_mcp_idscan *sc, size_t *len)
{
    /* a number still being read when the input ended is complete too */
    bool found = sc->found || (sc->state == SC_IDNUM && !sc->done && sc->idlen);
    if (!found) {
        *len = 0;
        return NULL;
    }
    *len = sc->idlen;
    return sc->id;
}

/* ---- the transport ---- */

typedef struct stdio_io {
    qr_mcp_server *s;
    int in, out;
    char *buf;
    size_t pos;    /* start of the unread data */
    size_t len;    /* end of the data */
    size_t peeked; /* complete lines before this were shown to qr_mcp_peek */
    size_t cap, cap_max;
    bool eof;
    int read_errno;
} stdio_io;

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return QR_EIO;
        p += k;
        n -= (size_t)k;
    }
    return QR_OK;
}

static int io_send(void *ud, const char *msg, size_t len, const char *req_id, bool final)
{
    stdio_io *io = ud;
    (void)req_id;
    (void)final;
    if (!msg)
        return QR_OK; /* a request ended without a response: nothing to write */
    if (write_all(io->out, msg, len) != QR_OK || write_all(io->out, "\n", 1) != QR_OK)
        return QR_EIO;
    return QR_OK;
}

/* Room to read into: grows the buffer (never past cap_max). False when full. */
static bool make_room(stdio_io *io)
{
    if (io->len < io->cap)
        return true;
    if (io->cap >= io->cap_max)
        return false;
    size_t cap = io->cap * 2 < io->cap_max ? io->cap * 2 : io->cap_max;
    char *b = realloc(io->buf, cap);
    if (!b)
        return false;
    io->buf = b;
    io->cap = cap;
    return true;
}

/* One read(2) into the buffer: false at end of input or on an error (then eof is set). */
static bool read_some(stdio_io *io)
{
    for (;;) {
        ssize_t n = read(io->in, io->buf + io->len, io->cap - io->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n < 0)
                io->read_errno = errno;
            io->eof = true;
            return false;
        }
        io->len += (size_t)n;
        return true;
    }
}

/* The poll hook: reads what has arrived without blocking, and shows every new complete
 * line to qr_mcp_peek. It may move the buffer (the message being handled was parsed
 * before the server polls) but never drops or reorders input. */
static void io_poll(void *ud)
{
    stdio_io *io = ud;
    while (!io->eof && make_room(io)) {
        struct pollfd p = {.fd = io->in, .events = POLLIN};
        if (poll(&p, 1, 0) <= 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR)))
            break;
        if (!read_some(io))
            break;
    }
    if (io->peeked < io->pos)
        io->peeked = io->pos;
    for (;;) {
        char *nl = memchr(io->buf + io->peeked, '\n', io->len - io->peeked);
        if (!nl)
            break;
        size_t end = (size_t)(nl - io->buf);
        qr_mcp_peek(io->s, io->buf + io->peeked, end - io->peeked);
        io->peeked = end + 1;
    }
}

static bool blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_ws(p[i]))
            return false;
    return true;
}

/* The line at the start of the unread data is longer than the limit and has no newline
 * in the buffer: stream the rest of it through the id scanner, then answer it. */
static int skip_oversized(stdio_io *io)
{
    qr_mcp_idscan sc;
    qr_mcp_idscan_init(&sc);
    size_t total = io->len - io->pos;
    qr_mcp_idscan_feed(&sc, io->buf + io->pos, total);
    io->pos = io->len = io->peeked = 0;
    while (!io->eof && read_some(io)) {
        char *nl = memchr(io->buf, '\n', io->len);
        size_t k = nl ? (size_t)(nl - io->buf) : io->len;
        qr_mcp_idscan_feed(&sc, io->buf, k);
        total += k;
        if (nl) {
            io->pos = io->peeked = k + 1;
            break;
        }
        io->len = 0;
    }
    size_t idlen;
    const char *id = qr_mcp_idscan_result(&sc, &idlen);
    return qr_mcp_handle_oversized(io->s, total, id, idlen);
}

static int handle_line(stdio_io *io, const char *p, size_t n)
{
    if (n > io->s->cfg.max_message) {
        qr_mcp_idscan sc;
        qr_mcp_idscan_init(&sc);
        qr_mcp_idscan_feed(&sc, p, n);
        size_t idlen;
        const char *id = qr_mcp_idscan_result(&sc, &idlen);
        return qr_mcp_handle_oversized(io->s, n, id, idlen);
    }
    if (n && p[n - 1] == '\r')
        n--;
    if (blank(p, n))
        return QR_OK;
    return qr_mcp_handle(io->s, p, n);
}

int qr_mcp_serve_stdio(qr_mcp_server *s, int in_fd, int out_fd)
{
    stdio_io io = {.s = s, .in = in_fd, .out = out_fd};
    size_t max = s->cfg.max_message;
    io.cap_max = max > SIZE_MAX - (1u << 16) ? SIZE_MAX : max + (1u << 16);
    io.cap = io.cap_max < (1u << 16) ? io.cap_max : (1u << 16);
    io.buf = malloc(io.cap);
    if (!io.buf)
        return QR_ENOMEM;
    qr_mcp_set_io(s, io_send, io_poll, &io);
    /* calls run on the workers (when there are several), so this thread keeps reading:
     * pings and cancellations are answered while calls run */
    if (qr_mcp_start_workers(s) != QR_OK && s->cfg.log)
        s->cfg.log(s->cfg.log_ud, "cannot start worker threads: calls run one at a time");
    int rc = QR_OK;
    for (;;) {
        char *nl = memchr(io.buf + io.pos, '\n', io.len - io.pos);
        if (nl) {
            size_t start = io.pos, end = (size_t)(nl - io.buf);
            io.pos = end + 1;
            rc = handle_line(&io, io.buf + start, end - start);
        } else if (io.len - io.pos > max) {
            rc = skip_oversized(&io);
        } else if (io.eof) {
            if (io.len > io.pos)
                rc = handle_line(&io, io.buf + io.pos, io.len - io.pos);
            break;
        } else {
            /* keep the unread data at the start, then read more */
            memmove(io.buf, io.buf + io.pos, io.len - io.pos);
            io.len -= io.pos;
            io.peeked = io.peeked > io.pos ? io.peeked - io.pos : 0;
            io.pos = 0;
            if (!make_room(&io)) {
                rc = QR_ENOMEM;
                break;
            }
            read_some(&io);
            continue;
        }
        if (rc != QR_OK)
            break;
    }
    /* at end of input every call is answered; a client that stopped reading gets
     * nothing more, so what runs is stopped */
    qr_mcp_stop_workers(s, rc != QR_OK);
    qr_mcp_set_io(s, NULL, NULL, NULL);
    free(io.buf);
    if (rc == QR_EIO) /* the client stopped reading: a normal end */
        rc = QR_OK;
    if (rc == QR_OK && io.read_errno)
        rc = QR_EIO;
    return rc;
}
