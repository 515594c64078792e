/*
 * mem_agent_run.c: one run of a memory agent (query, prompt, one model call,
 * reply, apply, visits), the schedule rule, and the small state file that
 * remembers when each agent last ran.
 *
 * Design: a run is a straight line over the pieces in the other mem_agent
 * files; its report keeps everything a caller prints or logs (the prompt, the
 * reply, the plan, the counts, the tokens). The model call is one turn of the turn
 * module (quarry/turn.h: the request's budget and stop, the token count, the trace
 * events; no repair turn). Visits go only to the nodes the
 * prompt showed, after the actions were applied, with outcome "ok": a failed
 * run records none, so the next run sees the same nodes. Last-run times live in
 * STORE.agents.json beside the store, rewritten whole through a temporary file
 * (a fresh mkstemp name, never a predictable one that a planted symbolic link
 * could redirect) and rename(2) under an fcntl lock on STORE.agents.lock:
 * small, readable, durable, and written by both `mem agent run` and the daemon;
 * its times are clamped to [0, now + 1 year] when read and added with
 * saturation, so a corrupt file cannot overflow the schedule. Who runs an agent
 * is a second lock, one byte per agent (and byte 0 for a daemon) of
 * STORE.agents.run.lock, held from the due check to the recorded state; a
 * separate file because closing any descriptor of a file drops all of the
 * process's fcntl locks on it (two names whose hashes meet would
 * exclude each other; at 61 bits that takes billions of agents). Rejected: a lock file
 * per agent (litter beside the store); open-file-description locks (Linux
 * only); flock (whole files only); deriving the last run from visits (a run whose query matched
 * nothing, or that failed, leaves none, so a failing agent would be retried every round; and the
 * store's schema belongs to the memory module); keeping the times only in the
 * daemon's memory (a restart would run every agent again at once).
 *
 * On a PostgreSQL store (issue 26) there is no file: the run state is a row of the
 * database's due_agents table (qr_mem_sched_*, quarry/memory.h), and who runs an agent is a
 * lease on that row (FOR UPDATE SKIP LOCKED, an expiry on the server's clock) instead of an
 * fcntl lock, so schedulers on many machines share one schedule. A leased run records its
 * state inside the transaction of its actions and visits, and only while the lease is
 * still its own: a run that outlived its lease (another process took the agent over) keeps
 * nothing, so an agent's effects land once per due period however many schedulers race.
 */
#include "quarry/date.h"
#include "quarry/mem_agent.h"
#include "quarry/pipeline.h"
#include "quarry/value.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int qr_mem_agent_select(const qr_mem_agent *a, qr_mem *m, int64_t now, char ***keys, size_t *nkeys,
                        qr_buf *err)
{
    *keys = NULL;
    *nkeys = 0;
    qr_pipeline_result r;
    memset(&r, 0, sizeof r);
    int rc = qr_pipeline_run(a->pipeline, m, now, &r, err);
    if (rc != QR_OK)
        return rc == QR_ENOMEM ? rc : QR_ERUNTIME;
    char **k = r.n ? calloc(r.n, sizeof *k) : NULL;
    if (r.n && !k) {
        qr_pipeline_result_clear(&r);
        return QR_ENOMEM;
    }
    for (size_t i = 0; i < r.n; i++) {
        if (!(k[i] = strdup(r.snap->key[r.hits[i].node]))) {
            qr_mem_agent_keys_free(k, i);
            qr_pipeline_result_clear(&r);
            return QR_ENOMEM;
        }
    }
    *keys = k;
    *nkeys = r.n;
    qr_pipeline_result_clear(&r);
    return QR_OK;
}

void qr_mem_agent_report_clear(qr_mem_agent_report *r)
{
    qr_mem_agent_prompt_clear(&r->prompt);
    qr_mem_agent_plan_clear(&r->plan);
    free(r->reply);
    memset(r, 0, sizeof *r);
}

/* The "mem_agent" trace event: what the run did with the reply. */
static void trace_run(const qr_turn_ctx *tc, const qr_mem_agent *a, const qr_mem_agent_report *r,
                      int rc, const qr_buf *err)
{
    qr_trace *t = qr_turn_trace(tc);
    if (!t)
        return;
    qr_buf b;
    qr_trace_begin(t, &b, "mem_agent", tc->source ? tc->source : "mem_agent");
    qr_trace_cstr(&b, "agent", a->name);
    qr_trace_int(&b, "selected", (int64_t)r->selected);
    qr_trace_int(&b, "actions", (int64_t)r->plan.n);
    qr_trace_int(&b, "problems", (int64_t)r->plan.nproblems);
    qr_trace_int(&b, "applied", (int64_t)r->applied);
    qr_trace_int(&b, "visits", (int64_t)r->visits);
    if (rc != QR_OK) {
        qr_buf why;
        qr_buf_init(&why);
        if (r->llm_error[0])
            qr_buf_puts(&why, r->llm_error);
        else if (r->plan.nproblems)
            qr_mem_agent_problem_format(&r->plan.problems[0], &why);
        else if (err && err->len)
            qr_buf_append(&why, err->p, err->len);
        else
            qr_buf_puts(&why, "failed");
        qr_trace_str(&b, "error", why.p, why.len);
        qr_buf_release(&why);
    }
    qr_trace_emit(t, &b);
}

int qr_mem_agent_run(const qr_mem_agent *a, qr_mem *m, qr_llm *llm, int64_t now,
                     qr_mem_agent_report *r, qr_buf *err)
{
    qr_turn_ctx tc = {.llm = llm, .source = "mem_agent"};
    return qr_mem_agent_run_turn(a, m, &tc, now, r, err);
}

/* before_commit (NULL: none) runs inside the transaction of the reply's actions and the
 * visits, after them: anything but QR_OK rolls the whole run back. */
typedef int (*commit_hook)(void *ud, qr_mem *m, qr_buf *err);

static int run_turn(const qr_mem_agent *a, qr_mem *m, const qr_turn_ctx *tc, int64_t now,
                    commit_hook before_commit, void *hook_ud, qr_mem_agent_report *r,
                    qr_buf *err)
{
    memset(r, 0, sizeof *r);
    if (!now)
        now = qr_clock_now();
    char **keys = NULL;
    size_t nkeys = 0;
    int rc = qr_mem_agent_select(a, m, now, &keys, &nkeys, err);
    if (rc != QR_OK)
        return rc;
    r->selected = nkeys;
    rc = qr_mem_agent_fill(a, m, (const char *const *)keys, nkeys, now, &r->prompt, err);
    qr_mem_agent_keys_free(keys, nkeys);
    if (rc != QR_OK || !tc->llm || nkeys == 0)
        return rc;

    /* one call, no repair: a reply with invalid actions is reported, never applied */
    qr_llm_message msg = {.role = "user", .content = r->prompt.user.p, .len = r->prompt.user.len};
    qr_turn t = {.agent = a->name,
                 .system = r->prompt.system.p,
                 .system_len = r->prompt.system.len,
                 .messages = &msg,
                 .nmessages = 1};
    qr_turn_result res;
    rc = qr_turn_run(tc, &t, &res);
    r->called = res.calls > 0;
    r->usage = res.usage;
    r->ms = res.ms;
    if (rc != QR_OK) {
        snprintf(r->llm_error, sizeof r->llm_error, "%.399s",
                 res.error[0] ? res.error : "the model call failed");
        qr_turn_result_clear(&res);
        return rc == QR_ENOMEM || rc == QR_ESTOPPED ? rc : QR_EIO;
    }
    r->reply = res.text;
    r->reply_len = res.len;
    res.text = NULL;
    qr_turn_result_clear(&res);

    rc = qr_mem_agent_parse_reply(&r->plan, a->actions, m, r->reply, r->reply_len);
    if (rc == QR_EIO) {
        if (err)
            qr_buf_printf(err, "agent '%s': the store could not be read to check the reply",
                          a->name);
        return rc;
    }
    if (rc != QR_OK)
        return rc;
    /* the reply's actions and the visits: one transaction, all or nothing */
    rc = qr_mem_begin(m, err);
    if (rc != QR_OK)
        return rc == QR_ENOMEM ? rc : QR_ERUNTIME;
    rc = qr_mem_agent_apply(m, a->name, &r->plan, &r->applied, err);
    for (size_t i = 0; rc == QR_OK && i < r->prompt.nshown; i++) {
        rc = qr_mem_visit(m, r->prompt.shown[i], a->name, now, "ok", err);
        if (rc == QR_OK)
            r->visits++;
        else if (rc != QR_ENOMEM)
            rc = QR_ERUNTIME;
    }
    if (rc == QR_OK && before_commit)
        rc = before_commit(hook_ud, m, err);
    if (rc == QR_OK) {
        rc = qr_mem_commit(m, err);
        if (rc != QR_OK && rc != QR_ENOMEM)
            rc = QR_ERUNTIME;
    } else {
        qr_mem_rollback(m);
    }
    if (rc != QR_OK) {
        r->applied = 0;
        r->visits = 0;
    }
    return rc;
}

int qr_mem_agent_run_turn(const qr_mem_agent *a, qr_mem *m, const qr_turn_ctx *tc, int64_t now,
                          qr_mem_agent_report *r, qr_buf *err)
{
    int rc = run_turn(a, m, tc, now, NULL, NULL, r, err);
    if (r->called)
        trace_run(tc, a, r, rc, err);
    return rc;
}

/* ---- a run under a lease (a PostgreSQL store) ---- */

void qr_mem_agent_state_of(const qr_mem_sched *s, qr_mem_agent_state *out)
{
    memset(out, 0, sizeof *out);
    out->last_ok = s->last_ok;
    out->last_attempt = s->last_attempt;
    snprintf(out->error, sizeof out->error, "%s", s->error);
}

void qr_mem_agent_holder(char *out, size_t cap)
{
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0 || !host[0])
        snprintf(host, sizeof host, "localhost");
    snprintf(out, cap, "%.100s pid %ld", host, (long)getpid());
}

/* The next due time after a run that ended at when (ok or not), for the due column: the
 * daemon's rule (qr_mem_agent_due) decides, this only shows it. On-demand: never. */
static int64_t next_due(const qr_mem_agent *a, const qr_mem_sched *before, int64_t when, bool ok)
{
    if (a->period <= 0)
        return INT64_MAX;
    qr_mem_agent_state s;
    qr_mem_agent_state_of(before, &s);
    s.last_attempt = when;
    if (ok)
        s.last_ok = when;
    int64_t next = 0;
    qr_mem_agent_due(a, &s, when, &next);
    return next;
}

typedef struct lease_ctx {
    const qr_mem_agent *a;
    const char *holder;
    const qr_mem_sched *before;
    bool lost; /* the lease was another's by the end of the run */
} lease_ctx;

/* Inside the run's transaction: the run and its record commit together, and only while
 * the lease is still this process's. */
static int record_in_tx(void *ud, qr_mem *m, qr_buf *err)
{
    lease_ctx *c = ud;
    int64_t end = qr_clock_now();
    bool held = false;
    int rc = qr_mem_sched_record(m, c->a->name, c->holder, end, true, NULL,
                                 next_due(c->a, c->before, end, true), &held, err);
    if (rc != QR_OK)
        return rc == QR_ENOMEM ? rc : QR_ERUNTIME;
    if (!held) {
        c->lost = true;
        if (err)
            qr_buf_printf(err,
                          "agent '%s': its lease ended before the run did and another "
                          "process claimed it; nothing of this run was kept (a longer "
                          "--lease outlasts a run)",
                          c->a->name);
        return QR_ERUNTIME;
    }
    return QR_OK;
}

int qr_mem_agent_run_leased(const qr_mem_agent *a, qr_mem *m, const qr_turn_ctx *tc, int64_t now,
                            const char *holder, const qr_mem_sched *before,
                            qr_mem_agent_report *r, qr_buf *err)
{
    lease_ctx c = {a, holder, before, false};
    int rc = run_turn(a, m, tc, now, tc->llm ? record_in_tx : NULL, &c, r, err);
    if (r->called)
        trace_run(tc, a, r, rc, err);
    qr_buf e2;
    qr_buf_init(&e2);
    if ((rc == QR_OK && r->called) || c.lost) {
        /* recorded in the run's transaction; or the lease is another's: nothing to record */
    } else if (r->called) {
        char why[700];
        qr_mem_agent_failure_text(rc, r, err, why, sizeof why);
        int64_t end = qr_clock_now();
        bool held = false;
        qr_mem_sched_record(m, a->name, holder, end, false, why, next_due(a, before, end, false),
                            &held, &e2);
    } else {
        qr_mem_sched_release(m, a->name, holder, &e2);
    }
    qr_buf_release(&e2);
    return rc;
}

/* ---- the schedule ---- */

/* a + b, held at INT64_MIN / INT64_MAX instead of overflowing (the times come
 * from a file anyone may have edited) */
static int64_t sat_add(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}

bool qr_mem_agent_due(const qr_mem_agent *a, const qr_mem_agent_state *s, int64_t now,
                      int64_t *next)
{
    if (a->period <= 0) {
        if (next)
            *next = 0;
        return false;
    }
    int64_t due = s->last_ok ? sat_add(s->last_ok, a->period) : 0;
    if (s->last_attempt > s->last_ok) {
        int64_t wait = a->period < 3600 ? a->period : 3600;
        if (sat_add(s->last_attempt, wait) > due)
            due = sat_add(s->last_attempt, wait);
    }
    if (next)
        *next = due;
    return now >= due;
}

/* ---- the state file ---- */

void qr_mem_agent_state_path(const char *store_path, qr_buf *out)
{
    qr_buf_printf(out, "%s.agents.json", store_path);
}

static int read_state(const char *path, qr_arena *a, qr_val *agents, qr_buf *err)
{
    *agents = qr_map_empty();
    char *text = NULL;
    size_t len = 0;
    const char *why = NULL;
    /* quarry writes it (temporary file, rename): a FIFO or a link there was planted */
    int rc = qr_read_regular_file(path, 16u << 20, &text, &len, &why);
    if (rc != QR_OK) {
        if (rc == QR_EIO && errno == ENOENT)
            return QR_OK;
        if (err)
            qr_buf_printf(err, "cannot read the agent state file '%s': %s", path,
                          rc == QR_EINVAL ? "too large" : why ? why : strerror(errno));
        return rc == QR_ENOMEM ? rc : QR_EIO;
    }
    qr_val doc;
    qr_read_error rerr;
    rc = len ? qr_json_read(a, text, len, &doc, &rerr) : QR_EINVAL;
    free(text);
    qr_val ag;
    if (rc != QR_OK || doc.t != QR_T_MAP || !qr_map_lookup(doc, qr_kw_cstr(a, "agents"), &ag) ||
        ag.t != QR_T_MAP) {
        if (rc == QR_ENOMEM)
            return rc;
        if (err)
            qr_buf_printf(err,
                          "the agent state file '%s' is not in its format "
                          "({\"agents\": {...}}); move it aside and the times start afresh",
                          path);
        return QR_EIO;
    }
    *agents = ag;
    return QR_OK;
}

static int64_t int_field(qr_arena *a, qr_val m, const char *k)
{
    qr_val v;
    if (m.t == QR_T_MAP && qr_map_lookup(m, qr_kw_cstr(a, k), &v) && v.t == QR_T_INT)
        return v.i;
    return 0;
}

/* A time read from the state file, held in [0, now + 1 year]: a corrupt or
 * hand-edited value can delay an agent by a year at most, never overflow. */
static int64_t time_field(qr_arena *a, qr_val m, const char *k)
{
    int64_t t = int_field(a, m, k);
    int64_t hi = sat_add(qr_clock_now(), 366 * 86400);
    return t < 0 ? 0 : t > hi ? hi : t;
}

static void fill_state(qr_arena *a, qr_val e, qr_mem_agent_state *out)
{
    out->last_ok = time_field(a, e, "last_ok");
    out->last_attempt = time_field(a, e, "last_attempt");
    qr_val v;
    if (e.t == QR_T_MAP && qr_map_lookup(e, qr_kw_cstr(a, "error"), &v) && v.t == QR_T_STR)
        snprintf(out->error, sizeof out->error, "%s", v.s->data);
}

int qr_mem_agent_state_get(const char *state_path, const char *agent, qr_mem_agent_state *out,
                           qr_buf *err)
{
    memset(out, 0, sizeof *out);
    qr_arena a;
    qr_arena_init(&a, 64u << 20);
    qr_val agents, e;
    int rc = read_state(state_path, &a, &agents, err);
    if (rc == QR_OK && qr_map_lookup(agents, qr_str_cstr(&a, agent), &e))
        fill_state(&a, e, out);
    qr_arena_release(&a);
    return rc;
}

static void put_entry(qr_buf *b, const char *name, size_t nlen, const qr_mem_agent_state *s,
                      bool first)
{
    qr_buf_puts(b, first ? "\n    " : ",\n    ");
    qr_buf_json_string(b, name, nlen);
    qr_buf_printf(b, ": {\"last_ok\": %lld, \"last_attempt\": %lld", (long long)s->last_ok,
                  (long long)s->last_attempt);
    if (s->error[0]) {
        qr_buf_puts(b, ", \"error\": ");
        qr_buf_json_string(b, s->error, strlen(s->error));
    }
    qr_buf_putc(b, '}');
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int qr_mem_agent_state_record(const char *state_path, const char *agent, int64_t when, bool ok,
                              const char *error, qr_buf *err)
{
    qr_buf lockp, tmpp, out;
    qr_buf_init(&lockp);
    qr_buf_init(&tmpp);
    qr_buf_init(&out);
    size_t sl = strlen(state_path);
    if (sl > 5 && !strcmp(state_path + sl - 5, ".json"))
        sl -= 5;
    qr_buf_printf(&lockp, "%.*s.lock", (int)sl, state_path);
    qr_buf_printf(&tmpp, "%s.tmp.XXXXXX", state_path);
    qr_arena a;
    qr_arena_init(&a, 64u << 20);
    int rc = QR_ENOMEM, lfd = -1;
    if (lockp.failed || tmpp.failed)
        goto done;
    lfd = open(lockp.p, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    int lr = -1;
    while (lfd >= 0 && (lr = fcntl(lfd, F_SETLKW, &fl)) < 0 && errno == EINTR)
        ;
    if (lfd < 0 || lr < 0) {
        if (err)
            qr_buf_printf(err, "cannot lock the agent state file '%s': %s", lockp.p,
                          strerror(errno));
        rc = QR_EIO;
        goto done;
    }
    qr_val agents;
    if ((rc = read_state(state_path, &a, &agents, err)) != QR_OK)
        goto done;
    qr_mem_agent_state s;
    memset(&s, 0, sizeof s);
    qr_val e;
    if (qr_map_lookup(agents, qr_str_cstr(&a, agent), &e))
        fill_state(&a, e, &s);
    s.last_attempt = when;
    if (ok) {
        s.last_ok = when;
        s.error[0] = 0;
    } else {
        snprintf(s.error, sizeof s.error, "%s", error && *error ? error : "failed");
    }
    qr_buf_puts(&out, "{\"agents\": {");
    bool first = true, seen = false;
    for (size_t i = 0; i < qr_map_len(agents); i++) {
        qr_val k = qr_map_key_at(agents, i);
        const char *kn;
        size_t kl;
        if (k.t == QR_T_STR) {
            kn = k.s->data;
            kl = k.s->len;
        } else if (k.t == QR_T_KW) {
            kn = qr_sym_name(k.sym, &kl);
        } else {
            continue;
        }
        qr_mem_agent_state o;
        memset(&o, 0, sizeof o);
        if (kl == strlen(agent) && !memcmp(kn, agent, kl)) {
            o = s;
            seen = true;
        } else {
            fill_state(&a, qr_map_val_at(agents, i), &o);
        }
        put_entry(&out, kn, kl, &o, first);
        first = false;
    }
    if (!seen)
        put_entry(&out, agent, strlen(agent), &s, first);
    qr_buf_puts(&out, "\n}}\n");
    rc = QR_ENOMEM;
    if (out.failed)
        goto done;
    /* a new file of a name nobody can guess (mkstemp: O_CREAT | O_EXCL), so a
     * symbolic link planted beside the store is never written through */
    int fd = mkstemp(tmpp.p);
    if (fd < 0 || fchmod(fd, 0644) < 0 || write_all(fd, out.p, out.len) < 0 || fsync(fd) < 0) {
        if (err)
            qr_buf_printf(err, "cannot write the agent state file '%s': %s", tmpp.p,
                          strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmpp.p);
        }
        rc = QR_EIO;
        goto done;
    }
    close(fd);
    if (rename(tmpp.p, state_path) < 0) {
        if (err)
            qr_buf_printf(err, "cannot replace the agent state file '%s': %s", state_path,
                          strerror(errno));
        unlink(tmpp.p);
        rc = QR_EIO;
        goto done;
    }
    rc = QR_OK;
done:
    if (lfd >= 0)
        close(lfd); /* releases the lock */
    qr_arena_release(&a);
    qr_buf_release(&lockp);
    qr_buf_release(&tmpp);
    qr_buf_release(&out);
    return rc;
}

/* ---- who runs what ---- */

static off_t agent_offset(const char *agent)
{
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a: fixed, so every quarry agrees */
    for (const unsigned char *p = (const unsigned char *)agent; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    return (off_t)(1 + h % ((uint64_t)1 << (sizeof(off_t) * 8 - 3)));
}

int qr_mem_agent_locks_open(qr_mem_agent_locks *l, const char *state_path, qr_buf *err)
{
    l->fd = -1;
    qr_buf p;
    qr_buf_init(&p);
    size_t sl = strlen(state_path);
    if (sl > 5 && !strcmp(state_path + sl - 5, ".json"))
        sl -= 5;
    qr_buf_printf(&p, "%.*s.run.lock", (int)sl, state_path);
    if (p.failed) {
        qr_buf_release(&p);
        return QR_ENOMEM;
    }
    l->fd = open(p.p, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    int rc = QR_OK;
    if (l->fd < 0) {
        if (err)
            qr_buf_printf(err, "cannot open the agent lock file '%s': %s", p.p, strerror(errno));
        rc = QR_EIO;
    }
    qr_buf_release(&p);
    return rc;
}

void qr_mem_agent_locks_close(qr_mem_agent_locks *l)
{
    if (l->fd >= 0)
        close(l->fd); /* releases every lock this process holds on the file */
    l->fd = -1;
}

/* Takes the one byte at off without waiting. QR_ERUNTIME when another process
 * holds it (*pid: that process, 0 when unknown). */
static int lock_byte(int fd, off_t off, long *pid)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = off;
    fl.l_len = 1;
    *pid = 0;
    int r;
    while ((r = fcntl(fd, F_SETLK, &fl)) < 0 && errno == EINTR)
        ;
    if (r == 0)
        return QR_OK;
    if (errno != EACCES && errno != EAGAIN)
        return QR_EIO;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = off;
    fl.l_len = 1;
    if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK)
        *pid = (long)fl.l_pid;
    return QR_ERUNTIME;
}

static void holder(qr_buf *err, long pid)
{
    if (pid > 0)
        qr_buf_printf(err, " (pid %ld)", pid);
}

int qr_mem_agent_lock_daemon(qr_mem_agent_locks *l, const char *store_path, qr_buf *err)
{
    long pid = 0;
    int rc = lock_byte(l->fd, 0, &pid);
    if (rc == QR_ERUNTIME && err) {
        qr_buf_printf(err, "a memory daemon is already running on the store '%s'", store_path);
        holder(err, pid);
        qr_buf_puts(err, "; stop it first, or use one daemon per store");
    } else if (rc == QR_EIO && err) {
        qr_buf_printf(err, "cannot lock the agent lock file: %s", strerror(errno));
    }
    return rc;
}

int qr_mem_agent_lock(qr_mem_agent_locks *l, const char *agent, qr_buf *err)
{
    long pid = 0;
    int rc = lock_byte(l->fd, agent_offset(agent), &pid);
    if (rc == QR_ERUNTIME && err) {
        qr_buf_printf(err, "agent '%s' is running in another process", agent);
        holder(err, pid);
        qr_buf_puts(err, "; wait for that run to finish, then try again");
    } else if (rc == QR_EIO && err) {
        qr_buf_printf(err, "cannot lock agent '%s': %s", agent, strerror(errno));
    }
    return rc;
}

void qr_mem_agent_unlock(qr_mem_agent_locks *l, const char *agent)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_UNLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = agent_offset(agent);
    fl.l_len = 1;
    if (l->fd >= 0)
        fcntl(l->fd, F_SETLK, &fl);
}
