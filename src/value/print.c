/*
 * print.c: printing values as Clojure's pr-str and str do, and as JSON.
 *
 * Doubles print as Java does (the shortest digits that read back to the same double,
 * plain between 1e-3 and 1e7, else d.dddE±n), so results match what a Clojure user
 * expects. Maps print in insertion order with ", " between entries.
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

void qr_print_short(qr_buf *b, qr_val v, size_t max)
{
    qr_buf tmp;
    qr_buf_init(&tmp);
    qr_print(&tmp, v, QR_PRINT_READABLY);
    if (tmp.len > max && max > 3) {
        size_t cut = max - 3;
        while (cut > 0 && ((unsigned char)tmp.p[cut] & 0xc0) == 0x80)
            cut--; /* do not split a UTF-8 sequence */
        qr_buf_append(b, tmp.p, cut);
        qr_buf_puts(b, "...");
    } else if (tmp.p) {
        qr_buf_append(b, tmp.p, tmp.len);
    }
    qr_buf_release(&tmp);
}

void qr_describe(qr_buf *b, qr_val v)
{
    qr_buf_puts(b, qr_type_name((qr_type)v.t));
    if (v.t == QR_T_NIL)
        return;
    qr_buf_putc(b, ' ');
    qr_print_short(b, v, 60);
}

void qr_print(qr_buf *b, qr_val v, int mode)
{
    switch ((qr_type)v.t) {
    case QR_T_NIL: qr_buf_puts(b, "nil"); return;
    case QR_T_BOOL: qr_buf_puts(b, v.b ? "true" : "false"); return;
    case QR_T_INT: qr_buf_printf(b, "%lld", (long long)v.i); return;
    case QR_T_DOUBLE: qr_print_double(b, v.d); return;
    case QR_T_STR:
        if (mode == QR_PRINT_DISPLAY)
            qr_buf_append(b, v.s->data, v.s->len);
        else
            qr_buf_json_string(b, v.s->data, v.s->len); /* the escapes EDN and JSON share */
        return;
    case QR_T_KW:
        qr_buf_putc(b, ':');
        qr_buf_append(b, v.sym->text, v.sym->len);
        return;
    case QR_T_SYM: qr_buf_append(b, v.sym->text, v.sym->len); return;
    case QR_T_LIST:
    case QR_T_VEC: {
        qr_buf_putc(b, v.t == QR_T_LIST ? '(' : '[');
        const qr_val *x = qr_vec_items(v);
        for (size_t i = 0; i < v.c->len; i++) {
            if (i)
                qr_buf_putc(b, ' ');
            qr_print(b, x[i], mode);
        }
        qr_buf_putc(b, v.t == QR_T_LIST ? ')' : ']');
        return;
    }
    case QR_T_MAP:
        qr_buf_putc(b, '{');
        for (size_t i = 0; i < v.c->len; i++) {
            if (i)
                qr_buf_puts(b, ", ");
            qr_print(b, qr_map_key_at(v, i), mode);
            qr_buf_putc(b, ' ');
            qr_print(b, qr_map_val_at(v, i), mode);
        }
        qr_buf_putc(b, '}');
        return;
    case QR_T_SET:
        qr_buf_puts(b, "#{");
        for (size_t i = 0; i < v.c->len; i++) {
            if (i)
                qr_buf_putc(b, ' ');
            qr_print(b, qr_map_key_at(v, i), mode);
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
    case QR_T_LAZY: qr_buf_puts(b, "#unbounded-seq"); return;
    }
}

static void indent(qr_buf *b, bool pretty, int level)
{
    if (!pretty)
        return;
    qr_buf_putc(b, '\n');
    for (int i = 0; i < level; i++)
        qr_buf_puts(b, "  ");
}

static void print_json(qr_buf *b, qr_val v, bool pretty, int level)
{
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
    case QR_T_STR: qr_buf_json_string(b, v.s->data, v.s->len); return;
    case QR_T_KW:
    case QR_T_SYM: qr_buf_json_string(b, v.sym->text, v.sym->len); return;
    case QR_T_LIST:
    case QR_T_VEC:
    case QR_T_SET: {
        size_t n = v.c->len;
        qr_buf_putc(b, '[');
        for (size_t i = 0; i < n; i++) {
            if (i)
                qr_buf_putc(b, ',');
            indent(b, pretty, level + 1);
            print_json(b, v.t == QR_T_SET ? qr_map_key_at(v, i) : qr_vec_at(v, i), pretty,
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
        for (size_t i = 0; i < n; i++) {
            if (i)
                qr_buf_putc(b, ',');
            indent(b, pretty, level + 1);
            qr_val k = qr_map_key_at(v, i);
            if (k.t == QR_T_STR || k.t == QR_T_KW || k.t == QR_T_SYM) {
                print_json(b, k, false, 0);
            } else {
                qr_buf tmp;
                qr_buf_init(&tmp);
                qr_print(&tmp, k, QR_PRINT_DISPLAY);
                qr_buf_json_string(b, tmp.p ? tmp.p : "", tmp.len);
                qr_buf_release(&tmp);
            }
            qr_buf_puts(b, pretty ? ": " : ":");
            print_json(b, qr_map_val_at(v, i), pretty, level + 1);
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
        qr_buf tmp;
        qr_buf_init(&tmp);
        qr_print(&tmp, v, QR_PRINT_READABLY);
        qr_buf_json_string(b, tmp.p ? tmp.p : "", tmp.len);
        qr_buf_release(&tmp);
        return;
    }
    }
}

void qr_print_json(qr_buf *b, qr_val v, bool pretty)
{
    print_json(b, v, pretty, 0);
}
