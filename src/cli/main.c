/*
 * main.c: the quarry command line: one table of subcommands (name, handler, usage,
 * summary) that drives dispatch and help, git-style.
 */
#include "cli.h"

#include "quarry/date.h"

#include <errno.h>
#include <sys/ioctl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const cli_cmd commands[] = {
    {"lisp", cmd_lisp, "quarry lisp [-e EXPR | FILE] [--data FILE] [--format edn|json]",
     "run a PTC-Lisp program in the sandbox; prints the result as EDN"},
    {"tools", cmd_tools, "quarry tools [NAME...] [--format text|json|openai|anthropic|mcp]",
     "list the tools and their parameters, or export them as model tool schemas"},
    {"tool", cmd_tool, "quarry tool NAME [--PARAM VALUE ...] [--format edn|json|table]",
     "call one tool with parameters given as flags"},
    {"mcp", cmd_mcp, "quarry mcp [--repo DIR] [--http ADDR]",
     "serve the tools to an MCP client (Claude Code, Cursor...) over stdio or loopback HTTP"},
    {"index", cmd_index, "quarry index [--repo DIR] [--status] [--format text|json]",
     "build the statistics index of a repository, or report it (--status)"},
    {"query", cmd_query, "quarry query 'QUERY' | - [--data FILE] [--format edn|json|table]",
     "run a query written in the query DSL (EDN or JSON) and print its :return"},
    {"compile", cmd_compile, "quarry compile 'QUERY' | - [--data FILE] [--format text|json]",
     "print the PTC-Lisp program a query compiles to, without running it"},
    {"ask", cmd_ask, "quarry ask \"QUESTION\" [--explain] [--trace FILE] [--max-calls N]",
     "answer a question about the repository, with a model only where one is needed"},
    {"mem", cmd_mem, "quarry mem COMMAND [--store FILE] ...",
     "the memory graph: add, get, link, query notes; run memory agents"},
    {"code", cmd_code, "quarry code index|query|dump|graph [--repo DIR] [--ref REF] ...",
     "the code graph: functions, types, macros, includes and calls, per git blob"},
    {"sparql", cmd_sparql,
     "quarry sparql (QUERY | --query FILE | -) [--data FILE]... [--graph IRI=FILE] "
     "[--format json|xml|csv|tsv|table]",
     "run a read-only SPARQL 1.1 query (SELECT or ASK) over RDF files"},
    {"flow", cmd_flow, "quarry flow check|fmt|run FILE... [OPTIONS]",
     "the workflow language: check, format and run .flow files (docs/flow.md)"},
    {"lsp", cmd_lsp, "quarry lsp",
     "a Language Server Protocol server for workflow files, on stdio (for editors)"},
    {"dwim", cmd_dwim, "quarry dwim \"LINE\" | parse \"LINE\" | undo [--repo DIR] [--write]",
     "run one terse intent (skeleton, expand, read, grep, fix, validate, any tool)"},
    {"do", cmd_do, "quarry do \"TASK\" [--write] [--max-turns N] [--trace FILE] [--repo DIR]",
     "let the model work on a task one terse line per turn (quarry dwim's verbs)"},
    {"help", cmd_help, "quarry help [COMMAND | --commands]", "show help for quarry or one command"},
    {"version", cmd_version, "quarry version", "print the version"},
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

int cli_parse_format(const char *s)
{
    if (!strcmp(s, "edn"))
        return FMT_EDN;
    if (!strcmp(s, "json"))
        return FMT_JSON;
    if (!strcmp(s, "table"))
        return FMT_TABLE;
    return -1;
}

size_t cli_table_width(void)
{
    /* COLUMNS, when set, is an explicit request (a script can fit a table to a width on a
     * pipe too); else the terminal's width when stdout is one; else no limit, so that a
     * table written to a file or a pipe keeps whole rows */
    const char *c = getenv("COLUMNS");
    uint64_t n;
    if (c && *c && cli_parse_u64(c, &n) && n > 0 && n < 100000)
        return (size_t)n;
    struct winsize ws;
    if (isatty(1) && ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 0;
}

bool cli_parse_u64(const char *s, uint64_t *out)
{
    if (!*s || *s == '-')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

bool cli_parse_size(const char *s, size_t *out)
{
    if (!*s || *s == '-')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return false;
    unsigned long long mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1ull << 10;
    else if (*end == 'M' || *end == 'm')
        mul = 1ull << 20;
    else if (*end == 'G' || *end == 'g')
        mul = 1ull << 30;
    else if (*end)
        return false;
    if (mul > 1 && end[1] && strcmp(end + 1, "iB") && strcmp(end + 1, "B"))
        return false;
    if (v > SIZE_MAX / mul)
        return false;
    *out = (size_t)(v * mul);
    return true;
}

/* Set when the command line asks for --format json anywhere: then every error is a JSON
 * object on stderr, usage errors included, whichever command finds them and however far
 * it got in reading its options. */
static bool json_errors;

static void scan_format(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            return;
        if ((!strcmp(argv[i], "--format") && i + 1 < argc && !strcmp(argv[i + 1], "json")) ||
            !strcmp(argv[i], "--format=json"))
            json_errors = true;
    }
}

void cli_error(cli_format fmt, const char *kind, uint32_t line, uint32_t col, const char *msg)
{
    if (fmt == FMT_JSON || json_errors) {
        qr_buf b;
        qr_buf_init(&b);
        qr_buf_puts(&b, "{\"error\":{\"kind\":");
        qr_buf_json_string(&b, kind, strlen(kind));
        qr_buf_puts(&b, ",\"message\":");
        qr_buf_json_string(&b, msg, strlen(msg));
        if (line)
            qr_buf_printf(&b, ",\"line\":%u,\"col\":%u", line, col);
        qr_buf_puts(&b, "}}\n");
        fputs(b.p ? b.p : "", stderr);
        qr_buf_release(&b);
        return;
    }
    if (line)
        fprintf(stderr, "quarry: %s at %u:%u: %s\n", kind, line, col, msg);
    else
        fprintf(stderr, "quarry: %s: %s\n", kind, msg);
}

void cli_warn(void *ud, const char *msg)
{
    (void)ud;
    fprintf(stderr, "quarry: warning: %s\n", msg);
}

void cli_progress(void *ud, const char *what, size_t done, size_t total)
{
    (void)ud;
    if (!total || !isatty(2))
        return;
    if (done >= total) { /* erase the bar */
        fputs("\r\033[K", stderr);
        fflush(stderr);
        return;
    }
    enum { WIDTH = 30 };
    int fill = (int)(done * WIDTH / total);
    fprintf(stderr, "\rquarry: %s [%.*s%*s] %zu/%zu commits", what, fill,
            "##############################", WIDTH - fill, "", done, total);
    fflush(stderr);
}

void cli_usage_verror(const char *cmd, const char *fmt, va_list ap)
{
    if (json_errors) {
        qr_buf b;
        qr_buf_init(&b);
        qr_buf_vprintf(&b, fmt, ap);
        qr_buf_printf(&b, "; see 'quarry %s --help'", cmd);
        cli_error(FMT_JSON, "usage", 0, 0, b.p ? b.p : "bad usage");
        qr_buf_release(&b);
        return;
    }
    fprintf(stderr, "quarry %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "; see 'quarry %s --help'\n", cmd);
}

void cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_usage_verror(cmd, fmt, ap);
    va_end(ap);
}

/* The closest of the candidates to word, when it is close enough to be a typo (at most a
 * third of its length in edits, at least one), or NULL. */
const char *cli_closest(const char *word, const char *const *cands, size_t n)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX, wl = strlen(word);
    size_t max = wl / 3 > 1 ? wl / 3 : 1;
    if (max > 3)
        max = 3;
    for (size_t i = 0; i < n; i++) {
        size_t d = qr_edit_distance(word, wl, cands[i], strlen(cands[i]),
                                    QR_EDIT_FOLD | QR_EDIT_TRANSPOSE);
        if (d <= max && d < best_d) {
            best_d = d;
            best = cands[i];
        }
    }
    return best;
}

void cli_unknown_option(const char *cmd, const char *opt, const char *usage)
{
    /* the options a command has are the --words of its usage text */
    enum { MAXOPT = 64, OPTLEN = 40 };
    char opts[MAXOPT][OPTLEN];
    const char *cands[MAXOPT];
    size_t n = 0;
    for (const char *p = usage; p && (p = strstr(p, "--")) && n < MAXOPT;) {
        size_t k = 2;
        while ((p[k] >= 'a' && p[k] <= 'z') || (p[k] >= '0' && p[k] <= '9') || p[k] == '-')
            k++;
        if (k > 3 && k < OPTLEN && !(p > usage && p[-1] != ' ' && p[-1] != '[' && p[-1] != '|')) {
            memcpy(opts[n], p, k);
            opts[n][k] = '\0';
            bool dup = false;
            for (size_t i = 0; i < n && !dup; i++)
                dup = !strcmp(opts[i], opts[n]);
            if (!dup) {
                cands[n] = opts[n];
                n++;
            }
        }
        p += k;
    }
    char word[OPTLEN * 2];
    snprintf(word, sizeof word, "%.*s", (int)strcspn(opt, "="), opt);
    const char *s = cli_closest(word, cands, n);
    if (s)
        cli_usage_error(cmd, "unknown option '%.100s' (did you mean '%s'?)", opt, s);
    else
        cli_usage_error(cmd, "unknown option '%.100s'", opt);
}

static void print_overview(FILE *f)
{
    fprintf(f, "quarry: ask questions of a repository's history, its code and an agent's memory\n\n"
               "usage: quarry COMMAND [OPTIONS]\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nRun 'quarry COMMAND --help' for the options of one command.\n"
               "Exit status: 0 success, 1 the program ran and failed, 2 bad usage or input.\n"
               "QUARRY_NOW (ISO-8601 or epoch seconds) pins the clock every command reads.\n");
}

static const cli_cmd *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(commands[i].name, name))
            return &commands[i];
    return NULL;
}

static int cmd_help(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--commands")) {
        /* the command table, for the man pages and shell completions `make install`
         * generates: NAME, a tab, the summary */
        for (size_t i = 0; i < NCOMMANDS; i++)
            printf("%s\t%s\n", commands[i].name, commands[i].summary);
        return EXIT_OK;
    }
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: quarry help [COMMAND | --commands]\n\nShows the help of quarry or of "
               "one command; --commands lists the commands, one a line:\nNAME, a tab, "
               "what it does.\n");
        return EXIT_OK;
    }
    if (argc > 1) {
        const cli_cmd *c = find_command(argv[1]);
        if (!c) {
            const char *names[NCOMMANDS];
            for (size_t i = 0; i < NCOMMANDS; i++)
                names[i] = commands[i].name;
            const char *s = cli_closest(argv[1], names, NCOMMANDS);
            if (s)
                cli_usage_error("help", "unknown command '%.100s' (did you mean '%s'?)", argv[1], s);
            else
                cli_usage_error("help", "unknown command '%.100s'", argv[1]);
            return EXIT_USAGE;
        }
        char *args[] = {argv[1], "--help", NULL};
        return c->run(2, args);
    }
    print_overview(stdout);
    return EXIT_OK;
}

static int cmd_version(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: quarry version\n\nPrints quarry's version.\n");
            return EXIT_OK;
        }
        if (argv[i][0] == '-')
            cli_unknown_option("version", argv[i], "--help");
        else
            cli_usage_error("version", "unexpected argument '%.100s'", argv[i]);
        return EXIT_USAGE;
    }
    printf("quarry %s\n", QR_VERSION);
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_overview(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
        print_overview(stdout);
        return EXIT_OK;
    }
    if (!strcmp(name, "--version"))
        return cmd_version(0, NULL);
    scan_format(argc, argv);
    const cli_cmd *c = find_command(name);
    /* a pinned clock that cannot be read stops every command, rather than letting the
     * real clock answer in its place */
    char clock_err[QR_DATE_ERR_LEN];
    if (c && qr_clock_check(clock_err, sizeof clock_err) != QR_OK) {
        fprintf(stderr, "quarry: %s\n", clock_err);
        return EXIT_USAGE;
    }
    if (!c) {
        const char *names[NCOMMANDS];
        for (size_t i = 0; i < NCOMMANDS; i++)
            names[i] = commands[i].name;
        const char *s = cli_closest(name, names, NCOMMANDS);
        char msg[300];
        snprintf(msg, sizeof msg, "unknown command '%.100s'%s%s%s; see 'quarry --help'", name,
                 s ? " (did you mean '" : "", s ? s : "", s ? "'?)" : "");
        if (json_errors)
            cli_error(FMT_JSON, "usage", 0, 0, msg);
        else
            fprintf(stderr, "quarry: %s\n", msg);
        return EXIT_USAGE;
    }
    return c->run(argc - 1, argv + 1);
}
