/*
 * quarry/router.h: tier 1 of the cost ladder (docs/ask.md). A deterministic router that
 * recognises common questions about a repository's history, in plain English, with
 * their time windows, names, paths and counts ("commits from last week", "who
 * contributed most this month", "most changed files", "commits by alice", "history of
 * src/main.c", "what changed since 2024-03-01", "largest commits this year"), and emits
 * the query-DSL query (quarry/query.h) that answers it, without calling a model.
 *
 * The rules are one table (src/agents/router.c), each with a name, what it answers and
 * example phrasings; a question matches at most one rule, the first that recognises it.
 * A question it does not recognise, or recognises only in part (words left over that
 * would change the answer), is not matched: the Architect answers it instead.
 *
 * Ownership: a qr_route owns its strings (malloc); clear it with qr_route_clear.
 * Error codes: none; matching is a pure function of the question text.
 */
#ifndef QUARRY_ROUTER_H
#define QUARRY_ROUTER_H

#include "quarry/base.h"

typedef struct qr_route {
    char *query;   /* the DSL query as EDN text, ready for qr_query_compile */
    char *rule;    /* the name of the rule that matched: "commits-in-window" */
    char *explain; /* one line saying how the question was read:
                      "commits by alice since \"1 week ago\"" */
} qr_route;

/* What the router may know of the repository and the time. */
typedef struct qr_router_opts {
    /* now (epoch seconds) and the UTC offset in force (minutes), for calendar windows
     * ("in october", "since monday", "Q3"); now 0: qr_clock_now() and its offset */
    int64_t now;
    int tz_offset_min;
    /* The repository's authors: true when `name` (one word or two, lowercase, as asked)
     * names exactly one author, with what the tools should search for written to out
     * (their email). False when it names nobody (out "") or several people: then out
     * lists them, "Bob Kowalski <bob@example.com>, Bob Lee <boblee@example.org>" (cut at
     * cap). A name the router read after a marker ("by kenij") is asked again with a
     * leading '~' when it names nobody: then a typo of one person's name may be that
     * person. NULL: names are read only after a marker ("by bob", "bob's"). */
    bool (*author)(void *ud, const char *name, char *out, size_t cap);
    void *author_ud;
    /* The release a version number names ("the 2.1 release"): true with "TAG PREV BEFORE
     * NEXT" in out (the tag; the release it grew from; the releases just before and just
     * after it by version and date; "-" or nothing where there is none), called with
     * author_ud. NULL: releases are read only as tags written whole ("v2.1.0"). False
     * when no tag is that release: then out may hold "~TAG", the nearest release, which
     * the decline names. */
    bool (*release)(void *ud, const char *version, char *out, size_t cap);
    /* The file a name said without folders ("http.c") is, called with author_ud: 1 with
     * its path in out (the file at the root, else the one file of that name), 0 when no
     * file has it, 2 when several do (out lists them), -1 when it cannot tell. A path
     * with folders: 1 when HEAD has a file there, else 0; one ending in '/': 1 when HEAD has
 * that directory. NULL: a bare name is read at
     * the root only when no author list is given either. */
    int (*file)(void *ud, const char *name, char *out, size_t cap);
    /* The tag a word names exactly, compared without case ("release-2.1.12-stable"), with
     * author_ud: true with the tag's name in out; asked ":latest" / ":previous", the newest
     * release and the one before it, when HEAD's history holds them (qr_git_tag_named).
     * NULL: tags are read only as releases. */
    bool (*tag)(void *ud, const char *name, char *out, size_t cap);
    /* The project's own names, space-separated ("redis", "tmux tmux-fork"): said as the
     * place ("commits to redis", "how many merges does libevent have", "tmux commits") one
     * names the repository itself, even where an author's name begins with it. NULL: none. */
    const char *project;
    /* When no rule matches and the router can say what was ambiguous, one line is written
     * here ("2 authors match 'bob': Bob Kowalski <...>, Bob Lee <...>"); NULL: not said. */
    char *why;
    size_t why_cap;
    /* When no rule matches, the words of the question nothing read, space-separated as
     * said ("came from"), are written here ("" when every word was read and only the
     * combination is not answered); NULL: not said. */
    char *unread;
    size_t unread_cap;
} qr_router_opts;

/* True, with out filled in, when a rule recognises the question (UTF-8, any case).
 * opts may be NULL (the clock, no author list). */
bool qr_router_match_opts(const char *question, size_t len, const qr_router_opts *opts,
                          qr_route *out);
/* qr_router_match_opts with no options. */
bool qr_router_match(const char *question, size_t len, qr_route *out);
void qr_route_clear(qr_route *r);
/* The rules, in the order they are tried: name, summary and one example question each. */
void qr_router_each_rule(void (*fn)(void *ud, const char *name, const char *summary,
                                    const char *example),
                         void *ud);

#endif
