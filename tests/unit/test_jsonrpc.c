/*
 * test_jsonrpc.c: the shared JSON-RPC framing (quarry/jsonrpc.h): both framings and the
 * automatic choice, the one message cap (a larger message is an error for itself and the
 * next one is read), bad Content-Length headers (missing, malformed, duplicated,
 * conflicting), the timeout and the stop, the poll that shows messages without consuming
 * them, and the writer (both framings; a closed peer is an error, not SIGPIPE).
 */
#define _GNU_SOURCE
#include "check.h"
#include "quarry/jsonrpc.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A descriptor that reads back the n bytes at p (a temporary file). */
static int input_fd(const char *p, size_t n)
{
    FILE *f = tmpfile();
    if (!f)
        return -1;
    if (n && fwrite(p, 1, n, f) != n)
        return -1;
    fflush(f);
    int fd = dup(fileno(f));
    fclose(f);
    lseek(fd, 0, SEEK_SET);
    return fd;
}

typedef struct reading {
    qr_jsonrpc_reader r;
    int fd;
    char msg[512];
} reading;

static void open_reading(reading *t, const char *p, size_t n, qr_jsonrpc_framing fr, size_t max)
{
    t->fd = input_fd(p, n);
    CHECK(t->fd >= 0);
    CHECK(qr_jsonrpc_reader_init(&t->r, t->fd, fr, max) == QR_OK);
}

/* Reads one message: its code, and the message in t->msg. */
static int next(reading *t)
{
    const char *m;
    size_t n;
    int rc = qr_jsonrpc_read(&t->r, 5000, NULL, &m, &n);
    t->msg[0] = 0;
    if (rc == QR_OK) {
        if (n >= sizeof t->msg)
            n = sizeof t->msg - 1;
        memcpy(t->msg, m, n);
        t->msg[n] = 0;
    }
    return rc;
}

static void close_reading(reading *t)
{
    qr_jsonrpc_reader_release(&t->r);
    close(t->fd);
}

static void test_lines(void)
{
    reading t;
    const char *in = "{\"id\":1}\r\n\n   \n{\"id\":2}\n{\"id\":3}";
    open_reading(&t, in, strlen(in), QR_JSONRPC_LINES, 0);
    CHECK(next(&t) == QR_OK);
    CHECK_STR(t.msg, "{\"id\":1}");
    CHECK(next(&t) == QR_OK);
    CHECK_STR(t.msg, "{\"id\":2}");
    CHECK(next(&t) == QR_OK); /* a last line without a newline is a message */
    CHECK_STR(t.msg, "{\"id\":3}");
    CHECK(next(&t) == QR_EIO);
    CHECK(t.r.eof && t.r.read_errno == 0);
    CHECK_STR(t.r.error, "end of input");
    close_reading(&t);
}

static void test_headers(void)
{
    reading t;
    const char *in = "Content-Length: 8\r\n\r\n{\"id\":1}"
                     "content-length:8\r\nContent-Type: application/vscode-jsonrpc\r\n\r\n{\"id\":2}"
                     "\r\nContent-Length:  10 \n\n{ \"id\":3 }";
    open_reading(&t, in, strlen(in), QR_JSONRPC_HEADERS, 0);
    CHECK(next(&t) == QR_OK);
    CHECK_STR(t.msg, "{\"id\":1}");
    CHECK(next(&t) == QR_OK);
    CHECK_STR(t.msg, "{\"id\":2}");
    CHECK(next(&t) == QR_OK);
    CHECK_STR(t.msg, "{ \"id\":3 }");
    CHECK(next(&t) == QR_EIO);
    close_reading(&t);
    /* a body cut short by the end of input is no message */
    const char *cut = "Content-Length: 20\r\n\r\n{\"id\":1}";
    open_reading(&t, cut, strlen(cut), QR_JSONRPC_HEADERS, 0);
    CHECK(next(&t) == QR_EIO);
    close_reading(&t);
}

static void test_auto(void)
{
    reading t;
    const char *in = "{\"id\":1}\nContent-Length: 8\r\n\r\n{\"id\":2}\n[1,2]\n";
    open_reading(&t, in, strlen(in), QR_JSONRPC_AUTO, 0);
    CHECK(next(&t) == QR_OK);
    CHECK_STR(t.msg, "{\"id\":1}");
    CHECK(next(&t) == QR_OK);
    CHECK_STR(t.msg, "{\"id\":2}");
    CHECK(next(&t) == QR_OK);
    CHECK_STR(t.msg, "[1,2]");
    CHECK(next(&t) == QR_EIO);
    close_reading(&t);
}

static void test_cap(void)
{
    reading t;
    /* a line over the cap, whole in the buffer: an error naming its id, then the next */
    const char *in = "{\"id\":7,\"x\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}\n{\"id\":8}\n";
    open_reading(&t, in, strlen(in), QR_JSONRPC_LINES, 16);
    CHECK(next(&t) == QR_ELIMIT);
    CHECK(t.r.has_id && !strcmp(t.r.id, "7"));
    CHECK(t.r.bad_len == strlen("{\"id\":7,\"x\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}"));
    CHECK(strstr(t.r.error, "over the limit of 16 bytes") != NULL);
    CHECK(next(&t) == QR_OK);
    CHECK_STR(t.msg, "{\"id\":8}");
    close_reading(&t);

    /* a line far larger than the buffer: streamed through, never kept */
    size_t big = 300000;
    char *p = malloc(big + 128);
    CHECK(p != NULL);
    if (!p)
        return;
    size_t n = (size_t)sprintf(p, "{\"id\":\"abc\",\"x\":\"");
    memset(p + n, 'z', big);
    n += big;
    n += (size_t)sprintf(p + n, "\"}\n{\"id\":9}\n");
    open_reading(&t, p, n, QR_JSONRPC_LINES, 1000);
    CHECK(next(&t) == QR_ELIMIT);
    CHECK(t.r.has_id && !strcmp(t.r.id, "\"abc\""));
    CHECK(t.r.bad_len == n - strlen("\n{\"id\":9}\n"));
    CHECK(t.r.cap < 100000); /* the buffer never held the message */
    CHECK(next(&t) == QR_OK);
    CHECK_STR(t.msg, "{\"id\":9}");
    close_reading(&t);

    /* a Content-Length over the cap: its body is dropped, the next frame is read */
    n = (size_t)sprintf(p, "Content-Length: %zu\r\n\r\n{\"id\":4,\"x\":\"", big + 15);
    memset(p + n, 'z', big);
    n += big;
    n += (size_t)sprintf(p + n, "\"}Content-Length: 8\r\n\r\n{\"id\":5}");
    open_reading(&t, p, n, QR_JSONRPC_HEADERS, 1000);
    CHECK(next(&t) == QR_ELIMIT);
    CHECK(t.r.has_id && !strcmp(t.r.id, "4"));
    CHECK(t.r.bad_len == big + 15);
    CHECK(next(&t) == QR_OK);
    CHECK_STR(t.msg, "{\"id\":5}");
    close_reading(&t);
    free(p);

    /* the default cap is the one for every surface */
    CHECK(qr_jsonrpc_reader_init(&t.r, 0, QR_JSONRPC_LINES, 0) == QR_OK);
    CHECK(t.r.max == 16u << 20);
    qr_jsonrpc_reader_release(&t.r);
}

static void bad_header(const char *in, const char *why, bool next_ok)
{
    reading t;
    open_reading(&t, in, strlen(in), QR_JSONRPC_HEADERS, 0);
    CHECK(next(&t) == QR_EINVAL);
    if (!strstr(t.r.error, why)) {
        fprintf(stderr, "error '%s' lacks '%s'\n", t.r.error, why);
        check_failures++;
    }
    if (next_ok) {
        CHECK(next(&t) == QR_OK);
        CHECK_STR(t.msg, "{\"id\":2}");
    }
    CHECK(next(&t) == QR_EIO);
    close_reading(&t);
}

static void test_bad_headers(void)
{
    bad_header("Content-Length: 8\r\nContent-Length: 8\r\n\r\n{\"id\":1}"
               "Content-Length: 8\r\n\r\n{\"id\":2}",
               "duplicated Content-Length", true);
    bad_header("Content-Length: 8\r\nContent-Length: 9\r\n\r\n{\"id\":1}"
               "Content-Length: 8\r\n\r\n{\"id\":2}",
               "conflicting Content-Length", true);
    bad_header("Content-Type: nothing\r\n\r\n{\"id\":1}Content-Length: 8\r\n\r\n{\"id\":2}",
               "without Content-Length", true);
    bad_header("Content-Length: 8x\r\n\r\n{\"id\":1}\nContent-Length: 8\r\n\r\n{\"id\":2}",
               "not a decimal number", true);
    bad_header("Content-Length: 99999999999999999999999\r\n\r\n{}", "not a decimal number",
               false);
    bad_header("Content-Length: -1\r\n\r\n{}", "not a decimal number", false);
    /* a header that never ends */
    char *p = malloc(20000);
    if (!p)
        return;
    memset(p, 'h', 19999);
    p[19999] = 0;
    bad_header(p, "header longer than 8192 bytes", false);
    free(p);
}

static void test_timeout_and_stop(void)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    qr_jsonrpc_reader r;
    CHECK(qr_jsonrpc_reader_init(&r, fds[0], QR_JSONRPC_LINES, 0) == QR_OK);
    const char *m;
    size_t n;
    CHECK(qr_jsonrpc_read(&r, 20, NULL, &m, &n) == QR_EIO);
    CHECK(!r.eof);
    CHECK(strstr(r.error, "no message within 20 ms") != NULL);
    qr_stop stop;
    qr_stop_init(&stop, 0);
    qr_stop_request(&stop);
    CHECK(qr_jsonrpc_read(&r, -1, &stop, &m, &n) == QR_ESTOPPED);
    /* a message that arrives afterwards is still read whole */
    CHECK(write(fds[1], "{\"a\":", 5) == 5);
    CHECK(qr_jsonrpc_read(&r, 20, NULL, &m, &n) == QR_EIO);
    CHECK(write(fds[1], "1}\n", 3) == 3);
    CHECK(qr_jsonrpc_read(&r, 5000, NULL, &m, &n) == QR_OK);
    CHECK(n == 7 && !memcmp(m, "{\"a\":1}", 7));
    qr_jsonrpc_reader_release(&r);
    close(fds[0]);
    close(fds[1]);
}

typedef struct seen {
    char all[256];
    int count;
} seen;

static void on_peek(void *ud, const char *msg, size_t len)
{
    seen *s = ud;
    s->count++;
    strncat(s->all, msg, len);
    strcat(s->all, ";");
}

static void test_poll(void)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    const char *in = "{\"id\":1}\n{\"id\":2}\nContent-Length: 8\r\n\r\n{\"id\":3}{\"id\":";
    CHECK(write(fds[1], in, strlen(in)) == (ssize_t)strlen(in));
    qr_jsonrpc_reader r;
    CHECK(qr_jsonrpc_reader_init(&r, fds[0], QR_JSONRPC_AUTO, 0) == QR_OK);
    const char *m;
    size_t n;
    CHECK(qr_jsonrpc_read(&r, 5000, NULL, &m, &n) == QR_OK);
    CHECK(n == 8 && !memcmp(m, "{\"id\":1}", 8));
    seen s = {{0}, 0};
    qr_jsonrpc_poll(&r, on_peek, &s);
    CHECK_STR(s.all, "{\"id\":2};{\"id\":3};");
    CHECK(write(fds[1], "4}\n", 3) == 3);
    qr_jsonrpc_poll(&r, on_peek, &s); /* only what is new */
    CHECK_STR(s.all, "{\"id\":2};{\"id\":3};{\"id\":4};");
    CHECK(s.count == 3);
    /* and nothing was consumed */
    for (int i = 2; i <= 4; i++) {
        char want[16];
        snprintf(want, sizeof want, "{\"id\":%d}", i);
        CHECK(qr_jsonrpc_read(&r, 5000, NULL, &m, &n) == QR_OK);
        CHECK(n == strlen(want) && !memcmp(m, want, n));
    }
    qr_jsonrpc_reader_release(&r);
    close(fds[0]);
    close(fds[1]);
}

static void test_write(void)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    CHECK(qr_jsonrpc_write(sv[0], QR_JSONRPC_HEADERS, "{\"id\":1}", 8) == QR_OK);
    CHECK(qr_jsonrpc_write(sv[0], QR_JSONRPC_LINES, "{\"id\":2}", 8) == QR_OK);
    char buf[128] = {0};
    size_t want = strlen("Content-Length: 8\r\n\r\n{\"id\":1}{\"id\":2}\n"), got = 0;
    while (got < want) {
        ssize_t k = read(sv[1], buf + got, sizeof buf - 1 - got);
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    CHECK_STR(buf, "Content-Length: 8\r\n\r\n{\"id\":1}{\"id\":2}\n");
    /* what one writes, the other reads back */
    qr_jsonrpc_reader r;
    CHECK(qr_jsonrpc_reader_init(&r, sv[1], QR_JSONRPC_HEADERS, 0) == QR_OK);
    CHECK(qr_jsonrpc_write(sv[0], QR_JSONRPC_HEADERS, "{\"b\":[1,2]}", 11) == QR_OK);
    const char *m;
    size_t n;
    CHECK(qr_jsonrpc_read(&r, 5000, NULL, &m, &n) == QR_OK);
    CHECK(n == 11 && !memcmp(m, "{\"b\":[1,2]}", 11));
    qr_jsonrpc_reader_release(&r);
    /* a peer that went away: an error, and this process is still here (no SIGPIPE) */
    close(sv[1]);
    CHECK(qr_jsonrpc_write(sv[0], QR_JSONRPC_LINES, "{}", 2) == QR_EIO);
    close(sv[0]);
}

int main(void)
{
    test_lines();
    test_headers();
    test_auto();
    test_cap();
    test_bad_headers();
    test_timeout_and_stop();
    test_poll();
    test_write();
    CHECK_DONE();
}
