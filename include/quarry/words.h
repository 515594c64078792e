/*
 * words.h: the one plain-words reader (queries layer) that ask's router, the DWIM parser
 * and search_codebase read people's wording through, so a word, a typo rule or a piece of
 * chatter learnt by one front door is learnt by all three.
 *
 * What it holds:
 *  - the normalizer: smart quotes to ASCII, chatter and politeness taken off the ends
 *    ("hey, sorry to bother you, but ...", "... please", "thx in advance -"), spaces
 *    collapsed; case and the words that carry meaning are left for the reader;
 *  - one typo measure (length-aware edit distance in which a keyboard-adjacent letter
 *    costs half an edit) and one lexicon (word -> canonical id) searched with it, so
 *    every table a front door holds (verbs, aliases, tool names, parameter names, allowed
 *    values, synonyms) is read with the same tolerance;
 *  - small slot recognizers that need no repository: key=value terms, numbers written as
 *    words, ordinals ("second", "3rd"), "top N".
 * Recognizers that need the repository (people after .mailmap, paths, symbols, refs) stay
 * with the front door that holds the repository and call qr_words_typo / qr_lex_find.
 *
 * Ownership: a qr_lex owns copies of its words; qr_lex_free releases them. Every other
 * function writes only into the caller's buffers.
 * Errors: qr_lex_new returns NULL on allocation failure; qr_lex_add returns QR_OK or
 * QR_ENOMEM, QR_EINVAL for an empty or over-long word (QR_WORDS_MAX bytes).
 */
#ifndef QUARRY_WORDS_H
#define QUARRY_WORDS_H

#include "quarry/base.h"
#include "quarry/tools.h"

#include <stdbool.h>
#include <stddef.h>

#define QR_WORDS_MAX 64

/* ---- normalizer ---- */

/* Writes s[0..len) normalized into out (cap bytes, NUL-terminated, never longer than the
 * input plus one): UTF-8 curly quotes become ' and ", runs of spaces one space, and
 * chatter is dropped from the front ("hey there,", "quick question:", "I was wondering,",
 * "sorry to bother you, but", "ok so um,", "can you", "please,") and the end ("please",
 * "pls", "asap", "thanks", "thx"). Words inside quotes are never dropped. Returns the
 * length written. */
size_t qr_words_normalize(const char *s, size_t len, char *out, size_t cap);

/* True when w (lowercase) is a politeness or chatter word that never changes what is
 * asked ("please", "pls", "thanks", "hey", "um", "asap"). */
bool qr_words_is_chatter(const char *w);

/* ---- typos ---- */

/* Cost in half-edits between a and b, case folded and '-' '_' equal: an insertion or
 * deletion costs 2, a substitution 2, or 1 when the two letters are neighbours on a QWERTY
 * keyboard, and two neighbouring letters swapped 1 (one slip, as a neighbour key is).
 * SIZE_MAX when either is longer than QR_WORDS_MAX. */
size_t qr_words_cost(const char *a, size_t an, const char *b, size_t bn);

/* The most half-edits a word of n bytes may be from what it means: 0 below 4 letters
 * (short words must be exact), 2 (one edit) for 4-5, 3 for 6-7, 4 (two edits) from 8. */
size_t qr_words_allowed(size_t n);

/* True when w is target or a typo of it within qr_words_allowed(longer of the two);
 * a word that is not letters (a number, a path) is never a typo. */
bool qr_words_typo(const char *w, size_t wn, const char *target, size_t tn);

/* ---- the lexicon ---- */

typedef struct qr_lex qr_lex;

enum { QR_LEX_NONE = -1, QR_LEX_AMBIGUOUS = -2 };

qr_lex *qr_lex_new(void);
void qr_lex_free(qr_lex *l);
/* Adds word (copied, case folded) with its canonical id (>= 0). A word may carry several
 * ids (a word that names two things); the lookup then says so. */
int qr_lex_add(qr_lex *l, const char *word, int id);
/* Adds every word of a NULL-terminated list with one id. */
int qr_lex_add_list(qr_lex *l, const char *const *words, int id);
/* Adds what the tool registry says of each tool: its name, the parts of its name, its
 * parameter names and their allowed values, all with id base + the tool's index. */
int qr_lex_add_tools(qr_lex *l, const qr_tools *r, int base);
size_t qr_lex_count(const qr_lex *l);

typedef struct qr_lex_hit {
    int id;            /* the canonical id, QR_LEX_NONE, or QR_LEX_AMBIGUOUS */
    const char *word;  /* the lexicon's word that matched (owned by the lexicon), or NULL */
    size_t cost;       /* half-edits from w to it: 0 when exact */
    int other;         /* when ambiguous, a second id that was as close */
} qr_lex_hit;

/* The entry w names: an exact (case-folded) word first; else the closest word within the
 * typo bound. Two different ids at the same closest cost make it QR_LEX_AMBIGUOUS. */
qr_lex_hit qr_lex_find(const qr_lex *l, const char *w, size_t wn);

/* ---- small recognizers ---- */

/* "key=value" or "--key=value" or "key:value" with key [A-Za-z][A-Za-z0-9_-]*: splits it
 * into key and value (NUL-terminated, at most kcap / vcap bytes). False when the token is
 * not one (a URL "http://x", a path "a/b=c", an empty key or value). */
bool qr_words_kv(const char *tok, size_t n, char *key, size_t kcap, char *val, size_t vcap);

/* A count written as digits or as a word ("7", "seven", "a dozen"): 0..1000000, else -1. */
long qr_words_number(const char *w, size_t n);

/* An ordinal ("first", "2nd", "third", "tenth"): 1..100, else 0. */
int qr_words_ordinal(const char *w, size_t n);

#endif
