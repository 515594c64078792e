/*
 * cmd_lisp.c: `quarry lisp`: runs a PTC-Lisp program from -e, a file or stdin (or a REPL
 * on a terminal), with an optional request context (--data FILE, JSON or EDN), and
 * prints the result as EDN (default) or JSON. Captured println output goes to stdout
 * before an EDN result, and to stderr when the result is JSON so stdout stays parseable.
 * (tool/NAME {...}) calls the product tool registry (qr_tools_default).
 */
#include "command.h"

#include "quarry/host.h"
#include "quarry/tools.h"

#include <dlfcn.h>
#include <editline/readline.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SOURCE (16u << 20)

const char cli_lisp_page[] =
    "usage: quarry lisp [-e EXPR | FILE | -] [OPTIONS]\n"
    "\n"
    "Runs a PTC-Lisp program (Clojure-like, sandboxed) and prints its value.\n"
    "With no EXPR or FILE: a REPL on a terminal, else the program is read from stdin.\n"
    "\n"
    "options:\n"
    "  -e, --eval EXPR      the program text\n"
    "  --data FILE          request context (JSON or EDN map), read as data/NAME\n"
    "  --format edn|json    how to print the result (default edn)\n"
    "  --timeout-ms N       wall time limit, tools included (default 10000)\n"
    "  --max-memory SIZE    memory limit, e.g. 64M (default 64M)\n"
    "  --max-steps N        evaluation step limit (default 100000000)\n"
    "  --max-depth N        call depth limit (default 10000)\n"
    "  --max-output SIZE    println output kept (default 64K)\n"
    "  --repo DIR           the repository the tools read (default: the one containing\n"
    "                       the working directory)\n"
    "  --store FILE         the memory store memory_query reads (default: $QUARRY_MEMORY);\n"
    "                       a program may name no other store\n"
    "  --no-index           compute git statistics without the index\n"
    "  --seed N             seed of rand, rand-int, rand-nth, shuffle (default 1): the same\n"
    "                       seed gives the same numbers\n"
    "  --stats              print timing and usage as a JSON line on stderr\n"
    "  --repeat N           run the program N times (benchmarks; --stats shows the best)\n"
    "  --run-tests FILE...  run golden test files (see tests/lang/)\n"
    "\n"
    "exit status: 0 success, 1 the program failed (error or limit), 2 bad usage or a\n"
    "program that cannot be read or analyzed.\n";

static int load_data(qr_lisp_session *s, const char *path, cli_format fmt)
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
    qr_arena *a = qr_lisp_session_arena(s);
    qr_val data;
    qr_read_error err;
    size_t plen = strlen(path);
    bool edn = plen > 4 && !strcmp(path + plen - 4, ".edn");
    rc = edn ? QR_EINVAL
             : qr_json_read_split(a, qr_lisp_session_text_arena(s), text, len, &data, &err);
    if (rc == QR_EINVAL) {
        qr_read_error err2;
        qr_val forms;
        int rc2 = qr_read_all(a, text, len, QR_READ_EDN, &forms, &err2);
        if (rc2 == QR_OK && forms.c->len == 1) {
            data = qr_vec_at(forms, 0);
            rc = QR_OK;
        } else if (edn) {
            err = err2;
        }
    }
    free(text);
    if (rc != QR_OK) {
        char msg[400];
        snprintf(msg, sizeof msg, "data file '%s' at %u:%u: %s", path, err.line, err.col,
                 err.msg);
        cli_error(fmt, "parse-error", 0, 0, msg);
        return EXIT_USAGE;
    }
    if (data.t != QR_T_MAP) {
        char msg[300];
        snprintf(msg, sizeof msg, "data file '%s' must hold a map (JSON object), got %s", path,
                 qr_type_name((qr_type)data.t));
        cli_error(fmt, "usage", 0, 0, msg);
        return EXIT_USAGE;
    }
    qr_lisp_set_data(s, data);
    return EXIT_OK;
}

static void print_result(const qr_lisp_result *res, cli_format fmt)
{
    qr_buf b;
    qr_buf_init(&b);
    if (fmt == FMT_JSON) {
        if (res->output_len)
            fwrite(res->output, 1, res->output_len, stderr);
        qr_print_json(&b, res->value, false);
    } else {
        if (res->output_len)
            fwrite(res->output, 1, res->output_len, stdout);
        qr_print(&b, res->value, QR_PRINT_READABLY);
    }
    qr_buf_putc(&b, '\n');
    fwrite(b.p, 1, b.len, stdout);
    qr_buf_release(&b);
    if (res->output_truncated)
        fprintf(stderr, "quarry: output was cut at the --max-output limit\n");
}

static int report(const qr_lisp_result *res, int rc, cli_format fmt)
{
    if (rc == QR_OK) {
        print_result(res, fmt);
        return EXIT_OK;
    }
    if (res->output_len)
        fwrite(res->output, 1, res->output_len, fmt == FMT_JSON ? stderr : stdout);
    cli_error(fmt, qr_lisp_errkind_name(res->kind), res->line, res->col, res->message);
    return rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
}

static void print_stats(const qr_lisp_result *res)
{
    fprintf(stderr,
            "{\"read_ms\":%.3f,\"eval_ms\":%.3f,\"steps\":%llu,\"memory\":%zu}\n",
            res->read_ms, res->eval_ms, (unsigned long long)res->steps, res->memory);
}

/* True when src ends inside an unfinished form (the REPL then reads another line). */
static bool incomplete(const char *src, size_t n)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_val forms;
    qr_read_error err;
    int rc = qr_read_all(&a, src, n, QR_READ_LISP, &forms, &err);
    qr_arena_release(&a);
    return rc == QR_EINVAL &&
           (!strncmp(err.msg, "unterminated", 12) || !strncmp(err.msg, "unexpected end", 14));
}

#ifndef QR_LIBEDIT_SONAME
#define QR_LIBEDIT_SONAME "libedit.so"
#endif

/* libedit, loaded when the REPL starts rather than linked: it and what it needs (libbsd,
 * libmd, libtinfo) would cost every quarry command's start-up, and only the REPL uses it */
static struct {
    __typeof__(readline) *readline;
    __typeof__(add_history) *add_history;
    __typeof__(read_history) *read_history;
    __typeof__(write_history) *write_history;
} ed;

static bool edit_load(void)
{
    void *h = dlopen(QR_LIBEDIT_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        fprintf(stderr,
                "quarry lisp: the REPL needs libedit (%s): %s; install Debian's libedit2, or "
                "give the program with -e, a file or stdin\n",
                QR_LIBEDIT_SONAME, e ? e : "not found");
        return false;
    }
    ed.readline = (__typeof__(readline) *)dlsym(h, "readline");
    ed.add_history = (__typeof__(add_history) *)dlsym(h, "add_history");
    ed.read_history = (__typeof__(read_history) *)dlsym(h, "read_history");
    ed.write_history = (__typeof__(write_history) *)dlsym(h, "write_history");
    if (!ed.readline || !ed.add_history || !ed.read_history || !ed.write_history) {
        fprintf(stderr, "quarry lisp: %s lacks readline's functions\n", QR_LIBEDIT_SONAME);
        return false;
    }
    return true;
}

static int repl(qr_lisp_session *s, cli_format fmt)
{
    if (!edit_load())
        return EXIT_FAILED;
    const char *home = getenv("HOME");
    char hist[1024] = "";
    if (home) {
        snprintf(hist, sizeof hist, "%s/.quarry_history", home);
        ed.read_history(hist);
    }
    printf("quarry lisp: PTC-Lisp REPL. Definitions persist; Ctrl-D to leave.\n");
    qr_buf src;
    qr_buf_init(&src);
    for (;;) {
        char *line = ed.readline(src.len ? "  ... " : "quarry> ");
        if (!line)
            break;
        if (src.len)
            qr_buf_putc(&src, '\n');
        qr_buf_puts(&src, line);
        free(line);
        if (incomplete(src.p, src.len))
            continue;
        if (src.len == 0)
            continue;
        ed.add_history(src.p);
        qr_lisp_result res;
        int rc = qr_lisp_run(s, src.p, src.len, &res);
        report(&res, rc, fmt);
        qr_lisp_result_clear(&res);
        qr_buf_reset(&src);
    }
    if (hist[0])
        ed.write_history(hist);
    qr_buf_release(&src);
    printf("\n");
    return EXIT_OK;
}

int cli_cmd_lisp(const cli_args *args)
{
    size_t ntests;
    const char **tests = cli_arg_strs(args, "run-tests", &ntests);
    if (ntests)
        return cli_run_golden((int)ntests, (char **)tests);
    const char *expr = cli_arg_str(args, "eval", NULL), *file = cli_arg_str(args, "file", NULL);
    bool stats = cli_arg_bool(args, "stats");
    uint64_t repeat = 1, seed = 1;
    const char *v = cli_arg_str(args, "seed", NULL);
    if (v && !cli_parse_u64(v, &seed)) {
        cli_usage_error("lisp", "bad --seed '%s': expected a non-negative integer", v);
        return EXIT_USAGE;
    }
    if ((v = cli_arg_str(args, "repeat", NULL)) &&
        (!cli_parse_u64(v, &repeat) || repeat == 0 || repeat > 1000000)) {
        cli_usage_error("lisp", "bad --repeat '%s': expected a count from 1", v);
        return EXIT_USAGE;
    }
    cli_run_opts ro;
    if (cli_run_opts_from(args, &ro) < 0)
        return EXIT_USAGE;
    if (ro.fmt == FMT_TABLE) {
        cli_usage_error("lisp", "unknown format 'table': expected edn or json");
        return EXIT_USAGE;
    }
    const cli_format fmt = ro.fmt == FMT_DEFAULT ? FMT_EDN : ro.fmt;
    const char *data = ro.data;
    qr_lisp_limits lim = ro.lim;
    if (expr && file) {
        cli_usage_error("lisp", "give one program: -e EXPR, a FILE or '-'");
        return EXIT_USAGE;
    }
    qr_lisp_session *s = qr_lisp_session_new(&lim);
    qr_tools *tools = qr_tools_default();
    if (!s || !tools) {
        fprintf(stderr, "quarry: out of memory\n");
        qr_lisp_session_free(s);
        qr_tools_free(tools);
        return EXIT_FAILED;
    }
    qr_lisp_set_seed(s, seed);
    /* (tool/NAME {...}) goes through the registry: same checks as `quarry tool`; the
     * repository is opened on the first call that needs it */
    qr_host host;
    cli_host_init(&host, &ro);
    qr_tools_set_ctx(tools, &host);
    qr_lisp_set_tools(s, qr_tools_lisp_dispatch, tools);
    int status = EXIT_OK;
    if (data && (status = load_data(s, data, fmt)) != EXIT_OK)
        goto done;
    if (!expr && !file && isatty(0)) {
        /* each line runs under a request of its own (the session makes it), so Ctrl-C
         * stays the line editor's */
        status = repl(s, fmt);
        goto done;
    }
    /* the program runs for the command's request: Ctrl-C stops it and its tools, which
     * also stop at the program's deadline (their time is its time) */
    qr_lisp_set_req(s, cli_req());
    char *text = NULL;
    size_t len = 0;
    if (expr) {
        len = strlen(expr);
    } else {
        const char *path = file ? file : "-";
        int rc = qr_read_file(path, MAX_SOURCE, &text, &len);
        if (rc != QR_OK) {
            char msg[300];
            snprintf(msg, sizeof msg, "cannot read program '%s': %s", path,
                     rc == QR_EINVAL ? "larger than 16 MiB" : strerror(errno));
            cli_error(fmt, "usage", 0, 0, msg);
            status = EXIT_USAGE;
            goto done;
        }
    }
    qr_lisp_result res;
    int rc = qr_lisp_run(s, expr ? expr : text, len, &res);
    double best_eval = res.eval_ms;
    for (uint64_t k = 1; k < repeat && rc == QR_OK; k++) {
        qr_lisp_result again;
        rc = qr_lisp_run(s, expr ? expr : text, len, &again);
        if (again.eval_ms < best_eval)
            best_eval = again.eval_ms;
        qr_lisp_result_clear(&res);
        res = again;
    }
    res.eval_ms = best_eval;
    status = report(&res, rc, fmt);
    if (stats)
        print_stats(&res);
    qr_lisp_result_clear(&res);
    free(text);
done:
    qr_lisp_session_free(s);
    qr_host_release(&host);
    qr_tools_free(tools);
    return status;
}
