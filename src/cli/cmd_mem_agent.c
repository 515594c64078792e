/*
 * cmd_mem_agent.c: `quarry mem agent list`, `quarry mem agent run NAME` and
 * `quarry mem daemon`: memory agents defined as TOML files
 * (quarry/mem_agent.h), from the command line and on a schedule.
 *
 * Design: the library does a run (query, prompt, one model call, checked
 * actions, apply, visits); this file finds the files, makes the model client
 * (an agent's `model` replaces the configured one), prints, and keeps the
 * schedule's state file up to date. The agent directory is --agents DIR, else
 * $QUARRY_MEMORY_AGENTS, else agents/ beside the store file. The daemon is one
 * loop in one thread: each round it rescans the directory (a file whose mtime
 * or size changed is read again; a broken one is logged once and skipped), then
 * runs every due agent in name order, one model call at a time, then sleeps.
 * Its log is JSON lines (start, agent-load, agent-remove, agent-run,
 * agent-skip, error, stop) on stderr or --log FILE. SIGTERM and SIGINT only set
 * a flag, looked at between agents and while sleeping, so a run in progress
 * (its writes included) finishes before the exit. Runs are locked
 * (qr_mem_agent_lock): an agent's lock is held from the due check, made again
 * once it is held, to its recorded state, by the daemon and by `agent run`
 * alike, and a daemon holds one more lock for its life, so two processes never
 * run one agent at once and a second daemon on a store refuses to start. Rejected: inotify (Linux
 * only, and a rescan of a directory of a few files each round costs nothing); a
 * worker per agent (the seed asks for one model call at a time, and SQLite
 * writers queue anyway); exiting on a broken agent file (one typo would stop
 * every other agent).
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cmd_mem_agent.h"

#include "quarry/date.h"
#include "quarry/llm.h"
#include "quarry/mem_agent.h"
#include "quarry/value.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char cli_mem_agent_help[] =
    "\n"
    "  list                      each agent: schedule, last run, whether it is "
    "due\n"
    "  run NAME                  run agent NAME once now: its query, its "
    "prompt, one model\n"
    "                            call, the actions of its reply, visits on the "
    "nodes shown\n"
    "  --dry-run                 print the filled prompt; no model call, no "
    "write\n"
    "  --trace FILE              run: write the model call and the run as JSON "
    "lines\n"
    "                            (docs/trace.md)\n"
    "  --agents DIR              the agent files (default: "
    "$QUARRY_MEMORY_AGENTS, else\n"
    "                            agents/ beside the store file)\n"
    "\n"
    "An agent is a file DIR/NAME.toml with [query] pipeline, [prompt] template "
    "or\n"
    "template_file, and [execution] actions, schedule, model "
    "(docs/memory-agents.md).\n"
    "A reply with any invalid action applies nothing: every problem is listed, "
    "exit 1.\n"
    "With no model configured, run needs --dry-run (exit 2 otherwise).\n";

const char cli_mem_daemon_help[] =
    "\n"
    "  --agents DIR              the agent files (as for 'quarry mem agent')\n"
    "  --once                    one round: run the due agents, then exit\n"
    "  --interval SECONDS        time between rounds (default 60)\n"
    "  --log FILE                append the JSON-lines log to FILE (default: "
    "stderr)\n"
    "\n"
    "Each round rescans the directory (new and edited files are picked up; a "
    "broken one\n"
    "is logged and skipped) and runs each due agent, one at a time. An agent "
    "is due when\n"
    "its schedule's period has passed since its last successful run (never "
    "run: due now)\n"
    "and its query returns at least one node; a failed run is retried after\n"
    "min(period, 1 hour); on-demand agents never run from the daemon. Last-run "
    "times are\n"
    "kept in STORE.agents.json. SIGTERM or SIGINT: the current run finishes, "
    "then exit 0.\n"
    "One daemon per store: a second one refuses to start (exit 1); an agent that "
    "another\n"
    "process is running is skipped.\n";

#define DEFAULT_INTERVAL 60

static void iso(int64_t t, char *buf)
{
    qr_date_format_iso(t, 0, buf, QR_DATE_ISO_LEN);
    size_t n = strlen(buf);
    if (n >= 6 && !strcmp(buf + n - 6, "+00:00"))
        strcpy(buf + n - 6, "Z");
}

static char *work_tree(void)
{
    char buf[PATH_MAX];
    if (!realpath(".", buf))
        return NULL;
    for (;;) {
        char probe[PATH_MAX + 8];
        struct stat st;
        snprintf(probe, sizeof probe, "%s/.git", buf);
        if (stat(probe, &st) == 0)
            return strdup(buf);
        char *slash = strrchr(buf, '/');
        if (!slash || slash == buf)
            return NULL;
        *slash = 0;
    }
}

/* ---- where things are ---- */

static const char *store_path(const cli_mem_opts *o)
{
    if (o->store)
        return o->store;
    const char *p = getenv("QUARRY_MEMORY");
    return p && *p ? p : NULL;
}

/* The agent directory (malloc'd), or NULL after printing why there is none. */
static char *agents_dir(cli_mem_opts *o, const char *opt)
{
    if (opt)
        return strdup(opt);
    const char *e = getenv("QUARRY_MEMORY_AGENTS");
    if (e && *e)
        return strdup(e);
    const char *s = store_path(o);
    if (!s || !strcmp(s, ":memory:")) {
        cli_error(o->fmt, "usage", 0, 0,
                  "no agent directory: give --agents DIR, set QUARRY_MEMORY_AGENTS, or "
                  "name a "
                  "store file (--store FILE) to use the agents/ directory beside it");
        return NULL;
    }
    const char *slash = strrchr(s, '/');
    qr_buf b;
    qr_buf_init(&b);
    if (slash)
        qr_buf_append(&b, s, (size_t)(slash - s) + 1);
    qr_buf_puts(&b, "agents");
    return b.failed ? NULL : qr_buf_detach(&b, NULL);
}

static char *join(const char *dir, const char *name, const char *ext)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_printf(&b, "%s/%s%s", dir, name, ext);
    return b.failed ? NULL : qr_buf_detach(&b, NULL);
}

typedef struct agent_file {
    char *name;
    char *path;
} agent_file;

static int cmp_files(const void *a, const void *b)
{
    return strcmp(((const agent_file *)a)->name, ((const agent_file *)b)->name);
}

/* The *.toml files of dir, sorted by name. -1 when the directory cannot be
 * read. */
static long list_files(const char *dir, agent_file **out)
{
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    size_t n = 0, cap = 0;
    agent_file *v = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".toml") || e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            agent_file *nv = realloc(v, cap * sizeof *nv);
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

static void free_files(agent_file *v, long n)
{
    for (long i = 0; i < n; i++) {
        free(v[i].name);
        free(v[i].path);
    }
    free(v);
}

/* ---- the model ---- */

static void retry_note(void *ud, const char *line)
{
    (void)ud;
    fprintf(stderr, "quarry: %s\n", line);
}

/* Loads the model configuration into cfg. Returns an exit code (config errors:
 * 2). */
static int load_config(cli_mem_opts *o, qr_llm_config *cfg)
{
    qr_llm_config_init(cfg);
    char cerr[400] = "";
    char *root = work_tree();
    int rc = qr_llm_config_load(cfg, root, cerr, sizeof cerr);
    free(root);
    if (rc != QR_OK) {
        cli_error(o->fmt, "config", 0, 0, cerr[0] ? cerr : "cannot load the model configuration");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* A client for the agent: the configuration with the agent's model when it
 * names one. */
static qr_llm *client_for(qr_llm_config *cfg, const qr_mem_agent *ag)
{
    char *saved = cfg->model;
    if (ag->model)
        cfg->model = ag->model;
    qr_llm *l = qr_llm_configured(cfg) ? qr_llm_new(cfg) : NULL;
    cfg->model = saved;
    return l;
}

static const char no_model_msg[] =
    "no model is configured: set QUARRY_LLM_URL and QUARRY_LLM_MODEL (or [llm] "
    "url and model "
    "in ~/.config/quarry/config.toml; docs/llm.md), or see the prompt with "
    "--dry-run";

/* ---- printing a run ---- */

static qr_val action_value(qr_arena *a, const qr_mem_agent_action *x)
{
    qr_mapb b;
    qr_mapb_init(&b, a, 6);
    qr_mapb_put(&b, qr_kw_cstr(a, "action"), qr_str_cstr(a, qr_mem_agent_action_name(x->kind)));
    switch (x->kind) {
    case QR_MEM_AGENT_LINK_ADD:
        qr_mapb_put(&b, qr_kw_cstr(a, "source"), qr_str_cstr(a, x->source));
        qr_mapb_put(&b, qr_kw_cstr(a, "target"), qr_str_cstr(a, x->target));
        qr_mapb_put(&b, qr_kw_cstr(a, "strength"), qr_double(x->value));
        qr_mapb_put(&b, qr_kw_cstr(a, "type"), qr_str_cstr(a, x->type));
        break;
    case QR_MEM_AGENT_WEIGHT:
        qr_mapb_put(&b, qr_kw_cstr(a, "key"), qr_str_cstr(a, x->key));
        qr_mapb_put(&b, qr_kw_cstr(a, "weight"), qr_double(x->value));
        break;
    case QR_MEM_AGENT_WRITE:
        qr_mapb_put(&b, qr_kw_cstr(a, "key"), qr_str_cstr(a, x->key));
        qr_mapb_put(&b, qr_kw_cstr(a, "type"), qr_str_cstr(a, x->type));
        qr_mapb_put(&b, qr_kw_cstr(a, "weight"), qr_double(x->value));
        qr_mapb_put(&b, qr_kw_cstr(a, "bytes"), qr_int((int64_t)x->content_len));
        break;
    default:
        qr_mapb_put(&b, qr_kw_cstr(a, "key"), qr_str_cstr(a, x->key));
        qr_mapb_put(&b, qr_kw_cstr(a, "bytes"), qr_int((int64_t)x->content_len));
        break;
    }
    return qr_mapb_finish(&b, QR_T_MAP);
}

static void print_val(FILE *f, cli_format fmt, qr_val v)
{
    qr_buf b;
    qr_buf_init(&b);
    if (fmt == FMT_EDN)
        qr_print(&b, v, QR_PRINT_READABLY);
    else
        qr_print_json(&b, v, false);
    qr_buf_putc(&b, '\n');
    if (!b.failed)
        fwrite(b.p, 1, b.len, f);
    qr_buf_release(&b);
}

static qr_val shown_keys(qr_arena *a, const qr_mem_agent_prompt *p)
{
    qr_vecb v;
    qr_vecb_init(&v, a, p->nshown);
    for (size_t i = 0; i < p->nshown; i++)
        qr_vecb_push(&v, qr_str_cstr(a, p->shown[i]));
    return qr_vecb_finish(&v, QR_T_VEC);
}

static void print_run(cli_format fmt, const qr_mem_agent *ag, const qr_mem_agent_report *r)
{
    if (fmt == FMT_TABLE) {
        if (!r->selected) {
            printf("agent '%s': nothing to do: its query returned no nodes\n", ag->name);
            return;
        }
        printf("agent '%s': %zu node%s shown, %zu action%s applied, %zu visit%s "
               "recorded "
               "(%llu tokens in, %llu out)\n",
               ag->name, r->prompt.nshown, r->prompt.nshown == 1 ? "" : "s", r->applied,
               r->applied == 1 ? "" : "s", r->visits, r->visits == 1 ? "" : "s",
               (unsigned long long)(r->usage.input + r->usage.cache_read + r->usage.cache_write),
               (unsigned long long)r->usage.output);
        for (size_t i = 0; i < r->plan.n; i++) {
            const qr_mem_agent_action *x = &r->plan.actions[i];
            switch (x->kind) {
            case QR_MEM_AGENT_LINK_ADD:
                printf("  link-add %s -> %s (%s, %g)\n", x->source, x->target, x->type, x->value);
                break;
            case QR_MEM_AGENT_WEIGHT: printf("  weight %s = %g\n", x->key, x->value); break;
            case QR_MEM_AGENT_WRITE:
                printf("  write %s (%s, %g, %zu bytes)\n", x->key, x->type, x->value,
                       x->content_len);
                break;
            default: printf("  refine %s (%zu bytes)\n", x->key, x->content_len);
            }
        }
        if (r->prompt.omitted)
            printf("  %zu more node%s left out of the prompt (size bound); a later "
                   "run shows "
                   "them\n",
                   r->prompt.omitted, r->prompt.omitted == 1 ? "" : "s");
        return;
    }
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_mapb b;
    qr_mapb_init(&b, &a, 10);
    qr_mapb_put(&b, qr_kw_cstr(&a, "agent"), qr_str_cstr(&a, ag->name));
    qr_mapb_put(&b, qr_kw_cstr(&a, "selected"), qr_int((int64_t)r->selected));
    qr_mapb_put(&b, qr_kw_cstr(&a, "shown"), shown_keys(&a, &r->prompt));
    qr_mapb_put(&b, qr_kw_cstr(&a, "omitted"), qr_int((int64_t)r->prompt.omitted));
    qr_vecb v;
    qr_vecb_init(&v, &a, r->plan.n);
    for (size_t i = 0; i < r->plan.n; i++)
        qr_vecb_push(&v, action_value(&a, &r->plan.actions[i]));
    qr_mapb_put(&b, qr_kw_cstr(&a, "applied"), qr_vecb_finish(&v, QR_T_VEC));
    qr_mapb_put(&b, qr_kw_cstr(&a, "visits"), qr_int((int64_t)r->visits));
    qr_mapb tb;
    qr_mapb_init(&tb, &a, 4);
    qr_mapb_put(&tb, qr_kw_cstr(&a, "input"), qr_int((int64_t)r->usage.input));
    qr_mapb_put(&tb, qr_kw_cstr(&a, "output"), qr_int((int64_t)r->usage.output));
    qr_mapb_put(&tb, qr_kw_cstr(&a, "cache_read"), qr_int((int64_t)r->usage.cache_read));
    qr_mapb_put(&tb, qr_kw_cstr(&a, "cache_write"), qr_int((int64_t)r->usage.cache_write));
    qr_mapb_put(&b, qr_kw_cstr(&a, "tokens"), qr_mapb_finish(&tb, QR_T_MAP));
    qr_mapb_put(&b, qr_kw_cstr(&a, "ms"), qr_double(r->ms));
    print_val(stdout, fmt, qr_mapb_finish(&b, QR_T_MAP));
    qr_arena_release(&a);
}

/* The problems of a rejected reply on stderr: one line each, or one JSON
 * object. */
static void print_problems(cli_format fmt, const qr_mem_agent *ag, const qr_mem_agent_plan *p)
{
    size_t total = p->nproblems + p->nproblems_dropped;
    char head[200];
    snprintf(head, sizeof head, "agent '%s': the reply has %zu problem%s; nothing was applied",
             ag->name, total, total == 1 ? "" : "s");
    if (fmt == FMT_JSON || fmt == FMT_EDN) {
        qr_arena a;
        qr_arena_init(&a, 0);
        qr_vecb v;
        qr_vecb_init(&v, &a, p->nproblems);
        for (size_t i = 0; i < p->nproblems; i++) {
            const qr_mem_agent_problem *q = &p->problems[i];
            qr_mapb b;
            qr_mapb_init(&b, &a, 4);
            qr_mapb_put(&b, qr_kw_cstr(&a, "index"), q->index >= 0 ? qr_int(q->index) : qr_nil());
            qr_mapb_put(&b, qr_kw_cstr(&a, "action"),
                        q->action[0] ? qr_str_cstr(&a, q->action) : qr_nil());
            qr_mapb_put(&b, qr_kw_cstr(&a, "field"),
                        q->field[0] ? qr_str_cstr(&a, q->field) : qr_nil());
            qr_mapb_put(&b, qr_kw_cstr(&a, "why"), qr_str_cstr(&a, q->why));
            qr_vecb_push(&v, qr_mapb_finish(&b, QR_T_MAP));
        }
        qr_mapb e;
        qr_mapb_init(&e, &a, 4);
        qr_mapb_put(&e, qr_kw_cstr(&a, "kind"), qr_str_cstr(&a, "reply"));
        qr_mapb_put(&e, qr_kw_cstr(&a, "message"), qr_str_cstr(&a, head));
        qr_mapb_put(&e, qr_kw_cstr(&a, "problems"), qr_vecb_finish(&v, QR_T_VEC));
        qr_mapb top;
        qr_mapb_init(&top, &a, 1);
        qr_mapb_put(&top, qr_kw_cstr(&a, "error"), qr_mapb_finish(&e, QR_T_MAP));
        print_val(stderr, fmt, qr_mapb_finish(&top, QR_T_MAP));
        qr_arena_release(&a);
        return;
    }
    fprintf(stderr, "quarry: error: %s\n", head);
    for (size_t i = 0; i < p->nproblems; i++) {
        qr_buf b;
        qr_buf_init(&b);
        qr_mem_agent_problem_format(&p->problems[i], &b);
        fprintf(stderr, "  %s\n", b.p ? b.p : "");
        qr_buf_release(&b);
    }
    if (p->nproblems_dropped)
        fprintf(stderr, "  ... and %zu more\n", p->nproblems_dropped);
}

/* A one-line summary of a failed run (for the state file and the log). */
static void failure_text(int rc, const qr_mem_agent_report *r, const qr_buf *err, char *out,
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

/* ---- agent list ---- */

static int agent_list(cli_mem_opts *o, const char *dir)
{
    agent_file *files;
    long n = list_files(dir, &files);
    if (n < 0) {
        char msg[PATH_MAX + 200];
        snprintf(msg, sizeof msg,
                 "cannot read the agent directory '%s': %s; create it or give "
                 "--agents DIR",
                 dir, strerror(errno));
        cli_error(o->fmt, "error", 0, 0, msg);
        return EXIT_FAILED;
    }
    const char *sp = store_path(o);
    qr_buf statep;
    qr_buf_init(&statep);
    if (sp)
        qr_mem_agent_state_path(sp, &statep);
    int64_t now = qr_clock_now();
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_vecb rows;
    qr_vecb_init(&rows, &a, (size_t)n);
    if (o->fmt == FMT_TABLE && n)
        printf("%-20s %-10s %-21s %s\n", "AGENT", "SCHEDULE", "LAST RUN", "DUE");
    int status = EXIT_OK;
    for (long i = 0; i < n; i++) {
        qr_mem_agent *ag = NULL;
        qr_buf err;
        qr_buf_init(&err);
        int rc = qr_mem_agent_load(&ag, files[i].path, &err);
        qr_mapb b;
        qr_mapb_init(&b, &a, 8);
        qr_mapb_put(&b, qr_kw_cstr(&a, "name"), qr_str_cstr(&a, files[i].name));
        if (rc != QR_OK) {
            const char *msg = err.p ? err.p : "cannot load";
            qr_mapb_put(&b, qr_kw_cstr(&a, "error"), qr_str_cstr(&a, msg));
            if (o->fmt == FMT_TABLE)
                printf("%-20s %-10s %-21s broken: %s\n", files[i].name, "-", "-", msg);
            status = EXIT_FAILED;
        } else {
            qr_mem_agent_state st;
            memset(&st, 0, sizeof st);
            qr_buf serr;
            qr_buf_init(&serr);
            if (statep.p)
                qr_mem_agent_state_get(statep.p, ag->name, &st, &serr);
            qr_buf_release(&serr);
            int64_t next = 0;
            bool due = qr_mem_agent_due(ag, &st, now, &next);
            char last[QR_DATE_ISO_LEN] = "never", nx[QR_DATE_ISO_LEN] = "";
            if (st.last_ok)
                iso(st.last_ok, last);
            if (next)
                iso(next, nx);
            qr_mapb_put(&b, qr_kw_cstr(&a, "schedule"), qr_str_cstr(&a, ag->schedule));
            qr_mapb_put(&b, qr_kw_cstr(&a, "last_run"),
                        st.last_ok ? qr_str_cstr(&a, last) : qr_nil());
            qr_mapb_put(&b, qr_kw_cstr(&a, "due"), qr_bool(due));
            qr_mapb_put(&b, qr_kw_cstr(&a, "next"), next ? qr_str_cstr(&a, nx) : qr_nil());
            qr_mapb_put(&b, qr_kw_cstr(&a, "last_error"),
                        st.error[0] ? qr_str_cstr(&a, st.error) : qr_nil());
            qr_mapb_put(&b, qr_kw_cstr(&a, "pipeline"), qr_str_cstr(&a, ag->pipeline_text));
            if (o->fmt == FMT_TABLE)
                printf("%-20s %-10s %-21s %s%s%s\n", ag->name, ag->schedule, last,
                       ag->period == 0 ? "on-demand"
                       : due           ? "yes"
                                       : "no, at ",
                       ag->period && !due ? nx : "", st.error[0] ? " (last run failed)" : "");
        }
        qr_vecb_push(&rows, qr_mapb_finish(&b, QR_T_MAP));
        qr_buf_release(&err);
        qr_mem_agent_free(ag);
    }
    if (o->fmt == FMT_TABLE && n == 0)
        printf("no agents in '%s' (write NAME.toml files there; "
               "docs/memory-agents.md)\n",
               dir);
    if (o->fmt != FMT_TABLE)
        print_val(stdout, o->fmt, qr_vecb_finish(&rows, QR_T_VEC));
    qr_arena_release(&a);
    qr_buf_release(&statep);
    free_files(files, n);
    return status;
}

/* ---- agent run ---- */

static int agent_run(cli_mem_opts *o, const char *dir, const char *name, bool dry, bool fmt_given,
                     const char *trace)
{
    if (!qr_mem_agent_name_valid(name, strlen(name)))
        return cli_mem_usage(o,
                             "'%s' is not an agent name: use a-z, 0-9 and '-' (the file "
                             "name without .toml)",
                             name);
    char *path = join(dir, name, ".toml");
    if (!path)
        return EXIT_FAILED;
    qr_mem_agent *ag = NULL;
    qr_buf err;
    qr_buf_init(&err);
    int status = EXIT_OK;
    qr_llm_config cfg;
    qr_llm_config_init(&cfg);
    qr_llm *llm = NULL;
    qr_mem *m = NULL;
    qr_mem_agent_report r;
    memset(&r, 0, sizeof r);
    qr_buf statep;
    qr_buf_init(&statep);
    qr_mem_agent_locks locks = {-1};
    qr_trace *tf = NULL;
    int rc = qr_mem_agent_load(&ag, path, &err);
    if (rc != QR_OK) {
        if (rc == QR_EIO && access(path, F_OK) != 0) {
            qr_buf_reset(&err);
            qr_buf_printf(&err, "no agent '%s': '%s' does not exist; see 'quarry mem agent list'",
                          name, path);
        }
        cli_error(o->fmt, rc == QR_EINVAL || rc == QR_EIO ? "usage" : "error", 0, 0,
                  err.p ? err.p : "cannot load the agent");
        status = rc == QR_ENOMEM ? EXIT_FAILED : EXIT_USAGE;
        goto done;
    }
    if (!dry) {
        if ((status = load_config(o, &cfg)) != EXIT_OK)
            goto done;
        char *saved = cfg.model;
        if (ag->model)
            cfg.model = ag->model;
        bool configured = qr_llm_configured(&cfg);
        cfg.model = saved;
        if (!configured) {
            cli_error(o->fmt, "usage", 0, 0, no_model_msg);
            status = EXIT_USAGE;
            goto done;
        }
        if (!(llm = client_for(&cfg, ag))) {
            fprintf(stderr, "quarry: out of memory\n");
            status = EXIT_FAILED;
            goto done;
        }
        qr_llm_set_log(llm, retry_note, NULL);
    }
    if ((status = cli_mem_open(o, false, &m)) != EXIT_OK)
        goto done;
    qr_mem_agent_state_path(qr_mem_path(m), &statep);
    if (!dry) {
        /* held until the state is recorded: one run of an agent at a time */
        qr_buf_reset(&err);
        if (statep.failed || qr_mem_agent_locks_open(&locks, statep.p, &err) != QR_OK ||
            qr_mem_agent_lock(&locks, ag->name, &err) != QR_OK) {
            cli_error(o->fmt, "error", 0, 0, err.p ? err.p : "cannot lock the agent");
            status = EXIT_FAILED;
            goto done;
        }
    }
    if (trace) {
        qr_buf terr;
        qr_buf_init(&terr);
        if (!(tf = qr_trace_open(trace, &terr))) {
            cli_error(o->fmt, "usage", 0, 0, terr.p ? terr.p : "cannot write the trace file");
            qr_buf_release(&terr);
            status = EXIT_USAGE;
            goto done;
        }
        qr_buf_release(&terr);
    }
    int64_t now = qr_clock_now();
    qr_turn_ctx tc = {.llm = llm, .req = cli_req(), .trace = tf, .source = "mem_agent"};
    rc = qr_mem_agent_run_turn(ag, m, &tc, now, &r, &err);
    if (tf) {
        char why[700] = "";
        if (rc != QR_OK)
            failure_text(rc, &r, &err, why, sizeof why);
        qr_trace_end(tf, "mem_agent", rc == QR_OK, rc == QR_OK ? NULL : why);
    }
    if (dry) {
        if (rc != QR_OK) {
            status = cli_mem_fail(o, rc == QR_EINVAL ? QR_EINVAL : rc, &err);
            goto done;
        }
        if (!fmt_given || o->fmt == FMT_TABLE) {
            fwrite(r.prompt.user.p ? r.prompt.user.p : "", 1, r.prompt.user.len, stdout);
            if (r.prompt.user.len && r.prompt.user.p[r.prompt.user.len - 1] != '\n')
                putchar('\n');
        } else {
            qr_arena a;
            qr_arena_init(&a, 0);
            qr_mapb b;
            qr_mapb_init(&b, &a, 6);
            qr_mapb_put(&b, qr_kw_cstr(&a, "agent"), qr_str_cstr(&a, ag->name));
            qr_mapb_put(&b, qr_kw_cstr(&a, "selected"), qr_int((int64_t)r.selected));
            qr_mapb_put(&b, qr_kw_cstr(&a, "shown"), shown_keys(&a, &r.prompt));
            qr_mapb_put(&b, qr_kw_cstr(&a, "omitted"), qr_int((int64_t)r.prompt.omitted));
            qr_mapb_put(
                &b, qr_kw_cstr(&a, "system"),
                qr_str_new(&a, r.prompt.system.p ? r.prompt.system.p : "", r.prompt.system.len));
            qr_mapb_put(&b, qr_kw_cstr(&a, "prompt"),
                        qr_str_new(&a, r.prompt.user.p ? r.prompt.user.p : "", r.prompt.user.len));
            print_val(stdout, o->fmt, qr_mapb_finish(&b, QR_T_MAP));
            qr_arena_release(&a);
        }
        goto done;
    }
    qr_buf serr;
    qr_buf_init(&serr);
    int64_t end = qr_clock_now();
    if (rc == QR_OK) {
        if (r.called && qr_mem_agent_state_record(statep.p, ag->name, end, true, NULL, &serr))
            fprintf(stderr, "quarry: warning: %s\n", serr.p ? serr.p : "state not saved");
        print_run(o->fmt, ag, &r);
    } else {
        char why[700];
        failure_text(rc, &r, &err, why, sizeof why);
        if (r.called && qr_mem_agent_state_record(statep.p, ag->name, end, false, why, &serr))
            fprintf(stderr, "quarry: warning: %s\n", serr.p ? serr.p : "state not saved");
        if (rc == QR_EINVAL && (r.plan.nproblems || r.plan.nproblems_dropped)) {
            print_problems(o->fmt, ag, &r.plan);
        } else if (r.llm_error[0]) {
            char msg[800];
            snprintf(msg, sizeof msg, "agent '%s': %s", ag->name, why);
            cli_error(o->fmt, "error", 0, 0, msg);
        } else {
            cli_error(o->fmt, "error", 0, 0, why);
        }
        status = EXIT_FAILED;
    }
    qr_buf_release(&serr);
done:
    qr_trace_free(tf);
    qr_mem_agent_locks_close(&locks);
    qr_buf_release(&statep);
    qr_mem_agent_report_clear(&r);
    qr_mem_close(m);
    qr_llm_free(llm);
    qr_llm_config_clear(&cfg);
    qr_mem_agent_free(ag);
    qr_buf_release(&err);
    free(path);
    return status;
}

int cmd_mem_agent(int argc, char **argv, cli_mem_opts *o)
{
    const char *verb = NULL, *name = NULL, *dir_opt = NULL, *trace = NULL;
    bool dry = false, fmt_given = o->fmt != FMT_DEFAULT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        cli_format before = o->fmt;
        int c = cli_mem_option(argc, argv, &i, o);
        if (c == 2)
            return EXIT_OK;
        if (c < 0)
            return EXIT_USAGE;
        if (c == 1) {
            fmt_given |= o->fmt != before;
            continue;
        }
        if (!strcmp(a, "--dry-run")) {
            dry = true;
        } else if (!strcmp(a, "--agents")) {
            if (i + 1 >= argc || !*argv[i + 1])
                return cli_mem_usage(o, "option '--agents' needs a directory");
            dir_opt = argv[++i];
        } else if (!strcmp(a, "--trace")) {
            if (i + 1 >= argc || !*argv[i + 1])
                return cli_mem_usage(o, "option '--trace' needs a file");
            trace = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            return cli_mem_unknown_option(o, a);
        } else if (!verb) {
            verb = a;
        } else if (!name) {
            name = a;
        } else {
            return cli_mem_usage(o, "unexpected argument '%s'", a);
        }
    }
    if (!verb)
        return cli_mem_usage(o, "give 'list' or 'run NAME'");
    bool list = !strcmp(verb, "list"), run = !strcmp(verb, "run");
    if (!list && !run) {
        static const char *const verbs[] = {"list", "run"};
        const char *s = cli_closest(verb, verbs, 2);
        return cli_mem_usage(o, "unknown agent command '%s'%s%s%s: expected list or run NAME", verb,
                             s ? " (did you mean '" : "", s ? s : "", s ? "'?)" : "");
    }
    if (list && (name || dry || trace))
        return cli_mem_usage(o, "'agent list' takes no %s",
                             name ? "argument" : dry ? "--dry-run" : "--trace");
    if (run && !name)
        return cli_mem_usage(o, "give the agent to run: quarry mem agent run NAME");
    cli_mem_format(o);
    char *dir = agents_dir(o, dir_opt);
    if (!dir)
        return EXIT_USAGE;
    int status = list ? agent_list(o, dir) : agent_run(o, dir, name, dry, fmt_given, trace);
    free(dir);
    return status;
}

/* ---- the daemon ---- */

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

typedef struct dlog {
    FILE *f;
} dlog;

/* One JSON line: {"time": ..., "event": ..., then the fields given as
 * alternating names and values, each value pre-formatted JSON}. */
static void log_event(dlog *l, const char *event, const char *fields)
{
    char t[QR_DATE_ISO_LEN];
    iso(qr_clock_now(), t);
    fprintf(l->f, "{\"time\":\"%s\",\"event\":\"%s\"%s%s}\n", t, event,
            fields && *fields ? "," : "", fields ? fields : "");
    fflush(l->f);
}

static void json_field(qr_buf *b, const char *name, const char *s)
{
    if (b->len)
        qr_buf_putc(b, ',');
    qr_buf_json_string(b, name, strlen(name));
    qr_buf_putc(b, ':');
    qr_buf_json_string(b, s, strlen(s));
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
    agent_file *files;
    long n = list_files(d->dir, &files);
    if (n < 0) {
        if (!d->dir_error_logged) {
            qr_buf f;
            qr_buf_init(&f);
            char msg[PATH_MAX + 100];
            snprintf(msg, sizeof msg, "cannot read the agent directory '%s': %s", d->dir,
                     strerror(errno));
            json_field(&f, "message", msg);
            log_event(&d->log, "error", f.p);
            qr_buf_release(&f);
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
    free_files(files, n);
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
        qr_buf f;
        qr_buf_init(&f);
        json_field(&f, "agent", ag->name);
        json_field(&f, "message", err.p ? err.p : "cannot read the state file");
        log_event(&d->log, "error", f.p);
        qr_buf_release(&f);
        *ok = false;
    } else {
        *now = qr_clock_now();
        due = qr_mem_agent_due(ag, &st, *now, NULL);
    }
    qr_buf_release(&err);
    return due;
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
    qr_llm *llm = client_for(cfg, ag);
    if (!llm) {
        json_field(&f, "message", no_model_msg);
        log_event(&d->log, "error", f.p);
        ok = false;
        goto done;
    }
    qr_llm_set_log(llm, daemon_retry, &d->log);
    qr_mem_agent_report r;
    int rc = qr_mem_agent_run(ag, m, llm, now, &r, &err);
    qr_llm_free(llm);
    int64_t end = qr_clock_now();
    qr_buf serr;
    qr_buf_init(&serr);
    if (rc == QR_OK && !r.called) {
        if (!e->skip_logged) {
            json_field(&f, "reason", "its query returned no nodes");
            log_event(&d->log, "agent-skip", f.p);
            e->skip_logged = true;
        }
    } else if (rc == QR_OK) {
        e->skip_logged = false;
        size_t counts[4] = {0};
        for (size_t i = 0; i < r.plan.n; i++)
            for (int b = 0; b < 4; b++)
                counts[b] += r.plan.actions[i].kind == (1u << b);
        qr_buf_printf(&f,
                      ",\"nodes\":%zu,\"omitted\":%zu,\"applied\":%zu,\"link-add\":%zu,"
                      "\"weight\":%zu,\"write\":%zu,\"refine\":%zu,\"visits\":%zu,"
                      "\"input_tokens\":%llu,\"output_tokens\":%llu,\"cache_read_tokens\":%"
                      "llu,"
                      "\"ms\":%.0f",
                      r.prompt.nshown, r.prompt.omitted, r.applied, counts[0], counts[1], counts[2],
                      counts[3], r.visits, (unsigned long long)r.usage.input,
                      (unsigned long long)r.usage.output, (unsigned long long)r.usage.cache_read,
                      r.ms);
        log_event(&d->log, "agent-run", f.p);
        if (qr_mem_agent_state_record(statep, ag->name, end, true, NULL, &serr) != QR_OK) {
            qr_buf g;
            qr_buf_init(&g);
            json_field(&g, "agent", ag->name);
            json_field(&g, "message", serr.p ? serr.p : "cannot save the state");
            log_event(&d->log, "error", g.p);
            qr_buf_release(&g);
        }
    } else {
        char why[700];
        failure_text(rc, &r, &err, why, sizeof why);
        json_field(&f, "message", why);
        if (rc == QR_EINVAL)
            qr_buf_printf(&f, ",\"problems\":%zu", r.plan.nproblems + r.plan.nproblems_dropped);
        log_event(&d->log, "error", f.p);
        qr_mem_agent_state_record(statep, ag->name, end, false, why, &serr);
        ok = false;
    }
    qr_buf_release(&serr);
    qr_mem_agent_report_clear(&r);
done:
    if (locked)
        qr_mem_agent_unlock(locks, ag->name);
    qr_buf_release(&err);
    qr_buf_release(&f);
    return ok;
}

int cmd_mem_daemon(int argc, char **argv, cli_mem_opts *o)
{
    const char *dir_opt = NULL, *log_path = NULL;
    bool once = false;
    uint64_t interval = DEFAULT_INTERVAL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int c = cli_mem_option(argc, argv, &i, o);
        if (c == 2)
            return EXIT_OK;
        if (c < 0)
            return EXIT_USAGE;
        if (c == 1)
            continue;
        if (!strcmp(a, "--once")) {
            once = true;
        } else if (!strcmp(a, "--agents") || !strcmp(a, "--log") || !strcmp(a, "--interval")) {
            if (i + 1 >= argc || !*argv[i + 1])
                return cli_mem_usage(o, "option '%s' needs a value", a);
            const char *v = argv[++i];
            if (!strcmp(a, "--agents"))
                dir_opt = v;
            else if (!strcmp(a, "--log"))
                log_path = v;
            else if (!cli_parse_u64(v, &interval) || interval == 0 || interval > 86400)
                return cli_mem_usage(o, "bad --interval '%s': expected 1 to 86400 seconds", v);
        } else {
            if (a[0] == '-')
                return cli_mem_unknown_option(o, a);
            return cli_mem_usage(o, "unexpected argument '%s'", a);
        }
    }
    cli_mem_format(o);
    char *dir = agents_dir(o, dir_opt);
    if (!dir)
        return EXIT_USAGE;
    daemon_ctx d;
    memset(&d, 0, sizeof d);
    d.dir = dir;
    d.log.f = stderr;
    qr_llm_config cfg;
    qr_llm_config_init(&cfg);
    qr_mem *m = NULL;
    qr_buf statep;
    qr_buf_init(&statep);
    qr_mem_agent_locks locks = {-1};
    int status = EXIT_OK;
    struct stat dst;
    if (stat(dir, &dst) != 0 || !S_ISDIR(dst.st_mode)) {
        char msg[PATH_MAX + 100];
        snprintf(msg, sizeof msg, "no agent directory '%s': create it or give --agents DIR", dir);
        cli_error(o->fmt, "usage", 0, 0, msg);
        status = EXIT_USAGE;
        goto done;
    }
    if (log_path && !(d.log.f = fopen(log_path, "a"))) {
        char msg[PATH_MAX + 100];
        snprintf(msg, sizeof msg, "cannot open the log file '%s': %s", log_path, strerror(errno));
        cli_error(o->fmt, "usage", 0, 0, msg);
        d.log.f = stderr;
        status = EXIT_USAGE;
        goto done;
    }
    if ((status = load_config(o, &cfg)) != EXIT_OK)
        goto done;
    if (!qr_llm_configured(&cfg)) {
        cli_error(o->fmt, "usage", 0, 0,
                  "no model is configured: set QUARRY_LLM_URL and QUARRY_LLM_MODEL "
                  "(or [llm] "
                  "url and model in ~/.config/quarry/config.toml; docs/llm.md)");
        status = EXIT_USAGE;
        goto done;
    }
    if ((status = cli_mem_open(o, false, &m)) != EXIT_OK)
        goto done;
    qr_mem_agent_state_path(qr_mem_path(m), &statep);
    /* one daemon per store, for its whole life */
    qr_buf lerr;
    qr_buf_init(&lerr);
    if (statep.failed || qr_mem_agent_locks_open(&locks, statep.p, &lerr) != QR_OK ||
        qr_mem_agent_lock_daemon(&locks, qr_mem_path(m), &lerr) != QR_OK) {
        cli_error(o->fmt, "error", 0, 0, lerr.p ? lerr.p : "cannot lock the store's agents");
        qr_buf_release(&lerr);
        status = EXIT_FAILED;
        goto done;
    }
    qr_buf_release(&lerr);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    qr_buf f;
    qr_buf_init(&f);
    json_field(&f, "agents", dir);
    json_field(&f, "store", qr_mem_path(m));
    qr_buf_printf(&f, ",\"interval\":%llu,\"once\":%s,\"pid\":%ld", (unsigned long long)interval,
                  once ? "true" : "false", (long)getpid());
    log_event(&d.log, "start", f.p);
    qr_buf_release(&f);
    size_t runs_failed = 0;
    while (!stop_signal) {
        rescan(&d);
        for (size_t i = 0; i < d.n && !stop_signal; i++)
            if (d.e[i].agent && !daemon_run(&d, &d.e[i], m, &cfg, statep.p, &locks))
                runs_failed++;
        if (once)
            break;
        for (uint64_t t = 0; t < interval * 10 && !stop_signal; t++) {
            struct timespec ts = {0, 100 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    qr_buf_init(&f);
    qr_buf_printf(&f, "\"reason\":\"%s\",\"failed_runs\":%zu",
                  stop_signal == SIGTERM  ? "SIGTERM"
                  : stop_signal == SIGINT ? "SIGINT"
                                          : "once",
                  runs_failed);
    log_event(&d.log, "stop", f.p);
    qr_buf_release(&f);
    if (once && runs_failed)
        status = EXIT_FAILED;
done:
    for (size_t i = 0; i < d.n; i++)
        dentry_free(&d.e[i]);
    free(d.e);
    if (d.log.f && d.log.f != stderr)
        fclose(d.log.f);
    qr_mem_agent_locks_close(&locks);
    qr_mem_close(m);
    qr_llm_config_clear(&cfg);
    qr_buf_release(&statep);
    free(dir);
    return status;
}
