/*
 * cmd_mem_query.c: `quarry mem query`: runs a pipeline (docs/pipeline.md) on the memory
 * store and prints one row per selected note: key, type, weight, score, modified, degree.
 *
 * The pipeline is the words before the options joined by spaces (so `quarry mem query
 * btree journal` searches and `quarry mem query 'all | limit:5'` selects), then each
 * -p STAGE in order, as the seed's `-p` flag; with both, the words come first. --explain
 * prints each stage with the count after it and its time on stderr; --repeat N runs it N
 * times in the process and prints the best, median and mean times (for benchmarks: the
 * cost of the pipeline without the process start and the store's first load).
 *
 * Output: a table on a terminal, else JSON (an array, one row per line) or EDN. A bad
 * pipeline exits 2 with one line naming the stage and byte ({"error": {"kind":
 * "invalid-pipeline", "message", "stage" (from 1), "offset"}} with --format json); a
 * failure while running exits 1.
 *
 * Rejected: printing content (mem get does, and the memory_query tool gives a cut of it);
 * an output --limit (the pipeline's limit: stage says it in the language).
 */
#include "cmd_mem_query.h"

#include "quarry/date.h"
#include "quarry/pipeline.h"
#include "quarry/tools.h"
#include "quarry/value.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char cmd_mem_query_help[] =
    "\nrun a pipeline of stages over the notes and print the nodes it selects\n"
    "\n"
    "  all | type:episodic | not-visited:linker,7d | sort:priority | limit:20\n"
    "  match:btree journal | spread,max_hops=2 | limit:10\n"
    "  btree journal | spread            (leading bare words: match:)\n"
    "\noptions:\n"
    "  -p, --stage STAGE     one stage (repeatable; after the words of the pipeline)\n"
    "  --explain             each stage, the count after it and its time, on stderr\n"
    "  --now TIME            the time age: and visits compare with (ISO-8601 or unix\n"
    "                        seconds; default: the clock)\n"
    "  --no-cache            neither read nor write STORE.spectral (the cached embedding)\n"
    "  --repeat N            run N times; print best/median/mean times on stderr\n"
    "  --stages              list the stages and exit\n"
    "\nrows: key, type, weight, score, modified, degree. See docs/pipeline.md.\n";

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void print_stages(void)
{
    for (size_t i = 0; i < qr_pipeline_stage_count(); i++) {
        const qr_pipeline_stage_info *s = qr_pipeline_stage_at(i);
        printf("%-11s %-10s %s\n    %s\n", s->name, qr_pipeline_kind_name(s->kind), s->syntax,
               s->summary);
    }
}

static void pipeline_error(cli_format fmt, const qr_pipeline_error *e)
{
    if (fmt == FMT_JSON) {
        qr_buf b;
        qr_buf_init(&b);
        qr_buf_puts(&b, "{\"error\":{\"kind\":\"invalid-pipeline\",\"message\":");
        qr_buf_json_string(&b, e->message, strlen(e->message));
        if (e->stage >= 0)
            qr_buf_printf(&b, ",\"stage\":%d", e->stage + 1);
        qr_buf_printf(&b, ",\"offset\":%u}}\n", e->offset);
        fputs(b.p ? b.p : "", stderr);
        qr_buf_release(&b);
        return;
    }
    fprintf(stderr, "quarry: invalid pipeline: %s\n", e->message);
}

static qr_val row(qr_arena *a, const qr_mem_snapshot *s, const qr_pipeline_hit *h)
{
    uint32_t i = h->node;
    char iso[QR_DATE_ISO_LEN];
    qr_date_format_iso(s->modified[i], 0, iso, sizeof iso);
    size_t n = strlen(iso);
    if (n >= 6 && !strcmp(iso + n - 6, "+00:00")) {
        iso[n - 6] = 'Z';
        iso[n - 5] = 0;
    }
    qr_mapb b;
    qr_mapb_init(&b, a, 6);
    qr_mapb_put(&b, qr_kw_cstr(a, "key"), qr_str_new(a, s->key[i], s->key_len[i]));
    qr_mapb_put(&b, qr_kw_cstr(a, "type"), qr_str_cstr(a, s->types[s->type[i]]));
    /* weights are floats in the snapshot: print the decimal they were written as */
    qr_mapb_put(&b, qr_kw_cstr(a, "weight"), qr_double(round((double)s->weight[i] * 1e6) / 1e6));
    /* a float's precision, in its shortest form (0.45, not 0.44999998807907104) */
    qr_mapb_put(&b, qr_kw_cstr(a, "score"), qr_double(qr_pipeline_score_shown(h->score)));
    qr_mapb_put(&b, qr_kw_cstr(a, "modified"), qr_str_cstr(a, iso));
    qr_mapb_put(&b, qr_kw_cstr(a, "degree"),
                qr_int((int64_t)(s->graph.off[i + 1] - s->graph.off[i])));
    return qr_mapb_finish(&b, QR_T_MAP);
}

static void print_rows(cli_format fmt, const qr_pipeline_result *r)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_buf b;
    qr_buf_init(&b);
    if (fmt == FMT_TABLE) {
        qr_vecb vb;
        qr_vecb_init(&vb, &a, r->n);
        for (size_t i = 0; i < r->n; i++)
            qr_vecb_push(&vb, row(&a, r->snap, &r->hits[i]));
        if (r->n)
            qr_tools_render_table_width(&b, qr_vecb_finish(&vb, QR_T_VEC), cli_table_width());
        else
            qr_buf_puts(&b, "(no nodes)\n");
    } else {
        /* an array with one row per line, so that line tools work on it */
        qr_buf_putc(&b, '[');
        for (size_t i = 0; i < r->n; i++) {
            qr_arena_mark mk = qr_arena_get_mark(&a);
            if (i)
                qr_buf_puts(&b, fmt == FMT_EDN ? "\n " : ",\n ");
            if (fmt == FMT_EDN) {
                qr_print(&b, row(&a, r->snap, &r->hits[i]), QR_PRINT_READABLY);
            } else {
                qr_print_json(&b, row(&a, r->snap, &r->hits[i]), false);
            }
            qr_arena_rewind(&a, mk);
        }
        qr_buf_puts(&b, "]\n");
    }
    if (!b.failed && b.len)
        fwrite(b.p, 1, b.len, stdout);
    qr_buf_release(&b);
    qr_arena_release(&a);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

int cmd_mem_query(int argc, char **argv, cli_mem_opts *o)
{
    const char **stages = calloc((size_t)argc + 1, sizeof *stages);
    qr_buf words;
    qr_buf_init(&words);
    bool explain = false, no_cache = false;
    int64_t now = 0;
    long repeat = 0;
    size_t nst = 0;
    int status = EXIT_USAGE;
    qr_pipeline *p = NULL;
    qr_mem *m = NULL;
    if (!stages) {
        fprintf(stderr, "quarry: out of memory\n");
        return EXIT_FAILED;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int c = cli_mem_option(argc, argv, &i, o);
        if (c == 2) {
            status = EXIT_OK;
            goto done;
        }
        if (c < 0)
            goto done;
        if (c == 1)
            continue;
        if (!strcmp(a, "-p") || !strcmp(a, "--stage")) {
            if (i + 1 >= argc) {
                status = cli_mem_usage(o, "option '%s' needs a stage", a);
                goto done;
            }
            stages[nst++] = argv[++i];
        } else if (!strcmp(a, "--explain")) {
            explain = true;
        } else if (!strcmp(a, "--no-cache")) {
            no_cache = true;
        } else if (!strcmp(a, "--stages")) {
            print_stages();
            status = EXIT_OK;
            goto done;
        } else if (!strcmp(a, "--now")) {
            char msg[QR_DATE_ERR_LEN];
            if (i + 1 >= argc) {
                status = cli_mem_usage(o, "option '--now' needs a time");
                goto done;
            }
            const char *t = argv[++i];
            if (qr_clock_parse(t, strlen(t), &now, msg, sizeof msg) != QR_OK) {
                status = cli_mem_usage(o, "option '--now': %s", msg);
                goto done;
            }
        } else if (!strcmp(a, "--repeat")) {
            char *end;
            if (i + 1 >= argc || (repeat = strtol(argv[i + 1], &end, 10)) < 1 || *end ||
                repeat > 100000) {
                status = cli_mem_usage(o, "option '--repeat' needs a count from 1 to 100000");
                goto done;
            }
            i++;
        } else if (a[0] == '-' && a[1] && strcmp(a, "-")) {
            status = cli_mem_unknown_option(o, a);
            goto done;
        } else {
            if (nst) {
                status = cli_mem_usage(
                    o, "pipeline words after -p: put '%s' before the -p stages or in a -p", a);
                goto done;
            }
            if (words.len)
                qr_buf_putc(&words, ' ');
            qr_buf_puts(&words, a);
        }
    }
    cli_format fmt = cli_mem_format(o);
    if (!words.len && !nst) {
        status = cli_mem_usage(o, "no pipeline: give it as an argument or with -p STAGE");
        goto done;
    }
    qr_pipeline_error perr;
    int rc;
    if (words.len && nst) {
        /* the words' stages, then the -p stages, each kept whole */
        qr_buf all;
        qr_buf_init(&all);
        qr_buf_append(&all, words.p, words.len);
        for (size_t k = 0; k < nst; k++) {
            qr_buf_puts(&all, " | ");
            qr_buf_puts(&all, stages[k]);
        }
        rc = qr_pipeline_parse(all.p ? all.p : "", all.len, &p, &perr);
        qr_buf_release(&all);
    } else if (words.len) {
        rc = qr_pipeline_parse(words.p, words.len, &p, &perr);
    } else {
        rc = qr_pipeline_parse_stages(stages, nst, &p, &perr);
    }
    if (rc) {
        if (rc == QR_ENOMEM) {
            cli_error(o->asked, "error", 0, 0, "out of memory");
            status = EXIT_FAILED;
        } else {
            pipeline_error(o->asked, &perr);
            status = EXIT_USAGE;
        }
        goto done;
    }
    if ((status = cli_mem_open(o, false, &m)) != EXIT_OK)
        goto done;
    qr_pipeline_cache *cache = qr_pipeline_cache_new();
    qr_pipeline_result res = {0};
    qr_pipeline_result_stats stats = {0};
    qr_pipeline_run_opts ro = {0};
    ro.now = now;
    ro.cache = cache;
    ro.no_file_cache = no_cache;
    ro.stats = explain ? &stats : NULL;
    qr_buf err;
    qr_buf_init(&err);
    double t0 = now_ms();
    rc = cache ? qr_pipeline_run_ex(p, m, &ro, &res, &err) : QR_ENOMEM;
    double total = now_ms() - t0;
    if (!rc && repeat > 0) {
        double *times = malloc((size_t)repeat * sizeof *times);
        ro.stats = NULL;
        for (long k = 0; times && k < repeat && !rc; k++) {
            qr_pipeline_result again = {0};
            double t1 = now_ms();
            rc = qr_pipeline_run_ex(p, m, &ro, &again, &err);
            times[k] = now_ms() - t1;
            qr_pipeline_result_clear(&again);
        }
        if (times && !rc) {
            double sum = 0;
            for (long k = 0; k < repeat; k++)
                sum += times[k];
            qsort(times, (size_t)repeat, sizeof *times, cmp_double);
            fprintf(stderr,
                    "quarry mem query: %ld runs in process: best %.3f ms, median %.3f ms, mean "
                    "%.3f ms (first run %.3f ms)\n",
                    repeat, times[0], times[repeat / 2], sum / (double)repeat, total);
        }
        free(times);
    }
    if (rc) {
        cli_error(o->asked, "error", 0, 0, err.p && err.len ? err.p : "the pipeline failed");
        status = EXIT_FAILED;
    } else {
        if (explain) {
            qr_buf t;
            qr_buf_init(&t);
            qr_pipeline_text(p, &t);
            fprintf(stderr, "pipeline: %s\n", t.p ? t.p : "");
            qr_buf_release(&t);
            for (size_t k = 0; k < stats.nstats; k++)
                fprintf(stderr, "%3zu  %-40s %9zu  %9.3f ms%s%s\n", k + 1, stats.stats[k].stage,
                        stats.stats[k].count, stats.stats[k].ms, *stats.stats[k].note ? "  " : "",
                        stats.stats[k].note);
            fprintf(stderr, "total %.3f ms\n", total);
        }
        print_rows(fmt, &res);
        status = EXIT_OK;
    }
    qr_buf_release(&err);
    qr_pipeline_stats_clear(&stats);
    qr_pipeline_result_clear(&res);
    qr_pipeline_cache_free(cache);
done:
    qr_pipeline_free(p);
    if (m)
        qr_mem_close(m);
    qr_buf_release(&words);
    free(stages);
    return status;
}
