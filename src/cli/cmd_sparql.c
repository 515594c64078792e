/*
 * cmd_sparql.c: `quarry sparql`: runs a read-only SPARQL 1.1 query (SELECT or ASK) over
 * RDF files (--data, --graph) and prints the results as SPARQL JSON or XML, CSV, TSV or a
 * table. The query is parsed whole first: a syntax error or a refused form (CONSTRUCT,
 * DESCRIBE, SERVICE, any update) exits 2 with one line; a query stopped by a limit exits
 * 1. Data files are read with libserd; their base IRI is the file's URI.
 *
 * Without --data or --graph the default graph is the code graph of --repo (its working
 * tree, or --ref), as RDF under the vocabulary of docs/sparql.md: the code index is
 * brought up to date first, as `quarry code index` does.
 */
#define _XOPEN_SOURCE 700
#include "command.h"

#include "quarry/code.h"
#include "quarry/date.h"
#include "quarry/sparql.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char cli_sparql_page[] =
    "usage: quarry sparql [--repo DIR] [--ref REF] (QUERY | --query FILE | -) [--format F]\n"
    "                     [--data FILE]... [--graph IRI=FILE]... [--base IRI]\n"
    "\n"
    "Runs a read-only SPARQL 1.1 query (SELECT or ASK) over the code graph of the\n"
    "repository (vocabulary: docs/sparql.md), or over RDF files with --data/--graph.\n"
    "CONSTRUCT, DESCRIBE, SERVICE and updates are recognised and refused. With '-' the\n"
    "query is read from stdin.\n"
    "\n"
    "options:\n"
    "  --repo DIR         the repository whose code graph is queried (default: here)\n"
    "  --ref REF          the code graph of a commit instead of the working tree\n"
    "  --data FILE        add an N-Triples (.nt) or Turtle file to the default graph\n"
    "  --graph IRI=FILE   load FILE as the named graph IRI (for GRAPH and FROM NAMED)\n"
    "  --query FILE       read the query from FILE\n"
    "  --base IRI         base IRI of the query (default: the query file's URI)\n"
    "  --format F         json, xml, csv, tsv or table (default: table on a terminal,\n"
    "                     else json)\n"
    "  --timeout-ms N     stop after N ms of evaluation (default 30000)\n"
    "  --max-rows N       fail when the result has more than N rows (default: none)\n"
    "  --max-memory SIZE  cap the memory of one evaluation (default 1G)\n"
    "  --export-nt FILE   write the default graph (the code graph, or the data) as\n"
    "                     N-Triples to FILE ('-': stdout) instead of running a query\n"
    "  --repeat N         run the query N times; print the load time and the best and\n"
    "                     median query times on stderr (for benchmarks)\n"
    "\n"
    "exit status: 0 results printed, 1 the query ran and failed (a limit), 2 bad usage, a\n"
    "syntax error, a refused query or unreadable data.\n";

static char *file_uri(const char *path)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        return NULL;
    size_t n = strlen(real);
    char *u = malloc(n * 3 + 8);
    if (!u)
        return NULL;
    strcpy(u, "file://");
    char *o = u + 7;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)real[i];
        if (c <= 0x20 || c == '%' || c == '#' || c == '?' || c >= 0x7f || c == '<' || c == '>' ||
            c == '"' || c == '{' || c == '}' || c == '|' || c == '\\' || c == '^' || c == '`') {
            sprintf(o, "%%%02X", c);
            o += 3;
        } else {
            *o++ = (char)c;
        }
    }
    *o = 0;
    return u;
}

static int error_exit(qr_sparql_error *err, cli_format fmt)
{
    const char *kind = err->kind == QR_SPARQL_SYNTAX    ? "syntax error"
                       : err->kind == QR_SPARQL_REFUSED ? "refused"
                       : err->kind == QR_SPARQL_LIMIT   ? "limit"
                       : err->kind == QR_SPARQL_INPUT   ? "bad data"
                                                        : "error";
    cli_error(fmt, kind, err->line, err->col, err->msg);
    return err->kind == QR_SPARQL_LIMIT || err->kind == QR_SPARQL_RUNTIME ? EXIT_FAILED
                                                                            : EXIT_USAGE;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec / 1e6;
}

int cli_cmd_sparql(const cli_args *args)
{
    const char *qarg = NULL, *qfile = NULL, *base = NULL, *repo = NULL, *ref = NULL;
    const char *export_nt = NULL;
    int ofmt = isatty(1) ? QR_SPARQL_FMT_TABLE : QR_SPARQL_FMT_JSON;
    cli_format efmt = FMT_DEFAULT;
    size_t nd0, ng0;
    cli_arg_strs(args, "data", &nd0);
    cli_arg_strs(args, "graph", &ng0);
    const char **data = calloc(nd0 + 1, sizeof(char *));
    const char **graphs = calloc(ng0 + 1, sizeof(char *));
    size_t ndata = 0, ngraphs = 0;
    uint64_t repeat = 0;
    qr_sparql_limits lim = {0};
    lim.timeout_ms = 30000;
    lim.max_memory = (size_t)1 << 30;
    int status = EXIT_OK;
    char *text = NULL, *uri = NULL;
    size_t len = 0;
    qr_sparql_store *st = NULL;
    qr_sparql_query *q = NULL;
    qr_sparql_result *res = NULL;
    qr_sparql_error err;
    if (!data || !graphs) {
        fprintf(stderr, "quarry: out of memory\n");
        status = EXIT_FAILED;
        goto done;
    }
    qarg = cli_arg_str(args, "text", NULL);
    qfile = cli_arg_str(args, "query", NULL);
    base = cli_arg_str(args, "base", NULL);
    repo = args->repo;
    ref = cli_arg_str(args, "ref", NULL);
    export_nt = cli_arg_str(args, "export-nt", NULL);
    const char **dv = cli_arg_strs(args, "data", &ndata);
    const char **gv = cli_arg_strs(args, "graph", &ngraphs);
    for (size_t k = 0; k < ndata; k++)
        data[k] = dv[k];
    for (size_t k = 0; k < ngraphs; k++) {
        if (!strchr(gv[k], '=')) {
            cli_usage_error("sparql", "--graph needs IRI=FILE, got '%s'", gv[k]);
            status = EXIT_USAGE;
            goto done;
        }
        graphs[k] = gv[k];
    }
    if (qarg && qfile) {
        cli_usage_error("sparql", "give one query (quote it as one argument)");
        status = EXIT_USAGE;
        goto done;
    }
    const char *v = cli_arg_str(args, "format", NULL);
    if (v) {
        ofmt = qr_sparql_format_parse(v);
        if (ofmt == QR_SPARQL_FMT_JSON)
            efmt = FMT_JSON;
    }
    if ((v = cli_arg_str(args, "max-memory", NULL))) {
        size_t sz;
        if (!cli_parse_size(v, &sz)) {
            cli_usage_error("sparql", "bad size '%s' for --max-memory", v);
            status = EXIT_USAGE;
            goto done;
        }
        lim.max_memory = sz;
    }
    static const char *const numbers[] = {"timeout-ms", "repeat", "max-rows"};
    for (size_t k = 0; k < 3; k++) {
        uint64_t n;
        if (!(v = cli_arg_str(args, numbers[k], NULL)))
            continue;
        if (!cli_parse_u64(v, &n)) {
            cli_usage_error("sparql", "bad number '%s' for --%s", v, numbers[k]);
            status = EXIT_USAGE;
            goto done;
        }
        if (k == 0)
            lim.timeout_ms = n;
        else if (k == 1)
            repeat = n;
        else
            lim.max_rows = n;
    }
    if (export_nt && (qarg || qfile)) {
        cli_usage_error("sparql", "--export-nt writes the graph and runs no query");
        status = EXIT_USAGE;
        goto done;
    }
    if (export_nt) {
        /* no query: load, then write the graph */
    } else if (qfile) {
        if (qr_read_file(qfile, 0, &text, &len)) {
            char msg[300];
            snprintf(msg, sizeof msg, "cannot read query file '%s': %s", qfile, strerror(errno));
            cli_error(efmt, "usage", 0, 0, msg);
            status = EXIT_USAGE;
            goto done;
        }
        if (!base)
            base = uri = file_uri(qfile);
    } else {
        status = cli_query_text("sparql", qarg, efmt, &text, &len);
        if (status != EXIT_OK)
            goto done;
    }
    if (!export_nt && qr_sparql_prepare_limited(text, len, base, &lim, &q, &err)) {
        status = error_exit(&err, efmt);
        goto done;
    }
    double t_load = now_ms();
    st = qr_sparql_store_new();
    if (!st) {
        fprintf(stderr, "quarry: out of memory\n");
        status = EXIT_FAILED;
        goto done;
    }
    if (!ndata && !ngraphs) {
        /* the code graph of the repository */
        qr_buf cerr;
        qr_buf_init(&cerr);
        qr_code *code = NULL;
        qr_code_graph *g = NULL;
        int rc = qr_code_open(repo ? repo : ".", &code, &cerr);
        qr_code_opts o = {.ref = ref, .progress = cli_progress, .stop = &cli_req()->stop};
        if (rc == QR_OK)
            rc = qr_code_load(code, &o, &g, &cerr);
        if (rc == QR_OK)
            rc = qr_sparql_load_code_graph(st, g);
        if (rc) {
            cli_error(efmt, rc == QR_EINVAL ? "usage" : "error", 0, 0,
                      cerr.len ? cerr.p : "out of memory while building the code graph");
            status = rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
        }
        qr_code_graph_free(g);
        qr_code_close(code);
        qr_buf_release(&cerr);
        if (rc)
            goto done;
    }
    for (size_t i = 0; i < ndata + ngraphs; i++) {
        const char *path = i < ndata ? data[i] : strchr(graphs[i - ndata], '=') + 1;
        char *gname = NULL;
        if (i >= ndata) {
            const char *g = graphs[i - ndata];
            gname = strndup(g, (size_t)(strchr(g, '=') - g));
        }
        char *fu = file_uri(path);
        int rc = qr_sparql_store_load_file(st, path, gname, fu, &err);
        free(fu);
        free(gname);
        if (rc) {
            status = error_exit(&err, efmt);
            goto done;
        }
    }
    if (export_nt) {
        qr_buf nt;
        qr_buf_init(&nt);
        if (qr_sparql_store_write_ntriples(st, &nt)) {
            fprintf(stderr, "quarry: out of memory\n");
            status = EXIT_FAILED;
        } else if (!strcmp(export_nt, "-")) {
            fwrite(nt.p ? nt.p : "", 1, nt.len, stdout);
        } else if (qr_write_file_atomic(export_nt, nt.p ? nt.p : "", nt.len, 0644)) {
            char msg[300];
            snprintf(msg, sizeof msg, "cannot write '%s': %s", export_nt, strerror(errno));
            cli_error(efmt, "error", 0, 0, msg);
            status = EXIT_FAILED;
        }
        qr_buf_release(&nt);
        goto done;
    }
    lim.now = qr_clock_now();
    lim.stop = &cli_req()->stop; /* the first SIGINT or SIGTERM stops the query */
    if (repeat) {
        double *ts = calloc(repeat, sizeof(double));
        if (!ts) {
            status = EXIT_FAILED;
            goto done;
        }
        for (uint64_t k = 0; k < repeat; k++) {
            double t0 = now_ms();
            if (k == 0)
                fprintf(stderr, "load: %.1f ms (%zu triples)\n", t0 - t_load,
                        qr_sparql_store_size(st));
            if (qr_sparql_exec(st, q, &lim, &res, &err)) {
                free(ts);
                status = error_exit(&err, efmt);
                goto done;
            }
            ts[k] = now_ms() - t0;
            if (k + 1 < repeat) {
                qr_sparql_result_free(res);
                res = NULL;
            }
        }
        for (uint64_t i = 1; i < repeat; i++)
            for (uint64_t j = i; j > 0 && ts[j - 1] > ts[j]; j--) {
                double x = ts[j];
                ts[j] = ts[j - 1];
                ts[j - 1] = x;
            }
        fprintf(stderr, "query: best %.2f ms, median %.2f ms over %llu runs, %zu rows\n", ts[0],
                ts[repeat / 2], (unsigned long long)repeat, qr_sparql_result_nrows(res));
        free(ts);
    } else if (qr_sparql_exec(st, q, &lim, &res, &err)) {
        status = error_exit(&err, efmt);
        goto done;
    }
    qr_buf out;
    qr_buf_init(&out);
    qr_sparql_write(res, (qr_sparql_format)ofmt, 0, 0, &out);
    if (out.failed) {
        fprintf(stderr, "quarry: out of memory\n");
        status = EXIT_FAILED;
    } else {
        fwrite(out.p ? out.p : "", 1, out.len, stdout);
    }
    qr_buf_release(&out);
done:
    qr_sparql_result_free(res);
    qr_sparql_query_free(q);
    qr_sparql_store_free(st);
    free(text);
    free(uri);
    free(data);
    free(graphs);
    return status;
}
