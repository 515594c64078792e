/*
 * quarry/proc.h: the one way quarry runs another program (git for line statistics,
 * universal-ctags, the DWIM verbs' git and check commands, an MCP server a flow names).
 *
 * Contract. A child gets an argument vector, never a shell (a caller that means a shell
 * names /bin/sh in argv itself); its own process group (so a stop or a timeout kills what
 * it started too); stdin from /dev/null, a pipe or a socket; a scrubbed environment:
 * only PATH, HOME, USER, LOGNAME, LANG, LANGUAGE, LC_*, TZ, TMPDIR and TERM from ours, plus
 * what the caller passes by name (env_pass) or adds (env_add), so no key or token in
 * quarry's environment (QUARRY_LLM_API_KEY, *_TOKEN, ...) reaches a program quarry runs;
 * an empty signal mask and default signal dispositions; no descriptor of ours but the
 * three it is given (every pipe is close-on-exec).
 *
 * qr_proc_run runs a child to its end: stdout and stderr captured up to caps (the rest is
 * read and dropped, and the result says so), a timeout, and a stop flag checked while it
 * waits; on either the whole process group is killed. qr_proc_start leaves a child
 * running and hands back its descriptors (a long-lived server, or several children served
 * by one poll loop); qr_proc_end ends it.
 *
 * Errors: QR_OK; QR_EIO when the program cannot be started (error says why, "not found
 * in PATH" included); QR_ELIMIT when the timeout killed it; QR_ESTOPPED when the stop did;
 * QR_ENOMEM. A child that ran and failed is QR_OK with its status: the caller decides.
 */
#ifndef QUARRY_PROC_H
#define QUARRY_PROC_H

#include "quarry/base.h"

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

/* Default caps of the captured output. */
#define QR_PROC_OUT_MAX (32u << 20)
#define QR_PROC_ERR_MAX (1u << 20)

/* The environment entries (for env_add) of every git process quarry starts: a repository
 * is untrusted input, and its configuration (or that of a git directory committed inside
 * it) may not run a command nor reach the network: core.fsmonitor off, hooks nowhere,
 * every transport refused, replace refs off, no prompts. Command-line configuration
 * (GIT_CONFIG_COUNT) outranks every configuration file. NULL-terminated. */
extern const char *const qr_proc_git_env[];

typedef enum {
    QR_PROC_NULL = 0, /* /dev/null */
    QR_PROC_PIPE,     /* a pipe whose other end is ours */
    QR_PROC_SOCKET,   /* stdin and stdout: one end of a socket pair (the other is ours) */
    QR_PROC_STDOUT,   /* stderr only: where stdout goes */
} qr_proc_io;

typedef struct qr_proc_opts {
    const char *const *argv; /* argv[0] is looked up in PATH unless it holds a '/' */
    const char *dir;         /* working directory; NULL: ours */
    /* names of variables passed on from our environment besides the allow-list */
    const char *const *env_pass;
    /* "NAME=value" entries set in the child's environment (replacing a passed one) */
    const char *const *env_add;
    /* qr_proc_start: where the child's stdin, stdout and stderr go (qr_proc_run sets
     * them itself: stdin a pipe fed `input` or /dev/null, stdout a pipe, stderr a pipe or,
     * with merge_stderr, the stdout pipe) */
    qr_proc_io in, out, err;
    /* qr_proc_run only */
    const char *input; /* written to stdin (NULL: stdin is /dev/null) */
    size_t input_len;
    bool merge_stderr;       /* stderr captured with stdout, interleaved as written */
    size_t out_max, err_max; /* caps of the captures (0: QR_PROC_OUT_MAX, QR_PROC_ERR_MAX) */
    uint64_t timeout_ms;     /* 0: none */
    const qr_stop *stop;     /* NULL: none */
} qr_proc_opts;

typedef struct qr_proc {
    pid_t pid;        /* also the id of its process group; -1 once reaped */
    int in, out, err; /* our ends (in == out for QR_PROC_SOCKET); -1 where none */
} qr_proc;

typedef struct qr_proc_result {
    qr_buf out, err; /* the captures (owned: qr_proc_result_clear) */
    int status;      /* exit status; 128 + N when killed by signal N; -1 when not run */
    bool out_truncated, err_truncated;
    char error[256]; /* when not QR_OK: one line saying why */
} qr_proc_result;

void qr_proc_result_init(qr_proc_result *r);
void qr_proc_result_clear(qr_proc_result *r);

/* Runs o->argv to its end (see above). r must have been set up with qr_proc_result_init;
 * the caller clears it with qr_proc_result_clear, whatever this returns. */
int qr_proc_run(const qr_proc_opts *o, qr_proc_result *r);

/* Starts o->argv with o->in, o->out, o->err; p receives its pid and our descriptors
 * (close-on-exec; the caller owns them until qr_proc_end). QR_OK, QR_EIO (err: why),
 * QR_ENOMEM. */
int qr_proc_start(qr_proc *p, const qr_proc_opts *o, qr_buf *err);
/* Sends sig to the child's whole process group. */
void qr_proc_kill(const qr_proc *p, int sig);
/* Waits for the child (blocking) and returns its status as in qr_proc_result. */
int qr_proc_wait(qr_proc *p);
/* Closes our descriptors, gives the child grace_ms to exit, then SIGTERMs its group, then
 * SIGKILLs it, and reaps it. Returns its status. */
int qr_proc_end(qr_proc *p, int grace_ms);

/* While this thread writes to a child's stdin: SIGPIPE blocked (a child that exits without
 * reading its input must not kill us: the write fails with EPIPE instead), and on restore
 * a SIGPIPE raised meanwhile is taken back. qr_proc_run does it itself; a caller serving
 * qr_proc_start's pipes does it around its loop. */
typedef struct qr_proc_sigpipe {
    sigset_t old;
    bool was_pending;
} qr_proc_sigpipe;
void qr_proc_sigpipe_block(qr_proc_sigpipe *s);
void qr_proc_sigpipe_restore(const qr_proc_sigpipe *s);

#endif
