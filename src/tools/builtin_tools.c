/*
 * builtin_tools.c: the list of tools the product registry opens, in one place (as Lua's
 * linit.c lists the libraries a state opens), so adding a tool is one line here next to
 * its module, and a sandbox that wants fewer starts from a shorter list or restricts
 * capabilities. Also the host (quarry/host.h) that their handlers receive, since this is
 * the one place that knows every source and what it opens.
 *
 * Each source exports its records as a NULL-terminated list (qr_git_tools, ...).
 *
 * Rejected: registration from each module's constructor (link-order dependent, and a
 * static library drops objects nothing references); a registry built at compile time
 * (lookup needs the index anyway, and it is tiny).
 */
#include "tools_int.h"

#include "quarry/code.h"
#include "quarry/git.h"
#include "quarry/host.h"
#include "quarry/memory.h"
#include "quarry/pipeline.h"

#include <stdlib.h>
#include <string.h>

/* NULL-terminated lists, one per source. */
static const qr_tool *const *const sources[] = {
    qr_git_tools,
    qr_code_tools,
    qr_memory_tools,
    NULL,
};

qr_tools *qr_tools_default(void)
{
    qr_tools *r = qr_tools_new();
    if (!r)
        return NULL;
    for (const qr_tool *const *const *s = sources; *s; s++)
        for (const qr_tool *const *t = *s; *t; t++)
            if (qr_tools_add(r, *t) != QR_OK) {
                qr_tools_free(r);
                return NULL;
            }
    return r;
}

void qr_host_init(qr_host *h, const char *repo_dir)
{
    memset(h, 0, sizeof *h);
    h->repo_dir = repo_dir;
    const char *mem = getenv("QUARRY_MEMORY");
    h->memory_path = mem && *mem ? mem : NULL;
}

void qr_host_release(qr_host *h)
{
    if (h->git_index)
        qr_git_index_close(h->git_index);
    if (h->git)
        qr_git_free(h->git);
    if (h->mem)
        qr_mem_close(h->mem);
    qr_pipeline_cache_free(h->pipeline_cache);
    qr_code_graph_free(h->code_graph);
    qr_code_close(h->code);
    free(h->code_graph_ref);
    h->code_graph = NULL;
    h->code = NULL;
    h->code_graph_ref = NULL;
    h->git_index = NULL;
    h->git = NULL;
    h->mem = NULL;
    h->pipeline_cache = NULL;
    h->git_index_tried = h->git_index_warned = false;
}
