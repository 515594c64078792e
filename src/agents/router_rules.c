/*
 * router_rules.c: the rules of the tier-1 router, one table. Each record is a rule's
 * name, what it answers, example phrasings (the tests and docs/router.md use them), the
 * word sets it accepts (one required set, exactly, plus any of its optional words), the
 * slots it takes and needs, and the emitter that writes its query in the DSL. The first
 * record that accepts a question answers it, so the narrower rules come first (a file
 * path makes "who changed" a question about that file).
 *
 * Emitters write EDN text by hand, every string through edn_str; a name or term the user
 * typed is never spliced into a template unescaped (the reader refuses braces and
 * backslashes, and a message term is quoted into a regular expression). Each query ends
 * in :findings and a :summary template, so `quarry ask` prints the same thing whatever
 * tier answered.
 *
 * Rejected: one emitter per phrasing (the eight families share four tools and differ in
 * slots), and default limits everywhere (a window's commits are all listed, so the
 * summary's count is the answer; only an open-ended "recent commits" is cut to 20, and a
 * ranking to 10 only when asked as one, "top" or "most"; "all" lifts every cut).
 */
#include "router_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- slots a rule takes ---- */

enum {
    S_WINDOW = 1u << 0,
    S_AUTHOR = 1u << 1,
    S_FILE = 1u << 2, /* a path to one file */
    S_DIR = 1u << 3,  /* a directory or glob */
    S_GREP = 1u << 4,
    S_MERGES_ONLY = 1u << 5,
    S_MERGES_EXCL = 1u << 6,
    S_N = 1u << 7,
    S_SORT = 1u << 8,
    S_BOTS = 1u << 9, /* bots excluded or only bots */
    S_AUTHOR2 = 1u << 10, /* a second person */
    S_UNTOUCHED = 1u << 11, /* commits that touch a path dropped whole */
    S_REF = 1u << 12,       /* a revision range ("between v1.0 and v1.1") */
    S_COMMIT = 1u << 13,    /* one commit named */
    S_NTH = 1u << 14,       /* "the third most active": one row of a ranking */
    S_WDAYS = 1u << 15,     /* commits on some weekdays only ("on weekends") */
    S_PERIOD = 1u << 16,    /* commits grouped by a unit of time ("per month") */
    S_PATH2 = 1u << 17,     /* a path excluded inside the included one */
    S_INACTIVE = 1u << 18,  /* authors with no commit in the window */
    S_LINES = 1u << 20,     /* a total of lines, not a ranking ("how many lines were added") */
    S_RENAME = 1u << 21,    /* a file's renames ("what was x.py called before") */
    S_TAGS = 1u << 22,      /* the tags themselves ("the latest release") */
    S_TAG = 1u << 19,       /* the one commit was named by a tag: its files only (who
                               "wrote" or "contributed to" a release is not its last commit) */
    S_EMAILS = 1u << 23,    /* a person's addresses ("which email does Tom use") */
    S_PATH = S_FILE | S_DIR,
    S_MERGES = S_MERGES_ONLY | S_MERGES_EXCL,
};

#define SB(k) (1u << (k))
#define REQ_END 0xFFFFFFFFu
#define MAX_REQ 10

typedef struct rule {
    const char *name;
    const char *summary;
    const char *examples[4];
    uint32_t required[MAX_REQ]; /* alternatives, REQ_END after the last; 0 is "no words" */
    uint32_t optional;
    uint32_t slots_allowed;
    uint32_t slots_needed; /* every one of these (of S_PATH, either kind) */
    uint32_t sorts;        /* 1 << RT_SORT_* accepted with S_SORT */
    void (*emit)(const rt_question *q, qr_buf *query, qr_buf *explain);
} rule;

static uint32_t slots_of(const rt_question *q)
{
    uint32_t s = 0;
    if (q->since[0] || q->until[0])
        s |= S_WINDOW;
    if (q->author[0])
        s |= S_AUTHOR;
    if (q->path_kind == RT_PATH_FILE)
        s |= S_FILE;
    if (q->path_kind == RT_PATH_DIR)
        s |= S_DIR;
    if (q->grep[0])
        s |= S_GREP;
    if (q->merges == RT_MERGES_ONLY)
        s |= S_MERGES_ONLY;
    if (q->merges == RT_MERGES_EXCLUDE)
        s |= S_MERGES_EXCL;
    if (q->n)
        s |= S_N;
    if (q->sort)
        s |= S_SORT;
    if (q->bots || q->not_author[0]) /* a filter on the author */
        s |= S_BOTS;
    if (q->author2[0])
        s |= S_AUTHOR2;
    if (q->untouched)
        s |= S_UNTOUCHED;
    if (q->ref[0])
        s |= S_REF;
    if (q->commit[0] || q->root || q->subject[0])
        s |= S_COMMIT;
    if (q->commit[0] && q->commit_tag)
        s |= S_TAG;
    if (q->nth)
        s |= S_NTH;
    if (q->wdays || q->hours)
        s |= S_WDAYS;
    if (q->period)
        s |= S_PERIOD;
    if (q->path2[0])
        s |= S_PATH2;
    if (q->inactive)
        s |= S_INACTIVE;
    if (q->line_total)
        s |= S_LINES;
    if (q->renamed)
        s |= S_RENAME;
    if (q->tags)
        s |= S_TAGS;
    if (q->emails)
        s |= S_EMAILS;

    return s;
}

/* ---- EDN writing ---- */

static void edn_str(qr_buf *b, const char *s)
{
    qr_buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            qr_buf_putc(b, '\\');
        qr_buf_putc(b, *s);
    }
    qr_buf_putc(b, '"');
}

/* The term as a regular expression that matches it literally. */
static void regex_quote(char *out, size_t cap, const char *s)
{
    size_t o = 0;
    for (; *s && o + 3 < cap; s++) {
        if (strchr(".^$*+?()[]{}|\\/-#", *s))
            out[o++] = '\\';
        out[o++] = *s;
    }
    out[o] = '\0';
}

/* "(?i)^(?:a|b)$" for the people of a ", "-separated list (one: "(?i)^a$"), each quoted. */
static void people_regex(char *re, size_t cap, char *quoted, size_t qcap, const char *list)
{
    /* an email or a full name is the whole value; one word (a handle or a surname the
       author lookup found to read exactly one person's commits, as the tools' "contains"
       filter reads it) is contained */
    bool several = strstr(list, ", ") != NULL, all_whole = true;
    for (const char *p = list; *p;) {
        const char *e = strstr(p, ", ");
        size_t l = e ? (size_t)(e - p) : strlen(p);
        all_whole &= memchr(p, '@', l) || memchr(p, ' ', l);
        p = e ? e + 2 : p + l;
    }
    size_t o = (size_t)snprintf(re, cap, "(?i)%s%s", all_whole ? "^" : "",
                                several || !all_whole ? "(?:" : "");
    for (const char *p = list; *p && o < cap;) {
        const char *e = strstr(p, ", ");
        size_t l = e ? (size_t)(e - p) : strlen(p);
        char one[RT_STR];
        snprintf(one, sizeof one, "%.*s", (int)l, p);
        regex_quote(quoted, qcap, one);
        bool whole = !all_whole && (strchr(one, '@') || strchr(one, ' '));
        o += (size_t)snprintf(re + o, o < cap ? cap - o : 0, "%s%s%s%s", p == list ? "" : "|",
                              whole ? "^" : "", quoted, whole ? "$" : "");
        p = e ? e + 2 : p + l;
    }
    if (o < cap)
        snprintf(re + o, cap - o, "%s%s", several || !all_whole ? ")" : "", all_whole ? "$" : "");
}

enum { P_WINDOW = 1, P_AUTHOR = 2, P_PATH = 4, P_GREP = 8, P_MERGES = 16 };

/* The tool parameters the question's slots give, as EDN map entries; limit < 1: none. */
static void params(qr_buf *b, const rt_question *q, unsigned which, int limit)
{
    qr_buf_puts(b, "{");
    const char *sep = "";
    if ((which & P_PATH) && q->path_kind && !q->untouched) {
        char spec[RT_STR + 4];
        snprintf(spec, sizeof spec, "%s%s", q->path_excl ? ":!" : "", q->path);
        qr_buf_printf(b, "%s:path ", sep), edn_str(b, spec), sep = " ";
    }
    if ((which & P_WINDOW) && q->ref[0]) {
        qr_buf_printf(b, "%s:ref ", sep), edn_str(b, q->ref), sep = " ";
    }
    if ((which & P_WINDOW) && q->since[0]) {
        qr_buf_printf(b, "%s:since ", sep), edn_str(b, q->since), sep = " ";
    }
    if ((which & P_WINDOW) && q->until[0]) {
        qr_buf_printf(b, "%s:until ", sep), edn_str(b, q->until), sep = " ";
    }
    if ((which & P_AUTHOR) && q->author[0]) {
        qr_buf_printf(b, "%s:author ", sep), edn_str(b, q->author), sep = " ";
    }
    if ((which & P_GREP) && q->grep[0]) {
        char re[RT_STR * 2];
        if (q->grep_re[0])
            snprintf(re, sizeof re, "%s", q->grep_re);
        else
            regex_quote(re, sizeof re, q->grep);
        qr_buf_printf(b, "%s:grep ", sep), edn_str(b, re), sep = " ";
    }
    if ((which & P_MERGES) && q->merges) {
        qr_buf_printf(b, "%s:merges \"%s\"", sep,
                      q->merges == RT_MERGES_ONLY ? "only" : "exclude");
        sep = " ";
    }
    if ((which & P_PATH) && q->path2[0])
        qr_buf_printf(b, "%s:with_paths true", sep), sep = " ";
    if ((which & P_WINDOW) && q->repos_all)
        qr_buf_printf(b, "%s:repos [\"all\"]", sep), sep = " ";
    if (limit > 0)
        qr_buf_printf(b, "%s:limit %d", sep, limit);
    qr_buf_puts(b, "}");
}

/* The params of the question's slots plus the author found by the :top step. */
static void params_with_author(qr_buf *b, const rt_question *q, unsigned which)
{
    size_t start = b->len;
    params(b, q, which, 0);
    /* reopen the map: "{...}" -> "{... :author ...}" */
    if (b->len > start && b->p[b->len - 1] == '}') {
        b->p[--b->len] = '\0';
        qr_buf_printf(b, "%s:author \"{{first:top:email}}\"}", b->len - start > 1 ? " " : "");
    }
}

static const char *const WEEKDAYS[] = {"", "Monday", "Tuesday", "Wednesday", "Thursday",
                                       "Friday", "Saturday", "Sunday"};

/* How a weekday filter reads: "weekends", "weekdays", "Mondays". */
static const char *wdays_words(unsigned bits)
{
    static char one[32];
    if (bits == ((1u << 6) | (1u << 7)))
        return "weekends";
    if (bits == 0x3Eu)
        return "weekdays";
    for (int d = 1; d <= 7; d++)
        if (bits == 1u << d) {
            snprintf(one, sizeof one, "%ss", WEEKDAYS[d]);
            return one;
        }
    return "some weekdays";
}

/* How the slots read, for summaries: " by alice mentioning 'fix' in src/ since 1 week ago". */
static void qualifiers(char *out, size_t cap, const rt_question *q, unsigned which)
{
    size_t o = 0;
    out[0] = '\0';
#define ADD(...) (o += (size_t)snprintf(out + o, o < cap ? cap - o : 0, __VA_ARGS__))
    if ((which & P_MERGES) && q->merges == RT_MERGES_EXCLUDE)
        ADD(" (merges excluded)");
    if (q->bots == RT_BOTS_EXCLUDE)
        ADD(" (bots excluded)");
    if (q->bots == RT_BOTS_ONLY)
        ADD(" by bots");
    if (q->not_author[0])
        ADD(" (%s excluded)", q->not_author);
    if ((which & P_AUTHOR) && q->author[0])
        ADD(" by %s%s%s", q->author, q->author2[0] ? " and " : "", q->author2);
    if ((which & P_GREP) && q->grep[0])
        ADD(" mentioning '%s'", q->grep);
    if ((which & P_PATH) && q->path_kind)
        ADD(" %s %s", q->untouched ? "not touching" : q->path_excl ? "outside" : "in", q->path);
    if ((which & P_PATH) && q->path2[0])
        ADD(" outside %s", q->path2);
    if (q->wdays)
        ADD(" on %s", wdays_words(q->wdays));
    if (q->hours)
        ADD(" (at some hours only)");
    if ((which & P_WINDOW) && q->ref[0])
        ADD(" in %s", q->ref);
    if ((which & P_WINDOW) && q->window[0])
        ADD(" %s", q->window);
#undef ADD
    if (o >= cap)
        out[cap - 1] = '\0';
}

static void explain_line(qr_buf *e, const char *what, const rt_question *q, unsigned which,
                         int limit)
{
    qr_buf_puts(e, what);
    if ((which & P_AUTHOR) && q->author[0])
        qr_buf_printf(e, " by \"%s\"", q->author);
    if ((which & P_AUTHOR) && q->author2[0])
        qr_buf_printf(e, " and \"%s\"", q->author2);
    if ((which & P_PATH) && q->path_kind)
        qr_buf_printf(e, " path \"%s%s\"", q->path_excl ? ":!" : "", q->path);
    if ((which & P_PATH) && q->path2[0])
        qr_buf_printf(e, " path outside \"%s\"", q->path2);
    if (q->wdays)
        qr_buf_printf(e, " on %s", wdays_words(q->wdays));
    if (q->bots)
        qr_buf_printf(e, " bots %s", q->bots == RT_BOTS_ONLY ? "only" : "excluded");
    if (q->not_author[0])
        qr_buf_printf(e, " author \"%s\" excluded", q->not_author);
    if ((which & P_GREP) && q->grep[0])
        qr_buf_printf(e, " message matching \"%s\"", q->grep);
    if ((which & P_MERGES) && q->merges)
        qr_buf_printf(e, " merges %s", q->merges == RT_MERGES_ONLY ? "only" : "excluded");
    if ((which & P_WINDOW) && q->ref[0])
        qr_buf_printf(e, " ref \"%s\"", q->ref);
    if ((which & P_WINDOW) && q->since[0])
        qr_buf_printf(e, " since \"%s\"", q->since);
    if ((which & P_WINDOW) && q->until[0])
        qr_buf_printf(e, " until \"%s\"", q->until);
    if (limit > 0)
        qr_buf_printf(e, " limit %d", limit);
}

static const char *const COMMIT_FIELDS =
    "[:short_hash :date :author :subject :files :additions :deletions]";

/* ---- bots ----
 * The tools have no bot filter: a question about bots fetches into :raw and a first
 * :transform step keeps the rows whose author (name or email) is, or is not, a bot
 * (RT_BOT_PATTERN) under the binding the rest of the query reads. */

static const char *fetch_as(const rt_question *q, const char *name)
{
    return q->bots || q->untouched || q->not_author[0] || q->wdays || q->hours || q->path2[0]
               ? "raw"
               : name;
}

/* A filter step over what was fetched (bots, commits that touch a path, weekdays, a path
 * left out of another) */
static bool filtered(const rt_question *q)
{
    return q->bots || q->untouched || q->not_author[0] || q->wdays || q->hours || q->path2[0];
}

/* A path as a regular expression for the whole path or what is under it. */
static void path_regex(char *out, size_t cap, const char *path)
{
    char quoted[RT_STR * 2];
    size_t n = strlen(path);
    char base[RT_STR];
    snprintf(base, sizeof base, "%.*s", (int)(n && path[n - 1] == '/' ? n - 1 : n), path);
    regex_quote(quoted, sizeof quoted, base);
    snprintf(out, cap, "^%s(/|$)", quoted);
}


/* The commits of the question's window: one fetch, or with two people one fetch each
 * (pre_steps then joins them, newest first). */
static void commits_fetch(qr_buf *b, const rt_question *q, unsigned which, int limit)
{
    if (!q->author2[0]) {
        qr_buf_printf(b, "{:fetch [{:tool :get_commits :as :%s :params ", fetch_as(q, "commits"));
        params(b, q, which, limit);
        if (q->untouched) {
            /* the commits that do touch the path, as git lists them (`git log -- path`,
               merges included by git's own rule), taken away by bots_step */
            rt_question touching = *q;
            touching.untouched = false;
            touching.path_excl = false;
            qr_buf_puts(b, "}\n         {:tool :get_commits :as :touching :params ");
            params(b, &touching, which, 0);
        }
        qr_buf_puts(b, "}]\n");
        return;
    }
    rt_question two = *q;
    snprintf(two.author, RT_STR, "%s", q->author2);
    qr_buf_puts(b, "{:fetch [{:tool :get_commits :as :first_author :params ");
    params(b, q, which, limit);
    qr_buf_puts(b, "}\n         {:tool :get_commits :as :second_author :params ");
    params(b, &two, which, limit);
    qr_buf_puts(b, "}]\n");
}

/* The steps (each followed by a separator) that make binding `name` out of what was
 * fetched: the bots filter, or the two people's commits joined, newest first. */
static bool calendar_date(const char *s);

static void bots_step(qr_buf *b, const rt_question *q, const char *name)
{
    if (q->author2[0]) {
        qr_buf_printf(b, "{:op :concat :on [:first_author :second_author] :as :both}\n"
                         "             {:op :sort :on :both :as :%s :by [[:timestamp :desc]]}"
                         "\n             ",
                      name);
        return;
    }
    if (!filtered(q))
        return;
    const char *from = "raw";
    if (q->untouched) {
        /* what was fetched less the commits that touch the path: a left join marks them */
        qr_buf_puts(b, "{:op :map :on :touching :as :touch_marks :select [:hash] "
                       ":compute {:touches_path true}}\n             "
                       "{:op :join :left :raw :right :touch_marks :on :hash :as :marked}\n"
                       "             ");
        from = "marked";
    }
    qr_buf_printf(b, "{:op :filter :on :%s :as :%s :where ", from, name);
    /* weekdays and hours are the author's clock: with a calendar window, so is the window
       ("on saturdays in 2026": Saturdays the authors wrote in 2026, not commits committed
       in 2026 and written on a Saturday of 2025) */
    bool cal_since = (q->wdays || q->hours) && q->since[0] && calendar_date(q->since);
    bool cal_until = (q->wdays || q->hours) && q->until[0] && calendar_date(q->until);
    int preds = (q->untouched != 0) + (q->bots != 0) + (q->not_author[0] != 0) +
                (q->wdays != 0) + (q->path2[0] != 0) + (q->hours != 0) + cal_since + cal_until;
    const char *sep = "";
    if (preds > 1)
        qr_buf_puts(b, "[:and ");
    if (q->untouched) {
        qr_buf_puts(b, "[:not [:exists :touches_path]]");
        sep = " ";
    }
    if (q->bots) {
        qr_buf_printf(b, "%s%s[:or [:matches :author ", sep,
                      q->bots == RT_BOTS_EXCLUDE ? "[:not " : "");
        edn_str(b, RT_BOT_PATTERN);
        qr_buf_puts(b, "] [:matches :email ");
        edn_str(b, RT_BOT_PATTERN);
        qr_buf_printf(b, "]]%s", q->bots == RT_BOTS_EXCLUDE ? "]" : "");
        sep = " ";
    }
    if (q->not_author[0]) {
        /* the person left out, by the email the repository knows them by, or by their
           name when they wrote with several emails under one name (rt_person_at) */
        char re[RT_STR * 2 + 16], quoted[RT_STR * 2];
        people_regex(re, sizeof re, quoted, sizeof quoted, q->not_author);
        qr_buf_printf(b, "%s[:not [:or [:matches :email ", sep);
        edn_str(b, re);
        qr_buf_puts(b, "] [:matches :author ");
        edn_str(b, re);
        qr_buf_puts(b, "]]]");
        sep = " ";
    }
    if (q->wdays) {
        qr_buf_printf(b, "%s[:in [:weekday :date] [", sep);
        const char *s2 = "";
        for (int d = 1; d <= 7; d++)
            if (q->wdays & (1u << d)) {
                qr_buf_printf(b, "%s\"%s\"", s2, WEEKDAYS[d]);
                s2 = " ";
            }
        qr_buf_puts(b, "]]");
        sep = " ";
    }
    if (cal_since) {
        qr_buf_printf(b, "%s[:>= :date ", sep);
        edn_str(b, q->since);
        qr_buf_puts(b, "]");
        sep = " ";
    }
    if (cal_until) {
        qr_buf_printf(b, "%s[:<= :date ", sep);
        edn_str(b, q->until);
        qr_buf_puts(b, "]");
        sep = " ";
    }
    if (q->hours) {
        qr_buf_printf(b, "%s[:in [:hour :date] [", sep);
        for (int h = 0, first = 1; h < 24; h++)
            if (q->hours & (1u << h)) {
                qr_buf_printf(b, "%s%d", first ? "" : " ", h);
                first = 0;
            }
        qr_buf_puts(b, "]]");
        sep = " ";
    }
    if (q->path2[0]) {
        /* a changed file in the path and outside the excluded one (git's `-- a ':!a/b'`) */
        char in[RT_STR * 2 + 16], out[RT_STR * 2 + 16];
        path_regex(in, sizeof in, q->path);
        path_regex(out, sizeof out, q->path2);
        qr_buf_printf(b, "%s[:> [:count-if :paths [:and [:matches :path ", sep);
        edn_str(b, in);
        qr_buf_puts(b, "] [:not [:matches :path ");
        edn_str(b, out);
        qr_buf_puts(b, "]]]] 0]");
    }
    if (preds > 1)
        qr_buf_puts(b, "]");
    qr_buf_puts(b, "}\n             ");
}

/* A :transform of the bots step alone, for queries that have no other step. */
static void bots_only_transform(qr_buf *b, const rt_question *q, const char *name)
{
    if (!filtered(q) && !q->author2[0])
        return;
    qr_buf_puts(b, " :transform [");
    bots_step(b, q, name);
    qr_buf_puts(b, "]\n");
}

/* ---- emitters ---- */

static int commits_limit(const rt_question *q)
{
    if (q->n)
        return q->n;
    if (q->all || q->since[0] || q->until[0] || q->ref[0])
        return 0;
    if ((q->words & RW_RECENT) && q->singular)
        return 1;
    if ((q->words & RW_RECENT) ||
        !(q->author[0] || q->grep[0] || q->path_kind || q->merges || filtered(q)))
        return 20;
    return 0;
}

static void emit_commits(const rt_question *q, qr_buf *b, qr_buf *e)
{
    const unsigned all = P_WINDOW | P_AUTHOR | P_PATH | P_GREP | P_MERGES;
    int limit = commits_limit(q);
    if (q->nth) {
        /* "the second most recent commit": the newest N, then the last of them */
        char qual[RT_STR * 4], sum[RT_STR * 6];
        qualifiers(qual, sizeof qual, q, all);
        commits_fetch(b, q, all, filtered(q) ? 0 : q->nth);
        qr_buf_puts(b, " :transform [");
        bots_step(b, q, "commits");
        qr_buf_printf(b, "{:op :drop :on :commits :as :after :n %d}\n"
                         "             {:op :take :on :after :as :one :n 1}\n"
                         "             {:op :map :on :one :as :rows :select %s}]\n",
                      q->nth - 1, COMMIT_FIELDS);
        snprintf(sum, sizeof sum,
                 "Commit number %d%s, newest first: {{first:rows:short_hash}} on "
                 "{{first:rows:date}} by {{first:rows:author}} ({{first:rows:subject}})",
                 q->nth, qual);
        qr_buf_puts(b, " :return {:findings :rows :summary ");
        edn_str(b, sum);
        qr_buf_puts(b, "}}");
        explain_line(e, "one of the newest commits", q, all, q->nth);
        return;
    }
    char qual[RT_STR * 4];
    qualifiers(qual, sizeof qual, q, all);
    const char *noun = q->merges == RT_MERGES_ONLY ? "merge commits" : "commits";
    /* with bots filtered, the cut comes after the filter; with two people, after the join */
    commits_fetch(b, q, all, filtered(q) ? 0 : limit);
    qr_buf_puts(b, " :transform [");
    bots_step(b, q, "commits");
    qr_buf_printf(b, "{:op :map :on :commits :as :rows :select %s}", COMMIT_FIELDS);
    const char *out = "rows";
    if ((filtered(q) || q->author2[0]) && limit > 0) {
        qr_buf_printf(b, "\n             {:op :take :on :rows :as :shown :n %d}", limit);
        out = "shown";
    }
    qr_buf_printf(b, "]\n :return {:findings :%s :summary ", out);
    char sum[RT_STR * 6];
    if (limit > 0)
        snprintf(sum, sizeof sum, "The latest {{count:%s}} %s%s", out, noun, qual);
    else
        snprintf(sum, sizeof sum, "Found {{count:commits}} %s%s", noun, qual);
    edn_str(b, sum);
    qr_buf_puts(b, "}}");
    explain_line(e, noun, q, all, limit);
}

static void emit_count(const rt_question *q, qr_buf *b, qr_buf *e)
{
    const unsigned all = P_WINDOW | P_AUTHOR | P_PATH | P_GREP | P_MERGES;
    char qual[RT_STR * 4], sum[RT_STR * 6];
    qualifiers(qual, sizeof qual, q, all);
    const char *noun = q->merges == RT_MERGES_ONLY ? "merge commits" : "commits";
    commits_fetch(b, q, all, 0);
    snprintf(sum, sizeof sum, "{{count:commits}} %s%s", noun, qual);
    bots_only_transform(b, q, "commits");
    qr_buf_puts(b, " :return {:count \"{{count:commits}}\" :summary ");
    edn_str(b, sum);
    qr_buf_puts(b, "}}");
    qr_buf_puts(e, "count of ");
    explain_line(e, noun, q, all, 0);
}

static const char *sort_field(int sort);
static const char *sort_words(int sort);

/* "how many lines were added to app/x.py": the commits as a count would fetch them, each
 * one's lines summed. Merges add nothing (their diff is not counted, as git log --numstat
 * prints none for them). */
static void emit_line_total(const rt_question *q, qr_buf *b, qr_buf *e)
{
    const unsigned all = P_WINDOW | P_AUTHOR | P_PATH | P_GREP | P_MERGES;
    char qual[RT_STR * 4], sum[RT_STR * 6], val[64];
    qualifiers(qual, sizeof qual, q, all);
    commits_fetch(b, q, all, 0);
    qr_buf_puts(b, " :transform [");
    bots_step(b, q, "commits");
    qr_buf_puts(b, "{:op :map :on :commits :as :sized :compute {:lines [:+ :additions "
                   ":deletions]}}\n             {:op :aggregate :on :sized :as :total :compute "
                   "{:additions [:sum :additions] :deletions [:sum :deletions] :lines [:sum "
                   ":lines] :commits [:count]}}]\n");
    snprintf(val, sizeof val, "{{total:%s}}", sort_field(q->sort));
    snprintf(sum, sizeof sum, "%s %s%s (in {{total:commits}} commits; as git log --numstat "
             "--no-renames counts them)", val, sort_words(q->sort), qual);
    qr_buf_puts(b, " :return {:total ");
    edn_str(b, val);
    qr_buf_puts(b, " :additions \"{{total:additions}}\" :deletions \"{{total:deletions}}\" "
                   ":lines \"{{total:lines}}\" :commits \"{{total:commits}}\" :summary ");
    edn_str(b, sum);
    qr_buf_puts(b, "}}");
    qr_buf_printf(e, "total %s of ", sort_words(q->sort));
    explain_line(e, "commits", q, all, 0);
}

static void emit_count_authors(const rt_question *q, qr_buf *b, qr_buf *e)
{
    const unsigned all = P_WINDOW | P_PATH | P_MERGES;
    char qual[RT_STR * 4], sum[RT_STR * 6];
    qualifiers(qual, sizeof qual, q, all);
    qr_buf_printf(b, "{:fetch [{:tool :get_author_stats :as :%s :params ",
                  fetch_as(q, "authors"));
    params(b, q, all, 0);
    snprintf(sum, sizeof sum, "{{count:authors}} authors committed%s", qual);
    qr_buf_puts(b, "}]\n");
    bots_only_transform(b, q, "authors");
    qr_buf_puts(b, " :return {:count \"{{count:authors}}\" :findings :authors :summary ");
    edn_str(b, sum);
    qr_buf_puts(b, "}}");
    explain_line(e, "count of authors", q, all, 0);
}

/* The field a sort key ranks by, and how a summary says it. */
static const char *sort_field(int sort)
{
    switch (sort) {
    case RT_SORT_ADDITIONS: return "additions";
    case RT_SORT_DELETIONS: return "deletions";
    case RT_SORT_LINES: return "lines";
    case RT_SORT_FILES: return "files";
    default: return "commits";
    }
}

static const char *sort_words(int sort)
{
    switch (sort) {
    case RT_SORT_ADDITIONS: return "lines added";
    case RT_SORT_DELETIONS: return "lines deleted";
    case RT_SORT_LINES: return "lines changed";
    case RT_SORT_FILES: return "files";
    default: return "commits";
    }
}

/* The :transform that ranks binding `from` by the sort key into `:ranked`, then takes n
 * (n > 0) into `:top`; nothing when there is nothing to do. Lines are computed as
 * additions + deletions. The tools already order by commits. Returns the binding that
 * holds the result. */
static const char *rank_steps(qr_buf *b, const rt_question *q, const char *from, int sort, int n,
                              bool asc)
{
    const char *on = from, *sep = " :transform [";
    if (filtered(q)) {
        qr_buf_puts(b, sep);
        bots_step(b, q, from);
        sep = "";
    }
    if (q->repos_all && !strcmp(from, "authors")) {
        /* a row per repository and person: one per person, summed */
        qr_buf_printf(b, "%s{:op :group :on :%s :as :by_person :by :email}\n"
                         "             {:op :aggregate :on :by_person :as :people :compute "
                         "{:author [:max :author] :commits [:sum :commits] :additions [:sum "
                         ":additions] :deletions [:sum :deletions] :repos [:count]}}",
                      sep, on);
        on = "people", sep = "\n             ";
        if (sort == RT_SORT_NONE || (sort == RT_SORT_COMMITS && !asc)) {
            qr_buf_printf(b, "%s{:op :sort :on :people :as :by_commits :by [[:commits :desc] "
                             "[:email :asc]]}",
                          sep);
            on = "by_commits";
        }
    }
    if (asc && sort == RT_SORT_NONE)
        sort = RT_SORT_COMMITS;
    if (sort == RT_SORT_LINES) {
        qr_buf_printf(b, "%s{:op :map :on :%s :as :sized :compute {:lines [:+ :additions "
                         ":deletions]}}",
                      sep, on);
        on = "sized", sep = "\n             ";
    }
    if (sort != RT_SORT_NONE && (sort != RT_SORT_COMMITS || asc)) {
        qr_buf_printf(b, "%s{:op :sort :on :%s :as :ranked :by :%s :order :%s}", sep, on,
                      sort_field(sort), asc ? "asc" : "desc");
        on = "ranked", sep = "\n             ";
    }
    if (q->nth) {
        /* "the third most active": the row at that place */
        qr_buf_printf(b, "%s{:op :drop :on :%s :as :after :n %d}", sep, on, q->nth - 1);
        qr_buf_printf(b, "\n             {:op :take :on :after :as :top :n 1}");
        on = "top", sep = "\n             ";
    } else if (n > 0) {
        qr_buf_printf(b, "%s{:op :take :on :%s :as :top :n %d}", sep, on, n);
        on = "top", sep = "\n             ";
    }
    if (on != from || filtered(q))
        qr_buf_puts(b, "]\n");
    return on;
}

/* The default cut of a ranking: none when "all" was said, the first 10 when a ranking
 * was asked for ("top", "most", "ranked"), else none ("who committed last week",
 * "commits per author" list every author). */
static int rank_limit(const rt_question *q, bool ranked)
{
    if (q->n)
        return q->n;
    return ranked && !q->all ? 10 : 0;
}

static void emit_top_authors(const rt_question *q, qr_buf *b, qr_buf *e)
{
    const unsigned all = P_WINDOW | P_PATH | P_MERGES;
    bool ranked = q->words & (RW_MOST | RW_ACTIVE | RW_RANKED | RW_MOSTBY);
    int n = rank_limit(q, ranked);
    if (!q->n && ranked && q->one_author && !q->all)
        n = 1;
    char qual[RT_STR * 4], sum[RT_STR * 6];
    qualifiers(qual, sizeof qual, q, all | P_GREP);
    const char *out;
    if (q->wdays || q->hours || q->grep[0] || q->path2[0]) {
        /* filters author statistics cannot take (weekdays, hours, a message term, a path
           left out of another): the authors counted from the commits themselves, by
           email after .mailmap as get_author_stats counts them */
        qr_buf_printf(b, "{:fetch [{:tool :get_commits :as :%s :params ",
                      fetch_as(q, "commits"));
        params(b, q, all | P_GREP, 0);
        qr_buf_puts(b, "}]\n :transform [");
        bots_step(b, q, "commits");
        qr_buf_printf(b, "{:op :group :on :commits :as :by_author :by :email}\n"
                         "             {:op :aggregate :on :by_author :as :authors :compute "
                         "{:author [:max :author] :commits [:count] :additions [:sum :additions] "
                         ":deletions [:sum :deletions]}}\n"
                         "             {:op :sort :on :authors :as :ranked :by [[:commits :%s] "
                         "[:email :asc]]}",
                      q->ascending ? "asc" : "desc");
        out = "ranked";
        if (q->nth) {
            qr_buf_printf(b, "\n             {:op :drop :on :ranked :as :after :n %d}"
                             "\n             {:op :take :on :after :as :top :n 1}", q->nth - 1);
            out = "top";
        } else if (n > 0) {
            qr_buf_printf(b, "\n             {:op :take :on :ranked :as :top :n %d}", n);
            out = "top";
        }
        qr_buf_puts(b, "]\n");
    } else {
        qr_buf_printf(b, "{:fetch [{:tool :get_author_stats :as :%s :params ",
                      fetch_as(q, "authors"));
        params(b, q, all, 0);
        qr_buf_puts(b, "}]\n");
        out = rank_steps(b, q, "authors", q->sort, n, q->ascending);
    }
    char place[48];
    if (q->nth)
        snprintf(place, sizeof place, "number %d by %s", q->nth, q->ascending ? "fewest" : "most");
    else
        snprintf(place, sizeof place, "%s", q->ascending ? "fewest" : "most");
    bool across = q->repos_all && !(q->wdays || q->hours || q->grep[0] || q->path2[0]);
    snprintf(sum, sizeof sum,
             "{{count:%s}} authors committed%s%s; %s %s: {{first:%s:author}} "
             "({{first:%s:%s}})",
             across ? "people" : "authors", qual, across ? " across the repositories" : "",
             place, sort_words(q->sort), out, out, sort_field(q->sort));
    qr_buf_printf(b, " :return {:findings :%s :summary ", out);
    edn_str(b, sum);
    qr_buf_puts(b, "}}");
    explain_line(e, "authors ranked by ", q, 0, 0);
    qr_buf_puts(e, sort_words(q->sort));
    explain_line(e, "", q, all, n);
}

static void emit_file_churn(const rt_question *q, qr_buf *b, qr_buf *e)
{
    const unsigned all = P_WINDOW | P_PATH | P_AUTHOR | P_MERGES;
    bool ranked = (q->words & (RW_MOST | RW_HOTSPOTS | RW_MOSTBY)) || q->n || q->sort;
    int n = rank_limit(q, ranked);
    bool by_commits = q->sort == RT_SORT_NONE || q->sort == RT_SORT_COMMITS;
    char qual[RT_STR * 4], sum[RT_STR * 6];
    qualifiers(qual, sizeof qual, q, all);
    qr_buf_puts(b, "{:fetch [{:tool :get_file_stats :as :files :params ");
    size_t at = b->len;
    /* "the fewest commits": every row, ranked the other way */
    params(b, q, all, by_commits && !q->ascending ? (q->nth ? q->nth : n) : 0);
    if (q->by_dir && b->len > at && b->p[b->len - 1] == '}') {
        /* directories ranked: reopen the map for :by */
        b->p[--b->len] = '\0';
        qr_buf_printf(b, "%s:by \"directory\"}", b->len - at > 1 ? " " : "");
    }
    qr_buf_puts(b, "}]\n");
    const char *out = "files";
    if (!by_commits || q->nth || q->ascending)
        out = rank_steps(b, q, "files", by_commits ? RT_SORT_NONE : q->sort, n, q->ascending);
    const char *most = q->ascending ? "least" : "most";
    if (q->by_dir) {
        /* the same sentences with "directories" for "files" */
        if (q->nth)
            snprintf(sum, sizeof sum,
                     "Number %d of the %s changed directories by %s%s: {{first:%s:path}} "
                     "({{first:%s:%s}})",
                     q->nth, most, sort_words(q->sort), qual, out, out, sort_field(q->sort));
        else
            snprintf(sum, sizeof sum,
                     "The {{count:%s}} %s changed directories by %s%s; first: "
                     "{{first:%s:path}} ({{first:%s:%s}})",
                     out, most, sort_words(q->sort), qual, out, out, sort_field(q->sort));
    } else if (q->nth)
        snprintf(sum, sizeof sum,
                 "Number %d of the %s changed files by %s%s: {{first:%s:path}} "
                 "({{first:%s:%s}})",
                 q->nth, most, sort_words(q->sort), qual, out, out, sort_field(q->sort));
    else if (ranked)
        snprintf(sum, sizeof sum,
                 "The {{count:%s}} %s changed files by %s%s; first: {{first:%s:path}} "
                 "({{first:%s:%s}})",
                 out, most, sort_words(q->sort), qual, out, out, sort_field(q->sort));
    else
        snprintf(sum, sizeof sum, "{{count:files}} files changed%s, most commits first", qual);
    qr_buf_printf(b, " :return {:findings :%s :summary ", out);
    edn_str(b, sum);
    qr_buf_puts(b, "}}");
    explain_line(e, q->by_dir ? "directories ranked by " : "files ranked by ", q, 0, 0);
    qr_buf_puts(e, sort_words(q->sort));
    explain_line(e, "", q, all, n);
}

static void emit_file_history(const rt_question *q, qr_buf *b, qr_buf *e)
{
    const unsigned all = P_WINDOW | P_PATH | P_AUTHOR | P_GREP | P_MERGES;
    int limit = q->n ? q->n : ((q->words & RW_RECENT) && q->singular) ? 1 : 0;
    char qual[RT_STR * 4], sum[RT_STR * 6];
    qualifiers(qual, sizeof qual, q, all & ~(unsigned)P_PATH);
    qr_buf_puts(b, "{:fetch [{:tool :get_file_history :as :history :params ");
    params(b, q, all, limit);
    qr_buf_puts(b, "}]\n :transform [{:op :map :on :history :as :rows :select [:short_hash "
                   ":date :author :subject :path :status :additions :deletions]}]\n");
    snprintf(sum, sizeof sum, "%s{{count:history}} commits changed %s%s",
             limit ? "The latest " : "", q->path, qual);
    qr_buf_puts(b, " :return {:findings :rows :summary ");
    edn_str(b, sum);
    qr_buf_puts(b, "}}");
    explain_line(e, "history of a file (following renames, with the merges git shows)", q,
                 all, limit);
}

/* A file's last change: get_file_history's first row, which is a merge when git log --
 * FILE's is (tmux's sync merges); the summary then also names the last change that is not
 * a merge, who wrote what the merge brought in. */
static void emit_file_last(const rt_question *q, qr_buf *b, qr_buf *e)
{
    const unsigned all = P_WINDOW | P_PATH | P_AUTHOR;
    char qual[RT_STR * 4], sum[RT_STR * 6];
    qualifiers(qual, sizeof qual, q, all & ~(unsigned)P_PATH);
    bool merges = !strpbrk(q->path, "*?[:");
    qr_buf_puts(b, "{:fetch [{:tool :get_file_history :as :history :params ");
    params(b, q, all, 1);
    if (merges) {
        rt_question own = *q;
        own.merges = RT_MERGES_EXCLUDE;
        qr_buf_puts(b, "}\n         {:tool :get_file_history :as :followed :params ");
        params(b, &own, all | P_MERGES, 1);
    }
    qr_buf_puts(b, "}]\n :transform [{:op :map :on :history :as :rows :select [:short_hash "
                   ":date :author :subject :path :status]}]\n");
    snprintf(sum, sizeof sum,
             "%s was last changed%s on {{first:rows:date}} by {{first:rows:author}} in "
             "{{first:rows:short_hash}} ({{first:rows:subject}})%s",
             q->path, qual,
             merges ? "; its last change other than a merge: {{first:followed:short_hash}} by "
                      "{{first:followed:author}} on {{first:followed:date}}"
                    : "");
    qr_buf_puts(b, " :return {:findings :rows :summary ");
    edn_str(b, sum);
    qr_buf_puts(b, "}}");
    explain_line(e, "last change to a file (following renames, with the merges git shows)", q,
                 all, 1);
}

static void emit_file_authors(const rt_question *q, qr_buf *b, qr_buf *e)
{
    const unsigned all = P_WINDOW | P_PATH | P_MERGES;
    char qual[RT_STR * 4], sum[RT_STR * 6];
    qualifiers(qual, sizeof qual, q, all & ~(unsigned)P_PATH);
    const char *out = "authors";
    if (q->path_kind == RT_PATH_FILE && !filtered(q)) {
        /* a file's authors: the commits of its path (git shortlog -- PATH) and of its
           lineage across renames (git log --follow), each once. Either alone is wrong
           somewhere: jq's src/parser.y was parser.y before a move (its author is in the
           lineage only); redis's src/cluster.c was emptied and made anew in 2023 (the
           path's history holds antirez's 509 commits, the lineage 18). */
        qr_buf_puts(b, "{:fetch [{:tool :get_file_history :as :followed :params ");
        params(b, q, all, 0);
        qr_buf_puts(b, "}\n         {:tool :get_commits :as :on_path :params ");
        params(b, q, all, 0);
        qr_buf_puts(b, "}]\n :transform [{:op :concat :on [:followed :on_path] :as :both}\n"
                       "             {:op :distinct :on :both :as :history :by :hash}\n"
                       "             {:op :group :on :history :as :by_author :by :email}\n"
                       "             {:op :aggregate :on :by_author :as :counted :compute "
                       "{:author [:max :author] :commits [:count] :last [:max :date]}}\n"
                       "             {:op :sort :on :counted :as :authors :by [[:commits :desc] "
                       "[:author :asc]]}");
        if (q->n) {
            qr_buf_printf(b, "\n             {:op :take :on :authors :as :top :n %d}", q->n);
            out = "top";
        }
        qr_buf_puts(b, "]\n");
    } else {
        /* a directory's (or, with a filter on people, a file's path's): every author is
           fetched, so the summary counts them all; the top N are taken */
        qr_buf_printf(b, "{:fetch [{:tool :get_author_stats :as :%s :params ",
                      fetch_as(q, "authors"));
        params(b, q, all, 0);
        qr_buf_puts(b, "}]\n");
    }
    if (q->path_kind != RT_PATH_FILE || filtered(q)) {
        if (filtered(q) || q->n) {
        qr_buf_puts(b, " :transform [");
        bots_step(b, q, "authors");
        if (q->n) {
            qr_buf_printf(b, "{:op :take :on :authors :as :top :n %d}", q->n);
            out = "top";
        }
        qr_buf_puts(b, "]\n");
        }
    }
    snprintf(sum, sizeof sum,
             "{{count:authors}} authors changed %s%s; most commits: {{first:%s:author}} "
             "({{first:%s:commits}})",
             q->path, qual, out, out);
    qr_buf_printf(b, " :return {:findings :%s :summary ", out);
    edn_str(b, sum);
    qr_buf_puts(b, "}}");
    explain_line(e, "authors of a path by commits", q, all, q->n);
}

static void emit_largest(const rt_question *q, qr_buf *b, qr_buf *e)
{
    const unsigned all = P_WINDOW | P_AUTHOR | P_PATH | P_GREP | P_MERGES;
    /* "the largest commit" is one; "all" lists every commit, largest first */
    int n = q->n ? q->n : q->singular ? 1 : q->all ? 0 : 10;
    int sort = q->sort ? q->sort : RT_SORT_LINES;
    const char *out = n > 0 ? "top" : "ranked";
    char qual[RT_STR * 4], sum[RT_STR * 6];
    qualifiers(qual, sizeof qual, q, all);
    qr_buf_printf(b, "{:fetch [{:tool :get_commits :as :%s :params ", fetch_as(q, "commits"));
    params(b, q, all, 0);
    qr_buf_puts(b, "}]\n :transform [");
    bots_step(b, q, "commits");
    qr_buf_printf(b, "{:op :map :on :commits :as :sized :select %s "
                     ":compute {:lines [:+ :additions :deletions]}}\n"
                     "             {:op :sort :on :sized :as :ranked :by :%s :order :desc}",
                  COMMIT_FIELDS, sort_field(sort));
    if (q->nth) {
        qr_buf_printf(b, "\n             {:op :drop :on :ranked :as :after :n %d}"
                         "\n             {:op :take :on :after :as :top :n 1}", q->nth - 1);
        n = 1, out = "top";
    } else if (n > 0) {
        qr_buf_printf(b, "\n             {:op :take :on :ranked :as :top :n %d}", n);
    }
    qr_buf_puts(b, "]\n");
    if (q->nth)
        snprintf(sum, sizeof sum,
                 "Number %d of {{count:commits}} commits by %s%s: {{first:%s:short_hash}} "
                 "({{first:%s:%s}} %s)",
                 q->nth, sort_words(sort), qual, out, out, sort_field(sort), sort_words(sort));
    else if (n == 1) /* "The 1 largest of N commits" read wrong */
        snprintf(sum, sizeof sum,
                 "The largest of {{count:commits}} commits by %s%s: {{first:%s:short_hash}} "
                 "({{first:%s:%s}} %s)",
                 sort_words(sort), qual, out, out, sort_field(sort), sort_words(sort));
    else
        snprintf(sum, sizeof sum,
                 "The {{count:%s}} largest of {{count:commits}} commits by %s%s; largest: "
                 "{{first:%s:short_hash}} ({{first:%s:%s}} %s)",
                 out, sort_words(sort), qual, out, out, sort_field(sort), sort_words(sort));
    qr_buf_printf(b, " :return {:findings :%s :summary ", out);
    edn_str(b, sum);
    qr_buf_puts(b, "}}");
    explain_line(e, "commits ranked by ", q, 0, 0);
    qr_buf_puts(e, sort_words(sort));
    explain_line(e, "", q, all, n);
}

/* Two steps with no model: the window's most active author, then that author's commits.
 * The commits are also filtered on the email, so an empty window gives no commits rather
 * than everyone's. */
static void emit_top_author_commits(const rt_question *q, qr_buf *b, qr_buf *e)
{
    const unsigned scope = P_WINDOW | P_PATH | P_MERGES;
    char qual[RT_STR * 4], sum[RT_STR * 6];
    qualifiers(qual, sizeof qual, q, scope);
    qr_buf_puts(b, "{:fetch [{:tool :get_author_stats :as :top :params ");
    params(b, q, scope, 1);
    qr_buf_puts(b, "}\n         {:tool :get_commits :as :commits :params ");
    params_with_author(b, q, scope);
    qr_buf_puts(b, "}]\n :transform [{:op :filter :on :commits :as :theirs :where [:= :email "
                   "\"{{first:top:email}}\"]}\n");
    qr_buf_printf(b, "             {:op :map :on :theirs :as :rows :select %s}", COMMIT_FIELDS);
    if (q->n)
        qr_buf_printf(b, "\n             {:op :take :on :rows :as :shown :n %d}", q->n);
    qr_buf_printf(b, "]\n :return {:findings :%s :summary ", q->n ? "shown" : "rows");
    snprintf(sum, sizeof sum,
             "{{count:theirs}} commits by {{first:top:author}}, the most active author%s", qual);
    edn_str(b, sum);
    qr_buf_puts(b, "}}");
    explain_line(e, "the commits of the most active author", q, scope, q->n);
}

/* The fetch of one commit as :commit: by its id or tag, or the initial commit (the last
 * of all), with `extra` params (" :with_paths true", or ""); the transform after it is the
 * caller's. */
static void one_commit_fetch(const rt_question *q, qr_buf *b, const char *extra)
{
    if (q->root)
        qr_buf_puts(b, "{:fetch [{:tool :get_commits :as :all :params {}}\n"
                       "         {:tool :get_commits :as :commit :params {:ref "
                       "\"{{last:all:hash}}\"");
    else {
        qr_buf_puts(b, "{:fetch [{:tool :get_commits :as :commit :params {:ref ");
        edn_str(b, q->commit);
    }
    qr_buf_printf(b, " :limit 1%s}}]\n", extra);
}

/* The files one commit changed: "files 60213d4", "which files did commit X change". */
static void emit_commit_files(const rt_question *q, qr_buf *b, qr_buf *e)
{
    if (q->subject[0] && !q->root) {
        /* by its subject, or the start of it, as quoted; two commits that match are both
           shown, and the summary says how many matched */
        char re[RT_STR * 2 + 40], quoted[RT_STR * 2];
        regex_quote(quoted, sizeof quoted, q->subject);
        /* the message opens with the subject, after a conventional-commit type if any
         * ("feat: add database migrations (#322)" is "the 'add database migrations'
         * commit") */
        snprintf(re, sizeof re, "^(?:[a-z]+(?:\\([^)]*\\))?!?: )?%s", quoted);
        qr_buf_puts(b, "{:fetch [{:tool :get_commits :as :named :params {:grep ");
        edn_str(b, re);
        qr_buf_puts(b, " :with_paths true}}]\n"
                       " :transform [{:op :map :on :named :as :rows :select [:short_hash :date "
                       ":author :subject :files :paths]}]\n"
                       " :return {:findings :rows :count \"{{first:rows:files}}\" :summary "
                       "\"{{first:rows:files}} files changed in {{first:rows:short_hash}} "
                       "({{first:rows:subject}}); commits with that subject: {{count:rows}}\"}}");
        qr_buf_printf(e, "files of the commit whose subject is \"%s\"", q->subject);
        return;
    }
    one_commit_fetch(q, b, " :with_paths true");
    qr_buf_puts(b, " :transform [{:op :map :on :commit :as :rows :select [:short_hash :date "
                   ":author :subject :files :paths]}]\n"
                   " :return {:findings :rows :count \"{{first:rows:files}}\" :summary "
                   "\"{{first:rows:files}} files changed in {{first:rows:short_hash}} "
                   "({{first:rows:subject}})\"}}");
    qr_buf_printf(e, "files of commit \"%s\"", q->root ? "the initial commit" : q->commit);
}

/* Who created a file, and when: the oldest commit of its history (renames followed). */
static void emit_file_created(const rt_question *q, qr_buf *b, qr_buf *e)
{
    char sum[RT_STR * 6];
    qr_buf_puts(b, "{:fetch [{:tool :get_file_history :as :history :params ");
    params(b, q, P_PATH, 0);
    /* the row where the file was added (the oldest such, for one deleted and added
       again), else the oldest row: by date alone, a commit rebased with an older author
       date than the one that added the file would pass for its creation */
    qr_buf_puts(b, "}]\n :transform [{:op :filter :on :history :as :added :where [:= :status "
                   "\"A\"]}\n"
                   "             {:op :sort :on :added :as :added_first :by [[:timestamp :asc]]}\n"
                   "             {:op :sort :on :history :as :oldest :by [[:timestamp :asc]]}\n"
                   "             {:op :concat :on [:added_first :oldest] :as :ordered}\n"
                   "             {:op :take :on :ordered :as :first :n 1}\n"
                   "             {:op :map :on :first :as :rows :select [:short_hash :date "
                   ":author :email :subject :path :status]}]\n");
    snprintf(sum, sizeof sum,
             "%s was created by {{first:rows:author}} on {{first:rows:date}} in "
             "{{first:rows:short_hash}} ({{first:rows:subject}})",
             q->path);
    qr_buf_puts(b, " :return {:findings :rows :summary ");
    edn_str(b, sum);
    qr_buf_puts(b, "}}");
    explain_line(e, "the first commit of a file (following renames)", q, P_PATH, 1);
}

/* A file's renames, from its history (renames followed): the latest first, or the oldest
 * for its original name; each row says the name before (old_path) and after. */
static void emit_file_renames(const rt_question *q, qr_buf *b, qr_buf *e)
{
    char sum[RT_STR * 6];
    if (q->gone) {
        /* "which commit renamed docs/setup.md", a name HEAD no longer has: the commit where
           that path was last removed, which a rename away is (the summary says it may be
           a deletion: the name after is that commit's) */
        qr_buf_puts(b, "{:fetch [{:tool :get_file_history :as :history :params ");
        params(b, q, P_PATH, 0);
        qr_buf_puts(b, "}]\n :transform [{:op :filter :on :history :as :removals :where [:= "
                       ":status \"D\"]}\n             {:op :take :on :removals :as :last :n 1}\n"
                       "             {:op :map :on :last :as :rows :select [:hash :short_hash "
                       ":date :author :email :subject :path]}]\n");
        snprintf(sum, sizeof sum,
                 "%s left its path in {{first:rows:short_hash}} by {{first:rows:author}} on "
                 "{{first:rows:date}} ({{first:rows:subject}}): renamed away or deleted",
                 q->path);
        qr_buf_puts(b, " :return {:findings :rows :summary ");
        edn_str(b, sum);
        qr_buf_puts(b, "}}");
        explain_line(e, "the commit where a file's old name left", q, P_PATH, 0);
        return;
    }
    qr_buf_puts(b, "{:fetch [{:tool :get_file_history :as :history :params ");
    params(b, q, P_PATH, 0);
    if (q->rename_from[0]) {
        /* the rename from the name said: its whole path, or its last components */
        char quoted[RT_STR * 2], re[RT_STR * 2 + 16];
        regex_quote(quoted, sizeof quoted, q->rename_from);
        snprintf(re, sizeof re, "(^|/)%s$", quoted);
        qr_buf_puts(b, "}]\n :transform [{:op :filter :on :history :as :all_renames :where "
                       "[:and [:= :status \"R\"] [:matches :old_path ");
        edn_str(b, re);
        qr_buf_puts(b, "]]}\n             ");
    } else
        qr_buf_puts(b, "}]\n :transform [{:op :filter :on :history :as :all_renames :where "
                       "[:= :status \"R\"]}\n             ");
    if (q->renamed == 2)
        qr_buf_puts(b, "{:op :sort :on :all_renames :as :ordered :by [[:timestamp :asc]]}\n"
                       "             {:op :map :on :ordered :as :renames ");
    else
        qr_buf_puts(b, "{:op :map :on :all_renames :as :renames ");
    qr_buf_puts(b, ":select [:old_path :path :short_hash :date :author :email :subject]}]\n");
    snprintf(sum, sizeof sum,
             "%s: {{count:renames}} renames in its history; the %s was from "
             "{{first:renames:old_path}} to {{first:renames:path}} by "
             "{{first:renames:author}} on {{first:renames:date}} in "
             "{{first:renames:short_hash}}",
             q->path, q->renamed == 2 ? "first" : "latest");
    qr_buf_puts(b, " :return {:findings :renames :old_path \"{{first:renames:old_path}}\" "
                   ":summary ");
    edn_str(b, sum);
    qr_buf_puts(b, "}}");
    explain_line(e, q->renamed == 2 ? "the first rename of a file" : "the renames of a file",
                 q, P_PATH, 0);
}

/* Who deleted a file: the commit of its history whose status is D, the latest. */
static void emit_file_deleted(const rt_question *q, qr_buf *b, qr_buf *e)
{
    char sum[RT_STR * 6];
    qr_buf_puts(b, "{:fetch [{:tool :get_file_history :as :history :params ");
    params(b, q, P_PATH, 0);
    qr_buf_puts(b, "}]\n :transform [{:op :filter :on :history :as :deletions :where "
                   "[:= :status \"D\"]}\n             {:op :take :on :deletions :as :last :n 1}\n"
                   "             {:op :map :on :last :as :rows :select [:short_hash :date "
                   ":author :email :subject :path :status]}]\n");
    snprintf(sum, sizeof sum,
             "{{count:rows}} deletion of %s: by {{first:rows:author}} on {{first:rows:date}} in "
             "{{first:rows:short_hash}} ({{first:rows:subject}})",
             q->path);
    qr_buf_puts(b, " :return {:findings :rows :summary ");
    edn_str(b, sum);
    qr_buf_puts(b, "}}");
    explain_line(e, "the deletion of a file", q, P_PATH, 1);
}

/* The files deleted (status D) or added (A) in a window or a directory (or by someone): the
 * rows of their histories with that status (git's rename detection on, so a file moved is
 * neither), one per path with how many times and when last. */
static void emit_files_status(const rt_question *q0, qr_buf *b, qr_buf *e, char status)
{
    /* "files added in commit 276f6acf": that commit's (its first parent to it) */
    rt_question one = *q0;
    if (q0->commit[0] && !q0->ref[0])
        snprintf(one.ref, sizeof one.ref, "%.*s~1..%.*s", RT_STR / 2 - 4, q0->commit,
                 RT_STR / 2 - 4, q0->commit);
    const rt_question *q = &one;
    const char *verb = status == 'D' ? "deleted" : "added";
    char spec[RT_STR + 16];
    if (q->path_kind == RT_PATH_DIR && strchr(q->path, '*'))
        snprintf(spec, sizeof spec, ":(glob)%s", q->path);
    else if (q->path_kind == RT_PATH_DIR)
        snprintf(spec, sizeof spec, ":(glob)%s%s**", q->path,
                 q->path[0] && q->path[strlen(q->path) - 1] != '/' ? "/" : "");
    else
        snprintf(spec, sizeof spec, ":(glob)**");
    qr_buf_puts(b, "{:fetch [{:tool :get_file_history :as :history :params ");
    size_t at = b->len;
    params(b, q, P_WINDOW | P_AUTHOR, 0);
    /* the map so far, "{...}", reopened for the path */
    b->p[--b->len] = '\0';
    qr_buf_printf(b, "%s:path ", b->len - at > 1 ? " " : "");
    edn_str(b, spec);
    qr_buf_printf(b, "}}]\n :transform [{:op :filter :on :history :as :hits :where "
                     "[:= :status \"%c\"]}\n"
                     "             {:op :group :on :hits :as :by_path :by :path}\n"
                     "             {:op :aggregate :on :by_path :as :rows :compute {:%s "
                     "[:count] :last [:max :date]}}]\n"
                     " :return {:findings :rows :count \"{{count:rows}}\" :summary "
                     "\"{{count:rows}} files %s%s%s\"}}",
                  status, status == 'D' ? "deletions" : "additions", verb,
                  q0->commit[0] && !q0->ref[0] ? " in " : "",
                  q0->commit[0] && !q0->ref[0] ? q0->commit : "");
    explain_line(e, status == 'D' ? "the files deleted" : "the files added", q,
                 P_WINDOW | P_AUTHOR | P_PATH, 0);
}

static void emit_files_deleted(const rt_question *q, qr_buf *b, qr_buf *e)
{
    emit_files_status(q, b, e, 'D');
}

static void emit_files_added(const rt_question *q, qr_buf *b, qr_buf *e)
{
    emit_files_status(q, b, e, 'A');
}

/* The address a person commits with: their row of the author statistics (after .mailmap,
 * the address the repository joins their others to). */
static void emit_author_emails(const rt_question *q, qr_buf *b, qr_buf *e)
{
    qr_buf_puts(b, "{:fetch [{:tool :get_author_stats :as :authors :params ");
    params(b, q, P_AUTHOR | P_WINDOW, 0);
    qr_buf_puts(b, "}]\n :transform [{:op :map :on :authors :as :rows :select [:author :email "
                   ":commits :first :last]}]\n"
                   " :return {:findings :rows :email \"{{first:rows:email}}\" :summary "
                   "\"{{first:rows:author}} commits as {{first:rows:email}} "
                   "({{first:rows:commits}} commits; addresses .mailmap joins are one)\"}}");
    explain_line(e, "the address a person commits with", q, P_AUTHOR | P_WINDOW, 0);
}

/* The oldest commits (of an author, a path, a window): "the first commit", "alice's
 * first commit", "the first 5 commits in src/". */
static void emit_first_commits(const rt_question *q, qr_buf *b, qr_buf *e)
{
    const unsigned all = P_WINDOW | P_AUTHOR | P_PATH | P_MERGES;
    /* "the first commit" is one; "the oldest commits" the first ten */
    int n = q->n ? q->n : q->singular || q->one_author ? 1 : 10;
    char qual[RT_STR * 4], sum[RT_STR * 6];
    qualifiers(qual, sizeof qual, q, all);
    commits_fetch(b, q, all, 0);
    qr_buf_puts(b, " :transform [");
    bots_step(b, q, "commits");
    qr_buf_puts(b, "{:op :sort :on :commits :as :oldest :by [[:timestamp :asc]]}\n");
    if (q->nth) {
        /* "the fifth commit": the one after the first four */
        qr_buf_printf(b, "             {:op :drop :on :oldest :as :after :n %d}\n"
                         "             {:op :take :on :after :as :first :n 1}\n",
                      q->nth - 1);
        n = 1;
    } else {
        qr_buf_printf(b, "             {:op :take :on :oldest :as :first :n %d}\n", n);
    }
    qr_buf_printf(b, "             {:op :map :on :first :as :rows :select %s}]\n", COMMIT_FIELDS);
    if (q->nth)
        snprintf(sum, sizeof sum,
                 "Commit number %d%s, oldest first: {{first:rows:short_hash}} on "
                 "{{first:rows:date}} by {{first:rows:author}} ({{first:rows:subject}})",
                 q->nth, qual);
    else if (n == 1)
        snprintf(sum, sizeof sum,
                 "The first commit%s: {{first:rows:short_hash}} on {{first:rows:date}} by "
                 "{{first:rows:author}} ({{first:rows:subject}})",
                 qual);
    else
        snprintf(sum, sizeof sum, "The first {{count:rows}} commits%s", qual);
    qr_buf_puts(b, " :return {:findings :rows :summary ");
    edn_str(b, sum);
    qr_buf_puts(b, "}}");
    explain_line(e, "the oldest commits", q, all, n);
}

/* Commits grouped by a unit of time: "the busiest month of 2025" (ranked: most commits
 * first, the earlier on a tie), "commits per weekday" (listed in time order). */
static void emit_periods(const rt_question *q, qr_buf *b, qr_buf *e)
{
    static const struct {
        const char *field, *fn, *order, *words;
    } U[] = {
        [RT_PERIOD_YEAR] = {"year", "[:year :date]", "[:year :date]", "year"},
        [RT_PERIOD_QUARTER] = {"quarter", "[:quarter :date]", "[:quarter :date]", "quarter"},
        [RT_PERIOD_MONTH] = {"month", "[:month :date]", "[:month :date]", "month"},
        [RT_PERIOD_WEEK] = {"week", "[:week :date]", "[:week :date]", "week"},
        [RT_PERIOD_DAY] = {"day", "[:day :date]", "[:day :date]", "day"},
        [RT_PERIOD_WEEKDAY] = {"weekday", "[:weekday :date]", "[:weekday-num :date]",
                               "day of the week"},
        [RT_PERIOD_HOUR] = {"hour", "[:hour :date]", "[:hour :date]", "hour of the day"},
    };
    const unsigned all = P_WINDOW | P_AUTHOR | P_PATH | P_GREP | P_MERGES;
    bool ranked = (q->words & (RW_MOST | RW_ACTIVE | RW_RANKED | RW_MOSTBY)) || q->nth ||
                  q->ascending;
    int n = q->n ? q->n : ranked && q->period_one ? 1 : rank_limit(q, ranked);
    const char *f = U[q->period].field;
    char qual[RT_STR * 4], sum[RT_STR * 6];
    qualifiers(qual, sizeof qual, q, all);
    qr_buf_printf(b, "{:fetch [{:tool :get_commits :as :%s :params ", fetch_as(q, "commits"));
    params(b, q, all, 0);
    qr_buf_puts(b, "}]\n :transform [");
    bots_step(b, q, "commits");
    /* a calendar window ("per month in 2026") holds the periods inside it: the window is
       git's (committer dates), the periods the authors' dates, so a commit written in
       December and committed in January would open a period outside the window */
    const char *from = "commits";
    bool cal = (q->since[0] && calendar_date(q->since)) || (q->until[0] && calendar_date(q->until));
    if (cal && q->period != RT_PERIOD_WEEKDAY && q->period != RT_PERIOD_HOUR) {
        qr_buf_puts(b, "{:op :filter :on :commits :as :in_window :where [:and");
        if (q->since[0] && calendar_date(q->since)) {
            qr_buf_puts(b, " [:>= :date ");
            edn_str(b, q->since);
            qr_buf_puts(b, "]");
        }
        if (q->until[0] && calendar_date(q->until)) {
            qr_buf_puts(b, " [:<= :date ");
            edn_str(b, q->until);
            qr_buf_puts(b, "]");
        }
        qr_buf_puts(b, "]}\n             ");
        from = "in_window";
    }
    qr_buf_printf(b, "{:op :map :on :%s :as :dated :select [] :compute {:%s %s :order %s}}\n"
                     "             {:op :group :on :dated :as :by_unit :by :%s}\n"
                     "             {:op :aggregate :on :by_unit :as :counted :compute "
                     "{:commits [:count] :order [:min :order]}}\n",
                  from, f, U[q->period].fn, U[q->period].order, f);
    if (ranked)
        qr_buf_printf(b, "             {:op :sort :on :counted :as :ranked :by [[:commits :%s] "
                         "[:order :asc]]}",
                      q->ascending ? "asc" : "desc");
    else
        qr_buf_puts(b, "             {:op :sort :on :counted :as :ranked :by :order}");
    const char *on = "ranked";
    if (q->nth) {
        qr_buf_printf(b, "\n             {:op :drop :on :ranked :as :after :n %d}"
                         "\n             {:op :take :on :after :as :top :n 1}", q->nth - 1);
        on = "top";
    } else if (n > 0) {
        qr_buf_printf(b, "\n             {:op :take :on :ranked :as :top :n %d}", n);
        on = "top";
    }
    qr_buf_printf(b, "\n             {:op :map :on :%s :as :rows :select [:%s :commits]}]\n",
                  on, f);
    if (ranked)
        snprintf(sum, sizeof sum,
                 "{{count:%s}} commits%s in {{count:counted}} %ss; %s: {{first:rows:%s}} "
                 "({{first:rows:commits}} commits)",
                 from, qual, f, q->ascending ? "fewest" : "most", f);
    else
        snprintf(sum, sizeof sum, "{{count:%s}} commits%s by %s", from, qual,
                 U[q->period].words);
    qr_buf_puts(b, " :return {:findings :rows :summary ");
    edn_str(b, sum);
    qr_buf_puts(b, "}}");
    qr_buf_printf(e, "commits grouped by %s", U[q->period].words);
    explain_line(e, "", q, all, q->nth ? 0 : n);
}

/* The authors of the history (or of a path) who made no commit in the window: every
 * author, joined with the window's authors by email, those without a match kept. */
static void emit_inactive(const rt_question *q, qr_buf *b, qr_buf *e)
{
    const unsigned scope = P_PATH | P_MERGES;
    char qual[RT_STR * 4], sum[RT_STR * 6];
    qualifiers(qual, sizeof qual, q, P_WINDOW);
    qr_buf_puts(b, "{:fetch [{:tool :get_author_stats :as :everyone :params ");
    params(b, q, scope, 0);
    qr_buf_puts(b, "}\n         {:tool :get_author_stats :as :recent :params ");
    params(b, q, scope | P_WINDOW, 0);
    qr_buf_puts(b, "}]\n :transform [{:op :map :on :recent :as :marks :select [:email] :compute "
                   "{:active true}}\n"
                   "             {:op :join :left :everyone :right :marks :on :email :as :marked}\n"
                   "             {:op :filter :on :marked :as :inactive :where [:not [:exists "
                   ":active]]}\n"
                   "             {:op :sort :on :inactive :as :rows :by [[:last :desc]]}]\n");
    snprintf(sum, sizeof sum, "{{count:rows}} of {{count:everyone}} authors made no commit%s",
             qual);
    qr_buf_puts(b, " :return {:findings :rows :summary ");
    edn_str(b, sum);
    qr_buf_puts(b, "}}");
    explain_line(e, "authors with no commit in the window", q, scope | P_WINDOW, 0);
}

/* Who wrote one commit (by its id, a tag, or the initial commit): its row. */
static void emit_commit_author(const rt_question *q, qr_buf *b, qr_buf *e)
{
    one_commit_fetch(q, b, "");
    qr_buf_puts(b, " :transform [{:op :map :on :commit :as :rows :select " );
    qr_buf_puts(b, COMMIT_FIELDS);
    qr_buf_puts(b, "}]\n"
                   " :return {:findings :rows :summary "
                   "\"{{first:rows:short_hash}} was written by {{first:rows:author}} on "
                   "{{first:rows:date}} ({{first:rows:subject}})\"}}");
    qr_buf_printf(e, "the author of commit \"%s\"", q->root ? "the initial commit" : q->commit);
}

/* One commit, named by its id, a tag or "the initial commit": its id, author, date, subject
 * and whole message. */
static void emit_commit_show(const rt_question *q, qr_buf *b, qr_buf *e)
{
    /* as git show does: the commit and the files it changed */
    one_commit_fetch(q, b, " :with_paths true");
    qr_buf_puts(b, " :transform [{:op :map :on :commit :as :rows :select [:hash :short_hash "
                   ":author :email :date :subject :message :files :additions :deletions "
                   ":paths]}]\n"
                   " :return {:findings :rows :hash \"{{first:rows:hash}}\" :summary "
                   "\"{{first:rows:hash}} by {{first:rows:author}} on {{first:rows:date}}: "
                   "{{first:rows:subject}}\"}}");
    qr_buf_printf(e, "commit \"%s\"", q->root ? "the initial commit" : q->commit);
}

/* The tags, newest first: all of them, the newest or oldest one, their count, or the one
 * named ("when was v1.2 tagged"). */
static void emit_tags(const rt_question *q, qr_buf *b, qr_buf *e)
{
    bool named = q->commit[0] != '\0';
    bool count = (q->words & RW_COUNT) != 0;
    bool oldest = (q->words & RW_FIRST) != 0;
    bool newest = (q->words & RW_RECENT) != 0;
    qr_buf_puts(b, "{:fetch [{:tool :get_tags :as :tags :params {");
    if (named && q->tags_prefix) {
        /* the version's tags: "7.4" is 7.4-rc1, 7.4.0, 7.4.1, not 7.40 (filtered below) */
        char glob[RT_STR + 2];
        snprintf(glob, sizeof glob, "%s*", q->commit);
        qr_buf_puts(b, ":pattern ");
        edn_str(b, glob);
    } else if (named) {
        /* the name as a glob that matches only itself */
        char glob[RT_STR * 2];
        size_t o = 0;
        for (const char *c = q->commit; *c && o + 3 < sizeof glob; c++) {
            if (strchr("*?[]\\", *c))
                glob[o++] = '\\';
            glob[o++] = *c;
        }
        glob[o] = '\0';
        qr_buf_puts(b, ":pattern ");
        edn_str(b, glob);
    } else if (newest && !count && !q->n)
        qr_buf_puts(b, ":limit 1");
    else if (q->n && !oldest && !count)
        qr_buf_printf(b, ":limit %d", q->n);
    qr_buf_puts(b, "}}]\n");
    const char *out = "tags";
    if (q->since[0] || q->until[0]) {
        /* "releases cut in 2025": the tags dated in the window (calendar days, as the
           tag's own date reads) */
        qr_buf_puts(b, " :transform [{:op :filter :on :tags :as :in_window :where [:and ");
        if (q->since[0]) {
            qr_buf_puts(b, "[:>= :date ");
            edn_str(b, q->since);
            qr_buf_puts(b, "]");
        }
        if (q->until[0]) {
            qr_buf_puts(b, " [:<= :date ");
            edn_str(b, q->until);
            qr_buf_puts(b, "]");
        }
        qr_buf_puts(b, "]}]\n");
        out = "in_window";
    } else if (named && q->tags_prefix && !q->tags_starts) {
        char re[RT_STR * 2];
        regex_quote(re, sizeof re, q->commit);
        qr_buf_puts(b, " :transform [{:op :filter :on :tags :as :version_tags :where [:matches "
                       ":name ");
        char full[RT_STR * 2 + 16];
        snprintf(full, sizeof full, "^%s([.-]|$)", re);
        edn_str(b, full);
        qr_buf_puts(b, "]}]\n");
        out = "version_tags";
    } else if (oldest && !named && !count) {
        qr_buf_printf(b, " :transform [{:op :sort :on :tags :as :ordered :by [[:timestamp :asc]]}\n"
                         "             {:op :take :on :ordered :as :first_tags :n %d}]\n",
                      q->n ? q->n : 1);
        out = "first_tags";
    }
    char sum[RT_STR * 2];
    if (count && !q->tags_prefix)
        snprintf(sum, sizeof sum, "{{count:%s}} tags%s%s", out, q->window[0] ? " " : "",
                 q->window);
    else if (q->tags_starts)
        snprintf(sum, sizeof sum, "{{count:%s}} tags starting with %s, newest first", out,
                 q->commit);
    else if (q->tags_prefix)
        snprintf(sum, sizeof sum, "{{count:%s}} tags of %s, newest first", out, q->commit);
    else if (named && q->tag_absent)
        snprintf(sum, sizeof sum, "no: this repository has no tag named %s", q->commit);
    else if (named && q->tag_exists)
        snprintf(sum, sizeof sum, "yes: %s, {{first:tags:date}}, commit {{first:tags:short_hash}} "
                 "({{first:tags:subject}})", q->commit);
    else if (named)
        snprintf(sum, sizeof sum, "%s: {{first:tags:date}}, commit {{first:tags:short_hash}} "
                 "({{first:tags:subject}})", q->commit);
    else if (newest || oldest)
        snprintf(sum, sizeof sum, "The %s tag: {{first:%s:name}} ({{first:%s:date}})",
                 oldest ? "oldest" : "latest", out, out);
    else
        snprintf(sum, sizeof sum, "{{count:%s}} tags%s%s, newest first", out,
                 q->window[0] ? " " : "", q->window);
    if (count)
        qr_buf_printf(b, " :return {:count \"{{count:%s}}\" :findings :%s :summary ", out, out);
    else if (named && (q->tag_absent || q->tag_exists))
        qr_buf_printf(b, " :return {:answer \"%s\" :findings :%s :summary ",
                      q->tag_absent ? "no" : "yes", out);
    else
        qr_buf_printf(b, " :return {:findings :%s :summary ", out);
    edn_str(b, sum);
    qr_buf_puts(b, "}}");
    qr_buf_puts(e, named ? "the tag named" : count ? "count of the tags" : "the tags");
}

/* Two people compared ("who has more commits, anna or jonas"): each one's statistics
 * summed over their addresses, the two ranked by the sort key (commits by default). */
static void emit_compare(const rt_question *q, qr_buf *b, qr_buf *e)
{
    const unsigned all = P_WINDOW | P_PATH | P_MERGES;
    rt_question two = *q;
    snprintf(two.author, RT_STR, "%s", q->author2);
    qr_buf_puts(b, "{:fetch [{:tool :get_author_stats :as :first_author :params ");
    size_t at = b->len;
    params(b, q, all, 0);
    /* reopen each map for :author */
    b->p[--b->len] = '\0';
    qr_buf_printf(b, "%s:author ", b->len - at > 1 ? " " : "");
    edn_str(b, q->author);
    qr_buf_puts(b, "}}\n         {:tool :get_author_stats :as :second_author :params ");
    at = b->len;
    params(b, &two, all, 0);
    b->p[--b->len] = '\0';
    qr_buf_printf(b, "%s:author ", b->len - at > 1 ? " " : "");
    edn_str(b, q->author2);
    /* one person under several addresses is several rows of one name: summed by name */
    qr_buf_puts(b, "}}]\n :transform [{:op :concat :on [:first_author :second_author] :as :both}\n"
                   "             {:op :group :on :both :as :people :by :author}\n"
                   "             {:op :aggregate :on :people :as :summed :compute {:email [:max "
                   ":email] :commits [:sum :commits] :additions [:sum :additions] :deletions "
                   "[:sum :deletions]}}\n             ");
    const char *key = sort_field(q->sort ? q->sort : RT_SORT_COMMITS);
    qr_buf_printf(b, "{:op :map :on :summed :as :sized :compute {:lines [:+ :additions "
                     ":deletions]}}\n"
                     "             {:op :sort :on :sized :as :ranked :by [[:%s :%s]]}]\n",
                  key, q->ascending ? "asc" : "desc");
    char sum[RT_STR * 4];
    snprintf(sum, sizeof sum, "{{first:ranked:author}} has %s %s ({{first:ranked:%s}} to "
             "{{last:ranked:%s}})", q->ascending ? "fewer" : "more",
             sort_words(q->sort ? q->sort : RT_SORT_COMMITS), key, key);
    qr_buf_puts(b, " :return {:findings :ranked :summary ");
    edn_str(b, sum);
    qr_buf_puts(b, "}}");
    explain_line(e, "two authors compared", q, all | P_AUTHOR, 0);
}

/* ---- the table ---- */

#define W(x) RW_##x
#define COMMIT_WORDS (W(RECENT) | W(MADE) | W(CHANGE) | W(COMMITTED) | W(HISTORY) | W(COMMITS))

static const rule RULES[] = {
    {"author-emails",
     "the address a person commits with",
     {"which email does alice commit with", "what is bob's email address", NULL, NULL},
     {0, W(WHO), REQ_END},
     W(COMMITS) | W(COMMITTED) | W(MADE) | W(WHOSE) | W(AUTHORS),
     S_EMAILS | S_AUTHOR | S_WINDOW,
     S_EMAILS | S_AUTHOR,
     0,
     emit_author_emails},
    {"inactive-authors",
     "the authors with no commit in a window (who has not committed since a date)",
     {"who hasn't committed anything since 2025", "which authors have not contributed this year",
      "who stopped committing since june", NULL},
     {W(WHO) | W(COMMITTED), W(AUTHORS) | W(COMMITTED), REQ_END},
     W(WHO) | W(AUTHORS) | W(COMMITTED) | W(HISTORY) | W(COMMITS) | W(MADE),
     S_INACTIVE | S_WINDOW | S_DIR | S_MERGES,
     S_INACTIVE | S_WINDOW,
     0,
     emit_inactive},
    {"commits-by-period",
     "commits counted by year, quarter, month, week, day, weekday or hour; ranked or in order",
     {"the busiest month of 2025", "which day of the week has the most commits",
      "commits per month this year", "second busiest weekday"},
     {0, W(COMMITS), W(MOST), W(ACTIVE), W(MOSTBY), REQ_END},
     W(COMMITS) | W(MOST) | W(ACTIVE) | W(COUNT) | W(MADE) | W(COMMITTED) | W(RANKED) |
         W(PER) | W(BY) | W(CHANGE) | W(MOSTBY),
     /* "which month had the most commits": ranked by commits, what a period counts */
     S_PERIOD | S_WINDOW | S_AUTHOR | S_PATH | S_PATH2 | S_GREP | S_MERGES | S_BOTS | S_N |
         S_NTH | S_WDAYS | S_REF | S_SORT,
     S_PERIOD,
     SB(RT_SORT_COMMITS),
     emit_periods},
    {"commit-author",
     "who wrote one commit (named by its id or tag)",
     {"who wrote commit 28985ce", "author of 60213d4", "who made commit 60213d4", NULL},
     {W(WHO), W(AUTHORS), REQ_END},
     W(WHO) | W(AUTHORS) | W(COMMITS) | W(MADE) | W(COMMITTED),
     S_COMMIT,
     S_COMMIT,
     0,
     emit_commit_author},
    {"compare-authors",
     "two people compared: who has more (or fewer) commits, or lines",
     {"who has more commits, alice or ines", "between alice and ines, who committed more",
      "who has fewer commits this year, alice or ines", NULL},
     {W(WHO) | W(MOST), W(MOST), W(AUTHORS) | W(MOST), REQ_END},
     W(WHO) | W(MOST) | W(COMMITS) | W(COMMITTED) | W(MADE) | W(ACTIVE) | W(AUTHORS) | W(LINES) |
         W(MOSTBY) | W(CHANGE),
     S_AUTHOR | S_AUTHOR2 | S_WINDOW | S_PATH | S_MERGES | S_SORT | S_REF,
     S_AUTHOR | S_AUTHOR2,
     SB(RT_SORT_COMMITS) | SB(RT_SORT_ADDITIONS) | SB(RT_SORT_DELETIONS) | SB(RT_SORT_LINES),
     emit_compare},
    {"tags",
     "the tags (releases): the latest or first, how many, all of them, or when one was made",
     {"what's the latest release", "how many tags does the repo have", "list the releases",
      "when was v1.2.0 tagged"},
     {0, W(RECENT), W(FIRST), W(COUNT), W(WHEN), REQ_END},
     W(RECENT) | W(FIRST) | W(COUNT) | W(WHEN) | W(MOST) | W(MADE) | W(CREATED),
     S_TAGS | S_N | S_COMMIT | S_TAG | S_WINDOW,
     S_TAGS,
     0,
     emit_tags},
    {"commit-show",
     "one commit: its id, author, date and message (named by its id or a tag)",
     {"commit 60213d4", "the message of commit 28985ce", "what commit is v1.0.0",
      "when was 60213d4 committed"},
     {0, W(COMMITS), W(MESSAGE), W(COMMITS) | W(MESSAGE), W(WHEN), W(WHEN) | W(COMMITS), REQ_END},
     /* "git log -1 v1.0.0": that one commit */
     W(COMMITS) | W(MESSAGE) | W(WHEN) | W(MADE) | W(COMMITTED) | W(HISTORY),
     S_COMMIT | S_TAG | S_N,
     S_COMMIT,
     0,
     emit_commit_show},
    {"commit-files",
     "the files one commit changed",
     {"files 60213d4", "which files did commit 28985ce change",
      "show me the files in the latest commit", NULL},
     /* "what did commit X change": its files */
     {W(FILES), W(CHANGE), REQ_END},
     /* "the files touched by the last commit" */
     W(COMMITS) | W(CHANGE) | W(COMMITTED) | W(MADE) | W(FILES) | W(COUNT) | W(BY),
     S_COMMIT | S_TAG,
     S_COMMIT,
     0,
     emit_commit_files},
    {"file-created",
     "who created a file (the first commit of its history, renames followed)",
     {"who created src/net/http.c", "who wrote docs/guide.md originally",
      "who added the Makefile", "first commit of src/main.c"},
     {W(WHO) | W(CREATED), W(WHO) | W(FIRST), W(AUTHORS) | W(FIRST), W(CREATED),
      W(FIRST) | W(COMMITS), W(FIRST) | W(CHANGE), W(WHEN) | W(FIRST), REQ_END},
     W(FIRST) | W(CREATED) | W(COMMITTED) | W(CHANGE) | W(MADE) | W(COMMITS) | W(FILES) |
         W(WHO) | W(AUTHORS) | W(WHEN),
     S_FILE,
     S_FILE,
     0,
     emit_file_created},
    {"file-renames",
     "a file's renames: its name before, who renamed it and when (renames followed)",
     {"what was src/net.c called before it was renamed", "the old name of lib/io.c",
      "who renamed docs/guide.md", "when was src/util.c renamed"},
     {0, W(WHO), W(WHEN), REQ_END},
     W(FILES) | W(COMMITS) | W(CHANGE) | W(MADE),
     S_FILE | S_RENAME,
     S_FILE | S_RENAME,
     0,
     emit_file_renames},
    {"file-deleted",
     "who deleted a file, and when (the latest deletion in its history)",
     {"who deleted src/legacy.c", "when was docs/TODO.txt removed", NULL},
     {W(WHO) | W(DELETED), W(WHEN) | W(DELETED), W(DELETED), REQ_END},
     W(WHO) | W(WHEN) | W(DELETED) | W(FILES) | W(COMMITS),
     S_FILE,
     S_FILE,
     0,
     emit_file_deleted},
    {"files-deleted",
     "the files deleted in a window, a directory or by someone (renames are not deletions)",
     {"what files were deleted in 2025", "which files were removed from src/ last year",
      "files bob deleted", NULL},
     {W(DELETED), W(DELETED) | W(FILES), REQ_END},
     W(FILES) | W(COMMITS) | W(CHANGE) | W(COUNT),
     S_WINDOW | S_DIR | S_AUTHOR | S_REF | S_COMMIT,
     0,
     0,
     emit_files_deleted},
    {"files-added",
     "the files added in a window, a directory or by someone (renames are not additions)",
     {"what files were added in 2025", "which files were created in src/ last year",
      "new files bob added", NULL},
     {W(CREATED) | W(FILES), REQ_END},
     W(COMMITS) | W(CHANGE) | W(COUNT),
     S_WINDOW | S_DIR | S_AUTHOR | S_REF | S_COMMIT,
     0,
     0,
     emit_files_added},
    {"first-commits",
     "the oldest commits, of the repository, an author or a path",
     {"first commit of the repo", "when did alice make her first commit",
      "the first 5 commits in src/", "alice's earliest commit"},
     {W(FIRST) | W(COMMITS), W(FIRST) | W(COMMITTED), W(FIRST) | W(AUTHORS) | W(WHO), REQ_END},
     /* "who was the first contributor": the first commit's author */
     W(WHEN) | W(MADE) | W(COMMITTED) | W(COMMITS) | W(HISTORY) | W(FIRST) | W(MESSAGE) |
         W(WHO),
     S_WINDOW | S_AUTHOR | S_DIR | S_N | S_MERGES | S_BOTS | S_WDAYS | S_NTH,
     0,
     0,
     emit_first_commits},
    {"count-authors",
     "how many authors committed in a window (or to a path)",
     {"how many contributors this year", "number of authors since 2024-01-01",
      "how many people committed to src/ last month", NULL},
     {W(COUNT) | W(AUTHORS), W(COUNT) | W(WHO) | W(COMMITTED), REQ_END},
     W(ACTIVE) | W(COMMITTED) | W(MADE) | W(CHANGE),
     S_WINDOW | S_PATH | S_MERGES | S_BOTS | S_REF,
     0,
     0,
     emit_count_authors},
    {"count-lines",
     "how many lines were added, deleted or changed (in a window, by an author, in a path)",
     {"how many lines were added to src/main.c", "total deletions by alice in 2025",
      "number of lines changed in docs/ last month", "lines added between v1.0 and v1.1"},
     {0, W(COUNT), REQ_END},
     W(COUNT) | W(MADE) | W(COMMITTED) | W(COMMITS) | W(CHANGE),
     /* as the statistics count lines (git log --numstat --no-renames): a rename is its
        lines deleted and added, which the summary says */
     S_LINES | S_SORT | S_WINDOW | S_AUTHOR | S_PATH | S_GREP | S_MERGES | S_BOTS |
         S_AUTHOR2 | S_REF | S_WDAYS | S_PATH2 | S_UNTOUCHED,
     S_LINES,
     SB(RT_SORT_ADDITIONS) | SB(RT_SORT_DELETIONS) | SB(RT_SORT_LINES),
     emit_line_total},
    {"count-commits",
     "how many commits match a window, author, path, message term or merges",
     {"how many commits last week", "number of commits by alice",
      "how many commits did carol make", "how many merge commits this year"},
     {W(COUNT) | W(COMMITS), W(COUNT) | W(COMMITTED), W(COUNT) | W(CHANGE), W(COUNT), REQ_END},
     /* "how many merges in the history" */
     W(COMMITS) | W(MADE) | W(COMMITTED) | W(CHANGE) | W(MESSAGE) | W(WHOSE) | W(HISTORY),
     S_WINDOW | S_UNTOUCHED | S_AUTHOR | S_PATH | S_GREP | S_MERGES | S_BOTS | S_AUTHOR2 | S_REF |
         S_WDAYS | S_PATH2,
     0,
     0,
     emit_count},
    {"file-last-change",
     "when one file last changed, by whom and in which commit",
     {"when was docs/x.md last changed", "when did README.md last change",
      "last change to src/main.c", "when was lib/util.c last modified by alice"},
     {W(WHEN) | W(RECENT) | W(CHANGE), W(WHEN) | W(CHANGE), W(RECENT) | W(CHANGE),
      W(WHEN) | W(RECENT) | W(COMMITTED), W(WHO) | W(RECENT) | W(CHANGE),
      W(RECENT) | W(AUTHORS) | W(CHANGE), W(WHO) | W(RECENT), W(RECENT) | W(AUTHORS), REQ_END},
     W(FILES) | W(COMMITS) | W(WHO) | W(MADE),
     S_FILE | S_AUTHOR | S_WINDOW,
     S_FILE,
     0,
     emit_file_last},
    {"file-authors",
     "who changed a file or a directory (its path, as git shortlog -- PATH), most commits first",
     {"who changed README.md", "who worked on src/", "authors of lib/util.c",
      "top 3 contributors to src/main.c this year"},
     {W(WHO) | W(CHANGE), W(WHO) | W(COMMITTED), W(AUTHORS), W(WHO) | W(COMMITS),
      W(WHO) | W(OWNS), W(OWNS), W(WHO), REQ_END},
     W(MOST) | W(ACTIVE) | W(COMMITS) | W(MADE) | W(CHANGE) | W(COMMITTED) | W(RANKED) |
         W(FILES) | W(OWNS) | W(AUTHORS) | W(WHO) | W(OFTEN),
     S_PATH | S_WINDOW | S_N | S_MERGES | S_BOTS | S_REF,
     S_PATH,
     0,
     emit_file_authors},
    {"file-history",
     "the commits that changed one file, following renames",
     {"history of src/main.c", "commits touching lib/util.c since last month",
      "changes to README.md by alice", "last 3 commits to docs/guide.md"},
     {W(HISTORY), W(COMMITS), W(CHANGE), W(COMMITTED), REQ_END},
     W(RECENT) | W(MADE) | W(HISTORY) | W(COMMITS) | W(CHANGE) | W(FILES),
     S_FILE | S_WINDOW | S_AUTHOR | S_GREP | S_MERGES | S_N | S_REF,
     S_FILE,
     0,
     emit_file_history},
    {"top-contributors",
     "authors ranked by commits (or lines added, deleted, changed) in a window",
     {"who contributed most this month", "most active contributors",
      "top 5 authors last year", "authors ranked by lines added"},
     {W(AUTHORS), W(WHO) | W(COMMITTED), W(WHO) | W(MOST), W(WHO) | W(ACTIVE),
      W(WHO) | W(COMMITS), W(WHO) | W(MOSTBY), W(COUNT) | W(PER) | W(AUTHORS), REQ_END},
     /* "who commits most often", "who committed anything in june" */
     W(MOST) | W(ACTIVE) | W(COMMITTED) | W(COMMITS) | W(RANKED) | W(BY) | W(PER) | W(MADE) |
         W(WHO) | W(AUTHORS) | W(MOSTBY) | W(OFTEN) | W(HISTORY) | W(CHANGE),
     S_WINDOW | S_DIR | S_N | S_SORT | S_MERGES | S_BOTS | S_NTH | S_REF | S_WDAYS | S_GREP |
         S_PATH2,
     0,
     SB(RT_SORT_COMMITS) | SB(RT_SORT_ADDITIONS) | SB(RT_SORT_DELETIONS) | SB(RT_SORT_LINES) |
         SB(RT_SORT_FILES),
     emit_top_authors},
    {"file-churn",
     "files ranked by how many commits changed them (or by lines)",
     {"most changed files", "top 10 most modified files this week", "hotspots",
      "which files change most often in src/"},
     {W(FILES) | W(MOST), W(FILES) | W(CHANGE), W(HOTSPOTS), W(FILES) | W(RANKED),
      W(FILES) | W(MOSTBY), W(FILES), REQ_END},
     /* not COMMITS: "which commit changed the most files" asks about commits */
     W(CHANGE) | W(OFTEN) | W(ACTIVE) | W(RANKED) | W(BY) | W(HOTSPOTS) | W(FILES) | W(MOST),
     S_WINDOW | S_DIR | S_AUTHOR | S_N | S_SORT | S_MERGES | S_NTH | S_REF,
     0,
     SB(RT_SORT_COMMITS) | SB(RT_SORT_ADDITIONS) | SB(RT_SORT_DELETIONS) | SB(RT_SORT_LINES),
     emit_file_churn},
    {"largest-commits",
     "commits ranked by lines changed (additions + deletions), or by files",
     {"largest commits this year", "biggest commits by lines changed",
      "top 5 largest commits last month", "largest commits by alice"},
     {W(LARGEST) | W(COMMITS), W(LARGEST) | W(CHANGE), W(COMMITS) | W(MOSTBY), REQ_END},
     /* not RECENT: "largest recent commits" names no window, and a guessed one would
        answer a question nobody asked */
     W(MOST) | W(MADE) | W(COMMITS) | W(CHANGE) | W(RANKED) | W(MOSTBY) | W(WHO) | W(AUTHORS),
     S_WINDOW | S_AUTHOR | S_DIR | S_GREP | S_MERGES | S_N | S_SORT | S_BOTS | S_NTH | S_WDAYS |
         S_PATH2,
     0,
     SB(RT_SORT_LINES) | SB(RT_SORT_FILES) | SB(RT_SORT_ADDITIONS) | SB(RT_SORT_DELETIONS),
     emit_largest},
    {"merge-commits",
     "merge commits in a window",
     {"merge commits last month", "show merges since 2024-01-01", "recent merges",
      "merge commits by alice"},
     {W(COMMITS), 0, REQ_END},
     COMMIT_WORDS,
     S_WINDOW | S_UNTOUCHED | S_AUTHOR | S_DIR | S_GREP | S_MERGES_ONLY | S_N | S_BOTS | S_REF |
         S_WDAYS | S_PATH2,
     S_MERGES_ONLY,
     0,
     emit_commits},
    {"commits-matching",
     "commits whose message matches a word or quoted phrase",
     {"commits mentioning fix", "commits with 'refactor' in the message",
      "commits whose message contains typo", "commits about parser since last month"},
     {W(COMMITS), 0, REQ_END},
     COMMIT_WORDS | W(MESSAGE) | W(WHOSE),
     S_WINDOW | S_UNTOUCHED | S_AUTHOR | S_DIR | S_GREP | S_MERGES | S_N | S_BOTS | S_REF |
         S_WDAYS | S_PATH2,
     S_GREP,
     0,
     emit_commits},
    {"commits-by-author",
     "one author's commits, in a window or all",
     {"commits by alice", "alice's commits last month", "what did bob do this week",
      "last 5 commits by bob@example.com"},
     {W(COMMITS), 0, W(CHANGE), W(COMMITTED), W(HISTORY), REQ_END},
     COMMIT_WORDS | W(MESSAGE), /* their messages are in the rows */
     S_WINDOW | S_UNTOUCHED | S_AUTHOR | S_DIR | S_MERGES | S_N | S_AUTHOR2 | S_BOTS | S_REF |
         S_WDAYS | S_PATH2 | S_NTH,
     S_AUTHOR,
     0,
     emit_commits},
    {"commits-in-window",
     "the commits of a window (or the latest 20), newest first",
     {"commits from last week", "recent commits", "last 10 commits",
      "what changed since 2024-03-01"},
     {W(COMMITS), W(CHANGE), W(COMMITTED), W(HISTORY), W(MADE), REQ_END},
     COMMIT_WORDS | W(MESSAGE), /* "the subject of the latest commit": in its row */
     S_WINDOW | S_UNTOUCHED | S_DIR | S_MERGES_EXCL | S_N | S_BOTS | S_REF |
         S_WDAYS | S_PATH2 | S_NTH,
     0,
     0,
     emit_commits},
};

static void emit_compare(const rt_question *q, qr_buf *b, qr_buf *e);

static void emit_tags(const rt_question *q, qr_buf *b, qr_buf *e);

/* "2025-01-01", "2025-12-31T23:59:59": a date the text of another compares with */
static bool calendar_date(const char *s)
{
    return strlen(s) >= 10 && isdigit((unsigned char)s[0]) && isdigit((unsigned char)s[3]) &&
           s[4] == '-' && isdigit((unsigned char)s[5]) && s[7] == '-';
}

static bool rule_accepts(const rule *r, const rt_question *q)
{
    uint32_t s = slots_of(q);
    /* a needed path is either kind of path; every other needed slot must be there */
    uint32_t need = r->slots_needed;
    if ((need & S_PATH) && !(s & need & S_PATH))
        return false;
    need &= ~(uint32_t)S_PATH;
    if ((s & ~r->slots_allowed) || (s & need) != need)
        return false;
    if (q->sort && !(r->sorts & (1u << q->sort)))
        return false;
    /* a file HEAD does not have may have been renamed away from: its renames are
       another file's history ("who renamed libs/old.go" asks about the rename from it) */
    if (q->gone && r->emit == emit_file_renames && (q->renamed != 1 || q->rename_from[0]))
        return false;
    if (q->words & RW_UNKNOWN)
        return false;
    if ((s & S_AUTHOR2) && (s & (S_BOTS | S_UNTOUCHED | S_WDAYS | S_PATH2 | S_NTH)))
        return false;
    /* one of the newest commits: only with "recent" said, never with a count */
    if (r->emit == emit_commits && q->nth && (!(q->words & RW_RECENT) || q->n))
        return false;
    if (q->ascending && r->emit != emit_top_authors && r->emit != emit_periods &&
        r->emit != emit_compare && r->emit != emit_file_churn)
        return false;
    /* the tags of a window by their dates: calendar dates only ("in 2025"), not "2 weeks
       ago", which the tags' own date text cannot be compared with */
    if (r->emit == emit_tags && ((q->since[0] && !calendar_date(q->since)) ||
                                 (q->until[0] && !calendar_date(q->until)) ||
                                 ((q->since[0] || q->until[0]) && (q->commit[0] || q->n))))
        return false;
    /* one commit shown: "log -1 X" says one, any other count is not this rule's */
    if (r->emit == emit_commit_show && q->n > 1)
        return false;
    /* two people compared only by the comparison ("who has more commits, A or B") */
    if (q->compare != (r->emit == emit_compare))
        return false;
    /* "who made the commit with the most lines added": one commit's author, not a
       ranking of authors by lines */
    if (r->emit == emit_top_authors && q->singular && (q->words & (RW_MOSTBY | RW_LARGEST)))
        return false;
    /* authors counted from commits are ranked by commits only */
    if (r->emit == emit_top_authors && (q->wdays || q->hours || q->grep[0] || q->path2[0]) &&
        q->sort != RT_SORT_NONE && q->sort != RT_SORT_COMMITS)
        return false;
    for (size_t i = 0; i < MAX_REQ && r->required[i] != REQ_END; i++) {
        uint32_t req = r->required[i];
        if ((q->words & req) == req && (q->words & ~(req | r->optional)) == 0)
            return true;
    }
    return false;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static const rule TOP_AUTHOR_RULE = {
    "top-author-commits",
    "the commits of the window's most active author (two steps, no model)",
    {"what did the top contributor do last week", "commits by the most active author this month",
     "the top contributor's commits in src/", NULL},
    {0, W(COMMITS), W(CHANGE), W(COMMITTED), W(MADE), REQ_END},
    COMMIT_WORDS,
    S_WINDOW | S_DIR | S_MERGES | S_N,
    0,
    0,
    emit_top_author_commits};

bool rt_rules_match(const rt_question *in, qr_route *out)
{
    rt_question qq = *in;
    const rt_question *q = &qq;
    const rule *only = NULL;
    if (qq.top_author) {
        if (qq.nth && !qq.n) {
            /* "the third most active author": that row of the ranking */
            qq.top_author = false;
            qq.words |= RW_MOST | RW_AUTHORS;
        } else if (qq.words & RW_WHO) {
            /* "who is the top contributor": the ranking's first */
            qq.top_author = false;
            if (qq.n)
                return false;
            qq.n = 1;
            qq.words |= RW_MOST | RW_AUTHORS;
        } else {
            only = &TOP_AUTHOR_RULE;
        }
    }
    for (size_t i = 0; i < sizeof RULES / sizeof RULES[0] + 1; i++) {
        const rule *r = i < sizeof RULES / sizeof RULES[0] ? &RULES[i] : &TOP_AUTHOR_RULE;
        if ((only && r != only) || (!only && r == &TOP_AUTHOR_RULE) || !rule_accepts(r, q))
            continue;
        qr_buf b, e;
        qr_buf_init(&b);
        qr_buf_init(&e);
        qr_buf_printf(&e, "%s: ", r->name);
        r->emit(q, &b, &e);
        bool failed = b.failed || e.failed;
        out->query = qr_buf_detach(&b, NULL);
        out->explain = qr_buf_detach(&e, NULL);
        out->rule = dup_str(r->name);
        if (failed || !out->query || !out->explain || !out->rule) {
            qr_route_clear(out);
            return false;
        }
        return true;
    }
    return false;
}

void qr_router_each_rule(void (*fn)(void *ud, const char *name, const char *summary,
                                    const char *example),
                         void *ud)
{
    for (size_t i = 0; i < sizeof RULES / sizeof RULES[0]; i++)
        fn(ud, RULES[i].name, RULES[i].summary, RULES[i].examples[0]);
    fn(ud, TOP_AUTHOR_RULE.name, TOP_AUTHOR_RULE.summary, TOP_AUTHOR_RULE.examples[0]);
}
