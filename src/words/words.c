/*
 * words.c: the plain-words reader shared by ask's router, the DWIM parser and
 * search_codebase (include/quarry/words.h): the normalizer that takes chatter off a
 * question, the one typo measure (keyboard-aware, length-aware), the lexicon searched
 * with it, and the recognizers that need no repository (key=value, numbers, ordinals).
 * It lives in the queries layer so that every front door above can use it and it can use
 * the tool registry below for its words.
 *
 * Rejected: a typo rule per table (each front door had its own and they disagreed on
 * what "skeltn" or "auther" meant) and a stemmer (it merges words the readers keep apart:
 * "calls" and "callers").
 */
#include "quarry/words.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- normalizer ---- */

/* Chatter said before the question, longest first; each may be followed by ',' ':' '-'
 * or '.'. Matched as whole words, case folded, repeatedly ("ok so um, ..."). */
static const char *const LEAD[] = {
    "sorry to bother you but", "sorry to bother you", "sorry to bother", "thanks in advance",
    "thx in advance", "quick question", "just a quick question", "quick q", "quick one",
    "i was wondering if you could", "i was wondering", "i wonder", "just wondering",
    "could you please", "can you please", "would you please", "could you tell me",
    "can you tell me", "please tell me", "do you know", "i need to know", "i want to know",
    "i'd like to know", "i would like to know", "find out", "figure out", "look up",
    "let me know", "as an ai agent", "as an agent", "as a bot", "for standup",
    "for the standup", "for a report", "for my report", "hey there", "hi there", "hello there",
    "good morning", "excuse me", "sorry", "hey", "hi", "hello", "yo", "ok", "okay", "so", "um",
    "umm", "uh", "well", "btw", "please", "pls", "plz", "can you", "could you", "would you",
    "i need", "i want", "i'd like", "i would like", "thanks", "thx", "ty", "but", "gimme",
    "lemme see", "lemme know", "agent task", "task", "could u please", "can u please",
    "could u tell me", "can u tell me", "could u", "can u", "would u", NULL};

static size_t phrase_at(const char *s, size_t n, const char *ph);
static char fold(char c);

/* An apology or a hedge that opens a clause before the question: "sorry if this is a dumb
 * question but ...", "this might be obvious, but ...", "not sure if this is the right
 * place but ...". The clause runs to its "but" (or a ':' / ';' / ','), within a dozen
 * words, and is dropped with it. */
static const char *const HEDGE[] = {
    "sorry if", "sorry for", "apologies if", "apologies for", "forgive me if", "forgive me",
    "pardon me", "this may be", "this might be", "this is probably", "might be a",
    "may be a", "probably a", "maybe a", "maybe this is", "not sure if", "not sure whether",
    "i'm not sure if", "im not sure if", "i know this is", "i hope this is", "dumb question",
    "stupid question", "silly question", "noob question", "newbie question",
    "random question", "basic question", "quick one", "odd question", "if this is a",
    "if this is the", "if this is an", "i'm drafting", "im drafting", "i am drafting",
    "i'm writing", "im writing", "i am writing", "i'm preparing", "im preparing",
    "i am preparing", "i'm putting together", "i'm working on", "im working on",
    "i am working on", "we're drafting", "we're writing", "we're preparing",
    "for the changelog", "for the release notes", "i'm new to", "im new to", "i am new to",
    "i'm new here", "im new here", "new here", "i'm trying to", "im trying to",
    "i am trying to", "i'm looking at", "im looking at", "i'm reviewing", "im reviewing",
    "i'm debugging", "im debugging", "i'm curious", "im curious", NULL};

/* The end of a hedge clause starting at i: the index after its "but" or its ':' ';' ',';
 * 0 when the clause does not end within 14 words. */
static size_t hedge_end(const char *s, size_t n, size_t i)
{
    size_t words = 0;
    while (i < n && words < 14) {
        if (s[i] == ':' || s[i] == ';' || s[i] == ',')
            return i + 1;
        /* a dash between words (" - ", " -- "), not one inside a name ("release-2.1"); a
           sentence's end */
        if ((s[i] == '-' && i > 0 && (s[i - 1] == ' ' || s[i - 1] == '-')) ||
            (s[i] == '.' && i + 1 < n && s[i + 1] == ' '))
            return i + 1;
        if (s[i] == '"' || s[i] == '`' || s[i] == '/' || s[i] == '?')
            return 0;
        if (s[i] == ' ') {
            words++;
            size_t m = phrase_at(s + i + 1, n - i - 1, "but");
            if (m)
                return i + 1 + m;
        }
        i++;
    }
    return 0;
}

/* Politeness said after it. */
static const char *const TRAIL[] = {"thanks in advance", "thank you so much", "thanks so much",
                                    "thanks a lot", "thanks a bunch", "many thanks",
                                    "much appreciated", "appreciate it", "thank you", "thanks",
                                    "thx", "ty", "ta", "tia", "do you happen to know",
                                    "do you know", "any idea", "any ideas", "by any chance",
                                    "if you know", "if you can", "if possible",
                                    "please", "pls", "plz", "asap", "cheers",
                                    "output a number", "output the number", "output only the number",
                                    "answer with a number", "answer with just the number",
                                    "reply with a number", "return a number", "return the number",
                                    "just the number", "only the number", "number only",
                                    "just the count", "only the count", "return a number only",
                                    "just curious", "out of curiosity", "no rush",
                                    "when you get a chance", NULL};

bool qr_words_is_chatter(const char *w)
{
    static const char *const W[] = {"please", "pls", "plz", "thanks", "thx", "ty", "hey",
                                    "hi", "hello", "um", "umm", "uh", "asap", "cheers",
                                    "kindly", "btw", NULL};
    for (size_t i = 0; W[i]; i++)
        if (strcmp(w, W[i]) == 0)
            return true;
    return false;
}

static bool word_char(char c)
{
    return isalnum((unsigned char)c) || c == '\'' || (unsigned char)c >= 0x80;
}

/* Length of phrase ph at s (case folded, spaces in ph match one run of spaces or a
 * comma), as a whole word; 0 when it is not there. */
static size_t phrase_at(const char *s, size_t n, const char *ph)
{
    size_t i = 0;
    for (const char *p = ph; *p; p++) {
        if (*p == ' ') {
            size_t j = i;
            while (j < n && (s[j] == ' ' || s[j] == ','))
                j++;
            if (j == i)
                return 0;
            i = j;
            continue;
        }
        if (i >= n || tolower((unsigned char)s[i]) != *p)
            return 0;
        i++;
    }
    if (i < n && word_char(s[i]))
        return 0;
    return i;
}

static size_t skip_punct(const char *s, size_t n, size_t i)
{
    while (i < n && (s[i] == ' ' || s[i] == ',' || s[i] == ':' || s[i] == '-' || s[i] == '.' ||
                     s[i] == ';' || s[i] == '!'))
        i++;
    return i;
}

size_t qr_words_normalize(const char *s, size_t len, char *out, size_t cap)
{
    if (!cap)
        return 0;
    /* 1. quotes and spaces */
    size_t o = 0;
    bool space = true; /* drops leading spaces */
    for (size_t i = 0; i < len && o + 1 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0xE2 && i + 2 < len && (unsigned char)s[i + 1] == 0x80) {
            unsigned char d = (unsigned char)s[i + 2];
            if (d == 0x98 || d == 0x99 || d == 0x9C || d == 0x9D) {
                out[o++] = d <= 0x99 ? '\'' : '"';
                i += 2;
                space = false;
                continue;
            }
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (!space)
                out[o++] = ' ';
            space = true;
            continue;
        }
        if (c == 0)
            continue;
        out[o++] = (char)c;
        space = false;
    }
    while (o > 0 && out[o - 1] == ' ')
        o--;
    out[o] = '\0';
    /* 2. chatter at the front, repeatedly; a misspelt word of politeness too ("pleaes") */
    size_t start = 0;
    for (bool again = true; again;) {
        again = false;
        size_t wl = 0;
        while (start + wl < o && isalpha((unsigned char)out[start + wl]))
            wl++;
        if (wl >= 5 && start + wl < o) {
            static const char *const POLITE[] = {"please", "thanks", "sorry", "hello", NULL};
            for (size_t k = 0; POLITE[k] && !again; k++)
                /* one slip, the first letter right ("helps" is no "hello"); the words as spelt
                   are LEAD's, in its longer phrases too */
                if (fold(out[start]) == POLITE[k][0] &&
                    qr_words_cost(out + start, wl, POLITE[k], strlen(POLITE[k])) == 1) {
                    start = skip_punct(out, o, start + wl);
                    again = true;
                }
            if (again)
                continue;
        }
        for (size_t k = 0; LEAD[k]; k++) {
            size_t m = phrase_at(out + start, o - start, LEAD[k]);
            if (!m)
                continue;
            size_t next = skip_punct(out, o, start + m);
            /* never eat the whole line, nor a word that a question starts with */
            if (next >= o)
                break;
            start = next;
            again = true;
            break;
        }
    }
    /* 2b. a hedge clause ("sorry if this is a dumb question but"), then chatter again */
    for (size_t k = 0; HEDGE[k]; k++) {
        /* at the line's start ("sorry if ...": "sorry" alone is chatter too) or after
           the chatter */
        size_t at = phrase_at(out, o, HEDGE[k]) ? 0 : start;
        size_t m = phrase_at(out + at, o - at, HEDGE[k]);
        if (!m)
            continue;
        size_t e = hedge_end(out, o, at + m);
        size_t next = e ? skip_punct(out, o, e) : 0;
        if (next && next < o) {
            start = next;
            for (bool again = true; again;) {
                again = false;
                for (size_t l = 0; LEAD[l]; l++) {
                    size_t ml = phrase_at(out + start, o - start, LEAD[l]);
                    size_t nx = ml ? skip_punct(out, o, start + ml) : 0;
                    if (ml && nx < o) {
                        start = nx;
                        again = true;
                        break;
                    }
                }
            }
        }
        break;
    }
    /* 2c. a remark after the question: "who calls f? just the names is fine", "what
       changed in x? I'm reviewing it": what the asker says of themselves or of the
       answer's form, after the question's '?' */
    size_t end = o;
    for (size_t i = start; i + 1 < o; i++) {
        if (out[i] != '?' || out[i + 1] != ' ')
            continue;
        const char *r = out + i + 2;
        size_t rn = o - (i + 2);
        static const char *const SELF[] = {"i'm", "im", "i am", "i", "we're", "we are", "we",
                                           "it's for", "its for", "this is for", NULL};
        static const char *const FORM[] = {"is fine", "is ok", "is okay", "is enough",
                                           "are fine", "would be great", "would be nice",
                                           "will do", NULL};
        bool remark = false;
        for (size_t k = 0; SELF[k] && !remark; k++)
            remark = phrase_at(r, rn, SELF[k]) != 0;
        size_t re = rn;
        while (re > 0 && strchr(".!? ", r[re - 1]))
            re--;
        for (size_t k = 0; FORM[k] && !remark; k++) {
            size_t fl = strlen(FORM[k]);
            remark = re > fl && r[re - fl - 1] == ' ' && phrase_at(r + re - fl, fl, FORM[k]) == fl;
        }
        if (remark && !memchr(r, '?', rn) && !memchr(r, '"', rn) && !memchr(r, '/', rn)) {
            end = i + 1;
            break;
        }
    }
    /* 3. politeness at the end, before a final ? . or ! */
    for (bool again = true; again;) {
        again = false;
        size_t e = end;
        while (e > start && (out[e - 1] == '?' || out[e - 1] == '.' || out[e - 1] == '!' ||
                             out[e - 1] == ' ' || out[e - 1] == ','))
            e--;
        for (size_t k = 0; TRAIL[k]; k++) {
            size_t pl = strlen(TRAIL[k]);
            if (e < start + pl + 1)
                continue;
            size_t at = e - pl;
            if (out[at - 1] != ' ' && out[at - 1] != ',')
                continue;
            if (phrase_at(out + at, e - at, TRAIL[k]) != pl)
                continue;
            size_t cut = at;
            while (cut > start && (out[cut - 1] == ' ' || out[cut - 1] == ','))
                cut--;
            if (cut == start)
                break;
            /* keep the question mark: "who ... please?" -> "who ...?" */
            char tail = out[end - 1] == '?' ? '?' : '\0';
            end = cut;
            if (tail)
                out[end++] = tail;
            again = true;
            break;
        }
    }
    /* a quote opened in the chatter means it was not chatter: keep the line whole */
    size_t q = 0;
    for (size_t i = 0; i < start; i++)
        if (out[i] == '"' || out[i] == '`')
            q++;
    if (q)
        start = 0;
    memmove(out, out + start, end - start);
    out[end - start] = '\0';
    return end - start;
}

/* ---- typos ---- */

static const char *const KEYS[] = {"qwertyuiop", "asdfghjkl", "zxcvbnm"};

static bool key_pos(char c, int *row, int *col)
{
    c = (char)tolower((unsigned char)c);
    for (int r = 0; r < 3; r++) {
        const char *p = strchr(KEYS[r], c);
        if (p && c) {
            *row = r;
            *col = (int)(p - KEYS[r]);
            return true;
        }
    }
    return false;
}

/* Two letters next to each other on a QWERTY keyboard (same row, or the rows touching). */
static bool adjacent(char a, char b)
{
    int ra, ca, rb, cb;
    if (!key_pos(a, &ra, &ca) || !key_pos(b, &rb, &cb))
        return false;
    int dr = ra - rb, dc = ca - cb;
    if (dr == 0)
        return dc == 1 || dc == -1;
    if (dr == 1 || dr == -1) /* rows are staggered: the lower row sits half a key right */
        return dr == 1 ? (dc == 0 || dc == -1) : (dc == 0 || dc == 1);
    return false;
}

static char fold(char c)
{
    c = (char)tolower((unsigned char)c);
    return c == '_' ? '-' : c;
}

size_t qr_words_cost(const char *a, size_t an, const char *b, size_t bn)
{
    if (an > QR_WORDS_MAX || bn > QR_WORDS_MAX)
        return SIZE_MAX;
    size_t d[QR_WORDS_MAX + 1][QR_WORDS_MAX + 1];
    for (size_t i = 0; i <= an; i++)
        d[i][0] = 2 * i;
    for (size_t j = 0; j <= bn; j++)
        d[0][j] = 2 * j;
    for (size_t i = 1; i <= an; i++) {
        for (size_t j = 1; j <= bn; j++) {
            char x = fold(a[i - 1]), y = fold(b[j - 1]);
            size_t sub = x == y ? 0 : adjacent(x, y) ? 1 : 2;
            size_t best = d[i - 1][j - 1] + sub;
            if (d[i - 1][j] + 2 < best)
                best = d[i - 1][j] + 2;
            if (d[i][j - 1] + 2 < best)
                best = d[i][j - 1] + 2;
            /* two letters swapped is one slip of the fingers, as a neighbour key is */
            if (i > 1 && j > 1 && x == fold(b[j - 2]) && fold(a[i - 2]) == y &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[an][bn];
}

size_t qr_words_allowed(size_t n)
{
    return n < 4 ? 0 : n <= 5 ? 2 : n <= 7 ? 3 : 4;
}

static bool letters(const char *w, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalpha((unsigned char)w[i]) && w[i] != '-' && w[i] != '_')
            return false;
    return true;
}

bool qr_words_typo(const char *w, size_t wn, const char *target, size_t tn)
{
    if (!letters(w, wn) || !letters(target, tn))
        return false;
    size_t c = qr_words_cost(w, wn, target, tn);
    if (c == 0)
        return true;
    /* the shorter word bounds it too: "vew" may be "view", "ab" is nothing */
    size_t lo = wn < tn ? wn : tn, hi = wn < tn ? tn : wn;
    if (lo < 3)
        return false;
    size_t allowed = qr_words_allowed(hi);
    if (lo == 3 && allowed > 2)
        allowed = 2;
    /* three letters, the last two swapped ("fxi" for "fix"): the one slip a word that
       short admits */
    if (wn == 3 && tn == 3 && fold(w[0]) == fold(target[0]) && fold(w[1]) == fold(target[2]) &&
        fold(w[2]) == fold(target[1]))
        return true;
    /* the first letter is rarely the one mistyped: a changed first letter costs more */
    if (fold(w[0]) != fold(target[0]))
        c += 1;
    return c <= allowed;
}

/* ---- the lexicon ---- */

typedef struct lex_ent {
    char *word;
    size_t len;
    int id;
} lex_ent;

struct qr_lex {
    lex_ent *e;
    size_t n, cap;
};

qr_lex *qr_lex_new(void)
{
    return calloc(1, sizeof(qr_lex));
}

void qr_lex_free(qr_lex *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        free(l->e[i].word);
    free(l->e);
    free(l);
}

int qr_lex_add(qr_lex *l, const char *word, int id)
{
    size_t n = word ? strlen(word) : 0;
    if (!l || n == 0 || n > QR_WORDS_MAX || id < 0)
        return QR_EINVAL;
    for (size_t i = 0; i < l->n; i++)
        if (l->e[i].id == id && l->e[i].len == n && qr_words_cost(l->e[i].word, n, word, n) == 0)
            return QR_OK;
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 64;
        lex_ent *e = realloc(l->e, nc * sizeof *e);
        if (!e)
            return QR_ENOMEM;
        l->e = e;
        l->cap = nc;
    }
    char *c = malloc(n + 1);
    if (!c)
        return QR_ENOMEM;
    for (size_t i = 0; i < n; i++)
        c[i] = fold(word[i]);
    c[n] = '\0';
    l->e[l->n++] = (lex_ent){c, n, id};
    return QR_OK;
}

int qr_lex_add_list(qr_lex *l, const char *const *words, int id)
{
    for (size_t i = 0; words && words[i]; i++) {
        int rc = qr_lex_add(l, words[i], id);
        if (rc != QR_OK)
            return rc;
    }
    return QR_OK;
}

int qr_lex_add_tools(qr_lex *l, const qr_tools *r, int base)
{
    size_t n = qr_tools_count(r);
    for (size_t i = 0; i < n; i++) {
        const qr_tool *t = qr_tools_at(r, i);
        int id = base + (int)i, rc;
        if (strlen(t->name) <= QR_WORDS_MAX && (rc = qr_lex_add(l, t->name, id)) != QR_OK)
            return rc;
        /* the parts of its name: "search_codebase" -> "search", "codebase" */
        char part[QR_WORDS_MAX + 1];
        for (const char *p = t->name; *p;) {
            size_t k = strcspn(p, "_-");
            if (k >= 4 && k <= QR_WORDS_MAX && !(p == t->name && !p[k])) {
                memcpy(part, p, k);
                part[k] = '\0';
                if ((rc = qr_lex_add(l, part, id)) != QR_OK)
                    return rc;
            }
            p += k;
            while (*p == '_' || *p == '-')
                p++;
        }
        for (const qr_tool_param *pp = t->params; pp && pp->name; pp++) {
            if ((rc = qr_lex_add(l, pp->name, id)) != QR_OK && rc != QR_EINVAL)
                return rc;
            for (const char *const *v = pp->enum_values; v && *v; v++)
                if ((rc = qr_lex_add(l, *v, id)) != QR_OK && rc != QR_EINVAL)
                    return rc;
        }
    }
    return QR_OK;
}

size_t qr_lex_count(const qr_lex *l)
{
    return l ? l->n : 0;
}

qr_lex_hit qr_lex_find(const qr_lex *l, const char *w, size_t wn)
{
    qr_lex_hit h = {QR_LEX_NONE, NULL, SIZE_MAX, QR_LEX_NONE};
    if (!l || !w || wn == 0 || wn > QR_WORDS_MAX)
        return h;
    /* exact first: several ids on one word make it ambiguous */
    for (size_t i = 0; i < l->n; i++) {
        if (l->e[i].len != wn || qr_words_cost(l->e[i].word, wn, w, wn) != 0)
            continue;
        if (h.id == QR_LEX_NONE) {
            h.id = l->e[i].id;
            h.word = l->e[i].word;
            h.cost = 0;
        } else if (h.id != l->e[i].id && h.id != QR_LEX_AMBIGUOUS) {
            h.other = l->e[i].id;
            h.id = QR_LEX_AMBIGUOUS;
        }
    }
    if (h.id != QR_LEX_NONE)
        return h;
    int best_id = QR_LEX_NONE;
    for (size_t i = 0; i < l->n; i++) {
        const lex_ent *e = &l->e[i];
        if (e->len + 2 < wn || wn + 2 < e->len || !qr_words_typo(w, wn, e->word, e->len))
            continue;
        size_t c = qr_words_cost(w, wn, e->word, e->len);
        if (c < h.cost) {
            h.cost = c;
            h.word = e->word;
            best_id = e->id;
            h.other = QR_LEX_NONE;
        } else if (c == h.cost && e->id != best_id) {
            h.other = e->id;
        }
    }
    h.id = best_id == QR_LEX_NONE ? QR_LEX_NONE
           : h.other != QR_LEX_NONE ? QR_LEX_AMBIGUOUS
                                    : best_id;
    return h;
}

/* ---- small recognizers ---- */

bool qr_words_kv(const char *tok, size_t n, char *key, size_t kcap, char *val, size_t vcap)
{
    size_t i = 0;
    while (i < n && i < 2 && tok[i] == '-')
        i++;
    size_t k0 = i;
    if (i >= n || !isalpha((unsigned char)tok[i]))
        return false;
    while (i < n && (isalnum((unsigned char)tok[i]) || tok[i] == '_' || tok[i] == '-'))
        i++;
    if (i >= n || (tok[i] != '=' && tok[i] != ':'))
        return false;
    size_t kl = i - k0;
    /* "key:value" only when the value does not start with '/' (a URL) */
    if (tok[i] == ':' && i + 1 < n && tok[i + 1] == '/')
        return false;
    size_t v0 = i + 1, vl = n - v0;
    if (kl == 0 || vl == 0 || kl >= kcap || vl >= vcap)
        return false;
    memcpy(key, tok + k0, kl);
    key[kl] = '\0';
    for (size_t j = 0; j < kl; j++)
        key[j] = (char)tolower((unsigned char)key[j]);
    memcpy(val, tok + v0, vl);
    val[vl] = '\0';
    /* quotes around the value are not part of it */
    if (vl >= 2 && (val[0] == '\'' || val[0] == '"') && val[vl - 1] == val[0]) {
        memmove(val, val + 1, vl - 2);
        val[vl - 2] = '\0';
    }
    return val[0] != '\0';
}

static const char *const NUMS[] = {"zero", "one", "two", "three", "four", "five", "six",
                                   "seven", "eight", "nine", "ten", "eleven", "twelve",
                                   "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
                                   "eighteen", "nineteen", "twenty", NULL};
static const char *const ORDS[] = {"zeroth", "first", "second", "third", "fourth", "fifth",
                                   "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
                                   "twelfth", NULL};

/* w[0..n) is s, ASCII case folded */
static bool eq_fold(const char *w, size_t n, const char *s)
{
    if (strlen(s) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)w[i]) != (unsigned char)s[i])
            return false;
    return true;
}

long qr_words_number(const char *w, size_t n)
{
    if (n == 0)
        return -1;
    if (n <= 7) {
        long v = 0;
        size_t i = 0;
        for (; i < n && isdigit((unsigned char)w[i]); i++)
            v = v * 10 + (w[i] - '0');
        if (i == n)
            return v <= 1000000 ? v : -1;
    }
    for (size_t i = 0; NUMS[i]; i++)
        if (eq_fold(w, n, NUMS[i]))
            return (long)i;
    if (eq_fold(w, n, "dozen") || eq_fold(w, n, "a-dozen"))
        return 12;
    return -1;
}

int qr_words_ordinal(const char *w, size_t n)
{
    for (size_t i = 1; ORDS[i]; i++)
        if (eq_fold(w, n, ORDS[i]))
            return (int)i;
    if (eq_fold(w, n, "last"))
        return 0;
    /* "2nd", "3rd", "11th", "21st" */
    if (n >= 3 && n <= 5) {
        int v = 0;
        size_t i = 0;
        for (; i < n && isdigit((unsigned char)w[i]); i++)
            v = v * 10 + (w[i] - '0');
        if (i == 0 || n - i != 2)
            return 0;
        const char *suf = w + i;
        if (eq_fold(suf, 2, "st") || eq_fold(suf, 2, "nd") || eq_fold(suf, 2, "rd") ||
            eq_fold(suf, 2, "th"))
            return v >= 1 && v <= 100 ? v : 0;
    }
    return 0;
}
