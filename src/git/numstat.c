/*
 * numstat.c: per-commit file statistics, computed by git itself: `git log --numstat
 * --no-renames` for a list of commits, `git diff-tree` between two commits, and `git log
 * --follow` for a file's history, run as child processes whose -z output is parsed here;
 * the statistics index (index.c) is read first and given what was computed.
 *
 * Design. The lines git counts depend on xdiff, its binary detection and .gitattributes;
 * asking git gives the same numbers as `git log --numstat` by construction. The commits
 * not yet indexed go to `git log --no-walk=unsorted --stdin` (any set of commits, in the
 * order given), split into contiguous ranges run at once, one per core (at most 4), with
 * stdin, stdout and stderr of every child served by one poll loop. Options that would
 * make the numbers depend on the user's configuration are pinned: the diff algorithm
 * (myers, git's default), no textconv or external diff, no rename detection, root commits
 * diffed against the empty tree (log.showRoot), raw paths (core.quotePath=false, -z),
 * replace refs off (libgit2 does not see them either). A child gets no shell: it is started
 * by quarry/proc.h with an argument vector, in a process group of its own, the repository
 * given with -C, and an environment scrubbed to an allow-list (so the variables that would
 * point git at another repository, GIT_DIR, GIT_WORK_TREE and the rest, never reach it).
 * --raw runs alongside --numstat for the status letters (A/D/M/T), which numstat lacks.
 * For `quarry index` (qr__git_stats_ensure) the commits the index lacks are computed in
 * batches of ENSURE_BATCH, each stored before the next starts: memory stays bounded on a
 * long history, and an interrupted run keeps the batches it finished.
 *
 * Rejected: libgit2 tree-to-tree diffs with a line callback (2x slower than git on
 * redis's history, and its line counts and binary detection differ from git's at the
 * edges); threads over one libgit2 repository (its pack access serializes them); a range
 * walk (`git log A --not B`) for the missing commits (the index can have any subset).
 */
/* pipe2 */
#define _GNU_SOURCE
#include "git_int.h"

#include "quarry/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Fewest commits worth a process of their own, and the most processes at once. */
#define CHUNK_MIN 200
#define MAX_JOBS 4
/* qr__git_stats_ensure computes and stores this many commits at a time: memory stays
 * bounded (git's output for a batch, ~1 MB per 1,000 commits) and an interrupted run
 * keeps every batch it finished. */
#define ENSURE_BATCH 8192
#define FIRST_BATCH 512

/* ---- running git ---- */

typedef struct job {
    pid_t pid;
    int in, out, errfd; /* our ends; -1 once closed */
    const char *input;
    size_t inlen, inoff;
    qr_buf outb, errb;
    int status;
    size_t scanned, records; /* progress: output looked at, commit headers seen in it */
    size_t max_out; /* stdout kept at most (0: no limit); past it the job is killed and
                       jobs_run fails with QR_ELIMIT (a call's memory budget) */
} job;

/* Progress across jobs: counts the commit headers in what each job printed so far. */
typedef struct job_progress {
    const qr_progress *cb;
    size_t total, last;
    struct timespec next;
} job_progress;

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* The environment git gets besides quarry/proc.h's allow-list (which leaves out GIT_DIR,
 * GIT_WORK_TREE and every other variable that would point git at another repository):
 * qr_proc_git_env, which also keeps the repository's configuration from running anything. */
static const char *const *const git_env = qr_proc_git_env;

static int job_start(job *j, const char *const argv[], qr_buf *err)
{
    qr_proc_opts o = {.argv = argv, .env_add = git_env, .in = QR_PROC_PIPE,
                      .out = QR_PROC_PIPE, .err = QR_PROC_PIPE};
    qr_proc p;
    j->in = j->out = j->errfd = -1;
    j->pid = -1;
    qr_buf msg;
    qr_buf_init(&msg);
    int rc = qr_proc_start(&p, &o, &msg);
    if (rc != QR_OK) {
        if (strstr(msg.p ? msg.p : "", "not found in PATH"))
            qr_buf_puts(err, "cannot run 'git': not found in PATH; quarry needs the git "
                             "command for line statistics (apt-get install git)");
        else
            qr_buf_puts(err, msg.p ? msg.p : "cannot run 'git'");
        qr_buf_release(&msg);
        return rc;
    }
    qr_buf_release(&msg);
    j->pid = p.pid;
    j->in = p.in;
    j->out = p.out;
    j->errfd = p.err;
    fcntl(j->in, F_SETFL, fcntl(j->in, F_GETFL) | O_NONBLOCK);
    if (!j->inlen)
        close_fd(&j->in);
    return QR_OK;
}

static bool is_hex_header(const char *buf, size_t len, size_t pos);

/* Counts the "<hex id>\0" headers that start the records of git log -z output: at the
 * start and after a NUL. */
static void count_records(job *j)
{
    const char *b = j->outb.p;
    size_t len = j->outb.len;
    while (j->scanned + GIT_OID_HEXSZ + 1 <= len) {
        size_t pos = j->scanned;
        if ((pos == 0 || b[pos - 1] == '\0') && is_hex_header(b, len, pos)) {
            j->records++;
            j->scanned = pos + GIT_OID_HEXSZ + 1;
            continue;
        }
        const char *z = memchr(b + pos, '\0', len - pos);
        if (!z) {
            j->scanned = len;
            break;
        }
        j->scanned = (size_t)(z - b) + 1;
    }
}

static void report_progress(job_progress *p, job *jobs, size_t n)
{
    if (!p || !p->cb || !p->cb->fn)
        return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec < p->next.tv_sec ||
        (now.tv_sec == p->next.tv_sec && now.tv_nsec < p->next.tv_nsec))
        return;
    p->next = now;
    p->next.tv_nsec += 100000000;
    if (p->next.tv_nsec >= 1000000000) {
        p->next.tv_sec++;
        p->next.tv_nsec -= 1000000000;
    }
    size_t done = 0;
    for (size_t i = 0; i < n; i++) {
        count_records(&jobs[i]);
        done += jobs[i].records;
    }
    if (done >= p->total)
        done = p->total - 1; /* the end is reported once, by the caller */
    if (done != p->last)
        p->cb->fn(p->cb->ud, "computing line statistics of commits", done, p->total);
    p->last = done;
}

/* Serves every job's pipes until all children have closed their output, then reaps them.
 * Returns QR_OK when every child exited with status 0. */
static int jobs_run(job *jobs, size_t n, job_progress *prog, const qr_stop *stop, qr_buf *err)
{
    struct pollfd pfd[3 * MAX_JOBS];
    int rc = QR_OK;
    char chunk[65536];
    for (;;) {
        size_t np = 0;
        for (size_t i = 0; i < n; i++) {
            if (jobs[i].in >= 0)
                pfd[np++] = (struct pollfd){.fd = jobs[i].in, .events = POLLOUT};
            if (jobs[i].out >= 0)
                pfd[np++] = (struct pollfd){.fd = jobs[i].out, .events = POLLIN};
            if (jobs[i].errfd >= 0)
                pfd[np++] = (struct pollfd){.fd = jobs[i].errfd, .events = POLLIN};
        }
        if (!np)
            break;
        size_t over = 0;
        for (size_t i = 0; i < n && !over; i++)
            if (jobs[i].max_out && jobs[i].outb.len > jobs[i].max_out)
                over = jobs[i].max_out;
        if (over || qr_stop_check(stop)) {
            /* the children are killed, reaped below, and their output dropped */
            for (size_t i = 0; i < n; i++)
                if (jobs[i].pid > 0)
                    kill(-jobs[i].pid, SIGKILL); /* its process group (quarry/proc.h) */
            for (size_t i = 0; i < n; i++) {
                close_fd(&jobs[i].in);
                close_fd(&jobs[i].out);
                close_fd(&jobs[i].errfd);
            }
            if (over) {
                qr_buf_printf(err,
                              "memory limit of %zu bytes reached: git's output for this call "
                              "is larger; narrow 'path' or the time window",
                              over);
                rc = QR_ELIMIT;
                break;
            }
            qr_stop_fail(stop, err);
            rc = QR_ESTOPPED;
            break;
        }
        if (poll(pfd, (nfds_t)np, stop ? 50 : -1) < 0) {
            if (errno == EINTR)
                continue;
            qr_buf_printf(err, "cannot run git: poll: %s", strerror(errno));
            rc = QR_EIO;
            break;
        }
        for (size_t k = 0; k < np; k++) {
            if (!pfd[k].revents)
                continue;
            job *j = NULL;
            for (size_t i = 0; i < n && !j; i++)
                if (jobs[i].in == pfd[k].fd || jobs[i].out == pfd[k].fd ||
                    jobs[i].errfd == pfd[k].fd)
                    j = &jobs[i];
            if (!j)
                continue;
            if (pfd[k].fd == j->in) {
                size_t left = j->inlen - j->inoff;
                ssize_t w = write(j->in, j->input + j->inoff, left < 65536 ? left : 65536);
                if (w > 0)
                    j->inoff += (size_t)w;
                if ((w < 0 && errno != EAGAIN && errno != EINTR) || j->inoff == j->inlen)
                    close_fd(&j->in);
                continue;
            }
            bool is_out = pfd[k].fd == j->out;
            ssize_t r = read(pfd[k].fd, chunk, sizeof chunk);
            if (r > 0) {
                qr_buf *b = is_out ? &j->outb : &j->errb;
                if (is_out || b->len < 4096)
                    qr_buf_append(b, chunk, (size_t)r);
                if (is_out)
                    report_progress(prog, jobs, n);
            } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
                close_fd(is_out ? &j->out : &j->errfd);
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        close_fd(&jobs[i].in);
        close_fd(&jobs[i].out);
        close_fd(&jobs[i].errfd);
        if (jobs[i].pid > 0) {
            while (waitpid(jobs[i].pid, &jobs[i].status, 0) < 0 && errno == EINTR)
                ;
            jobs[i].pid = -1;
        }
        bool ok = WIFEXITED(jobs[i].status) && WEXITSTATUS(jobs[i].status) == 0;
        if (rc == QR_OK && !ok) {
            const char *m = jobs[i].errb.p ? jobs[i].errb.p : "";
            size_t len = strcspn(m, "\n");
            if (len)
                qr_buf_printf(err, "git failed: %.*s", (int)len, m);
            else
                qr_buf_printf(err, "git failed with status %d",
                              WIFEXITED(jobs[i].status) ? WEXITSTATUS(jobs[i].status) : -1);
            rc = QR_EIO;
        }
        if (rc == QR_OK && jobs[i].outb.failed) {
            qr_buf_puts(err, "out of memory reading git's output");
            rc = QR_ENOMEM;
        }
    }
    return rc;
}

/* Runs n copies of git with argv, job i fed inputs[i], and leaves each output in
 * jobs[i].outb (released by the caller with jobs_release). */
static int run_git(const char *const argv[], job *jobs, size_t n, job_progress *prog,
                   const qr_stop *stop, qr_buf *err)
{
    /* a child that exits early must not kill us with SIGPIPE */
    qr_proc_sigpipe sp;
    qr_proc_sigpipe_block(&sp);
    int rc = QR_OK;
    size_t started = 0;
    for (; started < n && rc == QR_OK; started++)
        rc = job_start(&jobs[started], argv, err);
    if (rc != QR_OK)
        started--;
    int rc2 = jobs_run(jobs, started, prog, stop, err);
    if (rc == QR_OK)
        rc = rc2;
    qr_proc_sigpipe_restore(&sp);
    return rc;
}

static void jobs_release(job *jobs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        qr_buf_release(&jobs[i].outb);
        qr_buf_release(&jobs[i].errb);
    }
}

/* ---- parsing git's -z output ---- */

typedef struct entry {
    const char *path, *old; /* into the output; old only for renames and copies */
    size_t plen, olen;
    char status;
    bool binary;
    bool empty_new; /* the file's new content is the empty blob (--raw) */
    int64_t add, del;
} entry;

typedef struct record {
    git_oid oid;
    size_t first, n; /* its numstat entries */
} record;

typedef struct parsed {
    entry *e;
    size_t ne, cape;
    entry *raw;
    size_t nraw, capraw;
    record *r;
    size_t nr, capr;
} parsed;

static void parsed_release(parsed *p)
{
    free(p->e);
    free(p->raw);
    free(p->r);
}

static bool grow(void **arr, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? *cap * 2 : 64;
    void *q = realloc(*arr, c * size);
    if (!q)
        return false;
    *arr = q;
    *cap = c;
    return true;
}

/* The NUL-terminated field at *pos; advances past its NUL. false when there is none. */
static bool field(const char *buf, size_t len, size_t *pos, const char **s, size_t *n)
{
    const char *start = buf + *pos;
    const char *z = memchr(start, '\0', len - *pos);
    if (!z)
        return false;
    *s = start;
    *n = (size_t)(z - start);
    *pos = (size_t)(z - buf) + 1;
    return true;
}

static bool is_hex_header(const char *buf, size_t len, size_t pos)
{
    if (len - pos < GIT_OID_HEXSZ + 1 || buf[pos + GIT_OID_HEXSZ] != '\0')
        return false;
    for (size_t i = 0; i < GIT_OID_HEXSZ; i++) {
        char c = buf[pos + i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    }
    return true;
}

static bool parse_count(const char *s, size_t n, int64_t *out, bool *binary)
{
    if (n == 1 && s[0] == '-') {
        *binary = true;
        *out = 0;
        return true;
    }
    int64_t v = 0;
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (INT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

/* A numstat entry starts with digits or '-', then a tab. */
static bool is_numstat(const char *buf, size_t len, size_t pos)
{
    size_t i = pos;
    if (i < len && buf[i] == '-')
        return i + 1 < len && buf[i + 1] == '\t';
    while (i < len && buf[i] >= '0' && buf[i] <= '9')
        i++;
    return i > pos && i < len && buf[i] == '\t';
}

static int parse_raw(parsed *p, const char *buf, size_t len, size_t *pos)
{
    const char *meta, *a, *b = NULL;
    size_t mlen, alen, blen = 0;
    if (!field(buf, len, pos, &meta, &mlen) || !field(buf, len, pos, &a, &alen))
        return QR_EIO;
    const char *sp = meta + mlen;
    while (sp > meta && sp[-1] != ' ')
        sp--;
    char st = sp < meta + mlen ? *sp : 'M';
    if ((st == 'R' || st == 'C') && !field(buf, len, pos, &b, &blen))
        return QR_EIO;
    if (!grow((void **)&p->raw, &p->capraw, p->nraw, sizeof *p->raw))
        return QR_ENOMEM;
    entry *e = &p->raw[p->nraw++];
    memset(e, 0, sizeof *e);
    e->status = st;
    /* ":100644 100644 OLD NEW C075": NEW is the fourth field */
    static const char EMPTY_BLOB[] = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
    const char *f = meta;
    for (int k = 0; k < 3 && f < meta + mlen; k++) {
        const char *spc = memchr(f, ' ', (size_t)(meta + mlen - f));
        f = spc ? spc + 1 : meta + mlen;
    }
    size_t fl = (size_t)(meta + mlen - f);
    const char *end = memchr(f, ' ', fl);
    fl = end ? (size_t)(end - f) : fl;
    e->empty_new = fl >= 7 && fl <= sizeof EMPTY_BLOB - 1 && !memcmp(f, EMPTY_BLOB, fl);
    if (b) {
        e->old = a, e->olen = alen, e->path = b, e->plen = blen;
    } else {
        e->path = a, e->plen = alen;
    }
    return QR_OK;
}

static int parse_numstat(parsed *p, const char *buf, size_t len, size_t *pos)
{
    const char *s;
    size_t n;
    if (!field(buf, len, pos, &s, &n))
        return QR_EIO;
    const char *t1 = memchr(s, '\t', n);
    const char *t2 = t1 ? memchr(t1 + 1, '\t', (size_t)(s + n - t1 - 1)) : NULL;
    if (!t2)
        return QR_EIO;
    if (!grow((void **)&p->e, &p->cape, p->ne, sizeof *p->e))
        return QR_ENOMEM;
    entry *e = &p->e[p->ne];
    memset(e, 0, sizeof *e);
    bool bin1 = false, bin2 = false;
    if (!parse_count(s, (size_t)(t1 - s), &e->add, &bin1) ||
        !parse_count(t1 + 1, (size_t)(t2 - t1 - 1), &e->del, &bin2))
        return QR_EIO;
    e->binary = bin1 || bin2;
    e->path = t2 + 1;
    e->plen = (size_t)(s + n - e->path);
    if (e->plen == 0) { /* a rename or copy: the old and new names follow */
        if (!field(buf, len, pos, &e->old, &e->olen) || !field(buf, len, pos, &e->path, &e->plen))
            return QR_EIO;
    }
    p->ne++;
    return QR_OK;
}

/* Gives each numstat entry of the record the status of its raw entry. */
static void join_status(parsed *p, size_t first)
{
    size_t n = p->ne - first;
    for (size_t k = 0; k < n; k++) {
        entry *e = &p->e[first + k];
        const entry *r = k < p->nraw ? &p->raw[k] : NULL;
        if (!r || r->plen != e->plen || memcmp(r->path, e->path, e->plen)) {
            r = NULL;
            for (size_t i = 0; i < p->nraw && !r; i++)
                if (p->raw[i].plen == e->plen && !memcmp(p->raw[i].path, e->path, e->plen))
                    r = &p->raw[i];
        }
        e->status = r ? r->status : 'M';
        e->empty_new = r && r->empty_new;
    }
    p->nraw = 0;
}

/* Parses output of `--raw --numstat -z`, with a "<hex id>\0" header before each commit
 * when headers is set (git log), else as one record (diff-tree). */
static int parse_output(parsed *p, const char *buf, size_t len, bool headers)
{
    size_t pos = 0;
    int rc = QR_OK;
    while (rc == QR_OK && (pos < len || (!headers && p->nr == 0))) {
        if (!grow((void **)&p->r, &p->capr, p->nr, sizeof *p->r))
            return QR_ENOMEM;
        record *r = &p->r[p->nr];
        memset(r, 0, sizeof *r);
        if (headers) {
            if (!is_hex_header(buf, len, pos))
                return QR_EIO;
            git_oid_fromstrn(&r->oid, buf + pos, GIT_OID_HEXSZ);
            pos += GIT_OID_HEXSZ + 1;
            if (pos < len && buf[pos] == '\n')
                pos++;
        }
        r->first = p->ne;
        p->nraw = 0;
        while (rc == QR_OK && pos < len) {
            if (buf[pos] == ':')
                rc = parse_raw(p, buf, len, &pos);
            else if (is_numstat(buf, len, pos))
                rc = parse_numstat(p, buf, len, &pos);
            else if (headers && is_hex_header(buf, len, pos))
                break;
            else
                rc = QR_EIO;
        }
        if (rc != QR_OK)
            break;
        join_status(p, r->first);
        r->n = p->ne - r->first;
        p->nr++;
    }
    return rc;
}

static int bad_output(qr_buf *err, const char *what)
{
    qr_buf_printf(err, "cannot read the output of %s: it is not in the expected format", what);
    return QR_EIO;
}

static char norm_status(char c)
{
    return c == 'A' || c == 'D' || c == 'M' || c == 'T' ? c : 'M';
}

/* Fills *out from record r (strings copied into a). */
static int to_stats(const parsed *p, const record *r, qr_arena *a, qr_commit_stats *out)
{
    out->nfiles = (uint32_t)r->n;
    out->additions = out->deletions = 0;
    out->files = NULL;
    if (!r->n)
        return QR_OK;
    out->files = qr_arena_alloc(a, r->n * sizeof *out->files);
    if (!out->files)
        return QR_ENOMEM;
    for (size_t k = 0; k < r->n; k++) {
        const entry *e = &p->e[r->first + k];
        qr_file_stat *f = &out->files[k];
        f->path = qr_arena_strndup(a, e->path, e->plen);
        if (!f->path)
            return QR_ENOMEM;
        f->additions = e->add;
        f->deletions = e->del;
        f->binary = e->binary;
        f->status = norm_status(e->status);
        out->additions += e->add;
        out->deletions += e->del;
    }
    return QR_OK;
}

int qr__numstat_parse(const char *buf, size_t len, bool headers, qr_arena *a, qr_commit_stats **out,
                      size_t *n)
{
    *out = NULL;
    *n = 0;
    parsed p = {0};
    int rc = parse_output(&p, buf, len, headers);
    if (rc == QR_OK && p.nr && !(*out = qr_arena_zalloc(a, p.nr * sizeof **out)))
        rc = QR_ENOMEM;
    for (size_t k = 0; rc == QR_OK && k < p.nr; k++) {
        git_oid_fmt((*out)[k].oid, &p.r[k].oid);
        rc = to_stats(&p, &p.r[k], a, &(*out)[k]);
    }
    if (rc == QR_OK)
        *n = p.nr;
    parsed_release(&p);
    return rc;
}

/* ---- the options every numstat run pins ---- */

#define ARGV_MAX (40 + 2 * QR_REVS_MAX)

typedef struct argv_b {
    char *v[ARGV_MAX];
    size_t n;
} argv_b;

static void arg(argv_b *b, const char *s)
{
    if (b->n + 1 < ARGV_MAX)
        b->v[b->n++] = (char *)s;
    b->v[b->n] = NULL;
}

static void common_args(argv_b *b, qr_git *g)
{
    arg(b, "git");
    arg(b, "-C");
    arg(b, qr__git_rundir(g));
    arg(b, "--no-pager");
    arg(b, "-c");
    arg(b, "core.quotePath=false");
    arg(b, "-c");
    arg(b, "log.showRoot=true");
    arg(b, "-c");
    arg(b, "log.showSignature=false");
}

static void diff_args(argv_b *b)
{
    arg(b, "-z");
    arg(b, "--raw");
    arg(b, "--numstat");
    arg(b, "--no-ext-diff");
    arg(b, "--no-textconv");
    arg(b, "--diff-algorithm=myers");
    arg(b, "--no-color");
}

/* ---- per-commit statistics ---- */

static bool is_merge(const qr_commit_info *c)
{
    return c->nparents > 1;
}

/* Computes stats for cs[idx[0..n)] with git, into out[idx[k]]; records those to index. */
static int compute(qr_git *g, const qr_commit_info *cs, const size_t *idx, size_t n,
                   const qr_progress *progress, qr_arena *a, qr_commit_stats *out, qr_buf *err)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    size_t njobs = ncpu > 1 ? (size_t)ncpu : 1;
    if (njobs > MAX_JOBS)
        njobs = MAX_JOBS;
    if (njobs > n / CHUNK_MIN)
        njobs = n / CHUNK_MIN ? n / CHUNK_MIN : 1;
    /* the input: one id per line, each job a contiguous range */
    size_t inlen = n * (GIT_OID_HEXSZ + 1);
    char *input = malloc(inlen ? inlen : 1);
    if (!input)
        return QR_ENOMEM;
    for (size_t k = 0; k < n; k++) {
        git_oid_fmt(input + k * (GIT_OID_HEXSZ + 1), &cs[idx[k]].oid);
        input[k * (GIT_OID_HEXSZ + 1) + GIT_OID_HEXSZ] = '\n';
    }
    job jobs[MAX_JOBS];
    memset(jobs, 0, sizeof jobs);
    for (size_t j = 0; j < njobs; j++) {
        size_t from = n * j / njobs, to = n * (j + 1) / njobs;
        jobs[j].input = input + from * (GIT_OID_HEXSZ + 1);
        jobs[j].inlen = (to - from) * (GIT_OID_HEXSZ + 1);
    }
    argv_b av = {.n = 0};
    common_args(&av, g);
    arg(&av, "log");
    arg(&av, "--no-walk=unsorted");
    arg(&av, "--stdin");
    arg(&av, "--format=%H");
    arg(&av, "--no-renames");
    arg(&av, "--diff-merges=first-parent");
    diff_args(&av);
    job_progress prog = {.cb = progress, .total = n};
    bool report = progress && progress->fn && n >= QR_PROGRESS_MIN;
    if (report) {
        clock_gettime(CLOCK_MONOTONIC, &prog.next);
        progress->fn(progress->ud, "computing line statistics of commits", 0, n);
    }
    int rc = run_git((const char *const *)av.v, jobs, njobs, report ? &prog : NULL, progress ? progress->stop : NULL,
                     err);
    if (report)
        progress->fn(progress->ud, "computing line statistics of commits", n, n);
    for (size_t j = 0; j < njobs && rc == QR_OK; j++) {
        parsed p = {0};
        size_t from = n * j / njobs, to = n * (j + 1) / njobs;
        rc = parse_output(&p, jobs[j].outb.p ? jobs[j].outb.p : "", jobs[j].outb.len, true);
        if (rc == QR_EIO)
            bad_output(err, "git log --numstat");
        /* git prints the commits in the order given, one record each */
        if (rc == QR_OK && p.nr != to - from)
            rc = bad_output(err, "git log --numstat");
        for (size_t k = 0; rc == QR_OK && k < p.nr; k++) {
            size_t i = idx[from + k];
            if (!git_oid_equal(&p.r[k].oid, &cs[i].oid))
                rc = bad_output(err, "git log --numstat");
            else
                rc = to_stats(&p, &p.r[k], a, &out[i]);
        }
        parsed_release(&p);
    }
    jobs_release(jobs, njobs);
    free(input);
    if (rc == QR_ENOMEM && !err->len)
        qr_buf_puts(err, "out of memory computing file statistics");
    return rc;
}

bool qr__git_stats_storable(qr_git *g, const qr_commit_info *c)
{
    return !is_merge(c) && !(c->nparents == 0 && qr__git_is_shallow(g, &c->oid));
}

int qr__git_stats(qr_git *g, qr_git_index **ix, const qr_commit_info *cs, size_t n,
                  bool first_parent, const qr_progress *progress, qr_arena *a, qr_commit_stats *out,
                  qr_buf *err)
{
    memset(out, 0, n * sizeof *out);
    for (size_t i = 0; i < n; i++)
        git_oid_fmt(out[i].oid, &cs[i].oid);
    size_t *want = malloc((n ? n : 1) * sizeof *want);
    size_t *missing = malloc((n ? n : 1) * sizeof *missing);
    int rc = want && missing ? QR_OK : QR_ENOMEM;
    size_t nwant = 0, nmissing = 0;
    /* merges carry nothing (git log shows no diff for them) unless first_parent */
    for (size_t i = 0; rc == QR_OK && i < n; i++)
        if (!is_merge(&cs[i]) || first_parent)
            want[nwant++] = i;
    /* what the index holds was computed under the attributes of its time */
    if (rc == QR_OK && ix && *ix && nwant)
        rc = qr__git_index_bind(g, *ix);
    /* the index holds what git log shows by default: merges are not in it */
    if (rc == QR_OK && ix && *ix && nwant) {
        const char **oids = malloc(nwant * sizeof *oids);
        qr_commit_stats *got = calloc(nwant, sizeof *got);
        bool *found = calloc(nwant, sizeof *found);
        size_t nq = 0;
        size_t *qpos = malloc(nwant * sizeof *qpos);
        if (!oids || !got || !found || !qpos) {
            rc = QR_ENOMEM;
        } else {
            /* a shallow boundary is not looked up: what the index holds for it (if
             * anything) was its diff against parents that git no longer sees */
            for (size_t k = 0; k < nwant; k++)
                if (qr__git_stats_storable(g, &cs[want[k]])) {
                    oids[nq] = out[want[k]].oid;
                    qpos[nq++] = want[k];
                }
            qr_buf ierr;
            qr_buf_init(&ierr);
            int irc = nq ? qr_git_index_get_many(*ix, oids, nq, a, got, found, &ierr) : QR_OK;
            if (irc == QR_ENOMEM) {
                rc = irc;
            } else if (irc != QR_OK) {
                /* the index is a cache: go on without it */
                qr_git_index_close(*ix);
                *ix = NULL;
                memset(found, 0, nwant * sizeof *found);
            } else {
                for (size_t k = 0; k < nq; k++)
                    if (found[k]) {
                        char oid[41];
                        memcpy(oid, out[qpos[k]].oid, sizeof oid);
                        out[qpos[k]] = got[k];
                        memcpy(out[qpos[k]].oid, oid, sizeof oid);
                    }
            }
            qr_buf_release(&ierr);
            /* what is still missing, in walk order */
            size_t q = 0;
            for (size_t k = 0; rc == QR_OK && k < nwant; k++) {
                bool have = q < nq && qpos[q] == want[k] && found[q];
                if (q < nq && qpos[q] == want[k])
                    q++;
                if (!have)
                    missing[nmissing++] = want[k];
            }
        }
        free(oids);
        free(got);
        free(found);
        free(qpos);
    } else if (rc == QR_OK) {
        memcpy(missing, want, nwant * sizeof *want);
        nmissing = nwant;
    }
    if (rc == QR_OK && nmissing)
        rc = compute(g, cs, missing, nmissing, progress, a, out, err);
    /* store what was computed, except what git's view may change later: merges (stored
     * only as git log shows them, which is no stats) and the boundary of a shallow clone
     * (root commits here, but not once the clone is deepened) */
    if (rc == QR_OK && ix && *ix && nmissing) {
        qr_commit_stats *put = malloc(nmissing * sizeof *put);
        size_t nput = 0;
        if (put) {
            for (size_t k = 0; k < nmissing; k++) {
                if (!qr__git_stats_storable(g, &cs[missing[k]]))
                    continue;
                put[nput++] = out[missing[k]];
            }
            qr_buf ierr;
            qr_buf_init(&ierr);
            if (nput && qr_git_index_put(*ix, put, nput, &ierr) != QR_OK) {
                qr_git_index_close(*ix);
                *ix = NULL;
            }
            qr_buf_release(&ierr);
            free(put);
        }
    }
    free(want);
    free(missing);
    if (rc == QR_ENOMEM && !err->len)
        qr_buf_puts(err, "out of memory computing file statistics");
    return rc;
}

/* ---- filling the index ---- */

/* Progress of one batch, as part of the whole run. */
typedef struct batch_progress {
    const qr_progress *outer;
    size_t offset, total;
} batch_progress;

static void batch_progress_fn(void *ud, const char *what, size_t done, size_t total)
{
    const batch_progress *b = ud;
    (void)total;
    /* the end of the whole run is reported once, by qr__git_stats_ensure */
    if (b->offset + done < b->total)
        b->outer->fn(b->outer->ud, what, b->offset + done, b->total);
}

int qr__git_stats_ensure(qr_git *g, qr_git_index *ix, const qr_commit_info *cs, size_t n,
                         const qr_progress *progress, size_t *added, qr_buf *err)
{
    *added = 0;
    size_t *miss = malloc((n ? n : 1) * sizeof *miss);
    git_oid *oids = calloc(n ? n : 1, sizeof *oids);
    bool *found = malloc(n ? n : 1);
    qr_commit_info *batch = NULL;
    size_t *iota = NULL;
    int rc = miss && oids && found ? QR_OK : QR_ENOMEM;
    if (rc == QR_OK)
        rc = qr__git_index_bind(g, ix);
    size_t m = 0, nmiss = 0;
    for (size_t i = 0; rc == QR_OK && i < n; i++)
        if (qr__git_stats_storable(g, &cs[i])) {
            miss[m] = i;
            git_oid_cpy(&oids[m++], &cs[i].oid);
        }
    if (rc == QR_OK)
        rc = qr__index_has_many(ix, oids, m, found, err);
    for (size_t k = 0; rc == QR_OK && k < m; k++)
        if (!found[k])
            miss[nmiss++] = miss[k];
    size_t bmax = nmiss < ENSURE_BATCH ? nmiss : ENSURE_BATCH;
    if (rc == QR_OK && nmiss &&
        (!(batch = malloc(bmax * sizeof *batch)) || !(iota = malloc(bmax * sizeof *iota))))
        rc = QR_ENOMEM;
    for (size_t k = 0; rc == QR_OK && k < bmax; k++)
        iota[k] = k;
    bool report = progress && progress->fn && nmiss >= QR_PROGRESS_MIN;
    if (rc == QR_OK && report)
        progress->fn(progress->ud, "computing line statistics of commits", 0, nmiss);
    /* batches grow from FIRST_BATCH to ENSURE_BATCH: a run stopped early (Ctrl-C, a
     * cancel) still keeps the first batches it finished */
    size_t step = FIRST_BATCH;
    for (size_t from = 0; rc == QR_OK && from < nmiss; from += step, step = step * 2 < ENSURE_BATCH ? step * 2 : ENSURE_BATCH) {
        if (qr_stop_check(progress ? progress->stop : NULL)) {
            qr_stop_fail(progress->stop, err);
            rc = QR_ESTOPPED;
            break;
        }
        size_t k = nmiss - from < step ? nmiss - from : step;
        for (size_t j = 0; j < k; j++)
            batch[j] = cs[miss[from + j]];
        qr_arena a;
        qr_arena_init(&a, 0);
        qr_commit_stats *out = qr_arena_zalloc(&a, k * sizeof *out);
        batch_progress bp = {progress, from, nmiss};
        /* the stop reaches the git processes whether or not progress is drawn */
        qr_progress sub = {report ? batch_progress_fn : NULL, &bp, progress ? progress->stop : NULL};
        rc = out ? QR_OK : QR_ENOMEM;
        for (size_t j = 0; rc == QR_OK && j < k; j++)
            git_oid_fmt(out[j].oid, &batch[j].oid);
        if (rc == QR_OK)
            rc = compute(g, batch, iota, k, &sub, &a, out, err);
        if (rc == QR_OK)
            rc = qr_git_index_put(ix, out, k, err);
        if (rc == QR_OK)
            *added += k;
        qr_arena_release(&a);
    }
    if (report)
        progress->fn(progress->ud, "computing line statistics of commits", nmiss, nmiss);
    free(miss);
    free(oids);
    free(found);
    free(batch);
    free(iota);
    if (rc == QR_ENOMEM && !err->len)
        qr_buf_puts(err, "out of memory computing file statistics");
    return rc;
}

/* ---- between two commits ---- */

int qr__git_diff_stats(qr_git *g, const git_oid *from, const git_oid *to, qr_arena *a,
                       qr_commit_stats *out, qr_buf *err)
{
    char hf[GIT_OID_HEXSZ + 1], ht[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hf, sizeof hf, from);
    git_oid_tostr(ht, sizeof ht, to);
    memset(out, 0, sizeof *out);
    memcpy(out->oid, ht, sizeof out->oid);
    argv_b av = {.n = 0};
    common_args(&av, g);
    arg(&av, "diff-tree");
    arg(&av, "-r");
    arg(&av, "--no-renames");
    diff_args(&av);
    arg(&av, hf);
    arg(&av, ht);
    job j;
    memset(&j, 0, sizeof j);
    int rc = run_git((const char *const *)av.v, &j, 1, NULL, NULL, err);
    parsed p = {0};
    if (rc == QR_OK) {
        rc = parse_output(&p, j.outb.p ? j.outb.p : "", j.outb.len, false);
        if (rc == QR_EIO)
            bad_output(err, "git diff-tree");
    }
    if (rc == QR_OK)
        rc = to_stats(&p, &p.r[0], a, out);
    parsed_release(&p);
    jobs_release(&j, 1);
    return rc;
}

/* ---- a file's history ---- */

int qr__git_follow(qr_git *g, const qr_follow_opts *o, qr_arena *a, qr_follow_entry **out,
                   size_t *n, qr_buf *err)
{
    *out = NULL;
    *n = 0;
    char revs[2 * QR_REVS_MAX][GIT_OID_HEXSZ + 2], since[32], until[32];
    argv_b av = {.n = 0};
    common_args(&av, g);
    arg(&av, "log");
    arg(&av, o->follow ? "--follow" : "-M");
    arg(&av, "--format=%H");
    diff_args(&av);
    if (o->has_since) {
        snprintf(since, sizeof since, "--max-age=%lld", (long long)o->since);
        arg(&av, since);
    }
    if (o->has_until) {
        snprintf(until, sizeof until, "--min-age=%lld", (long long)o->until);
        arg(&av, until);
    }
    if (o->merges == QR_MERGES_EXCLUDE)
        arg(&av, "--no-merges");
    else if (o->merges == QR_MERGES_ONLY)
        arg(&av, "--merges");
    if (o->first_parent)
        arg(&av, "--first-parent");
    char count[32];
    if (o->max_count >= 0) {
        snprintf(count, sizeof count, "--max-count=%lld", (long long)o->max_count);
        arg(&av, count);
    }
    size_t nr = 0;
    for (size_t i = 0; i < o->revs->nneg; i++) {
        revs[nr][0] = '^';
        git_oid_tostr(revs[nr] + 1, GIT_OID_HEXSZ + 1, &o->revs->neg[i]);
        arg(&av, revs[nr++]);
    }
    for (size_t i = 0; i < o->revs->npos; i++) {
        git_oid_tostr(revs[nr], GIT_OID_HEXSZ + 1, &o->revs->pos[i]);
        arg(&av, revs[nr++]);
    }
    arg(&av, "--");
    arg(&av, o->spec);
    job j;
    memset(&j, 0, sizeof j);
    j.max_out = o->max_output;
    int rc = run_git((const char *const *)av.v, &j, 1, NULL, o->stop, err);
    parsed p = {0};
    if (rc == QR_OK) {
        rc = parse_output(&p, j.outb.p ? j.outb.p : "", j.outb.len, true);
        if (rc == QR_EIO)
            bad_output(err, "git log --follow");
    }
    size_t total = 0;
    for (size_t k = 0; rc == QR_OK && k < p.nr; k++)
        total += o->per_file && p.r[k].n ? p.r[k].n : 1;
    /* a commit git lists without a file (a merge): a row named after the one path asked
     * for, or none for a pattern (one row per file) */
    if (rc == QR_OK && total) {
        *out = qr_arena_zalloc(a, total * sizeof **out);
        if (!*out)
            rc = QR_ENOMEM;
    }
    size_t nout = 0;
    bool stop_follow = false;
    for (size_t k = 0; rc == QR_OK && k < p.nr && !stop_follow; k++) {
        const record *r = &p.r[k];
        qr_follow_entry *f = &(*out)[nout];
        if (r->n == 0 && !o->path)
            continue;
        if (!o->per_file || r->n == 0) {
            nout++;
            git_oid_cpy(&f->oid, &r->oid);
            f->status = 'M';
        }
        for (size_t i = 0; i < r->n; i++) {
            const entry *e = &p.e[r->first + i];
            if (o->per_file) {
                f = &(*out)[nout++];
                git_oid_cpy(&f->oid, &r->oid);
            }
            if (i == 0 || o->per_file) {
                f->path = qr_arena_strndup(a, e->path, e->plen);
                f->old_path = e->old ? qr_arena_strndup(a, e->old, e->olen) : NULL;
                f->status =
                    e->status == 'R' || e->status == 'C' ? e->status : norm_status(e->status);
                if (!f->path || (e->old && !f->old_path))
                    rc = QR_ENOMEM;
                /* an empty file "renamed" or "copied" from another empty file is git's
                   rename detection pairing emptiness (redis: a new, empty src/cluster.c
                   followed into deps/jemalloc): the file was created here */
                if (o->follow && o->path && e->old && e->empty_new && e->add == 0 &&
                    e->del == 0) {
                    f->status = 'A';
                    f->old_path = NULL;
                    stop_follow = true;
                }
            }
            f->binary = f->binary || e->binary;
            f->additions += e->add;
            f->deletions += e->del;
        }
        if (!f->path)
            f->path = o->path ? o->path : "";
    }
    if (rc == QR_OK)
        *n = nout;
    parsed_release(&p);
    jobs_release(&j, 1);
    return rc;
}
