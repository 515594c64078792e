/*
 * regex_match.h: the regex matcher that lib_regex.c implements and lib_string.c shares
 * (clojure.string/split, replace and replace-first take regexes too).
 *
 * A matcher holds a compiled regex and the offsets of its last match. Each match runs
 * under the run's backtracking limits; reaching one raises regex-limit, so callers only
 * see "matched" or "did not match". Offsets are bytes into the subject (UTF-8).
 */
#ifndef QUARRY_REGEX_MATCH_H
#define QUARRY_REGEX_MATCH_H

#include "lisp_int.h"

/* Offset of a group that did not take part in the match (equals PCRE2_UNSET). */
#define LX_RX_UNSET SIZE_MAX

typedef struct lx_rx {
    qr_lx *lx;
    const qr_regex *re;
    uint32_t ngroups; /* capturing groups in the pattern (the whole match not counted) */
    size_t *ov;       /* 2 * (ngroups + 1) offsets of the last match: start, end, ... */
    const char *subj;    /* the subject of the last match, and its length */
    size_t subj_n;
    bool again;          /* the last match was not the first on this subject */
    bool known, valid;   /* whether the subject is valid UTF-8, once checked */
    void *fast;          /* the pattern compiled for valid subjects only, or NULL */
} lx_rx;

void lx_rx_init(qr_lx *lx, lx_rx *m, const qr_regex *re);

/* Finds the first match in s[0..n) that starts at byte `from` or later. With `whole`, the
 * match must start at `from` and end at n (re-matches). Returns false when there is
 * none; otherwise m->ov holds the match. */
bool lx_rx_exec(lx_rx *m, const char *s, size_t n, size_t from, bool whole);

/* Where the search after the last match starts, as Java's Matcher.find does it: at the
 * end of the match, or one character further after an empty match. Returns n + 1 when
 * there is nothing left to search. */
size_t lx_rx_next(const lx_rx *m, const char *s, size_t n);

/* The last match as re-find returns it: the matched string when the pattern has no
 * groups, else the vector [whole g1 g2 ...] with nil for groups that did not match. */
qr_val lx_rx_groups(lx_rx *m, const char *s);

/* Number of the group named name[0..len), or -1 when the pattern has no such group. */
int lx_rx_group_number(const lx_rx *m, const char *name, size_t len);

#endif
