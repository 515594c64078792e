/*
 * cmd_lsp.c: `quarry lsp`: the language server for workflow files (quarry/lsp.h) on
 * stdin and stdout. Editors start it and speak LSP to it; nothing else is printed.
 */
#include "cli.h"

#include "quarry/lsp.h"

#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: quarry lsp\n"
    "\n"
    "A Language Server Protocol server for workflow files (.flow, .sr) on stdin and\n"
    "stdout, for editors: diagnostics as the file changes (the codes of 'quarry flow\n"
    "check'), completion, hover, go to definition, document symbols and formatting\n"
    "('quarry flow fmt'). docs/flow.md tells how to configure an editor.\n"
    "\n"
    "exit status: 0 after shutdown and exit, 1 when the client exits without shutdown or\n"
    "goes away.\n";

int cmd_lsp(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage, stdout);
            return EXIT_OK;
        }
        if (!strcmp(argv[i], "--stdio"))
            continue; /* what editors pass; stdio is the only transport */
        cli_usage_error("lsp", "unknown option '%s'", argv[i]);
        return EXIT_USAGE;
    }
    return qr_lsp_serve(0, 1);
}
