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

#include <stdint.h>
#include <string.h>

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
    RW_OWNS = 1u << 23,   /* owns, owner(s), knows, expert(s), maintainer(s), best */
    RW_FIRST = 1u << 24,   /* first, earliest, oldest, originally, initial */
    RW_CREATED = 1u << 25, /* created, introduced, added (a file) */
    RW_DELETED = 1u << 26, /* deleted, removed (a file) */
    RW_MOSTBY = 1u << 22, /* "with the most files", "changed the most lines": the sort key
                             is then set to what follows "most" */
    RW_UNKNOWN = 1u << 31
};

enum { RT_SORT_NONE, RT_SORT_COMMITS, RT_SORT_ADDITIONS, RT_SORT_DELETIONS, RT_SORT_LINES,
       RT_SORT_FILES };
enum { RT_PATH_NONE, RT_PATH_FILE, RT_PATH_DIR };
enum { RT_MERGES_ANY, RT_MERGES_ONLY, RT_MERGES_EXCLUDE };
/* bots: authors whose name or email says so (RT_BOT_PATTERN, docs/decisions.md) */
enum { RT_BOTS_ANY, RT_BOTS_ONLY, RT_BOTS_EXCLUDE };
/* A bot author, as a PCRE2 pattern matched against the author's name and email: "[bot]"
 * anywhere, dependabot, renovate, github-actions, or an email whose local part is
 * noreply / no-reply (a person's 123+name@users.noreply.github.com is not one). */
#define RT_BOT_PATTERN                                                                    \
    "(?i)[[]bot[]]|[ _-]bot$|dependabot|renovate|github-actions|^actions@github[.]com$|"  \
    "^no-?reply@"


#define RT_STR 256

typedef struct rt_question {
    uint32_t words; /* RW_* bits of the words no slot took */
    bool singular;  /* "commit" (not "commits") was said: "the last commit" is one */
    bool all;       /* "all" was said: no default cut ("show all commits", "all authors") */
    char since[RT_STR], until[RT_STR]; /* tool strings ("1 week ago"); "" when absent */
    char window[RT_STR];                /* how the window reads: "since 1 week ago" */
    char author[RT_STR];                /* "" when absent */
    char author2[RT_STR];               /* a second person ("by ines and bob"), or "" */
    char path[RT_STR];
    int path_kind;      /* RT_PATH_* */
    bool path_excl;     /* the path is excluded ("without docs/"): an RT_PATH_DIR */
    char not_author[RT_STR]; /* a person left out ("except alice", "besides bob"): their
                                email, as the repository knows them, or "" */
    char ref[RT_STR];   /* a revision range said ("between v1.0 and v1.1": "v1.0..v1.1",
                           "since v1.0": "v1.0..HEAD"), or "" */
    char commit[RT_STR]; /* one commit named ("files 60213d4", "the latest commit": HEAD) */
    bool commit_tag;     /* that commit was named by a tag ("changed in jq-1.8.1") */
    bool untouched;     /* with path_excl: commits that touch the path are dropped whole
                           ("commits that don't touch tests/"), not only its files */
    char grep[RT_STR];  /* the term as said; the rule escapes it into a regex */
    char grep_re[RT_STR]; /* or the regex itself, when a frame wrote it ("#305\b" for
                             "issue 305", "^Revert\b" for "reverts"); grep then says it */
    int merges;         /* RT_MERGES_* */
    int bots;           /* RT_BOTS_* */
    int n;              /* a count said ("top 5", "last 10 commits"); 0 when none */
    int sort;           /* RT_SORT_* */
    bool ascending;     /* "least active", "fewest commits": the ranking reversed */
    bool one_author;    /* an author noun in the singular ("which contributor ...") */
    bool top_author;    /* "the top contributor", "the most active author": the question is
                           about whoever ranks first in the window, found first */
    int nth;            /* "the third most active author", "the 2nd largest commit": the
                           ranking's row at that place (2..10), 0 when none */
    unsigned wdays;     /* commits only on these weekdays: bit 1 Monday .. bit 7 Sunday
                           ("on weekends": bits 6 and 7), 0 when any day */
    int period;         /* RT_PERIOD_*: commits grouped by a unit of time ("busiest month",
                           "commits per weekday"), 0 when none */
    bool period_one;    /* the period noun in the singular ("which month"): the first only */
    char path2[RT_STR]; /* an excluded path inside the included one ("in src/ excluding
                           src/net"): commits that change something in path outside it */
    bool root;          /* "the initial commit": the oldest commit, for its files */
    uint32_t hours;     /* commits only at these hours of the day (bit h for h:00..h:59,
                           the author's clock): "between midnight and 5am", "after 10pm" */
    bool inactive;      /* "who hasn't committed since 2025": the authors of all history
                           with no commit in the window */
    char subject[RT_STR]; /* one commit named by its quoted subject ("the 'wal: fix'
                             commit"), or "" */
    int renamed;        /* 1: "what was x.py called before", "who renamed x.py": the latest
                           rename in the file's history; 2: "x.py's original name": the
                           oldest */
    bool compare;       /* two people compared ("who has more commits, anna or jonas") */
    bool tags;          /* the tags (releases) themselves are asked about ("the latest
                           release", "how many tags", "when was v1.2 tagged") */
    bool tags_prefix;   /* with tags: commit is a version the tags start with ("the 7.4
                           tags": 7.4-rc1, 7.4.0, 7.4.1), not one tag */
    bool by_dir;        /* directories ranked, not files ("which directory has the most
                           commits", "which service under services/ ...") */
    bool gone;          /* the file said is not in HEAD's tree (the repository said so) */
    bool line_total;    /* "how many lines were added to app/x.py": the sum of the sort
                           key's lines (sort is ADDITIONS, DELETIONS or LINES) over the
                           commits, not a ranking */
    bool emails;        /* with author: the addresses they commit with ("which email does
                           Tom commit with") */
    bool repos_all;     /* "across all repositories": every repository of the shared index
                           (the tools' repos ["all"]); people are summed across them */
    bool tags_starts;   /* with tags_prefix: the names open with commit as said ("tags
                           starting with curl-8"), not a version's tags */
    bool tag_absent;    /* with tags and commit: "is there a tag called X" where no tag is
                           X; the answer is none, said */
    bool yesno;         /* a yes/no question about commits ("did anyone commit on X",
                           "were there any commits in june"): :answer "yes" or "no" */
    bool tag_exists;    /* with tags and commit: a yes/no question whether the tag exists
                           ("is there a 2.2.0 release"): :answer "yes" or "no" */
    char rename_from[RT_STR]; /* with renamed: the name before, as said ("renamed redis.c
                                 to server.c": "redis.c"); the rename must be from it */
    char unread[RT_STR]; /* the words no slot or frame took, as said, space-separated:
                            what a decline names ("came from") */
} rt_question;

enum { RT_PERIOD_NONE, RT_PERIOD_YEAR, RT_PERIOD_QUARTER, RT_PERIOD_MONTH, RT_PERIOD_WEEK,
       RT_PERIOD_DAY, RT_PERIOD_WEEKDAY, RT_PERIOD_HOUR };

/* ---- the calendar (router_calendar.c) ----
 * Days are local calendar days written "YYYY-MM-DD" (RT_STR buffers). */
typedef struct rt_today {
    int64_t days;  /* since 1970-01-01, local */
    int y, m, d;   /* today's date */
    int wday;      /* 1 Monday .. 7 Sunday */
} rt_today;

void rt_today_of(int64_t now, int tz_offset_min, rt_today *t);
/* 1..12 for a month's name or abbreviation ("october", "oct", "sept"), else 0. */
int rt_month_word(const char *w);
/* 1 (Monday) .. 7 for a weekday's name or abbreviation, else 0. */
int rt_weekday_word(const char *w);
/* Month m of year y (0: the most recent that has begun): its first and last days. */
bool rt_month_window(const rt_today *t, int m, int y, char *since, char *last_day);
/* From month m1 of y1 through month m2 of y2 (0: the most recent m2 begun; y1 0: the
 * year that puts m1 at or before m2). False when the span runs backwards. */
bool rt_span_window(const rt_today *t, int m1, int y1, int m2, int y2, char *since,
                    char *last_day);
/* Quarter q (1..4) of year y (0: the most recent begun). */
bool rt_quarter_window(const rt_today *t, int q, int y, char *since, char *last_day);
int rt_quarter_of(const rt_today *t);
/* The most recent weekday wday up to today (before_today: strictly before). */
void rt_weekday_day(const rt_today *t, int wday, bool before_today, char *out);
/* The Saturday and Sunday of the most recent weekend that has begun. */
void rt_weekend(const rt_today *t, char *since, char *last_day);
/* Day d of this month, or of last month when it has not come yet this month. */
bool rt_day_of_month(const rt_today *t, int d, char *out);

/* Reads the question into q; false when it cannot be read as words and slots at all
 * (too long, a brace or control character, two windows, two paths...). */
bool rt_parse(const char *question, size_t len, const qr_router_opts *o, rt_question *q);

/* Tries the rules in order; on a match fills out (malloc'd strings) and returns true. */
bool rt_rules_match(const rt_question *q, qr_route *out);

/* ---- the parser's tokens (router.c reads the question, router_excl.c its exclusions) ---- */

#define MAX_TOKENS 64
#define TOK_LEN 200

/* T_OTHER: a token no slot takes and no rule accepts ("11/19", "and/or") */
enum { T_WORD, T_NUM, T_QUOTED, T_PATH, T_EMAIL, T_DATE, T_OTHER };

typedef struct tok {
    char s[TOK_LEN]; /* words lowercased; quoted strings, paths and emails as written */
    int kind;
    bool poss; /* the word ended in 's: "alice's" */
    bool used; /* a slot took it */
    bool tag;  /* a tag of the repository ("jq 1.7" read as jq-1.7): a revision */
    bool colon; /* the word ended a clause with ':' ("I'm writing release notes:") */
    bool comma; /* the word ended a clause with ',' ';' or a dash ("I'm curious, ...") */
} tok;

typedef struct parser {
    tok t[MAX_TOKENS];
    size_t n;
    rt_question *q;
    bool bad; /* read something that contradicts itself (two windows, two paths) */
    rt_today today;            /* for calendar windows ("in october", "since monday") */
    const qr_router_opts *o;   /* the repository's authors (may be NULL) */
    char *amb_word;            /* TOK_LEN: the first word that named several people */
    char *amb_list;            /* RT_STR * 2: who they are, as the author lookup said */
} parser;


static inline bool in_list(const char *s, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(s, list[i]) == 0)
            return true;
    return false;
}

static inline bool tok_is(const parser *p, size_t i, const char *w)
{
    return i < p->n && !p->t[i].used && p->t[i].kind == T_WORD && !p->t[i].poss &&
           strcmp(p->t[i].s, w) == 0;
}

static inline bool tok_in(const parser *p, size_t i, const char *const *list)
{
    return i < p->n && !p->t[i].used && p->t[i].kind == T_WORD && !p->t[i].poss &&
           in_list(p->t[i].s, list);
}

static inline void use(parser *p, size_t from, size_t to)
{
    for (size_t i = from; i < to && i < p->n; i++)
        p->t[i].used = true;
}

/* The vocabulary (router_words.c), NULL-terminated lists. */
extern const char *const RT_STOP[];         /* filler: never changes what is asked */
extern const char *const RT_NOT_NAME[];     /* never a person after "by" or before 's */
extern const char *const RT_COMMON[];       /* common English: a bare one is no name */
extern const char *const RT_NUM_WORDS[];    /* "zero" .. "twenty" */
extern const char *const RT_TYPO_TARGETS[]; /* words read through a typo */
/* The canonical RW_* bits of a content word, 0 when it is none. */
uint32_t rt_canon_bit(const char *w);

/* A person the repository knows at token i (one word or two, "alice" or "alice martin's"):
 * their email in out (RT_STR), the tokens taken in *len. Never a guess from a word's shape. */
bool rt_person_at(parser *p, size_t i, char *out, size_t *len);

/* A conventional file name without an extension ("Makefile", "Dockerfile"). */
bool rt_conventional_file(const char *s);

/* Exclusions and merges (router_excl.c): "not by bots", "excluding merges", "without the
 * docs folder", "merge commits". */
void rt_parse_exclusions(parser *p);
void rt_parse_merges(parser *p);

/* Frames (router_frames.c): words that reshape what is asked rather than filter it.
 * rt_parse_asides runs first and deletes asides that say nothing ("the person with email
 * X" is X); rt_parse_weekdays before the calendar takes "on weekends", "on mondays"
 * (a filter, not a day); rt_parse_frames after the windows takes ordinals ("third most
 * active"), time units grouped ("busiest month", "commits per weekday") and a second,
 * excluded path. */
void rt_parse_asides(parser *p);
void rt_parse_issues(parser *p);
/* Before the paths: "header files" (*.h), "the tests directory" (tests/), "on main" and
 * "went into v1.0.0" (a ref), hours of the day, a commit named by its quoted subject. */
void rt_parse_places(parser *p);
void rt_parse_weekdays(parser *p);
void rt_parse_frames(parser *p);

#endif
