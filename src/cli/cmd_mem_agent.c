/*
 * cmd_mem_agent.c: `quarry mem agent list`, `quarry mem agent run NAME` and
 * `quarry mem daemon`: memory agents defined as TOML files
 * (quarry/mem_agent.h), from the command line and on a schedule.
 *
 * Design: the library does a run (query, prompt, one model call, checked
 * actions, apply, visits) and the daemon's loop (qr_mem_agent_daemon_run:
 * rescans, due checks, locks, the JSON-lines log events); this file finds the
 * files, makes the model client, prints, parses the options, and owns the
 * signal handler: SIGTERM and SIGINT only set a flag and stop the daemon's
 * request, which the loop looks at between agents and while sleeping, so a run
 * in progress (its writes included) finishes before the exit. The agent
 * directory is --agents DIR, else $QUARRY_MEMORY_AGENTS, else agents/ beside
 * the store file. The log goes to stderr or --log FILE, one line per event.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cmd_mem_agent.h"

#include "quarry/date.h"
#include "quarry/llm.h"
#include "quarry/mem_agent.h"
#include "quarry/store.h"
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
    "  --lease DURATION          run on a PostgreSQL store: the agent's lease "
    "(default 15m)\n"
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
    "  --lease DURATION          on a PostgreSQL store: how long a claim on an agent "
    "lasts\n"
    "                            (default 15m; 30, 90s, 15m, 1h)\n"
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
    "One daemon per store file: a second one refuses to start (exit 1); an agent that "
    "another\n"
    "process is running is skipped. On a PostgreSQL store the times are in the database\n"
    "and any number of daemons may run: each claims a due agent with a lease, and a\n"
    "lease whose daemon died expires, so another takes the agent over.\n";

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
    if (s && qr_store_backend_of(s) == QR_STORE_POSTGRES) {
        /* a database has no directory beside it (and its URL is never printed) */
        cli_error(o->asked, "usage", 0, 0,
                  "no agent directory: the memory store is on PostgreSQL; give --agents DIR "
                  "or set QUARRY_MEMORY_AGENTS");
        return NULL;
    }
    if (!s || !strcmp(s, ":memory:")) {
        cli_error(o->asked, "usage", 0, 0,
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

bool cli_parse_lease(const char *v, int64_t *out)
{
    char *end = NULL;
    if (!v || *v < '0' || *v > '9')
        return false;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno || n <= 0 || n > 86400)
        return false;
    int64_t mul = 1;
    if (*end == 'm')
        mul = 60;
    else if (*end == 'h')
        mul = 3600;
    else if (*end && *end != 's')
        return false;
    if (*end && end[1])
        return false;
    if (n * mul > 86400)
        return false;
    *out = n * mul;
    return true;
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
        cli_error(o->asked, "config", 0, 0, cerr[0] ? cerr : "cannot load the model configuration");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

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

/* ---- agent list ---- */

static int agent_list(cli_mem_opts *o, const char *dir)
{
    qr_mem_agent_file *files;
    long n = qr_mem_agent_list_files(dir, &files);
    if (n < 0) {
        char msg[PATH_MAX + 200];
        snprintf(msg, sizeof msg,
                 "cannot read the agent directory '%s': %s; create it or give "
                 "--agents DIR",
                 dir, strerror(errno));
        cli_error(o->asked, "error", 0, 0, msg);
        return EXIT_FAILED;
    }
    const char *sp = store_path(o);
    qr_buf statep;
    qr_buf_init(&statep);
    qr_mem *sm = NULL; /* a store on a server: its run state is there */
    if (sp && qr_store_backend_of(sp) == QR_STORE_POSTGRES) {
        int st = cli_mem_open(o, false, &sm);
        if (st != EXIT_OK) {
            qr_mem_agent_files_free(files, n);
            return st;
        }
    } else if (sp) {
        qr_mem_agent_state_path(sp, &statep);
    }
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
            if (sm) {
                qr_mem_sched ss;
                if (qr_mem_sched_get(sm, ag->name, now, &ss, &serr) == QR_OK)
                    qr_mem_agent_state_of(&ss, &st);
            } else if (statep.p) {
                qr_mem_agent_state_get(statep.p, ag->name, &st, &serr);
            }
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
    qr_mem_close(sm);
    qr_mem_agent_files_free(files, n);
    return status;
}

/* ---- agent run ---- */

static int agent_run(cli_mem_opts *o, const char *dir, const char *name, bool dry, bool fmt_given,
                     const char *trace, int64_t lease_s)
{
    if (!qr_mem_agent_name_valid(name, strlen(name)))
        return cli_mem_usage(o,
                             "'%s' is not an agent name: use a-z, 0-9 and '-' (the file "
                             "name without .toml)",
                             name);
    qr_buf pb;
    qr_buf_init(&pb);
    qr_buf_printf(&pb, "%s/%s.toml", dir, name);
    char *path = pb.failed ? NULL : qr_buf_detach(&pb, NULL);
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
    bool leased = false;
    qr_trace *tf = NULL;
    int rc = qr_mem_agent_load(&ag, path, &err);
    if (rc != QR_OK) {
        if (rc == QR_EIO && access(path, F_OK) != 0) {
            qr_buf_reset(&err);
            qr_buf_printf(&err, "no agent '%s': '%s' does not exist; see 'quarry mem agent list'",
                          name, path);
        }
        cli_error(o->asked, rc == QR_EINVAL || rc == QR_EIO ? "usage" : "error", 0, 0,
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
            cli_error(o->asked, "usage", 0, 0, QR_MEM_AGENT_NO_MODEL);
            status = EXIT_USAGE;
            goto done;
        }
        if (!(llm = qr_mem_agent_client(&cfg, ag))) {
            fprintf(stderr, "quarry: out of memory\n");
            status = EXIT_FAILED;
            goto done;
        }
        qr_llm_set_log(llm, retry_note, NULL);
    }
    if ((status = cli_mem_open(o, false, &m)) != EXIT_OK)
        goto done;
    bool shared = qr_mem_on_server(m);
    char holder[160];
    qr_mem_agent_holder(holder, sizeof holder);
    qr_mem_sched sched;
    memset(&sched, 0, sizeof sched);
    if (!shared)
        qr_mem_agent_state_path(qr_mem_path(m), &statep);
    if (!dry && shared) {
        /* the agent's lease, held until its run is recorded: one run of an agent at a time
         * across every machine on the store */
        bool claimed = false;
        qr_buf_reset(&err);
        if (qr_mem_sched_claim(m, ag->name, holder, qr_clock_now(), lease_s, &sched, &claimed,
                               &err) != QR_OK) {
            cli_error(o->asked, "error", 0, 0, err.p ? err.p : "cannot claim the agent");
            status = EXIT_FAILED;
            goto done;
        }
        if (!claimed) {
            char msg[600];
            snprintf(msg, sizeof msg,
                     "agent '%s' is running in another process (%s, its lease ends in %lld s); "
                     "wait for that run to finish, then try again",
                     ag->name, sched.holder[0] ? sched.holder : "another scheduler",
                     (long long)sched.lease_left);
            cli_error(o->asked, "error", 0, 0, msg);
            status = EXIT_FAILED;
            goto done;
        }
        leased = true;
    } else if (!dry) {
        /* held until the state is recorded: one run of an agent at a time */
        qr_buf_reset(&err);
        if (statep.failed || qr_mem_agent_locks_open(&locks, statep.p, &err) != QR_OK ||
            qr_mem_agent_lock(&locks, ag->name, &err) != QR_OK) {
            cli_error(o->asked, "error", 0, 0, err.p ? err.p : "cannot lock the agent");
            status = EXIT_FAILED;
            goto done;
        }
    }
    if (trace) {
        qr_buf terr;
        qr_buf_init(&terr);
        if (!(tf = qr_trace_open(trace, &terr))) {
            cli_error(o->asked, "usage", 0, 0, terr.p ? terr.p : "cannot write the trace file");
            qr_buf_release(&terr);
            status = EXIT_USAGE;
            goto done;
        }
        qr_buf_release(&terr);
    }
    int64_t now = qr_clock_now();
    qr_turn_ctx tc = {.llm = llm, .req = cli_req(), .trace = tf, .source = "mem_agent"};
    if (leased) {
        rc = qr_mem_agent_run_leased(ag, m, &tc, now, holder, &sched, &r, &err);
        leased = false; /* recorded or released */
    } else {
        rc = qr_mem_agent_run_turn(ag, m, &tc, now, &r, &err);
    }
    if (tf) {
        char why[700] = "";
        if (rc != QR_OK)
            qr_mem_agent_failure_text(rc, &r, &err, why, sizeof why);
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
        if (r.called && !shared &&
            qr_mem_agent_state_record(statep.p, ag->name, end, true, NULL, &serr))
            fprintf(stderr, "quarry: warning: %s\n", serr.p ? serr.p : "state not saved");
        print_run(o->fmt, ag, &r);
    } else {
        char why[700];
        qr_mem_agent_failure_text(rc, &r, &err, why, sizeof why);
        if (r.called && !shared &&
            qr_mem_agent_state_record(statep.p, ag->name, end, false, why, &serr))
            fprintf(stderr, "quarry: warning: %s\n", serr.p ? serr.p : "state not saved");
        if (rc == QR_EINVAL && (r.plan.nproblems || r.plan.nproblems_dropped)) {
            print_problems(o->fmt, ag, &r.plan);
        } else if (r.llm_error[0]) {
            char msg[800];
            snprintf(msg, sizeof msg, "agent '%s': %s", ag->name, why);
            cli_error(o->asked, "error", 0, 0, msg);
        } else {
            cli_error(o->asked, "error", 0, 0, why);
        }
        status = EXIT_FAILED;
    }
    qr_buf_release(&serr);
done:
    if (leased) { /* claimed, then stopped before the run */
        qr_buf rerr;
        qr_buf_init(&rerr);
        qr_mem_sched_release(m, ag->name, holder, &rerr);
        qr_buf_release(&rerr);
    }
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
    int64_t lease_s = QR_MEM_AGENT_LEASE_DEFAULT;
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
        } else if (!strcmp(a, "--lease")) {
            if (i + 1 >= argc || !*argv[i + 1])
                return cli_mem_usage(o, "option '--lease' needs a duration");
            if (!cli_parse_lease(argv[++i], &lease_s))
                return cli_mem_usage(o, "bad --lease '%s': expected 1s to 24h (30, 90s, 15m, 1h)",
                                     argv[i]);
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
    int status =
        list ? agent_list(o, dir) : agent_run(o, dir, name, dry, fmt_given, trace, lease_s);
    free(dir);
    return status;
}

/* ---- the daemon (its loop is the library's: qr_mem_agent_daemon_run) ---- */

static volatile sig_atomic_t stop_signal;
static qr_req daemon_req;

/* SIGTERM and SIGINT only say so and stop the request: the loop ends after the run in
 * progress */
static void on_signal(int sig)
{
    stop_signal = sig;
    qr_req_cancel(&daemon_req);
}

static void log_line(void *ud, const char *json)
{
    FILE *f = ud;
    fprintf(f, "%s\n", json);
    fflush(f);
}

static const char *signal_name(void *ud)
{
    (void)ud;
    return stop_signal == SIGINT ? "SIGINT" : "SIGTERM";
}

int cmd_mem_daemon(int argc, char **argv, cli_mem_opts *o)
{
    const char *dir_opt = NULL, *log_path = NULL;
    bool once = false;
    uint64_t interval = DEFAULT_INTERVAL;
    int64_t lease_s = QR_MEM_AGENT_LEASE_DEFAULT;
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
        } else if (!strcmp(a, "--lease")) {
            if (i + 1 >= argc || !*argv[i + 1])
                return cli_mem_usage(o, "option '--lease' needs a duration");
            if (!cli_parse_lease(argv[++i], &lease_s))
                return cli_mem_usage(o, "bad --lease '%s': expected 1s to 24h (30, 90s, 15m, 1h)",
                                     argv[i]);
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
    FILE *logf = stderr;
    qr_llm_config cfg;
    qr_llm_config_init(&cfg);
    qr_mem *m = NULL;
    int status = EXIT_OK;
    struct stat dst;
    if (stat(dir, &dst) != 0 || !S_ISDIR(dst.st_mode)) {
        char msg[PATH_MAX + 100];
        snprintf(msg, sizeof msg, "no agent directory '%s': create it or give --agents DIR", dir);
        cli_error(o->asked, "usage", 0, 0, msg);
        status = EXIT_USAGE;
        goto done;
    }
    if (log_path && !(logf = fopen(log_path, "a"))) {
        char msg[PATH_MAX + 100];
        snprintf(msg, sizeof msg, "cannot open the log file '%s': %s", log_path, strerror(errno));
        cli_error(o->asked, "usage", 0, 0, msg);
        logf = stderr;
        status = EXIT_USAGE;
        goto done;
    }
    if ((status = load_config(o, &cfg)) != EXIT_OK)
        goto done;
    if (!qr_llm_configured(&cfg)) {
        cli_error(o->asked, "usage", 0, 0,
                  "no model is configured: set QUARRY_LLM_URL and QUARRY_LLM_MODEL "
                  "(or [llm] "
                  "url and model in ~/.config/quarry/config.toml; docs/llm.md)");
        status = EXIT_USAGE;
        goto done;
    }
    if ((status = cli_mem_open(o, false, &m)) != EXIT_OK)
        goto done;

    qr_req_init(&daemon_req, NULL);
    cli_on_stop_signals(on_signal, 0);

    qr_mem_agent_daemon dopts = {.dir = dir, .mem = m, .llm = &cfg, .interval_s = interval,
                                 .once = once, .lease_s = lease_s, .log = log_line,
                                 .stop_reason = signal_name,
                                 .log_ud = logf};
    size_t runs_failed = 0;
    qr_buf err;
    qr_buf_init(&err);
    int rc = qr_mem_agent_daemon_run(&dopts, &daemon_req, &runs_failed, &err);
    if (rc != QR_OK) {
        cli_error(o->asked, "error", 0, 0, err.p ? err.p : "cannot lock the store's agents");
        status = EXIT_FAILED;
    } else if (once && runs_failed) {
        status = EXIT_FAILED;
    }
    qr_buf_release(&err);
done:
    if (logf != stderr)
        fclose(logf);
    qr_mem_close(m);
    qr_llm_config_clear(&cfg);
    free(dir);
    return status;
}
