/*
 * router_frames.c: the words of the tier-1 router that reshape what is asked rather than
 * narrow it: asides that say nothing ("the person with email X" is X), weekdays as a
 * filter ("on weekends", "on mondays", "on weekdays"), ordinals of a ranking ("the third
 * most active author", "the 2nd largest commit"), commits grouped by a unit of time
 * ("the busiest month of 2025", "which day of the week has the most commits", "commits
 * per month") and an excluded path inside an included one ("in src/ excluding src/net").
 *
 * Each reader marks the tokens it took, as router.c's slot readers do; a word it does not
 * take is left for the others and, when nobody takes it, makes the question unmatched.
 * Rejected: reading "on monday" as a filter (it is that day, router.c), and a weekday
 * filter on rankings of authors or files (their tools carry no dates to filter on).
 */
#include "router_int.h"
#include "quarry/words.h"

#include <stdio.h>
#include <string.h>

/* Deletes tokens [from, to) from the question. */
static void drop(parser *p, size_t from, size_t to)
{
    if (to > p->n || from >= to)
        return;
    memmove(&p->t[from], &p->t[to], (p->n - to) * sizeof p->t[0]);
    p->n -= to - from;
}

void rt_parse_asides(parser *p)
{
    static const char *const WHO[] = {"person", "author", "user", "developer", "contributor",
                                      "committer", "dev", "guy", "one", "someone", NULL};
    static const char *const WITH[] = {"with", "whose", "using", "having", NULL};
    static const char *const ADDR[] = {"email", "e-mail", "mail", "address", "emails", NULL};
    for (size_t i = 0; i < p->n; i++) {
        /* [the] person with (the) email (address) (is|of) X -> X */
        size_t j = i;
        if (tok_is(p, j, "the") || tok_is(p, j, "a"))
            j++;
        if (!tok_in(p, j, WHO) || !tok_in(p, j + 1, WITH))
            continue;
        size_t k = j + 2;
        if (tok_is(p, k, "the") || tok_is(p, k, "an"))
            k++;
        size_t a = k;
        while (tok_in(p, k, ADDR))
            k++;
        if (k == a)
            continue;
        if (tok_is(p, k, "is") || tok_is(p, k, "of"))
            k++;
        if (k >= p->n || p->t[k].kind != T_EMAIL)
            continue;
        drop(p, i, k);
    }
    /* "all time", "of all time", "all-time": no window, said */
    for (size_t i = 0; i + 1 < p->n; i++)
        if (tok_is(p, i, "all") && tok_is(p, i + 1, "time")) {
            size_t from = i > 0 && (tok_is(p, i - 1, "of") || tok_is(p, i - 1, "for") ||
                                    tok_is(p, i - 1, "in") || tok_is(p, i - 1, "over"))
                              ? i - 1
                              : i;
            drop(p, from, i + 2);
            i = from;
        }
    for (size_t i = 0; i < p->n; i++)
        if (tok_is(p, i, "all-time") || tok_is(p, i, "overall"))
            drop(p, i, i + 1), i--;
}

/* ---- weekdays as a filter ---- */

static void set_wdays(parser *p, unsigned bits)
{
    if (p->q->wdays && p->q->wdays != bits)
        p->bad = true;
    p->q->wdays = bits;
}

void rt_parse_weekdays(parser *p)
{
    static const char *const PREP[] = {"on", "during", "at", "over", "in", NULL};
    static const char *const WEEKEND[] = {"weekends", "week-ends", NULL};
    static const char *const WORKDAY[] = {"weekdays", "workdays", "work-days", NULL};
    static const char *const PLURAL[] = {"mondays",  "tuesdays", "wednesdays", "thursdays",
                                         "fridays",  "saturdays", "sundays", NULL};
    const unsigned weekend = (1u << 6) | (1u << 7), workdays = 0x3Eu;
    for (size_t i = 0; i < p->n; i++) {
        size_t from = i, to;
        unsigned bits = 0;
        if (tok_in(p, i, WEEKEND)) {
            bits = weekend, to = i + 1;
        } else if (tok_in(p, i, WORKDAY)) {
            bits = workdays, to = i + 1;
        } else if ((tok_is(p, i, "working") || tok_is(p, i, "business") ||
                    tok_is(p, i, "work")) && tok_is(p, i + 1, "days")) {
            bits = workdays, to = i + 2;
        } else if (tok_in(p, i, PLURAL)) {
            bits = 1u << rt_weekday_word(p->t[i].s), to = i + 1;
        } else if ((tok_is(p, i, "on") || tok_is(p, i, "at")) && tok_is(p, i + 1, "a")) {
            /* "on a weekend", "on a sunday" */
            int wd = i + 2 < p->n && !p->t[i + 2].used ? rt_weekday_word(p->t[i + 2].s) : 0;
            if (tok_is(p, i + 2, "weekend"))
                bits = weekend;
            else if (tok_is(p, i + 2, "weekday") || tok_is(p, i + 2, "workday"))
                bits = workdays;
            else if (wd)
                bits = 1u << wd;
            to = i + 3;
        } else {
            continue;
        }
        if (!bits)
            continue;
        if (from == i && from > 0 && tok_in(p, from - 1, PREP))
            from--;
        if (from > 0 && tok_is(p, from - 1, "the") && from == i)
            from--;
        set_wdays(p, bits);
        use(p, from, to);
        i = to - 1;
    }
}

/* ---- ordinals, time units, a second path ---- */

static int ordinal_word(const tok *t)
{
    static const char *const W[] = {"second", "third",   "fourth", "fifth", "sixth",
                                    "seventh", "eighth", "ninth",  "tenth", NULL};
    if (t->kind != T_WORD || t->used)
        return 0;
    for (int k = 0; W[k]; k++)
        if (!strcmp(t->s, W[k]))
            return k + 2;
    int v = qr_words_ordinal(t->s, strlen(t->s));
    return v >= 2 && v <= 10 && t->s[0] >= '0' && t->s[0] <= '9' ? v : 0;
}

/* The words a ranking starts with: an ordinal is read only before one of these. */
static const char *const RANKERS[] = {"most", "least", "largest", "biggest", "top",
                                      "busiest", "highest", "fewest", "smallest", "quietest",
                                      "largest", "heaviest", NULL};

static void parse_ordinal(parser *p)
{
    for (size_t i = 0; i + 1 < p->n; i++) {
        int v = ordinal_word(&p->t[i]);
        /* the ranker may be taken already ("the third most active author") */
        if (!v || p->t[i + 1].kind != T_WORD || !in_list(p->t[i + 1].s, RANKERS))
            continue;
        if (p->q->nth)
            p->bad = true;
        p->q->nth = v;
        use(p, i, i + 1);
    }
}

typedef struct unit_word {
    const char *w;
    int period;
    bool one; /* singular */
} unit_word;

static const unit_word UNITS[] = {
    {"month", RT_PERIOD_MONTH, true},     {"months", RT_PERIOD_MONTH, false},
    {"monthly", RT_PERIOD_MONTH, false},  {"year", RT_PERIOD_YEAR, true},
    {"years", RT_PERIOD_YEAR, false},     {"yearly", RT_PERIOD_YEAR, false},
    {"annually", RT_PERIOD_YEAR, false},  {"quarter", RT_PERIOD_QUARTER, true},
    {"quarters", RT_PERIOD_QUARTER, false}, {"quarterly", RT_PERIOD_QUARTER, false},
    {"week", RT_PERIOD_WEEK, true},       {"weeks", RT_PERIOD_WEEK, false},
    {"weekly", RT_PERIOD_WEEK, false},    {"day", RT_PERIOD_DAY, true},
    {"days", RT_PERIOD_DAY, false},       {"daily", RT_PERIOD_DAY, false},
    {"date", RT_PERIOD_DAY, true},        {"weekday", RT_PERIOD_WEEKDAY, true},
    {"hour", RT_PERIOD_HOUR, true},       {"hours", RT_PERIOD_HOUR, false},
    {"hourly", RT_PERIOD_HOUR, false},    {NULL, 0, false}};

static const unit_word *unit_of(const parser *p, size_t i)
{
    if (i >= p->n || p->t[i].used || p->t[i].kind != T_WORD)
        return NULL;
    for (size_t k = 0; UNITS[k].w; k++)
        if (!strcmp(p->t[i].s, UNITS[k].w))
            return &UNITS[k];
    return NULL;
}

static void set_period(parser *p, int period, bool one, size_t from, size_t to)
{
    if (p->q->period && p->q->period != period)
        p->bad = true;
    p->q->period = period;
    p->q->period_one = one;
    use(p, from, to);
}

/* "busiest month", "which day of the week", "commits per month", "monthly commits",
 * "the month with the most commits", "hour of the day". Runs after the windows, so
 * "this month" and "last year" are taken as windows first. */
static void parse_period(parser *p)
{
    static const char *const BEFORE[] = {"per", "by", "each", "every", "which", "what",
                                         "busiest", "quietest", "slowest", NULL};
    for (size_t i = 0; i < p->n; i++) {
        const unit_word *u = unit_of(p, i);
        if (!u)
            continue;
        int period = u->period;
        size_t from = i, to = i + 1;
        /* "day of the week", "day of week", "hour of the day" */
        if ((u->period == RT_PERIOD_DAY || u->period == RT_PERIOD_HOUR) && tok_is(p, i + 1, "of")) {
            size_t k = i + 2 + (tok_is(p, i + 2, "the") ? 1 : 0);
            if (u->period == RT_PERIOD_DAY && tok_is(p, k, "week"))
                period = RT_PERIOD_WEEKDAY, to = k + 1;
            else if (u->period == RT_PERIOD_HOUR && tok_is(p, k, "day"))
                to = k + 1;
        }
        bool adverb = !strcmp(u->w + strlen(u->w) - 2, "ly");
        bool marked = adverb || (i > 0 && tok_in(p, i - 1, BEFORE));
        /* "the month with the most commits", "the day that had the most commits" */
        if (!marked && i > 0 && tok_is(p, i - 1, "the") &&
            (tok_is(p, to, "with") || tok_is(p, to, "that") || tok_is(p, to, "had") ||
             tok_is(p, to, "has")))
            marked = true;
        /* "most active month", "most commits ... month" stay with "most" */
        if (!marked && i > 1 && tok_is(p, i - 1, "active") &&
            (tok_is(p, i - 2, "most") || tok_is(p, i - 2, "least")))
            marked = true;
        if (!marked)
            continue;
        if (i > 0 && (tok_is(p, i - 1, "per") || tok_is(p, i - 1, "by") ||
                      tok_is(p, i - 1, "each") || tok_is(p, i - 1, "every")))
            from = i - 1;
        if (i > 0 && (tok_is(p, i - 1, "busiest") || tok_is(p, i - 1, "quietest") ||
                      tok_is(p, i - 1, "slowest"))) {
            from = i - 1;
            p->q->words |= RW_MOST;
            if (!tok_is(p, i - 1, "busiest"))
                p->q->ascending = true;
        }
        set_period(p, period, u->one && !adverb, from, to);
        /* "month by month" */
        if (tok_is(p, to, "by") && unit_of(p, to + 1) && unit_of(p, to + 1)->period == period)
            use(p, to, to + 2);
    }
}

void rt_parse_frames(parser *p)
{
    parse_ordinal(p);
    parse_period(p);
}
