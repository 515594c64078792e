/*
 * num.c: exact xsd:integer and xsd:decimal values for SPARQL's arithmetic, comparisons,
 * rounding functions and casts (issue 28: "never a wrong number"). A value is a GMP
 * integer m and a scale s, m / 10^s; integers have scale 0. Integers that fit in 64 bits
 * still take the evaluator's int64 path (expr.c, term.c); everything else that is an
 * integer or a decimal comes here, so 99999999999999999999 = 99999999999999999998 is false,
 * 0.1 + 0.2 = 0.3 is true, and 1 / 3 keeps 18 digits.
 *
 * Rejected: doubles for decimals (15-17 significant digits, the bug), a hand-written
 * bignum (GMP is the well-kept one), libmpdec (not packaged by Debian 12).
 */
#include "num.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void sq_dec_init(sq_dec *d)
{
    mpz_init(d->m);
    d->scale = 0;
}

void sq_dec_clear(sq_dec *d)
{
    mpz_clear(d->m);
}

/* strips trailing zeros after the point: the canonical value */
static void normalize(sq_dec *d)
{
    if (!d->scale)
        return;
    if (!mpz_sgn(d->m)) {
        d->scale = 0;
        return;
    }
    while (d->scale && mpz_divisible_ui_p(d->m, 10)) {
        mpz_divexact_ui(d->m, d->m, 10);
        d->scale--;
    }
}

bool sq_dec_set_lex(sq_dec *d, const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    bool neg = false;
    if (n && (*s == '+' || *s == '-')) {
        neg = *s == '-';
        s++;
        n--;
    }
    /* up to 18 digits: no string for GMP to read */
    if (n && n <= 19) {
        uint64_t v = 0;
        size_t frac = 0, digits = 0;
        bool dot = false, ok = true;
        for (size_t i = 0; i < n && ok; i++) {
            if (s[i] >= '0' && s[i] <= '9') {
                v = v * 10 + (uint64_t)(s[i] - '0');
                digits++;
                frac += dot;
            } else if (s[i] == '.' && !dot) {
                dot = true;
            } else {
                ok = false;
            }
        }
        if (!ok || !digits || digits > 18)
            goto slow;
        mpz_set_ui(d->m, (unsigned long)v);
        if (neg)
            mpz_neg(d->m, d->m);
        d->scale = frac;
        normalize(d);
        return true;
    }
slow:;
    char small[64];
    char *buf = n < sizeof small ? small : malloc(n + 1);
    if (!buf)
        return false;
    size_t k = 0, frac = 0, digits = 0;
    bool dot = false, ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        if (isdigit((unsigned char)s[i])) {
            buf[k++] = s[i];
            digits++;
            if (dot)
                frac++;
        } else if (s[i] == '.' && !dot) {
            dot = true;
        } else {
            ok = false;
        }
    }
    ok = ok && digits > 0;
    if (ok) {
        buf[k] = 0;
        ok = mpz_set_str(d->m, buf, 10) == 0;
    }
    if (buf != small)
        free(buf);
    if (!ok)
        return false;
    if (neg)
        mpz_neg(d->m, d->m);
    d->scale = frac;
    normalize(d);
    return true;
}

bool sq_dec_set_term(sq_dec *d, const sq_term *t)
{
    int r = sq_numeric_rank(t);
    if (r != 1 && r != 2)
        return false;
    if (r == 1) {
        /* an integer has no point */
        for (size_t i = 0; i < t->len; i++)
            if (t->lex[i] == '.')
                return false;
    }
    return sq_dec_set_lex(d, t->lex, t->len);
}

/* x = a's m scaled up to scale s (s >= a->scale) */
static void scaled(mpz_t x, const sq_dec *a, unsigned long s)
{
    mpz_ui_pow_ui(x, 10, s - a->scale);
    mpz_mul(x, x, a->m);
}

int sq_dec_cmp(const sq_dec *a, const sq_dec *b)
{
    if (a->scale == b->scale)
        return mpz_cmp(a->m, b->m);
    mpz_t x;
    mpz_init(x);
    int c;
    if (a->scale < b->scale) {
        scaled(x, a, b->scale);
        c = mpz_cmp(x, b->m);
    } else {
        scaled(x, b, a->scale);
        c = -mpz_cmp(x, a->m);
    }
    mpz_clear(x);
    return c < 0 ? -1 : c > 0;
}

/* digits of |m| (0 has one) */
static long ndigits(const mpz_t m)
{
    if (!mpz_sgn(m))
        return 1;
    long n = (long)mpz_sizeinbase(m, 10); /* exact or one too many */
    mpz_t p;
    mpz_init(p);
    mpz_ui_pow_ui(p, 10, (unsigned long)(n - 1));
    if (mpz_cmpabs(m, p) < 0)
        n--;
    mpz_clear(p);
    return n;
}

bool sq_dec_op(sq_dec *r, int op, const sq_dec *a, const sq_dec *b)
{
    if ((op == E_ADD || op == E_SUB) && a->scale == b->scale) {
        if (op == E_ADD)
            mpz_add(r->m, a->m, b->m);
        else
            mpz_sub(r->m, a->m, b->m);
        r->scale = a->scale;
    } else if (op == E_ADD || op == E_SUB) {
        unsigned long s = a->scale > b->scale ? a->scale : b->scale;
        mpz_t x, y;
        mpz_init(x);
        mpz_init(y);
        scaled(x, a, s);
        scaled(y, b, s);
        if (op == E_ADD)
            mpz_add(r->m, x, y);
        else
            mpz_sub(r->m, x, y);
        mpz_clear(x);
        mpz_clear(y);
        r->scale = s;
    } else if (op == E_MUL) {
        mpz_mul(r->m, a->m, b->m);
        r->scale = a->scale + b->scale;
    } else {
        if (!mpz_sgn(b->m))
            return false;
        /* 18 digits after the point; more when the quotient is below 1, until it has 18
         * significant ones (e: its order of magnitude, give or take one) */
        long e = (ndigits(a->m) - (long)a->scale) - (ndigits(b->m) - (long)b->scale);
        long s = SQ_DEC_DIGITS;
        mpz_t num, den, rem;
        mpz_init(num);
        mpz_init(den);
        mpz_init(rem);
        for (int round = 0; round < 3; round++) {
            /* q = trunc(a.m * 10^(b.scale + s) / (b.m * 10^a.scale)) */
            mpz_ui_pow_ui(num, 10, b->scale + (unsigned long)s);
            mpz_mul(num, num, a->m);
            mpz_ui_pow_ui(den, 10, a->scale);
            mpz_mul(den, den, b->m);
            mpz_tdiv_qr(r->m, rem, num, den);
            long d = mpz_sgn(r->m) ? ndigits(r->m) : 0;
            if (d >= SQ_DEC_DIGITS || !mpz_sgn(rem))
                break;
            s += d ? SQ_DEC_DIGITS - d : (-e + 2 > SQ_DEC_DIGITS ? -e + 2 : SQ_DEC_DIGITS);
        }
        mpz_clear(num);
        mpz_clear(den);
        mpz_clear(rem);
        r->scale = (unsigned long)s;
    }
    normalize(r);
    return true;
}

void sq_dec_round(sq_dec *r, int fn, const sq_dec *a)
{
    mpz_t p;
    mpz_init(p);
    mpz_ui_pow_ui(p, 10, a->scale);
    if (fn == F_FLOOR) {
        mpz_fdiv_q(r->m, a->m, p);
    } else if (fn == F_CEIL) {
        mpz_cdiv_q(r->m, a->m, p);
    } else {
        /* round half towards positive infinity: floor(a + 1/2) = floor((2m + p) / 2p) */
        mpz_t t;
        mpz_init(t);
        mpz_mul_ui(t, a->m, 2);
        mpz_add(t, t, p);
        mpz_mul_ui(p, p, 2);
        mpz_fdiv_q(r->m, t, p);
        mpz_clear(t);
    }
    mpz_clear(p);
    r->scale = 0;
}

char *sq_dec_lex(qr_arena *a, const sq_dec *d, bool integer, size_t *n)
{
    size_t cap = mpz_sizeinbase(d->m, 10) + 2;
    /* the arena's room first (its failure may unwind): sign, "0.", zeros, digits, ".0" */
    char *out = qr_arena_alloc(a, cap + d->scale + 6);
    if (!out)
        return NULL;
    char *digits = malloc(cap);
    if (!digits)
        return NULL;
    mpz_get_str(digits, 10, d->m);
    const char *ds = digits;
    bool neg = *ds == '-';
    if (neg)
        ds++;
    size_t nd = strlen(ds), s = d->scale;
    size_t k = 0;
    if (neg && mpz_sgn(d->m))
        out[k++] = '-';
    if (integer || s == 0) {
        memcpy(out + k, ds, nd);
        k += nd;
        if (!integer) {
            memcpy(out + k, ".0", 2);
            k += 2;
        }
    } else if (nd > s) {
        memcpy(out + k, ds, nd - s);
        k += nd - s;
        out[k++] = '.';
        memcpy(out + k, ds + nd - s, s);
        k += s;
    } else {
        out[k++] = '0';
        out[k++] = '.';
        for (size_t i = nd; i < s; i++)
            out[k++] = '0';
        memcpy(out + k, ds, nd);
        k += nd;
    }
    out[k] = 0;
    free(digits);
    *n = k;
    return out;
}

sq_term sq_dec_term(qr_arena *a, const sq_dec *d, bool integer)
{
    sq_term t = {0};
    size_t n;
    char *s = sq_dec_lex(a, d, integer, &n);
    if (!s)
        return t;
    t.kind = SQ_LIT;
    t.dt = integer ? XSD "integer" : XSD "decimal";
    t.lex = s;
    t.len = (uint32_t)n;
    return t;
}
