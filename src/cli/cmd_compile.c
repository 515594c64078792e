/*
 * cmd_compile.c: `quarry compile 'DSL' | -`: validates a query and prints the PTC-Lisp
 * program it compiles to, without running it (nothing is read from the repository). With
 * --data FILE the query is checked against that context, as `quarry query --data` would
 * run it. --format json prints {"program", "normalized", "hash"} (and problems as data);
 * --ops prints the transform ops from the compiler's op table, the DSL reference a model
 * can be given.
 *
 * Rejected: running the program to check it (that is `quarry query`); printing the
 * program with its problems (an invalid query has no program: half a program would read
 * as if it ran).
 */
#include "command.h"

#include "quarry/query.h"
#include "quarry/host.h"
#include "quarry/tools.h"

#include <stdlib.h>
#include <string.h>

const char cli_compile_page[] =
    "usage: quarry compile 'QUERY' | - [--data FILE] [--format text|edn|json] [--ops]\n"
    "\n"
    "Validates a query written in the query DSL (EDN or JSON) and prints the PTC-Lisp\n"
    "program it compiles to, one def per step. Nothing runs. With '-' or no QUERY the\n"
    "query is read from stdin.\n"
    "\n"
    "options:\n"
    "  --data FILE      check against this context (JSON or EDN map), as 'quarry query\n"
    "                   --data FILE' runs it\n"
    "  --format F       text (default) or edn: the program; json: {\"program\",\n"
    "                   \"normalized\", \"hash\"}, and problems as JSON\n"
    "  --ops            list the transform ops (from the compiler's op table)\n"
    "  --repo DIR       accepted as by every command; compiling reads no repository\n"
    "\n"
    "exit status: 0 the query is valid, 2 bad usage or an invalid query (every problem\n"
    "is reported with its path in the query and a hint).\n";

static void print_op(void *ud, const char *name, const char *required, const char *optional,
                     const char *summary, const char *example)
{
    (void)ud;
    printf(":%s  :op :as %s%s%s%s\n    %s\n    %s\n", name, required, optional[0] ? " [" : "",
           optional, optional[0] ? "]" : "", summary, example);
}

int cli_cmd_compile(const cli_args *args)
{
    const char *qarg = cli_arg_str(args, "query", NULL);
    cli_format fmt = !strcmp(cli_arg_str(args, "format", "text"), "json") ? FMT_JSON : FMT_EDN;
    bool ops = cli_arg_bool(args, "ops");
    cli_run_opts ro; /* --repo is accepted like every command's; compiling reads none */
    if (cli_run_opts_from(args, &ro) < 0)
        return EXIT_USAGE;
    const char *data = ro.data;
    if (ops) {
        qr_query_each_op(print_op, NULL);
        return EXIT_OK;
    }
    char *text = NULL;
    size_t len = 0;
    int status = cli_query_text("compile", qarg, fmt, &text, &len);
    if (status != EXIT_OK)
        return status;
    qr_tools *tools = qr_tools_default();
    if (!tools) {
        fprintf(stderr, "quarry: out of memory\n");
        free(text);
        return EXIT_FAILED;
    }
    qr_arena a, strings;
    qr_arena_init(&a, 0);
    qr_arena_init(&strings, 0);
    qr_query_compiled q = {0};
    qr_query_opts opts;
    qr_query_opts_init(&opts, tools);
    if (data && (status = cli_query_data(data, &a, &strings, fmt, &opts.context)) != EXIT_OK)
        goto done;
    int rc = qr_query_compile(&opts, text, len, &q);
    if (rc != QR_OK) {
        cli_query_problems(&q, fmt);
        status = rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
        goto done;
    }
    if (fmt == FMT_JSON) {
        qr_buf b;
        qr_buf_init(&b);
        qr_buf_puts(&b, "{\"program\":");
        qr_buf_json_string(&b, q.program, q.program_len);
        qr_buf_puts(&b, ",\"normalized\":");
        qr_buf_json_string(&b, q.normalized, strlen(q.normalized));
        qr_buf_printf(&b, ",\"hash\":\"%016llx\"}\n", (unsigned long long)q.hash);
        fputs(b.p ? b.p : "", stdout);
        qr_buf_release(&b);
    } else {
        fwrite(q.program, 1, q.program_len, stdout);
    }
done:
    qr_query_compiled_clear(&q);
    qr_arena_release(&a);
    qr_arena_release(&strings);
    qr_tools_free(tools);
    free(text);
    return status;
}
