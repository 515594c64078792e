/*
 * cmd_code.c: `quarry code index|query|dump|graph`, the code graph (seed 004, tier 1) on
 * the command line.
 *
 *   index  builds the index of a ref (or the working tree) explicitly, with a progress bar
 *          on a terminal, and prints what it holds (get_index_stats);
 *   query  is `quarry tool query_codebase --query-type TYPE ...`: the same parsing,
 *          checks, output formats and exit codes, so the CLI cannot drift from the tool;
 *   dump   prints the whole graph as JSON lines (docs/code.md lists the shapes);
 *   graph  draws the neighbourhood of a function or file as Graphviz DOT, or SVG through
 *          Graphviz's `dot` when it is installed.
 *
 * Rejected: a second parser for query flags (the registry's already types them).
 */
#include "cli.h"

#include "quarry/code.h"
#include "quarry/host.h"
#include "quarry/proc.h"
#include "quarry/tools.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: quarry code index [--repo DIR] [--ref REF] [--format json|table]\n"
    "       quarry code query TYPE [--name N] [--file F] [--pattern P] [--depth D]\n"
    "                              [--reverse] [--limit N] [--offset N] [--ref REF] ...\n"
    "       quarry code dump [--repo DIR] [--ref REF] [--path PREFIX]...\n"
    "       quarry code graph SYMBOL|FILE [--callers|--callees|--includes] [--depth N]\n"
    "                              [--format dot|svg] [--repo DIR] [--ref REF]\n"
    "\n"
    "The code graph: files, functions, types, macros, includes and calls, indexed per git\n"
    "blob in <gitdir>/quarry/code.db. Without --ref: the working tree, uncommitted changes\n"
    "included. 'quarry tool query_codebase --help' lists the query parameters; TYPE is one\n"
    "of find_file, list_files, find_function, list_functions, get_dependencies,\n"
    "get_call_graph, find_struct, list_structs, find_type, find_macro, find_references,\n"
    "search_by_name, get_skeleton, get_definition, get_index_stats.\n"
    "\n"
    "Files are parsed on one thread per processor (at most 8); QUARRY_THREADS=N sets the\n"
    "number (1: no threads). QUARRY_CTAGS names the ctags binary for other languages.\n"
    "\n"
    "exit status: 0 success, 1 failure, 2 bad usage or bad input (unknown symbol, ref).\n";

typedef struct opts {
    const char *repo, *ref;
    cli_format fmt;
    const char *gfmt; /* graph: dot or svg */
    const char **paths;
    size_t npaths;
    const char *what;
    int mode; /* graph: QR_CODE_DOT_* */
    int depth;
} opts;

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

static int parse(const char *cmd, int argc, char **argv, opts *o, bool graph)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        bool takes = !strcmp(a, "--repo") || !strcmp(a, "--ref") || !strcmp(a, "--format") ||
                     !strcmp(a, "--path") || !strcmp(a, "--depth");
        if (takes && i + 1 >= argc) {
            cli_usage_error(cmd, "option '%s' needs a value", a);
            return EXIT_USAGE;
        }
        if (!strcmp(a, "--repo"))
            o->repo = argv[++i];
        else if (!strcmp(a, "--ref"))
            o->ref = argv[++i];
        else if (!strcmp(a, "--path") && !graph)
            o->paths[o->npaths++] = argv[++i];
        else if (!strcmp(a, "--format")) {
            const char *v = argv[++i];
            if (graph) {
                if (strcmp(v, "dot") && strcmp(v, "svg")) {
                    cli_usage_error(cmd, "unknown format '%s': expected dot or svg", v);
                    return EXIT_USAGE;
                }
                o->gfmt = v;
            } else {
                int f = cli_parse_format(v);
                if (f < 0) {
                    cli_usage_error(cmd, "unknown format '%s': expected json or table", v);
                    return EXIT_USAGE;
                }
                o->fmt = (cli_format)f;
            }
        } else if (!strcmp(a, "--depth") && graph) {
            uint64_t d;
            if (!cli_parse_u64(argv[++i], &d) || d < 1 || d > 64) {
                cli_usage_error(cmd, "bad --depth '%s': expected 1 to 64", argv[i]);
                return EXIT_USAGE;
            }
            o->depth = (int)d;
        } else if (graph && !strcmp(a, "--callers"))
            o->mode = QR_CODE_DOT_CALLERS;
        else if (graph && !strcmp(a, "--callees"))
            o->mode = QR_CODE_DOT_CALLEES;
        else if (graph && !strcmp(a, "--includes"))
            o->mode = QR_CODE_DOT_INCLUDES;
        else if (graph && a[0] != '-' && !o->what)
            o->what = a;
        else {
            cli_usage_error(cmd, "unknown option '%s' (see 'quarry code --help')", a);
            return EXIT_USAGE;
        }
    }
    return EXIT_OK;
}

static int code_index(int argc, char **argv)
{
    opts o = {0};
    int st = parse("code index", argc, argv, &o, false);
    if (st)
        return st;
    qr_code *c = NULL;
    qr_code_graph *g = NULL;
    if ((st = open_graph(&o, &c, &g)))
        return st;
    /* the same answer as get_index_stats */
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_mapb mb;
    qr_mapb_init(&mb, &a, 1);
    qr_mapb_put(&mb, qr_kw_cstr(&a, "query_type"), qr_str_cstr(&a, "get_index_stats"));
    qr_val args = qr_mapb_finish(&mb, QR_T_MAP), out;
    qr_buf err, b;
    qr_buf_init(&err);
    qr_buf_init(&b);
    int rc = qr_code_query(g, &cli_req()->stop, args, &a, &out, &err);
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

static int code_dump(int argc, char **argv)
{
    opts o = {0};
    o.paths = calloc((size_t)argc, sizeof *o.paths);
    if (!o.paths)
        return EXIT_FAILED;
    int st = parse("code dump", argc, argv, &o, false);
    qr_code *c = NULL;
    qr_code_graph *g = NULL;
    if (!st)
        st = open_graph(&o, &c, &g);
    if (!st) {
        qr_buf b;
        qr_buf_init(&b);
        qr_code_dump(g, o.paths, o.npaths, &b);
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
    free(o.paths);
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

static int code_graph(int argc, char **argv)
{
    opts o = {.gfmt = "dot", .depth = 1, .mode = -1};
    int st = parse("code graph", argc, argv, &o, true);
    if (st)
        return st;
    if (!o.what) {
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
    int rc = qr_code_dot(g, o.what, o.mode, o.depth, &b, &err);
    if (rc != QR_OK) {
        cli_error(FMT_TABLE, rc == QR_EINVAL ? "usage" : "error", 0, 0, err.p ? err.p : "failed");
        st = rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
    } else if (!strcmp(o.gfmt, "svg")) {
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

int cmd_code(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
        !strcmp(argv[1], "help")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    const char *sub = argv[1];
    if (!strcmp(sub, "index"))
        return code_index(argc, argv);
    if (!strcmp(sub, "dump"))
        return code_dump(argc, argv);
    if (!strcmp(sub, "graph"))
        return code_graph(argc, argv);
    if (!strcmp(sub, "query")) {
        if (argc < 3 || argv[2][0] == '-') {
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
        av[n++] = argv[2];
        for (int i = 3; i < argc; i++)
            av[n++] = argv[i];
        int st = cmd_tool(n, av);
        free(av);
        return st;
    }
    cli_usage_error("code", "unknown subcommand '%s': expected index, query, dump or graph", sub);
    return EXIT_USAGE;
}
