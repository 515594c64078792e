/*
 * mem_agent_daemon.c: the memory agents' scheduler loop (quarry/mem_agent.h), so that
 * any surface can run it: `quarry mem daemon` gives it options, a log hook and a request
 * whose stop its signal handler sets.
 *
 * Design: one loop in one thread. Each round it rescans the agent directory (a file
 * whose mtime or size changed, or whose template file changed, is read again; a broken
 * one is logged once and skipped), then runs every due agent in name order, one model
 * call at a time, then sleeps in 100 ms steps. The request's stop is looked at between
 * agents and while sleeping, never inside a run: a run in progress (its writes included)
 * finishes before the loop ends. Runs are locked (qr_mem_agent_lock): an agent's lock is
 * held from the due check, made again once it is held, to its recorded state, and the
 * loop holds the daemon lock for its life, so two processes never run one agent at once
 * and a second daemon on a store refuses to start. On a PostgreSQL store there is no
 * file and no daemon lock: any number of daemons run, each agent's state is its row of
 * due_agents and its lock a lease on that row (daemon_run_shared, qr_mem_sched_claim), so
 * daemons on many machines run each due agent once and a dead daemon's lease expires.
 * Its log is one JSON object per event
 * (start, agent-load, agent-remove, agent-run, agent-skip, retry, error, stop), given to
 * the caller's hook. Also here: listing an agent directory, the model client of an
 * agent, and the one-line text of a failed run, which `mem agent list|run` share.
 *
 * Rejected: inotify (Linux only, and a rescan of a directory of a few files each round
 * costs nothing); a worker per agent (the seed asks for one model call at a time, and
 * SQLite writers queue anyway); exiting on a broken agent file (one typo would stop
 * every other agent); the request's stop inside a run (a cut run would leave its
 * writes half done).
 */
#define _XOPEN_SOURCE 700 /* strndup, nanosleep */
#include "quarry/date.h"
#include "quarry/llm.h"
#include "quarry/mem_agent.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void iso(int64_t t, char *buf)
{
    qr_date_format_iso(t, 0, buf, QR_DATE_ISO_LEN);
    size_t n = strlen(buf);
    if (n >= 6 && !strcmp(buf + n - 6, "+00:00"))
        strcpy(buf + n - 6, "Z");
}


static char *join(const char *dir, const char *name, const char *ext)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_printf(&b, "%s/%s%s", dir, name, ext);
    return b.failed ? NULL : qr_buf_detach(&b, NULL);
}

static int cmp_files(const void *a, const void *b)
{
    return strcmp(((const qr_mem_agent_file *)a)->name, ((const qr_mem_agent_file *)b)->name);
}

long qr_mem_agent_list_files(const char *dir, qr_mem_agent_file **out)
{
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    size_t n = 0, cap = 0;
    qr_mem_agent_file *v = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".toml") || e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            qr_mem_agent_file *nv = realloc(v, cap * sizeof *nv);
            if (!nv)
                break;
            v = nv;
        }
        v[n].name = strndup(e->d_name, l - 5);
        v[n].path = join(dir, e->d_name, "");
        if (!v[n].name || !v[n].path) {
            free(v[n].name);
            free(v[n].path);
            break;
        }
        n++;
    }
    closedir(d);
    if (n)
        qsort(v, n, sizeof *v, cmp_files);
    *out = v;
    return (long)n;
}

void qr_mem_agent_files_free(qr_mem_agent_file *v, long n)
{
    for (long i = 0; i < n; i++) {
        free(v[i].name);
        free(v[i].path);
    }
    free(v);
}

/* A client for the agent: the configuration with the agent's model when it
 * names one. */
qr_llm *qr_mem_agent_client(qr_llm_config *cfg, const qr_mem_agent *ag)
{
    char *saved = cfg->model;
    if (ag->model)
        cfg->model = ag->model;
    qr_llm *l = qr_llm_configured(cfg) ? qr_llm_new(cfg) : NULL;
    cfg->model = saved;
    return l;
}


/* A one-line summary of a failed run (for the state file and the log). */
void qr_mem_agent_failure_text(int rc, const qr_mem_agent_report *r, const qr_buf *err, char *out,
                         size_t cap)
{
    if (rc == QR_EINVAL && (r->plan.nproblems || r->plan.nproblems_dropped)) {
        qr_buf b;
        qr_buf_init(&b);
        qr_buf_printf(&b, "%zu invalid action(s), nothing applied; first: ",
                      r->plan.nproblems + r->plan.nproblems_dropped);
        if (r->plan.nproblems)
            qr_mem_agent_problem_format(&r->plan.problems[0], &b);
        snprintf(out, cap, "%s", b.p ? b.p : "invalid reply");
        qr_buf_release(&b);
    } else if (r->llm_error[0]) {
        snprintf(out, cap, "the model call failed: %s", r->llm_error);
    } else {
        snprintf(out, cap, "%s", err->p && err->len ? err->p : "the run failed");
    }
}

/* ---- the loop ---- */

typedef struct dlog {
    const qr_mem_agent_daemon *o;
} dlog;

/* One JSON object: {"time": ..., "event": ..., then the fields, pre-formatted JSON
 * members}, given to the caller's log hook. */
static void log_event(dlog *l, const char *event, const char *fields)
{
    if (!l->o->log)
        return;
    char t[QR_DATE_ISO_LEN];
    iso(qr_clock_now(), t);
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_printf(&b, "{\"time\":\"%s\",\"event\":\"%s\"%s%s}", t, event,
                  fields && *fields ? "," : "", fields ? fields : "");
    if (!b.failed)
        l->o->log(l->o->log_ud, b.p);
    qr_buf_release(&b);
}

static void json_field(qr_buf *b, const char *name, const char *s)
{
    if (b->len)
        qr_buf_putc(b, ',');
    qr_buf_json_string(b, name, strlen(name));
    qr_buf_putc(b, ':');
    qr_buf_json_string(b, s, strlen(s));
}

/* An "error" event: the agent (NULL: none) and the message. */
static void log_error(dlog *l, const char *agent, const char *msg)
{
    qr_buf f;
    qr_buf_init(&f);
    if (agent)
        json_field(&f, "agent", agent);
    json_field(&f, "message", msg);
    log_event(l, "error", f.p);
    qr_buf_release(&f);
}

typedef struct dentry {
    char *name;
    char *path;
    struct timespec mtime;
    off_t size;
    struct timespec tmtime; /* of the template file, when there is one */
    qr_mem_agent *agent;    /* NULL while the file is broken */
    bool seen;              /* in this round's scan */
    bool skip_logged;       /* "no nodes" already logged since the last run */
    bool busy_logged;       /* "running in another process" already logged */
} dentry;

typedef struct daemon_ctx {
    dlog log;
    const char *dir;
    dentry *e;
    size_t n, cap;
    bool dir_error_logged;
} daemon_ctx;

static bool same_time(struct timespec a, struct timespec b)
{
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

static void dentry_free(dentry *e)
{
    free(e->name);
    free(e->path);
    qr_mem_agent_free(e->agent);
}

static void load_entry(daemon_ctx *d, dentry *e, const struct stat *st)
{
    e->mtime = st->st_mtim;
    e->size = st->st_size;
    memset(&e->tmtime, 0, sizeof e->tmtime);
    qr_mem_agent_free(e->agent);
    e->agent = NULL;
    qr_buf err, f;
    qr_buf_init(&err);
    qr_buf_init(&f);
    int rc = qr_mem_agent_load(&e->agent, e->path, &err);
    json_field(&f, "agent", e->name);
    json_field(&f, "path", e->path);
    if (rc != QR_OK) {
        json_field(&f, "message", err.p ? err.p : "cannot load");
        log_event(&d->log, "error", f.p);
    } else {
        struct stat ts;
        if (e->agent->template_path && stat(e->agent->template_path, &ts) == 0)
            e->tmtime = ts.st_mtim;
        json_field(&f, "schedule", e->agent->schedule);
        log_event(&d->log, "agent-load", f.p);
    }
    e->skip_logged = false;
    qr_buf_release(&err);
    qr_buf_release(&f);
}

static void rescan(daemon_ctx *d)
{
    qr_mem_agent_file *files;
    long n = qr_mem_agent_list_files(d->dir, &files);
    if (n < 0) {
        if (!d->dir_error_logged) {
            char msg[PATH_MAX + 100];
            snprintf(msg, sizeof msg, "cannot read the agent directory '%s': %s", d->dir,
                     strerror(errno));
            log_error(&d->log, NULL, msg);
            d->dir_error_logged = true;
        }
        return;
    }
    d->dir_error_logged = false;
    for (size_t i = 0; i < d->n; i++)
        d->e[i].seen = false;
    for (long i = 0; i < n; i++) {
        struct stat st;
        if (stat(files[i].path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        dentry *e = NULL;
        for (size_t j = 0; j < d->n && !e; j++)
            if (!strcmp(d->e[j].name, files[i].name))
                e = &d->e[j];
        if (!e) {
            if (d->n == d->cap) {
                size_t nc = d->cap ? d->cap * 2 : 8;
                dentry *ne = realloc(d->e, nc * sizeof *ne);
                if (!ne)
                    continue;
                d->e = ne;
                d->cap = nc;
            }
            e = &d->e[d->n++];
            memset(e, 0, sizeof *e);
            e->name = files[i].name;
            e->path = files[i].path;
            files[i].name = files[i].path = NULL;
            e->seen = true;
            load_entry(d, e, &st);
            continue;
        }
        e->seen = true;
        bool changed = !same_time(e->mtime, st.st_mtim) || e->size != st.st_size;
        if (!changed && e->agent && e->agent->template_path) {
            struct stat ts;
            struct timespec z = {0, 0};
            changed = stat(e->agent->template_path, &ts) == 0 ? !same_time(ts.st_mtim, e->tmtime)
                                                              : !same_time(e->tmtime, z);
        }
        if (changed)
            load_entry(d, e, &st);
    }
    /* files that went away */
    size_t k = 0;
    for (size_t i = 0; i < d->n; i++) {
        if (d->e[i].seen) {
            d->e[k++] = d->e[i];
            continue;
        }
        qr_buf f;
        qr_buf_init(&f);
        json_field(&f, "agent", d->e[i].name);
        log_event(&d->log, "agent-remove", f.p);
        qr_buf_release(&f);
        dentry_free(&d->e[i]);
    }
    d->n = k;
    /* keep name order: the order agents run in */
    for (size_t i = 1; i < d->n; i++)
        for (size_t j = i; j > 0 && strcmp(d->e[j - 1].name, d->e[j].name) > 0; j--) {
            dentry t = d->e[j];
            d->e[j] = d->e[j - 1];
            d->e[j - 1] = t;
        }
    qr_mem_agent_files_free(files, n);
}

static void daemon_retry(void *ud, const char *line)
{
    qr_buf f;
    qr_buf_init(&f);
    json_field(&f, "message", line);
    log_event(ud, "retry", f.p);
    qr_buf_release(&f);
}

/* Reads the agent's state and says whether it is due now (*now gets the time);
 * false with *ok cleared after logging a state file that cannot be read. */
static bool due_now(daemon_ctx *d, const qr_mem_agent *ag, const char *statep, int64_t *now,
                    bool *ok)
{
    qr_mem_agent_state st;
    qr_buf err;
    qr_buf_init(&err);
    bool due = false;
    if (qr_mem_agent_state_get(statep, ag->name, &st, &err) != QR_OK) {
        log_error(&d->log, ag->name, err.p ? err.p : "cannot read the state file");
        *ok = false;
    } else {
        *now = qr_clock_now();
        due = qr_mem_agent_due(ag, &st, *now, NULL);
    }
    qr_buf_release(&err);
    return due;
}

/* Logs a run that returned rc and, with statep (an SQLite store's state file), records its
 * state there (a leased run on a server recorded its own). False when the run failed. */
static bool log_run(daemon_ctx *d, dentry *e, qr_buf *fp, int rc, const qr_mem_agent_report *rp,
                    const qr_buf *errp, const char *statep)
{
    const qr_mem_agent *ag = e->agent;
    bool ok = true;
    int64_t end = qr_clock_now();
    qr_buf serr;
    qr_buf_init(&serr);
    if (rc == QR_OK && !rp->called) {
        if (!e->skip_logged) {
            json_field(fp, "reason", "its query returned no nodes");
            log_event(&d->log, "agent-skip", fp->p);
            e->skip_logged = true;
        }
    } else if (rc == QR_OK) {
        e->skip_logged = false;
        size_t counts[4] = {0};
        for (size_t i = 0; i < rp->plan.n; i++)
            for (int b = 0; b < 4; b++)
                counts[b] += rp->plan.actions[i].kind == (1u << b);
        qr_buf_printf(fp,
                      ",\"nodes\":%zu,\"omitted\":%zu,\"applied\":%zu,\"link-add\":%zu,"
                      "\"weight\":%zu,\"write\":%zu,\"refine\":%zu,\"visits\":%zu,"
                      "\"input_tokens\":%llu,\"output_tokens\":%llu,\"cache_read_tokens\":%"
                      "llu,"
                      "\"ms\":%.0f",
                      rp->prompt.nshown, rp->prompt.omitted, rp->applied, counts[0], counts[1],
                      counts[2], counts[3], rp->visits, (unsigned long long)rp->usage.input,
                      (unsigned long long)rp->usage.output,
                      (unsigned long long)rp->usage.cache_read, rp->ms);
        log_event(&d->log, "agent-run", fp->p);
        if (statep && qr_mem_agent_state_record(statep, ag->name, end, true, NULL, &serr) != QR_OK)
            log_error(&d->log, ag->name, serr.p ? serr.p : "cannot save the state");
    } else {
        char why[700];
        qr_mem_agent_failure_text(rc, rp, errp, why, sizeof why);
        json_field(fp, "message", why);
        if (rc == QR_EINVAL)
            qr_buf_printf(fp, ",\"problems\":%zu",
                          rp->plan.nproblems + rp->plan.nproblems_dropped);
        log_event(&d->log, "error", fp->p);
        if (statep)
            qr_mem_agent_state_record(statep, ag->name, end, false, why, &serr);
        ok = false;
    }
    qr_buf_release(&serr);
    return ok;
}

/* Runs one agent when it is due; returns false when the run failed. The agent's
 * lock is held from the due check (made again once it is held: another process
 * may have just run it) until its state is recorded. */
static bool daemon_run(daemon_ctx *d, dentry *e, qr_mem *m, qr_llm_config *cfg, const char *statep,
                       qr_mem_agent_locks *locks)
{
    qr_mem_agent *ag = e->agent;
    qr_buf err, f;
    qr_buf_init(&err);
    qr_buf_init(&f);
    json_field(&f, "agent", ag->name);
    bool ok = true, locked = false;
    int64_t now = 0;
    if (!due_now(d, ag, statep, &now, &ok))
        goto done;
    int lrc = qr_mem_agent_lock(locks, ag->name, &err);
    if (lrc == QR_ERUNTIME) { /* another process runs it now */
        if (!e->busy_logged) {
            json_field(&f, "reason", err.p ? err.p : "it is running in another process");
            log_event(&d->log, "agent-skip", f.p);
            e->busy_logged = true;
        }
        goto done;
    }
    if (lrc != QR_OK) {
        json_field(&f, "message", err.p ? err.p : "cannot lock the agent");
        log_event(&d->log, "error", f.p);
        ok = false;
        goto done;
    }
    locked = true;
    e->busy_logged = false;
    if (!due_now(d, ag, statep, &now, &ok))
        goto done;
    qr_llm *llm = qr_mem_agent_client(cfg, ag);
    if (!llm) {
        json_field(&f, "message", QR_MEM_AGENT_NO_MODEL);
        log_event(&d->log, "error", f.p);
        ok = false;
        goto done;
    }
    qr_llm_set_log(llm, daemon_retry, &d->log);
    qr_mem_agent_report r;
    int rc = qr_mem_agent_run(ag, m, llm, now, &r, &err);
    qr_llm_free(llm);
    ok = log_run(d, e, &f, rc, &r, &err, statep);
    qr_mem_agent_report_clear(&r);
done:
    if (locked)
        qr_mem_agent_unlock(locks, ag->name);
    qr_buf_release(&err);
    qr_buf_release(&f);
    return ok;
}

/* The same on a PostgreSQL store: the state is the agent's row of due_agents, and the run
 * lock a lease on it (qr_mem_sched_claim), taken when the state says it is due and
 * checked again once held (another scheduler may have just run it). */
static bool daemon_run_shared(daemon_ctx *d, dentry *e, qr_mem *m, qr_llm_config *cfg,
                              const char *holder, int64_t lease_s)
{
    qr_mem_agent *ag = e->agent;
    qr_buf err, f;
    qr_buf_init(&err);
    qr_buf_init(&f);
    json_field(&f, "agent", ag->name);
    bool ok = true, claimed = false, leased = false;
    qr_mem_sched st;
    qr_mem_agent_state s;
    int64_t now = qr_clock_now();
    if (qr_mem_sched_get(m, ag->name, now, &st, &err) != QR_OK) {
        log_error(&d->log, ag->name, err.p ? err.p : "cannot read the agents' run state");
        ok = false;
        goto done;
    }
    qr_mem_agent_state_of(&st, &s);
    if (!qr_mem_agent_due(ag, &s, now, NULL))
        goto done;
    if (qr_mem_sched_claim(m, ag->name, holder, now, lease_s, &st, &claimed, &err) != QR_OK) {
        log_error(&d->log, ag->name, err.p ? err.p : "cannot claim the agent");
        ok = false;
        goto done;
    }
    if (!claimed) { /* another scheduler holds it */
        if (!e->busy_logged) {
            char why[400];
            snprintf(why, sizeof why,
                     "agent '%s' is running in another process (%s, its lease ends in %lld s)",
                     ag->name, st.holder[0] ? st.holder : "another scheduler",
                     (long long)st.lease_left);
            json_field(&f, "reason", why);
            log_event(&d->log, "agent-skip", f.p);
            e->busy_logged = true;
        }
        goto done;
    }
    leased = true;
    e->busy_logged = false;
    qr_mem_agent_state_of(&st, &s);
    now = qr_clock_now();
    if (!qr_mem_agent_due(ag, &s, now, NULL))
        goto done;
    qr_llm *llm = qr_mem_agent_client(cfg, ag);
    if (!llm) {
        json_field(&f, "message", QR_MEM_AGENT_NO_MODEL);
        log_event(&d->log, "error", f.p);
        ok = false;
        goto done;
    }
    qr_llm_set_log(llm, daemon_retry, &d->log);
    qr_mem_agent_report r;
    qr_turn_ctx tc = {.llm = llm, .source = "mem_agent"};
    int rc = qr_mem_agent_run_leased(ag, m, &tc, now, holder, &st, &r, &err);
    leased = false; /* recorded or released */
    qr_llm_free(llm);
    ok = log_run(d, e, &f, rc, &r, &err, NULL);
    qr_mem_agent_report_clear(&r);
done:
    if (leased) {
        qr_buf rerr;
        qr_buf_init(&rerr);
        qr_mem_sched_release(m, ag->name, holder, &rerr);
        qr_buf_release(&rerr);
    }
    qr_buf_release(&err);
    qr_buf_release(&f);
    return ok;
}

int qr_mem_agent_daemon_run(const qr_mem_agent_daemon *o, qr_req *req, size_t *runs_failed,
                            qr_buf *err)
{
    *runs_failed = 0;
    daemon_ctx d;
    memset(&d, 0, sizeof d);
    d.dir = o->dir;
    d.log.o = o;
    qr_buf statep;
    qr_buf_init(&statep);
    qr_mem_agent_locks locks = {-1};
    int rc = QR_OK;
    /* a store on a server: any number of daemons, each agent claimed with a lease; a file:
     * one daemon per store, for its whole life */
    bool shared = qr_mem_on_server(o->mem);
    char holder[160];
    qr_mem_agent_holder(holder, sizeof holder);
    int64_t lease_s = o->lease_s > 0 ? o->lease_s : QR_MEM_AGENT_LEASE_DEFAULT;
    if (!shared) {
        qr_mem_agent_state_path(qr_mem_path(o->mem), &statep);
        if (statep.failed) {
            rc = QR_ENOMEM;
            goto done;
        }
        if ((rc = qr_mem_agent_locks_open(&locks, statep.p, err)) != QR_OK ||
            (rc = qr_mem_agent_lock_daemon(&locks, qr_mem_path(o->mem), err)) != QR_OK)
            goto done;
    }
    uint64_t interval = o->interval_s ? o->interval_s : 60;
    qr_buf f;
    qr_buf_init(&f);
    json_field(&f, "agents", o->dir);
    json_field(&f, "store", qr_mem_path(o->mem));
    qr_buf_printf(&f, ",\"interval\":%llu,\"once\":%s,\"pid\":%ld", (unsigned long long)interval,
                  o->once ? "true" : "false", (long)getpid());
    if (shared) {
        json_field(&f, "holder", holder);
        qr_buf_printf(&f, ",\"lease\":%lld", (long long)lease_s);
    }
    log_event(&d.log, "start", f.p);
    qr_buf_release(&f);
    while (!qr_req_stopped(req)) {
        rescan(&d);
        for (size_t i = 0; i < d.n && !qr_req_stopped(req); i++)
            if (d.e[i].agent &&
                !(shared ? daemon_run_shared(&d, &d.e[i], o->mem, o->llm, holder, lease_s)
                         : daemon_run(&d, &d.e[i], o->mem, o->llm, statep.p, &locks)))
                (*runs_failed)++;
        if (o->once)
            break;
        for (uint64_t t = 0; t < interval * 10 && !qr_req_stopped(req); t++) {
            struct timespec ts = {0, 100 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    const char *why = "once";
    if (qr_req_stopped(req))
        why = o->stop_reason ? o->stop_reason(o->log_ud) : "cancelled";
    qr_buf_init(&f);
    qr_buf_puts(&f, "\"reason\":");
    qr_buf_json_string(&f, why, strlen(why));
    qr_buf_printf(&f, ",\"failed_runs\":%zu", *runs_failed);
    log_event(&d.log, "stop", f.p);
    qr_buf_release(&f);
done:
    for (size_t i = 0; i < d.n; i++)
        dentry_free(&d.e[i]);
    free(d.e);
    qr_mem_agent_locks_close(&locks);
    qr_buf_release(&statep);
    return rc;
}
