/*
 * print.c: printing values as Clojure's pr-str and str do, and as JSON.
 *
 * Doubles print as Java does (the shortest digits that read back to the same double,
 * plain between 1e-3 and 1e7, else d.dddE±n), so results match what a Clojure user
 * expects. Maps print in insertion order with ", " between entries.
 *
 * Printing is bounded: every printer stops at a byte limit and at the thread's meter (see
 * qr_meter in value.h), because a value that shares its parts can print to far more than
 * its size. Rejected: detecting sharing and printing references (EDN has none).
 */
#include "quarry/value.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void qr_print_double(qr_buf *b, double d)
{
    if (isnan(d)) {
        qr_buf_puts(b, "##NaN");
        return;
    }
    if (isinf(d)) {
        qr_buf_puts(b, d > 0 ? "##Inf" : "##-Inf");
        return;
    }
    if (d == 0) {
        qr_buf_puts(b, signbit(d) ? "-0.0" : "0.0");
        return;
    }
    /* the fewest significant digits that read back as d, by a binary search over 1..17.
     * The result always reads back (hi only ever moves to a precision that did, or is 17,
     * which always does). The search assumes a larger precision keeps round-tripping; a
     * rare double breaks that (one in about 250,000: 14 and 15 digits read back, 16 do
     * not), and for those the result could be a digit longer than the shortest. */
    char tmp[40];
    int lo = 1, hi = 17;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        snprintf(tmp, sizeof tmp, "%.*e", mid - 1, d);
        if (strtod(tmp, NULL) == d)
            hi = mid;
        else
            lo = mid + 1;
    }
    snprintf(tmp, sizeof tmp, "%.*e", lo - 1, d);
    /* tmp: [-]D[.DDD]e[+-]XX */
    char digits[24];
    size_t nd = 0;
    const char *p = tmp;
    bool neg = false;
    if (*p == '-') {
        neg = true;
        p++;
    }
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[nd++] = *p;
    int exp = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    if (neg)
        qr_buf_putc(b, '-');
    double ad = fabs(d);
    if (ad >= 1e-3 && ad < 1e7) {
        if (exp >= 0) {
            for (int i = 0; i <= exp; i++)
                qr_buf_putc(b, (size_t)i < nd ? digits[i] : '0');
            qr_buf_putc(b, '.');
            if ((size_t)exp + 1 < nd)
                qr_buf_append(b, digits + exp + 1, nd - (size_t)exp - 1);
            else
                qr_buf_putc(b, '0');
        } else {
            qr_buf_puts(b, "0.");
            for (int i = 0; i < -exp - 1; i++)
                qr_buf_putc(b, '0');
            qr_buf_append(b, digits, nd);
        }
        return;
    }
    qr_buf_putc(b, digits[0]);
    qr_buf_putc(b, '.');
    if (nd > 1)
        qr_buf_append(b, digits + 1, nd - 1);
    else
        qr_buf_putc(b, '0');
    qr_buf_printf(b, "E%d", exp);
}

/* ---- the bounded printer ----
 * Every printer below checks, at each value it visits, whether its output has passed its
 * byte limit or the thread's meter says stop, and then prints nothing more: a value that
 * shares its parts costs at most the limit to print, never its unshared size. A value visit
 * emits at least one byte (an empty string inside a collection is surrounded by its
 * separators), so the limit bounds the visits too. To only measure, the printer writes
 * into a scratch buffer that it empties as it goes. */
typedef struct printer {
    qr_buf *b;
    size_t start;   /* b->len when printing began */
    size_t flushed; /* measuring: bytes already dropped from the scratch buffer */
    bool measure;
    size_t max;
    int status;     /* QR_PRINT_* */
    qr_meter *meter; /* made soft while printing */
} printer;

static size_t p_len(const printer *p)
{
    return p->flushed + p->b->len - p->start;
}

/* True when printing must stop (checked before each value). */
static bool p_stop(printer *p)
{
    if (p->status)
        return true;
    if (p->b->failed || p_len(p) > p->max) {
        p->status = QR_PRINT_CUT;
        return true;
    }
    if (p->measure && p->b->len > 4096) {
        p->flushed += p->b->len;
        p->b->len = 0;
    }
    if (qr_meter_tick(1)) {
        p->status = QR_PRINT_STOPPED;
        return true;
    }
    return false;
}

/* Bytes of a long string worth printing: one more than the room left, so the cut shows. */
static size_t p_room(const printer *p, size_t n)
{
    size_t used = p_len(p);
    size_t room = used > p->max ? 0 : p->max - used;
    return n <= room ? n : room + 1;
}

static void p_begin(printer *p, qr_buf *b, qr_buf *scratch, size_t max)
{
    memset(p, 0, sizeof *p);
    p->measure = b == NULL;
    if (p->measure) {
        qr_buf_init(scratch);
        b = scratch;
    }
    p->b = b;
    p->start = b->len;
    p->max = max;
    p->meter = qr_meter_current;
    if (p->meter)
        p->meter->soft++;
}

static int p_end(printer *p)
{
    if (p->meter)
        p->meter->soft--;
    if (p->status != QR_PRINT_STOPPED && (p->b->failed || p_len(p) > p->max))
        p->status = QR_PRINT_CUT;
    if (p->measure) {
        qr_buf_release(p->b);
    } else if (p->status == QR_PRINT_CUT && !p->b->failed && p->b->len > p->start + p->max) {
        size_t cut = p->start + p->max;
        while (cut > p->start && ((unsigned char)p->b->p[cut] & 0xc0) == 0x80)
            cut--; /* do not split a UTF-8 sequence */
        p->b->len = cut;
        p->b->p[cut] = 0;
    }
    return p->status;
}

static void pr(printer *p, qr_val v, int mode)
{
    if (p_stop(p))
        return;
    qr_buf *b = p->b;
    switch ((qr_type)v.t) {
    case QR_T_NIL: qr_buf_puts(b, "nil"); return;
    case QR_T_BOOL: qr_buf_puts(b, v.b ? "true" : "false"); return;
    case QR_T_INT: qr_buf_printf(b, "%lld", (long long)v.i); return;
    case QR_T_DOUBLE: qr_print_double(b, v.d); return;
    case QR_T_STR: {
        size_t n = p_room(p, v.s->len);
        if (mode == QR_PRINT_DISPLAY)
            qr_buf_append(b, v.s->data, n);
        else
            qr_buf_json_string(b, v.s->data, n); /* the escapes EDN and JSON share */
        return;
    }
    case QR_T_KW:
        qr_buf_putc(b, ':');
        qr_buf_append(b, v.sym->text, v.sym->len);
        return;
    case QR_T_SYM: qr_buf_append(b, v.sym->text, v.sym->len); return;
    case QR_T_LIST:
    case QR_T_VEC: {
        qr_buf_putc(b, v.t == QR_T_LIST ? '(' : '[');
        const qr_val *x = qr_vec_items(v);
        for (size_t i = 0; i < v.c->len && !p->status; i++) {
            if (i)
                qr_buf_putc(b, ' ');
            pr(p, x[i], mode);
        }
        qr_buf_putc(b, v.t == QR_T_LIST ? ')' : ']');
        return;
    }
    case QR_T_MAP:
        qr_buf_putc(b, '{');
        for (size_t i = 0; i < v.c->len && !p->status; i++) {
            if (i)
                qr_buf_puts(b, ", ");
            pr(p, qr_map_key_at(v, i), mode);
            qr_buf_putc(b, ' ');
            pr(p, qr_map_val_at(v, i), mode);
        }
        qr_buf_putc(b, '}');
        return;
    case QR_T_SET:
        qr_buf_puts(b, "#{");
        for (size_t i = 0; i < v.c->len && !p->status; i++) {
            if (i)
                qr_buf_putc(b, ' ');
            pr(p, qr_map_key_at(v, i), mode);
        }
        qr_buf_putc(b, '}');
        return;
    case QR_T_FN:
        qr_buf_puts(b, "#function[");
        qr_buf_puts(b, v.fn && v.fn->name ? v.fn->name : "fn");
        qr_buf_putc(b, ']');
        return;
    case QR_T_REGEX:
        qr_buf_puts(b, "#\"");
        qr_buf_append(b, v.re->source->data, v.re->source->len);
        qr_buf_putc(b, '"');
        return;
    case QR_T_VAR:
        qr_buf_puts(b, "#'user/");
        qr_buf_append(b, v.var->sym->text, v.var->sym->len);
        return;
    case QR_T_LAZY:
        if (!qr_is_range(v)) {
            qr_buf_puts(b, "#unbounded-seq");
            return;
        }
        qr_buf_putc(b, '(');
        for (uint64_t i = 0; i < qr_range_len(v) && !p->status; i++) {
            if (i)
                qr_buf_putc(b, ' ');
            pr(p, qr_int(qr_range_at(v, i)), mode);
        }
        qr_buf_putc(b, ')');
        return;
    }
}

int qr_print_max(qr_buf *b, qr_val v, int mode, size_t max)
{
    printer p;
    qr_buf scratch;
    p_begin(&p, b, &scratch, max);
    pr(&p, v, mode);
    return p_end(&p);
}

int qr_print_measure(qr_val v, int mode, size_t max, size_t *len)
{
    printer p;
    qr_buf scratch;
    p_begin(&p, NULL, &scratch, max);
    pr(&p, v, mode);
    *len = p_len(&p);
    return p_end(&p);
}

void qr_print(qr_buf *b, qr_val v, int mode)
{
    qr_print_max(b, v, mode, SIZE_MAX);
}

void qr_print_short(qr_buf *b, qr_val v, size_t max)
{
    size_t start = b->len;
    if (qr_print_max(b, v, QR_PRINT_READABLY, max) != QR_PRINT_DONE && max > 3 && !b->failed) {
        size_t cut = start + max - 3;
        if (cut > b->len)
            cut = b->len;
        while (cut > start && ((unsigned char)b->p[cut] & 0xc0) == 0x80)
            cut--; /* do not split a UTF-8 sequence */
        b->len = cut;
        qr_buf_puts(b, "...");
    }
}

void qr_describe(qr_buf *b, qr_val v)
{
    qr_buf_puts(b, qr_type_name((qr_type)v.t));
    if (v.t == QR_T_NIL)
        return;
    qr_buf_putc(b, ' ');
    qr_print_short(b, v, 60);
}

static void indent(qr_buf *b, bool pretty, int level)
{
    if (!pretty)
        return;
    qr_buf_putc(b, '\n');
    for (int i = 0; i < level; i++)
        qr_buf_puts(b, "  ");
}

static void print_json(printer *p, qr_val v, bool pretty, int level)
{
    if (p_stop(p))
        return;
    qr_buf *b = p->b;
    switch ((qr_type)v.t) {
    case QR_T_NIL: qr_buf_puts(b, "null"); return;
    case QR_T_BOOL: qr_buf_puts(b, v.b ? "true" : "false"); return;
    case QR_T_INT: qr_buf_printf(b, "%lld", (long long)v.i); return;
    case QR_T_DOUBLE:
        if (!isfinite(v.d))
            qr_buf_puts(b, "null");
        else
            qr_print_double(b, v.d);
        return;
    case QR_T_STR: qr_buf_json_string(b, v.s->data, p_room(p, v.s->len)); return;
    case QR_T_KW:
    case QR_T_SYM: qr_buf_json_string(b, v.sym->text, v.sym->len); return;
    case QR_T_LIST:
    case QR_T_VEC:
    case QR_T_SET: {
        size_t n = v.c->len;
        qr_buf_putc(b, '[');
        for (size_t i = 0; i < n && !p->status; i++) {
            if (i)
                qr_buf_putc(b, ',');
            indent(b, pretty, level + 1);
            print_json(p, v.t == QR_T_SET ? qr_map_key_at(v, i) : qr_vec_at(v, i), pretty,
                       level + 1);
        }
        if (n)
            indent(b, pretty, level);
        qr_buf_putc(b, ']');
        return;
    }
    case QR_T_MAP: {
        size_t n = v.c->len;
        qr_buf_putc(b, '{');
        for (size_t i = 0; i < n && !p->status; i++) {
            if (i)
                qr_buf_putc(b, ',');
            indent(b, pretty, level + 1);
            qr_val k = qr_map_key_at(v, i);
            if (k.t == QR_T_STR || k.t == QR_T_KW || k.t == QR_T_SYM) {
                print_json(p, k, false, 0);
            } else {
                qr_buf tmp;
                qr_buf_init(&tmp);
                int st = qr_print_max(&tmp, k, QR_PRINT_DISPLAY, p_room(p, SIZE_MAX));
                qr_buf_json_string(b, tmp.p ? tmp.p : "", tmp.len);
                qr_buf_release(&tmp);
                if (st == QR_PRINT_STOPPED)
                    p->status = st;
            }
            qr_buf_puts(b, pretty ? ": " : ":");
            print_json(p, qr_map_val_at(v, i), pretty, level + 1);
        }
        if (n)
            indent(b, pretty, level);
        qr_buf_putc(b, '}');
        return;
    }
    case QR_T_FN:
    case QR_T_REGEX:
    case QR_T_VAR:
    case QR_T_LAZY: {
        if (qr_is_range(v)) {
            qr_buf_putc(b, '[');
            for (uint64_t i = 0; i < qr_range_len(v) && !p->status; i++) {
                if (i)
                    qr_buf_putc(b, ',');
                indent(b, pretty, level + 1);
                print_json(p, qr_int(qr_range_at(v, i)), pretty, level + 1);
            }
            if (qr_range_len(v))
                indent(b, pretty, level);
            qr_buf_putc(b, ']');
            return;
        }
        qr_buf tmp;
        qr_buf_init(&tmp);
        qr_print(&tmp, v, QR_PRINT_READABLY);
        qr_buf_json_string(b, tmp.p ? tmp.p : "", tmp.len);
        qr_buf_release(&tmp);
        return;
    }
    }
}

int qr_print_json_max(qr_buf *b, qr_val v, bool pretty, size_t max)
{
    printer p;
    qr_buf scratch;
    p_begin(&p, b, &scratch, max);
    print_json(&p, v, pretty, 0);
    return p_end(&p);
}

void qr_print_json(qr_buf *b, qr_val v, bool pretty)
{
    qr_print_json_max(b, v, pretty, SIZE_MAX);
}
