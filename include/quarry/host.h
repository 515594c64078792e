/*
 * quarry/host.h: the host object every tool handler receives as its context
 * (qr_tools_set_ctx): which repository the tools work on, how, and the state each data
 * source opens on its first use and keeps for the life of the host (one command, one
 * Lisp session, one MCP connection).
 *
 * Ownership: the caller owns the host and the strings it sets; qr_host_release frees
 * what the sources opened. Handlers never print: warnings go through `warn` (NULL: none).
 * Implemented next to the list of built-in tools (src/tools/builtin_tools.c), the one
 * place that knows every source.
 */
#ifndef QUARRY_HOST_H
#define QUARRY_HOST_H

#include "quarry/base.h"

struct qr_git;
struct qr_git_index;
struct qr_mem;
struct qr_pipeline_cache;

typedef struct qr_host {
    /* the repository: a directory in it (--repo DIR), or NULL for the working directory */
    const char *repo_dir;
    /* compute git statistics without reading or writing the index (--no-index) */
    bool no_index;
    /* one line, without a trailing newline, for the person at the terminal */
    void (*warn)(void *ud, const char *msg);
    void *warn_ud;
    /* progress of long work (computing the statistics of many commits): called now and
     * then with done < total, and once with done == total at the end (NULL: none) */
    void (*progress)(void *ud, const char *what, size_t done, size_t total);
    void *progress_ud;

    /* ---- state of the sources, opened on first use ---- */
    struct qr_git *git;
    struct qr_git_index *git_index;
    bool git_index_tried;  /* opening the index was attempted (it may have failed) */
    bool git_index_warned; /* the warning that it was rebuilt was given */

    /* the memory store the memory tools use when a call names none: set by qr_host_init
     * from $QUARRY_MEMORY (NULL when unset or empty); the caller may point it elsewhere */
    const char *memory_path;
    /* a call may name any store file in its `store` argument: only for a person at the
     * terminal (`quarry tool`). Off (the default) for programs (Lisp, queries, MCP, agents):
     * a call may then name only memory_path, and any other name is refused with one fixed
     * message, whatever the file is or whether it exists */
    bool any_store;
    struct qr_mem *mem;                       /* opened on first use (path: qr_mem_path) */
    struct qr_pipeline_cache *pipeline_cache; /* embedding and communities of mem's graph */
} qr_host;

/* A host for repo_dir (NULL: the working directory), memory_path from $QUARRY_MEMORY,
 * everything else off. */
void qr_host_init(qr_host *h, const char *repo_dir);
/* Closes what the sources opened; the host can be used again (they reopen). */
void qr_host_release(qr_host *h);

#endif
