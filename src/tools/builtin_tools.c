/*
 * builtin_tools.c: the list of tools the product registry opens, in one place (as Lua's
 * linit.c lists the libraries a state opens), so adding a tool is one line here next to
 * its module, and a sandbox that wants fewer starts from a shorter list or restricts
 * capabilities.
 *
 * The list is empty until the data sources (layer 5: git, code, memory) land; each will
 * export its records (e.g. `extern const qr_tool qr_git_tools[]`) and be added below.
 *
 * Rejected: registration from each module's constructor (link-order dependent, and a
 * static library drops objects nothing references); a registry built at compile time
 * (lookup needs the index anyway, and it is tiny).
 */
#include "tools_int.h"

/* NULL-terminated. */
static const qr_tool *const builtin[] = {
    NULL,
};

qr_tools *qr_tools_default(void)
{
    qr_tools *r = qr_tools_new();
    if (!r)
        return NULL;
    for (const qr_tool *const *t = builtin; *t; t++)
        if (qr_tools_add(r, *t) != QR_OK) {
            qr_tools_free(r);
            return NULL;
        }
    return r;
}
