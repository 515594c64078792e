/*
 * cmd_do.c: `quarry do "task"`: the DWIM loop (quarry/dwim.h) on the configured model.
 * Each turn prints the model's line and the first line of its result; the end prints why
 * the loop stopped and the summary. --trace FILE writes the common trace (docs/trace.md):
 * each model call's events, then a "turn" event (the line, its verb and confidence, the
 * prompt's size), and an "end" event with the totals.
 */
#include "command.h"

#include "quarry/dwim.h"
#include "quarry/host.h"
#include "quarry/llm.h"
#include "quarry/turn.h"

#include <stdlib.h>
#include <string.h>

const char cli_do_page[] =
    "usage: quarry do \"TASK\" [--repo DIR] [--write] [--max-turns N] [--trace FILE]\n"
    "The model answers one terse line per turn (see quarry dwim); the loop ends at done,\n"
    "on a stall, or after N model calls (default 20). --write lets fix change files\n"
    "(quarry dwim undo restores them).\n"
    "exit status: 0 done, 1 stopped before done or the model failed, 2 bad usage or no\n"
    "model configured.\n";

static void show_turn(void *ud, uint32_t turn, const char *line, const char *result)
{
    (void)ud;
    const char *nl = strchr(line, '\n');
    const char *rn = strchr(result, '\n');
    qr_buf b;
    qr_buf_init(&b);
    qr_buf_printf(&b, "%u> %.*s\n", turn, nl ? (int)(nl - line) : (int)strlen(line), line);
    qr_buf_printf(&b, "   %.*s%s\n", rn ? (int)(rn - result) : (int)strlen(result), result,
                  rn && rn[1] ? " ..." : "");
    cli_write(&b, stdout);
    qr_buf_release(&b);
    fflush(stdout);
}

static void retry_note(void *ud, const char *line)
{
    (void)ud;
    fprintf(stderr, "quarry: %s\n", line);
}

int cli_cmd_do(const cli_args *args)
{
    const char *repo = args->repo, *task = cli_arg_str(args, "task", NULL);
    const char *trace = cli_arg_str(args, "trace", NULL);
    bool write = cli_arg_bool(args, "write");
    uint64_t max_turns = 20;
    const char *v = cli_arg_str(args, "max-turns", NULL);
    if (v && (!cli_parse_u64(v, &max_turns) || max_turns == 0 || max_turns > 200)) {
        cli_usage_error("do", "bad --max-turns '%s': expected 1 to 200", v);
        return EXIT_USAGE;
    }
    if (!task || !task[strspn(task, " \t\n")]) {
        cli_usage_error("do", "give a task: quarry do \"bound the stack check in eval.c\"");
        return EXIT_USAGE;
    }
    qr_buf err;
    qr_buf_init(&err);
    char *root = qr_dwim_find_root(repo ? repo : ".", &err);
    if (!root) {
        cli_error(FMT_DEFAULT, "usage", 0, 0, err.p);
        qr_buf_release(&err);
        return EXIT_USAGE;
    }
    qr_llm_config cfg;
    qr_llm_config_init(&cfg);
    char cerr[400] = "";
    int lrc = qr_llm_config_load(&cfg, root, cerr, sizeof cerr);
    cli_add_secret(cfg.api_key); /* the model's replies never print it */
    if (lrc != QR_OK || !qr_llm_configured(&cfg)) {
        cli_error(FMT_DEFAULT, "config", 0, 0,
                  cerr[0] ? cerr
                          : "no model configured (QUARRY_LLM_URL, QUARRY_LLM_MODEL); without "
                            "one, run lines yourself: quarry dwim \"LINE\"");
        qr_llm_config_clear(&cfg);
        free(root);
        qr_buf_release(&err);
        return EXIT_USAGE;
    }
    qr_llm *llm = qr_llm_new(&cfg);
    qr_llm_config_clear(&cfg);
    qr_trace *tf = NULL;
    if (trace && !(tf = qr_trace_open(trace, &err))) {
        cli_error(FMT_DEFAULT, "usage", 0, 0, err.p ? err.p : "cannot write the trace file");
        qr_llm_free(llm);
        free(root);
        qr_buf_release(&err);
        return EXIT_USAGE;
    }
    qr_llm_set_log(llm, retry_note, NULL);
    qr_tools *tools = qr_tools_default();
    /* the tool lines a model writes read only: no memory writes (docs/capabilities.md);
     * the loop's own fix (--write) and validate are its verbs, not tools */
    if (tools)
        qr_tools_restrict(tools, ~(uint32_t)(QR_TOOL_WRITES | QR_TOOL_DESTROYS |
                                             QR_TOOL_CUMULATIVE | QR_TOOL_EXEC));
    qr_host host;
    qr_host_init(&host, repo);
    qr_tools_set_ctx(tools, &host);
    qr_dwim_ctx c = {
        .host = &host, .tools = tools, .root = root, .write = write, .req = cli_req()};
    qr_dwim_loop_opts o = {.ctx = &c,
                           .llm = llm,
                           .task = task,
                           .max_turns = (uint32_t)max_turns,
                           .trace = tf,
                           .on_turn = show_turn};
    qr_dwim_loop_result r;
    int rc = qr_dwim_loop_run(&o, &r, &err);
    qr_trace_end(tf, "dwim", rc == QR_OK && !strcmp(r.stop, "done"),
                 rc != QR_OK ? (err.p ? err.p : "failed") : strcmp(r.stop, "done") ? r.stop : NULL);
    int code = EXIT_OK;
    if (rc != QR_OK) {
        cli_error(FMT_DEFAULT, "model", 0, 0, err.p ? err.p : "failed");
        code = EXIT_FAILED;
    }
    qr_buf sum;
    qr_buf_init(&sum);
    qr_buf_printf(&sum, "%s after %u turn%s (%u model call%s, %llu tokens in, %llu out, %u edit%s)%s%s\n",
                  r.stop, r.turns, r.turns == 1 ? "" : "s", r.calls, r.calls == 1 ? "" : "s",
                  (unsigned long long)r.input_tokens, (unsigned long long)r.output_tokens, r.edits,
                  r.edits == 1 ? "" : "s", r.summary && *r.summary ? ": " : "",
                  r.summary ? r.summary : "");
    cli_write(&sum, stdout);
    qr_buf_release(&sum);
    if (strcmp(r.stop, "done") != 0)
        code = EXIT_FAILED;
    qr_dwim_loop_result_clear(&r);
    qr_trace_free(tf);
    qr_host_release(&host);
    qr_tools_free(tools);
    qr_llm_free(llm);
    free(root);
    qr_buf_release(&err);
    return code;
}
