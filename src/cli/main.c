/*
 * main.c: the quarry command line's entry and what every command shares: value parsing,
 * table widths, errors (one line, or JSON with --format json anywhere on the line), "did
 * you mean", progress. The commands themselves are records (commands.c, command.h).
 */
#include "command.h"

#include "quarry/date.h"

#include <errno.h>
#include <sys/ioctl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    fprintf(stderr, "\rquarry: %s [%.*s%*s] %zu/%zu", what, fill,
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

void cli_usage_plain(const char *msg)
{
    if (json_errors)
        cli_error(FMT_JSON, "usage", 0, 0, msg);
    else
        fprintf(stderr, "quarry: %s\n", msg);
}

const char *cli_doc_dir(void)
{
    static char dir[4096];
    if (dir[0])
        return dir;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0'; /* PREFIX/bin */
            char *bin = strrchr(exe, '/');
            if (bin && !strcmp(bin, "/bin")) {
                *bin = '\0';
                char try[4096 + 32];
                snprintf(try, sizeof try, "%s/share/doc/quarry", exe);
                if (strlen(try) < sizeof dir && access(try, R_OK) == 0) {
                    snprintf(dir, sizeof dir, "%s", try);
                    return dir;
                }
            }
        }
    }
    snprintf(dir, sizeof dir, "docs");
    return dir;
}

void cli_overview(FILE *f)
{
    fprintf(f, "quarry: ask questions of a repository's history, its code and an agent's memory\n\n"
               "usage: quarry COMMAND [OPTIONS]\n\ncommands:\n");
    for (size_t i = 0; cli_commands[i].name; i++)
        fprintf(f, "  %-10s %s\n", cli_commands[i].name, cli_commands[i].summary);
    fprintf(f, "\nRun 'quarry COMMAND --help' for the options of one command.\n"
               "Exit status: 0 success, 1 the program ran and failed, 2 bad usage or input.\n"
               "QUARRY_NOW (ISO-8601 or epoch seconds) pins the clock every command reads.\n"
               "Documentation: %s (docs/NAME.md in the help pages is NAME.md there).\n",
            cli_doc_dir());
}

int cli_cmd_version(const cli_args *args)
{
    const char *f = args ? cli_arg_str(args, "format", "text") : "text";
    if (!strcmp(f, "json"))
        printf("{\"name\":\"quarry\",\"version\":\"%s\"}\n", QR_VERSION);
    else
        printf("quarry %s\n", QR_VERSION);
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        cli_overview(stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        cli_overview(stdout);
        return EXIT_OK;
    }
    if (!strcmp(argv[1], "--version"))
        return cli_cmd_version(NULL);
    scan_format(argc, argv);
    return cli_command_dispatch(argc - 1, argv + 1);
}
