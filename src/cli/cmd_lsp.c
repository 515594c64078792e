/*
 * cmd_lsp.c: `quarry lsp`: the language server for workflow files (quarry/lsp.h) on
 * stdin and stdout. Editors start it and speak LSP to it; nothing else is printed. Its
 * options and help are its record in commands.c.
 */
#include "command.h"

#include "quarry/lsp.h"


int cli_cmd_lsp(const cli_args *args)
{
    (void)args; /* --stdio is what editors pass; stdio is the only transport */
    return qr_lsp_serve(0, 1);
}
