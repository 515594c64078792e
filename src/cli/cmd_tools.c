/*
 * cmd_tools.c: `quarry tools`: lists the registered tools with their parameters, as text
 * for people or as the JSON tool lists that model APIs and MCP clients take (openai,
 * anthropic, mcp), all generated from the registry's records (src/tools/export.c).
 *
 * Design: the command only picks the registry, the names and the format; everything it
 * prints comes from qr_tools_export, so `quarry tools`, the MCP server and the agents'
 * prompts cannot disagree. Naming tools narrows the list (a registry of just those).
 *
 * Rejected: table/edn formats for the listing (the text form is the table; the JSON
 * forms are what programs consume); printing only names by default (parameters are what
 * a reader needs to call a tool).
 */
#include "cli.h"

#include "quarry/host.h"
#include "quarry/tools.h"

#include <string.h>

static const char usage[] =
    "usage: quarry tools [NAME...] [--format text|json|openai|anthropic|mcp] [--compact]\n"
    "\n"
    "Lists the tools that Lisp programs call as (tool/NAME {...}), that 'quarry tool'\n"
    "runs, and that models are offered, with their parameters. Naming tools lists only\n"
    "those.\n"
    "\n"
    "formats:\n"
    "  text        a line per tool (name and summary), then its parameters (default)\n"
    "  json        [{name, summary, parameters (JSON Schema), result, capabilities}]\n"
    "  openai      the Chat Completions 'tools' array: [{type: \"function\", function}]\n"
    "  anthropic   the Messages API 'tools' array: [{name, description, input_schema}]\n"
    "  mcp         MCP tools/list entries (protocol 2025-11-25): [{name, description,\n"
    "              inputSchema, outputSchema?, annotations}]\n"
    "\n"
    "options:\n"
    "  --format F   one of the formats above\n"
    "  --compact    JSON formats on one line (default: indented)\n"
    "  --repo DIR   the repository (accepted by every command)\n"
    "\n"
    "With no tools registered, text prints a line saying so and the JSON formats print [].\n"
    "exit status: 0 success, 2 bad usage or an unknown tool name.\n";

int cmd_tools(int argc, char **argv)
{
    qr_tools_format fmt = QR_TOOLS_TEXT;
    bool pretty = true;
    int nnames = 0;
    char **names = argv + 1; /* names are compacted to the front as they are found */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return EXIT_OK;
        }
        if (!strcmp(a, "--compact")) {
            pretty = false;
        } else if (!strcmp(a, "--format") || !strcmp(a, "--repo")) {
            if (i + 1 >= argc) {
                cli_usage_error("tools", "option '%s' needs a value", a);
                return EXIT_USAGE;
            }
            const char *v = argv[++i];
            if (a[2] == 'f') {
                int f = qr_tools_format_parse(v);
                if (f < 0) {
                    cli_usage_error("tools",
                                    "unknown format '%s': expected text, json, openai, "
                                    "anthropic or mcp",
                                    v);
                    return EXIT_USAGE;
                }
                fmt = (qr_tools_format)f;
            }
        } else if (a[0] == '-' && a[1]) {
            cli_usage_error("tools", "unknown option '%s'", a);
            return EXIT_USAGE;
        } else {
            names[nnames++] = argv[i];
        }
    }
    qr_tools *all = qr_tools_default(), *shown = all;
    if (!all) {
        fprintf(stderr, "quarry: out of memory\n");
        return EXIT_FAILED;
    }
    int status = EXIT_OK;
    if (nnames) {
        shown = qr_tools_new();
        for (int k = 0; shown && k < nnames; k++) {
            const qr_tool *t = qr_tools_find(all, names[k], strlen(names[k]));
            if (!t) {
                qr_buf msg;
                qr_buf_init(&msg);
                qr_tools_explain_unknown(all, names[k], &msg);
                cli_error(FMT_DEFAULT, "usage", 0, 0, msg.p ? msg.p : "unknown tool");
                qr_buf_release(&msg);
                status = EXIT_USAGE;
                goto done;
            }
            if (!qr_tools_find(shown, t->name, strlen(t->name)) &&
                qr_tools_add(shown, t) != QR_OK) {
                fprintf(stderr, "quarry: out of memory\n");
                status = EXIT_FAILED;
                goto done;
            }
        }
        if (!shown) {
            fprintf(stderr, "quarry: out of memory\n");
            status = EXIT_FAILED;
            goto done;
        }
        qr_tools_restrict(shown, qr_tools_allowed(all));
    }
    qr_buf out;
    qr_buf_init(&out);
    if (qr_tools_export(shown, fmt, pretty, &out) != QR_OK) {
        fprintf(stderr, "quarry: out of memory\n");
        status = EXIT_FAILED;
    } else {
        fwrite(out.p, 1, out.len, stdout);
    }
    qr_buf_release(&out);
done:
    if (shown != all)
        qr_tools_free(shown);
    qr_tools_free(all);
    return status;
}
