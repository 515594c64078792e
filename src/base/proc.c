/*
 * proc.c: the child-process runner (quarry/proc.h): posix_spawnp with an argument vector,
 * a process group of its own, default signals, a scrubbed environment, close-on-exec
 * pipes; and qr_proc_run's one poll loop that feeds stdin, captures stdout and stderr up
 * to their caps, and kills the group on a timeout or a stop.
 *
 * Design: the environment is an allow-list, not a deny-list: a deny-list cannot know the
 * name of the next secret (GIT_DIR was dropped by hand for git, but QUARRY_LLM_API_KEY
 * reached every check command a repository configured). The stop is polled every 50 ms
 * while the child runs, the granularity every engine's loop uses. Output past a cap is
 * read and dropped, so the child never blocks on a full pipe. SIGPIPE is blocked on this
 * thread while stdin is written (a child that exits without reading it must not kill us)
 * and a SIGPIPE raised meanwhile is taken back.
 *
 * Rejected: fork and exec by hand (posix_spawn is vfork-fast and safe in a threaded
 * process: the MCP server runs calls on several threads); popen and system (a shell
 * between quarry and the arguments); sending the stop as SIGTERM first (the children run
 * here are compilers, git and indexers: nothing to save, and a stop should be prompt).
 */
#define _GNU_SOURCE
#include "quarry/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- the environment ---- */

static const char *const allowed_env[] = {
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TERM", NULL,
};

static bool name_is(const char *entry, const char *name)
{
    size_t n = strlen(name);
    return !strncmp(entry, name, n) && entry[n] == '=';
}

static bool in_list(const char *entry, const char *const *names)
{
    for (size_t i = 0; names && names[i]; i++)
        if (name_is(entry, names[i]))
            return true;
    return false;
}

const char *const qr_proc_git_env[] = {
    "GIT_CONFIG_COUNT=3",
    "GIT_CONFIG_KEY_0=core.fsmonitor",
    "GIT_CONFIG_VALUE_0=false",
    "GIT_CONFIG_KEY_1=core.hooksPath",
    "GIT_CONFIG_VALUE_1=/dev/null",
    "GIT_CONFIG_KEY_2=protocol.allow",
    "GIT_CONFIG_VALUE_2=never",
    "GIT_NO_REPLACE_OBJECTS=1",
    "GIT_TERMINAL_PROMPT=0",
    "GIT_OPTIONAL_LOCKS=0",
    NULL,
};

/* Set by env_add (which replaces what is passed on). */
static bool added(const char *entry, const char *const *add)
{
    const char *eq = strchr(entry, '=');
    size_t n = eq ? (size_t)(eq - entry) : strlen(entry);
    for (size_t i = 0; add && add[i]; i++)
        if (!strncmp(add[i], entry, n) && add[i][n] == '=')
            return true;
    return false;
}

/* The child's environment: pointers into environ and o->env_add (free the array only). */
static char **child_env(const qr_proc_opts *o)
{
    size_t n = 0, k = 0;
    while (environ && environ[n])
        n++;
    for (size_t i = 0; o->env_add && o->env_add[i]; i++)
        n++;
    char **env = malloc((n + 1) * sizeof *env);
    if (!env)
        return NULL;
    for (size_t i = 0; environ && environ[i]; i++) {
        const char *e = environ[i];
        bool keep = in_list(e, allowed_env) || !strncmp(e, "LC_", 3) || in_list(e, o->env_pass);
        if (keep && !added(e, o->env_add))
            env[k++] = (char *)e;
    }
    for (size_t i = 0; o->env_add && o->env_add[i]; i++)
        env[k++] = (char *)o->env_add[i];
    env[k] = NULL;
    return env;
}

/* ---- starting ---- */

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

int qr_proc_start(qr_proc *p, const qr_proc_opts *o, qr_buf *err)
{
    p->pid = -1;
    p->in = p->out = p->err = -1;
    const char *name = o->argv && o->argv[0] ? o->argv[0] : "";
    int pin[2] = {-1, -1}, pout[2] = {-1, -1}, perr[2] = {-1, -1}, sv[2] = {-1, -1};
    bool sock = o->in == QR_PROC_SOCKET || o->out == QR_PROC_SOCKET;
    bool ok = (!sock || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0) &&
              (o->in != QR_PROC_PIPE || pipe2(pin, O_CLOEXEC) == 0) &&
              (o->out != QR_PROC_PIPE || pipe2(pout, O_CLOEXEC) == 0) &&
              (o->err != QR_PROC_PIPE || pipe2(perr, O_CLOEXEC) == 0);
    char **env = ok ? child_env(o) : NULL;
    if (!ok || !env) {
        int e = errno;
        for (int i = 0; i < 2; i++) {
            close_fd(&pin[i]);
            close_fd(&pout[i]);
            close_fd(&perr[i]);
            close_fd(&sv[i]);
        }
        if (ok) {
            qr_buf_printf(err, "out of memory starting '%s'", name);
            return QR_ENOMEM;
        }
        qr_buf_printf(err, "cannot run '%s': %s", name, strerror(e));
        return QR_EIO;
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    /* stdin */
    if (o->in == QR_PROC_PIPE)
        posix_spawn_file_actions_adddup2(&fa, pin[0], 0);
    else if (o->in == QR_PROC_SOCKET)
        posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
    else
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    /* stdout */
    int out_src = o->out == QR_PROC_PIPE ? pout[1] : o->out == QR_PROC_SOCKET ? sv[1] : -1;
    if (out_src >= 0)
        posix_spawn_file_actions_adddup2(&fa, out_src, 1);
    else
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    /* stderr */
    if (o->err == QR_PROC_PIPE)
        posix_spawn_file_actions_adddup2(&fa, perr[1], 2);
    else if (o->err == QR_PROC_STDOUT)
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
    else
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    if (o->dir)
        posix_spawn_file_actions_addchdir_np(&fa, o->dir);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                      POSIX_SPAWN_SETPGROUP);
    pid_t pid;
    int rc = posix_spawnp(&pid, name, &fa, &at, (char *const *)o->argv, env);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    free(env);
    close_fd(&pin[0]);
    close_fd(&pout[1]);
    close_fd(&perr[1]);
    close_fd(&sv[1]);
    if (rc != 0) {
        close_fd(&pin[1]);
        close_fd(&pout[0]);
        close_fd(&perr[0]);
        close_fd(&sv[0]);
        if (rc == ENOENT && !strchr(name, '/'))
            qr_buf_printf(err, "cannot run '%s': not found in PATH", name);
        else
            qr_buf_printf(err, "cannot run '%s': %s", name, strerror(rc));
        return QR_EIO;
    }
    p->pid = pid;
    p->in = o->in == QR_PROC_SOCKET ? sv[0] : pin[1];
    p->out = o->out == QR_PROC_SOCKET ? sv[0] : pout[0];
    p->err = perr[0];
    return QR_OK;
}

void qr_proc_kill(const qr_proc *p, int sig)
{
    if (p->pid > 0) {
        kill(-p->pid, sig);
        kill(p->pid, sig); /* in case it left its group */
    }
}

static int status_of(int st)
{
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return -1;
}

int qr_proc_wait(qr_proc *p)
{
    if (p->pid <= 0)
        return -1;
    int st = 0;
    while (waitpid(p->pid, &st, 0) < 0) {
        if (errno != EINTR) {
            p->pid = -1;
            return -1;
        }
    }
    p->pid = -1;
    return status_of(st);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* Waits up to ms for the child to exit: its status, or -2 while it runs. */
static int wait_for(qr_proc *p, long ms)
{
    for (long waited = 0;; waited += 10) {
        int st = 0;
        pid_t r = waitpid(p->pid, &st, WNOHANG);
        if (r > 0 || (r < 0 && errno != EINTR)) {
            p->pid = -1;
            return r > 0 ? status_of(st) : -1;
        }
        if (waited >= ms)
            return -2;
        sleep_ms(10);
    }
}

int qr_proc_end(qr_proc *p, int grace_ms)
{
    if (p->in == p->out)
        p->out = -1; /* one socket */
    close_fd(&p->in);
    close_fd(&p->out);
    close_fd(&p->err);
    if (p->pid <= 0)
        return -1;
    int st = wait_for(p, grace_ms);
    if (st != -2)
        return st;
    qr_proc_kill(p, SIGTERM);
    if ((st = wait_for(p, 1000)) != -2)
        return st;
    qr_proc_kill(p, SIGKILL);
    return qr_proc_wait(p);
}

/* ---- SIGPIPE while writing ---- */

void qr_proc_sigpipe_block(qr_proc_sigpipe *s)
{
    sigset_t pipe_set, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigpending(&pending);
    s->was_pending = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &s->old);
}

void qr_proc_sigpipe_restore(const qr_proc_sigpipe *s)
{
    sigset_t pipe_set, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigpending(&pending);
    if (!s->was_pending && sigismember(&pending, SIGPIPE)) {
        struct timespec zero = {0, 0};
        sigtimedwait(&pipe_set, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &s->old, NULL);
}

/* ---- running to the end ---- */

void qr_proc_result_init(qr_proc_result *r)
{
    memset(r, 0, sizeof *r);
    qr_buf_init(&r->out);
    qr_buf_init(&r->err);
    r->status = -1;
}

void qr_proc_result_clear(qr_proc_result *r)
{
    qr_buf_release(&r->out);
    qr_buf_release(&r->err);
}

static void capture(qr_buf *b, const char *p, size_t n, size_t max, bool *truncated)
{
    size_t room = b->len < max ? max - b->len : 0;
    if (n > room) {
        *truncated = true;
        n = room;
    }
    if (n)
        qr_buf_append(b, p, n);
}

int qr_proc_run(const qr_proc_opts *o, qr_proc_result *r)
{
    qr_proc_opts so = *o;
    so.in = o->input ? QR_PROC_PIPE : QR_PROC_NULL;
    so.out = QR_PROC_PIPE;
    so.err = o->merge_stderr ? QR_PROC_STDOUT : QR_PROC_PIPE;
    size_t out_max = o->out_max ? o->out_max : QR_PROC_OUT_MAX;
    size_t err_max = o->err_max ? o->err_max : QR_PROC_ERR_MAX;
    r->error[0] = 0;
    qr_proc p;
    qr_buf msg;
    qr_buf_init(&msg);
    int rc = qr_proc_start(&p, &so, &msg);
    if (rc != QR_OK) {
        snprintf(r->error, sizeof r->error, "%s", msg.p ? msg.p : "cannot start a process");
        qr_buf_release(&msg);
        return rc;
    }
    qr_buf_release(&msg);
    if (p.in >= 0 && !o->input_len)
        close_fd(&p.in);
    if (p.in >= 0)
        fcntl(p.in, F_SETFL, fcntl(p.in, F_GETFL) | O_NONBLOCK);
    /* a child that exits without reading its input must not kill us with SIGPIPE */
    qr_proc_sigpipe sp;
    qr_proc_sigpipe_block(&sp);

    /* a timeout too large to add is none */
    uint64_t deadline = 0, start_ns = qr_clock_ns();
    if (o->timeout_ms && o->timeout_ms <= (UINT64_MAX - start_ns) / 1000000u)
        deadline = start_ns + o->timeout_ms * 1000000u;
    size_t inoff = 0;
    bool timed_out = false, stopped = false;
    char chunk[65536];
    rc = QR_OK;
    while (p.in >= 0 || p.out >= 0 || p.err >= 0) {
        if (o->stop && qr_stop_check(o->stop)) {
            stopped = true;
            break;
        }
        int wait = -1;
        if (deadline) {
            uint64_t now = qr_clock_ns();
            if (now >= deadline) {
                timed_out = true;
                break;
            }
            uint64_t left = (deadline - now + 999999u) / 1000000u;
            wait = left > 50 ? 50 : (int)left;
        }
        if (o->stop && (wait < 0 || wait > 50))
            wait = 50;
        struct pollfd pfd[3];
        nfds_t np = 0;
        if (p.in >= 0)
            pfd[np++] = (struct pollfd){.fd = p.in, .events = POLLOUT};
        if (p.out >= 0)
            pfd[np++] = (struct pollfd){.fd = p.out, .events = POLLIN};
        if (p.err >= 0)
            pfd[np++] = (struct pollfd){.fd = p.err, .events = POLLIN};
        int k = poll(pfd, np, wait);
        if (k < 0 && errno != EINTR) {
            snprintf(r->error, sizeof r->error, "cannot wait for '%s': %s", o->argv[0],
                     strerror(errno));
            rc = QR_EIO;
            break;
        }
        for (nfds_t i = 0; k > 0 && i < np; i++) {
            if (!pfd[i].revents)
                continue;
            if (pfd[i].fd == p.in) {
                size_t left = o->input_len - inoff;
                ssize_t w = write(p.in, o->input + inoff, left < 65536 ? left : 65536);
                if (w > 0)
                    inoff += (size_t)w;
                if ((w < 0 && errno != EAGAIN && errno != EINTR) || inoff == o->input_len)
                    close_fd(&p.in);
                continue;
            }
            bool is_out = pfd[i].fd == p.out;
            ssize_t n = read(pfd[i].fd, chunk, sizeof chunk);
            if (n > 0) {
                if (is_out)
                    capture(&r->out, chunk, (size_t)n, out_max, &r->out_truncated);
                else
                    capture(&r->err, chunk, (size_t)n, err_max, &r->err_truncated);
            } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                close_fd(is_out ? &p.out : &p.err);
            }
        }
    }
    close_fd(&p.in);
    close_fd(&p.out);
    close_fd(&p.err);
    /* the output is closed; the child may still run (or what it started holds nothing) */
    while (!stopped && !timed_out && rc == QR_OK) {
        if (!o->stop && !deadline) {
            r->status = qr_proc_wait(&p);
            break;
        }
        int st = wait_for(&p, 20);
        if (st != -2) {
            r->status = st;
            break;
        }
        if (o->stop && qr_stop_check(o->stop))
            stopped = true;
        else if (deadline && qr_clock_ns() >= deadline)
            timed_out = true;
    }
    if (p.pid > 0) {
        qr_proc_kill(&p, SIGKILL);
        r->status = qr_proc_wait(&p);
    }
    qr_proc_sigpipe_restore(&sp);
    if (stopped) {
        qr_buf b;
        qr_buf_init(&b);
        qr_stop_describe(o->stop, &b);
        snprintf(r->error, sizeof r->error, "'%s' was stopped: %s", o->argv[0], b.p ? b.p : "");
        qr_buf_release(&b);
        return QR_ESTOPPED;
    }
    if (timed_out) {
        snprintf(r->error, sizeof r->error, "'%s' ran longer than %llu ms and was killed",
                 o->argv[0], (unsigned long long)o->timeout_ms);
        return QR_ELIMIT;
    }
    if (rc == QR_OK && (r->out.failed || r->err.failed)) {
        snprintf(r->error, sizeof r->error, "out of memory reading the output of '%s'",
                 o->argv[0]);
        rc = QR_ENOMEM;
    }
    return rc;
}
