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

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Deletes tokens [from, to) from the question. */
static void drop(parser *p, size_t from, size_t to)
{
    if (to > p->n || from >= to)
        return;
    memmove(&p->t[from], &p->t[to], (p->n - to) * sizeof p->t[0]);
    p->n -= to - from;
}

/* Numbers with dots between them ("2.1", "3.6"), at least two, and at most one letter
 * after the last ("3.6a": the release after 3.6). */
static bool version_digits(const char *c)
{
    if (!isdigit((unsigned char)*c) || !strchr(c, '.'))
        return false;
    for (; *c; c++)
        if (!isdigit((unsigned char)*c) && *c != '.' &&
            !(islower((unsigned char)*c) && !c[1] && isdigit((unsigned char)c[-1])))
            return false;
    return c[-1] != '.';
}

/* One of the project's names (a space-separated list: the working tree's folder, the
 * remote's name), compared without case. */
static bool is_project(const char *names, const char *w)
{
    size_t n = strlen(w);
    for (const char *s = names; *s;) {
        const char *e = strchr(s, ' ');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        if (l == n && !strncasecmp(s, w, n))
            return true;
        if (!e)
            break;
        s = e + 1;
    }
    return false;
}

/* Who a clause of what the asker is doing opens with ("I'm trying to review it"). */
static const char *const SELF_AFTER[] = {"i'm", "im", "i", "we're", "we", "i've", "we've",
                                         "i'll", "we'll", "i'd", "we'd", "just", NULL};

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
    /* "authors who only made one commit", "people with exactly 2 commits": a count to
       equal, which no reading here filters by; declined, not ranked */
    static const char *const ONLY[] = {"only", "just", "exactly", NULL};
    static const char *const SKIP[] = {"made", "make", "have", "has", "had", "got", "with",
                                       "a", "did", NULL};
    for (size_t i = 0; i < p->n; i++) {
        if (!tok_in(p, i, ONLY) && !(tok_is(p, i, "a") && tok_is(p, i + 1, "single")))
            continue;
        size_t k = i + 1;
        while (tok_in(p, k, SKIP) || tok_is(p, k, "single"))
            k++;
        bool num = k < p->n && (p->t[k].kind == T_NUM || in_list(p->t[k].s, RT_NUM_WORDS));
        if (num)
            k++;
        if ((num || tok_is(p, k - 1, "single")) &&
            (tok_is(p, k, "commit") || tok_is(p, k, "commits")))
            p->bad = true;
    }
    /* "What changed in ed0fe56? I'm trying to review it": what the asker is doing, said
       after the question, is not the question (plain words only, as before it) */
    for (size_t k = 0; k + 1 < p->n; k++) {
        if (!p->t[k].comma || !tok_in(p, k + 1, SELF_AFTER))
            continue;
        bool plain = p->n - k - 1 <= 8;
        for (size_t j = k + 2; j < p->n && plain; j++)
            plain = p->t[j].kind == T_WORD && !p->t[j].poss && !rt_canon_bit(p->t[j].s) &&
                    !rt_month_word(p->t[j].s) && !rt_weekday_word(p->t[j].s) &&
                    !in_list(p->t[j].s, RT_NUM_WORDS);
        if (plain)
            drop(p, k + 1, p->n);
        break;
    }
    /* "the last one to change X", "the first person who touched X": the one is who */
    static const char *const ONE_W[] = {"one", "person", "guy", "dev", "developer", NULL};
    static const char *const ORD_W[] = {"last", "first", "latest", "only", "most", NULL};
    for (size_t i = 1; i + 1 < p->n; i++)
        if (tok_in(p, i, ONE_W) && tok_in(p, i - 1, ORD_W) &&
            (tok_is(p, i + 1, "to") || tok_is(p, i + 1, "who") || tok_is(p, i + 1, "that")))
            drop(p, i, i + 1);
    /* "over the years", "so far", "to date": the whole history, said */
    static const char *const ALL_HIST[][4] = {{"over", "the", "years", NULL},
                                              {"through", "the", "years", NULL},
                                              {"over", "time", NULL, NULL},
                                              {"so", "far", NULL, NULL},
                                              {"to", "date", NULL, NULL},
                                              {"up", "to", "now", NULL},
                                              {"until", "now", NULL, NULL},
                                              {"till", "now", NULL, NULL}};
    for (size_t i = 0; i < p->n; i++)
        for (size_t a = 0; a < sizeof ALL_HIST / sizeof ALL_HIST[0]; a++) {
            size_t k = 0;
            while (ALL_HIST[a][k] && tok_is(p, i + k, ALL_HIST[a][k]))
                k++;
            /* the phrase alone goes: "so far this year" keeps "this year", "from 2019
               to date" is from 2019 on */
            if (!ALL_HIST[a][k] && k) {
                drop(p, i, i + k);
                break;
            }
        }
    /* "who made the file X", "who started src/x.c": who created it */
    static const char *const MADE_W[] = {"made", "started", NULL}; /* "wrote": ambiguous */
    for (size_t i = 0; i + 1 < p->n; i++) {
        if (!tok_in(p, i, MADE_W))
            continue;
        size_t k = i + 1;
        if (tok_is(p, k, "the") || tok_is(p, k, "teh") || tok_is(p, k, "hte"))
            k++; /* (typos are mended later) */
        if (tok_is(p, k, "file"))
            k++;
        bool who = false;
        for (size_t j = 0; j < i; j++)
            who |= tok_is(p, j, "who") || tok_is(p, j, "when");
        if (who && k < p->n && p->t[k].kind == T_PATH && strchr(p->t[k].s, '.') &&
            p->t[k].s[strlen(p->t[k].s) - 1] != '/' && k + 1 >= p->n)
            snprintf(p->t[i].s, TOK_LEN, "created");
    }
    /* "after 0.33.0 and before 1.0.0": between the two */
    for (size_t i = 0; i + 4 < p->n; i++)
        if ((tok_is(p, i, "after") || tok_is(p, i, "since")) && !p->t[i + 1].used &&
            (tok_is(p, i + 2, "and") || tok_is(p, i + 2, "but")) &&
            (tok_is(p, i + 3, "before") || tok_is(p, i + 3, "until") ||
             tok_is(p, i + 3, "till")) &&
            !p->t[i + 4].used && strpbrk(p->t[i + 1].s, "0123456789") &&
            strpbrk(p->t[i + 4].s, "0123456789") && p->t[i + 1].kind != T_DATE &&
            p->t[i + 4].kind != T_DATE) {
            snprintf(p->t[i].s, TOK_LEN, "between");
            snprintf(p->t[i + 2].s, TOK_LEN, "and");
            drop(p, i + 3, i + 4);
            break;
        }
    /* "I'm writing release notes: who ...", "context: ...": what the asker is doing, said
       before a colon, is not the question */
    static const char *const SELF[] = {"i'm", "im", "i", "we're", "we", "i've", "we've",
                                       "context", "background", "fyi", "i'll", "we'll",
                                       "i'd", "we'd", "you", "you're", "youre", NULL};
    if (tok_in(p, 0, SELF))
        for (size_t k = 0; k + 1 < p->n; k++) {
            if (p->t[k].colon) {
                drop(p, 0, k + 1);
                break;
            }
            /* "I'm curious, when ...", "I'm reviewing the spawn code - who ...": a clause
               of plain words before a comma or a dash, none of them one a question reads
               (no path, number, name or date; no word with a meaning here) */
            if (!p->t[k].comma)
                continue;
            bool plain = k + 1 <= 8;
            for (size_t j = 0; j <= k && plain; j++)
                plain = p->t[j].kind == T_WORD && !p->t[j].poss &&
                        (j == 0 || (!rt_canon_bit(p->t[j].s) && !rt_month_word(p->t[j].s) &&
                                    !rt_weekday_word(p->t[j].s) &&
                                    !in_list(p->t[j].s, RT_NUM_WORDS)));
            if (plain)
                drop(p, 0, k + 1);
            break;
        }
    /* "the CI workflow file .github/workflows/ci.yml", "our main config file app.toml":
       words that describe a path named right after them say nothing the path does not.
       Only words no reader takes (never a number, a name the history knows, a content
       word), at most three, between an article and the noun before the path. */
    static const char *const NOUN[] = {"file", "script", "module", "workflow", "config",
                                       "configuration", "page", "doc", "document", "folder",
                                       "directory", "dir", "package", "header", "source",
                                       "migration", "manifest", "stylesheet", "template",
                                       "test", "spec", "makefile", NULL};
    static const char *const ARTICLE[] = {"the", "a", "an", "our", "my", "this", "that",
                                          "its", "their", "your", NULL};
    for (size_t i = 2; i < p->n; i++) {
        if (p->t[i].kind != T_PATH || !tok_in(p, i - 1, NOUN))
            continue;
        size_t j = i - 1;
        while (j > 0 && i - 1 - j < 3 && p->t[j - 1].kind == T_WORD && !p->t[j - 1].used &&
               !p->t[j - 1].poss && !tok_in(p, j - 1, ARTICLE) &&
               !rt_canon_bit(p->t[j - 1].s) && !in_list(p->t[j - 1].s, RT_STOP) &&
               !rt_person_at(p, j - 1, (char[RT_STR]){0}, &(size_t){0}))
            j--;
        if (j == i - 1 || j == 0 || !tok_in(p, j - 1, ARTICLE))
            continue;
        drop(p, j, i);
        i = j;
    }
    /* the project said by its name: "commits to redis", "how many merges does libevent
       have", "the redis repo": the repository itself, and the name goes */
    if (p->o && p->o->project && p->o->project[0]) {
        static const char *const BEFORE[] = {"to", "in", "of", "does", "for", "the", "into",
                                             "on", "across", "did", "has", "about", NULL};
        static const char *const AFTER[] = {"repo", "repository", "project", "codebase",
                                            "have", "has", "had", "history", "source", NULL};
        for (size_t i = 0; i < p->n; i++) {
            if (p->t[i].kind != T_WORD || p->t[i].used || !is_project(p->o->project, p->t[i].s))
                continue;
            /* "tmux commits", "tmux's contributors": the project's, as a noun's modifier */
            bool noun = i + 1 < p->n && p->t[i + 1].kind == T_WORD &&
                        (rt_canon_bit(p->t[i + 1].s) & (RW_COMMITS | RW_AUTHORS | RW_FILES));
            /* "since tmux 3.5a": the project's release */
            bool release = i + 1 < p->n && !p->t[i].poss &&
                           version_digits(p->t[i + 1].s + (p->t[i + 1].s[0] == 'v'));
            bool place = (i > 0 && tok_in(p, i - 1, BEFORE)) || tok_in(p, i + 1, AFTER) ||
                         p->t[i].poss || noun || release;
            /* the project's name is the project even when an author's name begins with it
               ("tmux update bot"): only that whole name, or "by tmux", is the person */
            size_t plen = 0;
            bool person = rt_person_at(p, i, (char[RT_STR]){0}, &plen);
            if (!place || (person && (plen > 1 || (i > 0 && tok_is(p, i - 1, "by")))))
                continue;
            size_t to = i + 1;
            if (tok_is(p, to, "repo") || tok_is(p, to, "repository") ||
                tok_is(p, to, "project") || tok_is(p, to, "codebase"))
                to++;
            drop(p, i, to);
            i--;
        }
    }
    /* "for a churn report I need ...", "for our standup, ...": what the answer is for */
    static const char *const FORWHAT[] = {"report", "review", "standup", "retro", "dashboard",
                                          "presentation", "meeting", "audit", "postmortem",
                                          "writeup", "newsletter", "changelog", NULL};
    if (tok_is(p, 0, "for") && (tok_in(p, 1, ARTICLE) || tok_is(p, 1, "our")))
        for (size_t k = 2; k < 5 && k < p->n; k++)
            if (tok_in(p, k, FORWHAT)) {
                drop(p, 0, k + 1);
                break;
            }
    /* "back in 2009", "way back in 2010": the year */
    for (size_t i = 0; i + 1 < p->n; i++)
        if (tok_is(p, i, "back") && tok_is(p, i + 1, "in")) {
            size_t from = i > 0 && tok_is(p, i - 1, "way") ? i - 1 : i;
            drop(p, from, i + 1);
            break;
        }
    /* "the test/ directory", "docs/ folder", "the linux/ backend": the path says it is a
       directory, and what part of the project it is */
    static const char *const PART[] = {"directory", "folder", "dir", "tree", "subtree",
                                       "backend", "module", "subsystem", "component", "area",
                                       "package", "layer", "port", NULL};
    for (size_t i = 0; i + 1 < p->n; i++) {
        size_t l = strlen(p->t[i].s);
        if (p->t[i].kind == T_PATH && l && p->t[i].s[l - 1] == '/' && tok_in(p, i + 1, PART))
            drop(p, i + 1, i + 2);
    }
    /* "if we ignore merge commits", "if you exclude bots": the condition is the exclusion */
    static const char *const IFWHO[] = {"we", "you", "i", NULL};
    static const char *const LEAVE[] = {"ignore", "exclude", "skip", "drop", "omit", NULL};
    for (size_t i = 0; i + 2 < p->n; i++)
        if (tok_is(p, i, "if") && tok_in(p, i + 1, IFWHO) && tok_in(p, i + 2, LEAVE)) {
            drop(p, i, i + 2);
            break;
        }
    /* "the team", "our team's commits", "which team member": the project's people, as
       "we" is; "alice's team" is a group the history does not know, and is left */
    static const char *const OURS[] = {"the", "our", "my", "whole", "entire", NULL};
    for (size_t i = 0; i < p->n; i++) {
        bool team = tok_is(p, i, "team") || (p->t[i].kind == T_WORD && p->t[i].poss &&
                                             !strcmp(p->t[i].s, "team"));
        if (team && ((i > 0 && tok_in(p, i - 1, OURS)) || tok_is(p, i + 1, "member") ||
                     tok_is(p, i + 1, "members"))) {
            drop(p, i, i + 1);
            i--;
        }
    }
    /* "over the whole history", "in the entire history", "across all history": no window */
    for (size_t i = 0; i + 2 < p->n; i++) {
        if (!(tok_is(p, i, "over") || tok_is(p, i, "in") || tok_is(p, i, "across") ||
              tok_is(p, i, "through") || tok_is(p, i, "throughout")))
            continue;
        size_t k = i + 1;
        if (tok_is(p, k, "the"))
            k++;
        if (tok_is(p, k, "whole") || tok_is(p, k, "entire") || tok_is(p, k, "full") ||
            tok_is(p, k, "all"))
            k++;
        else
            continue;
        if (tok_is(p, k, "history") || tok_is(p, k, "project's")) {
            size_t e = k + 1;
            /* "... of the project", "of the repo" */
            if (tok_is(p, e, "of") && tok_is(p, e + 1, "the") &&
                (tok_is(p, e + 2, "project") || tok_is(p, e + 2, "repo") ||
                 tok_is(p, e + 2, "repository") || tok_is(p, e + 2, "codebase")))
                e += 3;
            drop(p, i, e);
            break;
        }
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

/* ---- issue references and reverts: message terms with a shape ---- */

static void set_grep_re(parser *p, const char *said, const char *re)
{
    if (p->q->grep[0])
        p->bad = true;
    snprintf(p->q->grep, RT_STR, "%s", said);
    snprintf(p->q->grep_re, RT_STR, "%s", re);
}

/* A number of 1..7 digits at token i, with or without a leading '#'; 0 when none. */
static long issue_number(const parser *p, size_t i)
{
    if (i >= p->n || p->t[i].used)
        return 0;
    const char *s = p->t[i].s;
    if (*s == '#')
        s++;
    size_t n = strspn(s, "0123456789");
    if (!n || n > 7 || s[n])
        return 0;
    return strtol(s, NULL, 10);
}

void rt_parse_issues(parser *p)
{
    static const char *const NOUN[] = {"issue", "issues", "bug", "ticket", "pr", "pull", NULL};
    static const char *const MARK[] = {"referencing", "references", "reference", "mentioning",
                                       "mention", "mentions", "about", "for", "fixing", "fixes",
                                       "fix", "closing", "closes", "close", "citing", NULL};
    for (size_t i = 0; i < p->n; i++) {
        size_t from = i, to = i;
        long num = 0;
        if (tok_in(p, i, NOUN)) {
            to = i + 1;
            if (tok_is(p, i, "pull") && tok_is(p, to, "request"))
                to++;
            if (tok_is(p, to, "number") || tok_is(p, to, "no"))
                to++;
            num = issue_number(p, to);
            to++;
        } else if (p->t[i].kind == T_WORD && p->t[i].s[0] == '#') {
            num = issue_number(p, i);
            to = i + 1;
            /* "who is #2 by commit count", "who's #3": a place in a ranking (parse_ordinal) */
            if (num >= 2 && num <= 10 && i > 0 &&
                (tok_is(p, i - 1, "is") || tok_is(p, i - 1, "who's") ||
                 tok_is(p, i - 1, "whos")) &&
                (i + 1 == p->n || tok_is(p, i + 1, "by") || tok_is(p, i + 1, "in") ||
                 tok_is(p, i + 1, "on")))
                continue;
        }
        if (num <= 0)
            continue;
        if (from > 0 && tok_in(p, from - 1, MARK))
            from--;
        /* "related to issue 305" */
        else if (from > 1 && tok_is(p, from - 1, "to") && tok_is(p, from - 2, "related"))
            from -= 2;
        char said[32], re[40];
        snprintf(said, sizeof said, "#%ld", num);
        snprintf(re, sizeof re, "#%ld\\b", num);
        set_grep_re(p, said, re);
        use(p, from, to);
    }
    /* "reverts", "revert commits", "reverted commits": commits whose message opens with
       git's "Revert" */
    for (size_t i = 0; i < p->n; i++) {
        if (!tok_is(p, i, "reverts") && !((tok_is(p, i, "revert") || tok_is(p, i, "reverted")) &&
                                          (tok_is(p, i + 1, "commits") ||
                                           tok_is(p, i + 1, "commit"))))
            continue;
        set_grep_re(p, "Revert", "^Revert\\b");
        use(p, i, i + 1);
        if (tok_is(p, i, "reverts"))
            p->q->words |= RW_COMMITS;
    }
    /* "which commit reverted 'feat: switch payments'", "was 'add cache' reverted": the
       commits whose subject is git's Revert "<that subject>" (a conventional prefix such
       as "feat: " may be left out of what is quoted) */
    static const char *const REVERTED[] = {"reverted", "revert", "reverts", "reverting",
                                           "undid", "undone", NULL};
    size_t quoted = p->n, verb = p->n;
    for (size_t i = 0; i < p->n; i++) {
        if (p->t[i].kind == T_QUOTED && !p->t[i].used && quoted == p->n)
            quoted = i;
        else if (tok_in(p, i, REVERTED) && verb == p->n)
            verb = i;
    }
    if (quoted < p->n && verb < p->n && !p->q->grep[0] && !p->q->grep_re[0]) {
        char re[RT_STR];
        size_t o = (size_t)snprintf(re, sizeof re, "^Revert \"([a-z]+(\\([^)]*\\))?!?: )?");
        for (const char *c = p->t[quoted].s; *c && o + 3 < sizeof re; c++) {
            if (strchr(".^$*+?()[]{}|\\/-#", *c))
                re[o++] = '\\';
            re[o++] = *c;
        }
        re[o] = '\0';
        if (o + 3 < sizeof re) {
            set_grep_re(p, p->t[quoted].s, re);
            use(p, quoted, quoted + 1);
            use(p, verb, verb + 1);
        }
    }
}

/* ---- kinds of files, folders named as such, branches and tags, hours ---- */

/* Replaces token i with a path token. */
static void make_path(parser *p, size_t i, const char *path)
{
    snprintf(p->t[i].s, TOK_LEN, "%s", path);
    p->t[i].kind = T_PATH;
    p->t[i].poss = false;
}

/* An hour said "5am", "10pm", "midnight", "noon", "17:00", "5 am": 0..23 and the tokens
 * it spans, else -1. */
static int hour_at(const parser *p, size_t i, size_t *len)
{
    if (i >= p->n || p->t[i].used)
        return -1;
    const char *s = p->t[i].s;
    *len = 1;
    if (!strcmp(s, "midnight"))
        return 0;
    if (!strcmp(s, "noon") || !strcmp(s, "midday"))
        return 12;
    size_t d = strspn(s, "0123456789");
    if (!d || d > 2)
        return -1;
    int h = atoi(s);
    const char *suf = s + d;
    if (!*suf && i + 1 < p->n && !p->t[i + 1].used &&
        (!strcmp(p->t[i + 1].s, "am") || !strcmp(p->t[i + 1].s, "pm"))) {
        suf = p->t[i + 1].s;
        *len = 2;
    }
    if (!strcmp(suf, "am") || !strcmp(suf, "a.m"))
        return h >= 1 && h <= 12 ? h % 12 : -1;
    if (!strcmp(suf, "pm") || !strcmp(suf, "p.m"))
        return h >= 1 && h <= 12 ? h % 12 + 12 : -1;
    if (suf[0] == ':' && !strcmp(suf + 1, "00") && h < 24)
        return h;
    return -1;
}

static uint32_t hour_span(int from, int to) /* [from, to), across midnight */
{
    uint32_t bits = 0;
    for (int h = from; h != to; h = (h + 1) % 24)
        bits |= 1u << h;
    return bits;
}

static void parse_hours(parser *p)
{
    for (size_t i = 0; i < p->n; i++) {
        size_t l1, l2;
        int a, b;
        uint32_t bits = 0;
        size_t from = i, to;
        if ((tok_is(p, i, "between") || tok_is(p, i, "from")) && (a = hour_at(p, i + 1, &l1)) >= 0 &&
            (tok_is(p, i + 1 + l1, "and") || tok_is(p, i + 1 + l1, "to")) &&
            (b = hour_at(p, i + 2 + l1, &l2)) >= 0 && a != b) {
            bits = hour_span(a, b);
            to = i + 2 + l1 + l2;
        } else if (tok_is(p, i, "after") && (a = hour_at(p, i + 1, &l1)) > 0) {
            /* "after 10pm": to the end of the day */
            bits = hour_span(a, 0);
            to = i + 1 + l1;
        } else if (tok_is(p, i, "before") && (a = hour_at(p, i + 1, &l1)) > 0) {
            /* "before 9am": from midnight */
            bits = hour_span(0, a);
            to = i + 1 + l1;
        } else {
            continue;
        }
        if (p->q->hours)
            p->bad = true;
        p->q->hours = bits;
        use(p, from, to);
        /* "late at night (after 10pm)": the words the hours explain */
        for (size_t k = 0; k < p->n; k++)
            if ((tok_is(p, k, "late") && tok_is(p, k + 1, "at") && tok_is(p, k + 2, "night")))
                use(p, k, k + 3);
            else if (tok_is(p, k, "at") && tok_is(p, k + 1, "night"))
                use(p, k, k + 2);
    }
}

/* A version number said: digits and dots, at least one dot, an optional leading "v". */
static bool version_word(const tok *t)
{
    if (t->used || (t->kind != T_WORD && t->kind != T_PATH && t->kind != T_OTHER))
        return false;
    const char *c = t->s + (t->s[0] == 'v' || t->s[0] == 'V');
    return version_digits(c);
}

/* The release a version names, through the repository (qr_router_opts.release). */
static bool release_near(const parser *p, const char *version, char *tag, char *prev,
                         char *before, char *next)
{
    char out[RT_STR];
    tag[0] = prev[0] = before[0] = next[0] = '\0';
    if (!p->o || !p->o->release || !p->o->release(p->o->author_ud, version, out, sizeof out))
        return false;
    /* "TAG PREV BEFORE NEXT", "-" where none */
    char *f[4] = {tag, prev, before, next};
    const char *c = out;
    for (int k = 0; k < 4 && *c; k++) {
        size_t l = strcspn(c, " ");
        if (!(l == 1 && *c == '-'))
            snprintf(f[k], RT_STR, "%.*s", (int)l, c);
        c += l + (c[l] == ' ');
    }
    return tag[0] != '\0';
}

static bool release_of(const parser *p, const char *version, char *tag, char *prev,
                       bool *unsure)
{
    *unsure = false;
    char before[RT_STR], next[RT_STR];
    if (!release_near(p, version, tag, prev, before, next))
        return false;
    /* the release before it is a patch of another series, merged in (v1.2.2 before
       v2.0.0): since it, or since v1.2.0? Both are read; not matched */
    long a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
    const char *pa = prev + (prev[0] == 'v' || prev[0] == 'V');
    const char *ta = tag + (tag[0] == 'v' || tag[0] == 'V');
    if (prev[0] && sscanf(pa, "%ld.%ld.%ld", &a[0], &a[1], &a[2]) >= 2 &&
        sscanf(ta, "%ld.%ld.%ld", &b[0], &b[1], &b[2]) >= 2 && a[2] > 0 &&
        (a[0] != b[0] || a[1] != b[1]))
        *unsure = true;
    return tag[0] != '\0';
}

/* "since the 2.0 release": from its tag on; "the 2.1 release", "in release 2.1", "version
 * 2.1": what it added since the release it grew from (PREV..TAG); "v2.0" where the tag is
 * v2.0.0 is read as that tag. A number no tag has stays, and nothing matches. */
static void parse_releases(parser *p)
{
    if (!p->o || !p->o->release)
        return;
    char tag[RT_STR], prev[RT_STR];
    bool unsure;
    for (size_t i = 0; i < p->n; i++) {
        if (!version_word(&p->t[i]))
            continue;
        bool rel_after = tok_is(p, i + 1, "release") || tok_is(p, i + 1, "version");
        bool rel_before = i > 0 && (tok_is(p, i - 1, "release") || tok_is(p, i - 1, "version"));
        if (!rel_after && !rel_before) {
            /* a tag written nearly whole: "v2.0" for v2.0.0 */
            if ((p->t[i].s[0] == 'v' || p->t[i].s[0] == 'V') &&
                release_of(p, p->t[i].s, tag, prev, &unsure) && strlen(tag) < TOK_LEN) {
                memcpy(p->t[i].s, tag, strlen(tag) + 1);
                p->t[i].kind = T_WORD;
                p->t[i].tag = true;
            }
            continue;
        }
        if (!release_of(p, p->t[i].s, tag, prev, &unsure))
            continue;
        size_t from = rel_before ? i - 1 : i, to = rel_after ? i + 2 : i + 1;
        if (from > 0 && tok_is(p, from - 1, "the"))
            from--;
        if (p->q->ref[0])
            p->bad = true;
        if (strlen(tag) + strlen(prev) + 8 > RT_STR)
            continue;
        if (from > 0 && (tok_is(p, from - 1, "since") || tok_is(p, from - 1, "after"))) {
            snprintf(p->q->ref, RT_STR, "%.120s..HEAD", tag);
            from--;
        } else if (from > 0 && (tok_is(p, from - 1, "before") || tok_is(p, from - 1, "until"))) {
            continue; /* up to it, or before it? not read */
        } else {
            if (unsure)
                continue;
            if (prev[0])
                snprintf(p->q->ref, RT_STR, "%.120s..%.120s", prev, tag);
            else
                snprintf(p->q->ref, RT_STR, "%s", tag);
            /* "in", "into", "to", "for", "of" the release; "went into" */
            if (from > 0 && (tok_is(p, from - 1, "in") || tok_is(p, from - 1, "into") ||
                             tok_is(p, from - 1, "to") || tok_is(p, from - 1, "for") ||
                             tok_is(p, from - 1, "of")))
                from--;
            if (from > 0 && (tok_is(p, from - 1, "went") || tok_is(p, from - 1, "go")))
                from--;
        }
        use(p, from, to);
    }
}

/* A release as a project names it: "jq-1.7.1", "v1.8", "1.8.0", "jq 1.7". Splits s into
 * its prefix ("jq", "" when none; a "v" is not one) and its number; false when s is not
 * a number of two or more parts, after an optional prefix of letters and a '-'. */
static bool release_name(const char *s, char *prefix, size_t cap, const char **num)
{
    const char *c = s;
    while (isalpha((unsigned char)*c))
        c++;
    prefix[0] = '\0';
    if (c > s && *c == '-' && isdigit((unsigned char)c[1])) {
        snprintf(prefix, cap, "%.*s", (int)(c - s), s);
        c++;
    } else {
        c = s + ((s[0] == 'v' || s[0] == 'V') && isdigit((unsigned char)s[1]));
    }
    *num = c;
    return version_digits(c);
}

/* The repository's tag a release name says (release_name), or false. A prefix said must
 * be the tag's own ("jq-1.7" is not the tag foo-1.7). */
static bool tag_of(const parser *p, const char *s, const char *said_prefix, char *tag,
                   char *prev)
{
    char prefix[TOK_LEN];
    const char *num;
    bool unsure;
    if (!release_name(s, prefix, sizeof prefix, &num))
        return false;
    if (said_prefix)
        snprintf(prefix, sizeof prefix, "%s", said_prefix);
    if ((!release_of(p, num, tag, prev, &unsure) && !release_of(p, s, tag, prev, &unsure)) ||
        strlen(tag) >= TOK_LEN)
        return false;
    size_t pl = strlen(prefix);
    /* the project's own name before a number its tags carry bare ("tmux 3.7": 3.7) */
    if (pl && said_prefix && p->o && p->o->project && is_project(p->o->project, prefix) &&
        isdigit((unsigned char)tag[0]))
        return true;
    if (pl && (strncasecmp(tag, prefix, pl) || tag[pl] != '-'))
        return false;
    return true;
}

/* Tags as projects name them, resolved against the repository's own tags (never guessed):
 * "jq-1.7.1", "jq 1.7", "v1.8.0" and, after a word that takes a revision ("since 1.8.0",
 * "between 1.7 and 1.8"), a bare number become that tag, which parse_refs then reads as
 * a revision; "jq-1.8.1..jq-1.8.2" is that range. A release named with a prefix or a "v"
 * that no tag has is not read (the question is not matched). */
/* A yes/no question whether a release exists: an auxiliary first ("is", "was", "does",
 * "did", "has") and a word of existence or of releases ("is there a 2.2.0 release", "does
 * 0.19.3 exist", "did v3 ever exist as a tag", "was 2.1.0 released", "has 3.0 been
 * tagged"). */
static bool asks_exists(const parser *p)
{
    static const char *const AUX[] = {"is", "was", "are", "were", "does", "did", "do", "has",
                                      "have", NULL};
    static const char *const EXIST[] = {"exist", "exists", "existed", "there", "released",
                                        "tagged", "tag", "release", "version", NULL};
    size_t first = 0;
    while (first < p->n && p->t[first].used)
        first++;
    if (!tok_in(p, first, AUX))
        return false;
    for (size_t i = first + 1; i < p->n; i++)
        if (tok_in(p, i, EXIST))
            return true;
    return false;
}

/* Whether the question names releases or existence in words ("tag", "release", "exist"). */
static bool says_release(const parser *p)
{
    static const char *const W[] = {"tag", "tags", "release", "releases", "version", "tagged",
                                    "released", "exist", "exists", "existed", NULL};
    for (size_t i = 0; i < p->n; i++)
        if (tok_in(p, i, W))
            return true;
    return false;
}

static void parse_tags(parser *p)
{
    if (!p->o || (!p->o->release && !p->o->tag))
        return;
    static const char *const TAKES_REF[] = {"since", "after", "between", "from", "and", "to",
                                            "until", "in", "at", "of", "before", "till",
                                            "through", NULL};
    char tag[RT_STR], tag2[RT_STR], prev[RT_STR];
    for (size_t i = 0; i < p->n; i++) {
        tok *t = &p->t[i];
        /* a tag parse_releases already resolved ("v2.0" for v2.0.0) is read again only
           for "contributed to v2.0.0" below */
        if (t->used || t->kind == T_QUOTED || t->kind == T_EMAIL || t->kind == T_DATE)
            continue;
        /* a tag written whole, whatever its scheme ("release-2.1.12-stable", "REL_9_6"),
           or a range of two ("release-2.1.11-stable..release-2.1.12-stable") */
        /* a tag without digits ("prod-freeze", "stable") only written with '-' or '_', or
           after a word that takes a ref ("since stable") */
        bool tagish = strpbrk(t->s, "0123456789") || strpbrk(t->s, "-_") ||
                      (i > 0 && t->kind == T_WORD && (tok_is(p, i - 1, "since") ||
                                                      tok_is(p, i - 1, "after")));
        if (p->o->tag && !t->tag && tagish) {
            const char *rng = strstr(t->s, "..");
            if (rng && rng > t->s && rng[2] && rng[2] != '.') {
                char a[TOK_LEN];
                snprintf(a, sizeof a, "%.*s", (int)(rng - t->s), t->s);
                /* either side may be HEAD ("release-2.2.1-alpha..HEAD") */
                bool head_a = !strcasecmp(a, "head"), head_b = !strcasecmp(rng + 2, "head");
                if (head_a)
                    snprintf(tag, sizeof tag, "HEAD");
                if (head_b)
                    snprintf(tag2, sizeof tag2, "HEAD");
                if (!(head_a && head_b) &&
                    (head_a || p->o->tag(p->o->author_ud, a, tag, sizeof tag)) &&
                    (head_b || p->o->tag(p->o->author_ud, rng + 2, tag2, sizeof tag2))) {
                    if (p->q->ref[0])
                        p->bad = true;
                    snprintf(p->q->ref, RT_STR, "%.120s..%.120s", tag, tag2);
                    use(p, i, i + 1);
                    continue;
                }
            } else if (p->o->tag(p->o->author_ud, t->s, tag, sizeof tag) &&
                       strlen(tag) < TOK_LEN) {
                memcpy(t->s, tag, strlen(tag) + 1);
                t->kind = T_WORD;
                t->tag = true;
                t->poss = false;
                continue;
            }
        }
        /* "jq-1.8.1..jq-1.8.2": a range of two tags */
        const char *dd = strstr(t->s, "..");
        if (dd && dd > t->s && dd[2] && dd[2] != '.') {
            char a[TOK_LEN];
            snprintf(a, sizeof a, "%.*s", (int)(dd - t->s), t->s);
            if (tag_of(p, a, NULL, tag, prev) && tag_of(p, dd + 2, NULL, tag2, prev)) {
                if (p->q->ref[0])
                    p->bad = true;
                snprintf(p->q->ref, RT_STR, "%.120s..%.120s", tag, tag2);
                use(p, i, i + 1);
            }
            continue;
        }
        char prefix[TOK_LEN];
        const char *num;
        if (!release_name(t->s, prefix, sizeof prefix, &num))
            continue;
        /* "jq 1.7": the project's name before the number */
        bool named = i > 0 && !p->t[i - 1].used && p->t[i - 1].kind == T_WORD && !prefix[0] &&
                     num == t->s && !in_list(p->t[i - 1].s, RT_STOP) &&
                     !in_list(p->t[i - 1].s, TAKES_REF) &&
                     tag_of(p, t->s, p->t[i - 1].s, tag, prev);
        bool marked = prefix[0] || num != t->s; /* "jq-1.7", "v1.7" */
        bool placed = i > 0 && (in_list(p->t[i - 1].s, TAKES_REF) ||
                                (named && i > 1 && in_list(p->t[i - 2].s, TAKES_REF)));
        /* "is there a tag called 3.8": a name, whether or not a tag has it */
        placed |= i >= 2 && (tok_is(p, i - 1, "called") || tok_is(p, i - 1, "named")) &&
                  (tok_is(p, i - 2, "tag") || tok_is(p, i - 2, "release") ||
                   tok_is(p, i - 2, "version"));
        /* "did 0.19.3 ever exist as a tag": a yes/no question about a release */
        placed |= asks_exists(p) && says_release(p);
        if (!named && !marked && !placed)
            continue;
        if (!named && !tag_of(p, t->s, NULL, tag, prev)) {
            /* "is there a tag called v3.0.0", "does a release named 9.9 exist": the
               question is whether it exists, and the answer no */
            bool exist_q = asks_exists(p) && (marked || says_release(p));
            if (((i >= 2 && (tok_is(p, i - 1, "called") || tok_is(p, i - 1, "named")) &&
                  (tok_is(p, i - 2, "tag") || tok_is(p, i - 2, "release") ||
                   tok_is(p, i - 2, "version"))) ||
                 exist_q) &&
                !p->q->commit[0] && strlen(t->s) < RT_STR) {
                if (exist_q && !(i >= 2 && (tok_is(p, i - 1, "called") ||
                                            tok_is(p, i - 1, "named")))) {
                    /* "is there a v3.0.0 release": the release words are read below */
                    p->q->tags = true;
                    p->q->tag_absent = true;
                    p->q->tag_exists = true;
                    snprintf(p->q->commit, RT_STR, "%s", t->s);
                    use(p, i, i + 1);
                    continue;
                }
                p->q->tags = true;
                p->q->tag_absent = true;
                snprintf(p->q->commit, RT_STR, "%s", t->s);
                use(p, i - 2, i + 1);
                continue;
            }
            if (marked && !t->tag) {
                /* a release this repository has no tag of: not guessed, the nearest named */
                p->bad = true;
                char near[RT_STR] = "";
                if (p->o->why && p->o->why_cap && p->o->release &&
                    !p->o->release(p->o->author_ud, num, near, sizeof near) && near[0] == '~')
                    snprintf(p->o->why, p->o->why_cap,
                             "'%s' names no tag of this repository (the nearest release is %s)",
                             t->s, near + 1);
            }
            continue;
        }
        size_t at = i;
        if (named) {
            /* the name's token becomes the tag, right after "since", "between" */
            use(p, i, i + 1);
            at = i - 1;
            t = &p->t[at];
        }
        /* "contributed to jq 1.8.0", "the changes for jq-1.7": what the release added
           since the one it grew from (as "the 2.1 release"); not "from A to B", "up to" */
        if (at > 0 && (tok_is(p, at - 1, "to") || tok_is(p, at - 1, "for")) &&
            !(at > 1 && (p->t[at - 2].tag || tok_is(p, at - 2, "up") ||
                         p->t[at - 2].kind != T_WORD || !isalpha((unsigned char)p->t[at - 2].s[0]) ||
                         strchr(p->t[at - 2].s, '.')))) {
            if (p->q->ref[0])
                p->bad = true;
            if (prev[0])
                snprintf(p->q->ref, RT_STR, "%.120s..%.120s", prev, tag);
            else
                snprintf(p->q->ref, RT_STR, "%s", tag);
            use(p, at - 1, at + 1);
            continue;
        }
        memcpy(t->s, tag, strlen(tag) + 1); /* shorter than TOK_LEN (tag_of) */
        t->kind = T_WORD;
        t->tag = true;
        t->poss = false;
    }
    /* "what changed in 3.4", "what's new in 3.6a", "which files went into 3.5": what the
       release added since the one it grew from, as "in release 3.4" (not "commits in
       v1.2.0", everything the tag holds, which the refs read) */
    static const char *const CHANGE[] = {"changed", "change", "changes", "new", "added",
                                         "went", "landed", "shipped", "introduced", "fixed",
                                         "fixes", "changelog", "different", "deleted",
                                         "removed", "created", "dropped", NULL};
    /* "who contributed to 3.6", "the authors of 3.6", "commits for 3.6" */
    static const char *const GAVE[] = {"contributed", "contribute", "contributors",
                                       "contributions", "worked", "authors", "committers",
                                       "people", NULL};
    bool change = false, gave = false;
    for (size_t i = 0; i < p->n; i++) {
        change |= p->t[i].kind == T_WORD && !p->t[i].used && tok_in(p, i, CHANGE);
        gave |= p->t[i].kind == T_WORD && !p->t[i].used && tok_in(p, i, GAVE);
    }
    for (size_t i = 1; (change || gave) && i < p->n; i++) {
        tok *t = &p->t[i];
        /* the change word right before "in" ("changed in", "new in"); "went into v1.0.0"
           and "commits in v1.2.0" stay everything the tag holds (the refs read them) */
        bool in = tok_is(p, i - 1, "in") && i > 1 && p->t[i - 2].kind == T_WORD &&
                  in_list(p->t[i - 2].s, CHANGE) && strcmp(p->t[i - 2].s, "went");
        bool to = tok_is(p, i - 1, "to") || tok_is(p, i - 1, "for") || tok_is(p, i - 1, "of") ||
                  tok_is(p, i - 1, "on");
        if (t->used || !t->tag || !((in && (change || gave)) || (to && gave)) ||
            (to && i > 1 && (tok_is(p, i - 2, "up") || p->t[i - 2].tag)) ||
            !tag_of(p, t->s, NULL, tag, prev) || !prev[0] || strcmp(tag, t->s))
            continue;
        if (p->q->ref[0])
            p->bad = true;
        snprintf(p->q->ref, RT_STR, "%.120s..%.120s", prev, tag);
        use(p, i - 1, i + 1);
        /* "what's new in 3.5": what changed in it */
        if (i > 1 && (tok_is(p, i - 2, "new") || tok_is(p, i - 2, "different"))) {
            use(p, i - 2, i - 1);
            p->q->words |= RW_CHANGE;
        }
    }
}

/* A file's renames: "what was x.py called before (it was renamed)", "the old name of
 * x.py", "what did x.py use to be called", "who renamed x.py", "when was x.py renamed",
 * "x.py's original name" (the oldest). The phrase is taken; the file is a path reader's. */
static void parse_renames(parser *p)
{
    static const char *const OLD[] = {"old", "previous", "former", "earlier", "prior",
                                      "original", "first", NULL};
    static const char *const NAMED[] = {"called", "named", NULL};
    static const char *const ADV[] = {"before", "originally", "previously", "formerly",
                                      "initially", "first", NULL};
    for (size_t i = 0; i < p->n; i++) {
        size_t from = i, to = 0;
        int kind = 1;
        if (tok_in(p, i, OLD) && (tok_is(p, i + 1, "name") || tok_is(p, i + 1, "names") ||
                                  tok_is(p, i + 1, "path") || tok_is(p, i + 1, "filename"))) {
            kind = tok_is(p, i, "original") || tok_is(p, i, "first") ? 2 : 1;
            to = i + 2;
        } else if (tok_in(p, i, NAMED) && tok_in(p, i + 1, ADV)) {
            kind = tok_is(p, i + 1, "originally") || tok_is(p, i + 1, "initially") ||
                           tok_is(p, i + 1, "first")
                       ? 2
                       : 1;
            to = i + 2;
        } else if (tok_in(p, i, ADV) && tok_in(p, i + 1, NAMED)) {
            kind = tok_is(p, i, "before") || tok_is(p, i, "previously") ||
                           tok_is(p, i, "formerly")
                       ? 1
                       : 2;
            to = i + 2;
        } else if ((tok_is(p, i, "use") || tok_is(p, i, "used")) && tok_is(p, i + 1, "to") &&
                   tok_is(p, i + 2, "be") && tok_in(p, i + 3, NAMED)) {
            to = i + 4;
        } else if (tok_is(p, i, "renamed") || tok_is(p, i, "rename") ||
                   tok_is(p, i, "renaming") || tok_is(p, i, "moved")) {
            to = i + 1;
            if (tok_is(p, to, "from"))
                to++;
            /* "renamed src/redis.c to src/server.c", "the rename of a.c into b.c": the new
               name is the file asked about, the old one says which rename */
            size_t a = to;
            if (tok_is(p, a, "of"))
                a++;
            if (a + 2 < p->n && p->t[a].kind == T_PATH &&
                (tok_is(p, a + 1, "to") || tok_is(p, a + 1, "into") ||
                 tok_is(p, a + 1, "as")) &&
                p->t[a + 2].kind == T_PATH && !p->q->rename_from[0]) {
                snprintf(p->q->rename_from, RT_STR, "%s", p->t[a].s);
                use(p, from, a + 2);
                p->q->renamed = 1;
                i = a + 1;
                continue;
            }
            /* "when was redis.c renamed to server.c" */
            size_t k = i;
            while (k > 0 && (tok_is(p, k - 1, "was") || tok_is(p, k - 1, "got") ||
                             tok_is(p, k - 1, "been") || tok_is(p, k - 1, "being")))
                k--;
            if (k > 0 && p->t[k - 1].kind == T_PATH && !p->t[k - 1].used &&
                i + 2 < p->n && (tok_is(p, i + 1, "to") || tok_is(p, i + 1, "into") ||
                                 tok_is(p, i + 1, "as")) &&
                p->t[i + 2].kind == T_PATH && !p->q->rename_from[0]) {
                snprintf(p->q->rename_from, RT_STR, "%s", p->t[k - 1].s);
                use(p, k - 1, i + 2);
                p->q->renamed = 1;
                i = i + 1;
                continue;
            }
            if (tok_is(p, i, "moved")) /* "moved" alone is a change, not a rename */
                to = 0;
        }
        if (!to)
            continue;
        /* "... before it was renamed", "before the rename" */
        if (tok_is(p, to, "before") || tok_is(p, to - 1, "before")) {
            size_t k = tok_is(p, to, "before") ? to + 1 : to;
            while (tok_is(p, k, "it") || tok_is(p, k, "was") || tok_is(p, k, "the") ||
                   tok_is(p, k, "its") || tok_is(p, k, "being") || tok_is(p, k, "got"))
                k++;
            if (tok_is(p, k, "renamed") || tok_is(p, k, "rename") || tok_is(p, k, "renaming") ||
                tok_is(p, k, "moved"))
                to = k + 1;
        }
        if (p->q->renamed) {
            p->bad = true;
            return;
        }
        p->q->renamed = kind;
        use(p, from, to);
        i = to - 1;
    }
}

/* "how many tags start with curl-8", "tags beginning with v2.", "releases matching rc-*",
 * "tags 3.*": the tags whose names open with that text */
static void parse_tag_prefix(parser *p)
{
    static const char *const NOUN[] = {"tag", "tags", "release", "releases", NULL};
    static const char *const START[] = {"start", "starts", "starting", "begin", "begins",
                                        "beginning", "prefixed", NULL};
    /* "the 0.x releases", "1.x tags": a version series said with an x, before a tag noun */
    for (size_t i = 0; i + 1 < p->n; i++) {
        const char *w = p->t[i].s;
        size_t wl = strlen(w), d = w[0] == 'v';
        if (p->t[i].used || (p->t[i].kind != T_WORD && p->t[i].kind != T_PATH) ||
            wl < 3 + d || strcmp(w + wl - 2, ".x") ||
            strspn(w + d, "0123456789.") != wl - d - 1 || !isdigit((unsigned char)w[d]) ||
            !tok_in(p, i + 1, NOUN))
            continue;
        p->q->tags = true;
        p->q->tags_prefix = true;
        p->q->tags_starts = true;
        snprintf(p->q->commit, RT_STR, "%.*s", (int)(wl - 1), w); /* "0." */
        use(p, i, i + 2);
        static const char *const MADE[] = {"tagged", "released", "cut", "published", "shipped",
                                           NULL};
        for (size_t k = 0; k < p->n; k++)
            if (tok_in(p, k, MADE))
                use(p, k, k + 1);
        return;
    }
    for (size_t i = 0; i + 1 < p->n; i++) {
        if (!tok_in(p, i, NOUN))
            continue;
        size_t k = i + 1;
        if (tok_is(p, k, "that") || tok_is(p, k, "which") || tok_is(p, k, "whose"))
            k++;
        if (tok_is(p, k, "name") || tok_is(p, k, "names"))
            k++;
        size_t x;
        if (tok_in(p, k, START) && tok_is(p, k + 1, "with"))
            x = k + 2;
        else if (tok_is(p, k, "matching") || tok_is(p, k, "like"))
            x = k + 1;
        else if (k == i + 1 && p->t[k].s[0] && p->t[k].s[strlen(p->t[k].s) - 1] == '*')
            x = k; /* "tags 3.*", git tag -l's way */
        else
            continue;
        if (x >= p->n || p->t[x].used || p->t[x].kind == T_EMAIL || p->t[x].kind == T_DATE)
            continue;
        char pre[RT_STR];
        snprintf(pre, sizeof pre, "%s", p->t[x].s);
        size_t pl = strlen(pre);
        if (pl && pre[pl - 1] == '*')
            pre[--pl] = '\0';
        if (!pl || strpbrk(pre, "*?[]\\"))
            continue;
        p->q->tags = true;
        p->q->tags_prefix = true;
        p->q->tags_starts = true;
        snprintf(p->q->commit, RT_STR, "%s", pre);
        use(p, i, x + 1);
        return;
    }
}

static void parse_tag_neighbour(parser *p);

/* "since the last release", "who contributed to the latest release", "files changed since
 * the previous tag", "between the last two releases": the newest release tag (or the one
 * before it) by date, when HEAD's history holds it (qr_router_opts.tag, ":latest"); the
 * words become that tag, read on as if it had been written. Only after a word that takes
 * a revision: "what's the latest release" asks for the tag itself. */
static void parse_recent_release(parser *p)
{
    if (!p->o || !p->o->tag)
        return;
    static const char *const PREP[] = {"since", "after", "from", "in", "into", "to", "for",
                                       "of", "before", "until", "till", "on", NULL};
    static const char *const NOUN[] = {"release", "tag", "version", NULL};
    for (size_t i = 0; i + 2 < p->n; i++) {
        if (!tok_in(p, i, PREP) && !tok_is(p, i, "between"))
            continue;
        size_t k = i + 1;
        if (tok_is(p, k, "the"))
            k++;
        /* between the last two releases: the one before the newest .. the newest */
        if (tok_is(p, i, "between")) {
            if ((tok_is(p, k, "last") || tok_is(p, k, "latest")) && k + 1 < p->n &&
                !p->t[k + 1].used && (!strcmp(p->t[k + 1].s, "two") || !strcmp(p->t[k + 1].s, "2")) &&
                (tok_is(p, k + 2, "releases") || tok_is(p, k + 2, "tags") ||
                 tok_is(p, k + 2, "versions"))) {
                char a[RT_STR], b[RT_STR];
                if (!p->o->tag(p->o->author_ud, ":previous", a, sizeof a) ||
                    !p->o->tag(p->o->author_ud, ":latest", b, sizeof b)) {
                    p->bad = true;
                    if (p->o->why && p->o->why_cap)
                        snprintf(p->o->why, p->o->why_cap,
                                 "the last two releases are not both in HEAD's history (or "
                                 "there are fewer): say which tags");
                    return;
                }
                if (p->q->ref[0])
                    p->bad = true;
                snprintf(p->q->ref, RT_STR, "%.120s..%.120s", a, b);
                use(p, i, k + 3);
            }
            continue;
        }
        const char *which = NULL;
        size_t end = k;
        if (tok_is(p, k, "most") && tok_is(p, k + 1, "recent"))
            which = ":latest", end = k + 2;
        else if (tok_is(p, k, "latest") || tok_is(p, k, "last") || tok_is(p, k, "newest") ||
                 tok_is(p, k, "current") || tok_is(p, k, "recent"))
            which = ":latest", end = k + 1;
        else if (tok_is(p, k, "previous") || tok_is(p, k, "prior") ||
                 tok_is(p, k, "penultimate"))
            which = ":previous", end = k + 1;
        if (!which || !tok_in(p, end, NOUN))
            continue;
        char tag[RT_STR];
        if (!p->o->tag(p->o->author_ud, which, tag, sizeof tag) || strlen(tag) >= TOK_LEN) {
            p->bad = true; /* none, or one HEAD's history lacks: which is meant? */
            if (p->o->why && p->o->why_cap)
                snprintf(p->o->why, p->o->why_cap,
                         "the %s release is not in HEAD's history (or there is none): say "
                         "which tag", which[1] == 'l' ? "newest" : "previous");
            return;
        }
        /* the words from "the" to the noun become the tag */
        tok *t = &p->t[i + 1];
        snprintf(t->s, TOK_LEN, "%s", tag);
        t->kind = T_WORD;
        t->tag = true;
        t->poss = false;
        use(p, i + 2, end + 1);
    }
}

void rt_parse_places(parser *p)
{
    parse_tag_prefix(p);
    parse_renames(p);
    parse_releases(p);
    parse_recent_release(p);
    parse_tags(p);
    parse_tag_neighbour(p);
    static const struct {
        const char *word, *glob;
    } KINDS[] = {{"header", "*.h"},   {"headers", "*.h"},      {"markdown", "*.md"},
                 {"python", "*.py"},  {"c", "*.c"},            {"rust", "*.rs"},
                 {"go", "*.go"},      {"javascript", "*.js"},  {"typescript", "*.ts"},
                 {"java", "*.java"},  {"yaml", "*.yml"},       {"json", "*.json"},
                 {"shell", "*.sh"},   {NULL, NULL}};
    static const char *const RANKING[] = {"most", "top", "hotspots", "which", "what", "ranked",
                                          "list", "churn", NULL};
    bool ranking = false;
    for (size_t i = 0; i < p->n; i++)
        if (tok_in(p, i, RANKING))
            ranking = true;
    for (size_t i = 0; i + 1 < p->n; i++) {
        /* "header files", "markdown files", "c files": a glob; "files" stays a word when
           the files themselves are asked for ("which header files changed most") */
        if (!tok_is(p, i + 1, "files") && !tok_is(p, i + 1, "file") && !tok_is(p, i, "headers"))
            continue;
        for (size_t k = 0; KINDS[k].word; k++)
            if (tok_is(p, i, KINDS[k].word)) {
                make_path(p, i, KINDS[k].glob);
                if (!ranking && (tok_is(p, i + 1, "files") || tok_is(p, i + 1, "file")))
                    p->t[i + 1].used = true;
                break;
            }
    }
    /* "the tests directory", "the src folder": that top-level folder */
    for (size_t i = 0; i + 1 < p->n; i++) {
        if (!(tok_is(p, i + 1, "directory") || tok_is(p, i + 1, "folder") ||
              tok_is(p, i + 1, "dir")) || p->t[i].used || p->t[i].kind != T_WORD ||
            p->t[i].poss || rt_canon_bit(p->t[i].s) || in_list(p->t[i].s, RT_STOP) ||
            in_list(p->t[i].s, RT_COMMON) || !strcmp(p->t[i].s, "top-level"))
            continue;
        bool ok = true;
        for (const char *c = p->t[i].s; *c; c++)
            if (!isalnum((unsigned char)*c) && !strchr("._-", *c))
                ok = false;
        if (!ok || p->t[i].s[0] == '.')
            continue;
        /* "not in the tests folder" is an exclusion, read by router_excl.c first */
        char dir[TOK_LEN];
        snprintf(dir, sizeof dir, "%s/", p->t[i].s);
        make_path(p, i, dir);
        p->t[i + 1].used = true;
    }
    /* "on main", "on the master branch", "on branch develop": that branch */
    static const char *const BRANCH[] = {"main", "master", "trunk", "develop", NULL};
    for (size_t i = 0; i + 1 < p->n; i++) {
        size_t j = i + 1;
        /* "merged into main", "the last merge into master" */
        if (!tok_is(p, i, "on") && !tok_is(p, i, "in") && !tok_is(p, i, "into"))
            continue;
        if (tok_is(p, j, "the"))
            j++;
        size_t name;
        if (tok_is(p, j, "branch") && j + 1 < p->n && !p->t[j + 1].used &&
            (p->t[j + 1].kind == T_WORD || p->t[j + 1].kind == T_PATH))
            name = j + 1;
        else if (tok_in(p, j, BRANCH) ||
                 (j < p->n && !p->t[j].used && j > i + 1 &&
                  (p->t[j].kind == T_WORD || p->t[j].kind == T_PATH) &&
                  tok_is(p, j + 1, "branch"))) /* "on the release/1.2 branch" */
            name = j;
        else
            continue;
        size_t end = name + 1;
        if (name == j && tok_is(p, end, "branch"))
            end++;
        if (p->q->ref[0])
            p->bad = true;
        snprintf(p->q->ref, RT_STR, "%s", p->t[name].s);
        use(p, i, end);
    }
    /* "went into v1.0.0", "commits in v1.2.0", "up to v2.0.0": everything the tag holds */
    for (size_t i = 0; i + 1 < p->n; i++) {
        size_t j = i + 1;
        if (tok_is(p, i, "up") && tok_is(p, j, "to"))
            j++;
        else if (!tok_is(p, i, "into") && !tok_is(p, i, "in"))
            continue;
        if (tok_is(p, j, "tag") || tok_is(p, j, "release"))
            j++;
        if (j >= p->n || p->t[j].used || p->t[j].kind != T_WORD ||
            !strcasecmp(p->t[j].s, "head") ||
            (!p->t[j].tag && (p->t[j].s[0] != 'v' || !isdigit((unsigned char)p->t[j].s[1]) ||
                              !strchr(p->t[j].s, '.'))))
            continue;
        /* a version tag, or one the repository names whole ("1.1", "3.6a") */
        bool ok = true;
        for (const char *c = p->t[j].s + 1; *c && !p->t[j].tag; c++)
            if (!isdigit((unsigned char)*c) && *c != '.')
                ok = false;
        if (!ok)
            continue;
        if (p->q->ref[0])
            p->bad = true;
        snprintf(p->q->ref, RT_STR, "%s", p->t[j].s);
        use(p, i, j + 1);
        if (i > 0 && (tok_is(p, i - 1, "went") || tok_is(p, i - 1, "are") ||
                      tok_is(p, i - 1, "go")))
            use(p, i - 1, i);
    }
    /* "the 'wal: follow-up for #214' commit", "commit \"Rename conn\"": by its subject */
    for (size_t i = 0; i < p->n; i++) {
        if (p->t[i].used || p->t[i].kind != T_QUOTED)
            continue;
        bool after = tok_is(p, i + 1, "commit");
        bool before = i > 0 && tok_is(p, i - 1, "commit");
        if (!after && !before)
            continue;
        if (p->q->subject[0])
            p->bad = true;
        snprintf(p->q->subject, RT_STR, "%s", p->t[i].s);
        size_t from = before ? i - 1 : i, to = after ? i + 2 : i + 1;
        if (from > 0 && tok_is(p, from - 1, "the"))
            from--;
        use(p, from, to);
    }
    parse_hours(p);
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
            int wd = rt_weekday_word(p->t[i].s);
            bits = wd ? 1u << wd : 0, to = i + 1;
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
    /* "who is #2 by commit count", "who's #3 this year", "who is 2nd": that place of the
       authors' ranking (by commits unless a key is said) */
    for (size_t i = 1; i < p->n; i++) {
        tok *t = &p->t[i];
        if (t->used || t->kind != T_WORD)
            continue;
        int v = 0;
        if (t->s[0] == '#' && t->s[1] >= '2' && t->s[1] <= '9' && !t->s[2])
            v = t->s[1] - '0';
        else
            v = ordinal_word(t);
        if (v < 2 || v > 10 || !(tok_is(p, i - 1, "is") || tok_is(p, i - 1, "who's") ||
                                 tok_is(p, i - 1, "whos")))
            continue;
        bool who = false;
        for (size_t k = 0; k < i; k++)
            who |= tok_is(p, k, "who") || tok_is(p, k, "who's") || tok_is(p, k, "whos");
        if (!who || (i + 1 < p->n && !p->t[i + 1].used && !tok_is(p, i + 1, "by") &&
                     !tok_is(p, i + 1, "in") && !tok_is(p, i + 1, "on")))
            continue;
        if (p->q->nth)
            p->bad = true;
        p->q->nth = v;
        p->q->words |= RW_MOST;
        use(p, i, i + 1);
    }
    for (size_t i = 0; i + 1 < p->n; i++) {
        int v = ordinal_word(&p->t[i]);
        if (v && (tok_is(p, i + 1, "commit") || tok_is(p, i + 1, "oldest") ||
                  tok_is(p, i + 1, "earliest"))) {
            /* "the fifth commit": the fifth oldest */
            if (p->q->nth)
                p->bad = true;
            p->q->nth = v;
            p->q->words |= RW_FIRST;
            use(p, i, i + 1);
            continue;
        }
        /* "the second most recent commit", "the 3rd latest commit", "second to last
           commit": that one of the newest */
        size_t k = i + 1;
        if (tok_is(p, k, "most") && tok_is(p, k + 1, "recent"))
            k += 2;
        else if (tok_is(p, k, "latest") || tok_is(p, k, "newest") ||
                 (tok_is(p, k, "to") && tok_is(p, k + 1, "last")))
            k += tok_is(p, k, "to") ? 2 : 1;
        if (v && k > i + 1 && (tok_is(p, k, "commit") || tok_is(p, k, "commits"))) {
            if (p->q->nth)
                p->bad = true;
            p->q->nth = v;
            p->q->words |= RW_RECENT;
            use(p, i, k);
            continue;
        }
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

/* "who merged the most pull requests", "how many PRs were merged": merge commits (a pull
 * request leaves one when it is merged); "pull requests" without "merged" (opened? closed?)
 * is left alone. */
static void parse_pull_requests(parser *p)
{
    size_t merged = p->n;
    for (size_t i = 0; i < p->n; i++)
        if (tok_is(p, i, "merged") || tok_is(p, i, "merges") || tok_is(p, i, "merging") ||
            tok_is(p, i, "merge"))
            merged = i;
    if (merged == p->n)
        return;
    for (size_t i = 0; i < p->n; i++) {
        size_t to = 0;
        if (tok_is(p, i, "pull") && (tok_is(p, i + 1, "requests") || tok_is(p, i + 1, "request")))
            to = i + 2;
        else if (tok_is(p, i, "prs") || tok_is(p, i, "pr") || tok_is(p, i, "mrs"))
            to = i + 1;
        if (!to)
            continue;
        if (p->q->merges && p->q->merges != RT_MERGES_ONLY)
            p->bad = true;
        p->q->merges = RT_MERGES_ONLY;
        use(p, i, to);
        use(p, merged, merged + 1);
        p->q->words |= RW_COMMITTED;
        return;
    }
}

/* "who hasn't committed since 2025", "which authors have not contributed this year",
 * "who stopped committing after june": the authors with no commit in the window. Any
 * other "not" is left for the rules, which match no question with one. */
static void parse_inactive(parser *p)
{
    static const char *const NEG1[] = {"hasn't", "haven't", "hasnt", "havent", "didn't",
                                       "didnt", NULL};
    static const char *const VERB[] = {"committed", "contributed", "commit", "contribute",
                                       "pushed", "push", NULL};
    for (size_t i = 0; i < p->n; i++) {
        size_t j;
        if (tok_in(p, i, NEG1))
            j = i + 1;
        else if ((tok_is(p, i, "has") || tok_is(p, i, "have") || tok_is(p, i, "did")) &&
                 tok_is(p, i + 1, "not"))
            j = i + 2;
        else if (tok_is(p, i, "stopped") || tok_is(p, i, "quit"))
            j = i + 1;
        else
            continue;
        if (tok_is(p, j, "been"))
            j++;
        if (!tok_in(p, j, VERB) && !tok_is(p, j, "committing") && !tok_is(p, j, "contributing"))
            continue;
        p->q->inactive = true;
        use(p, i, j);
        p->t[j].used = true;
        p->q->words |= RW_COMMITTED;
        /* "committed anything": the object says nothing more */
        if (tok_is(p, j + 1, "anything"))
            use(p, j + 1, j + 2);
        return;
    }
}

/* "how many lines were added to app/x.py", "total deletions by alice in 2025", "the
 * number of lines of code bob removed": a count cue, the lines noun and which lines
 * (added, deleted, or changed: both) make a line total. Without a direction word nothing
 * is taken ("how many lines does x.py have" is the file's size, not its history), and
 * "added and deleted" in one question is not read (two totals or one?). */
static void parse_line_totals(parser *p)
{
    static const char *const LINES[] = {"lines", "line", "loc", "sloc", NULL};
    static const char *const ADD[] = {"added", "add", "adds", "adding", "written", "wrote",
                                      "write", "writes", "inserted", "gained", NULL};
    static const char *const DEL[] = {"deleted", "delete", "deletes", "deleting", "removed",
                                      "remove", "removes", "lost", "dropped", NULL};
    static const char *const CHG[] = {"changed", "change", "changes", "modified", "touched",
                                      "churned", "edited", NULL};
    static const char *const CUE[] = {"number", "count", "amount", "sum", "total", NULL};
    for (size_t i = 0; i < p->n; i++) {
        int key = RT_SORT_NONE;
        bool noun = tok_in(p, i, LINES);
        if (tok_is(p, i, "additions") || tok_is(p, i, "insertions"))
            key = RT_SORT_ADDITIONS;
        else if (tok_is(p, i, "deletions"))
            key = RT_SORT_DELETIONS;
        else if (!noun)
            continue;
        /* the cue: "how many", "number of", "total", "the sum of", "total number of" */
        size_t from;
        if (i >= 2 && tok_is(p, i - 2, "how") && (tok_is(p, i - 1, "many") || tok_is(p, i - 1, "much")))
            from = i - 2;
        else if (i >= 2 && tok_in(p, i - 2, CUE) && tok_is(p, i - 1, "of"))
            from = i - 2;
        else if (i >= 1 && tok_is(p, i - 1, "total"))
            from = i - 1;
        else {
            /* "lines deleted in docs/", "lines added between v1 and v2": the noun first */
            bool first = true;
            for (size_t k = 0; k < i; k++)
                if (!p->t[k].used && !(p->t[k].kind == T_WORD && in_list(p->t[k].s, RT_STOP)))
                    first = false;
            if (!first)
                continue;
            from = i;
        }
        if (from >= 1 && tok_is(p, from - 1, "total"))
            from--;
        if (p->t[from].used || p->q->sort || p->q->line_total)
            continue;
        size_t end = i + 1;
        if (noun && tok_is(p, end, "of") && tok_is(p, end + 1, "code"))
            end += 2;
        size_t verb = 0;
        if (noun) {
            int said = 0;
            for (size_t k = end; k < p->n && k < end + 10; k++) {
                int d = tok_in(p, k, ADD) ? RT_SORT_ADDITIONS
                        : tok_in(p, k, DEL) ? RT_SORT_DELETIONS
                        : tok_in(p, k, CHG) ? RT_SORT_LINES
                                             : RT_SORT_NONE;
                if (!d || p->t[k].used)
                    continue;
                if (key && d != key)
                    said++;
                else if (!key)
                    key = d, verb = k, said++;
            }
            if (!key)
                continue;
            if (said > 1) {
                p->bad = true; /* "added and deleted", "added ... changed" */
                return;
            }
        }
        p->q->sort = key;
        p->q->line_total = true;
        use(p, from, end);
        if (verb)
            use(p, verb, verb + 1);
    }
}

/* Directories ranked: "which directory has seen the most commits", "the busiest folders
 * under src/", "which top-level directory ...", and a noun that is the singular of the
 * directory said ("which service under services/ has the most commits"). The noun becomes
 * the files a ranking reads, marked as directories. */
static void parse_dir_ranking(parser *p)
{
    static const char *const DIRS[] = {"directory", "directories", "folder", "folders", "dir",
                                       "dirs", "subdirectory", "subdirectories", "subdir",
                                       "subdirs", "subfolder", "subfolders", NULL};
    for (size_t i = 0; i < p->n; i++) {
        if (p->t[i].used || p->t[i].kind != T_WORD)
            continue;
        bool noun = tok_in(p, i, DIRS);
        if (!noun && p->t[i].kind == T_WORD && !p->t[i].poss) {
            /* "service" for services/: the directory's own name in the singular */
            for (size_t k = 0; k < p->n && !noun; k++) {
                const tok *d = &p->t[k];
                size_t dl = strlen(d->s), wl = strlen(p->t[i].s);
                if (d->used || d->kind != T_PATH || dl < 2 || d->s[dl - 1] != '/' ||
                    strchr(d->s, '*'))
                    continue;
                const char *last = d->s + dl - 1;
                while (last > d->s && last[-1] != '/')
                    last--;
                size_t ll = (size_t)(d->s + dl - 1 - last);
                noun = wl + 1 == ll && last[wl] == 's' && !strncmp(last, p->t[i].s, wl);
            }
        }
        if (!noun)
            continue;
        /* only in a ranking: "the tests directory" names a place (rt_parse_places) */
        bool ranking = false;
        for (size_t k = 0; k < p->n; k++)
            if (tok_is(p, k, "most") || tok_is(p, k, "top") || tok_is(p, k, "busiest") ||
                tok_is(p, k, "ranked") || tok_is(p, k, "active") || tok_is(p, k, "least") ||
                tok_is(p, k, "fewest") || tok_is(p, k, "hottest") || tok_is(p, k, "churn") ||
                tok_is(p, k, "rank") || tok_is(p, k, "ranking") || tok_is(p, k, "sort") ||
                tok_is(p, k, "sorted") || tok_is(p, k, "order") || tok_is(p, k, "ordered"))
                ranking = true;
        if (!ranking || p->q->by_dir)
            continue;
        p->q->by_dir = true;
        snprintf(p->t[i].s, TOK_LEN, "files");
        /* "top-level directory", "top level folders" */
        if (i > 0 && tok_is(p, i - 1, "top-level"))
            use(p, i - 1, i);
        else if (i > 1 && tok_is(p, i - 2, "top") && tok_is(p, i - 1, "level"))
            use(p, i - 2, i);
    }
    /* "busiest": most commits; "the most commits", "most commits": what directories are
       ranked by anyway */
    if (p->q->by_dir)
        for (size_t k = 0; k < p->n; k++) {
            if (tok_is(p, k, "busiest") || tok_is(p, k, "hottest"))
                snprintf(p->t[k].s, TOK_LEN, "most");
            /* "gets the most commits", "sees the most changes": has */
            if ((tok_is(p, k, "gets") || tok_is(p, k, "get") || tok_is(p, k, "got") ||
                 tok_is(p, k, "sees") || tok_is(p, k, "saw") || tok_is(p, k, "receives") ||
                 tok_is(p, k, "received")) &&
                (tok_is(p, k + 1, "most") || tok_is(p, k + 1, "the") || tok_is(p, k + 1, "fewest")))
                use(p, k, k + 1);
            if ((tok_is(p, k, "most") || tok_is(p, k, "fewest")) &&
                (tok_is(p, k + 1, "commits") || tok_is(p, k + 1, "changes")))
                use(p, k + 1, k + 2);
        }
}

/* "when did dana start contributing", "when did bob begin committing": the first commit */
static void parse_start(parser *p)
{
    static const char *const START[] = {"start", "started", "begin", "began", "starting",
                                        NULL};
    static const char *const DOING[] = {"contributing", "committing", "working", "to", NULL};
    for (size_t i = 0; i + 1 < p->n; i++) {
        if (!tok_in(p, i, START) || !tok_in(p, i + 1, DOING))
            continue;
        size_t to = i + 2;
        if (tok_is(p, i + 1, "to")) { /* "start to contribute" */
            if (!(tok_is(p, i + 2, "contribute") || tok_is(p, i + 2, "commit")))
                continue;
            to = i + 3;
        }
        snprintf(p->t[i].s, TOK_LEN, "first");
        snprintf(p->t[i + 1].s, TOK_LEN, "commit");
        use(p, i + 2, to);
        return;
    }
}

/* "which tag came before 3.5", "the release right after v2.0.0", "what was the previous
 * version to 3.7", "next release after 3.4": the release the named one grew from, or the
 * one that grew from it (as qr_git_release orders them: by version, on its line of
 * history), answered as that tag's row. */
static void parse_tag_neighbour(parser *p)
{
    static const char *const BEFORE[] = {"before", "preceding", "preceded", "prior",
                                         "previous", "predecessor", NULL};
    static const char *const AFTER[] = {"after", "following", "followed", "follows",
                                        "next", "succeeded", "successor", "subsequent", NULL};
    static const char *const GLUE[] = {"right", "just", "immediately", "directly", "came",
                                       "comes", "come", "to", "was", "is", "by", "the", "one",
                                       NULL};
    static const char *const NOUN[] = {"tag", "release", "version", NULL};
    /* "the release before the latest (one)": the latest release by name, as HEAD's history
       holds it */
    static const char *const LATEST[] = {"latest", "newest", "current", "last", NULL};
    for (size_t k = 2; k < p->n && p->o && p->o->tag; k++) {
        bool said_before = false, said_noun = false;
        for (size_t j = 0; j < k; j++) {
            said_before |= tok_in(p, j, BEFORE);
            said_noun |= tok_in(p, j, NOUN);
        }
        if (!tok_in(p, k, LATEST) || !said_before || !said_noun || !tok_is(p, k - 1, "the"))
            continue;
        char name[RT_STR];
        if (!p->o->tag(p->o->author_ud, ":latest", name, sizeof name) || strlen(name) >= TOK_LEN)
            break;
        snprintf(p->t[k].s, TOK_LEN, "%s", name);
        p->t[k].tag = true;
        if (tok_is(p, k + 1, "one") || tok_in(p, k + 1, NOUN))
            use(p, k + 1, k + 2);
        break;
    }
    size_t noun = p->n, tag = p->n;
    for (size_t i = 0; i < p->n; i++) {
        if (tok_in(p, i, NOUN) && noun == p->n)
            noun = i;
        else if (!p->t[i].used && p->t[i].tag && tag == p->n && noun < i)
            tag = i;
    }
    if (tag == p->n || noun == p->n)
        return;
    /* the relation said once, just before the noun ("the previous release") or between
       it and the tag ("the tag right before 3.7"), with nothing else between */
    int dir = 0;
    size_t from = noun;
    if (noun > 0 && (tok_in(p, noun - 1, BEFORE) || tok_in(p, noun - 1, AFTER)))
        from = noun - 1;
    for (size_t k = from; k < tag; k++) {
        int d = tok_in(p, k, BEFORE) ? -1 : tok_in(p, k, AFTER) ? 1 : 0;
        if (d && dir && d != dir)
            return; /* "the release after the one before": not this frame */
        if (d)
            dir = d;
        else if (k != noun && !tok_in(p, k, GLUE))
            return;
    }
    if (!dir)
        return;
    char name[RT_STR], prev[RT_STR], before[RT_STR], next[RT_STR];
    if (!release_near(p, p->t[tag].s, name, prev, before, next) || strcmp(name, p->t[tag].s))
        return;
    const char *want = dir < 0 ? before : next;
    if (!want[0]) {
        /* none (the first release, the last), or version and date disagree */
        p->bad = true;
        if (p->o->why && p->o->why_cap)
            snprintf(p->o->why, p->o->why_cap,
                     "no release is %s %s %s (%s)", dir < 0 ? "just before" : "just after",
                     name, "by both version and date",
                     (dir < 0 ? prev[0] : 1) ? "the tags' versions and dates disagree, or there is none"
                                             : "it is the first");
        return;
    }
    if (p->q->commit[0])
        p->bad = true;
    p->q->tags = true;
    p->q->commit_tag = true;
    snprintf(p->q->commit, RT_STR, "%s", want);
    use(p, from, tag + 1);
}

/* The tags as things asked about: "what's the latest release", "how many tags does the
 * repo have", "list the releases", "the first tag", "when was release-2.1 tagged". Not a
 * release named by number ("the 2.1 release": a range, parse_releases) nor a tag used as
 * a revision ("commits since v1.0"). */
static void parse_tag_questions(parser *p)
{
    static const char *const NOUN[] = {"tag", "tags", "release", "releases", "version",
                                       "versions", NULL};
    static const char *const VERB[] = {"tagged", "released", "cut", "published", "shipped",
                                       NULL};
    /* "which releases came out in 2026": were released */
    for (size_t i = 0; i + 1 < p->n; i++)
        if ((tok_is(p, i, "came") || tok_is(p, i, "come") || tok_is(p, i, "went")) &&
            tok_is(p, i + 1, "out")) {
            snprintf(p->t[i].s, TOK_LEN, "released");
            use(p, i + 1, i + 2);
        }
    /* the words of a yes/no existence question, once its release is known */
    static const char *const EXIST_WORDS[] = {"exist", "exists", "existed", "there", "ever",
                                              "as", "a", "an", "any", "tag", "release",
                                              "version", "tagged", "released", "been",
                                              "called", "named", "is", "was", "does", "did",
                                              "do", "has", "have", "are", "were", "we", "it",
                                              "this", "repo", "repository", "project", NULL};
    if (p->q->tag_exists && p->q->tag_absent) {
        for (size_t i = 0; i < p->n; i++)
            if (tok_in(p, i, EXIST_WORDS))
                use(p, i, i + 1);
        return;
    }
    if (asks_exists(p)) {
        /* the release: a tag word, the one commit a tag named, or the range "the 2.2.0
           release" read as (its tag ends it); nothing else asked but whether it exists */
        size_t at = p->n;
        for (size_t i = 0; i < p->n && at == p->n; i++)
            if (!p->t[i].used && p->t[i].tag)
                at = i;
        bool only = true;
        for (size_t i = 0; i < p->n && only; i++)
            if (i != at && !p->t[i].used && !tok_in(p, i, EXIST_WORDS) && !tok_in(p, i, RT_STOP))
                only = false;
        char name[RT_STR] = "";
        const char *dots = strstr(p->q->ref, "..");
        if (at < p->n && !p->q->commit[0] && !p->q->ref[0])
            snprintf(name, sizeof name, "%s", p->t[at].s);
        else if (at == p->n && p->q->commit[0] && p->q->commit_tag && !p->q->ref[0])
            snprintf(name, sizeof name, "%s", p->q->commit);
        else if (at == p->n && !p->q->commit[0] && dots && dots[2] && !strstr(dots + 2, ".."))
            snprintf(name, sizeof name, "%s", dots + 2);
        /* "is 2.2.0 the latest release": a yes/no this reading cannot say; declined
           rather than answered with the release's row */
        static const char *const WHICH[] = {"latest", "newest", "last", "oldest", "first",
                                            "current", "recent", "most", "final", NULL};
        for (size_t i = 0; i < p->n && name[0] && !only; i++)
            if (tok_in(p, i, WHICH))
                p->bad = true;
        if (only && name[0] && !p->q->since[0] && !p->q->until[0] && !p->q->author[0] &&
            !p->q->path_kind) {
            p->q->tags = true;
            p->q->tag_exists = true;
            p->q->ref[0] = '\0';
            p->q->commit_tag = false;
            snprintf(p->q->commit, RT_STR, "%s", name);
            if (at < p->n)
                use(p, at, at + 1);
            for (size_t i = 0; i < p->n; i++)
                if (tok_in(p, i, EXIST_WORDS))
                    use(p, i, i + 1);
            return;
        }
    }
    size_t noun = p->n, tag = p->n, verb = p->n;
    for (size_t i = 0; i < p->n; i++) {
        if (tok_in(p, i, NOUN) && noun == p->n)
            noun = i;
        else if (!p->t[i].used && p->t[i].tag && tag == p->n)
            tag = i;
        else if (tok_in(p, i, VERB) && verb == p->n)
            verb = i;
    }
    if (p->q->commit[0] && p->q->commit_tag && verb < p->n && noun == p->n) {
        /* the tag was read as the one commit named ("when was v1.0.0 tagged"); "which
           commit is tagged v1.50.0" asks for that commit itself */
        bool the_commit = false;
        for (size_t i = 0; i < verb; i++)
            the_commit |= tok_is(p, i, "commit") && i > 0 &&
                          (tok_is(p, i - 1, "which") || tok_is(p, i - 1, "what"));
        if (!the_commit)
            p->q->tags = true;
        else
            for (size_t i = 0; i < verb; i++)
                if (tok_is(p, i, "commit") || tok_is(p, i, "which") || tok_is(p, i, "what"))
                    use(p, i, i + 1);
        use(p, verb, verb + 1);
        return;
    }
    /* "is there a tag named 7.2.4", "a release called v1.0": that tag, if any */
    if (noun < p->n && (tag < p->n || (p->q->commit[0] && p->q->commit_tag)) &&
        (tok_is(p, noun + 1, "named") || tok_is(p, noun + 1, "called"))) {
        p->q->tags = true;
        if (tag < p->n) {
            snprintf(p->q->commit, RT_STR, "%s", p->t[tag].s);
            use(p, tag, tag + 1);
        }
        use(p, noun, noun + 2);
        return;
    }
    if (tag < p->n && verb < p->n && noun == p->n) {
        /* "when was release-2.1 tagged": that tag's row */
        p->q->tags = true;
        snprintf(p->q->commit, RT_STR, "%s", p->t[tag].s); /* the tag's name */
        use(p, tag, tag + 1);
        use(p, verb, verb + 1);
        return;
    }
    if (noun == p->n || tag < p->n || p->q->ref[0])
        return;
    if (p->q->commit[0] && !p->q->commit_tag) {
        /* "the 7.4 tags", "list the 2.1 releases": the tags of that version (a number no
           tag is exactly); one such release ("the 7.4 release") is a range, read before */
        const char *c = p->q->commit;
        size_t nl = strlen(p->t[noun].s);
        if (!isdigit((unsigned char)c[c[0] == 'v']) || p->t[noun].s[nl - 1] != 's')
            return;
        p->q->tags_prefix = true;
    }
    p->q->tags = true;
    use(p, noun, noun + 1);
    if (verb < p->n)
        use(p, verb, verb + 1);
}

void rt_parse_frames(parser *p)
{
    parse_tag_questions(p);
    parse_start(p);
    parse_dir_ranking(p);
    parse_line_totals(p);
    parse_pull_requests(p);
    parse_inactive(p);
    parse_ordinal(p);
    parse_period(p);
}
