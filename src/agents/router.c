/*
 * router.c: tier 1 of the cost ladder, the question reader. A question in plain English
 * ("alice's commits last month", "top 5 authors by lines added") is cut into tokens
 * (words, numbers, quoted strings, paths, emails, ISO dates), then the slots are taken
 * out in a fixed order, each consuming its tokens: the time window, a sort key, a
 * message term, an author, a path, merges, a count. What is left is filler (a fixed
 * stop-word list: "please", "show", "the", ...) or content words, each mapped to one
 * canonical bit (router_int.h). The rules (router_rules.c) accept a question only when
 * its bits are exactly one of their required sets plus some of their optional words, so
 * any word nobody took ("interesting", "risk", "why") means no match and the Architect
 * answers instead: a wrong answer costs more than a model call.
 *
 * Rejected: regular expressions per phrasing (hundreds of them, and each new filler
 * word breaks them), and fuzzy keyword scoring (it answers questions it half read).
 * Dates are checked with qr_date_parse, so every window emitted is one the tools take.
 */
#include "router_int.h"

#include "quarry/date.h"
#include "quarry/words.h"

#include <stdint.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_QUESTION 1000
/* ---- tokens ---- */

static bool is_iso_date(const char *s)
{
    size_t n = strlen(s);
    if (n < 10 || !(isdigit((unsigned char)s[0]) && isdigit((unsigned char)s[1]) &&
                    isdigit((unsigned char)s[2]) && isdigit((unsigned char)s[3]) &&
                    s[4] == '-' && isdigit((unsigned char)s[5]) &&
                    isdigit((unsigned char)s[6]) && s[7] == '-' &&
                    isdigit((unsigned char)s[8]) && isdigit((unsigned char)s[9])))
        return false;
    int64_t t;
    return qr_date_parse(s, n, 1700000000, 0, &t, NULL, 0) == QR_OK;
}

/* A token with a '/', a '*' or a file extension ("README.md", "src/", "*.c"). */
static bool looks_like_path(const char *s)
{
    if (strchr(s, '/') || strchr(s, '*') || rt_conventional_file(s))
        return true;
    const char *dot = strrchr(s, '.');
    if (!dot || dot == s || !dot[1] || strlen(dot + 1) > 8)
        return false;
    /* a manual page, "tmux.1", "ssl.3": letters, a dot and a section digit (not a
       version: "v1.2", "jq-1.7" have a digit before the dot) */
    if (dot[1] >= '1' && dot[1] <= '9' && !dot[2] && isalpha((unsigned char)dot[-1])) {
        bool letters = true;
        for (const char *c = s; c < dot; c++)
            letters &= isalpha((unsigned char)*c) || *c == '-' || *c == '_';
        if (letters)
            return true;
    }
    bool alpha = false;
    for (const char *c = dot + 1; *c; c++) {
        if (!isalnum((unsigned char)*c))
            return false;
        if (isalpha((unsigned char)*c))
            alpha = true;
    }
    return alpha;
}

/* Slashed tokens that are not paths: a date ("11/19", "11/19/2026", digits and slashes
 * only; the router does not read such dates, so the question is not matched) and the
 * English abbreviations ("and/or", "w/o"). Both become T_OTHER. */
static bool not_a_path(const char *s)
{
    static const char *const SLASH_WORDS[] = {"and/or", "or/and", "w/", "w/o", "n/a", "he/she",
                                              "his/her", "s/he", "y/n", "either/or", NULL};
    bool only = true;
    for (const char *c = s; *c; c++)
        if (!isdigit((unsigned char)*c) && *c != '/')
            only = false;
    if (only)
        return true;
    char low[TOK_LEN];
    size_t n = 0;
    for (; s[n] && n + 1 < sizeof low; n++)
        low[n] = (char)tolower((unsigned char)s[n]);
    low[n] = '\0';
    return in_list(low, SLASH_WORDS);
}

static bool classify(tok *t)
{
    size_t n = strlen(t->s);
    if (n == 0)
        return false;
    /* an email has text on both sides of one '@'; "@alice" (a handle) is not a name the
       tools can match, so it is nothing the router reads */
    const char *at = strchr(t->s, '@');
    if (at) {
        t->kind = at > t->s && at[1] && !strchr(at + 1, '@') ? T_EMAIL : T_OTHER;
        return true;
    }
    if (is_iso_date(t->s)) {
        t->kind = T_DATE;
        return true;
    }
    bool digits = true;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)t->s[i]))
            digits = false;
    if (digits) {
        t->kind = T_NUM;
        return true;
    }
    if (strchr(t->s, '/') && not_a_path(t->s)) {
        t->kind = T_OTHER;
        return true;
    }
    if (looks_like_path(t->s)) {
        t->kind = T_PATH;
        return true;
    }
    t->kind = T_WORD;
    for (size_t i = 0; i < n; i++)
        t->s[i] = (char)tolower((unsigned char)t->s[i]);
    /* "HEAD~1", "head^^", "HEAD~3": a revision git reads, written as git spells HEAD */
    if (n > 4 && !strncmp(t->s, "head", 4) && strspn(t->s + 4, "~^0123456789") == n - 4 &&
        (t->s[4] == '~' || t->s[4] == '^')) {
        memcpy(t->s, "HEAD", 4);
        return true;
    }
    /* "whos", "whats": the apostrophe left out of "who's", "what's" */
    if (!strcmp(t->s, "whos") || !strcmp(t->s, "whats")) {
        t->s[n - 1] = '\0';
        return true;
    }
    /* chat shorthand: "how many commits r there", "hw many", "u", "vs" */
    if (!strcmp(t->s, "hw")) {
        snprintf(t->s, TOK_LEN, "how");
        return true;
    }
    if (!strcmp(t->s, "r")) {
        snprintf(t->s, TOK_LEN, "are");
        return true;
    }
    if (!strcmp(t->s, "vs") || !strcmp(t->s, "vs.") || !strcmp(t->s, "versus")) {
        snprintf(t->s, TOK_LEN, "or");
        return true;
    }

    /* "alice's", "today's"; "what's" is "what is" */
    if (n > 2 && t->s[n - 2] == '\'' && t->s[n - 1] == 's') {
        t->s[n - 2] = '\0';
        /* "who's" is "who is"; "thursday's", "june's", "last week's": the time itself */
        static const char *const IS[] = {"who", "what", "when", "where", "how", "that",
                                         "there", "here", "he", "she", NULL};
        static const char *const TIME[] = {"week", "month", "year", "quarter", "weekend",
                                           "today", "yesterday", "day", NULL};
        t->poss = !in_list(t->s, RT_STOP) && !in_list(t->s, IS) && !in_list(t->s, TIME) &&
                  !rt_weekday_word(t->s) && !rt_month_word(t->s);
    }
    return true;
}

static bool is_sep(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ';' || c == '!' ||
           c == '?' || c == '(' || c == ')' || c == '[' || c == ']';
}

/* A word written in capitals that names a file at the repository's root, as written
 * ("NOTICE", "CHANGES", "README"): that file. Words the questions use are not asked
 * about, and lower-case words never are ("configure" is more often the verb). */
static void root_file(parser *p, tok *t, const char *as_written, size_t n)
{
    if (t->kind != T_WORD || n < 3 || n >= TOK_LEN || !p->o || !p->o->file)
        return;
    bool upper = false;
    for (size_t i = 0; i < n; i++) {
        char c = as_written[i];
        if (!(isalnum((unsigned char)c) || c == '-' || c == '_'))
            return;
        upper |= isupper((unsigned char)c) != 0;
    }
    if (!upper || rt_canon_bit(t->s) || in_list(t->s, RT_STOP) || in_list(t->s, RT_COMMON))
        return;
    char name[TOK_LEN], where[RT_STR];
    memcpy(name, as_written, n);
    name[n] = '\0';
    if (p->o->file(p->o->author_ud, name, where, sizeof where) == 1 && !strcmp(where, name)) {
        memcpy(t->s, name, n + 1);
        t->kind = T_PATH;
    }
}

static bool tokenize(parser *p, const char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        char c = s[i];
        if (is_sep(c)) {
            i++;
            continue;
        }
        if (p->n == MAX_TOKENS)
            return false;
        tok *t = &p->t[p->n];
        memset(t, 0, sizeof *t);
        size_t k = 0;
        if (c == '"' || c == '\'' || c == '`') {
            /* a quoted string: up to the same quote followed by a separator or the end */
            size_t j = i + 1;
            while (j < len && !(s[j] == c && (j + 1 == len || is_sep(s[j + 1]) ||
                                              s[j + 1] == '.' || s[j + 1] == ':')))
                j++;
            if (j >= len || j == i + 1 || j - i - 1 >= TOK_LEN)
                return false;
            memcpy(t->s, s + i + 1, j - i - 1);
            t->s[j - i - 1] = '\0';
            /* a backticked path is a path; other quoted text is a name or a term */
            if (c == '`' && looks_like_path(t->s))
                t->kind = T_PATH;
            else if (c != '`' && strchr(t->s, '@') && !strchr(t->s, ' '))
                t->kind = T_EMAIL;
            else
                t->kind = T_QUOTED;
            p->n++;
            i = j + 1;
            continue;
        }
        while (i < len && !is_sep(s[i]) && s[i] != '"' && s[i] != '`') {
            if (k + 1 >= TOK_LEN)
                return false;
            t->s[k++] = s[i++];
        }
        /* sentence punctuation at the end of a word: "README.md.", "week:" */
        while (k > 0 && (t->s[k - 1] == '.' || t->s[k - 1] == ':' || t->s[k - 1] == '\'')) {
            /* ':' ends a clause; so does a sentence's '.' ("I'm drafting notes. How ...") */
            if (t->s[k - 1] == ':' || (t->s[k - 1] == '.' && (i >= len || s[i] == ' ')))
                t->colon = true;
            k--;
        }
        t->s[k] = '\0';
        /* a dash alone is punctuation: "... in Q1 2026 - how many" */
        if (k == 0 || !strcmp(t->s, "-") || !strcmp(t->s, "--") || !strcmp(t->s, "\xe2\x80\x94") ||
            !strcmp(t->s, "\xe2\x80\x93")) {
            if (k && p->n)
                p->t[p->n - 1].comma = true;
            continue;
        }
        t->comma = i < len && (s[i] == ',' || s[i] == ';' || s[i] == '?' || s[i] == '!');
        /* "most-edited", "most-active": two words */
        if (!strncasecmp(t->s, "most-", 5) && isalpha((unsigned char)t->s[5]) &&
            p->n + 1 < MAX_TOKENS) {
            char rest[TOK_LEN];
            snprintf(rest, sizeof rest, "%s", t->s + 5);
            snprintf(t->s, TOK_LEN, "most");
            if (!classify(t))
                return false;
            p->n++;
            t = &p->t[p->n];
            memset(t, 0, sizeof *t);
            snprintf(t->s, TOK_LEN, "%s", rest);
        }
        if (!classify(t))
            return false;
        root_file(p, t, s + i - k, k);
        p->n++;
    }
    return true;
}

/* ---- numbers and units ---- */

/* A count said as digits or a word: 1..1000; -1 when the token is not one. */
static int number_at(const parser *p, size_t i)
{
    if (i >= p->n || p->t[i].used || p->t[i].poss)
        return -1;
    const tok *t = &p->t[i];
    if (t->kind == T_NUM) {
        if (strlen(t->s) > 4)
            return -1;
        int v = atoi(t->s);
        return v >= 1 && v <= 1000 ? v : -1;
    }
    if (t->kind != T_WORD)
        return -1;
    for (int k = 1; RT_NUM_WORDS[k]; k++)
        if (strcmp(t->s, RT_NUM_WORDS[k]) == 0)
            return k;
    return -1;
}

/* "day", "weeks"... as the tools' unit, singular; NULL when not a unit. */
static const char *unit_at(const parser *p, size_t i)
{
    static const char *const UNITS[][2] = {
        {"day", "day"},   {"days", "day"},   {"week", "week"},   {"weeks", "week"},
        {"month", "month"}, {"months", "month"}, {"year", "year"}, {"years", "year"},
        {"hour", "hour"}, {"hours", "hour"}, {NULL, NULL}};
    if (i >= p->n || p->t[i].used || p->t[i].kind != T_WORD)
        return NULL;
    for (size_t k = 0; UNITS[k][0]; k++)
        if (strcmp(p->t[i].s, UNITS[k][0]) == 0)
            return UNITS[k][1];
    return NULL;
}

static void ago(char *out, int n, const char *unit)
{
    snprintf(out, RT_STR, "%d %s%s ago", n, unit, n == 1 ? "" : "s");
}

/* ---- the window ---- */

/* A point in time at token i: "2024-03-01", "yesterday", "last week", "3 days ago",
 * "this month", "2023". Writes the tool's string; *end is past it; *date_only says the
 * string is a calendar day (so an inclusive "until" may extend it to the day's end). */
static bool point_at(parser *p, size_t i, char *out, size_t *end, bool *date_only)
{
    *date_only = false;
    if (i >= p->n || p->t[i].used)
        return false;
    const tok *t = &p->t[i];
    if (t->kind == T_DATE) {
        snprintf(out, RT_STR, "%s", t->s);
        *date_only = strlen(t->s) == 10;
        *end = i + 1;
        return true;
    }
    if (t->kind == T_NUM && strlen(t->s) == 4 && atoi(t->s) >= 1970 && atoi(t->s) <= 2100 &&
        !unit_at(p, i + 1)) {
        snprintf(out, RT_STR, "%s-01-01", t->s);
        *end = i + 1;
        return true;
    }
    if (tok_is(p, i, "today") || tok_is(p, i, "yesterday") || tok_is(p, i, "now")) {
        snprintf(out, RT_STR, "%s", t->s);
        *end = i + 1;
        return true;
    }
    const char *u;
    if ((tok_is(p, i, "last") || tok_is(p, i, "past")) && (u = unit_at(p, i + 1)) &&
        strcmp(p->t[i + 1].s, u) == 0) {
        ago(out, 1, u);
        *end = i + 2;
        return true;
    }
    if (tok_is(p, i, "this") && (u = unit_at(p, i + 1)) && strcmp(u, "hour") != 0 &&
        strcmp(u, "day") != 0) {
        snprintf(out, RT_STR, "this %s", u);
        *end = i + 2;
        return true;
    }
    int n = number_at(p, i);
    if (n < 0 && (tok_is(p, i, "a") || tok_is(p, i, "an")))
        n = 1;
    if (n > 0 && (u = unit_at(p, i + 1)) && tok_is(p, i + 2, "ago")) {
        ago(out, n, u);
        *end = i + 3;
        return true;
    }
    return false;
}

static bool window_prep(const parser *p, size_t i)
{
    static const char *const PREP[] = {"in", "from", "during", "over", "within", "for", "of",
                                       "on", NULL};
    return tok_in(p, i, PREP);
}

/* Takes the start of a window phrase back over "in the", "from", "over the past". */
static size_t back_over_preps(parser *p, size_t i)
{
    if (i > 0 && tok_is(p, i - 1, "the"))
        i--;
    if (i > 0 && window_prep(p, i - 1))
        i--;
    return i;
}

/* Appends s to the NUL-terminated dst of capacity cap, cut to fit. */
static void append(char *dst, size_t cap, const char *s)
{
    size_t have = strlen(dst), n = strlen(s);
    if (have + 1 >= cap)
        return;
    if (n > cap - 1 - have)
        n = cap - 1 - have;
    memcpy(dst + have, s, n);
    dst[have + n] = '\0';
}

static bool set_since(parser *p, const char *s)
{
    if (p->q->since[0])
        return p->bad = true, false;
    snprintf(p->q->since, RT_STR, "%s", s);
    return true;
}

/* An until: "before" a point stops at it; "until" a calendar day includes that day
 * (until 2024-01-31 runs to 23:59:59, until yesterday to today's midnight, until today
 * or this week to now). */
static bool set_until(parser *p, const char *s, bool date_only, bool inclusive)
{
    if (p->q->until[0])
        return p->bad = true, false;
    if (inclusive && strcmp(s, "yesterday") == 0)
        s = "today";
    else if (inclusive && (strcmp(s, "today") == 0 || strncmp(s, "this ", 5) == 0))
        s = "now";
    append(p->q->until, RT_STR, s);
    if (date_only && inclusive)
        append(p->q->until, RT_STR, "T23:59:59");
    return true;
}

static bool leap_year(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* "after" a calendar day starts when the day ends: the next day's midnight, written to
 * out ("2024-02-29" -> "2024-03-01", "yesterday" -> "today", a year said alone -> the
 * next January 1st). False for what has no such end in the past ("today", "this week")
 * and for relative points ("after last week" reads two ways): no match. */
static bool after_point(const char *a, bool year_alone, char *out)
{
    if (strcmp(a, "yesterday") == 0) {
        snprintf(out, RT_STR, "today");
        return true;
    }
    int y, m, d;
    if (strlen(a) != 10 || sscanf(a, "%4d-%2d-%2d", &y, &m, &d) != 3)
        return false;
    static const int MDAYS[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (year_alone) {
        y++;
        m = 1, d = 1;
    } else if (m < 1 || m > 12) {
        return false;
    } else if (d < MDAYS[m - 1] + (m == 2 && leap_year(y))) {
        d++;
    } else if (m < 12) {
        m++, d = 1;
    } else {
        y++, m = 1, d = 1;
    }
    if (y > 9999)
        return false;
    snprintf(out, RT_STR, "%04d-%02d-%02d", y, m, d);
    return true;
}

static void add_desc(parser *p, const char *fmt, const char *a, const char *b)
{
    char part[3 * RT_STR];
    snprintf(part, sizeof part, fmt, a, b);
    if (p->q->window[0])
        append(p->q->window, RT_STR, " ");
    append(p->q->window, RT_STR, part);
}

/* A year said alone ("in 2023", "until 2023") is the whole year. */
static bool year_point(const char *s)
{
    return strlen(s) == 10 && strcmp(s + 4, "-01-01") == 0;
}

/* ---- calendar windows: months, quarters, weekdays, weekends, days of the month ---- */

/* A year said after a month or quarter ("october 2025"): 1970..2100 at token i, else 0. */
static int year_at(const parser *p, size_t i)
{
    if (i >= p->n || p->t[i].used || p->t[i].kind != T_NUM || strlen(p->t[i].s) != 4)
        return 0;
    int y = atoi(p->t[i].s);
    return y >= 1970 && y <= 2100 ? y : 0;
}

static int month_tok(const parser *p, size_t i)
{
    if (i >= p->n || p->t[i].used || p->t[i].kind != T_WORD || p->t[i].poss)
        return 0;
    return rt_month_word(p->t[i].s);
}

static int weekday_tok(const parser *p, size_t i)
{
    if (i >= p->n || p->t[i].used || p->t[i].kind != T_WORD || p->t[i].poss)
        return 0;
    return rt_weekday_word(p->t[i].s);
}

/* "q3", or "first|second|third|fourth quarter"; *end past it. */
static int quarter_at(const parser *p, size_t i, size_t *end)
{
    static const char *const ORD[] = {"first", "second", "third", "fourth", NULL};
    if (i >= p->n || p->t[i].used || p->t[i].kind != T_WORD)
        return 0;
    const char *w = p->t[i].s;
    if (w[0] == 'q' && w[1] >= '1' && w[1] <= '4' && !w[2]) {
        *end = i + 1;
        return w[1] - '0';
    }
    for (int k = 0; ORD[k]; k++)
        if (!strcmp(w, ORD[k]) && tok_is(p, i + 1, "quarter")) {
            *end = i + 2;
            return k + 1;
        }
    return 0;
}

/* "1st", "15th", "the 2nd": a day of the month, 1..31, else 0. */
static int ordinal_at(const parser *p, size_t i)
{
    if (i >= p->n || p->t[i].used || p->t[i].kind != T_WORD)
        return 0;
    const char *w = p->t[i].s;
    char *end;
    long d = strtol(w, &end, 10);
    if (end == w || d < 1 || d > 31)
        return 0;
    return (!strcmp(end, "st") || !strcmp(end, "nd") || !strcmp(end, "rd") || !strcmp(end, "th"))
               ? (int)d
               : 0;
}

/* "30d", "24h", "2w", "3mo", "1y": an amount of time said tersely, as the tools' "N UNIT
 * ago" in out. */
static bool terse_at(const parser *p, size_t i, char *out)
{
    if (i >= p->n || p->t[i].used || p->t[i].kind != T_WORD)
        return false;
    const char *w = p->t[i].s;
    char *end;
    long n = strtol(w, &end, 10);
    if (end == w || n < 1 || n > 1000 || !isdigit((unsigned char)w[0]))
        return false;
    static const char *const UNITS[][2] = {{"h", "hour"}, {"hr", "hour"}, {"hrs", "hour"},
                                           {"d", "day"},  {"w", "week"},  {"wk", "week"},
                                           {"wks", "week"}, {"mo", "month"}, {"m", "month"},
                                           {"y", "year"}, {"yr", "year"}, {"yrs", "year"}};
    for (size_t k = 0; k < sizeof UNITS / sizeof UNITS[0]; k++)
        if (!strcmp(end, UNITS[k][0])) {
            ago(out, (int)n, UNITS[k][1]);
            return true;
        }
    return false;
}

/* A whole-day window from since to last_day (both "YYYY-MM-DD"). */
static void day_window(parser *p, size_t from, size_t to, const char *since, const char *last,
                       const char *desc)
{
    use(p, from, to);
    set_since(p, since);
    set_until(p, last, true, true);
    add_desc(p, "%s", desc, NULL);
}

/* A day of the month at token i: "15", "15th" (1..31), else 0. */
static int mday_at(const parser *p, size_t i)
{
    if (i >= p->n || p->t[i].used)
        return 0;
    if (p->t[i].kind == T_NUM && strlen(p->t[i].s) <= 2) {
        int d = atoi(p->t[i].s);
        return d >= 1 && d <= 31 ? d : 0;
    }
    return ordinal_at(p, i);
}

/* "nov 15", "november 15th 2026", "15 nov", "the 3rd of march": one day, written into the
 * month's token as an ISO date that the window slots then read ("since nov 15", "on 3
 * march"). Without a year, the most recent such day up to today. A number next to a
 * month is never a count. */
static void parse_month_days(parser *p)
{
    const rt_today *t = &p->today;
    for (size_t i = 0; i < p->n; i++) {
        int m, d;
        size_t mi, last;
        if ((m = month_tok(p, i)) && (d = mday_at(p, i + 1))) {
            mi = i, last = i + 1;
        } else if ((d = mday_at(p, i)) && (tok_is(p, i + 1, "of") ? (m = month_tok(p, i + 2))
                                                                   : (m = month_tok(p, i + 1)))) {
            mi = tok_is(p, i + 1, "of") ? i + 2 : i + 1, last = mi;
        } else {
            continue;
        }
        int y = year_at(p, last + 1);
        if (y)
            last++;
        else
            y = (m > t->m || (m == t->m && d > t->d)) ? t->y - 1 : t->y;
        static const int DAYS[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        /* "nov 31": no such day; read otherwise it would be November and a count */
        if (d > DAYS[m - 1] || (m == 2 && d == 29 && !leap_year(y))) {
            p->bad = true;
            return;
        }
        size_t first = i;
        if (first > 0 && tok_is(p, first - 1, "the") && mi != i)
            first--;
        tok *dt = &p->t[first];
        snprintf(dt->s, TOK_LEN, "%04d-%02d-%02d", y, m, d);
        dt->kind = T_DATE;
        dt->poss = false;
        /* the day and year tokens go, so "between nov 1 and nov 15" reads as two dates */
        memmove(&p->t[first + 1], &p->t[last + 1], (p->n - last - 1) * sizeof p->t[0]);
        p->n -= last - first;
        i = first;
    }
}

/* Takes tokens [from, to) out of the list (a phrase rewritten into fewer words). */
static void drop_tokens(parser *p, size_t from, size_t to)
{
    memmove(&p->t[from], &p->t[to], (p->n - to) * sizeof p->t[0]);
    p->n -= to - from;
}

/* "what day did X get deleted", "which date was v1.0 tagged": when; "the commits from
 * 2025-12-02" with no end said: that day */
static void parse_what_day(parser *p)
{
    /* "from 2026-08-20 onwards": since */
    for (size_t i = 0; i + 2 < p->n; i++)
        if (tok_is(p, i, "from") && p->t[i + 1].kind == T_DATE &&
            (tok_is(p, i + 2, "onwards") || tok_is(p, i + 2, "onward"))) {
            snprintf(p->t[i].s, TOK_LEN, "since");
            drop_tokens(p, i + 2, i + 3);
        }
    for (size_t i = 0; i + 1 < p->n; i++)
        if (tok_is(p, i, "from") && p->t[i + 1].kind == T_DATE &&
            !(i + 2 < p->n && (tok_is(p, i + 2, "to") || tok_is(p, i + 2, "until") ||
                               tok_is(p, i + 2, "till") || tok_is(p, i + 2, "through") ||
                               tok_is(p, i + 2, "and") || tok_is(p, i + 2, "-") ||
                               tok_is(p, i + 2, "onward") || tok_is(p, i + 2, "onwards") ||
                               tok_is(p, i + 2, "on"))))
            snprintf(p->t[i].s, TOK_LEN, "on");
    for (size_t i = 0; i + 2 < p->n; i++) {
        if (!(tok_is(p, i, "what") || tok_is(p, i, "which")) ||
            !(tok_is(p, i + 1, "day") || tok_is(p, i + 1, "date")) ||
            !(tok_is(p, i + 2, "did") || tok_is(p, i + 2, "was") || tok_is(p, i + 2, "were") ||
              tok_is(p, i + 2, "does") || tok_is(p, i + 2, "is")))
            continue;
        snprintf(p->t[i].s, TOK_LEN, "when");
        drop_tokens(p, i + 1, i + 2);
    }
}

/* "since the start of 2026", "from the beginning of june": since 2026, since june; "since
 * the start of the year" is this year. The words are taken out of the token list, so the
 * window readers see "since 2026" or "this year". */
static void parse_start_of(parser *p)
{
    for (size_t i = 0; i + 3 < p->n; i++) {
        if (!tok_is(p, i, "since") && !tok_is(p, i, "from") && !tok_is(p, i, "after"))
            continue;
        size_t k = i + 1;
        if (tok_is(p, k, "the"))
            k++;
        if (!(tok_is(p, k, "start") || tok_is(p, k, "beginning")) || !tok_is(p, k + 1, "of"))
            continue;
        size_t x = k + 2, drop_from = i + 1, drop_to = x;
        if (x >= p->n)
            continue;
        if ((tok_is(p, x, "the") || tok_is(p, x, "this")) && x + 1 < p->n &&
            (tok_is(p, x + 1, "year") || tok_is(p, x + 1, "month") ||
             tok_is(p, x + 1, "quarter") || tok_is(p, x + 1, "week"))) {
            snprintf(p->t[x].s, TOK_LEN, "this");
            drop_from = i; /* "since the start of the year": this year */
        } else if (!year_at(p, x) && !month_tok(p, x)) {
            continue;
        }
        drop_tokens(p, drop_from, drop_to);
    }
}

/* "across all repositories", "in every repo", "over all our projects": the shared index's
 * repositories, all of them */
static void parse_repos(parser *p)
{
    static const char *const REPOS[] = {"repositories", "repos", "projects", "repository",
                                        "repo", "codebases", NULL};
    for (size_t i = 0; i + 1 < p->n; i++) {
        if (!tok_is(p, i, "across") && !tok_is(p, i, "in") && !tok_is(p, i, "over") &&
            !tok_is(p, i, "for") && !tok_is(p, i, "of"))
            continue;
        size_t k = i + 1;
        bool every = false;
        if (tok_is(p, k, "all") || tok_is(p, k, "every") || tok_is(p, k, "each"))
            every = true, k++;
        if (tok_is(p, k, "the") || tok_is(p, k, "our") || tok_is(p, k, "my"))
            k++;
        /* "across repositories" says all of them too; "in the repo" is this one */
        if (!tok_in(p, k, REPOS) || (!every && !tok_is(p, i, "across")) ||
            ((tok_is(p, k, "repo") || tok_is(p, k, "repository")) && !tok_is(p, i + 1, "every") &&
             !tok_is(p, i + 1, "each")))
            continue;
        p->q->repos_all = true;
        use(p, i, k + 1);
        return;
    }
}

static void parse_calendar(parser *p)
{
    static const char *const IN[] = {"in", "during", "over", "for", "throughout", "of", "within",
                                     NULL};
    static const char *const TO[] = {"and", "to", "until", "till", "through", "thru", "-", NULL};
    const rt_today *t = &p->today;
    for (size_t i = 0; i < p->n && !p->bad; i++) {
        char a[RT_STR], b[RT_STR], desc[3 * RT_STR];
        size_t e;
        int m, m2, y, y2, q, wd, d;
        if (p->t[i].used)
            continue;
        /* between june and august (2025); from march to may */
        if ((tok_is(p, i, "between") || tok_is(p, i, "from")) && (m = month_tok(p, i + 1))) {
            y = year_at(p, i + 2);
            size_t j = i + 2 + (y != 0);
            if (tok_in(p, j, TO) && (m2 = month_tok(p, j + 1))) {
                y2 = year_at(p, j + 2);
                e = j + 2 + (y2 != 0);
                if (!y2 && y)
                    y2 = y + (m2 < m);
                if (!rt_span_window(t, m, y, m2, y2, a, b)) {
                    p->bad = true;
                    return;
                }
                snprintf(desc, sizeof desc, "from %s through %s", a, b);
                day_window(p, back_over_preps(p, i), e, a, b, desc);
                continue;
            }
        }
        /* in october (2025), during march, of q3, in the third quarter of 2025 */
        size_t at = i;
        if (tok_in(p, i, IN))
            at = tok_is(p, i + 1, "the") ? i + 2 : i + 1;
        bool prep = at != i;
        /* the first (second, third, fourth, last) week of march (2026): its days 1-7,
           8-14, ..., or its last seven */
        static const char *const NTH[] = {"first", "second", "third", "fourth", "last", NULL};
        if (tok_in(p, at, NTH) && tok_is(p, at + 1, "week") && tok_is(p, at + 2, "of") &&
            (m = month_tok(p, at + 3))) {
            y = year_at(p, at + 4);
            e = at + 4 + (y != 0);
            if (!rt_month_window(t, m, y, a, b))
                continue;
            int last = atoi(b + 8), k = 0;
            while (NTH[k] && strcmp(p->t[at].s, NTH[k]))
                k++;
            int from = k == 4 ? last - 6 : 7 * k + 1, to = k == 4 ? last : 7 * k + 7;
            if (to > last)
                to = last;
            snprintf(a + 8, RT_STR - 8, "%02d", from);
            snprintf(b + 8, RT_STR - 8, "%02d", to);
            snprintf(desc, sizeof desc, "from %s through %s", a, b);
            day_window(p, back_over_preps(p, i), e, a, b, desc);
            continue;
        }
        if ((m = month_tok(p, at)) && (prep || year_at(p, at + 1))) {
            y = year_at(p, at + 1);
            e = at + 1 + (y != 0);
            if (!rt_month_window(t, m, y, a, b))
                continue;
            snprintf(desc, sizeof desc, "in %.7s", a);
            day_window(p, i, e, a, b, desc);
            continue;
        }
        if ((q = quarter_at(p, at, &e))) {
            if (tok_is(p, e, "of") && year_at(p, e + 1))
                e++;
            y = year_at(p, e);
            e += y != 0;
            if (!rt_quarter_window(t, q, y, a, b))
                continue;
            snprintf(desc, sizeof desc, "in Q%d %.4s", q, a);
            day_window(p, back_over_preps(p, i), e, a, b, desc);
            continue;
        }
        /* the first / second half of 2025 (a year must be said: "the second half" alone
           could be of anything) */
        if ((tok_is(p, at, "first") || tok_is(p, at, "second")) && tok_is(p, at + 1, "half") &&
            tok_is(p, at + 2, "of") && (y = year_at(p, at + 3))) {
            bool h2 = tok_is(p, at, "second");
            snprintf(a, RT_STR, "%04d-%s", y, h2 ? "07-01" : "01-01");
            snprintf(b, RT_STR, "%04d-%s", y, h2 ? "12-31" : "06-30");
            snprintf(desc, sizeof desc, "in H%d %04d", h2 ? 2 : 1, y);
            day_window(p, back_over_preps(p, i), at + 4, a, b, desc);
            continue;
        }
        /* "H1 2026", "h2 of 2025": a half year said tersely (with its year) */
        if ((tok_is(p, at, "h1") || tok_is(p, at, "h2")) &&
            ((y = year_at(p, at + 1)) || (tok_is(p, at + 1, "of") && (y = year_at(p, at + 2))))) {
            bool h2 = tok_is(p, at, "h2");
            size_t e2 = at + (tok_is(p, at + 1, "of") ? 3 : 2);
            snprintf(a, RT_STR, "%04d-%s", y, h2 ? "07-01" : "01-01");
            snprintf(b, RT_STR, "%04d-%s", y, h2 ? "12-31" : "06-30");
            snprintf(desc, sizeof desc, "in H%d %04d", h2 ? 2 : 1, y);
            day_window(p, back_over_preps(p, i), e2, a, b, desc);
            continue;
        }
        /* this quarter, last quarter */
        if ((tok_is(p, i, "this") || tok_is(p, i, "last") || tok_is(p, i, "past")) &&
            tok_is(p, i + 1, "quarter")) {
            int cur = rt_quarter_of(t), yq = t->y;
            if (p->t[i].s[0] != 't' && --cur == 0)
                cur = 4, yq--;
            rt_quarter_window(t, cur, yq, a, b);
            snprintf(desc, sizeof desc, "in Q%d %.4s", cur, a);
            day_window(p, back_over_preps(p, i), i + 2, a, b, desc);
            continue;
        }
        /* the weekend, this weekend, last weekend, over the weekend */
        if ((tok_is(p, i, "weekend") || (tok_is(p, i + 1, "weekend") &&
                                         (tok_is(p, i, "the") || tok_is(p, i, "this") ||
                                          tok_is(p, i, "last") || tok_is(p, i, "past"))))) {
            size_t end = tok_is(p, i, "weekend") ? i + 1 : i + 2;
            rt_weekend(t, a, b);
            snprintf(desc, sizeof desc, "the weekend of %s", a);
            day_window(p, back_over_preps(p, i), end, a, b, desc);
            continue;
        }
        /* since (last) monday; since march (2025); since the 1st; since q2 */
        if (tok_is(p, i, "since") || (tok_is(p, i, "from") && !tok_in(p, i + 2, TO))) {
            size_t j = i + 1;
            bool last = tok_is(p, j, "last");
            if (last || tok_is(p, j, "this"))
                j++;
            if ((wd = weekday_tok(p, j))) {
                rt_weekday_day(t, wd, last, a);
                use(p, i, j + 1);
                set_since(p, a);
                add_desc(p, "since %s", a, NULL);
                continue;
            }
            /* "commits from December 2025" is that month, as "in" says; "since" and
             * "from ... to ..." (taken above) start there */
            bool within = tok_is(p, i, "from");
            if (!last && (m = month_tok(p, j))) {
                y = year_at(p, j + 1);
                if (within && tok_in(p, j + 1 + (y != 0), TO))
                    continue;
                if (rt_month_window(t, m, y, a, b)) {
                    if (within) {
                        snprintf(desc, sizeof desc, "in %.7s", a);
                        day_window(p, i, j + 1 + (y != 0), a, b, desc);
                        continue;
                    }
                    use(p, i, j + 1 + (y != 0));
                    set_since(p, a);
                    add_desc(p, "since %s", a, NULL);
                }
                continue;
            }
            if (!last && (q = quarter_at(p, j, &e))) {
                y = year_at(p, e);
                if (within && tok_in(p, e + (y != 0), TO))
                    continue;
                if (rt_quarter_window(t, q, y, a, b)) {
                    if (within) {
                        snprintf(desc, sizeof desc, "in Q%d %.4s", q, a);
                        day_window(p, i, e + (y != 0), a, b, desc);
                        continue;
                    }
                    use(p, i, e + (y != 0));
                    set_since(p, a);
                    add_desc(p, "since %s", a, NULL);
                }
                continue;
            }
            if (tok_is(p, j, "the"))
                j++;
            if (!last && (d = ordinal_at(p, j)) && rt_day_of_month(t, d, a)) {
                use(p, i, j + 1);
                set_since(p, a);
                add_desc(p, "since %s", a, NULL);
                continue;
            }
        }
        /* on the 14th: that day of this month, or of last month before it comes */
        if (tok_is(p, i, "on") && tok_is(p, i + 1, "the") && (d = ordinal_at(p, i + 2)) &&
            !month_tok(p, i + 3) && !tok_is(p, i + 3, "of") && rt_day_of_month(t, d, a)) {
            snprintf(desc, sizeof desc, "on %s", a);
            day_window(p, i, i + 3, a, a, desc);
            continue;
        }
        /* on monday, last friday, this tuesday: that day */
        if ((tok_is(p, i, "on") || tok_is(p, i, "last") || tok_is(p, i, "this")) &&
            (wd = weekday_tok(p, i + 1))) {
            rt_weekday_day(t, wd, tok_is(p, i, "last"), a);
            snprintf(desc, sizeof desc, "on %s", a);
            day_window(p, i, i + 2, a, a, desc);
            continue;
        }
        /* before october, until march 2025, after june */
        if ((tok_is(p, i, "before") || tok_is(p, i, "until") || tok_is(p, i, "till") ||
             tok_is(p, i, "after")) &&
            (m = month_tok(p, i + 1))) {
            y = year_at(p, i + 2);
            if (!rt_month_window(t, m, y, a, b))
                continue;
            use(p, i, i + 2 + (y != 0));
            if (p->t[i].s[0] == 'b') {
                set_until(p, a, false, false);
                add_desc(p, "before %s", a, NULL);
            } else if (p->t[i].s[0] == 'a') {
                char next[RT_STR];
                after_point(b, false, next);
                set_since(p, next);
                add_desc(p, "after %s", b, NULL);
            } else {
                set_until(p, b, true, true);
                add_desc(p, "until %s", b, NULL);
            }
            continue;
        }
        /* the past fortnight */
        if (tok_is(p, i, "fortnight")) {
            size_t from = i;
            if (from > 0 && (tok_is(p, from - 1, "last") || tok_is(p, from - 1, "past") ||
                             tok_is(p, from - 1, "this")))
                from--;
            use(p, back_over_preps(p, from), i + 1);
            set_since(p, "2 weeks ago");
            add_desc(p, "since 2 weeks ago", NULL, NULL);
            continue;
        }
        /* 30d, last 24h, in the past 2w */
        if (terse_at(p, i, a)) {
            size_t from = i;
            if (from > 0 && (tok_is(p, from - 1, "last") || tok_is(p, from - 1, "past")))
                from--;
            use(p, back_over_preps(p, from), i + 1);
            set_since(p, a);
            add_desc(p, "since %s", a, NULL);
            continue;
        }
    }
}

static void parse_window(parser *p)
{
    for (size_t i = 0; i < p->n && !p->bad; i++) {
        char a[RT_STR], b[RT_STR];
        size_t e1, e2;
        bool d1, d2;
        if (p->t[i].used)
            continue;
        /* between A and B; from A to/until B */
        if ((tok_is(p, i, "between") || tok_is(p, i, "from")) && point_at(p, i + 1, a, &e1, &d1) &&
            (tok_is(p, e1, "and") || tok_is(p, e1, "to") || tok_is(p, e1, "until") ||
             tok_is(p, e1, "till") || tok_is(p, e1, "through")) &&
            point_at(p, e1 + 1, b, &e2, &d2)) {
            if (year_point(b) && p->t[e1 + 1].kind == T_NUM) {
                snprintf(b + 4, RT_STR - 4, "-12-31");
                d2 = true;
            }
            use(p, back_over_preps(p, i), e2);
            set_since(p, a);
            set_until(p, b, d2, true);
            add_desc(p, "between %s and %s", a, b);
            continue;
        }
        if (tok_is(p, i, "since") && point_at(p, i + 1, a, &e1, &d1)) {
            if (strcmp(a, "now") == 0)
                continue;
            use(p, i, e1);
            set_since(p, a);
            add_desc(p, "since %s", a, NULL);
            continue;
        }
        /* after a day: from the next day on; after a time of day: from then on */
        if (tok_is(p, i, "after") && point_at(p, i + 1, a, &e1, &d1)) {
            bool year_alone = year_point(a) && p->t[i + 1].kind == T_NUM;
            if (p->t[i + 1].kind == T_DATE && !d1) {
                b[0] = '\0';
                append(b, RT_STR, a);
            } else if (!after_point(a, year_alone, b)) {
                continue; /* the words stay, so nothing matches */
            }
            use(p, i, e1);
            set_since(p, b);
            add_desc(p, "after %s", a, NULL);
            continue;
        }
        bool before = tok_is(p, i, "before");
        size_t at = i + 1;
        if (tok_is(p, i, "up") && tok_is(p, i + 1, "to"))
            at = i + 2;
        if ((before || tok_is(p, i, "until") || tok_is(p, i, "till") || at == i + 2) &&
            point_at(p, at, a, &e1, &d1)) {
            if (year_point(a) && p->t[at].kind == T_NUM && !before) {
                snprintf(a + 4, RT_STR - 4, "-12-31");
                d1 = true;
            }
            use(p, i, e1);
            set_until(p, a, d1, !before);
            add_desc(p, before ? "before %s" : "until %s", a, NULL);
            continue;
        }
        const char *u;
        int n;
        /* today, yesterday (the whole day), this week */
        if (tok_is(p, i, "today") || (p->t[i].kind == T_WORD && p->t[i].poss &&
                                      strcmp(p->t[i].s, "today") == 0)) {
            use(p, back_over_preps(p, i), i + 1);
            set_since(p, "today");
            add_desc(p, "today", NULL, NULL);
            continue;
        }
        if (tok_is(p, i, "yesterday") || (p->t[i].kind == T_WORD && p->t[i].poss &&
                                          strcmp(p->t[i].s, "yesterday") == 0)) {
            use(p, back_over_preps(p, i), i + 1);
            set_since(p, "yesterday");
            set_until(p, "today", false, false);
            add_desc(p, "yesterday", NULL, NULL);
            continue;
        }
        if (tok_is(p, i, "this") && i + 1 < p->n && !p->t[i + 1].used &&
            p->t[i + 1].kind == T_WORD && (u = unit_at(p, i + 1)) != NULL &&
            (strcmp(u, "week") == 0 || strcmp(u, "month") == 0 || strcmp(u, "year") == 0)) {
            char s[RT_STR];
            snprintf(s, sizeof s, "this %s", u);
            use(p, back_over_preps(p, i), i + 2);
            set_since(p, s);
            add_desc(p, "%s", s, NULL);
            continue;
        }
        /* "last month", "last calendar month": the calendar month before this one, as
           people mean it (docs/decisions.md); "the past month", "the last month" and
           "since last month" stay a rolling month */
        if (tok_is(p, i, "last") &&
            !(i > 0 && (tok_is(p, i - 1, "since") || tok_is(p, i - 1, "the"))) &&
            (tok_is(p, i + 1, "month") ||
             (tok_is(p, i + 1, "calendar") && tok_is(p, i + 2, "month")))) {
            int m = p->today.m == 1 ? 12 : p->today.m - 1;
            int y = p->today.m == 1 ? p->today.y - 1 : p->today.y;
            char m1[RT_STR], m2[RT_STR];
            size_t to = tok_is(p, i + 1, "calendar") ? i + 3 : i + 2;
            if (rt_month_window(&p->today, m, y, m1, m2)) {
                day_window(p, back_over_preps(p, i), to, m1, m2, "last month");
                continue;
            }
        }
        /* "last year", "last calendar year": the calendar year before this one, as "last
           month" is the month before ("the past year", "since last year" stay rolling) */
        if (tok_is(p, i, "last") &&
            !(i > 0 && (tok_is(p, i - 1, "since") || tok_is(p, i - 1, "the"))) &&
            (tok_is(p, i + 1, "year") ||
             (tok_is(p, i + 1, "calendar") && tok_is(p, i + 2, "year")))) {
            char y1[RT_STR], y2[RT_STR], desc[RT_STR];
            size_t to = tok_is(p, i + 1, "calendar") ? i + 3 : i + 2;
            snprintf(y1, sizeof y1, "%04d-01-01", p->today.y - 1);
            snprintf(y2, sizeof y2, "%04d-12-31", p->today.y - 1);
            snprintf(desc, sizeof desc, "in %04d", p->today.y - 1);
            day_window(p, back_over_preps(p, i), to, y1, y2, desc);
            continue;
        }
        /* the past half year, last half a year: six months */
        if ((tok_is(p, i, "last") || tok_is(p, i, "past")) && tok_is(p, i + 1, "half")) {
            size_t k = i + 2;
            if (tok_is(p, k, "a"))
                k++;
            if (tok_is(p, k, "year")) {
                use(p, back_over_preps(p, i), k + 1);
                set_since(p, "6 months ago");
                add_desc(p, "since %s", "6 months ago", NULL);
                continue;
            }
        }
        /* since the start of the year / month / week, year to date, ytd */
        if (tok_is(p, i, "since") && tok_is(p, i + 1, "the") &&
            (tok_is(p, i + 2, "start") || tok_is(p, i + 2, "beginning")) &&
            tok_is(p, i + 3, "of") && (tok_is(p, i + 4, "the") || tok_is(p, i + 4, "this")) &&
            (tok_is(p, i + 5, "year") || tok_is(p, i + 5, "month") || tok_is(p, i + 5, "week"))) {
            char s[RT_STR];
            snprintf(s, sizeof s, "this %s", p->t[i + 5].s);
            use(p, i, i + 6);
            set_since(p, s);
            add_desc(p, "%s", s, NULL);
            continue;
        }
        if (tok_is(p, i, "ytd") || (tok_is(p, i, "year") && tok_is(p, i + 1, "to") &&
                                    tok_is(p, i + 2, "date"))) {
            use(p, back_over_preps(p, i), tok_is(p, i, "ytd") ? i + 1 : i + 3);
            set_since(p, "this year");
            add_desc(p, "%s", "this year", NULL);
            continue;
        }
        /* last week, the past month, in the last 3 days, past 24 hours */
        if (tok_is(p, i, "last") || tok_is(p, i, "past")) {
            char s[RT_STR];
            if ((u = unit_at(p, i + 1)) != NULL && strcmp(p->t[i + 1].s, u) == 0) {
                ago(s, 1, u);
                use(p, back_over_preps(p, i), i + 2);
            } else if ((n = number_at(p, i + 1)) > 0 && (u = unit_at(p, i + 2)) != NULL) {
                ago(s, n, u);
                use(p, back_over_preps(p, i), i + 3);
            } else {
                continue;
            }
            set_since(p, s);
            add_desc(p, "since %s", s, NULL);
            continue;
        }
        /* on 2024-03-01: that day */
        if (tok_is(p, i, "on") && i + 1 < p->n && !p->t[i + 1].used &&
            p->t[i + 1].kind == T_DATE && point_at(p, i + 1, a, &e1, &d1) && d1) {
            use(p, i, e1);
            set_since(p, a);
            set_until(p, a, true, true);
            add_desc(p, "on %s", a, NULL);
            continue;
        }
        /* in 2023 */
        if (tok_is(p, i, "in") && i + 1 < p->n && !p->t[i + 1].used &&
            p->t[i + 1].kind == T_NUM && point_at(p, i + 1, a, &e1, &d1) && year_point(a)) {
            char end[RT_STR];
            snprintf(end, sizeof end, "%.4s-12-31", a);
            use(p, i, e1);
            set_since(p, a);
            set_until(p, end, true, true);
            add_desc(p, "in %.4s", a, NULL);
            continue;
        }
    }
}

/* ---- holidays on a fixed date: "on christmas eve 2024", "new year's day 2026" ----
 * Written into their first token as an ISO day that the window slots then read ("on
 * DAY"); without a year, the most recent such day up to today. */
static void parse_holidays(parser *p)
{
    static const struct {
        const char *w[3]; /* the words, "" when fewer; a possessive is written bare */
        int m, d;
    } H[] = {{{"christmas", "eve", ""}, 12, 24}, {{"christmas", "day", ""}, 12, 25},
             {{"christmas", "", ""}, 12, 25},     {{"xmas", "", ""}, 12, 25},
             {{"new", "year", "eve"}, 12, 31},    {{"new", "years", "eve"}, 12, 31},
             {{"new", "year", "day"}, 1, 1},      {{"new", "years", "day"}, 1, 1},
             {{"boxing", "day", ""}, 12, 26},     {{"halloween", "", ""}, 10, 31},
             {{"valentine", "day", ""}, 2, 14},   {{"valentines", "day", ""}, 2, 14}};
    for (size_t i = 0; i < p->n; i++) {
        for (size_t h = 0; h < sizeof H / sizeof H[0]; h++) {
            size_t k = 0;
            while (k < 3 && H[h].w[k][0] && i + k < p->n && !p->t[i + k].used &&
                   p->t[i + k].kind == T_WORD && !strcmp(p->t[i + k].s, H[h].w[k]))
                k++;
            if (k == 0 || (k < 3 && H[h].w[k][0]))
                continue;
            int y = year_at(p, i + k);
            size_t end = i + k + (y ? 1 : 0);
            if (!y) {
                y = p->today.y;
                if (H[h].m > p->today.m || (H[h].m == p->today.m && H[h].d > p->today.d))
                    y--;
            }
            tok *t = &p->t[i];
            snprintf(t->s, TOK_LEN, "%04d-%02d-%02d", y, H[h].m, H[h].d);
            t->kind = T_DATE;
            t->poss = false;
            use(p, i + 1, end);
            break;
        }
    }
}

/* ---- revisions: tags and commit ids ---- */

/* A version tag ("v1.0", "2.3.1", "v2.0-rc1") or an abbreviated commit id (7 to 40 hex
 * digits with a letter and a digit). The tools check that it exists. */
static bool ref_word(const tok *t)
{
    if (t->used || t->kind != T_WORD || t->poss)
        return false;
    if (t->tag)
        return true;
    const char *s = t->s;
    size_t n = strlen(s), i = 0;
    if (n > 4 && !strncmp(s, "HEAD", 4) && (s[4] == '~' || s[4] == '^'))
        return true; /* HEAD~1 (classify) */
    if (n >= 7 && n <= 40) {
        bool hex = true, digit = false, alpha = false;
        for (size_t k = 0; k < n; k++) {
            if (!isxdigit((unsigned char)s[k]))
                hex = false;
            else if (isdigit((unsigned char)s[k]))
                digit = true;
            else
                alpha = true;
        }
        if (hex && digit && alpha)
            return true;
    }
    if (s[0] == 'v')
        i = 1;
    size_t dots = 0, digits = 0;
    for (; i < n && (isdigit((unsigned char)s[i]) || s[i] == '.'); i++) {
        if (s[i] == '.')
            dots++;
        else
            digits++;
    }
    if (!digits || !dots || s[i - 1] == '.' || !isdigit((unsigned char)s[s[0] == 'v']))
        return false;
    if (i < n && s[i] == '-')
        for (i++; i < n && isalnum((unsigned char)s[i]); i++)
            ;
    return i == n;
}

static void set_ref(parser *p, const char *a, const char *b)
{
    if (p->q->ref[0])
        p->bad = true;
    snprintf(p->q->ref, RT_STR, "%s..%s", a, b);
}

/* "between v1.0 and v1.1", "from v1.0 to v2.0", "since v1.0", "after v1.0": a range;
 * "commit 28985ce", "files 60213d4": one commit. */
static void parse_refs(parser *p)
{
    for (size_t i = 0; i < p->n; i++) {
        if ((tok_is(p, i, "between") || tok_is(p, i, "from")) && i + 3 < p->n &&
            ref_word(&p->t[i + 1]) &&
            (tok_is(p, i + 2, "and") || tok_is(p, i + 2, "to") || tok_is(p, i + 2, "until")) &&
            ref_word(&p->t[i + 3])) {
            set_ref(p, p->t[i + 1].s, p->t[i + 3].s);
            use(p, i, i + 4);
            continue;
        }
        if ((tok_is(p, i, "since") || tok_is(p, i, "after")) && i + 1 < p->n &&
            ref_word(&p->t[i + 1])) {
            /* "went into 3.7 since 3.6b": from the one to the other */
            if (p->q->ref[0] && !strstr(p->q->ref, "..") && strlen(p->q->ref) < TOK_LEN) {
                char upto[TOK_LEN];
                snprintf(upto, sizeof upto, "%s", p->q->ref);
                p->q->ref[0] = '\0';
                set_ref(p, p->t[i + 1].s, upto);
            } else {
                set_ref(p, p->t[i + 1].s, "HEAD");
            }
            use(p, i, i + 2);
            continue;
        }
    }
    for (size_t i = 0; i < p->n; i++) {
        /* "commit 8877568", "the diff of 8877568": an id of digits alone, after a word
           that says it is one (a number elsewhere is a number) */
        const tok *d = &p->t[i];
        size_t dl = strlen(d->s);
        bool digits = !d->used && (d->kind == T_NUM || d->kind == T_WORD) && dl >= 7 &&
                      dl <= 40 && strspn(d->s, "0123456789") == dl && i > 0 &&
                      (tok_is(p, i - 1, "commit") || tok_is(p, i - 1, "diff") ||
                       (tok_is(p, i - 1, "of") && i > 1 &&
                        (tok_is(p, i - 2, "diff") || tok_is(p, i - 2, "diffstat"))));
        if (!digits && !ref_word(&p->t[i]))
            continue;
        if (p->q->commit[0] || p->q->ref[0])
            p->bad = true;
        snprintf(p->q->commit, RT_STR, "%s", p->t[i].s);
        p->q->commit_tag = p->t[i].tag;
        size_t from = i;
        if (from > 0 && tok_is(p, from - 1, "commit"))
            from--;
        /* "files changed by c01e94a43", "changed in 60213d4": the commit, not an author */
        else if (from > 0 && !p->t[i].tag && (tok_is(p, from - 1, "by") || tok_is(p, from - 1, "in")))
            from--;
        if (from > 0 && tok_is(p, from - 1, "the"))
            from--;
        use(p, from, i + 1);
    }
}

/* ---- sort key, message term, author, path, merges, count ---- */

/* "with the most files", "changed the most lines": a superlative over a sort key. The
 * key becomes the sort and the phrase the word RW_MOSTBY, so "commits with the most
 * files" ranks commits by files and "files with the most commits" files by commits,
 * whichever noun comes first; "with" is taken with the phrase, a verb before "the most"
 * ("which commit changed the most files") is left as a word for the rules. */
static void parse_most(parser *p)
{
    static const char *const VERB[] = {"changed", "touched", "modified", "seen", "had", "got",
                                       "received", "gotten", "has", "have", NULL};
    static const char *const DELETED[] = {"deleted", "removed", "deletes", "removes", NULL};
    static const char *const ADDED[] = {"added", "wrote", "adds", "writes", NULL};
    for (size_t i = 0; i < p->n; i++) {
        bool with = tok_is(p, i, "with");
        int verb_key = tok_in(p, i, DELETED) ? RT_SORT_DELETIONS
                       : tok_in(p, i, ADDED) ? RT_SORT_ADDITIONS
                                              : RT_SORT_NONE;
        if (!with && !verb_key && !tok_in(p, i, VERB))
            continue;
        size_t j = i + 1;
        if (tok_is(p, j, "the"))
            j++;
        if (!tok_is(p, j, "most"))
            continue;
        j++;
        /* "who wrote the most recent commit": recent, not a superlative */
        if (tok_is(p, j, "recent") || tok_is(p, j, "recently"))
            continue;
        int key = RT_SORT_NONE;
        size_t end = j + 1;
        if (verb_key && (tok_is(p, j, "commits") || tok_is(p, j, "commit"))) {
            /* "who wrote the most commits": the noun is what is counted, not the verb */
            key = RT_SORT_COMMITS;
        } else if (verb_key && tok_is(p, j, "files")) {
            /* "who added the most files": new files or files changed? not read */
            p->bad = true;
            continue;
        } else if (verb_key) {
            /* "who deleted the most lines", "who added most code" */
            key = verb_key;
            end = tok_is(p, j, "lines") || tok_is(p, j, "code") || tok_is(p, j, "line") ? j + 1
                                                                                        : j;
        } else if (tok_is(p, j, "files"))
            key = RT_SORT_FILES;
        else if (tok_is(p, j, "commits"))
            key = RT_SORT_COMMITS;
        else if (tok_is(p, j, "additions") || tok_is(p, j, "insertions"))
            key = RT_SORT_ADDITIONS;
        else if (tok_is(p, j, "deletions"))
            key = RT_SORT_DELETIONS;
        else if (tok_is(p, j, "lines")) {
            key = RT_SORT_LINES;
            if (tok_is(p, j + 1, "added"))
                key = RT_SORT_ADDITIONS, end++;
            else if (tok_is(p, j + 1, "deleted") || tok_is(p, j + 1, "removed"))
                key = RT_SORT_DELETIONS, end++;
            else if (tok_is(p, j + 1, "changed"))
                end++;
        }
        if (!key)
            continue;
        /* "who has the most deletions": lines only ("which commit has the most files" is
           not sure, "who has the most commits" is read by the rules' words) */
        if ((tok_is(p, i, "has") || tok_is(p, i, "have")) && key != RT_SORT_ADDITIONS &&
            key != RT_SORT_DELETIONS && key != RT_SORT_LINES)
            continue;
        if (p->q->sort)
            p->bad = true;
        p->q->sort = key;
        p->q->words |= RW_MOSTBY;
        use(p, with || verb_key ? i : i + 1, end);
    }
}

static void parse_sort(parser *p)
{
    static const char *const ORDER[] = {"ranked", "sorted", "ordered", "rank", "sort", "order",
                                        NULL};
    for (size_t i = 0; i < p->n; i++) {
        if (!tok_is(p, i, "by"))
            continue;
        size_t j = i + 1, end = 0;
        int key = RT_SORT_NONE;
        if ((tok_is(p, j, "number") || tok_is(p, j, "count")) && tok_is(p, j + 1, "of"))
            j += 2;
        if (tok_is(p, j, "lines") || tok_is(p, j, "line")) {
            if (tok_is(p, j + 1, "added"))
                key = RT_SORT_ADDITIONS;
            else if (tok_is(p, j + 1, "deleted") || tok_is(p, j + 1, "removed"))
                key = RT_SORT_DELETIONS;
            else if (tok_is(p, j + 1, "changed") || tok_is(p, j + 1, "modified"))
                key = RT_SORT_LINES;
            end = key ? j + 2 : j + 1;
            if (!key)
                key = RT_SORT_LINES;
        } else if (tok_is(p, j, "additions") || tok_is(p, j, "insertions")) {
            key = RT_SORT_ADDITIONS, end = j + 1;
        } else if (tok_is(p, j, "deletions")) {
            key = RT_SORT_DELETIONS, end = j + 1;
        } else if (tok_is(p, j, "size") || tok_is(p, j, "churn")) {
            key = RT_SORT_LINES, end = j + 1;
        } else if (tok_is(p, j, "commits") || (tok_is(p, j, "commit") && tok_is(p, j + 1, "count"))) {
            key = RT_SORT_COMMITS, end = tok_is(p, j, "commit") ? j + 2 : j + 1;
        } else if (tok_is(p, j, "files")) {
            key = RT_SORT_FILES, end = tok_is(p, j + 1, "changed") ? j + 2 : j + 1;
        } else if (j == i + 3 && (tok_is(p, j, "changes") || tok_is(p, j, "edits") ||
                                  tok_is(p, j, "modifications") || tok_is(p, j, "revisions"))) {
            /* "files by number of changes": each change a commit */
            key = RT_SORT_COMMITS, end = j + 1;
        }
        if (!key)
            continue;
        if (p->q->sort)
            p->bad = true;
        p->q->sort = key;
        size_t from = i;
        if (from > 0 && tok_in(p, from - 1, ORDER))
            from--;
        use(p, from, end);
    }
    parse_most(p);
}

static bool plain_name(const char *w)
{
    return !in_list(w, RT_STOP) && !in_list(w, RT_NOT_NAME) && !in_list(w, RT_COMMON);
}

/* A name: quoted, an email, or one word that looks like a name: two or more
 * characters, a letter first, and not a pronoun, a common English word or a word of the
 * question's own vocabulary. The callers accept it only after a marker ("by NAME",
 * "NAME's", "did NAME do"); a bare name is never an author. */
static bool name_at(const parser *p, size_t i)
{
    if (i >= p->n || p->t[i].used)
        return false;
    const tok *t = &p->t[i];
    if (t->kind == T_QUOTED || t->kind == T_EMAIL)
        return true;
    if (t->kind != T_WORD || !isalpha((unsigned char)t->s[0]) || strlen(t->s) < 2)
        return false;
    for (const char *c = t->s; *c; c++)
        if (!(isalnum((unsigned char)*c) || *c == '.' || *c == '-' || *c == '_' ||
              (unsigned char)*c >= 0x80))
            return false;
    if (!plain_name(t->s) || rt_canon_bit(t->s) || number_at(p, i) >= 0 || unit_at(p, i))
        return false;
    /* "so-and-so", "non-humans": every part of a hyphenated name must pass too */
    if (strchr(t->s, '-')) {
        char part[TOK_LEN];
        snprintf(part, sizeof part, "%s", t->s);
        for (char *save = NULL, *w = strtok_r(part, "-", &save); w;
             w = strtok_r(NULL, "-", &save))
            if (!plain_name(w))
                return false;
    }
    return true;
}

static bool known_author(const parser *p, const char *name, char *out);

/* The author a marked name means: quoted text and emails as written; a bare word, when
 * the repository's authors are known, only if it names one of them (their email), so
 * "what did jo do" in a repository without a Jo is not a search for "jo" in every name. */
static bool resolve_name(const parser *p, size_t i, char *out, size_t *len)
{
    const tok *t = &p->t[i];
    *len = 1;
    if (t->kind == T_QUOTED || t->kind == T_EMAIL || !p->o || !p->o->author) {
        snprintf(out, RT_STR, "%s", t->s);
        return true;
    }
    /* a name of three words: "by mei lin chen" */
    const tok *u = i + 1 < p->n ? &p->t[i + 1] : NULL;
    const tok *v = i + 2 < p->n ? &p->t[i + 2] : NULL;
    if (u && v && !u->used && !v->used && u->kind == T_WORD && v->kind == T_WORD && !u->poss) {
        char three[3 * TOK_LEN + 3];
        snprintf(three, sizeof three, "%s %s %s", t->s, u->s, v->s);
        if (known_author(p, three, out)) {
            *len = 3;
            return true;
        }
    }
    /* a first and last name: "by alice smith" */
    if (u && !u->used && u->kind == T_WORD) {
        char two[2 * TOK_LEN + 2];
        snprintf(two, sizeof two, "%s %s", t->s, u->s);
        if (known_author(p, two, out)) {
            *len = 2;
            return true;
        }
    }
    /* a first name, then its person's surname misspelt ("nicholas marriot"): the two
       words are one name when, read as a typo, they name the person the first names */
    if (u && !u->used && u->kind == T_WORD && !rt_canon_bit(u->s) &&
        !in_list(u->s, RT_STOP) && known_author(p, t->s, out)) {
        char one[RT_STR], typo2[2 * TOK_LEN + 3];
        snprintf(one, sizeof one, "%s", out);
        snprintf(typo2, sizeof typo2, "~%s %s", t->s, u->s);
        if (known_author(p, typo2, out) && !strcmp(out, one)) {
            *len = 2;
            return true;
        }
        snprintf(out, RT_STR, "%s", one);
        return true;
    }
    if (known_author(p, t->s, out))
        return true;
    if (p->amb_word && !strcmp(p->amb_word, t->s))
        return false; /* several people, not a typo */
    /* a marked name may be a typo of one person's ("by kenij", "did tomas nowak do") */
    char typo[2 * TOK_LEN + 3];
    if (u && !u->used && u->kind == T_WORD) {
        snprintf(typo, sizeof typo, "~%s %s", t->s, u->s);
        if (known_author(p, typo, out)) {
            *len = 2;
            return true;
        }
    }
    snprintf(typo, sizeof typo, "~%s", t->s);
    return known_author(p, typo, out);
}

static void set_author(parser *p, const char *s)
{
    /* the same person named twice ("Philip Heiduck (pheiduck)") is one person */
    if (p->q->author[0] && strcmp(p->q->author, s) != 0)
        p->bad = true;
    snprintf(p->q->author, RT_STR, "%s", s);
}

/* "... and NAME" after a name at k: a second person this repository knows ("commits by
 * ines and bob", "did alice and zoe do"); the tokens it spans (0: none), with their
 * email in who. Only names the repository knows (never a guess from a word's shape),
 * and two different people whose searches cannot match each other's commits. */
static size_t second_at(const parser *p, size_t k, const char *first, char *who)
{
    /* "by ines and bob", "by either dana or erik": commits of either person */
    if (!p->o || !p->o->author ||
        !(tok_is(p, k, "and") || tok_is(p, k, "&") || tok_is(p, k, "or")))
        return 0;
    size_t j = k + 1;
    if (tok_is(p, j, "by"))
        j++;
    size_t len;
    if (!name_at(p, j) || p->t[j].kind != T_WORD || !resolve_name(p, j, who, &len))
        return 0;
    if (strstr(first, who) || strstr(who, first))
        return 0;
    return j + len - k;
}

static void set_second(parser *p, const char *who)
{
    snprintf(p->q->author2, RT_STR, "%s", who);
}

/* A message term: quoted, or one plain word. */
static bool term_at(const parser *p, size_t i)
{
    if (i >= p->n || p->t[i].used)
        return false;
    const tok *t = &p->t[i];
    if (t->kind == T_QUOTED)
        return true;
    if (t->kind != T_WORD || t->poss || in_list(t->s, RT_STOP))
        return false;
    for (const char *c = t->s; *c; c++)
        if (!(isalnum((unsigned char)*c) || *c == '-' || *c == '_' || *c == '#' ||
              (unsigned char)*c >= 0x80))
            return false;
    return true;
}

static void parse_grep(parser *p)
{
    static const char *const VERB[] = {
        "mentioning", "mention",  "mentions",    "containing", "contain", "contains",
        "matching",   "match",    "matches",     "saying",     "says",    "say",
        "referencing", "reference", "references", "about",     NULL};
    static const char *const MSG[] = {"message", "messages", "subject", "title", "log", NULL};
    for (size_t i = 0; i < p->n; i++) {
        size_t j = i + 1;
        if (tok_in(p, i, VERB)) {
            if (tok_is(p, j, "the") && tok_is(p, j + 1, "word"))
                j += 2;
            else if (tok_is(p, j, "word"))
                j++;
            if (!term_at(p, j))
                continue;
            if (p->q->grep[0])
                p->bad = true;
            snprintf(p->q->grep, RT_STR, "%s", p->t[j].s);
            use(p, i, j + 1);
            continue;
        }
        /* with TERM in the message; have / has / having TERM in the subject */
        if ((tok_is(p, i, "with") || tok_is(p, i, "have") || tok_is(p, i, "has") ||
             tok_is(p, i, "having")) &&
            term_at(p, j) && tok_is(p, j + 1, "in")) {
            size_t k = j + 2;
            if (tok_is(p, k, "the") || tok_is(p, k, "their") || tok_is(p, k, "its"))
                k++;
            if (tok_is(p, k, "commit"))
                k++;
            if (tok_in(p, k, MSG)) {
                if (p->q->grep[0])
                    p->bad = true;
                snprintf(p->q->grep, RT_STR, "%s", p->t[j].s);
                use(p, i, k + 1);
            }
            continue;
        }
    }
}

static void parse_author(parser *p)
{
    static const char *const FOLLOW[] = {
        "do",   "make",   "commit",     "push",    "change",  "modify",     "touch", "work",
        "contribute", "last", "recently", "worked", "committed", "changed", "contributed",
        "done", "made", "been", "most", "edit", "authored", "land", "landed", "pushed",
        "written", "shipped", "submitted", NULL};
    char who[RT_STR];
    size_t len;
    for (size_t i = 0; i < p->n; i++) {
        tok *t = &p->t[i];
        if (t->used)
            continue;
        /* "by either A or B": "either" says only that two follow */
        if (tok_is(p, i, "by") && tok_is(p, i + 1, "either") && name_at(p, i + 2) &&
            p->o && p->o->author && resolve_name(p, i + 2, who, &len)) {
            char who2[RT_STR];
            size_t more = second_at(p, i + 2 + len, who, who2);
            if (more && tok_is(p, i + 2 + len, "or")) {
                set_author(p, who);
                set_second(p, who2);
                use(p, i, i + 2 + len + more);
                continue;
            }
        }
        /* by NAME, authored by NAME, from EMAIL */
        if ((tok_is(p, i, "by") && name_at(p, i + 1)) ||
            (tok_is(p, i, "from") && i + 1 < p->n && !p->t[i + 1].used &&
             p->t[i + 1].kind == T_EMAIL)) {
            size_t from = i;
            if (from > 0 && (tok_is(p, from - 1, "authored") || tok_is(p, from - 1, "written")))
                from--;
            if (!resolve_name(p, i + 1, who, &len))
                continue;
            set_author(p, who);
            char who2[RT_STR];
            size_t more = second_at(p, i + 1 + len, who, who2);
            if (more)
                set_second(p, who2);
            use(p, from, i + 1 + len + more);
            continue;
        }
        /* from NAME: only a name this repository knows ("commits from carol") */
        if (tok_is(p, i, "from") && p->o && p->o->author && name_at(p, i + 1) &&
            p->t[i + 1].kind == T_WORD && resolve_name(p, i + 1, who, &len)) {
            set_author(p, who);
            use(p, i, i + 1 + len);
            continue;
        }
        /* did NAME do / make / last change; has NAME done */
        char who2[RT_STR];
        size_t more = 0;
        if ((tok_is(p, i, "did") || tok_is(p, i, "has") || tok_is(p, i, "have")) &&
            name_at(p, i + 1) && resolve_name(p, i + 1, who, &len) &&
            tok_in(p, i + 1 + len + (more = second_at(p, i + 1 + len, who, who2)), FOLLOW)) {
            set_author(p, who);
            if (more)
                set_second(p, who2);
            use(p, i, i + 1 + len + more);
            continue;
        }
        /* FIRST MIDDLE LAST's: "mei lin chen's commits" */
        if (t->kind == T_WORD && t->poss && i > 1 && !p->t[i - 1].used && !p->t[i - 2].used &&
            p->t[i - 1].kind == T_WORD && p->t[i - 2].kind == T_WORD && !p->t[i - 1].poss &&
            !p->t[i - 2].poss) {
            char three[3 * TOK_LEN + 3];
            snprintf(three, sizeof three, "%s %s %s", p->t[i - 2].s, p->t[i - 1].s, t->s);
            if (known_author(p, three, who)) {
                set_author(p, who);
                use(p, i - 2, i + 1);
                continue;
            }
        }
        /* FIRST LAST's: "george park's commits" */
        if (t->kind == T_WORD && t->poss && i > 0 && !p->t[i - 1].used &&
            p->t[i - 1].kind == T_WORD && !p->t[i - 1].poss) {
            char two[2 * TOK_LEN + 2];
            snprintf(two, sizeof two, "%s %s", p->t[i - 1].s, t->s);
            if (known_author(p, two, who)) {
                set_author(p, who);
                use(p, i - 1, i + 1);
                continue;
            }
        }
        /* NAME's */
        if (t->kind == T_WORD && t->poss) {
            t->poss = false;
            bool ok = name_at(p, i) && resolve_name(p, i, who, &len) && len == 1;
            t->poss = true;
            if (ok) {
                set_author(p, who);
                use(p, i, i + 1);
            }
            continue;
        }
        /* author NAME, author: NAME */
        if (tok_is(p, i, "author") && p->t[i + 1 < p->n ? i + 1 : i].kind != T_WORD &&
            name_at(p, i + 1) && resolve_name(p, i + 1, who, &len)) {
            set_author(p, who);
            use(p, i, i + 1 + len);
        }
    }
}

static void parse_path(parser *p)
{
    static const char *const TOUCH_VERBS[] = {"touch", "touches", "touched", "changing",
                                              "modifying", "affecting", "affect", "affected",
                                              NULL};
    /* "commits touching tests": a conventional top-level folder named after a touch verb
       (only there: "commits about tests" is a message term) */
    static const char *const TOUCHING[] = {"touching", "touch", "touches", "touched", NULL};
    static const char *const FOLDER[] = {"docs", "doc", "tests", "test", "src", "lib",
                                         "scripts", "examples", "bench", NULL};
    for (size_t i = 0; i + 1 < p->n; i++) {
        size_t j = tok_is(p, i + 1, "the") ? i + 2 : i + 1;
        if (!tok_in(p, i, TOUCHING) || !tok_in(p, j, FOLDER) || p->q->path_kind)
            continue;
        char dir[TOK_LEN];
        snprintf(dir, sizeof dir, "%s/", p->t[j].s);
        snprintf(p->t[j].s, TOK_LEN, "%s", dir);
        p->t[j].kind = T_PATH;
    }
    /* "directories under src", "commits in docs": a word after a place's preposition
       that is a directory of HEAD's tree (the repository says) */
    static const char *const PLACE[] = {"in", "under", "within", "inside", "below", "except",
                                        "excluding", "outside", NULL};
    for (size_t i = 1; p->o && p->o->file && i < p->n && (!p->q->path_kind || p->q->path_excl);
         i++) {
        tok *t = &p->t[i];
        size_t tl = strlen(t->s);
        if (t->used || t->kind != T_WORD || t->poss || tl < 2 || tl + 2 > TOK_LEN ||
            !tok_in(p, i - 1, PLACE) || in_list(t->s, RT_STOP))
            continue;
        char dir[TOK_LEN], where[RT_STR];
        snprintf(dir, sizeof dir, "%s/", t->s);
        if (p->o->file(p->o->author_ud, dir, where, sizeof where) != 1)
            continue;
        snprintf(t->s, TOK_LEN, "%s", dir);
        t->kind = T_PATH;
    }
    static const char *const PREP[] = {
        "of",       "to",        "in",        "on",       "for",      "under",   "within",
        "inside",   "touching",  "touch",     "touches",  "touched",  "affecting", "affect",
        "affected", "changing",  "modifying", "involving", "about",   "into",    "from",
        NULL};
    for (size_t i = 0; i < p->n; i++) {
        tok *t = &p->t[i];
        if (t->used || t->kind != T_PATH)
            continue;
        size_t tl = strlen(t->s);
        if (p->q->path_kind && p->q->path_excl && !p->q->untouched && !p->q->path2[0] &&
            t->s[tl - 1] == '/' && !strncmp(p->q->path, t->s, tl) && p->q->path[tl]) {
            /* "in src/ excluding src/net": src/ less src/net */
            snprintf(p->q->path2, RT_STR, "%s", p->q->path);
            p->q->path_kind = RT_PATH_NONE;
            p->q->path_excl = false;
        }
        if (p->q->path_kind)
            p->bad = true;
        /* a file named without its folders ("when was http.c last modified"): the file
           at the root of that name, else the one file of that name in HEAD's tree. A
           source file no such file is ("which commit removed legacy_db.c", deleted from
           src/) is not matched: read at the root, it would answer "nothing" where the
           file has a history; several files of that name are not matched either */
        static const char *const CODE_EXT[] = {".c", ".h", ".cc", ".cpp", ".hpp", ".py", ".go",
                                               ".rs", ".js", ".ts", ".java", ".rb", ".cs",
                                               ".php", ".swift", ".kt", NULL};
        const char *dot = strrchr(t->s, '.');
        bool code = dot && in_list(dot, CODE_EXT);
        if (p->o && p->o->file && !strchr(t->s, '/') && !strchr(t->s, '*') &&
            !rt_conventional_file(t->s) && strchr(t->s, '.')) {
            /* the repository says where it is: at the root, or the one file of that name */
            char where[RT_STR];
            int found = p->o->file(p->o->author_ud, t->s, where, sizeof where);
            if (found == 1 && strlen(where) < TOK_LEN)
                snprintf(t->s, TOK_LEN, "%s", where);
            else if (found == 2 || (code && found != 1)) {
                p->bad = true;
                if (found == 2 && p->o->why && p->o->why_cap)
                    snprintf(p->o->why, p->o->why_cap, "several files are named '%s': %s; say "
                             "which (its path from the repository root)", t->s, where);
            }
        } else if (p->o && p->o->author && !strchr(t->s, '/') && !strchr(t->s, '*') && code)
            p->bad = true;
        bool head_file = false; /* HEAD has a file at this path (docs/THANKS) */
        if (p->o && p->o->file && (strchr(t->s, '/') || !strchr(t->s, '.')) &&
            !strchr(t->s, '*') && t->s[strlen(t->s) - 1] != '/') {
            char where[RT_STR];
            int found = p->o->file(p->o->author_ud, t->s, where, sizeof where);
            p->q->gone = found == 0;
            head_file = found == 1;
        }
        snprintf(p->q->path, RT_STR, "%s", t->s);
        size_t n = strlen(t->s);
        const char *last = strrchr(t->s, '/');
        last = last ? last + 1 : t->s;
        bool file = head_file ||
                    (t->s[n - 1] != '/' && !strchr(t->s, '*') &&
                     ((strchr(last, '.') != NULL && looks_like_path(last)) ||
                      rt_conventional_file(last)));
        p->q->path_kind = file ? RT_PATH_FILE : RT_PATH_DIR;
        size_t from = i;
        /* "touching the Makefile", "history of the docs/ folder" */
        if (from > 1 && tok_is(p, from - 1, "the") && tok_in(p, from - 2, PREP))
            from--;
        if (from > 0 && tok_in(p, from - 1, PREP)) {
            from--;
            /* "did bob ever touch lib/hash.c": the verb says a change */
            if (tok_in(p, from, TOUCH_VERBS))
                p->q->words |= RW_CHANGE;
            /* "commits that changed files under tests/": a directory's files after a
               change verb are the directory ("which files under src/ ..." keeps its
               "files", the thing ranked) */
            static const char *const CHANGED[] = {"changed", "touched", "modified", "edited",
                                                  "touching", "changing", "modifying",
                                                  "editing", "affecting", "change", "touch",
                                                  "modify", "edit", NULL};
            static const char *const WHO[] = {"commits", "commit", "that", "which", "who",
                                              "did", "have", "has", "had", NULL};
            /* ... and only as a clause of commits or people: "the most frequently
               modified files in app/" ranks those files */
            if (p->q->path_kind == RT_PATH_DIR && from >= 3 &&
                (tok_is(p, from - 1, "files") || tok_is(p, from - 1, "code")) &&
                tok_in(p, from - 2, CHANGED) && tok_in(p, from - 3, WHO))
                from--;
        }
        use(p, from, i + 1);
    }
}

static void parse_count(parser *p)
{
    for (size_t i = 0; i < p->n; i++) {
        /* a year alone ("count commits 2025"): that year, when no window was said */
        int y = year_at(p, i);
        if (y && !p->q->since[0] && !p->q->until[0]) {
            char a[RT_STR], b[RT_STR], desc[RT_STR];
            snprintf(a, sizeof a, "%04d-01-01", y);
            snprintf(b, sizeof b, "%04d-12-31", y);
            snprintf(desc, sizeof desc, "in %04d", y);
            /* "from 2025", "during 2025", "for 2025": the year too */
            size_t from = i > 0 && (tok_is(p, i - 1, "from") || tok_is(p, i - 1, "during") ||
                                    tok_is(p, i - 1, "for") || tok_is(p, i - 1, "of"))
                              ? i - 1
                              : i;
            day_window(p, from, i + 1, a, b, desc);
            continue;
        }
        int v = number_at(p, i);
        if (v < 0)
            continue;
        /* "one" alone is not a count unless a noun follows ("one commit") */
        if (p->q->n)
            p->bad = true;
        p->q->n = v;
        use(p, i, i + 1);
    }
}

/* "i", "you" and "my", "their" are filler only in a request ("can you show", "i want");
 * elsewhere they name whose commits are asked for ("what did i change", "my commits",
 * "their commits"), which the router cannot know, so they count as unknown words. "we",
 * "us" and "our" are the project, everyone. True for every other word. */
static bool person_filler(const parser *p, size_t i)
{
    static const char *const SUBJECT[] = {"i", "you", "we", NULL};
    static const char *const OWNER[] = {"my", "our", "their", "your", NULL};
    static const char *const ASK_BEFORE[] = {"can", "could", "would", "will", "may", "shall",
                                             NULL};
    static const char *const ASK_AFTER[] = {"want", "need", "would", "like", "see", "get",
                                            "wanna", "show", "list", "give", "tell", "find",
                                            "wonder", "please", "kindly", NULL};
    static const char *const PLACE[] = {"repo", "repository", "project", "codebase", NULL};
    const char *w = p->t[i].s;
    bool next_ok = i + 1 < p->n && p->t[i + 1].kind == T_WORD;
    /* "how many commits did we make", "our commits this year": in a question about one
     * repository's history "we" is the project, everyone in it (decisions.md) */
    if (!strcmp(w, "we") || !strcmp(w, "our") || !strcmp(w, "us"))
        return true;
    if (in_list(w, SUBJECT))
        return (i > 0 && p->t[i - 1].kind == T_WORD && in_list(p->t[i - 1].s, ASK_BEFORE)) ||
               (next_ok && in_list(p->t[i + 1].s, ASK_AFTER));
    if (in_list(w, OWNER))
        return next_ok && in_list(p->t[i + 1].s, PLACE);
    return true;
}

/* An author noun in the singular: "which contributor has the most commits" asks for one. */
static const char *const ONE_PERSON[] = {"contributor", "author", "committer", "developer",
                                         "person", "dev", "engineer", NULL};

bool rt_person_at(parser *p, size_t i, char *out, size_t *len)
{
    if (!p->o || !p->o->author || i >= p->n || p->t[i].used || p->t[i].kind != T_WORD)
        return false;
    tok *t = &p->t[i];
    bool poss = t->poss;
    t->poss = false; /* "alice's": the name without its 's */
    bool ok = name_at(p, i) && resolve_name(p, i, out, len);
    t->poss = poss;
    return ok;
}

/* One of three words is in the question. */
static bool said(const parser *p, const char *a, const char *b, const char *c)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->t[i].kind == T_WORD &&
            (!strcmp(p->t[i].s, a) || !strcmp(p->t[i].s, b) || !strcmp(p->t[i].s, c)))
            return true;
    return false;
}

/* A word nothing read: the question is not understood, and the decline names it. */
static void unread(parser *p, const tok *t)
{
    p->q->words |= RW_UNKNOWN;
    size_t have = strlen(p->q->unread);
    if (have + strlen(t->s) + 2 < RT_STR)
        snprintf(p->q->unread + have, RT_STR - have, "%s%s", have ? " " : "", t->s);
}

/* What no slot took: filler, or content words by their canonical bit. */
static void collect_words(parser *p)
{
    for (size_t i = 0; i < p->n; i++) {
        tok *t = &p->t[i];
        if (t->used)
            continue;
        if (t->kind != T_WORD || t->poss) {
            unread(p, t);
            continue;
        }
        if (strcmp(t->s, "how") == 0 && tok_is(p, i + 1, "many")) {
            p->q->words |= RW_COUNT;
            use(p, i, i + 2);
            continue;
        }
        /* "how often was src/wal.c changed": how many times */
        if (strcmp(t->s, "how") == 0 && (tok_is(p, i + 1, "often") || tok_is(p, i + 1, "busy"))) {
            p->q->words |= RW_COUNT;
            use(p, i, i + 2);
            continue;
        }
        if (strcmp(t->s, "number") == 0 && tok_is(p, i + 1, "of")) {
            p->q->words |= RW_COUNT;
            use(p, i, i + 2);
            continue;
        }
        /* "which email address does Tom Nguyen commit with": their address */
        if (p->q->author[0] && (!strcmp(t->s, "email") || !strcmp(t->s, "emails") ||
                                !strcmp(t->s, "e-mail") || !strcmp(t->s, "address") ||
                                !strcmp(t->s, "addresses"))) {
            p->q->emails = true;
            t->used = true;
            continue;
        }
        if (p->q->emails && (!strcmp(t->s, "use") || !strcmp(t->s, "uses") ||
                             !strcmp(t->s, "using") || !strcmp(t->s, "with") ||
                             !strcmp(t->s, "used") || !strcmp(t->s, "under") ||
                             !strcmp(t->s, "as") || !strcmp(t->s, "from"))) {
            t->used = true;
            continue;
        }
        /* "the names of the 3 most active committers": the rows name them */
        if ((!strcmp(t->s, "names") || !strcmp(t->s, "name")) && tok_is(p, i + 1, "of")) {
            bool people_after = false;
            for (size_t k = i + 2; k < p->n; k++)
                people_after |= p->t[k].kind == T_WORD && (rt_canon_bit(p->t[k].s) & RW_AUTHORS);
            if (people_after) {
                use(p, i, i + 2);
                continue;
            }
        }
        /* "who did the most stuff in test/": the most commits */
        if ((!strcmp(t->s, "stuff") || !strcmp(t->s, "things")) && i > 0 &&
            (p->q->words & RW_MOST)) {
            t->used = true;
            continue;
        }
        /* "what commit does v1.0.0 point to": the commit named */
        if (p->q->commit[0] && (!strcmp(t->s, "point") || !strcmp(t->s, "points") ||
                                !strcmp(t->s, "pointing") || !strcmp(t->s, "refer") ||
                                !strcmp(t->s, "refers"))) {
            t->used = true;
            continue;
        }
        /* "list every commit by binbin": all of them, as "all" */
        if ((strcmp(t->s, "every") == 0 || strcmp(t->s, "each") == 0) && i + 1 < p->n &&
            p->t[i + 1].kind == T_WORD &&
            (rt_canon_bit(p->t[i + 1].s) & (RW_COMMITS | RW_FILES | RW_AUTHORS))) {
            p->q->all = true;
            t->used = true;
            continue;
        }
        /* "the date of X's most recent commit", "first commit date": when */
        if ((strcmp(t->s, "date") == 0 || strcmp(t->s, "day") == 0) &&
            (said(p, "first", "last", "latest") || said(p, "recent", "oldest", "newest") ||
             said(p, "earliest", "created", "deleted") || said(p, "started", "began", "began"))) {
            p->q->words |= RW_WHEN;
            t->used = true;
            continue;
        }
        /* "which directory saw the most commits": had them */
        if ((!strcmp(t->s, "saw") || !strcmp(t->s, "sees") || !strcmp(t->s, "seen") ||
             !strcmp(t->s, "see")) &&
            (said(p, "commits", "changes", "activity") || said(p, "commit", "change", "churn"))) {
            t->used = true;
            continue;
        }
        /* "how many commits came in on saturdays": were made ("landed" is a word of its
           own, a commit verb; the "in" of "came in november" is the window's) */
        if (strcmp(t->s, "came") == 0 && i + 1 < p->n && tok_is(p, i + 1, "in")) {
            use(p, i, i + 2);
            continue;
        }
        /* "in order please", "in order": the order the answer is in anyway */
        if (strcmp(t->s, "in") == 0 && i + 1 < p->n && !strcmp(p->t[i + 1].s, "order") &&
            (p->q->words & (RW_MOST | RW_AUTHORS | RW_RANKED))) {
            use(p, i, i + 2);
            continue;
        }
        /* "the main committer in shop/search": the top one ("committer" in the singular
           says one, as for "the top committer") */
        /* "the biggest contributors to test/": the most active, as "main" or "top" */
        if ((strcmp(t->s, "main") == 0 || strcmp(t->s, "biggest") == 0 ||
             strcmp(t->s, "largest") == 0) && i + 1 < p->n &&
            (rt_canon_bit(p->t[i + 1].s) & RW_AUTHORS)) {
            p->q->words |= RW_MOST;
            t->used = true;
            continue;
        }
        /* "when was the repo started": its first commit */
        if ((strcmp(t->s, "started") == 0 || strcmp(t->s, "began") == 0 ||
             strcmp(t->s, "created") == 0) && !p->q->path_kind &&
            said(p, "repo", "repository", "project") && said(p, "when", "when", "when")) {
            p->q->words |= RW_FIRST | RW_COMMITS;
            p->q->singular = true;
            t->used = true;
            continue;
        }
        /* "total lines added in 2026 (insertions)": the key said again */
        if (((!strcmp(t->s, "insertions") || !strcmp(t->s, "additions")) &&
             p->q->sort == RT_SORT_ADDITIONS) ||
            ((!strcmp(t->s, "deletions") || !strcmp(t->s, "removals")) &&
             p->q->sort == RT_SORT_DELETIONS)) {
            t->used = true;
            continue;
        }
        /* "who has committed the fewest times": commits */
        if (strcmp(t->s, "times") == 0 && i > 0 &&
            (!strcmp(p->t[i - 1].s, "fewest") || !strcmp(p->t[i - 1].s, "most") ||
             !strcmp(p->t[i - 1].s, "least"))) {
            p->q->words |= RW_COMMITS;
            t->used = true;
            continue;
        }
        /* "name the 5 files with most commits": a request, as "list" */
        if (strcmp(t->s, "name") == 0 && i == 0 && i + 1 < p->n &&
            (!strcmp(p->t[i + 1].s, "the") || !strcmp(p->t[i + 1].s, "all") ||
             !strcmp(p->t[i + 1].s, "every") || p->t[i + 1].kind == T_NUM)) {
            t->used = true;
            continue;
        }
        /* "as hashes", "as a list", "as json": how to show it, which the answer does */
        if (strcmp(t->s, "as") == 0 && i + 1 < p->n) {
            size_t k = i + 1;
            if (!strcmp(p->t[k].s, "a") && k + 1 < p->n)
                k++;
            static const char *const SHAPE[] = {"hashes", "hash", "shas", "list", "table",
                                                "json", "csv", "ids", NULL};
            if (in_list(p->t[k].s, SHAPE)) {
                use(p, i, k + 1);
                continue;
            }
        }
        /* "lines of code": lines */
        if (strcmp(t->s, "code") == 0 && i > 1 && !strcmp(p->t[i - 1].s, "of") &&
            (!strcmp(p->t[i - 2].s, "lines") || !strcmp(p->t[i - 2].s, "line"))) {
            use(p, i - 1, i + 1);
            continue;
        }
        /* "changed for the first time", "the last time": first, last */
        if ((strcmp(t->s, "time") == 0 || strcmp(t->s, "ever") == 0) && i > 0 &&
            (!strcmp(p->t[i - 1].s, "first") || !strcmp(p->t[i - 1].s, "last"))) {
            t->used = true;
            continue;
        }
        /* "the subject line of the latest commit", "message line": a line of text, not
           lines of code */
        if (strcmp(t->s, "line") == 0 && i > 0 &&
            (!strcmp(p->t[i - 1].s, "subject") || !strcmp(p->t[i - 1].s, "message") ||
             !strcmp(p->t[i - 1].s, "summary") || !strcmp(p->t[i - 1].s, "title"))) {
            t->used = true;
            continue;
        }
        /* "most commits first", "newest first", "biggest first": the order every list and
           ranking is already in; "oldest first" is not (it is left, so not read) */
        if (strcmp(t->s, "first") == 0 && i > 0 && i + 1 == p->n) {
            static const char *const ORDER[] = {"newest", "latest", "recent", "biggest",
                                                "largest", "highest", "commits", "lines",
                                                "changes", "busiest", NULL};
            const char *prev = p->t[i - 1].s;
            bool most = i > 1 && (!strcmp(p->t[i - 2].s, "most") ||
                                  !strcmp(p->t[i - 2].s, "highest"));
            if (in_list(prev, ORDER) && (most || strcmp(prev, "commits") != 0) &&
                (most || (strcmp(prev, "lines") != 0 && strcmp(prev, "changes") != 0))) {
                t->used = true;
                continue;
            }
        }
        /* "the most recent commit", "edited most recently": "most" adds nothing */
        if (strcmp(t->s, "most") == 0 && (tok_is(p, i + 1, "recent") ||
                                          tok_is(p, i + 1, "recently"))) {
            t->used = true;
            continue;
        }
        /* "how many different authors", "distinct contributors": a count of authors */
        if ((strcmp(t->s, "different") == 0 || strcmp(t->s, "distinct") == 0 ||
             strcmp(t->s, "unique") == 0) && i + 1 < p->n && p->t[i + 1].kind == T_WORD &&
            (rt_canon_bit(p->t[i + 1].s) & RW_AUTHORS)) {
            t->used = true;
            continue;
        }
        /* "who wrote X originally", "written first by": wrote is created only with a word
           that says so; "who wrote X" alone (the creator, or every author?) is not sure */
        if ((strcmp(t->s, "wrote") == 0 || strcmp(t->s, "written") == 0) && p->q->path_kind &&
            said(p, "originally", "first", "initially")) {
            p->q->words |= RW_CREATED;
            t->used = true;
            continue;
        }
        /* "who wrote commit e987df0d", "who authored jq-1.8.1": one commit has one author */
        if ((strcmp(t->s, "wrote") == 0 || strcmp(t->s, "written") == 0 ||
             strcmp(t->s, "authored") == 0) &&
            (p->q->commit[0] || p->q->root ||
             (said(p, "commit", "commits", "commit") &&
              (said(p, "first", "initial", "earliest") || said(p, "latest", "recent", "last") ||
               said(p, "newest", "newest", "newest")))) &&
            (!p->q->path_kind || said(p, "latest", "recent", "last"))) {
            p->q->words |= RW_MADE;
            t->used = true;
            continue;
        }
        /* "who wrote the biggest commit": who made it */
        if ((strcmp(t->s, "wrote") == 0 || strcmp(t->s, "authored") == 0) && !p->q->path_kind &&
            (said(p, "biggest", "largest", "huge") || said(p, "heaviest", "largest", "largest"))) {
            p->q->words |= RW_MADE;
            t->used = true;
            continue;
        }
        /* "how many commits did Provos author in 2007": the verb, after the person */
        bool aux = false; /* "did", "does", "has" before the person ("did X (x) author") */
        for (size_t k = i >= 6 ? i - 6 : 0; k + 1 < i; k++)
            aux |= !strcmp(p->t[k].s, "did") || !strcmp(p->t[k].s, "does") ||
                   !strcmp(p->t[k].s, "has");
        if (strcmp(t->s, "author") == 0 && p->q->author[0] && i >= 2 && p->t[i - 1].used &&
            p->t[i - 1].kind == T_WORD && aux) {
            p->q->words |= RW_MADE;
            t->used = true;
            continue;
        }
        /* "who has more commits, anna or jonas", "between A and B, who committed more":
           two people compared; "more than 10" is a count this does not read */
        static const char *const MORE[] = {"more", "most", "fewer", "fewest", "less", "least",
                                           NULL};
        if (p->q->author2[0] && in_list(t->s, MORE) && !said(p, "than", "than", "than")) {
            p->q->words |= RW_MOST;
            p->q->ascending = strcmp(t->s, "more") != 0 && strcmp(t->s, "most") != 0;
            p->q->compare = true;
            t->used = true;
            continue;
        }
        if (p->q->author2[0] && strcmp(t->s, "between") == 0) {
            t->used = true; /* "between anna and jonas" */
            continue;
        }
        /* "how many people have contributed commits", "authors who made commits": the
           commits are what the people did, not what is counted */
        static const char *const DID[] = {"contributed", "made", "pushed", "authored",
                                          "landed", "submitted", "wrote", NULL};
        if (strcmp(t->s, "commits") == 0 && i > 1 && in_list(p->t[i - 1].s, DID)) {
            bool people = false;
            for (size_t k = 0; k + 1 < i; k++)
                if (p->t[k].kind == T_WORD && (rt_canon_bit(p->t[k].s) & RW_AUTHORS))
                    people = true;
            if (people) {
                t->used = true;
                continue;
            }
        }
        /* "list everyone who committed": the authors; "what did everyone do" is not sure
           (their commits, or who they are?) */
        if ((strcmp(t->s, "everyone") == 0 || strcmp(t->s, "everybody") == 0) &&
            tok_is(p, i + 1, "who")) {
            p->q->words |= RW_AUTHORS;
            t->used = true;
            continue;
        }
        /* "the Watanabe guy", "alice the dev": a word for a person right after their name */
        static const char *const GUY[] = {"guy", "gal", "fellow", "dude", "lady", "person",
                                          "dev", "developer", "engineer", NULL};
        if (p->q->author[0] && in_list(t->s, GUY) && i > 0 && p->t[i - 1].used &&
            p->t[i - 1].kind == T_WORD && !p->t[i - 1].poss && !rt_canon_bit(p->t[i - 1].s) &&
            !in_list(p->t[i - 1].s, RT_STOP)) {
            t->used = true;
            continue;
        }
        /* "how many commits came from bob@x.org": the person was read; "came" adds nothing */
        if (p->q->author[0] && (!strcmp(t->s, "came") || !strcmp(t->s, "come") ||
                                !strcmp(t->s, "coming"))) {
            t->used = true;
            continue;
        }
        /* "when did julia make her first commit": the author's own */
        if (p->q->author[0] && (strcmp(t->s, "her") == 0 || strcmp(t->s, "his") == 0 ||
                                strcmp(t->s, "their") == 0 || strcmp(t->s, "he") == 0 ||
                                strcmp(t->s, "she") == 0 || strcmp(t->s, "they") == 0)) {
            t->used = true;
            continue;
        }
        if (!person_filler(p, i)) {
            unread(p, t);
            t->used = true;
            continue;
        }
        if (strcmp(t->s, "commit") == 0)
            p->q->singular = true;
        if (in_list(t->s, ONE_PERSON))
            p->q->one_author = true;
        if (!strcmp(t->s, "least") || !strcmp(t->s, "fewest"))
            p->q->ascending = true;
        if (strcmp(t->s, "all") == 0)
            p->q->all = true;
        uint32_t bit = rt_canon_bit(t->s);
        if (bit)
            p->q->words |= bit;
        else if (!in_list(t->s, RT_STOP))
            unread(p, t);
        t->used = true;
    }
}


/* ---- typos, names the repository knows, "the top contributor" ---- */

/* Whether the repository knows `name` as an author (one word, or two joined by a space);
 * the tools' search string goes to out. */
static bool known_author(const parser *p, const char *name, char *out)
{
    if (!p->o || !p->o->author)
        return false;
    char list[RT_STR * 2];
    list[0] = '\0';
    if (p->o->author(p->o->author_ud, name, list, sizeof list)) {
        snprintf(out, RT_STR, "%s", list);
        return true;
    }
    /* several people: kept, to say so if the question goes unmatched */
    if (list[0] && p->amb_word && !p->amb_word[0] && !strchr(name, ' ') && name[0] != '~') {
        snprintf(p->amb_word, TOK_LEN, "%s", name);
        snprintf(p->amb_list, RT_STR * 2, "%s", list);
    }
    return false;
}

/* The emails of a people list ("A <a@x>, B <b@y>"): the number found, at most two. */
static int list_emails(const char *list, char e[2][RT_STR])
{
    int k = 0;
    for (const char *c = list; (c = strchr(c, '<')) && k < 3; c++) {
        const char *end = strchr(c, '>');
        if (!end || (size_t)(end - c - 1) >= RT_STR)
            return 0;
        if (k < 2)
            snprintf(e[k], RT_STR, "%.*s", (int)(end - c - 1), c + 1);
        k++;
    }
    return k;
}

/* "either bob", "both bobs", "any of the bobs": the two people a name matches, both */
static void parse_either(parser *p)
{
    if (!p->o || !p->o->author)
        return;
    for (size_t i = 0; i + 1 < p->n; i++) {
        size_t j = i + 1;
        if (tok_is(p, i, "any") && tok_is(p, j, "of") && tok_is(p, j + 1, "the"))
            j += 2;
        else if (!tok_is(p, i, "either") && !tok_is(p, i, "both") && !tok_is(p, i, "any"))
            continue;
        if (j >= p->n || p->t[j].used || p->t[j].kind != T_WORD || p->t[j].poss)
            continue;
        char name[TOK_LEN], list[RT_STR * 2], e[2][RT_STR];
        snprintf(name, sizeof name, "%s", p->t[j].s);
        size_t nl = strlen(name);
        /* "both bobs": the name in the plural */
        if (nl > 3 && name[nl - 1] == 's' && !tok_is(p, i, "either"))
            name[nl - 1] = '\0';
        list[0] = '\0';
        if (p->o->author(p->o->author_ud, name, list, sizeof list) ||
            list_emails(list, e) != 2)
            continue;
        set_author(p, e[0]);
        set_second(p, e[1]);
        use(p, i, j + 1);
    }
}

static void fix_typos(parser *p)
{
    for (size_t i = 0; i < p->n; i++) {
        tok *t = &p->t[i];
        size_t n = strlen(t->s);
        /* "hw many", "hwo many": too short for the measure, sure before "many" */
        if ((!strcmp(t->s, "hw") || !strcmp(t->s, "hwo") || !strcmp(t->s, "hom")) &&
            (tok_is(p, i + 1, "many") || tok_is(p, i + 1, "much") || tok_is(p, i + 1, "often"))) {
            snprintf(t->s, TOK_LEN, "how");
            continue;
        }
        /* "wen was X released", "waht changed", "wich files": question words misspelt
           (those that could be a name, "wen", "wat", only before a verb) */
        static const char *const AUXV[] = {"was", "were", "did", "does", "is", "has", "had",
                                           "are", "do", "changed", NULL};
        static const char *const Q_TYPOS[][2] = {
            {"whihc", "which"}, {"wich", "which"}, {"whcih", "which"}, {"whitch", "which"},
            {"waht", "what"},   {"whta", "what"},  {"wehn", "when"},   {"whne", "when"},
            {"whn", "when"},    {"wen", "when"},   {"wat", "what"}};
        bool fixed = false;
        for (size_t k = 0; k < sizeof Q_TYPOS / sizeof Q_TYPOS[0] && !fixed; k++)
            if (!strcmp(t->s, Q_TYPOS[k][0]) &&
                (k < 9 || (i + 1 < p->n && tok_in(p, i + 1, AUXV)))) {
                snprintf(t->s, TOK_LEN, "%s", Q_TYPOS[k][1]);
                fixed = true;
            }
        /* chat shorthand: "this yr", "last wk", "commits frm", "lst 5 commits" */
        static const char *const SHORT[][2] = {
            {"yr", "year"},   {"yrs", "years"}, {"wk", "week"},     {"wks", "weeks"},
            {"mth", "month"}, {"mnth", "month"}, {"mths", "months"}, {"frm", "from"},
            {"lst", "last"},  {"cmts", "commits"}, {"ppl", "people"}, {"b4", "before"},
            /* the small words' own slips */
            {"teh", "the"},   {"hte", "the"},     {"taht", "that"},   {"wiht", "with"},
            {"adn", "and"},   {"fo", "of"}};
        for (size_t k = 0; k < sizeof SHORT / sizeof SHORT[0] && !fixed; k++)
            if (t->kind == T_WORD && !strcmp(t->s, SHORT[k][0])) {
                snprintf(t->s, TOK_LEN, "%s", SHORT[k][1]);
                fixed = true;
            }
        if (fixed)
            continue;
        if (t->kind != T_WORD || n < 3 || n > 20 || in_list(t->s, RT_STOP) ||
            in_list(t->s, RT_COMMON) || in_list(t->s, RT_NOT_NAME) || in_list(t->s, RT_NUM_WORDS) ||
            rt_canon_bit(t->s) || in_list(t->s, RT_TYPO_TARGETS) || rt_month_word(t->s) ||
            rt_weekday_word(t->s) || unit_at(p, i) || !isalpha((unsigned char)t->s[0]))
            continue;
        char who[RT_STR];
        if (known_author(p, t->s, who))
            continue;
        /* the one typo measure (src/words): length-aware, a keyboard neighbour half an
           edit */
        size_t best = SIZE_MAX;
        const char *pick = NULL;
        bool tie = false;
        for (size_t k = 0; RT_TYPO_TARGETS[k]; k++) {
            const char *w = RT_TYPO_TARGETS[k];
            /* and at most one whole edit below 9 letters: "authored" is no typo of
               "authors" here, where a wrong reading answers the wrong question */
            if (!qr_words_typo(t->s, n, w, strlen(w)) ||
                qr_edit_distance(t->s, n, w, strlen(w), QR_EDIT_TRANSPOSE) > (n >= 9 ? 2u : 1u))
                continue;
            size_t d = qr_words_cost(t->s, n, w, strlen(w));
            if (d > best)
                continue;
            /* "commmits" is as near "commits" as "commit": singular and plural agree */
            size_t wl = strlen(w), pl = pick ? strlen(pick) : 0;
            bool same = pick && ((wl == pl + 1 && !strncmp(w, pick, pl)) ||
                                 (pl == wl + 1 && !strncmp(pick, w, wl)));
            if (d == best && pick && !same)
                tie = true;
            if (d < best) {
                best = d, pick = w, tie = false;
            }
        }
        if (pick && !tie)
            snprintf(t->s, TOK_LEN, "%s", pick);
    }
}

/* "the top contributor", "the most active author", "our biggest committer": the first of
 * the window's authors, found by a query step before the question's own. */
static void parse_top_author(parser *p)
{
    static const char *const WHO[] = {"contributor", "author", "committer", "developer",
                                      "dev", "person", NULL};
    for (size_t i = 0; i < p->n; i++) {
        size_t j = i;
        if (tok_is(p, j, "top") || tok_is(p, j, "biggest") || tok_is(p, j, "main"))
            j++;
        else if (tok_is(p, j, "most") && (tok_is(p, j + 1, "active") || tok_is(p, j + 1, "prolific")))
            j += 2;
        else
            continue;
        tok *w = j < p->n ? &p->t[j] : NULL;
        if (!w || w->used || w->kind != T_WORD || !in_list(w->s, WHO))
            continue;
        /* "the top contributor to src/cluster.c": that path's authors ranked (file-authors),
           not a person found first */
        if ((tok_is(p, j + 1, "to") || tok_is(p, j + 1, "of") || tok_is(p, j + 1, "in") ||
             tok_is(p, j + 1, "on")) && j + 2 < p->n && p->t[j + 2].kind == T_PATH)
            continue;
        if (p->q->top_author)
            p->bad = true;
        p->q->top_author = true;
        size_t from = i;
        if (from > 0 && tok_is(p, from - 1, "the"))
            from--;
        /* "commits by the most active author", "work of the top contributor" */
        if (from > 0 && (tok_is(p, from - 1, "by") || tok_is(p, from - 1, "of") ||
                         tok_is(p, from - 1, "from")))
            from--;
        /* "the top contributor's commits" */
        w->poss = false;
        use(p, from, j + 1);
    }
}

/* Names said without a marker ("commits since monday by alice" is read by parse_author;
 * "alice commits last week", "ines' commits" here): a word, or two, that the repository
 * knows as exactly one author. */
static void parse_known_authors(parser *p)
{
    if (!p->o || !p->o->author)
        return;
    for (size_t i = 0; i < p->n; i++) {
        tok *t = &p->t[i];
        char two[2 * TOK_LEN + 2], who[RT_STR];
        /* "kenji@example.jp commits in 2024": an email the history has, read as "by" it */
        if (!t->used && t->kind == T_EMAIL && !p->q->author[0] && known_author(p, t->s, who)) {
            set_author(p, t->s);
            use(p, i, i + 1);
            continue;
        }
        if (t->used || t->kind != T_WORD || in_list(t->s, RT_STOP) || rt_canon_bit(t->s))
            continue;
        const tok *u = i + 1 < p->n ? &p->t[i + 1] : NULL;
        const tok *v = i + 2 < p->n ? &p->t[i + 2] : NULL;
        char who2[RT_STR];
        size_t more;
        if (u && v && !u->used && !v->used && u->kind == T_WORD && v->kind == T_WORD &&
            !t->poss && !u->poss) {
            char three[3 * TOK_LEN + 3];
            snprintf(three, sizeof three, "%s %s %s", t->s, u->s, v->s);
            if (known_author(p, three, who)) {
                set_author(p, who);
                if ((more = second_at(p, i + 3, who, who2)))
                    set_second(p, who2);
                use(p, i, i + 3 + more);
                continue;
            }
        }
        if (u && !u->used && u->kind == T_WORD && !t->poss) {
            snprintf(two, sizeof two, "%s %s", t->s, u->s);
            if (known_author(p, two, who)) {
                set_author(p, who);
                if ((more = second_at(p, i + 2, who, who2)))
                    set_second(p, who2);
                use(p, i, i + 2 + more);
                continue;
            }
        }
        /* a lone common word ("will", "mark") is read as a name only with a marker */
        if (!in_list(t->s, RT_COMMON) && !in_list(t->s, RT_NOT_NAME) && known_author(p, t->s, who)) {
            set_author(p, who);
            if (!t->poss && (more = second_at(p, i + 1, who, who2)))
                set_second(p, who2);
            else
                more = 0;
            use(p, i, i + 1 + more);
        }
    }
}

/* ---- terse git-like lines: "log -n7 src/net", "log --author=hana -n 3", "shortlog -sn
 * since=2026-01-01", "author=X since=14d" ----
 * Flags and key=value terms (read by src/words) are rewritten into the words the slots
 * read ("--author=hana" is "by hana", "-n7" is 7, "since=X" is "since X", "shortlog" is
 * "authors"); flags that change nothing the router answers ("-s", "--oneline") go. */
static bool put_tok(tok *out, size_t *n, const char *s, int kind)
{
    if (*n == MAX_TOKENS || strlen(s) >= TOK_LEN)
        return false;
    tok *t = &out[(*n)++];
    memset(t, 0, sizeof *t);
    snprintf(t->s, TOK_LEN, "%s", s);
    if (kind >= 0) {
        t->kind = kind;
        return true;
    }
    return classify(t);
}

/* The words of a value said whole ("1 month ago"), each a token of its own. */
static bool put_words(tok *out, size_t *n, const char *val)
{
    char buf[TOK_LEN];
    snprintf(buf, sizeof buf, "%s", val);
    bool ok = true;
    for (char *save = NULL, *w = strtok_r(buf, " ", &save); w && ok; w = strtok_r(NULL, " ", &save))
        ok = put_tok(out, n, w, -1);
    return ok;
}

/* Keys read in "key:value" as in "key=value" (a colon is too common elsewhere to read any
 * key so: "note:", "re:", "blame-ish:"). */
static const char *const KV_COLON_KEYS[] = {"author", "committer", "since", "after", "until",
                                            "before", "path", "dir", "file", "n", "limit",
                                            "top", "grep", "message", "month", "year", NULL};

static bool read_terse(parser *p)
{
    static const char *const QUIET[] = {"-s", "-n", "-e", "-sn", "-sne", "-ns", "-nse", "-se",
                                        "--oneline", "--stat", "--summary", "--numbered",
                                        "--email", "--use-mailmap", "--all", NULL};
    tok *out = calloc(MAX_TOKENS, sizeof *out);
    if (!out)
        return false;
    size_t n = 0;
    bool ok = true;
    for (size_t i = 0; i < p->n && ok; i++) {
        tok *t = &p->t[i];
        char key[32], val[TOK_LEN];
        /* author:bob@example.org, author=bob@example.org: by that address */
        if (t->kind == T_EMAIL && (!strncasecmp(t->s, "author:", 7) ||
                                   !strncasecmp(t->s, "author=", 7))) {
            ok = put_tok(out, &n, "by", T_WORD) && put_tok(out, &n, t->s + 7, T_EMAIL);
            continue;
        }
        /* "| count", "| wc -l": a count of what the line before lists */
        if (!strcmp(t->s, "|") && i + 1 < p->n &&
            (!strcmp(p->t[i + 1].s, "wc") || !strcmp(p->t[i + 1].s, "count"))) {
            ok = put_tok(out, &n, "count", T_WORD);
            i += 1 + (!strcmp(p->t[i + 1].s, "wc") && i + 2 < p->n && !strcmp(p->t[i + 2].s, "-l"));
            continue;
        }
        if (t->kind == T_QUOTED || t->kind == T_EMAIL) {
            ok = n < MAX_TOKENS;
            if (ok)
                out[n++] = *t;
            continue;
        }
        const char *w = t->s;
        size_t wl = strlen(w);
        /* "--format=%h", "--pretty=oneline": how git would print it; the rows say it all */
        if (t->kind != T_QUOTED && (!strncmp(w, "--format=", 9) || !strncmp(w, "--pretty=", 9) ||
                                    !strcmp(w, "--no-decorate")))
            continue;
        /* "git log A..B | wc -l": their count; "| head -5": the first five */
        if (!strcmp(w, "|") && i + 2 < p->n && !strcmp(p->t[i + 1].s, "wc") &&
            !strcmp(p->t[i + 2].s, "-l")) {
            ok = put_tok(out, &n, "count", T_WORD);
            for (size_t k = 0; k < n; k++) /* the log's lines are its commits */
                if (out[k].kind == T_WORD && !strcmp(out[k].s, "log"))
                    snprintf(out[k].s, TOK_LEN, "commits");
            i += 2;
            continue;
        }
        if (!strcmp(w, "|") && i + 2 < p->n && !strcmp(p->t[i + 1].s, "head")) {
            size_t k = i + 2;
            if (!strcmp(p->t[k].s, "-n") && k + 1 < p->n)
                k++;
            const char *d = p->t[k].s[0] == '-' ? p->t[k].s + 1 : p->t[k].s;
            if (d[0] && strspn(d, "0123456789") == strlen(d) && strlen(d) < 5) {
                ok = put_tok(out, &n, d, T_NUM);
                i = k;
                continue;
            }
        }
        /* "files changed in HEAD", "the files of HEAD": that one commit */
        if (t->kind == T_WORD && !strcmp(w, "head") && n > 0 &&
            (!strcmp(out[n - 1].s, "in") || !strcmp(out[n - 1].s, "of") ||
             !strcmp(out[n - 1].s, "by"))) {
            bool files = false;
            for (size_t k = 0; k < n; k++)
                files |= !strcmp(out[k].s, "files") || !strcmp(out[k].s, "file");
            if (files) {
                ok = put_tok(out, &n, "HEAD", T_WORD);
                if (ok)
                    out[n - 1].tag = true;
                continue;
            }
        }
        /* "git log HEAD", "git rev-list --count HEAD": where the history starts anyway */
        if (t->kind == T_WORD && !strcmp(w, "head") && n > 0 &&
            (!strcmp(out[n - 1].s, "log") || !strcmp(out[n - 1].s, "commits") ||
             !strcmp(out[n - 1].s, "count") || (i + 1 == p->n && n > 1)))
            continue;
        /* "git rev-list --count A..B" */
        if (t->kind == T_WORD && !strcmp(w, "rev-list")) {
            ok = put_tok(out, &n, "commits", T_WORD);
            continue;
        }
        if (t->kind == T_WORD && !strcmp(w, "--count")) {
            ok = put_tok(out, &n, "count", T_WORD);
            continue;
        }
        if (t->kind == T_WORD && !strcmp(w, "shortlog")) {
            ok = put_tok(out, &n, "authors", T_WORD);
            continue;
        }
        if (t->kind == T_WORD && in_list(w, QUIET))
            continue;
        if (t->kind == T_WORD && !strcmp(w, "--no-merges")) {
            ok = put_tok(out, &n, "without", T_WORD) && put_tok(out, &n, "merges", T_WORD);
            continue;
        }
        /* "git tag -l", "git tag --list": the tags */
        if (t->kind == T_WORD && (!strcmp(w, "-l") || !strcmp(w, "--list")) && n > 0 &&
            !strcmp(out[n - 1].s, "tag")) {
            snprintf(out[n - 1].s, TOK_LEN, "tags");
            continue;
        }
        if (t->kind == T_WORD && !strcmp(w, "--merges")) {
            ok = put_tok(out, &n, "merges", T_WORD);
            continue;
        }
        /* "top-files", "top-authors", "most-changed": a command's name, its words */
        if (t->kind == T_WORD && (!strncmp(w, "top-", 4) || !strncmp(w, "most-", 5)) &&
            strcmp(w, "top-level") && strlen(w) < TOK_LEN && !strchr(strchr(w, '-') + 1, '-')) {
            const char *rest = strchr(w, '-') + 1;
            ok = put_tok(out, &n, w[0] == 't' ? "top" : "most", T_WORD) &&
                 put_tok(out, &n, !strcmp(rest, "dirs") ? "directories" : rest, T_WORD);
            continue;
        }
        /* -n7, -7 */
        if (t->kind == T_WORD && w[0] == '-' && wl > 1) {
            size_t d = w[1] == 'n' ? 2 : 1;
            bool digits = wl > d;
            for (size_t k = d; k < wl; k++)
                if (!isdigit((unsigned char)w[k]))
                    digits = false;
            if (digits) {
                ok = put_tok(out, &n, w + d, T_NUM);
                continue;
            }
        }
        /* "2026-07-01..2026-07-31": from the one day to the other */
        const char *dd = strstr(w, "..");
        if (dd && dd > w && dd - w < 32 && strlen(dd + 2) < 32) {
            char d1[32], d2[32];
            snprintf(d1, sizeof d1, "%.*s", (int)(dd - w), w);
            snprintf(d2, sizeof d2, "%s", dd + 2);
            if (is_iso_date(d1) && is_iso_date(d2)) {
                ok = put_tok(out, &n, "between", T_WORD) && put_tok(out, &n, d1, T_DATE) &&
                     put_tok(out, &n, "and", T_WORD) && put_tok(out, &n, d2, T_DATE);
                continue;
            }
        }
        /* "limit 5", "max 10" as the last words or before others: the count, as limit=5
           (a "limit" that is not a count, "the rate limit", is left) */
        if (t->kind == T_WORD && (!strcmp(w, "limit") || !strcmp(w, "max")) && i + 1 < p->n &&
            p->t[i + 1].kind == T_NUM && (n == 0 || strcmp(out[n - 1].s, "the"))) {
            continue;
        }
        /* --author="Thomas Adam": the quoted value was read as a token of its own */
        char joined[2 * TOK_LEN + 4];
        if ((t->kind == T_WORD || t->kind == T_OTHER) && wl > 1 && w[wl - 1] == '=' &&
            i + 1 < p->n && p->t[i + 1].kind == T_QUOTED) {
            snprintf(joined, sizeof joined, "%s%s", w, p->t[i + 1].s);
            w = joined;
            wl = strlen(joined);
            i++;
        }
        bool kv_word = strchr(w, '=') || (strchr(w, ':') && !strstr(w, "://"));
        if ((t->kind == T_WORD || t->kind == T_OTHER || t->kind == T_PATH) && kv_word &&
            qr_words_kv(w, wl, key, sizeof key, val, sizeof val) &&
            (strchr(w, '=') || in_list(key, KV_COLON_KEYS))) {
            if (!strcmp(key, "author") || !strcmp(key, "committer")) {
                /* a name of several words ("Thomas Adam") is read as said after "by" */
                ok = put_tok(out, &n, "by", T_WORD) &&
                     (strchr(val, ' ') ? put_words(out, &n, val) : put_tok(out, &n, val, -1));
            } else if ((!strcmp(key, "since") || !strcmp(key, "after")) &&
                       strspn(val, "0123456789") > 0 && val[strspn(val, "0123456789")] &&
                       strchr("dwmyh", val[strspn(val, "0123456789")]) &&
                       !val[strspn(val, "0123456789") + 1]) {
                /* since=14d: the last 14 days */
                size_t d = strspn(val, "0123456789");
                char c = val[d];
                val[d] = '\0';
                const char *unit = c == 'd' ? "days" : c == 'w' ? "weeks" : c == 'm' ? "months"
                                   : c == 'y' ? "years" : "hours";
                ok = put_tok(out, &n, "last", T_WORD) && put_tok(out, &n, val, T_NUM) &&
                     put_tok(out, &n, unit, T_WORD);
            } else if (!strcmp(key, "since") || !strcmp(key, "after") ||
                       !strcmp(key, "until") || !strcmp(key, "before")) {
                ok = put_tok(out, &n, key, T_WORD) && put_words(out, &n, val);
            } else if (!strcmp(key, "path") || !strcmp(key, "dir") || !strcmp(key, "file")) {
                char path[TOK_LEN];
                bool dot = strchr(val, '.') || strchr(val, '/') || rt_conventional_file(val);
                snprintf(path, sizeof path, "%s%s", val, dot ? "" : "/");
                ok = put_tok(out, &n, path, T_PATH);
            } else if ((!strcmp(key, "n") || !strcmp(key, "limit") || !strcmp(key, "max-count") ||
                        !strcmp(key, "top")) && val[0] && strspn(val, "0123456789") == strlen(val)) {
                ok = put_tok(out, &n, val, T_NUM);
            } else if ((!strcmp(key, "month") || !strcmp(key, "year")) && val[0]) {
                /* month=2026-07, year=2025: that window */
                int y = 0, m = 0;
                char tail = 0;
                int got = sscanf(val, "%d-%d%c", &y, &m, &tail);
                static const char *const MONTHS[] = {"january", "february", "march", "april",
                                                     "may", "june", "july", "august",
                                                     "september", "october", "november",
                                                     "december"};
                char yy[16];
                snprintf(yy, sizeof yy, "%d", y);
                if (!strcmp(key, "month") && got == 2 && m >= 1 && m <= 12 && y > 1900)
                    ok = put_tok(out, &n, "in", T_WORD) &&
                         put_tok(out, &n, MONTHS[m - 1], T_WORD) && put_tok(out, &n, yy, T_NUM);
                else if (!strcmp(key, "year") && got == 1 && y > 1900 && y < 3000)
                    ok = put_tok(out, &n, "in", T_WORD) && put_tok(out, &n, yy, T_NUM);
                else
                    ok = false;
            } else if (!strcmp(key, "grep") || !strcmp(key, "message")) {
                ok = put_tok(out, &n, "mentioning", T_WORD) && put_tok(out, &n, val, T_QUOTED);
            } else {
                ok = n < MAX_TOKENS; /* a key the router does not read: kept, so no match */
                if (ok)
                    out[n++] = *t;
            }
            continue;
        }
        ok = n < MAX_TOKENS;
        if (ok)
            out[n++] = *t;
    }
    if (ok) {
        memcpy(p->t, out, n * sizeof *out);
        p->n = n;
    }
    free(out);
    return ok;
}

bool rt_parse(const char *question, size_t len, const qr_router_opts *o, rt_question *q)
{
    memset(q, 0, sizeof *q);
    if (!question || len == 0 || len > MAX_QUESTION)
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)question[i];
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f || c == '{' ||
            c == '}' || c == '\\')
            return false;
    }
    if (!qr_utf8_valid(question, len))
        return false;
    char norm[MAX_QUESTION + 1];
    /* quotes, spaces and chatter ("hey, sorry to bother you, but ...") off: src/words */
    size_t n = qr_words_normalize(question, len, norm, sizeof norm);
    parser *p = calloc(1, sizeof *p);
    char *amb = calloc(1, TOK_LEN + RT_STR * 2);
    if (!p || !amb) {
        free(p);
        free(amb);
        return false;
    }
    p->q = q;
    p->o = o;
    p->amb_word = amb;
    p->amb_list = amb + TOK_LEN;
    int64_t now = o && o->now ? o->now : qr_clock_now();
    rt_today_of(now, o && o->now ? o->tz_offset_min : qr_clock_offset_at(now), &p->today);
    bool ok = tokenize(p, norm, n) && read_terse(p);
    if (ok) {
        rt_parse_asides(p);
        rt_parse_issues(p);
        fix_typos(p);
        rt_parse_places(p);
        parse_top_author(p);
        parse_refs(p);
        parse_holidays(p);
        parse_repos(p);
        parse_month_days(p); /* "21 august 2026" is one date before "from" reads it */
        parse_what_day(p);
        parse_start_of(p);
        rt_parse_exclusions(p);
        rt_parse_weekdays(p);
        parse_calendar(p);
        parse_window(p);
        rt_parse_frames(p);
        parse_sort(p);
        parse_grep(p);
        parse_either(p);
        parse_author(p);
        parse_path(p);
        parse_known_authors(p);
        rt_parse_merges(p);
        parse_count(p);
        /* "date of the 0.1 tag": a named tag's row says its date */
        if (q->tags && q->commit[0])
            for (size_t i = 0; i + 1 < p->n; i++)
                if (tok_is(p, i, "date") && tok_is(p, i + 1, "of"))
                    use(p, i, i + 2);
        collect_words(p);
        /* "the files in the latest commit": that one commit is HEAD */
        if (!q->commit[0] && q->singular && (q->words & RW_FILES) && (q->words & RW_RECENT) &&
            !q->since[0] && !q->until[0] && !q->author[0] && !q->path_kind && !q->n &&
            !q->ref[0] && !q->grep[0] && !q->merges && !q->bots) {
            snprintf(q->commit, RT_STR, "HEAD");
            q->words &= ~(uint32_t)RW_RECENT;
        }
        /* "what files were changed in the initial commit": the oldest commit's files */
        if (!q->commit[0] && q->singular && (q->words & RW_FILES) && (q->words & RW_FIRST) &&
            !(q->words & (RW_WHO | RW_AUTHORS | RW_RECENT | RW_COUNT | RW_MOST)) &&
            !q->since[0] && !q->until[0] && !q->author[0] && !q->path_kind && !q->n &&
            !q->ref[0] && !q->grep[0] && !q->merges && !q->bots && !q->wdays && !q->period) {
            q->root = true;
            q->words &= ~(uint32_t)RW_FIRST;
        }
        /* "who made the latest commit", "who made the very first commit": its row says */
        if ((q->words & RW_WHO) && q->singular && (q->words & (RW_RECENT | RW_FIRST)) &&
            !q->path_kind && !q->n && !q->author[0] &&
            !(q->words & (RW_FILES | RW_AUTHORS | RW_COUNT | RW_MOST | RW_LARGEST)))
            q->words &= ~(uint32_t)RW_WHO;
        /* "when was the last commit": the latest commit says its date */
        if ((q->words & RW_WHEN) && (q->words & RW_RECENT) && q->singular && !q->path_kind &&
            !q->n && !(q->words & (RW_FILES | RW_WHO | RW_FIRST | RW_COUNT)))
            q->words &= ~(uint32_t)RW_WHEN;
        /* "did anyone commit on 2017-04-01", "were there any commits in june": yes or
           no, said with the rows that make it */
        {
            static const char *const AUX[] = {"did", "were", "was", "has", "have", "is",
                                              "are", "does", "do", NULL};
            static const char *const ANY[] = {"any", "anyone", "anybody", "anything",
                                              "someone", "somebody", "ever", NULL};
            bool aux = p->n && p->t[0].kind == T_WORD && in_list(p->t[0].s, AUX);
            bool any = false;
            for (size_t i = 0; i < p->n; i++)
                any |= p->t[i].kind == T_WORD && in_list(p->t[i].s, ANY);
            q->yesno = aux && any && !q->tags &&
                       !(q->words & (RW_MOST | RW_COUNT | RW_WHEN | RW_LARGEST | RW_FIRST));
        }
        /* "all recent commits": all of them, or the recent ones? Neither is sure. */
        if (q->all && (q->words & RW_RECENT))
            q->words |= RW_UNKNOWN;
        ok = !p->bad;
    }
    /* a word that named several people and that nothing else took: say so */
    if (p->amb_word[0] && o && o->why && o->why_cap) {
        /* taken when a person was found all the same ("bob lee" after probing "bob") */
        bool taken = q->author[0] != 0 || q->not_author[0] != 0;
        size_t k = 0;
        for (const char *c = p->amb_list; (c = strchr(c, '<')); c++)
            k++;
        if (!taken)
            snprintf(o->why, o->why_cap, "%zu authors match '%s': %s; say which (a full name or "
                     "an email)", k, p->amb_word, p->amb_list);
    }
    free(amb);
    free(p);
    return ok;
}

/* ---- public API ---- */

/* A yes/no question's answer, added to the rule's return: "yes" when the rows it returns
 * (:findings NAME) or counts ({{count:NAME}}) hold any. False when the return names none. */
static bool yesno_answer(qr_route *r)
{
    char *ret = r->query ? strstr(r->query, ":return {") : NULL;
    if (!ret)
        return false;
    const char *name = NULL;
    size_t nl = 0;
    const char *f = strstr(ret, ":findings :");
    const char *c = strstr(ret, "{{count:");
    if (f) {
        name = f + 11;
        nl = strcspn(name, " }\n");
    } else if (c) {
        name = c + 8;
        nl = strcspn(name, "}");
    }
    if (!name || !nl || nl > 64)
        return false;
    size_t at = (size_t)(ret - r->query) + 9, ql = strlen(r->query);
    char *q = malloc(ql + nl + 32);
    if (!q)
        return false;
    int k = snprintf(q, ql + nl + 32, "%.*s:answer \"{{any:%.*s}}\" %s", (int)at, r->query,
                     (int)nl, name, r->query + at);
    if (k < 0) {
        free(q);
        return false;
    }
    free(r->query);
    r->query = q;
    return true;
}

bool qr_router_match_opts(const char *question, size_t len, const qr_router_opts *opts,
                          qr_route *out)
{
    rt_question q;
    if (out)
        memset(out, 0, sizeof *out);
    if (opts && opts->why && opts->why_cap)
        opts->why[0] = '\0';
    if (opts && opts->unread && opts->unread_cap)
        opts->unread[0] = '\0';
    if (!out)
        return false;
    bool parsed = rt_parse(question, len, opts, &q);
    bool ok = parsed && rt_rules_match(&q, out);
    if (ok && q.yesno && !yesno_answer(out))
        ok = false, qr_route_clear(out); /* a yes/no this rule's rows cannot say */
    if (!ok && opts && opts->unread && opts->unread_cap)
        snprintf(opts->unread, opts->unread_cap, "%s", q.unread);
    if (!parsed)
        return false;
    if (ok && opts && opts->why && opts->why_cap)
        opts->why[0] = '\0'; /* answered: nothing was ambiguous after all */
    return ok;
}

bool qr_router_match(const char *question, size_t len, qr_route *out)
{
    return qr_router_match_opts(question, len, NULL, out);
}

void qr_route_clear(qr_route *r)
{
    if (!r)
        return;
    free(r->query);
    free(r->rule);
    free(r->explain);
    memset(r, 0, sizeof *r);
}
