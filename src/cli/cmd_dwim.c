/*
 * cmd_dwim.c: `quarry dwim`: one terse line, parsed and routed (quarry/dwim.h) and run,
 * or only parsed (`dwim parse`), or the last edit undone (`dwim undo`).
 *
 *   quarry dwim "skeleton src/lisp/eval.c"      run it (when its confidence is in the run
 *                                               band, or with --force)
 *   quarry dwim parse "TEXT" [--format json]     what the line means, without running it
 *   quarry dwim undo                             restore the file of the newest edit
 *
 * A line below the run band is not run: its readings are printed (clarify: the top
 * three; suggest: the best) and the exit status is 2.
 */
#include "command.h"

#include "quarry/dwim.h"
#include "quarry/host.h"

#include <stdlib.h>
#include <string.h>

const char cli_dwim_page[] =
    "usage: quarry dwim \"LINE\" [--repo DIR] [--write] [--force] [--format text|edn|json|table]\n"
    "       quarry dwim parse \"LINE\" [--repo DIR] [--format text|edn|json|table]\n"
    "       quarry dwim undo [--repo DIR]\n"
    "LINE is one terse intent: skeleton FILE|DIR, expand SYMBOL, read FILE[:A-B],\n"
    "grep 'PATTERN', callers|callees|references|definition SYMBOL, deps FILE,\n"
    "validate [make test|ctest|npm test|pytest|cargo test|go test ./...],\n"
    "fix FILE (a SEARCH/REPLACE block on the lines after), done, or any tool's name with\n"
    "key=value parameters. Lines after the first are the content (an edit).\n"
    "validate runs the check of .quarry.toml (check = \"...\", at the top or under [dwim]),\n"
    "else the test command the repository's files show (docs/dwim.md).\n"
    "--format text (the default) prints the terse text a model reads; edn, json and table\n"
    "print the result as data (a tool's result, or the verb's rows and text).\n"
    "exit status: 0 success, 1 failure (validate: the check failed), 2 bad usage, or a\n"
    "line not confident enough to run.\n";

static void print_readings(const qr_dwim_intent *in)
{
    fprintf(stderr, "quarry: dwim: %s (%.2f): %s%s%s", qr_dwim_band(in->confidence),
            in->confidence, qr_dwim_verb_name(in->verb),
            in->verb == QR_DWIM_TOOL ? " " : "", in->verb == QR_DWIM_TOOL ? in->tool : "");
    if (in->target)
        fprintf(stderr, " '%s'", in->target);
    fputc('\n', stderr);
    for (size_t i = 0; i < in->nalts; i++)
        fprintf(stderr, "  or %s%s%s (%.2f)\n", qr_dwim_verb_name(in->alts[i].verb),
                in->alts[i].verb == QR_DWIM_TOOL ? " " : "",
                in->alts[i].verb == QR_DWIM_TOOL ? in->alts[i].tool : "", in->alts[i].confidence);
}

int cli_cmd_dwim(const cli_args *args)
{
    const char *repo = args->repo, *line = NULL, *sub = NULL;
    bool write = cli_arg_bool(args, "write"), force = cli_arg_bool(args, "force");
    const char *fmt = cli_arg_str(args, "format", "text");
    bool json = !strcmp(fmt, "json"), edn = !strcmp(fmt, "edn");
    cli_format cf = json ? FMT_JSON : edn ? FMT_EDN : FMT_DEFAULT; /* how errors print */
    /* the words: parse or undo first, then one line */
    static const char *const words[] = {"word1", "word2"};
    for (size_t i = 0; i < 2; i++) {
        const char *a = cli_arg_str(args, words[i], NULL);
        if (!a)
            break;
        if (!sub && !line && (!strcmp(a, "parse") || !strcmp(a, "undo")))
            sub = a;
        else if (!line)
            line = a;
        else {
            cli_usage_error("dwim", "one line at a time: quote it (\"%s ...\")", line);
            return EXIT_USAGE;
        }
    }
    bool undo = sub && !strcmp(sub, "undo");
    if (!line && !undo) {
        fputs(cli_dwim_page, stderr);
        return EXIT_USAGE;
    }
    qr_buf err, out;
    qr_buf_init(&err);
    qr_buf_init(&out);
    qr_tools *tools = qr_tools_default();
    qr_host host;
    qr_host_init(&host, repo);
    host.code.progress = cli_progress;
    qr_tools_set_ctx(tools, &host);
    qr_dwim_ctx c = {.host = &host, .tools = tools, .write = write, .req = cli_req()};
    c.format = json ? QR_DWIM_FMT_JSON : edn ? QR_DWIM_FMT_EDN
               : !strcmp(fmt, "table") ? QR_DWIM_FMT_TABLE : QR_DWIM_FMT_TEXT;
    c.width = cli_table_width();
    char *root = qr_dwim_find_root(repo ? repo : ".", &err);
    int code = EXIT_OK;
    qr_arena a;
    qr_arena_init(&a, 16u << 20);
    c.root = root;
    if (!tools) {
        fputs("quarry: error: out of memory\n", stderr);
        code = EXIT_FAILED;
        goto done;
    }
    if (undo) {
        if (!root) {
            cli_error(cf, "usage", 0, 0, err.p);
            code = EXIT_USAGE;
            goto done;
        }
        int rc = qr_dwim_undo(&c, &out, &err);
        if (rc != QR_OK) {
            cli_error(cf, rc == QR_EINVAL ? "usage" : "error", 0, 0, err.p);
            code = rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
        }
        fwrite(out.p ? out.p : "", 1, out.len, stdout);
        goto done;
    }
    qr_dwim_lookup lk = {.tools = tools};
    if (root)
        qr_dwim_lookup_init(&lk, &c);
    qr_dwim_intent in;
    if (qr_dwim_parse(&lk, line, strlen(line), &a, &in) != QR_OK) {
        fputs("quarry: error: out of memory\n", stderr);
        code = EXIT_FAILED;
        goto done;
    }
    if (sub) { /* parse */
        if (json || edn) {
            qr_dwim_intent_json(&in, &out);
            qr_val v;
            qr_read_error re;
            if (edn && qr_json_read(&a, out.p, out.len, &v, &re) == QR_OK) {
                out.len = 0;
                qr_print(&out, v, QR_PRINT_READABLY);
            }
            qr_buf_putc(&out, '\n');
        } else {
            qr_buf_printf(&out, "%s %.2f %s", qr_dwim_band(in.confidence), in.confidence,
                          qr_dwim_verb_name(in.verb));
            if (in.tool)
                qr_buf_printf(&out, " -> %s", in.tool);
            if (in.target)
                qr_buf_printf(&out, " '%s'", in.target);
            qr_buf_puts(&out, " ");
            qr_print(&out, in.params, 0);
            qr_buf_putc(&out, '\n');
            for (size_t i = 0; i < in.nalts; i++)
                qr_buf_printf(&out, "  or %s%s%s %.2f\n", qr_dwim_verb_name(in.alts[i].verb),
                              in.alts[i].verb == QR_DWIM_TOOL ? " " : "",
                              in.alts[i].verb == QR_DWIM_TOOL ? in.alts[i].tool : "",
                              in.alts[i].confidence);
        }
        fwrite(out.p, 1, out.len, stdout);
        goto done;
    }
    if (!root) {
        cli_error(cf, "usage", 0, 0, err.p);
        code = EXIT_USAGE;
        goto done;
    }
    if (in.confidence < 0.85 && !force) {
        print_readings(&in);
        if (json || edn) { /* the readings as data too: the intent, as dwim parse prints it */
            qr_dwim_intent_json(&in, &out);
            qr_val v;
            qr_read_error re;
            if (edn && qr_json_read(&a, out.p, out.len, &v, &re) == QR_OK) {
                out.len = 0;
                qr_print(&out, v, QR_PRINT_READABLY);
            }
            qr_buf_putc(&out, '\n');
            fwrite(out.p, 1, out.len, stdout);
        }
        if (in.confidence >= 0.3)
            fputs("  (not run: write the line more exactly, or add --force)\n", stderr);
        code = EXIT_USAGE;
        goto done;
    }
    int rc = qr_dwim_run(&c, &in, &out, &err);
    fwrite(out.p ? out.p : "", 1, out.len, stdout);
    if (rc != QR_OK) {
        cli_error(cf, rc == QR_EINVAL ? "usage" : "error", 0, 0, err.p);
        code = rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
    } else if (c.failed)
        code = EXIT_FAILED; /* it ran and failed: validate's check did not pass */
done:
    qr_arena_release(&a);
    free(root);
    qr_host_release(&host);
    qr_tools_free(tools);
    qr_buf_release(&err);
    qr_buf_release(&out);
    return code;
}
