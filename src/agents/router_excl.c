/*
 * router_excl.c: the exclusions of a question to the tier-1 router, and its merges:
 * "not by bots", "excluding bots and merges", "human commits", "bot commits", "without
 * the docs folder", "not in tests", "outside src/", "merge commits", "non-merge". Each
 * sets a slot of rt_question (bots, merges, an excluded path) and takes its tokens, so
 * the rules see only the words left (router.c tells the parser's story).
 *
 * Rejected: reading a bare folder name after "without" or "no" ("commits without
 * tests" may mean commits that add no tests), and excluding people ("except bob"):
 * the tools take one author to keep, not one to drop.
 */
#include "router_int.h"

#include <ctype.h>
#include <stdio.h>

/* ---- exclusions: "not by bots", "excluding merges", "without the docs folder" ---- */

/* An exclusion marker at i ("excluding", "without", "no", "not by", "not counting",
 * "other than", "outside of"...): its length in tokens, else 0. */
static size_t excl_marker(const parser *p, size_t i)
{
    static const char *const ONE[] = {
        "excluding", "exclude", "excludes", "excluded", "excl", "except", "without", "w/o",
        "ignoring", "ignore", "minus", "sans", "outside", "skipping", "skip", "no", "besides",
        NULL};
    static const char *const AFTER_NOT[] = {"by", "in", "from", "touching", "counting",
                                            "including", "under", "inside", "within", NULL};
    if (tok_is(p, i, "not") && tok_in(p, i + 1, AFTER_NOT))
        return 2;
    /* "not authored by", "not written by", "not made by" */
    if (tok_is(p, i, "not") && (tok_is(p, i + 1, "authored") || tok_is(p, i + 1, "written") ||
                                tok_is(p, i + 1, "made") || tok_is(p, i + 1, "committed")) &&
        tok_is(p, i + 2, "by"))
        return 3;
    /* "anyone but carol", "who else but carol", "except for bob" */
    if ((tok_is(p, i, "anyone") || tok_is(p, i, "anybody") || tok_is(p, i, "else") ||
         tok_is(p, i, "everyone") || tok_is(p, i, "everybody") || tok_is(p, i, "except")) &&
        (tok_is(p, i + 1, "but") || tok_is(p, i + 1, "for") ||
         (tok_is(p, i, "everyone") && tok_is(p, i + 1, "except")) ||
         (tok_is(p, i, "everybody") && tok_is(p, i + 1, "except"))))
        return 2;
    if ((tok_is(p, i, "but") && tok_is(p, i + 1, "not")) ||
        (tok_is(p, i, "other") && tok_is(p, i + 1, "than")) ||
        (tok_is(p, i, "apart") && tok_is(p, i + 1, "from")) ||
        (tok_is(p, i, "leaving") && tok_is(p, i + 1, "out")) ||
        (tok_is(p, i, "leave") && tok_is(p, i + 1, "out")) ||
        (tok_is(p, i, "filter") && tok_is(p, i + 1, "out")))
        return tok_is(p, i + 2, "of") ? 3 : 2;
    if (tok_in(p, i, ONE))
        return tok_is(p, i, "outside") && tok_is(p, i + 1, "of") ? 2 : 1;
    return 0;
}

/* Folder names said without a slash that mean the top-level folder of that name ("not
 * in tests", "excluding docs"); any other folder needs a slash or "the X folder". */
static const char *const FOLDERS[] = {"docs", "doc", "tests", "test", "src", "lib", "vendor",
                                      "examples", "scripts", "bench", "benchmarks", "spec",
                                      "specs", "third_party", NULL};

static void set_excl_path(parser *p, const char *dir)
{
    if (p->q->path_kind)
        p->bad = true;
    size_t n = strlen(dir);
    snprintf(p->q->path, RT_STR, "%s%s", dir, n && dir[n - 1] != '/' ? "/" : "");
    p->q->path_kind = RT_PATH_DIR;
    p->q->path_excl = true;
}

static void set_bots(parser *p, int mode)
{
    if (p->q->bots && p->q->bots != mode)
        p->bad = true;
    p->q->bots = mode;
}

static void set_merges(parser *p, int mode)
{
    if (p->q->merges && p->q->merges != mode)
        p->bad = true;
    p->q->merges = mode;
}

/* What an exclusion marker excludes, at j: bots, merges, a path or a folder; the tokens
 * it spans (0: nothing the router can exclude). */
static size_t excl_object(parser *p, size_t j, bool loose)
{
    static const char *const BOTS[] = {"bots", "bot", "robots", "automation", "automated",
                                       "dependabot", NULL};
    size_t k = j;
    if (tok_is(p, k, "the") || tok_is(p, k, "any") || tok_is(p, k, "all"))
        k++;
    /* "except the ones from thomas", "excluding those by bots", "but not commits by X" */
    if ((tok_is(p, k, "ones") || tok_is(p, k, "those") || tok_is(p, k, "commits") ||
         tok_is(p, k, "one")) &&
        (tok_is(p, k + 1, "from") || tok_is(p, k + 1, "by") || tok_is(p, k + 1, "of")))
        k += 2;
    /* "excluding anything under .github/", "except everything in docs/" */
    if ((tok_is(p, k, "anything") || tok_is(p, k, "everything") || tok_is(p, k, "files") ||
         tok_is(p, k, "stuff") || tok_is(p, k, "changes")) &&
        (tok_is(p, k + 1, "under") || tok_is(p, k + 1, "in") || tok_is(p, k + 1, "inside") ||
         tok_is(p, k + 1, "within") || tok_is(p, k + 1, "from")) &&
        k + 2 < p->n && !p->t[k + 2].used && p->t[k + 2].kind == T_PATH)
        k += 2;
    if (tok_in(p, k, BOTS) && !(tok_is(p, k, "dependabot") && p->o && p->o->author)) {
        set_bots(p, RT_BOTS_EXCLUDE);
        return k + 1 - j;
    }
    /* "not made by the update bot", "excluding the release bots": a bot by what it does */
    if (k + 1 < p->n && tok_in(p, k + 1, BOTS) && !tok_is(p, k + 1, "dependabot") &&
        tok_is(p, k, p->t[k].s) && !in_list(p->t[k].s, RT_STOP)) {
        set_bots(p, RT_BOTS_EXCLUDE);
        return k + 2 - j;
    }
    if (tok_is(p, k, "merges") || (tok_is(p, k, "merge") && (tok_is(p, k + 1, "commits") ||
                                                             tok_is(p, k + 1, "commit")))) {
        set_merges(p, RT_MERGES_EXCLUDE);
        return k + (tok_is(p, k, "merge") ? 2 : 1) - j;
    }
    /* a person the repository knows: "except alice martin's commits", "excluding ivan" */
    char who[RT_STR];
    size_t plen;
    if (rt_person_at(p, k, who, &plen)) {
        /* "except alice and bob": each of them, ", " between */
        size_t have = strlen(p->q->not_author);
        if (have + strlen(who) + 3 >= RT_STR || strstr(who, ", "))
            p->bad = true;
        else
            snprintf(p->q->not_author + have, RT_STR - have, "%s%s", have ? ", " : "", who);
        size_t e = k + plen;
        /* "alice's commits", "alice's work": the possessive's noun goes with it */
        if (p->t[e - 1].poss && (tok_is(p, e, "commits") || tok_is(p, e, "work") ||
                                 tok_is(p, e, "changes")))
            e++;
        return e - j;
    }
    const tok *t = k < p->n && !p->t[k].used ? &p->t[k] : NULL;
    if (t && t->kind == T_PATH) {
        set_excl_path(p, t->s);
        /* a file is excluded as a pathspec too: everything but it */
        if (t->s[strlen(t->s) - 1] != '/' && !strchr(t->s, '*')) {
            const char *last = strrchr(t->s, '/');
            if (strchr(last ? last : t->s, '.'))
                snprintf(p->q->path, RT_STR, "%s", t->s);
        }
        size_t e = k + 1;
        if (tok_is(p, e, "folder") || tok_is(p, e, "directory") || tok_is(p, e, "dir"))
            e++;
        return e - j;
    }
    bool noun = tok_is(p, k + 1, "folder") || tok_is(p, k + 1, "directory") ||
                tok_is(p, k + 1, "dir");
    if (t && t->kind == T_WORD && !t->poss && (noun || (loose && in_list(t->s, FOLDERS))) &&
        (isalnum((unsigned char)t->s[0]) || t->s[0] == '_' || t->s[0] == '.')) {
        for (const char *c = t->s; *c; c++)
            if (!isalnum((unsigned char)*c) && !strchr("._-", *c))
                return 0;
        set_excl_path(p, t->s);
        return k + 1 + noun - j;
    }
    return 0;
}

/* A marker that excludes commit by commit: "not touching", "that don't touch",
 * "doesn't touch", "didn't touch", "never touched", "without touching". */
static size_t touch_marker(const parser *p, size_t i)
{
    static const char *const NEG[] = {"not", "don't", "dont", "doesn't", "doesnt", "didn't",
                                      "didnt", "never", "without", "do", "does", "did", NULL};
    static const char *const TOUCH[] = {"touch", "touching", "touches", "touched", "modify",
                                        "modifying", "change", "changing", NULL};
    if (!tok_in(p, i, NEG))
        return 0;
    size_t j = i + 1;
    /* "do not touch", "does not change" */
    if ((tok_is(p, i, "do") || tok_is(p, i, "does") || tok_is(p, i, "did")) &&
        !tok_is(p, j++, "not"))
        return 0;
    return tok_in(p, j, TOUCH) ? j + 1 - i : 0;
}

/* Exclusions, and their positive forms: "not by bots", "no bots", "human commits", "bot
 * commits", "by bots"; "excluding merges", "without merge commits"; "without the docs
 * folder", "not in tests", "outside src/". One exclusion marker may take several objects
 * ("excluding bots and merges"). Bots are filtered out of the tools' rows by name and
 * email; a path is excluded with git's ":!" pathspec magic. */
/* The word at i ends an author's whole name said before it ("the tmux update bot",
 * "renovate bot"): the name, not the bots as a group. */
static bool ends_name(parser *p, size_t i)
{
    char who[RT_STR];
    for (size_t back = 1; back <= 2 && back <= i; back++) {
        size_t len = 0;
        if (rt_person_at(p, i - back, who, &len) && i - back + len > i)
            return true;
    }
    /* the words before it with it, as the repository's authors say them ("update bot":
       words a name is not read from elsewhere) */
    if (!p->o || !p->o->author)
        return false;
    const tok *a = i >= 2 ? &p->t[i - 2] : NULL, *b = &p->t[i - 1];
    if (i < 1 || b->kind != T_WORD || b->used || in_list(b->s, RT_STOP))
        return false;
    char name[3 * TOK_LEN + 3];
    snprintf(name, sizeof name, "%s %s", b->s, p->t[i].s);
    if (p->o->author(p->o->author_ud, name, who, sizeof who))
        return true;
    if (!a || a->kind != T_WORD || a->used || in_list(a->s, RT_STOP))
        return false;
    snprintf(name, sizeof name, "%s %s %s", a->s, b->s, p->t[i].s);
    return p->o->author(p->o->author_ud, name, who, sizeof who);
}

void rt_parse_exclusions(parser *p)
{
    for (size_t i = 0; i < p->n; i++) {
        if (p->t[i].used)
            continue;
        /* human(s), non-bot: bots excluded; bot commits, by bots: bots only */
        if (tok_is(p, i, "human") || tok_is(p, i, "humans") || tok_is(p, i, "non-bot") ||
            tok_is(p, i, "nonbot")) {
            set_bots(p, RT_BOTS_EXCLUDE);
            if (tok_is(p, i, "humans"))
                p->q->words |= RW_AUTHORS;
            use(p, i, i + 1);
            continue;
        }
        size_t tm = touch_marker(p, i);
        if (tm && !p->q->path_kind) {
            size_t len = excl_object(p, i + tm, true);
            if (len && p->q->path_kind && p->q->path_excl) {
                p->q->untouched = true;
                use(p, i, i + tm + len);
                i = i + tm + len - 1;
                continue;
            }
        }
        size_t m = excl_marker(p, i);
        /* "without tests", "no docs" may be about what a commit lacks: a bare folder
           name is read only after a marker that names a place ("not in", "outside",
           "excluding") */
        bool loose = !tok_is(p, i, "without") && !tok_is(p, i, "no") && !tok_is(p, i, "sans");
        if (m) {
            size_t j = i + m, len = excl_object(p, j, loose);
            if (!len)
                continue;
            j += len;
            /* excluding bots and merges; not by bots or in docs/ */
            for (;;) {
                size_t c = j;
                if (tok_is(p, c, "and") || tok_is(p, c, "or") || tok_is(p, c, "nor"))
                    c++;
                size_t mk = c > j ? excl_marker(p, c) : 0; /* "and without merges" */
                size_t more = c > j ? excl_object(p, c + mk, loose || mk) : 0;
                if (more)
                    more += mk;
                if (!more)
                    break;
                j = c + more;
            }
            /* "by anyone but carlos": the "by" goes with the people left */
            size_t from = i;
            if (i > 0 && tok_is(p, i - 1, "by") &&
                (tok_is(p, i, "anyone") || tok_is(p, i, "anybody") || tok_is(p, i, "everyone") ||
                 tok_is(p, i, "everybody")) && p->q->not_author[0])
                from = i - 1;
            use(p, from, j);
            i = j - 1;
            continue;
        }
        if ((tok_is(p, i, "bots") || tok_is(p, i, "bot")) &&
            !(i > 0 && tok_is(p, i - 1, "not")) && !ends_name(p, i)) {
            size_t from = i > 0 && tok_is(p, i - 1, "by") ? i - 1 : i;
            set_bots(p, RT_BOTS_ONLY);
            /* "which bots committed", "how many bots": the bots as authors; "what did
               the bots do" asks for their commits */
            if (tok_is(p, i, "bots") && from == i && i > 0 &&
                (tok_is(p, i - 1, "which") || tok_is(p, i - 1, "many")))
                p->q->words |= RW_AUTHORS;
            use(p, from, i + 1);
        }
    }
}

void rt_parse_merges(parser *p)
{
    /* "merges included is fine", "including merge commits", "merges are ok": what every
       count does anyway; said, and taken */
    static const char *const FINE[] = {"fine", "ok", "okay", "allowed", "acceptable", NULL};
    for (size_t i = 0; i + 1 < p->n; i++) {
        size_t from = i, to = 0;
        if ((tok_is(p, i, "merges") || tok_is(p, i, "merge")) &&
            (tok_is(p, i + 1, "included") || tok_is(p, i + 1, "including")))
            to = i + 2;
        else if ((tok_is(p, i, "merges") && (tok_is(p, i + 1, "are") || tok_is(p, i + 1, "is")) &&
                  tok_in(p, i + 2, FINE)))
            to = i + 3;
        else if ((tok_is(p, i, "including") || tok_is(p, i, "include") ||
                  tok_is(p, i, "incl")) && tok_is(p, i + 1, "merges"))
            to = i + 2;
        else if ((tok_is(p, i, "including") || tok_is(p, i, "include")) &&
                 tok_is(p, i + 1, "merge") && tok_is(p, i + 2, "commits"))
            to = i + 3;
        if (!to)
            continue;
        if ((tok_is(p, to, "is") || tok_is(p, to, "are")) && tok_in(p, to + 1, FINE))
            to += 2;
        if (p->q->merges)
            p->bad = true; /* "only merges, merges included": not read */
        use(p, from, to);
    }
    for (size_t i = 0; i < p->n; i++) {
        int m = 0;
        size_t from = i;
        if (tok_is(p, i, "merge") || tok_is(p, i, "merges")) {
            m = RT_MERGES_ONLY;
            if (i > 0 && (tok_is(p, i - 1, "no") || tok_is(p, i - 1, "without") ||
                          tok_is(p, i - 1, "excluding") || tok_is(p, i - 1, "except") ||
                          tok_is(p, i - 1, "non"))) {
                m = RT_MERGES_EXCLUDE;
                from = i - 1;
            } else if (tok_is(p, i + 1, "excluded") || tok_is(p, i + 1, "ignored") ||
                       tok_is(p, i + 1, "omitted") || tok_is(p, i + 1, "skipped") ||
                       (tok_is(p, i + 1, "left") && tok_is(p, i + 2, "out"))) {
                /* "..., merges excluded": said after */
                m = RT_MERGES_EXCLUDE;
                use(p, i + 1, tok_is(p, i + 1, "left") ? i + 3 : i + 2);
            }
        } else if (tok_is(p, i, "non-merge") || tok_is(p, i, "nonmerge")) {
            m = RT_MERGES_EXCLUDE;
        } else if (tok_is(p, i, "merged")) {
            /* "who merged the most branches", "what was merged last week": merge commits,
               made by whoever merged */
            set_merges(p, RT_MERGES_ONLY);
            p->q->words |= RW_COMMITTED;
            size_t k = i + 1;
            while (tok_is(p, k, "the") || tok_is(p, k, "most") || tok_is(p, k, "fewest"))
                k++;
            if (tok_is(p, k, "branches") || tok_is(p, k, "prs") || tok_is(p, k, "branch") ||
                tok_is(p, k, "pr"))
                use(p, k, k + 1);
            else if (tok_is(p, k, "pull") && tok_is(p, k + 1, "requests"))
                use(p, k, k + 2);
            use(p, i, i + 1);
            continue;
        }
        if (!m)
            continue;
        set_merges(p, m);
        /* "how many merges", "merges last month": merges are commits */
        if (m == RT_MERGES_ONLY && (tok_is(p, i, "merges") || tok_is(p, i + 1, "commits") ||
                                    tok_is(p, i + 1, "commit")))
            p->q->words |= RW_COMMITS;
        /* "the first merge", "the latest merge": one merge commit */
        if (m == RT_MERGES_ONLY && tok_is(p, i, "merge") && i > 0 &&
            (!strcmp(p->t[i - 1].s, "first") || !strcmp(p->t[i - 1].s, "last") ||
             !strcmp(p->t[i - 1].s, "latest") || !strcmp(p->t[i - 1].s, "earliest") ||
             !strcmp(p->t[i - 1].s, "newest") || !strcmp(p->t[i - 1].s, "oldest") ||
             !strcmp(p->t[i - 1].s, "recent"))) {
            p->q->words |= RW_COMMITS;
            p->q->singular = true;
        }
        use(p, from, i + 1);
    }
}

