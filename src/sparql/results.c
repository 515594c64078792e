/*
 * results.c: the result accessors and writers: W3C SPARQL 1.1 Query Results JSON and XML,
 * CSV and TSV (SPARQL 1.1 Query Results CSV and TSV Formats), and an aligned table for
 * people. Rows are written from the result's ids; terms live in the store.
 */
#include "sparql_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool qr_sparql_result_is_ask(const qr_sparql_result *r)
{
    return r->ask;
}
bool qr_sparql_result_boolean(const qr_sparql_result *r)
{
    return r->boolean;
}
size_t qr_sparql_result_nvars(const qr_sparql_result *r)
{
    return r->nvars;
}
const char *qr_sparql_result_var(const qr_sparql_result *r, size_t i)
{
    return i < r->nvars ? r->vars[i] : NULL;
}
size_t qr_sparql_result_nrows(const qr_sparql_result *r)
{
    return r->nrows;
}

bool qr_sparql_result_get(const qr_sparql_result *r, size_t i, size_t j, qr_sparql_term *t)
{
    if (i >= r->nrows || j >= r->nvars)
        return false;
    sq_id id = r->rows[i * r->nvars + j];
    if (!id)
        return false;
    const sq_term *x = &r->st->terms[id];
    t->kind = (qr_sparql_term_kind)x->kind;
    t->lex = x->lex;
    t->len = x->len;
    t->datatype = x->dt;
    t->lang = x->lang;
    return true;
}

int qr_sparql_format_parse(const char *s)
{
    if (!strcmp(s, "json"))
        return QR_SPARQL_FMT_JSON;
    if (!strcmp(s, "xml"))
        return QR_SPARQL_FMT_XML;
    if (!strcmp(s, "csv"))
        return QR_SPARQL_FMT_CSV;
    if (!strcmp(s, "tsv"))
        return QR_SPARQL_FMT_TSV;
    if (!strcmp(s, "table"))
        return QR_SPARQL_FMT_TABLE;
    return -1;
}

static void xml_escape(qr_buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '<': qr_buf_puts(b, "&lt;"); break;
        case '>': qr_buf_puts(b, "&gt;"); break;
        case '&': qr_buf_puts(b, "&amp;"); break;
        case '"': qr_buf_puts(b, "&quot;"); break;
        default: qr_buf_putc(b, s[i]); break;
        }
    }
}

static void csv_field(qr_buf *b, const char *s, size_t n)
{
    bool quote = false;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r')
            quote = true;
    if (!quote) {
        qr_buf_append(b, s, n);
        return;
    }
    qr_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            qr_buf_putc(b, '"');
        qr_buf_putc(b, s[i]);
    }
    qr_buf_putc(b, '"');
}

/* a term in Turtle-like syntax (TSV and the table) */
static void term_text(qr_buf *b, const sq_term *t, bool tsv)
{
    if (t->kind == SQ_IRI) {
        qr_buf_putc(b, '<');
        qr_buf_append(b, t->lex, t->len);
        qr_buf_putc(b, '>');
        return;
    }
    if (t->kind == SQ_BLANK) {
        qr_buf_puts(b, "_:");
        qr_buf_append(b, t->lex, t->len);
        return;
    }
    if (tsv && t->dt && (!strcmp(t->dt, XSD "integer") || !strcmp(t->dt, XSD "decimal") ||
                         !strcmp(t->dt, XSD "double") || !strcmp(t->dt, XSD "boolean"))) {
        qr_buf_append(b, t->lex, t->len);
        return;
    }
    qr_buf_putc(b, '"');
    for (size_t i = 0; i < t->len; i++) {
        char ch = t->lex[i];
        if (ch == '"' || ch == '\\') {
            qr_buf_putc(b, '\\');
            qr_buf_putc(b, ch);
        } else if (ch == '\n') {
            qr_buf_puts(b, "\\n");
        } else if (ch == '\t') {
            qr_buf_puts(b, "\\t");
        } else if (ch == '\r') {
            qr_buf_puts(b, "\\r");
        } else {
            qr_buf_putc(b, ch);
        }
    }
    qr_buf_putc(b, '"');
    if (t->lang) {
        qr_buf_putc(b, '@');
        qr_buf_puts(b, t->lang);
    } else if (t->dt) {
        qr_buf_puts(b, "^^<");
        qr_buf_puts(b, t->dt);
        qr_buf_putc(b, '>');
    }
}

static const sq_term *cell(const qr_sparql_result *r, size_t i, size_t j)
{
    sq_id id = r->rows[i * r->nvars + j];
    return id ? &r->st->terms[id] : NULL;
}

static void write_json(const qr_sparql_result *r, size_t from, size_t to, qr_buf *b)
{
    qr_buf_puts(b, "{\"head\":{");
    if (r->ask) {
        qr_buf_printf(b, "},\"boolean\":%s}\n", r->boolean ? "true" : "false");
        return;
    }
    qr_buf_puts(b, "\"vars\":[");
    for (size_t j = 0; j < r->nvars; j++) {
        if (j)
            qr_buf_putc(b, ',');
        qr_buf_json_string(b, r->vars[j], strlen(r->vars[j]));
    }
    qr_buf_puts(b, "]},\"results\":{\"bindings\":[");
    for (size_t i = from; i < to; i++) {
        qr_buf_puts(b, i > from ? ",\n{" : "\n{");
        bool first = true;
        for (size_t j = 0; j < r->nvars; j++) {
            const sq_term *t = cell(r, i, j);
            if (!t)
                continue;
            if (!first)
                qr_buf_putc(b, ',');
            first = false;
            qr_buf_json_string(b, r->vars[j], strlen(r->vars[j]));
            qr_buf_puts(b, ":{\"type\":");
            qr_buf_puts(b, t->kind == SQ_IRI ? "\"uri\"" : t->kind == SQ_BLANK ? "\"bnode\""
                                                                                : "\"literal\"");
            qr_buf_puts(b, ",\"value\":");
            qr_buf_json_string(b, t->lex, t->len);
            if (t->lang) {
                qr_buf_puts(b, ",\"xml:lang\":");
                qr_buf_json_string(b, t->lang, strlen(t->lang));
            } else if (t->dt) {
                qr_buf_puts(b, ",\"datatype\":");
                qr_buf_json_string(b, t->dt, strlen(t->dt));
            }
            qr_buf_putc(b, '}');
        }
        qr_buf_putc(b, '}');
    }
    qr_buf_puts(b, "]}}\n");
}

static void write_xml(const qr_sparql_result *r, size_t from, size_t to, qr_buf *b)
{
    qr_buf_puts(b, "<?xml version=\"1.0\"?>\n<sparql xmlns=\"http://www.w3.org/2005/sparql-results#\">\n<head>\n");
    for (size_t j = 0; j < r->nvars && !r->ask; j++) {
        qr_buf_puts(b, "  <variable name=\"");
        xml_escape(b, r->vars[j], strlen(r->vars[j]));
        qr_buf_puts(b, "\"/>\n");
    }
    qr_buf_puts(b, "</head>\n");
    if (r->ask) {
        qr_buf_printf(b, "<boolean>%s</boolean>\n</sparql>\n", r->boolean ? "true" : "false");
        return;
    }
    qr_buf_puts(b, "<results>\n");
    for (size_t i = from; i < to; i++) {
        qr_buf_puts(b, "  <result>\n");
        for (size_t j = 0; j < r->nvars; j++) {
            const sq_term *t = cell(r, i, j);
            if (!t)
                continue;
            qr_buf_puts(b, "    <binding name=\"");
            xml_escape(b, r->vars[j], strlen(r->vars[j]));
            qr_buf_puts(b, "\">");
            if (t->kind == SQ_IRI) {
                qr_buf_puts(b, "<uri>");
                xml_escape(b, t->lex, t->len);
                qr_buf_puts(b, "</uri>");
            } else if (t->kind == SQ_BLANK) {
                qr_buf_puts(b, "<bnode>");
                xml_escape(b, t->lex, t->len);
                qr_buf_puts(b, "</bnode>");
            } else {
                qr_buf_puts(b, "<literal");
                if (t->lang) {
                    qr_buf_puts(b, " xml:lang=\"");
                    xml_escape(b, t->lang, strlen(t->lang));
                    qr_buf_putc(b, '"');
                } else if (t->dt) {
                    qr_buf_puts(b, " datatype=\"");
                    xml_escape(b, t->dt, strlen(t->dt));
                    qr_buf_putc(b, '"');
                }
                qr_buf_putc(b, '>');
                xml_escape(b, t->lex, t->len);
                qr_buf_puts(b, "</literal>");
            }
            qr_buf_puts(b, "</binding>\n");
        }
        qr_buf_puts(b, "  </result>\n");
    }
    qr_buf_puts(b, "</results>\n</sparql>\n");
}

static void write_sv(const qr_sparql_result *r, size_t from, size_t to, qr_buf *b, bool tsv)
{
    if (r->ask) {
        qr_buf_puts(b, tsv ? "?_askResult\n" : "_askResult\n");
        qr_buf_puts(b, r->boolean ? "true\n" : "false\n");
        return;
    }
    for (size_t j = 0; j < r->nvars; j++) {
        if (j)
            qr_buf_putc(b, tsv ? '\t' : ',');
        if (tsv)
            qr_buf_putc(b, '?');
        qr_buf_puts(b, r->vars[j]);
    }
    qr_buf_puts(b, tsv ? "\n" : "\r\n");
    for (size_t i = from; i < to; i++) {
        for (size_t j = 0; j < r->nvars; j++) {
            if (j)
                qr_buf_putc(b, tsv ? '\t' : ',');
            const sq_term *t = cell(r, i, j);
            if (!t)
                continue;
            if (tsv) {
                term_text(b, t, true);
            } else if (t->kind == SQ_BLANK) {
                qr_buf_puts(b, "_:");
                qr_buf_append(b, t->lex, t->len);
            } else {
                csv_field(b, t->lex, t->len);
            }
        }
        qr_buf_puts(b, tsv ? "\n" : "\r\n");
    }
}

static void write_table(const qr_sparql_result *r, size_t from, size_t to, qr_buf *b)
{
    if (r->ask) {
        qr_buf_puts(b, r->boolean ? "true\n" : "false\n");
        return;
    }
    size_t nv = r->nvars;
    size_t *wid = calloc(nv + 1, sizeof(size_t));
    if (!wid) {
        b->failed = true;
        return;
    }
    qr_buf tmp;
    qr_buf_init(&tmp);
    for (size_t j = 0; j < nv; j++)
        wid[j] = qr_utf8_count(r->vars[j], strlen(r->vars[j])) + 1;
    for (size_t i = from; i < to; i++)
        for (size_t j = 0; j < nv; j++) {
            const sq_term *t = cell(r, i, j);
            if (!t)
                continue;
            qr_buf_reset(&tmp);
            if (t->kind == SQ_LIT && !t->lang && (!t->dt || sq_numeric_rank(t)))
                qr_buf_append(&tmp, t->lex, t->len);
            else
                term_text(&tmp, t, false);
            size_t w = qr_utf8_count(tmp.p ? tmp.p : "", tmp.len);
            if (w > 60)
                w = 60;
            if (w > wid[j])
                wid[j] = w;
        }
    for (size_t j = 0; j < nv; j++) {
        qr_buf_printf(b, "?%s", r->vars[j]);
        if (j + 1 < nv)
            for (size_t k = qr_utf8_count(r->vars[j], strlen(r->vars[j])) + 1; k < wid[j] + 2; k++)
                qr_buf_putc(b, ' ');
    }
    qr_buf_putc(b, '\n');
    for (size_t i = from; i < to; i++) {
        for (size_t j = 0; j < nv; j++) {
            const sq_term *t = cell(r, i, j);
            qr_buf_reset(&tmp);
            if (t) {
                if (t->kind == SQ_LIT && !t->lang && (!t->dt || sq_numeric_rank(t)))
                    qr_buf_append(&tmp, t->lex, t->len);
                else
                    term_text(&tmp, t, false);
            }
            const char *s = tmp.p ? tmp.p : "";
            size_t n = tmp.len, w = qr_utf8_count(s, n);
            if (w > 60) {
                n = qr_utf8_offset(s, n, 59);
                qr_buf_append(b, s, n);
                qr_buf_puts(b, "…");
                w = 60;
            } else {
                for (size_t k = 0; k < n; k++)
                    qr_buf_putc(b, (s[k] == '\n' || s[k] == '\t') ? ' ' : s[k]);
            }
            if (j + 1 < nv)
                for (size_t k = w; k < wid[j] + 2; k++)
                    qr_buf_putc(b, ' ');
        }
        qr_buf_putc(b, '\n');
    }
    qr_buf_release(&tmp);
    free(wid);
}

void qr_sparql_write(const qr_sparql_result *r, qr_sparql_format f, size_t offset, size_t count,
                     qr_buf *out)
{
    size_t from = offset < r->nrows ? offset : r->nrows;
    size_t to = count && from + count < r->nrows ? from + count : r->nrows;
    switch (f) {
    case QR_SPARQL_FMT_JSON: write_json(r, from, to, out); break;
    case QR_SPARQL_FMT_XML: write_xml(r, from, to, out); break;
    case QR_SPARQL_FMT_CSV: write_sv(r, from, to, out, false); break;
    case QR_SPARQL_FMT_TSV: write_sv(r, from, to, out, true); break;
    default: write_table(r, from, to, out); break;
    }
}

/* ---- N-Triples export of the default graph ---- */
static void nt_term(qr_buf *b, const sq_term *t)
{
    if (t->kind == SQ_IRI) {
        qr_buf_putc(b, '<');
        for (uint32_t i = 0; i < t->len; i++) {
            unsigned char c = (unsigned char)t->lex[i];
            if (c <= 0x20 || c == '<' || c == '>' || c == '"' || c == '{' || c == '}' ||
                c == '|' || c == '^' || c == '`' || c == '\\')
                qr_buf_printf(b, "\\u%04X", c);
            else
                qr_buf_putc(b, (char)c);
        }
        qr_buf_putc(b, '>');
        return;
    }
    if (t->kind == SQ_BLANK) {
        qr_buf_puts(b, "_:");
        for (uint32_t i = 0; i < t->len; i++) {
            unsigned char c = (unsigned char)t->lex[i];
            qr_buf_putc(b, (char)((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                                          (c >= 'A' && c <= 'Z') || c == '_'
                                      ? c
                                      : '_'));
        }
        return;
    }
    qr_buf_putc(b, '"');
    for (uint32_t i = 0; i < t->len; i++) {
        char c = t->lex[i];
        switch (c) {
        case '"': qr_buf_puts(b, "\\\""); break;
        case '\\': qr_buf_puts(b, "\\\\"); break;
        case '\n': qr_buf_puts(b, "\\n"); break;
        case '\r': qr_buf_puts(b, "\\r"); break;
        default: qr_buf_putc(b, c); break;
        }
    }
    qr_buf_putc(b, '"');
    if (t->lang) {
        qr_buf_putc(b, '@');
        qr_buf_puts(b, t->lang);
    } else if (t->dt) {
        qr_buf_puts(b, "^^");
        sq_term d = {0};
        d.kind = SQ_IRI;
        d.lex = t->dt;
        d.len = (uint32_t)strlen(t->dt);
        nt_term(b, &d);
    }
}

int qr_sparql_store_write_ntriples(qr_sparql_store *st, qr_buf *out)
{
    int rc = sq_store_index(st);
    if (rc)
        return rc;
    size_t n;
    const sq_quad *q = sq_store_match(st, SQ_DEFAULT_G, 0, 0, 0, &n);
    for (size_t i = 0; i < n; i++) {
        nt_term(out, &st->terms[q[i].s]);
        qr_buf_putc(out, ' ');
        nt_term(out, &st->terms[q[i].p]);
        qr_buf_putc(out, ' ');
        nt_term(out, &st->terms[q[i].o]);
        qr_buf_puts(out, " .\n");
    }
    return out->failed ? QR_ENOMEM : QR_OK;
}
