/*
 * jsonrpc.c: JSON-RPC framing on a byte stream (quarry/jsonrpc.h): newline-delimited
 * messages and Content-Length frames, read into one growing buffer bounded by the
 * message cap, and the id scanner that names a message too large to keep.
 *
 * Design: the reader works on a descriptor with read(2) and poll(2), never on stdio's
 * FILE, whose buffering hides what poll would report as available (the MCP server looks
 * at input that arrived while a call runs, for a cancel). A frame is recognised in the
 * buffer by frame_at; one that is over the cap is not kept but streamed through the id
 * scanner until its end (its newline, or its Content-Length), so one bad message costs
 * one error and the stream stays in step. A header that does not say where its body ends
 * makes the reader drop input until a line that starts a new frame.
 *
 * Rejected: one reader per surface (there were three, with caps of 16 and 64 MB and
 * different answers to a bad header); closing the stream on an oversized message; taking
 * the last of several Content-Length fields (a request smuggled in a second one would be
 * read as the body of the first by one peer and as a message by another).
 */
#define _GNU_SOURCE
#include "quarry/jsonrpc.h"

#include <errno.h>
#include <stdarg.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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

void qr_jsonrpc_idscan_init(qr_jsonrpc_idscan *sc)
{
    memset(sc, 0, sizeof *sc);
}

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool id_key(const qr_jsonrpc_idscan *sc)
{
    return sc->keylen == 2 && sc->key[0] == 'i' && sc->key[1] == 'd';
}

static void keep(qr_jsonrpc_idscan *sc, char c)
{
    if (sc->idlen + 1u >= sizeof sc->id) {
        sc->done = true; /* an id this long is not one to answer with */
        return;
    }
    sc->id[sc->idlen++] = c;
}

static void after_value(qr_jsonrpc_idscan *sc, char c)
{
    if (is_ws(c))
        sc->state = SC_NEXT;
    else if (c == ',')
        sc->state = SC_KEY;
    else
        sc->done = true; /* '}' ends the object; anything else is malformed */
}

static void scan_char(qr_jsonrpc_idscan *sc, char c)
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

void qr_jsonrpc_idscan_feed(qr_jsonrpc_idscan *sc, const char *p, size_t n)
{
    for (size_t i = 0; i < n && !sc->done; i++)
        scan_char(sc, p[i]);
}

const char *qr_jsonrpc_idscan_result(const qr_jsonrpc_idscan *sc, size_t *len)
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

/* ---- the reader ---- */

enum { FR_OK, FR_BLANK, FR_MORE, FR_BIG, FR_BAD };

typedef struct frame {
    size_t body, blen; /* FR_OK: the message; FR_BIG: what of it is in the buffer */
    size_t next;       /* FR_OK, FR_BLANK, FR_BAD: where reading goes on */
    size_t skip;       /* FR_BIG or FR_BAD from a header: body bytes to drop from `body` */
    bool to_newline;   /* FR_BIG of a line: drop up to its newline */
    bool resync;       /* FR_BAD: the end is unknown; hunt for the next frame */
    const char *why;   /* FR_BAD */
} frame;

int qr_jsonrpc_reader_init(qr_jsonrpc_reader *r, int fd, qr_jsonrpc_framing framing, size_t max)
{
    memset(r, 0, sizeof *r);
    r->fd = fd;
    r->framing = framing;
    r->max = max ? max : QR_JSONRPC_MAX_MESSAGE;
    r->cap = 1u << 16;
    r->buf = malloc(r->cap);
    return r->buf ? QR_OK : QR_ENOMEM;
}

void qr_jsonrpc_reader_release(qr_jsonrpc_reader *r)
{
    free(r->buf);
    r->buf = NULL;
    r->pos = r->len = r->cap = 0;
}

/* The largest buffer a reader needs: a whole message, its header and one read. */
static size_t cap_max(const qr_jsonrpc_reader *r)
{
    size_t m;
    if (!qr_size_add(r->max, QR_JSONRPC_MAX_HEADER + (1u << 16), &m))
        return SIZE_MAX;
    return m;
}

static bool make_room(qr_jsonrpc_reader *r)
{
    if (r->len < r->cap)
        return true;
    size_t most = cap_max(r);
    if (r->cap >= most)
        return false;
    size_t cap = r->cap <= most / 2 ? r->cap * 2 : most;
    char *b = realloc(r->buf, cap);
    if (!b)
        return false;
    r->buf = b;
    r->cap = cap;
    return true;
}

/* Moves the unread data to the start of the buffer. */
static void compact(qr_jsonrpc_reader *r)
{
    if (!r->pos)
        return;
    memmove(r->buf, r->buf + r->pos, r->len - r->pos);
    r->len -= r->pos;
    r->peeked = r->peeked > r->pos ? r->peeked - r->pos : 0;
    r->pos = 0;
}

static void set_error(qr_jsonrpc_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void set_error(qr_jsonrpc_reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
}

/* One read(2) into the free room: QR_OK with bytes, QR_EIO at end of input or on error. */
static int read_some(qr_jsonrpc_reader *r)
{
    for (;;) {
        ssize_t n = read(r->fd, r->buf + r->len, r->cap - r->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n < 0) {
                r->read_errno = errno;
                set_error(r, "cannot read a message: %s", strerror(errno));
            } else {
                set_error(r, "end of input");
            }
            r->eof = true;
            return QR_EIO;
        }
        r->len += (size_t)n;
        return QR_OK;
    }
}

/* Waits for input (until deadline_ns, 0: none; checking stop) and reads some of it after
 * making room (compacting first). */
static int fill(qr_jsonrpc_reader *r, uint64_t deadline_ns, int timeout_ms, const qr_stop *stop)
{
    if (r->eof)
        return QR_EIO;
    compact(r);
    if (!make_room(r)) {
        set_error(r, "out of memory reading a message");
        return QR_ENOMEM;
    }
    for (;;) {
        if (stop && qr_stop_check(stop)) {
            set_error(r, "stopped while waiting for a message");
            return QR_ESTOPPED;
        }
        int wait = -1;
        if (deadline_ns) {
            uint64_t now = qr_clock_ns();
            if (now >= deadline_ns) {
                set_error(r, "no message within %d ms", timeout_ms);
                return QR_EIO;
            }
            uint64_t left = (deadline_ns - now + 999999u) / 1000000u;
            wait = left > 60000 ? 60000 : (int)left;
        }
        if (stop && (wait < 0 || wait > 50))
            wait = 50;
        struct pollfd p = {.fd = r->fd, .events = POLLIN};
        int k = poll(&p, 1, wait);
        if (k < 0 && errno != EINTR) {
            r->read_errno = errno;
            r->eof = true;
            set_error(r, "cannot wait for a message: %s", strerror(errno));
            return QR_EIO;
        }
        if (k > 0)
            return read_some(r);
    }
}

/* Parses the decimal value of a Content-Length field; false when it is not one. */
static bool parse_length(const char *p, size_t n, size_t *out)
{
    size_t i = 0, v = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t'))
        i++;
    size_t start = i;
    while (i < n && p[i] >= '0' && p[i] <= '9') {
        if (!qr_size_mul(v, 10, &v) || !qr_size_add(v, (size_t)(p[i] - '0'), &v))
            return false;
        i++;
    }
    if (i == start)
        return false;
    while (i < n && (p[i] == ' ' || p[i] == '\t'))
        i++;
    *out = v;
    return i == n;
}

static bool blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_ws(p[i]))
            return false;
    return true;
}

static int line_frame(const qr_jsonrpc_reader *r, size_t at, frame *f)
{
    const char *b = r->buf;
    const char *nl = memchr(b + at, '\n', r->len - at);
    f->body = at;
    if (!nl) {
        if (r->len - at <= r->max)
            return FR_MORE;
        f->blen = r->len - at;
        f->to_newline = true;
        return FR_BIG;
    }
    size_t end = (size_t)(nl - b);
    f->blen = end - at;
    f->next = end + 1;
    if (f->blen > r->max)
        return FR_BIG;
    if (f->blen && b[end - 1] == '\r')
        f->blen--;
    return blank(b + at, f->blen) ? FR_BLANK : FR_OK;
}

static int header_frame(const qr_jsonrpc_reader *r, size_t at, frame *f)
{
    const char *b = r->buf;
    size_t h = at;
    while (h < r->len && (b[h] == '\r' || b[h] == '\n'))
        h++;
    size_t count = 0, value = 0;
    bool bad_value = false, conflict = false;
    for (size_t p = h;;) {
        const char *nl = memchr(b + p, '\n', r->len - p);
        size_t end = nl ? (size_t)(nl - b) : r->len;
        if (end - h > QR_JSONRPC_MAX_HEADER) {
            f->next = end;
            f->resync = true;
            f->why = "a header longer than 8192 bytes";
            return FR_BAD;
        }
        if (!nl)
            return FR_MORE;
        size_t ln = end - p;
        if (ln && b[end - 1] == '\r')
            ln--;
        if (!ln) {
            f->body = end + 1;
            break;
        }
        if (ln >= 15 && !strncasecmp(b + p, "Content-Length:", 15)) {
            size_t v;
            if (!parse_length(b + p + 15, ln - 15, &v))
                bad_value = true;
            else if (count && v != value)
                conflict = true;
            else
                value = v;
            count++;
        }
        p = end + 1;
    }
    f->next = f->body;
    if (!count) {
        f->resync = true;
        f->why = "a header without Content-Length";
        return FR_BAD;
    }
    if (bad_value) {
        f->resync = true;
        f->why = "a Content-Length that is not a decimal number";
        return FR_BAD;
    }
    if (conflict) {
        f->resync = true;
        f->why = "conflicting Content-Length fields in one header";
        return FR_BAD;
    }
    if (count > 1) {
        f->skip = value; /* the body's end is known: drop exactly it */
        f->why = "a duplicated Content-Length field in one header";
        return FR_BAD;
    }
    if (value > r->max) {
        f->skip = value;
        f->blen = r->len - f->body < value ? r->len - f->body : value;
        return FR_BIG;
    }
    if (r->len - f->body < value)
        return FR_MORE;
    f->blen = value;
    f->next = f->body + value;
    return FR_OK;
}

/* What starts at buf[at]. */
static int frame_at(const qr_jsonrpc_reader *r, size_t at, frame *f)
{
    memset(f, 0, sizeof *f);
    qr_jsonrpc_framing fr = r->framing;
    if (fr == QR_JSONRPC_AUTO) {
        size_t i = at;
        while (i < r->len && is_ws(r->buf[i]))
            i++;
        fr = i == r->len || r->buf[i] == '{' || r->buf[i] == '[' ? QR_JSONRPC_LINES
                                                                 : QR_JSONRPC_HEADERS;
    }
    return fr == QR_JSONRPC_LINES ? line_frame(r, at, f) : header_frame(r, at, f);
}

/* After a bad header: drops input up to the next "Content-Length:" (anywhere: frames
 * follow each other with no newline between them), or in AUTO framing a line that starts
 * with '{' or '['. True when found. */
static bool hunt(qr_jsonrpc_reader *r)
{
    const char *b = r->buf;
    for (size_t i = r->pos; i < r->len; i++) {
        bool bol = i == r->pos ? r->hunt_bol : b[i - 1] == '\n';
        if (r->framing == QR_JSONRPC_AUTO && bol && (b[i] == '{' || b[i] == '[')) {
            r->pos = i;
            r->hunting = false;
            return true;
        }
        size_t left = r->len - i;
        size_t n = left < 15 ? left : 15;
        if ((b[i] == 'C' || b[i] == 'c') && !strncasecmp(b + i, "Content-Length:", n)) {
            r->pos = i;
            r->hunt_bol = bol;
            if (n == 15) {
                r->hunting = false;
                return true;
            }
            return false; /* a prefix of the name: wait for the rest */
        }
    }
    if (r->len > r->pos)
        r->hunt_bol = b[r->len - 1] == '\n';
    r->pos = r->len;
    return false;
}

/* Drops a message over the cap: `have` bytes of it at buf[at], then the rest (up to a
 * newline, or `skip` bytes in all), each byte through the id scanner. */
static int drop_big(qr_jsonrpc_reader *r, const frame *f, uint64_t deadline_ns, int timeout_ms,
                    const qr_stop *stop)
{
    qr_jsonrpc_idscan sc;
    qr_jsonrpc_idscan_init(&sc);
    size_t total = f->blen;
    qr_jsonrpc_idscan_feed(&sc, r->buf + f->body, f->blen);
    int rc = QR_OK;
    if (!f->to_newline && !f->skip) {
        r->pos = f->next; /* a whole line over the cap, in the buffer */
    } else if (!f->to_newline && total >= f->skip) {
        r->pos = f->body + f->skip; /* a whole frame in the buffer: what follows is kept */
    } else {
        r->pos = r->len;
        while (f->to_newline || total < f->skip) {
            if ((rc = fill(r, deadline_ns, timeout_ms, stop)) != QR_OK)
                break;
            size_t k = r->len - r->pos;
            const char *nl = NULL;
            if (f->to_newline) {
                nl = memchr(r->buf + r->pos, '\n', k);
                if (nl)
                    k = (size_t)(nl - (r->buf + r->pos));
            } else if (k > f->skip - total) {
                k = f->skip - total;
            }
            qr_jsonrpc_idscan_feed(&sc, r->buf + r->pos, k);
            total += k;
            r->pos += k + (nl ? 1 : 0);
            if (nl)
                break;
        }
    }
    if (rc == QR_ESTOPPED || rc == QR_ENOMEM)
        return rc;
    const char *id = qr_jsonrpc_idscan_result(&sc, &r->idlen);
    r->has_id = id != NULL;
    if (id)
        memcpy(r->id, id, r->idlen);
    r->id[r->has_id ? r->idlen : 0] = 0;
    r->bad_len = f->skip > total ? f->skip : total;
    set_error(r, "a message of %zu bytes is over the limit of %zu bytes", r->bad_len, r->max);
    return QR_ELIMIT;
}

/* Drops `n` body bytes starting at buf[at] (a frame whose header was bad but says where it
 * ends). */
static int drop_known(qr_jsonrpc_reader *r, size_t at, size_t n, uint64_t deadline_ns,
                      int timeout_ms, const qr_stop *stop)
{
    size_t have = r->len - at;
    if (have >= n) {
        r->pos = at + n;
        return QR_OK;
    }
    n -= have;
    r->pos = r->len;
    while (n) {
        int rc = fill(r, deadline_ns, timeout_ms, stop);
        if (rc != QR_OK)
            return rc;
        size_t k = r->len - r->pos < n ? r->len - r->pos : n;
        r->pos += k;
        n -= k;
    }
    return QR_OK;
}

int qr_jsonrpc_read(qr_jsonrpc_reader *r, int timeout_ms, const qr_stop *stop, const char **msg,
                    size_t *len)
{
    uint64_t deadline_ns = timeout_ms >= 0 ? qr_clock_ns() + (uint64_t)timeout_ms * 1000000u : 0;
    r->error[0] = 0;
    *msg = NULL;
    *len = 0;
    for (;;) {
        if (stop && qr_stop_check(stop)) {
            set_error(r, "stopped while waiting for a message");
            return QR_ESTOPPED;
        }
        if (r->hunting && !hunt(r)) {
            int rc = fill(r, deadline_ns, timeout_ms, stop);
            if (rc != QR_OK)
                return rc;
            continue;
        }
        frame f;
        int k = frame_at(r, r->pos, &f);
        switch (k) {
        case FR_OK:
            r->pos = f.next;
            *msg = r->buf + f.body;
            *len = f.blen;
            return QR_OK;
        case FR_BLANK:
            r->pos = f.next;
            continue;
        case FR_BIG:
            return drop_big(r, &f, deadline_ns, timeout_ms, stop);
        case FR_BAD: {
            set_error(r, "bad frame: %s", f.why);
            if (f.resync) {
                r->pos = f.next;
                r->hunting = true;
                r->hunt_bol = f.next > 0 && r->buf[f.next - 1] == '\n';
            } else {
                int rc = drop_known(r, f.next, f.skip, deadline_ns, timeout_ms, stop);
                if (rc == QR_ESTOPPED || rc == QR_ENOMEM)
                    return rc;
                set_error(r, "bad frame: %s", f.why);
            }
            return QR_EINVAL;
        }
        default: /* FR_MORE */
            break;
        }
        if (r->eof) {
            /* a last line without a newline is a message */
            bool lines = r->framing == QR_JSONRPC_LINES ||
                         (r->framing == QR_JSONRPC_AUTO && !r->hunting &&
                          r->pos < r->len && (r->buf[r->pos] == '{' || r->buf[r->pos] == '['));
            if (lines && r->len > r->pos && !blank(r->buf + r->pos, r->len - r->pos)) {
                *msg = r->buf + r->pos;
                *len = r->len - r->pos;
                r->pos = r->len;
                if (*len && (*msg)[*len - 1] == '\r')
                    (*len)--;
                return QR_OK;
            }
            r->pos = r->len;
            if (!r->read_errno)
                set_error(r, "end of input");
            return QR_EIO;
        }
        int rc = fill(r, deadline_ns, timeout_ms, stop);
        if (rc != QR_OK && !(rc == QR_EIO && r->eof && !r->read_errno))
            return rc;
    }
}

void qr_jsonrpc_poll(qr_jsonrpc_reader *r, void (*fn)(void *ud, const char *msg, size_t len),
                     void *ud)
{
    while (!r->eof && make_room(r)) {
        struct pollfd p = {.fd = r->fd, .events = POLLIN};
        if (poll(&p, 1, 0) <= 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR)))
            break;
        if (read_some(r) != QR_OK)
            break;
    }
    if (r->hunting)
        return;
    size_t at = r->peeked > r->pos ? r->peeked : r->pos;
    for (;;) {
        frame f;
        int k = frame_at(r, at, &f);
        if (k == FR_OK && fn)
            fn(ud, r->buf + f.body, f.blen);
        if (k != FR_OK && k != FR_BLANK)
            break;
        at = r->peeked = f.next;
    }
}

/* ---- the writer ---- */

int qr_jsonrpc_write(int fd, qr_jsonrpc_framing framing, const char *msg, size_t len)
{
    if (framing == QR_JSONRPC_HEADERS) {
        char head[64];
        int hn = snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", len);
        if (qr_write_all(fd, head, (size_t)hn) != QR_OK)
            return QR_EIO;
        return qr_write_all(fd, msg, len);
    }
    if (qr_write_all(fd, msg, len) != QR_OK)
        return QR_EIO;
    return qr_write_all(fd, "\n", 1);
}
