/*
 * cmd_code.c: `quarry code index|query|dump|graph`, the code graph (seed 004, tier 1) on
 * the command line.
 *
 *   index  builds the index of a ref (or the working tree) explicitly, with a progress bar
 *          on a terminal, and prints what it holds (get_index_stats);
 *   query  is `quarry tool query_codebase --query-type TYPE ...`: the same parsing,
 *          checks, output formats and exit codes, so the CLI cannot drift from the tool;
 *   dump   prints the whole graph as JSON lines (docs/code.md lists the shapes);
 *   gc     prunes the index of blobs nothing reaches (qr_code_gc);
 *   graph  draws the neighbourhood of a function or file as Graphviz DOT, or SVG through
 *          Graphviz's `dot` when it is installed.
 *
 * Options and help are the records of `code` and its subcommands (commands.c).
 *
 * Rejected: a second parser for query flags (the registry's already types them).
 */
#include "command.h"

#include "quarry/code.h"
#include "quarry/host.h"
#include "quarry/proc.h"
#include "quarry/tools.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct opts {
    const char *repo, *ref;
    cli_format fmt;
} opts;

static opts opts_of(const cli_args *args)
{
    opts o = {.repo = args->repo, .ref = cli_arg_str(args, "ref", NULL), .fmt = args->fmt};
    return o;
}

static int open_graph(const opts *o, qr_code **c, qr_code_graph **g)
{
    qr_buf err;
    qr_buf_init(&err);
    int rc = qr_code_open(o->repo ? o->repo : ".", c, &err);
    if (rc == QR_OK) {
        qr_code_opts lo = {.ref = o->ref, .progress = cli_progress};
        rc = qr_code_load(*c, &lo, g, &err);
    }
    if (rc != QR_OK) {
        cli_error(o->fmt == FMT_JSON ? FMT_JSON : FMT_TABLE, rc == QR_EINVAL ? "usage" : "error",
                  0, 0, err.p ? err.p : "cannot build the code graph");
        qr_buf_release(&err);
        qr_code_close(*c);
        *c = NULL;
        return rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
    }
    qr_buf_release(&err);
    return EXIT_OK;
}

int cli_cmd_code_index(const cli_args *cargs)
{
    opts o = opts_of(cargs);
    int st;
    qr_code *c = NULL;
    qr_code_graph *g = NULL;
    if ((st = open_graph(&o, &c, &g)))
        return st;
    qr_buf perr;
    qr_buf_init(&perr);
    /* on the team database: which repository these files make up, at which commit */
    if (qr_code_publish(g, o.ref == NULL, &perr) != QR_OK) {
        cli_error(o.fmt, "error", 0, 0, perr.p ? perr.p : "cannot record the repository");
        qr_buf_release(&perr);
        qr_code_graph_free(g);
        qr_code_close(c);
        return EXIT_FAILED;
    }
    qr_buf_release(&perr);
    /* the same answer as get_index_stats */
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_mapb mb;
    qr_mapb_init(&mb, &a, 1);
    qr_mapb_put(&mb, qr_kw_cstr(&a, "query_type"), qr_str_cstr(&a, "get_index_stats"));
    qr_val qargs = qr_mapb_finish(&mb, QR_T_MAP), out;
    qr_buf err, b;
    qr_buf_init(&err);
    qr_buf_init(&b);
    int rc = qr_code_query(g, &cli_req()->stop, qargs, &a, &out, &err);
    if (rc != QR_OK) {
        cli_error(o.fmt, "error", 0, 0, err.p ? err.p : "failed");
        st = EXIT_FAILED;
    } else {
        cli_format f = o.fmt == FMT_DEFAULT ? (isatty(1) ? FMT_TABLE : FMT_JSON) : o.fmt;
        if (f == FMT_JSON) {
            qr_print_json(&b, out, false);
            qr_buf_putc(&b, '\n');
        } else if (f == FMT_EDN) {
            qr_print(&b, out, QR_PRINT_READABLY);
            qr_buf_putc(&b, '\n');
        } else {
            const qr_code_stats *s = qr_code_graph_stats(g);
            qr_buf_printf(&b,
                          "code index: %zu files (%zu parsed, %zu by ctags, %zu indexed now), "
                          "%zu nodes, %zu edges\n",
                          s->files, s->parsed, s->ctags_files, s->blobs_indexed_now, s->nodes,
                          s->edges);
            qr_buf_printf(&b,
                          "skipped: %zu other languages, %zu binary, %zu too large, %zu "
                          "symlinks, %zu bad paths; %zu parse errors in %zu files\n",
                          s->skipped_lang, s->skipped_binary, s->skipped_large,
                          s->skipped_symlink, s->skipped_path, s->parse_errors,
                          s->files_with_errors);
        }
        fwrite(b.p ? b.p : "", 1, b.len, stdout);
    }
    qr_buf_release(&b);
    qr_buf_release(&err);
    qr_arena_release(&a);
    qr_code_graph_free(g);
    qr_code_close(c);
    return st;
}

int cli_cmd_code_dump(const cli_args *args)
{
    opts o = opts_of(args);
    size_t npaths;
    const char **paths = cli_arg_strs(args, "path", &npaths);
    qr_code *c = NULL;
    qr_code_graph *g = NULL;
    int st = open_graph(&o, &c, &g);
    if (!st) {
        qr_buf b;
        qr_buf_init(&b);
        qr_code_dump(g, paths, npaths, &b);
        if (b.failed) {
            fprintf(stderr, "quarry: out of memory\n");
            st = EXIT_FAILED;
        } else {
            fwrite(b.p ? b.p : "", 1, b.len, stdout);
        }
        qr_buf_release(&b);
    }
    qr_code_graph_free(g);
    qr_code_close(c);
    return st;
}

int cli_cmd_code_gc(const cli_args *args)
{
    opts o = opts_of(args);
    qr_code *c = NULL;
    qr_buf err;
    qr_buf_init(&err);
    int rc = qr_code_open(o.repo ? o.repo : ".", &c, &err);
    qr_code_gc_stats gs;
    if (rc == QR_OK)
        rc = qr_code_gc(c, &cli_req()->stop, &gs, &err);
    int st = EXIT_OK;
    if (rc != QR_OK) {
        cli_error(o.fmt == FMT_JSON ? FMT_JSON : FMT_TABLE, rc == QR_EINVAL ? "usage" : "error", 0,
                  0, err.p ? err.p : "cannot prune the code index");
        st = rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
    } else if (o.fmt == FMT_JSON) {
        printf("{\"blobs_before\":%lld,\"blobs_removed\":%lld,\"bytes_before\":%lld,"
               "\"bytes_after\":%lld,\"commits\":%zu}\n",
               (long long)gs.blobs_before, (long long)gs.blobs_removed,
               (long long)gs.bytes_before, (long long)gs.bytes_after, gs.commits);
    } else {
        printf("code gc: %lld of %lld blobs removed (%zu commits walked); %s: %lld -> %lld "
               "bytes\n",
               (long long)gs.blobs_removed, (long long)gs.blobs_before, gs.commits,
               qr_code_db_path(c), (long long)gs.bytes_before, (long long)gs.bytes_after);
    }
    qr_buf_release(&err);
    qr_code_close(c);
    return st;
}

/* Renders DOT as SVG with Graphviz's dot (quarry/proc.h) onto stdout; false when dot
 * cannot be run or fails. */
static bool render_svg(const qr_buf *dot)
{
    const char *av[] = {"dot", "-Tsvg", NULL};
    qr_proc_opts po = {.argv = av, .input = dot->p ? dot->p : "", .input_len = dot->len,
                       .out_max = 256u << 20};
    qr_proc_result r;
    qr_proc_result_init(&r);
    bool ok = qr_proc_run(&po, &r) == QR_OK && r.status == 0 && !r.out_truncated;
    if (ok)
        fwrite(r.out.p ? r.out.p : "", 1, r.out.len, stdout);
    qr_proc_result_clear(&r);
    return ok;
}

int cli_cmd_code_graph(const cli_args *args)
{
    opts o = opts_of(args);
    o.fmt = FMT_DEFAULT; /* --format is dot or svg here */
    const char *what = cli_arg_str(args, "what", NULL);
    const char *gfmt = cli_arg_str(args, "format", "dot");
    int depth = (int)cli_arg_int(args, "depth", 1);
    int max_nodes = (int)cli_arg_int(args, "max-nodes", 0);
    int mode = cli_arg_bool(args, "callers")    ? QR_CODE_DOT_CALLERS
               : cli_arg_bool(args, "callees")  ? QR_CODE_DOT_CALLEES
               : cli_arg_bool(args, "includes") ? QR_CODE_DOT_INCLUDES
                                                : -1;
    int st;
    if (!what) {
        cli_usage_error("code graph", "which SYMBOL or FILE? (see 'quarry code --help')");
        return EXIT_USAGE;
    }
    qr_code *c = NULL;
    qr_code_graph *g = NULL;
    if ((st = open_graph(&o, &c, &g)))
        return st;
    qr_buf b, err;
    qr_buf_init(&b);
    qr_buf_init(&err);
    int rc = qr_code_dot(g, what, mode, depth, max_nodes, &b, &err);
    if (rc != QR_OK) {
        cli_error(FMT_TABLE, rc == QR_EINVAL ? "usage" : "error", 0, 0, err.p ? err.p : "failed");
        st = rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
    } else if (!strcmp(gfmt, "svg")) {
        if (!render_svg(&b)) {
            cli_error(FMT_TABLE, "error", 0, 0,
                      "cannot run Graphviz 'dot' to draw SVG (Debian package graphviz); "
                      "--format dot prints the graph without it");
            st = EXIT_FAILED;
        }
    } else {
        fwrite(b.p ? b.p : "", 1, b.len, stdout);
    }
    qr_buf_release(&b);
    qr_buf_release(&err);
    qr_code_graph_free(g);
    qr_code_close(c);
    return st;
}

int cli_cmd_code_query(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        cli_command_help(cli_command_find("code query"), "code query", stdout);
        return EXIT_OK;
    }
    if (argc < 2 || argv[1][0] == '-') {
        cli_usage_error("code query", "which query TYPE? (see 'quarry code --help')");
        return EXIT_USAGE;
    }
    /* quarry tool query_codebase --query-type TYPE ARGS... */
    char **av = calloc((size_t)argc + 3, sizeof *av);
    if (!av)
        return EXIT_FAILED;
    int n = 0;
    av[n++] = "tool";
    av[n++] = "query_codebase";
    av[n++] = "--query-type";
    av[n++] = argv[1];
    for (int i = 2; i < argc; i++)
        av[n++] = argv[i];
    int st = cmd_tool(n, av);
    free(av);
    return st;
}
