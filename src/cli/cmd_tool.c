/*
 * cmd_tool.c: `quarry tool NAME --PARAM VALUE ...`: calls one tool from the command line
 * and prints its result (JSON when stdout is not a terminal, a table when it is, or EDN
 * or JSON on request).
 *
 * Design: the words after NAME are typed by the tool's record (qr_tool_parse_argv), then
 * checked and run by the same path as (tool/NAME {...}) in the Lisp and a model's call
 * (qr_tools_prepare, qr_tools_invoke), so the three cannot disagree about what is valid.
 * quarry's own options (--format, --limit-output, --args, --repo, --no-index, --help) are
 * taken wherever they appear before a `--`; every flag after `--` belongs to the tool, for
 * a tool that has a parameter with one of those names. The handlers get a host
 * (quarry/host.h) for --repo, which opens the repository on the first call; bad input a
 * handler finds (not a repository, an unknown ref) exits 2 like a bad parameter. A vector
 * result printed to a terminal is cut to 50 rows (--limit-output) with a line saying how
 * many were left out: on stdout under a table, on stderr otherwise so that stdout stays
 * one JSON or EDN document. On a pipe every row is printed unless --limit-output is given:
 * a script must not take 50 rows for the whole window.
 *
 * Rejected: positional parameters (names are what the schemas, the docs and models use);
 * printing a cut result without saying so (a reader would take 50 rows for all of them).
 */
#include "cli.h"
#include "quarry/turn.h"

#include "quarry/host.h"
#include "quarry/mcp.h"
#include "quarry/tools.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: quarry tool NAME [--PARAM VALUE ...] [OPTIONS] [-- --PARAM VALUE ...]\n"
    "\n"
    "Calls one tool with parameters given as flags, checks them against the tool's\n"
    "schema (as (tool/NAME {...}) in a Lisp program does), and prints the result.\n"
    "'quarry tools' lists the tools; 'quarry tool NAME --help' shows one.\n"
    "\n"
    "parameter values, by the parameter's type:\n"
    "  string           as given\n"
    "  integer, number  decimal numbers: --limit 10\n"
    "  boolean          true or false; a bare --flag means true\n"
    "  array            comma-separated (--paths a.c,b.c), repeated flags (which add\n"
    "                   items), or a JSON array (--paths '[\"a,b.c\"]')\n"
    "  object           JSON or EDN: --filter '{\"author\": \"ann\"}'\n"
    "  '-' and '_' are the same in flag names; --name=value works too.\n"
    "\n"
    "options:\n"
    "  --args MAP            all parameters as one JSON or EDN map (flags override keys);\n"
    "                        '-' reads it from stdin, as a model's call was made\n"
    "  --format edn|json|table\n"
    "                        how to print the result (default: table on a terminal,\n"
    "                        JSON otherwise)\n"
    "  --limit-output N      rows of a vector result to print (default: 50 on a\n"
    "                        terminal, all on a pipe or into a file; 0: all)\n"
    "  --trace FILE          write the call's model turns as JSON lines (docs/trace.md)\n"
    "  --repo DIR            the repository (default: the one containing the working\n"
    "                        directory)\n"
    "  --no-index            compute git statistics without reading or writing the\n"
    "                        statistics index\n"
    "  --                    the flags after it are all tool parameters\n"
    "\n"
    "exit status: 0 success, 1 the tool ran and failed, 2 an unknown tool, a bad\n"
    "parameter or bad input the tool found (not a repository, an unknown ref, a date\n"
    "it cannot read); errors are one line on stderr (a JSON object with --format json).\n";

static void print_tool_names(const qr_tools *r)
{
    size_t n = qr_tools_count(r), shown = 0;
    for (size_t i = 0; i < n; i++) {
        const qr_tool *t = qr_tools_at(r, i);
        if (!qr_tools_usable(r, t))
            continue;
        printf("%s%s", shown++ ? ", " : "\ntools: ", t->name);
    }
    /* the MCP server's own tools, which `quarry tool` replays too */
    const char *last = NULL;
    for (const qr_tool *const *o = qr_mcp_own_tools; *o; o++)
        if (!last || strcmp(last, (*o)->name)) /* dwim has two records */
            printf("%s%s", shown++ ? ", " : "\ntools: ", last = (*o)->name);
    printf(shown ? "\n" : "\nno tools are registered\n");
}

static bool tool_has_param(const qr_tool *t, const char *name)
{
    for (const qr_tool_param *p = t->params; p && p->name; p++)
        if (!strcmp(p->name, name))
            return true;
    return false;
}

static void tool_help(const qr_tool *t)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_printf(&b, "usage: quarry tool %s [--PARAM VALUE ...] [OPTIONS]\n\n", t->name);
    qr_tool_describe(t, &b);
    qr_buf_puts(&b, "\nOPTIONS and value syntax: see 'quarry tool --help'.\n");
    fwrite(b.p, 1, b.len, stdout);
    qr_buf_release(&b);
}

/* Reads --args text (JSON, else one EDN form) as a map. */
static int read_args_map(qr_arena *a, const char *text, qr_val *out, cli_format fmt)
{
    size_t n = strlen(text);
    qr_read_error e;
    qr_val forms;
    if (qr_json_read(a, text, n, out, &e) != QR_OK) {
        qr_read_error e2;
        if (qr_read_all(a, text, n, QR_READ_EDN, &forms, &e2) != QR_OK || qr_vec_len(forms) != 1) {
            char msg[400];
            snprintf(msg, sizeof msg, "--args is neither JSON nor EDN: at %u:%u: %s", e.line, e.col,
                     e.msg);
            cli_error(fmt, "usage", 0, 0, msg);
            return EXIT_USAGE;
        }
        *out = qr_vec_at(forms, 0);
    }
    if (out->t != QR_T_MAP) {
        char msg[200];
        snprintf(msg, sizeof msg, "--args must be a map (JSON object), got %s",
                 qr_type_name((qr_type)out->t));
        cli_error(fmt, "usage", 0, 0, msg);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

static void print_result(qr_val v, cli_format fmt, size_t omitted, const char *const *keys)
{
    qr_buf b;
    qr_buf_init(&b);
    if (fmt == FMT_JSON) {
        qr_print_json(&b, v, false);
        qr_buf_putc(&b, '\n');
    } else if (fmt == FMT_EDN) {
        qr_print(&b, v, QR_PRINT_READABLY);
        qr_buf_putc(&b, '\n');
    } else {
        qr_arena a;
        qr_arena_init(&a, 0);
        qr_val rows;
        if (v.t == QR_T_MAP && qr_map_get(v, qr_kw_cstr(&a, "results"), &rows) &&
            rows.t == QR_T_VEC) {
            /* a paged answer (query_codebase): its rows as the table, then the rest */
            qr_tools_render_table_keys(&b, rows, cli_table_width(), keys);
            qr_val rest = qr_map_dissoc(&a, v, qr_kw_cstr(&a, "results"));
            if (qr_map_len(rest)) {
                qr_buf_putc(&b, '\n');
                qr_tools_render_table_width(&b, rest, cli_table_width());
            }
        } else {
            /* a source text (get_definition's :text) is printed whole below the table, not
             * squashed into one truncated cell */
            qr_val text;
            qr_val key = qr_kw_cstr(&a, "text");
            if (v.t == QR_T_MAP && qr_map_get(v, key, &text) && text.t == QR_T_STR &&
                memchr(text.s->data, '\n', text.s->len)) {
                qr_tools_render_table_keys(&b, qr_map_dissoc(&a, v, key), cli_table_width(),
                                           keys);
                qr_buf_putc(&b, '\n');
                qr_buf_append(&b, text.s->data, text.s->len);
                qr_buf_putc(&b, '\n');
            } else {
                qr_tools_render_table_keys(&b, v, cli_table_width(), keys);
            }
        }
        qr_arena_release(&a);
    }
    char note[160] = "";
    if (omitted)
        snprintf(note, sizeof note,
                 "%zu more row%s left out; --limit-output N shows more, 0 shows all", omitted,
                 omitted == 1 ? "" : "s");
    if (fmt == FMT_TABLE && omitted)
        qr_buf_printf(&b, "(%s)\n", note);
    fwrite(b.p, 1, b.len, stdout);
    fflush(stdout);
    if (fmt != FMT_TABLE && omitted)
        fprintf(stderr, "quarry: %s\n", note);
    qr_buf_release(&b);
}

/* Runs one of the MCP server's own tools (run_lisp, run_query, dwim) as the server runs
 * it, on the repository repo: a person's own command, so everything is allowed (as the
 * registry's tools are here: memory writes, dwim's validate). */
static int run_served(const char *name, qr_val args, const char *repo, bool no_index,
                      qr_arena *a, qr_val *out, qr_buf *err)
{
    qr_mcp_config cfg;
    qr_mcp_config_init(&cfg);
    cfg.workers = 1;
    cfg.repo_dir = repo;
    cfg.no_index = no_index;
    cfg.allow_write_memory = true;
    cfg.allow_exec = true;
    cfg.max_rows = 0; /* the CLI pages the result itself (--limit-output) */
    cfg.version = QR_VERSION;
    qr_mcp_server *s;
    int rc = qr_mcp_server_new(&cfg, &s, err);
    if (rc != QR_OK)
        return rc;
    rc = qr_mcp_call(s, name, args, cli_req(), a, out, err);
    qr_mcp_server_free(s);
    return rc;
}

int cmd_tool(int argc, char **argv)
{
    cli_format fmt = FMT_DEFAULT;
    const char *name = NULL, *args_text = NULL, *repo = NULL, *trace = NULL;
    bool help = false, no_index = false;
    /* rows printed: on a terminal the first 50, on a pipe or into a file all of them
     * (a script gets the whole window), unless --limit-output says */
    uint64_t limit = isatty(1) ? QR_TOOLS_OUTPUT_ROWS : 0;
    /* the words that belong to the tool, in order */
    char **targs = calloc((size_t)argc + 1, sizeof *targs);
    int ntargs = 0;
    if (!targs) {
        fprintf(stderr, "quarry: out of memory\n");
        return EXIT_FAILED;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            while (++i < argc)
                targs[ntargs++] = argv[i];
            break;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            help = true;
            continue;
        }
        if (!strcmp(a, "--no-index")) {
            no_index = true;
            continue;
        }
        bool takes = !strcmp(a, "--format") || !strcmp(a, "--limit-output") ||
                     !strcmp(a, "--args") || !strcmp(a, "--repo") || !strcmp(a, "--trace");
        if (takes) {
            if (i + 1 >= argc) {
                cli_usage_error("tool", "option '%s' needs a value", a);
                free(targs);
                return EXIT_USAGE;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "--format")) {
                int f = cli_parse_format(v);
                if (f < 0) {
                    cli_usage_error("tool", "unknown format '%s': expected edn, json or table", v);
                    free(targs);
                    return EXIT_USAGE;
                }
                fmt = (cli_format)f;
            } else if (!strcmp(a, "--limit-output")) {
                if (!cli_parse_u64(v, &limit)) {
                    cli_usage_error("tool", "bad --limit-output '%s': expected a row count", v);
                    free(targs);
                    return EXIT_USAGE;
                }
            } else if (!strcmp(a, "--args")) {
                args_text = v;
            } else if (!strcmp(a, "--trace")) {
                trace = v;
            } else {
                repo = v;
            }
            continue;
        }
        if (!name && a[0] == '-') {
            cli_usage_error("tool", "give the tool's NAME before its parameters ('%s')", a);
            free(targs);
            return EXIT_USAGE;
        }
        if (!name) {
            name = a;
            continue;
        }
        targs[ntargs++] = argv[i];
    }
    if (!name && !help) {
        cli_usage_error("tool", "which tool? give its NAME ('quarry tools' lists them)");
        free(targs);
        return EXIT_USAGE;
    }
    qr_tools *reg = qr_tools_default();
    if (!reg) {
        fprintf(stderr, "quarry: out of memory\n");
        free(targs);
        return EXIT_FAILED;
    }
    int status = EXIT_OK;
    qr_host host;
    qr_host_init(&host, repo);
    host.git.no_index = no_index;
    host.git.warn = cli_warn;
    host.git.progress = cli_progress;
    host.code.progress = cli_progress;
    /* a person at the terminal names their own files: memory_query's `store` may be any
     * store here (a program's call may name only the configured one; docs/decisions.md) */
    host.mem.any_store = true;
    qr_tools_set_ctx(reg, &host);
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_buf err;
    qr_buf_init(&err);
    const qr_tool *t = name ? qr_tools_find(reg, name, strlen(name)) : NULL;
    /* the MCP server's own tools (run_lisp, run_query, dwim), so that every tool of an
     * export can be replayed here: they run through the server's own call path */
    bool served = false;
    for (const qr_tool *const *o = qr_mcp_own_tools; name && !t && *o; o++)
        if (!strcmp((*o)->name, name))
            t = *o, served = true;
    if (help && !t) {
        fputs(usage, stdout);
        print_tool_names(reg);
        goto done;
    }
    if (!t) {
        qr_tools_explain_unknown(reg, name, &err);
        const char *last = NULL;
        for (const qr_tool *const *o = qr_mcp_own_tools; *o; o++)
            if (!last || strcmp(last, (*o)->name))
                qr_buf_printf(&err, ", %s", last = (*o)->name);
        cli_error(fmt, "usage", 0, 0, err.p ? err.p : "unknown tool");
        status = EXIT_USAGE;
        goto done;
    }
    if (help) {
        tool_help(t);
        goto done;
    }
    qr_val base = qr_nil(), args, norm, out;
    char *stdin_args = NULL;
    if (args_text && !strcmp(args_text, "-")) {
        /* a model's call replayed as it was made: its arguments as JSON on stdin */
        size_t len;
        if (qr_read_file("-", 16u << 20, &stdin_args, &len) != QR_OK) {
            cli_error(fmt, "usage", 0, 0, "--args -: cannot read the arguments from stdin");
            status = EXIT_USAGE;
            goto done;
        }
        args_text = stdin_args;
    }
    if (args_text)
        status = read_args_map(&a, args_text, &base, fmt);
    free(stdin_args);
    if (status != EXIT_OK)
        goto done;
    int rc = qr_tool_parse_argv(t, ntargs, targs, base, &a, &args, &err);
    /* a call replayed from an MCP client may carry the server's own arguments: `repo`
     * (which repository) and `offset` (which page) */
    size_t offset = 0;
    if (rc == QR_OK && args.t == QR_T_MAP) {
        qr_val v; /* qr_map_lookup finds a string key as well as a keyword */
        if (!tool_has_param(t, "repo") && qr_map_lookup(args, qr_kw_cstr(&a, "repo"), &v)) {
            if (v.t == QR_T_STR && !repo)
                host.git.repo_dir = v.s->data;
            args = qr_map_dissoc(&a, qr_map_dissoc(&a, args, qr_kw_cstr(&a, "repo")),
                                 qr_str_cstr(&a, "repo"));
        }
        if (!tool_has_param(t, "offset") && qr_map_lookup(args, qr_kw_cstr(&a, "offset"), &v)) {
            if (!qr_is_nil(v) && (v.t != QR_T_INT || v.i < 0)) {
                qr_buf_puts(&err, "'offset' must be a non-negative integer (the next_offset "
                                  "of the previous page)");
                rc = QR_EINVAL;
            }
            offset = v.t == QR_T_INT && v.i > 0 ? (size_t)v.i : 0;
            args = qr_map_dissoc(&a, qr_map_dissoc(&a, args, qr_kw_cstr(&a, "offset")),
                                 qr_str_cstr(&a, "offset"));
        }
    }
    if (rc == QR_OK && served) {
        rc = run_served(t->name, args, host.git.repo_dir, no_index, &a, &out, &err);
        if (rc != QR_OK) {
            cli_error(fmt, rc == QR_EINVAL ? "usage" : "tool-error", 0, 0,
                      err.p ? err.p : "failed");
            status = rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
            goto done;
        }
        goto print;
    }
    if (rc == QR_OK)
        rc = qr_tools_prepare(reg, t->name, args, &a, &t, &norm, &err);
    if (rc != QR_OK) {
        cli_error(fmt, rc == QR_EINVAL ? "usage" : "error", 0, 0, err.p ? err.p : "failed");
        status = rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
        goto done;
    }
    /* --trace FILE: the model turns of the call (search_codebase), docs/trace.md */
    qr_trace *tf = NULL;
    if (trace) {
        qr_buf terr;
        qr_buf_init(&terr);
        if (!(tf = qr_trace_open(trace, &terr))) {
            cli_error(fmt, "usage", 0, 0, terr.p ? terr.p : "cannot write the trace file");
            qr_buf_release(&terr);
            status = EXIT_USAGE;
            goto done;
        }
        qr_buf_release(&terr);
        qr_trace_bind(cli_req(), tf);
    }
    rc = qr_tools_invoke(reg, t, cli_req(), norm, &a, &out, &err);
    if (tf) {
        qr_trace_unbind(cli_req());
        qr_trace_end(tf, "tool", rc == QR_OK, rc == QR_OK ? NULL : err.p ? err.p : "failed");
        qr_trace_free(tf);
    }
    if (rc != QR_OK) {
        /* bad input the handler found (not a repository, an unknown ref, a date it cannot
         * read) is bad usage like a bad parameter */
        cli_error(fmt, rc == QR_EINVAL ? "usage" : "tool-error", 0, 0, err.p ? err.p : "failed");
        status = rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
        goto done;
    }
print:
    if (fmt == FMT_DEFAULT)
        fmt = isatty(1) ? FMT_TABLE : FMT_JSON;
    qr_tools_page pg;
    out = qr_tools_page_of(&a, out, offset, (size_t)limit, &pg);
    print_result(out, fmt, pg.next ? pg.total - pg.next : 0, t->columns);
done:
    qr_buf_release(&err);
    qr_arena_release(&a);
    qr_host_release(&host);
    qr_tools_free(reg);
    free(targs);
    return status;
}
