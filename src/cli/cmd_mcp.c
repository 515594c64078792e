/*
 * cmd_mcp.c: `quarry mcp`: runs the Model Context Protocol server (src/mcp/) on stdin and
 * stdout, for an MCP client that starts it as a subprocess (Claude Code, Claude Desktop,
 * Cursor, the SDKs). stdout carries only protocol messages; warnings go to stderr.
 *
 * Permissions: --allow-write LIST (a comma list of what the tools may write; only
 * `memory` so far) and --allow-exec set the config's allow_* fields; without them the
 * server serves reading tools only (docs/capabilities.md).
 *
 * Design: this file only parses options into a qr_mcp_config and hands the descriptors
 * to the stdio transport; everything the protocol does lives in the library, where the
 * fuzz harness and the tests reach it. SIGPIPE is ignored so that a client that goes
 * away shows up as a failed write, which ends the server with status 0.
 *
 * Rejected: a banner or any other output on stdout (the transport forbids anything but
 * messages there); exiting 1 when the client disappears (that is how stdio sessions end).
 */
#define _GNU_SOURCE /* pipe2 */
#include "command.h"
#include "cli.h"

#include "quarry/git.h"

#include "quarry/mcp.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char cli_mcp_page[] =
    "usage: quarry mcp [--repo DIR] [--http ADDR] [OPTIONS]\n"
    "\n"
    "Serves the tools listed below to an MCP client over stdio\n"
    "(JSON-RPC 2.0, one message per line; protocol 2025-11-25, also 2025-06-18,\n"
    "2025-03-26 and 2024-11-05). The client starts it; see docs/mcp.md for the\n"
    "configuration of Claude Code, Claude Desktop and other clients. With --http, it\n"
    "serves the Streamable HTTP transport instead, at http://ADDR/mcp, until stopped\n"
    "(SIGINT or SIGTERM); see docs/mcp-http.md.\n"
    "\n"
    "By default every tool served only reads: tools that write or run repository code\n"
    "are neither listed nor run (a call says which flag allows it); see\n"
    "docs/capabilities.md.\n"
    "\n"
    "@TOOLS@"
    "options:\n"
    "  --allow-write WHAT   also serve the tools that write WHAT, a comma list; `memory`\n"
    "                       (the only one so far): add, update, delete, link and unlink\n"
    "                       notes and record visits in the memory store\n"
    "  --allow-exec         let tools run repository code: dwim's `validate` runs the\n"
    "                       repository's check command (.quarry.toml) or make -k\n"
    "  --http ADDR          serve HTTP on ADDR: 127.0.0.1:PORT, localhost:PORT or\n"
    "                       [::1]:PORT (loopback only; PORT 0 picks a free port); the\n"
    "                       URL is printed on stderr; each session runs --workers calls\n"
    "                       at once, up to 32 sessions\n"
    "  --repo DIR           the repository a call without a `repo` argument works on\n"
    "                       (default: the one containing the working directory)\n"
    "  --store FILE         the memory store of memory_query (default: $QUARRY_MEMORY);\n"
    "                       calls may name no other store\n"
    "  --no-index           compute git statistics without the statistics index\n"
    "  --max-rows N         rows of a list result sent to the client (default 50; 0: all);\n"
    "                       the result says how many were left out\n"
    "  --max-message SIZE   largest message accepted, e.g. 16M (default 16M)\n"
    "  --page-size N        tools per tools/list page (default 100)\n"
    "  --workers N          calls run at once (default 4; 1: one at a time, in order);\n"
    "                       ping and cancellations are answered while calls run\n"
    "                       whatever the number\n"
    "  --timeout-ms N       time limit of each run_lisp program or run_query query\n"
    "                       (default 10000; time inside tools counts)\n"
    "  --max-memory SIZE    memory limit of each program or query (default 64M)\n"
    "  --max-output SIZE    printed output limit of each program\n"
    "  --max-steps N        evaluation step limit of each program\n"
    "  --max-depth N        nesting depth limit of each program\n"
    "\n"
    "exit status: 0 when the client closes the connection (or, with --http, when\n"
    "stopped by a signal), 1 when reading fails or the address cannot be bound, 2 for\n"
    "bad usage (a non-loopback --http address included).\n";

/* Words of list, wrapped at 80 columns after an indent of 2. */
static void print_wrapped(FILE *f, const char *list)
{
    size_t col = 0;
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, " ");
        if (col && col + 1 + n > 78) {
            fputc('\n', f);
            col = 0;
        }
        fprintf(f, "%s%.*s", col ? " " : "  ", (int)n, p);
        col += n + (col ? 1 : 2);
        p += n;
        p += *p == ' ';
    }
    if (col)
        fputc('\n', f);
}

/* The --help page (and man page) of `quarry mcp`: the hand-written text, with the tools
 * served generated from the server's own list (default, and what the flags add), so the
 * page cannot drift from tools/list. */
void cli_mcp_page_fn(FILE *f)
{
    const char *at = strstr(cli_mcp_page, "@TOOLS@");
    fwrite(cli_mcp_page, 1, (size_t)(at - cli_mcp_page), f);
    qr_mcp_config cfg;
    qr_mcp_config_init(&cfg);
    qr_buf base, all, err;
    qr_buf_init(&base);
    qr_buf_init(&all);
    qr_buf_init(&err);
    int rc = qr_mcp_served_names(&cfg, &base, &err);
    cfg.allow_write_memory = cfg.allow_exec = true;
    if (rc == QR_OK)
        rc = qr_mcp_served_names(&cfg, &all, &err);
    if (rc == QR_OK) {
        fprintf(f, "tools served (what 'quarry tools --format mcp' prints):\n");
        print_wrapped(f, base.p ? base.p : "");
        /* the ones only the flags add */
        qr_buf more;
        qr_buf_init(&more);
        for (const char *p = all.p ? all.p : ""; *p;) {
            size_t n = strcspn(p, " ");
            bool seen = false;
            for (const char *q = base.p ? base.p : ""; *q && !seen;) {
                size_t m = strcspn(q, " ");
                seen = m == n && !strncmp(p, q, n);
                q += m;
                q += *q == ' ';
            }
            if (!seen)
                qr_buf_printf(&more, "%s%.*s", more.len ? " " : "", (int)n, p);
            p += n;
            p += *p == ' ';
        }
        if (more.len) {
            fprintf(f, "and with --allow-write memory:\n");
            print_wrapped(f, more.p);
        }
        qr_buf_release(&more);
        fprintf(f, "dwim's validate runs only with --allow-exec. Also served: resources (the\n"
                   "references of run_lisp's language and run_query's DSL) and prompts (common\n"
                   "questions). More in %s/mcp.md.\n\n",
                cli_doc_dir());
    }
    qr_buf_release(&base);
    qr_buf_release(&all);
    qr_buf_release(&err);
    fputs(at + strlen("@TOOLS@"), f);
}

static void log_line(void *ud, const char *line)
{
    (void)ud;
    fprintf(stderr, "quarry mcp: %s\n", line);
}

static int stop_pipe[2] = {-1, -1};

static void on_stop(int sig)
{
    (void)sig;
    char c = 's';
    if (write(stop_pipe[1], &c, 1) < 0) {
        /* nothing to do: the pipe holds a byte already */
    }
}

static void on_ready(void *ud, const char *url)
{
    (void)ud;
    fprintf(stderr, "quarry mcp: serving MCP over HTTP at %s\n", url);
    fflush(stderr);
}

/* `quarry mcp --http ADDR`: serves until SIGINT or SIGTERM. */
static int serve_http(const qr_mcp_config *cfg, const char *addr)
{
    if (pipe2(stop_pipe, O_CLOEXEC) != 0) { /* never inherited by a child */
        fprintf(stderr, "quarry mcp: cannot start: %s\n", strerror(errno));
        return EXIT_FAILED;
    }
    cli_on_stop_signals(on_stop, 0);
    qr_buf err;
    qr_buf_init(&err);
    int rc = qr_mcp_serve_http(cfg, addr, stop_pipe[0], on_ready, NULL, &err);
    if (rc != QR_OK)
        fprintf(stderr, "quarry mcp: %s\n",
                rc == QR_ENOMEM ? "out of memory" : (err.p ? err.p : "cannot serve"));
    qr_buf_release(&err);
    close(stop_pipe[0]);
    close(stop_pipe[1]);
    return rc == QR_OK ? EXIT_OK : rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
}

/* --allow-write LIST: what the served tools may write, a comma list of known scopes. */
static bool allow_write(qr_mcp_config *cfg, const char *list)
{
    static const char *const scopes[] = {"memory", NULL};
    const char *p = list;
    do {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == 6 && !memcmp(p, "memory", 6)) {
            cfg->allow_write_memory = true;
        } else {
            char word[64];
            snprintf(word, sizeof word, "%.*s", (int)(n < 60 ? n : 60), p);
            cli_usage_error("mcp", "bad --allow-write '%s': unknown store '%s'; expected %s",
                            list, word, scopes[0]);
            return false;
        }
        p = end ? end + 1 : NULL;
    } while (p);
    return true;
}

int cli_cmd_mcp(const cli_args *args)
{
    qr_mcp_config cfg;
    qr_mcp_config_init(&cfg);
    cfg.log = log_line;
    cfg.allow_exec = cli_arg_bool(args, "allow-exec");
    const char *http = cli_arg_str(args, "http", NULL);
    const char *list = cli_arg_str(args, "allow-write", NULL);
    if (list && !allow_write(&cfg, list))
        return EXIT_USAGE;
    if (cli_limits_from(args, &cfg.limits) < 0)
        return EXIT_USAGE;
    cfg.no_index = cli_arg_bool(args, "no-index");
    cfg.repo_dir = cli_arg_str(args, "repo", cfg.repo_dir);
    cfg.memory_path = cli_arg_str(args, "store", cfg.memory_path);
    uint64_t n;
    const char *v;
    if ((v = cli_arg_str(args, "max-rows", NULL))) {
        if (!cli_parse_u64(v, &n) || n > SIZE_MAX) {
            cli_usage_error("mcp", "bad --max-rows '%s': expected a row count", v);
            return EXIT_USAGE;
        }
        cfg.max_rows = (size_t)n;
    }
    if ((v = cli_arg_str(args, "page-size", NULL))) {
        if (!cli_parse_u64(v, &n) || n == 0 || n > 100000) {
            cli_usage_error("mcp", "bad --page-size '%s': expected a count from 1", v);
            return EXIT_USAGE;
        }
        cfg.page_size = (size_t)n;
    }
    if ((v = cli_arg_str(args, "workers", NULL))) {
        if (!cli_parse_u64(v, &n) || n == 0 || n > 64) {
            cli_usage_error("mcp", "bad --workers '%s': expected a count from 1 to 64", v);
            return EXIT_USAGE;
        }
        cfg.workers = (size_t)n;
    }
    if ((v = cli_arg_str(args, "max-message", NULL)) &&
        (!cli_parse_size(v, &cfg.max_message) || cfg.max_message < 64)) {
        cli_usage_error("mcp", "bad --max-message '%s': expected a size such as 16M", v);
        return EXIT_USAGE;
    }
    if (http) {
        qr_buf e;
        qr_buf_init(&e);
        if (qr_mcp_http_check_addr(http, &e) != QR_OK) {
            cli_usage_error("mcp", "bad --http address: %s", e.p ? e.p : "malformed");
            qr_buf_release(&e);
            return EXIT_USAGE;
        }
        qr_buf_release(&e);
    }
    if (cfg.repo_dir) {
        /* a wrong --repo is the person's to fix now, not the model's later */
        qr_git *g;
        qr_buf e;
        qr_buf_init(&e);
        if (qr_git_open(cfg.repo_dir, &g, &e) != QR_OK) {
            cli_usage_error("mcp", "bad --repo '%s': %s", cfg.repo_dir,
                            e.p ? e.p : "not a git repository");
            qr_buf_release(&e);
            return EXIT_USAGE;
        }
        qr_git_free(g);
        qr_buf_release(&e);
    }
    signal(SIGPIPE, SIG_IGN);
    if (http)
        return serve_http(&cfg, http);
    qr_mcp_server *s;
    qr_buf err;
    qr_buf_init(&err);
    int rc = qr_mcp_server_new(&cfg, &s, &err);
    if (rc != QR_OK) {
        fprintf(stderr, "quarry mcp: cannot start: %s\n",
                rc == QR_ENOMEM ? "out of memory" : (err.p ? err.p : "error"));
        qr_buf_release(&err);
        return EXIT_FAILED;
    }
    qr_buf_release(&err);
    if (isatty(0))
        fprintf(stderr, "quarry mcp: an MCP server on stdio, waiting for a client's messages "
                        "(one JSON-RPC message per line; Ctrl-D ends). See docs/mcp.md.\n");
    rc = qr_mcp_serve_stdio(s, 0, 1);
    qr_mcp_server_free(s);
    if (rc != QR_OK) {
        fprintf(stderr, "quarry mcp: %s\n",
                rc == QR_ENOMEM ? "out of memory" : "reading the client's messages failed");
        return EXIT_FAILED;
    }
    return EXIT_OK;
}
