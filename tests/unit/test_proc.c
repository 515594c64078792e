/*
 * test_proc.c: the child-process runner (quarry/proc.h) with real programs: capture of
 * stdout and stderr (apart and merged), stdin fed from memory (also to a child that stops
 * reading), the caps, the scrubbed environment, the working directory, a missing
 * program, the timeout and the stop (each kills the whole process group, grandchildren
 * included), and a long-lived child over a socket. Times are bounds on "it returned",
 * generous enough for a loaded machine: no test measures speed.
 */
#define _GNU_SOURCE
#include "check.h"
#include "quarry/proc.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int run(const char *const *argv, qr_proc_opts *o, qr_proc_result *r)
{
    o->argv = argv;
    qr_proc_result_init(r);
    return qr_proc_run(o, r);
}

static const char *text(const qr_buf *b)
{
    return b->p ? b->p : "";
}

static void test_capture(void)
{
    qr_proc_opts o = {0};
    qr_proc_result r;
    const char *sh[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
    CHECK(run(sh, &o, &r) == QR_OK);
    CHECK_STR(text(&r.out), "out\n");
    CHECK_STR(text(&r.err), "err\n");
    CHECK(r.status == 3);
    qr_proc_result_clear(&r);

    o = (qr_proc_opts){.merge_stderr = true};
    const char *both[] = {"sh", "-c", "echo a; echo b >&2; echo c", NULL};
    CHECK(run(both, &o, &r) == QR_OK);
    CHECK_STR(text(&r.out), "a\nb\nc\n");
    CHECK(r.err.len == 0);
    qr_proc_result_clear(&r);

    /* killed by a signal: 128 + N */
    o = (qr_proc_opts){0};
    const char *killed[] = {"sh", "-c", "kill -9 $$", NULL};
    CHECK(run(killed, &o, &r) == QR_OK);
    CHECK(r.status == 128 + 9);
    qr_proc_result_clear(&r);

    o = (qr_proc_opts){.dir = "/"};
    const char *pwd[] = {"pwd", NULL};
    CHECK(run(pwd, &o, &r) == QR_OK);
    CHECK_STR(text(&r.out), "/\n");
    qr_proc_result_clear(&r);

    /* stdin is /dev/null unless input is given */
    o = (qr_proc_opts){0};
    const char *cat[] = {"cat", NULL};
    CHECK(run(cat, &o, &r) == QR_OK);
    CHECK(r.out.len == 0 && r.status == 0);
    qr_proc_result_clear(&r);
    o = (qr_proc_opts){.input = "abc\n", .input_len = 4};
    CHECK(run(cat, &o, &r) == QR_OK);
    CHECK_STR(text(&r.out), "abc\n");
    qr_proc_result_clear(&r);
}

static void test_input_and_caps(void)
{
    /* a child that reads 10 bytes of 4 MB and exits: no SIGPIPE for us, no hang */
    size_t n = 4u << 20;
    char *big = malloc(n);
    CHECK(big != NULL);
    if (!big)
        return;
    memset(big, 'x', n);
    qr_proc_opts o = {.input = big, .input_len = n};
    qr_proc_result r;
    const char *head[] = {"head", "-c", "10", NULL};
    CHECK(run(head, &o, &r) == QR_OK);
    CHECK(r.out.len == 10 && r.status == 0);
    qr_proc_result_clear(&r);
    free(big);

    /* output past the cap is read and dropped: the child is not blocked, the result says so */
    o = (qr_proc_opts){.out_max = 1000, .err_max = 10};
    const char *lots[] = {"sh", "-c", "head -c 3000000 /dev/zero; echo 0123456789abcdef >&2", NULL};
    CHECK(run(lots, &o, &r) == QR_OK);
    CHECK(r.out.len == 1000 && r.out_truncated);
    CHECK(r.err.len == 10 && r.err_truncated);
    CHECK(r.status == 0);
    qr_proc_result_clear(&r);
}

static void test_missing(void)
{
    qr_proc_opts o = {0};
    qr_proc_result r;
    const char *none[] = {"quarry-test-no-such-program", NULL};
    CHECK(run(none, &o, &r) == QR_EIO);
    CHECK_STR(r.error, "cannot run 'quarry-test-no-such-program': not found in PATH");
    CHECK(r.status == -1);
    qr_proc_result_clear(&r);
    const char *path[] = {"/nonexistent/prog", NULL};
    CHECK(run(path, &o, &r) == QR_EIO);
    CHECK(strstr(r.error, "cannot run '/nonexistent/prog': ") != NULL);
    qr_proc_result_clear(&r);
}

static void test_env(void)
{
    setenv("QUARRY_LLM_API_KEY", "secret-1", 1);
    setenv("OPENAI_API_KEY", "secret-2", 1);
    setenv("GIT_DIR", "/elsewhere", 1);
    setenv("QUARRY_TEST_PASSED", "yes", 1);
    setenv("LC_ALL", "C", 1);
    qr_proc_opts o = {0};
    qr_proc_result r;
    const char *env[] = {"env", NULL};
    CHECK(run(env, &o, &r) == QR_OK);
    const char *out = text(&r.out);
    CHECK(strstr(out, "secret") == NULL);
    CHECK(strstr(out, "GIT_DIR=") == NULL);
    CHECK(strstr(out, "QUARRY_TEST_PASSED") == NULL);
    CHECK(strstr(out, "PATH=") != NULL);
    CHECK(strstr(out, "LC_ALL=C\n") != NULL);
    qr_proc_result_clear(&r);

    const char *pass[] = {"QUARRY_TEST_PASSED", NULL};
    const char *add[] = {"GIT_NO_REPLACE_OBJECTS=1", "LC_ALL=POSIX", NULL};
    o = (qr_proc_opts){.env_pass = pass, .env_add = add};
    CHECK(run(env, &o, &r) == QR_OK);
    out = text(&r.out);
    CHECK(strstr(out, "QUARRY_TEST_PASSED=yes\n") != NULL);
    CHECK(strstr(out, "GIT_NO_REPLACE_OBJECTS=1\n") != NULL);
    CHECK(strstr(out, "LC_ALL=POSIX\n") != NULL && strstr(out, "LC_ALL=C\n") == NULL);
    CHECK(strstr(out, "secret") == NULL);
    qr_proc_result_clear(&r);
    unsetenv("QUARRY_LLM_API_KEY");
    unsetenv("OPENAI_API_KEY");
    unsetenv("GIT_DIR");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* True once pid is gone (or a zombie nobody has reaped yet), within 10 s. */
static bool gone(pid_t pid)
{
    for (int i = 0; i < 1000; i++) {
        if (kill(pid, 0) != 0 && errno == ESRCH)
            return true;
        char path[64], st[256] = "";
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        FILE *f = fopen(path, "r");
        if (f) {
            size_t k = fread(st, 1, sizeof st - 1, f);
            st[k] = 0;
            fclose(f);
            const char *close_paren = strrchr(st, ')');
            if (close_paren && close_paren[1] == ' ' && close_paren[2] == 'Z')
                return true;
        }
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    return false;
}

/* sleep 30 in the background (its pid printed first) and in the foreground */
static const char *const sleepers[] = {"sh", "-c", "sleep 30 & echo $!; sleep 30", NULL};

static void test_timeout(void)
{
    qr_proc_opts o = {.timeout_ms = 200};
    qr_proc_result r;
    const char *sleep30[] = {"sleep", "30", NULL};
    double t0 = now_s();
    CHECK(run(sleep30, &o, &r) == QR_ELIMIT);
    CHECK(now_s() - t0 < 20); /* returned: long before the 30 s */
    CHECK_STR(r.error, "'sleep' ran longer than 200 ms and was killed");
    CHECK(r.status == 128 + SIGKILL);
    qr_proc_result_clear(&r);

    /* the whole group: the background sleep (which holds the output open) dies too */
    t0 = now_s();
    CHECK(run((const char *const *)sleepers, &o, &r) == QR_ELIMIT);
    CHECK(now_s() - t0 < 20);
    pid_t bg = (pid_t)atoi(text(&r.out));
    CHECK(bg > 0);
    if (bg > 0)
        CHECK(gone(bg));
    qr_proc_result_clear(&r);
}

static void test_stop(void)
{
    qr_stop stop;
    qr_stop_init(&stop, 200); /* a deadline: qr_stop_check turns true after 200 ms */
    qr_proc_opts o = {.stop = &stop};
    qr_proc_result r;
    double t0 = now_s();
    CHECK(run((const char *const *)sleepers, &o, &r) == QR_ESTOPPED);
    CHECK(now_s() - t0 < 20);
    CHECK(strstr(r.error, "'sh' was stopped: ") != NULL);
    pid_t bg = (pid_t)atoi(text(&r.out));
    CHECK(bg > 0);
    if (bg > 0)
        CHECK(gone(bg));
    qr_proc_result_clear(&r);

    /* a stop requested before the start: nothing runs long */
    qr_stop_init(&stop, 0);
    qr_stop_request(&stop);
    const char *sleep30[] = {"sleep", "30", NULL};
    t0 = now_s();
    CHECK(run(sleep30, &o, &r) == QR_ESTOPPED);
    CHECK(now_s() - t0 < 20);
    qr_proc_result_clear(&r);
}

static void test_long_lived(void)
{
    const char *cat[] = {"cat", NULL};
    qr_proc_opts o = {.argv = cat, .in = QR_PROC_SOCKET, .out = QR_PROC_SOCKET};
    qr_proc p;
    qr_buf err;
    qr_buf_init(&err);
    CHECK(qr_proc_start(&p, &o, &err) == QR_OK);
    CHECK(p.in >= 0 && p.in == p.out && p.err == -1);
    CHECK(getpgid(p.pid) == p.pid); /* a process group of its own */
    CHECK(write(p.in, "ping\n", 5) == 5);
    char buf[16] = {0};
    size_t got = 0;
    while (got < 5) {
        ssize_t k = read(p.out, buf + got, sizeof buf - 1 - got);
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    CHECK_STR(buf, "ping\n");
    CHECK(qr_proc_end(&p, 5000) == 0); /* cat ends when its input closes */

    /* one that ignores the end of its input is terminated */
    const char *stubborn[] = {"sh", "-c", "trap '' HUP; sleep 30", NULL};
    o = (qr_proc_opts){.argv = stubborn, .in = QR_PROC_PIPE, .out = QR_PROC_PIPE,
                       .err = QR_PROC_PIPE};
    CHECK(qr_proc_start(&p, &o, &err) == QR_OK);
    CHECK(p.in >= 0 && p.out >= 0 && p.err >= 0 && p.in != p.out);
    double t0 = now_s();
    int st = qr_proc_end(&p, 50);
    CHECK(st == 128 + SIGTERM || st == 128 + SIGKILL);
    CHECK(now_s() - t0 < 20);
    qr_buf_release(&err);
}

int main(void)
{
    test_capture();
    test_input_and_caps();
    test_missing();
    test_env();
    test_timeout();
    test_stop();
    test_long_lived();
    CHECK_DONE();
}
