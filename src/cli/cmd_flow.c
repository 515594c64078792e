/*
 * cmd_flow.c: `quarry flow check|fmt|run`: the workflow language (quarry/flow.h,
 * docs/flow.md).
 *
 *   check FILE|DIR... [--format text|json] [--strict]
 *       diagnostics as compilers print them (or one JSON document); exit 0 when every
 *       file is valid (warnings allowed unless --strict), 1 when one has errors, 2 when a
 *       file cannot be read. A directory stands for its *.flow and *.sr files, recursively.
 *   fmt FILE... [--check] [--stdout]
 *       rewrites each file in the canonical layout (atomically); --check only says which
 *       files would change (exit 1 when some would); --stdout prints instead of writing.
 *   run FILE [--flow NAME] [--input TEXT] [--trace FILE] [budgets]
 *       runs the entry point (cmd_flow_run.c).
 *
 * Diagnostics go to stdout for check (they are its output) and to stderr for fmt and run.
 */
#define _XOPEN_SOURCE 700 /* strdup */
#include "command.h"

#include "quarry/flow.h"
#include "quarry/host.h"
#include "quarry/llm.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


const char cli_flow_page[] =
    "usage: quarry flow check FILE|DIR... [--format text|json] [--strict]\n"
    "       quarry flow fmt FILE... [--check] [--stdout]\n"
    "       quarry flow run FILE [--flow NAME] [--input TEXT] [--trace FILE]\n"
    "\n"
    "The workflow language of seed 001: models, tools, schemas, prompts, agents and flows\n"
    "in one .flow (or .sr) file. docs/flow.md describes it.\n"
    "\n"
    "check   report errors and warnings with codes (E0001...), positions and help;\n"
    "        --format json prints {\"files\":[{\"file\",\"valid\",\"diagnostics\"}]};\n"
    "        --strict makes warnings fail too\n"
    "fmt     rewrite files in the canonical layout; --check lists files that would change\n"
    "        (exit 1 if any), --stdout prints the result instead of writing\n"
    "run     run the flow 'main' (else the only flow, else the agent 'main', else the\n"
    "        only agent); see 'quarry flow run --help'\n"
    "\n"
    "exit status: 0 valid / done, 1 errors found (or the run failed), 2 bad usage or a\n"
    "file that cannot be read.\n";

/* Files can be large (a generated workflow), but not unbounded. */
#define FLOW_FILE_MAX (64u << 20)

typedef struct file_list {
    char **v;
    size_t n, cap;
} file_list;

static bool list_add(file_list *l, const char *path)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 8;
        char **v = realloc(l->v, nc * sizeof *v);
        if (!v)
            return false;
        l->v = v;
        l->cap = nc;
    }
    l->v[l->n] = strdup(path);
    return l->v[l->n++] != NULL;
}

static void list_free(file_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

static bool flow_ext(const char *name)
{
    size_t n = strlen(name);
    return (n > 5 && !strcmp(name + n - 5, ".flow")) || (n > 3 && !strcmp(name + n - 3, ".sr"));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.flow and *.sr files under dir, sorted, recursively (depth-bounded). */
static void walk_dir(file_list *l, const char *dir, int depth)
{
    if (depth > 32)
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    file_list here = {0};
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            list_add(&here, e->d_name);
    closedir(d);
    qsort(here.v, here.n, sizeof *here.v, cmp_str);
    for (size_t i = 0; i < here.n; i++) {
        size_t len = strlen(dir) + strlen(here.v[i]) + 2;
        char *p = malloc(len);
        if (!p)
            break;
        snprintf(p, len, "%s/%s", dir, here.v[i]);
        struct stat st;
        if (stat(p, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                walk_dir(l, p, depth + 1);
            else if (S_ISREG(st.st_mode) && flow_ext(here.v[i]))
                list_add(l, p);
        }
        free(p);
    }
    list_free(&here);
}

/* The files of the words: each directory's *.flow and *.sr files, recursively. */
static void collect_files(const cli_args *args, file_list *files)
{
    size_t n;
    const char **words = cli_arg_strs(args, "files", &n);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(words[i], &st) == 0 && S_ISDIR(st.st_mode))
            walk_dir(files, words[i], 0);
        else
            list_add(files, words[i]);
    }
}

int cli_flow_check(const cli_args *args)
{
    bool json = !strcmp(cli_arg_str(args, "format", "text"), "json");
    bool strict = cli_arg_bool(args, "strict");
    file_list files = {0};
    int rc = EXIT_OK;
    collect_files(args, &files);
    if (!files.n) {
        cli_usage_error("flow check", "give at least one file or directory");
        list_free(&files);
        return EXIT_USAGE;
    }
    qr_buf out;
    qr_buf_init(&out);
    if (json)
        qr_buf_puts(&out, "{\"files\":[");
    bool color = !json && isatty(1) && !getenv("NO_COLOR");
    size_t total_err = 0, total_warn = 0;
    for (size_t i = 0; i < files.n; i++) {
        const char *path = files.v[i];
        char *src = NULL;
        size_t n = 0;
        int r = qr_read_file(path, FLOW_FILE_MAX, &src, &n);
        if (json && i)
            qr_buf_putc(&out, ',');
        if (r != QR_OK) {
            const char *why = r == QR_EINVAL ? "larger than 64 MB" : strerror(errno);
            fprintf(stderr, "quarry flow check: cannot read '%s': %s\n", path, why);
            if (json) {
                qr_buf_puts(&out, "{\"file\":");
                qr_buf_json_string(&out, path, strlen(path));
                qr_buf_puts(&out, ",\"valid\":false,\"error\":");
                qr_buf_printf(&out, "\"cannot read: %s\",\"diagnostics\":[]}", why);
            }
            rc = EXIT_USAGE;
            continue;
        }
        qr_arena a;
        qr_arena_init(&a, 0);
        qr_flow_diags d;
        qr_flow_diags_init(&d);
        r = qr_flow_check_text(&a, src, n, NULL, &d);
        if (r != QR_OK) {
            fprintf(stderr, "quarry flow check: out of memory checking '%s'\n", path);
            rc = EXIT_USAGE;
        }
        if (json) {
            qr_flow_diags_json(&d, path, strict, &out);
        } else {
            qr_flow_diags_render(&d, path, src, n, color, &out);
            if (!d.n)
                qr_buf_printf(&out, "%s: ok\n", path);
            else
                qr_buf_printf(&out, "%s: %zu error%s, %zu warning%s\n", path, d.errors,
                              d.errors == 1 ? "" : "s", d.warnings, d.warnings == 1 ? "" : "s");
        }
        total_err += d.errors;
        total_warn += d.warnings;
        if ((d.errors || (strict && d.warnings)) && rc == EXIT_OK)
            rc = EXIT_FAILED;
        qr_flow_diags_clear(&d);
        qr_arena_release(&a);
        free(src);
        fwrite(out.p ? out.p : "", 1, out.len, stdout);
        qr_buf_reset(&out);
    }
    if (json)
        qr_buf_puts(&out, "]}\n");
    fwrite(out.p ? out.p : "", 1, out.len, stdout);
    qr_buf_release(&out);
    list_free(&files);
    (void)total_err, (void)total_warn;
    return rc;
}

int cli_flow_fmt(const cli_args *args)
{
    bool check = cli_arg_bool(args, "check"), to_stdout = cli_arg_bool(args, "stdout");
    file_list files = {0};
    collect_files(args, &files);
    if (!files.n) {
        cli_usage_error("flow fmt", "give at least one file");
        list_free(&files);
        return EXIT_USAGE;
    }
    int rc = EXIT_OK;
    for (size_t i = 0; i < files.n; i++) {
        const char *path = files.v[i];
        char *src = NULL;
        size_t n = 0;
        int r = qr_read_file(path, FLOW_FILE_MAX, &src, &n);
        if (r != QR_OK) {
            fprintf(stderr, "quarry flow fmt: cannot read '%s': %s\n", path,
                    r == QR_EINVAL ? "larger than 64 MB" : strerror(errno));
            rc = EXIT_USAGE;
            continue;
        }
        qr_arena a;
        qr_arena_init(&a, 0);
        qr_flow_diags d;
        qr_flow_diags_init(&d);
        qr_flow_file *f = NULL;
        r = qr_flow_parse(&a, src, n, &f, &d);
        qr_flow_diags_sort(&d);
        qr_buf out;
        qr_buf_init(&out);
        if (r != QR_OK || d.errors) {
            qr_flow_diags_render(&d, path, src, n, false, &out);
            fprintf(stderr, "%squarry flow fmt: '%s' has syntax errors; not formatted\n",
                    out.p ? out.p : "", path);
            if (rc == EXIT_OK)
                rc = EXIT_FAILED;
        } else if (qr_flow_format(f, &out) != QR_OK) {
            fprintf(stderr, "quarry flow fmt: out of memory formatting '%s'\n", path);
            rc = EXIT_USAGE;
        } else if (to_stdout) {
            fwrite(out.p ? out.p : "", 1, out.len, stdout);
        } else if (out.len != n || memcmp(out.p ? out.p : "", src, n)) {
            if (check) {
                printf("%s\n", path);
                if (rc == EXIT_OK)
                    rc = EXIT_FAILED;
            } else if (qr_write_file_atomic(path, out.p ? out.p : "", out.len, 0644) != QR_OK) {
                fprintf(stderr, "quarry flow fmt: cannot write '%s': %s\n", path,
                        strerror(errno));
                rc = EXIT_USAGE;
            }
        }
        qr_buf_release(&out);
        qr_flow_diags_clear(&d);
        qr_arena_release(&a);
        free(src);
    }
    list_free(&files);
    return rc;
}

static const char run_usage[] =
    "usage: quarry flow run FILE [OPTIONS]\n"
    "\n"
    "Checks FILE, then runs its entry point: the flow 'main', else the only flow, else\n"
    "the agent 'main', else the only agent. Prints what the flow returns (a string as\n"
    "is, anything else as JSON); 'log' lines go to stderr.\n"
    "\n"
    "The model is quarry's configured one (QUARRY_LLM_URL, QUARRY_LLM_API_KEY...); a\n"
    "'model' declaration picks the model name and the wire format (anthropic/... or\n"
    "openai-compatible). docs/flow.md tells more.\n"
    "\n"
    "options:\n"
    "  --flow NAME        run this flow (or agent) instead\n"
    "  --input TEXT       the run's input (input_prompt); --input - reads stdin\n"
    "  --trace FILE       write every step as JSON lines: prompts, replies, tool calls,\n"
    "                     durations, tokens (never the API key)\n"
    "  --max-calls N      budget of model calls (default %u)\n"
    "  --max-tokens N     budget of tokens, input and output (default %u)\n"
    "  --max-time-ms N    budget of wall time (default %u)\n"
    "  --max-steps N      budget of statements, loop turns and function work (default %u)\n"
    "  --max-memory SIZE  budget of the memory the run's values take (default %zuM);\n"
    "                     e.g. 512M or 2G; parallel statements share it\n"
    "  --max-turns N      model turns of one agent run (default %u)\n"
    "  --workers N        statements of a 'parallel do' run at once (default %u)\n"
    "  --allow-write files  offer agents edit_file too (the files group: read_file,\n"
    "                     search_files, and edit_file only with this flag)\n"
    "  --repo DIR         the repository the git and files tools read (default: the\n"
    "                     working directory's)\n"
    "\n"
    "exit status: 0 done, 1 the file has errors or the run failed, 2 bad usage, an\n"
    "unreadable file or a bad configuration.\n";

/* The work tree holding dir (for .quarry.toml): the nearest parent with a .git entry. */
static char *work_tree(const char *dir)
{
    char buf[PATH_MAX];
    if (!realpath(dir ? dir : ".", buf))
        return NULL;
    for (;;) {
        char probe[PATH_MAX + 8];
        struct stat st;
        snprintf(probe, sizeof probe, "%s/.git", buf);
        if (stat(probe, &st) == 0)
            return strdup(buf);
        char *slash = strrchr(buf, '/');
        if (!slash || slash == buf)
            return NULL;
        *slash = 0;
    }
}

static void run_trace(void *ud, const char *line, size_t n)
{
    FILE *f = ud;
    fwrite(line, 1, n, f);
    fputc('\n', f);
    fflush(f);
}

static void run_log(void *ud, const char *line)
{
    (void)ud;
    fprintf(stderr, "log: %s\n", line);
}

static void retry_note(void *ud, const char *line)
{
    (void)ud;
    fprintf(stderr, "quarry: %s\n", line);
}

void cli_flow_run_page(FILE *f)
{
    fprintf(f, run_usage, QR_FLOW_DEFAULT_CALLS, QR_FLOW_DEFAULT_TOKENS, QR_FLOW_DEFAULT_MS,
            QR_FLOW_DEFAULT_STEPS, QR_FLOW_DEFAULT_MEMORY >> 20, QR_FLOW_DEFAULT_TURNS,
            QR_FLOW_DEFAULT_WORKERS);
}

int cli_flow_run_args(const cli_args *args)
{
    const char *file = cli_arg_str(args, "file", NULL), *flow = cli_arg_str(args, "flow", NULL);
    const char *input = cli_arg_str(args, "input", NULL), *trace = cli_arg_str(args, "trace", NULL);
    const char *repo = args->repo, *v0;
    bool write_files = false;
    if ((v0 = cli_arg_str(args, "allow-write", NULL))) {
        if (strcmp(v0, "files")) {
            cli_usage_error("flow run", "bad --allow-write '%s': a flow's agents may write only "
                                        "'files'", v0);
            return EXIT_USAGE;
        }
        write_files = true;
    }
    qr_flow_budget b; /* the library's defaults, then what the options say */
    qr_flow_budget_default(&b);
    const char *v;
    if ((v = cli_arg_str(args, "max-memory", NULL))) {
        size_t sz = 0;
        if (!cli_parse_size(v, &sz) || sz < 4096) {
            cli_usage_error("flow run", "--max-memory takes a size of at least 4K (e.g. "
                                        "512M or 2G), not '%s'", v);
            return EXIT_USAGE;
        }
        b.max_memory = sz;
    }
    if ((v = cli_arg_str(args, "max-steps", NULL))) {
        uint64_t n;
        if (!cli_parse_u64(v, &n) || !n) {
            cli_usage_error("flow run", "--max-steps takes a positive whole number, not '%s'", v);
            return EXIT_USAGE;
        }
        b.max_steps = n;
    }
    static const char *const counts[] = {"max-calls", "max-tokens", "max-time-ms", "max-turns",
                                         "workers"};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        uint64_t n;
        if (!(v = cli_arg_str(args, counts[k], NULL)))
            continue;
        if (!cli_parse_u64(v, &n) || n > UINT32_MAX) {
            cli_usage_error("flow run", "--%s takes a whole number, not '%s'", counts[k], v);
            return EXIT_USAGE;
        }
        if (!n && k < 3) { /* a budget of 0 would mean the library's default, not "none" */
            cli_usage_error("flow run", "--%s takes a positive whole number, not '%s'", counts[k],
                            v);
            return EXIT_USAGE;
        }
        if (k == 0)
            b.max_calls = (uint32_t)n;
        else if (k == 1)
            b.max_tokens = n;
        else if (k == 2)
            b.max_ms = (uint32_t)n;
        else if (k == 3)
            b.max_turns = n ? (uint32_t)n : 1;
        else
            b.workers = n ? (uint32_t)(n > 64 ? 64 : n) : 1;
    }
    if (!file) {
        cli_usage_error("flow run", "give the flow file to run");
        return EXIT_USAGE;
    }
    char *src = NULL, *in_text = NULL;
    size_t n = 0, in_len = 0;
    if (qr_read_file(file, FLOW_FILE_MAX, &src, &n) != QR_OK) {
        fprintf(stderr, "quarry flow run: cannot read '%s': %s\n", file, strerror(errno));
        return EXIT_USAGE;
    }
    if (input && !strcmp(input, "-")) {
        if (qr_read_file("-", FLOW_FILE_MAX, &in_text, &in_len) != QR_OK) {
            fprintf(stderr, "quarry flow run: cannot read the input from stdin\n");
            free(src);
            return EXIT_USAGE;
        }
    }
    int status = EXIT_OK;
    char *root = NULL;
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_flow_diags d;
    qr_flow_diags_init(&d);
    qr_flow_file *f = NULL;
    qr_flow_check_text(&a, src, n, &f, &d);
    if (d.n) {
        qr_buf out;
        qr_buf_init(&out);
        qr_flow_diags_render(&d, file, src, n, false, &out);
        fputs(out.p ? out.p : "", stderr);
        qr_buf_release(&out);
    }
    if (d.errors) {
        fprintf(stderr, "quarry flow run: '%s' has %zu error%s; nothing was run\n", file,
                d.errors, d.errors == 1 ? "" : "s");
        status = EXIT_FAILED;
        goto done;
    }
    qr_llm_config cfg;
    qr_llm_config_init(&cfg);
    char cerr[400] = "";
    root = work_tree(repo);
    int rc = qr_llm_config_load(&cfg, root, cerr, sizeof cerr);
    if (rc != QR_OK) {
        fprintf(stderr, "quarry flow run: %s\n", cerr[0] ? cerr : "bad model configuration");
        qr_llm_config_clear(&cfg);
        status = EXIT_USAGE;
        goto done;
    }
    FILE *tf = NULL;
    if (trace && !(tf = fopen(trace, "w"))) {
        fprintf(stderr, "quarry flow run: cannot write the trace file '%s': %s\n", trace,
                strerror(errno));
        qr_llm_config_clear(&cfg);
        status = EXIT_USAGE;
        goto done;
    }
    qr_tools *tools = qr_tools_default();
    qr_host host;
    qr_host_init(&host, repo);
    host.git.warn = cli_warn;
    if (tools)
        qr_tools_set_ctx(tools, &host);
    qr_flow_run_opts o;
    memset(&o, 0, sizeof o);
    o.flow = flow;
    o.input = in_text ? in_text : input;
    o.inputn = in_text ? in_len : input ? strlen(input) : 0;
    o.llm = &cfg;
    o.tools = tools;
    o.budget = b;
    if (tf) {
        o.trace = run_trace;
        o.trace_ud = tf;
    }
    o.log = run_log;
    o.req = cli_req(); /* Ctrl-C stops the run, its tools and its model calls */
    o.root = root; /* the files group's working tree */
    o.host = &host;
    o.write_files = write_files;
    (void)retry_note;
    qr_flow_result r;
    rc = qr_flow_run(f, &o, &r);
    if (rc == QR_OK) {
        fwrite(r.value ? r.value : "", 1, r.len, stdout);
        if (r.len && r.value[r.len - 1] != '\n')
            fputc('\n', stdout);
    } else {
        fprintf(stderr, "quarry flow run: %s\n", r.error[0] ? r.error : "the run failed");
        status = EXIT_FAILED;
    }
    qr_flow_result_clear(&r);
    qr_host_release(&host);
    qr_tools_free(tools);
    if (tf)
        fclose(tf);
    qr_llm_config_clear(&cfg);
done:
    free(root);
    qr_flow_diags_clear(&d);
    qr_arena_release(&a);
    free(src);
    free(in_text);
    return status;
}
