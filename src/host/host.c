/*
 * host.c: the list of tools the product registry opens, in one place (as Lua's linit.c
 * lists the libraries a state opens), so adding a tool is one line here next to its
 * module, and a sandbox that wants fewer starts from a shorter list or restricts
 * capabilities; and the host (quarry/host.h) whose parts their handlers receive.
 *
 * Design: each source exports its records as a NULL-terminated list (qr_git_tools, ...)
 * and its own context type; the host embeds one context per source and registers each
 * list at the offset of its part (qr_tools_add_part). This module sits above the sources
 * and the queries, the one place that knows them all, so the layers below it never reach
 * up.
 *
 * Rejected: one host struct declared below the sources, which every source included (the
 * tools layer then knew git, memory and pipeline); registration from each module's
 * constructor (link-order dependent, and a static library drops objects nothing
 * references); a registry built at compile time (lookup needs the index anyway, and it
 * is tiny).
 */
#include "quarry/host.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* NULL-terminated lists, one per source, with the offset of the source's context. */
static const struct {
    const qr_tool *const *tools;
    size_t part;
} sources[] = {
    {qr_git_tools, offsetof(qr_host, git)},
    {qr_memory_tools, offsetof(qr_host, mem)},
    {qr_code_tools, offsetof(qr_host, code)},
    {NULL, 0},
};

qr_tools *qr_tools_default(void)
{
    qr_tools *r = qr_tools_new();
    if (!r)
        return NULL;
    for (size_t s = 0; sources[s].tools; s++)
        for (const qr_tool *const *t = sources[s].tools; *t; t++)
            if (qr_tools_add_part(r, *t, sources[s].part) != QR_OK) {
                qr_tools_free(r);
                return NULL;
            }
    return r;
}

void qr_host_init(qr_host *h, const char *repo_dir)
{
    memset(h, 0, sizeof *h);
    h->git.repo_dir = repo_dir;
    h->code.repo_dir = repo_dir;
    const char *mem = getenv("QUARRY_MEMORY");
    h->mem.memory_path = mem && *mem ? mem : NULL;
}

void qr_host_release(qr_host *h)
{
    qr_git_ctx_release(&h->git);
    qr_memory_ctx_release(&h->mem);
    qr_code_ctx_release(&h->code);
}
