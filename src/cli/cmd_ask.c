/*
 * cmd_ask.c: `quarry ask "QUESTION"`: answers a question about the repository by the
 * cheapest tier of the cost ladder that can (quarry/ask.h, docs/ask.md): the router with
 * no model, else the Architect and, as needed, the Compiler or a Fetcher/Evaluator plan.
 * Prints the answer as `quarry query` prints a result (a summary line and the findings
 * as a table on a terminal, JSON otherwise); --explain adds, on stderr, the tier, the
 * query, the compiled program and each model call with its tokens and time; --trace FILE
 * writes every step as JSON lines in the common trace format (docs/trace.md).
 *
 * The first question on a repository builds its statistics index first (with the
 * progress bar of `quarry index`), outside the time limit of the question's programs:
 * building is not the question's time (issue 25: a 12K-commit history took 17 s to index,
 * then the question failed on its 10 s limit). A stop (SIGINT) during it says what to
 * run; a program that reaches its time limit on a repository whose index lacks commits
 * says so, and that `quarry index` fills it. Only a missing index is built here: telling
 * a stale one from a complete one walks the whole history (qr_git_index_status), which
 * would double the time of a question answered from the index.
 *
 * Exit status: 0 answered; 1 the run failed (model unreachable, output unusable after a
 * repair, budget spent, a query failing); 2 bad usage, no repository at --repo, a bad
 * configuration, or a question that needs a model when none is configured.
 *
 * Rejected: printing the explanation on stdout (it would break `--format json | jq`).
 */
#define _XOPEN_SOURCE 700 /* realpath, strdup */
#include "command.h"

#include "quarry/ask.h"
#include "quarry/codesearch.h"
#include "quarry/git.h"
#include "quarry/host.h"
#include "quarry/llm.h"
#include "quarry/tools.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char cli_ask_page[] =
    "usage: quarry ask \"QUESTION\" [OPTIONS]\n"
    "\n"
    "Answers a question about the repository's history in plain words, for the fewest\n"
    "model calls: common questions (\"commits from last week\", \"who contributed most this\n"
    "month\", \"history of src/main.c\") are recognised and answered with no model at all;\n"
    "anything else goes to a model, which writes a query (1 call), an intent that a second\n"
    "call compiles (2), or a plan run step by step (3 to 7). docs/ask.md tells more.\n"
    "\n"
    "The model is configured with QUARRY_LLM_URL, QUARRY_LLM_MODEL, QUARRY_LLM_API_KEY and\n"
    "QUARRY_LLM_PROVIDER (openai|anthropic), or an [llm] table in\n"
    "~/.config/quarry/config.toml or the repository's .quarry.toml (docs/llm.md).\n"
    "Each model request waits at most QUARRY_LLM_TIMEOUT_MS (default 120000) and is\n"
    "retried QUARRY_LLM_MAX_RETRIES times (default 3) on timeouts, 429 and 5xx.\n"
    "Every prompt states today's date and time zone (QUARRY_NOW pins \"now\") and the\n"
    "repository's first and last commit dates.\n"
    "\n"
    "options:\n"
    "  --explain             on stderr: the tier that answered, the query, the compiled\n"
    "                        program, each model call with its tokens and time\n"
    "  --trace FILE          write every step as JSON lines (docs/trace.md): prompts,\n"
    "                        replies, compiled code, tool calls with durations, errors\n"
    "                        (never the API key)\n"
    "  --max-calls N         budget of model calls for the question (default 8)\n"
    "  --no-router           always ask the model (skip the deterministic router)\n"
    "  --format edn|json|table\n"
    "                        how to print the answer (default: table on a terminal, else\n"
    "                        JSON); errors and --explain are JSON too with --format json\n"
    "  --limit-output N      rows of findings a table shows (default 50; 0: all)\n"
    "  --repo DIR            the repository (default: the one containing the working\n"
    "                        directory)\n"
    "  --store FILE          the memory store memory_query reads (default:\n"
    "                        $QUARRY_MEMORY); a program may name no other store\n"
    "  --no-index            compute git statistics without the index\n"
    "  --timeout-ms N        wall time limit of each program run (default 10000)\n"
    "  --max-memory SIZE     memory limit of each program run (default 64M)\n"
    "  --max-steps N         evaluation step limit of each program run\n"
    "  --max-depth N         call depth limit of each program run\n"
    "  --max-output SIZE     println output kept of each program run\n"
    "\n"
    "exit status: 0 answered, 1 the run failed (the error says why), 2 bad usage, a bad\n"
    "configuration, or a question that needs a model when none is configured.\n";

/* The work tree holding dir (for .quarry.toml): the nearest parent with a .git entry. */
static char *work_tree(const char *dir)
{
    char buf[PATH_MAX];
    if (!realpath(dir ? dir : ".", buf))
        return NULL;
    size_t n = strlen(buf);
    for (;;) {
        char probe[PATH_MAX + 8];
        struct stat st;
        snprintf(probe, sizeof probe, "%s/.git", n ? buf : "");
        if (stat(probe, &st) == 0)
            return strdup(buf);
        char *slash = strrchr(buf, '/');
        if (!slash || slash == buf)
            return NULL;
        *slash = 0;
        n = strlen(buf);
    }
}

/* Opens the repository (exit 2 when there is none) and, for its first question, builds
 * the statistics index. Returns EXIT_OK to go on, else the exit status (the error
 * printed). */
static int first_question(const cli_run_opts *ro, const char *question)
{
    qr_git *g = NULL;
    qr_git_index *ix = NULL;
    qr_buf err, path;
    qr_buf_init(&err);
    qr_buf_init(&path);
    int status = EXIT_OK;
    int rc = qr_git_open(ro->repo ? ro->repo : ".", &g, &err);
    if (rc != QR_OK) {
        cli_error(ro->fmt, rc == QR_EINVAL ? "usage" : "error", 0, 0,
                  err.p ? err.p : "cannot open the repository");
        status = rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
        goto done;
    }
    if (ro->no_index || qr_git_index_exists(qr_git_dir(g), &path))
        goto done;
    /* a question the code graph answers with no model needs no commit statistics */
    const char *tname = NULL;
    char *code = qr_codesearch_template(question, &tname);
    free(code);
    if (code)
        goto done;
    bool rebuilt = false;
    if (qr_git_index_open(qr_git_dir(g), &ix, &rebuilt, &err) != QR_OK)
        goto done; /* the tools compute without it, and warn */
    fprintf(stderr, "quarry: building the statistics index (the first question on this "
                    "repository; later ones reuse it)\n");
    int64_t added = 0;
    rc = qr_git_index_update(g, ix, cli_progress, NULL, &cli_req()->stop, &added, &err);
    if (rc == QR_ESTOPPED) {
        char msg[300];
        snprintf(msg, sizeof msg,
                 "%s while building the statistics index (%lld commit%s indexed and kept); "
                 "run 'quarry index' to finish it, then ask again",
                 err.p ? err.p : "stopped", (long long)added, added == 1 ? "" : "s");
        cli_error(ro->fmt, "error", 0, 0, msg);
        status = EXIT_FAILED;
    }
    /* another failure: the question's tools compute without the index */
done:
    qr_git_index_close(ix);
    qr_git_free(g);
    qr_buf_release(&err);
    qr_buf_release(&path);
    return status;
}

/* After a program reached its time limit: how many commits the index lacks (0 when it
 * is complete, absent or unreadable). */
static int64_t index_missing(const cli_run_opts *ro)
{
    qr_git *g = NULL;
    qr_git_index *ix = NULL;
    qr_buf err, path;
    qr_buf_init(&err);
    qr_buf_init(&path);
    int64_t missing = 0;
    bool rebuilt = false;
    if (!ro->no_index && qr_git_open(ro->repo ? ro->repo : ".", &g, &err) == QR_OK &&
        qr_git_index_exists(qr_git_dir(g), &path) &&
        qr_git_index_open(qr_git_dir(g), &ix, &rebuilt, &err) == QR_OK) {
        qr_git_index_state st;
        if (qr_git_index_status(g, ix, &st, &err) == QR_OK)
            missing = st.missing;
    }
    qr_git_index_close(ix);
    qr_git_free(g);
    qr_buf_release(&err);
    qr_buf_release(&path);
    return missing;
}

static void retry_note(void *ud, const char *line)
{
    (void)ud;
    fprintf(stderr, "quarry: %s\n", line);
}

static const char *tier_name(int tier)
{
    switch (tier) {
    case 1:
        return "router";
    case 2:
        return "query";
    case 3:
        return "intent";
    case 4:
        return "plan";
    default:
        return "none";
    }
}

static void explain_text(const qr_ask_result *r, qr_buf *b)
{
    qr_buf_printf(b, "tier %d (%s)", r->tier, tier_name(r->tier));
    if (r->rule)
        qr_buf_printf(b, ", rule %s", r->rule);
    qr_buf_printf(b, ": %zu model call%s, %.1f ms\n", r->ncalls, r->ncalls == 1 ? "" : "s", r->ms);
    if (r->query)
        qr_buf_printf(b, "query: %s\n", r->query);
    if (r->program) {
        qr_buf_puts(b, "program:\n");
        for (const char *p = r->program; *p;) {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            qr_buf_printf(b, "  %.*s\n", (int)n, p);
            p += n + (nl != NULL);
        }
    }
    for (size_t i = 0; i < r->ncalls; i++) {
        const qr_ask_call *c = &r->calls[i];
        qr_buf_printf(b,
                      "call %zu: %s%s: %llu in, %llu out, %llu cache write, %llu cache read; "
                      "%.0f ms%s%s\n",
                      i + 1, c->agent, c->repair ? " (repair)" : "",
                      (unsigned long long)c->usage.input, (unsigned long long)c->usage.output,
                      (unsigned long long)c->usage.cache_write,
                      (unsigned long long)c->usage.cache_read, c->ms,
                      c->attempts > 1 ? ", retried" : "", c->ok ? "" : ", failed");
    }
    if (r->ncalls)
        qr_buf_printf(b, "tokens: %llu in, %llu out, %llu cache write, %llu cache read\n",
                      (unsigned long long)r->total.input, (unsigned long long)r->total.output,
                      (unsigned long long)r->total.cache_write,
                      (unsigned long long)r->total.cache_read);
}

static void usage_json(qr_buf *b, const qr_llm_usage *u)
{
    qr_buf_printf(b, "{\"input\":%llu,\"output\":%llu,\"cache_write\":%llu,\"cache_read\":%llu}",
                  (unsigned long long)u->input, (unsigned long long)u->output,
                  (unsigned long long)u->cache_write, (unsigned long long)u->cache_read);
}

static void explain_json(const qr_ask_result *r, qr_buf *b)
{
    qr_buf_printf(b, "{\"explain\":{\"tier\":%d,\"path\":\"%s\",\"rule\":", r->tier,
                  tier_name(r->tier));
    if (r->rule)
        qr_buf_json_string(b, r->rule, strlen(r->rule));
    else
        qr_buf_puts(b, "null");
    qr_buf_puts(b, ",\"query\":");
    if (r->query)
        qr_buf_json_string(b, r->query, strlen(r->query));
    else
        qr_buf_puts(b, "null");
    qr_buf_puts(b, ",\"program\":");
    if (r->program)
        qr_buf_json_string(b, r->program, strlen(r->program));
    else
        qr_buf_puts(b, "null");
    qr_buf_printf(b, ",\"ms\":%.1f,\"calls\":[", r->ms);
    for (size_t i = 0; i < r->ncalls; i++) {
        const qr_ask_call *c = &r->calls[i];
        qr_buf_printf(b, "%s{\"agent\":\"%s\",\"repair\":%s,\"ok\":%s,\"attempts\":%u,\"ms\":%.1f,"
                         "\"usage\":",
                      i ? "," : "", c->agent, c->repair ? "true" : "false",
                      c->ok ? "true" : "false", c->attempts, c->ms);
        usage_json(b, &c->usage);
        qr_buf_putc(b, '}');
    }
    qr_buf_puts(b, "],\"usage\":");
    usage_json(b, &r->total);
    qr_buf_puts(b, "}}\n");
}

int cli_cmd_ask(const cli_args *args)
{
    const char *question = cli_arg_str(args, "question", NULL);
    const char *trace = cli_arg_str(args, "trace", NULL);
    bool explain = cli_arg_bool(args, "explain"), no_router = cli_arg_bool(args, "no-router");
    uint64_t max_calls = QR_ASK_DEFAULT_MAX_CALLS;
    const char *mc = cli_arg_str(args, "max-calls", NULL);
    if (mc && (!cli_parse_u64(mc, &max_calls) || max_calls == 0 || max_calls > 100)) {
        cli_usage_error("ask", "bad --max-calls '%s': expected 1 to 100", mc);
        return EXIT_USAGE;
    }
    cli_run_opts ro;
    if (cli_run_opts_from(args, &ro) < 0)
        return EXIT_USAGE;
    const char *repo = ro.repo;
    const cli_format fmt = ro.fmt;
    const uint64_t limit = ro.limit;
    if (!question || !question[strspn(question, " \t\n")]) {
        cli_usage_error("ask", "give a question: quarry ask \"commits from last week\"");
        return EXIT_USAGE;
    }

    /* the model, when one is configured */
    qr_llm_config cfg;
    qr_llm_config_init(&cfg);
    char cerr[400] = "";
    char *root = work_tree(repo);
    int rc = qr_llm_config_load(&cfg, root, cerr, sizeof cerr);
    cli_add_secret(cfg.api_key); /* an answer made from the model's replies never prints it */
    free(root);
    if (rc != QR_OK) {
        cli_error(fmt, "config", 0, 0, cerr[0] ? cerr : "cannot load the model configuration");
        qr_llm_config_clear(&cfg);
        return EXIT_USAGE;
    }
    qr_llm *llm = NULL;
    if (qr_llm_configured(&cfg)) {
        llm = qr_llm_new(&cfg);
        if (!llm) {
            fprintf(stderr, "quarry: out of memory\n");
            qr_llm_config_clear(&cfg);
            return EXIT_FAILED;
        }
        qr_llm_set_log(llm, retry_note, NULL);
    }
    qr_llm_config_clear(&cfg);
    /* the repository, after the configuration (whose errors name their own file) */
    int st0 = first_question(&ro, question);
    if (st0 != EXIT_OK) {
        qr_llm_free(llm);
        return st0;
    }

    qr_trace *tf = NULL;
    if (trace) {
        qr_buf terr;
        qr_buf_init(&terr);
        tf = qr_trace_open(trace, &terr);
        if (!tf) {
            cli_error(fmt, "usage", 0, 0, terr.p ? terr.p : "cannot write the trace file");
            qr_buf_release(&terr);
            qr_llm_free(llm);
            return EXIT_USAGE;
        }
        qr_buf_release(&terr);
    }
    qr_tools *tools = qr_tools_default();
    if (!tools) {
        fprintf(stderr, "quarry: out of memory\n");
        qr_llm_free(llm);
        qr_trace_free(tf);
        return EXIT_FAILED;
    }
    /* the programs a model writes read only: no memory writes (docs/capabilities.md) */
    qr_tools_restrict(tools, ~(uint32_t)(QR_TOOL_WRITES | QR_TOOL_DESTROYS |
                                         QR_TOOL_CUMULATIVE | QR_TOOL_EXEC));
    qr_host host;
    cli_host_init(&host, &ro);
    qr_tools_set_ctx(tools, &host);

    qr_ask_opts o;
    qr_ask_opts_init(&o, question, tools, llm);
    o.max_calls = (uint32_t)max_calls;
    o.no_router = no_router;
    o.limits = ro.lim;
    o.repo_span = qr_host_repo_span;
    o.repo_span_ud = &host;
    o.author = qr_host_author;
    o.release = qr_host_release_tag;
    o.file = qr_host_find_file;
    o.tag = qr_host_tag;
    char project[256];
    if (qr_host_project_name(&host, project, sizeof project))
        o.project = project;
    o.author_ud = &host;
    o.req = cli_req();
    o.trace = tf;
    qr_ask_result r;
    rc = qr_ask(&o, &r);
    qr_trace_end(tf, "ask", rc == QR_OK, rc == QR_OK ? NULL : r.error[0] ? r.error : "failed");
    int status = EXIT_OK;
    if (rc == QR_OK) {
        qr_arena scratch;
        qr_arena_init(&scratch, 0);
        cli_format out = fmt != FMT_DEFAULT ? fmt : isatty(1) ? FMT_TABLE : FMT_JSON;
        cli_print_result(&scratch, r.answer, out, (size_t)limit);
        qr_arena_release(&scratch);
    } else {
        int64_t missing = 0;
        if (strstr(r.error, "time limit of") && (missing = index_missing(&ro)) > 0) {
            size_t n = strlen(r.error);
            snprintf(r.error + n, sizeof r.error - n,
                     "; the statistics index lacks %lld commit%s, computed inside that limit: "
                     "run 'quarry index' once, then ask again",
                     (long long)missing, missing == 1 ? "" : "s");
        }
        cli_error(fmt, rc == QR_EINVAL ? "usage" : "ask-failed", 0, 0,
                  r.error[0] ? r.error : "out of memory");
        status = rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
    }
    if (explain) {
        qr_buf b;
        qr_buf_init(&b);
        if (fmt == FMT_JSON)
            explain_json(&r, &b);
        else
            explain_text(&r, &b);
        fputs(b.p ? b.p : "", stderr);
        qr_buf_release(&b);
    }
    qr_ask_result_clear(&r);
    qr_host_release(&host);
    qr_tools_free(tools);
    qr_llm_free(llm);
    qr_trace_free(tf);
    return status;
}
