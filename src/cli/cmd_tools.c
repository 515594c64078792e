/*
 * cmd_tools.c: `quarry tools`: lists the registered tools with their parameters, as text
 * for people or as the JSON tool lists that model APIs and MCP clients take (openai,
 * anthropic, mcp), all generated from the registry's records (src/tools/export.c).
 *
 * Design: the command only picks the registry, the names and the format; everything it
 * prints comes from qr_tools_export (text, json: the registry's tools) or from the MCP
 * server's own list (mcp, openai, openai-strict, anthropic: what an agent is served,
 * run_lisp, run_query and dwim, `repo` and `offset` included, qr_mcp_export), so `quarry
 * tools`, the MCP server and the agents' prompts cannot disagree. Naming tools narrows
 * the list.
 *
 * Rejected: table/edn formats for the listing (the text form is the table; the JSON
 * forms are what programs consume); printing only names by default (parameters are what
 * a reader needs to call a tool).
 */
#include "command.h"

#include "quarry/host.h"
#include "quarry/mcp.h"
#include "quarry/tools.h"

#include <string.h>

const char cli_tools_page[] =
    "usage: quarry tools [NAME...] [--format text|json|mcp|openai|openai-strict|anthropic]\n"
    "                    [--compact] [--allow-write memory] [--allow-exec]\n"
    "\n"
    "Lists the tools that Lisp programs call as (tool/NAME {...}), that 'quarry tool'\n"
    "runs, and that models are offered, with their parameters. Naming tools lists only\n"
    "those.\n"
    "\n"
    "formats:\n"
    "  text        a line per tool (name and summary), then its parameters (default)\n"
    "  json        [{name, summary, parameters (JSON Schema), result, capabilities}]\n"
    "  mcp         what 'quarry mcp' serves, as tools/list entries (protocol 2025-11-25):\n"
    "              [{name, title, description, inputSchema, outputSchema, annotations}],\n"
    "              run_lisp, run_query and dwim included, with 'repo' and 'offset'\n"
    "  openai      the same tools as the Chat Completions 'tools' array:\n"
    "              [{type: \"function\", function: {name, description, parameters}}]\n"
    "  openai-strict  the same in OpenAI's strict mode: every property required, optional\n"
    "              ones nullable (null means not given), no default, no other properties;\n"
    "              parameters that take any JSON object are left out (run_query's\n"
    "              query: its 'text' is then required)\n"
    "  anthropic   the same tools as the Messages API 'tools' array: [{name, description,\n"
    "              input_schema}]\n"
    "\n"
    "options:\n"
    "  --format F   one of the formats above\n"
    "  --compact    JSON formats on one line (default: indented)\n"
    "  --allow-write memory, --allow-exec\n"
    "               mcp, openai, openai-strict, anthropic: what a server started with\n"
    "               these flags serves (the memory writes; dwim's validate)\n"
    "  --repo DIR   the repository (accepted by every command)\n"
    "\n"
    "With no tools registered, text prints a line saying so and the JSON formats print [].\n"
    "exit status: 0 success, 2 bad usage or an unknown tool name.\n";

int cli_cmd_tools(const cli_args *args)
{
    qr_tools_format fmt = QR_TOOLS_TEXT;
    const char *served = NULL; /* a format of the served list (qr_mcp_export) */
    bool pretty = true;
    size_t nn;
    const char **names = cli_arg_strs(args, "names", &nn);
    int nnames = (int)nn;
    if (cli_arg_bool(args, "compact"))
        pretty = false;
    const char *v = cli_arg_str(args, "format", NULL);
    if (v) {
        served = NULL;
        for (const char *const *f = qr_mcp_export_formats; *f; f++)
            if (!strcmp(*f, v))
                served = *f;
        int f = qr_tools_format_parse(v);
        fmt = f < 0 ? QR_TOOLS_TEXT : (qr_tools_format)f;
    }
    if (served) {
        /* the list the MCP server serves (its registries; no repository is opened) */
        qr_mcp_config cfg;
        qr_mcp_config_init(&cfg);
        cfg.workers = 1;
        const char *w = cli_arg_str(args, "allow-write", NULL);
        if (w && strcmp(w, "memory")) {
            cli_error(FMT_DEFAULT, "usage", 0, 0,
                      "--allow-write: unknown kind of write; the one there is: memory");
            return EXIT_USAGE;
        }
        cfg.allow_write_memory = w != NULL;
        cfg.allow_exec = cli_arg_bool(args, "allow-exec");
        qr_mcp_server *s;
        qr_buf out, err;
        qr_buf_init(&out);
        qr_buf_init(&err);
        int rc = qr_mcp_server_new(&cfg, &s, &err);
        if (rc == QR_OK) {
            rc = qr_mcp_export(s, served, (const char *const *)names, (size_t)nnames, pretty,
                               &out, &err);
            qr_mcp_server_free(s);
        }
        int status = EXIT_OK;
        if (rc == QR_OK) {
            fwrite(out.p, 1, out.len, stdout);
        } else {
            cli_error(FMT_DEFAULT, rc == QR_EINVAL ? "usage" : "error", 0, 0,
                      rc == QR_ENOMEM ? "out of memory" : (err.p ? err.p : "failed"));
            status = rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
        }
        qr_buf_release(&out);
        qr_buf_release(&err);
        return status;
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
