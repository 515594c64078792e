/*
 * options.c: the options several subcommands share, parsed in one place so that their
 * spelling, bounds and messages cannot drift apart: the sandbox limits of the programs a
 * command runs (--timeout-ms, --max-memory, --max-output, --max-steps, --max-depth), and
 * the options of the commands that run programs and queries (--repo, --store, --data,
 * --format, --limit-output, --no-index) read from a record's parsed arguments (command.h),
 * with the host those options describe.
 */
#include "command.h"

#include "quarry/host.h"
#include "quarry/tools.h"
#include "quarry/turn.h"

#include <signal.h>
#include <string.h>

/* ---- what is never printed ---- */

static char *secrets[4];
static size_t nsecrets;

void cli_add_secret(const char *s)
{
    if (!s || !*s || nsecrets == sizeof secrets / sizeof *secrets)
        return;
    char *d = strdup(s);
    if (d)
        secrets[nsecrets++] = d;
}

void cli_write(qr_buf *b, FILE *f)
{
    if (nsecrets)
        qr_secrets_scrub(b, (const char *const *)secrets, nsecrets);
    fwrite(b->p ? b->p : "", 1, b->len, f);
}

/* ---- the command's request ---- */

static qr_req the_req;
static bool req_started;

static void on_stop_signal(int sig)
{
    /* the first signal cancels the request; the next one is the default (the end) */
    qr_req_cancel(&the_req);
    signal(sig, SIG_DFL);
}

void cli_on_stop_signals(void (*fn)(int), int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

qr_req *cli_req(void)
{
    if (!req_started) {
        req_started = true;
        qr_req_init(&the_req, NULL);
        /* reads and writes go on; the work's checks stop it */
        cli_on_stop_signals(on_stop_signal, SA_RESTART);
    }
    return &the_req;
}

static bool is_limit_option(const char *a)
{
    return !strcmp(a, "--timeout-ms") || !strcmp(a, "--max-memory") ||
           !strcmp(a, "--max-output") || !strcmp(a, "--max-steps") || !strcmp(a, "--max-depth");
}

int cli_limit_option(const char *cmd, const char *a, const char *v, qr_lisp_limits *lim)
{
    if (!is_limit_option(a))
        return 0;
    if (!v) {
        cli_usage_error(cmd, "option '%s' needs a value", a);
        return -1;
    }
    if (!strcmp(a, "--timeout-ms")) {
        if (!cli_parse_u64(v, &lim->timeout_ms) || lim->timeout_ms == 0) {
            cli_usage_error(cmd, "bad --timeout-ms '%s': expected milliseconds > 0", v);
            return -1;
        }
    } else if (!strcmp(a, "--max-memory") || !strcmp(a, "--max-output")) {
        size_t *dst = a[6] == 'm' ? &lim->max_memory : &lim->max_output;
        if (!cli_parse_size(v, dst) || (*dst == 0 && dst == &lim->max_memory)) {
            cli_usage_error(cmd, "bad %s '%s': expected a size such as 64M", a, v);
            return -1;
        }
    } else if (!strcmp(a, "--max-steps")) {
        if (!cli_parse_u64(v, &lim->max_steps) || lim->max_steps == 0) {
            cli_usage_error(cmd, "bad --max-steps '%s'", v);
            return -1;
        }
    } else {
        uint64_t d;
        if (!cli_parse_u64(v, &d) || d == 0 || d > 1000000) {
            cli_usage_error(cmd, "bad --max-depth '%s'", v);
            return -1;
        }
        lim->max_depth = (uint32_t)d;
    }
    return 1;
}

void cli_run_opts_init(cli_run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->fmt = FMT_DEFAULT;
    o->limit = QR_TOOLS_OUTPUT_ROWS;
    qr_lisp_limits_default(&o->lim);
}

void cli_host_init(struct qr_host *h, const cli_run_opts *o)
{
    qr_host_init(h, o->repo);
    if (o->store)
        h->mem.memory_path = o->store;
    h->git.no_index = o->no_index;
    h->git.warn = cli_warn;
    h->git.progress = cli_progress;
    h->code.progress = cli_progress;
}

int cli_run_opts_from(const cli_args *args, cli_run_opts *o)
{
    cli_run_opts_init(o);
    o->repo = cli_arg_str(args, "repo", NULL);
    o->store = cli_arg_str(args, "store", NULL);
    o->data = cli_arg_str(args, "data", NULL);
    o->no_index = cli_arg_bool(args, "no-index");
    const char *f = cli_arg_str(args, "format", NULL);
    if (f && cli_parse_format(f) >= 0)
        o->fmt = (cli_format)cli_parse_format(f);
    const char *lo = cli_arg_str(args, "limit-output", NULL);
    if (lo && !cli_parse_u64(lo, &o->limit)) {
        cli_usage_error(args->path, "bad --limit-output '%s': expected a row count", lo);
        return -1;
    }
    return cli_limits_from(args, &o->lim);
}

int cli_limits_from(const cli_args *args, qr_lisp_limits *lim)
{
    static const char *const limits[] = {"timeout-ms", "max-memory", "max-output", "max-steps",
                                         "max-depth"};
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        const char *v = cli_arg_str(args, limits[i], NULL);
        char opt[32];
        snprintf(opt, sizeof opt, "--%s", limits[i]);
        if (v && cli_limit_option(args->path, opt, v, lim) < 0)
            return -1;
    }
    return 0;
}
