/*
 * router_int.h: what the question parser (router.c) hands the rule table (router_rules.c):
 * the question read as slots (a time window, an author, a path, a message term, merges,
 * a count, a sort key) and the set of canonical words left over once the slots took
 * theirs. A word the router does not know sets RW_UNKNOWN, which no rule accepts.
 */
#ifndef QUARRY_ROUTER_INT_H
#define QUARRY_ROUTER_INT_H

#include "quarry/base.h"
#include "quarry/router.h"

/* Canonical content words: synonyms share one bit ("contributors", "devs" -> RW_AUTHORS). */
enum {
    RW_COMMITS = 1u << 0,   /* commit, commits */
    RW_CHANGE = 1u << 1,    /* change(s/d), modified, touched, edited, updated, happened */
    RW_COMMITTED = 1u << 2, /* committed, contributed, worked */
    RW_AUTHORS = 1u << 3,   /* author(s), contributor(s), committer(s), developer(s), people */
    RW_WHO = 1u << 4,
    RW_MOST = 1u << 5,    /* most, top, highest */
    RW_ACTIVE = 1u << 6,  /* active, prolific */
    RW_FILES = 1u << 7,   /* file, files, paths */
    RW_LARGEST = 1u << 8, /* largest, biggest, big, large, huge */
    RW_RECENT = 1u << 9,  /* recent, recently, latest, newest, last */
    RW_HISTORY = 1u << 10,
    RW_COUNT = 1u << 11, /* count, total, "how many", "number of" */
    RW_HOTSPOTS = 1u << 12,
    RW_OFTEN = 1u << 13, /* often, frequently */
    RW_WHEN = 1u << 14,
    RW_RANKED = 1u << 15, /* ranked, rank, sorted, ordered, leaderboard */
    RW_MESSAGE = 1u << 16, /* message(s), subject, title */
    RW_WHOSE = 1u << 17,   /* whose, where */
    RW_PER = 1u << 18,
    RW_BY = 1u << 19,   /* a "by" no slot took ("commits by author") */
    RW_MADE = 1u << 20, /* made, make, pushed, done */
    RW_LINES = 1u << 21,
    RW_MOSTBY = 1u << 22, /* "with the most files", "changed the most lines": the sort key
                             is then set to what follows "most" */
    RW_UNKNOWN = 1u << 31
};

enum { RT_SORT_NONE, RT_SORT_COMMITS, RT_SORT_ADDITIONS, RT_SORT_DELETIONS, RT_SORT_LINES,
       RT_SORT_FILES };
enum { RT_PATH_NONE, RT_PATH_FILE, RT_PATH_DIR };
enum { RT_MERGES_ANY, RT_MERGES_ONLY, RT_MERGES_EXCLUDE };

#define RT_STR 256

typedef struct rt_question {
    uint32_t words; /* RW_* bits of the words no slot took */
    bool singular;  /* "commit" (not "commits") was said: "the last commit" is one */
    bool all;       /* "all" was said: no default cut ("show all commits", "all authors") */
    char since[RT_STR], until[RT_STR]; /* tool strings ("1 week ago"); "" when absent */
    char window[RT_STR];                /* how the window reads: "since 1 week ago" */
    char author[RT_STR];                /* "" when absent */
    char path[RT_STR];
    int path_kind;      /* RT_PATH_* */
    char grep[RT_STR];  /* the term as said; the rule escapes it into a regex */
    int merges;         /* RT_MERGES_* */
    int n;              /* a count said ("top 5", "last 10 commits"); 0 when none */
    int sort;           /* RT_SORT_* */
} rt_question;

/* Reads the question into q; false when it cannot be read as words and slots at all
 * (too long, a brace or control character, two windows, two paths...). */
bool rt_parse(const char *question, size_t len, rt_question *q);

/* Tries the rules in order; on a match fills out (malloc'd strings) and returns true. */
bool rt_rules_match(const rt_question *q, qr_route *out);

#endif
