/*
 * cmd_query.c: `quarry query 'DSL' | -`: validates a query (EDN or JSON), compiles it to
 * Lisp and runs the program in the sandbox against the repository (--repo), with an
 * optional context (--data FILE: earlier steps' data as data/NAME, their resolved values
 * under "resolved"). Prints the :return map: on a terminal a summary line, then the
 * findings as a table, then the other keys; otherwise JSON (or --format edn|json|table).
 * Also the helpers `quarry compile` shares: reading the query text and the context, and
 * printing a query's problems.
 *
 * Errors: an invalid query exits 2 with one line per problem on stderr ("quarry:
 * invalid-query: PATH: ...") or, with --format json, one JSON object whose "problems"
 * are data; a query that ran and failed exits 1 and names the step whose code failed.
 *
 * Rejected: printing the compiled program on every run (`quarry compile` does that);
 * cutting JSON output to 50 rows as `quarry tool` does (the query itself says how many
 * it wants with :take; only the table a person reads is cut).
 */
#include "command.h"

#include "quarry/host.h"
#include "quarry/query.h"
#include "quarry/tools.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char cli_query_page[] =
    "usage: quarry query 'QUERY' | - [OPTIONS]\n"
    "\n"
    "Validates a query written in the query DSL (EDN or JSON), compiles it to PTC-Lisp\n"
    "and runs it in the sandbox; prints what its :return says. With '-' or no QUERY the\n"
    "query is read from stdin. docs/query.md describes the language.\n"
    "\n"
    "  {:fetch [{:tool :get_commits :as :commits :params {:since \"1 week ago\"}}]\n"
    "   :transform [{:op :filter :on :commits :as :large :where [:> :files 5]}]\n"
    "   :return {:findings :large :summary \"{{count:large}} large commits\"}}\n"
    "\n"
    "options:\n"
    "  --data FILE           the context (JSON or EDN map): names the query may use as\n"
    "                        bindings, and \"resolved\" values for {{resolved:key}}\n"
    "  --format edn|json|table\n"
    "                        how to print the result (default: table on a terminal, else\n"
    "                        JSON); errors are JSON too with --format json\n"
    "  --limit-output N      rows of findings a table shows (default 50; 0: all)\n"
    "  --repo DIR            the repository (default: the one containing the working\n"
    "                        directory)\n"
    "  --store FILE          the memory store memory_query reads (default:\n"
    "                        $QUARRY_MEMORY); a program may name no other store\n"
    "  --no-index            compute git statistics without the index\n"
    "  --timeout-ms N        wall time limit of the program (default 10000)\n"
    "  --max-memory SIZE     memory limit of the program (default 64M)\n"
    "  --max-steps N         evaluation step limit\n"
    "  --max-depth N         call depth limit of the program\n"
    "  --max-output SIZE     println output kept (default 64K)\n"
    "\n"
    "exit status: 0 success, 1 the query ran and failed, 2 bad usage or an invalid query\n"
    "(every problem is reported, each with its path in the query and a hint).\n";

/* ---- shared with cmd_compile.c ---- */

int cli_query_text(const char *cmd, const char *arg, cli_format fmt, char **text, size_t *len)
{
    if (arg && strcmp(arg, "-")) {
        *len = strlen(arg);
        *text = malloc(*len + 1);
        if (!*text) {
            fprintf(stderr, "quarry: out of memory\n");
            return EXIT_FAILED;
        }
        memcpy(*text, arg, *len + 1);
        return EXIT_OK;
    }
    if (!arg && isatty(0)) {
        cli_usage_error(cmd, "give the query as an argument, or '-' to read it from stdin");
        return EXIT_USAGE;
    }
    int rc = qr_read_file("-", QR_QUERY_MAX_TEXT + 1, text, len);
    if (rc != QR_OK) {
        char msg[200];
        snprintf(msg, sizeof msg, "cannot read the query from stdin: %s",
                 rc == QR_EINVAL ? "longer than 1 MiB" : strerror(errno));
        cli_error(fmt, "usage", 0, 0, msg);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int cli_query_data(const char *path, qr_arena *a, qr_arena *strings, cli_format fmt, qr_val *out)
{
    char *text;
    size_t len;
    int rc = qr_read_file(path, 1u << 30, &text, &len);
    if (rc != QR_OK) {
        char msg[300];
        snprintf(msg, sizeof msg, "cannot read data file '%s': %s", path,
                 rc == QR_EINVAL ? "larger than 1 GiB" : strerror(errno));
        cli_error(fmt, "usage", 0, 0, msg);
        return EXIT_USAGE;
    }
    qr_read_error err, err2;
    qr_val forms;
    rc = qr_json_read_split(a, strings, text, len, out, &err);
    if (rc == QR_EINVAL) {
        int rc2 = qr_read_all(a, text, len, QR_READ_EDN, &forms, &err2);
        if (rc2 == QR_OK && qr_vec_len(forms) == 1) {
            *out = qr_vec_at(forms, 0);
            rc = QR_OK;
        } else if (len && (text[0] == ':' || text[0] == '{')) {
            err = err2.line ? err2 : err;
        }
    }
    free(text);
    if (rc != QR_OK) {
        char msg[400];
        snprintf(msg, sizeof msg, "data file '%s' at %u:%u: %s", path, err.line, err.col, err.msg);
        cli_error(fmt, "parse-error", 0, 0, msg);
        return EXIT_USAGE;
    }
    if (out->t != QR_T_MAP) {
        char msg[300];
        snprintf(msg, sizeof msg, "data file '%s' must hold a map (JSON object), got %s", path,
                 qr_type_name((qr_type)out->t));
        cli_error(fmt, "usage", 0, 0, msg);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

void cli_query_problems(const qr_query_compiled *c, cli_format fmt)
{
    qr_buf b;
    qr_buf_init(&b);
    if (fmt == FMT_JSON) {
        qr_buf lines;
        qr_buf_init(&lines);
        qr_query_problems_text(c, &lines);
        const char *first = lines.p ? lines.p : "";
        const char *nl = strchr(first, '\n');
        size_t n = nl ? (size_t)(nl - first) : strlen(first);
        qr_buf msg;
        qr_buf_init(&msg);
        qr_buf_append(&msg, first, n);
        if (c->nproblems > 1)
            qr_buf_printf(&msg, " (and %zu more problem%s)", c->nproblems - 1,
                          c->nproblems == 2 ? "" : "s");
        qr_buf_puts(&b, "{\"error\":{\"kind\":\"invalid-query\",\"message\":");
        qr_buf_json_string(&b, msg.p ? msg.p : "", msg.len);
        qr_buf_puts(&b, ",\"problems\":");
        qr_query_problems_json(c, &b);
        qr_buf_puts(&b, "}}\n");
        qr_buf_release(&msg);
        qr_buf_release(&lines);
    } else {
        qr_buf lines;
        qr_buf_init(&lines);
        qr_query_problems_text(c, &lines);
        for (const char *p = lines.p ? lines.p : ""; *p;) {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            qr_buf_printf(&b, "quarry: invalid-query: %.*s\n", (int)n, p);
            p += n + (nl != NULL);
        }
        qr_buf_release(&lines);
    }
    fputs(b.p ? b.p : "", stderr);
    qr_buf_release(&b);
}

/* ---- output ---- */

static bool map_get_kw(qr_arena *a, qr_val m, const char *k, qr_val *out)
{
    return m.t == QR_T_MAP && qr_map_lookup(m, qr_kw_cstr(a, k), out);
}

static void print_table(qr_arena *a, qr_val v, size_t limit)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_val summary, findings;
    if (v.t != QR_T_MAP) {
        qr_tools_render_table_width(&b, v, cli_table_width());
        fwrite(b.p ? b.p : "", 1, b.len, stdout);
        qr_buf_release(&b);
        return;
    }
    bool has_summary = map_get_kw(a, v, "summary", &summary);
    bool has_findings = map_get_kw(a, v, "findings", &findings);
    if (has_summary) {
        qr_print(&b, summary, QR_PRINT_DISPLAY);
        qr_buf_puts(&b, "\n\n");
    }
    if (has_findings) {
        size_t omitted = 0;
        qr_val shown = qr_tools_cap_output(a, findings, limit, &omitted);
        qr_tools_render_table_width(&b, shown, cli_table_width());
        if (omitted)
            qr_buf_printf(&b,
                          "(%zu more row%s left out; --limit-output N shows more, 0 "
                          "shows all)\n",
                          omitted, omitted == 1 ? "" : "s");
    }
    /* the other keys, as key and value */
    qr_val rest = v;
    if (has_summary)
        rest = qr_map_dissoc(a, rest, qr_kw_cstr(a, "summary"));
    if (has_findings)
        rest = qr_map_dissoc(a, rest, qr_kw_cstr(a, "findings"));
    if (rest.t == QR_T_MAP && qr_map_len(rest)) {
        if (has_findings || has_summary)
            qr_buf_putc(&b, '\n');
        qr_tools_render_table_width(&b, rest, cli_table_width());
    }
    cli_write(&b, stdout);
    qr_buf_release(&b);
}

void cli_print_result(qr_arena *a, qr_val v, cli_format fmt, size_t limit)
{
    if (fmt == FMT_TABLE) {
        print_table(a, v, limit);
        return;
    }
    qr_buf b;
    qr_buf_init(&b);
    if (fmt == FMT_JSON)
        qr_print_json(&b, v, false);
    else
        qr_print(&b, v, QR_PRINT_READABLY);
    qr_buf_putc(&b, '\n');
    cli_write(&b, stdout);
    qr_buf_release(&b);
}

/* A run-time failure, named by the step of the query whose code failed. */
static void runtime_error(const qr_query_compiled *q, const qr_lisp_result *res, cli_format fmt)
{
    const qr_query_step *st = res->line ? qr_query_step_at(q, res->line) : NULL;
    const char *kind = qr_lisp_errkind_name(res->kind);
    qr_buf b;
    qr_buf_init(&b);
    if (fmt == FMT_JSON) {
        qr_buf_puts(&b, "{\"error\":{\"kind\":");
        qr_buf_json_string(&b, kind, strlen(kind));
        qr_buf_puts(&b, ",\"message\":");
        qr_buf_json_string(&b, res->message, strlen(res->message));
        if (st) {
            qr_buf_puts(&b, ",\"at\":");
            qr_buf_json_string(&b, st->path, strlen(st->path));
        }
        qr_buf_puts(&b, "}}\n");
    } else {
        qr_buf_puts(&b, "quarry: ");
        qr_query_describe_failure(q, res, &b);
        qr_buf_putc(&b, '\n');
    }
    fputs(b.p ? b.p : "", stderr);
    qr_buf_release(&b);
}

int cli_cmd_query(const cli_args *args)
{
    const char *qarg = cli_arg_str(args, "query", NULL);
    cli_run_opts ro;
    if (cli_run_opts_from(args, &ro) < 0)
        return EXIT_USAGE;
    cli_format fmt = ro.fmt;
    const char *data = ro.data;
    qr_lisp_limits lim = ro.lim;
    char *text = NULL;
    size_t len = 0;
    int status = cli_query_text("query", qarg, fmt, &text, &len);
    if (status != EXIT_OK)
        return status;
    qr_lisp_session *s = qr_lisp_session_new(&lim);
    qr_tools *tools = qr_tools_default();
    if (!s || !tools) {
        fprintf(stderr, "quarry: out of memory\n");
        qr_lisp_session_free(s);
        qr_tools_free(tools);
        free(text);
        return EXIT_FAILED;
    }
    qr_host host;
    cli_host_init(&host, &ro);
    qr_tools_set_ctx(tools, &host);
    qr_lisp_set_tools(s, qr_tools_lisp_dispatch, tools);
    /* the query runs for the command's request: Ctrl-C stops it and its tools, which also
     * stop at the program's deadline (their time is its time) */
    qr_lisp_set_req(s, cli_req());
    qr_query_compiled q = {0};
    qr_val context = qr_nil();
    if (data) {
        status = cli_query_data(data, qr_lisp_session_arena(s), qr_lisp_session_text_arena(s), fmt,
                                &context);
        if (status != EXIT_OK)
            goto done;
        qr_lisp_set_data(s, context);
    }
    qr_query_opts opts;
    qr_query_opts_init(&opts, tools);
    opts.context = context;
    qr_lisp_result res;
    bool ran;
    qr_buf why;
    qr_buf_init(&why);
    int rc = qr_query_run(s, &opts, text, len, qr_nil(), false, &q, &res, &ran, &why);
    qr_buf_release(&why);
    if (!ran) {
        cli_query_problems(&q, fmt);
        status = rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
        goto done;
    }
    if (res.output_len)
        fwrite(res.output, 1, res.output_len, stderr);
    if (rc != QR_OK) {
        runtime_error(&q, &res, fmt);
        status = EXIT_FAILED;
    } else {
        if (fmt == FMT_DEFAULT)
            fmt = isatty(1) ? FMT_TABLE : FMT_JSON;
        qr_arena scratch;
        qr_arena_init(&scratch, 0);
        cli_print_result(&scratch, res.value, fmt, (size_t)ro.limit);
        qr_arena_release(&scratch);
    }
    qr_lisp_result_clear(&res);
done:
    qr_query_compiled_clear(&q);
    qr_lisp_session_free(s);
    qr_host_release(&host);
    qr_tools_free(tools);
    free(text);
    return status;
}
