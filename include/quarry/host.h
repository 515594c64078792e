/*
 * quarry/host.h: the host, the object that ties the sources together for one command,
 * one Lisp session or one MCP connection: each source's context (which repository, which
 * memory store, and what each opened on first use), and the product tool registry whose
 * handlers receive their part of it.
 *
 * The host lives above the sources and the queries (in the agents layer's library), so
 * that no source knows another: a source exports its tools and its own context type
 * (qr_git_ctx, qr_memory_ctx), and only this module knows every source.
 *
 * Ownership: the caller owns the host and the strings it sets; qr_host_release closes
 * what the sources opened. Usage:
 *     qr_tools *tools = qr_tools_default();
 *     qr_host host;
 *     qr_host_init(&host, repo_dir);
 *     host.git.warn = ...;              // optional settings of each part
 *     qr_tools_set_ctx(tools, &host);   // every tool gets its part of the host
 *     ...
 *     qr_host_release(&host);
 *     qr_tools_free(tools);
 */
#ifndef QUARRY_HOST_H
#define QUARRY_HOST_H

#include "quarry/code.h"
#include "quarry/git.h"
#include "quarry/pipeline.h"
#include "quarry/codesearch.h"
#include "quarry/sparql.h"
#include "quarry/tools.h"

typedef struct qr_host {
    qr_git_ctx git;    /* the repository and its statistics index */
    qr_memory_ctx mem; /* the memory store (memory_path from $QUARRY_MEMORY) */
    qr_code_ctx code;  /* the code index and the last graph assembled */
    /* the repository's authors, read on the first qr_host_author call */
    qr_git_person *people;
    size_t npeople;
    bool people_loaded;
    qr_sparql_ctx sparql; /* the RDF graph of sparql_query ($QUARRY_SPARQL_DATA) */
    qr_codesearch_ctx codesearch; /* search_codebase: templates, then the model */
} qr_host;

/* A host for repo_dir (NULL: the working directory), the memory store from
 * $QUARRY_MEMORY (NULL when unset or empty), the RDF files of sparql_query from
 * $QUARRY_SPARQL_DATA (paths separated by ':'), everything else off. */
void qr_host_init(qr_host *h, const char *repo_dir);
/* Closes what the sources opened; the host can be used again (they reopen). */
void qr_host_release(qr_host *h);

/* The first and last commit times of the host's repository (qr_git_span), opening it
 * through the host's git part if need be; host is a qr_host (the shape of
 * qr_ask_opts.repo_span). */
int qr_host_repo_span(void *host, int64_t *first, int64_t *last);

/* Whether `name` (lowercase; one word, or a first and a last name) is one author of the
 * host's repository: a whole name, one part of a name, or an email's local part (or a
 * part of it), compared without case. True with what the tools should search for in out:
 * the author's email, or their name when the matches are one person under several
 * emails. False when nobody or several people match. The shape of
 * qr_router_opts.author; host is a qr_host. */
bool qr_host_author(void *host, const char *name, char *out, size_t cap);
/* qr_router_opts.release over the host's repository (qr_git_release): "TAG PREV". */
bool qr_host_release_tag(void *host, const char *version, char *out, size_t cap);
/* qr_router_opts.file over the host's repository (qr_git_find_file on HEAD's tree). */
int qr_host_find_file(void *host, const char *name, char *out, size_t cap);
/* The project's names as people call it, space-separated: the last part of the host
 * repository's working tree (or of its git directory, without ".git"), then the origin
 * remote's last part when it differs and is not a generic word ("repo"), written to out
 * (read from the repository's configuration); false when there is no repository. */
bool qr_host_project_name(void *host, char *out, size_t cap);
/* qr_router_opts.tag over the host's repository (qr_git_tag_named). */
bool qr_host_tag(void *host, const char *name, char *out, size_t cap);

/* The product registry: every built-in tool, each registered at the offset of its
 * source's part of a qr_host, so its context must be a qr_host (qr_tools_set_ctx). Free
 * it with qr_tools_free. NULL when out of memory or when a built-in record is invalid (a
 * bug, caught by the tests). */
qr_tools *qr_tools_default(void);

#endif
