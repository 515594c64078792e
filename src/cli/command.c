/*
 * command.c: what the command records (command.h) drive: dispatch down the table to a
 * command or subcommand, the parsing of a record's options into its argument map, the
 * help printed from a record, "did you mean" for commands, subcommands and options, the
 * `quarry help` listings (--commands, --json), and `quarry complete`, which shells call
 * for the candidates of a word.
 *
 * Parsing: each word is looked at once here to tell options from positional words (a
 * boolean option takes no value; any other takes the next word, whatever it looks like,
 * as the hand-written parsers did), an unknown option is refused with its suggestion
 * before anything runs, then the options go to qr_tool_parse_argv as `--name=value`
 * (so a value that starts with "--" stays a value) and the positional words in the base
 * map, and qr_tool_validate fills the defaults and checks enums, bounds and required
 * parameters. Its messages, "tool 'X': " left out, become usage errors (exit 2).
 *
 * Rejected: getopt_long (a second description of the same options, and no types, enums
 * or defaults); scraping --words out of help texts for completion and suggestions (what
 * `make install` did: it offered words of prose such as --numstat that the command
 * refuses).
 */
#include "command.h"

#include "quarry/date.h"

#include <stdlib.h>
#include <string.h>

/* ---- lookup ---- */

static const cli_command *find_in(const cli_command *v, const char *name, size_t len)
{
    for (size_t i = 0; v && v[i].name; i++)
        if (strlen(v[i].name) == len && !memcmp(v[i].name, name, len))
            return &v[i];
    return NULL;
}

const cli_command *cli_command_find(const char *path)
{
    const cli_command *level = cli_commands, *c = NULL;
    const char *p = path;
    while (*p) {
        size_t n = strcspn(p, " ");
        if (!(c = find_in(level, p, n)))
            return NULL;
        level = c->subs;
        p += n;
        while (*p == ' ')
            p++;
    }
    return c;
}

static size_t count_params(const cli_command *c)
{
    size_t n = 0;
    while (c->params && c->params[n].name)
        n++;
    return n;
}

/* Whether parameter p is filled by a positional word rather than an option. */
static bool is_positional(const cli_command *c, const qr_tool_param *p)
{
    for (size_t i = 0; c->positional && c->positional[i]; i++)
        if (!strcmp(c->positional[i], p->name))
            return true;
    return false;
}

/* The parameter an option word names (before any '='), '-' and '_' alike; NULL. */
static const qr_tool_param *find_param(const cli_command *c, const char *word)
{
    size_t n = strcspn(word, "=");
    for (size_t i = 0; c->params && c->params[i].name; i++) {
        if (is_positional(c, &c->params[i]))
            continue;
        const char *p = c->params[i].name;
        if (strlen(p) != n)
            continue;
        size_t k = 0;
        while (k < n && (p[k] == word[k] || ((p[k] == '-' || p[k] == '_') &&
                                             (word[k] == '-' || word[k] == '_'))))
            k++;
        if (k == n)
            return &c->params[i];
    }
    return NULL;
}

/* ---- suggestions ---- */

static void unknown_word(const char *path, const char *what, const char *word,
                         const cli_command *v)
{
    const char *names[64];
    size_t n = 0;
    for (size_t i = 0; v && v[i].name && n < 64; i++)
        names[n++] = v[i].name;
    const char *s = cli_closest(word, names, n);
    if (s)
        cli_usage_error(path, "unknown %s '%.100s' (did you mean '%s'?)", what, word, s);
    else
        cli_usage_error(path, "unknown %s '%.100s'", what, word);
}

/* The suggestion for an unknown option of a record: its closest option, or NULL. */
static const char *closest_option(const cli_command *c, const char *opt, char *buf, size_t bufn)
{
    enum { MAXOPT = 64 };
    char names[MAXOPT][68];
    const char *cands[MAXOPT];
    size_t n = 0;
    for (size_t i = 0; c->params && c->params[i].name && n < MAXOPT; i++) {
        if (is_positional(c, &c->params[i]))
            continue;
        snprintf(names[n], sizeof names[n], "--%s", c->params[i].name);
        cands[n] = names[n];
        n++;
    }
    if (n < MAXOPT)
        cands[n++] = "--help";
    char word[128];
    snprintf(word, sizeof word, "%.*s", (int)strcspn(opt, "="), opt);
    const char *s = cli_closest(word, cands, n);
    if (!s)
        return NULL;
    snprintf(buf, bufn, "%s", s);
    return buf;
}

void cli_unknown_option(const char *cmd, const char *opt)
{
    const cli_command *c = cli_command_find(cmd);
    char buf[80];
    const char *s = c ? closest_option(c, opt, buf, sizeof buf) : NULL;
    if (s)
        cli_usage_error(cmd, "unknown option '%.100s' (did you mean '%s'?)", opt, s);
    else
        cli_usage_error(cmd, "unknown option '%.100s'", opt);
}

/* ---- help ---- */

static void param_meta(const qr_tool_param *p, qr_buf *b)
{
    if (p->type == QR_TOOL_BOOLEAN)
        return;
    qr_buf_putc(b, ' ');
    if (p->enum_values) {
        for (size_t k = 0; p->enum_values[k]; k++)
            qr_buf_printf(b, "%s%s", k ? "|" : "", p->enum_values[k]);
        return;
    }
    /* the words the hand-written pages use for the options many commands share */
    static const char *const meta[][2] = {
        {"repo", "DIR"},        {"agents", "DIR"},      {"store", "FILE"},
        {"data", "FILE"},       {"trace", "FILE"},      {"log", "FILE"},
        {"export-nt", "FILE"},  {"query", "FILE"},      {"args", "MAP"},
        {"path", "PREFIX"},     {"max-memory", "SIZE"}, {"max-output", "SIZE"},
        {"max-message", "SIZE"}, {"http", "ADDR"},      {"allow-write", "WHAT"},
        {"graph", "IRI=FILE"},  {"base", "IRI"},        {"input", "TEXT"},
        {"content", "TEXT"},    {"stage", "STAGE"},     {"now", "TIME"},
    };
    for (size_t k = 0; k < sizeof meta / sizeof meta[0]; k++)
        if (!strcmp(p->name, meta[k][0])) {
            qr_buf_puts(b, meta[k][1]);
            return;
        }
    size_t n = strlen(p->name);
    if (p->type == QR_TOOL_INTEGER || p->type == QR_TOOL_NUMBER ||
        !strncmp(p->name, "max-", 4) || (n > 3 && !strcmp(p->name + n - 3, "-ms")) ||
        !strcmp(p->name, "workers") || !strcmp(p->name, "repeat") ||
        !strcmp(p->name, "seed") || !strcmp(p->name, "limit-output") ||
        !strcmp(p->name, "page-size") || !strcmp(p->name, "interval")) {
        qr_buf_putc(b, 'N');
        return;
    }
    for (const char *s = p->name; *s; s++)
        qr_buf_putc(b, *s == '-' ? '_' : (char)(*s >= 'a' && *s <= 'z' ? *s - 32 : *s));
}

/* Calls fn for each option of c (its parameters that are no positional word) with its
 * label: "--name VALUE". */
static void each_option(const cli_command *c,
                        void (*fn)(FILE *f, const qr_tool_param *p, const char *label), FILE *f)
{
    for (size_t i = 0; c->params && c->params[i].name; i++) {
        const qr_tool_param *p = &c->params[i];
        if (is_positional(c, p))
            continue;
        qr_buf b;
        qr_buf_init(&b);
        qr_buf_printf(&b, "--%s", p->name);
        param_meta(p, &b);
        fn(f, p, b.p ? b.p : "");
        qr_buf_release(&b);
    }
}

static void help_line(FILE *f, const qr_tool_param *p, const char *label)
{
    if (strlen(label) < 22)
        fprintf(f, "  %-22s  %s", label, p->desc ? p->desc : "");
    else
        fprintf(f, "  %s\n  %-22s  %s", label, "", p->desc ? p->desc : "");
    if (p->def) /* a string's default without its quotes */
        fprintf(f, " (default %.*s)", (int)(p->def[0] == '"' ? strlen(p->def) - 2 : strlen(p->def)),
                p->def + (p->def[0] == '"'));
    fputc('\n', f);
}

void cli_command_help(const cli_command *c, const char *path, FILE *f)
{
    if (c->page || c->page_fn) {
        if (c->page_fn)
            c->page_fn(f);
        else
            fputs(c->page, f);
        return;
    }
    fprintf(f, "usage: ");
    for (const char *u = c->usage; *u; u++) {
        fputc(*u, f);
        if (*u == '\n' && u[1])
            fputs("       ", f);
    }
    fprintf(f, "\n\n%s\n", c->summary);
    if (c->help)
        fprintf(f, "%s", c->help);
    if (c->subs) {
        fprintf(f, "\nsubcommands:\n");
        for (size_t i = 0; c->subs[i].name; i++)
            fprintf(f, "  %-10s %s\n", c->subs[i].name, c->subs[i].summary);
        fprintf(f, "\nRun 'quarry %s SUBCOMMAND --help' for its options.\n", path);
    }
    if (count_params(c)) {
        fprintf(f, "\noptions:\n");
        each_option(c, help_line, f);
    }
    fprintf(f, "\nexit status: 0 success, 1 failure, 2 bad usage or bad input; errors are one\n"
               "line on stderr (a JSON object with --format json).\n");
}

/* ---- parsing ---- */

static bool is_help(const char *a)
{
    return !strcmp(a, "--help") || !strcmp(a, "-h");
}

/* Strips "tool 'NAME': " from a message of the tool layer. */
static const char *unprefix(const char *m)
{
    if (!strncmp(m, "tool '", 6)) {
        const char *e = strstr(m, "': ");
        if (e)
            return e + 3;
    }
    return m;
}

/* Whether v is one of p's values; else says so as the commands always have: "unknown
 * format 'x': expected text, json or edn". */
static bool enum_ok(const char *path, const qr_tool_param *p, const char *v)
{
    size_t n = 0;
    while (p->enum_values[n])
        if (!strcmp(p->enum_values[n++], v))
            return true;
    qr_buf b;
    qr_buf_init(&b);
    for (size_t k = 0; k < n; k++)
        qr_buf_printf(&b, "%s%s", k == 0 ? "" : k + 1 == n ? " or " : ", ", p->enum_values[k]);
    cli_usage_error(path, "unknown %s '%.100s': expected %s", p->name, v, b.p ? b.p : "");
    qr_buf_release(&b);
    return false;
}

/* "--NAME=VALUE" in a */
static char *option_word(qr_arena *a, const char *name, const char *value)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_printf(&b, "--%s=%s", name, value);
    char *s = qr_arena_strndup(a, b.p ? b.p : "", b.len);
    qr_buf_release(&b);
    return s;
}

static int run_parsed(const cli_command *c, const char *path, int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (is_help(argv[i])) {
            cli_command_help(c, path, stdout);
            return EXIT_OK;
        }
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_buf err;
    qr_buf_init(&err);
    char **flags = calloc((size_t)argc + 1, sizeof *flags);
    int nflags = 0, st = EXIT_USAGE;
    size_t npos = 0;
    qr_mapb pos;
    qr_mapb_init(&pos, &a, 4);
    bool dashdash = false;
    if (!flags)
        goto done;
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i];
        if (!dashdash && !strcmp(w, "--")) {
            dashdash = true;
            continue;
        }
        if (!dashdash && w[0] == '-' && w[1]) {
            const qr_tool_param *p = w[1] == '-' ? find_param(c, w + 2) : NULL;
            for (size_t k = 0; !p && w[1] != '-' && c->shorts && c->shorts[k]; k += 2)
                if (!strcmp(c->shorts[k], w))
                    p = find_param(c, c->shorts[k + 1]);
            if (p && c->rest && !strcmp(p->name, c->rest)) {
                if (i + 1 >= argc) {
                    cli_usage_error(path, "--%s needs at least one file", p->name);
                    goto done;
                }
                while (++i < argc)
                    flags[nflags++] = option_word(&a, p->name, argv[i]);
                break;
            }
            if (!p) {
                cli_unknown_option(path, w);
                goto done;
            }
            const char *eq = strchr(w, '=');
            qr_buf b;
            qr_buf_init(&b);
            bool bare = eq || (p->type == QR_TOOL_BOOLEAN &&
                               !(i + 1 < argc && (!strcmp(argv[i + 1], "true") ||
                                                  !strcmp(argv[i + 1], "false"))));
            if (bare && w[1] == '-') {
                qr_buf_puts(&b, w);
            } else if (bare) { /* a short option stands for its parameter */
                qr_buf_printf(&b, "--%s%s", p->name, eq ? eq : "");
            } else {
                if (i + 1 >= argc) {
                    cli_usage_error(path, "option '%s' needs a value", w);
                    goto done;
                }
                const char *v = argv[++i];
                if (p->enum_values && p->type == QR_TOOL_STRING && !enum_ok(path, p, v))
                    goto done;
                if (p->type == QR_TOOL_ARRAY && p->items == QR_TOOL_STRING) {
                    /* one item a flag, repeated for more: a comma is no separator */
                    qr_buf_printf(&b, "--%s=[", p->name);
                    qr_buf_json_string(&b, v, strlen(v));
                    qr_buf_putc(&b, ']');
                } else {
                    qr_buf_printf(&b, "--%s=%s", p->name, v);
                }
            }
            flags[nflags++] = qr_arena_strndup(&a, b.p ? b.p : "", b.len);
            qr_buf_release(&b);
            continue;
        }
        const char *name = c->positional ? c->positional[npos] : NULL;
        if (!name) {
            if (c->too_many)
                cli_usage_error(path, "%s", c->too_many);
            else
                cli_usage_error(path, "unexpected argument '%.100s'", w);
            goto done;
        }
        const qr_tool_param *pp = NULL;
        for (size_t k = 0; c->params[k].name && !pp; k++)
            if (!strcmp(c->params[k].name, name))
                pp = &c->params[k];
        if (pp && pp->type == QR_TOOL_ARRAY) {
            /* an array takes every word from here on, each as one item (a JSON array,
             * so that a comma in a file name is no separator) */
            qr_buf b;
            qr_buf_init(&b);
            qr_buf_printf(&b, "--%s=[", name);
            qr_buf_json_string(&b, w, strlen(w));
            qr_buf_putc(&b, ']');
            flags[nflags++] = qr_arena_strndup(&a, b.p ? b.p : "", b.len);
            qr_buf_release(&b);
            continue;
        }
        npos++;
        qr_mapb_put(&pos, qr_str_cstr(&a, name), qr_str_cstr(&a, w));
    }
    qr_tool t = {.name = path, .summary = c->summary, .params = c->params};
    qr_val raw, norm;
    int rc = qr_tool_parse_argv(&t, nflags, flags, qr_mapb_finish(&pos, QR_T_MAP), &a, &raw, &err);
    if (rc == QR_OK)
        rc = qr_tool_validate(&t, raw, &a, &norm, &err);
    if (rc != QR_OK) {
        cli_usage_error(path, "%s", unprefix(err.p ? err.p : "bad arguments"));
        goto done;
    }
    cli_args args = {.cmd = c, .path = path, .map = norm, .a = &a, .req = cli_req()};
    if (c->flags & CLI_CMD_NEEDS_REPO)
        args.repo = cli_arg_str(&args, "repo", NULL);
    if (c->flags & CLI_CMD_NEEDS_STORE)
        args.store = cli_arg_str(&args, "store", getenv("QUARRY_MEMORY"));
    const char *fmt = cli_arg_str(&args, "format", NULL);
    int f = fmt ? cli_parse_format(fmt) : -1;
    args.fmt = f < 0 ? FMT_DEFAULT : (cli_format)f;
    st = c->run(&args);
done:
    free(flags);
    qr_buf_release(&err);
    qr_arena_release(&a);
    return st;
}

/* Runs record c, reached by the words of path, on argv (argv[0] is c's name). */
static int run_record(const cli_command *c, const char *path, int argc, char **argv)
{
    if (c->own)
        return c->own(argc, argv);
    if (c->subs && !c->run) {
        if (argc < 2 || is_help(argv[1]) || !strcmp(argv[1], "help")) {
            cli_command_help(c, path, argc < 2 ? stderr : stdout);
            return argc < 2 ? EXIT_USAGE : EXIT_OK;
        }
        if (argv[1][0] == '-') {
            cli_unknown_option(path, argv[1]);
            return EXIT_USAGE;
        }
        const cli_command *s = find_in(c->subs, argv[1], strlen(argv[1]));
        if (!s) {
            unknown_word(path, "subcommand", argv[1], c->subs);
            return EXIT_USAGE;
        }
        char sub[128];
        snprintf(sub, sizeof sub, "%s %s", path, s->name);
        return run_record(s, sub, argc - 1, argv + 1);
    }
    return run_parsed(c, path, argc, argv);
}

int cli_command_dispatch(int argc, char **argv)
{
    const cli_command *c = find_in(cli_commands, argv[0], strlen(argv[0]));
    if (!c) {
        const char *names[64];
        size_t n = 0;
        for (size_t i = 0; cli_commands[i].name && n < 64; i++)
            names[n++] = cli_commands[i].name;
        const char *s = cli_closest(argv[0], names, n);
        char msg[300];
        snprintf(msg, sizeof msg, "unknown command '%.100s'%s%s%s; see 'quarry --help'", argv[0],
                 s ? " (did you mean '" : "", s ? s : "", s ? "'?)" : "");
        cli_usage_plain(msg);
        return EXIT_USAGE;
    }
    /* a pinned clock that cannot be read stops every command, rather than letting the
     * real clock answer in its place */
    char clock_err[QR_DATE_ERR_LEN];
    if (qr_clock_check(clock_err, sizeof clock_err) != QR_OK) {
        fprintf(stderr, "quarry: %s\n", clock_err);
        return EXIT_USAGE;
    }
    return run_record(c, c->name, argc, argv);
}

/* ---- argument accessors ---- */

static qr_val arg(const cli_args *args, const char *name)
{
    qr_val v = qr_nil();
    if (!qr_map_get(args->map, qr_kw_cstr(args->a, name), &v))
        return qr_nil();
    return v;
}

const char *cli_arg_str(const cli_args *args, const char *name, const char *fallback)
{
    qr_val v = arg(args, name);
    if (v.t != QR_T_STR)
        return fallback;
    return qr_arena_strndup(args->a, v.s->data, v.s->len);
}

bool cli_arg_bool(const cli_args *args, const char *name)
{
    qr_val v = arg(args, name);
    return v.t == QR_T_BOOL && v.b;
}

int64_t cli_arg_int(const cli_args *args, const char *name, int64_t fallback)
{
    qr_val v = arg(args, name);
    return v.t == QR_T_INT ? v.i : fallback;
}

const char **cli_arg_strs(const cli_args *args, const char *name, size_t *n)
{
    qr_val v = arg(args, name);
    size_t len = qr_is_seqcoll(v) ? qr_vec_len(v) : 0;
    const char **out = qr_arena_alloc(args->a, (len + 1) * sizeof *out);
    *n = 0;
    for (size_t i = 0; out && i < len; i++) {
        qr_val s = qr_vec_at(v, i);
        if (s.t == QR_T_STR)
            out[(*n)++] = qr_arena_strndup(args->a, s.s->data, s.s->len);
    }
    return out;
}

/* ---- man pages ---- */

/* Writes s as roff text: backslashes escaped, a line that starts with . or ' guarded. */
static void roff(FILE *f, const char *s)
{
    bool bol = true;
    for (; *s; s++) {
        if (bol && (*s == '.' || *s == '\''))
            fputs("\\&", f);
        if (*s == '\\')
            fputs("\\e", f);
        else
            fputc(*s, f);
        bol = *s == '\n';
    }
}

static void man_line(FILE *f, const qr_tool_param *p, const char *label)
{
    fputs(".TP\n.B ", f);
    roff(f, label);
    fputc('\n', f);
    roff(f, p->desc ? p->desc : "");
    fputc('\n', f);
}

/* The man page of record c at path (NULL: quarry's own page, listing the commands). */
static void man_page(FILE *f, const cli_command *c, const char *path)
{
    char title[160];
    snprintf(title, sizeof title, "%s%s", path ? "QUARRY-" : "QUARRY", path ? path : "");
    for (char *t = title; *t; t++)
        *t = *t == ' ' ? '-' : (char)(*t >= 'a' && *t <= 'z' ? *t - 32 : *t);
    fprintf(f, ".TH %s 1 \"\" \"quarry %s\" \"quarry manual\"\n.SH NAME\n", title, QR_VERSION);
    if (!c) {
        fputs("quarry \\- ask questions of a repository's history, its code and an agent's "
              "memory\n.SH SYNOPSIS\n.nf\nquarry COMMAND [OPTIONS]\n.fi\n.SH COMMANDS\n",
              f);
        for (size_t i = 0; cli_commands[i].name; i++) {
            fprintf(f, ".TP\n.B quarry %s\n", cli_commands[i].name);
            roff(f, cli_commands[i].summary);
            fprintf(f, " (quarry-%s(1))\n", cli_commands[i].name);
        }
        fputs(".SH DESCRIPTION\n.nf\n", f);
        char *text = NULL;
        size_t n = 0;
        FILE *m = open_memstream(&text, &n);
        if (m) {
            cli_overview(m);
            fclose(m);
            roff(f, text ? text : "");
            free(text);
        }
        fputs(".fi\n", f);
        return;
    }
    char name[160];
    snprintf(name, sizeof name, "quarry-%s", path);
    for (char *t = name; *t; t++)
        if (*t == ' ')
            *t = '-';
    fprintf(f, "%s \\- ", name);
    roff(f, c->summary);
    fputs("\n.SH SYNOPSIS\n.nf\n", f);
    roff(f, c->usage);
    fputs("\n.fi\n.SH DESCRIPTION\n.nf\n", f);
    char *text = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&text, &n);
    if (m) {
        if (c->page || c->page_fn || c->run || c->subs) /* as `described` below */
            cli_command_help(c, path, m);
        else
            fprintf(m, "%s\n", c->summary);
        fclose(m);
        /* the synopsis is above: leave out the help's usage lines */
        const char *t = text ? text : "";
        if (!strncmp(t, "usage:", 6)) {
            do
                t += strcspn(t, "\n") + (t[strcspn(t, "\n")] != '\0');
            while (!strncmp(t, "       ", 7));
            if (*t == '\n')
                t++;
        }
        roff(f, t);
        free(text);
    }
    fputs(".fi\n", f);
    /* a help (generated or hand-written) lists the options; else they are listed here */
    bool described = c->page || c->page_fn || c->run || c->subs;
    if (c->params && !described) {
        fputs(".SH OPTIONS\n", f);
        each_option(c, man_line, f);
    }
    if (c->subs) {
        fputs(".SH SUBCOMMANDS\n", f);
        for (size_t i = 0; c->subs[i].name; i++) {
            fprintf(f, ".TP\n.B quarry %s %s\n", path, c->subs[i].name);
            roff(f, c->subs[i].summary);
            fputc('\n', f);
        }
    }
    fputs(".SH SEE ALSO\nquarry(1)\n", f);
}

/* ---- quarry help ---- */

static void json_str(qr_buf *b, const char *s)
{
    qr_buf_json_string(b, s ? s : "", s ? strlen(s) : 0);
}

/* One entry per record, depth first: {path, summary, parsed, options, positional,
 * subcommands}. */
static void list_json(qr_buf *b, const cli_command *v, const char *prefix, bool *first)
{
    for (size_t i = 0; v && v[i].name; i++) {
        const cli_command *c = &v[i];
        char path[128];
        snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? " " : "", c->name);
        qr_buf_puts(b, *first ? "[\n" : ",\n");
        *first = false;
        qr_buf_puts(b, "{\"path\":");
        json_str(b, path);
        qr_buf_puts(b, ",\"summary\":");
        json_str(b, c->summary);
        qr_buf_printf(b, ",\"parsed\":%s,\"options\":[", c->run ? "true" : "false");
        bool any = false;
        for (size_t k = 0; c->params && c->params[k].name; k++) {
            const qr_tool_param *p = &c->params[k];
            if (is_positional(c, p))
                continue;
            qr_buf_printf(b, "%s{\"name\":", any ? "," : "");
            any = true;
            qr_buf_puts(b, "\"--");
            qr_buf_puts(b, p->name);
            qr_buf_printf(b, "\",\"type\":\"%s\",\"values\":[", qr_tool_type_name(p->type));
            for (size_t e = 0; p->enum_values && p->enum_values[e]; e++) {
                qr_buf_puts(b, e ? "," : "");
                json_str(b, p->enum_values[e]);
            }
            qr_buf_puts(b, "]}");
        }
        qr_buf_puts(b, "],\"subcommands\":[");
        for (size_t k = 0; c->subs && c->subs[k].name; k++) {
            qr_buf_puts(b, k ? "," : "");
            json_str(b, c->subs[k].name);
        }
        qr_buf_puts(b, "]}");
        list_json(b, c->subs, path, first);
    }
}

int cli_cmd_help(const cli_args *args)
{
    if (cli_arg_bool(args, "commands")) {
        /* the command table, for the man pages and shell completions `make install`
         * generates: NAME, a tab, the summary */
        for (size_t i = 0; cli_commands[i].name; i++)
            printf("%s\t%s\n", cli_commands[i].name, cli_commands[i].summary);
        return EXIT_OK;
    }
    if (cli_arg_bool(args, "json")) {
        qr_buf b;
        qr_buf_init(&b);
        bool first = true;
        list_json(&b, cli_commands, "", &first);
        qr_buf_puts(&b, first ? "[]\n" : "\n]\n");
        fwrite(b.p, 1, b.len, stdout);
        qr_buf_release(&b);
        return EXIT_OK;
    }
    const char *name = cli_arg_str(args, "command", NULL);
    if (cli_arg_bool(args, "man")) {
        const char *sub = cli_arg_str(args, "subcommand", NULL);
        char path[128];
        snprintf(path, sizeof path, "%s%s%s", name ? name : "", sub ? " " : "", sub ? sub : "");
        const cli_command *c = name ? cli_command_find(path) : NULL;
        if (name && !c) {
            unknown_word("help", "command", path, cli_commands);
            return EXIT_USAGE;
        }
        man_page(stdout, c, name ? path : NULL);
        return EXIT_OK;
    }
    if (name) {
        const cli_command *c = find_in(cli_commands, name, strlen(name));
        if (!c) {
            unknown_word("help", "command", name, cli_commands);
            return EXIT_USAGE;
        }
        const char *sub = cli_arg_str(args, "subcommand", NULL);
        char *av[] = {(char *)name, (char *)sub, "--help", NULL};
        if (!sub) {
            av[1] = "--help";
            av[2] = NULL;
        }
        return run_record(c, c->name, sub ? 3 : 2, av);
    }
    cli_overview(stdout);
    return EXIT_OK;
}

/* ---- quarry complete ---- */

static void offer(const char *cand, const char *cur)
{
    if (!strncmp(cand, cur, strlen(cur)))
        printf("%s\n", cand);
}

int cli_cmd_complete(int argc, char **argv)
{
    /* argv: "complete", then the words after "quarry", the last one the word being
     * completed (possibly empty) */
    if (argc >= 2 && is_help(argv[1])) {
        printf("usage: quarry complete WORD... CURRENT\n\n"
               "Prints the candidates for the last word of 'quarry WORD... CURRENT', one a\n"
               "line: commands, subcommands, the options the command accepts, the values of\n"
               "an option that has a fixed set. Shell completion scripts call it.\n");
        return EXIT_OK;
    }
    int n = argc - 1;
    char **w = argv + 1;
    const char *cur = n > 0 ? w[n - 1] : "";
    if (n <= 1) {
        for (size_t i = 0; cli_commands[i].name; i++)
            offer(cli_commands[i].name, cur);
        offer("--help", cur);
        offer("--version", cur);
        return EXIT_OK;
    }
    const cli_command *c = find_in(cli_commands, w[0], strlen(w[0]));
    int i = 1;
    for (; c && c->subs && i < n - 1; i++) {
        const cli_command *s = find_in(c->subs, w[i], strlen(w[i]));
        if (!s)
            break;
        c = s;
    }
    if (!c)
        return EXIT_OK;
    const char *prev = w[n - 2];
    const qr_tool_param *pp = !strncmp(prev, "--", 2) && !strchr(prev, '=')
                                  ? find_param(c, prev + 2)
                                  : NULL;
    if (pp && pp->type != QR_TOOL_BOOLEAN) {
        for (size_t k = 0; pp->enum_values && pp->enum_values[k]; k++)
            offer(pp->enum_values[k], cur);
        return EXIT_OK;
    }
    if (cur[0] == '-') {
        for (size_t k = 0; c->params && c->params[k].name; k++) {
            if (is_positional(c, &c->params[k]))
                continue;
            char o[80];
            snprintf(o, sizeof o, "--%s", c->params[k].name);
            offer(o, cur);
        }
        offer("--help", cur);
        return EXIT_OK;
    }
    if (c->subs && i == n - 1)
        for (size_t k = 0; c->subs[k].name; k++)
            offer(c->subs[k].name, cur);
    return EXIT_OK;
}
