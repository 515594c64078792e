/*
 * host.c: the list of tools the product registry opens, in one place (as Lua's linit.c
 * lists the libraries a state opens), so adding a tool is one line here next to its
 * module, and a sandbox that wants fewer starts from a shorter list or restricts
 * capabilities; and the host (quarry/host.h) whose parts their handlers receive.
 *
 * Design: each source exports its records as a NULL-terminated list (qr_git_tools, ...)
 * and its own context type; the host embeds one context per source and registers each
 * list at the offset of its part (qr_tools_add_part). This module sits above the sources
 * and the queries, the one place that knows them all, so the layers below it never reach
 * up.
 *
 * Rejected: one host struct declared below the sources, which every source included (the
 * tools layer then knew git, memory and pipeline); registration from each module's
 * constructor (link-order dependent, and a static library drops objects nothing
 * references); a registry built at compile time (lookup needs the index anyway, and it
 * is tiny).
 */
#include "quarry/host.h"
#include "quarry/words.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* NULL-terminated lists, one per source, with the offset of the source's context. */
static const struct {
    const qr_tool *const *tools;
    size_t part;
} sources[] = {
    {qr_git_tools, offsetof(qr_host, git)},
    {qr_memory_tools, offsetof(qr_host, mem)},
    {qr_code_tools, offsetof(qr_host, code)},
    {qr_sparql_tools, offsetof(qr_host, sparql)},
    {qr_codesearch_tools, offsetof(qr_host, codesearch)},
    {NULL, 0},
};

qr_tools *qr_tools_default(void)
{
    qr_tools *r = qr_tools_new();
    if (!r)
        return NULL;
    for (size_t s = 0; sources[s].tools; s++)
        for (const qr_tool *const *t = sources[s].tools; *t; t++)
            if (qr_tools_add_part(r, *t, sources[s].part) != QR_OK) {
                qr_tools_free(r);
                return NULL;
            }
    return r;
}

void qr_host_init(qr_host *h, const char *repo_dir)
{
    memset(h, 0, sizeof *h);
    h->git.repo_dir = repo_dir;
    h->code.repo_dir = repo_dir;
    const char *mem = getenv("QUARRY_MEMORY");
    h->mem.memory_path = mem && *mem ? mem : NULL;
    const char *shared = getenv("QUARRY_DATABASE_URL");
    h->git.shared_url = shared && *shared ? shared : NULL;
    const char *rdf = getenv("QUARRY_SPARQL_DATA");
    h->sparql.data_paths = rdf && *rdf ? rdf : NULL;
    h->sparql.code = &h->code;
    h->codesearch.sparql = &h->sparql;
    h->codesearch.repo_dir = repo_dir;
}

void qr_host_release(qr_host *h)
{
    qr_git_ctx_release(&h->git);
    qr_memory_ctx_release(&h->mem);
    qr_code_ctx_release(&h->code);
    qr_git_people_free(h->people, h->npeople);
    h->people = NULL;
    h->npeople = 0;
    h->people_loaded = false;
    qr_sparql_ctx_release(&h->sparql);
    qr_codesearch_ctx_release(&h->codesearch);
}

int qr_host_repo_span(void *host, int64_t *first, int64_t *last)
{
    qr_host *h = host;
    qr_buf err;
    qr_buf_init(&err);
    int rc = QR_OK;
    if (!h->git.git)
        rc = qr_git_open(h->git.repo_dir ? h->git.repo_dir : ".", &h->git.git, &err);
    if (rc == QR_OK)
        rc = qr_git_span(h->git.git, first, last, &err);
    qr_buf_release(&err);
    return rc;
}

/* ---- authors by name ---- */

/* True when w (lowercase, wn bytes) equals one of the parts of s split at any of seps,
 * compared without ASCII case; whole: equals all of s instead. */
static bool part_of(const char *w, size_t wn, const char *s, size_t sn, const char *seps,
                    bool whole)
{
    if (whole)
        return sn == wn && !strncasecmp(w, s, wn);
    size_t i = 0;
    while (i < sn) {
        size_t j = i;
        while (j < sn && !strchr(seps, s[j]))
            j++;
        if (j - i == wn && !strncasecmp(w, s + i, wn))
            return true;
        i = j + 1;
    }
    return false;
}

/* s in lower case with the accents of Latin letters taken off (U+00C0..U+017F: "Inês
 * Ångström" is "ines angstrom"), so that a name typed without them finds its person;
 * other bytes are copied. Cut at cap. */
static void fold_name(const char *s, char *out, size_t cap)
{
    /* U+00C0..U+00FF; '*' keeps the character, 'A' 'T' 'S' stand for ae, th, ss */
    static const char L1[] = "aaaaaaAceeeeiiiidnooooo*ouuuuyTSaaaaaaAceeeeiiiidnooooo*ouuuuyTy";
    /* U+0100..U+017F */
    static const char LA[] = "aaaaaaccccccccddddeeeeeeeeeegggggggghhhhiiiiiiiiiiiijjkkklllllll"
                             "lllnnnnnnnnnoooooooorrrrrrssssssssttttttuuuuuuuuuuuuwwyyyzzzzzzs";
    size_t o = 0;
    for (const unsigned char *c = (const unsigned char *)s; *c && o + 3 < cap; c++) {
        unsigned cp = 0;
        if ((c[0] == 0xC3 || c[0] == 0xC4 || c[0] == 0xC5) && (c[1] & 0xC0) == 0x80)
            cp = ((unsigned)(c[0] & 0x1F) << 6) | (c[1] & 0x3F);
        char f = cp >= 0xC0 && cp < 0x100 ? L1[cp - 0xC0] : cp >= 0x100 && cp < 0x180 ? LA[cp - 0x100] : 0;
        if (!f || f == '*') {
            out[o++] = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
            continue;
        }
        const char *two = f == 'A' ? "ae" : f == 'T' ? "th" : f == 'S' ? "ss" : NULL;
        if (two)
            out[o++] = two[0], out[o++] = two[1];
        else
            out[o++] = f;
        c++;
    }
    out[o] = '\0';
}

/* The next line of a person's aliases (qr_git_person.aliases) into one, NUL-terminated;
 * a line too long for cap is passed over. False at the end. */
static bool next_alias(const char **a, char *one, size_t cap)
{
    while (**a) {
        const char *at = *a, *e = strchr(at, '\n');
        size_t l = e ? (size_t)(e - at) : strlen(at);
        *a += l + (e != NULL);
        if (l < cap) {
            memcpy(one, at, l);
            one[l] = '\0';
            return true;
        }
    }
    return false;
}

static bool person_matches_folded(const qr_git_person *p, const char *w, size_t wn, bool *exact);

static bool person_matches_one(const qr_git_person *p, const char *w, size_t wn, bool *exact);

/* The person by their name and email, or by any other name or email their commits were
 * written with ("salvatore" finds antirez@... when one address used both names; "rmenon"
 * finds Rahul Menon, whom .mailmap names). */
static bool person_matches(const qr_git_person *p, const char *w, size_t wn, bool *exact)
{
    if (person_matches_one(p, w, wn, exact))
        return true;
    char one[256];
    for (const char *a = p->aliases ? p->aliases : ""; next_alias(&a, one, sizeof one);) {
        qr_git_person f = *p;
        if (strchr(one, '@'))
            f.email = one;
        else
            f.name = one;
        if (person_matches_one(&f, w, wn, exact))
            return true;
    }
    return false;
}

/* Matches as written first; a word or person with accents also matches without them. */
static bool person_matches_one(const qr_git_person *p, const char *w, size_t wn, bool *exact)
{
    if (person_matches_folded(p, w, wn, exact))
        return true;
    char fw[256], fname[256], femail[256];
    fold_name(w, fw, sizeof fw);
    fold_name(p->name, fname, sizeof fname);
    fold_name(p->email, femail, sizeof femail);
    if (!strcmp(fw, w) && !strcmp(fname, p->name) && !strcmp(femail, p->email))
        return false; /* nothing to fold */
    qr_git_person f = *p;
    f.name = fname;
    f.email = femail;
    return person_matches_folded(&f, fw, strlen(fw), exact);
}

static bool person_matches_folded(const qr_git_person *p, const char *w, size_t wn, bool *exact)
{
    const char *at = strchr(p->email, '@');
    size_t local = at ? (size_t)(at - p->email) : strlen(p->email);
    size_t nn = strlen(p->name);
    *exact = part_of(w, wn, p->name, nn, "", true) ||
             part_of(w, wn, p->email, strlen(p->email), "", true);
    if (*exact)
        return true;
    if (part_of(w, wn, p->email, local, "", true))
        return true;
    if (strchr(w, ' ') && nn > wn && !strncasecmp(p->name, w, wn) && p->name[wn] == ' ')
        return true; /* "mei lin" for Mei Lin Chen: the given names, whole */
    if (strchr(w, ' ')) {
        /* "alice smith": the first and the last part of the name */
        const char *sp = strchr(w, ' '), *last = strrchr(p->name, ' ');
        size_t first = strcspn(p->name, " ");
        return last && (size_t)(sp - w) == first && !strncasecmp(w, p->name, first) &&
               !strcasecmp(sp + 1, last + 1);
    }
    /* a login made of the first name's initial and the surname ("bnoordhuis" for Ben
       Noordhuis), or a personal domain holding the surname (info@bnoordhuis.nl) */
    const char *sur = strrchr(p->name, ' ');
    size_t sl = sur ? strlen(sur + 1) : 0;
    if (sur && sl >= 4 && wn == sl + 1 && tolower((unsigned char)w[0]) ==
                                              tolower((unsigned char)p->name[0]) &&
        !strncasecmp(w + 1, sur + 1, sl))
        return true;
    if (at && sur && sl >= 4 && wn >= 5) {
        const char *dom = at + 1;
        size_t dl = strcspn(dom, ".");
        if (dl == wn && !strncasecmp(dom, w, wn))
            for (size_t k = 0; k + sl <= dl; k++)
                if (!strncasecmp(dom + k, sur + 1, sl))
                    return true;
    }
    /* "dependabot" names dependabot[bot] */
    return part_of(w, wn, p->name, nn, " []", false) ||
           part_of(w, wn, p->email, local, "._-+[]", false);
}

/* Whether word w (wn bytes) is a typo of a part of s (split at spaces): the one typo
 * measure (src/words), for words of five letters or more only. */
static bool typo_of_part(const char *w, size_t wn, const char *s, bool first_only, bool last_only)
{
    if (wn < 5)
        return false;
    const char *last = strrchr(s, ' ');
    for (const char *c = s; *c;) {
        size_t l = strcspn(c, " ");
        bool is_first = c == s, is_last = last ? c == last + 1 : true;
        if (l >= 4 && (!first_only || is_first) && (!last_only || is_last) &&
            qr_words_typo(w, wn, c, l))
            return true;
        c += l + (c[l] == ' ');
    }
    return false;
}

/* A name said with a typo ("kenij", "tomas nowak"): one word near a part of the person's
 * name, or two near their first and last name (each exact or a typo). */
static bool person_typo(const qr_git_person *p, const char *w)
{
    const char *sp = strchr(w, ' ');
    if (!sp)
        return typo_of_part(w, strlen(w), p->name, false, false);
    if (strchr(sp + 1, ' ') || !strchr(p->name, ' '))
        return false;
    size_t fl = (size_t)(sp - w), ll = strlen(sp + 1);
    size_t pf = strcspn(p->name, " ");
    const char *pl = strrchr(p->name, ' ') + 1;
    bool first = (fl == pf && !strncasecmp(w, p->name, fl)) ||
                 typo_of_part(w, fl, p->name, true, false);
    bool lastn = !strcasecmp(sp + 1, pl) || typo_of_part(sp + 1, ll, p->name, false, true);
    return first && lastn;
}

/* Whether the person named exactly by w is named by their whole name (one word), and w
 * is also the first name of another person who shares no email with them: jq has
 * "Stephen" <stephen@polya.(none)> and "Stephen Dolan", so a bare "stephen" is either. */
static bool first_name_of_another(const qr_host *h, const qr_git_person *exact, const char *w,
                                  size_t wn)
{
    if (strlen(exact->name) != wn || strncasecmp(exact->name, w, wn))
        return false;
    for (size_t i = 0; i < h->npeople; i++) {
        const qr_git_person *o = &h->people[i];
        if (o == exact || strncasecmp(o->name, w, wn) || o->name[wn] != ' ')
            continue;
        if (!strcasecmp(o->email, exact->email) ||
            part_of(exact->email, strlen(exact->email), o->aliases ? o->aliases : "",
                    o->aliases ? strlen(o->aliases) : 0, "\n", false))
            continue; /* one address: one person */
        return true;
    }
    return false;
}

/* Whether hay holds needle, ASCII case ignored (as the git tools' author filter reads). */
static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (!n)
        return false;
    for (; *hay; hay++)
        if (!strncasecmp(hay, needle, n))
            return true;
    return false;
}

/* Whether any of the person's names or emails (their own and their aliases) holds w;
 * *all: whether every one of their commits does (their email holds it, or every name
 * they wrote under does). */
static bool person_holds(const qr_git_person *p, const char *w, bool *all)
{
    bool in_email = contains_ci(p->email, w), names_all = contains_ci(p->name, w);
    bool any = in_email || names_all;
    char one[256];
    for (const char *a = p->aliases ? p->aliases : ""; next_alias(&a, one, sizeof one);) {
        bool h = contains_ci(one, w);
        any |= h;
        if (!strchr(one, '@'))
            names_all &= h;
    }
    *all = in_email || names_all;
    return any;
}

/* Whether person p and q are one person: one's name is the other's name or one of the
 * names or emails the other wrote under. */
static bool same_person(const qr_git_person *p, const qr_git_person *q)
{
    if (!strcasecmp(p->name, q->name))
        return true;
    char one[256];
    for (int k = 0; k < 2; k++) {
        const qr_git_person *x = k ? q : p, *y = k ? p : q;
        for (const char *a = x->aliases ? x->aliases : ""; next_alias(&a, one, sizeof one);)
            if (!strcasecmp(one, y->name) || !strcasecmp(one, y->email))
                return true;
    }
    return false;
}

/* What to filter by for one person, who may have written under several addresses
 * ("jdhore" is 42537+jdhore@users.noreply.github.com, and the same Jeff Horelick wrote
 * most under jdhore1@gmail.com): the addresses linked to `hit` by a shared name are one
 * person, and the filter is the first of the word said, their names, surnames and
 * addresses that the git tools' "contains" filter reads as exactly those addresses' commits
 * and nobody else's. With one address, or no such word, the address found. */
static void person_filter(const qr_host *h, const qr_git_person *hit, const char *said,
                          char *out, size_t cap)
{
    snprintf(out, cap, "%s", hit->email);
    if (h->npeople > 100000)
        return;
    bool *in = calloc(h->npeople ? h->npeople : 1, sizeof *in);
    if (!in)
        return;
    size_t ng = 0;
    for (size_t i = 0; i < h->npeople; i++)
        if (&h->people[i] == hit)
            in[i] = true, ng++;
    for (bool grew = true; grew && ng < 64;) {
        grew = false;
        for (size_t i = 0; i < h->npeople; i++) {
            if (in[i])
                continue;
            for (size_t j = 0; j < h->npeople; j++)
                if (in[j] && same_person(&h->people[i], &h->people[j])) {
                    in[i] = true, ng++, grew = true;
                    break;
                }
        }
    }
    if (ng > 1) {
        /* the candidates, most natural first */
        const char *cands[200];
        size_t nc = 0;
        char last[64][128];
        size_t nl = 0;
        cands[nc++] = said;
        for (size_t i = 0; i < h->npeople && nc + 3 < 200; i++) {
            if (!in[i])
                continue;
            cands[nc++] = h->people[i].name;
            const char *sp = strrchr(h->people[i].name, ' ');
            if (sp && nl < 64) {
                snprintf(last[nl], sizeof last[nl], "%s", sp + 1);
                cands[nc++] = last[nl++];
            }
        }
        for (size_t i = 0; i < h->npeople && nc + 1 < 200; i++)
            if (in[i])
                cands[nc++] = h->people[i].email;
        for (size_t c = 0; c < nc; c++) {
            if (strlen(cands[c]) < 4)
                continue;
            bool ok = true;
            for (size_t i = 0; i < h->npeople && ok; i++) {
                bool all, any = person_holds(&h->people[i], cands[c], &all);
                ok = in[i] ? all : !any;
            }
            if (ok) {
                snprintf(out, cap, "%s", cands[c]);
                break;
            }
        }
    }
    free(in);
}

bool qr_host_author(void *host, const char *name, char *out, size_t cap)
{
    qr_host *h = host;
    if (!h->people_loaded) {
        h->people_loaded = true;
        qr_buf err;
        qr_buf_init(&err);
        if (h->git.git ||
            qr_git_open(h->git.repo_dir ? h->git.repo_dir : ".", &h->git.git, &err) == QR_OK)
            if (qr_git_people(h->git.git, &h->people, &h->npeople, &err) != QR_OK)
                h->people = NULL, h->npeople = 0;
        qr_buf_release(&err);
    }
    /* "~kenij": the router marks a name it read after "by", "did" or as a possessive,
       which may then be a typo of one person's name */
    bool typo_ok = name[0] == '~';
    name += typo_ok;
    size_t wn = strlen(name);
    if (wn < 2)
        return false;
    const qr_git_person *hit = NULL, *exact_hit = NULL;
    size_t hits = 0, exacts = 0;
    bool one_name = true;
    for (size_t i = 0; i < h->npeople; i++) {
        bool exact;
        if (!person_matches(&h->people[i], name, wn, &exact))
            continue;
        if (hit && strcasecmp(hit->name, h->people[i].name))
            one_name = false;
        hit = hit ? hit : &h->people[i];
        hits++;
        if (exact) {
            exact_hit = exact_hit ? exact_hit : &h->people[i];
            exacts++;
        }
    }
    /* a full name said whole ("nick mathewson") is whoever has that name, under any of
       their addresses; an address that merely contains it ("Nick Mathewson@.(none)") is
       searched by the same words, so the name covers it too */
    if (hits > 1 && strchr(name, ' '))
        for (size_t i = 0; i < h->npeople; i++)
            if (!strcasecmp(h->people[i].name, name)) {
                snprintf(out, cap, "%s", h->people[i].name);
                /* the same person under another name too ("JD Horelick" and "Jeff
                   Horelick" at one address): the filter that reads all of them */
                char wider[512];
                person_filter(h, &h->people[i], name, wider, sizeof wider);
                if (strcmp(wider, h->people[i].email))
                    snprintf(out, cap, "%s", wider);
                return true;
            }
    if (exacts == 1 && !first_name_of_another(h, exact_hit, name, wn))
        hit = exact_hit, hits = 1;
    else if (exacts == 1)
        one_name = false; /* "Stephen" and "Stephen Dolan": both, named in the decline */
    if (!hits && !typo_ok)
        return false;
    if (!hits) {
        /* nobody by that name: a typo of exactly one person's name is that person */
        const qr_git_person *near = NULL;
        size_t nears = 0;
        for (size_t i = 0; i < h->npeople; i++)
            if (person_typo(&h->people[i], name) &&
                (!near || strcasecmp(near->email, h->people[i].email)))
                near = &h->people[i], nears++;
        if (nears != 1)
            return false;
        person_filter(h, near, "", out, cap);
        return true;
    }
    if (hits == 1)
        person_filter(h, hit, name, out, cap);
    else if (one_name) {
        /* one name at several addresses: the filter that reads exactly them, else the
           name */
        person_filter(h, hit, hit->name, out, cap);
        if (!strcmp(out, hit->email))
            snprintf(out, cap, "%s", hit->name);
    }
    else {
        /* several people: who they are, for the question's decline to name them */
        size_t o = 0;
        out[0] = '\0';
        for (size_t i = 0; i < h->npeople && o + 1 < cap; i++) {
            bool exact;
            if (!person_matches(&h->people[i], name, wn, &exact))
                continue;
            int k = snprintf(out + o, cap - o, "%s%s <%s>", o ? ", " : "", h->people[i].name,
                             h->people[i].email);
            if (k < 0 || (size_t)k >= cap - o) {
                out[o] = '\0';
                break;
            }
            o += (size_t)k;
        }
        return false;
    }
    return true;
}

bool qr_host_release_tag(void *host, const char *version, char *out, size_t cap)
{
    qr_host *h = host;
    qr_buf err;
    qr_buf_init(&err);
    if (!h->git.git &&
        qr_git_open(h->git.repo_dir ? h->git.repo_dir : ".", &h->git.git, &err) != QR_OK) {
        qr_buf_release(&err);
        return false;
    }
    qr_buf_release(&err);
    char tag[128], prev[128], before[128], next[128];
    bool ambiguous;
    if (!qr_git_release(h->git.git, version, tag, sizeof tag, prev, sizeof prev, before,
                        sizeof before, next, sizeof next, &ambiguous)) {
        /* no such release: the nearest one, for the decline to name */
        snprintf(out, cap, "%s%s", !ambiguous && prev[0] ? "~" : "", ambiguous ? "" : prev);
        return false;
    }
    snprintf(out, cap, "%s %s %s %s", tag, prev[0] ? prev : "-", before[0] ? before : "-",
             next[0] ? next : "-");
    return true;
}

/* The host's repository, opened on first use; NULL when it cannot be. */
static qr_git *host_git(qr_host *h)
{
    qr_buf err;
    qr_buf_init(&err);
    if (!h->git.git &&
        qr_git_open(h->git.repo_dir ? h->git.repo_dir : ".", &h->git.git, &err) != QR_OK)
        h->git.git = NULL;
    qr_buf_release(&err);
    return h->git.git;
}

int qr_host_find_file(void *host, const char *name, char *out, size_t cap)
{
    qr_git *g = host_git(host);
    return g ? qr_git_find_file(g, name, out, cap) : -1;
}

bool qr_host_tag(void *host, const char *name, char *out, size_t cap)
{
    qr_git *g = host_git(host);
    return g && qr_git_tag_named(g, name, out, cap);
}

/* The last part of a folder or URL, without a trailing '/' or ".git"; "" when none. */
static void last_part(const char *path, char *out, size_t cap)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    size_t n = strlen(buf);
    while (n > 1 && buf[n - 1] == '/')
        buf[--n] = '\0';
    const char *base = strrchr(buf, '/');
    if (!base)
        base = strrchr(buf, ':'); /* "git@host:name.git" */
    base = base ? base + 1 : buf;
    snprintf(out, cap, "%s", base);
    size_t l = strlen(out);
    if (l > 4 && !strcmp(out + l - 4, ".git"))
        out[l - 4] = '\0';
}

bool qr_host_project_name(void *host, char *out, size_t cap)
{
    qr_git *g = host_git(host);
    if (!g || !cap)
        return false;
    const char *dir = qr_git_workdir(g);
    last_part(dir ? dir : "", out, cap);
    /* the name the project goes by upstream, when the folder was named otherwise: the
       origin remote's last part ("https://github.com/tmux/tmux.git" -> "tmux") */
    char url[4096], name[256];
    if (qr_git_config_string(g, "remote.origin.url", url, sizeof url)) {
        last_part(url, name, sizeof name);
        static const char *const GENERIC[] = {"repo", "repository", "src", "source", "git",
                                              "mirror", "origin", "upstream", NULL};
        bool generic = false;
        for (size_t i = 0; GENERIC[i]; i++)
            generic |= !strcasecmp(name, GENERIC[i]);
        size_t l = strlen(out);
        if (name[0] && !generic && strcasecmp(name, out) && !strchr(name, ' ') &&
            l + strlen(name) + 2 <= cap)
            snprintf(out + l, cap - l, "%s%s", l ? " " : "", name);
    }
    return out[0] != '\0';
}
